"""Endgame databases: perfect play with few pieces, built by damier itself.

Every position of a material signature gets its value for the side to move (win, draw or
loss) and the distance to the end of the game in plies with best play (the winner as
fast as it can, the loser as slowly; captures and promotions do not reset it). The
tables are computed by the compiled core (``_egdb.pxi``: a retrograde analysis
by distance levels on the core's own move generator, then a forward verification of
every position) and probed like python-chess's ``chess.syzygy``:

>>> import tempfile
>>> from damier import Board
>>> from damier.egdb import Wdl, build, open_database
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

Building on a Ray cluster
-------------------------
``damier egdb build --pieces 6 --ray --address HOST:PORT`` (``build(..., ray=True,
address=...)``; a local Ray without ``--address``; Ray comes with ``damier[train]``) farms
the pairs out as Ray tasks, level by level: a pair's level is one more than the highest
level of the pairs its captures and promotions lead to, so the pairs of a level are
independent. Each task loads only the tables its pair leads to, solves and verifies it
with the compiled solver and writes its two files; the driver waits for a level before
starting the next, shows the same progress, skips pairs already built and cancels the
running tasks on Ctrl-C (a rerun resumes). The directory must be on a file system that
the driver and every worker share, at the same path (NFS or the like), and every node
needs the same damier; ``--threads`` is each task's threads (and Ray CPUs).

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

import argparse
import enum
import hashlib
import logging
import mmap
import os
import struct
import sys
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple, TextIO

from damier import _core
from damier.board import Board
from damier.progress import ProgressBar
from damier.raytasks import start_ray
from damier.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

__all__ = ["Wdl", "MissingTableError", "TableError", "Database", "Table", "BuildProgress",
           "SignatureReport", "open_database", "build", "default_directory", "signatures",
           "signature_name", "verify", "verify_report", "VerifyReport", "shared_tables",
           "FORMAT_VERSION", "MAX_PIECES", "EgdbSetting", "add_engine_egdb_arguments",
           "egdb_setting", "Verdict", "DEFAULT_ENGINE_PIECES", "FIRST_USE_PIECES",
           "QUICK_LOAD_PIECES"]

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
variant when they are missing (International: 0.4 s, 160 KB)."""
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


def _pairs(pieces: int) -> list[Signature]:
    """One signature of each mirror pair, in build order."""
    seen: set[Signature] = set()
    out: list[Signature] = []
    for s in signatures(pieces):
        if s not in seen:
            out.append(s)
            seen.update((s, _mirror(s)))
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


def _little(values: bytearray) -> bytes:
    if sys.byteorder == "big":  # pragma: no cover
        import array
        a = array.array("H", bytes(values))
        a.byteswap()
        return a.tobytes()
    return bytes(values)


