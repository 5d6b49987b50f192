"""Search limits that must be refused, searches that must end, and matches that
must not keep every game in memory.

Every call that could hang on a bad limit runs under a time bound, so that a
regression fails instead of blocking the test run.
"""

from __future__ import annotations

import gc
import io
import math
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import damier
from damier.engine import INFINITE_DEPTH, MAX_NODES, Clock, Engine
from damier.hub import HubEngine, parse_line, parse_hub_move
from damier.hub_server import DEFAULT_MOVETIME, HubServer
from damier.match import (EngineSpecError, MatchGame, parse_clock, parse_engine_spec,
                          run_match)
from damier.pdn import Game, GameNode, read_games

BOUND = 20.0  # seconds: far more than any call here needs, far less than a hang
START = "W" + "b" * 20 + "e" * 10 + "w" * 20
SRC = Path(damier.__file__).resolve().parents[1]


def bounded(engine: Engine, call, timeout: float = BOUND):
    """``call()`` in a thread; returns ``("ok", value)`` or ``("raised", exc)``.
    Fails (after stopping the engine) if it does not come back in ``timeout``."""
    box: queue.Queue = queue.Queue()

    def target() -> None:
        try:
            box.put(("ok", call()))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box.put(("raised", exc))

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    try:
        return box.get(timeout=timeout)
    except queue.Empty:
        engine.stop()
        thread.join(5)
        raise AssertionError(f"the call did not return within {timeout} s") from None


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(hash_mb=4)


# -- the engine ---------------------------------------------------------------------------


BAD_LIMITS = [
    ("movetime", math.nan, "movetime must be a finite number of seconds > 0, got nan"),
    ("movetime", math.inf, "movetime must be a finite number of seconds > 0, got inf"),
    ("movetime", -math.inf, "got -inf"),
    ("movetime", 0, "movetime must be a finite number of seconds > 0, got 0"),
    ("movetime", -0.5, "got -0.5"),
    ("movetime", "1", "movetime must be a finite number of seconds > 0, got '1'"),
    ("movetime", True, "got True"),
    ("movetime", 10 ** 400, "movetime must be a finite number"),
    ("nodes", 10 ** 30, f"nodes must be a whole number from 1 to {MAX_NODES}, got {10 ** 30}"),
    ("nodes", 0, "nodes must be a whole number from 1 to"),
    ("nodes", -3, "got -3"),
    ("nodes", 100.0, "got 100.0"),
    ("nodes", math.nan, "got nan"),
    ("nodes", True, "got True"),
    ("nodes", "100", "got '100'"),
    ("depth", 0, f"depth must be a whole number from 1 to {INFINITE_DEPTH}, got 0"),
    ("depth", INFINITE_DEPTH + 1, f"got {INFINITE_DEPTH + 1}"),
    ("depth", 10 ** 30, f"got {10 ** 30}"),
    ("depth", 2.5, "got 2.5"),
    ("depth", False, "got False"),
]
BAD_LIMIT_IDS = [f"{name}={value!r}"[:30] for name, value, _ in BAD_LIMITS]


@pytest.mark.parametrize("name, value, message", BAD_LIMITS, ids=BAD_LIMIT_IDS)
def test_search_rejects_bad_limits_at_once(engine, name, value, message):
    board = damier.Board()
    kind, outcome = bounded(engine, lambda: engine.search(board, **{name: value}))
    assert kind == "raised", f"search({name}={value!r}) returned {outcome!r}"
    assert isinstance(outcome, ValueError), repr(outcome)
    assert message in str(outcome)


@pytest.mark.parametrize("name, value, message", BAD_LIMITS, ids=BAD_LIMIT_IDS)
def test_analyse_rejects_bad_limits_at_once(engine, name, value, message):
    board = damier.Board()
    kind, outcome = bounded(engine, lambda: engine.search_lines(board, multipv=2, **{name: value}))
    assert kind == "raised", f"search_lines({name}={value!r}) returned {outcome!r}"
    assert isinstance(outcome, ValueError), repr(outcome)
    assert message in str(outcome)


@pytest.mark.parametrize("value", [0, -1, 2.0, True, "2", 10 ** 30])
def test_analyse_rejects_bad_multipv(engine, value):
    with pytest.raises(ValueError, match=f"multipv must be a whole number .*got {value!r}"):
        engine.search_lines(damier.Board(), multipv=value, depth=1)


def test_search_rejects_a_clock_that_is_no_clock(engine):
    with pytest.raises(ValueError, match="clock must be a damier.engine.Clock, got '60"):
        engine.search(damier.Board(), clock="60+1")


