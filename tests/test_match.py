"""Engine matches (damier.match), the openings (damier.openings) and ``damier match``.

Every match here is tiny: engines searching 1-3 plies deep, a few games.
"""

from __future__ import annotations

import _thread
import io
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import damier
from damier import Board, Move
from damier.cli import main
from damier.engine import Engine
from damier.engine_types import format_score
from damier.match import (EngineSpecError, EngineStartError, EngineTimeoutError, MatchResult,
                          elo_from_score, parse_clock, parse_engine_spec, pentanomial_interval,
                          run_match, trinomial_interval)
from damier.match.journal import read_journal
from damier.openings import is_fen, load_openings, opening_board, shipped_openings_path
from damier.pdn import read_games
from damier.sprt import SPRT, llr

FAST = "damier:depth=2,hash=1"
FASTER = "damier:depth=1,hash=1"
SRC = Path(damier.__file__).resolve().parents[1]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


class FakePlayer:
    """A scripted engine: ``moves(board)`` gives its reply (or raises)."""

    def __init__(self, name: str, reply) -> None:
        self.name = name
        self.reply = reply
        self.games = 0
        self.closed = False

    def new_game(self) -> None:
        self.games += 1

    def play(self, board, *, movetime, clock):
        return self.reply(board)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def first_move(board: Board) -> Move:
    return sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square))[0]


# -- statistics ----------------------------------------------------------------------------


def test_elo_from_score_hand_computed() -> None:
    # 400 * log10(3) = 190.848...
    assert elo_from_score(0.75) == pytest.approx(190.848, abs=1e-3)
    assert elo_from_score(0.25) == pytest.approx(-190.848, abs=1e-3)
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.9) == pytest.approx(381.697, abs=1e-3)  # 400 * log10(9)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert math.isnan(elo_from_score(math.nan))


def test_trinomial_interval_hand_computed() -> None:
    # 6 wins, 2 draws, 2 losses: score 0.7, per-game variance
    # (6*0.3^2 + 2*0.2^2 + 2*0.7^2)/10 = 0.16, SE = sqrt(0.16/10) = 0.12649,
    # score interval 0.7 -+ 1.96*0.12649 = [0.45208, 0.94792] -> Elo [-33.4, +504.0]
    lo, hi = trinomial_interval(6, 2, 2)
    assert lo == pytest.approx(-33.40, abs=0.02)
    assert hi == pytest.approx(504.03, abs=0.02)
    assert trinomial_interval(0, 10, 0) == (0.0, 0.0)  # no spread at all
    assert all(math.isnan(x) for x in trinomial_interval(0, 0, 0))


def test_pentanomial_interval_hand_computed() -> None:
    # pairs scoring 0, 1/2, 1, 3/2, 2 points: 1, 1, 3, 3, 2 -> per-game pair scores
    # 0, .25, .5, .75, 1; mean 0.6, variance 0.09, SE = 0.3/sqrt(10) = 0.094868,
    # score interval [0.41406, 0.78594] -> Elo [-60.3, +225.9]
    lo, hi = pentanomial_interval([1, 1, 3, 3, 2])
    assert lo == pytest.approx(-60.31, abs=0.02)
    assert hi == pytest.approx(225.94, abs=0.02)
    with pytest.raises(ValueError):
        pentanomial_interval([1, 2, 3])


# -- specs and clocks ------------------------------------------------------------------------


def test_parse_engine_spec() -> None:
    spec = parse_engine_spec("damier:level=5, hash=16,depth=3,nodes=1000,movetime=0.5,name=weak")
    assert spec.kind == "damier"
    assert spec.option_map == {"level": 5, "hash": 16, "depth": 3, "nodes": 1000,
                               "movetime": 0.5, "name": "weak"}
    assert spec.label == "weak"
    assert parse_engine_spec("damier").option_map == {}
    hub = parse_engine_spec("hub:dame hub")
    assert hub.kind == "hub" and hub.command == ("dame", "hub")
    assert parse_engine_spec("hub:'/path with space/eng' --hub").command == (
        "/path with space/eng", "--hub")


def test_spec_book_and_selectivity_reach_the_engine() -> None:
    """``book=on|off|FILE`` and the search's selectivity settings (the names of
    ``Engine.set_selectivity``) make the engine of a ``damier`` player."""
    from damier.match import make_player

    player = make_player(parse_engine_spec(
        "damier:book=on,probcut=on,singular=off,threat_qsearch=1,history=2,lmr_divisor=2.5"))
    engine = player.engine   # type: ignore[attr-defined]
    assert engine.book is not False and engine.book is not None
    settings = engine.selectivity
    assert (settings["probcut"], settings["singular"], settings["threat_qsearch"],
            settings["history"], settings["lmr_divisor"]) == (True, False, 1, 2, 2.5)
    first = engine.search(Board(), depth=2)
    assert first.book
    plain = make_player(parse_engine_spec("damier:book=off")).engine  # type: ignore[attr-defined]
    assert not plain.search(Board(), depth=2).book
    assert make_player(parse_engine_spec("damier")).engine.book in (None, False)  # type: ignore[attr-defined]


def test_spec_adaptive_time_reaches_the_engine() -> None:
    from damier.match import make_player

    def engine(spec: str) -> Any:
        return make_player(parse_engine_spec(spec)).engine  # type: ignore[attr-defined]

    assert engine("damier").adaptive_time is True
    assert engine("damier:adaptive_time=off").adaptive_time is False
    assert engine("damier:adaptive_time=on").adaptive_time is True


def test_spec_book_margin_reaches_the_engine() -> None:
    from damier.book import DEFAULT_MARGIN
    from damier.match import make_player

    def engine(spec: str) -> Any:
        return make_player(parse_engine_spec(spec)).engine  # type: ignore[attr-defined]

    assert engine("damier:book=on").book_margin == DEFAULT_MARGIN
    assert engine("damier:book=on,book_margin=0").book_margin == 0
    assert engine("damier:book=on,book_margin=25").book_margin == 25


