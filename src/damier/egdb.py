"""Endgame databases: perfect play with few pieces, built by damier itself.

Every position of a material signature gets its value for the side to move (win, draw or
loss) and the distance to the end of the game in plies with best play (the winner as
fast as it can, the loser as slowly; captures and promotions do not reset it). The
tables are computed by the compiled core (``_egdb.pxi``: a retrograde analysis
by distance levels on the core's own move generator, then a forward verification of
every position; :mod:`damier.egdb_build` builds them) and probed like python-chess's
``chess.syzygy``:

>>> import tempfile
>>> from damier import Board
>>> from damier.egdb import Wdl, open_database
>>> from damier.egdb_build import build
>>> tmp = tempfile.TemporaryDirectory()
>>> report = build(tmp.name, pieces=2)            # 2 pieces: well under a second
>>> with open_database(tmp.name) as db:       # a king each: a draw ...
...     db.probe_wdl(Board("W:WK31:BK20"))
<Wdl.DRAW: 0>
>>> with open_database(tmp.name) as db:       # ... unless one is caught in the corner 46
...     db.probe_wdl(Board("W:WK46:BK5")), db.probe_dtw(Board("W:WK46:BK5"))
(<Wdl.LOSS: -1>, -2)
>>> with open_database(tmp.name) as db:       # 3 pieces: not in this database
...     db.get_wdl(Board("W:W28,27:BK1")) is None
True
>>> tmp.cleanup()

Signatures and positions
------------------------
A signature is ``(our men, our kings, their men, their kings)`` for the side to move,
written ``"1101"`` in file names (one man and a king against a king). A position with
Black to move is stored as its mirror image (the board turned half round, the colours
swapped), so one table serves both sides. Positions are indexed per signature: men on
the squares they can stand on (never their own crowning row), kings on any square, each
group of alike pieces as a combination; the few slots where two groups share a square are
unused. Every position is stored, those where the side to move must capture included, so
a probe is one look-up (no capture search). The rules are those of the core's
move generator for the variant (men capturing backwards or not, flying or short kings,
the majority rule or free choice); a player who cannot move (or has no piece) loses.

File format (version 2, little-endian)
--------------------------------------
One file per signature, ``<directory>/<variant>/<signature>.egdb``, written to a
temporary name and renamed when complete::

    header (128 bytes)
      0  8s   magic b"DAMIEREG"
      8  H    format version (2)
     10  H    header size (128)
     12  16s  variant name (ASCII, NUL padded)
     28  4B   signature: our men, our kings, their men, their kings
     32  Q    positions (slots, unused ones included)
     40  I    values per block (the last block may be shorter)
     44  I    number of blocks
     48  4Q   wins, draws, losses, unused slots
     80  H    longest distance (plies)
     82  14x  zero
     96  32s  SHA-256 of the header's first 96 bytes followed by the payload
    payload
      (blocks + 1) Q   block offsets, from the start of the payload's blocks
      blocks           each zlib-compressed: the block's values as uint16

A value is 0 for a draw, ``n + 1`` when the game ends in ``n`` plies (``n`` odd: the
side to move wins; ``n`` even: it loses), and 65535 for an unused slot. Reading maps the
file into memory and keeps a few decompressed blocks per table (thread-safe).

Opening a table checks every header field on its own and against the others (the
variant and signature asked for, the number of slots the signature has, the number
of blocks those slots make, the counts adding up to the slots, the offsets rising to
the end of the file) and then the checksum, which covers the header too; decompressing a block
checks its length. Any of these failing raises :class:`TableError`, naming the file
and what is wrong with it.

Version 1 files (damier before the header was covered by the checksum: the same
layout, whose checksum covers the payload only) are still read, with the same
checks: each of their header fields is either checked against the rest of the file
when the table is opened, or not used by a probe (the counts and the longest
distance, which only show in ``damier egdb info``, are checked against the values
when the table is read whole: by the engine, ``verify``, a build). Rebuilding
them (delete the files and run ``damier egdb build`` again) gives version 2 files.
"""

from __future__ import annotations

import enum
import hashlib
import logging
import mmap
import os
import struct
import sys
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType

from damier import _core
from damier.board import Board
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["Wdl", "MissingTableError", "TableError", "Database", "Table", "TableInfo",
           "open_database", "default_directory", "signatures", "signature_name",
           "table_files", "table_info", "verify", "verify_report", "VerifyReport",
           "shared_tables", "FORMAT_VERSION", "MAX_PIECES", "EgdbSetting", "Verdict",
           "DEFAULT_ENGINE_PIECES", "FIRST_USE_PIECES", "QUICK_LOAD_PIECES"]

