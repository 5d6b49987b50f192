"""Web games between two people by link, and timed games (clocks, loss on time).

Through Starlette's TestClient: each TestClient is its own browser (its own player
cookie).
"""

from __future__ import annotations

import time
import warnings

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (needed by Starlette's TestClient) is not installed")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from damier.web.app import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")


@pytest.fixture()
def app(tmp_path):
    return create_app(tmp_path / "g.sqlite3", movetime=0.05, analysis_seconds=2,
                      allowed_hosts=["testserver"])


@pytest.fixture()
def alice(app):
    with TestClient(app) as c:
        yield c


def browser(app):
    return TestClient(app)


def wait_state(client, gid, predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while True:
        state = client.get(f"/api/games/{gid}").json()
        if predicate(state):
            return state
        assert time.monotonic() < deadline, state
        time.sleep(0.05)


def test_two_people_play_by_link_and_a_third_only_watches(app, alice):
    r = alice.post("/api/games", json={"opponent": "friend", "color": "white"})
    assert r.status_code == 201
    game = r.json()
    gid, invite = game["id"], game["you"]["invite"]
    assert game["open_seat"] == "black" and game["two_players"]
    # no names given: the colours' (test_web_players.py has the players' own names)
    assert game["white"] == "White" and game["black"] == "Black"
    bob, carol = browser(app), browser(app)
    try:
        # before bob comes, nobody may play black, not even the creator
        assert alice.post(f"/api/games/{gid}/move", json={"move": "32-28"}).status_code == 200
        r = alice.post(f"/api/games/{gid}/move", json={"move": "19-23"})
        assert r.status_code == 409 and r.json()["kind"] == "seat_open"
        # the creator opening her own link is told to send it on
        r = alice.post(f"/api/games/{gid}/join", json={"invite": invite})
        assert r.status_code == 409 and r.json()["kind"] == "own_invite"
        assert bob.get(f"/api/games/{gid}").json()["you"]["spectator"]
        assert "invite" not in bob.get(f"/api/games/{gid}").json()["you"]   # owner's secret only
        r = bob.post(f"/api/games/{gid}/join", json={"invite": invite})
        assert r.status_code == 200 and r.json()["joined"] == "black"
        assert r.json()["game"]["you"]["seats"] == ["black"]
        assert r.json()["game"]["open_seat"] is None
        # the link is spent: carol cannot take a seat with it, nor guess another
        for token in (invite, "x" * 24):
            r = carol.post(f"/api/games/{gid}/join", json={"invite": token})
            assert r.status_code == 403 and r.json()["kind"] == "bad_invite"
        with bob.websocket_connect(f"/ws/games/{gid}") as ws:
            assert ws.receive_json()["you"]["seats"] == ["black"]
            assert bob.post(f"/api/games/{gid}/move", json={"move": "19-23"}).status_code == 200
            while True:   # bob's page hears of his move
                msg = ws.receive_json()
                if msg["type"] == "state" and len(msg["game"]["moves"]) == 2:
                    break
        # each plays only their own colour; carol plays neither
        assert alice.post(f"/api/games/{gid}/move", json={"move": "28x19"}).status_code == 200
        r = alice.post(f"/api/games/{gid}/move", json={"move": "14x23"})
        assert r.status_code == 403 and "you play white" in r.json()["error"]
        assert carol.post(f"/api/games/{gid}/move", json={"move": "14x23"}).status_code == 403
        assert bob.post(f"/api/games/{gid}/move", json={"move": "14x23"}).status_code == 200
        # no take-backs between two people
        for path in ("undo", "redo"):
            r = alice.post(f"/api/games/{gid}/{path}", json={})
            assert r.status_code == 409 and r.json()["kind"] == "two_players"
        state = alice.get(f"/api/games/{gid}").json()
        assert [m["text"] for m in state["moves"]] == ["32-28", "19-23", "28x19", "14x23"]
        # bob resigns for black only
        assert bob.post(f"/api/games/{gid}/resign", json={"color": "white"}).status_code == 403
        r = bob.post(f"/api/games/{gid}/resign", json={"color": "black"})
        assert r.status_code == 200
        final = r.json()["game"]
        assert final["over"] and final["outcome"]["winner"] == "white"
        assert final["outcome"]["pdn_result"] == "2-0"
    finally:
        bob.close()
        carol.close()


def test_a_draw_between_people_needs_both(app, alice):
    game = alice.post("/api/games", json={"opponent": "friend", "color": "black"}).json()
    gid = game["id"]
    bob = browser(app)
    try:
        assert bob.post(f"/api/games/{gid}/join", json={"invite": game["you"]["invite"]}
                        ).json()["joined"] == "white"
        moves = [("bob", "32-28"), ("alice", "19-23"), ("bob", "28x19"), ("alice", "14x23")]
        for who, move in moves:
            client = bob if who == "bob" else alice
            assert client.post(f"/api/games/{gid}/move", json={"move": move}).status_code == 200
        r = bob.post(f"/api/games/{gid}/draw", json={})   # FMJD rules: an offer at any time
        assert r.status_code == 200 and not r.json()["accepted"]
        assert r.json()["game"]["draw_offer"] == "white" and not r.json()["game"]["over"]
        assert bob.post(f"/api/games/{gid}/draw", json={}).json()["game"]["draw_offer"] == "white"
        r = alice.post(f"/api/games/{gid}/draw", json={})   # she accepts by offering too
        assert r.status_code == 200 and r.json()["accepted"]
        assert r.json()["game"]["over"] and r.json()["game"]["outcome"]["winner"] is None
    finally:
        bob.close()


def test_a_timed_game_is_lost_on_time(app, alice):
    # 0.02 minutes (1.2 s) each: white moves, then black lets the time run out
    game = alice.post("/api/games", json={"opponent": "friend", "color": "white",
                                          "clock": "0.02"}).json()
    gid = game["id"]
    assert game["clock"]["initial"] == pytest.approx(1.2)
    assert game["clock"]["running"] is None          # the clocks start with the first move
    bob = browser(app)
    try:
        bob.post(f"/api/games/{gid}/join", json={"invite": game["you"]["invite"]})
        started = time.monotonic()
        state = alice.post(f"/api/games/{gid}/move", json={"move": "32-28"}).json()["game"]
        assert state["clock"]["running"] == "black"
        # the server ends the game by itself when the flag falls (nobody has to ask)
        over = wait_state(bob, gid, lambda s: s["over"], timeout=10)
        elapsed = time.monotonic() - started
        assert elapsed >= 1.0
        outcome = over["outcome"]
        assert outcome["winner"] == "white" and outcome["termination"] == "time_forfeit"
        assert over["clock"]["black"] == 0 and over["clock"]["running"] is None
        r = bob.post(f"/api/games/{gid}/move", json={"move": "19-23"})
        assert r.status_code == 409
    finally:
        bob.close()


def test_the_engine_plays_on_its_clock(alice):
    game = alice.post("/api/games", json={"color": "white", "level": 10, "clock": "0.5+1"}).json()
    gid = game["id"]
    assert game["clock"] == {"initial": 30.0, "increment": 1.0, "white": 30.0, "black": 30.0,
                             "running": None}
    alice.post(f"/api/games/{gid}/move", json={"move": "32-28"})
    state = wait_state(alice, gid, lambda s: len(s["moves"]) == 2 and not s["engine_thinking"])
    clock = state["clock"]
    # the engine spent some of its 30 s (and got its 1 s increment), far from all of it
    assert 20.0 < clock["black"] < 31.0 and clock["running"] == "white"


def test_bad_time_controls_are_refused(alice):
    for bad in ("0", "abc", "5+", "99999", "5+9999", "-1"):
        r = alice.post("/api/games", json={"clock": bad})
        assert r.status_code == 400 and r.json()["field"] == "clock", bad
    r = alice.post("/api/games", json={"opponent": "friend", "color": "both"})
    assert r.status_code == 400 and "colour" in r.json()["error"]


def test_timed_game_survives_a_restart_and_flags_on_load(tmp_path):
    db = tmp_path / "restart.sqlite3"
    app = create_app(db, movetime=0.05, allowed_hosts=["testserver"])
    with TestClient(app) as a:
        game = a.post("/api/games", json={"opponent": "friend", "color": "white",
                                          "clock": "0.02"}).json()
        gid = game["id"]
        a.post(f"/api/games/{gid}/move", json={"move": "32-28"})   # black's clock runs
        cookies = dict(a.cookies)
    time.sleep(1.5)   # the server is down while black's time runs out
    with TestClient(create_app(db, movetime=0.05, allowed_hosts=["testserver"]),
                    cookies=cookies) as a:
        state = a.get(f"/api/games/{gid}").json()
        assert state["over"] and state["outcome"]["termination"] == "time_forfeit"


def test_puzzle_api_judges_moves_and_gives_hints(alice):
    from damier.puzzles import load_puzzles
    puzzle = next(p for p in load_puzzles("international") if p.solver_moves >= 2)
    r = alice.get(f"/api/puzzles/{puzzle.id}")
    assert r.status_code == 200 and "solution" not in r.json()   # the answer is not given away
    assert r.json()["fen"] == puzzle.fen and r.json()["solver_moves"] == puzzle.solver_moves
    hint = alice.post(f"/api/puzzles/{puzzle.id}/hint", json={"played": []}).json()
    first = puzzle.board().parse_move(puzzle.solution[0])
    assert hint == {"from": first.from_square}
    step = alice.post(f"/api/puzzles/{puzzle.id}/move",
                      json={"played": [], "move": puzzle.solution[0]}).json()
    assert step["ok"] and not step["solved"] and step["reply"] == puzzle.solution[1]
    played = list(puzzle.solution[:-1])
    last = alice.post(f"/api/puzzles/{puzzle.id}/move",
                      json={"played": played, "move": puzzle.solution[-1]}).json()
    assert last["ok"] and last["solved"]
    # a wrong first move: not ok, and the solution is shown
    board = puzzle.board()
    wrong = next(board.notation(m) for m in board.legal_moves if m != first)
    bad = alice.post(f"/api/puzzles/{puzzle.id}/move", json={"played": [], "move": wrong}).json()
    assert not bad["ok"] and bad["solution"] == list(puzzle.solution)
    # next: near the rating asked for, never one just seen
    near = alice.get(f"/api/puzzles/next?variant=international&rating={puzzle.rating}"
                     f"&seen={puzzle.id}").json()
    assert abs(near["rating"] - puzzle.rating) <= 150 and near["id"] != puzzle.id
    # bad input: clear 4xx
    for body in ({"played": "x", "move": "1-2"}, {"played": [], "move": "99-98"},
                 {"played": ["32-28"], "move": "1-2"}, {"played": []}):
        r = alice.post(f"/api/puzzles/{puzzle.id}/move", json=body)
        assert 400 <= r.status_code < 500 and r.json()["error"], body
    assert alice.get("/api/puzzles/nope").status_code == 404
    assert alice.get("/api/puzzles/next?variant=klingon").status_code == 400
    assert alice.get("/api/puzzles/next?rating=abc").status_code == 400


def test_importing_the_same_games_twice_does_not_duplicate_them(app, alice):
    text = ('[Event "One"]\n1. 32-28 19-23 *\n\n[Event "Two"]\n1. 33-28 18-23 *\n')
    first = alice.post("/api/import", json={"pdn": text}).json()
    assert len(first["games"]) == 2 and first["errors"] == []
    again = alice.post("/api/import", json={"pdn": text}).json()
    assert [g["id"] for g in again["games"]] == [g["id"] for g in first["games"]]
    assert "imported before" in again["errors"][0]
    assert alice.get("/api/games").json()["total"] == 2
    bob = browser(app)
    try:   # another player's import is theirs: a copy of their own
        mine = bob.post("/api/import", json={"pdn": text}).json()
        assert {g["id"] for g in mine["games"]}.isdisjoint(g["id"] for g in first["games"])
    finally:
        bob.close()


# -- what players expect: results, imported games' headers and NAGs, the engine's line -----------

IMPORT_WITH_NAGS = """[Event "Club championship"]
[Site "Utrecht"]
[Date "2024.05.01"]
[White "Alpha"]
[Black "Beta"]
[Result "1-0"]

{An opening comment} 1. 32-28! {a good start} 19-23?! 2. 28x19 $3 14x23 1-0
"""


def test_one_result_notation_per_variant_everywhere(alice):
    for variant, win, draw in (("international", "0-2", "1-1"), ("brazilian", "0-2", "1-1"),
                               ("russian", "0-2", "1-1"), ("english", "0-1", "1/2-1/2")):
        gid = alice.post("/api/games", json={"variant": variant, "color": "both"}).json()["id"]
        state = alice.post(f"/api/games/{gid}/resign", json={"color": "white"}).json()["game"]
        assert state["outcome"]["pdn_result"] == win, variant
        listed = {g["id"]: g for g in alice.get("/api/games").json()["games"]}
        assert listed[gid]["pdn_result"] == win, variant
        text = alice.get(f"/api/games/{gid}/pdn").text
        assert f'[Result "{win}"]' in text and text.rstrip().endswith(win), variant
        drawn = alice.post("/api/games", json={"variant": variant, "color": "both"}).json()["id"]
        state = alice.post(f"/api/games/{drawn}/draw", json={}).json()["game"]
        assert state["outcome"]["pdn_result"] == draw, variant
        listed = {g["id"]: g for g in alice.get("/api/games").json()["games"]}
        assert listed[drawn]["pdn_result"] == draw, variant
        assert f'[Result "{draw}"]' in alice.get(f"/api/games/{drawn}/pdn").text, variant


def test_imported_headers_nags_and_opening_comment_reach_the_page(alice):
    r = alice.post("/api/import", json={"pdn": IMPORT_WITH_NAGS})
    assert r.status_code == 201, r.text
    gid = r.json()["first"]
    assert r.json()["games"][0]["pdn_result"] == "2-0"   # International: the FMJD style
    state = alice.get(f"/api/games/{gid}").json()
    headers = state["headers"]
    assert (headers["Event"], headers["Site"], headers["Date"]) == (
        "Club championship", "Utrecht", "2024.05.01")
    assert state["outcome"]["pdn_result"] == "2-0"
    tree = state["tree"]
    assert tree[0]["comment"] == "An opening comment"
    nags = {n["text"]: n["nags"] for n in tree[1:]}
    assert nags == {"32-28": [1], "19-23": [6], "28x19": [3], "14x23": []}
    assert tree[1]["comment"] == "a good start"


def test_the_engine_line_shown_is_the_line_of_the_move_played(app, alice):
    gid = alice.post("/api/games", json={"color": "none", "level": 1}).json()["id"]
    finals = []
    with alice.websocket_connect(f"/ws/games/{gid}") as ws:
        while len(finals) < 4:
            message = ws.receive_json()
            if message["type"] == "info" and "played" in message:
                finals.append(message)
    for message in finals:
        # the line is the played move's, or none at all
        assert message["pv"] == [] or message["pv"][0] == message["played"], message


@pytest.mark.parametrize("book", [True, False])
def test_the_engine_opens_from_the_shipped_book_unless_told_not_to(tmp_path, book):
    """``damier serve`` (``create_app``) plays the opening from the shipped book by
    default; ``--no-book`` (``book=False``) makes its engines search from the
    first move."""
    import damier
    from damier.web.engines import Job

    app = create_app(tmp_path / "g.sqlite3", movetime=0.05, analysis_seconds=2,
                     allowed_hosts=["testserver"], book=book)
    with TestClient(app) as client:
        gid = client.post("/api/games", json={"color": "black", "level": 10}).json()["id"]
        state = wait_state(client, gid, lambda s: len(s["moves"]) == 1
                           and not s["engine_thinking"])
        assert state["moves"][0]["text"] in {"32-28", "33-28", "33-29", "34-29", "34-30",
                                             "31-26", "31-27", "32-27", "35-30"}
        pool = app.state.live_games.pool
        result = pool.submit(Job(), lambda engine: engine.search(damier.Board(), movetime=0.05))
        assert result.result().book is book