def test_limits_at_the_edges_are_accepted(engine):
    board = damier.Board()
    kind, result = bounded(engine, lambda: engine.search(board, depth=1, nodes=MAX_NODES))
    assert kind == "ok" and result.best_move in board.legal_moves
    kind, result = bounded(engine, lambda: engine.search(board, movetime=1e-9))
    assert kind == "ok" and result.best_move in board.legal_moves
    kind, result = bounded(engine, lambda: engine.search(board, nodes=1))
    assert kind == "ok" and result.best_move in board.legal_moves
    kind, results = bounded(engine, lambda: engine.search_lines(board, multipv=3, depth=2,
                                                           movetime=5.0))
    assert kind == "ok" and len(results) == 3
    # a one-move position searched to the deepest depth allowed ends at once
    forced = damier.Board("W:W28:B22,12")
    assert len(forced.legal_moves) == 1
    kind, result = bounded(engine, lambda: engine.search(forced, depth=INFINITE_DEPTH))
    assert kind == "ok" and result.best_move == forced.legal_moves[0]


@pytest.mark.parametrize("kwargs, message", [
    ({"white_time": math.nan, "black_time": 1.0}, "white_time must be a finite number of "
                                                  "seconds >= 0, got nan"),
    ({"white_time": 1.0, "black_time": math.inf}, "black_time must be a finite number of "
                                                  "seconds >= 0, got inf"),
    ({"white_time": -1.0, "black_time": 1.0}, "white_time must be a finite number of seconds "
                                              ">= 0, got -1.0"),
    ({"white_time": 1.0, "black_time": 1.0, "white_increment": math.nan},
     "white_increment must be a finite number of seconds >= 0, got nan"),
    ({"white_time": 1.0, "black_time": 1.0, "black_increment": -0.5}, "got -0.5"),
    ({"white_time": "60", "black_time": 1.0}, "white_time must be a finite number"),
    ({"white_time": True, "black_time": 1.0}, "got True"),
    ({"white_time": 10 ** 400, "black_time": 1.0}, "white_time must be a finite number"),
    ({"white_time": 1.0, "black_time": 1.0, "moves_to_go": 0}, "moves_to_go must be None or "
                                                              "a whole number from 1 to"),
    ({"white_time": 1.0, "black_time": 1.0, "moves_to_go": 10 ** 30}, f"got {10 ** 30}"),
    ({"white_time": 1.0, "black_time": 1.0, "moves_to_go": 2.5}, "got 2.5"),
])
def test_clock_rejects_bad_values(kwargs, message):
    with pytest.raises(ValueError) as info:
        Clock(**kwargs)
    assert message in str(info.value)


def test_clock_with_huge_but_finite_times_still_ends(engine):
    clock = Clock(1e300, 1e300, 0.0, 0.0, 10 ** 6)
    soft, hard = clock.budget(True)
    assert math.isfinite(soft) and math.isfinite(hard)
    board = damier.Board()
    kind, result = bounded(engine, lambda: engine.search(board, clock=clock, nodes=2000))
    assert kind == "ok" and result.best_move in board.legal_moves
    assert Clock(0, 0).budget(False) == (0.01, 0.02)  # a flagged clock still moves at once


# -- damier match's limits ---------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["damier:nodes=" + "9" * 30, "damier:nodes=0",
                                  "damier:movetime=nan", "damier:movetime=inf",
                                  "damier:depth=81"])
def test_match_specs_reject_limits_the_engine_would_refuse(spec):
    with pytest.raises(EngineSpecError, match="bad engine spec"):
        parse_engine_spec(spec)


@pytest.mark.parametrize("movetime", [math.inf, math.nan, 0, -1])
def test_run_match_rejects_a_bad_movetime(movetime):
    with pytest.raises(ValueError, match="movetime must be a finite number of seconds > 0"):
        run_match("damier:depth=1,hash=1", "damier:depth=1,hash=1", games=2,
                  movetime=movetime, progress=False)


@pytest.mark.parametrize("text", ["9" * 400, "1+" + "9" * 400, "9" * 400 + "/60"],
                         ids=["time", "increment", "moves"])
def test_parse_clock_rejects_overflowing_numbers(text):
    with pytest.raises(ValueError, match="bad clock"):
        parse_clock(text)


# -- the Hub server ----------------------------------------------------------------------------


class _Input:
    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()

    def readline(self, size: int = -1) -> str:
        return self.lines.get()


class _Output(io.TextIOBase):
    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.all: list[str] = []
        self.buffer = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.buffer += text
        while "\n" in self.buffer:
            line, self.buffer = self.buffer.split("\n", 1)
            self.all.append(line)
            self.lines.put(line)
        return len(text)