Signature = tuple[int, int, int, int]

MAGIC = b"DAMIEREG"
FORMAT_VERSION = 2
"""The format version of the tables written (version 1 tables are still read)."""
_READ_VERSIONS = (1, 2)
HEADER = struct.Struct("<8sHH16s4BQII4QH14x32s")
_DIGEST_AT = 96                 # the checksum: the header's last 32 bytes
_PAD = slice(82, 96)            # the header's zero bytes
BLOCK_VALUES = 16384
_MAX_BLOCK_VALUES = 1 << 24
UNUSED: int = _core.EGDB_UNUSED
"""The value of a slot that holds no position (the compiled core's)."""
MAX_PIECES: int = _core.MAX_EG_PIECES
"""The most pieces a database may have (the compiled core's limit; the index allows 7
of a kind)."""
DEFAULT_ENGINE_PIECES = 5
"""The engine probes the tables of at most this many pieces that its directory holds,
unless told otherwise (``egdb_pieces``, ``--egdb-pieces``, the Hub's ``bb-size``). In
memory, the 2-4 piece tables of International take 94 MB, the 5-piece ones 3.8 GB; with
5 pieces probed, 0.1 s a move, the engine scored +27 Elo [+10, +45] against 4 (SPRT)."""
FIRST_USE_PIECES = 3
"""An engine given the default directory (``egdb=True``: ``damier play``, ``serve`` and
``hub``) builds the tables of up to this many pieces there at its first search of a
variant when they are missing (International: 0.4 s, 160 KB;
:func:`damier.egdb_build.build_missing`)."""
QUICK_LOAD_PIECES = 4
"""Tables of at most this many pieces are read into memory before the first search
that needs them (International: 94 MB, a quarter of a second); larger ones (5 pieces:
3.8 GB, about 15 s) are read by a background thread meanwhile, and probed once all of
them are in."""
_CACHE_BLOCKS = 64
_SUFFIX = ".egdb"
_log = logging.getLogger("damier.egdb")


class Wdl(enum.IntEnum):
    """Win, draw or loss for the side to move."""
    LOSS = -1
    DRAW = 0
    WIN = 1


class MissingTableError(KeyError):
    """The position is not in the database (too many pieces, a table not built, or the
    game already over)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "position not in the database"


class TableError(ValueError):
    """A table file that cannot be used: wrong magic, version, variant, signature or checksum."""


def default_directory() -> Path:
    """The user's cache directory for databases: ``$XDG_CACHE_HOME/damier/egdb`` (or
    ``~/.cache/damier/egdb``); each variant has a folder below it."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "damier" / "egdb"


def signature_name(signature: Signature) -> str:
    """``"1101"`` for one man and one king against one king.

    >>> signature_name((1, 1, 0, 1))
    '1101'
    """
    return "".join(str(n) for n in signature)


def _parse_signature(name: str) -> Signature | None:
    """The signature a file name stands for, or None when it is not one of the tables'."""
    if len(name) != 4 or not name.isdigit():
        return None
    a, b, c, d = (int(ch) for ch in name)
    if a + b == 0 or c + d == 0 or a + b + c + d > MAX_PIECES:
        return None
    return (a, b, c, d)


def _mirror(signature: Signature) -> Signature:
    a, b, c, d = signature
    return (c, d, a, b)


def signatures(pieces: int) -> list[Signature]:
    """Every signature of 2 to ``pieces`` pieces (at least one a side), in build order:
    fewer pieces first, then fewer men (a promotion leads to one man fewer).

    >>> signatures(2)
    [(0, 1, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (1, 0, 1, 0)]
    """
    out: list[Signature] = []
    for total in range(2, pieces + 1):
        level: list[Signature] = []
        for ours in range(1, total):
            theirs = total - ours
            for a in range(ours + 1):
                for c in range(theirs + 1):
                    if max(a, ours - a, c, theirs - c) <= MAX_PIECES:
                        level.append((a, ours - a, c, theirs - c))
        level.sort(key=lambda s: (s[0] + s[2], s))
        out.extend(level)
    return out


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------

def _native(values: bytes | bytearray) -> bytearray:
    """Little-endian uint16 values as a bytearray in the machine's order."""
    out = bytearray(values)
    if sys.byteorder == "big":  # pragma: no cover - little-endian machines only in CI
        import array
        a = array.array("H", out)
        a.byteswap()
        out = bytearray(a.tobytes())
    return out


@dataclass(frozen=True)
class TableInfo:
    """What a table's header says."""
    variant: str
    signature: Signature
    positions: int
    block_values: int
    blocks: int
    wins: int
    draws: int
    losses: int
    unused: int
    longest: int
    checksum: bytes
    version: int = FORMAT_VERSION

    def block_size(self, number: int) -> int:
        """The number of values of block ``number``."""
        return min(self.block_values, self.positions - number * self.block_values)


