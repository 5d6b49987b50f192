"""The draughts board: a position, the moves played from it, and the rules.

>>> import damier
>>> board = damier.Board()
>>> len(board.legal_moves)
9
>>> board.push("32-28")
Move(32, 28)
>>> board.push("19-23")
Move(19, 23)
>>> board.push("28x19")
Move(28, 19, captures=(23,), path=(28, 19))
>>> board.fen()
'B:W19,31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,20'
>>> board.pop()
Move(28, 19, captures=(23,), path=(28, 19))
>>> board.turn == damier.WHITE
True
"""

from __future__ import annotations

import numbers
from typing import Any

from damier._core import CoreBoard, Move
from damier.errors import IllegalMoveError
from damier.fen import NO_RUNS, KingRuns, _parse, format_fen
from damier.moves import explain_illegal
from damier.moves import parse_move as _parse_move
from damier.notation import move_text
from damier.outcome import Outcome, Snapshot, adjudicate, compute_outcome, draw_offer_allowed
from damier.piece import BLACK, WHITE, Color, Piece
from damier.rules import Rules
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["Board"]

MAX_PERFT_DEPTH = 64
"""The deepest :meth:`Board.perft` (no tree that deep can be counted anyway)."""

_CODE_TO_PIECE = {1: Piece(WHITE, False), 2: Piece(WHITE, True),
                  3: Piece(BLACK, False), 4: Piece(BLACK, True)}


