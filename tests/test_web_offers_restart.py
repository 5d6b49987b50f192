"""Pending offers between two players outlive a restart of ``damier serve``: a draw
offer, a take-back request and a rematch offer are stored with their game (schema 8,
the ``offers`` column), so that after a restart both players' pages show them again and
they can be accepted or declined as before.

Through the HTTP API with Starlette's TestClient. A "restart" is the end of one app
(its lifespan closes the store) and a new app over the same database file; alice and
bob keep their player cookies across it, as their browsers do.
"""

from __future__ import annotations

import logging
import sqlite3
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (needed by Starlette's TestClient) is not installed")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from damier.web.app import create_app  # noqa: E402
from damier.web.security import PLAYER_COOKIE, player_id  # noqa: E402
from damier.web.storage import SCHEMA_VERSION, GameStore, Offers  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

ALICE = "a" * 40
BOB = "b" * 40
"""The secrets of alice's and bob's player cookies (kept across restarts)."""

OPENING = ["32-28", "19-23", "28x19", "14x23"]
"""Four plies of International draughts: white 32-28, black 19-23, white takes on 19,
black takes back on 23 (white to move after them)."""


@contextmanager
def server(db: Path) -> Iterator[tuple[TestClient, TestClient]]:
    """One run of the server over ``db``: alice's and bob's browsers. Leaving the block
    stops it (its store is closed)."""
    app = create_app(db, movetime=0.05, allowed_hosts=["testserver"], engines=1)
    with TestClient(app, cookies={PLAYER_COOKIE: ALICE}) as alice:
        bob = TestClient(app, cookies={PLAYER_COOKIE: BOB})
        try:
            yield alice, bob
        finally:
            bob.close()


def friend_game(alice: TestClient, bob: TestClient, moves: list[str] = OPENING) -> str:
    """A game between alice (white) and bob (black, joined by the link), with ``moves``
    played by turns; returns its id."""
    game = alice.post("/api/games", json={"opponent": "friend", "color": "white",
                                          "name": "Ann"}).json()
    gid = str(game["id"])
    r = bob.post(f"/api/games/{gid}/join", json={"invite": game["you"]["invite"],
                                                 "name": "Bob"})
    assert r.status_code == 200 and r.json()["joined"] == "black", r.text
    for i, move in enumerate(moves):
        mover = alice if i % 2 == 0 else bob
        r = mover.post(f"/api/games/{gid}/move", json={"move": move})
        assert r.status_code == 200, r.text
    return gid


def states(alice: TestClient, bob: TestClient, gid: str) -> list[dict[str, Any]]:
    """The game as alice's and bob's pages get it."""
    out = []
    for client in (alice, bob):
        r = client.get(f"/api/games/{gid}")
        assert r.status_code == 200, r.text
        out.append(r.json())
    return out


def texts(state: dict[str, Any]) -> list[str]:
    return [m["text"] for m in state["moves"]]


def stored(db: Path, gid: str) -> Any:
    """The game as stored (read with the server stopped)."""
    store = GameStore(db)
    try:
        record = store.get(gid)
    finally:
        store.close()
    assert record is not None
    return record


# -- draw offers --------------------------------------------------------------------------------


def test_a_draw_offer_outlives_a_restart_and_is_accepted_after_it(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob)
        r = alice.post(f"/api/games/{gid}/draw", json={})
        assert r.status_code == 200 and not r.json()["accepted"]
    assert stored(db, gid).offers == Offers(draw="white")
    with server(db) as (alice, bob):      # restarted
        for state in states(alice, bob, gid):
            assert state["draw_offer"] == "white" and not state["over"]
        r = bob.post(f"/api/games/{gid}/draw", json={})    # bob accepts by offering too
        assert r.status_code == 200 and r.json()["accepted"], r.text
        game = r.json()["game"]
        assert game["over"] and game["outcome"]["result"] == "1/2-1/2"
        assert game["draw_offer"] is None
    record = stored(db, gid)
    assert (record.result, record.termination) == ("1/2-1/2", "agreement")
    assert record.offers == Offers()
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert state["over"] and state["outcome"]["result"] == "1/2-1/2"
            assert state["draw_offer"] is None


def test_a_draw_offer_declined_by_a_move_after_a_restart_stays_declined(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob, OPENING + ["37-32"])     # black to move
        assert not alice.post(f"/api/games/{gid}/draw", json={}).json()["accepted"]
    with server(db) as (alice, bob):
        assert [s["draw_offer"] for s in states(alice, bob, gid)] == ["white", "white"]
        r = bob.post(f"/api/games/{gid}/move", json={"move": "18-22"})   # plays on
        assert r.status_code == 200, r.text
        assert r.json()["game"]["draw_offer"] is None
    assert stored(db, gid).offers == Offers()
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert state["draw_offer"] is None and not state["over"]
            assert texts(state) == OPENING + ["37-32", "18-22"]
        # the offer is gone: bob's offer now waits for alice, it does not end the game
        r = bob.post(f"/api/games/{gid}/draw", json={})
        assert r.status_code == 200 and not r.json()["accepted"]


def test_a_draw_offer_cleared_by_a_move_before_a_restart_stays_cleared(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob, OPENING + ["37-32"])
        alice.post(f"/api/games/{gid}/draw", json={})
        assert bob.post(f"/api/games/{gid}/move", json={"move": "18-22"}).status_code == 200
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert state["draw_offer"] is None
        r = bob.post(f"/api/games/{gid}/draw", json={})    # an offer, not an acceptance
        assert r.status_code == 200 and not r.json()["accepted"]
        assert r.json()["game"]["draw_offer"] == "black"


# -- take-back requests -------------------------------------------------------------------------


def test_a_takeback_request_outlives_a_restart_and_is_granted_after_it(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob, ["32-28", "19-23"])
        r = bob.post(f"/api/games/{gid}/takeback", json={})
        assert r.status_code == 200 and r.json()["offered"]
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert state["takeback_offer"] == "black"
        r = alice.post(f"/api/games/{gid}/takeback", json={"answer": "accept"})
        assert r.status_code == 200 and r.json()["taken_back"] == 1, r.text
        assert texts(r.json()["game"]) == ["32-28"]
        assert r.json()["game"]["takeback_offer"] is None
    record = stored(db, gid)
    assert record.moves == ["32-28"] and record.offers == Offers()
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert texts(state) == ["32-28"] and state["takeback_offer"] is None
        # granted once: answering again finds no request
        r = alice.post(f"/api/games/{gid}/takeback", json={"answer": "accept"})
        assert r.status_code == 409 and r.json()["kind"] == "no_takeback_request"


def test_a_takeback_request_declined_after_a_restart(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob, ["32-28", "19-23"])
        bob.post(f"/api/games/{gid}/takeback", json={})
    with server(db) as (alice, bob):
        r = alice.post(f"/api/games/{gid}/takeback", json={"answer": "decline"})
        assert r.status_code == 200 and r.json()["taken_back"] == 0, r.text
        assert r.json()["game"]["takeback_offer"] is None
    record = stored(db, gid)
    assert record.moves == ["32-28", "19-23"] and record.offers == Offers()
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert state["takeback_offer"] is None and texts(state) == ["32-28", "19-23"]


def test_a_takeback_request_cleared_by_a_move_before_a_restart_stays_cleared(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob, ["32-28"])
        alice.post(f"/api/games/{gid}/takeback", json={})
        assert bob.get(f"/api/games/{gid}").json()["takeback_offer"] == "white"
        assert bob.post(f"/api/games/{gid}/move", json={"move": "19-23"}).status_code == 200
    assert stored(db, gid).offers == Offers()
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert state["takeback_offer"] is None
        r = bob.post(f"/api/games/{gid}/takeback", json={"answer": "accept"})
        assert r.status_code == 409 and r.json()["kind"] == "no_takeback_request"


def test_offers_cleared_by_an_undo_or_the_games_end_stay_cleared_after_a_restart(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        undone = friend_game(alice, bob)
        resigned = friend_game(alice, bob)
        for gid in (undone, resigned):     # alice offers a draw, bob asks to take back
            assert not alice.post(f"/api/games/{gid}/draw", json={}).json()["accepted"]
            assert bob.post(f"/api/games/{gid}/takeback", json={}).json()["offered"]
        assert stored(db, undone).offers == Offers(draw="white", takeback="black")
        # granted: bob's move goes back, and the draw offer with it (in one write)
        version = stored(db, undone).version
        r = alice.post(f"/api/games/{undone}/takeback", json={"answer": "accept"})
        assert r.status_code == 200 and r.json()["taken_back"] == 1, r.text
        assert stored(db, undone).version == version + 1
        # the game's end clears both
        assert alice.post(f"/api/games/{resigned}/resign", json={"color": "white"}
                          ).status_code == 200
    assert stored(db, undone).offers == stored(db, resigned).offers == Offers()
    with server(db) as (alice, bob):
        for state in states(alice, bob, undone):
            assert texts(state) == OPENING[:3]
            assert state["draw_offer"] is None and state["takeback_offer"] is None
        for state in states(alice, bob, resigned):
            assert state["over"] and state["outcome"]["winner"] == "black"
            assert state["draw_offer"] is None and state["takeback_offer"] is None


# -- rematch offers -----------------------------------------------------------------------------


def test_a_rematch_offer_outlives_a_restart_and_is_accepted_after_it(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob, ["32-28"])
        assert bob.post(f"/api/games/{gid}/resign", json={"color": "black"}).status_code == 200
        r = alice.post(f"/api/games/{gid}/rematch", json={})
        assert r.status_code == 200 and r.json()["offered"]
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert state["rematch"] == {"offer": "white", "game": None}
        r = bob.post(f"/api/games/{gid}/rematch", json={})       # bob accepts
        assert r.status_code == 201, r.text
        new_id = r.json()["rematch"]
        assert new_id != gid
        new_alice, new_bob = states(alice, bob, new_id)
        assert new_alice["you"]["seats"] == ["black"] and new_bob["you"]["seats"] == ["white"]
        assert (new_alice["white"], new_alice["black"]) == ("Bob", "Ann")
        for state in states(alice, bob, gid):
            assert state["rematch"] == {"offer": None, "game": new_id}
    new = stored(db, new_id)
    assert new.white_player == player_id(BOB) and new.black_player == player_id(ALICE)
    assert stored(db, gid).offers == Offers(rematch_game=new_id)
    with server(db) as (alice, bob):
        # the rematch made is still known: asked again, the same game, not a second one
        for state in states(alice, bob, gid):
            assert state["rematch"] == {"offer": None, "game": new_id}
        again = alice.post(f"/api/games/{gid}/rematch", json={})
        assert again.status_code == 200 and again.json()["rematch"] == new_id
        assert alice.get("/api/games").json()["total"] == 2


def test_a_rematch_offer_declined_after_a_restart(tmp_path):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob, ["32-28"])
        bob.post(f"/api/games/{gid}/resign", json={"color": "black"})
        alice.post(f"/api/games/{gid}/rematch", json={})
    with server(db) as (alice, bob):
        r = bob.post(f"/api/games/{gid}/rematch", json={"decline": True})
        assert r.status_code == 200 and r.json()["rematch"] is None, r.text
        assert r.json()["game"]["rematch"] == {"offer": None, "game": None}
    assert stored(db, gid).offers == Offers()
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert state["rematch"] == {"offer": None, "game": None}
        # declined: bob's call is a new offer now, not an acceptance
        r = bob.post(f"/api/games/{gid}/rematch", json={})
        assert r.status_code == 200 and r.json()["offered"]
        assert alice.get("/api/games").json()["total"] == 1


# -- versions: no lost updates --------------------------------------------------------------------


def test_two_servers_never_overwrite_each_others_offers(tmp_path):
    """Two servers over one database (an old one still running during a deploy): an
    offer written through the one that read the game before the other's change is
    refused (409, stale), and the other's offer stays."""
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob)
        alice.get(f"/api/games/{gid}")                  # this server holds the game
        with server(db) as (alice2, bob2):
            r = bob2.post(f"/api/games/{gid}/takeback", json={})
            assert r.status_code == 200 and r.json()["offered"], r.text
            r = alice.post(f"/api/games/{gid}/draw", json={})    # over an older version
            assert r.status_code == 409 and r.json()["kind"] == "stale", r.text
            assert stored(db, gid).offers == Offers(takeback="black")
            # the first server read the game again: alice sees bob's request, and her
            # offer, made again, is stored beside it
            assert alice.get(f"/api/games/{gid}").json()["takeback_offer"] == "black"
            r = alice.post(f"/api/games/{gid}/draw", json={})
            assert r.status_code == 200 and not r.json()["accepted"], r.text
    assert stored(db, gid).offers == Offers(draw="white", takeback="black")
    with server(db) as (alice, bob):
        for state in states(alice, bob, gid):
            assert (state["draw_offer"], state["takeback_offer"]) == ("white", "black")


