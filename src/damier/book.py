"""Opening books: positions of the first plies with their moves scored by searches
backed up by minimax, read from and written to a compact binary file, and built
from a variant's start position with damier's own search.

A :class:`Book` maps a position to its book moves (:class:`BookMove`: the move,
its score in centi-men from the side to move's view, and the plies of lookahead
behind that score). :meth:`Book.moves` gives the moves legal on a board, best
first; :meth:`Book.choose` one of those within a margin of the best, at random:

>>> import random, damier
>>> board = damier.Board()
>>> book = Book("international")
>>> book.add(board, [BookMove(board.parse_move("32-28"), 12, 9),
...                  BookMove(board.parse_move("33-28"), 5, 9),
...                  BookMove(board.parse_move("31-26"), -40, 9)])
>>> len(book), board in book
(1, True)
>>> [(board.notation(m.move), m.score, m.depth) for m in book.moves(board)]
[('32-28', 12, 9), ('33-28', 5, 9), ('31-26', -40, 9)]
>>> board.notation(book.choose(board, margin=0).move)
'32-28'
>>> sorted({board.notation(book.choose(board, margin=10, rng=random.Random(s)).move)
...         for s in range(20)})
['32-28', '33-28']
>>> Book.from_bytes(book.to_bytes()) == book
True

**Keys.** A position is keyed by its exact signature (:func:`position_key`): the
side to move, then the occupied squares, the white pieces and the kings as
three bit sets, one bit per square (22 bytes on 10x10, 13 on 8x8). It is
exact, so two positions never share a key (a Zobrist hash may collide, and a
book must not play a move from another position), and it depends only on the
position, not on the compiled core's Zobrist tables, which may change from one
build of damier to the next while the book files stay valid. The signatures
sort as bytes, which orders the file's entries.

**The file** (:meth:`Book.write`, :meth:`Book.read`; little-endian)::

    magic        8 bytes  b"DAMRBOOK"
    version      u16      FORMAT_VERSION (1)
    variant      u8 length, then the variant's name in ASCII ("international")
    key size     u8       bytes of a position key (22 for International)
    entries      u32      number of positions
    payload size u64      bytes of the entries that follow
    sha256       32 bytes SHA-256 of those bytes
    entries, sorted by key, each:
        key (key size bytes), nodes u32 (the search nodes spent on the position,
        saturated at 2**32 - 1), move count u8, then per move:
        from u8, to u8, capture count u8, the captured squares (u8 each),
        score i16 (centi-men, side to move), depth u8 (plies behind the score)

A file with another magic, version or variant, a payload whose hash does not
match, a truncated file or malformed entries raise :class:`BookError` (a
:class:`ValueError`) saying what is wrong:

>>> Book.from_bytes(b"PK\\x03\\x04 not a book")
Traceback (most recent call last):
...
damier.book.BookError: not a damier opening book (it does not begin with b'DAMRBOOK')
>>> Book.from_bytes(book.to_bytes(), variant="english")
Traceback (most recent call last):
...
damier.book.BookError: this opening book is for International draughts, not English

**Building** (:func:`build`, ``damier book build``) is a drop-out expansion
from the start position: every expanded position has each of its moves scored
by one multi-PV search of damier's engine (a fixed number of nodes per move,
one thread, an emptied hash table: the same settings give the same book); the
scores are backed up the tree by negamax, and the next position to expand is
the unexpanded child with the cheapest path from the root, a path costing, for
each move along it, ``weight * (best score there - the move's score) +
ply_cost``. Moves more than ``max_loss`` centi-men worse than the best are never
followed. The tree is saved to a state file as it grows (atomically), so a build
stopped by Ctrl-C or a crash resumes where it stopped, and ``--positions`` may
grow from one run to the next.

The shipped book of a variant is :func:`shipped_book` (the registry's
:attr:`~damier.variants.Variant.book_file` in ``damier/data/``, with a JSON
manifest beside it saying how it was built). :class:`damier.engine.Engine` plays
from a book when given one (``Engine(book=True)``: the shipped book).
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import math
import os
import random
import shlex
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple, TextIO

from damier._core import MATE_SCORE, MATE_THRESHOLD, Move
from damier.board import Board
from damier.progress import ProgressBar
from damier.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

if TYPE_CHECKING:
    from damier.engine import Engine

__all__ = ["Book", "BookMove", "BookError", "BuildSettings", "build", "position_key",
           "shipped_book", "FORMAT_VERSION", "MAGIC", "DEFAULT_MARGIN"]

MAGIC = b"DAMRBOOK"
"""The first 8 bytes of a book file."""
FORMAT_VERSION = 1
"""The version of the book file format this module writes and reads."""
DEFAULT_MARGIN = 10
"""The usual margin (centi-men) of :meth:`Book.choose`: moves at most this much
worse than the best book move are played too."""

_HEAD = struct.Struct("<8sHB")        # magic, version, variant name length
_COUNTS = struct.Struct("<BIQ32s")    # key size, entries, payload size, sha256
_ENTRY = struct.Struct("<IB")         # nodes, move count
_MOVE = struct.Struct("<BBB")         # from, to, capture count
_SCORE = struct.Struct("<hB")         # score, depth
_U32_MAX = 2 ** 32 - 1
_MAX_SCORE = 32767
_MAX_ENTRIES = 2 ** 32 - 1


class BookError(ValueError):
    """A book file, or a book's use, that is wrong: the message says what."""


