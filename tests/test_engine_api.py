"""The python-chess style engine API (``damier.engine``): ``Limit``, ``PovScore``,
``PlayResult``/``InfoDict``, the ``analysis()`` handle and its latched stop, multi-PV
under time and node limits, and ``HubEngine`` answering with the same types
(driving ``python -m damier hub``).

Every wait is bounded: a broken stop fails a test, it never hangs the suite."""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import damier
from damier import BLACK, WHITE, Board, Move
from damier._core import SearchCore
from damier.engine import (MATE_SCORE, AnalysisComplete, AnalysisResult, Clock, Engine, InfoDict,
                           Limit, PlayResult, SearchResult)
from damier.hub import HubEngine, parse_hub_move, parse_line, score_from_hub
from damier.hub_server import HubServer, hub_score
from damier.score import Cm, Loss, PovScore, Score, Win

WAIT = 5.0  # seconds: the bound of any single wait in these tests
MIDGAME = "W:W27,28,32,37,38,43:B13,17,18,19,22,23"


def collect(handle: AnalysisResult, seconds: float = WAIT) -> list[InfoDict]:
    """Every info of ``handle`` until its end; fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    infos = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            handle.stop()
            raise AssertionError(f"the analysis did not end within {seconds} s")
        try:
            infos.append(handle.get(timeout=remaining))
        except AnalysisComplete:
            return infos


def assert_line(board: Board, pv: list[Move]) -> None:
    """``pv`` is a sequence of legal moves from ``board``."""
    after = board.copy()
    for move in pv:
        assert move in after.legal_moves, (board.fen(), pv)
        after.push(move)


# -- 1. multi-PV under a time or node limit: N lines of one depth -----------------------------


def test_multipv_under_movetime_gives_every_line_the_same_depth() -> None:
    board = Board()
    lines = Engine(hash_mb=16).search_lines(board, multipv=3, movetime=0.6)
    assert len(lines) == 3
    assert len({line.depth for line in lines}) == 1, [line.depth for line in lines]
    assert lines[0].depth >= 4
    assert all(len(line.pv) >= 2 for line in lines), [line.pv for line in lines]
    assert len({line.best_move for line in lines}) == 3
    assert [line.score for line in lines] == sorted((line.score for line in lines), reverse=True)
    for line in lines:
        assert_line(board, line.pv)


def test_multipv_under_a_node_limit_gives_n_lines() -> None:
    board = Board()
    lines = Engine(hash_mb=16).search_lines(board, multipv=3, nodes=300_000)
    assert len(lines) == 3
    assert len({line.depth for line in lines}) == 1, [line.depth for line in lines]
    assert lines[0].depth >= 4
    assert all(len(line.pv) >= 2 for line in lines)


def test_multipv_with_a_limit_object() -> None:
    board = Board(MIDGAME)
    infos = Engine(hash_mb=16).analyse(board, Limit(time=0.4), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    assert len({info["depth"] for info in infos}) == 1
    assert infos[0]["score"].relative >= infos[1]["score"].relative >= infos[2]["score"].relative
    for info in infos:
        assert_line(board, info["pv"])


def test_multipv_reports_every_line_of_every_depth() -> None:
    seen: list[tuple[int, int]] = []
    Engine(hash_mb=8).search_lines(Board(), multipv=2, depth=4,
                              info=lambda i: seen.append((i.depth, i.multipv)))
    assert seen == [(d, k) for d in range(1, 5) for k in (1, 2)]


# -- 2. play / analyse in the python-chess style --------------------------------------------


def test_play_returns_a_play_result() -> None:
    board = Board(MIDGAME)
    result = Engine(hash_mb=8).play(board, Limit(depth=5))
    assert isinstance(result, PlayResult)
    assert result.move in board.legal_moves
    info = result.info
    assert info["depth"] == 5 and info["pv"][0] == result.move
    assert result.ponder == (info["pv"][1] if len(info["pv"]) > 1 else None)
    assert isinstance(info["score"], PovScore) and info["score"].turn == board.turn
    assert info["nodes"] > 0 and info["time"] >= 0 and info["nps"] >= 0
    assert_line(board, info["pv"])


def test_analyse_forms() -> None:
    engine = Engine(hash_mb=8)
    board = Board()
    info = engine.analyse(board, Limit(depth=3))
    assert isinstance(info, dict) and info["depth"] == 3 and info["multipv"] == 1
    one = engine.analyse(board, Limit(depth=3), multipv=1)
    assert isinstance(one, list) and len(one) == 1
    old = engine.search_lines(board, multipv=2, depth=3)
    assert all(isinstance(r, SearchResult) for r in old) and len(old) == 2
    with pytest.raises(TypeError, match="not both"):
        engine.analyse(board, Limit(depth=3), depth=3)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="Limit"):
        engine.play(board, 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="multipv"):
        engine.analyse(board, Limit(depth=3), multipv=0)


def test_play_with_a_clock() -> None:
    board = Board()
    start = time.monotonic()
    result = Engine(hash_mb=8).play(board, Limit(clock=Clock(2.0, 2.0)))
    assert time.monotonic() - start < 1.5
    assert result.move in board.legal_moves


# -- 3. the analysis handle, in-process ------------------------------------------------------


def test_analysis_streams_infos_and_stops_on_request() -> None:
    engine = Engine(hash_mb=16)
    board = Board()
    with engine.analysis(board) as analysis:
        infos = [analysis.get(timeout=WAIT) for _ in range(4)]
        assert [info["depth"] for info in infos] == [1, 2, 3, 4]
        assert not analysis.done
        asked = time.monotonic()
        analysis.stop()
        result = analysis.wait(timeout=WAIT)
        assert time.monotonic() - asked < 0.5
    assert analysis.done and result.move in board.legal_moves
    rest = collect(analysis)
    assert all(info["depth"] >= 4 for info in rest)
    assert analysis.info["depth"] == result.info["depth"] >= 4
    assert analysis.next(timeout=0.1) is None
    with pytest.raises(AnalysisComplete):
        analysis.get(timeout=0.1)


def test_analysis_with_a_limit_ends_by_itself() -> None:
    board = Board(MIDGAME)
    analysis = Engine(hash_mb=8).analysis(board, Limit(depth=4), multipv=2)
    infos = collect(analysis)
    assert [(i["depth"], i["multipv"]) for i in infos] == [(d, k) for d in range(1, 5)
                                                           for k in (1, 2)]
    result = analysis.wait(timeout=WAIT)
    lines = analysis.multipv
    assert [line["multipv"] for line in lines] == [1, 2]
    assert {line["depth"] for line in lines} == {4}
    assert result.move == lines[0]["pv"][0]
    assert analysis.info == lines[0]


def test_analysis_copies_the_board() -> None:
    board = Board()
    analysis = Engine(hash_mb=4).analysis(board, Limit(depth=3))
    board.push("32-28")
    assert analysis.wait(timeout=WAIT).move in Board().legal_moves


def test_think_plays_in_the_background() -> None:
    board = Board(MIDGAME)
    handle = Engine(hash_mb=8, level=3).think(board, Limit(depth=6))
    result = handle.wait(timeout=WAIT)
    assert result.move in board.legal_moves and result.info["depth"] <= 3


# -- 4. the latched stop ---------------------------------------------------------------------


class _SlowStart(SearchCore):
    """The compiled core, with a ``new_search`` that waits for ``go`` first: a stop
    sent meanwhile used to be cleared by ``new_search``."""

    def __init__(self, hash_mb: int) -> None:
        self.entered = threading.Event()
        self.go = threading.Event()

    def new_search(self, *args: Any) -> int:
        self.entered.set()
        assert self.go.wait(WAIT)
        return super().new_search(*args)


def _slow_engine(**kwargs: Any) -> tuple[Engine, _SlowStart]:
    engine = Engine(**kwargs)
    slow = _SlowStart(engine.hash_mb)
    engine._core = slow
    return engine, slow


@pytest.mark.parametrize("how", ["handle", "engine"])
def test_a_stop_before_the_search_starts_is_not_lost(how: str) -> None:
    engine, slow = _slow_engine(hash_mb=4)
    board = Board()
    analysis = engine.analysis(board)  # no limit: only a stop ends it
    assert slow.entered.wait(WAIT)
    (analysis.stop if how == "handle" else engine.stop)()
    slow.go.set()  # now new_search runs, and clears the core's stop flag
    result = analysis.wait(timeout=2.0)
    assert result.move in board.legal_moves


class _Lines:
    """stdin and stdout of a HubServer in a thread: lines in, lines out (bounded waits)."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[str] = queue.Queue()
        self.outbox: queue.Queue[str] = queue.Queue()
        self.buffer = ""

    def readline(self, size: int = -1) -> str:
        return self.inbox.get()

    def write(self, text: str) -> int:
        self.buffer += text
        while "\n" in self.buffer:
            line, self.buffer = self.buffer.split("\n", 1)
            self.outbox.put(line)
        return len(text)

    def flush(self) -> None:
        pass

    def until(self, command: str) -> str:
        deadline = time.monotonic() + WAIT
        while True:
            line = self.outbox.get(timeout=max(0.01, deadline - time.monotonic()))
            if parse_line(line).command == command:
                return line


