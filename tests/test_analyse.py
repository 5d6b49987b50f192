"""``damier analyse``: games annotated move by move (scores, best moves, ?! ? ?? marks),
read back by :mod:`damier.pdn`; a summary by player; evaluation graphs; its errors.

The games of ``tests/data/pdn/selfplay.pdn`` are damier self-play games (its header says
the command that made them): one International, one English. The searches use a small
fixed depth, so the tests are quick and do not depend on the machine's speed.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import damier
import damier.analysis
import damier.cli.analyse
import damier.web.report
from damier.cli import main
from damier.egdb import Wdl, open_database
from damier.egdb_build import build
from damier.pdn import read_games

ROOT = Path(__file__).resolve().parent.parent
SELFPLAY = ROOT / "tests" / "data" / "pdn" / "selfplay.pdn"

SCORE = r"(?:[+-]\d+\.\d\d|win in \d+|loss in \d+)"
# The documented annotation, written out here (not taken from the module under test).
ANNOTATION = re.compile(rf"(?:^|; )(?P<score>{SCORE}); best (?P<best>\S+) (?P<best_score>{SCORE})"
                        rf"(?:; loss (?P<loss>\d+))?(?:; (?P<database>database: [^;]*))?$")
NAG_OF_LOSS = ((200, 4), (80, 2), (30, 6))   # ?? $4, ? $2, ?! $6 (the documented thresholds)

# White gives away two men: after 4. 34-29 Black's only move is 23x25, taking the men
# on 29 and 30, and White has no capture back (checked below by counting the men).
BLUNDER_PDN = """[Event "hand-made blunder"]
[White "Ann"]
[Black "Bob"]
[Result "*"]
1. 32-28 19-23 2. 28x19 14x23 3. 35-30 10-14 {a quiet move} 4. 34-29 23x25 5. 33-28 14-19 *
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def expected_nag(loss: int) -> int | None:
    for threshold, nag in NAG_OF_LOSS:
        if loss >= threshold:
            return nag
    return None


def check_annotated(original: list[damier.pdn.Game], annotated: list[damier.pdn.Game]) -> None:
    """Same games and moves; every main-line move carries a well-formed annotation whose
    best move is legal where it was played and whose loss agrees with the move's NAG."""
    assert len(annotated) == len(original)
    for before, after in zip(original, annotated, strict=True):
        assert after.variant == before.variant
        assert all(after.headers[tag] == value for tag, value in before.headers.items())
        assert list(after.mainline_moves()) == list(before.mainline_moves())
        board = after.board()
        for old, node in zip(before.mainline(), after.mainline(), strict=True):
            match = ANNOTATION.search(node.comment)
            assert match, node.comment
            if old.comment:
                assert node.comment.startswith(old.comment + "; ")
            assert board.parse_move(match["best"]) in board.legal_moves
            loss = int(match["loss"] or 0)
            nag = expected_nag(loss)
            assert node.nags & {2, 4, 6} == ({nag} if nag else set()), (node.comment, node.nags)
            board.push(node.move)


