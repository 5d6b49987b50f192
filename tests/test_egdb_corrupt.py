"""Damaged, truncated, incomplete and old endgame tables (issue 21, item 10).

A table file that is not exactly what the builder wrote must be refused with
:class:`damier.egdb.TableError` naming the file, or be read with every probe equal to
the clean table's; never a wrong value, never another exception. The engine leaves
an unusable table out (a warning names the file) and searches on; ``damier egdb
verify`` names unusable and missing tables and exits non-zero; ``--egdb`` of ``damier
play``, ``serve`` and ``hub`` must be an existing directory.

The tables here are built by damier (2 and 3 pieces of International, under a second).
Version 1 files (before the header was covered by the checksum) are made from them by
hand, as that format was written: the same bytes with version 1 and the SHA-256 of the
payload alone as checksum.
"""

from __future__ import annotations

import hashlib
import io
import logging
import random
import shutil
import struct
import zlib
from pathlib import Path

import pytest

from damier import Board
from damier import egdb
from damier.cli import build_parser, main as cli_main
from damier.cli.options import egdb_setting
from damier.egdb import MissingTableError, Table, TableError, open_database
from damier.egdb_build import build
from damier.engine import Engine

HEADER_SIZE = 128
# (name, offset, struct format) of each header field, as the module's format notes give
FIELDS = [("magic", 0, "8s"), ("version", 8, "<H"), ("header size", 10, "<H"),
          ("variant", 12, "16s"), ("our men", 28, "B"), ("our kings", 29, "B"),
          ("their men", 30, "B"), ("their kings", 31, "B"), ("positions", 32, "<Q"),
          ("block values", 40, "<I"), ("blocks", 44, "<I"), ("wins", 48, "<Q"),
          ("draws", 56, "<Q"), ("losses", 64, "<Q"), ("unused", 72, "<Q"),
          ("longest", 80, "<H"), ("reserved", 82, "14s"), ("checksum", 96, "32s")]
SIGNATURE = (1, 0, 1, 1)          # a man against a man and a king: 7 blocks
NAME = "1011.egdb"


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("egdb-clean")
    build(root, pieces=3)
    return root


@pytest.fixture
def tables(clean: Path, tmp_path: Path) -> Path:
    """A fresh copy of the clean 2-3 piece tables."""
    shutil.copytree(clean, tmp_path / "db")
    return tmp_path / "db"


def _as_version_1(path: Path) -> None:
    """Rewrites a table as version 1 wrote it: version 1, the checksum over the payload."""
    data = bytearray(path.read_bytes())
    data[8:10] = struct.pack("<H", 1)
    data[96:128] = hashlib.sha256(bytes(data[HEADER_SIZE:])).digest()
    path.write_bytes(bytes(data))


def _boards(count: int) -> list[Board]:
    """Seeded random positions of SIGNATURE, White to move."""
    rng = random.Random(21_10)
    out: list[Board] = []
    while len(out) < count:
        man, their_man, king = rng.randrange(6, 51), rng.randrange(1, 46), rng.randrange(1, 51)
        if len({man, their_man, king}) == 3:
            out.append(Board(f"W:W{man}:B{their_man},K{king}"))
    return out


BOARDS = _boards(400)


def _probes(root: Path) -> list[tuple[int, int]]:
    with open_database(root) as db:
        return [(int(db.probe_wdl(b)), db.probe_dtw(b)) for b in BOARDS]


def _values(path: Path, **expected: object) -> bytearray:
    table = Table(path, **expected)  # type: ignore[arg-type]
    try:
        return table.values()
    finally:
        table.close()


def _refused_or_same(root: Path, path: Path, clean_values: bytearray,
                     clean_probes: list[tuple[int, int]]) -> tuple[str, ...]:
    """How the table reads by probes, opened as the table it should be, and opened
    without saying which (variant, signature): each ``"refused"`` (a TableError naming
    the file) or ``"same"`` (the clean table's values); anything else fails."""
    outcomes = []
    for read in (lambda: _probes(root),
                 lambda: _values(path, variant="international", signature=SIGNATURE),
                 lambda: _values(path)):
        try:
            got = read()
        except TableError as exc:
            assert str(path) in str(exc), exc
            outcomes.append("refused")
            continue
        assert got == (clean_probes if isinstance(got, list) else clean_values)
        outcomes.append("same")
    return tuple(outcomes)