class HubSession:
    """The Hub server in a thread; every wait is bounded."""

    def __init__(self) -> None:
        self.stdin = _Input()
        self.stdout = _Output()
        self.server = HubServer(self.stdin, self.stdout)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def send(self, *lines: str) -> None:
        for line in lines:
            self.stdin.lines.put(line + "\n")

    def until(self, command: str, timeout: float = BOUND) -> list[str]:
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            try:
                line = self.stdout.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {command!r} within {timeout} s; so far: "
                                     f"{self.stdout.all}") from None
            lines.append(line)
            if parse_line(line).command == command:
                return lines

    def sync(self) -> list[str]:
        self.send("ping")
        return self.until("pong")[:-1]

    def close(self) -> None:
        if self.thread.is_alive():
            self.stdin.lines.put("")  # end of input: stops any search, then the loop
            self.thread.join(BOUND)
        assert not self.thread.is_alive()


@pytest.fixture
def hub():
    session = HubSession()
    session.send("hub", "set-param name=hash value=4", "init")
    session.until("ready")
    yield session
    session.close()


BAD_LEVELS = [
    "level nodes=1e30",
    "level nodes=" + "1" + "0" * 30,
    "level nodes=" + "9" * 5000,
    "level nodes=0",
    "level depth=81",
    "level depth=" + "9" * 40,
    "level time=nan",
    "level time=inf",
    "level time=1e400",
    "level move-time=nan",
    "level move-time=-inf",
    "level move-time=0",
    "level time=60 inc=nan",
    "level time=60 moves=" + "9" * 40,
    "level time=60 moves=-1",
]


@pytest.mark.parametrize("line", BAD_LEVELS, ids=[line[6:36] for line in BAD_LEVELS])
def test_hub_level_with_a_bad_limit_is_answered_with_an_error(hub, line):
    hub.send(line)
    answers = hub.sync()
    assert len(answers) == 1, answers
    error = parse_line(answers[0])
    assert error.command == "error", answers
    message = error.args["message"]
    assert message.startswith("level: ") and len(message) < 200, message
    # the bad line changed nothing: the engine searches with the limits set before
    hub.send("pos pos=" + START, "level depth=2", "go think")
    hub.send("pos pos=" + START, line, "go think")
    lines = hub.until("done")
    lines += hub.until("done")
    assert [parse_line(x).command for x in lines].count("error") == 1, lines
    depths = [int(parse_line(x).args["depth"]) for x in lines if x.startswith("info")]
    assert max(depths) == 2
    parse_hub_move(parse_line(lines[-1]).args["move"], damier.Board())


@pytest.mark.parametrize("name", ["hash", "level", "threads", "variant"])
def test_hub_set_param_with_a_huge_value_gets_a_short_error(hub, name):
    hub.send(f"set-param name={name} value=" + "9" * 5000)
    answers = hub.sync()
    assert len(answers) == 1 and parse_line(answers[0]).command == "error", answers
    assert len(answers[0]) < 200, answers[0][:300]


def test_hub_go_think_without_any_level_ends_after_the_default_time(hub):
    hub.send("pos pos=" + START, "go think")
    start = time.monotonic()
    lines = hub.until("done")
    elapsed = time.monotonic() - start
    assert elapsed < DEFAULT_MOVETIME + 5.0
    assert not any(x.startswith("error") for x in lines), lines
    parse_hub_move(parse_line(lines[-1]).args["move"], damier.Board())


def test_hub_ponder_hit_without_any_level_ends_after_the_default_time(hub):
    hub.send("pos pos=" + START, "go ponder")
    assert parse_line(hub.until("info")[-1]).command == "info"
    hub.send("ponder-hit")
    start = time.monotonic()
    lines = hub.until("done")
    assert time.monotonic() - start < DEFAULT_MOVETIME + 5.0
    parse_hub_move(parse_line(lines[-1]).args["move"], damier.Board())


