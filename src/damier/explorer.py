"""An opening explorer: for a position, the moves played from it in a set of games,
how often, and how those games ended; and the moves of the variant's opening book.

An :class:`Explorer` indexes games (:meth:`Explorer.add_game`): each position of a
game's first plies (40 by default) is keyed by its exact signature
(:func:`damier.book.position_key`, so transpositions meet and two positions never
mix), and under it the move played there counts one game, and one White win, draw
or Black win as the game ended. :meth:`Explorer.moves` lists a position's moves,
most played first, as :class:`ExplorerMove` s:

>>> import damier
>>> explorer = Explorer("international")
>>> explorer.add_game(["32-28", "19-23", "28x19", "14x23"], "2-0")
4
>>> explorer.add_game(["32-28", "18-23"], "1-1")
2
>>> explorer.add_game(["33-28", "18-23"], "0-2")
2
>>> explorer.add_game(["32-28"], "*")          # unfinished: counted, no result
1
>>> board = damier.Board()
>>> for m in explorer.moves(board):
...     print(m.text, m.games, m.white, m.draws, m.black)
32-28 3 1 1 0
33-28 1 0 0 1
>>> board.push("32-28")
Move(32, 28)
>>> [(m.text, m.games) for m in explorer.moves(board)]
[('18-23', 1), ('19-23', 1)]
>>> explorer.game_count, len(explorer)
(4, 5)

Results are read with :func:`damier.pdn.canonical_result`, so each variant's own
notation (``2-0``, ``1-1``, ``0-2``) and the general one (``1-0``, ``1/2-1/2``,
``0-1``) both count; ``*``, ``0-0`` and None count the game without a result. A
game from a set-up position (``start_fen``) is indexed from that position. A move
that is not legal (or not readable) stops the indexing of its game there, and
:meth:`~Explorer.add_game` says how many plies it indexed:

>>> explorer.add_game(["32-28", "32-27", "19-23"], "2-0")
1

A game passing twice through a position with the same move counts once there.
:meth:`Explorer.remove_game` takes back what :meth:`~Explorer.add_game` did with the
same arguments (an index kept up to date with a changing set of games), and
:meth:`Explorer.from_pdn` indexes the games of a PDN file.

:meth:`Explorer.book_moves` gives the moves of the variant's shipped opening book
(:func:`damier.book.shipped_book`), best first, with their scores in centi-men from
the side to move's view; none for a variant without a book:

>>> start = damier.Board()
>>> book_moves = Explorer("international").book_moves(start)
>>> len(book_moves) > 1 and book_moves[0].score >= book_moves[-1].score
True
>>> Explorer("english").book_moves(damier.Board(variant="english"))
[]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from damier._core import Move
from damier.board import Board
from damier.book import BookMove, shipped_book
from damier.errors import PdnError
from damier.pdn import PdnSource, canonical_result, read_games
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["Explorer", "ExplorerMove", "MAX_PLIES"]

MAX_PLIES = 40
"""The plies of each game indexed by default (the opening and the early middle game)."""

_WHITE, _DRAW, _BLACK = 1, 2, 3
_RESULT_COLUMN = {"1-0": _WHITE, "1/2-1/2": _DRAW, "0-1": _BLACK}
"""Where a canonical result counts, after the games (column 0); ``*`` and ``0-0``
count nowhere else."""
_STRIDE = 5
"""The items of one move in a position's list: the move and its four counts."""
_SIMPLE = re.compile(r"([1-9][0-9]{0,2})([-x])([1-9][0-9]{0,2})")


class ExplorerMove(NamedTuple):
    """A move played from a position: its text in the variant's notation
    (:meth:`damier.Board.notation`), the legal :class:`~damier.Move`, and the games
    that played it: how many, and how many of them White won, were drawn and Black
    won (the others have no result)."""

    text: str
    move: Move
    games: int
    white: int
    draws: int
    black: int