def test_damier_hub_latches_a_stop_that_comes_before_the_search_starts() -> None:
    slow: list[_SlowStart] = []

    def factory(**kwargs: Any) -> Engine:
        engine, core = _slow_engine(**kwargs)
        slow.append(core)
        return engine

    io = _Lines()
    server = HubServer(io, io, engine_factory=factory)  # type: ignore[arg-type]
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        io.inbox.put("hub\n")
        io.until("wait")
        io.inbox.put("set-param name=hash value=4\n")
        io.inbox.put("init\n")
        io.until("ready")
        io.inbox.put("pos start\n")
        io.inbox.put("level infinite\n")
        io.inbox.put("go think\n")
        assert slow[0].entered.wait(WAIT)
        io.inbox.put("stop\n")
        io.inbox.put("ping\n")
        io.until("pong")       # the stop has been handled...
        slow[0].go.set()       # ...before the search really starts
        done = io.until("done")
        assert parse_hub_move(parse_line(done).args["move"], Board()) in Board().legal_moves
    finally:
        if slow:
            slow[0].go.set()
        io.inbox.put("quit\n")
        thread.join(WAIT)
    assert not thread.is_alive()


def test_a_stop_while_queued_behind_another_search_is_not_lost() -> None:
    engine = Engine(hash_mb=4)
    board = Board()
    first = engine.analysis(board)
    first.get(timeout=WAIT)
    second = engine.analysis(board)  # waits for the first to end
    second.stop()
    first.stop()
    first.wait(timeout=WAIT)
    second.wait(timeout=2.0)
    # engine.stop() also reaches a search() call still waiting for the engine
    first = engine.analysis(board)
    first.get(timeout=WAIT)
    outcome: list[SearchResult] = []
    waiter = threading.Thread(target=lambda: outcome.append(engine.search(board, infinite=True)),
                              daemon=True)
    waiter.start()
    deadline = time.monotonic() + WAIT
    while len(engine._tickets) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    engine.stop()
    first.wait(timeout=WAIT)
    waiter.join(2.0)
    assert not waiter.is_alive() and outcome[0].best_move in board.legal_moves