@pytest.mark.parametrize("text, message", [
    ("stockfish", "expected damier[:option=value,...], hub:COMMAND or dxp:HOST[:PORT]"),
    ("damier:level=11", "option level must be between 1 and 10, got 11"),
    ("damier:level=x", "option level expected a whole number"),
    ("damier:colour=red", "unknown option 'colour'"),
    ("damier:level", "needs a value"),
    ("damier:depth=2,depth=3", "given twice"),
    ("damier:movetime=-1", "positive number of seconds"),
    ("damier:book=maybe.bin", "cannot read opening book maybe.bin"),
    ("damier:book=", "option book expected on, off or a book file"),
    ("damier:probcut=sometimes", "option probcut expected on or off"),
    ("damier:history=3", "option history must be between 0 and 2, got 3"),
    ("damier:lmr_divisor=0", "option lmr_divisor must be between 0.25 and 100"),
    ("damier:null_move=on", "unknown option 'null_move'"),
    ("damier:adaptive_time=2", "option adaptive_time expected on or off"),
    ("damier:book_margin=-1", "option book_margin must be between 0 and 10000"),
    ("damier:book_margin=x", "option book_margin expected a whole number"),
    ("hub:", "needs the engine's command"),
    ("hub:'unclosed", "cannot split the command"),
])
def test_bad_engine_specs(text: str, message: str) -> None:
    with pytest.raises(EngineSpecError, match="bad engine spec") as info:
        parse_engine_spec(text)
    assert message in str(info.value)


def test_parse_clock() -> None:
    # the one clock grammar of play, match and the web: TIME in minutes (or M:SS, or with
    # a unit), the increment in seconds
    clock = parse_clock("1+0.5")
    assert (clock.white_time, clock.black_time, clock.white_increment) == (60.0, 60.0, 0.5)
    assert parse_clock("60s+0.5") == clock and parse_clock("1m+0.5s") == clock
    assert parse_clock("3:00+2").white_time == 180.0
    assert parse_clock("40/2").moves_to_go == 40 and parse_clock("40/2").white_time == 120.0
    for bad in ("", "fast", "0+1", "1+x", "1h", "60+0.5+1", "1001/1"):
        with pytest.raises(ValueError, match="bad clock"):
            parse_clock(bad)


# -- matches ---------------------------------------------------------------------------------


def test_two_game_match_writes_pdn_that_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "games.pdn"
    result = run_match(FAST, FASTER, games=2, pdn_path=out, progress=False, seed=7)
    assert isinstance(result, MatchResult)
    assert result.wins + result.draws + result.losses == 2 == len(result.games)
    assert result.score == pytest.approx((result.wins + 0.5 * result.draws) / 2)
    assert result.elo == pytest.approx(elo_from_score(result.score)) or math.isinf(result.elo)
    assert result.interval_model == "pentanomial" and sum(result.pentanomial) == 1
    assert not result.interrupted and not result.errors

    games = list(read_games(out))
    assert len(games) == 2
    for game, record in zip(games, result.games, strict=True):
        h = game.headers
        for tag in ("Event", "Site", "Date", "Round", "White", "Black", "Result", "GameType",
                    "Termination", "Opening"):
            assert h.get(tag, "?") != "?", tag
        assert h["GameType"] == "20"
        assert (h["White"], h["Black"]) == (record.white, record.black)
        assert h["Round"] == record.round
        assert h["Result"] == {"1-0": "2-0", "0-1": "0-2", "1/2-1/2": "1-1"}[record.result]
        assert len(game.mainline_moves()) == record.plies == int(h["PlyCount"])
        assert h["Opening"].split() == record.opening  # shipped openings: 4 plies
        assert [n.notation() for n in game.mainline()][:4] == record.opening
        assert record.reason in game.end().comment
        board = game.end().board()
        if record.termination == "normal":
            assert board.outcome() is not None
            assert board.outcome().result() == record.result


EVAL_COMMENT = re.compile(r"^([+-]\d+\.\d\d|win in \d+|loss in \d+)/(\d+) (\d+\.\d\d)s(; .*)?$")


def test_each_engine_move_carries_its_score_depth_and_time(tmp_path: Path) -> None:
    # FAST searches 2 plies, FASTER 1: each engine move's PDN comment gives the score
    # and the depth the engine played it with and the seconds it took
    out = tmp_path / "evals.pdn"
    result = run_match(FAST, FASTER, games=2, pdn_path=out, progress=False, seed=7,
                       max_plies=60)
    depth_of = {"damier:depth=2,hash=1": 2, "damier:depth=1,hash=1": 1}
    for game, record in zip(read_games(out), result.games, strict=True):
        nodes = list(game.mainline())
        opening = len(record.opening)
        assert nodes[opening - 1].comment == "end of opening"
        assert len(record.evals) == record.plies - opening
        for node in nodes[opening:]:
            found = EVAL_COMMENT.match(node.comment)
            assert found, node.comment
            before = node.parent.board()
            mover = game.headers["White" if before.turn == damier.WHITE else "Black"]
            depth = int(found.group(2))
            # a forced move is searched a ply only; otherwise the engine's depth
            if len(list(before.legal_moves)) > 1:
                assert depth == depth_of[mover], (mover, node.comment)
            else:
                assert 1 <= depth <= depth_of[mover]
            # the score is what a fresh engine finds at that depth, from the mover's side
            fresh = Engine(hash_mb=1).search(before, depth=depth)
            assert found.group(1) == format_score(fresh.score), node.comment
        assert nodes[-1].comment.endswith("; " + record.reason)


def test_book_moves_are_marked_as_such(tmp_path: Path) -> None:
    # from the start position the shipped book answers the first moves of the engine
    # with book=on; they carry "book" (no score or depth), the other engine's searched
    out = tmp_path / "book.pdn"
    result = run_match("damier:book=on,depth=1,hash=1", FASTER, games=2, openings=[[]],
                       pdn_path=out, progress=False, seed=1, max_plies=20)
    for game, record in zip(read_games(out), result.games, strict=True):
        booked = "White" if record.white.startswith("damier:book=on") else "Black"
        first = list(game.mainline())[0 if booked == "White" else 1]
        assert first.comment == "book"
        move_eval = record.evals[0 if booked == "White" else 1]
        assert (move_eval.book, move_eval.score, move_eval.depth) == (True, None, None)
        others = list(game.mainline())[1 if booked == "White" else 0::2]
        assert all(EVAL_COMMENT.match(n.comment) for n in others[:-1])


def test_the_journal_keeps_the_engines_evaluations(tmp_path: Path) -> None:
    journal = tmp_path / "evals.jsonl"
    first = run_match(NODES, FASTER, games=2, progress=False, seed=21, max_plies=40,
                      resume=journal)
    lines = journal_games(journal)
    for line, record in zip(lines, first.games, strict=True):
        assert len(line["evals"]) == record.plies - len(record.opening)
        for item, move_eval in zip(line["evals"], record.evals, strict=True):
            assert item[:2] == [move_eval.score, move_eval.depth]
            assert item[2] == round(move_eval.seconds * 1000)
    # games read back write the same comments into the PDN as when they were played
    pdn = tmp_path / "again.pdn"
    again = run_match(NODES, FASTER, games=2, progress=False, max_plies=40, resume=journal,
                      pdn_path=pdn)
    assert again.resumed == 2
    for game, record in zip(read_games(pdn), first.games, strict=True):
        assert [n.comment for n in game.mainline()] == [
            n.comment for n in record.game.mainline()]