def test_selfplay_games_are_annotated_and_read_back(tmp_path: Path) -> None:
    out_file = tmp_path / "annotated.pdn"
    status, out, err = run("analyse", str(SELFPLAY), "--depth", "3", "--no-egdb",
                           "-o", str(out_file))
    assert status == 0, err
    assert "Traceback" not in err
    original = list(read_games(SELFPLAY))
    annotated = list(read_games(out_file))
    assert [g.variant.name for g in annotated] == ["international", "english"]
    check_annotated(original, annotated)
    # comments the games had are kept, the engine's annotation after them
    assert annotated[0].mainline()[3].comment.startswith("end of opening; ")
    # both games end with the side to move unable to move (results 0-2 and 0-1):
    # a finished game, scored from White's view
    assert annotated[0].headers["Result"] == "0-2"
    assert annotated[0].mainline()[-1].comment.startswith("White has no legal move; loss in 0")
    # the summary (on stdout with -o): each player's moves counted over both games
    moves = {"level3": 0, "depth6": 0}
    for game in original:
        board = game.board()
        for move in game.mainline_moves():
            moves[game.headers["White" if board.turn == damier.WHITE else "Black"]] += 1
            board.push(move)
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert set(rows) == {"level3", "depth6"}
    for name, row in rows.items():
        assert row[1:3] == ["2", str(moves[name])]
    # the counts of marks in the summary are the NAGs written in the file
    for name, row in rows.items():
        nags = [nag for game in annotated for node in game.mainline()
                for nag in node.nags
                if game.headers["White" if node.parent.board().turn == damier.WHITE
                                else "Black"] == name]
        assert [int(row[3]), int(row[4]), int(row[5])] == [nags.count(6), nags.count(2),
                                                          nags.count(4)]
    # a line per game on stderr (not a terminal: no bar)
    assert re.search(r"^game 1/2 \(level3 - depth6, .*International.*102 plies\)", err, re.M)
    assert re.search(r"^game 2/2 .*English.*51 plies\)", err, re.M)


def test_a_move_that_drops_two_men_is_a_blunder(tmp_path: Path) -> None:
    # the loss, by counting: after 4. 34-29 23x25 White has two men less and no capture
    board = damier.Board()
    game = damier.pdn.read_game(BLUNDER_PDN)
    assert game is not None
    moves = list(game.mainline_moves())
    for move in moves[:7]:
        board.push(move)
    assert [board.notation(m) for m in board.legal_moves] == ["23x25"]
    board.push(moves[7])
    colours = [piece.color for piece in board.piece_map().values()]
    assert (colours.count(damier.WHITE), colours.count(damier.BLACK)) == (17, 19)
    assert not any(m.captures for m in board.legal_moves)

    source = tmp_path / "blunder.pdn"
    source.write_text(BLUNDER_PDN)
    status, out, err = run("analyse", str(source), "--depth", "4", "--no-egdb")
    assert status == 0, err
    annotated = damier.pdn.read_game(out)
    assert annotated is not None
    check_annotated([game], [annotated])
    nodes = list(annotated.mainline())
    blunder, reply = nodes[6], nodes[7]
    assert annotated.board().variant.name == "international"
    assert blunder.nags == {4}                       # ??
    loss = int(ANNOTATION.search(blunder.comment)["loss"])
    assert loss >= 200
    assert ANNOTATION.search(blunder.comment)["best"] != "34-29"
    assert reply.nags == set() and "loss" not in reply.comment   # the only move
    assert nodes[5].comment.startswith("a quiet move; ")
    # the summary (stderr, since the PDN went to stdout): Ann's blunder, Bob's none
    rows = {line.split()[0]: line.split() for line in err.splitlines()
            if line.startswith("  ") and not line.split()[0] == "player"}
    assert rows["Ann"][1:6] == ["1", "5", rows["Ann"][3], rows["Ann"][4], "1"]
    assert rows["Bob"][5] == "0"
    # the web's game report judges the same move the same way (one set of thresholds)
    report = damier.web.report.analyse_game(
        damier.Board().fen(), "international", [n.notation() for n in nodes],
        damier.engine.Engine(hash_mb=32), depth=4)
    assert report["plies"][6]["loss"] == loss and report["plies"][6]["mark"] == "??"


def test_the_web_report_and_the_command_share_one_judge() -> None:
    for name in ("judge", "move_loss", "capped", "analyse_game", "INACCURACY", "MISTAKE",
                 "BLUNDER", "SCORE_CAP", "THRESHOLDS", "ReportCancelled"):
        assert getattr(damier.web.report, name) is getattr(damier.analysis, name), name
    assert damier.analysis.THRESHOLDS == {"inaccuracy": 30, "mistake": 80, "blunder": 200,
                                          "cap": 500}
    assert damier.cli.analyse.analyse_game is damier.analysis.analyse_game