class Board(CoreBoard):
    """A draughts position with its move stack, like python-chess's ``Board``.

    :param fen: the start position (default: the variant's initial position).
    :param variant: ``"international"`` (default), ``"english"``, ``"russian"``
        or ``"brazilian"``.
    :param rules: draw rules and rule options (default: the variant's usual
        rules, see :class:`damier.rules.Rules`).

    ``legal_moves`` lists the moves of the position; like python-chess it does
    not look at the draw rules: use :meth:`outcome` or :meth:`is_game_over`.

    >>> board = Board("B:W21-32:B1-12", variant="english")
    >>> board.turn == BLACK, len(board.legal_moves)
    (True, 7)
    >>> Board("W:W51:B1")
    Traceback (most recent call last):
    ...
    damier.errors.InvalidFenError: square 51 is out of range 1-50 for International ...
    """

    variant: Variant
    rules: Rules

    def __init__(self, fen: str | None = None, *, variant: str | Variant = DEFAULT_VARIANT,
                 rules: Rules | None = None) -> None:
        self.variant = get_variant(variant)
        self.rules = rules if rules is not None else Rules.for_variant(self.variant)
        self._core_init(self.variant.index, bool(getattr(self.rules, "huff", False)))
        self.set_fen(fen if fen is not None else self.variant.initial_fen)

    # -- set-up ---------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Sets up the position of ``fen`` and clears the move stack."""
        white_to_move, pieces, runs = _parse(fen, self.variant)
        self._set_piece_map(white_to_move, pieces)
        if runs != NO_RUNS:
            self._set_king_runs(*runs)
            self._snapshots[0] = self._snapshot(False, False, False)   # the runs are hashed

    def _set_piece_map(self, white_to_move: bool, pieces: dict[int, Piece]) -> None:
        lists: dict[tuple[bool, bool], list[int]] = {
            (WHITE, False): [], (WHITE, True): [], (BLACK, False): [], (BLACK, True): []}
        for square, piece in sorted(pieces.items()):
            lists[(piece.color, piece.king)].append(square)
        self._set_pieces(white_to_move, lists[(WHITE, False)], lists[(WHITE, True)],
                         lists[(BLACK, False)], lists[(BLACK, True)])
        self._snapshots: list[Snapshot] = [self._snapshot(False, False, False)]
        self._actions: list[tuple[str, Any]] = []
        self._huffable: frozenset[int] = frozenset()

    def set_piece_map(self, pieces: dict[int, Piece], turn: Color = WHITE) -> None:
        """Sets up ``pieces`` (square -> :class:`Piece`) with ``turn`` to move; clears the stack."""
        text = format_fen(turn, pieces, self.variant)
        self.set_fen(text)

    def set_square_sets(self, white: int, black: int, kings: int, turn: Color = WHITE) -> None:
        """Sets up the position given as square sets (bit ``s - 1`` for square ``s``:
        White's pieces, Black's, and which of them are kings), as
        :func:`damier._core.square_sets` gives them; clears the stack.

        >>> from damier._core import square_sets
        >>> board = Board("B:W31,K40:B5,K10")
        >>> sets = square_sets(board)
        >>> other = Board()
        >>> other.set_square_sets(*sets)
        >>> other.fen() == board.fen()
        True
        """
        self.set_piece_map({s: Piece(WHITE if white >> (s - 1) & 1 else BLACK,
                                     bool(kings >> (s - 1) & 1))
                            for s in range(1, self.variant.squares + 1)
                            if (white | black) >> (s - 1) & 1}, turn)

    def clear(self) -> None:
        """Removes every piece (White to move) and clears the move stack."""
        self.set_piece_map({}, WHITE)

    def reset(self) -> None:
        """Restores the variant's initial position and clears the move stack."""
        self.set_fen(self.variant.initial_fen)

    # -- queries ----------------------------------------------------------------

    def fen(self, *, compact: bool = False) -> str:
        """The position in FEN, e.g. ``W:W31,...,50:B1,...,20`` (``compact``: with ranges)."""
        pieces = self.piece_map()
        runs = self._live_king_runs(pieces) if self.variant.king_move_limit is not None else NO_RUNS
        return format_fen(self.turn, pieces, self.variant, compact=compact, king_runs=runs)

    def _live_king_runs(self, pieces: dict[int, Piece]) -> KingRuns:
        """The king runs that still matter (the FEN's): a side's run whose king stands and
        while the side has men (the king-move limit binds only then); ``(0, 0)`` else."""
        live = []
        for (square, count), color in zip(self._king_runs(), (WHITE, BLACK), strict=True):
            held = pieces.get(square) if count else None
            has_men = any(p.color == color and not p.king for p in pieces.values())
            alive = held is not None and held.king and held.color == color and has_men
            live.append((square, count) if alive else (0, 0))
        return live[0], live[1]

    def piece_at(self, square: int) -> Piece | None:
        """The piece on ``square``, or None. A square off the board raises
        :class:`ValueError`, one that is not an int :class:`TypeError`.

        >>> Board().piece_at(51)
        Traceback (most recent call last):
        ...
        ValueError: square 51 is not on the International board (1-50)
        """
        if isinstance(square, bool) or not isinstance(square, numbers.Integral):
            raise TypeError(f"a square is an int, not {type(square).__name__}")
        if not 1 <= square <= self.variant.squares:
            raise ValueError(
                f"square {_number_text(square)} is not on the {self.variant.title} board "
                f"(1-{self.variant.squares})")
        return _CODE_TO_PIECE.get(self._piece_code(int(square)))

    def piece_map(self) -> dict[int, Piece]:
        """All pieces by square."""
        _, wm, wk, bm, bk = self._pieces()
        result: dict[int, Piece] = {}
        for squares, piece in ((wm, _CODE_TO_PIECE[1]), (wk, _CODE_TO_PIECE[2]),
                               (bm, _CODE_TO_PIECE[3]), (bk, _CODE_TO_PIECE[4])):
            for s in squares:
                result[s] = piece
        return dict(sorted(result.items()))

    def notation(self, move: Move) -> str:
        """``move`` in standard notation in this position (full path where needed).

        >>> Board("W:WK4:B13,20,32,37").notation(Move(4, 15, captures=(13, 32, 20)))
        '4x27x38x15'
        """
        legal = self.legal_moves
        for m in legal:
            if m == move:
                return move_text(m, legal)
        raise IllegalMoveError(f"{move!r} is not legal in {self.fen()}")

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` names: standard notation (``32-28``,
        ``19x28``), a full or partial capture path, or Hub style (see
        :mod:`damier.moves`, which reads every move damier is given).

        Raises :class:`IllegalMoveError` (the message says why and lists the
        legal moves) or :class:`AmbiguousMoveError` (several moves match).

        >>> Board().parse_move("32-28")
        Move(32, 28)
        """
        return _parse_move(self, text)

    # -- playing ---------------------------------------------------------------

    def push(self, move: Move | str) -> Move:
        """Plays ``move`` (a :class:`Move` or move text) and returns the legal move played."""
        if isinstance(move, str):
            move = self.parse_move(move)
        elif not isinstance(move, Move):
            raise TypeError(f"push() takes a Move or move text, not {type(move).__name__}")
        huffable = self._huffable_after(move) if self.rules.huff else frozenset()
        result = self._push_legal(move)
        if result is None:
            text = "x".join(map(str, move.path)) if move.has_path else (
                f"{move.from_square}x{move.to_square} capturing "
                + ",".join(map(str, move.captures)))
            if not move.is_capture:
                text = move_text(move, ())
            legal = self.legal_moves
            raise IllegalMoveError(
                explain_illegal(self, text, from_square=move.from_square,
                                to_square=move.to_square), text=text, legal_moves=legal)
        played, (king_move, capture, promotion) = result
        self._snapshots.append(self._snapshot(king_move and not capture, capture, promotion))
        self._actions.append(("move", self._huffable))
        self._huffable = huffable
        return played

    def push_notation(self, text: str) -> Move:
        """Plays the move written ``text``; same as ``push(text)``."""
        return self.push(self.parse_move(text))

    def pop(self) -> Move | None:
        """Takes back the last move and returns it (or undoes a huff and returns None)."""
        if not self._actions:
            raise IndexError("pop from an empty move stack")
        kind, previous = self._actions.pop()
        self._snapshots.pop()
        if kind == "huff":
            self._pop_position()
            self._huffable = previous[1]
            return None
        self._huffable = previous
        return self._pop_move()

    def peek(self) -> Move:
        """The last move played."""
        if not self.move_stack:
            raise IndexError("peek at an empty move stack")
        return self.move_stack[-1]

    def copy(self, *, stack: bool = True) -> "Board":
        """An independent copy (with the move stack unless ``stack=False``)."""
        board = type(self).__new__(type(self))
        board.variant = self.variant
        board.rules = self.rules
        if not stack:
            board._core_init(self.variant.index, bool(self.rules.huff))
            board.set_fen(self.fen())
            return board
        self._copy_core_to(board)
        board._snapshots = list(self._snapshots)
        board._actions = list(self._actions)
        board._huffable = self._huffable
        return board

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, object]) -> "Board":
        return self.copy()

    def root(self) -> "Board":
        """A board with the position before the first move of the stack."""
        white_to_move, wm, wk, bm, bk = self._root_pieces()
        board = type(self).__new__(type(self))
        board.variant = self.variant
        board.rules = self.rules
        board._core_init(self.variant.index, bool(self.rules.huff))
        board._set_pieces(white_to_move, wm, wk, bm, bk)
        board._snapshots = [board._snapshot(False, False, False)]
        board._actions = []
        board._huffable = frozenset()
        return board

    def mirror(self) -> "Board":
        """The same position for the other player, like python-chess's ``mirror()``: the
        board turned half a turn (square ``s`` becomes ``squares + 1 - s``), the colours
        of the pieces swapped and the other side to move. A new board of the same variant
        and rules, without the move stack; ``board.mirror().mirror() == board``, and
        the legal moves of the two positions map one to one, square for square.

        >>> board = Board("W:W28,K46:B23")
        >>> board.mirror()
        Board('B:W28:BK5,23')
        >>> board.mirror().legal_moves       # 28x19 (taking 23), turned: 23x32 taking 28
        [Move(23, 32, captures=(28,), path=(23, 32))]
        """
        board = type(self).__new__(type(self))
        board.variant = self.variant
        board.rules = self.rules
        board._core_init(self.variant.index, bool(self.rules.huff))
        last = self.variant.squares + 1
        board._set_piece_map(not self.turn, {last - square: Piece(not piece.color, piece.king)
                                             for square, piece in self.piece_map().items()})
        # the kings' runs of moves (the Frisian king-move limit) change sides too; a run
        # whose king has since been taken is over
        if self.variant.king_move_limit is not None:
            pieces = board.piece_map()
            turned = []
            for (square, count), color in zip(self._king_runs(), (WHITE, BLACK), strict=True):
                new = last - square if count else 0
                held = pieces.get(new)
                alive = held is not None and held.king and held.color != color
                turned.append((new, count) if alive else (0, 0))
            board._set_king_runs(turned[1], turned[0])
        return board

    # -- huff (English, opt-in) -------------------------------------------------

    def _huffable_after(self, move: Move) -> frozenset[int]:
        if move.is_capture or not self.must_capture:
            return frozenset()
        capturers = {m.from_square for m in self.legal_moves if m.is_capture}
        if move.from_square in capturers:
            capturers.discard(move.from_square)
            capturers.add(move.to_square)
        return frozenset(capturers)

    def huffable_squares(self) -> frozenset[int]:
        """Squares of the opponent's pieces that may be huffed now (``rules.huff`` only):
        the pieces that could have captured on the last move but did not."""
        return self._huffable

    def huff(self, square: int) -> None:
        """Removes (huffs) the opponent piece on ``square`` that failed to capture,
        before making one's own move. Needs ``rules.huff``; undone by :meth:`pop`."""
        if not self.rules.huff:
            raise IllegalMoveError("the huff rule is off (Rules(huff=True) turns it on)")
        if square not in self._huffable:
            allowed = ", ".join(map(str, sorted(self._huffable))) or "none"
            raise IllegalMoveError(
                f"cannot huff the piece on {square}: only a piece that failed to capture on the "
                f"last move may be huffed (here: {allowed})")
        self._remove_piece(square)
        self._actions.append(("huff", (square, self._huffable)))
        self._huffable = frozenset()
        self._snapshots.append(self._snapshot(False, True, False))

    # -- game end ---------------------------------------------------------------

    def _snapshot(self, king_move: bool, capture: bool, promotion: bool) -> Snapshot:
        wm, wk, bm, bk = self._counts()
        return Snapshot(key=self.zobrist_hash(), white_to_move=self.turn, white_men=wm,
                        white_kings=wk, black_men=bm, black_kings=bk, king_move=king_move,
                        capture=capture, promotion=promotion)

    def outcome(self) -> Outcome | None:
        """How the game ended (winner and rule), or None while it goes on.

        >>> outcome = Board("W:W:B1").outcome()
        >>> outcome.winner == BLACK, outcome.termination.describe(), outcome.result()
        (True, 'no legal move', '0-1')
        """
        return compute_outcome(self._snapshots, self.rules, self._has_legal_move(),
                               self.variant.goal)

    def is_game_over(self) -> bool:
        """Whether the game has ended by any rule."""
        return self.outcome() is not None

    def result(self) -> str:
        """The result in the variant's notation (:attr:`damier.variants.Variant.pdn_results`,
        as the PDN writer gives it): ``2-0`` (White won), ``1-1`` or ``0-2`` in
        International, Brazilian and Russian; ``1-0``, ``1/2-1/2`` or ``0-1`` in
        English; ``*`` while the game goes on. ``outcome().result()`` gives
        ``1-0``, ``1/2-1/2`` or ``0-1`` in every variant.

        There are no claimable draws: every draw rule of :attr:`rules` ends the game
        the moment it applies (:meth:`outcome`), so unlike python-chess there is no
        ``claim_draw``. A draw by agreement, a resignation or a time forfeit is not a
        position's result: :class:`damier.game.Game` records those.

        >>> board = Board("W:W28:B23")
        >>> board.result()
        '*'
        >>> _ = board.push("28x19")  # Black has no piece left: no legal move
        >>> board.result(), board.outcome().result()
        ('2-0', '1-0')
        >>> english = Board("W:W18:B14", variant="english")
        >>> _ = english.push("18x9")
        >>> english.result()
        '1-0'
        """
        outcome = self.outcome()
        return outcome.result(self.variant) if outcome is not None else "*"

    def adjudicate(self) -> Outcome:
        """Piece-count adjudication (a rule option of some sites): more pieces
        win, then more kings, else a draw."""
        return adjudicate(self._snapshots[-1])

    def can_offer_draw(self) -> bool:
        """Whether a draw may be offered now under ``rules.draw_offer_min_moves``."""
        return draw_offer_allowed(len(self.move_stack), self.rules)

    # -- perft ----------------------------------------------------------------------

    def perft(self, depth: int) -> int:
        """The number of leaf nodes of the legal-move tree ``depth`` plies deep.

        >>> Board().perft(3)
        658

        ``depth`` is a whole number from 0 to :data:`MAX_PERFT_DEPTH`
        (:class:`ValueError` otherwise).
        """
        return self._perft(_check_depth(depth))

    def perft_divide(self, depth: int) -> list[tuple[Move, int]]:
        """``(move, leaves)`` for every legal move: the perft count below it."""
        return self._perft_divide(_check_depth(depth))

    # -- dunder -----------------------------------------------------------------

    def __repr__(self) -> str:
        if self.variant.name == DEFAULT_VARIANT:
            return f"Board({self.fen()!r})"
        return f"Board({self.fen()!r}, variant={self.variant.name!r})"

    def _repr_svg_(self) -> str:  # Jupyter: the board as a picture, the last move highlighted
        from damier.svg import board as svg_board
        return svg_board(self, lastmove=self.move_stack[-1] if self.move_stack else None)

    def __str__(self) -> str:
        pieces = self.piece_map()
        lines = []
        for row in range(self.variant.size):
            cells = []
            for col in range(self.variant.size):
                square = self.variant.square_at(row, col)
                if square is None:
                    cells.append(" ")
                else:
                    piece = pieces.get(square)
                    cells.append(piece.symbol() if piece else ".")
            lines.append(" ".join(cells).rstrip())
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.variant == other.variant and self.turn == other.turn
                and self._bitboards() == other._bitboards())

    __hash__ = None  # type: ignore[assignment]


def _check_depth(depth: Any) -> int:
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) \
            or not 0 <= int(depth) <= MAX_PERFT_DEPTH:
        shown = (_number_text(depth) if isinstance(depth, numbers.Integral)
                 else repr(depth)[:40])
        raise ValueError(f"depth must be a whole number from 0 to {MAX_PERFT_DEPTH}, "
                         f"got {shown}")
    return int(depth)


def _number_text(value: Any) -> str:
    """An int for a message: written out unless it is huge (``str()`` of an int of
    more than 4300 digits raises)."""
    number = int(value)
    if abs(number) < 10 ** 12:
        return str(number)
    digits = int(abs(number).bit_length() * 0.30103) + 1
    return f"{'-' if number < 0 else ''}<a number of about {digits} digits>"

