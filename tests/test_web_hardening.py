"""``damier serve`` under hostile and heavy use: the server-side items of the hardening
issue (each test here failed on the server before its fix).

* idle and slow connections do not shut others out (a time for each request head,
  idle connections capped per address and in all);
* a WebSocket that fails while opening gives its slot back;
* a page that stops reading holds a bounded queue of messages;
* one client cannot take the engine pool: a fair queue between clients, analyses
  that give their engine up, limits on new games;
* a flag timer of a game no longer in memory never writes the stored game;
* ``go`` asks the engine to move only for the seat to move;
* ``null`` fields and lone surrogates get clear 400s.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import socket
import threading
import time
import warnings

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (needed by Starlette's TestClient) is not installed")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import damier  # noqa: E402
from damier.web import live as web_live  # noqa: E402
from damier.web import sockets as web_sockets  # noqa: E402
from damier.web import session as web_session  # noqa: E402
from damier.web.app import create_app  # noqa: E402
from damier.web.live import SEND_QUEUE_LIMIT, Subscriber  # noqa: E402
from damier.web.connections import ConnectionLimits  # noqa: E402
from damier.web.engines import EnginePool, Job, PoolBusy  # noqa: E402
from damier.web.server import uvicorn_settings  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

HOSTS = ["testserver"]


@pytest.fixture()
def app(tmp_path):
    return create_app(tmp_path / "g.sqlite3", movetime=0.05, analysis_seconds=3,
                      allowed_hosts=HOSTS, book=False)


@pytest.fixture()
def alice(app):
    with TestClient(app) as c:
        yield c


def new_game(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


# -- connections: idle and slow ones do not shut others out --------------------------------------


@contextlib.contextmanager
def guarded_server(tmp_path, limits):
    import uvicorn
    app = create_app(tmp_path / "real.sqlite3", movetime=0.05, book=False)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, **uvicorn_settings(limits), log_level="critical")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_for(lambda: server.started)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def get_index(port, timeout=5.0):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/")
        r = conn.getresponse()
        r.read()
        return r.status
    finally:
        conn.close()


def closed_by_server(s, timeout):
    """Whether the server closes ``s`` within ``timeout`` seconds."""
    s.settimeout(timeout)
    try:
        while True:
            data = s.recv(1024)
            if not data:
                return True
    except (socket.timeout, TimeoutError):
        return False
    except OSError:
        return True


def test_idle_connections_do_not_shut_out_a_new_client(tmp_path):
    limits = ConnectionLimits(head_timeout=30.0, grace=0.2, per_address=8, total=20)
    with guarded_server(tmp_path, limits) as port:
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
        try:
            # half of them started a request head and stopped (slowloris)
            for s in idle[::2]:
                with contextlib.suppress(OSError):
                    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            time.sleep(0.3)          # past the grace: they may be closed to make room
            for _ in range(3):
                assert get_index(port) == 200
            # beyond the caps, the oldest idle ones were closed (or the newest refused
            # while all were fresh); the server holds at most its caps
            assert limits.closed_idle + limits.refused >= 40 - 20
            assert len(limits.open) <= 20
            assert closed_by_server(idle[0], 2.0)
        finally:
            for s in idle:
                s.close()


def test_a_request_head_must_come_within_its_time(tmp_path):
    limits = ConnectionLimits(head_timeout=0.5)
    with guarded_server(tmp_path, limits) as port:
        silent = socket.create_connection(("127.0.0.1", port))
        slow = socket.create_connection(("127.0.0.1", port))
        try:
            started = time.monotonic()
            for _ in range(3):        # a byte at a time: each resets nothing
                slow.sendall(b"G")
                time.sleep(0.1)
            assert closed_by_server(silent, 5.0)
            assert closed_by_server(slow, 5.0)
            assert time.monotonic() - started < 4.0
            assert limits.timed_out >= 2
            # a client that sends its request in time is served, and kept alive
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            for _ in range(2):
                conn.request("GET", "/api/variants")
                r = conn.getresponse()
                r.read()
                assert r.status == 200
            conn.close()
        finally:
            silent.close()
            slow.close()


def test_a_request_being_answered_is_never_closed_to_make_room(tmp_path):
    limits = ConnectionLimits(head_timeout=30.0, grace=0.1, per_address=2, total=6)
    with guarded_server(tmp_path, limits) as port:
        body = json.dumps({"color": "both"}).encode()
        busy = socket.create_connection(("127.0.0.1", port), timeout=10)
        busy.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body[:3])
        time.sleep(0.3)   # its head is in: it is being answered (the body is still coming)
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(12)]
        try:
            time.sleep(0.3)
            busy.sendall(body[3:])
            answer = busy.recv(4096).decode()
            assert answer.startswith("HTTP/1.1 201"), answer[:200]
        finally:
            busy.close()
            for s in idle:
                s.close()


def test_a_websocket_outlives_the_request_head_time(tmp_path):
    from websockets.sync.client import connect
    limits = ConnectionLimits(head_timeout=0.5)
    with guarded_server(tmp_path, limits) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("POST", "/api/games", body=json.dumps({"color": "both"}),
                     headers={"content-type": "application/json"})
        gid = json.loads(conn.getresponse().read())["id"]
        conn.close()
        with connect(f"ws://127.0.0.1:{port}/ws/games/{gid}", open_timeout=5) as ws:
            assert json.loads(ws.recv(5))["type"] == "state"
            time.sleep(1.5)              # three times the head time: still open
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(5))["type"] == "pong"
        assert limits.timed_out == 0


def test_a_burst_of_new_connections_from_one_address_is_served(tmp_path):
    limits = ConnectionLimits(head_timeout=10.0, per_address=4, total=900)
    with guarded_server(tmp_path, limits) as port:
        burst = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(30)]
        try:
            time.sleep(0.2)
            for s in burst:     # each sends its request just after connecting
                s.sendall(b"GET /api/variants HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            for s in burst:
                assert s.recv(64).startswith(b"HTTP/1.1 200")
            assert limits.closed_idle == 0
        finally:
            for s in burst:
                s.close()


# -- WebSocket slots ----------------------------------------------------------------------------


def test_a_socket_that_fails_to_open_gives_its_slot_back(app, alice, monkeypatch):
    gid = new_game(alice, color="both")["id"]
    live_games = app.state.live_games

    def broken(self):
        raise web_session.ApiError(500, "the state cannot be made")

    monkeypatch.setattr(web_live.LiveGame, "state", broken)
    for _ in range(5):
        with alice.websocket_connect(f"/ws/games/{gid}") as ws:
            msg = ws.receive_json()
            assert msg["type"] == "error"
    assert live_games.sockets == 0 and not live_games.player_sockets
    monkeypatch.undo()
    with alice.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "state"
        assert live_games.sockets == 1
    wait_for(lambda: live_games.sockets == 0)


def test_one_player_holds_a_bounded_number_of_sockets(app, alice, monkeypatch):
    monkeypatch.setattr(web_sockets, "MAX_PLAYER_SOCKETS", 2)
    gid = new_game(alice, color="both")["id"]
    with contextlib.ExitStack() as stack:
        for _ in range(2):
            ws = stack.enter_context(alice.websocket_connect(f"/ws/games/{gid}"))
            assert ws.receive_json()["type"] == "state"
        with alice.websocket_connect(f"/ws/games/{gid}") as extra:
            msg = extra.receive_json()
            assert msg["status"] == 503 and "you have 2 live connections" in msg["error"]
        with TestClient(app) as bob, bob.websocket_connect(f"/ws/games/{gid}") as ws:
            assert ws.receive_json()["type"] == "state"   # another player is not refused


# -- send queues ----------------------------------------------------------------------------------


def test_a_page_that_stops_reading_holds_a_bounded_queue():
    async def run():
        sub = Subscriber()
        for i in range(10_000):
            sub.send({"type": "state", "game": {"n": i}})
            if i % 3 == 0:
                sub.send({"type": "report_progress", "ply": i})   # each one counts
            assert len(sub.queue) <= SEND_QUEUE_LIMIT
        return sub

    sub = asyncio.run(run())
    assert sub.overflowed and not sub.queue
    assert asyncio.run(sub.next()) is None     # the sender stops: the socket is closed


def test_a_newer_message_replaces_a_waiting_one_of_its_kind_in_its_place():
    async def run():
        sub = Subscriber()
        sub.send({"type": "state", "game": 1})
        sub.send({"type": "info", "source": "engine", "depth": 1})
        sub.send({"type": "report_progress", "ply": 1})
        sub.send({"type": "analysis", "depth": 3, "done": False})
        sub.send({"type": "state", "game": 2})
        sub.send({"type": "info", "source": "engine", "depth": 2})
        sub.send({"type": "report_progress", "ply": 2})
        sub.send({"type": "analysis", "depth": 4, "done": False})
        sub.send({"type": "analysis", "depth": 4, "done": True})
        return [await sub.next() for _ in range(len(sub.queue))]

    assert asyncio.run(run()) == [
        {"type": "state", "game": 2},          # the first message stays the state
        {"type": "info", "source": "engine", "depth": 2},
        {"type": "report_progress", "ply": 1},  # every step of a report counts
        {"type": "analysis", "depth": 4, "done": False},
        {"type": "report_progress", "ply": 2},
        {"type": "analysis", "depth": 4, "done": True}]   # and the end of an analysis


def test_a_page_watching_a_fast_engine_game_is_not_taken_for_a_slow_reader():
    async def run():
        sub = Subscriber()
        for move in range(500):     # bursts of news faster than any sender
            sub.send({"type": "engine", "thinking": True})
            for depth in range(1, 20):
                sub.send({"type": "info", "source": "engine", "depth": depth})
            sub.send({"type": "state", "game": move})
            sub.send({"type": "engine", "thinking": False})
        return sub

    sub = asyncio.run(run())
    assert not sub.overflowed and len(sub.queue) == 3


# -- the engine pool: fair between clients ---------------------------------------------------------


def test_the_queue_serves_clients_in_turn():
    pool = EnginePool(size=1, hash_mb=1)
    order = []
    gate = threading.Event()

    def work(name, wait=False):
        def fn(engine):
            if wait:
                gate.wait(10)
            order.append(name)
        return fn

    try:
        first = pool.submit(Job(("1.1.1.1", "greedy")), work("g0", wait=True))
        wait_for(lambda: pool.stats()["running"] == 1)
        greedy = [pool.submit(Job(("1.1.1.1", "greedy")), work(f"g{i}")) for i in range(1, 10)]
        other_player = pool.submit(Job(("1.1.1.1", "polite")), work("p"))
        other_address = pool.submit(Job(("2.2.2.2", "x")), work("a"))
        gate.set()
        for f in [first, *greedy, other_player, other_address]:
            f.result(10)
    finally:
        pool.shutdown()
    # after the running search: another address's client and another player come before
    # the greedy client's second search
    assert order[0] == "g0"
    assert set(order[1:4]) == {"g1", "p", "a"} and order.index("p") < order.index("g2")


def test_a_long_analysis_gives_its_engine_up_when_another_client_waits():
    pool = EnginePool(size=1, hash_mb=1)
    board = damier.Board()
    try:
        analysis = Job(("1.1.1.1", "greedy"))
        started = time.monotonic()
        long = pool.submit(analysis, lambda e: e.search(board, movetime=30.0), slice_seconds=0.3)
        wait_for(lambda: pool.stats()["running"] == 1)
        quick = pool.submit(Job(("1.1.1.1", "polite")), lambda e: e.search(board, depth=2))
        assert quick.result(10).best_move in board.legal_moves
        assert time.monotonic() - started < 5.0
        assert long.result(10).best_move in board.legal_moves and analysis.yielded
        # alone, a search is not cut short
        alone = Job(("1.1.1.1", "greedy"))
        started = time.monotonic()
        pool.submit(alone, lambda e: e.search(board, movetime=0.8), slice_seconds=0.1).result(10)
        assert not alone.yielded and time.monotonic() - started >= 0.7
    finally:
        pool.shutdown()


def test_a_client_may_have_only_so_many_searches_waiting():
    pool = EnginePool(size=1, hash_mb=1, max_waiting=3)
    gate = threading.Event()
    try:
        pool.submit(Job(("a", "a")), lambda e: gate.wait(10))
        wait_for(lambda: pool.stats()["running"] == 1)
        waiting = [pool.submit(Job(("a", "a")), lambda e: None) for _ in range(3)]
        refused = pool.submit(Job(("a", "a")), lambda e: None)
        with pytest.raises(PoolBusy, match="3 searches of yours"):
            refused.result(1)
        assert pool.submit(Job(("b", "b")), lambda e: 7) is not None   # others still queue
        gate.set()
        for f in waiting:
            f.result(10)
    finally:
        pool.shutdown()


def test_new_games_are_limited_per_player(app, alice, monkeypatch):
    monkeypatch.setattr(web_live, "MAX_AUTOPLAY_GAMES", 2)
    for _ in range(2):
        new_game(alice, color="none", level=1)
    r = alice.post("/api/games", json={"color": "none", "level": 1})
    assert r.status_code == 429 and r.json()["kind"] == "rate_limited"
    assert "engine against itself" in r.json()["error"]
    for _ in range(web_live.GAMES_PER_MINUTE - 2):
        new_game(alice, color="both")
    r = alice.post("/api/games", json={"color": "both"})
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    assert "too many new games" in r.json()["error"]
    with TestClient(app) as bob:              # another player has their own allowance
        new_game(bob, color="both")


# -- flag timers belong to the game in memory ------------------------------------------------------


def test_a_stale_flag_timer_never_overwrites_the_stored_game(app, alice, monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(web_session, "CLOCK_SOURCE", lambda: now[0])
    live_games = app.state.live_games
    gid = new_game(alice, color="both", clock="1")["id"]    # one minute each
    assert alice.post(f"/api/games/{gid}/move", json={"move": "32-28"}).status_code == 200
    old = live_games.games[gid]
    assert old.flag_timer is not None          # Black's clock runs
    with alice.websocket_connect(f"/ws/games/{gid}") as ws:   # a page opens, then reloads
        assert ws.receive_json()["type"] == "state"
    wait_for(lambda: gid not in live_games.games)
    assert old.flag_timer is None              # it left memory with its game
    for move in ("19-23", "28x19", "14x23", "37-32"):   # the reloaded page plays on
        now[0] += 5.0
        assert alice.post(f"/api/games/{gid}/move", json={"move": move}).status_code == 200
    # the old session's Black clock (running since move 1) is out; the real one is not
    now[0] += 42.0
    live_games._flag(old)                      # the old timer, had it fired
    state = alice.get(f"/api/games/{gid}").json()
    assert [m["text"] for m in state["moves"]] == ["32-28", "19-23", "28x19", "14x23", "37-32"]
    assert not state["over"] and state["outcome"] is None
    assert app.state.store.get(gid).moves == ["32-28", "19-23", "28x19", "14x23", "37-32"]


def test_a_deleted_timed_games_timer_does_nothing(app, alice, monkeypatch, caplog):
    now = [1_000_000.0]
    monkeypatch.setattr(web_session, "CLOCK_SOURCE", lambda: now[0])
    live_games = app.state.live_games
    gid = new_game(alice, color="both", clock="1")["id"]
    assert alice.post(f"/api/games/{gid}/move", json={"move": "32-28"}).status_code == 200
    old = live_games.games[gid]
    assert alice.delete(f"/api/games/{gid}").status_code == 200
    assert old.flag_timer is None
    now[0] += 120.0
    live_games._flag(old)
    assert not [r for r in caplog.records if r.exc_info]
    assert alice.get(f"/api/games/{gid}").status_code == 404


# -- go: only for the seat to move ---------------------------------------------------------------


def test_go_is_only_for_the_seat_to_move(app, alice):
    game = new_game(alice, opponent="friend", color="white", level=1)
    gid, invite = game["id"], game["you"]["invite"]
    assert alice.post(f"/api/games/{gid}/move", json={"move": "32-28"}).status_code == 200
    # Black's seat is still open: the owner cannot have the engine move for it
    r = alice.post(f"/api/games/{gid}/go")
    assert r.status_code == 409 and r.json()["kind"] == "seat_open"
    with TestClient(app) as bob:
        assert bob.post(f"/api/games/{gid}/join", json={"invite": invite}).status_code == 200
        r = alice.post(f"/api/games/{gid}/go")       # Bob's turn: not Alice's to ask
        assert r.status_code == 403 and r.json()["kind"] == "not_your_seat"
        assert len(alice.get(f"/api/games/{gid}").json()["moves"]) == 1
        assert bob.post(f"/api/games/{gid}/go").status_code == 200    # his hint-move
        wait_for(lambda: len(bob.get(f"/api/games/{gid}").json()["moves"]) == 2)
        r = bob.post(f"/api/games/{gid}/go")          # now White's turn: Alice's
        assert r.status_code == 403


def test_go_for_the_engines_seat_is_any_players(app, alice):
    gid = new_game(alice, color="black", level=1)["id"]   # the engine plays White
    wait_for(lambda: len(alice.get(f"/api/games/{gid}").json()["moves"]) == 1)
    with TestClient(app) as carol:                  # a spectator may not
        r = carol.post(f"/api/games/{gid}/go")
        assert r.status_code == 403


# -- clear 400s for null fields and lone surrogates ------------------------------------------------


def test_null_fields_mean_their_default(alice):
    game = new_game(alice, color="both", level=None, fen=None, clock=None)
    assert game["level"] == 5
    gid = game["id"]
    assert alice.post(f"/api/games/{gid}/move", json={"move": "32-28"}).status_code == 200
    assert alice.post(f"/api/games/{gid}/undo", json={"count": None}).status_code == 200
    r = alice.post(f"/api/games/{gid}/redo", json={"count": None})
    assert r.status_code == 200 and r.json()["redone"] == 1


@pytest.mark.parametrize("body", [
    '{"color": "both", "white": "\\ud800"}',
    '{"color": "both", "fen": "W:W31\\udfff:B1"}',
    '{"color": "both", "black": ["\\ud800"]}',
    '{"\\ud800": 1}',
])
def test_lone_surrogates_are_refused_by_name(alice, body):
    r = alice.post("/api/games", content=body.encode(),
                   headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert "surrogate" in r.json()["error"]


def test_a_websocket_answers_after_a_surrogate(alice):
    gid = new_game(alice, color="both")["id"]
    with alice.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_text('{"type": "\\ud800"}')
        ws.send_text('{"type": "analyse", "fen": "\\ud800"}')
        ws.send_text('{"type": "ping"}')
        seen = []
        while True:
            msg = ws.receive_json()
            seen.append(msg)
            if msg["type"] == "pong":
                break
        errors = [m for m in seen if m["type"] == "error"]
        assert len(errors) == 2 and all("surrogate" in m["error"] for m in errors)


# -- move texts: bounded before they are read ---------------------------------------------------


def test_long_move_texts_are_refused_before_they_are_read(alice):
    gid = new_game(alice, color="both")["id"]
    started = time.monotonic()
    r = alice.post(f"/api/games/{gid}/line", json={"moves": ["32" + " " * 40_000 + "28"]})
    assert r.status_code == 400 and "too long" in r.json()["error"] and r.json()["ply"] == 1
    r = alice.post(f"/api/games/{gid}/move", json={"move": "32" + " " * 16_000 + "28"})
    assert r.status_code == 400 and "too long" in r.json()["error"]
    assert time.monotonic() - started < 2.0
    r = alice.post(f"/api/games/{gid}/line", json={"moves": ["32-28"] * 2001})
    assert r.status_code == 400 and "too many moves" in r.json()["error"]


def test_an_imported_games_tree_is_built_off_the_event_loop(alice, monkeypatch):
    pdn_text = '[Event "t"]\n1. 32-28 (1. 33-28 18-23) 19-23 2. 28x19 14x23 *\n'
    r = alice.post("/api/import", json={"pdn": pdn_text})
    assert r.status_code == 201, r.text
    gid = r.json()["first"]
    threads = []
    real = web_session.GameSession._merged_game

    def merged(self):
        threads.append(threading.current_thread().name)
        return real(self)

    monkeypatch.setattr(web_session.GameSession, "_merged_game", merged)
    assert alice.post(f"/api/games/{gid}/undo", json={"count": 4}).status_code == 200
    r = alice.post(f"/api/games/{gid}/move", json={"move": "31-27"})
    assert r.status_code == 200, r.text
    assert any(n.get("text") == "31-27" for n in r.json()["game"]["tree"])
    assert threads and all(name.startswith("damier-web") for name in threads), threads


def test_a_game_deleted_as_its_engine_starts_gets_no_more_searches(tmp_path, caplog):
    from damier.web.session import GameSession
    from damier.web.storage import GameStore

    async def run():
        store = GameStore(tmp_path / "d.sqlite3")
        games = web_live.LiveGames(store, movetime=0.05, engines=1, hash_mb=1, book=False)
        try:
            live = games.add(GameSession.create(store, human="none", level=1))
            games.maybe_start_engine(live)          # the task is made, not yet run
            games.forget(live.session.id)
            store.delete(live.session.id)
            await asyncio.sleep(1.5)
            return games.pool.stats(), live.thinking
        finally:
            games.shutdown()
            store.close()

    caplog.set_level("INFO", logger="damier.web")
    stats, thinking = asyncio.run(run())
    assert not thinking and stats["running"] == 0 and stats["waiting"] == 0
    dropped = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) <= 1, len(dropped)   # before: searched and failed over and over


def test_query_numbers_are_ascii_digits(alice):
    for bad in ("１２", "1_0", "٥"):
        r = alice.get(f"/api/games?limit={bad}")
        assert r.status_code == 400, bad
    r = alice.post("/api/games", json={"color": "both", "clock": "٥+٣"})
    assert r.status_code == 400 and r.json()["field"] == "clock"


@pytest.mark.parametrize("range_header", ["bytes=abc", "items=0-1", "bytes=99999999-", "bytes=0-3"])
def test_range_headers_are_ignored(alice, range_header):
    for path in ("/", "/puzzles", "/static/app.js"):
        r = alice.get(path, headers={"range": range_header})
        assert r.status_code == 200 and len(r.content) > 100, (path, r.status_code)


def test_an_analysis_whose_engine_fails_says_so_instead_of_going_silent(alice, monkeypatch,
                                                                         caplog):
    gid = new_game(alice, color="both")["id"]

    def broken(self, *args, **kwargs):
        raise RuntimeError("a table could not be read")

    from damier.engine import Engine
    monkeypatch.setattr(Engine, "search_lines", broken)
    with alice.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "analyse"})
        while True:
            msg = ws.receive_json()
            if msg["type"] == "analysis" and msg.get("done"):
                break
        assert "failed" in msg["error"]


# -- big imports: a large tree goes out once per change, not with every state --------------------


def big_tree_pdn(nodes_wanted=600, seed=5):
    """A legal game of 40 plies with random side lines (8 plies each) until the tree has
    at least ``nodes_wanted`` moves."""
    import random

    from damier import pdn
    rng = random.Random(seed)
    game = pdn.Game()
    node, board = game, damier.Board()
    line = []
    for _ in range(40):
        move = rng.choice(board.legal_moves)
        node = node.add_variation(move)
        board.push(move)
        line.append(node)
    count = 40
    while count < nodes_wanted:
        start = rng.randrange(len(line))
        at = line[start]
        b = at.board()
        for _ in range(8):
            if not b.legal_moves:
                break
            move = rng.choice(b.legal_moves)
            existing = next((c for c in at.variations if c.move == move), None)
            if existing is None:
                existing = at.add_variation(move)
                count += 1
            at = existing
            b.push(move)
    return pdn.write_game(game)


def test_a_large_imported_tree_is_fetched_apart_and_changes_with_the_moves(alice):
    r = alice.post("/api/import", json={"pdn": big_tree_pdn()})
    assert r.status_code == 201, r.text
    gid = r.json()["first"]
    state = alice.get(f"/api/games/{gid}").json()
    assert state["tree"] is None and state["tree_nodes"] > web_live.INLINE_TREE_NODES
    tree = alice.get(f"/api/games/{gid}/tree").json()
    assert tree["key"] == state["tree_key"] and len(tree["tree"]) == state["tree_nodes"]
    assert alice.get(f"/api/games/{gid}/tree").content == \
        alice.get(f"/api/games/{gid}/tree").content            # encoded once, the same bytes
    assert alice.post(f"/api/games/{gid}/undo", json={"count": 1000}).status_code == 200
    moved = alice.post(f"/api/games/{gid}/move", json={"move": "35-30"}).json()["game"]
    assert moved["tree"] is None and moved["tree_key"] != state["tree_key"]
    after = alice.get(f"/api/games/{gid}/tree").json()
    assert after["key"] == moved["tree_key"]
    assert any(n.get("text") == "35-30" and n["in_line"] for n in after["tree"])


def test_a_small_imported_tree_stays_in_the_state(alice):
    r = alice.post("/api/import", json={"pdn": '[Event "t"]\n1. 32-28 (1. 33-28) 19-23 *\n'})
    gid = r.json()["first"]
    state = alice.get(f"/api/games/{gid}").json()
    assert len(state["tree"]) == state["tree_nodes"] == 4 and state["tree_key"]
    assert alice.get(f"/api/games/{gid}/tree").json()["tree"] == state["tree"]
    plain = new_game(alice, color="both")["id"]
    r = alice.get(f"/api/games/{plain}/tree")
    assert r.status_code == 404 and r.json()["kind"] == "no_tree"
