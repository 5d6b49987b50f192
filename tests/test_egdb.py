"""Tests of the endgame databases (damier.egdb and the compiled generator _egdb.pxi).

The expected values come from an independent brute force written plainly here: the
positions are enumerated square by square, their moves come from the pure-Python oracle
move generator (:mod:`damier.oracle`), and the values from a level-by-level forward fixed
point over that explicit graph (a position wins in ``k`` plies when one of its moves
reaches a loss in ``k - 1``, loses in ``k`` when every move reaches a win and the longest
is ``k - 1``; a player without a move or a piece loses; the rest are draws). Nothing of
the core's move generator, index or solver is used to make an expected value.

Coverage: every 2-piece International position (all signatures, both sides to move);
every position of one full 3-piece pair of signatures (two kings against a king, both
sides to move, about 118,000 positions, whose captures lead to the 2-piece values of the
same brute force); for the other 3-piece signatures, whose brute force in Python would
take minutes, a seeded random sample of 4,000 positions checked move by move: the
database's value must be the best value over the oracle's moves.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest

from damier import Board
from damier import egdb, egdb_build
from damier.cli import egdb as cli_egdb, main as cli_main
from damier.egdb import (MissingTableError, TableError, Wdl, open_database, signature_name,
                         signatures)
from damier.egdb_build import BuildProgress, build
from damier.oracle import Position
from damier.variants import Variant, get_variant

INTL = get_variant("international")

# ---------------------------------------------------------------------------
# The brute force
# ---------------------------------------------------------------------------

Key = tuple[bool, tuple[tuple[int, str], ...]]


def _key(white_to_move: bool, pieces: dict[int, str]) -> Key:
    return (white_to_move, tuple(sorted(pieces.items())))


def _fen(key: Key) -> str:
    white_to_move, items = key
    white = [("K" if s.isupper() else "") + str(q) for q, s in items if s in "wW"]
    black = [("K" if s.isupper() else "") + str(q) for q, s in items if s in "bB"]
    return f"{'W' if white_to_move else 'B'}:W{','.join(white)}:B{','.join(black)}"


def _squares_for(symbol: str, variant=INTL) -> list[int]:
    """The squares a piece may stand on: a man never on its own crowning row."""
    out = []
    for q in range(1, variant.squares + 1):
        row = variant.row_col(q)[0]
        if symbol == "w" and row == variant.promotion_row(True):
            continue
        if symbol == "b" and row == variant.promotion_row(False):
            continue
        out.append(q)
    return out


def _positions(symbols: str, variant=INTL) -> Iterable[Key]:
    """Every position with these pieces (e.g. ``"WWB"``), both sides to move."""
    def place(i: int, taken: dict[int, str], last: dict[str, int]) -> Iterable[dict[int, str]]:
        if i == len(symbols):
            yield dict(taken)
            return
        sym = symbols[i]
        for q in _squares_for(sym, variant):
            if q in taken or q <= last.get(sym, 0):     # alike pieces in increasing order
                continue
            taken[q] = sym
            before = last.get(sym, 0)
            last[sym] = q
            yield from place(i + 1, taken, last)
            last[sym] = before
            del taken[q]
    for pieces in place(0, {}, {}):
        for side in (True, False):
            yield _key(side, pieces)


def _successors(key: Key, variant=INTL) -> list[Key]:
    white_to_move, items = key
    pos = Position(dict(items), white_to_move, variant)
    return [_key(not white_to_move, dict(pos.play(move).pieces)) for move in pos.legal_moves()]


def _lost_without_pieces(key: Key) -> bool:
    white_to_move, items = key
    mine = "wW" if white_to_move else "bB"
    return not any(s in mine for _, s in items)


def brute_force(nodes: Iterable[Key], known: dict[Key, int], variant=INTL) -> dict[Key, int]:
    """Signed distances (plies; +n win, -n loss, 0 draw, ``LOST0`` lost with no move) of
    ``nodes``, whose moves lead to ``nodes`` or to ``known`` positions (or to a side without
    pieces), by a forward fixed point level by level: at level ``k`` a position is
    evaluated from its moves' values when one of them was decided at level ``k - 1`` (or
    leads out of ``nodes`` to a value of that distance), since nothing else can change it."""
    graph = {k: _successors(k, variant) for k in nodes}
    value: dict[Key, int] = {}
    preds: dict[Key, list[Key]] = {}
    outside_at: dict[int, set[Key]] = {}
    for k, succ in graph.items():
        if not succ:
            value[k] = LOST0
        for s in succ:
            if s in graph:
                preds.setdefault(s, []).append(k)
            else:
                v = LOST0 if _lost_without_pieces(s) else known[s]
                if v != 0:
                    outside_at.setdefault(0 if v == LOST0 else abs(v), set()).add(k)

    def val(s: Key) -> int | None:
        if s in graph:
            return value.get(s)
        return LOST0 if _lost_without_pieces(s) else known[s]

    last = [k for k, v in value.items()]
    level = 1
    while last or any(d >= level - 1 for d in outside_at):
        candidates = {p for q in last for p in preds.get(q, ())} | outside_at.pop(level - 1, set())
        last = []
        for k in candidates:
            if k in value:
                continue
            vals = [val(s) for s in graph[k]]
            losses = [0 if v == LOST0 else -v for v in vals
                      if v is not None and (v == LOST0 or v < 0)]
            if losses and min(losses) == level - 1:
                last.append(k)
            elif all(v is not None and v != LOST0 and v > 0 for v in vals) and \
                    max(v for v in vals if v is not None) == level - 1:
                last.append(k)
        for k in last:
            value[k] = level if any(
                (v := val(s)) is not None and (v == LOST0 or v < 0) for s in graph[k]) \
                else -level
        level += 1
    return {k: value.get(k, 0) for k in graph}


LOST0 = -1000   # lost with no move (distance 0), kept apart from a draw


def _db_signed(db: egdb.Database, key: Key) -> int:
    board = Board(_fen(key), variant=db.variant)
    wdl = db.probe_wdl(board)
    dtw = db.probe_dtw(board)
    if wdl == Wdl.LOSS and dtw == 0:
        return LOST0
    return dtw


# ---------------------------------------------------------------------------
# Fixtures: databases built once per test session
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def intl3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("egdb3")
    build(root, pieces=3, variant="international", threads=2)
    return root


@pytest.fixture(scope="module")
def brute2() -> dict[Key, int]:
    nodes: list[Key] = []
    for sym in ("WB", "Wb", "wB", "wb"):
        nodes.extend(_positions(sym))
    return brute_force(nodes, {})


# ---------------------------------------------------------------------------
# Against the brute force
# ---------------------------------------------------------------------------

def _disagreements(directory: Path, expected: dict[Key, int]) -> list[tuple[str, int, int]]:
    """The positions whose database value differs from ``expected`` (FEN, expected, got)."""
    wrong = []
    with open_database(directory) as db:
        for key, value in expected.items():
            got = _db_signed(db, key)
            if got != value:
                wrong.append((_fen(key), value, got))
    return wrong


def test_every_two_piece_position_matches_the_brute_force(intl3: Path,
                                                          brute2: dict[Key, int]) -> None:
    # kings anywhere, men off their crowning row (45 squares), no two on one square
    assert len(brute2) == 2 * (50 * 49 + 2 * (50 * 45 - 45) + (45 * 45 - 40))
    wrong = _disagreements(intl3, brute2)
    assert not wrong, wrong[:10]
    # the brute force is not trivial: all three results and long distances occur
    assert {v > 0 for v in brute2.values() if v} == {True, False}
    assert 0 in brute2.values() and max(brute2.values()) >= 5


@pytest.mark.slow
def test_two_kings_against_a_king_every_position_matches_the_brute_force(
        intl3: Path, brute2: dict[Key, int]) -> None:
    """One full 3-piece pair of signatures: 2 kings against 1 king, either side to move
    (the tables 0201 and 0102), about 118,000 positions."""
    nodes = list(_positions("WWB"))
    known = {k: v for k, v in brute2.items() if all(s.isupper() for _, s in k[1])}
    expected = brute_force(nodes, known)
    assert len(expected) == 2 * 1225 * 48
    wrong = _disagreements(intl3, expected)
    assert not wrong, wrong[:10]
    assert any(v > 0 for v in expected.values())   # shots win some
    assert sum(1 for v in expected.values() if v == 0) > len(expected) // 2


def _random_key(rng: random.Random, symbols: str) -> Key:
    while True:
        pieces: dict[int, str] = {}
        for sym in symbols:
            pieces[rng.choice(_squares_for(sym))] = sym
        if len(pieces) == len(symbols):
            return _key(rng.random() < 0.5, pieces)


def test_three_piece_sample_agrees_with_the_oracle_moves(intl3: Path) -> None:
    """4,000 random 3-piece positions of every signature: the stored value is the best
    value over the oracle's moves (with 2-piece values and lone pieces as the brute force
    counts them)."""
    rng = random.Random(20261123)
    kinds = sorted({"".join(sorted(a + b + c)) for a in "wWbB" for b in "wWbB" for c in "wWbB"})
    kinds = [k for k in kinds if any(ch in "wW" for ch in k) and any(ch in "bB" for ch in k)]
    checked = 0
    with open_database(intl3) as db:
        for i in range(4000):
            key = _random_key(rng, kinds[i % len(kinds)])
            succ = _successors(key)
            got = _db_signed(db, key)
            if not succ:
                assert got == LOST0, _fen(key)
                continue
            vals = [LOST0 if _lost_without_pieces(s) else _db_signed(db, s) for s in succ]
            losses = [0 if v == LOST0 else -v for v in vals if v == LOST0 or v < 0]
            if losses:
                expected = min(losses) + 1
            elif any(v == 0 for v in vals):
                expected = 0
            else:
                expected = -(max(vals) + 1)
            assert got == expected, (_fen(key), got, expected)
            checked += 1
    assert checked > 3500


# ---------------------------------------------------------------------------
# Known endings
# ---------------------------------------------------------------------------

def test_international_king_against_king_is_a_draw(intl3: Path) -> None:
    """A king against a king is a draw (the FMJD rules even end such a game at once,
    article 6 of the FMJD rules of International draughts), except for immediate
    tactics: a king caught in the corner on the long diagonal (46) with the other king
    on that diagonal cannot move off it and is taken."""
    with open_database(intl3) as db:
        for fen in ("W:WK31:BK20", "B:WK31:BK20", "W:WK1:BK50", "B:WK26:BK25"):
            assert db.probe_wdl(Board(fen)) == Wdl.DRAW, fen
        assert db.probe_wdl(Board("W:WK46:BK5")) == Wdl.LOSS
        assert db.probe_dtw(Board("W:WK46:BK5")) == -2


def test_international_lone_king_on_the_long_diagonal_holds(tmp_path: Path) -> None:
    """International draughts (flying kings): a lone king that holds the long diagonal
    (46-5) draws against two kings and against three kings. Source: the standard
    endgame theory of International draughts, e.g. the Wikipedia article "International
    draughts" (endgame) and the FMJD 16-move rule for three kings against one, which
    exists because such endings are not won in general. Positions chosen so that no piece
    can be taken at once (the strong side's kings out of the lone king's lines, on the
    edges)."""
    kings_only = [s for s in signatures(4) if s[0] == s[2] == 0]
    build(tmp_path, pieces=4, only=kings_only)
    with open_database(tmp_path) as db:
        for fen in ("B:WK1,K2:BK28", "B:WK16,K35:BK23", "B:WK1,K6,K50:BK28",
                    "B:WK1,K2,K3:BK46"):
            assert db.probe_wdl(Board(fen)) == Wdl.DRAW, fen


def test_russian_three_kings_beat_one_off_the_main_road(tmp_path: Path) -> None:
    """Russian draughts: three kings holding the main road (a1-h8, squares 29-4 here)
    beat a lone king that is off it (Petrov's triangle); a lone king on the main road
    draws. Source: Russian draughts endgame theory (Petrov's triangle; the article
    "Russian draughts" on Wikipedia; the 15-move rule for three kings against one in the
    FMJD rules of Russian draughts, article 7.2.6)."""
    kings_only = [s for s in signatures(4) if s[0] == s[2] == 0]
    build(tmp_path, pieces=4, variant="russian", only=kings_only)
    with open_database(tmp_path, variant="russian") as db:
        assert db.probe_wdl(Board("W:WK29,K4,K32:BK10", variant="russian")) == Wdl.WIN
        assert db.probe_wdl(Board("B:WK29,K4,K32:BK10", variant="russian")) == Wdl.LOSS
        # a real manoeuvre, not a shot: more than a few moves
        assert db.probe_dtw(Board("W:WK29,K4,K32:BK10", variant="russian")) > 9
        assert db.probe_wdl(Board("B:WK1,K5,K32:BK18", variant="russian")) == Wdl.DRAW


def test_english_two_kings_beat_one_king(tmp_path: Path) -> None:
    """In English draughts (checkers), where kings move one square, two kings beat one
    king wherever the lone king stands (it cannot hold a double corner against two):
    a first lesson of checkers endgame theory (e.g. the Wikipedia article "English
    draughts"); a king against a king in the two double corners is a draw."""
    build(tmp_path, pieces=3, variant="english", only=[(0, 2, 0, 1), (0, 1, 0, 1)])
    with open_database(tmp_path, variant="english") as db:
        for fen in ("W:WK29,K30:BK5", "B:WK29,K30:BK5", "W:WK29,K30:BK1", "B:WK32,K31:BK4"):
            expected = Wdl.WIN if fen[0] == "W" else Wdl.LOSS
            assert db.probe_wdl(Board(fen, variant="english")) == expected, fen
        for fen in ("W:WK32:BK1", "B:WK32:BK1"):
            assert db.probe_wdl(Board(fen, variant="english")) == Wdl.DRAW, fen


@pytest.mark.parametrize("variant", ["english", "russian", "brazilian"])
def test_8x8_two_pieces_match_the_brute_force(tmp_path: Path, variant: str) -> None:
    v = get_variant(variant)
    build(tmp_path, pieces=2, variant=v)
    nodes: list[Key] = []
    for sym in ("WB", "Wb", "wB", "wb"):
        nodes.extend(_positions(sym, v))
    expected = brute_force(nodes, {}, v)
    with open_database(tmp_path, variant=v) as db:
        wrong = [(_fen(k), e, _db_signed(db, k)) for k, e in expected.items()
                 if _db_signed(db, k) != e]
    assert not wrong, wrong[:10]


# ---------------------------------------------------------------------------
# Building: resume, determinism, damaged files
# ---------------------------------------------------------------------------

def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_interrupted_build_resumes_to_identical_files(tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    build(clean, pieces=3, threads=1)
    seen: list[BuildProgress] = []

    def stop_after_three(event: BuildProgress) -> None:
        seen.append(event)
        if event.done == 5:
            raise KeyboardInterrupt

    resumed = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        build(resumed, pieces=3, progress=stop_after_three, threads=2)
    partial = _files(resumed / "international")
    assert 0 < len(partial) < len(_files(clean / "international"))
    assert not [n for n in partial if n.endswith(".tmp")]
    again: list[BuildProgress] = []
    reports = build(resumed, pieces=3, progress=again.append, threads=2)
    assert [e.skipped for e in again[:5]] == [True] * 5
    assert not any(e.skipped for e in again[5:])
    assert sum(r.skipped for r in reports) == len(partial)
    assert _files(resumed / "international") == _files(clean / "international")


def test_corrupted_or_foreign_files_are_refused(tmp_path: Path) -> None:
    build(tmp_path, pieces=2)
    folder = tmp_path / "international"
    path = folder / "0101.egdb"
    good = path.read_bytes()
    damaged = bytearray(good)
    damaged[-3] ^= 0xFF
    path.write_bytes(bytes(damaged))
    with open_database(tmp_path) as db, pytest.raises(TableError, match="checksum"):
        db.probe_wdl(Board("W:WK31:BK20"))
    path.write_bytes(b"NOTATABL" + good[8:])
    with open_database(tmp_path) as db, pytest.raises(TableError, match="magic"):
        db.probe_wdl(Board("W:WK31:BK20"))
    path.write_bytes(good[:8] + b"\x63\x00" + good[10:])
    with open_database(tmp_path) as db, pytest.raises(TableError, match="version 99"):
        db.probe_wdl(Board("W:WK31:BK20"))
    path.write_bytes(good)
    # an International table in the English folder
    (tmp_path / "english").mkdir()
    shutil.copy(path, tmp_path / "english" / "0101.egdb")
    with open_database(tmp_path, variant="english") as db, \
            pytest.raises(TableError, match="international"):
        db.probe_wdl(Board("W:WK31:BK20", variant="english"))
    # a table renamed to another signature
    shutil.copy(path, folder / "0110.egdb")
    with open_database(tmp_path) as db, pytest.raises(TableError, match="signature"):
        db.probe_wdl(Board("W:WK31:B20"))
    # a board of another variant than the database
    with open_database(tmp_path) as db, pytest.raises(ValueError, match="english"):
        db.probe_wdl(Board("W:WK31:BK20", variant="english"))


def test_verify_finds_a_wrong_value(tmp_path: Path) -> None:
    """The builder's check, run again on files: sound tables pass; one value changed (the
    file rewritten with a valid checksum) is found."""
    build(tmp_path, pieces=2)
    assert set(egdb.verify(tmp_path).values()) == {0}
    path = tmp_path / "international" / "1010.egdb"
    table = egdb.Table(path)
    values = table.values()
    table.close()
    slot = egdb._core.egdb_key(Board("W:W28:B23"))[1]     # White must take 28x19 and wins
    old = values[2 * slot] | (values[2 * slot + 1] << 8)
    assert old != 0                                          # a capture: decided
    values[2 * slot:2 * slot + 2] = (0).to_bytes(2, "little")  # now claims a draw
    egdb_build._write_table(path, get_variant("international"), (1, 0, 1, 0), values)
    result = egdb.verify(tmp_path, threads=2)
    assert result[(1, 0, 1, 0)] >= 1 and result[(0, 1, 0, 1)] == 0
    code, out, _ = _cli(["egdb", "verify", "--dir", str(tmp_path)])
    assert code == 1 and "1010" in out


def test_threads_give_the_same_tables(tmp_path: Path) -> None:
    build(tmp_path / "one", pieces=3, threads=1)
    build(tmp_path / "two", pieces=3, threads=2)
    assert _files(tmp_path / "one" / "international") == _files(tmp_path / "two" / "international")


# ---------------------------------------------------------------------------
# The probing API
# ---------------------------------------------------------------------------

def test_capture_positions_are_resolved(intl3: Path) -> None:
    with open_database(intl3) as db:
        # White must take 28x19 and is left with a man against nothing: won at once
        assert db.probe_dtw(Board("W:W28:B23")) == 1
        # Black must take 23x32 with its man; White's king on 41 then takes it: 2 plies
        board = Board("B:W28,K41:B23")
        assert [m.is_capture for m in board.legal_moves] == [True]
        assert (db.probe_wdl(board), db.probe_dtw(board)) == (Wdl.LOSS, -2)
        assert db.best_moves(board)[0][1] == -2


def test_missing_positions_raise_missing_table_error(intl3: Path) -> None:
    with open_database(intl3) as db:
        board = Board("W:W31,32:B19,20")
        with pytest.raises(MissingTableError) as info:
            db.probe_wdl(board)
        assert isinstance(info.value, KeyError)
        assert "4 pieces" in str(info.value)
        assert db.get_wdl(board) is None
        assert db.get_wdl(board, Wdl.DRAW) == Wdl.DRAW
        assert db.get_dtw(board) is None
        assert db.get_wdl(Board("W:WK31:BK20")) == Wdl.DRAW
        # a side without pieces: the side to move has lost; a game the side to move has
        # won already is in no table
        assert (db.probe_wdl(Board("B:W31:B")), db.probe_dtw(Board("B:W31:B"))) == (Wdl.LOSS, 0)
        with pytest.raises(MissingTableError):
            db.probe_wdl(Board("W:W31:B"))
    with pytest.raises(FileNotFoundError):
        open_database(intl3 / "nowhere")


def test_probe_dtw_agrees_with_wdl_and_with_the_successors(intl3: Path) -> None:
    rng = random.Random(7)
    with open_database(intl3) as db:
        for _ in range(500):
            key = _random_key(rng, rng.choice(["WWB", "wWB", "wbB", "wwb", "WBb", "Wb"]))
            board = Board(_fen(key))
            wdl, dtw = db.probe_wdl(board), db.probe_dtw(board)
            if not board.legal_moves:
                assert (wdl, dtw) == (Wdl.LOSS, 0)
                continue
            assert (dtw > 0) - (dtw < 0) == int(wdl)
            after = []
            for move in board.legal_moves:
                board.push(move)
                after.append((db.probe_wdl(board), db.probe_dtw(board)))
                board.pop()
            if wdl == Wdl.WIN:
                assert min(-d for w, d in after if w == Wdl.LOSS) + 1 == dtw
            elif wdl == Wdl.LOSS:
                assert all(w == Wdl.WIN for w, _ in after)
                assert max(d for _, d in after) + 1 == -dtw
            else:
                assert all(w != Wdl.LOSS for w, _ in after)
                assert any(w == Wdl.DRAW for w, _ in after)


def test_in_memory_tables_agree_with_the_files(intl3: Path) -> None:
    rng = random.Random(3)
    with open_database(intl3) as db:
        tables = db.in_memory()
        for _ in range(300):
            board = Board(_fen(_random_key(rng, rng.choice(["WWB", "wWb", "wbB", "Wb"]))))
            wdl, dtw = egdb._decode(tables.probe(board))
            assert (wdl, dtw) == (db.probe_wdl(board), db.probe_dtw(board))
        assert tables.probe(Board("W:W31,32:B19,20")) == -1


def test_reads_from_threads(intl3: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor
    fens = ["W:WK31:BK20", "W:W6:B40", "B:W28:BK1", "W:WK46:BK5", "W:WK1,K2:BK30"] * 40
    with open_database(intl3) as db:
        expected = [db.probe_dtw(Board(f)) for f in fens]
        db.close()
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda f: db.probe_dtw(Board(f)), fens))
    assert got == expected


def test_signatures_and_names() -> None:
    assert len(signatures(3)) == 4 + 12
    assert signatures(3)[:4] == signatures(2)
    assert signature_name((2, 0, 0, 1)) == "2001"
    with pytest.raises(ValueError):
        build("/nonexistent-never", pieces=1)


def test_default_directory_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert egdb.default_directory() == tmp_path / "damier" / "egdb"


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

def _cli(args: list[str]) -> tuple[int, str, str]:
    import io
    out, err = io.StringIO(), io.StringIO()
    code = cli_main(args, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_build_info_probe(tmp_path: Path) -> None:
    code, out, err = _cli(["egdb", "build", "--pieces", "2", "--dir", str(tmp_path),
                           "--no-progress"])
    assert code == 0, err
    assert "4 tables" in out
    code, out, _ = _cli(["egdb", "info", "--dir", str(tmp_path)])
    assert code == 0 and "0101" in out and "total" in out
    code, out, _ = _cli(["egdb", "probe", "W:WK46:BK5", "--dir", str(tmp_path)])
    assert (code, out) == (0, "White to move loses in 2 plies\n")
    code, out, _ = _cli(["egdb", "probe", "W:WK31:BK20", "--dir", str(tmp_path)])
    assert (code, out) == (0, "draw\n")


@pytest.mark.parametrize("args, words", [
    (["egdb", "probe", "W:W99:B1", "--dir", "{dir}"], "invalid FEN"),
    (["egdb", "probe", "W:W31,32:B19,20", "--dir", "{dir}"], "4 pieces"),
    (["egdb", "probe", "W:WK31:BK20", "--dir", "{dir}/missing"], "no database directory"),
    (["egdb", "info", "--dir", "{dir}/missing"], "no database directory"),
    (["egdb", "build", "--pieces", "9", "--dir", "{dir}"], "pieces must be"),
    (["egdb", "build", "--pieces", "2", "--variant", "chess", "--dir", "{dir}"], "chess"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str],
                                              words: str) -> None:
    build(tmp_path, pieces=2)
    code, out, err = _cli([a.replace("{dir}", str(tmp_path)) for a in args])
    assert code == 2
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_ctrl_c_says_it_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(cli_egdb, "build", interrupted)
    code, _, err = _cli(["egdb", "build", "--pieces", "2", "--dir", str(tmp_path)])
    assert code == 130 and "resume" in err


@pytest.mark.parametrize("variant, expected", [("international", 5), ("english", 6),
                                               ("russian", 6), ("brazilian", 6)])
def test_cli_build_without_pieces_builds_the_variants_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str, expected: int) -> None:
    """Without ``--pieces`` the build goes to the registry's ``egdb_build_pieces``:
    the issue's defaults, what one core builds in about an hour: 2-5 pieces of
    International, 2-6 pieces on 8 x 8 (Russian 6 pieces: 57 minutes of CPU time)."""
    asked: list[tuple[str, int]] = []

    def recording(root: Path, *, pieces: int, variant: Variant, **kwargs: object) -> list[object]:
        asked.append((variant.name, pieces))
        return []
    monkeypatch.setattr(cli_egdb, "build", recording)
    code, out, err = _cli(["egdb", "build", "--variant", variant, "--dir", str(tmp_path)])
    assert code == 0, err
    assert asked == [(variant, expected)]
    assert f"up to {expected} pieces" in out


class _Terminal:
    """A standard input that is a terminal and answers ``answer``."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked = 0

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        self.asked += 1
        return self.answer


def _recording_build(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    asked: list[int] = []

    def recording(root: Path, *, pieces: int, **kwargs: object) -> list[object]:
        asked.append(pieces)
        return []
    monkeypatch.setattr(cli_egdb, "build", recording)
    return asked


def test_cli_build_says_what_it_builds_and_asks_first(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --pieces, International builds 2 to 5 pieces: 85 tables (counted by
    hand: 2 + 2 signatures of 2 pieces, then for n pieces the sum over k = 1 .. n - 1
    of (k + 1)(n - k + 1): 4 + 12 + 25 + 44), about 50 minutes (the registry's
    measured figure) and about 3.8 GB held in memory; on a terminal it asks first."""
    import sys
    asked = _recording_build(monkeypatch)
    terminal = _Terminal("n\n")
    monkeypatch.setattr(sys, "stdin", terminal)
    code, out, err = _cli(["egdb", "build", "--dir", str(tmp_path)])
    assert code == 1 and asked == [] and terminal.asked == 1
    assert "international: the endgame tables of 2 to 5 pieces" in err
    assert "85 tables" in err and "none there yet" in err
    assert "about 50 minutes of one core" in err
    memory = float(err.split(" GB of memory")[0].rsplit("about ", 1)[1])
    assert 3.5 <= memory <= 4.0
    assert "Build them? [y/N]" in err and "nothing built" in err
    # yes: it builds
    monkeypatch.setattr(sys, "stdin", _Terminal("y\n"))
    code, out, err = _cli(["egdb", "build", "--dir", str(tmp_path)])
    assert code == 0 and asked == [5]
    # --yes: it does not ask
    terminal = _Terminal("n\n")
    monkeypatch.setattr(sys, "stdin", terminal)
    code, out, err = _cli(["egdb", "build", "--dir", str(tmp_path), "--yes"])
    assert code == 0 and asked == [5, 5] and terminal.asked == 0
    assert "85 tables" in err
    # a small build does not ask either: 2 pieces are 4 tables and a moment
    code, out, err = _cli(["egdb", "build", "--pieces", "2", "--dir", str(tmp_path)])
    assert code == 0 and asked == [5, 5, 2] and terminal.asked == 0
    assert "4 tables" in err


def test_cli_build_counts_the_tables_it_builds_apart_from_those_there(tmp_path: Path) -> None:
    import io
    build(tmp_path, pieces=2)
    (tmp_path / "international" / "1010.egdb").unlink()   # a man each: its own mirror
    stream = io.StringIO()
    reports = build(tmp_path, pieces=2, progress=True, stream=stream)
    assert [r.skipped for r in reports].count(False) == 1
    lines = stream.getvalue().splitlines()
    assert lines == [f"3 of 4 tables already in {tmp_path / 'international'}; 1 table to build",
                     "1010: built (1/1 tables to build)"]
    code, out, err = _cli(["egdb", "build", "--pieces", "2", "--dir", str(tmp_path),
                           "--no-progress"])
    assert code == 0 and "4 there already, 0 to build" in err


def test_cli_probe_texts_count_plies_right(tmp_path: Path) -> None:
    build(tmp_path, pieces=2)
    # 28x19 takes Black's last piece: a win in one ply
    code, out, _ = _cli(["egdb", "probe", "W:W28:B23", "--dir", str(tmp_path)])
    assert (code, out) == (0, "White to move wins in 1 ply\n")
    code, out, _ = _cli(["egdb", "probe", "B:W31:B", "--dir", str(tmp_path)])
    assert (code, out) == (0, "Black to move has lost (no move)\n")
    # a directory without tables of the variant says so (not "at most 0")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = _cli(["egdb", "probe", "W:WK31:BK20", "--dir", str(empty)])
    assert code == 2
    assert "no international tables in" in err and "damier egdb build" in err
    assert "at most 0" not in err
