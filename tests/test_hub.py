"""The Hub protocol: syntax helpers, damier's Hub engine (``run_hub``) driven by
scripted transcripts, and the ``HubEngine`` client driving ``python -m damier
hub``, small fake engines, and ``dame hub`` when dame-rs is installed."""

from __future__ import annotations

import io
import os
import queue
import shutil
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import damier
from damier.cli import main as cli_main
from damier.engine import Clock, Engine
from damier.errors import AmbiguousMoveError, IllegalMoveError, InvalidFenError
from damier.hub import (HubEngine, HubEngineError, HubIllegalMoveError, HubSyntaxError,
                        HubTimeoutError, board_to_hub, format_line, hub_to_board, move_to_hub,
                        parse_hub_move, parse_line, quote_value)
from damier.hub_server import HubServer, hub_score, run_hub

START = "W" + "b" * 20 + "e" * 10 + "w" * 20
WAIT = 10.0  # seconds: generous upper bound for any single expected answer


# -- syntax -------------------------------------------------------------------------------


def test_parse_line_pairs_flags_and_quotes():
    msg = parse_line('info depth=21 mean-depth=20.8 score=-0.01 pv="32-28 17-22" analyze\n')
    assert msg.command == "info"
    assert msg.args == {"depth": "21", "mean-depth": "20.8", "score": "-0.01",
                        "pv": "32-28 17-22", "analyze": ""}
    assert "analyze" in msg and msg.get("missing") is None
    assert parse_line("go think").args == {"think": ""}
    assert parse_line('set-param name=book-file value=""').args["value"] == ""
    assert parse_line("pos pos = Weee").args == {"pos": "Weee"}
    assert parse_line("   ping   ").command == "ping"
    assert parse_line('id name=Scan author="Fabien Letouzey" country=France').args["author"] == \
        "Fabien Letouzey"


@pytest.mark.parametrize("line", ["", "   ", 'pos pos="Wbbb', "=5", "go =x", "level depth=",
                                  'a b"', 'level depth="3" ="x"'])
def test_parse_line_rejects_bad_syntax(line):
    with pytest.raises(HubSyntaxError):
        parse_line(line)


def test_format_line_and_quote_value_round_trip():
    line = format_line("info", [("mean-depth", 3.5)], depth=4, pv="32-28 19-23", empty="",
                       skipped=None, flag=...)
    assert line == 'info mean-depth=3.5 depth=4 pv="32-28 19-23" empty="" flag'
    assert parse_line(line).args == {"mean-depth": "3.5", "depth": "4", "pv": "32-28 19-23",
                                     "empty": "", "flag": ""}
    assert format_line("param", name="ponder", value=True) == "param name=ponder value=true"
    assert quote_value("a=b") == '"a=b"'
    with pytest.raises(ValueError):
        quote_value('say "hi"')


# -- positions and moves ------------------------------------------------------------------------


def test_board_to_hub_start_and_round_trip():
    board = damier.Board()
    assert board_to_hub(board) == START
    assert len(START) == 51
    king_board = damier.Board("B:WK4,31,K49:B7,K20,45")
    text = board_to_hub(king_board)
    assert text[0] == "B" and text[4] == "W" and text[7] == "b" and text[20] == "B"
    assert text[45] == "b" and text[49] == "W" and text[31] == "w"
    assert hub_to_board(text) == king_board
    for name in ("english", "russian", "brazilian"):
        board = damier.Board(variant=name)
        text = board_to_hub(board)
        assert len(text) == 33
        assert hub_to_board(text, name) == board


@pytest.mark.parametrize("text", ["", "W", START[:-1], START + "e", "X" + START[1:],
                                  START[:10] + "x" + START[11:], "W" + "w" * 5 + "e" * 45])
def test_hub_to_board_rejects_bad_positions(text):
    with pytest.raises(InvalidFenError):
        hub_to_board(text)


def test_move_to_hub_and_parse_hub_move():
    board = damier.Board()
    for text in ("32-28", "19-23", "28x19x23"):
        board.push(parse_hub_move(text, board))
    captures = sorted(move_to_hub(m) for m in board.legal_moves)
    assert captures == ["13x24x19", "14x23x19"]
    # A king capture: the captured squares may come in any order.
    board = damier.Board("W:WK47:B14,19,29,31,42")
    move = parse_hub_move("47x36x42x31x29x19", board)
    assert move_to_hub(move) == "47x36x19x29x31x42"
    assert board.notation(move) == "47x38x24x13x36"
    with pytest.raises(AmbiguousMoveError):
        parse_hub_move("47x36", board)
    with pytest.raises(IllegalMoveError):
        parse_hub_move("47x36x19x29x31", board)  # not all the captured pieces
    with pytest.raises(IllegalMoveError):
        parse_hub_move("32-28", damier.Board("W:W32:B28"))  # capture compulsory
    with pytest.raises(IllegalMoveError):
        parse_hub_move("hello", damier.Board())


