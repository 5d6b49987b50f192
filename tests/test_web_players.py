"""What players expect of the web app (``damier serve``), through the API: real names in
games between two people, rematches, take-back requests, chat between the players, an
imported game's export that follows the line played, counts of moves that say what
they count, and a live analysis that looks past a forced capture.

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

from damier import pdn  # noqa: E402
from damier.web.app import create_app  # noqa: E402
from damier.web.live import CHAT_BURST, CHAT_LENGTH  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")


@pytest.fixture()
def app(tmp_path):
    return create_app(tmp_path / "g.sqlite3", movetime=0.05, analysis_seconds=5,
                      allowed_hosts=["testserver"])


@pytest.fixture()
def alice(app):
    with TestClient(app) as c:
        yield c


def wait_state(client, gid, predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while True:
        state = client.get(f"/api/games/{gid}").json()
        if predicate(state):
            return state
        assert time.monotonic() < deadline, state
        time.sleep(0.05)


def texts(state):
    return [m["text"] for m in state["moves"]]


def friend_game(app, alice, *, color="white", name="Ann", bob_cookie=None, **extra):
    """A game between alice (``color``) and bob, who joined by the link; returns
    ``(game id, bob's client)``."""
    body = {"opponent": "friend", "color": color, **extra}
    if name is not None:
        body["name"] = name
    game = alice.post("/api/games", json=body).json()
    bob = TestClient(app, cookies=bob_cookie or {})
    r = bob.post(f"/api/games/{game['id']}/join", json={"invite": game["you"]["invite"]})
    assert r.status_code == 200, r.text
    return game["id"], bob


# -- names -----------------------------------------------------------------------------------------


def test_a_friend_game_carries_both_players_real_names(app, alice):
    """Issue (player) 1: the names were "You" and "Friend" for everybody (the joiner, a
    spectator and the PDN included); they are the players' own now."""
    game = alice.post("/api/games", json={"opponent": "friend", "color": "white",
                                          "name": "  Ann   Smith "}).json()
    assert (game["white"], game["black"]) == ("Ann Smith", "Black")   # the seat still open
    gid = game["id"]
    # the joiner's name comes from the page's name cookie (URL-encoded UTF-8)
    bob = TestClient(app, cookies={"damier_name": "Bo%C3%AB"})
    carol = TestClient(app)
    try:
        r = bob.post(f"/api/games/{gid}/join", json={"invite": game["you"]["invite"]})
        assert r.status_code == 200 and r.json()["joined"] == "black"
        for client in (alice, bob, carol):       # the players and a spectator alike
            state = client.get(f"/api/games/{gid}").json()
            assert (state["white"], state["black"]) == ("Ann Smith", "Boë")
        text = carol.get(f"/api/games/{gid}/pdn").text
        assert '[White "Ann Smith"]' in text and '[Black "Boë"]' in text
        listed = alice.get("/api/games").json()["games"][0]
        assert (listed["white"], listed["black"]) == ("Ann Smith", "Boë")
    finally:
        bob.close()
        carol.close()


def test_names_default_to_the_colours_and_bad_names_are_refused(app, alice):
    gid, bob = friend_game(app, alice, color="black", name=None)
    try:
        state = alice.get(f"/api/games/{gid}").json()
        assert (state["white"], state["black"]) == ("White", "Black")
    finally:
        bob.close()
    for bad, words in (("", "empty"), ("x" * 41, "too long"), ('Eve "root"', "quotes"),
                       ("a\x00b", "control"), (5, "string")):
        r = alice.post("/api/games", json={"opponent": "friend", "color": "white",
                                           "name": bad})
        assert r.status_code == 400 and r.json()["field"] == "name", (bad, r.text)
        assert words in r.json()["error"], (bad, r.json())
    # a bad name cookie is ignored, not an error
    odd = TestClient(app, cookies={"damier_name": "%ff%fe"})   # not "with": one lifespan
    try:
        r = odd.post("/api/games", json={"color": "white"})
        assert r.status_code == 201 and r.json()["white"] == "You"
    finally:
        odd.close()
    # against the engine, a name given replaces "You"
    r = alice.post("/api/games", json={"color": "black", "name": "Ann", "level": 1})
    assert r.json()["black"] == "Ann" and r.json()["white"] == "damier level 1"


# -- imported games: the export follows the line played, the counts say what they count ------------

IMPORTED = """[Event "Count test"]
[White "Alpha"]
[Black "Beta"]
[Result "*"]

1. 32-28 19-23 2. 28x19 14x23 3. 37-32 10-14 4. 34-29 23x34 5. 40x29 *
"""


def test_a_new_move_in_an_imported_game_is_the_exported_main_line(alice):
    """Issue (player) 5: the page showed the new move as the main line, the export kept
    the old one; the list said "Moves" of a count of plies."""
    gid = alice.post("/api/import", json={"pdn": IMPORTED}).json()["first"]
    listed = {g["id"]: g for g in alice.get("/api/games").json()["games"]}[gid]
    assert (listed["plies"], listed["moves"]) == (9, 5)
    # from the position after 2... 14x23, a new move
    line = ["32-28", "19-23", "28x19", "14x23"]
    assert alice.post(f"/api/games/{gid}/line", json={"moves": line}).status_code == 200
    assert alice.post(f"/api/games/{gid}/move", json={"move": "33-28"}).status_code == 200
    state = alice.get(f"/api/games/{gid}").json()
    assert texts(state) == line + ["33-28"]
    exported = pdn.read_game(alice.get(f"/api/games/{gid}/pdn").text)
    assert [str(m) for m in exported.mainline_moves()] == line + ["33-28"]
    # the old line stays, as a variation
    node = exported
    for _ in range(4):
        node = node.variations[0]
    assert [str(v.move) for v in node.variations] == ["33-28", "37-32"]
    listed = {g["id"]: g for g in alice.get("/api/games").json()["games"]}[gid]
    assert (listed["plies"], listed["moves"]) == (5, 3)


def test_undo_in_an_imported_game_keeps_its_length_and_export(alice):
    gid = alice.post("/api/import", json={"pdn": IMPORTED}).json()["first"]
    assert alice.post(f"/api/games/{gid}/undo", json={"count": 3}).json()["undone"] == 3
    listed = {g["id"]: g for g in alice.get("/api/games").json()["games"]}[gid]
    assert (listed["plies"], listed["moves"]) == (9, 5)
    exported = pdn.read_game(alice.get(f"/api/games/{gid}/pdn").text)
    assert len(exported.mainline_moves()) == 9


def test_full_moves_count_from_the_side_to_move(alice):
    # Black to move first in international draughts (White starts): 1... and 2. = 2 moves
    gid = alice.post("/api/games", json={"color": "both",
                                         "fen": "B:W31-50:B1-20"}).json()["id"]
    for move in ("19-23", "32-28"):
        assert alice.post(f"/api/games/{gid}/move", json={"move": move}).status_code == 200
    listed = {g["id"]: g for g in alice.get("/api/games").json()["games"]}[gid]
    assert (listed["plies"], listed["moves"]) == (2, 2)


# -- the live analysis of a forced capture ---------------------------------------------------------


def test_the_analysis_of_a_forced_capture_goes_deeper_than_depth_1(alice):
    """Issue (player) 7: with one legal move the analysis stopped at depth 1."""
    gid = alice.post("/api/games", json={"color": "both"}).json()["id"]
    for move in ("32-28", "19-23"):
        alice.post(f"/api/games/{gid}/move", json={"move": move})
    state = alice.get(f"/api/games/{gid}").json()
    assert [m["text"] for m in state["legal_moves"]] == ["28x19"]     # forced
    with alice.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "analyse", "multipv": 2})
        deepest = None
        while True:
            message = ws.receive_json()
            if message["type"] != "analysis":
                continue
            if message["lines"]:
                deepest = message
            if message["done"] or message["depth"] >= 6:
                break
        ws.send_json({"type": "stop"})
    assert deepest is not None and deepest["depth"] >= 6, deepest
    line = deepest["lines"][0]
    assert len(deepest["lines"]) == 1        # one legal move: one line
    assert line["pv"][0] == "28x19" and len(line["pv"]) >= 4
    assert line["move"]["text"] == "28x19"
    assert line["depth"] >= 6


