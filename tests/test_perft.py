"""Perft of the compiled core against the published tables, ``perft_divide``,
and the ``damier perft`` command line.

Expected leaf counts come from ``tests/data/reference/perft.txt`` (published
counts, cross-checked by independent programs; see its header), never from
the code under test. Every count up to 10**9 leaves is checked; those above
10**7 carry the ``slow`` marker but still run by default.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import damier
from damier import cli

# -- the published tables -------------------------------------------------------


def test_perft_matches_published_count(perft_case):
    board = damier.Board(perft_case.fen, variant=perft_case.variant)
    fen_before = board.fen()
    assert board.perft(perft_case.depth) == perft_case.leaves
    assert board.fen() == fen_before, "perft changed the position"
    assert board.move_stack == []


def test_perft_depth_zero_is_one_leaf():
    assert damier.Board().perft(0) == 1
    assert damier.Board("W:W:B1").perft(0) == 1


def test_perft_without_moves_is_zero():
    # White's only man (46, in the corner) has 41 in front, 37 behind it: no move, no capture.
    board = damier.Board("W:W46:B37,41")
    assert board.legal_moves == []
    assert board.perft(1) == 0
    assert board.perft(3) == 0


def test_perft_negative_depth_raises():
    with pytest.raises(ValueError):
        damier.Board().perft(-1)


# -- perft_divide -----------------------------------------------------------------

DIVIDE_MAX_LEAVES = 2_000_000


def test_perft_divide_sums_to_published_count(perft_line):
    board = damier.Board(perft_line.fen, variant=perft_line.variant)
    legal = board.legal_moves
    for depth, leaves in enumerate(perft_line.counts, start=1):
        if depth > 1 and leaves > DIVIDE_MAX_LEAVES:
            break
        parts = board.perft_divide(depth)
        moves = [m for m, _ in parts]
        assert len(moves) == len(set(moves)), "perft_divide lists a move twice"
        assert set(moves) == set(legal)
        assert sum(n for _, n in parts) == leaves, f"depth {depth}"
        if depth == 1:
            assert all(n == 1 for _, n in parts)


def test_perft_divide_entries_equal_perft_after_the_move(perft_line):
    board = damier.Board(perft_line.fen, variant=perft_line.variant)
    depth = 1
    while depth < len(perft_line.counts) and perft_line.counts[depth] <= 200_000:
        depth += 1
    # ``depth`` is now the deepest depth whose count is small, at least 1.
    fen = board.fen()
    for move, leaves in board.perft_divide(depth):
        board.push(move)
        assert board.perft(depth - 1) == leaves, (perft_line.name, move)
        board.pop()
        assert board.fen() == fen


def test_perft_divide_of_ambiguous_captures_counts_each_path_once():
    # rules.txt: the PDN standard's ambiguity example, two moves 47x..x36.
    board = damier.Board("W:WK47:B14,19,29,31,42")
    parts = board.perft_divide(1)
    assert len(parts) == 2
    # 47x38 takes 42, 38x24 takes 29, 24x13 takes 19, 13x36 takes 31; the other path
    # goes 38x20 (29), 20x9 (14), 9x36 (31).
    assert {m.capture_set for m, _ in parts} == {frozenset({42, 29, 19, 31}),
                                                  frozenset({42, 29, 14, 31})}
    assert all(n == 1 for _, n in parts)
    assert all(m.from_square == 47 and m.to_square == 36 for m, _ in parts)


def test_perft_divide_bad_depth_raises():
    with pytest.raises(ValueError):
        damier.Board().perft_divide(0)


# -- the command line -------------------------------------------------------------

PROGRESS = re.compile(r"^depth\s+(\d+)\s+([\d,]+) leaves\b", re.MULTILINE)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    """Runs ``damier`` with ``argv``: (exit status, stdout text, stderr text).

    Argument errors that argparse reports itself (``SystemExit``) count like a
    returned status; what argparse prints to the real stderr is included."""
    out, err = io.StringIO(), io.StringIO()
    try:
        status = cli.main(argv, out=out, err=err)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return status, out.getvalue() + captured.out, err.getvalue() + captured.err


def progress(text: str) -> list[tuple[int, int]]:
    return [(int(d), int(n.replace(",", ""))) for d, n in PROGRESS.findall(text)]


def test_cli_prints_a_progress_line_per_depth(perft_table, capsys):
    expected = perft_table[("international", "initial")].counts
    status, out, err = run_cli(["perft", "--depth", "4"], capsys)
    assert status == 0, err
    assert progress(out) == [(d, expected[d - 1]) for d in range(1, 5)]
    assert "W:W31" in out and "B1" in out  # the start position is named
    assert "Traceback" not in err


@pytest.mark.parametrize("variant", ["english", "russian", "brazilian", "italian"])
def test_cli_variant_initial_position(perft_table, capsys, variant):
    expected = perft_table[(variant, "initial")].counts
    status, out, err = run_cli(["perft", "--variant", variant, "--depth", "5"], capsys)
    assert status == 0, err
    assert progress(out) == [(d, expected[d - 1]) for d in range(1, 6)]


def test_cli_fen(perft_table, capsys):
    line = perft_table[("international", "woldouby")]
    status, out, err = run_cli(["perft", "--fen", line.fen, "--depth", "6"], capsys)
    assert status == 0, err
    assert progress(out) == [(d, line.counts[d - 1]) for d in range(1, 7)]


def test_cli_divide(perft_table, capsys):
    expected = perft_table[("international", "initial")].counts
    status, out, err = run_cli(["perft", "--depth", "3", "--divide"], capsys)
    assert status == 0, err
    assert progress(out) == [(d, expected[d - 1]) for d in range(1, 4)]
    head, _, tail = out.partition("divide")
    assert tail, f"no divide section in {out!r}"
    rows = dict(re.findall(r"^\s*(\d+[-x][\dx]+)\s+([\d,]+)\s*$", tail, re.MULTILINE))
    # White's nine opening moves (each man on 31-35 steps to an empty square of 26-30).
    assert set(rows) == {"31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30",
                         "35-30"}
    assert sum(int(n.replace(",", "")) for n in rows.values()) == expected[2]


def test_cli_divide_writes_full_paths_when_ambiguous(capsys):
    # rules.txt: 47x38x24x13x36 and 47x38x20x9x36 (the PDN standard's ambiguity example).
    status, out, err = run_cli(["perft", "--fen", "W:WK47:B14,19,29,31,42", "--depth", "1",
                                "--divide"], capsys)
    assert status == 0, err
    assert "47x38x24x13x36" in out and "47x38x20x9x36" in out


def test_cli_json(perft_table, capsys):
    expected = perft_table[("international", "random178")]
    status, out, err = run_cli(["perft", "--fen", expected.fen, "--depth", "3", "--json",
                                "--divide"], capsys)
    assert status == 0, err
    report = json.loads(out)  # stdout holds nothing but the JSON report
    assert report["variant"] == "international"
    assert damier.Board(report["fen"]) == damier.Board(expected.fen)
    assert [(d["depth"], d["leaves"]) for d in report["depths"]] == [
        (d, expected.counts[d - 1]) for d in range(1, 4)]
    for entry in report["depths"]:
        assert entry["seconds"] >= 0
    assert sum(report["divide"].values()) == expected.counts[2]
    board = damier.Board(expected.fen)
    assert set(report["divide"]) == {board.notation(m) for m in board.legal_moves}
    # With --json the progress lines go to stderr.
    assert progress(err) == [(d, expected.counts[d - 1]) for d in range(1, 4)]


def test_cli_json_english(perft_table, capsys):
    expected = perft_table[("english", "initial")].counts
    status, out, err = run_cli(["perft", "--variant", "english", "--depth", "4", "--json"],
                               capsys)
    assert status == 0, err
    report = json.loads(out)
    assert report["variant"] == "english"
    assert [d["leaves"] for d in report["depths"]] == list(expected[:4])
    assert "divide" not in report


BAD_INPUT = [
    pytest.param(["perft", "--fen", "W:W51:B1", "--depth", "2"], ["51"],
                 id="fen-square-out-of-range"),
    pytest.param(["perft", "--fen", "garbage", "--depth", "2"], ["fen"], id="fen-garbage"),
    pytest.param(["perft", "--fen", "W:W31-50:B1-20", "--variant", "english", "--depth", "2"],
                 ["fen"], id="fen-of-another-variant"),
    pytest.param(["perft", "--variant", "xiangqi", "--depth", "2"], ["xiangqi"], id="variant"),
    pytest.param(["perft", "--depth", "0"], ["depth", "0"], id="depth-zero"),
    pytest.param(["perft", "--depth", "-3"], ["depth"], id="depth-negative"),
    pytest.param(["perft", "--depth", "99"], ["depth", "99"], id="depth-too-big"),
    pytest.param(["perft", "--depth", "three"], ["depth", "three"], id="depth-not-a-number"),
    pytest.param(["perft"], ["depth"], id="depth-missing"),
]


@pytest.mark.parametrize("argv, words", BAD_INPUT)
def test_cli_bad_input_is_a_clear_error(capsys, argv, words):
    status, out, err = run_cli(argv, capsys)
    assert status == 2
    assert "Traceback" not in err
    for word in words:
        assert word.lower() in err.lower(), f"{word!r} not named in {err!r}"
    assert not PROGRESS.search(out), "counted anyway"


def test_cli_module_bad_fen_has_no_traceback():
    """The real command (a subprocess) fails with status 2 and a one-line reason."""
    src = str(Path(damier.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "damier.cli", "perft", "--fen", "W:W51:B1",
                           "--depth", "2"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "51" in proc.stderr and "fen" in proc.stderr.lower()
    assert proc.stdout == ""
