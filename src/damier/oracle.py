"""A small, plain pure-Python move generator written straight from the rule texts.

This module is the test oracle for the compiled core: it is meant to be easy
to read and check against the rules, not fast. It uses no bitboards, only the
row/column geometry of :class:`damier.variants.Variant`, and it depends on no
other damier module (it parses its own simple FEN).

The rules it implements, per variant:

* International (10x10) and Brazilian (8x8): men move one square diagonally
  forward and capture forward and backward; kings fly (move and capture at any
  distance, landing on any free square beyond the captured piece); capturing
  is compulsory and the sequence taking the most pieces must be played (a king
  counts as one piece); a man is crowned only if its move ends on the far row.
* English (8x8): men move and capture forward only; kings move and capture
  one square in any direction; capturing is compulsory but the player chooses
  freely among the capture sequences; a man reaching the far row is crowned
  and its move ends there.
* Russian (8x8): flying kings, men capture backwards too, free choice among
  the capture sequences; a man reaching the far row during a capture is
  crowned at once and goes on capturing as a king in the same move.
* Italian (8x8, the board set with a dark square in each player's bottom right
  corner): men and kings move and capture as in English, but a man may not
  capture a king; the sequence taking the most pieces must be played, and among
  those (in this order) one made by a king rather than by a man, then one
  taking the most kings, then one whose first king taken comes earliest.
* Frisian and Frysk! (10x10; the rules of the Frisian draughts federation, as
  lidraughts plays them; Frysk! only starts with five men each): men move one
  square diagonally forward; men capture in all eight directions, diagonally as
  in International and along the rows and files of dark squares, jumping the
  piece on the next dark square of the row or file (two board squares away) to
  the dark square beyond (:attr:`~damier.variants.Variant.orthogonal_captures`);
  kings move diagonally only, at any distance, and capture in the eight
  directions at any distance. The capture taking the highest value must be
  played, a man counting ``capture_values[0]`` (100) and a king
  ``capture_values[1]`` (199); at equal value a capture made by a king comes
  before one made by a man. A king may make at most ``king_move_limit`` (3)
  non-capturing moves in a row while its side still has men: then that king may
  only capture, and another piece must move. That limit needs the king runs of
  :class:`Position` (state beyond the board).
* Killer (International rules and one more, its inventor's): a king's capture whose
  last piece taken is a king ends on the first square beyond that king
  (:attr:`~damier.variants.Variant.killer_rule`).
* Turkish (8x8, every square used: :attr:`~damier.variants.Variant.all_squares`;
  Wikipedia's "Turkish draughts"): pieces go along rows and files, never
  diagonally. Men move one square forward or sideways, never backwards, and
  capture the same three ways, jumping the adjacent piece to the square just
  beyond; kings move along rows and files at any distance and capture along
  them at any distance, landing on any free square beyond the piece taken.
  Captured pieces leave the board one by one as they are jumped
  (:attr:`~damier.variants.Variant.captures_removed_at_once`): the capturing
  piece may cross their squares again later in the same move, and no piece can
  be jumped twice; between two captures of one move the piece may not turn
  back (a 180-degree turn). The sequence taking the most pieces must be played
  (a king counts as one piece). A man reaching the far row during a capture
  goes on capturing as a man (sideways, along that row) and is crowned when
  the move ends there.

In every variant a capture sequence must be completed: it stops only when the
piece can capture no further. When a flying king may land on several squares
beyond a captured piece and from some of them it can capture further, it must
land on one of those. Except in Turkish, captured pieces leave the board only
when the move is complete: until then they block, and cannot be jumped twice.
The moving piece's start square counts as empty during its own capture, and an
empty square may be crossed or visited more than once.

Moves with the same start square, end square and set of captured pieces are
one move (the first path found is kept).

Every rule above is read from the variant's fields in the registry
(:class:`damier.variants.Variant`), never from its name.

>>> pos = Position.initial("international")
>>> moves = pos.legal_moves()
>>> sorted(notation(m, moves) for m in moves)[:3]
['31-26', '31-27', '32-27']
>>> [perft(pos, depth) for depth in (1, 2, 3)]
[9, 81, 658]
>>> pos = Position.from_fen("W:WK46:B23")
>>> sorted(notation(m, pos.legal_moves()) for m in pos.legal_moves())
['46x10', '46x14', '46x19', '46x5']

In Frisian the man on 28 takes the man beside it on 29 along the row (landing
on 30) and the one on 18 along the file (landing on 8):

>>> pos = Position.from_fen("W:W28:B18", "frisian")
>>> [notation(m, pos.legal_moves()) for m in pos.legal_moves()]
['28x8']
>>> pos = Position.from_fen("W:W28:B29", "frisian")
>>> [notation(m, pos.legal_moves()) for m in pos.legal_moves()]
['28x30']

In Turkish (squares 1-64 row by row, 1 = a8 in the top left) White's man on 36
(d4) steps up to 28 or sideways to 35 and 37; the king on 57 (a1) takes the man
on 41 (a3) and lands on 33, 25, 17, 9 or 1:

>>> pos = Position.from_fen("W:W36:B1", "turkish")
>>> sorted(notation(m, pos.legal_moves()) for m in pos.legal_moves())
['36-28', '36-35', '36-37']
>>> pos = Position.from_fen("W:WK57:B41", "turkish")
>>> sorted((m.to_square for m in pos.legal_moves()))
[1, 9, 17, 25, 33]
>>> perft(Position.initial("turkish"), 2)
64
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["OracleMove", "Position", "KingRun", "NO_KING_RUN", "perft", "notation"]

# The four diagonal directions as (row step, column step). Row 0 is the top
# row, so White's forward directions have a row step of -1, Black's of +1.
DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))

# The four orthogonal directions along the dark squares (Frisian captures): the next
# dark square of a row is two columns away, the next one of a file two rows away.
ORTHOGONAL_DIRECTIONS = ((-2, 0), (2, 0), (0, -2), (0, 2))

# The four directions along rows and files on a board of every square (Turkish): the
# next square is one row or one column away.
ROOK_DIRECTIONS = ((-1, 0), (0, -1), (0, 1), (1, 0))

Direction = tuple[int, int]

KingRun = tuple[int, int]
"""One side's king run: ``(square, count)``, the king that made that side's last
``count`` moves, all without capturing, one after the other, and the square it
stands on; :data:`NO_KING_RUN` when the side's last move was not such a move."""

