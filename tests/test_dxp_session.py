"""DXP over loopback: damier against damier (server or client, initiator or follower), a
third-party DXP client (pydraughts) playing damier to the end, ``damier dxp`` and ``damier
match ... dxp:HOST:PORT`` end to end, and a listener that survives hostile peers.

The protocol facts checked here come from the DamExchange layer 2 description: GAMEACC
codes ``0`` accepted, ``1`` wrong version, ``2`` not this game, ``3`` no more games;
GAMEEND reasons ``0`` unknown, ``1`` I lose, ``2`` draw, ``3`` I win, and stop codes ``0``
(another game is fine) and ``1``; moves alternate strictly and a GAMEEND is confirmed
with a GAMEEND.
"""

from __future__ import annotations

import io
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from damier import BLACK, WHITE, Board, Move, pdn
from damier.cli import main as cli_main
from damier.dxp import (BackAccept, BackRequest, Chat, DxpClosed, DxpConnection, DxpEngine,
                        DxpError, DxpGame, DxpListener, DxpRefused, DxpSession, DxpTimeout,
                        GameAccept, GameEnd, GameRequest, MoveMessage, engine_mover,
                        format_message, parse_message, position_of)
from damier.engine import Engine
from damier.engine_types import Clock, Limit
from damier.match import run_match


def _mover(depth: int = 2) -> Callable[[Board, Clock | None], Move | None]:
    return engine_mover(Engine(hash_mb=1), depth=depth)


class _Server:
    """A DxpListener on a free loopback port, serving in a thread."""

    def __init__(self, serve: Callable[[DxpConnection], None], connections: int | None = None,
                 max_connections: int = 4) -> None:
        self.events: list[str] = []
        self.listener = DxpListener(serve, "127.0.0.1", 0, max_connections=max_connections,
                                    on_event=self.events.append)
        self.port = self.listener.port
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(connections,), daemon=True)
        self.thread.start()

    def _run(self, connections: int | None) -> None:
        try:
            self.listener.serve_forever(connections)
        except BaseException as err:  # noqa: BLE001 - recorded for the test
            self.error = err

    def close(self) -> None:
        self.listener.close()
        self.thread.join(30)


@pytest.fixture
def servers() -> Iterator[list[_Server]]:
    made: list[_Server] = []
    yield made
    for server in made:
        server.close()


def _follower(games: list[DxpGame], **session_kwargs: Any
              ) -> Callable[[DxpConnection], None]:
    def serve(connection: DxpConnection) -> None:
        kwargs = {"name": "server", "timeout": 10.0, **session_kwargs}
        max_games = kwargs.pop("max_games", None)
        session = DxpSession(connection, _mover(), **kwargs)
        for game in session.follow(max_games=max_games, wait=10):
            games.append(game)
    return serve


def _same_game(a: DxpGame, b: DxpGame) -> None:
    """Both sides saw the same game: position, moves, result, opposite colours."""
    assert a.board.root().fen() == b.board.root().fen()
    assert list(a.board.move_stack) == list(b.board.move_stack)
    assert a.color != b.color
    assert a.result == b.result


def _board_result(board: Board) -> str:
    """The International (FMJD) result of a finished board: 2-0, 1-1, 0-2."""
    outcome = board.outcome()
    assert outcome is not None
    return "1-1" if outcome.winner is None else ("2-0" if outcome.winner == WHITE else "0-2")


# -- damier against damier ----------------------------------------------------------------------

def test_client_initiator_against_server_follower(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed, greeting="hello from the server"), connections=1)
    servers.append(server)
    with DxpConnection.connect("127.0.0.1", server.port) as connection:
        session = DxpSession(connection, _mover(), name="client", greeting="hi, client here")
        first = session.request_game(WHITE, minutes=2)
        second = session.request_game(BLACK, minutes=2, last=True)
    server.thread.join(30)
    assert len(followed) == 2
    for ours, theirs in zip((first, second), followed, strict=True):
        _same_game(ours, theirs)
        assert ours.finished and ours.board.is_game_over()
        assert ours.result == _board_result(ours.board)
        assert ours.peer == "server" and theirs.peer == "client"
        assert ("server", "hello from the server") in ours.chats
        assert ("client", "hi, client here") in theirs.chats
    assert first.color == WHITE and second.color == BLACK
    assert followed[1].stop  # the initiator said: no game after the last
    assert server.error is None