def _edits(field: str, offset: int, fmt: str, data: bytes) -> list[bytes]:
    """Other values of a header field: each byte flipped, and values that keep the
    field plausible (off by one, zero, doubled, the other variants' names...)."""
    size = struct.calcsize(fmt)
    raw = data[offset:offset + size]
    out = [raw[:i] + bytes([raw[i] ^ mask]) + raw[i + 1:]
           for i in range(size) for mask in (0x01, 0x80, 0xFF)]
    if fmt[-1] in "BHIQ":
        (value,) = struct.unpack(fmt, raw)
        top = (1 << (8 * size)) - 1
        for other in (value + 1, value - 1, 0, 1, 2 * value, value // 2, top, 8192, 16385,
                      20000, 32768, 65536, 101250):
            if 0 <= other <= top and other != value:
                out.append(struct.pack(fmt, other))
    if field == "variant":
        for name in (b"english", b"russian", b"brazilian", b"International",
                     b"international\0x", b"intl"):
            out.append(name.ljust(16, b"\0"))
    return [e for e in out if e != raw]


@pytest.mark.parametrize("version", [1, 2])
def test_every_header_edit_is_refused_or_harmless(tables: Path, version: int) -> None:
    """Each header field changed, one at a time, many ways: the table is refused with a
    TableError naming the file, or reads exactly as the clean table. In version 2 the
    checksum covers the header: every edit is refused. Before the fix, a version 1 (then
    the only) table with another ``block values`` gave wrong probes silently."""
    path = tables / "international" / NAME
    if version == 1:
        _as_version_1(path)
    clean_values = _values(path)
    clean_probes = _probes(tables)
    data = path.read_bytes()
    seen: dict[str, set[tuple[str, ...]]] = {}
    for field, offset, fmt in FIELDS:
        for edit in _edits(field, offset, fmt, data):
            path.write_bytes(data[:offset] + edit + data[offset + len(edit):])
            outcome = _refused_or_same(tables, path, clean_values, clean_probes)
            seen.setdefault(field, set()).add(outcome)
    path.write_bytes(data)
    assert set(seen) == {f[0] for f in FIELDS}
    if version == 2:
        assert all(s == {("refused",) * 3} for s in seen.values()), seen
    else:
        # the fields a probe depends on are all checked when the table is opened
        for field in ("magic", "version", "header size", "positions", "block values",
                      "blocks", "checksum", "reserved", "wins", "draws", "losses",
                      "unused"):
            assert seen[field] == {("refused",) * 3}, (field, seen[field])
        for field in ("variant", "our men", "our kings", "their men", "their kings"):
            assert {o[:2] for o in seen[field]} == {("refused", "refused")}, field


def test_version_1_tables_are_still_read(tables: Path) -> None:
    """Tables built before this format version read, probe and verify as before."""
    clean_probes = _probes(tables)
    folder = tables / "international"
    for path in folder.glob("*.egdb"):
        _as_version_1(path)
    assert _probes(tables) == clean_probes
    assert set(egdb.verify(tables).values()) == {0}
    code, out, _ = _cli(["egdb", "info", "--dir", str(tables)])
    assert code == 0 and "16 tables of format version 1" in out


@pytest.mark.parametrize("version", [1, 2])
def test_truncated_and_empty_files_are_refused(tables: Path, version: int) -> None:
    path = tables / "international" / NAME
    if version == 1:
        _as_version_1(path)
    data = path.read_bytes()
    for length in (0, 1, 7, 8, 10, 100, 127, 128, 135, 136, 143, 191, 192, 500,
                   len(data) // 2, len(data) - 1):
        path.write_bytes(data[:length])
        with pytest.raises(TableError) as info:
            _values(path)
        assert str(path) in str(info.value)
        with pytest.raises(TableError) as info:
            _probes(tables)
        assert str(path) in str(info.value)
    path.write_bytes(data + b"\0")          # a byte too many
    with pytest.raises(TableError, match="1011"):
        _values(path)


@pytest.mark.parametrize("version", [1, 2])
def test_random_byte_flips_in_the_payload_are_refused(tables: Path, version: int) -> None:
    path = tables / "international" / NAME
    if version == 1:
        _as_version_1(path)
    data = path.read_bytes()
    rng = random.Random(version)
    offsets = [HEADER_SIZE + i for i in range(0, 64)]      # the block offsets
    offsets += rng.sample(range(HEADER_SIZE, len(data)), 150)
    for at in offsets:
        damaged = bytearray(data)
        damaged[at] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(damaged))
        with pytest.raises(TableError) as info:
            _values(path)
        assert str(path) in str(info.value)