def test_hub_score():
    assert hub_score(0) == "0.00"
    assert hub_score(250) == "2.50"
    assert hub_score(damier.engine.MATE_SCORE - 3) == "99.97"
    assert hub_score(-damier.engine.MATE_SCORE + 10) == "-99.90"


# -- the server, scripted -----------------------------------------------------------------------


class _Input:
    """A blocking stdin fed line by line from the test."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()

    def readline(self, size: int = -1) -> str:   # the test's lines are short: never cut
        return self.lines.get()


class _Output(io.TextIOBase):
    """A stdout that hands complete lines to the test and counts flushes."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.all: list[str] = []
        self.buffer = ""
        self.flushes = 0
        self.unflushed = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.buffer += text
        while "\n" in self.buffer:
            line, self.buffer = self.buffer.split("\n", 1)
            self.unflushed += 1
            self.all.append(line)
            self.lines.put(line)
        return len(text)

    def flush(self) -> None:
        self.flushes += 1
        self.unflushed = 0


class Session:
    """damier's Hub engine in a thread, with a conversation API for the tests."""

    def __init__(self, **kwargs) -> None:
        self.stdin = _Input()
        self.stdout = _Output()
        self.server = HubServer(self.stdin, self.stdout, **kwargs)
        self.status: list[int] = []
        self.thread = threading.Thread(target=lambda: self.status.append(self.server.run()),
                                       daemon=True)
        self.thread.start()

    def send(self, *lines: str) -> None:
        for line in lines:
            self.stdin.lines.put(line + "\n")

    def read(self, timeout: float = WAIT) -> str:
        try:
            return self.stdout.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no answer within {timeout} s; so far: {self.stdout.all}") from None

    def until(self, command: str, timeout: float = WAIT) -> list[str]:
        """The lines up to and including the first whose command is ``command``."""
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            line = self.read(max(0.01, deadline - time.monotonic()))
            lines.append(line)
            if parse_line(line).command == command:
                return lines

    def nothing_for(self, seconds: float) -> None:
        try:
            line = self.stdout.lines.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError(f"unexpected line {line!r}")

    def sync(self) -> list[str]:
        """Sends ping; returns the lines before the pong."""
        self.send("ping")
        return self.until("pong")[:-1]

    def quit(self) -> int:
        self.send("quit")
        self.thread.join(WAIT)
        assert not self.thread.is_alive()
        return self.status[0]

    def close(self) -> None:
        if self.thread.is_alive():
            self.stdin.lines.put("")  # end of input
            self.thread.join(WAIT)


@pytest.fixture
def session():
    s = Session()
    s.send("hub")
    s.until("wait")
    s.send("set-param name=hash value=8", "init")
    s.until("ready")
    yield s
    s.close()


def _done_move(line: str, board: damier.Board) -> damier.Move:
    msg = parse_line(line)
    assert msg.command == "done", line
    return parse_hub_move(msg.args["move"], board)


def test_handshake_declares_id_and_params():
    s = Session()
    try:
        s.send("hub")
        lines = s.until("wait")
        ident = parse_line(lines[0])
        assert ident.command == "id"
        assert ident.args["name"] == "damier" and ident.args["version"] == damier.__version__
        assert "author" in ident.args
        params = {m.args["name"]: m.args for m in map(parse_line, lines[1:-1])}
        assert params["hash"]["type"] == "int" and params["hash"]["value"] == "64"
        assert params["level"] == {"name": "level", "value": "10", "type": "int", "min": "1",
                                   "max": "10"}
        assert params["variant"]["value"] == "normal"
        assert "russian" in params["variant"]["values"].split()
        s.send("set-param name=hash value=8", "set-param name=level value=9", "init")
        assert s.until("ready") == ["ready"]
        assert s.server.engine.hash_mb == 8 and s.server.engine.level == 9
        assert s.quit() == 0
        assert s.stdout.flushes >= len(s.stdout.all) and s.stdout.unflushed == 0
    finally:
        s.close()