# -- old databases and damaged values -------------------------------------------------------------

SCHEMA_7 = """
CREATE TABLE games (
    id TEXT PRIMARY KEY, variant TEXT NOT NULL, start_fen TEXT NOT NULL,
    moves TEXT NOT NULL DEFAULT '[]', redo TEXT NOT NULL DEFAULT '[]',
    white TEXT NOT NULL DEFAULT '?', black TEXT NOT NULL DEFAULT '?', human TEXT NOT NULL,
    level INTEGER NOT NULL, result TEXT NOT NULL DEFAULT '*', termination TEXT,
    termination_text TEXT, winner TEXT, headers TEXT NOT NULL DEFAULT '{}', pdn TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    owner TEXT, white_player TEXT, black_player TEXT,
    clock_initial REAL, clock_increment REAL, clock_state TEXT,
    invite TEXT,
    version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX games_updated ON games (updated_at);
CREATE INDEX games_owner ON games (owner);
CREATE TABLE reports (game_id TEXT PRIMARY KEY, start_fen TEXT NOT NULL, moves TEXT NOT NULL,
                      report TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE chats (game_id TEXT NOT NULL, number INTEGER NOT NULL, message TEXT NOT NULL,
                    PRIMARY KEY (game_id, number));
PRAGMA user_version=7;
"""
"""A database as damier's schema 7 left it: the games table without ``offers``."""