# -- rematches -------------------------------------------------------------------------------------


def test_a_rematch_against_the_engine_swaps_the_colours(alice):
    game = alice.post("/api/games", json={"color": "white", "level": 1, "clock": "5+3",
                                          "name": "Ann"}).json()
    gid = game["id"]
    r = alice.post(f"/api/games/{gid}/rematch", json={})
    assert r.status_code == 409 and r.json()["kind"] == "not_over"
    alice.post(f"/api/games/{gid}/resign", json={})
    with alice.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        r = alice.post(f"/api/games/{gid}/rematch", json={})
        assert r.status_code == 201, r.text
        new = r.json()["game"]
        while (message := ws.receive_json())["type"] != "rematch":
            pass
        assert message["game"] == new["id"] == r.json()["rematch"]
    assert new["id"] != gid and new["human"] == "black" and new["you"]["seats"] == ["black"]
    assert (new["white"], new["black"]) == ("damier level 1", "Ann")
    assert new["clock"]["initial"] == 300 and new["clock"]["increment"] == 3
    wait_state(alice, new["id"], lambda s: len(s["moves"]) == 1)    # the engine opens
    old = alice.get(f"/api/games/{gid}").json()
    assert old["rematch"]["game"] == new["id"]
    # asked again: the same rematch
    again = alice.post(f"/api/games/{gid}/rematch", json={})
    assert again.status_code == 200 and again.json()["rematch"] == new["id"]