def test_server_initiator_against_client_follower(servers: list[_Server]) -> None:
    asked: list[DxpGame] = []

    def initiate(connection: DxpConnection) -> None:
        session = DxpSession(connection, _mover(), name="server")
        asked.append(session.request_game(BLACK, minutes=1, moves=20))
        asked.append(session.request_game(WHITE, minutes=1, moves=20, last=True))

    server = _Server(initiate, connections=1)
    servers.append(server)
    with DxpConnection.connect("127.0.0.1", server.port) as connection:
        followed = list(DxpSession(connection, _mover(), name="client").follow(wait=10))
    server.thread.join(30)
    assert len(followed) == 2 and len(asked) == 2
    for ours, theirs in zip(asked, followed, strict=True):
        _same_game(ours, theirs)
        assert ours.finished and ours.result == _board_result(ours.board)
        assert (ours.minutes, ours.moves) == (theirs.minutes, theirs.moves) == (1, 20)
    assert followed[0].color == WHITE  # the follower's colour of the GAMEREQ


def test_set_up_position_is_played_from(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    # A set-up position with kings, Black to move (sent as GAMEREQ "B" + side + 50 squares).
    start = Board("B:W27,28,33,K46:B12,13,18,K5")
    with DxpConnection.connect("127.0.0.1", server.port) as connection:
        session = DxpSession(connection, _mover(), name="client")
        game = session.request_game(BLACK, minutes=1, board=start, last=True)
    server.thread.join(30)
    assert followed[0].board.root().fen() == start.fen()
    assert game.board.root().turn == BLACK
    _same_game(game, followed[0])
    assert game.finished and game.result == _board_result(game.board)


def test_back_request_is_answered_and_both_sides_go_back(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    calls = []
    holder: dict[str, DxpSession] = {}
    inner = _mover()

    def mover(board: Board, clock: Clock | None) -> Move | None:
        calls.append(len(board.move_stack))
        if len(calls) == 3:  # White's third move: ask to go back to move 2, White to move
            holder["session"].ask_back(2, WHITE)
        return inner(board, clock)

    with DxpConnection.connect("127.0.0.1", server.port) as connection:
        session = DxpSession(connection, mover, name="client")
        holder["session"] = session
        game = session.request_game(WHITE, minutes=1, last=True)
    server.thread.join(30)
    # Move 2 with White to move: two plies (1. White, 1... Black) stay, so White's next
    # move is asked at ply 2 again after its moves at plies 0, 2 and 4.
    assert calls[:4] == [0, 2, 4, 2]
    assert game.back_requests == ["client asked to go back to move 2 with White to move: "
                                  "accepted"]
    assert followed[0].back_requests == ["client asked to go back to move 2 with White to "
                                         "move: accepted"]
    _same_game(game, followed[0])


def test_back_request_queued_before_a_game_is_dropped(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed, accept_back=False), connections=1)
    servers.append(server)
    with DxpConnection.connect("127.0.0.1", server.port) as connection:
        session = DxpSession(connection, _mover(), name="client")
        session.ask_back(1, WHITE)
        game = session.request_game(WHITE, minutes=1, last=True)
    server.thread.join(30)
    # Requests queued before the game are dropped at its start: none was sent.
    assert game.back_requests == []
    _same_game(game, followed[0])


def test_back_request_refused_when_not_supported(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed, accept_back=False), connections=1)
    servers.append(server)
    holder: dict[str, DxpSession] = {}
    inner = _mover()
    asked = []

    def mover(board: Board, clock: Clock | None) -> Move | None:
        if not asked:
            asked.append(True)
            holder["session"].ask_back(1, WHITE)
        return inner(board, clock)

    with DxpConnection.connect("127.0.0.1", server.port) as connection:
        session = DxpSession(connection, mover, name="client")
        holder["session"] = session
        game = session.request_game(WHITE, minutes=1, last=True)
    server.thread.join(30)
    assert game.back_requests == ["client asked to go back to move 1 with White to move: "
                                  "not supported"]
    _same_game(game, followed[0])