def test_damier_hub_process_go_think_without_level_ends():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-m", "damier", "hub"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("hub\ninit\npos start\ngo think\n")
        proc.stdin.flush()
        box: queue.Queue = queue.Queue()

        def reader() -> None:
            for line in proc.stdout:
                box.put(line.strip())
                if line.startswith("done"):
                    return

        threading.Thread(target=reader, daemon=True).start()
        deadline = time.monotonic() + BOUND
        seen = []
        while not (seen and seen[-1].startswith("done")):
            try:
                seen.append(box.get(timeout=max(0.01, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"no done within {BOUND} s: {seen}") from None
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=BOUND) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_hub_engine_client_rejects_non_finite_limits():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    with HubEngine([sys.executable, "-m", "damier", "hub"], env=env) as client:
        board = damier.Board()
        for kwargs in ({"movetime": math.nan}, {"movetime": math.inf}, {"nodes": 10 ** 30},
                       {"depth": 0}, {"clock": "60+1"}):
            with pytest.raises(ValueError, match=next(iter(kwargs))):
                client.search(board, **kwargs)
        result = client.search(board, depth=1)
        assert result.best_move in board.legal_moves


# -- damier match keeps no game trees ------------------------------------------------------------


def _live_game_nodes() -> int:
    gc.collect()
    return sum(1 for obj in gc.get_objects() if isinstance(obj, GameNode))


def _holds_game_nodes(root: object, limit: int = 200_000) -> bool:
    """Whether a GameNode can be reached from ``root`` (not through modules or classes)."""
    seen: set[int] = set()
    todo = [root]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, type(sys))):
            continue
        seen.add(id(obj))
        if isinstance(obj, GameNode):
            return True
        todo.extend(gc.get_referents(obj))
    return False


class _Watcher:
    """A player (the first legal move) that counts the live game nodes at each new game."""

    name = "watcher"

    def __init__(self, counts: list[int]) -> None:
        self.counts = counts

    def new_game(self) -> None:
        self.counts.append(_live_game_nodes())

    def play(self, board, *, movetime, clock):
        return min(board.legal_moves, key=lambda m: (m.from_square, m.to_square))

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.parametrize("concurrency", [1, 2])
def test_match_streams_games_and_keeps_no_game_trees(tmp_path, concurrency):
    out = tmp_path / "games.pdn"
    counts: list[int] = []
    games = 8
    before = _live_game_nodes()
    result = run_match("damier:depth=1,hash=1", lambda: _Watcher(counts), games=games,
                       openings=[["32-28", "18-23"], ["33-29", "17-21"]], progress=False,
                       seed=3, max_plies=40, pdn_path=out, concurrency=concurrency)
    assert len(result.games) == games and not result.errors
    assert len(counts) == games
    # what the match returns holds no game tree: no more nodes are alive now than
    # before the match (other tests' leftovers), although 8 games were played
    assert _live_game_nodes() <= before
    if concurrency == 1:
        # nor did any stay alive during the match: the live nodes at the start of the
        # later games are no more than at the start of the first. (With one worker,
        # no other thread builds a tree, for writing it, while the nodes are counted.)
        assert max(counts) <= counts[0], counts
    for record in result.games:
        assert isinstance(record, MatchGame)
        assert not any(isinstance(v, (Game, GameNode)) for v in vars(record).values())
    assert not _holds_game_nodes(result)
    # every game was written, in schedule order, and matches its record
    written = list(read_games(out.read_text(encoding="utf-8")))
    assert [g.headers["Round"] for g in written] == [r.round for r in result.games]
    assert [g.headers["Round"] for g in written] == [f"{k}.{i}" for k in range(1, games // 2 + 1)
                                                      for i in (1, 2)]
    for game, record in zip(written, result.games, strict=True):
        assert len(game.mainline_moves()) == record.plies == int(game.headers["PlyCount"])
        assert game.headers["Termination"] == record.termination
        assert record.headers["Result"] == game.headers["Result"]
        assert record.reason in game.end().comment
        # a record still gives its game on demand: the same one as in the file
        rebuilt = record.game
        assert isinstance(rebuilt, Game)
        assert str(rebuilt) == str(game)


@pytest.mark.parametrize("flag, value", [("--movetime", "inf"), ("--movetime", "nan"),
                                         ("--timeout", "inf"), ("--clock", "9" * 400)])
def test_cli_match_rejects_non_finite_times(flag, value):
    from damier.cli import main

    out, err = io.StringIO(), io.StringIO()
    codes: queue.Queue[int] = queue.Queue()
    argv = ["match", "damier", "damier", flag, value, "--no-progress", "--max-plies", "4"]
    # a movetime of inf used to make every move a search with no end: bounded here
    threading.Thread(target=lambda: codes.put(main(argv, out=out, err=err)),
                     daemon=True).start()
    try:
        code = codes.get(timeout=BOUND)
    except queue.Empty:
        raise AssertionError(f"damier match {flag} {value[:20]} did not return") from None
    assert code == 2 and out.getvalue() == ""
    message = err.getvalue()
    assert message.startswith("damier match: ") and flag.lstrip("-") in message
    assert len(message) < 300