def test_annotations_are_replaced_not_stacked(tmp_path: Path) -> None:
    source = tmp_path / "g.pdn"
    source.write_text(BLUNDER_PDN)
    first, second = tmp_path / "once.pdn", tmp_path / "twice.pdn"
    assert run("analyse", str(source), "--depth", "2", "--no-egdb", "-o", str(first))[0] == 0
    assert run("analyse", str(first), "--depth", "2", "--no-egdb", "-o", str(second))[0] == 0
    once, twice = damier.pdn.read_game(first), damier.pdn.read_game(second)
    assert once is not None and twice is not None
    assert [n.comment for n in twice.mainline()] == [n.comment for n in once.mainline()]
    assert [n.nags for n in twice.mainline()] == [n.nags for n in once.mainline()]
    assert twice.mainline()[5].comment.count("best") == 1


def test_variations_and_other_nags_are_kept(tmp_path: Path) -> None:
    source = tmp_path / "v.pdn"
    source.write_text('[Event "v"]\n1. 32-28 $1 (1. 33-28 {other} 18-23) 19-23 2. 28x19 14x23 *\n')
    status, out, _ = run("analyse", str(source), "--depth", "2", "--no-egdb")
    assert status == 0
    game = damier.pdn.read_game(out)
    assert game is not None
    assert 1 in game.next().nags
    side = game.variations[1]
    assert side.notation() == "33-28" and side.comment == "other"
    assert ANNOTATION.search(side.next().comment) is None   # variations are not analysed


def test_database_values_are_shown_where_the_tables_hold_the_position(tmp_path: Path) -> None:
    tables = tmp_path / "egdb"
    build(tables, pieces=3)
    # two white kings and a black man: every position is in the 3-piece tables
    source = tmp_path / "end.pdn"
    source.write_text('[FEN "W:WK46,K50:B15"]\n1. 50-45 15-20 2. 45-40 20-24 *\n')
    status, out, err = run("analyse", str(source), "--depth", "4", "--egdb", str(tables))
    assert status == 0, err
    game = damier.pdn.read_game(out)
    assert game is not None
    with open_database(tables) as db:
        board = game.board()
        for node in game.mainline():
            board.push(node.move)
            database = ANNOTATION.search(node.comment)["database"]
            wdl = db.probe_wdl(damier.Board(board.fen()))
            if wdl == Wdl.DRAW:
                assert database == "database: draw"
            else:
                winner = board.turn if wdl == Wdl.WIN else not board.turn
                dtw = abs(db.probe_dtw(damier.Board(board.fen())))   # signed for the mover
                assert database.startswith(
                    f"database: {'White' if winner == damier.WHITE else 'Black'} wins in "
                    f"{dtw} plies"), database
    assert "database" not in run("analyse", str(source), "--depth", "4", "--no-egdb")[1]


