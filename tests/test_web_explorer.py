"""The opening explorer of ``damier serve`` (``GET /api/explorer``), through Starlette's
TestClient: the stored games' moves from a position with how those games ended, the
shipped book's moves, the index following the store, and clear errors.

The games are stored here by hand (or played through the API) and their counts worked
out by hand.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (needed by Starlette's TestClient) is not installed")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.applications import Starlette  # noqa: E402
    from starlette.testclient import TestClient  # noqa: E402

import damier  # noqa: E402
from damier.book import shipped_book  # noqa: E402
from damier.web.app import create_app  # noqa: E402
from damier.web.explorer_routes import QUERY_LIMIT, GamesIndex  # noqa: E402
from damier.web.storage import GameStore, StoredGame  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

Row = tuple[str, int, int, int, int]


@pytest.fixture()
def app(tmp_path: Path) -> Starlette:
    return create_app(tmp_path / "games.sqlite3", movetime=0.05, engines=1, hash_mb=1,
                      book=False, allowed_hosts=["testserver"])


@pytest.fixture()
def client(app: Starlette) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def store_game(app: Starlette, moves: list[str], result: str, *,
               variant: str = "international", start_fen: str | None = None) -> StoredGame:
    store: GameStore = app.state.store
    fen = start_fen or damier.Board(variant=variant).fen()
    record = store.create(variant=variant, start_fen=fen, human="white", level=3,
                          moves=moves, result=result)
    time.sleep(0.002)    # the store orders games by their last change (milliseconds)
    return record


def explore(client: TestClient, fen: str | None = None,
            variant: str = "international") -> dict[str, Any]:
    params = {"variant": variant}
    if fen is not None:
        params["fen"] = fen
    response = client.get("/api/explorer", params=params)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def rows(data: dict[str, Any]) -> list[Row]:
    return [(m["move"], m["games"], m["white"], m["draws"], m["black"]) for m in data["games"]]


def fen_after(*moves: str, fen: str | None = None) -> str:
    board = damier.Board(fen)
    for move in moves:
        board.push(move)
    return board.fen()


def index(app: Starlette) -> GamesIndex:
    found: GamesIndex = app.state.explorer_index
    return found


def test_stored_games_are_counted_by_how_they_ended(app: Starlette, client: TestClient) -> None:
    store_game(app, ["32-28", "19-23", "28x19", "14x23"], "1-0")
    store_game(app, ["32-28", "18-23"], "1/2-1/2")
    store_game(app, ["33-28", "18-23"], "0-1")
    store_game(app, ["32-28", "19-23"], "1-0")
    store_game(app, ["32-28", "17-21"], "*")                 # still being played: left out
    store_game(app, ["11-15"], "1-0", variant="english")     # another variant
    store_game(app, ["33-29", "18-23", "29x18"], "0-1", start_fen="W:W33:B18")
    data = explore(client)
    assert data["variant"] == "international"
    assert data["fen"] == damier.Board().fen()
    assert rows(data) == [("32-28", 3, 2, 1, 0), ("33-28", 1, 0, 0, 1)]
    assert data["indexed_games"] == 5
    assert rows(explore(client, fen_after("32-28"))) == [("19-23", 2, 2, 0, 0),
                                                        ("18-23", 1, 0, 1, 0)]
    capture = explore(client, fen_after("32-28", "19-23"))["games"]
    assert capture == [{"move": "28x19", "from": 28, "to": 19, "path": [28, 19],
                        "captures": [23], "games": 1, "white": 1, "draws": 0, "black": 0}]
    assert rows(explore(client, "W:W33:B18")) == [("33-29", 1, 0, 0, 1)]
    english = explore(client, variant="english")
    assert rows(english) == [("11-15", 1, 1, 0, 0)] and english["indexed_games"] == 1
    assert explore(client, fen_after("31-26"))["games"] == []


def test_the_book_moves_are_the_shipped_books(client: TestClient) -> None:
    book = shipped_book("international")
    assert book is not None
    for moves in ((), ("32-28",)):
        board = damier.Board()
        for move in moves:
            board.push(move)
        data = explore(client, board.fen())
        assert [(m["move"], m["from"], m["to"], m["score"], m["depth"]) for m in data["book"]] \
            == [(board.notation(b.move), b.move.from_square, b.move.to_square, b.score, b.depth)
                for b in book.moves(board)]
        assert data["book"] and all(m["mate"] is None for m in data["book"])
    assert explore(client, "W:W33:B18")["book"] == []
    assert explore(client, variant="english")["book"] == []     # no book is shipped for it


def test_a_game_played_through_the_api_counts_once_it_ends(client: TestClient) -> None:
    game = client.post("/api/games", json={"color": "both"}).json()
    for move in ("32-28", "19-23"):
        assert client.post(f"/api/games/{game['id']}/move", json={"move": move}).status_code \
            == 200
    assert explore(client)["games"] == []                   # not over yet
    assert client.post(f"/api/games/{game['id']}/resign",
                       json={"color": "white"}).status_code == 200
    assert rows(explore(client)) == [("32-28", 1, 0, 0, 1)]
    assert rows(explore(client, fen_after("32-28"))) == [("19-23", 1, 0, 0, 1)]


IMPORTED = """[Event "Explorer"]
[Result "2-0"]