def _rewrite(path: Path, blocks: list[bytes]) -> None:
    """The table with these compressed blocks, its offsets and checksum made to match."""
    data = path.read_bytes()
    offsets = [0]
    for block in blocks:
        offsets.append(offsets[-1] + len(block))
    payload = struct.pack(f"<{len(offsets)}Q", *offsets) + b"".join(blocks)
    digest = hashlib.sha256(data[:96] + payload).digest()
    path.write_bytes(data[:96] + digest + payload)


def test_a_damaged_block_is_refused_even_with_a_matching_checksum(tables: Path) -> None:
    """Blocks are checked by themselves too: a file rewritten with a valid checksum over
    a block that does not decompress, or one that decompresses to too few values."""
    path = tables / "international" / NAME
    data = path.read_bytes()
    count = struct.unpack_from("<I", data, 44)[0]
    offsets = struct.unpack_from(f"<{count + 1}Q", data, HEADER_SIZE)
    base = HEADER_SIZE + 8 * (count + 1)
    blocks = [data[base + a:base + b] for a, b in zip(offsets, offsets[1:], strict=False)]
    for damaged, words in (([b"\0" * len(blocks[0])] + blocks[1:], "block 0 cannot"),
                           (blocks[:-1] + [zlib.compress(zlib.decompress(blocks[-1])[:-2])],
                            f"block {count - 1} holds")):
        _rewrite(path, damaged)
        with pytest.raises(TableError, match=words) as info:
            _values(path)
        assert str(path) in str(info.value)
    _rewrite(path, blocks)
    assert path.read_bytes() == data


# ---------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------