def test_a_rematch_between_friends_needs_both_and_swaps_seats_and_names(app, alice):
    gid, bob = friend_game(app, alice, name="Ann", bob_cookie={"damier_name": "Bob"})
    carol = TestClient(app)
    try:
        bob.post(f"/api/games/{gid}/resign", json={"color": "black"})
        r = carol.post(f"/api/games/{gid}/rematch", json={})
        assert r.status_code == 403
        r = alice.post(f"/api/games/{gid}/rematch", json={})
        assert r.status_code == 200 and r.json()["offered"] and r.json()["rematch"] is None
        assert bob.get(f"/api/games/{gid}").json()["rematch"] == {"offer": "white", "game": None}
        # asking again does not accept one's own offer
        assert alice.post(f"/api/games/{gid}/rematch", json={}).json()["rematch"] is None
        # bob declines; alice offers again; bob accepts
        r = bob.post(f"/api/games/{gid}/rematch", json={"decline": True})
        assert r.status_code == 200 and r.json()["game"]["rematch"]["offer"] is None
        alice.post(f"/api/games/{gid}/rematch", json={})
        with alice.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.receive_json()
            r = bob.post(f"/api/games/{gid}/rematch", json={})
            assert r.status_code == 201, r.text
            new_id = r.json()["rematch"]
            while (message := ws.receive_json())["type"] != "rematch":
                pass
            assert message["game"] == new_id
        new = alice.get(f"/api/games/{new_id}").json()
        assert (new["white"], new["black"]) == ("Bob", "Ann")
        assert new["you"]["seats"] == ["black"] and new["two_players"]
        assert new["open_seat"] is None
        assert bob.get(f"/api/games/{new_id}").json()["you"]["seats"] == ["white"]
        assert carol.get(f"/api/games/{new_id}").json()["you"]["spectator"]
        # bob (now White) moves, alice (Black) answers; not the other way round
        assert alice.post(f"/api/games/{new_id}/move", json={"move": "32-28"}).status_code == 403
        assert bob.post(f"/api/games/{new_id}/move", json={"move": "32-28"}).status_code == 200
        assert alice.post(f"/api/games/{new_id}/move", json={"move": "19-23"}).status_code == 200
        r = bob.post(f"/api/games/{gid}/rematch", json={"decline": "yes"})
        assert r.status_code == 400 and r.json()["field"] == "decline"
    finally:
        bob.close()
        carol.close()