class BookMove(NamedTuple):
    """A book move: the move, its score (centi-men from the side to move's view,
    minimax-backed; a forced win in N plies scores ``MATE_SCORE - N``) and the
    plies of lookahead behind the score (the book's plies plus the search's)."""

    move: Move
    score: int
    depth: int = 0


_RawMove = tuple[int, int, tuple[int, ...], int, int]  # from, to, captures, score, depth


@dataclass(frozen=True)
class _Entry:
    nodes: int
    moves: tuple[_RawMove, ...]


def position_key(board: Board) -> bytes:
    """The exact signature of ``board``'s position (see the module documentation):
    the side to move (1 for White), then the occupied squares, the white pieces and
    the kings, each a little-endian bit set with bit ``s - 1`` for square ``s``.

    >>> import damier
    >>> key = position_key(damier.Board())     # White to move; 1-20 and 31-50 occupied
    >>> len(key), key[0], key[1:8].hex(), key[8:15].hex(), key[15:].hex()
    (22, 1, 'ffff0fc0ffff03', '000000c0ffff03', '00000000000000')
    """
    occupied = white = kings = 0
    for square, piece in board.piece_map().items():
        bit = 1 << (square - 1)
        occupied |= bit
        if piece.color:
            white |= bit
        if piece.king:
            kings |= bit
    size = _mask_bytes(board.variant)
    return (bytes((1 if board.turn else 0,)) + occupied.to_bytes(size, "little")
            + white.to_bytes(size, "little") + kings.to_bytes(size, "little"))


def _mask_bytes(variant: Variant) -> int:
    return (variant.squares + 7) // 8


def _key_size(variant: Variant) -> int:
    return 1 + 3 * _mask_bytes(variant)


def _board_from_key(key: bytes, variant: Variant) -> Board:
    """The position of a key (one that :func:`_check_key` accepts)."""
    size = _mask_bytes(variant)
    occupied, white, kings = (int.from_bytes(key[1 + i * size:1 + (i + 1) * size], "little")
                              for i in range(3))
    board = Board(variant=variant)
    board.set_square_sets(white & occupied, occupied & ~white, kings & occupied, bool(key[0]))
    return board


def _check_key(key: bytes, variant: Variant) -> str | None:
    """What is wrong with ``key`` as a key of ``variant``, or None."""
    size = _mask_bytes(variant)
    if len(key) != _key_size(variant):
        return f"a key of {len(key)} bytes, not {_key_size(variant)}"
    if key[0] > 1:
        return f"side to move {key[0]}"
    occupied, white, kings = (int.from_bytes(key[1 + i * size:1 + (i + 1) * size], "little")
                              for i in range(3))
    if occupied >> variant.squares:
        return "pieces beyond the last square"
    if white & ~occupied or kings & ~occupied:
        return "white pieces or kings on empty squares"
    return None


def _raw(move: Move) -> tuple[int, int, frozenset[int]]:
    return move.from_square, move.to_square, frozenset(move.captures)


def _check_margin(margin: Any) -> int:
    if isinstance(margin, bool) or not isinstance(margin, int) or not 0 <= margin <= MATE_SCORE:
        raise ValueError(f"the book margin must be a whole number of centi-men from 0 to "
                         f"{MATE_SCORE}, got {margin!r}")
    return margin


