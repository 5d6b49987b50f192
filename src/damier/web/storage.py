"""Storage of the web app's games: one row per game in an SQLite database.

Game reports (:mod:`damier.web.report`) live in a second table, one row per game,
the report as JSON next to the move list it was made from (so that a report of
moves since taken back can be told apart). ``PRAGMA user_version`` holds the
schema version; an older database is brought up to date when opened.

The database is in WAL mode and every change (each move, undo, resignation...)
is committed at once with ``synchronous=FULL``, so a server killed in the middle
of a game loses nothing: the next server finds the game as it was after the
last move.

Each stored game has a write ``version``, one more with every change. A
:class:`StoredGame` remembers the version it was read (or last written) at, and
:meth:`GameStore.update` and :meth:`GameStore.save` write only when the stored
game is still at that version: an older copy of a game (a second server's, or a
session left over from before a page was reloaded) can never overwrite a newer
one. Such a write raises :class:`StaleGameError`, a write to a deleted game
:class:`GameDeletedError`, and a database that cannot be opened, read or written
(a full disk, a read-only file, a file that is not a database) :class:`StorageError`;
a failed write changes nothing in the database.

>>> store = GameStore(":memory:")
>>> record = store.create(variant="international", start_fen="W:W31-50:B1-20",
...                       human="white", level=3, white="You", black="damier level 3")
>>> record.moves, record.result
([], '*')
>>> store.save_moves(record.id, ["32-28", "19-23"], redo=[])
>>> store.get(record.id).moves
['32-28', '19-23']
>>> [r.id for r in store.list()] == [record.id]
True
>>> record.moves = ["32-28"]
>>> store.update(record, "moves")    # record was read before the save above
Traceback (most recent call last):
...
damier.web.storage.StaleGameError: game ... was changed by another writer since it was read
(version 0, now 1): reload it
>>> store.close()
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from damier.pdn import result_for_variant
from damier.variants import get_variant

__all__ = ["StoredGame", "Offers", "GameStore", "SCHEMA_VERSION", "StorageError",
           "StaleGameError", "GameDeletedError"]

log = logging.getLogger("damier.web")

SCHEMA_VERSION = 8
"""1: the games table; 2: the reports table (game reports); 3: who owns a game and who
holds its seats (``owner``, ``white_player``, ``black_player``); 4: the clocks of a timed
game (``clock_initial``, ``clock_increment``, ``clock_state``; NULL for untimed games);
5: the invitation to a game's open seat (``invite``: the secret of the friend's link);
6: the write version of each game (``version``, 0 for the games stored before); 7: the
chats table (the players' messages in games between two people); 8: the pending offers
between the two players of a game (``offers``: :class:`Offers` as JSON, NULL for none)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    moves TEXT NOT NULL DEFAULT '[]',
    redo TEXT NOT NULL DEFAULT '[]',
    white TEXT NOT NULL DEFAULT '?',
    black TEXT NOT NULL DEFAULT '?',
    human TEXT NOT NULL,
    level INTEGER NOT NULL,
    result TEXT NOT NULL DEFAULT '*',
    termination TEXT,
    termination_text TEXT,
    winner TEXT,
    headers TEXT NOT NULL DEFAULT '{}',
    pdn TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_updated ON games (updated_at);
"""

_PLAYERS = """
ALTER TABLE games ADD COLUMN owner TEXT;
ALTER TABLE games ADD COLUMN white_player TEXT;
ALTER TABLE games ADD COLUMN black_player TEXT;
CREATE INDEX IF NOT EXISTS games_owner ON games (owner);
"""

_REPORTS = """
CREATE TABLE IF NOT EXISTS reports (
    game_id TEXT PRIMARY KEY,
    start_fen TEXT NOT NULL,
    moves TEXT NOT NULL,
    report TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""

_CLOCKS = """
ALTER TABLE games ADD COLUMN clock_initial REAL;
ALTER TABLE games ADD COLUMN clock_increment REAL;
ALTER TABLE games ADD COLUMN clock_state TEXT;
"""

_INVITES = """
ALTER TABLE games ADD COLUMN invite TEXT;
"""

_VERSIONS = """
ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
"""

_CHATS = """
CREATE TABLE IF NOT EXISTS chats (
    game_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
);
"""

_OFFERS = """
ALTER TABLE games ADD COLUMN offers TEXT;
"""

_MIGRATIONS = {2: _REPORTS, 3: _PLAYERS, 4: _CLOCKS, 5: _INVITES, 6: _VERSIONS, 7: _CHATS,
               8: _OFFERS}
"""The statements that bring a database of schema ``version - 1`` to ``version``."""

_COLUMNS = ("id", "variant", "start_fen", "moves", "redo", "white", "black", "human", "level",
            "result", "termination", "termination_text", "winner", "headers", "pdn",
            "created_at", "updated_at", "owner", "white_player", "black_player",
            "clock_initial", "clock_increment", "clock_state", "invite", "version", "offers")

_FIXED = ("id", "created_at", "updated_at", "version")
"""The columns that :meth:`GameStore.update` does not take (the store sets them)."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class StorageError(RuntimeError):
    """The game database cannot be opened, read or written: the message names the file
    and the reason, in one line. ``disk_full`` tells a full disk (or a database at its
    size limit) from other failures (a read-only file, a disk error, a file that is not a
    database...). A write that fails this way changes nothing in the database."""

    def __init__(self, action: str, path: str, reason: str, *, disk_full: bool = False) -> None:
        super().__init__(f"cannot {action} the game database {path}: {reason}")
        self.path = path
        self.reason = reason
        self.disk_full = disk_full


class StaleGameError(RuntimeError):
    """A write of a game that another writer changed since it was read: the game as
    stored is newer than the copy written (nothing was written)."""

    def __init__(self, game_id: str, expected: int, found: int) -> None:
        super().__init__(f"game {game_id} was changed by another writer since it was read "
                         f"(version {expected}, now {found}): reload it")
        self.game_id = game_id
        self.expected = expected
        self.found = found


class GameDeletedError(KeyError):
    """A write of a game that is no longer stored (deleted meanwhile). A
    :class:`KeyError`, as the store raised before it had this class."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id)
        self.game_id = game_id

    def __str__(self) -> str:
        return f"game {self.game_id} is not stored (it was deleted)"


def _reason(err: BaseException) -> tuple[str, bool]:
    """The reason in words of an SQLite failure, and whether it is a full disk."""
    code = getattr(err, "sqlite_errorcode", None)
    text = str(err) or type(err).__name__
    full = code == getattr(sqlite3, "SQLITE_FULL", 13) or "disk is full" in text
    if isinstance(err, (FileExistsError, NotADirectoryError)) and err.filename:
        text = f"{err.filename} is not a folder"
    elif isinstance(err, OSError) and err.strerror:
        text = err.strerror if not err.filename else f"{err.strerror}: {err.filename}"
    elif "readonly" in text:
        text += " (the file or its folder is read-only)"
    elif "unable to open" in text:
        text += " (no such folder, no permission, or not a file)"
    return text, full


_COLORS = ("white", "black")
_OFFER_KINDS = ("draw", "takeback", "rematch")
_GAME_ID_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz"
                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-")


@dataclass(frozen=True)
class Offers:
    """The pending offers between the two players of a game, stored with it so that they
    outlive the server: ``draw`` (the colour offering a draw), ``takeback`` (the colour
    asking to take its last move back), ``rematch`` (the colour offering a rematch), each
    None when nobody offers; and ``rematch_game``, the id of the rematch once it was made.
    Frozen: a change is a new object (a session's copy of its record, kept to undo a
    change that could not be stored, never shares a changed one).

    >>> Offers(draw="white").to_json()
    '{"draw":"white"}'
    >>> Offers.from_json('{"takeback":"black","rematch":null}')
    Offers(draw=None, takeback='black', rematch=None, rematch_game=None)
    >>> Offers().to_json() is None
    True
    """

    draw: str | None = None
    takeback: str | None = None
    rematch: str | None = None
    rematch_game: str | None = None

    def to_json(self) -> str | None:
        """The offers as stored: a JSON object of the fields that are set (None: none)."""
        data = {name: value for name, value in (
            ("draw", self.draw), ("takeback", self.takeback), ("rematch", self.rematch),
            ("rematch_game", self.rematch_game)) if value is not None}
        return json.dumps(data, separators=(",", ":")) if data else None

    @classmethod
    def from_json(cls, text: str | None, game_id: str = "?") -> "Offers":
        """The offers stored as ``text`` (NULL: none). A damaged value (not JSON, not an
        object, an offer by no colour, a rematch id that no game could have) is dropped
        with a warning in the log: the game loads without it (never an error)."""
        if text is None:
            return cls()
        try:
            data = json.loads(text)
        except (ValueError, TypeError, RecursionError):
            data = None
        if not isinstance(data, dict):
            log.warning("game %s: its stored offers are not a JSON object (%.80r): ignored",
                        game_id, text)
            return cls()
        found: dict[str, str | None] = {}
        for name, value in data.items():
            if name in _OFFER_KINDS and (value is None or value in _COLORS):
                found[name] = value
            elif name == "rematch_game" and (value is None or (
                    isinstance(value, str) and 0 < len(value) <= 64
                    and set(value) <= _GAME_ID_CHARS)):
                found[name] = value
            else:
                log.warning("game %s: stored offer %.40r = %.80r is not valid: ignored",
                            game_id, name, value)
        return cls(draw=found.get("draw"), takeback=found.get("takeback"),
                   rematch=found.get("rematch"), rematch_game=found.get("rematch_game"))


@dataclass
class StoredGame:
    """One stored game.

    ``moves`` and ``redo`` are move texts in standard notation (full capture
    paths where two captures share their ends, so they read back exactly).
    ``human`` is the colour the person plays: ``white``, ``black``, ``both``
    (two people, or analysis: the engine never moves by itself) or ``none``.
    ``result`` is ``*`` while the game goes on, else ``1-0``, ``0-1`` or
    ``1/2-1/2``; ``termination`` is a :class:`damier.Termination` value.
    ``pdn`` holds the text of an imported game (its variations and comments).
    ``owner`` is the player who created the game (the hash of a player cookie,
    :func:`damier.web.security.player_id`) and ``white_player``/``black_player``
    the players holding the seats (None: the engine's seat, or nobody's yet).
    Games stored before seats existed have no owner. ``clock_initial`` and
    ``clock_increment`` are a timed game's seconds (None: no clocks), and ``clock_state``
    the clocks' state (:meth:`damier.game.Game.clock_state`). ``offers`` are the pending
    offers between two players (:class:`Offers`).
    """

    id: str
    variant: str
    start_fen: str
    human: str
    level: int
    moves: list[str] = field(default_factory=list)
    redo: list[str] = field(default_factory=list)
    white: str = "?"
    black: str = "?"
    result: str = "*"
    termination: str | None = None
    termination_text: str | None = None
    winner: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    pdn: str | None = None
    created_at: str = ""
    updated_at: str = ""
    owner: str | None = None
    white_player: str | None = None
    black_player: str | None = None
    clock_initial: float | None = None
    clock_increment: float | None = None
    clock_state: dict[str, Any] | None = None
    invite: str | None = None
    """The secret of the link that gives a friend the open seat (None: no open seat)."""
    version: int = 0
    """The stored game's write version when this copy was read or last written (see
    :meth:`GameStore.update`)."""
    offers: Offers = field(default_factory=Offers)
    """The pending draw, take-back and rematch offers (replaced, never changed in place)."""

    def seat(self, color: str) -> str | None:
        """The player holding the seat of ``color`` (``white`` or ``black``)."""
        return self.white_player if color == "white" else self.black_player

    def plies(self) -> int:
        """The game's length in plies (one side's move each), as its PDN has it: the
        moves played, and for an imported game also the moves that redo would replay
        (its PDN's main line goes on with them)."""
        return len(self.moves) + (len(self.redo) if self.pdn is not None else 0)

    def full_moves(self) -> int:
        """The game's length in moves as the move list numbers them (a move: the first
        player's ply and the reply), counted from the start position's side to move."""
        plies = self.plies()
        if not plies:
            return 0
        try:
            first = "W" if get_variant(self.variant).white_starts else "B"
        except ValueError:
            first = "W"
        late = 0 if self.start_fen.strip()[:1].upper() in (first, "") else 1
        return (plies + late + 1) // 2

    def summary(self) -> dict[str, Any]:
        """The fields shown in a list of games: ``plies`` and ``moves`` (full moves) are
        the length of the game (:meth:`plies`, :meth:`full_moves`)."""
        return {"id": self.id, "variant": self.variant, "white": self.white, "black": self.black,
                "human": self.human, "level": self.level, "plies": self.plies(),
                "moves": self.full_moves(),
                "result": self.result,
                "pdn_result": result_for_variant(self.result, self.variant) or self.result,
                "termination": self.termination,
                "termination_text": self.termination_text, "imported": self.pdn is not None,
                "event": self.headers.get("Event"),
                "created_at": self.created_at, "updated_at": self.updated_at}


class GameStore:
    """The games (and their reports) of one SQLite file (``":memory:"`` for a throwaway store).

    Safe to use from several threads: one connection, guarded by a lock. Raises
    :class:`StorageError` when the file cannot be opened (no such folder, no permission,
    not a database, a newer schema) and when a read or write fails.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        db: sqlite3.Connection | None = None
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                 timeout=10.0)
            db.row_factory = sqlite3.Row
            self._db = db
            self._open()
        except (sqlite3.Error, OSError) as err:
            if db is not None:
                db.close()
            reason, full = _reason(err)
            raise StorageError("open", self.path, reason, disk_full=full) from None
        except StorageError:
            if db is not None:
                db.close()
            raise

    def _open(self) -> None:
        with self._lock:
            if self.path != ":memory:":
                mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StorageError("open", self.path, f"it cannot be put in WAL mode "
                                       f"(got {mode})")
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StorageError("open", self.path, f"it was written by a newer damier "
                                   f"(schema {version}, this one knows {SCHEMA_VERSION})")
            self._db.executescript(_SCHEMA)
            for target in range(max(version, 1) + 1, SCHEMA_VERSION + 1):
                self._db.executescript(_MIGRATIONS[target])
            if version != SCHEMA_VERSION:
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _run(self, sql: str, args: Sequence[Any] = (), *, write: bool = True) -> sqlite3.Cursor:
        """Runs one statement (the lock held), turning SQLite's failures into
        :class:`StorageError`; a failed write's transaction is rolled back."""
        try:
            return self._db.execute(sql, args)
        except (sqlite3.Error, MemoryError) as err:
            if write:
                try:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            reason, full = _reason(err)
            raise StorageError("write to" if write else "read", self.path, reason,
                               disk_full=full) from None

    # -- writing ------------------------------------------------------------------

    def create(self, *, variant: str, start_fen: str, human: str, level: int,
               white: str = "?", black: str = "?", moves: list[str] | None = None,
               headers: dict[str, str] | None = None, pdn: str | None = None,
               game_id: str | None = None, owner: str | None = None,
               white_player: str | None = None, black_player: str | None = None,
               clock_initial: float | None = None, clock_increment: float | None = None,
               clock_state: dict[str, Any] | None = None,
               invite: str | None = None, result: str = "*", termination: str | None = None,
               termination_text: str | None = None,
               winner: str | None = None) -> StoredGame:
        """Stores a new game and returns it (its id is random: 64 bits)."""
        record = StoredGame(id=game_id or secrets.token_hex(8), variant=variant,
                            start_fen=start_fen, human=human, level=level,
                            moves=list(moves or []), white=white, black=black,
                            headers=dict(headers or {}), pdn=pdn,
                            owner=owner, white_player=white_player, black_player=black_player,
                            clock_initial=clock_initial, clock_increment=clock_increment,
                            clock_state=clock_state, invite=invite, result=result,
                            termination=termination, termination_text=termination_text,
                            winner=winner)
        self.create_many([record])
        return record

    def create_many(self, records: Sequence[StoredGame]) -> None:
        """Stores new games, all or none (one transaction); their ``created_at`` and
        ``updated_at`` are set to now when empty, and their ``version`` to 0."""
        now = _now()
        for record in records:
            record.created_at = record.created_at or now
            record.updated_at = record.updated_at or now
            record.version = 0
        rows = [self._values(record) for record in records]
        sql = f"INSERT INTO games ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
        with self._lock:
            self._run("BEGIN")
            for row in rows:
                self._run(sql, row)
            self._run("COMMIT")

    def update(self, record: StoredGame, *names: str) -> None:
        """Stores the fields ``names`` of ``record`` (one transaction), provided the stored
        game is still at ``record.version`` (the version it was read or last written at);
        ``record.version`` and ``record.updated_at`` are then the new ones.

        Raises :class:`StaleGameError` when another writer changed the game since,
        :class:`GameDeletedError` when it is no longer stored and :class:`StorageError`
        when the database cannot be written; nothing is written then, and ``record`` is
        left as it was."""
        for name in names:
            if name not in _COLUMNS or name in _FIXED:
                raise ValueError(f"{name!r} is not a field that can be updated")
        values = dict(zip(_COLUMNS, self._values(record), strict=True))
        now = _now()
        sets = "".join(f"{name} = ?, " for name in names)
        args = [values[name] for name in names] + [now, record.id, record.version]
        with self._lock:
            cur = self._run(f"UPDATE games SET {sets}updated_at = ?, version = version + 1 "
                            "WHERE id = ? AND version = ?", args)
            if cur.rowcount == 0:
                row = self._run("SELECT version FROM games WHERE id = ?", (record.id,),
                                write=False).fetchone()
                if row is None:
                    raise GameDeletedError(record.id)
                raise StaleGameError(record.id, record.version, int(row[0]))
        record.version += 1
        record.updated_at = now

    def save(self, record: StoredGame) -> None:
        """Stores every field of ``record``, as :meth:`update` does (only over the
        version ``record`` was read at)."""
        self.update(record, *(name for name in _COLUMNS if name not in _FIXED))

    def save_moves(self, game_id: str, moves: list[str], *, redo: list[str],
                   clock_state: dict[str, Any] | None = None,
                   version: int | None = None) -> None:
        """Stores the moves played (and the moves that redo would replay), and the
        clocks' state when given (a timed game); with ``version``, only over that version
        of the game (see :meth:`update`; without, over any: for tools and tests)."""
        if clock_state is None:
            self._update(game_id, version, moves=json.dumps(moves), redo=json.dumps(redo))
        else:
            self._update(game_id, version, moves=json.dumps(moves), redo=json.dumps(redo),
                         clock_state=json.dumps(clock_state))

    def save_result(self, game_id: str, *, result: str, termination: str | None,
                    termination_text: str | None, winner: str | None,
                    version: int | None = None) -> None:
        """Stores how the game ended (``result="*"`` and None: it goes on); ``version``
        as for :meth:`save_moves`."""
        self._update(game_id, version, result=result, termination=termination,
                     termination_text=termination_text, winner=winner)

    def delete(self, game_id: str) -> bool:
        """Forgets a game and its report."""
        with self._lock:
            self._run("BEGIN")
            cur = self._run("DELETE FROM games WHERE id = ?", (game_id,))
            self._run("DELETE FROM reports WHERE game_id = ?", (game_id,))
            self._run("DELETE FROM chats WHERE game_id = ?", (game_id,))
            self._run("COMMIT")
        return cur.rowcount > 0

    def add_chat(self, game_id: str, message: dict[str, Any], *, keep: int) -> int:
        """Stores a chat message of a game (a JSON object) and returns its number (1, 2,
        ...); only the latest ``keep`` messages of the game are kept. Raises
        :class:`GameDeletedError` when the game is not stored."""
        with self._lock:
            self._run("BEGIN")
            try:
                if self._run("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                    raise GameDeletedError(game_id)
                number = int(self._run("SELECT COALESCE(MAX(number), 0) + 1 FROM chats "
                                       "WHERE game_id = ?", (game_id,)).fetchone()[0])
                self._run("INSERT INTO chats (game_id, number, message) VALUES (?, ?, ?)",
                          (game_id, number, json.dumps({**message, "id": number})))
                self._run("DELETE FROM chats WHERE game_id = ? AND number <= ?",
                          (game_id, number - keep))
                self._run("COMMIT")
            except GameDeletedError:
                self._run("ROLLBACK")
                raise
        return number

    def chat(self, game_id: str) -> list[dict[str, Any]]:
        """The stored chat messages of a game, oldest first (each with its ``id``)."""
        with self._lock:
            rows = self._run("SELECT message FROM chats WHERE game_id = ? ORDER BY number",
                             (game_id,), write=False).fetchall()
        return [json.loads(row["message"]) for row in rows]

    def save_report(self, game_id: str, report: dict[str, Any]) -> None:
        """Stores the report of a game (replacing the previous one; nothing when the game
        is gone); ``report`` holds the ``start_fen`` and ``moves`` it was made from."""
        with self._lock:
            self._run(
                "INSERT OR REPLACE INTO reports (game_id, start_fen, moves, report, created_at) "
                "SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM games WHERE id = ?)",
                (game_id, report["start_fen"], json.dumps(report["moves"]),
                 json.dumps(report, separators=(",", ":")), _now(), game_id))

    def report_info(self, game_id: str) -> dict[str, Any] | None:
        """What the report of a game was made from (``start_fen``, ``moves``,
        ``created_at``) without reading the report itself; None without a report."""
        with self._lock:
            row = self._run("SELECT start_fen, moves, created_at FROM reports "
                            "WHERE game_id = ?", (game_id,), write=False).fetchone()
        if row is None:
            return None
        return {"start_fen": row["start_fen"], "moves": json.loads(row["moves"]),
                "created_at": row["created_at"]}

    def get_report(self, game_id: str) -> dict[str, Any] | None:
        """The stored report of a game, or None."""
        with self._lock:
            row = self._run("SELECT report FROM reports WHERE game_id = ?",
                            (game_id,), write=False).fetchone()
        return json.loads(row["report"]) if row is not None else None

    def delete_report(self, game_id: str) -> bool:
        with self._lock:
            cur = self._run("DELETE FROM reports WHERE game_id = ?", (game_id,))
        return cur.rowcount > 0

    def _update(self, game_id: str, version: int | None, **fields: Any) -> None:
        fields["updated_at"] = _now()
        sets = "".join(f"{name} = ?, " for name in fields)
        where = "id = ?" if version is None else "id = ? AND version = ?"
        args = tuple(fields.values()) + ((game_id,) if version is None else (game_id, version))
        with self._lock:
            cur = self._run(f"UPDATE games SET {sets}version = version + 1 WHERE {where}", args)
            if cur.rowcount == 0:
                row = self._run("SELECT version FROM games WHERE id = ?", (game_id,),
                                write=False).fetchone()
                if row is None:
                    raise GameDeletedError(game_id)
                assert version is not None
                raise StaleGameError(game_id, version, int(row[0]))

    @staticmethod
    def _values(record: StoredGame) -> tuple[Any, ...]:
        return (record.id, record.variant, record.start_fen, json.dumps(record.moves),
                json.dumps(record.redo), record.white, record.black, record.human, record.level,
                record.result, record.termination, record.termination_text, record.winner,
                json.dumps(record.headers), record.pdn, record.created_at, record.updated_at,
                record.owner, record.white_player, record.black_player,
                record.clock_initial, record.clock_increment,
                None if record.clock_state is None else json.dumps(record.clock_state),
                record.invite, record.version, record.offers.to_json())

    # -- reading ------------------------------------------------------------------

    def get(self, game_id: str) -> StoredGame | None:
        """The game ``game_id``, or None."""
        with self._lock:
            row = self._run("SELECT * FROM games WHERE id = ?", (game_id,),
                            write=False).fetchone()
        return self._record(row) if row is not None else None

    @staticmethod
    def _player_filter(player: str | None, unowned: bool) -> tuple[str, tuple[Any, ...]]:
        if player is None:
            return "", ()
        where = "WHERE (owner = ? OR white_player = ? OR black_player = ?"
        where += " OR owner IS NULL)" if unowned else ")"
        return where, (player, player, player)

    def list(self, *, limit: int = 50, offset: int = 0, player: str | None = None,
             unowned: bool = False) -> list[StoredGame]:
        """Games, most recently changed first; with ``player``, only the games that
        player owns or holds a seat in (and with ``unowned``, the games without an owner
        too)."""
        where, args = self._player_filter(player, unowned)
        with self._lock:
            rows = self._run(
                f"SELECT * FROM games {where} ORDER BY updated_at DESC, rowid DESC "
                "LIMIT ? OFFSET ?", args + (limit, offset), write=False).fetchall()
        return [self._record(row) for row in rows]

    def find_imported(self, owner: str | None, pdn: str) -> str | None:
        """The id of a game ``owner`` imported with exactly this PDN text, or None."""
        with self._lock:
            row = self._run(
                "SELECT id FROM games WHERE pdn = ? AND owner IS ? ORDER BY rowid LIMIT 1",
                (pdn, owner), write=False).fetchone()
        return str(row["id"]) if row is not None else None

    def count(self, *, player: str | None = None, unowned: bool = False) -> int:
        """The number of games (of ``player``, as :meth:`list` counts them)."""
        where, args = self._player_filter(player, unowned)
        with self._lock:
            return int(self._run(f"SELECT COUNT(*) FROM games {where}",
                                 args, write=False).fetchone()[0])

    @staticmethod
    def _record(row: sqlite3.Row) -> StoredGame:
        return StoredGame(id=row["id"], variant=row["variant"], start_fen=row["start_fen"],
                          human=row["human"], level=int(row["level"]),
                          moves=json.loads(row["moves"]), redo=json.loads(row["redo"]),
                          white=row["white"], black=row["black"], result=row["result"],
                          termination=row["termination"], termination_text=row["termination_text"],
                          winner=row["winner"], headers=json.loads(row["headers"] or "{}"),
                          pdn=row["pdn"], created_at=row["created_at"],
                          updated_at=row["updated_at"],
                          owner=row["owner"], white_player=row["white_player"],
                          black_player=row["black_player"], clock_initial=row["clock_initial"],
                          clock_increment=row["clock_increment"],
                          clock_state=(json.loads(row["clock_state"])
                                       if row["clock_state"] is not None else None),
                          invite=row["invite"], version=int(row["version"]),
                          offers=Offers.from_json(row["offers"], row["id"]))