_BITS = tuple(1 << (square - 1) if square else 0 for square in range(257))
_bit = _BITS.__getitem__
_SIZES = tuple((squares + 7) // 8 for squares in range(257))


def _key(board: Board) -> bytes:
    """:func:`damier.book.position_key` of ``board``, read from the core's piece lists
    (a few times faster: the index computes one per ply of every game)."""
    white_to_move, white_men, white_kings, black_men, black_kings = board._pieces()
    white_kings_set = sum(map(_bit, white_kings))
    white = sum(map(_bit, white_men)) | white_kings_set
    kings = white_kings_set | sum(map(_bit, black_kings))
    occupied = white | sum(map(_bit, black_men)) | kings
    size = _SIZES[board.variant.squares]
    return (b"\x01" if white_to_move else b"\x00") + occupied.to_bytes(size, "little") \
        + white.to_bytes(size, "little") + kings.to_bytes(size, "little")


def _check_plies(max_plies: object) -> int:
    if isinstance(max_plies, bool) or not isinstance(max_plies, int) or max_plies < 0:
        raise ValueError(f"max_plies must be a whole number of plies >= 0, got {max_plies!r}")
    return max_plies


class Explorer:
    """The games' moves by position, for one variant (see the module documentation).

    ``len(explorer)`` is the number of positions indexed, :attr:`game_count` the
    number of games that added at least one of them.
    """

    def __init__(self, variant: str | Variant = DEFAULT_VARIANT) -> None:
        self.variant: Variant = get_variant(variant)
        self.game_count = 0
        """The games indexed (those of which at least one ply was)."""
        # per position a flat list: move, games, White wins, draws, Black wins, move, ...
        # (most positions of a large index have one move: a list is the smallest)
        self._positions: dict[bytes, list[Any]] = {}
        self._moves: dict[Move, Move] = {}     # one Move object for each move seen
        self._starts: dict[str | None, Board] = {}

    # -- indexing -----------------------------------------------------------------------

    def add_game(self, moves: Sequence[str] | Sequence[Move], result: str | None,
                 start_fen: str | None = None, max_plies: int = MAX_PLIES) -> int:
        """Indexes the first ``max_plies`` plies of a game: the positions from its
        start (the variant's, or ``start_fen``'s) with the move played in each, under
        ``result`` (any result token, or None: no result). Returns the plies
        indexed: fewer than asked when the game is shorter, or when a move is not
        legal where it is played (the game's indexing stops there; nothing is
        raised for it).

        Raises :class:`ValueError` for a ``result`` that is not a result token, a
        ``start_fen`` that is not a position of the variant
        (:class:`~damier.errors.InvalidFenError`) or a negative ``max_plies``.
        """
        return self._index(moves, result, start_fen, max_plies, 1)

    def remove_game(self, moves: Sequence[str] | Sequence[Move], result: str | None,
                    start_fen: str | None = None, max_plies: int = MAX_PLIES) -> int:
        """Takes out a game added by :meth:`add_game` with the same arguments (the
        counts go back to what they were without it); returns the plies taken out.

        >>> explorer = Explorer()
        >>> explorer.add_game(["32-28", "19-23"], "2-0"), explorer.add_game(["33-28"], "0-2")
        (2, 1)
        >>> explorer.remove_game(["32-28", "19-23"], "2-0")
        2
        >>> [(m.text, m.games, m.black) for m in explorer.moves(Board())], len(explorer)
        ([('33-28', 1, 1)], 1)
        """
        return self._index(moves, result, start_fen, max_plies, -1)

    def _index(self, moves: Sequence[str] | Sequence[Move], result: str | None,
               start_fen: str | None, max_plies: int, weight: int) -> int:
        limit = _check_plies(max_plies)
        column = None
        if result is not None:
            if not isinstance(result, str):
                raise TypeError(f"a result is text such as '2-0', not {type(result).__name__}")
            canonical = canonical_result(result)
            if canonical is None:
                raise ValueError(f"not a result: {result[:40]!r} (expected e.g. 1-0, 2-0, "
                                 "1/2-1/2, 1-1, 0-1, 0-2 or *)")
            column = _RESULT_COLUMN.get(canonical)
        board = self._start_board(start_fen or None)
        seen: set[tuple[bytes, Move]] = set()
        plies = 0
        for given in moves[:limit]:
            try:
                move = self._legal(board, given)
            except ValueError:     # an illegal, ambiguous or unreadable move: stop here
                break
            key = _key(board)
            if (key, move) not in seen:
                seen.add((key, move))
                self._count(key, move, column, weight)
            board.push(move)
            plies += 1
        if plies:
            self.game_count = max(0, self.game_count + weight)
        return plies

    def _start_board(self, fen: str | None) -> Board:
        """A new board of ``fen`` (None: the start position), copied from one kept."""
        template = self._starts.get(fen)
        if template is None:
            template = Board(fen, variant=self.variant)
            if len(self._starts) >= 64:
                self._starts.clear()
            self._starts[fen] = template
        return template.copy()

    @staticmethod
    def _legal(board: Board, given: str | Move) -> Move:
        """The legal move of ``board`` that ``given`` is (ValueError: none)."""
        if isinstance(given, str):
            simple = _SIMPLE.fullmatch(given)
            if simple is not None:   # "32-28", "28x19": the one such move between the squares
                start, end = int(simple.group(1)), int(simple.group(3))
                capture = simple.group(2) == "x"
                found = [m for m in board.legal_moves if m.from_square == start
                         and m.to_square == end and m.is_capture == capture]
                if len(found) == 1:
                    return found[0]
            return board.parse_move(given)
        if not isinstance(given, Move):
            raise TypeError(f"a move is a damier.Move or move text, not {type(given).__name__}")
        for move in board.legal_moves:
            if move == given:
                return move
        raise ValueError(f"{given!r} is not legal in {board.fen()}")

    def _count(self, key: bytes, move: Move, column: int | None, weight: int) -> None:
        entry = self._positions.get(key)
        if entry is None:
            if weight < 0:
                return
            entry = self._positions[key] = []
        for at in range(0, len(entry), _STRIDE):
            if entry[at] == move:
                break
        else:
            if weight < 0:
                return
            at = len(entry)
            entry += (self._moves.setdefault(move, move), 0, 0, 0, 0)
        entry[at + 1] += weight
        if column is not None:
            entry[at + 1 + column] += weight
        if entry[at + 1] <= 0:
            del entry[at:at + _STRIDE]
            if not entry:
                del self._positions[key]

    # -- reading --------------------------------------------------------------------------

    def _check_board(self, board: Board) -> None:
        if not isinstance(board, Board):
            raise TypeError(f"expected a damier.Board, not {type(board).__name__}")
        if board.variant != self.variant:
            raise ValueError(f"this explorer holds {self.variant.title} games, the board "
                             f"plays {board.variant.title}")

    def moves(self, board: Board) -> list[ExplorerMove]:
        """The moves played from ``board``'s position in the games indexed (those
        legal on ``board``), most played first (then by their text); ``[]`` when no
        game reached the position."""
        self._check_board(board)
        entry = self._positions.get(_key(board))
        if not entry:
            return []
        legal = {m: m for m in board.legal_moves}
        found: list[ExplorerMove] = []
        for at in range(0, len(entry), _STRIDE):
            stored, games, white, draws, black = entry[at:at + _STRIDE]
            move = legal.get(stored)
            if move is not None:
                found.append(ExplorerMove(board.notation(move), move, games, white, draws,
                                          black))
        found.sort(key=lambda m: (-m.games, m.text))
        return found

    def games(self, board: Board) -> int:
        """The games that played a move from ``board``'s position (each once).

        >>> explorer = Explorer()
        >>> _ = explorer.add_game(["32-28"], "2-0"), explorer.add_game(["33-28"], "1-1")
        >>> explorer.games(Board())
        2
        """
        return sum(m.games for m in self.moves(board))

    def book_moves(self, board: Board) -> list[BookMove]:
        """The moves of the variant's shipped opening book for ``board``'s position
        (:func:`damier.book.shipped_book`), best first; ``[]`` when the variant has
        no book or the position is not in it."""
        self._check_board(board)
        book = shipped_book(self.variant)
        return [] if book is None else book.moves(board)

    def __len__(self) -> int:
        return len(self._positions)

    def __repr__(self) -> str:
        return (f"<Explorer {self.variant.name}: {self.game_count} games, "
                f"{len(self)} positions>")

    # -- from a file ----------------------------------------------------------------------

    @classmethod
    def from_pdn(cls, source: PdnSource, variant: str | Variant | None = None, *,
                 max_plies: int = MAX_PLIES, errors: list[PdnError] | None = None
                 ) -> Explorer:
        """An explorer of the games of a PDN source (what :func:`damier.pdn.read_games`
        reads: PDN text, a stream, or a file named by a path object): each game's
        main line from its start (its ``FEN`` tag) under its ``Result`` tag.

        With ``variant``, the games are read as that variant (it overrides their
        ``GameType``); without, the explorer's variant is the first game's and the
        games of other variants are left out. Bad games are skipped, their
        :class:`~damier.errors.PdnError` appended to ``errors`` when given.

        >>> explorer = Explorer.from_pdn('''[Result "2-0"]
        ... 1. 32-28 19-23 2-0
        ... [Result "0-2"]
        ... 1. 32-28 18-23 0-2''')
        >>> explorer.variant.name, [(m.text, m.games, m.white, m.black)
        ...                         for m in explorer.moves(Board())]
        ('international', [('32-28', 2, 1, 1)])
        """
        limit = _check_plies(max_plies)
        chosen = get_variant(variant) if variant is not None else None
        explorer: Explorer | None = cls(chosen) if chosen is not None else None
        for game in read_games(source, variant=chosen, skip_errors=True, errors=errors):
            if explorer is None:
                explorer = cls(game.variant)
            if game.variant != explorer.variant:
                continue
            fen = game.headers.get("FEN", "").strip() or None
            result = game.headers.get("Result", "*")
            explorer.add_game(list(game.mainline_moves()),
                              result if canonical_result(result) is not None else None,
                              fen, limit)
        return explorer if explorer is not None else cls(DEFAULT_VARIANT)