class Book:
    """An opening book of ``variant``: positions and their scored moves.

    ``len(book)`` is the number of positions, ``board in book`` says whether
    ``board``'s position has book moves. A book is for one variant: asking it
    about a board of another variant raises :class:`BookError`.
    """

    def __init__(self, variant: str | Variant = DEFAULT_VARIANT) -> None:
        self.variant = get_variant(variant)
        self._entries: dict[bytes, _Entry] = {}

    # -- contents ---------------------------------------------------------------------

    def _check_board(self, board: Board) -> bytes:
        if not isinstance(board, Board):
            raise TypeError(f"expected a damier.Board, not {type(board).__name__}")
        if board.variant != self.variant:
            raise BookError(f"this opening book is for {self.variant.title} draughts, "
                            f"the board plays {board.variant.title}")
        return position_key(board)

    def add(self, board: Board, moves: Iterable[BookMove], *, nodes: int = 0) -> None:
        """Puts ``board``'s position in the book with ``moves`` (legal moves of the
        board; they replace what the book had for it), searched with ``nodes``
        nodes."""
        key = self._check_board(board)
        legal = board.legal_moves
        raw: list[_RawMove] = []
        for book_move in moves:
            move, score, depth = book_move
            if move not in legal:
                raise BookError(f"{move!r} is not a legal move of {board.fen()}")
            if not -_MAX_SCORE <= score <= _MAX_SCORE or not 0 <= depth <= 255:
                raise BookError(f"book move {board.notation(move)}: score {score} or depth "
                                f"{depth} out of range")
            raw.append((move.from_square, move.to_square, tuple(move.captures), int(score),
                        int(depth)))
        if not raw:
            raise BookError(f"no book moves given for {board.fen()}")
        if len(raw) > 255:
            raise BookError(f"{len(raw)} book moves for one position (at most 255)")
        self._entries[key] = _Entry(min(max(0, int(nodes)), _U32_MAX), tuple(raw))

    def moves(self, board: Board) -> list[BookMove]:
        """The book moves of ``board``'s position that are legal on it, best first
        (the :class:`Move` s of ``board.legal_moves``); ``[]`` when the position is
        not in the book."""
        entry = self._entries.get(self._check_board(board))
        if entry is None:
            return []
        legal = {_raw(m): m for m in board.legal_moves}
        found: list[BookMove] = []
        for from_square, to_square, captures, score, depth in entry.moves:
            move = legal.get((from_square, to_square, frozenset(captures)))
            if move is not None:
                found.append(BookMove(move, score, depth))
        found.sort(key=lambda m: -m.score)
        return found

    def nodes(self, board: Board) -> int | None:
        """The search nodes spent on ``board``'s position when the book was built
        (None: not in the book)."""
        entry = self._entries.get(self._check_board(board))
        return entry.nodes if entry is not None else None

    def choose(self, board: Board, margin: int = DEFAULT_MARGIN,
               rng: random.Random | None = None) -> BookMove | None:
        """A book move of ``board``'s position, at random (``rng``, or the
        :mod:`random` module) among the legal ones whose score is at most
        ``margin`` centi-men below the best; None when the position has none."""
        margin = _check_margin(margin)
        moves = self.moves(board)
        if not moves:
            return None
        best = moves[0].score
        pool = [m for m in moves if m.score >= best - margin]
        return rng.choice(pool) if rng is not None else random.choice(pool)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, board: object) -> bool:
        return isinstance(board, Board) and board.variant == self.variant \
            and position_key(board) in self._entries

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Book) and other.variant == self.variant \
            and other._entries == self._entries

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Book {self.variant.name}: {len(self)} positions>"

    def entries(self) -> Iterator[tuple[Board, list[BookMove]]]:
        """Every position of the book (as a :class:`Board`) with its moves, in key order."""
        for key in sorted(self._entries):
            board = _board_from_key(key, self.variant)
            yield board, self.moves(board)

    def move_count(self) -> int:
        """The number of book moves of all positions."""
        return sum(len(e.moves) for e in self._entries.values())

    # -- the file -----------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The book as its file's bytes (see the module documentation)."""
        name = self.variant.name.encode("ascii")
        payload = bytearray()
        for key in sorted(self._entries):
            entry = self._entries[key]
            payload += key
            payload += _ENTRY.pack(entry.nodes, len(entry.moves))
            for from_square, to_square, captures, score, depth in entry.moves:
                payload += _MOVE.pack(from_square, to_square, len(captures))
                payload += bytes(captures)
                payload += _SCORE.pack(score, depth)
        digest = hashlib.sha256(payload).digest()
        return (_HEAD.pack(MAGIC, FORMAT_VERSION, len(name)) + name
                + _COUNTS.pack(_key_size(self.variant), len(self._entries), len(payload), digest)
                + bytes(payload))

    def write(self, path: str | os.PathLike[str]) -> None:
        """Writes the book to ``path`` at once (a temporary file, then a rename)."""
        _write_atomic(Path(path), self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, *, variant: str | Variant | None = None,
                   name: str | None = None) -> Book:
        """The book held in ``data`` (a book file's bytes); with ``variant``, a book
        of another variant is refused. Raises :class:`BookError` naming what is
        wrong (``name`` says which file)."""
        def bad(text: str) -> BookError:
            return BookError(f"{name}: {text}" if name else text)

        if len(data) < _HEAD.size or data[:8] != MAGIC:
            raise bad(f"not a damier opening book (it does not begin with {MAGIC!r})")
        _, version, name_length = _HEAD.unpack_from(data, 0)
        if version != FORMAT_VERSION:
            raise bad(f"opening book format version {version} is not supported (this damier "
                      f"reads version {FORMAT_VERSION}; rebuild the book)")
        offset = _HEAD.size
        if len(data) < offset + name_length + _COUNTS.size:
            raise bad("the opening book is truncated (its header is incomplete)")
        try:
            variant_name = data[offset:offset + name_length].decode("ascii")
        except UnicodeDecodeError:
            raise bad("the opening book's variant name is not ASCII") from None
        book_variant = VARIANTS.get(variant_name)
        if book_variant is None:
            raise bad(f"opening book for an unknown variant {variant_name!r} (known: "
                      f"{', '.join(VARIANTS)})")
        if variant is not None and get_variant(variant) != book_variant:
            raise bad(f"this opening book is for {book_variant.title} draughts, not "
                      f"{get_variant(variant).title}")
        offset += name_length
        key_size, count, size, digest = _COUNTS.unpack_from(data, offset)
        offset += _COUNTS.size
        if key_size != _key_size(book_variant):
            raise bad(f"corrupt opening book: keys of {key_size} bytes, {book_variant.title} "
                      f"uses {_key_size(book_variant)}")
        payload = data[offset:]
        if len(payload) != size:
            raise bad(f"the opening book is truncated or has trailing bytes: the header "
                      f"announces {size} bytes of entries, the file holds {len(payload)}")
        if hashlib.sha256(payload).digest() != digest:
            raise bad("corrupt opening book: the SHA-256 of its entries does not match its "
                      "header")
        book = cls(book_variant)
        book._entries = _parse_entries(payload, count, book_variant, bad)
        return book

    @classmethod
    def read(cls, source: str | os.PathLike[str] | IO[bytes], *,
             variant: str | Variant | None = None) -> Book:
        """The book in ``source`` (a path or a binary file); with ``variant``, a book
        of another variant is refused. Raises :class:`BookError` (a
        :class:`ValueError`) for a file that cannot be read or is not a good book."""
        name: str | None
        if isinstance(source, (str, os.PathLike)):
            name = str(source)
            try:
                data = Path(source).read_bytes()
            except OSError as exc:
                raise BookError(f"cannot read opening book {name}: "
                                f"{exc.strerror or exc}") from None
        else:
            name = str(getattr(source, "name", "")) or None
            data = source.read()
        if not isinstance(data, bytes):
            raise BookError(f"{name or 'the book'}: expected a binary file")
        return cls.from_bytes(data, variant=variant, name=name)