NO_KING_RUN: KingRun = (0, 0)

PIECE_SYMBOLS = ("w", "W", "b", "B")


@dataclass(frozen=True)
class OracleMove:
    """One legal move as the oracle sees it."""

    from_square: int
    to_square: int
    captures: tuple[int, ...]
    """The captured squares, in jump order (empty for a plain move)."""
    path: tuple[int, ...]
    """Every square the piece stands on: start, each landing square, end."""
    promotes: bool
    """The moving man becomes a king with this move."""

    def key(self) -> tuple[int, int, frozenset[int]]:
        """``(from, to, frozenset(captures))``: moves with equal keys are the same move."""
        return (self.from_square, self.to_square, frozenset(self.captures))

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)


@lru_cache(maxsize=None)
def _ray(variant: Variant, square: int, direction: tuple[int, int]) -> tuple[int, ...]:
    """The squares met walking from ``square`` (excluded) in ``direction`` to the board's edge."""
    row, col = variant.row_col(square)
    dr, dc = direction
    squares: list[int] = []
    while True:
        row, col = row + dr, col + dc
        nxt = variant.square_at(row, col)
        if nxt is None:
            return tuple(squares)
        squares.append(nxt)


def _is_white(symbol: str) -> bool:
    return symbol in "wW"


def _is_king(symbol: str) -> bool:
    return symbol.isupper()