1. 32-28 19-23 2. 28x19 14x23 3. 33-28 2-0
"""


def test_an_imported_game_counts_its_whole_main_line(app: Starlette,
                                                    client: TestClient) -> None:
    imported = client.post("/api/import", json={"pdn": IMPORTED}).json()
    game_id = imported["first"]
    assert rows(explore(client, fen_after("32-28", "19-23", "28x19", "14x23"))) == [
        ("33-28", 1, 1, 0, 0)]
    indexed, scans = index(app).indexed, index(app).full_scans
    # stepping back through the game changes what is played, not its main line
    assert client.post(f"/api/games/{game_id}/undo", json={"count": 3}).status_code == 200
    assert rows(explore(client, fen_after("32-28", "19-23", "28x19", "14x23"))) == [
        ("33-28", 1, 1, 0, 0)]
    assert (index(app).indexed, index(app).full_scans) == (indexed, scans)


def test_the_index_follows_the_store(app: Starlette, client: TestClient) -> None:
    first = store_game(app, ["32-28", "19-23"], "1-0")
    assert rows(explore(client)) == [("32-28", 1, 1, 0, 0)]
    assert (index(app).full_scans, index(app).indexed) == (1, 1)
    # unchanged store: nothing is read again or indexed again
    explore(client)
    explore(client, fen_after("32-28"))
    assert (index(app).full_scans, index(app).indexed) == (1, 1)
    # a new finished game is read as a change, and indexed alone
    store_game(app, ["33-28"], "0-1")
    assert rows(explore(client)) == [("32-28", 1, 1, 0, 0), ("33-28", 1, 0, 0, 1)]
    assert (index(app).full_scans, index(app).indexed) == (1, 2)
    # a game that ends is counted then
    running = store_game(app, ["34-29"], "*")
    assert len(explore(client)["games"]) == 2
    app.state.store.save_result(running.id, result="1/2-1/2", termination="agreement",
                                termination_text="draw agreed", winner=None)
    assert rows(explore(client))[2] == ("34-29", 1, 0, 1, 0)
    # a deleted game leaves the counts (the newest games are read again)
    assert app.state.store.delete(first.id)
    data = explore(client)
    assert rows(data) == [("33-28", 1, 0, 0, 1), ("34-29", 1, 0, 1, 0)]
    assert data["indexed_games"] == 2
    assert index(app).full_scans == 2 and index(app).indexed == 3


def test_only_the_newest_games_are_looked_at(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "games.sqlite3")
    try:
        for move in ("31-26", "32-28", "33-28", "34-29", "35-30"):
            store.create(variant="international", start_fen=damier.Board().fen(),
                         human="white", level=3, moves=[move], result="1-0")
            time.sleep(0.002)
        games = GamesIndex(store, max_games=3, max_plies=1)
        answer = games.lookup(damier.get_variant("international"), damier.Board())
        assert answer["indexed_games"] == 3
        assert sorted(m["move"] for m in answer["games"]) == ["33-28", "34-29", "35-30"]
        # one more: the oldest of the three leaves the window
        store.create(variant="international", start_fen=damier.Board().fen(), human="white",
                     level=3, moves=["31-27"], result="0-1")
        answer = games.lookup(damier.get_variant("international"), damier.Board())
        assert sorted(m["move"] for m in answer["games"]) == ["31-27", "34-29", "35-30"]
    finally:
        store.close()


def test_games_that_cannot_be_read_are_left_out(app: Starlette, client: TestClient) -> None:
    store_game(app, ["32-28"], "1-0")
    store_game(app, ["32-28"], "1-0", start_fen="W:W51:B1")            # not a position
    store: GameStore = app.state.store
    store.create(variant="xiangqi", start_fen="?", human="white", level=3, moves=["32-28"],
                 result="1-0")
    store_game(app, ["32-28", "32-27", "19-23"], "0-1")   # an illegal move ends its indexing
    data = explore(client)
    assert rows(data) == [("32-28", 2, 1, 0, 1)]
    assert explore(client, fen_after("32-28"))["games"] == []


@pytest.mark.parametrize("query, field, words", [
    ("variant=xiangqi", "variant", "unknown variant"),
    ("variant=" + "x" * 41, "variant", "too long"),
    ("fen=W:W51:B1", "fen", "invalid FEN"),
    ("fen=garbage", "fen", "invalid FEN"),
    ("variant=english&fen=W:W31-50:B1-20", "fen", "invalid FEN"),
    ("fen=" + "W:W1," * 81, "fen", "too long"),
    ("x=" + "y" * QUERY_LIMIT, None, "query string is too long"),
])
def test_bad_input_is_a_clear_400(client: TestClient, query: str, field: str | None,
                                  words: str) -> None:
    response = client.get(f"/api/explorer?{query}")
    assert response.status_code == 400
    data = response.json()
    assert data["status"] == 400 and words in data["error"]
    assert data.get("field") == field


def test_only_get_is_answered(client: TestClient) -> None:
    response = client.post("/api/explorer", json={})
    assert response.status_code == 405 and "error" in response.json()