def _parse_entries(payload: bytes, count: int, variant: Variant,
                   bad: Callable[[str], BookError]) -> dict[bytes, _Entry]:
    key_size = _key_size(variant)
    entries: dict[bytes, _Entry] = {}
    offset = 0
    previous = b""
    try:
        for number in range(1, count + 1):
            key = payload[offset:offset + key_size]
            offset += key_size
            problem = _check_key(key, variant)
            if problem is not None:
                raise bad(f"corrupt opening book: entry {number} has {problem}")
            if key <= previous:
                raise bad(f"corrupt opening book: entry {number} is out of order")
            previous = key
            nodes, move_count = _ENTRY.unpack_from(payload, offset)
            offset += _ENTRY.size
            moves: list[_RawMove] = []
            for _ in range(move_count):
                from_square, to_square, captured = _MOVE.unpack_from(payload, offset)
                offset += _MOVE.size
                captures = tuple(payload[offset:offset + captured])
                offset += captured
                score, depth = _SCORE.unpack_from(payload, offset)
                offset += _SCORE.size
                squares = (from_square, to_square, *captures)
                if len(captures) != captured or not all(1 <= s <= variant.squares
                                                        for s in squares):
                    raise bad(f"corrupt opening book: entry {number} has a move off the board")
                moves.append((from_square, to_square, captures, score, depth))
            entries[key] = _Entry(nodes, tuple(moves))
    except struct.error:
        raise bad(f"corrupt opening book: the entries end before entry {len(entries) + 1} "
                  f"of {count}") from None
    if offset != len(payload):
        raise bad(f"corrupt opening book: {len(payload) - offset} bytes after the last of "
                  f"its {count} entries")
    return entries


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


_shipped: dict[str, Book | None] = {}
_shipped_lock = threading.Lock()


def shipped_book(variant: str | Variant = DEFAULT_VARIANT) -> Book | None:
    """The opening book shipped for ``variant`` (its
    :attr:`~damier.variants.Variant.book_file` in ``damier/data/``), read once;
    None for a variant that has none.

    >>> book = shipped_book("international")
    >>> import damier
    >>> len(book) > 100 and damier.Board() in book
    True
    >>> shipped_book("english") is None
    True
    """
    chosen = get_variant(variant)
    with _shipped_lock:
        if chosen.name not in _shipped:
            book: Book | None = None
            if chosen.book_file is not None:
                resource = resources.files("damier").joinpath("data", chosen.book_file)
                if resource.is_file():
                    book = Book.from_bytes(resource.read_bytes(), variant=chosen,
                                           name=f"damier/data/{chosen.book_file}")
            _shipped[chosen.name] = book
        return _shipped[chosen.name]