def test_go_think_with_depth_gives_infos_and_a_legal_move(session):
    session.send("pos pos=" + START, "level depth=4", "go think")
    lines = session.until("done")
    infos = [parse_line(line).args for line in lines[:-1]]
    assert [int(i["depth"]) for i in infos] == [1, 2, 3, 4]
    board = damier.Board()
    for info in infos:
        float(info["score"]), int(info["nodes"]), float(info["time"]), float(info["nps"])
        replay = board.copy()
        for text in info["pv"].split():  # the PV is a line of legal Hub moves
            replay.push(parse_hub_move(text, replay))
    move = _done_move(lines[-1], board)
    assert move in board.legal_moves
    ponder = parse_line(lines[-1]).args.get("ponder")
    if ponder:
        board.push(move)
        assert parse_hub_move(ponder, board) in board.legal_moves


def test_pos_with_moves_replays_the_game(session):
    session.send("pos pos=" + START + ' moves="32-28 19-23 28x19x23"')
    assert session.sync() == []
    board = session.server.board
    assert len(board.move_stack) == 3 and board.turn == damier.BLACK
    session.send("level depth=3", "go think")
    move = _done_move(session.until("done")[-1], board)
    assert move.is_capture and move.captures == (19,)
    # "pos start" and a bare "pos" set up the start position.
    session.send("pos start")
    session.sync()
    assert session.server.board == damier.Board()


def test_go_without_level_after_pos_reuses_the_last_limits(session):
    session.send("pos pos=" + START, "level depth=2", "go think")
    session.until("done")
    session.send("pos pos=" + START, "go think")
    lines = session.until("done")
    assert max(int(parse_line(x).args["depth"]) for x in lines[:-1]) == 2


def test_level_move_time_and_clock(session):
    session.send("pos pos=" + START, "level move-time=0.2", "go think")
    start = time.monotonic()
    _done_move(session.until("done")[-1], damier.Board())
    assert time.monotonic() - start < 2.0
    session.send("pos pos=" + START, "level moves=10 time=2 inc=0.1", "go think")
    start = time.monotonic()
    _done_move(session.until("done")[-1], damier.Board())
    assert time.monotonic() - start < 2.0
    session.send("pos pos=" + START, "level nodes=500", "go think")
    _done_move(session.until("done")[-1], damier.Board())


def test_go_analyze_runs_until_stop(session):
    session.send("pos pos=" + START, "level infinite", "go analyze")
    assert parse_line(session.read()).command == "info"
    time.sleep(0.3)
    session.send("stop")
    lines = session.until("done")
    assert all(parse_line(x).command == "info" for x in lines[:-1])
    _done_move(lines[-1], damier.Board())
    session.send("stop")  # no search: ignored
    assert session.sync() == []


def test_ping_is_answered_while_thinking(session):
    session.send("pos pos=" + START, "level infinite", "go think")
    assert parse_line(session.read()).command == "info"
    session.send("ping")
    lines = session.until("pong")
    assert all(parse_line(x).command == "info" for x in lines[:-1])
    assert session.server._job is not None and session.server._job.alive()
    session.send("stop")
    _done_move(session.until("done")[-1], damier.Board())


def test_ponder_waits_for_ponder_hit_then_uses_its_time(session):
    session.send("pos pos=" + START, "level move-time=0.3", "go ponder")
    time.sleep(0.8)  # longer than the move time: pondering does not count it
    lines = []
    while not session.stdout.lines.empty():
        lines.append(session.read())
    assert lines and all(parse_line(x).command == "info" for x in lines)
    hit = time.monotonic()
    session.send("ponder-hit")
    _done_move(session.until("done")[-1], damier.Board())
    elapsed = time.monotonic() - hit
    assert 0.2 <= elapsed < 3.0


def test_ponder_with_depth_stops_at_ponder_hit_once_deep_enough(session):
    session.send("pos pos=" + START, "level depth=3", "go ponder")
    session.until("info")
    time.sleep(0.3)
    session.send("ponder-hit")
    _done_move(session.until("done")[-1], damier.Board())


def test_ponder_miss_is_stopped_and_a_new_search_set_up(session):
    session.send("pos pos=" + START, "level move-time=0.2", "go ponder")
    session.until("info")
    session.send("stop")
    session.until("done")
    board = damier.Board()
    board.push("32-28")
    session.send("pos pos=" + board_to_hub(board), "level depth=2", "go think")
    _done_move(session.until("done")[-1], board)