class Position:
    """A plain position: where the pieces stand, whose turn it is, and the variant.

    ``pieces`` maps a square number to ``'w'``, ``'W'``, ``'b'`` or ``'B'``
    (lower case = man, upper case = king).

    ``king_runs`` is the state the king-move limit
    (:attr:`~damier.variants.Variant.king_move_limit`, Frisian) needs beyond the
    board: ``(white run, black run)``, each a :data:`KingRun` ``(square, count)``
    naming the king of that side that made the side's last ``count`` moves without
    capturing, one after the other (``(0, 0)``: none). None (the default) means no
    run for either side, as in a position set up from a FEN. A run's square must
    hold a king of its side. :meth:`play` keeps the runs up to date in the variants
    with a limit: a non-capturing move of the king that ends a run adds one to it, a
    non-capturing move of another king starts a new run of 1, and any other move
    of the side (a man's move, a capture) ends the side's run; a run whose king is
    captured ends too. In the other variants the runs stay empty.

    >>> pos = Position.from_fen("W:WK46,35:B1", "frisian")
    >>> for text in ("46-41", "1-6", "41-46", "6-11"):
    ...     pos = pos.play(next(m for m in pos.legal_moves()
    ...                         if notation(m, pos.legal_moves()) == text))
    >>> pos.king_runs
    ((46, 2), (0, 0))
    """

    def __init__(
        self,
        pieces: dict[int, str],
        white_to_move: bool,
        variant: Variant | str = DEFAULT_VARIANT,
        king_runs: tuple[KingRun, KingRun] | None = None,
    ) -> None:
        self.variant = get_variant(variant)
        self.white_to_move = bool(white_to_move)
        self.pieces: dict[int, str] = {}
        for square, symbol in pieces.items():
            if symbol not in PIECE_SYMBOLS:
                raise ValueError(f"invalid piece symbol {symbol!r} on square {square}")
            self.variant.row_col(square)  # raises ValueError for an off-board square
            self.pieces[square] = symbol
        runs = (NO_KING_RUN, NO_KING_RUN) if king_runs is None else king_runs
        for run, king in zip(runs, "WB", strict=True):
            square, count = run
            if count < 0:
                raise ValueError(f"a king run counts moves from 0, got {count}")
            if count > 0 and self.pieces.get(square) != king:
                raise ValueError(f"king run {run}: no {'white' if king == 'W' else 'black'} "
                                 f"king on square {square}")
        white_run, black_run = runs
        self.king_runs: tuple[KingRun, KingRun] = (
            white_run if white_run[1] else NO_KING_RUN, black_run if black_run[1] else NO_KING_RUN)

    # ----------------------------------------------------------------- setup

    @classmethod
    def from_fen(cls, fen: str, variant: Variant | str = DEFAULT_VARIANT,
                 king_runs: tuple[KingRun, KingRun] | None = None) -> "Position":
        """Parse a simple FEN such as ``W:W31-50:B1-20`` or ``B:W6,9,K31:BK17,K24``.

        Squares may be listed one by one or as ranges (``31-50``); a ``K`` in
        front of a square or range marks kings. ``king_runs``: see :class:`Position`;
        a field ``+<count><square>+<count><square>`` (Black's run, then White's, a
        count of 0 without a square) gives them when the argument does not.

        >>> pos = Position.from_fen("B:W6,K31:BK17-18", "international")
        >>> pos.white_to_move, sorted(pos.pieces.items())
        (False, [(6, 'w'), (17, 'B'), (18, 'B'), (31, 'W')])
        """
        text = fen.strip().strip('"').rstrip(".").strip()
        fields = text.split(":")
        side = fields[0].strip().upper()
        if side not in ("W", "B"):
            raise ValueError(f"FEN {fen!r}: side to move must be W or B")
        pieces: dict[int, str] = {}
        for field in fields[1:]:
            field = field.strip()
            if not field:
                continue
            if field.startswith("+"):
                black_text, white_text = field[1:].split("+")
                if king_runs is None:
                    king_runs = tuple(  # type: ignore[assignment]
                        (int(run[1:]) if run[1:] else 0, int(run[0]))
                        for run in (white_text, black_text))
                continue
            colour = field[0].upper()
            if colour not in ("W", "B"):
                raise ValueError(f"FEN {fen!r}: piece list must start with W or B, got {field!r}")
            for item in field[1:].split(","):
                item = item.strip()
                if not item:
                    continue
                king = item[0].upper() == "K"
                if king:
                    item = item[1:]
                if "-" in item:
                    first, last = item.split("-")
                    squares = range(int(first), int(last) + 1)
                else:
                    squares = range(int(item), int(item) + 1)
                symbol = colour.lower() if not king else colour
                for square in squares:
                    pieces[square] = symbol
        return cls(pieces, side == "W", variant, king_runs)

    @classmethod
    def initial(cls, variant: Variant | str = DEFAULT_VARIANT) -> "Position":
        """The standard starting position of ``variant``."""
        v = get_variant(variant)
        return cls.from_fen(v.initial_fen, v)

    def __repr__(self) -> str:
        def field(white: bool) -> str:
            items = []
            for square in sorted(self.pieces):
                symbol = self.pieces[square]
                if _is_white(symbol) == white:
                    items.append(("K" if _is_king(symbol) else "") + str(square))
            return ("W" if white else "B") + ",".join(items)

        fen = ("W" if self.white_to_move else "B") + ":" + field(True) + ":" + field(False)
        runs = "" if self.king_runs == (NO_KING_RUN, NO_KING_RUN) else \
            f", king_runs={self.king_runs!r}"
        return f"Position.from_fen({fen!r}, {self.variant.name!r}{runs})"

    # ------------------------------------------------------------- geometry

    def _forward(self, white: bool) -> int:
        """The row step of a man's forward move."""
        return -1 if white else 1

    def _on_promotion_row(self, square: int, white: bool) -> bool:
        return self.variant.row_col(square)[0] == self.variant.promotion_row(white)

    def _is_enemy(self, symbol: str, white: bool) -> bool:
        return _is_white(symbol) != white

    def _move_directions(self, king: bool, white: bool) -> tuple[Direction, ...]:
        """The directions in which a piece moves without capturing: diagonally, forward
        only for men; on a board of every square (Turkish) along rows and files, men
        forward and sideways (never backwards)."""
        forward = self._forward(white)
        if self.variant.all_squares:
            return tuple(d for d in ROOK_DIRECTIONS if king or d[0] != -forward)
        return tuple(d for d in DIRECTIONS if king or d[0] == forward)

    def _capture_directions(self, king: bool, white: bool) -> tuple[Direction, ...]:
        """The directions in which a piece captures: diagonally (and, in Frisian, along
        rows and files of dark squares); on a board of every square (Turkish) along rows
        and files only. Men that may not capture backwards keep to the others."""
        forward = self._forward(white)
        if self.variant.all_squares:
            directions: tuple[Direction, ...] = ROOK_DIRECTIONS
        else:
            directions = DIRECTIONS
            if self.variant.orthogonal_captures:
                directions += ORTHOGONAL_DIRECTIONS  # Frisian: along rows and files too
        if king or self.variant.men_capture_backwards:
            return directions
        if self.variant.all_squares:
            return tuple(d for d in directions if d[0] != -forward)  # forward and sideways
        return tuple(d for d in directions if d[0] == forward)  # English men: forward only

    # ---------------------------------------------------------- plain moves

    def _stopped_king(self) -> int | None:
        """The square of the king of the side to move that the king-move limit stops
        from moving without capturing, or None.

        The limit (:attr:`~damier.variants.Variant.king_move_limit`): a king that made
        its side's last ``limit`` moves without capturing may make no further such move
        while its side still has men; it may still capture.
        """
        limit = self.variant.king_move_limit
        if limit is None:
            return None
        white = self.white_to_move
        square, count = self.king_runs[0 if white else 1]
        if count < limit:
            return None
        if not any(_is_white(s) == white and not _is_king(s) for s in self.pieces.values()):
            return None  # only kings left: no limit
        return square

    def _plain_moves(self) -> list[OracleMove]:
        """The non-capturing moves of the side to move."""
        white = self.white_to_move
        flying = self.variant.flying_kings
        stopped = self._stopped_king()
        moves = []
        for square in sorted(self.pieces):
            symbol = self.pieces[square]
            if _is_white(symbol) != white or square == stopped:
                continue
            king = _is_king(symbol)
            for direction in self._move_directions(king, white):
                for target in _ray(self.variant, square, direction):
                    if target in self.pieces:
                        break
                    promotes = not king and self._on_promotion_row(target, white)
                    moves.append(OracleMove(square, target, (), (square, target), promotes))
                    if not (king and flying):
                        break  # men and short kings move one square
        return moves

    # ------------------------------------------------------------- captures

    def _jumps(
        self,
        board: dict[int, str],
        square: int,
        white: bool,
        king: bool,
        captured: tuple[int, ...],
        came: Direction | None = None,
    ) -> list[tuple[Direction, int, list[int]]]:
        """The single jumps available to a piece standing on ``square``.

        ``board`` is the position without the moving piece, with the pieces
        captured so far still on it (they block), or, where captured pieces
        leave at once (Turkish), without them. ``came`` is the direction of the
        jump that brought the piece here, if any: where captured pieces leave at
        once, the piece may not turn back along it (a 180-degree turn). Returns,
        for each jump, its direction, the square of the piece jumped and the
        list of squares it may land on (nearest first; always one square for
        men and short kings).
        """
        flying = king and self.variant.flying_kings
        jumps = []
        for direction in self._capture_directions(king, white):
            if (came is not None and self.variant.captures_removed_at_once
                    and direction == (-came[0], -came[1])):
                continue  # Turkish: no 180-degree turn between two captures
            ray = _ray(self.variant, square, direction)
            i = 0
            if flying:
                while i < len(ray) and ray[i] not in board:
                    i += 1  # a flying king passes over empty squares
            if i >= len(ray):
                continue
            victim = ray[i]
            if (victim not in board or victim in captured
                    or not self._is_enemy(board[victim], white)):
                continue  # nothing to jump, an already captured piece, or an own piece
            if not king and not self.variant.men_capture_kings and _is_king(board[victim]):
                continue  # Italian: a man captures only men
            landings = []
            for beyond in ray[i + 1:]:
                if beyond in board:
                    break  # blocked by a piece (a captured piece still blocks)
                landings.append(beyond)
                if not flying:
                    break
            if landings:
                jumps.append((direction, victim, landings))
        return jumps

    def _capture_sequences(self, start: int) -> list[OracleMove]:
        """Every complete capture sequence of the piece on ``start``."""
        white = _is_white(self.pieces[start])
        was_king = _is_king(self.pieces[start])
        board = dict(self.pieces)
        del board[start]  # the start square counts as empty during the capture
        results: list[OracleMove] = []

        removed_at_once = self.variant.captures_removed_at_once

        def extend(square: int, king: bool, captured: tuple[int, ...],
                   path: tuple[int, ...], came: Direction | None) -> None:
            for direction, victim, landings in self._jumps(board, square, white, king,
                                                           captured, came):
                now_captured = captured + (victim,)
                victim_symbol = board[victim]
                if removed_at_once:
                    del board[victim]  # Turkish: the piece leaves as it is jumped
                # For each landing square: the piece's state there and whether
                # it can (and so must) capture further from it.
                options = []
                for landing in landings:
                    now_king = king
                    stops = False
                    if not king and self._on_promotion_row(landing, white):
                        if self.variant.promote_during_capture:
                            now_king = True  # Russian: crowned at once, goes on as a king
                        elif self.variant.crowning_ends_capture:
                            stops = True  # English: crowned, and the move ends here
                    can_continue = not stops and bool(
                        self._jumps(board, landing, white, now_king, now_captured, direction)
                    )
                    options.append((landing, now_king, can_continue))
                # A piece that can capture further must do so: when some landing
                # squares allow it to continue, it must land on one of those.
                if any(can_continue for _, _, can_continue in options):
                    for landing, now_king, can_continue in options:
                        if can_continue:
                            extend(landing, now_king, now_captured, path + (landing,),
                                   direction)
                else:
                    if king and self.variant.killer_rule and _is_king(victim_symbol):
                        # Killer: a king's capture whose last piece taken is a king ends
                        # on the first square beyond it
                        options = options[:1]
                    for landing, now_king, _ in options:
                        promotes = not was_king and (
                            now_king or self._on_promotion_row(landing, white))
                        results.append(
                            OracleMove(start, landing, now_captured, path + (landing,), promotes)
                        )
                if removed_at_once:
                    board[victim] = victim_symbol  # back for the other branches

        extend(start, was_king, (), (start,), None)
        return results

    def _capture_moves(self) -> list[OracleMove]:
        """The capture moves of the side to move, after the majority rule."""
        moves: list[OracleMove] = []
        for square in sorted(self.pieces):
            if _is_white(self.pieces[square]) == self.white_to_move:
                moves.extend(self._capture_sequences(square))
        if moves and self.variant.capture_values is not None:
            # Frisian: the highest value, then at equal value a capture made by a king.
            best_value = max(self._value(m) for m in moves)
            moves = [m for m in moves if self._value(m) == best_value]
            if any(_is_king(self.pieces[m.from_square]) for m in moves):
                moves = [m for m in moves if _is_king(self.pieces[m.from_square])]
        elif moves and self.variant.majority_capture:
            most = max(len(m.captures) for m in moves)  # a king counts as one piece
            moves = [m for m in moves if len(m.captures) == most]
        if moves and self.variant.capture_precedence:
            best = max(self._precedence(m) for m in moves)
            moves = [m for m in moves if self._precedence(m) == best]
        return moves

    def _value(self, move: OracleMove) -> int:
        """The value of the pieces ``move`` captures (Frisian value rule)."""
        values = self.variant.capture_values
        assert values is not None
        man, king = values
        return sum(king if _is_king(self.pieces[s]) else man for s in move.captures)

    def _precedence(self, move: OracleMove) -> tuple[bool, int, int]:
        """Italian precedence among captures of equal length, larger first: made by a
        king; the number of kings taken; how early the first king is taken."""
        kings = [i for i, square in enumerate(move.captures) if _is_king(self.pieces[square])]
        first = kings[0] if kings else len(move.captures)
        return (_is_king(self.pieces[move.from_square]), len(kings), -first)

    # ----------------------------------------------------------- public API

    def legal_moves(self, captures_optional: bool = False) -> list[OracleMove]:
        """The legal moves of the side to move, duplicates dropped.

        Capturing is compulsory: when a capture exists only captures are
        returned. With ``captures_optional=True`` (English huff rule play)
        the capture moves are followed by the ordinary moves.
        """
        captures = self._capture_moves()
        if not captures:
            moves = self._plain_moves()
        elif captures_optional:
            moves = captures + self._plain_moves()
        else:
            moves = captures
        unique: dict[tuple[int, int, frozenset[int]], OracleMove] = {}
        for move in moves:
            unique.setdefault(move.key(), move)  # keep the first path found
        return list(unique.values())

    def play(self, move: OracleMove) -> "Position":
        """The position after ``move`` (which is not checked for legality), with the
        king runs brought up to date (see :class:`Position`)."""
        pieces = dict(self.pieces)
        symbol = pieces.pop(move.from_square)
        was_king = _is_king(symbol)
        for square in move.captures:
            del pieces[square]
        if move.promotes:
            symbol = symbol.upper()
        pieces[move.to_square] = symbol
        runs = list(self.king_runs)
        if self.variant.king_move_limit is not None:
            mover = 0 if self.white_to_move else 1
            square, count = runs[mover]
            if was_king and not move.captures:
                # A non-capturing king move: the run goes on, or this king starts one.
                runs[mover] = (move.to_square, count + 1 if square == move.from_square else 1)
            else:
                runs[mover] = NO_KING_RUN  # a man's move (crowning or not) or a capture ends it
            if runs[1 - mover][0] in move.captures:
                runs[1 - mover] = NO_KING_RUN  # the opponent's running king is taken
        return Position(pieces, not self.white_to_move, self.variant, (runs[0], runs[1]))


def perft(position: Position, depth: int) -> int:
    """The number of leaf nodes of the legal-move tree ``depth`` plies deep."""
    if depth == 0:
        return 1
    moves = position.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(position.play(move), depth - 1) for move in moves)


def notation(move: OracleMove, legal: list[OracleMove]) -> str:
    """Standard move text: ``32-28``, ``19x28``.

    When another legal move has the same start and end squares, the full path
    is written, joined by ``x`` (``47x38x24x13x36``).
    """
    if not move.captures:
        return f"{move.from_square}-{move.to_square}"
    ambiguous = any(
        other.from_square == move.from_square
        and other.to_square == move.to_square
        and other.key() != move.key()
        for other in legal
    )
    if ambiguous:
        return "x".join(str(square) for square in move.path)
    return f"{move.from_square}x{move.to_square}"