# -- building ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BuildSettings:
    """What a build searches and how it picks the positions to expand (a state
    file is resumed only with the same settings).

    ``nodes``: search nodes per legal move of an expanded position; ``weight``:
    the cost of a centi-man of deviation from the best move; ``ply_cost``: the
    cost of a ply; ``max_loss``: moves worse than the best by more (centi-men)
    are not followed; ``hash_mb``: the engine's hash table.

    >>> BuildSettings(nodes=0)
    Traceback (most recent call last):
    ...
    ValueError: nodes must be a whole number from 10 to 100000000, got 0
    """

    variant: str = DEFAULT_VARIANT
    nodes: int = 20000
    weight: float = 1.0
    ply_cost: float = 2.0
    max_loss: int = 50
    hash_mb: int = 16

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", get_variant(self.variant).name)
        for name, low, high in (("nodes", 10, 10 ** 8), ("max_loss", 0, MATE_SCORE),
                                ("hash_mb", 1, 4096)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be a whole number from {low} to {high}, "
                                 f"got {value!r}")
        for name in ("weight", "ply_cost"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or not 0 <= value <= 1e6:
                raise ValueError(f"{name} must be a finite number from 0 to 1000000, "
                                 f"got {value!r}")
            object.__setattr__(self, name, float(value))


_FORCED_PLIES = 12
"""A position with one legal move is scored by the position after it, and so on
along a forced line of at most this many plies."""


def _parent_score(value: int) -> int:
    """The score of a move whose resulting position is worth ``value`` to its side
    to move: negated, a forced result one ply further away."""
    score = -value
    if score > MATE_THRESHOLD:
        score -= 1
    elif score < -MATE_THRESHOLD:
        score += 1
    return score


def _position_value(engine: Engine, board: Board, nodes: int,
                    forced: int) -> tuple[int, int, int]:
    """``(value, depth, nodes)``: the searched value of ``board`` for its side to move."""
    legal = board.legal_moves
    if not legal:
        return -MATE_SCORE, 0, 0
    if len(legal) == 1 and forced > 0:
        child = board.copy(stack=False)
        child.push(legal[0])
        value, depth, used = _position_value(engine, child, nodes, forced - 1)
        return _parent_score(value), depth + 1, used
    engine.new_game()
    result = engine.analyse(board, multipv=1, nodes=nodes * len(legal))[0]
    return result.score, result.depth, result.nodes


def _score_moves(engine: Engine, board: Board,
                 nodes: int) -> tuple[list[Move], list[int], list[int], int]:
    """Every legal move of ``board`` with its score and depth, and the nodes spent:
    one multi-PV search of all moves (a single move: the position after it)."""
    legal = board.legal_moves
    if len(legal) == 1:
        child = board.copy(stack=False)
        child.push(legal[0])
        value, depth, used = _position_value(engine, child, nodes, _FORCED_PLIES)
        return legal, [_parent_score(value)], [depth + 1], used
    engine.new_game()
    lines = engine.analyse(board, multipv=len(legal), nodes=nodes * len(legal))
    found = {r.best_move: r for r in lines if r.best_move is not None}
    used = max((r.nodes for r in lines), default=0)
    scores: list[int] = []
    depths: list[int] = []
    for move in legal:
        line = found.get(move)
        if line is None:  # the node limit came before every line had a depth
            child = board.copy(stack=False)
            child.push(move)
            value, depth, more = _position_value(engine, child, nodes, _FORCED_PLIES)
            used += more
            scores.append(_parent_score(value))
            depths.append(depth + 1)
        else:
            scores.append(line.score)
            depths.append(line.depth)
    return legal, scores, depths, used


@dataclass
class _Node:
    """An expanded position of the build tree."""

    fen: str
    ply: int
    moves: list[Move]
    scores: list[int]          # the searches' scores of the moves
    depths: list[int]
    nodes: int
    children: list[bytes] = field(default_factory=list)
    open_children: list[bool] = field(default_factory=list)  # the child has legal moves
    backed: list[int] = field(default_factory=list)           # scores backed up by negamax
    value: int = 0


class _Tree:
    """The build tree: expanded positions by key, in expansion order."""

    def __init__(self, settings: BuildSettings) -> None:
        self.settings = settings
        self.variant = get_variant(settings.variant)
        self.nodes: dict[bytes, _Node] = {}
        self.parents: dict[bytes, list[bytes]] = {}
        self.root = position_key(Board(variant=self.variant))
        self.seconds = 0.0

    def __len__(self) -> int:
        return len(self.nodes)

    def add(self, fen: str, ply: int, moves: list[Move], scores: list[int], depths: list[int],
            nodes: int) -> None:
        """Adds an expanded position and backs its value up the tree."""
        board = Board(fen, variant=self.variant)
        key = position_key(board)
        node = _Node(fen, ply, moves, scores, depths, nodes)
        for move in moves:
            child = board.copy(stack=False)
            child.push(move)
            child_key = position_key(child)
            node.children.append(child_key)
            node.open_children.append(bool(child.legal_moves))
            parents = self.parents.setdefault(child_key, [])
            if key not in parents:
                parents.append(key)
        self.nodes[key] = node
        self._back_up(key)

    def _back_up(self, start: bytes) -> None:
        work = [start]
        steps = 0
        while work and steps < 100 * (len(self.nodes) + 1):  # bounded, should kings cycle
            steps += 1
            key = work.pop()
            node = self.nodes[key]
            node.backed = [_parent_score(self.nodes[c].value) if c in self.nodes else s
                           for c, s in zip(node.children, node.scores)]
            value = max(node.backed)
            if value != node.value or key == start:
                node.value = value
                work.extend(p for p in self.parents.get(key, ()) if p in self.nodes)

    def next_leaf(self) -> tuple[str, int] | None:
        """``(fen, ply)`` of the cheapest unexpanded position (ties: the smallest key),
        or None when none is left."""
        if self.root not in self.nodes:
            return Board(variant=self.variant).fen(compact=True), 0
        weight, ply_cost, max_loss = (self.settings.weight, self.settings.ply_cost,
                                      self.settings.max_loss)
        costs: dict[bytes, float] = {self.root: 0.0}
        done: set[bytes] = set()
        heap: list[tuple[float, bytes]] = [(0.0, self.root)]
        best: tuple[float, bytes, bytes, int] | None = None   # cost, key, parent, move index
        while heap:
            cost, key = heapq.heappop(heap)
            if key in done:
                continue
            done.add(key)
            node = self.nodes[key]
            for index, (child, backed) in enumerate(zip(node.children, node.backed)):
                loss = node.value - backed
                if loss > max_loss:
                    continue
                total = cost + weight * loss + ply_cost
                if child in self.nodes:
                    if total < costs.get(child, math.inf):
                        costs[child] = total
                        heapq.heappush(heap, (total, child))
                elif node.open_children[index]:
                    if best is None or (total, child) < best[:2]:
                        best = (total, child, key, index)
        if best is None:
            return None
        _, _, parent_key, index = best
        parent = self.nodes[parent_key]
        board = Board(parent.fen, variant=self.variant)
        board.push(parent.moves[index])
        return board.fen(compact=True), parent.ply + 1

    def to_book(self) -> Book:
        """The book of the expanded positions, their moves with backed-up scores."""
        book = Book(self.variant)
        memo: dict[bytes, int] = {}

        def best_depth(key: bytes, stack: set[bytes]) -> int:
            if key in memo:
                return memo[key]
            node = self.nodes[key]
            stack.add(key)
            index = node.backed.index(node.value)
            child = node.children[index]
            depth = (1 + best_depth(child, stack) if child in self.nodes and child not in stack
                     else node.depths[index])
            stack.discard(key)
            memo[key] = depth
            return depth

        for key, node in self.nodes.items():
            moves = []
            for move, child, backed, depth in zip(node.moves, node.children, node.backed,
                                                  node.depths):
                if child in self.nodes:
                    depth = 1 + best_depth(child, {key})
                moves.append(BookMove(move, max(-_MAX_SCORE, min(_MAX_SCORE, backed)),
                                      min(depth, 255)))
            book.add(Board(node.fen, variant=self.variant), moves, nodes=node.nodes)
        return book

    # -- the state file ---------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"format": "damier-book-state", "version": 1,
                "settings": asdict(self.settings), "seconds": round(self.seconds, 3),
                "positions": [{"fen": n.fen, "ply": n.ply,
                               "moves": [[m.from_square, m.to_square, list(m.captures)]
                                         for m in n.moves],
                               "scores": n.scores, "depths": n.depths, "nodes": n.nodes}
                              for n in self.nodes.values()]}

    def save(self, path: Path) -> None:
        _write_atomic(path, json.dumps(self.to_json(), separators=(",", ":")).encode())

    @classmethod
    def load(cls, path: Path, settings: BuildSettings) -> _Tree:
        """The tree saved in ``path``; a :class:`BookError` when it is not a state
        file, or was begun with other settings."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise BookError(f"cannot read the build state {path}: {exc.strerror}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise BookError(f"the build state {path} is not JSON ({exc}); delete it to start "
                            "again") from None
        if not isinstance(data, dict) or data.get("format") != "damier-book-state":
            raise BookError(f"{path} is not a damier book build state")
        if data.get("version") != 1:
            raise BookError(f"the build state {path} has version {data.get('version')!r}, "
                            "this damier reads version 1")
        saved = data.get("settings")
        if saved != asdict(settings):
            saved = saved if isinstance(saved, dict) else {}
            differ = ", ".join(f"{k} {saved.get(k)!r} (now {v!r})"
                               for k, v in asdict(settings).items() if saved.get(k) != v)
            raise BookError(f"the build state {path} was begun with other settings: {differ}; "
                            "use the same options to resume, or another --state")
        tree = cls(settings)
        try:
            tree.seconds = float(data.get("seconds", 0.0))
            for number, item in enumerate(data["positions"], start=1):
                board = Board(item["fen"], variant=tree.variant)
                legal = {_raw(m): m for m in board.legal_moves}
                moves = [legal[(int(f), int(t), frozenset(int(c) for c in caps))]
                         for f, t, caps in item["moves"]]
                scores = [int(s) for s in item["scores"]]
                depths = [int(d) for d in item["depths"]]
                if not moves or len(scores) != len(moves) or len(depths) != len(moves):
                    raise ValueError(f"position {number}: moves and scores do not match")
                tree.add(item["fen"], int(item["ply"]), moves, scores, depths,
                         int(item["nodes"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise BookError(f"the build state {path} is damaged ({exc}); delete it to start "
                            "again") from None
        return tree


def _command_text(settings: BuildSettings, positions: int, out: str | os.PathLike[str] | None
                  ) -> str:
    defaults = BuildSettings()
    parts = ["damier book build", f"--variant {settings.variant}", f"--positions {positions}",
             f"--nodes {settings.nodes}"]
    for name, option in (("weight", "--weight"), ("ply_cost", "--ply-cost"),
                         ("max_loss", "--max-loss"), ("hash_mb", "--hash")):
        if getattr(settings, name) != getattr(defaults, name):
            parts.append(f"{option} {getattr(settings, name)}")
    if out is not None:
        parts.append(f"--out {shlex.quote(Path(out).name)}")
    return " ".join(parts)


def _manifest(tree: _Tree, book: Book, data: bytes, positions: int,
              command: str) -> dict[str, Any]:
    from damier.puzzles import _engine_version

    variant = tree.variant
    weights = None
    if variant.eval_weights_file is not None:
        resource = resources.files("damier").joinpath("data", variant.eval_weights_file)
        if resource.is_file():
            weights = hashlib.sha256(resource.read_bytes()).hexdigest()[:16]
    return {"command": command, "variant": variant.name, "positions": len(book),
            "positions_asked": positions, "book_moves": book.move_count(),
            "nodes_per_move": tree.settings.nodes, "settings": asdict(tree.settings),
            "search_nodes": sum(n.nodes for n in tree.nodes.values()),
            "seconds": round(tree.seconds, 1),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "eval_weights_file": variant.eval_weights_file, "eval_weights_sha256": weights,
            "book_sha256": hashlib.sha256(data).hexdigest(), **_engine_version()}


def build(*, positions: int, settings: BuildSettings | None = None,
          state: str | os.PathLike[str] | None = None, out: str | os.PathLike[str] | None = None,
          progress: bool = False, stream: TextIO | None = None, save_every: int = 25,
          save_seconds: float = 20.0, command: str | None = None) -> Book:
    """Builds (or goes on building) a book of ``positions`` expanded positions and
    returns it (see the module documentation for the method).

    With ``state``, the tree is read from that file when it exists (it must have
    been begun with the same ``settings``) and saved to it every ``save_every``
    expansions or ``save_seconds`` seconds, when the build ends and when it is
    interrupted (:class:`KeyboardInterrupt` propagates after the save). With
    ``out``, the book is written there, and its manifest (how it was built) beside
    it with the suffix ``.json``. ``progress`` shows a bar on ``stream``.

    >>> book = build(positions=2, settings=BuildSettings(nodes=30))
    >>> import damier
    >>> len(book), damier.Board() in book
    (2, True)
    """
    settings = settings or BuildSettings()
    if isinstance(positions, bool) or not isinstance(positions, int) \
            or not 1 <= positions <= 10 ** 7:
        raise ValueError(f"positions must be a whole number from 1 to 10000000, "
                         f"got {positions!r}")
    if save_every < 1:
        raise ValueError(f"save_every must be at least 1, got {save_every}")
    from damier.engine import Engine

    state_path = Path(state) if state is not None else None
    if state_path is not None and out is not None and state_path.resolve() in (
            Path(out).resolve(), Path(out).with_suffix(".json").resolve()):
        raise ValueError(f"the state file and the book's manifest (or the book) would both be "
                         f"{state_path}: choose another state file")
    if state_path is not None and state_path.exists():
        tree = _Tree.load(state_path, settings)
    else:
        tree = _Tree(settings)
    stream = stream if stream is not None else sys.stderr
    bar = ProgressBar(f"book {tree.variant.name}", total=positions, done=min(len(tree),
                      positions), stream=stream, enabled=progress)
    if len(tree) and len(tree) < positions:
        bar.message(f"resuming from {state_path}: {len(tree)} positions already expanded")
    engine = Engine(threads=1, hash_mb=settings.hash_mb)
    started = time.monotonic()
    last_save = started
    unsaved = 0
    try:
        while len(tree) < positions:
            leaf = tree.next_leaf()
            if leaf is None:
                bar.message("no position left to expand within --max-loss")
                break
            fen, ply = leaf
            board = Board(fen, variant=tree.variant)
            moves, scores, depths, used = _score_moves(engine, board, settings.nodes)
            tree.add(fen, ply, moves, scores, depths, used)
            now = time.monotonic()
            tree.seconds += now - started
            started = now
            unsaved += 1
            if state_path is not None and (unsaved >= save_every
                                           or now - last_save >= save_seconds):
                tree.save(state_path)
                unsaved, last_save = 0, now
            root = tree.nodes[tree.root].value
            count = len(tree)
            bar.update(f"ply {ply}, root {root:+d}", advance=1,
                       line=(f"{count}/{positions} positions expanded, root {root:+d}, "
                             f"{tree.seconds:.0f} s"
                             if count % 50 == 0 or count == positions else None))
    finally:
        bar.close()
        if state_path is not None and unsaved:
            tree.save(state_path)
    book = tree.to_book()
    if out is not None:
        data = book.to_bytes()
        _write_atomic(Path(out), data)
        manifest = _manifest(tree, book, data, positions,
                             command or _command_text(settings, positions, out))
        _write_atomic(Path(out).with_suffix(".json"),
                      (json.dumps(manifest, indent=1) + "\n").encode())
    return book


# -- the command line ----------------------------------------------------------------------


def add_book_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]
                    ) -> argparse.ArgumentParser:
    """Adds the ``book`` subcommand (``build``, ``show``, ``stats``) to ``damier``'s
    subparsers; ``damier.cli.main`` runs it with ``book_command(args, out, err)``."""
    p = subparsers.add_parser("book", help="build, show and count opening books",
                              description="Build an opening book with damier's own search "
                              "(resumable), show a position's book moves, count a book.")
    sub = p.add_subparsers(dest="book_action", metavar="COMMAND")
    sub.required = True
    defaults = BuildSettings()
    b = sub.add_parser("build", help="build a book by drop-out expansion (resumable)",
                       description="Expand positions from the start position, best first, "
                       "scoring every move with a search. Ctrl-C stops; the same command "
                       "again resumes.")
    b.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant: {', '.join(VARIANTS)} (default {DEFAULT_VARIANT})")
    b.add_argument("--positions", type=int, required=True,
                   help="expanded positions in all (those already in --state are kept)")
    b.add_argument("--nodes", type=int, default=defaults.nodes,
                   help=f"search nodes per legal move of a position (default {defaults.nodes})")
    b.add_argument("--out", help="book file to write (default book_VARIANT.bin)")
    b.add_argument("--state", help="build state, for resuming (default OUT.state.json)")
    b.add_argument("--weight", type=float, default=defaults.weight,
                   help="cost of a centi-man below the best move (default "
                   f"{defaults.weight:g})")
    b.add_argument("--ply-cost", type=float, default=defaults.ply_cost,
                   help=f"cost of a ply (default {defaults.ply_cost:g})")
    b.add_argument("--max-loss", type=int, default=defaults.max_loss,
                   help="moves this many centi-men below the best are not followed "
                   f"(default {defaults.max_loss})")
    b.add_argument("--hash", type=int, default=defaults.hash_mb, metavar="MB",
                   help=f"engine hash table in MiB (default {defaults.hash_mb})")
    b.add_argument("--no-progress", action="store_true", help="no progress output")
    s = sub.add_parser("show", help="the book moves of a position")
    s.add_argument("fen", nargs="?", help="the position (default: the start position)")
    s.add_argument("--book", help="book file (default: the variant's shipped book)")
    s.add_argument("--variant", help="variant (default: the book's, or international)")
    s.add_argument("--margin", type=int, default=DEFAULT_MARGIN,
                   help=f"mark the moves an engine may play, centi-men (default "
                   f"{DEFAULT_MARGIN})")
    t = sub.add_parser("stats", help="count a book's positions and moves")
    t.add_argument("file")
    t.add_argument("--json", action="store_true", help="print JSON")
    return p


def book_command(args: argparse.Namespace, out: TextIO | None = None,
                 err: TextIO | None = None) -> int:
    """Runs a parsed ``book build|show|stats`` command; returns the exit status."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    action = args.book_action
    try:
        if action == "build":
            return _build_command(args, out, err)
        if action == "show":
            return _show_command(args, out)
        return _stats_command(args, out)
    except (OSError, ValueError) as exc:
        err.write(f"damier book {action}: {exc}\n")
        return 2