@pytest.mark.parametrize("args, message", [
    (["missing.pdn"], "missing.pdn: no such file"),
    (["{dir}"], "a directory, not a PDN file"),
    (["{empty}"], "no games in the file"),
    (["{bad}"], "no game could be read: game 1, line 1: illegal move \"32-29\""),
    (["{good}", "--movetime", "abc"], "--movetime must be a number of seconds > 0"),
    (["{good}", "--movetime", "0"], "--movetime must be a number of seconds > 0"),
    (["{good}", "--movetime", "-1"], "--movetime must be a number of seconds > 0"),
    (["{good}", "--movetime", "nan"], "--movetime must be a number of seconds > 0"),
    (["{good}", "--movetime", "inf"], "--movetime must be a number of seconds > 0"),
    (["{good}", "--movetime", "1e9"], "at most 3600, got '1e9'"),
    (["{good}", "--depth", "0"], "--depth must be a whole number from 1 to"),
    (["{good}", "--depth", "2.5"], "--depth must be a whole number from 1 to"),
    (["{good}", "-o", "{dir}/no/such/dir/out.pdn"], "cannot write: No such file or directory"),
    (["{good}", "-o", "{dir}"], "-o {dir}: cannot write: Is a directory"),
    (["{good}", "--graphs", "{empty}"], "not a directory"),
    (["{good}", "-o", "{good}"], "-o {good}: that is {good} itself"),
])
def test_bad_input_gets_one_line_and_status_2(tmp_path: Path, args: list[str],
                                              message: str) -> None:
    names = {"dir": str(tmp_path), "empty": str(tmp_path / "empty.pdn"),
             "bad": str(tmp_path / "bad.pdn"), "good": str(tmp_path / "good.pdn")}
    (tmp_path / "empty.pdn").write_text("% nothing but a comment\n")
    (tmp_path / "bad.pdn").write_text("1. 32-29 *\n")
    (tmp_path / "good.pdn").write_text(BLUNDER_PDN)
    argv = [a.format(**names) for a in args]
    status, out, err = run("analyse", *argv, "--depth", "1", "--no-egdb") if "--depth" not in \
        argv else run("analyse", *argv, "--no-egdb")
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("damier analyse: "), err
    assert message.format(**names) in err
    assert "Traceback" not in err
    assert (tmp_path / "good.pdn").read_text() == BLUNDER_PDN   # the input is never touched


def test_a_bad_game_is_skipped_with_a_warning(tmp_path: Path) -> None:
    source = tmp_path / "three.pdn"
    source.write_text(BLUNDER_PDN + '\n[Event "bad"]\n1. 32-28 19-23 2. 28-22 *\n\n'
                      + BLUNDER_PDN.replace("hand-made blunder", "third"))
    status, out, err = run("analyse", str(source), "--depth", "2", "--no-egdb")
    assert status == 1
    assert re.search(r"^damier analyse: .*three\.pdn: skipped game 2, line \d+: illegal move "
                     r"\"28-22\"", err, re.M)
    games = list(read_games(out))
    assert [g.headers["Event"] for g in games] == ["hand-made blunder", "third"]
    assert all(ANNOTATION.search(n.comment) for g in games for n in g.mainline())