def _corrupt(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x40
    path.write_bytes(bytes(data))


def test_engine_leaves_a_corrupt_table_out_and_searches(tables: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """Before the fix every search raised the table's TableError (a web move at level
    10 failed, live analysis hung)."""
    bad = tables / "international" / "2010.egdb"
    _corrupt(bad)
    engine = Engine(hash_mb=4, egdb=tables)
    with caplog.at_level(logging.WARNING, logger="damier.egdb"):
        board = Board("W:W28,33:B23")        # two men against one: 2010
        result = engine.search(board, depth=4)
    assert result.best_move in board.legal_moves
    assert result.tbhits is not None                           # the other tables are used
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(bad) in warnings[0], warnings
    # the corrupt table's positions are not held; the others are, with their values
    assert engine.egdb_verdict(board) is None
    verdict = engine.egdb_verdict(Board("W:WK46:BK5"))
    assert verdict is not None and verdict.text() == "database: Black wins in 2 plies"
    assert engine.egdb_verdict(Board("W:W23:B28,33")) is not None            # 1020


def test_engine_leaves_a_corrupt_table_out_in_the_background_load(
        tables: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """The larger tables are read by a thread: one bad table there is left out alone."""
    monkeypatch.setattr(egdb, "QUICK_LOAD_PIECES", 2)
    bad = tables / "international" / "1020.egdb"
    _corrupt(bad)
    with caplog.at_level(logging.WARNING, logger="damier.egdb"):
        held = egdb.shared_tables(tables, pieces=3, wait=True)
    assert held is not None
    memory, pieces = held
    assert pieces == 3
    assert any(str(bad) in r.getMessage() for r in caplog.records)
    assert memory.has((2, 0, 1, 0)) and not memory.has((1, 0, 2, 0))
    assert memory.probe(Board("W:W23:B28,33")) == -1            # 1020: not held
    board = Board("W:W28,33:B23")                                # 2010: held
    with open_database(tables) as db:
        key = egdb._core.egdb_key(board)
        assert key is not None
        slot = key[1]
        assert memory.probe(board) == db.table((2, 0, 1, 0)).value(slot)


def test_engine_first_use_build_with_a_corrupt_table(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``egdb=True`` builds the missing small tables at first use; a corrupt table
    already there stops that build, and the engine goes on with the sound tables."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = egdb.default_directory()
    build(root, pieces=2)
    bad = root / "international" / "1001.egdb"
    _corrupt(bad)
    engine = Engine(hash_mb=4, egdb=True)
    with caplog.at_level(logging.WARNING, logger="damier.egdb"):
        board = Board("W:WK46:BK5")
        result = engine.search(board, depth=3)
    assert result.best_move in board.legal_moves and result.tbhits is not None
    messages = [r.getMessage() for r in caplog.records]
    assert messages and all(str(bad) in m for m in messages), messages
    assert engine.egdb_verdict(board) is not None                        # 0101
    assert engine.egdb_verdict(Board("W:W28:BK5")) is None               # 1001


def test_engine_with_only_corrupt_tables_has_none(tables: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    for path in (tables / "international").glob("*.egdb"):
        path.write_bytes(b"")
    engine = Engine(hash_mb=4, egdb=tables)
    with caplog.at_level(logging.WARNING, logger="damier.egdb"):
        result = engine.search(Board("W:WK46:BK5"), depth=3)
    assert result.best_move is not None and result.tbhits is None
    assert len(caplog.records) == 16


# ---------------------------------------------------------------------------
# damier egdb verify / info
# ---------------------------------------------------------------------------

def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli_main(args, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_verify_reports_a_corrupt_table_and_exits_non_zero(tables: Path) -> None:
    bad = tables / "international" / "2010.egdb"
    _corrupt(bad)
    code, out, err = _cli(["egdb", "verify", "--dir", str(tables)])
    assert code == 1, (out, err)
    assert f"2010: unusable: {bad}: checksum mismatch" in out
    assert "1020: not checked: it needs 2010" in out           # its values come from 2010
    assert "1 unusable" in out and "all sound" not in out
    with pytest.raises(TableError, match="2010"):
        egdb.verify(tables)
    code, out, _ = _cli(["egdb", "info", "--dir", str(tables)])
    assert code == 1 and "2010   unusable" in out


@pytest.mark.parametrize("deleted", [["2010.egdb"], ["0111.egdb", "1101.egdb"],
                                     ["0101.egdb"]])
def test_verify_names_missing_tables(tables: Path, deleted: list[str]) -> None:
    """Before the fix ``verify`` said nothing of a table missing from the set."""
    for name in deleted:
        (tables / "international" / name).unlink()
    code, out, err = _cli(["egdb", "verify", "--dir", str(tables)])
    assert code == 1, (out, err)
    missing = next(line for line in out.splitlines() if line.startswith("missing: "))
    for name in deleted:
        assert name[:4] in missing
    assert "all sound" not in out
    with pytest.raises(MissingTableError) as info:
        egdb.verify(tables)
    assert all(name[:4] in str(info.value) for name in deleted)
    report = egdb.verify_report(tables)
    assert sorted(egdb.signature_name(s) for s in report.missing) == sorted(
        n[:4] for n in deleted)
    assert not report.sound


def test_verify_of_a_sound_set_and_of_no_tables(tables: Path, tmp_path: Path) -> None:
    code, out, _ = _cli(["egdb", "verify", "--dir", str(tables)])
    assert code == 0 and "international: 16 tables checked, all sound" in out
    code, out, _ = _cli(["egdb", "verify", "--dir", str(tables), "--variant", "english"])
    assert code == 1 and "no tables" in out


def test_stray_file_names_are_not_tables(tables: Path) -> None:
    (tables / "international" / "9999.egdb").write_bytes(b"x")
    (tables / "international" / "0000.egdb").write_bytes(b"x")
    with open_database(tables) as db:
        assert db.max_pieces == 3
    assert egdb.verify_report(tables).sound


# ---------------------------------------------------------------------------
# --egdb of damier play, serve and hub
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["play", "serve", "hub"])
@pytest.mark.parametrize("what, problem", [("missing", "no such directory"),
                                           ("file", "not a directory")])
def test_egdb_option_must_be_a_directory(command: str, what: str, problem: str,
                                         tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Before the fix a missing directory was accepted (the engine then had no tables)."""
    path = tmp_path / "missing" / "dir"
    if what == "file":
        path = tmp_path / "file"
        path.write_text("not tables")
    with pytest.raises(SystemExit) as info:
        cli_main([command, "--egdb", str(path)], out=io.StringIO(), err=io.StringIO())
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.err == f"damier {command}: --egdb {path}: {problem}\n"
    assert captured.out == ""


@pytest.mark.parametrize("command", ["play", "serve", "hub"])
def test_egdb_option_takes_a_directory(command: str, tmp_path: Path) -> None:
    args = build_parser().parse_args([command, "--egdb", str(tmp_path)])
    assert egdb_setting(args) == str(tmp_path)
    args = build_parser().parse_args([command])
    assert egdb_setting(args) is True