def test_another_command_during_a_search_ends_it_first(session):
    session.send("pos pos=" + START, "level infinite", "go think")
    session.until("info")
    board = damier.Board()
    board.push("31-27")
    session.send("pos pos=" + board_to_hub(board), "level depth=2", "go think")
    first = session.until("done")
    _done_move(first[-1], damier.Board())  # the interrupted search answers for its position
    second = session.until("done")
    _done_move(second[-1], board)


def test_unknown_commands_are_ignored_even_while_searching(session):
    session.send("frobnicate now=1", "", "   ")
    assert session.sync() == []
    session.send("pos pos=" + START, "level infinite", "go think")
    session.until("info")
    session.send("frobnicate")
    session.send("ping")
    lines = session.until("pong")
    assert all(parse_line(x).command == "info" for x in lines[:-1])
    session.send("stop")
    session.until("done")


def test_new_game_and_set_param_reach_the_engine():
    calls = []

    class SpyEngine(Engine):
        def __init__(self, **kwargs):
            calls.append(("create", kwargs))
            super().__init__(**kwargs)

        def new_game(self):
            calls.append(("new_game",))
            super().new_game()

        def set_hash(self, hash_mb):
            calls.append(("set_hash", hash_mb))
            super().set_hash(hash_mb)

        def set_level(self, level):
            calls.append(("set_level", level))
            super().set_level(level)

    s = Session(engine_factory=SpyEngine)
    try:
        s.send("hub", "set-param name=hash value=4", "set-param name=level value=3", "init")
        s.until("ready")
        assert calls == [("create", {"hash_mb": 4, "level": 3})]
        s.send("new-game", "set-param name=hash value=8", "set-param name=level value=10")
        assert s.sync() == []
        assert calls[1:] == [("new_game",), ("set_hash", 8), ("set_level", 10)]
        s.send("pos start", "level depth=2", "go think")
        _done_move(s.until("done")[-1], damier.Board())
        assert s.quit() == 0
    finally:
        s.close()


def test_threads_parameter_reaches_the_engine():
    s = Session()
    try:
        s.send("hub")
        params = {m.args["name"]: m.args for m in map(parse_line, s.until("wait")[1:-1])}
        assert params["threads"] == {"name": "threads", "value": "1", "type": "int", "min": "1",
                                     "max": "64"}
        s.send("set-param name=threads value=2", "set-param name=hash value=8", "init")
        s.until("ready")
        assert s.server.engine.threads == 2
        s.send("pos start", "level depth=8", "go think")
        _done_move(s.until("done")[-1], damier.Board())
        s.send("set-param name=threads value=1")
        assert s.sync() == []
        assert s.server.engine.threads == 1
        assert s.quit() == 0
    finally:
        s.close()


def test_variant_parameter_and_8x8_positions():
    s = Session()
    try:
        s.send("hub", "set-param name=variant value=russian", "set-param name=hash value=4",
               "init")
        s.until("ready")
        board = damier.Board(variant="russian")
        board.push("c3-d4")
        reply = board.parse_move("f6-g5")
        s.send(f'pos pos={board_to_hub(board)} moves="{move_to_hub(reply)}"')
        assert s.sync() == []
        board.push(reply)
        assert s.server.board == board
        s.send("level depth=3", "go think")
        _done_move(s.until("done")[-1], board)
        s.send("set-param name=variant value=xiangqi")
        assert len(s.sync()) == 1
    finally:
        s.close()
    out = io.StringIO()
    assert run_hub(io.StringIO("hub\ninit\npos start\nlevel depth=2\ngo think\n"), out,
                   variant="english") == 0  # end of input ends the search and the loop
    lines = out.getvalue().splitlines()
    assert "value=english" in lines[1]
    _done_move(lines[-1], damier.Board(variant="english"))