def _slots(variant: Variant, signature: Signature) -> int:
    """The number of slots of ``signature``'s table in ``variant``."""
    return int(_core.EgTables(variant.index).positions(signature))


def _read_header(data: bytes | mmap.mmap, path: Path, size: int | None = None) -> TableInfo:
    """The header of the table file ``path`` (``data``: its first bytes at least; ``size``:
    the file's size, when known), every field checked on its own and against the others;
    :class:`TableError` names the file and the first field found wrong."""
    length = len(data) if size is None else size
    if length == 0:
        raise TableError(f"{path}: not a damier endgame table (empty)")
    head = bytes(data[:len(MAGIC)])
    if head != MAGIC[:len(head)]:
        raise TableError(f"{path}: not a damier endgame table (bad magic)")
    least = HEADER.size + 16            # the header, two offsets: one block
    if length < least or len(data) < HEADER.size:
        raise TableError(f"{path}: truncated ({length} bytes; a table has at least {least})")
    (_magic, version, header_size, raw_variant, a, b, c, d, positions, block_values, blocks,
     wins, draws, losses, unused, longest, checksum) = HEADER.unpack_from(data, 0)
    if version not in _READ_VERSIONS:
        raise TableError(f"{path}: format version {version}, this damier reads versions "
                         f"{_READ_VERSIONS[0]} to {_READ_VERSIONS[-1]}")
    if header_size != HEADER.size:
        raise TableError(f"{path}: header size {header_size}, expected {HEADER.size}")
    if any(bytes(data[_PAD])):
        raise TableError(f"{path}: the header's reserved bytes 82-95 are not zero")
    name = raw_variant.rstrip(b"\0")
    try:
        variant = get_variant(name.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        variant = None
    if variant is None or variant.name.encode("ascii").ljust(16, b"\0") != raw_variant:
        raise TableError(f"{path}: variant name {raw_variant!r} in the header is not a variant")
    signature = (a, b, c, d)
    if (max(signature) > MAX_PIECES or a + b == 0 or c + d == 0
            or sum(signature) > MAX_PIECES):
        raise TableError(f"{path}: signature {signature} in the header is not one of the tables")
    slots = _slots(variant, signature)
    if positions != slots:
        raise TableError(f"{path}: {positions} positions in the header, signature "
                         f"{signature_name(signature)} of {variant.name} has {slots}")
    if version == 1 and block_values != BLOCK_VALUES:
        raise TableError(f"{path}: {block_values} values per block in the header; version 1 "
                         f"tables have {BLOCK_VALUES}")
    if not 1 <= block_values <= _MAX_BLOCK_VALUES:
        raise TableError(f"{path}: {block_values} values per block in the header")
    if blocks != -(-positions // block_values):
        raise TableError(f"{path}: {blocks} blocks in the header; {positions} positions in "
                         f"blocks of {block_values} make {-(-positions // block_values)}")
    if wins + draws + losses + unused != positions:
        raise TableError(f"{path}: wins, draws, losses and unused slots in the header add up "
                         f"to {wins + draws + losses + unused}, not {positions} positions")
    if length < HEADER.size + 8 * (blocks + 1):
        raise TableError(f"{path}: truncated ({length} bytes; its {blocks} block offsets "
                         f"alone end at byte {HEADER.size + 8 * (blocks + 1)})")
    return TableInfo(variant=variant.name, signature=signature, positions=positions,
                     block_values=block_values, blocks=blocks, wins=wins, draws=draws,
                     losses=losses, unused=unused, longest=longest, checksum=checksum,
                     version=version)


class Table:
    """One signature's file, memory-mapped, with a small cache of decompressed blocks.
    Opening checks the header (every field, see the module's format notes), the variant
    and signature asked for, the block offsets and the checksum: :class:`TableError`
    names the file and what is wrong."""

    def __init__(self, path: str | os.PathLike[str], *, variant: str | Variant | None = None,
                 signature: Signature | None = None) -> None:
        self.path = Path(path)
        expected = get_variant(variant).name if variant is not None else None
        with open(self.path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                raise TableError(f"{self.path}: not a damier endgame table (empty)")
            try:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError as exc:   # an empty file (emptied since)
                raise TableError(f"{self.path}: not a damier endgame table (empty)") from exc
        try:
            try:
                self._open(size, expected, signature)
            except TableError:
                raise
            except (struct.error, zlib.error, ValueError, ArithmeticError, IndexError,
                    UnicodeError) as exc:     # a check missed: still the file's fault
                raise TableError(f"{self.path}: unreadable ({type(exc).__name__}: {exc})") \
                    from exc
        except BaseException:
            self._map.close()
            raise
        self._cache: OrderedDict[int, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def _open(self, size: int, variant: str | None, signature: Signature | None) -> None:
        self.info = info = _read_header(self._map, self.path, size)
        if variant is not None and variant != info.variant:
            raise TableError(f"{self.path}: a table of {info.variant}, not {variant}")
        if signature is not None and tuple(signature) != info.signature:
            raise TableError(f"{self.path}: holds signature {signature_name(info.signature)}, "
                             f"not {signature_name(signature)}")
        n = info.blocks + 1
        offsets = struct.unpack_from(f"<{n}Q", self._map, HEADER.size)
        base = HEADER.size + 8 * n
        if offsets[0] != 0 or any(x >= y for x, y in zip(offsets, offsets[1:], strict=False)):
            raise TableError(f"{self.path}: block offsets not rising from 0 (corrupted file)")
        if base + offsets[-1] != size:
            raise TableError(f"{self.path}: {size} bytes, its block offsets end at byte "
                             f"{base + offsets[-1]} (truncated or corrupted file)")
        digest = hashlib.sha256()
        with memoryview(self._map) as view:
            if info.version >= 2:
                with view[:_DIGEST_AT] as part:
                    digest.update(part)
            with view[HEADER.size:] as part:
                digest.update(part)
        if digest.digest() != info.checksum:
            raise TableError(f"{self.path}: checksum mismatch (corrupted file)")
        self._offsets = offsets
        self._base = base

    def _inflate(self, number: int) -> bytes:
        """Block ``number`` decompressed, its length checked (little-endian values)."""
        start = self._base + self._offsets[number]
        try:
            block = zlib.decompress(self._map[start:self._base + self._offsets[number + 1]])
        except zlib.error as exc:
            raise TableError(f"{self.path}: block {number} cannot be decompressed ({exc})") \
                from exc
        if len(block) != 2 * self.info.block_size(number):
            raise TableError(f"{self.path}: block {number} holds {len(block) // 2} values, "
                             f"expected {self.info.block_size(number)}")
        return block

    def _block(self, number: int) -> bytes:
        with self._lock:
            block = self._cache.get(number)
            if block is not None:
                self._cache.move_to_end(number)
                return block
            block = self._inflate(number)
            self._cache[number] = block
            if len(self._cache) > _CACHE_BLOCKS:
                self._cache.popitem(last=False)
            return block

    def value(self, slot: int) -> int:
        """The raw value of a slot (see the module's format notes)."""
        if not 0 <= slot < self.info.positions:
            raise IndexError(f"slot {slot} out of range")
        per = self.info.block_values
        block = self._block(slot // per)
        i = (slot % per) * 2
        return block[i] | (block[i + 1] << 8)

    def values(self) -> bytearray:
        """Every raw value, decompressed (uint16 in the machine's order). In a version 1
        table, whose checksum does not cover the header, the header's counts and longest
        distance are checked against them."""
        out = bytearray()
        for number in range(self.info.blocks):
            out += self._inflate(number)
        values = _native(out)
        info = self.info
        if info.version >= 2:
            return values
        wins, draws, losses, unused, longest = _core.egdb_counts(values)
        if ((wins, draws, losses, unused, min(longest, 0xFFFF))
                != (info.wins, info.draws, info.losses, info.unused, info.longest)):
            raise TableError(
                f"{self.path}: the header says {info.wins} wins, {info.draws} draws, "
                f"{info.losses} losses, {info.unused} unused slots and a longest distance "
                f"of {info.longest}; the values have {wins}, {draws}, {losses}, {unused} "
                f"and {longest} (corrupted file)")
        return values

    def close(self) -> None:
        with self._lock:
            self._cache.clear()
            self._map.close()


def _decode(value: int) -> tuple[Wdl, int]:
    if value == 0:
        return Wdl.DRAW, 0
    plies = value - 1
    return (Wdl.WIN, plies) if plies & 1 else (Wdl.LOSS, -plies)


@dataclass(frozen=True)
class Verdict:
    """What the endgame database says of a position, for people (the terminal's
    ``hint``, the web analysis, game reports): see
    :meth:`damier.engine.Engine.egdb_verdict`.

    >>> Verdict(Wdl.LOSS, 12, white_to_move=False).text()
    'database: White wins in 12 plies'
    >>> Verdict(Wdl.WIN, 31, True, count_rule="the 16-move rule").text()
    'database: White wins in 31 plies, but the 16-move rule draws first'
    >>> Verdict(Wdl.DRAW, 0, True).text()
    'database: draw'
    >>> Verdict(Wdl.WIN, 1, True).text(), Verdict(Wdl.LOSS, 0, True).text()
    ('database: White wins in 1 ply', 'database: Black has won (White cannot move)')
    """

    wdl: Wdl
    """Win, draw or loss for the side to move."""
    plies: int
    """Plies to the end of the game with best play (0 for a draw)."""
    white_to_move: bool
    count_rule: str | None = None
    """A move-count rule (``"the 16-move rule"``) whose running count draws the game
    before the win can be forced, unless a capture or promotion starts a new one."""

    @property
    def winner(self) -> bool | None:
        """True when White wins, False when Black wins, None for a draw (the database's
        value without the move-count rules: see :attr:`count_rule`)."""
        if self.wdl == Wdl.DRAW:
            return None
        return self.white_to_move == (self.wdl == Wdl.WIN)

    @property
    def score(self) -> int | None:
        """The value as an engine score for the side to move (a win in n plies is
        ``MATE_SCORE - n``), or None when a count draws the game first."""
        if self.count_rule is not None:
            return None
        if self.wdl == Wdl.DRAW:
            return 0
        mate = int(_core.MATE_SCORE) - self.plies
        return mate if self.wdl == Wdl.WIN else -mate

    def text(self) -> str:
        """``database: White wins in 13 plies``, ``database: draw``."""
        if self.winner is None:
            return "database: draw"
        winner, loser = ("White", "Black") if self.winner else ("Black", "White")
        if self.plies == 0:
            return f"database: {winner} has won ({loser} cannot move)"
        unit = "ply" if self.plies == 1 else "plies"
        text = f"database: {winner} wins in {self.plies} {unit}"
        if self.count_rule is not None:
            text += f", but {self.count_rule} draws first"
        return text


# ---------------------------------------------------------------------------
# Probing
# ---------------------------------------------------------------------------

class Database:
    """The tables of one variant in ``directory`` (``<directory>/<variant>/*.egdb``),
    opened on first use. Reads are thread-safe. Use :func:`open_database`."""

    def __init__(self, directory: str | os.PathLike[str] | None = None, *,
                 variant: str | Variant = DEFAULT_VARIANT) -> None:
        self.variant = get_variant(variant)
        self.directory = Path(directory) if directory is not None else default_directory()
        self.folder = self.directory / self.variant.name
        if not self.directory.is_dir():
            raise FileNotFoundError(f"no database directory {self.directory}")
        self._tables: dict[Signature, Table] = {}
        self._lock = threading.Lock()
        self._available: set[Signature] = set()
        if self.folder.is_dir():
            for path in self.folder.glob(f"*{_SUFFIX}"):
                sig = _parse_signature(path.stem)
                if sig is not None:
                    self._available.add(sig)
        self.max_pieces = max((sum(s) for s in self._available), default=0)

    def __enter__(self) -> Database:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Closes every open table."""
        with self._lock:
            for table in self._tables.values():
                table.close()
            self._tables.clear()

    def signatures(self) -> list[Signature]:
        """The signatures whose files are in the directory."""
        return sorted(self._available, key=lambda s: (sum(s), s[0] + s[2], s))

    def table(self, signature: Signature) -> Table:
        """The table of ``signature`` (opened and checked on first use)."""
        with self._lock:
            table = self._tables.get(signature)
            if table is None:
                if signature not in self._available:
                    raise MissingTableError(f"no table {signature_name(signature)} for "
                                            f"{self.variant.name} in {self.folder}")
                table = Table(self.folder / f"{signature_name(signature)}{_SUFFIX}",
                              variant=self.variant, signature=signature)
                self._tables[signature] = table
            return table

    def _value(self, board: Board) -> int:
        if board.variant != self.variant:
            raise ValueError(f"a {board.variant.name} board and a {self.variant.name} database")
        key = _core.egdb_key(board)
        if key is None:
            if not board._has_legal_move():
                return 1                      # no piece or no move: lost
            raise MissingTableError(f"{board.fen()}: not a position of the database")
        signature, slot = key
        if slot < 0 or sum(signature) > self.max_pieces:
            if not self._available:
                raise MissingTableError(
                    f"{board.fen()}: no {self.variant.name} tables in {self.folder} (build "
                    f"them with 'damier egdb build --variant {self.variant.name}')")
            raise MissingTableError(f"{board.fen()}: {sum(signature)} pieces, more than the "
                                    f"tables in {self.folder} have (at most "
                                    f"{self.max_pieces})")
        value = self.table(signature).value(slot)
        if value == UNUSED:  # pragma: no cover - a real position never indexes an unused slot
            raise TableError(f"{board.fen()}: an unused slot of {signature_name(signature)}")
        return value

    def probe_wdl(self, board: Board) -> Wdl:
        """Win, draw or loss for the side to move; :class:`MissingTableError` when the
        position is not in the database. Positions with a capture to make are answered too."""
        return _decode(self._value(board))[0]

    def probe_dtw(self, board: Board) -> int:
        """The distance to the end of the game with best play, in **plies**, signed for the
        side to move: ``n > 0`` wins in ``n`` plies (odd), ``-n`` loses in ``n`` plies (even),
        0 a draw or a position already lost (no move; :meth:`probe_wdl` tells them apart)."""
        return _decode(self._value(board))[1]

    def get_wdl(self, board: Board, default: Wdl | None = None) -> Wdl | None:
        """:meth:`probe_wdl`, or ``default`` when the position is not in the database."""
        try:
            return self.probe_wdl(board)
        except MissingTableError:
            return default

    def get_dtw(self, board: Board, default: int | None = None) -> int | None:
        """:meth:`probe_dtw`, or ``default`` when the position is not in the database."""
        try:
            return self.probe_dtw(board)
        except MissingTableError:
            return default

    def in_memory(self, pieces: int | None = None) -> _core.EgTables:
        """Every table (of at most ``pieces`` pieces) decompressed into memory (2 bytes
        a slot: about 94 MB for 2-4 pieces of International, 3.8 GB for 5), for the
        compiled probe (``EgTables.probe`` from Python; ``eg_lookup(&tables.reg, &pos)``
        from the core's Cython, without the GIL) and the engine's searches."""
        tables = _core.EgTables(self.variant.index)
        for s in self.signatures():
            if pieces is None or sum(s) <= pieces:
                tables.add(s, self.table(s).values())
        return tables

    def best_moves(self, board: Board) -> list[tuple[_core.Move, int]]:
        """Every legal move with the value it keeps for the side to move, as
        :meth:`probe_dtw` counts (``n > 0`` wins in ``n`` plies, ``-n`` loses, 0 draws),
        best first: the fastest win, then draws, then the slowest loss."""
        scored: list[tuple[_core.Move, int]] = []
        for move in board.legal_moves:
            board.push(move)
            try:
                wdl, dtw = _decode(self._value(board))
            finally:
                board.pop()
            if wdl == Wdl.LOSS:
                scored.append((move, -dtw + 1))
            elif wdl == Wdl.WIN:
                scored.append((move, -(dtw + 1)))
            else:
                scored.append((move, 0))
        scored.sort(key=lambda item: (0, item[1]) if item[1] > 0 else
                    (1, 0) if item[1] == 0 else (2, item[1]))
        return scored


@dataclass
class _Held:
    """Tables in memory for the engine: ``pieces`` is the most pieces probed now, raised
    when the background thread has read the larger tables (``loaded`` then set)."""
    tables: _core.EgTables
    pieces: int
    loaded: threading.Event


_SHARED: dict[tuple[str, str, int], _Held | None] = {}
_SHARED_LOCK = threading.Lock()


def shared_tables(directory: str | os.PathLike[str] | None = None, *,
                  variant: str | Variant = DEFAULT_VARIANT,
                  pieces: int = DEFAULT_ENGINE_PIECES,
                  prepare: Callable[[Path, Variant], object] | None = None,
                  wait: bool = False) -> tuple[_core.EgTables, int] | None:
    """The tables of ``variant`` of at most ``pieces`` pieces in ``directory`` (default:
    :func:`default_directory`), in memory for the engine: ``(tables, most pieces
    to probe)``, or None when the directory holds none. Loaded once per process and
    shared by every engine that asks (a web server's engines, a match's two sides).

    The tables of up to :data:`QUICK_LOAD_PIECES` pieces are read before this returns;
    larger ones by a background thread, and until it has read them all the pieces to
    probe stay at the smaller tables' (``wait``: return only when all are in).

    A table that cannot be used (a corrupted file: :class:`TableError`; one that cannot
    be read) is left out, with a warning naming the file on the ``damier.egdb`` logger:
    the probes of its positions find no table (the search goes on without it), never
    a wrong value. The other tables are sound without it: each was verified when it
    was built.

    ``prepare``: called with the directory and the variant before the tables are read,
    once per process like the reading, and with the same lock held (two engines never
    run it at once): the engine's first-use build of the small tables that the directory
    lacks, :func:`damier.egdb_build.build_missing`, goes there."""
    v = get_variant(variant)
    if v.endgame_tables_unsupported:
        return None  # see Variant.endgame_tables_unsupported
    root = Path(directory) if directory is not None else default_directory()
    key = (str(root.resolve()), v.name, pieces)
    with _SHARED_LOCK:
        if key not in _SHARED:
            if prepare is not None:
                prepare(root, v)
            _SHARED[key] = _read_into_memory(root, v, pieces)
        held = _SHARED[key]
    if held is None:
        return None
    if wait:
        held.loaded.wait()
    return held.tables, held.pieces


def _add_table(tables: _core.EgTables, db: Database, signature: Signature) -> bool:
    """Adds ``signature``'s table of ``db`` to ``tables``; False, with a warning naming
    the file, when it cannot be used."""
    try:
        tables.add(signature, db.table(signature).values())
    except (TableError, OSError, MemoryError) as exc:
        path = db.folder / f"{signature_name(signature)}{_SUFFIX}"
        reason = str(exc) if str(path) in str(exc) else f"{path}: {exc}"
        _log.warning("damier: endgame table %s not used (the engine searches without it): "
                     "%s; 'damier egdb verify' checks the tables, and deleting the file and "
                     "running 'damier egdb build' again rebuilds it",
                     signature_name(signature), reason)
        return False
    return True


def _read_into_memory(root: Path, variant: Variant, pieces: int) -> _Held | None:
    """Reads the quick tables of ``root`` and starts the background thread that reads
    the others (see :func:`shared_tables`)."""
    if not (root / variant.name).is_dir():
        return None
    db = Database(root, variant=variant)
    wanted = sorted((s for s in db.signatures() if sum(s) <= pieces), key=sum)
    if not wanted:
        db.close()
        return None
    tables = _core.EgTables(variant.index)
    quick = [s for s in wanted if sum(s) <= QUICK_LOAD_PIECES]
    try:
        added = [s for s in quick if _add_table(tables, db, s)]
    except BaseException:
        db.close()
        raise
    rest = wanted[len(quick):]
    if not added and not rest:
        db.close()
        return None
    held = _Held(tables, max((sum(s) for s in added), default=0), threading.Event())
    if not rest:
        db.close()
        held.loaded.set()
        return held

    def read_rest() -> None:
        # A search never probes these tables while they are being added: it probes
        # positions of at most ``held.pieces`` pieces, raised once all are in.
        most = held.pieces
        try:
            for s in rest:
                if _add_table(tables, db, s):
                    most = max(most, sum(s))
        except (OSError, MemoryError, ValueError) as exc:   # TableError is a ValueError
            _log.warning("damier: endgame tables of more than %d pieces not loaded (%s); the "
                         "engine probes up to %d", held.pieces, exc, held.pieces)
        else:
            held.pieces = most
        finally:
            db.close()
            held.loaded.set()

    threading.Thread(target=read_rest, name="damier-egdb-load", daemon=True).start()
    return held


EgdbSetting = bool | str | os.PathLike[str] | None
"""Which endgame databases an engine probes: None or False, none; True, the tables in
:func:`default_directory` (its tables of up to :data:`FIRST_USE_PIECES` pieces are built
at first use when missing); a directory."""


def open_database(directory: str | os.PathLike[str] | None = None, *,
                  variant: str | Variant = DEFAULT_VARIANT) -> Database:
    """The database of ``variant`` in ``directory`` (default: :func:`default_directory`);
    use it in a ``with`` block. :class:`FileNotFoundError` when the directory is missing."""
    return Database(directory, variant=variant)


def table_files(directory: str | os.PathLike[str] | None = None, *,
                variant: str | Variant = DEFAULT_VARIANT) -> list[Path]:
    """The table files of ``variant`` in ``directory`` (default: :func:`default_directory`),
    sorted by name; ``[]`` when it has none (``damier egdb info`` lists them)."""
    root = Path(directory) if directory is not None else default_directory()
    folder = root / get_variant(variant).name
    return sorted(folder.glob(f"*{_SUFFIX}")) if folder.is_dir() else []


def table_info(path: str | os.PathLike[str], *,
               variant: str | Variant | None = None) -> TableInfo:
    """What the header of the table file ``path`` says, once the file is opened and
    checked as :class:`Table` does (the variant asked for, the signature its name gives
    when it names one, the checksum): :class:`TableError` names the file and what is
    wrong, :class:`OSError` when it cannot be read."""
    path = Path(path)
    table = Table(path, variant=variant, signature=_parse_signature(path.stem))
    table.close()
    return table.info


# ---------------------------------------------------------------------------
# Verifying
# ---------------------------------------------------------------------------

def _chunks(total: int, parts: int) -> Iterator[tuple[int, int]]:
    step = max(4096, -(-total // max(1, parts)))
    for start in range(0, total, step):
        yield start, min(total, start + step)


def _run(pool: ThreadPoolExecutor | None, jobs: list[Callable[[], int | None]]) -> list[int | None]:
    if pool is None:
        return [job() for job in jobs]
    return [f.result() for f in [pool.submit(job) for job in jobs]]


def _leads_to(signature: Signature) -> set[Signature]:
    """The signatures outside its pair that a move of the pair of ``signature`` can
    lead to (normalised for the side to move next): a promotion keeps the pieces and
    turns a man into a king, a capture removes one or more of the other side's pieces
    (and may end on the crowning row). A superset: not every one need be reachable.

    >>> sorted(_leads_to((1, 0, 0, 1)))
    [(0, 1, 0, 1)]
    """
    out: set[Signature] = set()
    for a, b, c, d in {signature, _mirror(signature)}:
        if a:
            out.add((c, d, a - 1, b + 1))
        for i in range(c + 1):
            for j in range(d + 1):
                if 0 < i + j < c + d:
                    out.add((c - i, d - j, a, b))
                    if a:
                        out.add((c - i, d - j, a - 1, b + 1))
    return out


@dataclass
class VerifyReport:
    """What :func:`verify_report` found in the tables of a variant."""
    variant: str
    wrong: dict[Signature, int]
    """The tables checked: the number of wrong slots of each (0 when sound)."""
    unusable: dict[Signature, str]
    """The tables whose files cannot be used, and why (naming the file)."""
    missing: list[Signature]
    """The signatures of 2 to the most pieces of the tables there that have no file."""
    unchecked: dict[Signature, list[Signature]]
    """Tables not checked, since tables their values come from are missing or unusable:
    those tables."""

    @property
    def sound(self) -> bool:
        """True when there are tables, all of them checked and sound, and none missing."""
        return (bool(self.wrong) and not any(self.wrong.values()) and not self.unusable
                and not self.missing and not self.unchecked)


def verify_report(directory: str | os.PathLike[str] | None = None, *,
                  variant: str | Variant = DEFAULT_VARIANT,
                  threads: int = 1) -> VerifyReport:
    """Checks the tables of ``variant`` in ``directory`` again, as the builder does before
    writing them (every value must be the best value over its successors, distances
    included), and that the set is whole: every table of 2 to the most pieces there is
    present and can be read. Unlike :func:`verify`, it reports every problem rather
    than raising at the first."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    with open_database(directory, variant=variant) as db:
        held = db.signatures()
        most = max((sum(s) for s in held), default=0)
        missing = [s for s in signatures(most) if s not in set(held)] if most >= 2 else []
        tables = _core.EgTables(db.variant.index)
        unusable: dict[Signature, str] = {}
        for s in held:
            try:
                tables.add(s, db.table(s).values())
            except (TableError, OSError) as exc:
                path = db.folder / f"{signature_name(s)}{_SUFFIX}"
                unusable[s] = str(exc) if str(path) in str(exc) else f"{path}: {exc}"
        absent = set(missing) | set(unusable)
        wrong: dict[Signature, int] = {}
        unchecked: dict[Signature, list[Signature]] = {}
        pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
        try:
            for s in held:
                if s in unusable:
                    continue
                needs = sorted(({_mirror(s)} | _leads_to(s)) & absent,
                               key=lambda t: (sum(t), t))
                if needs:
                    unchecked[s] = needs
                    continue
                jobs: list[Callable[[], int | None]] = [
                    partial(_core.egdb_verify_range, tables, s, start, end)
                    for start, end in _chunks(tables.positions(s), threads * 4)]
                wrong[s] = sum(n or 0 for n in _run(pool, jobs))
        finally:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        return VerifyReport(db.variant.name, wrong, unusable, missing, unchecked)


def verify(directory: str | os.PathLike[str] | None = None, *,
           variant: str | Variant = DEFAULT_VARIANT,
           threads: int = 1) -> dict[Signature, int]:
    """Checks the tables of ``variant`` in ``directory`` again, as the builder does before
    writing them: every value must be the best value over its successors (distances
    included). Returns the number of wrong slots per signature (all 0 for sound tables);
    a file that cannot be used raises :class:`TableError`, and tables missing from the
    set of 2 to the most pieces there raise :class:`MissingTableError` naming them
    (:func:`verify_report` gives every problem at once)."""
    report = verify_report(directory, variant=variant, threads=threads)
    if report.unusable:
        raise TableError(next(iter(report.unusable.values())))
    if report.missing:
        raise MissingTableError(f"tables missing from {report.variant}'s: "
                                + ", ".join(signature_name(s) for s in report.missing))
    return report.wrong