def _build_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    settings = BuildSettings(variant=get_variant(args.variant).name, nodes=args.nodes,
                             weight=args.weight, ply_cost=args.ply_cost,
                             max_loss=args.max_loss, hash_mb=args.hash)
    target = Path(args.out or f"book_{settings.variant}.bin")
    state = Path(args.state) if args.state else target.with_name(target.name + ".state.json")
    command = _command_text(settings, args.positions, target)
    try:
        book = build(positions=args.positions, settings=settings, state=state, out=target,
                     progress=not args.no_progress, stream=err, command=command)
    except KeyboardInterrupt:
        err.write(f"\nstopped; the positions expanded are kept in {state}: run the same "
                  "command again to resume\n")
        return 130
    out.write(f"{len(book)} positions, {book.move_count()} book moves: {target} "
              f"(manifest {target.with_suffix('.json')}, state {state})\n")
    return 0


def _show_command(args: argparse.Namespace, out: TextIO) -> int:
    margin = _check_margin(args.margin)
    if args.book:
        book = Book.read(args.book, variant=args.variant)
    else:
        variant = get_variant(args.variant or DEFAULT_VARIANT)
        shipped = shipped_book(variant)
        if shipped is None:
            raise BookError(f"damier ships no opening book for {variant.title} draughts; "
                            "give one with --book")
        book = shipped
    board = Board(args.fen, variant=book.variant) if args.fen else Board(variant=book.variant)
    moves = book.moves(board)
    out.write(f"{board.fen(compact=True)}\n")
    if not moves:
        out.write("not in the book\n")
        return 1
    from damier.engine import format_score

    best = moves[0].score
    for move in moves:
        mark = "*" if move.score >= best - margin else " "
        out.write(f"{mark} {board.notation(move.move):<12} {format_score(move.score):>10}  "
                  f"depth {move.depth}\n")
    out.write(f"(* within {margin} centi-men of the best: the moves an engine plays; "
              f"{book.nodes(board)} nodes searched here)\n")
    return 0