def test_graphs_are_png_files(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    graphs = tmp_path / "graphs" / "new"
    status, _, err = run("analyse", str(SELFPLAY), "--depth", "2", "--no-egdb",
                         "-o", str(tmp_path / "out.pdn"), "--graphs", str(graphs))
    assert status == 0, err
    assert sorted(p.name for p in graphs.iterdir()) == ["selfplay-1.png", "selfplay-2.png"]
    for path in graphs.iterdir():
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
        assert data[12:16] == b"IHDR"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (width, height) == (900, 360)


def test_graphs_without_matplotlib_say_how_to_get_it(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # an import of a module whose sys.modules entry is None raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    out_file = tmp_path / "out.pdn"
    status, out, err = run("analyse", str(SELFPLAY), "--depth", "1", "--no-egdb",
                           "-o", str(out_file), "--graphs", str(tmp_path / "g"))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "pip install 'damier[graphs]'" in err, err
    assert "Traceback" not in err
    assert not out_file.exists() and not (tmp_path / "g").exists()   # nothing done
    with pytest.raises(ImportError, match=re.escape("pip install 'damier[graphs]'")):
        damier.analysis.plot_report([], [{"ply": 0, "white_score": 0}], tmp_path / "x.png")


def test_ctrl_c_writes_what_was_analysed(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "three.pdn"
    source.write_text(BLUNDER_PDN + "\n" + BLUNDER_PDN.replace("hand-made blunder", "second")
                      + "\n" + BLUNDER_PDN.replace("hand-made blunder", "third"))
    real = damier.analysis.analyse_game
    calls = []

    def interrupted(*args, progress, **kwargs):   # Ctrl-C at ply 3 of the second game
        calls.append(1)

        def step(k, n, position, move):
            progress(k, n, position, move)
            if len(calls) == 2 and k == 3:
                raise KeyboardInterrupt
        return real(*args, progress=step, **kwargs)

    monkeypatch.setattr(damier.cli.analyse, "analyse_game", interrupted)
    out_file = tmp_path / "out.pdn"
    status, out, err = run("analyse", str(source), "--depth", "2", "--no-egdb",
                           "-o", str(out_file))
    assert status == 130
    assert "interrupted: 1 of 3 games analysed, game 2 to ply 3" in err
    games = list(read_games(out_file))
    assert [g.headers["Event"] for g in games] == ["hand-made blunder", "second"]
    assert all(ANNOTATION.search(n.comment) for n in games[0].mainline())
    second = list(games[1].mainline())
    assert len(second) == 10                       # the whole game, ...
    assert [bool(ANNOTATION.search(n.comment)) for n in second] == [True] * 3 + [False] * 7
    assert "summary of 2 games, 13 moves" in out


def test_ctrl_c_in_a_real_process(tmp_path: Path) -> None:
    # the first game (10 plies) is written quickly; SIGINT then stops the second one
    source = tmp_path / "two.pdn"
    source.write_text(BLUNDER_PDN + "\n" + SELFPLAY.read_text())
    out_file = tmp_path / "out.pdn"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.Popen([sys.executable, "-m", "damier.cli", "analyse", str(source),
                             "--movetime", "0.05", "--no-egdb", "-o", str(out_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (
                out_file.exists() and "[Event" in out_file.read_text()):
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted: 1 of 3 games analysed" in err
    games = list(read_games(out_file))
    assert len(games) == 2 and games[1].headers["Event"] == "damier match: level3 vs depth6"
    assert len(games[1].mainline_moves()) == 102
    assert ANNOTATION.search(games[1].next().comment)
    assert "summary of 2 games" in out


def test_the_annotation_format() -> None:
    ply = {"best_move": "32-28", "text_before": "+0.20", "loss": 165}
    text = damier.analysis.annotation(ply, {"score_text": "-1.45"})
    assert text == "-1.45; best 32-28 +0.20; loss 165"
    assert ANNOTATION.fullmatch(text)
    won = damier.analysis.annotation({"best_move": "28x19", "text_before": "win in 1",
                                      "loss": 0},
                                     {"score_text": "win in 0",
                                      "database": "database: White wins in 0 plies"})
    assert won == "win in 0; best 28x19 win in 1; database: White wins in 0 plies"
    assert damier.analysis.parse_annotation("kept; " + won) == {
        "score": "win in 0", "best": "28x19", "best_score": "win in 1", "loss": 0,
        "database": "database: White wins in 0 plies"}
    assert damier.analysis.parse_annotation("White is better +0.50") is None


def test_annotating_again_replaces_the_marks_of_the_earlier_annotation() -> None:
    game = damier.pdn.read_game("1. 32-28 $1 19-23 $2 {a human's mark} 2. 28x19 14x23 *")
    assert game is not None

    def entries(losses: list[int]) -> tuple[list[dict], list[dict]]:
        marks = {0: None, 10: None, 40: "?!", 250: "??"}
        plies = [{"ply": k, "best_move": "33-28", "text_before": "+0.00", "loss": loss,
                  "mark": marks[loss]} for k, loss in enumerate(losses, start=1)]
        positions = [{"score_text": "+0.00"}] * (len(losses) + 1)
        return plies, positions

    damier.analysis.annotate_game(game, *entries([250, 10, 40, 0]))
    assert [n.nags for n in game.mainline()] == [{1, 4}, {2}, {6}, set()]
    damier.analysis.annotate_game(game, *entries([0, 0, 0, 250]))
    # the earlier ?? and ?! went with their annotations; the human's $1 and ? stay
    assert [n.nags for n in game.mainline()] == [{1}, {2}, set(), {4}]
    comments = [n.comment for n in game.mainline()]
    assert comments[1] == "a human's mark; +0.00; best 33-28 +0.00"
    assert comments[3] == "+0.00; best 33-28 +0.00; loss 250"