def _write_table(path: Path, variant: Variant, signature: Signature,
                 values: bytearray) -> int:
    """Writes a table atomically (the current format version); returns its size in bytes."""
    wins, draws, losses, unused, longest = _core.egdb_counts(values)
    raw = _little(values)
    size = BLOCK_VALUES * 2
    blocks = [zlib.compress(raw[i:i + size], 6) for i in range(0, len(raw), size)]
    offsets = [0]
    for b in blocks:
        offsets.append(offsets[-1] + len(b))
    payload = struct.pack(f"<{len(offsets)}Q", *offsets) + b"".join(blocks)
    fields = HEADER.pack(MAGIC, FORMAT_VERSION, HEADER.size, variant.name.encode("ascii"),
                         *signature, len(values) // 2, BLOCK_VALUES, len(blocks),
                         wins, draws, losses, unused, min(longest, 0xFFFF), bytes(32))
    digest = hashlib.sha256(fields[:_DIGEST_AT])
    digest.update(payload)
    header = fields[:_DIGEST_AT] + digest.digest()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(header)
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return HEADER.size + len(payload)


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
        if offsets[0] != 0 or any(x >= y for x, y in zip(offsets, offsets[1:])):
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
        text = f"database: {'White' if self.winner else 'Black'} wins in {self.plies} plies"
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
            raise MissingTableError(f"{board.fen()}: {sum(signature)} pieces, "
                                    f"the database has at most {self.max_pieces}")
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
                  build_missing: int = 0,
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

    ``build_missing``: first builds the tables of up to that many pieces that the
    directory lacks (:data:`FIRST_USE_PIECES`: under a second), unless it cannot be
    written."""
    v = get_variant(variant)
    root = Path(directory) if directory is not None else default_directory()
    key = (str(root.resolve()), v.name, pieces)
    with _SHARED_LOCK:
        if key not in _SHARED:
            if build_missing >= 2 and any(
                    not (root / v.name / f"{signature_name(s)}{_SUFFIX}").exists()
                    for s in signatures(build_missing)):
                try:
                    build(root, pieces=build_missing, variant=v)
                except OSError:
                    pass              # a directory that cannot be written: what is there
                except TableError as exc:
                    _log.warning("damier: endgame tables of %s up to %d pieces not built: %s",
                                 v.name, build_missing, exc)
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


def add_engine_egdb_arguments(parser: argparse.ArgumentParser) -> None:
    """``--egdb DIR`` and ``--no-egdb`` for the commands that run the engine (``damier
    play``, ``serve``, ``hub``); :func:`egdb_setting` reads them. A ``DIR`` that is not
    an existing directory ends the command while its arguments are read, with one line
    (``damier play: --egdb /x: no such directory``) and exit status 2."""
    parser.add_argument("--egdb", metavar="DIR", action=_DirectoryAction,
                        help="endgame databases the engine probes (default: "
                        f"{default_directory()}, when it holds tables; build them with "
                        "'damier egdb build')")
    parser.add_argument("--no-egdb", action="store_true",
                        help="the engine probes no endgame database")
    parser.add_argument("--egdb-pieces", type=_pieces_argument, default=DEFAULT_ENGINE_PIECES,
                        metavar="N",
                        help="the engine probes positions of at most N pieces and holds "
                        f"their tables in memory (default {DEFAULT_ENGINE_PIECES}; "
                        "International: 4 pieces 94 MB, 5 pieces 3.8 GB)")


class _DirectoryAction(argparse.Action):
    """Stores an existing directory; anything else ends the command at once with one
    line (``damier play: --egdb /x: no such directory``) and exit status 2."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        path = str(values)
        problem = None
        if not path:
            problem = "an empty path"
        elif not os.path.exists(path):
            problem = "no such directory"
        elif not os.path.isdir(path):
            problem = "not a directory"
        if problem is not None:
            parser.exit(2, f"{parser.prog}: {option_string or self.dest} {path or repr(path)}: "
                        f"{problem}\n")
        setattr(namespace, self.dest, path)


def _pieces_argument(text: str) -> int:
    try:
        pieces = int(text)
    except ValueError:
        pieces = 0
    if not 2 <= pieces <= MAX_PIECES:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 2 to {MAX_PIECES}, not {text!r}")
    return pieces


def egdb_setting(args: argparse.Namespace) -> bool | str:
    """The engine's ``egdb`` setting from :func:`add_engine_egdb_arguments`' options."""
    if getattr(args, "no_egdb", False):
        return False
    directory: str | None = getattr(args, "egdb", None)
    return directory if directory else True


def open_database(directory: str | os.PathLike[str] | None = None, *,
                  variant: str | Variant = DEFAULT_VARIANT) -> Database:
    """The database of ``variant`` in ``directory`` (default: :func:`default_directory`);
    use it in a ``with`` block. :class:`FileNotFoundError` when the directory is missing."""
    return Database(directory, variant=variant)


# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------

class BuildProgress(NamedTuple):
    """Given to a build's progress callback after each pair of signatures."""
    done: int
    total: int
    signature: Signature
    skipped: bool
    """True when its files were there already (a resumed build)."""


@dataclass
class SignatureReport:
    """What building one signature gave."""
    signature: Signature
    positions: int
    wins: int
    draws: int
    losses: int
    longest: int
    bytes: int
    seconds: float
    skipped: bool