def test_a_stop_does_not_reach_later_searches() -> None:
    engine = Engine(hash_mb=4)
    board = Board()
    analysis = engine.analysis(board, Limit(depth=3))
    analysis.wait(timeout=WAIT)
    analysis.stop()  # after the end: nothing to stop
    engine.stop()    # no search asked for: nothing to latch
    assert engine.search(board, depth=4).depth == 4
    assert engine.analysis(board, Limit(depth=4)).wait(timeout=WAIT).info["depth"] == 4


def test_stop_right_after_starting_returns_promptly() -> None:
    engine = Engine(hash_mb=4)
    for _ in range(20):
        analysis = engine.analysis(Board())
        analysis.stop()
        assert analysis.wait(timeout=2.0).move in Board().legal_moves


def test_analysis_errors_reach_wait() -> None:
    engine = Engine(hash_mb=4)
    with pytest.raises(TypeError):
        engine.analysis("not a board")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        engine.analysis(Board(), 5)  # type: ignore[arg-type]


# -- 5. scores -------------------------------------------------------------------------------


def test_pov_score_conversions() -> None:
    score = PovScore(Cm(35), BLACK)
    assert score.relative == Cm(35) and score.turn == BLACK
    assert score.white() == Cm(-35) and score.black() == Cm(35)
    assert score.pov(WHITE) == Cm(-35) and score.pov(BLACK) == Cm(35)
    assert -score == PovScore(Cm(-35), WHITE) == score  # the same score, seen from White
    win = PovScore(Win(7), WHITE)
    assert win.black() == Loss(7) and win.white().win_in() == 7 and win.black().loss_in() == 7
    assert win.is_decisive() and not score.is_decisive()
    assert str(win) == "win in 7" and str(score.white()) == "-0.35"


