"""Opening books: positions of the first plies with their moves scored by searches
backed up by minimax, read from and written to a compact binary file (built from a
variant's start position with damier's own search by :mod:`damier.book_build`).

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

**Building** a book (``damier book build``) is :mod:`damier.book_build`'s work: a
drop-out expansion from the start position, each position's moves scored by damier's
search.

The shipped book of a variant is :func:`shipped_book` (the registry's
:attr:`~damier.variants.Variant.book_file` in ``damier/data/``, with a JSON
manifest beside it saying how it was built). :class:`damier.engine.Engine` plays
from a book when given one (``Engine(book=True)``: the shipped book).
"""

from __future__ import annotations

import hashlib
import os
import random
import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, Any, NamedTuple

from damier._core import MATE_SCORE, Move
from damier.board import Board
from damier.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

__all__ = ["Book", "BookMove", "BookError", "book_stats", "check_margin", "position_key",
           "shipped_book", "FORMAT_VERSION", "MAGIC", "DEFAULT_MARGIN"]

MAGIC = b"DAMRBOOK"
"""The first 8 bytes of a book file."""
FORMAT_VERSION = 1
"""The version of the book file format this module writes and reads."""
DEFAULT_MARGIN = 0
"""The usual margin (centi-men) of :meth:`Book.choose`: moves at most this much
worse than the best book move are played too. 0, the best book move only: the
random choice costs strength (the shipped International book against no book at
0.1 s a move, from the start position: margin 10, -20.5 Elo [-40.2, -0.8] in 204
games; margin 0, see ``book_international.json``'s ``measured``)."""

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


def check_margin(margin: Any) -> int:
    """``margin`` if it is a margin of :meth:`Book.choose` (a whole number of centi-men,
    0 to ``MATE_SCORE``); a :class:`ValueError` saying so otherwise."""
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
        margin = check_margin(margin)
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


def book_stats(book: Book) -> dict[str, Any]:
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


if __name__ == "__main__":  # pragma: no cover - the command line is damier.cli.book
    raise SystemExit("damier.book has no command line: run 'damier book build|show|stats ...' "
                     "(or python -m damier.cli.book)")
