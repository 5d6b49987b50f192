"""Storage of the web app's games: one row per game in an SQLite database.

Game reports (:mod:`damier.web.report`) live in a second table, one row per game,
the report as JSON next to the move list it was made from (so that a report of
moves since taken back can be told apart). ``PRAGMA user_version`` holds the
schema version; an older database is brought up to date when opened.

The database is in WAL mode and every change (each move, undo, resignation...)
is committed at once with ``synchronous=FULL``, so a server killed in the middle
of a game loses nothing: the next server finds the game as it was after the
last move.

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
>>> store.close()
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from damier.pdn import result_for_variant

__all__ = ["StoredGame", "GameStore", "SCHEMA_VERSION"]

SCHEMA_VERSION = 5
"""1: the games table; 2: the reports table (game reports); 3: who owns a game and who
holds its seats (``owner``, ``white_player``, ``black_player``); 4: the clocks of a timed
game (``clock_initial``, ``clock_increment``, ``clock_state``; NULL for untimed games);
5: the invitation to a game's open seat (``invite``: the secret of the friend's link)."""

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

_MIGRATIONS = {2: _REPORTS, 3: _PLAYERS, 4: _CLOCKS, 5: _INVITES}
"""The statements that bring a database of schema ``version - 1`` to ``version``."""

_COLUMNS = ("id", "variant", "start_fen", "moves", "redo", "white", "black", "human", "level",
            "result", "termination", "termination_text", "winner", "headers", "pdn",
            "created_at", "updated_at", "owner", "white_player", "black_player",
            "clock_initial", "clock_increment", "clock_state", "invite")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


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
    the clocks' state (:meth:`damier.game.Game.clock_state`).
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

    def seat(self, color: str) -> str | None:
        """The player holding the seat of ``color`` (``white`` or ``black``)."""
        return self.white_player if color == "white" else self.black_player

    def summary(self) -> dict[str, Any]:
        """The fields shown in a list of games."""
        return {"id": self.id, "variant": self.variant, "white": self.white, "black": self.black,
                "human": self.human, "level": self.level, "plies": len(self.moves),
                "result": self.result,
                "pdn_result": result_for_variant(self.result, self.variant) or self.result,
                "termination": self.termination,
                "termination_text": self.termination_text, "imported": self.pdn is not None,
                "event": self.headers.get("Event"),
                "created_at": self.created_at, "updated_at": self.updated_at}


class GameStore:
    """The games (and their reports) of one SQLite file (``":memory:"`` for a throwaway store).

    Safe to use from several threads: one connection, guarded by a lock.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                   timeout=10.0)
        self._db.row_factory = sqlite3.Row
        with self._lock:
            if self.path != ":memory:":
                mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise RuntimeError(f"cannot put {self.path} in WAL mode (got {mode})")
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"{self.path} was written by a newer damier (schema {version}, "
                                   f"this one knows {SCHEMA_VERSION})")
            self._db.executescript(_SCHEMA)
            for target in range(max(version, 1) + 1, SCHEMA_VERSION + 1):
                self._db.executescript(_MIGRATIONS[target])
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- writing ------------------------------------------------------------------

    def create(self, *, variant: str, start_fen: str, human: str, level: int,
               white: str = "?", black: str = "?", moves: list[str] | None = None,
               headers: dict[str, str] | None = None, pdn: str | None = None,
               game_id: str | None = None, owner: str | None = None,
               white_player: str | None = None, black_player: str | None = None,
               clock_initial: float | None = None, clock_increment: float | None = None,
               clock_state: dict[str, Any] | None = None,
               invite: str | None = None) -> StoredGame:
        """Stores a new game and returns it (its id is random: 64 bits)."""
        now = _now()
        record = StoredGame(id=game_id or secrets.token_hex(8), variant=variant,
                            start_fen=start_fen, human=human, level=level,
                            moves=list(moves or []), white=white, black=black,
                            headers=dict(headers or {}), pdn=pdn, created_at=now, updated_at=now,
                            owner=owner, white_player=white_player, black_player=black_player,
                            clock_initial=clock_initial, clock_increment=clock_increment,
                            clock_state=clock_state, invite=invite)
        values = self._values(record)
        with self._lock:
            self._db.execute(
                f"INSERT INTO games ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                values)
        return record

    def save_moves(self, game_id: str, moves: list[str], *, redo: list[str],
                   clock_state: dict[str, Any] | None = None) -> None:
        """Stores the moves played (and the moves that redo would replay), and the
        clocks' state when given (a timed game)."""
        if clock_state is None:
            self._update(game_id, moves=json.dumps(moves), redo=json.dumps(redo))
        else:
            self._update(game_id, moves=json.dumps(moves), redo=json.dumps(redo),
                         clock_state=json.dumps(clock_state))

    def save_result(self, game_id: str, *, result: str, termination: str | None,
                    termination_text: str | None, winner: str | None) -> None:
        """Stores how the game ended (``result="*"`` and None: it goes on)."""
        self._update(game_id, result=result, termination=termination,
                     termination_text=termination_text, winner=winner)

    def save(self, record: StoredGame) -> None:
        """Stores every field of ``record`` (one transaction)."""
        record.updated_at = _now()
        values = self._values(record)
        sets = ", ".join(f"{name} = ?" for name in _COLUMNS[1:])
        with self._lock:
            cur = self._db.execute(f"UPDATE games SET {sets} WHERE id = ?", values[1:] + (record.id,))
        if cur.rowcount == 0:
            raise KeyError(record.id)

    def delete(self, game_id: str) -> bool:
        """Forgets a game and its report."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                cur = self._db.execute("DELETE FROM games WHERE id = ?", (game_id,))
                self._db.execute("DELETE FROM reports WHERE game_id = ?", (game_id,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return cur.rowcount > 0

    def save_report(self, game_id: str, report: dict[str, Any]) -> None:
        """Stores the report of a game (replacing the previous one; nothing when the game
        is gone); ``report`` holds the ``start_fen`` and ``moves`` it was made from."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO reports (game_id, start_fen, moves, report, created_at) "
                "SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM games WHERE id = ?)",
                (game_id, report["start_fen"], json.dumps(report["moves"]),
                 json.dumps(report, separators=(",", ":")), _now(), game_id))

    def report_info(self, game_id: str) -> dict[str, Any] | None:
        """What the report of a game was made from (``start_fen``, ``moves``,
        ``created_at``) without reading the report itself; None without a report."""
        with self._lock:
            row = self._db.execute("SELECT start_fen, moves, created_at FROM reports "
                                   "WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        return {"start_fen": row["start_fen"], "moves": json.loads(row["moves"]),
                "created_at": row["created_at"]}

    def get_report(self, game_id: str) -> dict[str, Any] | None:
        """The stored report of a game, or None."""
        with self._lock:
            row = self._db.execute("SELECT report FROM reports WHERE game_id = ?",
                                   (game_id,)).fetchone()
        return json.loads(row["report"]) if row is not None else None

    def delete_report(self, game_id: str) -> bool:
        with self._lock:
            cur = self._db.execute("DELETE FROM reports WHERE game_id = ?", (game_id,))
        return cur.rowcount > 0

    def _update(self, game_id: str, **fields: Any) -> None:
        fields["updated_at"] = _now()
        sets = ", ".join(f"{name} = ?" for name in fields)
        with self._lock:
            cur = self._db.execute(f"UPDATE games SET {sets} WHERE id = ?",
                                   tuple(fields.values()) + (game_id,))
        if cur.rowcount == 0:
            raise KeyError(game_id)

    @staticmethod
    def _values(record: StoredGame) -> tuple[Any, ...]:
        return (record.id, record.variant, record.start_fen, json.dumps(record.moves),
                json.dumps(record.redo), record.white, record.black, record.human, record.level,
                record.result, record.termination, record.termination_text, record.winner,
                json.dumps(record.headers), record.pdn, record.created_at, record.updated_at,
                record.owner, record.white_player, record.black_player,
                record.clock_initial, record.clock_increment,
                None if record.clock_state is None else json.dumps(record.clock_state),
                record.invite)

    # -- reading ------------------------------------------------------------------

    def get(self, game_id: str) -> StoredGame | None:
        """The game ``game_id``, or None."""
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
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
            rows = self._db.execute(
                f"SELECT * FROM games {where} ORDER BY updated_at DESC, rowid DESC "
                "LIMIT ? OFFSET ?", args + (limit, offset)).fetchall()
        return [self._record(row) for row in rows]

    def find_imported(self, owner: str | None, pdn: str) -> str | None:
        """The id of a game ``owner`` imported with exactly this PDN text, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM games WHERE pdn = ? AND owner IS ? ORDER BY rowid LIMIT 1",
                (pdn, owner)).fetchone()
        return str(row["id"]) if row is not None else None

    def count(self, *, player: str | None = None, unowned: bool = False) -> int:
        """The number of games (of ``player``, as :meth:`list` counts them)."""
        where, args = self._player_filter(player, unowned)
        with self._lock:
            return int(self._db.execute(f"SELECT COUNT(*) FROM games {where}",
                                        args).fetchone()[0])

    @staticmethod
    def _record(row: sqlite3.Row) -> StoredGame:
        return StoredGame(id=row["id"], variant=row["variant"], start_fen=row["start_fen"],
                          human=row["human"], level=int(row["level"]),
                          moves=json.loads(row["moves"]), redo=json.loads(row["redo"]),
                          white=row["white"], black=row["black"], result=row["result"],
                          termination=row["termination"], termination_text=row["termination_text"],
                          winner=row["winner"], headers=json.loads(row["headers"] or "{}"),
                          pdn=row["pdn"], created_at=row["created_at"], updated_at=row["updated_at"],
                          owner=row["owner"], white_player=row["white_player"],
                          black_player=row["black_player"], clock_initial=row["clock_initial"],
                          clock_increment=row["clock_increment"],
                          clock_state=(json.loads(row["clock_state"])
                                       if row["clock_state"] is not None else None),
                          invite=row["invite"])