@pytest.mark.parametrize("line", [
    'pos pos="Wbbb',                     # unclosed quote
    "pos pos=xyz",                        # wrong length
    "pos pos=W" + "q" * 50,               # unknown characters
    "pos pos=W" + "w" * 5 + "e" * 45,     # white men on their crowning row
    'pos moves="32-28 32-28"',            # illegal second move
    'pos moves="32-28 foo"',              # unreadable move
    "level depth=abc",
    "level depth=0",
    "level nodes=-5",
    "level move-time=-1",
    "level move-time=0",
    "level time=nan",
    "level moves=10",                     # moves= without time=
    "set-param name=hash value=abc",
    "set-param name=hash value=0",
    "set-param name=level value=11",
    "set-param name=threads value=0",
    "set-param name=threads value=two",
    "set-param name=variant value=xiangqi",
    "set-param name=unknown value=1",
    "set-param value=3",                  # no name
    "=5",
    "go think=",
    # numbers: ASCII digits, finite, at most MAX_SECONDS seconds
    "level time=1e18",
    "level time=4294967297",
    "level time=10 inc=1e300",
    "level move-time=1e400",
    "level time=inf",
    "level time=-1",
    "level depth=\u0663",                 # an Arabic-Indic 3
    "level depth=1_0",
    "level depth=-1",
    "level nodes=1e3",
    "level moves=" + "9" * 5000,
    "set-param name=hash value=\u0668",
    "set-param name=level value=1_0",
    "set-param name=threads value=\uff12",  # a fullwidth 2
])
def test_malformed_lines_get_one_error_and_the_engine_keeps_working(session, line):
    session.send(line)
    answers = session.sync()
    assert len(answers) == 1, answers
    error = parse_line(answers[0])
    assert error.command == "error" and error.args["message"]
    session.send("pos pos=" + START + ' moves="31-26"', "level depth=2", "go think")
    board = damier.Board()
    board.push("31-26")
    _done_move(session.until("done")[-1], board)


def test_numbers_with_many_leading_zeros_are_read(session):
    session.send("set-param name=level value=" + "0" * 5000 + "7",
                 "level depth=" + "0" * 5000 + "2")
    assert session.sync() == []
    assert session.server.level == 7 and session.server._pending.depth == 2


def test_error_lines_quote_long_values_short(session):
    session.send('pos moves="' + "3" * 100_000 + '"', "set-param name=" + "x" * 100_000,
                 "pos pos=W" + "e" * 100_000)
    answers = session.sync()
    assert len(answers) == 3 and all(parse_line(a).command == "error" for a in answers)
    assert all(len(a) < 400 for a in answers), [a[:400] for a in answers]


def test_a_huge_time_is_refused_and_ponder_hit_never_overflows(session, monkeypatch):
    # level time=1e18 used to be taken, and the ponder-hit's timer then died with an
    # OverflowError in its thread (a traceback on stderr, and no stop at the budget).
    crashes: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: crashes.append(args.exc_value))
    session.send("pos pos=" + START, "level time=1e18 inc=1")
    (answer,) = session.sync()
    error = parse_line(answer)
    assert error.command == "error" and "time= must be a number of seconds" in \
        error.args["message"] and "at most 4294967296" in error.args["message"]
    # The largest time taken: the ponder-hit's timer waits (some 4.5 years) without error.
    session.send("level time=4294967296", "go ponder", "ponder-hit")
    assert all(parse_line(line).command == "info" for line in session.sync())
    session.send("stop")
    board = damier.Board()
    _done_move(session.until("done")[-1], board)
    assert crashes == []


def test_go_after_a_rejected_position_answers_error_and_bare_done(session):
    session.send("pos pos=nonsense")
    assert parse_line(session.read()).command == "error"
    session.send("go think")
    assert parse_line(session.read()).command == "error"
    assert session.read() == "done"


def test_quit_and_end_of_input_end_the_loop():
    out = io.StringIO()
    assert run_hub(io.StringIO("hub\ninit\nping\nquit\nping\n"), out) == 0
    assert out.getvalue().splitlines()[-2:] == ["ready", "pong"]
    out = io.StringIO()
    assert run_hub(io.StringIO("ping"), out) == 0  # no final newline, then end of input
    assert out.getvalue() == "pong\n"


def test_quit_during_a_search_answers_done_first():
    s = Session()
    try:
        s.send("hub", "init", "pos start", "level infinite", "go think")
        s.until("info")
        s.send("quit")
        _done_move(s.until("done")[-1], damier.Board())
        s.thread.join(WAIT)
        assert not s.thread.is_alive() and s.status == [0]
    finally:
        s.close()


