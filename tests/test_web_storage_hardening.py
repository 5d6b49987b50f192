"""The web app's store and sessions under stress: stale copies of a game, failed writes
(a full disk, a read-only database), games deleted meanwhile, big imports and text that
is not valid Unicode. Session-level tests: no HTTP server is started."""

from __future__ import annotations

import dataclasses
import io
import os
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")

from damier import pdn  # noqa: E402
from damier.board import Board  # noqa: E402
from damier.variants import get_variant  # noqa: E402
from damier.web import session as session_module  # noqa: E402
from damier.web import storage  # noqa: E402
from damier.web.session import (MAX_TREE_NODES, ApiError, GameSession,  # noqa: E402
                                import_pdn)
from damier.web.storage import (SCHEMA_VERSION, GameDeletedError, GameStore,  # noqa: E402
                                StaleGameError, StorageError)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A fake wall clock for the sessions' clocks: set ``clock[0]``."""
    now = [1000.0]
    monkeypatch.setattr(session_module, "CLOCK_SOURCE", lambda: now[0])
    return now


def stored(store: GameStore, game_id: str) -> dict[str, Any]:
    record = store.get(game_id)
    assert record is not None
    return dataclasses.asdict(record)


def memory(session: GameSession) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a session holds: its game (as plain data) and its record."""
    return session.game.to_dict(), dataclasses.asdict(session.record)


# -- A: a stale copy of a game never overwrites the stored game --------------------------------


def test_a_stale_session_cannot_overwrite_the_moves_of_a_newer_one(tmp_path, clock):
    # The scenario seen: a timed game, the page reloaded (a second session of the same
    # game), five moves through the new session; the old session, still held by its flag
    # timer, finds "its" flag fallen and stored 1 move and a false 1-0 time forfeit.
    store = GameStore(tmp_path / "games.sqlite3")
    old = GameSession.create(store, human="both", clock=(60.0, 0.0))
    old.play({"move": "32-28"})
    old.start_clock()                        # black's clock runs from t=1000
    new = GameSession.load(store, old.id)    # the page, reloaded
    for text in ("19-23", "28x19", "14x23", "37-32"):
        clock[0] += 1.0
        new.play({"move": text})
        new.start_clock()
    moves = ["32-28", "19-23", "28x19", "14x23", "37-32"]
    before = stored(store, old.id)
    assert before["moves"] == moves and before["result"] == "*"

    clock[0] = 1061.0    # the old session sees black's flag fallen (60 s since its last look)
    with pytest.raises(ApiError) as caught:
        old.check_flag()
    assert caught.value.status == 409 and caught.value.extra["kind"] == "stale"
    assert caught.value.message == "the game changed meanwhile: reload it"
    assert stored(store, old.id) == before                        # untouched
    # the old session reloaded the stored game: it goes on from the five moves
    assert old.record.moves == old.game.move_texts() == moves
    assert not old.is_over()
    assert not old.check_flag()      # black to move: 59 s used of its 60, the flag stands
    assert stored(store, old.id) == before


def test_a_stale_session_cannot_save_or_change_anything(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    first = GameSession.create(store, human="both")
    second = GameSession.load(store, first.id)
    for text in ("32-28", "19-23", "28x19", "14x23", "37-32"):
        second.play({"move": text})
    before = stored(store, first.id)
    first.game.push("31-27")       # a change made on the stale copy, then stored as the app does
    with pytest.raises(ApiError) as caught:
        first._save()
    assert caught.value.status == 409 and caught.value.extra["kind"] == "stale"
    assert stored(store, first.id) == before
    assert first.game.move_texts() == first.record.moves == before["moves"]
    changes: list[Callable[[GameSession], Any]] = [
        lambda s: s.resign("white"), lambda s: s.undo(1), lambda s: s.set_line([]),
        lambda s: s.play({"move": s.state()["legal_moves"][0]["text"]}),
        lambda s: s.invite_friend("black"),
        lambda s: s.update_record(lambda r: setattr(r, "white", "Mallory"))]
    for change in changes:
        stale = GameSession.load(store, first.id)
        second.play({"move": second.state()["legal_moves"][0]["text"]})
        expected = stored(store, first.id)
        with pytest.raises(ApiError) as caught:
            change(stale)
        assert caught.value.extra["kind"] == "stale"
        assert stored(store, first.id) == expected
        assert memory(stale)[1] == expected       # reloaded


def test_store_writes_only_over_the_version_read(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    record = store.create(variant="international", start_fen="W:W31-50:B1-20", human="both",
                          level=3)
    copy = store.get(record.id)
    assert copy is not None and copy.version == record.version == 0
    record.moves = ["32-28"]
    store.update(record, "moves")
    assert record.version == 1 and store.get(record.id).version == 1
    copy.moves = ["33-29"]
    copy.white = "Mallory"
    with pytest.raises(StaleGameError) as caught:
        store.save(copy)
    assert (caught.value.expected, caught.value.found) == (0, 1)
    assert "changed by another writer" in str(caught.value)
    again = store.get(record.id)
    assert again.moves == ["32-28"] and again.white == "?" and again.version == 1
    assert copy.version == 0        # the refused copy is left as it was
    with pytest.raises(StaleGameError):
        store.save_moves(record.id, ["34-30"], redo=[], version=0)
    store.save_moves(record.id, ["34-30"], redo=[], version=1)      # the current version
    store.save_result(record.id, result="1-0", termination="resignation",
                      termination_text="White wins", winner="white")   # no version: any
    assert store.get(record.id).version == 3
    with pytest.raises(ValueError, match="'version' is not a field"):
        store.update(record, "version")
    store.close()


def test_a_version_5_database_gets_versions_and_its_games_play_on(tmp_path):
    db = tmp_path / "v5.sqlite3"
    with sqlite3.connect(db) as con:
        con.executescript(storage._SCHEMA + storage._REPORTS + storage._PLAYERS
                          + storage._CLOCKS + storage._INVITES)
        con.execute("INSERT INTO games (id, variant, start_fen, moves, human, level, "
                    "created_at, updated_at) VALUES ('v5', 'international', 'W:W31-50:B1-20', "
                    "'[\"32-28\"]', 'both', 3, '2024-01-01', '2024-01-01')")
        con.execute("PRAGMA user_version=5")
    store = GameStore(db)
    assert store.get("v5").version == 0
    session = GameSession.load(store, "v5")
    session.play({"move": "19-23"})
    assert store.get("v5").version == 1 and store.get("v5").moves == ["32-28", "19-23"]
    store.close()
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8


# -- B: a change the store cannot write is not kept in memory -----------------------------------


class FailingWrites:
    """A connection whose writes fail with ``message`` (as SQLite says it): the reads and
    everything else go to the real connection."""

    def __init__(self, db: sqlite3.Connection, message: str) -> None:
        self.db = db
        self.message = message

    def execute(self, sql: str, args: Any = ()) -> sqlite3.Cursor:
        if sql.split()[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            raise sqlite3.OperationalError(self.message)
        return self.db.execute(sql, args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def _timed(store: GameStore) -> GameSession:
    session = GameSession.create(store, human="both", clock=(60.0, 0.0))
    session.play({"move": "32-28"})
    return session


def _flag_fallen(store: GameStore, clock: list[float]) -> GameSession:
    session = _timed(store)
    session.start_clock()
    clock[0] += 100.0
    return session


def _played(store: GameStore, *moves: str) -> GameSession:
    session = GameSession.create(store, human="both")
    for text in moves:
        session.play({"move": text})
    return session


def _undone(store: GameStore) -> GameSession:
    session = _played(store, "32-28", "19-23")
    session.undo(2)
    return session


def _invited(store: GameStore) -> GameSession:
    session = GameSession.create(store, human="both", owner="alice")
    session.invite_friend("black")
    return session


def _offered(store: GameStore) -> GameSession:
    session = _played(store, "32-28", "19-23")
    assert not session.offer_draw("white")      # waits for black (stored with the game)
    return session


CHANGES: dict[str, tuple[Callable[..., GameSession], Callable[[GameSession], Any]]] = {
    "play": (lambda store, clock: _played(store), lambda s: s.play({"move": "32-28"})),
    "play_move": (lambda store, clock: _played(store),
                  lambda s: s.play_move(s.board.legal_moves[0], by_engine=True)),
    "undo": (lambda store, clock: _played(store, "32-28", "19-23"), lambda s: s.undo(1)),
    "undo_for_human": (lambda store, clock: _played(store, "32-28", "19-23"),
                       lambda s: s.undo_for_human()),
    "redo": (lambda store, clock: _undone(store), lambda s: s.redo(1)),
    "set_line": (lambda store, clock: _played(store, "32-28"),
                 lambda s: s.set_line(["31-27", "19-23", "27-22"])),
    "resign": (lambda store, clock: _played(store, "32-28"), lambda s: s.resign("black")),
    "agree_draw": (lambda store, clock: _played(store, "32-28"), lambda s: s.agree_draw()),
    "offer_draw": (lambda store, clock: _offered(store), lambda s: s.offer_draw("black")),
    "start_clock": (lambda store, clock: _timed(store), lambda s: s.start_clock()),
    "check_flag": (lambda store, clock: _flag_fallen(store, clock), lambda s: s.check_flag()),
    "move_with_flag_fallen": (lambda store, clock: _flag_fallen(store, clock),
                              lambda s: s.play({"move": "19-23"})),
    "invite_friend": (lambda store, clock: _played(store), lambda s: s.invite_friend("white")),
    "join": (lambda store, clock: _invited(store), lambda s: s.join("bob", s.record.invite)),
    "update_record": (lambda store, clock: _played(store),
                      lambda s: s.update_record(lambda r: setattr(r, "owner", "carol"),
                                                "owner")),
}


def again(change: Callable[[GameSession], Any], session: GameSession) -> None:
    """Makes ``change`` once more, now that the store can write (a move with the flag
    fallen then ends the game on time: stored, and answered 409)."""
    try:
        change(session)
    except ApiError as err:
        assert err.extra.get("kind") == "game_over" and session.is_over()


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_change_on_a_full_disk_is_not_kept_in_memory(tmp_path, clock, name):
    prepare, change = CHANGES[name]
    store = GameStore(tmp_path / "games.sqlite3")
    session = prepare(store, clock)
    before, in_store = memory(session), stored(store, session.id)
    real = store._db
    store._db = FailingWrites(real, "database or disk is full")  # type: ignore[assignment]
    with pytest.raises(ApiError) as caught:
        change(session)
    err = caught.value
    assert (err.status, err.extra) == (507, {"kind": "storage"})
    assert err.message == ("the server could not store the change: database or disk is "
                           "full; nothing was changed")
    assert memory(session) == before
    store._db = real
    assert stored(store, session.id) == in_store
    again(change, session)       # the disk has room again: the same change goes through
    assert memory(session)[1] == stored(store, session.id)
    assert session.record.moves == session.game.move_texts()


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_change_to_a_read_only_database_is_not_kept_in_memory(tmp_path, clock, name):
    # A real SQLite refusal (SQLITE_READONLY), as for a database file made read-only.
    prepare, change = CHANGES[name]
    store = GameStore(tmp_path / "games.sqlite3")
    session = prepare(store, clock)
    before, in_store = memory(session), stored(store, session.id)
    store._db.execute("PRAGMA query_only=ON")
    with pytest.raises(ApiError) as caught:
        change(session)
    err = caught.value
    assert (err.status, err.extra["kind"]) == (503, "storage")
    assert "attempt to write a readonly database" in err.message
    assert err.message.endswith("; nothing was changed")
    assert memory(session) == before
    assert stored(store, session.id) == in_store
    store._db.execute("PRAGMA query_only=OFF")
    again(change, session)
    assert memory(session)[1] == stored(store, session.id)


def _full_store(tmp_path: Path) -> GameStore:
    """A store whose database may not grow: SQLite answers SQLITE_FULL ("database or disk
    is full") to a write that needs a new page, as on a full disk."""
    store = GameStore(tmp_path / "full.sqlite3")
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")
    return store


def test_a_real_full_database_refuses_a_long_line_and_keeps_the_game(tmp_path):
    store = _full_store(tmp_path)
    session = GameSession.create(store, variant="english", human="both", fen=LONG_FEN)
    session.play({"move": LONG_GAME[0]})
    before, in_store = memory(session), stored(store, session.id)
    with pytest.raises(ApiError) as caught:
        session.set_line(LONG_GAME)     # about 8 KB of moves: new pages
    assert caught.value.status == 507 and caught.value.extra == {"kind": "storage"}
    assert "database or disk is full" in caught.value.message
    assert memory(session) == before and stored(store, session.id) == in_store
    session.play({"move": LONG_GAME[1]})       # a small change still fits
    assert store.get(session.id).moves == LONG_GAME[:2]


def test_an_import_on_a_full_database_stores_nothing(tmp_path):
    store = _full_store(tmp_path)
    text = '1. 32-28 19-23 *\n\n' + LONG_PDN + '\n1. 33-29 *\n'
    with pytest.raises(ApiError) as caught:
        import_pdn(store, text)
    assert caught.value.status == 507 and caught.value.extra == {"kind": "storage"}
    assert caught.value.message.startswith("the server could not store the imported games: "
                                           "database or disk is full")
    assert caught.value.message.endswith("; nothing was imported")
    assert store.count() == 0
    store._db.execute("PRAGMA max_page_count=100000")
    sessions, errors = import_pdn(store, text)
    assert errors == [] and len(sessions) == 3 and store.count() == 3
    assert [len(s.record.moves) for s in sessions] == [2, 1100, 1]


def test_a_new_game_on_a_read_only_database_is_refused(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    store._db.execute("PRAGMA query_only=ON")
    with pytest.raises(ApiError) as caught:
        GameSession.create(store, human="white")
    assert caught.value.status == 503 and caught.value.extra == {"kind": "storage"}
    assert caught.value.message.endswith("; no game was created")
    store._db.execute("PRAGMA query_only=OFF")
    assert store.count() == 0


def test_a_game_that_cannot_be_read_is_answered_503(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    session = GameSession.create(store, human="both")
    store.close()
    with pytest.raises(ApiError) as caught:
        GameSession.load(store, session.id)
    assert caught.value.status == 503 and caught.value.extra == {"kind": "storage"}
    assert caught.value.message.startswith("the server could not read the game: ")


def _bad_paths(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    not_db = tmp_path / "notes.txt"
    not_db.write_text("these are notes, not a database\n" * 100)
    newer = tmp_path / "newer.sqlite3"
    with sqlite3.connect(newer) as con:
        con.execute("PRAGMA user_version=99")
    return {
        "in /proc": (Path("/proc/x.sqlite3"), "unable to open database file"),
        "a folder in /proc": (Path("/proc/no-such-folder/x.sqlite3"),
                              "No such file or directory: /proc/no-such-folder"),
        "a directory": (tmp_path, "unable to open database file"),
        "not a database": (not_db, "file is not a database"),
        "under a file": (not_db / "x.sqlite3", f"{not_db} is not a folder"),
        "newer": (newer, "written by a newer damier (schema 99, this one knows 8)"),
    }


@pytest.mark.parametrize("case", ["in /proc", "a folder in /proc", "a directory",
                                  "not a database", "under a file", "newer"])
def test_a_store_that_cannot_be_opened_says_where_and_why_in_one_line(tmp_path, case):
    if case.endswith("/proc") and not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    path, reason = _bad_paths(tmp_path)[case]
    with pytest.raises(StorageError) as caught:
        GameStore(path)
    message = str(caught.value)
    assert isinstance(caught.value, RuntimeError)
    assert message.startswith(f"cannot open the game database {path}: ")
    assert reason in message and "\n" not in message


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0,
                    reason="needs file permissions that bind (not root)")
def test_a_store_in_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(StorageError, match=f"cannot open the game database {folder}"):
            GameStore(folder / "x.sqlite3")
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("case", ["in /proc", "a directory", "not a database", "under a file"])
def test_serve_with_a_bad_database_prints_one_line(tmp_path, case):
    pytest.importorskip("uvicorn")
    from damier.cli import main
    path, reason = _bad_paths(tmp_path)[case]
    out, err = io.StringIO(), io.StringIO()
    assert main(["serve", "--db", str(path), "--engines", "1", "--hash", "1"],
                out=out, err=err) == 2
    assert err.getvalue().startswith(f"damier serve: cannot open the game database {path}: ")
    assert reason in err.getvalue() and err.getvalue().count("\n") == 1
    assert out.getvalue() == ""


# -- C: a change to a game deleted meanwhile ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_change_to_a_deleted_game_is_answered_410_and_not_kept(tmp_path, clock, name):
    prepare, change = CHANGES[name]
    store = GameStore(tmp_path / "games.sqlite3")
    session = prepare(store, clock)
    before = memory(session)
    assert store.delete(session.id)
    with pytest.raises(ApiError) as caught:
        change(session)
    assert (caught.value.status, caught.value.extra) == (410, {"kind": "deleted"})
    assert caught.value.message == "the game was deleted"
    assert memory(session) == before
    assert store.get(session.id) is None and store.count() == 0


def test_the_store_names_a_deleted_game(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    record = store.create(variant="international", start_fen="W:W31-50:B1-20", human="both",
                          level=3)
    store.delete(record.id)
    with pytest.raises(GameDeletedError) as caught:
        store.update(record, "moves")
    assert str(caught.value) == f"game {record.id} is not stored (it was deleted)"
    assert isinstance(caught.value, KeyError)
    with pytest.raises(GameDeletedError):
        store.save_moves(record.id, [], redo=[])


# -- D: big imports ------------------------------------------------------------------------------


LONG_FEN = "W:WK26,21,25,29,30:BK7,3,4,8,12"


def _long_english_game(plies: int) -> list[str]:
    """A legal English game of ``plies`` plies from :data:`LONG_FEN` that no draw rule
    ends: each king walks its own corner (never to a position seen twice before), and a
    man steps forward, down its own side, before 40 king moves each; nothing is ever
    captured or left to capture."""
    variant = get_variant("english")
    board = Board(LONG_FEN, variant=variant)

    def allowed(color: bool, king: bool, square: int) -> bool:
        row, col = variant.row_col(square)
        if king:
            return row >= 4 and col <= 3 if color else row <= 3 and col >= 4
        return col <= 2 if color else col >= 5

    seen = Counter([board.zobrist_hash()])
    texts: list[str] = []
    quiet = 0
    while len(texts) < plies:
        best = None
        for move in board.legal_moves:
            piece = board.piece_at(move.from_square)
            if move.is_capture or not allowed(piece.color, piece.king, move.to_square):
                continue
            board.push(move)
            key = board.zobrist_hash()
            fine = (board.outcome() is None and seen[key] < 2
                    and not any(m.is_capture for m in board.legal_moves))
            board.pop()
            if fine:
                back = -move.from_square if piece.color else move.from_square
                score = (piece.king == (quiet >= 46), seen[key], 0 if piece.king else back,
                         move.to_square)
                if best is None or score < best[0]:
                    best = (score, move, piece.king)
        assert best is not None, f"the long game got stuck after {len(texts)} plies"
        _, move, king = best
        texts.append(board.notation(move))
        board.push(move)
        seen[board.zobrist_hash()] += 1
        quiet = quiet + 1 if king else 0
    assert board.outcome() is None
    return texts


LONG_GAME = _long_english_game(1100)
LONG_PDN = f'[GameType "21"]\n[FEN "{LONG_FEN}"]\n\n{" ".join(LONG_GAME)} *\n'


def test_a_game_of_1100_plies_is_imported_and_shown(tmp_path):
    # The tree was built by recursion, a call per ply: a game of 970 plies raised
    # RecursionError (a 500 on every GET of the game).
    assert len(LONG_GAME) == 1100 > sys.getrecursionlimit()
    store = GameStore(tmp_path / "games.sqlite3")
    sessions, errors = import_pdn(store, LONG_PDN)
    assert errors == [] and len(sessions) == 1
    session = GameSession.load(store, sessions[0].id)
    state = session.state()
    tree = state["tree"]
    assert len(tree) == 1101 and len(state["moves"]) == 1100 and not state["over"]
    assert [node["ply"] for node in tree] == list(range(1101))
    assert [node["parent"] for node in tree] == [None, *range(1100)]
    assert [node["children"] for node in tree] == [[i + 1] for i in range(1100)] + [[]]
    assert all(node["in_line"] for node in tree)
    assert [node["text"] for node in tree[1:]] == LONG_GAME
    assert tree[-1]["fen"] == state["fen"]
    assert session.tree() is tree            # kept while the moves stay the same
    session.undo(1)
    assert [node["in_line"] for node in session.tree()][-2:] == [True, False]


def test_the_tree_of_an_imported_game_lists_variations_depth_first(tmp_path):
    store = GameStore(":memory:")
    text = "1. 32-28 (1. 33-29 17-22 (1... 19-24) 2. 39-33) 1... 19-23 2. 28x19 14x23 *"
    sessions, errors = import_pdn(store, text)
    assert errors == []
    session = sessions[0]
    session.set_line(["33-29"])
    tree = session.tree()
    shape = [(n["id"], n["parent"], n["ply"], n.get("text"), n["children"], n["in_line"])
             for n in tree]
    assert shape == [
        (0, None, 0, None, [1, 5], True),
        (1, 0, 1, "32-28", [2], False), (2, 1, 2, "19-23", [3], False),
        (3, 2, 3, "28x19", [4], False), (4, 3, 4, "14x23", [], False),
        (5, 0, 1, "33-29", [6, 8], True), (6, 5, 2, "17-22", [7], False),
        (7, 6, 3, "39-33", [], False), (8, 5, 2, "19-24", [], False)]
    board = Board()
    board.push("33-29")
    board.push("19-24")
    assert tree[8]["fen"] == board.fen()


def _tree_pdn(nodes: int) -> str:
    """The long game with two-move variations at its first plies: ``nodes`` moves in all
    (main line and variations)."""
    variant = get_variant("english")
    game = pdn.Game(variant=variant)
    game.setup(LONG_FEN)
    board = Board(LONG_FEN, variant=variant)
    node: pdn.GameNode = game
    count = len(LONG_GAME)
    for text in LONG_GAME:
        move = board.parse_move(text)
        node = node.add_variation(move)
        for other in board.legal_moves:
            if other == move or count + 2 > nodes:
                continue
            variation = node.parent.add_variation(other)
            board.push(other)
            variation.add_variation(board.legal_moves[0])
            board.pop()
            count += 2
        board.push(move)
    assert count == nodes
    return pdn.write_game(game)


def test_an_import_refuses_a_game_with_too_many_moves_in_its_variations(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    sessions, errors = import_pdn(store, _tree_pdn(MAX_TREE_NODES + 2) + "\n1. 32-28 *\n")
    assert errors == [f"a game with {MAX_TREE_NODES + 2:,} moves in its main line and "
                      f"variations is too large (at most {MAX_TREE_NODES:,})"]
    assert [s.record.moves for s in sessions] == [["32-28"]] and store.count() == 1
    sessions, errors = import_pdn(store, _tree_pdn(MAX_TREE_NODES))   # at the limit: taken
    assert errors == [] and len(sessions[0].state()["tree"]) == MAX_TREE_NODES + 1


# -- E: text that is not valid Unicode ----------------------------------------------------------


@pytest.mark.parametrize("field", ["white", "black", "fen", "variant"])
def test_a_new_game_refuses_unpaired_surrogates(field):
    store = GameStore(":memory:")
    with pytest.raises(ApiError) as caught:
        GameSession.create(store, human="both", **{field: "Zo\ud800e"})
    assert caught.value.status == 400 and caught.value.extra == {"field": field}
    assert caught.value.message == (f"{field} is not valid text: it holds an unpaired "
                                    "surrogate (\\ud800 at character 3)")
    caught.value.message.encode("utf-8")
    assert store.count() == 0


def test_an_import_refuses_unpaired_surrogates():
    store = GameStore(":memory:")
    with pytest.raises(ApiError) as caught:
        import_pdn(store, '[White "Zo\udc80"]\n\n1. 32-28 *')
    assert caught.value.status == 400 and caught.value.extra == {"field": "pdn"}
    assert "unpaired surrogate (\\udc80 at character 11)" in caught.value.message
    assert store.count() == 0


def test_moves_and_invitations_with_surrogates_are_refused_cleanly():
    store = GameStore(":memory:")
    session = GameSession.create(store, human="both", owner="alice")
    with pytest.raises(ApiError) as caught:
        session.set_line(["32-28", "19-2\ud8003"])
    assert caught.value.status == 400 and caught.value.extra == {"field": "move 2"}
    with pytest.raises(ApiError) as caught:
        session.play({"move": "32-2\ud8008"})
    caught.value.message.encode("utf-8")       # the message can be sent
    session.invite_friend("black")
    for token in ("caf\u00e9", "\ud800"):    # compare_digest raised TypeError on these
        with pytest.raises(ApiError) as caught:
            session.join("bob", token)
        assert caught.value.status == 403 and caught.value.extra == {"kind": "bad_invite"}
    assert session.record.moves == [] and store.get(session.id).black_player is None