def test_score_order_and_engine_numbers() -> None:
    ordered = [Loss(0), Loss(1), Loss(9), Cm(-500), Cm(0), Cm(30), Win(11), Win(2), Win(0)]
    assert sorted(reversed(ordered)) == ordered
    assert all(a < b for a, b in zip(ordered, ordered[1:], strict=False))
    for value in (0, 35, -120, MATE_SCORE - 7, -MATE_SCORE + 4, -MATE_SCORE):
        assert Score.from_engine(value).score(win_score=MATE_SCORE) == value
    assert Win(3).score() is None and Cm(12).score(win_score=100) == 12
    minus_five = -Cm(5)
    assert -Win(0) == Loss(0) and -minus_five == Cm(5)
    assert Cm(5) != Win(5) and hash(Cm(5)) == hash(Cm(5))  # type: ignore[comparison-overlap]


def test_score_reprs_round_trip() -> None:
    for item in (Cm(35), Cm(-2), Win(7), Loss(0), PovScore(Win(3), BLACK), PovScore(Cm(0), WHITE)):
        assert eval(repr(item)) == item, repr(item)  # noqa: S307 - our own reprs


def test_hub_scores_round_trip() -> None:
    for value in (0, 35, -120, MATE_SCORE - 7, -MATE_SCORE + 4):
        assert score_from_hub(hub_score(value)) == Score.from_engine(value)


# -- 6. limits -------------------------------------------------------------------------------


def test_limit_repr_round_trips() -> None:
    for limit in (Limit(), Limit(depth=8), Limit(nodes=10_000, time=0.25),
                  Limit(depth=3, clock=Clock(60, 59.5, 1, 1, moves_to_go=20))):
        assert eval(repr(limit)) == limit, repr(limit)  # noqa: S307 - our own reprs
    assert repr(Limit(time=1)) == "Limit(time=1.0)"
    assert repr(Limit()) == "Limit()"


@pytest.mark.parametrize("kwargs, message", [
    ({"depth": 0}, "depth must be a whole number from 1 to 80, got 0"),
    ({"depth": True}, "depth must be"),
    ({"nodes": 2 ** 63}, "nodes must be"),
    ({"time": float("nan")}, "time must be a finite number of seconds > 0, got nan"),
    ({"time": -1}, "time must be"),
    ({"time": "1"}, "time must be"),
    ({"clock": 60}, "clock must be a damier.engine.Clock"),
])
def test_limit_validation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        Limit(**kwargs)


def test_limit_is_frozen_and_compares() -> None:
    assert Limit(depth=3) == Limit(depth=3) != Limit(depth=4)
    with pytest.raises(AttributeError):
        Limit().depth = 3  # type: ignore[misc]


# -- 7. HubEngine driving `damier hub`: the same types ---------------------------------------


def _damier_env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(damier.__file__).resolve().parents[1])
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


@pytest.fixture(scope="module")
def hub_engine() -> Any:
    with HubEngine([sys.executable, "-m", "damier", "hub"], env=_damier_env(), timeout=WAIT,
                   options={"hash": 8}) as engine:
        yield engine


def _check_info(board: Board, info: InfoDict) -> None:
    assert isinstance(info["depth"], int) and isinstance(info["nodes"], int)
    assert isinstance(info["score"], PovScore) and info["score"].turn == board.turn
    assert isinstance(info["time"], float) and isinstance(info["nps"], int)
    assert info["pv"] and all(isinstance(m, Move) for m in info["pv"])
    assert_line(board, info["pv"])


