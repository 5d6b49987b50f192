"""The web app's HTTP API and WebSocket (``damier serve``), through Starlette's TestClient.

Needs the web extra (starlette) and httpx; skipped with the reason when missing.
"""

from __future__ import annotations

import json
import sqlite3
import time
import warnings

import pytest

from damier.variants import VARIANTS

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (needed by Starlette's TestClient) is not installed")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import damier  # noqa: E402
from damier import pdn  # noqa: E402
from damier.engine import Engine  # noqa: E402
from damier.web.app import IMPORT_LIMIT, JSON_LIMIT, create_app  # noqa: E402
from damier.web.report import (BLUNDER, INACCURACY, MISTAKE, SCORE_CAP, judge,  # noqa: E402
                               move_loss)
from damier.web.storage import SCHEMA_VERSION, GameStore  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

AMBIGUOUS_FEN = "W:WK47,49:B14,19,29,31,42,5"   # 47x38x24x13x36 or 47x38x20x9x36
DOUBLE_FEN = "W:W38,48:B33,23,3"                 # 38x18 takes two

PDN_WITH_VARIATIONS = """[Event "Import test"]
[White "Alpha"]
[Black "Beta"]
[Result "2-0"]

1. 32-28 19-23 (1... 18-23 2. 37-32 {quiet}) 2. 28x19 14x23 3. 33-28 (3. 34-29 23x34 \
4. 40x29) 3... 23x32 4. 37x28 2-0
"""


@pytest.fixture()
def client(tmp_path):
    app = create_app(tmp_path / "games.sqlite3", movetime=0.05, analysis_seconds=5,
                     allowed_hosts=["testserver"])
    with TestClient(app) as c:
        yield c


def new_game(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def wait_for(client, game_id, predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while True:
        state = client.get(f"/api/games/{game_id}").json()
        if predicate(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; last state: {json.dumps(state)[:500]}")
        time.sleep(0.02)


def idle(state):
    return not state["engine_thinking"]


def texts(state):
    return [m["text"] for m in state["moves"]]


# -- the page ------------------------------------------------------------------------------


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert "/static/board.js" in page.text and "/static/app.js" in page.text
    for name in ("board.js", "app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    missing = client.get("/nope")
    assert missing.status_code == 404
    assert "no such page" in missing.json()["error"]
    assert client.put("/api/games").status_code == 405


def test_variants(client):
    data = client.get("/api/variants").json()
    names = [v["name"] for v in data["variants"]]
    assert names == list(VARIANTS)  # every variant of the registry, in its order
    assert names[:4] == ["international", "english", "russian", "brazilian"]
    intl = data["variants"][0]
    assert (intl["size"], intl["squares"], intl["initial_fen"]) == (10, 50, "W:W31-50:B1-20")
    assert data["levels"] == list(range(1, 11))
    assert data["limits"] == {"json": JSON_LIMIT, "import": IMPORT_LIMIT}


# -- creating games and validation -------------------------------------------------------------


def test_create_game_defaults(client):
    state = new_game(client, color="both")
    assert state["variant"]["name"] == "international"
    assert state["fen"].startswith("W:W31,32")
    assert state["turn"] == "white" and state["human"] == "both"
    assert len(state["legal_moves"]) == 9
    move = next(m for m in state["legal_moves"] if m["text"] == "32-28")
    assert move == {"text": "32-28", "from": 32, "to": 28, "path": [32, 28], "captures": [],
                    "ambiguous": False}
    assert state["moves"] == [] and state["outcome"] is None and not state["over"]
    assert state["white"] == "White" and state["black"] == "Black"
    assert "threefold repetition" in state["rules"]


def test_create_game_other_variants_and_fen(client):
    english = new_game(client, variant="english", color="black", level=1)
    assert english["variant"]["size"] == 8 and english["turn"] == "black"
    assert english["white"] == "damier level 1" and english["black"] == "You"
    setup = new_game(client, fen="B:W18,K31:B12,K24", color="both")
    assert setup["fen"] == "B:W18,K31:B12,K24" and setup["start_fen"] == setup["fen"]


@pytest.mark.parametrize("body, message", [
    ({"level": 0}, "level must be between 1 and 10"),
    ({"level": 11}, "level must be between 1 and 10"),
    ({"level": "5"}, "level must be an integer"),
    ({"level": True}, "level must be an integer"),
    ({"color": "red"}, "color must be one of white, black, both, none"),
    ({"variant": "xiangqi"}, "unknown variant 'xiangqi'"),
    ({"fen": "W:W51:B1"}, "invalid FEN: square 51 is out of range"),
    ({"fen": 42}, "fen must be a string"),
    ({"colour": "white"}, "unknown field 'colour'"),
])
def test_create_game_rejects_bad_fields(client, body, message):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert response.json()["status"] == 400


def test_malformed_bodies(client):
    bad = client.post("/api/games", content=b"{not json",
                      headers={"content-type": "application/json"})
    assert bad.status_code == 400 and "not valid JSON" in bad.json()["error"]
    array = client.post("/api/games", json=[1, 2])
    assert array.status_code == 400 and "must be a JSON object, not list" in array.json()["error"]
    binary = client.post("/api/games", content=b"\xff\xfe",
                         headers={"content-type": "application/json"})
    assert binary.status_code == 400
    big = client.post("/api/games", content=b"{" + b" " * JSON_LIMIT + b"}",
                      headers={"content-type": "application/json"})
    assert big.status_code == 413 and "too large" in big.json()["error"]

    def chunks():
        yield b'{"color": "white", "x": "'
        for _ in range(JSON_LIMIT // 1024 + 1):
            yield b"a" * 1024
        yield b'"}'
    streamed = client.post("/api/games", content=chunks(),
                           headers={"content-type": "application/json"})
    assert streamed.status_code == 413


def test_unknown_game(client):
    for method, path in [("GET", "/api/games/nope"), ("POST", "/api/games/nope/move"),
                         ("POST", "/api/games/nope/undo"), ("POST", "/api/games/nope/redo"),
                         ("POST", "/api/games/nope/resign"), ("POST", "/api/games/nope/draw"),
                         ("GET", "/api/games/nope/pdn"), ("DELETE", "/api/games/nope"),
                         ("POST", "/api/games/nope/go"), ("POST", "/api/games/nope/line"),
                         ("POST", "/api/games/nope/analysis"), ("GET", "/api/games/nope/analysis"),
                         ("DELETE", "/api/games/nope/analysis")]:
        response = client.request(method, path, json={})
        assert response.status_code == 404, (method, path)
        assert response.json()["error"] == "no game with id 'nope'"
    assert client.get("/api/games/" + "x" * 100).status_code == 404


# -- moves -----------------------------------------------------------------------------------------


def test_moves_by_text_and_by_squares(client):
    game = new_game(client, color="both")
    gid = game["id"]
    r = client.post(f"/api/games/{gid}/move", json={"move": "32-28"})
    assert r.status_code == 200 and r.json()["played"] == "32-28"
    r = client.post(f"/api/games/{gid}/move", json={"from": 19, "to": 23})
    assert r.json()["played"] == "19-23"
    state = r.json()["game"]
    assert state["must_capture"] and state["compulsory_capture"] == "a capture is compulsory"
    assert [m["text"] for m in state["legal_moves"]] == ["28x19"]
    r = client.post(f"/api/games/{gid}/move", json={"from": 28, "to": 19, "captures": [23]})
    assert r.json()["played"] == "28x19"
    moves = r.json()["game"]["moves"]
    assert [m["text"] for m in moves] == ["32-28", "19-23", "28x19"]
    assert moves[2]["captures"] == [23] and moves[2]["ply"] == 3
    assert moves[2]["fen"] == r.json()["game"]["fen"]


def test_illegal_moves_are_explained(client):
    gid = new_game(client, color="both")["id"]
    for move in ("32-28", "19-23"):
        client.post(f"/api/games/{gid}/move", json={"move": move})
    r = client.post(f"/api/games/{gid}/move", json={"move": "32-27"})
    assert r.status_code == 400
    body = r.json()
    assert body["error"] == ("illegal move '32-27': a capture is compulsory: the piece on 28 must "
                             "capture; legal moves are 28x19")
    assert body["kind"] == "illegal_move"
    assert body["legal_moves"] == ["28x19"]
    assert body["compulsory_capture"] == "a capture is compulsory"
    r = client.post(f"/api/games/{gid}/move", json={"from": 33, "to": 29})
    assert r.status_code == 400 and "a capture is compulsory" in r.json()["error"]
    for body, message in [({}, 'a move needs "move"'), ({"move": 3228}, "move must be a string"),
                          ({"move": "hello"}, "cannot read move 'hello'"),
                          ({"from": 28}, 'a move needs "move"'),
                          ({"from": 28, "to": 99}, "square 99 is not on the International board"),
                          ({"from": "28", "to": 19}, "from must be an integer"),
                          ({"from": 28, "to": 19, "path": [28]}, "path must hold at least"),
                          ({"from": 28, "to": 19, "path": [27, 19]}, "path must start at from"),
                          ({"from": 28, "to": 19, "path": "28x19"}, "path must be a list"),
                          ({"move": "28x19", "from": 28}, "either move (text) or from/to"),
                          ({"move": "28x19", "extra": 1}, "unknown field 'extra'")]:
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == 400, body
        assert message in r.json()["error"], (body, r.json())


def test_majority_capture_explained(client):
    gid = new_game(client, color="both", fen="W:W38,48:B33,23,3,42")["id"]
    r = client.post(f"/api/games/{gid}/move", json={"move": "48x37"})
    assert r.status_code == 400
    assert ("capturing is compulsory, and the capture taking the most pieces (2) must be played"
            in r.json()["error"])


def test_ambiguous_capture_needs_the_path(client):
    state = new_game(client, color="both", fen=AMBIGUOUS_FEN)
    gid = state["id"]
    legal = state["legal_moves"]
    assert sorted(m["text"] for m in legal) == ["47x38x20x9x36", "47x38x24x13x36"]
    assert all(m["ambiguous"] for m in legal)
    r = client.post(f"/api/games/{gid}/move", json={"from": 47, "to": 36})
    assert r.status_code == 400
    body = r.json()
    assert body["kind"] == "ambiguous_move"
    assert sorted(c["text"] for c in body["candidates"]) == ["47x38x20x9x36", "47x38x24x13x36"]
    r = client.post(f"/api/games/{gid}/move", json={"move": "47x36"})
    assert r.status_code == 400 and "ambiguous move '47x36'" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/move",
                    json={"from": 47, "to": 36, "path": [47, 38, 24, 13, 36]})
    assert r.status_code == 200 and r.json()["played"] == "47x38x24x13x36"
    assert r.json()["game"]["moves"][0]["path"] == [47, 38, 24, 13, 36]


def test_partial_path_and_text(client):
    gid = new_game(client, color="both", fen=AMBIGUOUS_FEN)["id"]
    r = client.post(f"/api/games/{gid}/move", json={"from": 47, "to": 36, "path": [47, 20, 36]})
    assert r.json()["played"] == "47x38x20x9x36"
    client.post(f"/api/games/{gid}/undo", json={})
    r = client.post(f"/api/games/{gid}/move", json={"move": "47x24x36"})
    assert r.json()["played"] == "47x38x24x13x36"


# -- the engine ------------------------------------------------------------------------------------


def test_engine_answers_and_pushes_over_the_websocket(client):
    gid = new_game(client, color="white", level=2)["id"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        first = ws.receive_json()
        assert first["type"] == "state" and first["game"]["id"] == gid
        r = client.post(f"/api/games/{gid}/move", json={"move": "32-28"})
        assert r.status_code == 200
        seen = []
        while True:
            message = ws.receive_json()
            seen.append(message["type"])
            if message["type"] == "state" and message.get("engine_move"):
                break
        assert "info" in seen and "engine" in seen
        state = message["game"]
        assert len(state["moves"]) == 2 and state["turn"] == "white"
        assert state["moves"][1]["text"] == message["engine_move"]
        assert isinstance(message["engine_score"], int)


def test_engine_moves_first_when_human_plays_black(client):
    gid = new_game(client, color="black", level=1)["id"]
    state = wait_for(client, gid, lambda s: len(s["moves"]) == 1 and idle(s))
    assert state["turn"] == "black" and state["human_to_move"]


def test_engine_thinks_off_the_event_loop(tmp_path):
    # No book: from the book the engine's first move would be instant, not a 2 s search.
    app = create_app(tmp_path / "slow.sqlite3", movetime=2.0, allowed_hosts=["testserver"],
                     book=False)
    with TestClient(app) as client:
        gid = new_game(client, color="black", level=10)["id"]   # the engine starts thinking
        other = new_game(client, color="black", level=10)["id"]  # a second game, a second engine
        start = time.monotonic()
        for _ in range(5):
            assert client.get("/api/games").status_code == 200
            state = client.get(f"/api/games/{gid}").json()
        assert time.monotonic() - start < 1.0, "requests were blocked by the search"
        assert state["engine_thinking"]
        r = client.post(f"/api/games/{gid}/move", json={"move": "19-23"})
        assert r.status_code == 409 and r.json()["kind"] == "not_your_turn"
        for g in (gid, other):
            wait_for(client, g, lambda s: len(s["moves"]) == 1 and idle(s), timeout=30)


def test_engine_vs_engine_and_go(client):
    gid = new_game(client, color="none", level=1)["id"]
    wait_for(client, gid, lambda s: len(s["moves"]) >= 4)
    both = new_game(client, color="both")["id"]
    r = client.post(f"/api/games/{both}/go", json={})
    assert r.status_code == 200
    state = wait_for(client, both, lambda s: len(s["moves"]) == 1 and idle(s))
    assert state["turn"] == "black"


def test_draw_offer(client):
    both = new_game(client, color="both")["id"]
    r = client.post(f"/api/games/{both}/draw", json={})
    assert r.status_code == 200 and r.json()["accepted"]
    outcome = r.json()["game"]["outcome"]
    assert outcome["text"] == "draw: agreement" and outcome["result"] == "1/2-1/2"
    assert outcome["pdn_result"] == "1-1"
    # against the engine: a lost position is declined, a dead draw accepted
    lost = new_game(client, color="white", fen="W:W46:B1,2,3,4,5,6,7,8,9,10")["id"]
    r = client.post(f"/api/games/{lost}/draw", json={})
    assert r.status_code == 200 and not r.json()["accepted"]
    assert r.json()["reason"].startswith("the engine declines")
    assert not r.json()["game"]["over"]
    drawn = new_game(client, color="white", fen="W:WK47:BK4")["id"]
    r = client.post(f"/api/games/{drawn}/draw", json={})
    assert r.json()["accepted"] and r.json()["game"]["outcome"]["termination"] == "agreement"
    r = client.post(f"/api/games/{drawn}/draw", json={"please": 1})
    assert r.status_code == 400


# -- undo, redo, lines -----------------------------------------------------------------------------


def test_undo_and_redo(client):
    gid = new_game(client, color="both")["id"]
    for move in ("32-28", "19-23", "28x19"):
        client.post(f"/api/games/{gid}/move", json={"move": move})
    r = client.post(f"/api/games/{gid}/undo", json={"count": 2})
    assert r.json()["undone"] == 2
    state = r.json()["game"]
    assert texts(state) == ["32-28"] and state["redo"] == ["19-23", "28x19"] and state["can_redo"]
    r = client.post(f"/api/games/{gid}/redo", json={})
    assert r.json()["redone"] == 1 and texts(r.json()["game"]) == ["32-28", "19-23"]
    # a different move clears what redo would replay
    r = client.post(f"/api/games/{gid}/undo", json={})
    r = client.post(f"/api/games/{gid}/move", json={"move": "18-23"})
    assert r.json()["game"]["redo"] == []
    assert client.post(f"/api/games/{gid}/undo", json={"count": 0}).status_code == 400
    assert client.post(f"/api/games/{gid}/redo", json={"count": "1"}).status_code == 400
    r = client.post(f"/api/games/{gid}/undo", json={"count": 50})
    assert r.json()["undone"] == 2 and r.json()["game"]["moves"] == []


def test_redo_replays_the_engines_undone_reply(client):
    # Redo puts back the engine's reply that undo took back: the same move, with no new
    # search (before the shared game layer, the engine searched again and could reply
    # differently).
    gid = new_game(client, color="white", level=1)["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "32-28"})
    before = texts(wait_for(client, gid, lambda s: len(s["moves"]) == 2 and idle(s)))
    r = client.post(f"/api/games/{gid}/undo", json={})
    assert r.json()["undone"] == 2 and r.json()["game"]["redo"] == before
    r = client.post(f"/api/games/{gid}/redo", json={})
    assert r.json()["redone"] == 2
    state = r.json()["game"]
    assert texts(state) == before and state["redo"] == [] and state["human_to_move"]
    assert not state["engine_thinking"]     # nothing left for the engine to search


def test_undo_against_the_engine_takes_back_both_moves(client):
    gid = new_game(client, color="white", level=1)["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "32-28"})
    wait_for(client, gid, lambda s: len(s["moves"]) == 2 and idle(s))
    r = client.post(f"/api/games/{gid}/undo")
    assert r.json()["undone"] == 2 and r.json()["game"]["moves"] == []
    assert r.json()["game"]["human_to_move"]


def test_line_replaces_the_move_list(client):
    gid = new_game(client, color="both")["id"]
    r = client.post(f"/api/games/{gid}/line", json={"moves": ["32-28", "19-23", "28x19"]})
    assert r.status_code == 200 and texts(r.json()["game"]) == ["32-28", "19-23", "28x19"]
    r = client.post(f"/api/games/{gid}/line", json={"moves": ["32-28", "18-23"]})
    assert texts(r.json()["game"]) == ["32-28", "18-23"]
    r = client.post(f"/api/games/{gid}/line", json={"moves": ["32-28", "32-27"]})
    assert r.status_code == 400 and r.json()["error"].startswith("move 2 ('32-27')")
    assert client.post(f"/api/games/{gid}/line", json={"moves": "32-28"}).status_code == 400


# -- the end of the game ---------------------------------------------------------------------------


def test_resign(client):
    gid = new_game(client, color="white", level=1)["id"]
    r = client.post(f"/api/games/{gid}/resign", json={})
    state = r.json()["game"]
    assert state["over"] and state["outcome"]["text"] == "Black wins: resignation (White resigned)"
    assert state["outcome"]["result"] == "0-1" and state["outcome"]["pdn_result"] == "0-2"
    assert state["legal_moves"] == []
    again = client.post(f"/api/games/{gid}/move", json={"move": "32-28"})
    assert again.status_code == 409 and "the game is over" in again.json()["error"]
    assert client.post(f"/api/games/{gid}/undo", json={}).status_code == 409
    assert client.post(f"/api/games/{gid}/resign", json={}).status_code == 409
    both = new_game(client, color="both")["id"]
    r = client.post(f"/api/games/{both}/resign", json={"color": "black"})
    assert r.json()["game"]["outcome"]["text"] == "White wins: resignation (Black resigned)"
    r = client.post(f"/api/games/{both}/resign", json={"color": "green"})
    assert r.status_code == 400


def test_results_and_rule_texts(client):
    won = new_game(client, color="both", fen="W:W28:B23")["id"]
    state = client.post(f"/api/games/{won}/move", json={"move": "28x19"}).json()["game"]
    assert state["over"] and state["outcome"]["winner"] == "white"
    assert state["outcome"]["text"] == "White wins: no legal move (Black has no pieces left)"
    assert state["outcome"]["rule"] == "no legal move"

    rep = new_game(client, color="both", fen="W:W36,K47:B15,K4")["id"]
    line = ["47-42", "4-10", "42-47", "10-4"] * 2
    state = client.post(f"/api/games/{rep}/line", json={"moves": line}).json()["game"]
    assert state["outcome"]["text"] == "draw: threefold repetition"

    kings = new_game(client, color="both", fen="W:WK46,K50:BK1,K5")["id"]
    board = damier.Board("W:WK46,K50:BK1,K5")
    seen = {board.fen()}
    line = []
    for _ in range(50):   # 25 king moves each, never repeating a position
        for move in sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square)):
            board.push(move)
            fresh = board.fen() not in seen and not any(m.is_capture for m in board.legal_moves)
            board.pop()
            if fresh:
                break
        line.append(board.notation(move))
        board.push(move)
        seen.add(board.fen())
    state = client.post(f"/api/games/{kings}/line", json={"moves": line[:-1]}).json()["game"]
    assert not state["over"]
    state = client.post(f"/api/games/{kings}/move", json={"move": line[-1]}).json()["game"]
    assert state["outcome"]["text"] == "draw: 25 king moves"
    assert state["outcome"]["termination"] == "king_moves"
    listed = client.get("/api/games").json()["games"]
    assert next(g for g in listed if g["id"] == kings)["termination_text"] == "draw: 25 king moves"


# -- listing, export, import ----------------------------------------------------------------------


def test_list_games(client):
    ids = [new_game(client, color="both")["id"] for _ in range(3)]
    client.post(f"/api/games/{ids[0]}/move", json={"move": "32-28"})
    data = client.get("/api/games").json()
    assert data["total"] == 3
    assert data["games"][0]["id"] == ids[0] and data["games"][0]["plies"] == 1
    assert [g["id"] for g in client.get("/api/games?limit=1&offset=1").json()["games"]] != [ids[0]]
    for query in ("limit=0", "limit=x", "offset=-1", "limit=501"):
        r = client.get(f"/api/games?{query}")
        assert r.status_code == 400, query


def test_export_pdn(client):
    gid = new_game(client, color="both")["id"]
    for move in ("32-28", "19-23", "28x19"):
        client.post(f"/api/games/{gid}/move", json={"move": move})
    client.post(f"/api/games/{gid}/resign", json={"color": "black"})
    r = client.get(f"/api/games/{gid}/pdn")
    assert r.status_code == 200
    assert r.headers["content-disposition"].startswith(f'attachment; filename="damier-{gid}-')
    assert r.headers["content-type"].startswith("application/x-draughts-pdn")
    game = pdn.read_game(r.text)
    assert [str(m) for m in game.mainline_moves()] == ["32-28", "19-23", "28x19"]
    assert game.headers["Result"] == "2-0" and game.headers["White"] == "White"
    assert game.headers["Termination"] == "White wins: resignation (Black resigned)"
    setup = new_game(client, color="both", fen=AMBIGUOUS_FEN)["id"]
    client.post(f"/api/games/{setup}/move", json={"move": "47x38x20x9x36"})
    text = client.get(f"/api/games/{setup}/pdn").text
    assert '[FEN "W:WK47,49:B5,14,19,29,31,42"]' in text and "1. 47x38x20x9x36" in text


def test_import_pdn_with_variations(client):
    r = client.post("/api/import", json={"pdn": PDN_WITH_VARIATIONS})
    assert r.status_code == 201, r.text
    data = r.json()
    assert len(data["games"]) == 1 and data["errors"] == []
    gid = data["first"]
    state = client.get(f"/api/games/{gid}").json()
    assert texts(state) == ["32-28", "19-23", "28x19", "14x23", "33-28", "23x32", "37x28"]
    assert state["white"] == "Alpha" and state["human"] == "both"
    assert state["outcome"]["termination"] == "recorded" and not state["over"]
    tree = state["tree"]
    assert tree[0]["parent"] is None and tree[0]["fen"] == state["start_fen"]
    variation = [n for n in tree if not n["in_line"]]
    assert sorted(n["text"] for n in variation) == ["18-23", "23x34", "34-29", "37-32", "40x29"]
    assert next(n for n in tree if n.get("text") == "37-32")["comment"] == "quiet"
    # the stored game keeps its variations on export
    text = client.get(f"/api/games/{gid}/pdn").text
    assert "(1... 18-23 2. 37-32 {quiet})" in text and '[Event "Import test"]' in text
    assert '[Result "2-0"]' in text
    # playing into a variation keeps the tree
    r = client.post(f"/api/games/{gid}/line", json={"moves": ["32-28", "18-23"]})
    state = r.json()["game"]
    assert texts(state) == ["32-28", "18-23"]
    assert [n["text"] for n in state["tree"] if n["in_line"] and n["parent"] is not None] == [
        "32-28", "18-23", "37-32"][:2]


def test_import_upload_and_limits(client):
    two = PDN_WITH_VARIATIONS + "\n[Event \"Second\"]\n1. 31-27 *\n"
    r = client.post("/api/import", content=two.encode(),
                    headers={"content-type": "application/octet-stream"})
    assert r.status_code == 201 and len(r.json()["games"]) == 2
    assert r.json()["games"][1]["event"] == "Second"
    r = client.post("/api/import", content=b"x" * (IMPORT_LIMIT + 1),
                    headers={"content-type": "text/plain"})
    assert r.status_code == 413 and "too large" in r.json()["error"]
    r = client.post("/api/import", content=b"   ", headers={"content-type": "text/plain"})
    assert r.status_code == 400 and r.json()["error"] == "the PDN is empty"
    r = client.post("/api/import", content=b"1. 32-29 *", headers={"content-type": "text/plain"})
    assert r.status_code == 400 and 'illegal move "32-29"' in r.json()["error"]
    assert r.json()["errors"]
    r = client.post("/api/import", json={"text": "1. 32-28 *"})
    assert r.status_code == 400 and "unknown field 'text'" in r.json()["error"]
    r = client.post("/api/import", json={})
    assert r.status_code == 400
    latin = '[Event "Caf\xe9"]\n1. 32-28 *\n'.encode("latin-1")
    r = client.post("/api/import", content=latin, headers={"content-type": "text/plain"})
    assert r.status_code == 201 and r.json()["games"][0]["event"] == "Caf\xe9"


def test_check_position(client):
    r = client.post("/api/position", json={"variant": "international", "fen": AMBIGUOUS_FEN})
    assert r.status_code == 200
    data = r.json()
    assert data["turn"] == "white" and len(data["legal_moves"]) == 2
    assert data["compulsory_capture"].startswith("capturing is compulsory")
    r = client.post("/api/position", json={"fen": "W:W1:B50"})
    assert r.status_code == 400 and "crowning row" in r.json()["error"]
    assert client.post("/api/position", json={"variant": "english"}).status_code == 400


def test_delete_game(client):
    gid = new_game(client, color="both")["id"]
    assert client.delete(f"/api/games/{gid}").json() == {"deleted": gid}
    assert client.get(f"/api/games/{gid}").status_code == 404


# -- the WebSocket ---------------------------------------------------------------------------------


def test_websocket_analysis_and_errors(client):
    gid = new_game(client, color="both")["id"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_text("{oops")
        assert "not valid JSON" in ws.receive_json()["error"]
        ws.send_json({"type": "dance"})
        assert "unknown message type 'dance'" in ws.receive_json()["error"]
        ws.send_json([1])
        assert ws.receive_json()["type"] == "error"
        ws.send_json({"type": "analyse", "multipv": 9})
        assert "multipv must be between 1 and 5" in ws.receive_json()["error"]
        ws.send_json({"type": "analyse", "fen": "W:W51"})
        assert "invalid FEN" in ws.receive_json()["error"]
        ws.send_text("x" * 20000)
        assert "too large" in ws.receive_json()["error"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        ws.send_json({"type": "analyse", "multipv": 2})
        assert ws.receive_json()["type"] == "analysis_started"
        depths = []
        while True:
            message = ws.receive_json()
            assert message["type"] == "analysis"
            if message["lines"]:
                assert len(message["lines"]) == 2
                line = message["lines"][0]
                assert line["pv"] and line["score_text"] and line["move"]["from"] in range(31, 51)
                depths.append(message["depth"])
            if len(depths) >= 4:
                break
        assert depths == sorted(depths)
        ws.send_json({"type": "stop"})
        while ws.receive_json()["type"] != "analysis_stopped":
            pass
        ws.send_json({"type": "state"})
        assert ws.receive_json()["type"] == "state"


def test_websocket_unknown_game(client):
    with client.websocket_connect("/ws/games/nope") as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and message["status"] == 404


def test_websocket_sees_changes_made_over_http(client):
    gid = new_game(client, color="both")["id"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        client.post(f"/api/games/{gid}/move", json={"move": "32-28"})
        message = ws.receive_json()
        assert message["type"] == "state" and texts(message["game"]) == ["32-28"]
        assert message["played"] == "32-28"


# -- game reports ----------------------------------------------------------------------------------

# 3. 31-27?? lets Black take two men at once: 21x32x23 (21 takes 27, then 28).
BLUNDER_GAME = ["32-28", "17-21", "34-30", "20-24", "31-27", "21x23"]
MATE = 31000


def finished_game(client, moves, **body):
    """A two-player game of ``moves`` that White resigned (a finished game)."""
    gid = new_game(client, color="both", **body)["id"]
    r = client.post(f"/api/games/{gid}/line", json={"moves": moves})
    assert r.status_code == 200, r.text
    r = client.post(f"/api/games/{gid}/resign", json={"color": "white"})
    assert r.json()["game"]["over"] and r.json()["game"]["can_analyse_game"]
    return gid


def wait_report(client, gid, timeout=30.0):
    state = wait_for(client, gid, lambda s: s["report"]["status"] != "running", timeout=timeout)
    assert state["report"]["status"] == "done", state["report"]
    r = client.get(f"/api/games/{gid}/analysis")
    assert r.status_code == 200, r.text
    return r.json()


def test_report_thresholds_and_forced_results():
    assert (INACCURACY, MISTAKE, BLUNDER, SCORE_CAP) == (30, 80, 200, 500)
    assert [judge(x) for x in (0, 29, 30, 79, 80, 199, 200, 5000)] == [
        (None, None), (None, None), ("inaccuracy", "?!"), ("inaccuracy", "?!"),
        ("mistake", "?"), ("mistake", "?"), ("blunder", "??"), ("blunder", "??")]
    assert move_loss(10, -25) == 35 and move_loss(-40, 60) == 0   # a better score is no loss
    assert move_loss(900, 600) == 0            # still more than five men up: decided anyway
    assert move_loss(MATE - 9, MATE - 15) == 0  # a slower forced win is still a win
    assert move_loss(MATE - 9, 350) == SCORE_CAP - 350   # a forced win traded for +3.50
    assert move_loss(MATE - 9, 0) == SCORE_CAP           # a forced win thrown away: a blunder
    assert move_loss(0, -MATE + 12) == SCORE_CAP         # walking into a forced loss
    assert move_loss(-MATE + 20, -MATE + 4) == 0          # lost anyway: no loss
    assert move_loss(50, -300, best=True) == 0 and move_loss(50, -300, forced=True) == 0


def test_report_marks_a_blunder(tmp_path):
    # the blunder is objective: after 31-27 Black's only moves are captures of two men
    board = damier.Board()
    for move in BLUNDER_GAME[:5]:
        board.push(move)
    assert [len(m.captures) for m in board.legal_moves] == [2]
    db = tmp_path / "report.sqlite3"
    with TestClient(create_app(db, movetime=0.05, allowed_hosts=["testserver"])) as client:
        gid = finished_game(client, BLUNDER_GAME, white="Ann", black="Bob")
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            assert ws.receive_json()["game"]["report"] == {"status": "none"}
            r = client.post(f"/api/games/{gid}/analysis", json={"depth": 4})
            assert r.status_code == 202, r.text
            assert r.json()["status"] == "running" and r.json()["plies"] == 6
            assert r.json()["depth"] == 4
            seen = []
            while True:
                message = ws.receive_json()
                if message["type"] == "report_progress":
                    assert message["plies"] == 6 and message["position"]["ply"] == message["ply"]
                    assert (message["move"] is None) == (message["ply"] == 0)
                    seen.append(message["ply"])
                elif message["type"] == "report_done":
                    assert message["summary"]["white"]["blunders"] == 1
                    break
                else:
                    assert message["type"] in ("report_started", "state"), message
        assert seen == list(range(7))   # ply 0 (the start) to 6
        report = wait_report(client, gid)
        assert report["status"] == "done" and not report["stale"] and report["game_id"] == gid
        assert report["moves"] == BLUNDER_GAME and report["depth"] == 4
        assert report["thresholds"] == {"inaccuracy": 30, "mistake": 80, "blunder": 200, "cap": 500}
        assert len(report["positions"]) == 7 and len(report["plies"]) == 6
        start = report["positions"][0]
        assert start["ply"] == 0 and start["turn"] == "white" and start["depth"] == 4
        assert start["best"]["from"] in range(31, 36) and start["pv"]
        blunder = report["plies"][4]
        assert blunder["ply"] == 5 and blunder["move"] == "31-27" and blunder["color"] == "white"
        assert (blunder["judgement"], blunder["mark"]) == ("blunder", "??")
        assert blunder["loss"] >= BLUNDER and not blunder["played_best"]
        assert blunder["score_before"] > -50 and blunder["score_after"] <= -150
        assert blunder["score_after"] == blunder["white_score_after"]   # White moved
        assert blunder["best_move"] != "31-27" and blunder["best"]["text"] == blunder["best_move"]
        assert blunder["best"]["path"][0] == blunder["best"]["from"]
        assert blunder["best_pv"][0] == blunder["best_move"]
        assert blunder["text_after"].startswith("-")
        reply = report["plies"][5]
        assert reply["move"] == "21x23" and reply["played_best"] and reply["forced"]
        assert reply["judgement"] is None and reply["loss"] == 0 and reply["color"] == "black"
        for entry in report["plies"]:
            assert set(entry) >= {"ply", "move", "color", "score_before", "score_after", "best",
                                  "best_move", "best_pv", "loss", "judgement", "mark"}
        white, black = report["summary"]["white"], report["summary"]["black"]
        assert white["name"] == "Ann" and white["moves"] == 3 and white["blunders"] == 1
        assert white["average_loss"] >= BLUNDER / 3
        assert black["name"] == "Bob" and black["moves"] == 3 and black["blunders"] == 0
        assert black["mistakes"] == 0
        state = client.get(f"/api/games/{gid}").json()
        assert state["report"]["status"] == "done" and not state["report"]["stale"]
        cookies = dict(client.cookies)
    # stored: a new server finds it, in its own table of the database
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
        row = con.execute("SELECT moves FROM reports WHERE game_id = ?", (gid,)).fetchone()
        assert json.loads(row[0]) == BLUNDER_GAME
    with TestClient(create_app(db, movetime=0.05, allowed_hosts=["testserver"]),
                    cookies=cookies) as client:
        again = client.get(f"/api/games/{gid}/analysis").json()
        assert again["plies"] == report["plies"] and again["summary"] == report["summary"]
        assert client.get(f"/api/games/{gid}").json()["report"]["status"] == "done"
        # deleting the game (its owner may) deletes its report
        assert client.delete(f"/api/games/{gid}").status_code == 200
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM reports").fetchone()[0] == 0


def test_report_of_a_game_without_mistakes(client):
    # both sides play the engine's own choice at the depth of the analysis
    engine = Engine(hash_mb=16)
    board = damier.Board()
    line = []
    for _ in range(12):
        engine.new_game()
        move = engine.search(board, depth=4).best_move
        line.append(board.notation(move))
        board.push(move)
    gid = finished_game(client, line)
    assert client.post(f"/api/games/{gid}/analysis", json={"depth": 4}).status_code == 202
    report = wait_report(client, gid)
    assert [p["move"] for p in report["plies"]] == line
    assert all(p["played_best"] or p["forced"] for p in report["plies"])
    assert [p["judgement"] for p in report["plies"]] == [None] * 12
    assert [p["mark"] for p in report["plies"]] == [None] * 12
    for colour in ("white", "black"):
        summary = report["summary"][colour]
        assert (summary["inaccuracies"], summary["mistakes"], summary["blunders"]) == (0, 0, 0)
        assert summary["average_loss"] == 0 and summary["moves"] == 6


def test_report_of_an_imported_game_and_the_end_of_a_game(client):
    r = client.post("/api/import", json={"pdn": PDN_WITH_VARIATIONS})
    gid = r.json()["first"]
    state = client.get(f"/api/games/{gid}").json()
    assert not state["over"] and state["can_analyse_game"]   # imported: it may be analysed
    r = client.post(f"/api/games/{gid}/analysis", json={"depth": 3, "movetime": 0.5})
    assert r.status_code == 202 and r.json()["movetime"] == 0.5
    report = wait_report(client, gid)
    assert len(report["plies"]) == 7 and report["movetime"] == 0.5
    # once the moves change, the report is out of date (and kept)
    client.post(f"/api/games/{gid}/line", json={"moves": ["32-28", "18-23"]})
    assert client.get(f"/api/games/{gid}").json()["report"] == {
        "status": "done", "stale": True, "created_at": client.get(f"/api/games/{gid}").json()[
            "report"]["created_at"]}
    stale = client.get(f"/api/games/{gid}/analysis").json()
    assert stale["stale"] and len(stale["plies"]) == 7
    # a game won on the board: the last position is a forced result, not an engine score
    won = new_game(client, color="both", fen="W:W28:B23")["id"]
    client.post(f"/api/games/{won}/move", json={"move": "28x19"})
    client.post(f"/api/games/{won}/analysis", json={"depth": 2})
    report = wait_report(client, won)
    last = report["positions"][-1]
    assert last["terminal"] and last["white_score"] == MATE and last["best"] is None
    assert report["plies"][0]["forced"] and report["plies"][0]["judgement"] is None


@pytest.mark.parametrize("body, message", [
    ({"depth": 0}, "depth must be between 1 and 30, got 0"),
    ({"depth": 31}, "depth must be between 1 and 30, got 31"),
    ({"depth": "4"}, "depth must be an integer"),
    ({"depth": 4.5}, "depth must be an integer"),
    ({"movetime": 0}, "movetime must be between 0.01 and 10 seconds, got 0"),
    ({"movetime": 11}, "movetime must be between 0.01 and 10 seconds, got 11"),
    ({"movetime": "1"}, "movetime must be a number of seconds"),
    ({"movetime": True}, "movetime must be a number of seconds"),
    ({"movetime": None, "speed": 1}, "unknown field 'speed'"),
])
def test_report_rejects_bad_requests(client, body, message):
    gid = finished_game(client, BLUNDER_GAME)
    r = client.post(f"/api/games/{gid}/analysis", json=body)
    assert r.status_code == 400, r.text
    assert message in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json()["report"] == {"status": "none"}


def test_report_refusals(client):
    gid = finished_game(client, BLUNDER_GAME)
    r = client.post(f"/api/games/{gid}/analysis", content=b"{depth",
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/analysis", json=[4])
    assert r.status_code == 400 and "must be a JSON object" in r.json()["error"]
    r = client.get(f"/api/games/{gid}/analysis")
    assert r.status_code == 404 and r.json()["kind"] == "no_analysis"
    assert "has not been analysed yet" in r.json()["error"]
    # a game still being played, and a game without moves
    playing = new_game(client, color="both")["id"]
    client.post(f"/api/games/{playing}/move", json={"move": "32-28"})
    assert not client.get(f"/api/games/{playing}").json()["can_analyse_game"]
    r = client.post(f"/api/games/{playing}/analysis", json={})
    assert r.status_code == 409 and r.json()["kind"] == "cannot_analyse"
    assert "still being played" in r.json()["error"]
    empty = new_game(client, color="both")["id"]
    client.post(f"/api/games/{empty}/resign", json={"color": "white"})
    r = client.post(f"/api/games/{empty}/analysis", json={})
    assert r.status_code == 409 and r.json()["error"] == "the game has no moves to analyse"


def test_report_already_running_and_stopped(client):
    gid = finished_game(client, BLUNDER_GAME)
    r = client.post(f"/api/games/{gid}/analysis", json={"movetime": 0.5})   # about 3.5 s
    assert r.status_code == 202 and r.json()["depth"] == 40
    again = client.post(f"/api/games/{gid}/analysis", json={"depth": 2})
    assert again.status_code == 409 and again.json()["kind"] == "analysis_running"
    assert "already running" in again.json()["error"]
    # the analysis runs off the event loop
    start = time.monotonic()
    for _ in range(5):
        assert client.get("/api/games").status_code == 200
        state = client.get(f"/api/games/{gid}").json()
    assert time.monotonic() - start < 1.0, "requests were blocked by the analysis"
    assert state["report"]["status"] == "running" and state["report"]["plies"] == 6
    progress = client.get(f"/api/games/{gid}/analysis").json()
    assert progress["status"] == "running" and 0 <= progress["ply"] <= 6
    done = progress["partial"]["positions"]   # the evaluations so far
    assert [p["ply"] for p in done] == list(range(len(done)))
    assert len(progress["partial"]["plies"]) == max(0, len(done) - 1)
    r = client.delete(f"/api/games/{gid}/analysis")
    assert r.status_code == 200 and r.json() == {"stopped": True, "deleted": False}
    state = wait_for(client, gid, lambda s: s["report"]["status"] != "running", timeout=5)
    assert state["report"] == {"status": "none"}
    assert client.get(f"/api/games/{gid}/analysis").status_code == 404
    # it may start again, and the stored report can be forgotten
    assert client.post(f"/api/games/{gid}/analysis", json={"depth": 2}).status_code == 202
    wait_report(client, gid)
    assert client.delete(f"/api/games/{gid}/analysis").json() == {"stopped": False, "deleted": True}
    assert client.get(f"/api/games/{gid}").json()["report"] == {"status": "none"}


def test_store_migrates_a_version_1_database(tmp_path):
    db = tmp_path / "old.sqlite3"
    with sqlite3.connect(db) as con:   # the schema of version 1: the games table only
        con.execute("CREATE TABLE games (id TEXT PRIMARY KEY, variant TEXT NOT NULL, "
                    "start_fen TEXT NOT NULL, moves TEXT NOT NULL DEFAULT '[]', "
                    "redo TEXT NOT NULL DEFAULT '[]', white TEXT NOT NULL DEFAULT '?', "
                    "black TEXT NOT NULL DEFAULT '?', human TEXT NOT NULL, level INTEGER NOT NULL, "
                    "result TEXT NOT NULL DEFAULT '*', termination TEXT, termination_text TEXT, "
                    "winner TEXT, headers TEXT NOT NULL DEFAULT '{}', pdn TEXT, "
                    "created_at TEXT NOT NULL, updated_at TEXT NOT NULL)")
        con.execute("INSERT INTO games (id, variant, start_fen, moves, human, level, created_at, "
                    "updated_at) VALUES ('old', 'international', 'W:W31-50:B1-20', '[\"32-28\"]', "
                    "'both', 3, '2024-01-01', '2024-01-01')")
        con.execute("PRAGMA user_version=1")
    store = GameStore(db)
    assert store.get("old").moves == ["32-28"] and store.report_info("old") is None
    store.save_report("old", {"start_fen": "W:W31-50:B1-20", "moves": ["32-28"], "plies": []})
    assert store.report_info("old")["moves"] == ["32-28"]
    assert store.get_report("old")["plies"] == []
    store.save_report("gone", {"start_fen": "x", "moves": [], "plies": []})   # no such game
    assert store.get_report("gone") is None
    store.close()
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA user_version=99")
    with pytest.raises(RuntimeError, match="newer damier"):
        GameStore(db)


def test_store_migrates_a_version_3_database_and_its_games_play_on(tmp_path):
    # A database of schema 3 (before clocks) opens: the clock columns are added, NULL
    # (untimed games), and its games load and go on.
    from damier.web import storage
    from damier.web.session import GameSession
    db = tmp_path / "v3.sqlite3"
    with sqlite3.connect(db) as con:
        con.executescript(storage._SCHEMA + storage._REPORTS + storage._PLAYERS)
        con.execute("INSERT INTO games (id, variant, start_fen, moves, redo, human, level, "
                    "created_at, updated_at) VALUES ('v3', 'international', 'W:W31-50:B1-20', "
                    "'[\"32-28\", \"19-23\"]', '[\"14x23\", \"28x19\"]', 'both', 3, "
                    "'2024-01-01', '2024-01-01')")
        con.execute("PRAGMA user_version=3")
    store = GameStore(db)
    record = store.get("v3")
    assert (record.clock_initial, record.clock_increment, record.clock_state) == (None, None, None)
    session = GameSession.load(store, "v3")
    assert session.game.clocks is None and session.state()["clock"] is None
    assert session.state()["redo"] == ["28x19", "14x23"]
    assert session.redo(1) == 1 and session.record.moves == ["32-28", "19-23", "28x19"]
    assert store.get("v3").moves == ["32-28", "19-23", "28x19"]
    store.close()
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {row[1] for row in con.execute("PRAGMA table_info(games)")}
        assert {"clock_initial", "clock_increment", "clock_state"} <= columns


# -- storage ---------------------------------------------------------------------------------------


def test_games_survive_a_new_server(tmp_path):
    db = tmp_path / "keep.sqlite3"
    with TestClient(create_app(db, movetime=0.05, allowed_hosts=["testserver"])) as client:
        gid = new_game(client, color="white", level=1)["id"]
        client.post(f"/api/games/{gid}/move", json={"move": "32-28"})
        before = wait_for(client, gid, lambda s: len(s["moves"]) == 2 and idle(s))
        cookies = dict(client.cookies)
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        row = con.execute("SELECT moves, human, level FROM games WHERE id = ?", (gid,)).fetchone()
        assert json.loads(row[0]) == texts(before) and row[1:] == ("white", 1)
    with TestClient(create_app(db, movetime=0.05, allowed_hosts=["testserver"]),
                    cookies=cookies) as client:   # the same player, back on a new server
        after = client.get(f"/api/games/{gid}").json()
        assert texts(after) == texts(before) and after["fen"] == before["fen"]
        assert client.get("/api/games").json()["total"] == 1
        assert after["you"] == {"owner": True, "seats": ["white"], "spectator": False}


def test_store_directly(tmp_path):
    store = GameStore(tmp_path / "direct.sqlite3")
    record = store.create(variant="english", start_fen="B:W21-32:B1-12", human="both", level=3)
    store.save_moves(record.id, ["11-15"], redo=["23-19"])
    store.save_result(record.id, result="1-0", termination="resignation",
                      termination_text="White wins: Black resigned", winner="white")
    again = store.get(record.id)
    assert again.moves == ["11-15"] and again.redo == ["23-19"] and again.result == "1-0"
    assert store.get("missing") is None
    with pytest.raises(KeyError):
        store.save_moves("missing", [], redo=[])
    assert store.delete(record.id) and store.count() == 0
    store.close()


def test_serve_command_line():
    from damier.cli import build_parser
    args = build_parser().parse_args(["serve", "--port", "9999", "--db", "x.sqlite3"])
    assert ((args.command, args.host, args.port, args.db)
            == ("serve", "127.0.0.1", 9999, "x.sqlite3"))
    import io

    from damier.cli.serve import serve_command
    err = io.StringIO()
    args = build_parser().parse_args(["serve", "--port", "70000", "--db", ":memory:"])
    assert serve_command(args, io.StringIO(), err) == 2 and "--port" in err.getvalue()