def test_no_rematch_of_an_imported_game_or_without_the_friend(alice):
    gid = alice.post("/api/import", json={"pdn": IMPORTED}).json()["first"]
    r = alice.post(f"/api/games/{gid}/rematch", json={})
    assert r.status_code == 409 and r.json()["kind"] == "no_rematch"
    game = alice.post("/api/games", json={"opponent": "friend", "color": "white"}).json()
    alice.post(f"/api/games/{game['id']}/resign", json={"color": "white"})
    r = alice.post(f"/api/games/{game['id']}/rematch", json={})
    assert r.status_code == 409 and "never joined" in r.json()["error"]


# -- take-back requests ----------------------------------------------------------------------------


def test_take_back_requests_between_friends(app, alice):
    gid, bob = friend_game(app, alice)
    carol = TestClient(app)
    try:
        r = alice.post(f"/api/games/{gid}/takeback", json={})
        assert r.status_code == 409 and r.json()["kind"] == "nothing_to_take_back"
        alice.post(f"/api/games/{gid}/move", json={"move": "32-28"})
        bob.post(f"/api/games/{gid}/move", json={"move": "19-23"})
        # bob asks to take his move back; alice declines
        r = bob.post(f"/api/games/{gid}/takeback", json={})
        assert r.status_code == 200 and r.json()["offered"]
        assert alice.get(f"/api/games/{gid}").json()["takeback_offer"] == "black"
        r = bob.post(f"/api/games/{gid}/takeback", json={"answer": "accept"})
        assert r.status_code == 409 and r.json()["kind"] == "no_takeback_request"
        assert carol.post(f"/api/games/{gid}/takeback", json={"answer": "accept"}
                          ).status_code == 403
        r = alice.post(f"/api/games/{gid}/takeback", json={"answer": "decline"})
        assert r.status_code == 200 and r.json()["game"]["takeback_offer"] is None
        assert texts(r.json()["game"]) == ["32-28", "19-23"]
        # asked again and accepted: his move goes
        bob.post(f"/api/games/{gid}/takeback", json={})
        r = alice.post(f"/api/games/{gid}/takeback", json={"answer": "accept"})
        assert r.status_code == 200 and r.json()["taken_back"] == 1
        assert texts(r.json()["game"]) == ["32-28"]
        # alice asks on her own turn, after bob's reply: both moves go back
        bob.post(f"/api/games/{gid}/move", json={"move": "18-23"})
        alice.post(f"/api/games/{gid}/takeback", json={})
        r = bob.post(f"/api/games/{gid}/takeback", json={"answer": "accept"})
        assert r.json()["taken_back"] == 2 and texts(r.json()["game"]) == []
        # a move lets a request lapse
        alice.post(f"/api/games/{gid}/move", json={"move": "33-28"})
        alice.post(f"/api/games/{gid}/takeback", json={})
        bob.post(f"/api/games/{gid}/move", json={"move": "17-22"})
        state = alice.get(f"/api/games/{gid}").json()
        assert state["takeback_offer"] is None
        r = bob.post(f"/api/games/{gid}/takeback", json={"answer": "accept"})
        assert r.status_code == 409
        r = alice.post(f"/api/games/{gid}/takeback", json={"answer": "maybe"})
        assert r.status_code == 400 and r.json()["field"] == "answer"
    finally:
        bob.close()
        carol.close()
    # against the engine it is Undo
    engine = alice.post("/api/games", json={"color": "white", "level": 1}).json()["id"]
    r = alice.post(f"/api/games/{engine}/takeback", json={})
    assert r.status_code == 409 and r.json()["kind"] == "not_two_players"


# -- chat ------------------------------------------------------------------------------------------