def _stats(book: Book) -> dict[str, Any]:
    """Counts of ``book``: positions, moves, and the positions reached from the start
    position through book moves, by ply (the first ply each is reached at)."""
    start = Board(variant=book.variant)
    by_ply: dict[int, int] = {}
    seen = {position_key(start)}
    frontier = [start] if start in book else []
    ply = 0
    while frontier:
        by_ply[ply] = len(frontier)
        following = []
        for board in frontier:
            for book_move in book.moves(board):
                child = board.copy(stack=False)
                child.push(book_move.move)
                key = position_key(child)
                if key not in seen and child in book:
                    seen.add(key)
                    following.append(child)
        frontier, ply = following, ply + 1
    line: list[str] = []
    board = start
    while True:
        moves = book.moves(board) if board in book else []
        if not moves or len(line) >= 200:
            break
        line.append(board.notation(moves[0].move))
        board = board.copy(stack=False)
        board.push(moves[0].move)
    root = [{"move": start.notation(m.move), "score": m.score, "depth": m.depth}
            for m in book.moves(start)] if start in book else []
    return {"variant": book.variant.name, "positions": len(book),
            "book_moves": book.move_count(), "reached_from_start": len(seen) if root else 0,
            "positions_by_ply": by_ply, "main_line": line, "start_moves": root}