def test_a_journal_without_evaluations_still_reads(tmp_path: Path) -> None:
    # journals written before the evaluations were kept have no "evals"
    journal = tmp_path / "old.jsonl"
    run_match(NODES, FASTER, games=2, progress=False, seed=9, max_plies=40, resume=journal)
    items = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    for item in items[1:]:
        del item["evals"]
    journal.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    result = read_journal(journal)
    assert len(result.games) == 2 and all(g.evals == [] for g in result.games)
    comments = [n.comment for n in result.games[0].game.mainline()]
    assert comments[:len(result.games[0].opening) - 1] == [""] * (len(result.games[0].opening)
                                                                  - 1)
    assert all(c == "" for c in comments[len(result.games[0].opening):-1])


@pytest.mark.parametrize("evals", ['"none"', '[[1, 2]]', '[[1, 2, -5]]', '[[1.5, 2, 10]]',
                                   '[[1, 2, 10, false]]', '[[true, 2, 10]]'])
def test_a_journal_with_bad_evaluations_is_refused(tmp_path: Path, evals: str) -> None:
    journal = tmp_path / "bad.jsonl"
    run_match(NODES, FASTER, games=2, progress=False, seed=9, max_plies=40, resume=journal)
    lines = journal.read_text(encoding="utf-8").splitlines()
    item = json.loads(lines[1])
    item["evals"] = json.loads(evals)
    lines[1] = json.dumps(item)
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2 is not a game of a match journal"):
        read_journal(journal)


def test_colours_alternate_per_opening(tmp_path: Path) -> None:
    openings = [["32-28", "18-23"], ["33-29", "17-21"], ["34-30", "20-25"]]
    result = run_match(FAST, FASTER, games=6, openings=openings, shuffle_openings=False,
                       progress=False, seed=1, max_plies=40)
    records = result.games
    assert [g.round for g in records] == ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]
    for k, opening in enumerate(openings):
        first, second = records[2 * k], records[2 * k + 1]
        assert first.opening == second.opening == opening
        assert first.a_is_white and not second.a_is_white
        assert (first.white, first.black) == (second.black, second.white) == (FAST, FASTER)


def test_openings_are_reused_and_shuffled_with_the_seed() -> None:
    openings = [["32-28"], ["33-29"], ["34-30"]]
    a = run_match(FASTER, FASTER, games=8, openings=openings, progress=False, seed=5,
                  max_plies=6)
    b = run_match(FASTER, FASTER, games=8, openings=openings, progress=False, seed=5,
                  max_plies=6)
    assert [g.opening for g in a.games] == [g.opening for g in b.games]
    assert {tuple(g.opening) for g in a.games} == {("32-28",), ("33-29",), ("34-30",)}
    assert a.engine_a != a.engine_b  # same spec twice: told apart in the PDN


def test_max_length_adjudication_is_a_draw() -> None:
    result = run_match(FAST, FAST, games=2, openings=[[]], progress=False, seed=1, max_plies=8)
    assert result.draws == 2
    for g in result.games:
        assert g.termination == "adjudication" and g.plies == 8
        assert "maximum game length of 8 plies" in g.reason
        assert g.game.headers["Result"] == "1-1"


@pytest.mark.parametrize("reply, termination, words", [
    (lambda board: "1-50", "rules infraction", "illegal move: '1-50'"),
    (lambda board: Move(1, 50), "rules infraction", "illegal move: '1-50'"),
    (lambda board: None, "rules infraction", "played no move"),
    (lambda board: 42, "rules infraction", "not a move"),
])
def test_illegal_move_loses(tmp_path: Path, reply, termination: str, words: str) -> None:
    fake = FakePlayer("fake", reply)
    out = tmp_path / "illegal.pdn"
    result = run_match(FAST, lambda: fake, games=2, openings=[["32-28", "18-23"]],
                       progress=False, seed=3, pdn_path=out)
    assert (result.wins, result.draws, result.losses) == (2, 0, 0)
    for record in result.games:
        assert record.termination == termination
        assert words in record.reason and "fake" in record.reason
    games = list(read_games(out))
    assert [g.headers["Termination"] for g in games] == [termination] * 2
    assert all(words in g.end().comment for g in games)
    assert [g.headers["Result"] for g in games] == ["2-0", "0-2"]


def test_crash_and_timeout_lose() -> None:
    def crash(board):
        raise RuntimeError("segmentation fault")

    def timeout(board):
        raise EngineTimeoutError("no answer after 10 s")

    for reply, termination, words in ((crash, "abandoned", "segmentation fault"),
                                      (timeout, "time forfeit", "did not answer in time")):
        started: list[FakePlayer] = []

        def factory(reply=reply, started=started):
            started.append(FakePlayer("flaky", reply))
            return started[-1]

        result = run_match(FASTER, factory, games=2, openings=[["32-28", "18-23"]],
                           progress=False, seed=3)
        assert result.wins == 2, termination
        assert [g.termination for g in result.games] == [termination] * 2
        assert all(words in g.reason for g in result.games)
        # a failed engine is restarted for the next game, and every engine is closed
        assert len(started) == 2 and all(p.closed for p in started)


def test_flag_fall_loses_on_time() -> None:
    def slow(board):
        time.sleep(0.35)
        return first_move(board)

    result = run_match(FASTER, lambda: FakePlayer("slow", slow), games=2, clock="0.2s+0",
                       openings=[["32-28"]], progress=False, seed=1)
    assert result.wins == 2
    assert all(g.termination == "time forfeit" and "lost on time" in g.reason
               for g in result.games)
    assert result.games[0].game.headers["TimeControl"] == "0.2"


def test_clock_game(tmp_path: Path) -> None:
    result = run_match("damier:hash=1", "damier:hash=1,level=3", games=2, clock="2s+0.05",
                       progress=False, seed=2, max_plies=16)
    assert len(result.games) == 2
    assert all(g.termination in ("adjudication", "normal") for g in result.games)
    assert result.time_control == "2+0.05"