def _schema_7_database(db: Path) -> None:
    """A schema-7 database holding one game between alice (white) and bob (black), four
    plies in, at write version 4."""
    with sqlite3.connect(db) as con:
        con.executescript(SCHEMA_7)
        con.execute(
            "INSERT INTO games (id, variant, start_fen, moves, white, black, human, level, "
            "created_at, updated_at, owner, white_player, black_player, version) VALUES "
            "('old7', 'international', 'W:W31-50:B1-20', ?, 'Ann', 'Bob', 'both', 5, "
            "'2024-01-01T00:00:00', '2024-01-01T00:00:00', ?, ?, ?, 4)",
            ('["32-28", "19-23", "28x19", "14x23"]', player_id(ALICE), player_id(ALICE),
             player_id(BOB)))
    con.close()


def test_a_schema_7_database_opens_migrates_and_stores_offers(tmp_path):
    db = tmp_path / "v7.sqlite3"
    _schema_7_database(db)
    with server(db) as (alice, bob):
        for state in states(alice, bob, "old7"):
            assert texts(state) == OPENING and state["two_players"]
            assert state["draw_offer"] is None and state["takeback_offer"] is None
        r = bob.post("/api/games/old7/takeback", json={})
        assert r.status_code == 200 and r.json()["offered"], r.text
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
        row = con.execute("SELECT version, offers FROM games WHERE id = 'old7'").fetchone()
    con.close()
    assert row == (5, '{"takeback":"black"}')      # one write over version 4
    with server(db) as (alice, bob):
        assert [s["takeback_offer"] for s in states(alice, bob, "old7")] == ["black", "black"]
        r = alice.post("/api/games/old7/takeback", json={"answer": "accept"})
        assert r.status_code == 200 and texts(r.json()["game"]) == OPENING[:3]