def _stats_command(args: argparse.Namespace, out: TextIO) -> int:
    book = Book.read(args.file)
    stats = _stats(book)
    manifest_path = Path(args.file).with_suffix(".json")
    if manifest_path.is_file():
        try:
            stats["manifest"] = json.loads(manifest_path.read_text(encoding="utf-8"))
        except ValueError:
            stats["manifest"] = None
    if args.json:
        out.write(json.dumps(stats, indent=1) + "\n")
        return 0
    out.write(f"{book.variant.title} opening book: {stats['positions']} positions, "
              f"{stats['book_moves']} book moves, {stats['reached_from_start']} reached from "
              "the start position through book moves\n")
    if stats["positions_by_ply"]:
        out.write("positions by ply: " + ", ".join(
            f"{ply}: {count}" for ply, count in stats["positions_by_ply"].items()) + "\n")
    if stats["start_moves"]:
        out.write("start position: " + ", ".join(
            f"{m['move']} {m['score']:+d}" for m in stats["start_moves"]) + "\n")
        out.write(f"main line ({len(stats['main_line'])} plies): "
                  f"{' '.join(stats['main_line'])}\n")
    manifest = stats.get("manifest")
    if isinstance(manifest, dict) and manifest.get("command"):
        out.write(f"built by: {manifest['command']} ({manifest.get('seconds')} s, "
                  f"{manifest.get('date')}, commit {manifest.get('commit')})\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m damier.book build|show|stats ...``."""
    parser = argparse.ArgumentParser(prog="python -m damier.book")
    sub = parser.add_subparsers(dest="command")
    add_book_parser(sub)
    args = parser.parse_args(["book", *(argv if argv is not None else sys.argv[1:])])
    return book_command(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