def test_hub_engine_and_engine_answer_the_same_types(hub_engine: HubEngine) -> None:
    board = Board(MIDGAME)
    engine = Engine(hash_mb=8)
    hub_engine.new_game()  # an empty hash table on both sides: the same search
    mine, theirs = engine.play(board, Limit(depth=5)), hub_engine.play(board, Limit(depth=5))
    for result in (mine, theirs):
        assert type(result) is PlayResult and result.move in board.legal_moves
        _check_info(board, result.info)
        assert result.info["pv"][0] == result.move
        if result.ponder is not None:
            assert result.ponder == result.info["pv"][1]
    # the same search, seen through the Hub protocol: the same move and score
    assert theirs.move == mine.move and theirs.info["score"] == mine.info["score"]
    assert theirs.info["depth"] == mine.info["depth"] == 5
    info = hub_engine.analyse(board, Limit(depth=4))
    _check_info(board, info)
    assert info["depth"] == 4
    lines = hub_engine.analyse(board, Limit(depth=3), multipv=1)
    assert isinstance(lines, list) and len(lines) == 1 and lines[0]["depth"] == 3
    with pytest.raises(ValueError, match="multipv"):
        hub_engine.analyse(board, Limit(depth=3), multipv=2)


def test_hub_analysis_streams_and_stops(hub_engine: HubEngine) -> None:
    board = Board()
    with hub_engine.analysis(board) as analysis:   # level infinite: only a stop ends it
        infos = [analysis.get(timeout=WAIT) for _ in range(3)]
        assert [info["depth"] for info in infos] == [1, 2, 3]
        for info in infos:
            _check_info(board, info)
        asked = time.monotonic()
        analysis.stop()
        result = analysis.wait(timeout=WAIT)
        assert time.monotonic() - asked < 1.0
    assert result.move in board.legal_moves
    collect(analysis)
    assert hub_engine.ping() < WAIT  # the conversation is in step


def test_hub_analysis_stop_before_go_is_latched(hub_engine: HubEngine) -> None:
    board = Board()
    for _ in range(3):
        analysis = hub_engine.analysis(board)
        analysis.stop()   # before (or just after) `go analyze` is sent
        assert analysis.wait(timeout=2.0).move in board.legal_moves
    analysis = hub_engine.analysis(board, Limit(depth=3))
    infos = collect(analysis)
    assert [info["depth"] for info in infos] == [1, 2, 3]
    hub_engine.stop()  # nothing running: harmless
    assert hub_engine.play(board, Limit(depth=2)).move in board.legal_moves


def test_hub_engine_stop_ends_its_analysis(hub_engine: HubEngine) -> None:
    analysis = hub_engine.analysis(Board())
    analysis.get(timeout=WAIT)
    hub_engine.stop()
    assert analysis.wait(timeout=2.0).move in Board().legal_moves


def test_async_engine_plays_analyses_and_streams_without_blocking_the_loop():
    import asyncio

    from damier.engine import AsyncEngine

    async def main():
        engine = AsyncEngine(Engine(hash_mb=4))
        board = Board()
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        tick_task = asyncio.create_task(ticker())
        played = await engine.play(board, Limit(time=0.3))
        assert played.move in board.legal_moves
        assert ticks >= 10          # the loop ran while the engine thought
        infos = await engine.analyse(board, Limit(depth=5), multipv=2)
        assert len(infos) == 2 and {i["depth"] for i in infos} == {5}
        seen = []
        async with engine.analysis(board) as analysis:   # no limit: until stopped
            async for info in analysis:
                seen.append(info.get("depth", 0))
                if info.get("depth", 0) >= 6:
                    analysis.stop()
        result = await asyncio.wait_for(analysis.wait(), 10)
        tick_task.cancel()
        return seen, result

    seen, result = asyncio.run(main())
    assert max(seen) >= 6 and result.move in Board().legal_moves


def test_analyse_has_one_form_and_the_keyword_form_is_search_lines():
    # Each form from a fresh engine: with a table left warm by the search before, two lines
    # of equal score may come in the other order.
    board = Board()
    with pytest.warns(DeprecationWarning, match="search_lines"):
        old = Engine(hash_mb=1).analyse(board, multipv=2, depth=3)   # type: ignore[call-overload]
    new = Engine(hash_mb=1).search_lines(board, 2, depth=3)
    assert [(r.best_move, r.score) for r in old] == [(r.best_move, r.score) for r in new]
    infos = Engine(hash_mb=1).analyse(board, Limit(depth=3), multipv=2)
    assert [i["pv"][0] for i in infos] == [r.best_move for r in new]