def test_clock_and_move_limit_of_the_request_reach_the_engine(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    clocks: list[Clock | None] = []
    inner = _mover(1)

    def mover(board: Board, clock: Clock | None) -> Move | None:
        clocks.append(clock)
        return inner(board, clock)

    with DxpConnection.connect("127.0.0.1", server.port) as connection:
        session = DxpSession(connection, mover, name="client")
        session.request_game(WHITE, minutes=2, moves=3, last=True)
    server.thread.join(30)
    assert len(clocks) >= 4
    first = clocks[0]
    assert first is not None
    # 2 minutes for 3 moves: 120 s and 3 moves to go at the first move, 2 at the second,
    # 1 at the third, then 120 s more and 3 to go again.
    assert first.white_time == pytest.approx(120, abs=1e-6) and first.moves_to_go == 3
    assert [c.moves_to_go for c in clocks[:4] if c is not None] == [3, 2, 1, 3]
    fourth = clocks[3]
    assert fourth is not None and 235 < fourth.white_time <= 240


# -- hostile and broken peers (raw sockets) ---------------------------------------------------

class _Raw:
    """A hand-driven DXP peer."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""

    def send(self, data: bytes | str) -> None:
        self.sock.sendall(data if isinstance(data, bytes) else data.encode("ascii") + b"\0")

    def read(self, timeout: float = 10) -> str:
        self.sock.settimeout(timeout)
        while b"\0" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError("closed")
            self.buffer += chunk
        text, _, self.buffer = self.buffer.partition(b"\0")
        return text.decode("ascii")

    def close(self) -> None:
        self.sock.close()


def _gamereq(follower: str = "Z", version: str = "01", minutes: str = "001",
             position: str = "A") -> str:
    return f"R{version}{'raw'.ljust(32)}{follower}{minutes}000{position}"


def test_refusals_name_the_gameacc_codes(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed, max_games=1), connections=1)
    servers.append(server)
    raw = _Raw(server.port)
    raw.send(_gamereq(version="02"))
    assert raw.read() == "A" + "server".ljust(32) + "1"  # wrong version
    raw.send(_gamereq(position="BW" + "w" + "e" * 49))  # a white man on square 1
    assert raw.read() == "A" + "server".ljust(32) + "2"  # not this game
    raw.send(_gamereq(follower="W"))  # accepted; the follower plays White and moves
    assert raw.read() == "A" + "server".ljust(32) + "0"
    move = parse_message(raw.read())
    assert isinstance(move, MoveMessage)
    raw.send("E10")  # I lose, another game is fine
    assert raw.read() == "E31"  # confirmed: the follower wins; its last game (max 1)
    raw.close()
    server.thread.join(30)
    assert followed[0].finished and followed[0].reason == "raw resigned"
    assert followed[0].result == "2-0"


def test_no_more_games_is_code_3(servers: list[_Server]) -> None:
    server = _Server(_follower([], max_games=0), connections=1)
    servers.append(server)
    raw = _Raw(server.port)
    raw.send(_gamereq())
    assert raw.read() == "A" + "server".ljust(32) + "3"
    raw.close()


def test_illegal_move_ends_the_game_and_the_connection_goes_on(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    raw = _Raw(server.port)
    raw.send(_gamereq())  # the follower plays Black: the raw peer (White) moves first
    assert raw.read().endswith("0")
    raw.send(format_message(MoveMessage(0, 32, 29)))  # not a legal move
    assert raw.read() == "E00"  # reason unknown, another game is fine
    raw.send("E00")
    raw.send(_gamereq())
    assert raw.read().endswith("0")  # the next game is accepted on the same connection
    raw.send(format_message(MoveMessage(0, 32, 28)))
    reply = parse_message(raw.read())
    assert isinstance(reply, MoveMessage)
    raw.close()
    server.thread.join(30)
    assert followed[0].result == "*" and "illegal move" in followed[0].reason
    assert "32-29" in followed[0].reason
    assert len(followed) == 2 and "connection lost" in followed[1].reason


def test_out_of_turn_messages_end_the_game(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    raw = _Raw(server.port)
    raw.send(_gamereq(follower="W"))
    assert raw.read().endswith("0")
    assert raw.read().startswith("M")  # the follower's first move
    raw.send("A" + "raw".ljust(32) + "0")  # a GAMEACC in the middle of a game
    assert raw.read() == "E00"
    raw.close()
    server.thread.join(30)
    assert followed[0].result == "*"
    assert "GAMEACC out of turn" in followed[0].reason


def test_a_new_request_during_a_game_starts_a_new_game(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    raw = _Raw(server.port)
    raw.send(_gamereq(follower="W"))
    assert raw.read().endswith("0")
    assert raw.read().startswith("M")
    raw.send(_gamereq(follower="Z"))  # the initiator starts again, now as White
    assert raw.read() == "A" + "server".ljust(32) + "0"
    raw.send(format_message(MoveMessage(0, 32, 28)))
    assert isinstance(parse_message(raw.read()), MoveMessage)
    raw.close()
    server.thread.join(30)
    assert followed[0].result == "*" and followed[0].reason == "raw asked for a new game"
    assert followed[1].color == BLACK and len(followed[1].board.move_stack) == 2


def test_silent_peer_ends_the_game(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed, timeout=0.5), connections=1)
    servers.append(server)
    raw = _Raw(server.port)
    raw.send(_gamereq(minutes="000"))  # no clock: 0.5 s of silence ends the game
    assert raw.read().endswith("0")
    started = time.monotonic()
    assert raw.read() == "E01"  # unknown, stop
    assert time.monotonic() - started < 5
    raw.close()
    server.thread.join(30)
    assert followed[0].result == "*" and "sent nothing" in followed[0].reason


def test_dropped_connection_ends_the_game(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    raw = _Raw(server.port)
    raw.send(_gamereq())
    assert raw.read().endswith("0")
    raw.send(b"M00033")  # half a move, then the connection drops
    raw.close()
    server.thread.join(30)
    assert followed[0].result == "*" and "connection lost" in followed[0].reason


def test_connection_reads_split_and_bad_messages() -> None:
    a, b = socket.socketpair()
    connection = DxpConnection(b, peer="pair")
    a.sendall(b"C hel")
    with pytest.raises(DxpTimeout):
        connection.receive(0.2)
    a.sendall(b"lo\0Mxx\0E20\0")
    assert connection.receive(1) == Chat(" hello")
    with pytest.raises(DxpError, match="MOVE time 'xx"):
        connection.receive(1)
    assert connection.receive(1) == GameEnd(2, 0)  # still in step after a bad message
    a.sendall(b"C" * 200)
    with pytest.raises(DxpError, match="no NUL within 127"):
        connection.receive(1)
    assert connection.closed
    with pytest.raises(DxpClosed):
        connection.receive(1)
    a.close()


def test_listener_survives_fuzzing_and_serves_the_next_connection(servers: list[_Server]) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed, timeout=0.3, name="server"), max_connections=8)
    servers.append(server)
    rng = random.Random(20261125)
    valid = [_gamereq(), _gamereq(follower="W"), "E10", "E21", "E00", "C hi", "B001W", "K0",
             "A" + "x".ljust(32) + "0", format_message(MoveMessage(0, 32, 28)),
             format_message(MoveMessage(0, 19, 23)), "M0000322801", "R01", "B999Z", "E9",
             _gamereq(position="BW" + "e" * 50), _gamereq(position="BZ" + "Z" * 50)]
    sent = 0
    for _ in range(40):
        raw = _Raw(server.port)
        for _ in range(rng.randint(1, 12)):
            kind = rng.random()
            if kind < 0.4:
                data = rng.choice(valid).encode() + b"\0"
            elif kind < 0.6:
                text = rng.choice(valid)
                data = text[:rng.randint(0, len(text))].encode() + b"\0"  # truncated
            elif kind < 0.8:
                data = bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 60)))
            else:
                data = rng.choice(valid).encode()[:rng.randint(1, 20)]  # no NUL yet
            try:
                raw.sock.sendall(data)
            except OSError:
                break
            sent += 1
        if rng.random() < 0.5:
            time.sleep(rng.random() * 0.05)
        raw.close()
    assert sent >= 200
    # The listener still serves: a real game from start to end.
    with DxpConnection.connect("127.0.0.1", server.port) as connection:
        game = DxpSession(connection, _mover(1), name="client").request_game(
            WHITE, minutes=1, last=True)
    assert game.finished and game.result == _board_result(game.board)
    assert server.thread.is_alive() and server.error is None
    assert not [e for e in server.events if "failed" in e]


def test_listener_refuses_connections_beyond_its_limit(servers: list[_Server]) -> None:
    gate = threading.Event()

    def serve(connection: DxpConnection) -> None:
        gate.wait(10)

    server = _Server(serve, max_connections=1)
    servers.append(server)
    first = _Raw(server.port)
    time.sleep(0.3)
    second = _Raw(server.port)
    assert second.read().startswith("Cbusy")
    with pytest.raises((EOFError, OSError)):
        second.read(2)
    gate.set()
    first.close()
    second.close()


# -- a third-party DXP client ------------------------------------------------------------------

def test_pydraughts_dxp_client_plays_damier_to_the_end(servers: list[_Server]) -> None:
    draughts = pytest.importorskip("draughts")
    from draughts.engine import DXPEngine

    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    engine = DXPEngine(None, {"engine-opened": True, "ip": "127.0.0.1", "port": server.port},
                       initial_time=120)
    board = draughts.Board(variant="standard")
    rng = random.Random(7)
    plies = 0
    while not board.is_over() and plies < 400:
        if board.turn == draughts.WHITE:  # pydraughts' side: random legal moves
            move = rng.choice(board.legal_moves())
        else:  # damier's side, over DXP
            move = engine.play(board).move
            assert move is not None
        board.push(move)
        plies += 1
    engine.quit()
    server.thread.join(30)
    assert board.is_over()
    game = followed[0]
    assert game.color == BLACK and len(game.board.move_stack) == plies
    assert game.finished and game.board.is_game_over()
    assert game.result == _board_result(game.board)
    # Both programs ended in the same position.
    ours = {sq: p for sq, p in game.board.piece_map().items()}
    theirs_fen = board.fen  # e.g. "W:W31,32:BK5"
    assert theirs_fen[0] == ("W" if game.board.turn == WHITE else "B")
    assert len(ours) == sum(len([s for s in part[1:].split(",") if s])
                            for part in theirs_fen.split(":")[1:])


# -- the engine API and a match over DXP ----------------------------------------------------

def test_match_plays_a_program_over_dxp(servers: list[_Server], tmp_path: Path) -> None:
    followed: list[DxpGame] = []
    server = _Server(_follower(followed), connections=1)
    servers.append(server)
    out = tmp_path / "match.pdn"
    # A fixed seed: the same opening and, with both sides searching to depth 2, the same games.
    result = run_match("damier:depth=2", f"dxp:127.0.0.1:{server.port}", games=2,
                       movetime=0.05, progress=False, pdn_path=out, stream=io.StringIO(), seed=1)
    server.thread.join(30)
    assert result.games_played == 2 and not result.errors
    endings = [(g.termination, g.reason, g.plies) for g in result.games]
    assert all(t == "normal" for t, _, _ in endings), (endings, server.events)
    games = list(pdn.read_games(out.read_text()))
    assert len(followed) == 2
    # 0.05 s a move asks for the whole game's time and no limit on its moves ("000",
    # DamExchange protocol, GAMEREQ): a move limit lets the peer end an unfinished game.
    assert [(g.minutes, g.moves) for g in followed] == [(1, 0), (1, 0)]
    for played, seen in zip(games, followed, strict=True):
        # The peer is asked for a game from the position after the match's opening.
        moves = list(played.mainline_moves())
        opening = len(moves) - len(seen.board.move_stack)
        board = played.board()
        for move in moves[:opening]:
            board.push(move)
        assert seen.board.root().fen() == board.fen()
        assert moves[opening:] == list(seen.board.move_stack)  # every move, the last too
        assert seen.finished and seen.result == played.headers["Result"]


def test_dxp_engine_refuses_analysis_and_bad_specs() -> None:
    from damier.match import EngineSpecError, parse_engine_spec

    a, b = socket.socketpair()
    engine = DxpEngine.__new__(DxpEngine)
    with pytest.raises(NotImplementedError, match="moves only"):
        engine.analyse(Board(), Limit(depth=1))
    a.close()
    b.close()
    with pytest.raises(EngineSpecError, match="needs the program's address"):
        parse_engine_spec("dxp:")
    with pytest.raises(EngineSpecError, match="port must be a number"):
        parse_engine_spec("dxp:host:0")
    with pytest.raises(DxpClosed, match="cannot connect"):
        DxpEngine("127.0.0.1", _free_port(), connect_timeout=1)


def test_dxp_engine_refused_game_is_an_error(servers: list[_Server]) -> None:
    server = _Server(_follower([], max_games=0), connections=1)
    servers.append(server)
    engine = DxpEngine("127.0.0.1", server.port)
    with pytest.raises(DxpRefused, match="no more games"):
        engine.play(Board(), Limit(time=0.1))
    engine.quit()


# -- the command line --------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_cli_listen_and_connect_write_the_same_games(tmp_path: Path) -> None:
    port = _free_port()
    served = tmp_path / "server.pdn"
    asked = tmp_path / "client.pdn"
    proc = subprocess.Popen(
        [sys.executable, "-m", "damier", "dxp", "--listen", f"127.0.0.1:{port}", "--once",
         "--engine", "damier:depth=1", "--name", "listener", "--pdn", str(served)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the listener says so once it listens
        assert "listening on 127.0.0.1:" in first, first
        out, err = io.StringIO(), io.StringIO()
        status = cli_main(["dxp", "--connect", f"127.0.0.1:{port}", "--engine",
                           "damier:depth=1", "--games", "2", "--time", "1", "--chat", "hi",
                           "--pdn", str(asked)], out=out, err=err)
        assert status == 0, err.getvalue()
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert "chat from damier: hi" in first + stdout
    assert "2 games played, 2 finished" in out.getvalue()
    ours = list(pdn.read_games(asked.read_text()))
    theirs = list(pdn.read_games(served.read_text()))
    assert len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs, strict=True):
        assert list(a.mainline_moves()) == list(b.mainline_moves())
        assert a.headers["Result"] == b.headers["Result"] != "*"
        assert a.headers["White"] == b.headers["White"]
        board = a.board()
        for move in a.mainline_moves():
            board.push(move)
        assert a.headers["Result"] == _board_result(board)
    assert [g.headers["White"] for g in ours] == ["damier", "listener"]


@pytest.mark.parametrize("argv, message", [
    (["--connect", "host:70000"], "the port must be a number"),
    (["--listen", "x:y:z"], "bad address"),
    (["--connect", "127.0.0.1:1"], "cannot connect to 127.0.0.1:1"),
    (["--connect", "h", "--name", "a" * 33], "--name must be 1-32"),
    (["--connect", "h", "--fen", "W:W:B"], "--fen"),
    (["--connect", "h", "--time", "1000"], "--time is whole minutes"),
    (["--connect", "h", "--engine", "stockfish"], "bad engine spec"),
    (["--connect", "h", "--chat", "caf\u00e9"], "--chat"),
])
def test_cli_errors_are_one_line(argv: list[str], message: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cli_main(["dxp", *argv], out=out, err=err) == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("damier dxp: ") and message in lines[0]


def test_position_of_a_request_round_trips_through_the_message() -> None:
    board = Board("B:W27,28,33,K46:B12,13,18,K5")
    request = GameRequest("x", WHITE, 1, 0, position_of(board))
    again = parse_message(format_message(request))
    assert isinstance(again, GameRequest) and again.position == position_of(board)
    assert isinstance(parse_message("K1"), BackAccept)
    assert isinstance(parse_message("B002W"), BackRequest)
    assert GameAccept("x", 3).code == 3


def test_a_program_that_refuses_the_game_stops_the_match_unscored(servers: list[_Server]
                                                                  ) -> None:
    # A program that refuses every GAMEREQ (GAMEACC code 2: "not this game", as a
    # program does that still thinks an earlier game goes on) plays no game: the match
    # stops and says so, where counting each refusal as a lost game would report a
    # program that never played as beaten 300 times.
    def refuse(connection: DxpConnection) -> None:
        while True:
            message = connection.receive(10)
            if isinstance(message, GameRequest):
                connection.send(GameAccept("refuser", 2))
            elif isinstance(message, GameEnd):
                connection.send(GameEnd(0, message.stop))

    server = _Server(refuse, connections=1)
    servers.append(server)
    result = run_match("damier:depth=1", f"dxp:127.0.0.1:{server.port}", games=4,
                       movetime=0.05, progress=False, stream=io.StringIO(), seed=1)
    assert result.games_played == 0
    assert len(result.errors) == 1 and "refused the game" in result.errors[0]
    assert f"dxp:127.0.0.1:{server.port}" in result.errors[0]