def test_cli_hub_subcommand(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("hub\ninit\npos start\nlevel depth=1\n"
                                                  "go think\nquit\n"))
    out = io.StringIO()
    assert cli_main(["hub", "--variant", "international"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("id name=damier") and "ready" in lines
    _done_move(lines[-1], damier.Board())
    err = io.StringIO()
    assert cli_main(["hub", "--variant", "xiangqi"], out=io.StringIO(), err=err) == 2
    assert "xiangqi" in err.getvalue()


# -- the client -------------------------------------------------------------------------------


def _damier_env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(damier.__file__).resolve().parents[1])
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


DAMIER_HUB = [sys.executable, "-m", "damier", "hub"]


def _play(engine: HubEngine, plies: int) -> damier.Board:
    board = damier.Board()
    for ply in range(plies):
        seen = []
        if ply % 2:
            result = engine.search(board, movetime=0.05, info=seen.append)
        else:
            result = engine.search(board, depth=3, info=seen.append)
        assert result.best_move in board.legal_moves
        assert result.infos == seen
        assert parse_hub_move(result.raw_move, board) == result.best_move
        if result.ponder_move is not None:
            after = board.copy()
            after.push(result.best_move)
            assert result.ponder_move in after.legal_moves
        board.push(result.best_move)
    return board


def test_hub_engine_drives_damier_hub():
    with HubEngine(DAMIER_HUB, env=_damier_env(), options={"hash": 8}) as engine:
        assert engine.name == "damier" and engine.version == damier.__version__
        assert engine.author and engine.params["hash"]["value"] == "8"
        assert set(engine.params) >= {"hash", "level", "variant"}
        assert engine.ping() < WAIT
        board = _play(engine, 6)
        assert len(board.move_stack) == 6
        result = engine.search(board, depth=3)
        assert isinstance(result.info["depth"], int) and isinstance(result.info["score"], float)
        engine.new_game()
        result = engine.search(board, clock=Clock(2.0, 2.0, 0.1, 0.1, moves_to_go=20))
        assert result.best_move in board.legal_moves
        sent = [line for line in engine.transcript if line.startswith("> ")]
        assert "> level moves=20 time=2.1 inc=0.1" in sent
        assert any(line.startswith("> pos pos=" + START + ' moves="') for line in sent)
        result = engine.search(board, depth=2, mode="analyze")
        assert result.best_move in board.legal_moves
    assert not engine.alive and engine.returncode == 0


def test_hub_engine_stop_from_another_thread():
    with HubEngine(DAMIER_HUB, env=_damier_env(), options={"hash": 8}) as engine:
        board = damier.Board()
        timer = threading.Timer(0.3, engine.stop)
        timer.start()
        start = time.monotonic()
        result = engine.search(board, depth=60, timeout=30)
        assert time.monotonic() - start < 10
        assert result.best_move in board.legal_moves


def test_damier_hub_process_survives_garbage_bytes():
    import subprocess
    proc = subprocess.run(DAMIER_HUB, input=b"\xff\xfe\x00garbage\npos pos=\xff\nping\nquit\n",
                          capture_output=True, env=_damier_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[-1] == "pong"
    assert all(line.startswith("error message=") for line in lines[:-1])


def test_hub_engine_needs_a_limit():
    with HubEngine(DAMIER_HUB, env=_damier_env()) as engine:
        with pytest.raises(ValueError):
            engine.search(damier.Board())


def _fake_engine(tmp_path: Path, body: str) -> list[str]:
    """A tiny Hub engine in Python: the handshake, then ``body`` handles a search."""
    script = tmp_path / "fake_engine.py"
    script.write_text(textwrap.dedent("""\
        import sys
        def out(line):
            sys.stdout.write(line + "\\n")
            sys.stdout.flush()
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            cmd = words[0]
            if cmd == "hub":
                out('id name=fake version=1 author="Test Author"')
                out("param name=x value=1 type=int min=0 max=9")
                out("wait")
            elif cmd == "init":
                out("ready")
            elif cmd == "ping":
                out("pong")
            elif cmd == "quit":
                break
            elif cmd == "go":
        """) + textwrap.indent(textwrap.dedent(body), " " * 8))
    return [sys.executable, str(script)]


def test_hub_engine_illegal_move_raises(tmp_path):
    command = _fake_engine(tmp_path, """\
        out("info depth=1 score=0.5")
        out("done move=32-27x12")
    """)
    with HubEngine(command, timeout=5) as engine:
        assert (engine.name, engine.version, engine.author) == ("fake", "1", "Test Author")
        assert engine.params["x"]["max"] == "9"
        with pytest.raises(HubIllegalMoveError) as info:
            engine.search(damier.Board(), depth=1)
        assert info.value.raw_move == "32-27x12"
        assert "fake" in str(info.value)
        # The engine still works after a bad answer.
        assert engine.ping() < 5


def test_hub_engine_missing_move_raises(tmp_path):
    command = _fake_engine(tmp_path, 'out("done")\n')
    with HubEngine(command, timeout=5) as engine:
        with pytest.raises(HubIllegalMoveError) as info:
            engine.search(damier.Board(), depth=1)
        assert info.value.raw_move == ""


def test_hub_engine_waits_for_a_search_of_any_length(tmp_path):
    # A time limit of 1e18 s made the wait for "done" overflow (queue.get's timeout).
    command = _fake_engine(tmp_path, """\
        out("info depth=\u0661\u0662 nodes=1_000 score=0.5 seldepth=7")
        out("done move=32-28")
    """)
    with HubEngine(command, timeout=5) as engine:
        result = engine.search(damier.Board(), movetime=1e18)
        assert result.best_move == damier.Move(32, 28)
        # numbers in other digits, or with underscores, are not read as numbers
        assert result.info == {"depth": "\u0661\u0662", "nodes": "1_000", "score": 0.5,
                               "seldepth": 7}
        with pytest.raises(ValueError, match="timeout must be a finite number of seconds > 0"):
            engine.search(damier.Board(), depth=1, timeout=float("nan"))


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), 0, -1, True, "5",
                                     pytest.param(10 ** 5000, id="5001-digits")])