@pytest.mark.parametrize("value, kept", [
    ("not json {", Offers()),
    ("[\"white\"]", Offers()),
    ("{\"draw\": \"purple\", \"rematch\": 7}", Offers()),
    ("{\"draw\": \"purple\", \"takeback\": \"black\"}", Offers(takeback="black")),
    ("{\"rematch_game\": \"../../etc\"}", Offers()),
])
def test_a_damaged_stored_offer_is_ignored_with_a_warning(tmp_path, caplog, value, kept):
    db = tmp_path / "g.sqlite3"
    with server(db) as (alice, bob):
        gid = friend_game(alice, bob)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET offers = ? WHERE id = ?", (value, gid))
    con.close()
    with caplog.at_level(logging.WARNING, logger="damier.web"):
        with server(db) as (alice, bob):
            for state in states(alice, bob, gid):
                assert state["draw_offer"] is None
                assert state["takeback_offer"] == kept.takeback
                assert state["rematch"] == {"offer": None, "game": None}
                assert texts(state) == OPENING
            # the game plays on; the move stores clean offers over the damaged value
            assert alice.post(f"/api/games/{gid}/move", json={"move": "37-32"}
                              ).status_code == 200
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(gid in text and "ignored" in text for text in warned), warned
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT offers FROM games WHERE id = ?", (gid,)).fetchone() == (None,)
    con.close()