def test_chat_between_friends_is_theirs_bounded_and_plain_text(app, alice):
    gid, bob = friend_game(app, alice, name="Ann")
    carol = TestClient(app)
    try:
        with bob.websocket_connect(f"/ws/games/{gid}") as bob_ws, \
                carol.websocket_connect(f"/ws/games/{gid}") as carol_ws:
            assert bob_ws.receive_json()["game"]["chat"] == []
            assert "chat" not in carol_ws.receive_json()["game"]
            evil = '<img src=x onerror="alert(1)"> hi'
            r = alice.post(f"/api/games/{gid}/chat", json={"text": evil})
            assert r.status_code == 201
            message = r.json()["message"]
            assert (message["color"], message["name"], message["text"]) == ("white", "Ann", evil)
            while (got := bob_ws.receive_json())["type"] != "chat":
                pass
            assert got["message"] == message
            # the spectator hears nothing of it
            carol_ws.send_json({"type": "ping"})
            seen = []
            while (got := carol_ws.receive_json())["type"] != "pong":
                seen.append(got["type"])
            assert "chat" not in seen
        assert bob.get(f"/api/games/{gid}").json()["chat"] == [message]
        assert "chat" not in carol.get(f"/api/games/{gid}").json()
        r = carol.post(f"/api/games/{gid}/chat", json={"text": "hello"})
        assert r.status_code == 403
        for bad, words in (("", "required"), ("   ", "required"),
                           ("x" * (CHAT_LENGTH + 1), "too long"), ("a\x07b", "control"),
                           ("\u202eevil", "control")):
            r = bob.post(f"/api/games/{gid}/chat", json={"text": bad})
            assert r.status_code == 400 and words in r.json()["error"], (bad, r.text)
        # a burst, then a wait
        statuses = [bob.post(f"/api/games/{gid}/chat", json={"text": f"m{i}"}).status_code
                    for i in range(CHAT_BURST + 1)]
        assert statuses == [201] * CHAT_BURST + [429]
        r = bob.post(f"/api/games/{gid}/chat", json={"text": "again"})
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    finally:
        bob.close()
        carol.close()
    # no chat with the engine
    engine = alice.post("/api/games", json={"color": "white", "level": 1}).json()["id"]
    r = alice.post(f"/api/games/{engine}/chat", json={"text": "hi"})
    assert r.status_code == 409


def test_the_chat_is_stored_bounded_and_goes_with_its_game(tmp_path):
    from damier.web.storage import GameDeletedError, GameStore

    store = GameStore(tmp_path / "c.sqlite3")
    record = store.create(variant="international", start_fen="W:W31-50:B1-20", human="both",
                          level=1)
    numbers = [store.add_chat(record.id, {"text": f"m{i}"}, keep=3) for i in range(5)]
    assert numbers == [1, 2, 3, 4, 5]
    assert [(m["id"], m["text"]) for m in store.chat(record.id)] == [
        (3, "m2"), (4, "m3"), (5, "m4")]
    with pytest.raises(GameDeletedError):
        store.add_chat("nope", {"text": "x"}, keep=3)
    assert store.delete(record.id)
    assert store.chat(record.id) == []
    store.close()


def test_the_chat_survives_a_new_server(tmp_path):
    db = tmp_path / "g.sqlite3"
    first = create_app(db, movetime=0.05, allowed_hosts=["testserver"])
    with TestClient(first) as alice:
        gid, bob = friend_game(first, alice)
        try:
            assert bob.post(f"/api/games/{gid}/chat", json={"text": "gg"}).status_code == 201
            cookies = dict(bob.cookies)
        finally:
            bob.close()
    second = create_app(db, movetime=0.05, allowed_hosts=["testserver"])
    with TestClient(second, cookies=cookies) as bob:
        chat = bob.get(f"/api/games/{gid}").json()["chat"]
        assert [(m["id"], m["color"], m["text"]) for m in chat] == [(1, "black", "gg")]