def _load(path: Path, variant: Variant, signature: Signature) -> bytearray:
    table = Table(path, variant=variant, signature=signature)
    try:
        return table.values()
    finally:
        table.close()


def _chunks(total: int, parts: int) -> Iterator[tuple[int, int]]:
    step = max(4096, -(-total // max(1, parts)))
    for start in range(0, total, step):
        yield start, min(total, start + step)


def _run(pool: ThreadPoolExecutor | None, jobs: list[Callable[[], int | None]]) -> list[int | None]:
    if pool is None:
        return [job() for job in jobs]
    return [f.result() for f in [pool.submit(job) for job in jobs]]


def _solve(tables: _core.EgTables, signature: Signature, threads: int,
           pool: ThreadPoolExecutor | None) -> _core.EgSolver:
    solver = _core.EgSolver(tables, signature)
    sizes = solver.sizes()
    parts = threads * 4 if threads > 1 else 1
    jobs: list[Callable[[], int | None]] = []
    for t, size in enumerate(sizes):
        for start, end in _chunks(size, parts):
            jobs.append(partial(solver.init_range, t, start, end))
    _run(pool, jobs)
    if solver.missing:
        raise RuntimeError(f"signature {signature_name(signature)}: a table it leads to "
                           "is missing")
    solver.solve_levels()
    checks: list[Callable[[], int | None]] = []
    for t, size in enumerate(sizes):
        for start, end in _chunks(size, parts):
            checks.append(partial(solver.verify_range, t, start, end))
    bad = sum(n or 0 for n in _run(pool, checks))
    if bad:
        raise RuntimeError(f"signature {signature_name(signature)}: verification failed "
                           f"for {bad} positions")
    return solver


def build(directory: str | os.PathLike[str] | None = None, *, pieces: int,
          variant: str | Variant = DEFAULT_VARIANT, threads: int = 1,
          progress: bool | Callable[[BuildProgress], None] = False,
          stream: TextIO | None = None,
          only: Collection[Signature] | None = None, ray: bool = False,
          address: str | None = None) -> list[SignatureReport]:
    """Builds every table of 2 to ``pieces`` pieces of ``variant`` in
    ``<directory>/<variant>/``, in dependency order, with ``threads`` threads.

    Resumable: each finished signature is written to its own file (atomically), and a
    rerun loads those and builds only the rest. Each signature is verified (every value
    the best over its successors) before it is written. ``progress`` is True for a
    progress bar on ``stream`` (default stderr) or a callable given a
    :class:`BuildProgress` after each pair of signatures; an exception it raises (such
    as :class:`KeyboardInterrupt`) stops the build, which a rerun resumes. ``only``
    limits the build to these signatures (and their mirrors); the tables they lead to
    must be among them or built already (kings-only signatures lead only to kings-only
    ones).

    ``ray=True`` (or an ``address``) farms the pairs out as Ray tasks, level by level
    (:func:`_build_on_ray`): a local Ray by default, the cluster at ``address``
    otherwise; ``threads`` is then each task's threads (and CPUs). The directory must be
    on a file system every worker shares, at the same path.
    """
    v = get_variant(variant)
    if not 2 <= pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be between 2 and {MAX_PIECES}, got {pieces}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    root = Path(directory) if directory is not None else default_directory()
    folder = root / v.name
    folder.mkdir(parents=True, exist_ok=True)
    pairs = _pairs(pieces)
    if only is not None:
        wanted = set(only)
        pairs = [s for s in pairs if s in wanted or _mirror(s) in wanted]
    if ray or address is not None:
        return _build_on_ray(folder, v, pieces, pairs, threads=threads, progress=progress,
                             stream=stream, address=address)
    tables = _core.EgTables(v.index)
    if only is not None:
        covered = set(pairs) | {_mirror(s) for s in pairs}
        for s in signatures(pieces):
            path = folder / f"{signature_name(s)}{_SUFFIX}"
            if s not in covered and path.exists():
                tables.add(s, _load(path, v, s))
    reports: list[SignatureReport] = []
    callback = progress if callable(progress) else None
    bar = ProgressBar(f"egdb {v.name} {pieces} pieces", total=len(pairs),
                      stream=stream or sys.stderr, enabled=progress is True)
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        for done, signature in enumerate(pairs, start=1):
            group = [signature] if _mirror(signature) == signature else [signature,
                                                                         _mirror(signature)]
            paths = [folder / f"{signature_name(s)}{_SUFFIX}" for s in group]
            start = time.perf_counter()
            skipped = all(p.exists() for p in paths)
            if skipped:
                for s, p in zip(group, paths):
                    table = Table(p, variant=v, signature=s)
                    try:
                        values = table.values()
                    finally:
                        table.close()
                    tables.add(s, values)
                    info = table.info
                    reports.append(SignatureReport(s, info.positions, info.wins, info.draws,
                                                   info.losses, info.longest,
                                                   p.stat().st_size, 0.0, True))
            else:
                solver = _solve(tables, signature, threads, pool)
                seconds = (time.perf_counter() - start) / len(group)
                for i, (s, p) in enumerate(zip(group, paths)):
                    values = solver.values0 if i == 0 else solver.values1
                    size = _write_table(p, v, s, values)
                    wins, draws, losses, _unused, longest = _core.egdb_counts(values)
                    reports.append(SignatureReport(s, len(values) // 2, wins, draws, losses,
                                                   longest, size, seconds, False))
            names = "/".join(signature_name(s) for s in group)
            bar.update(names, advance=1,
                       line=f"{names}: {'already built' if skipped else 'built'} "
                            f"({done}/{len(pairs)})")
            if callback is not None:
                callback(BuildProgress(done, len(pairs), signature, skipped))
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        bar.close()
    return reports


# ---------------------------------------------------------------------------
# Building on Ray: the pairs of a level as tasks
# ---------------------------------------------------------------------------

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


def _levels(pairs: list[Signature]) -> list[list[Signature]]:
    """``pairs`` (in build order) grouped in levels: a pair's level is one more than the
    highest level of the pairs among ``pairs`` that it leads to, so no pair depends on
    another of its level.

    >>> _levels(_pairs(2))
    [[(0, 1, 0, 1)], [(0, 1, 1, 0)], [(1, 0, 1, 0)]]
    """
    owner = {t: s for s in pairs for t in (s, _mirror(s))}
    depth: dict[Signature, int] = {}
    for s in pairs:
        below = [depth[owner[t]] for t in _leads_to(s) if t in owner]
        depth[s] = 1 + max(below, default=-1)
    levels: list[list[Signature]] = [[] for _ in range(1 + max(depth.values(), default=-1))]
    for s in pairs:
        levels[depth[s]].append(s)
    return levels


def _group(signature: Signature) -> list[Signature]:
    return [signature] if _mirror(signature) == signature else [signature, _mirror(signature)]


def _not_shared(path: Path) -> str:
    import socket
    return (f"{path} not found on {socket.gethostname()}: the database directory must be "
            "on a file system that the Ray driver and every worker share, at the same path")


def _build_pair(folder: str, variant: str, signature: Signature, needs: list[Signature],
                threads: int) -> list[SignatureReport]:
    """A Ray task: loads the tables ``needs`` from ``folder``, solves the pair of
    ``signature``, verifies it and writes its files (atomically)."""
    v = get_variant(variant)
    where = Path(folder)
    if not where.is_dir():
        raise FileNotFoundError(_not_shared(where))
    start = time.perf_counter()
    tables = _core.EgTables(v.index)
    for s in needs:
        path = where / f"{signature_name(s)}{_SUFFIX}"
        if not path.exists():
            raise FileNotFoundError(_not_shared(path))
        tables.add(s, _load(path, v, s))
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        solver = _solve(tables, signature, threads, pool)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    group = _group(signature)
    seconds = (time.perf_counter() - start) / len(group)
    reports: list[SignatureReport] = []
    for i, s in enumerate(group):
        path = where / f"{signature_name(s)}{_SUFFIX}"
        for stale in where.glob(f".{path.name}.*.tmp"):   # left by a cancelled task
            stale.unlink(missing_ok=True)
        values = solver.values0 if i == 0 else solver.values1
        size = _write_table(path, v, s, values)
        wins, draws, losses, _unused, longest = _core.egdb_counts(values)
        reports.append(SignatureReport(s, len(values) // 2, wins, draws, losses, longest,
                                       size, seconds, False))
    return reports


def _built_report(path: Path, variant: Variant, signature: Signature) -> SignatureReport:
    """The report of a table built before, from its header (the checksum is checked
    when a task loads it)."""
    with open(path, "rb") as f:
        info = _read_header(f.read(HEADER.size), path, os.fstat(f.fileno()).st_size)
    if info.variant != variant.name or info.signature != signature:
        raise TableError(f"{path}: a table of {info.variant} {signature_name(info.signature)},"
                         f" not {variant.name} {signature_name(signature)}")
    return SignatureReport(signature, info.positions, info.wins, info.draws, info.losses,
                           info.longest, path.stat().st_size, 0.0, True)


def _build_on_ray(folder: Path, variant: Variant, pieces: int, pairs: list[Signature], *,
                  threads: int, progress: bool | Callable[[BuildProgress], None],
                  stream: TextIO | None, address: str | None) -> list[SignatureReport]:
    """:func:`build` with each level's pairs as Ray tasks (``threads`` CPUs each). A
    level starts when the one before it is written; a pair whose files are there is
    skipped; an exception in the driver (Ctrl-C, a progress callback's) cancels the
    running tasks."""
    ray, started = start_ray(address)
    task = ray.remote(num_cpus=threads)(_build_pair)
    callback = progress if callable(progress) else None
    bar = ProgressBar(f"egdb {variant.name} {pieces} pieces (Ray)", total=len(pairs),
                      stream=stream or sys.stderr, enabled=progress is True)
    found: dict[Signature, list[SignatureReport]] = {}
    done = 0

    def finished(signature: Signature, reports: list[SignatureReport], skipped: bool) -> None:
        nonlocal done
        done += 1
        found[signature] = reports
        names = "/".join(signature_name(s) for s in _group(signature))
        bar.update(names, advance=1, line=f"{names}: {'already built' if skipped else 'built'}"
                                          f" ({done}/{len(pairs)})")
        if callback is not None:
            callback(BuildProgress(done, len(pairs), signature, skipped))

    pending: dict[Any, Signature] = {}
    try:
        for level in _levels(pairs):
            for signature in level:
                paths = [folder / f"{signature_name(s)}{_SUFFIX}" for s in _group(signature)]
                if all(p.exists() for p in paths):
                    finished(signature, [_built_report(p, variant, s)
                                         for s, p in zip(_group(signature), paths)], True)
                    continue
                needs = sorted(s for s in _leads_to(signature)
                               if (folder / f"{signature_name(s)}{_SUFFIX}").exists())
                ref = task.remote(str(folder), variant.name, signature, needs, threads)
                pending[ref] = signature
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    signature = pending.pop(ref)
                    names = "/".join(signature_name(s) for s in _group(signature))
                    try:
                        reports = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        raise RuntimeError(f"{names}: {exc.cause}") from None
                    except ray.exceptions.RayError as exc:
                        first = str(exc).strip().splitlines()[:1]
                        raise RuntimeError(f"{names}: {' '.join(first)}") from None
                    for r in reports:
                        path = folder / f"{signature_name(r.signature)}{_SUFFIX}"
                        if not path.exists():
                            raise RuntimeError(_not_shared(path))
                    finished(signature, reports, False)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        bar.close()
        if started:
            ray.shutdown()   # here, not at exit: a Ctrl-C during it is reported as a stop
    return [r for s in pairs for r in found[s]]


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


# ---------------------------------------------------------------------------
# The command line: damier egdb build|info|probe|verify
# ---------------------------------------------------------------------------

def add_egdb_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``damier egdb`` with the command line's subcommands."""
    p = sub.add_parser("egdb", help="endgame databases: build, describe, probe",
                       description="Endgame databases computed by damier: win/draw/loss and "
                       "the distance to the end for every position of few pieces.")
    cmds = p.add_subparsers(dest="egdb_command", metavar="ACTION")
    cmds.required = True
    dir_help = f"database directory (default: {default_directory()})"
    b = cmds.add_parser("build", help="build every table up to N pieces (resumable)",
                        description="Build every table of 2 to N pieces in dependency order; "
                        "an interrupted build resumes when run again.")
    b.add_argument("--pieces", type=int, default=None,
                   help=f"most pieces (2-{MAX_PIECES}; default: the variant's, "
                   + ", ".join(f"{v.name} {v.egdb_build_pieces}" for v in VARIANTS.values())
                   + ")")
    b.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant: {', '.join(VARIANTS)} (default: {DEFAULT_VARIANT})")
    b.add_argument("--dir", help=dir_help)
    b.add_argument("--threads", type=int, default=1, help="threads (default 1)")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    b.add_argument("--ray", action="store_true",
                   help="run the signatures of each level as Ray tasks (a local Ray unless "
                   "--address; needs damier[train]; --threads is then per task)")
    b.add_argument("--address", help="Ray cluster to join (implies --ray; the directory "
                   "must be shared by every node, at the same path)")
    i = cmds.add_parser("info", help="list the tables of a directory")
    i.add_argument("--dir", help=dir_help)
    i.add_argument("--variant", default=None, help="only this variant")
    c = cmds.add_parser("verify", help="check every table again (value = best successor)")
    c.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant (default: {DEFAULT_VARIANT})")
    c.add_argument("--dir", help=dir_help)
    c.add_argument("--threads", type=int, default=1, help="threads (default 1)")
    q = cmds.add_parser("probe", help="the database's value of a position")
    q.add_argument("fen", metavar="FEN", help="the position")
    q.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant (default: {DEFAULT_VARIANT})")
    q.add_argument("--dir", help=dir_help)


def egdb_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs ``damier egdb ...``; returns the exit status."""
    action = args.egdb_command
    try:
        if action == "build":
            return _build_command(args, out, err)
        if action == "info":
            return _info_command(args, out, err)
        if action == "verify":
            return _verify_command(args, out, err)
        return _probe_command(args, out, err)
    except (ValueError, FileNotFoundError, MissingTableError, RuntimeError, OSError) as exc:
        err.write(f"damier egdb {action}: {exc}\n")
        return 2


def _build_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    variant = get_variant(args.variant)
    pieces = args.pieces if args.pieces is not None else variant.egdb_build_pieces
    root = Path(args.dir) if args.dir else default_directory()
    start = time.perf_counter()
    try:
        reports = build(root, pieces=pieces, variant=variant, threads=args.threads,
                        progress=not args.no_progress, stream=err,
                        ray=args.ray or args.address is not None, address=args.address)
    except ImportError as exc:
        err.write(f"damier egdb build: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write(f"\ninterrupted: the finished tables are kept in {root / variant.name}; "
                  "run the same command again to resume\n")
        return 130
    built = [r for r in reports if not r.skipped]
    total_bytes = sum(r.bytes for r in reports)
    out.write(f"{variant.name}: {len(reports)} tables up to {pieces} pieces in "
              f"{root / variant.name} ({len(built)} built now, "
              f"{time.perf_counter() - start:.1f} s; "
              f"{sum(r.positions for r in reports):,d} slots, {total_bytes:,d} bytes)\n")
    return 0


def _info_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    root = Path(args.dir) if args.dir else default_directory()
    if not root.is_dir():
        raise FileNotFoundError(f"no database directory {root}")
    names = [args.variant] if args.variant else [v for v in VARIANTS]
    found = False
    bad = old = 0
    for name in names:
        variant = get_variant(name)
        folder = root / variant.name
        paths = sorted(folder.glob(f"*{_SUFFIX}")) if folder.is_dir() else []
        if not paths:
            continue
        found = True
        out.write(f"{variant.name} ({folder}):\n")
        out.write(f"  {'table':<6} {'positions':>12} {'wins':>12} {'draws':>12} {'losses':>12}"
                  f" {'longest':>7} {'bytes':>11}\n")
        totals = [0, 0, 0, 0, 0]
        for path in paths:
            sig = _parse_signature(path.stem)
            try:
                table = Table(path, variant=variant, signature=sig)
            except (TableError, OSError) as exc:
                bad += 1
                out.write(f"  {path.stem:<6} unusable: {exc}\n")
                continue
            info = table.info
            table.close()
            old += info.version < FORMAT_VERSION
            size = path.stat().st_size
            positions = info.positions - info.unused
            out.write(f"  {path.stem:<6} {positions:>12,d} {info.wins:>12,d} {info.draws:>12,d}"
                      f" {info.losses:>12,d} {info.longest:>7d} {size:>11,d}\n")
            for k, x in enumerate((positions, info.wins, info.draws, info.losses, size)):
                totals[k] += x
        out.write(f"  {'total':<6} {totals[0]:>12,d} {totals[1]:>12,d} {totals[2]:>12,d}"
                  f" {totals[3]:>12,d} {'':>7} {totals[4]:>11,d}\n")
    if not found:
        out.write(f"no tables in {root}\n")
    if old:
        out.write(f"{old} {'table' if old == 1 else 'tables'} of format version 1 (read with "
                  "every header field checked; rebuilt, the checksum covers the header too)\n")
    if bad:
        out.write(f"{bad} {'table' if bad == 1 else 'tables'} unusable: delete "
                  f"{'it' if bad == 1 else 'them'} and run 'damier egdb build' again\n")
    return 1 if bad else 0


def _verify_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    variant = get_variant(args.variant)
    report = verify_report(args.dir, variant=variant, threads=args.threads)
    if not (report.wrong or report.unusable or report.unchecked):
        root = Path(args.dir) if args.dir else default_directory()
        out.write(f"{variant.name}: no tables in {root / variant.name}\n")
        return 1
    for s, n in report.wrong.items():
        if n:
            out.write(f"{signature_name(s)}: {n:,d} wrong positions\n")
    for s, why in report.unusable.items():
        out.write(f"{signature_name(s)}: unusable: {why}\n")
    for s, needs in report.unchecked.items():
        out.write(f"{signature_name(s)}: not checked: it needs "
                  f"{', '.join(signature_name(t) for t in needs)}\n")
    if report.missing:
        most = max(sum(s) for s in [*report.missing, *report.wrong, *report.unusable,
                                    *report.unchecked])
        out.write(f"missing: {', '.join(signature_name(s) for s in report.missing)} "
                  f"(of the tables of 2 to {most} pieces)\n")
    problems = [f"{n} {what}" for n, what in (
        (sum(1 for n in report.wrong.values() if n), "wrong"),
        (len(report.unusable), "unusable"), (len(report.missing), "missing"),
        (len(report.unchecked), "not checked")) if n]
    out.write(f"{variant.name}: {len(report.wrong)} tables checked, "
              f"{', '.join(problems) if problems else 'all sound'}\n")
    if report.unusable or report.missing:
        out.write("delete the unusable tables and run 'damier egdb build' again to build "
                  "what is missing\n")
    return 0 if report.sound else 1


def _probe_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    variant = get_variant(args.variant)
    try:
        board = Board(args.fen, variant=variant)
    except ValueError as exc:
        raise ValueError(f"invalid FEN: {exc}") from None
    with open_database(args.dir, variant=variant) as db:
        wdl = db.probe_wdl(board)
        dtw = db.probe_dtw(board)
    side = "White" if board.turn else "Black"
    if wdl == Wdl.DRAW:
        out.write("draw\n")
    elif wdl == Wdl.WIN:
        out.write(f"{side} to move wins in {dtw} plies\n")
    else:
        out.write(f"{side} to move loses in {-dtw} plies\n")
    return 0