def test_hub_engine_timeout_must_be_a_finite_number_of_seconds(timeout):
    with pytest.raises(ValueError, match="timeout must be a finite number of seconds > 0"):
        HubEngine(DAMIER_HUB, timeout=timeout)


def test_hub_engine_timeout_names_the_engine_and_the_wait(tmp_path):
    command = _fake_engine(tmp_path, "pass\n")  # never answers done
    with HubEngine(command, timeout=5, name="Sleepy") as engine:
        start = time.monotonic()
        with pytest.raises(HubTimeoutError) as info:
            engine.search(damier.Board(), movetime=0.1, timeout=0.3)
        assert time.monotonic() - start < 3
        assert "Sleepy" in str(info.value) and "done" in str(info.value)
        assert engine.ping() < 5  # resynchronised


def test_hub_engine_handshake_timeout(tmp_path):
    script = tmp_path / "mute.py"
    script.write_text("import sys, time\nfor line in sys.stdin:\n    pass\n")
    with pytest.raises(HubTimeoutError) as info:
        HubEngine([sys.executable, str(script)], timeout=0.5, name="Mute")
    assert "Mute" in str(info.value) and "wait" in str(info.value)


def test_hub_engine_death_reports_exit_code_and_stderr(tmp_path):
    command = _fake_engine(tmp_path, """\
        sys.stderr.write("fatal: out of cheese\\n")
        sys.stderr.flush()
        sys.exit(3)
    """)
    engine = HubEngine(command, timeout=5)
    with pytest.raises(HubEngineError) as info:
        engine.search(damier.Board(), depth=1)
    assert info.value.returncode == 3
    assert "out of cheese" in str(info.value) and "code 3" in str(info.value)
    with pytest.raises(HubEngineError):
        engine.ping()
    engine.quit()


def test_hub_engine_missing_program():
    with pytest.raises(HubEngineError):
        HubEngine(["/nonexistent/hub-engine-for-damier-tests", "hub"])


@pytest.mark.skipif(shutil.which("dame") is None, reason="dame (pip install dame-rs) not installed")
def test_hub_engine_drives_dame_hub():
    with HubEngine(["dame", "hub"], options={"hash": 8}) as engine:
        assert engine.name == "dame"
        assert engine.ping() < WAIT
        board = _play(engine, 8)
        assert len(board.move_stack) == 8


def test_a_line_longer_than_the_bound_is_refused_and_the_next_is_read():
    from damier.hub_server import MAX_LINE
    out = io.StringIO()
    huge = "pos moves=\"" + "32-28 " * (MAX_LINE // 3) + "\"\n"
    assert run_hub(io.StringIO("hub\ninit\n" + huge + "ping\n"), out) == 0
    lines = out.getvalue().splitlines()
    errors = [line for line in lines if line.startswith("error")]
    assert len(errors) == 1 and "line too long" in errors[0]
    assert lines[-1] == "pong"