def test_concurrency_keeps_schedule_order(tmp_path: Path) -> None:
    out = tmp_path / "c.pdn"
    result = run_match(FAST, FASTER, games=4, concurrency=2, pdn_path=out, progress=False,
                       seed=11, max_plies=60)
    assert [g.number for g in result.games] == [1, 2, 3, 4]
    assert [g.headers["Round"] for g in read_games(out)] == ["1.1", "1.2", "2.1", "2.2"]


def test_progress_lines(capsys: pytest.CaptureFixture[str]) -> None:
    stream = io.StringIO()
    run_match(FAST, FASTER, games=2, progress=True, stream=stream, seed=1, max_plies=10)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("[1/2]") and "1.1" in lines[0]
    assert "LLR" not in stream.getvalue()          # no SPRT, no test figures


def test_progress_lines_of_an_sprt_show_the_pairs_llr_as_it_goes() -> None:
    stream = io.StringIO()
    result = run_match(NODES, "damier:level=1,hash=1", games=8, progress=True, stream=stream,
                       seed=3, sprt=SPRT(0, 400))
    lines = [line for line in stream.getvalue().splitlines() if line.startswith("[")]
    assert len(lines) == len(result.games) >= 4
    assert "LLR" not in lines[0]                   # the first game completes no pair
    # each line shows the LLR of the pairs complete so far (one game at a time: in order)
    for k, line in enumerate(lines, start=1):
        pairs = [g.score_a + h.score_a for g, h in zip(result.games[0:2 * (k // 2):2],
                                                       result.games[1:2 * (k // 2):2],
                                                       strict=True)]
        if pairs:
            counts = [sum(1 for p in pairs if p == v) for v in (0, 0.5, 1, 1.5, 2)]
            assert f"LLR {llr(counts, 0, 400):.2f}" in line, (k, line)
    assert f"LLR {result.sprt.llr:.2f}" in lines[-1]


def test_ctrl_c_keeps_finished_games(tmp_path: Path) -> None:
    calls = {"games": 0}

    class Interrupting(FakePlayer):
        def new_game(self) -> None:
            calls["games"] += 1
            if calls["games"] == 3:
                _thread.interrupt_main()  # as if Ctrl-C were pressed during game 3
                time.sleep(0.5)  # the main thread sees it within 0.05 s

    out = tmp_path / "stopped.pdn"
    result = run_match(FASTER, lambda: Interrupting("i", first_move), games=6,
                       progress=False, seed=1, pdn_path=out, max_plies=20)
    assert result.interrupted
    assert len(result.games) == 2
    assert len(list(read_games(out))) == 2
    assert "interrupted" in result.summary()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="games"):
        run_match(FAST, FAST, games=0, progress=False)
    with pytest.raises(ValueError, match="not both"):
        run_match(FAST, FAST, games=2, movetime=0.1, clock="1s+0", progress=False)
    with pytest.raises(ValueError, match="illegal move"):
        run_match(FAST, FAST, games=2, openings=[["32-29"]], progress=False)
    with pytest.raises(EngineSpecError):
        run_match("damier:level=0", FAST, games=2, progress=False)

    def broken():
        raise OSError("no such engine")

    with pytest.raises(EngineStartError, match="no such engine"):
        run_match(broken, FAST, games=2, progress=False)


# -- openings --------------------------------------------------------------------------------


def test_shipped_openings() -> None:
    path = shipped_openings_path("international")
    assert path is not None and path.name == "openings_international.pdn"
    openings = load_openings()
    assert len(openings) >= 100
    fens = set()
    for opening in openings:
        assert len(opening) == 4
        board = opening_board(opening)  # every move legal
        assert not board.is_game_over()
        fens.add(board.fen())
    assert len(fens) == len(openings)  # no transpositions
    header = path.read_text(encoding="utf-8").splitlines()[:6]
    assert any("damier openings --generate" in line for line in header)
    assert shipped_openings_path("english") is None
    with pytest.raises(FileNotFoundError, match="ships no openings"):
        load_openings(variant="english")


def test_generated_openings_split_by_their_score() -> None:
    """The balanced openings (|score| at most the margin) and the unbalanced ones (at
    least min_margin) of the same search split the distinct positions between them."""
    from damier.openings import generate_openings, start_sequences
    distinct = start_sequences("international", 2)
    balanced = generate_openings(plies=2, depth=3, margin=15)
    unbalanced = generate_openings(plies=2, depth=3, margin=10_000, min_margin=16)
    assert balanced and unbalanced
    assert all(abs(score) <= 15 for _, score in balanced)
    assert all(abs(score) >= 16 for _, score in unbalanced)
    assert sorted(m for m, _ in balanced + unbalanced) == sorted(distinct)
    narrow = generate_openings(plies=2, depth=3, margin=40, min_margin=16)
    assert [m for m, s in unbalanced if abs(s) <= 40] == [m for m, _ in narrow]
    with pytest.raises(ValueError, match="min_margin"):
        generate_openings(plies=1, depth=1, margin=10, min_margin=20)


def test_load_openings_text_file(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    path.write_text("# my openings\n1. 32-28 18-23 2. 37-32\n\n33-29 19-24  # a comment\n"
                    "W:W28,33:B18,19 28-22\n", encoding="utf-8")
    assert load_openings(path) == [["32-28", "18-23", "37-32"], ["33-29", "19-24"],
                                   ["W:W28,33:B18,19", "28-22"]]
    assert is_fen("W:W28,33:B18,19")
    bad = tmp_path / "bad.txt"
    bad.write_text("32-28\n32-29\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        load_openings(bad)
    with pytest.raises(FileNotFoundError):
        load_openings(tmp_path / "missing.txt")


def test_fen_opening_in_pdn() -> None:
    result = run_match(FAST, FASTER, games=2, openings=["W:W28,33,38:B18,19,12"],
                       progress=False, seed=1)
    for record in result.games:
        assert record.game.headers["FEN"].startswith("W:")
        assert "Opening" not in record.game.headers


# -- command line ----------------------------------------------------------------------------


def test_cli_match(tmp_path: Path) -> None:
    out = tmp_path / "cli.pdn"
    code, stdout, stderr = run(["match", FAST, FASTER, "--games", "2", "--pdn", str(out),
                                "--seed", "4", "--max-plies", "60"])
    assert code == 0, stderr
    assert "W/D/L" in stdout and "Elo" in stdout and "95% interval" in stdout
    assert "[1/2]" in stderr and "[2/2]" in stderr
    assert len(list(read_games(out))) == 2


@pytest.mark.parametrize("argv, message", [
    (["match", "stockfish", "damier"], "bad engine spec 'stockfish'"),
    (["match", "damier:level=11", "damier"], "option level must be between 1 and 10"),
    (["match", "damier", "damier:speed=3"], "unknown option 'speed'"),
    (["match", "damier", "hub:"], "needs the engine's command"),
    (["match", "damier", "damier", "--games", "0"], "--games must be at least 1"),
    (["match", "damier", "damier", "--clock", "soon"], "bad clock"),
    (["match", "damier", "damier", "--movetime", "0"], "--movetime must be positive"),
    (["match", "damier", "damier", "--variant", "chess"], "chess"),
    (["match", "damier", "damier", "--openings", "/no/such/file.pdn"], "--openings"),
    (["match", "damier", "damier", "--concurrency", "0"], "--concurrency must be at least 1"),
])
def test_cli_errors_are_clear(argv: list[str], message: str) -> None:
    code, stdout, stderr = run(argv)
    assert code == 2
    assert message in stderr
    assert "Traceback" not in stderr and stdout == ""


def test_cli_bad_engine_command_no_traceback(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "damier.cli", "match", "damier:depth=1",
                           f"hub:{tmp_path / 'no-such-engine'}", "--games", "2"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert "cannot start engine" in proc.stderr and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "damier.cli", "match", "damier:levl=3",
                           "damier"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2 and "unknown option 'levl'" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- Hub engines -------------------------------------------------------------------------------


def _hub_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def test_cli_match_against_damier_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("damier.hub")
    _hub_env(monkeypatch)
    command = shlex.join([sys.executable, "-m", "damier.cli", "hub"])
    out = tmp_path / "hub.pdn"
    code, stdout, stderr = run(["match", "damier:hash=1", f"hub:{command}", "--games", "2",
                                "--movetime", "0.02", "--max-plies", "80", "--pdn", str(out),
                                "--seed", "1"])
    assert code == 0, stderr
    games = list(read_games(out))
    assert len(games) == 2
    assert all(g.headers["Termination"] in ("normal", "adjudication") for g in games), \
        [g.end().comment for g in games]
    # the Hub engine's moves carry the score and depth of its last info line too
    for game in games:
        opening = len(game.headers["Opening"].split())
        for node in list(game.mainline())[opening:]:
            assert EVAL_COMMENT.match(node.comment), node.comment


@pytest.mark.skipif(shutil.which("dame") is None, reason="dame (dame-rs) is not installed")
def test_match_against_dame_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("damier.hub")
    result = run_match("damier:hash=1", "hub:dame hub", games=2, movetime=0.02,
                       progress=False, seed=1, max_plies=80)
    assert len(result.games) == 2 and not result.errors
    assert all(g.termination in ("normal", "adjudication") for g in result.games), \
        [g.reason for g in result.games]


FAKE_HUB = '''
import sys
mode = sys.argv[1]
for line in sys.stdin:
    words = line.split()
    command = words[0] if words else ""
    if command == "hub":
        print("id name=fake version=1.0")
        print("wait", flush=True)
    elif command == "init":
        print("ready", flush=True)
    elif command == "ping":
        print("pong", flush=True)
    elif command == "go":
        if mode == "illegal":
            print("done move=1-50", flush=True)
        elif mode == "nomove":
            print("done", flush=True)
        elif mode == "crash":
            sys.exit(3)
        # "hang": never answers
    elif command == "quit":
        break
'''


@pytest.mark.parametrize("mode, termination, words", [
    ("illegal", "rules infraction", "played an illegal move: '1-50'"),
    ("nomove", "rules infraction", "played no move"),
    ("crash", "abandoned", "failed"),
    ("hang", "time forfeit", "did not answer in time"),
])
def test_fake_hub_engine_failures_lose(tmp_path: Path, mode: str, termination: str,
                                       words: str) -> None:
    pytest.importorskip("damier.hub")
    script = tmp_path / "fake_hub.py"
    script.write_text(FAKE_HUB, encoding="utf-8")
    spec = "hub:" + shlex.join([sys.executable, str(script), mode])
    out = tmp_path / "fake.pdn"
    result = run_match(FASTER, spec, games=2, movetime=0.01, hub_timeout=0.5,
                       openings=[["32-28", "18-23"]], progress=False, seed=1, pdn_path=out)
    assert result.engine_b == "fake 1.0"
    assert (result.wins, result.draws, result.losses) == (2, 0, 0), [g.reason for g in result.games]
    assert [g.termination for g in result.games] == [termination] * 2
    assert all(words in g.reason and "fake 1.0" in g.reason for g in result.games)
    games = list(read_games(out))
    assert [g.headers["Termination"] for g in games] == [termination] * 2
    assert all(words in g.end().comment for g in games)


@pytest.mark.skipif(shutil.which("damier") is None,
                    reason="the damier command is not installed (pip install -e .)")
def test_installed_command_plays_damier_against_damier_hub(tmp_path: Path) -> None:
    """The acceptance command, run as a user would: `damier match damier hub:"damier hub"`."""
    out = tmp_path / "games.pdn"
    proc = subprocess.run(
        ["damier", "match", "damier", "hub:damier hub", "--games", "2", "--movetime", "0.02",
         "--max-plies", "120", "--pdn", str(out)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Elo" in proc.stdout + proc.stderr
    assert len(list(read_games(out))) == 2


# -- pentanomial report, SPRT, resumable matches -----------------------------------------------

NODES = "damier:nodes=300,hash=1"


def independent_pentanomial(records) -> list[int]:
    """Counts [LL, LD, DD+WL, WD, WW] from the games' results, written out here."""
    points: dict[int, list[float]] = {}
    for g in records:
        a_won = (g.result == "1-0") == g.a_is_white
        points.setdefault(g.pair, []).append(0.5 if g.result == "1/2-1/2" else float(a_won))
    counts = [0, 0, 0, 0, 0]
    for pair in points.values():
        if len(pair) == 2:
            counts[int(2 * sum(pair))] += 1
    return counts


def loser(name: str = "loser"):
    """A fake engine that answers an illegal move at once (and so loses every game)."""
    return lambda: FakePlayer(name, lambda board: "1-50")


def test_summary_and_json_show_the_pentanomial_counts(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    code, stdout, stderr = run(["match", NODES, FASTER, "--games", "6", "--seed", "3",
                                "--max-plies", "60", "--json", str(report), "--no-progress"])
    assert code == 0, stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["games"] == 6 and data["wins"] + data["draws"] + data["losses"] == 6
    counts = data["pentanomial"]
    assert len(counts) == 5 and sum(counts) == 3
    assert f"pairs [LL, LD, DD+WL, WD, WW]: {counts} (3 pairs)" in stdout
    # the pair counts agree with the W/D/L: 2 points per WW pair, 1.5 per WD...
    assert sum(c * k / 2 for k, c in enumerate(counts)) == data["wins"] + data["draws"] / 2
    assert "pentanomial Elo" in stdout and "elo" in data["pentanomial_elo"]
    assert data["sprt"] is None and data["seed"] == 3


def test_pentanomial_counts_of_a_match_match_its_games() -> None:
    result = run_match(NODES, FASTER, games=6, progress=False, seed=8, max_plies=60)
    assert list(result.pentanomial) == independent_pentanomial(result.games)
    est = result.pentanomial_elo
    assert est is not None and est.low <= est.elo <= est.high
    assert (est.low, est.high) == pytest.approx(result.elo_interval)


def test_incomplete_pairs_keep_the_complete_pairs_counts(tmp_path: Path) -> None:
    result = run_match(FAST, FASTER, games=3, openings=[["32-28", "18-23"]], progress=False,
                       seed=1, max_plies=30)
    assert result.interval_model == "trinomial"  # game 3 has no partner
    assert sum(result.pentanomial) == 1
    assert list(result.pentanomial) == independent_pentanomial(result.games)


def test_sprt_stops_a_match_against_a_losing_engine() -> None:
    test = SPRT(0, 400)  # s1 = 0.909: every pair won adds about log(0.909 / 0.5) = 0.6
    result = run_match(FASTER, loser(), games=40, openings=[["32-28", "18-23"]],
                       progress=False, seed=1, sprt=test)
    assert result.sprt_decision == "H1" and result.sprt is test
    assert (result.wins, result.draws, result.losses) == (10, 0, 0)  # 5 pairs: LLR 2.99
    assert test.counts == (0, 0, 0, 0, 5) and test.llr >= math.log(0.95 / 0.05)
    assert not result.errors and not result.interrupted and result.scheduled == 40
    assert "H1 accepted" in result.summary() and "of at most 40 games" in result.summary()


def test_sprt_finishes_and_counts_the_games_in_progress() -> None:
    def slow_loser():
        def reply(board):
            time.sleep(0.02)
            return "1-50"
        return FakePlayer("slow loser", reply)

    test = SPRT(0, 400)
    result = run_match(FASTER, slow_loser, games=40, openings=[["32-28", "18-23"]],
                       progress=False, seed=1, sprt=test, concurrency=3)
    assert result.sprt_decision == "H1"
    n = len(result.games)
    assert 10 <= n <= 14 and n % 2 == 0  # no pair half played; at most 2 pairs in flight
    assert test.pairs == n // 2 and list(test.counts) == independent_pentanomial(result.games)
    assert result.wins == n and not result.errors
    # the test as it stood at the decision: the 5 won pairs that took it to the bound
    at = result.sprt_at_decision
    assert at is not None and at.counts == (0, 0, 0, 0, 5) and at.decision == "H1"
    assert "H1 accepted (elo1 = 400) after 5 pairs [0, 0, 0, 0, 5]" in result.summary()


def test_cli_sprt_stops_early_against_a_much_weaker_engine(tmp_path: Path) -> None:
    report = tmp_path / "sprt.json"
    code, stdout, stderr = run(["match", "damier:nodes=2000,hash=1", "damier:level=1,hash=1",
                                "--games", "40", "--sprt", "0", "400", "--seed", "3",
                                "--json", str(report), "--no-progress"])
    assert code == 0, stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["sprt"]["decision"] == "H1"
    assert data["games"] < 40 and data["games"] % 2 == 0 and data["scheduled"] == 40
    assert data["sprt"]["counts"] == data["pentanomial"]
    assert data["sprt"]["llr"] >= data["sprt"]["upper"] == pytest.approx(math.log(19))
    assert "SPRT LLR" in stdout and "H1 accepted" in stdout


def test_sprt_needs_game_pairs() -> None:
    with pytest.raises(ValueError, match="must be even"):
        run_match(FAST, FAST, games=5, progress=False, sprt=SPRT(0, 5))


@pytest.mark.parametrize("argv, message", [
    (["--games", "7", "--sprt", "0", "5"], "must be even, got 7"),
    (["--sprt", "5", "0"], "elo1 must be greater than elo0"),
    (["--sprt", "0", "5", "--alpha", "0.7"], "alpha must be between 0 and 0.5"),
    (["--beta", "0.1"], "--alpha and --beta are the error rates of --sprt"),
])
def test_cli_sprt_errors(argv: list[str], message: str) -> None:
    code, stdout, stderr = run(["match", FASTER, FASTER, *argv])
    assert code == 2 and message in stderr and "Traceback" not in stderr


def journal_games(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    items = [json.loads(line) for line in lines]  # every line whole
    assert items[0]["type"] == "header"
    return [item for item in items[1:] if item["type"] == "game"]


def test_resume_plays_only_the_missing_games(tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    first = run_match(NODES, FASTER, games=4, progress=False, seed=21, max_plies=60,
                      resume=journal)
    assert [g["number"] for g in journal_games(journal)] == [1, 2, 3, 4]

    stream = io.StringIO()
    pdn = tmp_path / "all.pdn"
    second = run_match(NODES, FASTER, games=8, progress=True, stream=stream, max_plies=60,
                       resume=journal, pdn_path=pdn)  # no seed: the journal's
    assert second.seed == 21 and second.resumed == 4
    played = [line for line in stream.getvalue().splitlines() if line.startswith("[")]
    assert [line.split()[1] for line in played] == ["3.1", "3.2", "4.1", "4.2"]
    assert "resuming: 4 games read back" in stream.getvalue()

    # the first four games are the journal's, the last four follow the same schedule
    # as a match of 8 games played in one go
    assert [g.moves for g in second.games[:4]] == [g.moves for g in first.games]
    fresh = run_match(NODES, FASTER, games=8, progress=False, seed=21, max_plies=60)
    assert [g.opening for g in second.games] == [g.opening for g in fresh.games]

    # the final tally is the journal's contents
    games = journal_games(journal)
    assert sorted(g["number"] for g in games) == list(range(1, 9))
    a_points = [0.5 if g["result"] == "1/2-1/2" else float((g["result"] == "1-0")
                                                            == g["a_is_white"]) for g in games]
    assert (second.wins, second.draws, second.losses) == (
        a_points.count(1.0), a_points.count(0.5), a_points.count(0.0))
    assert [g["moves"] for g in sorted(games, key=lambda g: g["number"])] == [
        g.moves for g in second.games]
    assert len(list(read_games(pdn))) == 8  # the PDN holds every game, old and new

    # once complete, running again plays nothing
    again = run_match(NODES, FASTER, games=8, progress=False, max_plies=60, resume=journal)
    assert again.resumed == 8 and len(journal_games(journal)) == 8 and not again.errors


def test_cli_resume(tmp_path: Path) -> None:
    journal = tmp_path / "cli.jsonl"
    argv = ["match", NODES, FASTER, "--seed", "5", "--max-plies", "40", "--resume",
            str(journal), "--no-progress"]
    code, stdout, stderr = run(argv + ["--games", "2"])
    assert code == 0, stderr
    code, stdout, stderr = run(argv + ["--games", "4"])
    assert code == 0, stderr
    assert "2 of them read back from" in stdout and "4 of 4 games" in stdout
    assert len(journal_games(journal)) == 4


@pytest.mark.parametrize("change, words", [
    ({"engine_b": FAST}, "engine B ('damier:depth=1,hash=1' in the journal, "
                         "'damier:depth=2,hash=1' now)"),
    ({"seed": 4}, "seed (3 in the journal, 4 now)"),
    ({"movetime": 0.05}, "time control (none in the journal, 0.05 s/move now)"),
    ({"openings": [["33-29", "17-21"]]}, "openings"),
    ({"variant": "english", "openings": [[]]}, "variant ('international' in the journal, "
                                               "'english' now)"),
    ({"max_plies": 50}, "max plies (40 in the journal, 50 now)"),
    ({"shuffle_openings": False}, "opening order"),
])
def test_resume_refuses_a_journal_of_other_settings(tmp_path: Path, change: dict,
                                                    words: str) -> None:
    journal = tmp_path / "j.jsonl"
    settings = dict(engine_b=FASTER, seed=3, openings=[["32-28", "18-23"]], max_plies=40)
    run_match(FAST, settings.pop("engine_b"), games=2, progress=False, resume=journal,
              **settings)
    before = journal.read_bytes()
    args = dict(engine_b=FASTER, seed=3, openings=[["32-28", "18-23"]], max_plies=40)
    args.update(change)
    with pytest.raises(ValueError, match="the journal was written for another match") as info:
        run_match(FAST, args.pop("engine_b"), games=4, progress=False, resume=journal, **args)
    assert words in str(info.value)
    assert journal.read_bytes() == before  # untouched


def test_resume_ignores_a_truncated_last_line(tmp_path: Path) -> None:
    journal = tmp_path / "crash.jsonl"
    run_match(NODES, FASTER, games=4, progress=False, seed=9, max_plies=40, resume=journal)
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 5
    journal.write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2], encoding="utf-8")
    stream = io.StringIO()
    result = run_match(NODES, FASTER, games=4, progress=False, stream=stream, resume=journal,
                       max_plies=40)
    assert "line 5 is incomplete" in stream.getvalue() and "ignored" in stream.getvalue()
    assert result.resumed == 3 and len(result.games) == 4 and not result.errors
    assert [g["number"] for g in journal_games(journal)] == [1, 2, 3, 4]


def test_resume_refuses_a_damaged_journal(tmp_path: Path) -> None:
    journal = tmp_path / "bad.jsonl"
    run_match(NODES, FASTER, games=2, progress=False, seed=9, max_plies=40, resume=journal)
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text(lines[0] + "{not json\n" + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(ValueError, match="line 2 is not a line of a match journal"):
        run_match(NODES, FASTER, games=2, progress=False, resume=journal, max_plies=40)
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": 1}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="not a damier match journal"):
        run_match(NODES, FASTER, games=2, progress=False, resume=other)


def test_ctrl_c_leaves_a_whole_journal_and_the_match_goes_on(tmp_path: Path) -> None:
    calls = {"games": 0}

    class Interrupting(FakePlayer):
        def new_game(self) -> None:
            calls["games"] += 1
            if calls["games"] == 3:
                _thread.interrupt_main()  # Ctrl-C during game 3
                time.sleep(0.5)

    def factory():
        return Interrupting("i", first_move)

    journal = tmp_path / "stop.jsonl"
    result = run_match(FASTER, factory, games=6, progress=False, seed=1, max_plies=20,
                       resume=journal)
    assert result.interrupted and len(result.games) == 2
    assert [g["number"] for g in journal_games(journal)] == [1, 2]
    stream = io.StringIO()
    resumed = run_match(FASTER, factory, games=6, progress=True, stream=stream, max_plies=20,
                        resume=journal)
    assert not resumed.interrupted and resumed.resumed == 2 and len(resumed.games) == 6
    played = [line for line in stream.getvalue().splitlines() if line.startswith("[")]
    assert len(played) == 4
    assert [g["number"] for g in journal_games(journal)] == [1, 2, 3, 4, 5, 6]


def test_sprt_state_comes_back_from_the_journal(tmp_path: Path) -> None:
    journal = tmp_path / "sprt.jsonl"
    openings = [["32-28", "18-23"]]
    first = run_match(FASTER, loser(), games=6, openings=openings, progress=False, seed=1,
                      sprt=SPRT(0, 400), resume=journal)
    assert first.sprt_decision is None and first.sprt.counts == (0, 0, 0, 0, 3)
    second = run_match(FASTER, loser(), games=40, openings=openings, progress=False,
                       sprt=SPRT(0, 400), resume=journal)
    # 3 pairs from the journal, then 2 more reach the bound (5 pairs: LLR 2.99 > 2.94)
    assert second.sprt_decision == "H1" and second.sprt.counts == (0, 0, 0, 0, 5)
    assert second.resumed == 6 and len(second.games) == 10
    third = run_match(FASTER, loser(), games=40, openings=openings, progress=False,
                      sprt=SPRT(0, 400), resume=journal)
    assert third.sprt_decision == "H1" and len(third.games) == 10 and third.resumed == 10


def test_sprt_decision_stands_when_the_pairs_after_it_take_the_llr_back(
        tmp_path: Path) -> None:
    """Pairs in progress when the SPRT decides are finished and counted afterwards; they
    can take the LLR back inside the bounds. The decision stands, and the report gives
    the LLR and the pairs at the decision, here read back from a journal: 5 won pairs
    (LLR 2.99, H1), then 2 lost ones (games 11-14 rewritten as A's losses)."""
    journal = tmp_path / "back.jsonl"
    openings = [["32-28", "18-23"]]
    played = run_match(FASTER, loser(), games=14, openings=openings, progress=False, seed=1,
                       resume=journal)
    assert played.wins == 14
    lines = journal.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        item = json.loads(line)
        if item["type"] == "game" and item["number"] > 10:
            item["result"] = "0-1" if item["a_is_white"] else "1-0"
            lines[i] = json.dumps(item)
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    upper = math.log(0.95 / 0.05)
    assert llr([0, 0, 0, 0, 5], 0, 400) >= upper > llr([2, 0, 0, 0, 5], 0, 400)

    report = read_journal(journal, sprt=SPRT(0, 400))
    assert report.sprt.counts == (2, 0, 0, 0, 5) and report.sprt.decision is None
    assert report.sprt_decision == "H1"
    assert report.sprt_at_decision is not None
    assert report.sprt_at_decision.counts == (0, 0, 0, 0, 5)
    text = report.summary()
    assert "H1 accepted (elo1 = 400) after 5 pairs [0, 0, 0, 0, 5]" in text
    assert f"LLR {report.sprt_at_decision.llr:.2f} (-2.94, 2.94)" in text
    assert (f"with the 2 pairs finished after the decision: LLR {report.sprt.llr:.2f} "
            "over 7 pairs (the decision stands)") in text
    data = report.to_dict()["sprt"]
    assert data["decision"] == "H1" and data["counts"] == [2, 0, 0, 0, 5]
    assert data["at_decision"]["pairs"] == 5 and data["at_decision"]["counts"] == [0, 0, 0, 0, 5]
    assert data["at_decision"]["llr"] >= upper > data["llr"]

    # resumed, the match knows it was decided: no new pair is played
    resumed = run_match(FASTER, loser(), games=40, openings=openings, progress=False,
                        sprt=SPRT(0, 400), resume=journal)
    assert resumed.sprt_decision == "H1" and len(resumed.games) == 14 and not resumed.errors
    assert resumed.sprt_at_decision is not None and resumed.sprt_at_decision.pairs == 5

    code, stdout, stderr = run(["match", "--report", str(journal), "--sprt", "0", "400"])
    assert code == 0, stderr
    assert "H1 accepted (elo1 = 400) after 5 pairs" in stdout and "over 7 pairs" in stdout


def test_report_of_a_journal_gives_the_figures_of_the_match_that_wrote_it(
        tmp_path: Path) -> None:
    """``damier match --report FILE`` plays nothing and gives the tally, the Elo and
    the SPRT of the games the journal holds: the same figures as the match itself."""
    journal = tmp_path / "r.jsonl"
    openings = [["32-28", "18-23"], ["33-29", "17-21"]]
    played = run_match(FASTER, loser(), games=6, openings=openings, progress=False, seed=2,
                       sprt=SPRT(0, 400), resume=journal)
    before = journal.read_bytes()
    report = read_journal(journal, sprt=SPRT(0, 400))
    assert journal.read_bytes() == before                    # read, not written
    assert (report.wins, report.draws, report.losses) == (played.wins, played.draws,
                                                          played.losses)
    assert report.pentanomial == played.pentanomial == (0, 0, 0, 0, 3)
    assert report.sprt.counts == played.sprt.counts and report.sprt_decision is None
    assert report.engine_a == played.engine_a and report.engine_b == played.engine_b
    assert [g.moves for g in report.games] == [g.moves for g in played.games]
    assert report.seed == 2 and not report.errors

    code, stdout, stderr = run(["match", "--report", str(journal), "--sprt", "0", "400"])
    assert code == 0, stderr
    assert f"{played.engine_a} vs {played.engine_b}: 6 games" in stdout
    assert "6 of them read back from" in stdout
    assert "pairs [LL, LD, DD+WL, WD, WW]: [0, 0, 0, 0, 3]" in stdout
    assert f"SPRT {played.sprt.summary()}: no decision" in stdout
    # an odd --games is no error here: nothing is played
    out = tmp_path / "r.json"
    code, stdout, _ = run(["match", "--report", str(journal), "--games", "7", "--json",
                           str(out)])
    assert code == 0 and "SPRT" not in stdout and "+6 =0 -0" in stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["games"] == 6 and data["scheduled"] is None   # the journal does not say


@pytest.mark.parametrize("argv, message", [
    (["--report", "{missing}"], "--report: {missing}: no such match journal"),
    (["--report", "{empty}"], "is empty: no match journal"),
    (["--report", "{other}"], "is not a damier match journal"),
    (["--report", "{garbage}"], "is not a damier match journal"),
    ([FASTER, FASTER, "--report", "{empty}"], "--report reads the games of a journal: "
                                               "give no engines"),
    ([FASTER], "give engines A and B (or --report FILE"),
    ([], "give engines A and B (or --report FILE"),
])
def test_cli_report_errors(argv: list[str], message: str, tmp_path: Path) -> None:
    files = {"missing": tmp_path / "none.jsonl", "empty": tmp_path / "empty.jsonl",
             "other": tmp_path / "other.jsonl", "garbage": tmp_path / "garbage.jsonl"}
    files["empty"].write_text("", encoding="utf-8")
    files["other"].write_text('{"hello": 1}\n', encoding="utf-8")
    files["garbage"].write_text("hello\n", encoding="utf-8")
    names = {k: str(v) for k, v in files.items()}
    code, stdout, stderr = run(["match", *(a.format(**names) for a in argv)])
    assert code == 2 and message.format(**names) in stderr, stderr
    assert "Traceback" not in stderr and stdout == ""


@pytest.mark.parametrize("variant", list(damier.VARIANTS))
def test_the_engine_plays_every_variant_against_itself(variant: str, tmp_path: Path) -> None:
    """Two damier engines (fixed nodes, so the games are the same on any machine) play a
    pair of games in every variant: no illegal move, no crash, every game ended by the
    variant's own rules or the length limit, and the PDN reads back to the same ends."""
    out = tmp_path / "games.pdn"
    result = run_match("damier:nodes=400", "damier:nodes=400", games=2, variant=variant,
                       openings=[[]], progress=False, seed=3, pdn_path=out, max_plies=160)
    assert len(result.games) == 2
    for game in result.games:
        assert game.termination in ("normal", "adjudication"), (game.termination, game.reason)
        assert "illegal" not in game.reason
    back = list(read_games(out))
    assert [g.variant.name for g in back] == [variant, variant]
    for game, record in zip(back, result.games, strict=True):
        board = game.end().board()
        assert board.ply == record.plies
        if record.termination == "normal":
            assert board.outcome() is not None
