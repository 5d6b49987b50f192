"""The web app of ``damier serve``: a JSON API, a WebSocket and a static page.

Routes (every error is JSON ``{"error": "...", "status": N, ...}``):

=========================================  ==============================================
``GET /``                                   the page (``static/index.html``)
``GET /api/variants``                       the variants and their boards
``GET /api/games``                          past games, most recent first (``limit``, ``offset``)
``POST /api/games``                         a new game: ``{"variant", "color", "level", "fen",
                                            "clock": "5+3", "opponent": "engine"|"friend"}``
``GET /api/games/{id}``                     a game: FEN, legal moves, move list, outcome...
``DELETE /api/games/{id}``                  forgets a game
``POST /api/games/{id}/move``               ``{"move": "32-28"}`` or ``{"from", "to", "path"}``
``POST /api/games/{id}/join``               ``{"invite": secret}``: takes a friend's open seat
``POST /api/games/{id}/undo``               ``{"count": n}`` (default: back to the person's turn)
``POST /api/games/{id}/redo``               ``{"count": n}`` (default 1)
``POST /api/games/{id}/line``               ``{"moves": [...]}``: replaces the move list
``POST /api/games/{id}/resign``             ``{"color": "white"}`` (default: the person's colour)
``POST /api/games/{id}/draw``               a draw offer; the engine accepts or declines
``POST /api/games/{id}/go``                 the engine plays the side to move now
``GET /api/games/{id}/pdn``                 the game as a PDN file (download)
``POST /api/games/{id}/analysis``           a game report: ``{"depth": n, "movetime": s}`` (202)
``GET /api/games/{id}/analysis``            the report (or its progress so far while it runs)
``DELETE /api/games/{id}/analysis``         stops a running report and forgets the stored one
``POST /api/import``                        PDN text (JSON ``{"pdn": ...}`` or a raw upload)
``POST /api/position``                      checks a FEN: ``{"variant", "fen"}``
``GET /puzzles``                            the puzzle page (``static/puzzles.html``)
``GET /api/puzzles/next``                   a puzzle near ``rating`` (``variant``, ``seen``)
``POST /api/puzzles/{id}/move``             ``{"played": [...], "move"}``: right? solved? reply
``POST /api/puzzles/{id}/hint``             ``{"played": [...]}``: the square to move from
``WS /ws/games/{id}``                       live state, engine moves and analysis
=========================================  ==============================================

The engine searches in worker threads (it releases the GIL), so the event loop
and the other games stay responsive while it thinks.

A game report (:mod:`damier.web.report`) evaluates every position of a finished or
imported game with the same depth and time per position, in a worker thread; the
pages watching the game get ``report_started``, ``report_progress`` (ply k of n,
with the new evaluation) and ``report_done`` (or ``report_stopped``) over the
WebSocket, and the report is stored in SQLite for ``GET .../analysis``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import logging
import math
import random
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, overload

from damier._core import Move
from damier.board import Board
from damier.egdb import DEFAULT_ENGINE_PIECES, EgdbSetting
from damier.engine import Engine, SearchInfo, SearchResult, format_score
from damier.errors import InvalidFenError
from damier.game import parse_time_control
from damier.piece import BLACK, WHITE
from damier.puzzles import Puzzle, check_move, load_puzzles
from damier.variants import VARIANTS, get_variant
from damier.web.access import (Viewer, adopt, is_local, require_owner, require_player,
                               require_seat, viewer_of)
from damier.web.limits import RateLimit
from damier.web.engines import (SLICE_SECONDS, Client, EnginePool, Job, JobStopped, PoolBusy,
                                PooledEngine)
from damier.web.report import ReportCancelled, analyse_game, pv_texts, white_score
from damier.web.security import Guard
from damier.web.session import (HUMAN_CHOICES, MAX_PLIES, ApiError, GameSession, all_variants,
                                capture_explanation, color_name, import_pdn, move_info,
                                storage_error, variant_info)
from damier.web.storage import GameStore, StorageError

try:  # the web extra
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles
    from starlette.websockets import WebSocket, WebSocketDisconnect
except ImportError:  # pragma: no cover - checked in create_app
    Starlette = None  # type: ignore[assignment,misc]

__all__ = ["create_app", "LiveGames", "JSON_LIMIT", "IMPORT_LIMIT", "STATIC_DIR",
           "REPORT_DEPTH", "REPORT_MOVETIME", "REPORT_MAX_DEPTH", "REPORT_MAX_MOVETIME"]

log = logging.getLogger("damier.web")

STATIC_DIR = Path(__file__).resolve().parent / "static"
JSON_LIMIT = 64 * 1024
"""The largest JSON request body accepted (bytes)."""
IMPORT_LIMIT = 1024 * 1024
"""The largest PDN upload accepted (bytes)."""
WS_MESSAGE_LIMIT = 16 * 1024
MOVE_TEXT_LIMIT = 200
"""The longest move text a request may hold (a full capture path on 10x10 is far shorter)."""
MAX_MULTIPV = 5
ANALYSIS_SECONDS = 60.0
"""An analysis stops by itself after this long."""
ANALYSIS_MAX_DEPTH = 40
MAX_OFFSET = 10**9
"""The largest ``offset`` of the list of games."""
PUZZLE_NODES = 300_000
"""The prover's node budget for judging a move off a puzzle's line."""
MAX_SESSIONS = 64
"""Games kept in memory; idle ones beyond this are dropped (they stay stored)."""
IDLE_SECONDS = 600.0
"""A game nobody has used for this long leaves memory (it stays stored)."""
DEFAULT_ENGINES = 2
"""Engines in the shared pool: searches that run at once (more wait their turn)."""
DEFAULT_HASH_MB = 16
"""Each pooled engine's hash table (MiB)."""
MAX_SOCKETS = 512
"""WebSocket connections at once on the whole server; more are refused (close 1013)."""
MAX_WATCHERS = 128
"""WebSocket connections at once on one game."""
MAX_PLAYER_SOCKETS = 32
"""WebSocket connections at once of one player (one cookie)."""
SEND_QUEUE_LIMIT = 64
"""Messages waiting for one WebSocket (a newer state replaces a waiting one); a page
that lets more pile up is too slow and its socket is closed (code 1013)."""
SEND_TIMEOUT = 20.0
"""Seconds one message may take to go out on a WebSocket before the socket is closed
(a client that stopped reading)."""
BODY_TIMEOUT = 10.0
"""Seconds a client may take to send a request body."""
IMPORT_SECONDS = 20.0
"""Seconds of work an import may take; the games read by then are kept."""

REPORT_DEPTH = 12
"""A game report's depth per position when the request gives neither depth nor movetime."""
REPORT_MOVETIME = 1.0
"""A game report's seconds per position when the request gives neither depth nor movetime."""
REPORT_MAX_DEPTH = 30
REPORT_MIN_MOVETIME = 0.01
REPORT_MAX_MOVETIME = 10.0
"""The bounds of a report's limits; a report asked for by depth alone still stops each
search after ``REPORT_MAX_MOVETIME`` seconds."""
ENGINE_SLICE_SECONDS = 1.0
"""An engine move (a level's time, or what a clock budgets: minutes, on a long clock)
gives its engine up after this long when another client's search waits: it plays its
best move so far."""
GAMES_PER_MINUTE = 30
"""New games (created or imported) one player may start a minute (as many at once)."""
ADDRESS_GAMES_PER_MINUTE = 120
"""New games one IP address of the network may start a minute (as many at once;
clients on this machine are told apart by their cookie only)."""
MAX_AUTOPLAY_GAMES = 4
"""Games of the engine against itself that one player may have running at once."""
MAX_REPORTS = 2
"""Game reports running at once on the server (each holds a worker thread)."""

DEFAULT_MOVETIME = {1: 0.5, 2: 0.5, 3: 0.5, 4: 0.6, 5: 0.8, 6: 1.0, 7: 1.2, 8: 1.5, 9: 2.0, 10: 2.5}
"""Seconds the engine may think per move, by level (lower levels also stop at a depth)."""


# -- request parsing ---------------------------------------------------------------------


async def read_body(request: "Request", limit: int) -> bytes:
    """The request body, refused with 413 beyond ``limit`` bytes."""
    length = request.headers.get("content-length")
    if length is not None:
        try:
            size = ascii_int(length)
        except ValueError:
            raise ApiError(400, f"bad Content-Length header {length!r}") from None
        if size > limit:
            raise ApiError(413, f"request body too large: {size} bytes (at most {limit})",
                           limit=limit)
    chunks = []
    total = 0

    async def read() -> None:
        nonlocal total
        async for chunk in request.stream():
            total += len(chunk)
            if total > limit:
                raise ApiError(413, f"request body too large: more than {limit} bytes",
                               limit=limit)
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), BODY_TIMEOUT)
    except asyncio.TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {BODY_TIMEOUT:g} seconds "
                       f"({total} bytes came)") from None
    return b"".join(chunks)


async def read_json(request: "Request", allowed: tuple[str, ...], *,
                    limit: int = JSON_LIMIT) -> dict[str, Any]:
    """The JSON object of the request body ({} when empty); unknown fields are refused."""
    body = await read_body(request, limit)
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ApiError(400, f"request body is not valid JSON: {err}") from None
    except RecursionError:
        raise ApiError(400, "request body is not valid JSON here: it is nested too deeply") from None
    except ValueError as err:  # e.g. a number of more digits than Python converts
        raise ApiError(400, f"request body is not valid JSON here: {str(err)[:100]}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"request body must be a JSON object, not {type(data).__name__}")
    check_text(data)
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ApiError(400, f"unknown field{'s' if len(unknown) > 1 else ''} "
                       f"{', '.join(map(repr, unknown))} (expected: {', '.join(allowed) or 'none'})")
    return data


def _bad_text(value: str) -> bool:
    """Whether ``value`` holds a lone UTF-16 surrogate (JSON's ``"\\ud800"``): text that
    cannot be stored or sent as UTF-8."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_text(data: Any, where: str = "") -> None:
    """Refuses (400) JSON whose keys or strings hold a lone surrogate, naming the field;
    iterative, so any nesting that ``json.loads`` accepted is checked."""
    stack: list[tuple[Any, str]] = [(data, where)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if _bad_text(value):
                raise ApiError(400, f"{path or 'the text'} holds an invalid character (a lone "
                               "UTF-16 surrogate): send valid Unicode text",
                               field=path.split(".")[0].split("[")[0] or None)
        elif isinstance(value, dict):
            for key, item in value.items():
                if _bad_text(key):
                    raise ApiError(400, "a field name holds an invalid character (a lone "
                                   "UTF-16 surrogate)")
                stack.append((item, f"{path}.{key}" if path else key))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(value))


def ascii_int(text: str, max_digits: int = 20) -> int:
    """A whole number written in ASCII digits (with an optional sign), as a query or a
    header gives it; ValueError otherwise (``int`` alone also reads ``"١٢"`` and
    ``"1_000"``, and any number of digits).

    >>> ascii_int("42"), ascii_int("-5")
    (42, -5)
    >>> ascii_int("１２")
    Traceback (most recent call last):
    ...
    ValueError: not a whole number in ASCII digits: '１２'
    """
    digits = text.strip()
    body = digits[1:] if digits[:1] in "+-" else digits
    if not (body.isascii() and body.isdigit()) or len(body) > max_digits:
        raise ValueError(f"not a whole number in ASCII digits: {text[:30]!r}")
    return int(digits)


def shown(value: Any, limit: int = 60) -> str:
    """``value`` as JSON for an error message, cut to ``limit`` characters."""
    text = json.dumps(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


@overload
def get_int(data: dict[str, Any], name: str, default: int, *,
            lo: int | None = None, hi: int | None = None) -> int: ...
@overload
def get_int(data: dict[str, Any], name: str, default: None = None, *,
            lo: int | None = None, hi: int | None = None) -> int | None: ...
def get_int(data: dict[str, Any], name: str, default: int | None = None, *,
            lo: int | None = None, hi: int | None = None) -> int | None:
    """The integer field ``name`` (``default`` when absent or null)."""
    value = data.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{name} must be an integer, got {shown(value)}", field=name)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ApiError(400, f"{name} must be between {lo} and {hi}, got {shown(value)}", field=name)
    return value


@overload
def get_str(data: dict[str, Any], name: str, default: str, *,
            choices: tuple[str, ...] | None = None, max_len: int = 1000) -> str: ...
@overload
def get_str(data: dict[str, Any], name: str, default: None = None, *,
            choices: tuple[str, ...] | None = None, max_len: int = 1000) -> str | None: ...
def get_str(data: dict[str, Any], name: str, default: str | None = None, *,
            choices: tuple[str, ...] | None = None, max_len: int = 1000) -> str | None:
    """The text field ``name`` (``default`` when absent or null)."""
    value = data.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ApiError(400, f"{name} must be a string, got {shown(value)}", field=name)
    if len(value) > max_len:
        raise ApiError(400, f"{name} is too long (at most {max_len} characters)", field=name)
    if choices is not None and value not in choices:
        raise ApiError(400, f"{name} must be one of {', '.join(choices)}, got {value!r}",
                       field=name)
    return value


def get_seconds(data: dict[str, Any], name: str, *, lo: float, hi: float) -> float | None:
    """A number of seconds between ``lo`` and ``hi`` (None when absent)."""
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ApiError(400, f"{name} must be a number of seconds, got {shown(value)}",
                       field=name)
    if not lo <= value <= hi:
        raise ApiError(400, f"{name} must be between {lo:g} and {hi:g} seconds, got {value:g}",
                       field=name)
    return float(value)


def get_squares(data: dict[str, Any], name: str, *, max_len: int = 64) -> list[int] | None:
    value = data.get(name)
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) > max_len
            or any(isinstance(v, bool) or not isinstance(v, int) for v in value)):
        raise ApiError(400, f"{name} must be a list of square numbers", field=name)
    return value


def move_spec(data: dict[str, Any]) -> dict[str, Any]:
    """The move of a request: ``{"move": text}`` or ``{"from", "to", "path", "captures"}``."""
    if "move" in data:
        if any(k in data for k in ("from", "to", "path", "captures")):
            raise ApiError(400, "give either move (text) or from/to, not both")
        text = get_str(data, "move", max_len=MOVE_TEXT_LIMIT)
        if text is None or not text.strip():
            raise ApiError(400, 'move must be a move in text, e.g. "32-28"', field="move")
        return {"move": text}
    if "from" not in data or "to" not in data:
        raise ApiError(400, 'a move needs "move" (e.g. "32-28") or "from" and "to" squares')
    spec: dict[str, Any] = {"from": get_int(data, "from", lo=0, hi=1000),
                            "to": get_int(data, "to", lo=0, hi=1000)}
    if spec["from"] is None or spec["to"] is None:
        raise ApiError(400, '"from" and "to" must be square numbers')
    path = get_squares(data, "path")
    if path is not None:
        if len(path) < 2:
            raise ApiError(400, "path must hold at least the start and end squares", field="path")
        if path[0] != spec["from"] or path[-1] != spec["to"]:
            raise ApiError(400, "path must start at from and end at to", field="path")
        spec["path"] = path
    captures = get_squares(data, "captures")
    if captures is not None:
        spec["captures"] = captures
    return spec


# -- live games -------------------------------------------------------------------------------


def _coalesce_key(message: dict[str, Any]) -> str | None:
    """Messages of one key are news of the same thing, of which only the latest matters:
    the game's state, the engine's line, whether the engine thinks, a live analysis's
    lines at the depth reached so far (not its end). None: every one counts (a game
    report's progress, errors, pongs...)."""
    kind = message.get("type")
    if kind in ("state", "engine"):
        return str(kind)
    if kind == "info":
        return f"info:{message.get('source')}"
    if kind == "analysis" and message.get("done") is False:
        return "analysis"
    return None


class Subscriber:
    """One WebSocket's outgoing messages: a short queue in which a newer message of the
    same kind replaces the one still waiting, in its place (:func:`_coalesce_key`: only
    the latest game state or engine line matters to a page). A page that stops reading
    lets the queue fill: at :data:`SEND_QUEUE_LIMIT` messages it is marked
    ``overflowed`` and its socket is closed (it may reconnect and get the state
    afresh), so a stalled client never holds more than that many messages."""

    def __init__(self) -> None:
        self.queue: collections.deque[dict[str, Any]] = collections.deque()
        self.ready = asyncio.Event()
        self.overflowed = False
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        if self.closed or self.overflowed:
            return
        key = _coalesce_key(message)
        if key is not None:
            for i, waiting in enumerate(self.queue):
                if _coalesce_key(waiting) == key:
                    self.queue[i] = message
                    self.ready.set()
                    return
        if len(self.queue) >= SEND_QUEUE_LIMIT:
            self.overflowed = True
            self.queue.clear()
        else:
            self.queue.append(message)
        self.ready.set()

    def close(self) -> None:
        """Ends the sender (the socket is going away)."""
        self.closed = True
        self.queue.clear()
        self.ready.set()

    async def next(self) -> dict[str, Any] | None:
        """The next message to send; None when the socket must close."""
        while True:
            if self.closed or self.overflowed:
                return None
            if self.queue:
                return self.queue.popleft()
            self.ready.clear()
            await self.ready.wait()


class LiveGame:
    """A game in memory: its session, its searches and the pages watching it."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self.client: Client = ("", session.record.owner or "")
        """Whose turn the game's searches take in the engine pool's fair queue: the
        client (IP address, player) that last changed the game or asked for a search."""
        self.subscribers: set[Subscriber] = set()
        self.generation = 0  # bumped by every change that makes a running search stale
        self.engine_task: asyncio.Task[None] | None = None
        self.analysis_task: asyncio.Task[None] | None = None
        self.play_job: Job | None = None
        self.analysis_job = Job()
        self.lock = asyncio.Lock()
        self.last_used = time.monotonic()
        self.last_info: dict[str, Any] | None = None
        # the game report: its task, its searches and how far it got
        self.report_task: asyncio.Task[None] | None = None
        self.report_job = Job()
        self.report_progress: dict[str, Any] = {}
        self.report_partial: dict[str, list[Any]] = {"positions": [], "plies": []}
        self._report_info: dict[str, Any] | None | bool = False  # False: not read yet
        self.flag_timer: asyncio.TimerHandle | None = None

    @property
    def thinking(self) -> bool:
        return self.engine_task is not None and not self.engine_task.done()

    @property
    def analysing(self) -> bool:
        return self.analysis_task is not None and not self.analysis_task.done()

    @property
    def reporting(self) -> bool:
        return self.report_task is not None and not self.report_task.done()

    def stop_engines(self) -> None:
        self.generation += 1
        if self.play_job is not None:
            self.play_job.stop()
        self.stop_analysis()

    def stop_analysis(self) -> None:
        self.analysis_job.stop()

    def stop_report(self) -> None:
        self.report_job.stop()

    def report_info(self) -> dict[str, Any] | None:
        """What the stored report was made from (cached), or None."""
        if self._report_info is False:
            self._report_info = self.session.store.report_info(self.session.id)
        return self._report_info  # type: ignore[return-value]

    def forget_report_info(self) -> None:
        self._report_info = False

    def report_state(self) -> dict[str, Any]:
        """The game report in the game's state: ``none``, ``running`` (with ``ply`` and
        ``plies``) or ``done`` (``stale`` when the moves have changed since)."""
        if self.reporting:
            return {"status": "running", **self.report_progress}
        info = self.report_info()
        if info is None:
            return {"status": "none"}
        rec = self.session.record
        stale = info["moves"] != rec.moves or info["start_fen"] != rec.start_fen
        return {"status": "done", "stale": stale, "created_at": info["created_at"]}

    def broadcast(self, message: dict[str, Any]) -> None:
        for sub in list(self.subscribers):
            sub.send(message)

    def state(self) -> dict[str, Any]:
        state = self.session.state()
        state["engine_thinking"] = self.thinking
        state["analysing"] = self.analysing
        state["report"] = self.report_state()
        game = self.session.game
        state["draw_offer"] = None if game.draw_offer is None else color_name(game.draw_offer)
        rec = self.session.record
        state["two_players"] = self.session.two_players()
        state["open_seat"] = (None if rec.invite is None else
                              "white" if rec.white_player is None else "black")
        state["version"] = next_version()
        return state

    def idle(self) -> bool:
        return (not self.subscribers and not self.thinking and not self.analysing
                and not self.reporting)


_versions = itertools.count(time.time_ns() // 1000)


def next_version() -> int:
    """Increasing numbers for the states sent to pages, so that a page can drop a state that
    arrives after a newer one (an HTTP reply overtaken by the WebSocket); they keep
    increasing across restarts of the server (they start from the clock)."""
    return next(_versions)


class LiveGames:
    """The games in memory, the shared engine pool, the worker threads and the store."""

    def __init__(self, store: GameStore, *, movetime: dict[int, float] | float | None = None,
                 analysis_seconds: float = ANALYSIS_SECONDS, workers: int = 8,
                 engines: int = DEFAULT_ENGINES, hash_mb: int = DEFAULT_HASH_MB,
                 book: bool = True, egdb: EgdbSetting = None,
                 egdb_pieces: int = DEFAULT_ENGINE_PIECES,
                 games_per_minute: int = GAMES_PER_MINUTE) -> None:
        self.store = store
        if movetime is None:
            movetime = DEFAULT_MOVETIME
        self.movetime = movetime
        self.analysis_seconds = analysis_seconds
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="damier-web")
        self.pool = EnginePool(size=engines, hash_mb=hash_mb, book=book, egdb=egdb,
                               egdb_pieces=egdb_pieces)
        self.games: dict[str, LiveGame] = {}
        self.games_per_minute = games_per_minute
        self.player_games = RateLimit(per_minute=games_per_minute, burst=games_per_minute)
        self.address_games = RateLimit(per_minute=ADDRESS_GAMES_PER_MINUTE,
                                       burst=ADDRESS_GAMES_PER_MINUTE)
        self.sockets = 0
        self.player_sockets: collections.Counter[str] = collections.Counter()

    def check_new_game(self, client: Client, *, local: bool, autoplay: bool = False) -> None:
        """Refuses (429) a new game beyond the client's limits: :data:`GAMES_PER_MINUTE`
        per player, :data:`ADDRESS_GAMES_PER_MINUTE` per address of the network, and
        :data:`MAX_AUTOPLAY_GAMES` games of the engine against itself at once."""
        address, who = client
        if autoplay:
            running = sum(1 for g in self.games.values()
                          if g.session.record.human == "none" and g.session.record.owner == who
                          and not g.session.is_over())
            if running >= MAX_AUTOPLAY_GAMES:
                raise ApiError(429, f"you have {running} games of the engine against itself "
                               f"running (at most {MAX_AUTOPLAY_GAMES}): let one finish or "
                               "delete one first", kind="rate_limited", retry_after=30)
        wait = self.player_games.take(who)
        if not wait and not local:
            wait = self.address_games.take(address)
        if wait:
            seconds = math.ceil(wait)
            raise ApiError(429, f"too many new games: try again in {seconds} second"
                           f"{'s' if seconds != 1 else ''} (at most {self.games_per_minute} "
                           "a minute)", kind="rate_limited", retry_after=seconds)

    def movetime_for(self, level: int) -> float:
        if isinstance(self.movetime, dict):
            return float(self.movetime.get(level, 1.0))
        return float(self.movetime)

    def get(self, game_id: str) -> LiveGame:
        live = self.games.get(game_id)
        if live is None:
            if len(game_id) > 64:
                raise ApiError(404, "no game with that id")
            live = LiveGame(GameSession.load(self.store, game_id))
            self.games[game_id] = live
            self._evict()
            try:
                live.session.check_flag()  # the time ran out while nobody watched
            except ApiError as err:  # not stored now: the game shows as stored
                log.warning("flag of game %s not recorded: %s", game_id, err.message)
            self.watch_flag(live)
        live.last_used = time.monotonic()
        return live

    def add(self, session: GameSession) -> LiveGame:
        live = LiveGame(session)
        self.games[session.id] = live
        self._evict()
        return live

    def forget(self, game_id: str) -> None:
        live = self.games.pop(game_id, None)
        if live is not None:
            live.stop_engines()
            live.stop_report()
            self._drop(live)

    def release(self, live: LiveGame) -> None:
        """Drops a game nobody watches and nothing runs for from memory (it is stored)."""
        if live.idle() and not live.lock.locked() and self.games.get(live.session.id) is live:
            del self.games[live.session.id]
            self._drop(live)

    @staticmethod
    def _drop(live: LiveGame) -> None:
        """A game leaves memory: its flag timer goes with it (the stored game's flag is
        looked at again when it is next loaded, :meth:`get`), so that a session no longer
        in memory never writes to the store."""
        if live.flag_timer is not None:
            live.flag_timer.cancel()
            live.flag_timer = None

    def _evict(self) -> None:
        """Drops idle games (nobody watches, nothing runs) from memory: the least recently
        used beyond :data:`MAX_SESSIONS`, and any unused for :data:`IDLE_SECONDS`."""
        now = time.monotonic()
        idle = sorted((g for g in self.games.values() if g.idle() and not g.lock.locked()),
                      key=lambda g: g.last_used)
        excess = max(0, len(self.games) - MAX_SESSIONS)
        for i, live in enumerate(idle):
            if i >= excess and now - live.last_used < IDLE_SECONDS:
                break
            del self.games[live.session.id]
            self._drop(live)

    def shutdown(self) -> None:
        for live in self.games.values():
            live.stop_engines()
            live.stop_report()
        self.pool.shutdown()
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- changes ----------------------------------------------------------------------------

    def changed(self, live: LiveGame, **extra: Any) -> dict[str, Any]:
        """After a change: stale searches stop, the engine moves if it is its turn, the
        flag timer is set again, and every page watching gets the new state. Returns the
        state."""
        self.maybe_start_engine(live)
        self.watch_flag(live)
        state = live.state()
        live.broadcast({"type": "state", "game": state, **extra})
        return state

    async def warm_tree(self, live: LiveGame) -> None:
        """Builds an imported game's tree (its variations with the moves played merged
        in: up to a few hundred milliseconds for the largest trees) in a worker thread,
        so that the state sent next finds it ready instead of building it on the event
        loop."""
        if live.session.record.pdn is not None:
            try:
                await asyncio.get_running_loop().run_in_executor(self.executor,
                                                                 live.session.tree)
            except Exception:  # the moves changed meanwhile: the state builds it afresh
                log.debug("tree of game %s built on the loop", live.session.id, exc_info=True)

    def watch_flag(self, live: LiveGame) -> None:
        """Sets a timer for the moment the running clock reaches zero (a timed game): the
        game then ends on time, and every page hears of it."""
        if live.flag_timer is not None:
            live.flag_timer.cancel()
            live.flag_timer = None
        game = live.session.game
        if game.clocks is None or not game.clock_running or live.session.is_over():
            return
        left = min(game.times().values())
        live.flag_timer = asyncio.get_running_loop().call_later(
            max(0.0, left) + 0.02, self._flag, live)

    def _flag(self, live: LiveGame) -> None:
        live.flag_timer = None
        if self.games.get(live.session.id) is not live:
            return  # the game left memory (or was deleted): its timer is not this one's
        try:
            fallen = live.session.check_flag()
        except ApiError as err:  # the stored game changed or went away meanwhile
            log.info("flag of game %s not recorded: %s", live.session.id, err.message)
            self.forget(live.session.id)
            return
        if fallen:
            live.stop_engines()
            self.changed(live)
        else:  # not yet (the clock was changed meanwhile): look again later
            self.watch_flag(live)

    def maybe_start_engine(self, live: LiveGame, *, force: bool = False) -> bool:
        session = live.session
        if live.thinking or session.is_over() or session._finished_by_decision():
            return False
        if not force and not session.engine_to_move():
            return False
        if self.games.get(session.id) is not live:
            return False   # a game that left memory (deleted, say) gets no more moves
        live.stop_analysis()
        live.engine_task = asyncio.get_running_loop().create_task(
            self._engine_move(live, live.generation))
        return True

    async def _engine_move(self, live: LiveGame, generation: int) -> None:
        """Searches and plays the engine's move; dropped when the game changed (its
        ``generation``, read when the search was asked for) or left memory meanwhile."""
        loop = asyncio.get_running_loop()
        session = live.session
        board = session.board.copy()
        level = session.record.level
        movetime = self.movetime_for(level)
        job = Job(live.client)
        live.play_job = job
        # the latest line of each first move: below level 10 the engine may play a move
        # other than its best, and the line then shown must be the played move's
        lines_by_move: dict[Move, SearchInfo] = {}

        def info_message(i: SearchInfo, pv: list[Move]) -> dict[str, Any]:
            ws = white_score(i.score, board.turn)
            return {"type": "info", "source": "engine", "depth": i.depth, "score": i.score,
                    "white_score": ws, "score_text": format_score(ws), "nodes": i.nodes,
                    "nps": i.nps, "time": round(i.time, 3), "pv": pv_texts(board, pv),
                    "fen": board.fen(), "ply": len(board.move_stack)}

        def info(i: SearchInfo) -> None:
            if i.pv:
                lines_by_move[i.pv[0]] = i
            if i.multipv != 1:  # below level 10 the engine looks at every move; show the best
                return
            loop.call_soon_threadsafe(self._info, live, generation, info_message(i, i.pv))

        clock = session.game.engine_clock()  # a timed game: the engine spends its own time

        def search(engine: Engine) -> SearchResult:
            engine.set_level(level)
            if clock is not None:
                return engine.search(board, clock=clock, info=job.watch(engine, info))
            return engine.search(board, movetime=movetime, info=job.watch(engine, info))

        live.broadcast({"type": "engine", "thinking": True})
        try:
            # a move gives its engine up after a while when another client waits
            result = await asyncio.wrap_future(self.pool.submit(
                job, search, slice_seconds=ENGINE_SLICE_SECONDS))
        except JobStopped:
            live.engine_task = None
            live.broadcast({"type": "engine", "thinking": False})
            return
        except PoolBusy as err:
            live.engine_task = None
            live.broadcast({"type": "engine", "thinking": False, "error": str(err)})
            return
        except Exception:  # pragma: no cover - an engine failure must not kill the loop
            log.exception("engine search failed in game %s", session.id)
            live.engine_task = None
            live.broadcast({"type": "engine", "thinking": False, "error": "the engine failed"})
            return
        live.engine_task = None
        if live.generation != generation or result.best_move is None or job.stopped.is_set():
            live.broadcast({"type": "engine", "thinking": False})
            return
        try:
            played = session.play_move(result.best_move, by_engine=True)
            session.start_clock()
        except ApiError as err:  # the game changed under the engine (or its flag fell)
            log.info("engine move dropped in game %s: %s", session.id, err.message)
            live.broadcast({"type": "engine", "thinking": False})
            if err.extra.get("kind") in ("deleted", "stale", "storage"):
                # not stored: searching again would fail again; the pages reload
                live.broadcast({"type": "state", "game": live.state()})
                if err.extra.get("kind") != "storage":
                    self.forget(session.id)
                return
            self.changed(live)
            return
        await self.warm_tree(live)
        self.changed(live, engine_move=played.text,
                     engine_score=white_score(result.score, board.turn),
                     engine_score_text=format_score(white_score(result.score, board.turn)))
        # the line shown is the played move's (or none), not the best line's
        if result.pv and result.pv[0] == result.best_move:
            final: SearchInfo | None = SearchInfo(
                depth=result.depth, seldepth=result.seldepth, score=result.score,
                nodes=result.nodes, time=result.time, pv=list(result.pv))
        else:
            final = lines_by_move.get(result.best_move)
        message = (info_message(final, final.pv) if final is not None else
                   {"type": "info", "source": "engine", "depth": result.depth, "pv": [],
                    "fen": board.fen(), "ply": len(board.move_stack)})
        message["played"] = played.text
        live.last_info = None
        live.broadcast(message)

    def _info(self, live: LiveGame, generation: int, message: dict[str, Any]) -> None:
        if live.generation == generation:
            live.last_info = message
            live.broadcast(message)

    # -- analysis ----------------------------------------------------------------------------

    def start_analysis(self, live: LiveGame, *, multipv: int, ply: int | None,
                       fen: str | None = None) -> None:
        session = live.session
        if fen is not None:
            try:
                board = Board(fen, variant=session.variant)
            except InvalidFenError as err:
                raise ApiError(400, f"invalid FEN: {err}") from None
        elif ply is None or ply >= len(session.record.moves):
            board = session.board.copy()
        else:
            board = Board(session.record.start_fen, variant=session.variant)
            for text in session.record.moves[:ply]:
                board.push(text)
        live.stop_analysis()
        job = Job(live.client)
        live.analysis_job = job
        live.analysis_task = asyncio.get_running_loop().create_task(
            self._analyse(live, board, multipv, job))

    async def _analyse(self, live: LiveGame, board: Board, multipv: int, job: Job) -> None:
        """Deeper and deeper searches of ``board``, each sent to the pages, until stopped,
        ``analysis_seconds`` have passed, or the result is known. Each depth queues for an
        engine of the pool anew, so many analyses share the engines in turn."""
        deadline = time.monotonic() + self.analysis_seconds
        fen = board.fen()
        ply = len(board.move_stack)
        legal = board.legal_moves

        def send(message: dict[str, Any]) -> None:
            if not job.stopped.is_set():
                live.broadcast(message)

        live.broadcast({"type": "analysis_started", "fen": fen, "ply": ply, "multipv": multipv})
        last_depth = 0
        verdict = self.pool.egdb_verdict(board) if legal else None
        database = verdict.text() if verdict is not None else None
        try:
            if not legal:
                send({"type": "analysis", "fen": fen, "ply": ply, "depth": 0, "lines": [],
                      "done": True})
                return
            depth = 1
            while depth <= ANALYSIS_MAX_DEPTH:
                if job.stopped.is_set() or time.monotonic() > deadline:
                    break
                left = max(0.05, deadline - time.monotonic())

                def run(engine: Engine, depth: int = depth, left: float = left
                        ) -> list[SearchResult]:
                    return engine.analyse(board, multipv=multipv, depth=depth, movetime=left,
                                          info=job.watch(engine))

                # a depth that runs long gives its engine up when another client waits,
                # and asks again (at the back of the queue)
                results = await asyncio.wrap_future(self.pool.submit(
                    job, run, slice_seconds=SLICE_SECONDS))
                if job.yielded and not job.stopped.is_set():
                    continue
                if job.stopped.is_set() or not results or results[0].depth < depth:
                    break
                lines = []
                for r in results:
                    ws = white_score(r.score, board.turn)
                    lines.append({"score": r.score, "white_score": ws,
                                  "score_text": format_score(ws), "depth": r.depth,
                                  "pv": pv_texts(board, r.pv),
                                  "move": move_info(r.best_move, legal) if r.best_move else None})
                last_depth = depth
                send({"type": "analysis", "fen": fen, "ply": ply, "depth": depth,
                      "nodes": sum(r.nodes for r in results), "lines": lines, "done": False,
                      "database": database})
                if all(r.is_win or r.is_loss for r in results[:1]) and depth >= 12:
                    break
                depth += 1
            send({"type": "analysis", "fen": fen, "ply": ply, "depth": last_depth,
                  "lines": None, "done": True, "database": database})
        except JobStopped:
            pass
        except PoolBusy as err:
            send({"type": "analysis", "fen": fen, "ply": ply, "depth": last_depth,
                  "lines": None, "done": True, "database": database, "error": str(err)})
        except Exception:  # an engine failure: the pages hear of it, nothing hangs
            log.exception("analysis failed in game %s", live.session.id)
            send({"type": "analysis", "fen": fen, "ply": ply, "depth": last_depth,
                  "lines": None, "done": True, "database": database,
                  "error": "the analysis failed (the server's log has the details)"})
        finally:
            if live.analysis_job is job:
                live.analysis_task = None
            if not live.subscribers:
                asyncio.get_running_loop().call_soon(self.release, live)

    # -- game reports ----------------------------------------------------------------------------

    def start_report(self, live: LiveGame, *, depth: int | None,
                     movetime: float | None) -> dict[str, Any]:
        """Starts the report of ``live``'s game (checks first; 409 if one is running)."""
        session = live.session
        if live.reporting:
            raise ApiError(409, "an analysis of this game is already running "
                           f"(ply {live.report_progress.get('ply', 0)} of "
                           f"{live.report_progress.get('plies', len(session.record.moves))})",
                           kind="analysis_running")
        refusal = session.report_refusal()
        if refusal is not None:
            raise ApiError(409, refusal, kind="cannot_analyse")
        running = sum(1 for g in self.games.values() if g.reporting)
        if running >= MAX_REPORTS:
            raise ApiError(503, f"{running} game analyses are running (at most {MAX_REPORTS}); "
                           "try again when one has finished", kind="busy")
        if depth is None and movetime is None:
            depth, movetime = REPORT_DEPTH, REPORT_MOVETIME
        elif movetime is None:
            movetime = REPORT_MAX_MOVETIME
        elif depth is None:
            depth = ANALYSIS_MAX_DEPTH
        assert depth is not None and movetime is not None
        plies = len(session.record.moves)
        job = Job(live.client)
        live.report_job = job
        live.report_progress = {"ply": 0, "plies": plies, "depth": depth, "movetime": movetime}
        live.report_partial = {"positions": [], "plies": []}
        live.report_task = asyncio.get_running_loop().create_task(
            self._report(live, depth, movetime, job))
        return {"status": "running", **live.report_progress}

    async def _report(self, live: LiveGame, depth: int, movetime: float, job: Job) -> None:
        loop = asyncio.get_running_loop()
        session = live.session
        rec = session.record
        game_id, start_fen, moves = rec.id, rec.start_fen, list(rec.moves)
        white, black, variant = rec.white, rec.black, session.variant.name
        stop = job.stopped
        engine = PooledEngine(self.pool, job)  # each position takes its turn in the pool

        def progress(ply: int, plies: int, position: dict[str, Any],
                     move: dict[str, Any] | None) -> None:
            message = {"type": "report_progress", "ply": ply, "plies": plies,
                       "position": position, "move": move}
            loop.call_soon_threadsafe(self._report_progress, live, stop, message)

        def run() -> dict[str, Any]:
            report = analyse_game(start_fen, variant, moves, engine,  # type: ignore[arg-type]
                                  depth=depth,
                                  movetime=movetime, white=white, black=black,
                                  progress=progress, stop=stop)
            report["game_id"] = game_id
            if stop.is_set():
                raise ReportCancelled()
            self.store.save_report(game_id, report)
            return report

        live.broadcast({"type": "report_started", "plies": len(moves), "depth": depth,
                        "movetime": movetime})
        report: dict[str, Any] | None = None
        error = None
        try:
            report = await loop.run_in_executor(self.executor, run)
        except (ReportCancelled, JobStopped):
            pass
        except PoolBusy as err:
            error = str(err)
        except Exception:  # pragma: no cover - an engine failure must not kill the loop
            log.exception("game report failed in game %s", game_id)
            error = "the analysis failed"
        if live.report_job is job:
            live.report_task = None
            live.report_progress = {}
            live.report_partial = {"positions": [], "plies": []}
        live.forget_report_info()
        if report is not None:
            live.broadcast({"type": "report_done", "plies": len(moves),
                            "summary": report["summary"]})
        else:
            live.broadcast({"type": "report_stopped", "error": error})
        live.broadcast({"type": "state", "game": live.state()})

    def _report_progress(self, live: LiveGame, stop: threading.Event,
                         message: dict[str, Any]) -> None:
        if live.report_job.stopped is stop and not stop.is_set():
            live.report_progress.update(ply=message["ply"], plies=message["plies"])
            live.report_partial["positions"].append(message["position"])
            if message["move"] is not None:
                live.report_partial["plies"].append(message["move"])
            live.broadcast(message)

    # -- draw offers ---------------------------------------------------------------------------

    async def draw_offer(self, live: LiveGame) -> tuple[bool, str]:
        """Whether the engine accepts a draw offered by the person, and why."""
        session = live.session
        board = session.board.copy()
        live.stop_analysis()
        movetime = min(0.5, self.movetime_for(10))
        job = Job(live.client)
        results = await asyncio.wrap_future(self.pool.submit(
            job, lambda engine: engine.analyse(board, multipv=1, depth=12, movetime=movetime)))
        score = results[0].score if results else 0
        engine_is_white = session.record.human == "black"
        engine_view = score if (board.turn == WHITE) == engine_is_white else -score
        if engine_view <= 20:
            return True, (f"the engine accepts: it sees nothing better than a draw "
                          f"({format_score(engine_view)} for itself)")
        return False, (f"the engine declines: it thinks it stands better "
                       f"({format_score(engine_view)} for itself)")


# -- the app ---------------------------------------------------------------------------------


def create_app(db: str | Path = "damier-games.sqlite3", *,
               movetime: dict[int, float] | float | None = None,
               analysis_seconds: float = ANALYSIS_SECONDS,
               allowed_hosts: Iterable[str] = (), engines: int = DEFAULT_ENGINES,
               hash_mb: int = DEFAULT_HASH_MB, book: bool = True,
               egdb: EgdbSetting = None,
               egdb_pieces: int = DEFAULT_ENGINE_PIECES,
               games_per_minute: int = GAMES_PER_MINUTE) -> "Starlette":
    """The Starlette app serving the games stored in the SQLite file ``db``.

    ``movetime``: the engine's seconds per move (one number, or by level).
    ``allowed_hosts``: host names the server answers to besides IP addresses and
    ``localhost`` (see :mod:`damier.web.security`). ``engines`` and ``hash_mb``: the
    shared engine pool (searches at once, and each one's hash table in MiB).
    ``book``: the engine plays the opening from the variant's shipped book (levels
    8-10; analysis never uses it). ``egdb``: the endgame databases the engines probe
    (a directory of the server's, never one a client names; see
    :class:`damier.engine.Engine`), ``egdb_pieces`` the most pieces they probe.
    ``games_per_minute``: the new games one player may start a minute
    (:data:`GAMES_PER_MINUTE`).
    """
    if Starlette is None:
        raise RuntimeError("the web app needs Starlette: pip install 'damier[web]'")
    store = GameStore(db)
    live_games = LiveGames(store, movetime=movetime, analysis_seconds=analysis_seconds,
                  engines=engines, hash_mb=hash_mb, book=book, egdb=egdb,
                  egdb_pieces=egdb_pieces, games_per_minute=games_per_minute)

    def ok(data: Any, status: int = 200) -> JSONResponse:
        return JSONResponse(data, status_code=status)

    def api(handler: Callable[..., Any]) -> Callable[["Request"], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                response: Response = await handler(request)
                return response
            except ApiError as err:
                headers = ({"Retry-After": str(err.extra["retry_after"])}
                           if "retry_after" in err.extra else None)
                return JSONResponse(err.payload(), status_code=err.status, headers=headers)
            except PoolBusy as err:
                return JSONResponse({"error": str(err), "status": 429, "kind": "busy"},
                                    status_code=429, headers={"Retry-After": "5"})
            except StorageError as err:   # the store could not be read or written
                log.warning("%s %s: %s", request.method, request.url.path, err)
                failure = storage_error(err, "read or store the games", "nothing was changed")
                return JSONResponse(failure.payload(), status_code=failure.status)
            except Exception:  # a bug: a JSON 500 that keeps the connection usable
                log.exception("unexpected error in %s %s", request.method, request.url.path)
                return JSONResponse({"error": "internal error (the server's log has the "
                                              "details)", "status": 500}, status_code=500)
        endpoint.__name__ = handler.__name__
        return endpoint

    def game_id(request: Request) -> str:
        return str(request.path_params["game_id"])

    def player(conn: "Request | WebSocket") -> str:
        return str(conn.scope.get("state", {}).get("player", ""))

    def client_of(conn: "Request | WebSocket") -> Client:
        return (conn.client.host if conn.client else "", player(conn))

    def local(conn: "Request | WebSocket") -> bool:
        return is_local(conn.client.host if conn.client else None)

    def viewer(conn: "Request | WebSocket", live: LiveGame) -> Viewer:
        return viewer_of(live.session.record, player(conn), local=local(conn))

    def allow(conn: "Request | WebSocket", live: LiveGame, check: Callable[..., None],
              *args: Any) -> Viewer:
        """Checks ``conn``'s right (``check`` of :mod:`damier.web.access`); a game without
        an owner is adopted by its first local player's change."""
        v = viewer(conn, live)
        check(live.session.record, v, *args)
        live.client = client_of(conn)
        if v.adoptable:
            live.session.update_record(lambda rec: adopt(rec, v.player),
                                       "owner", "white_player", "black_player")
            v = viewer(conn, live)
        return v

    def no_takebacks(live: LiveGame, what: str) -> None:
        if live.session.two_players():
            raise ApiError(409, f"you cannot {what} in a game between two players",
                           kind="two_players")

    def with_viewer(state: dict[str, Any], v: Viewer, live: LiveGame | None = None
                    ) -> dict[str, Any]:
        you = v.as_json()
        if live is not None and v.owner and live.session.record.invite is not None:
            # only the owner sees the invitation (the friend's seat is still open)
            you["invite"] = live.session.record.invite
        return {**state, "you": you}

    async def index(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    @api
    async def variants(request: Request) -> Response:
        return ok({"variants": all_variants(), "levels": list(range(1, 11)),
                   "colors": list(HUMAN_CHOICES), "limits": {"json": JSON_LIMIT,
                                                             "import": IMPORT_LIMIT}})

    @api
    async def list_games(request: Request) -> Response:
        params = request.query_params
        try:
            limit = ascii_int(params.get("limit", "50"))
            offset = ascii_int(params.get("offset", "0"))
        except ValueError:
            raise ApiError(400, "limit and offset must be integers") from None
        if not 1 <= limit <= 500 or not 0 <= offset <= MAX_OFFSET:
            raise ApiError(400, f"limit must be 1-500 and offset 0-{MAX_OFFSET}")
        who, unowned = player(request), local(request)
        records = store.list(limit=limit, offset=offset, player=who, unowned=unowned)
        return ok({"games": [r.summary() for r in records],
                   "total": store.count(player=who, unowned=unowned),
                   "limit": limit, "offset": offset})

    @api
    async def create_game(request: Request) -> Response:
        data = await read_json(request, ("variant", "color", "level", "fen", "white", "black",
                                         "clock", "opponent"))
        color = get_str(data, "color", "white", choices=HUMAN_CHOICES)
        opponent = get_str(data, "opponent", "engine", choices=("engine", "friend"))
        clock_text = get_str(data, "clock", None, max_len=40)
        clock = None
        if clock_text:
            try:
                clock = parse_time_control(clock_text)
            except ValueError as err:
                raise ApiError(400, str(err), field="clock") from None
        if opponent == "friend" and color not in ("white", "black"):
            raise ApiError(400, "a game against a friend needs your colour: white or black",
                           field="color")
        live_games.check_new_game(client_of(request), local=local(request),
                                  autoplay=opponent == "engine" and color == "none")
        session = GameSession.create(
            store, variant=get_str(data, "variant", "international", max_len=40),
            human="both" if opponent == "friend" else color,
            level=get_int(data, "level", 5, lo=1, hi=10),
            fen=get_str(data, "fen", None, max_len=400) or None,
            white=get_str(data, "white", None, max_len=100)
            or ("You" if opponent == "friend" and color == "white" else
                "Friend" if opponent == "friend" else None),
            black=get_str(data, "black", None, max_len=100)
            or ("You" if opponent == "friend" and color == "black" else
                "Friend" if opponent == "friend" else None),
            owner=player(request), clock=clock)
        if opponent == "friend":
            session.invite_friend("black" if color == "white" else "white")
        live = live_games.add(session)
        state = live_games.changed(live)
        return ok(with_viewer(state, viewer(request, live), live), 201)

    @api
    async def join_game(request: Request) -> Response:
        live = live_games.get(game_id(request))
        data = await read_json(request, ("invite",))
        token = get_str(data, "invite", None, max_len=100)
        if not token:
            raise ApiError(400, "invite is required: the secret of the invitation link",
                           field="invite")
        async with live.lock:
            color = live.session.join(player(request), token)
            state = live_games.changed(live, joined=color)
        return ok({"joined": color, "game": with_viewer(state, viewer(request, live), live)})

    @api
    async def get_game(request: Request) -> Response:
        live = live_games.get(game_id(request))
        live_games.maybe_start_engine(live)
        return ok(with_viewer(live.state(), viewer(request, live), live))

    @api
    async def delete_game(request: Request) -> Response:
        gid = game_id(request)
        live = live_games.get(gid)
        allow(request, live, require_owner, "delete it")
        async with live.lock:   # after a change under way, never in its middle
            live_games.forget(gid)
            store.delete(gid)
        return ok({"deleted": gid})

    @api
    async def play_move(request: Request) -> Response:
        live = live_games.get(game_id(request))
        data = await read_json(request, ("move", "from", "to", "path", "captures"))
        spec = move_spec(data)
        async with live.lock:
            turn = "white" if live.session.board.turn == WHITE else "black"
            v = allow(request, live, require_player, "move")
            if live.session.record.seat(turn) is not None:  # a person's seat: theirs only
                require_seat(live.session.record, v, turn, "move")
            elif live.session.two_players():
                raise ApiError(409, f"{turn} is your friend's seat: it is still open (send them "
                               "the game's invitation link)", kind="seat_open")
            # else the engine's turn: the session says so (409)
            if live.session.check_flag():
                live_games.changed(live)
                raise ApiError(409, "the game is over: time is up", kind="game_over")
            played = live.session.play(spec)
            live.session.start_clock()
            live.stop_engines()
            await live_games.warm_tree(live)
            state = live_games.changed(live, played=played.text)
        return ok({"played": played.text, "game": with_viewer(state, v, live)})

    @api
    async def undo(request: Request) -> Response:
        live = live_games.get(game_id(request))
        allow(request, live, require_player, "take moves back")
        no_takebacks(live, "take moves back")
        data = await read_json(request, ("count",))
        count = get_int(data, "count", None, lo=1, hi=10000)
        async with live.lock:
            live.stop_engines()
            # Taking back while the engine thinks: the engine's move is dropped.
            if live.engine_task is not None:
                live.engine_task.cancel()
                live.engine_task = None
            n = live.session.undo(count) if count is not None else live.session.undo_for_human()
            await live_games.warm_tree(live)
            state = live_games.changed(live) if n else live.state()
            if not n:
                live.broadcast({"type": "state", "game": state})
        return ok({"undone": n, "game": with_viewer(state, viewer(request, live), live)})

    @api
    async def redo(request: Request) -> Response:
        live = live_games.get(game_id(request))
        allow(request, live, require_player, "replay moves")
        no_takebacks(live, "replay moves")
        data = await read_json(request, ("count",))
        count = get_int(data, "count", 1, lo=1, hi=10000)
        async with live.lock:
            live.stop_engines()
            n = live.session.redo(count)
            await live_games.warm_tree(live)
            state = live_games.changed(live)
        return ok({"redone": n, "game": with_viewer(state, viewer(request, live), live)})

    @api
    async def set_line(request: Request) -> Response:
        live = live_games.get(game_id(request))
        allow(request, live, require_player, "change the moves")
        no_takebacks(live, "change the moves")
        data = await read_json(request, ("moves",), limit=IMPORT_LIMIT)
        moves = data.get("moves")
        if not isinstance(moves, list) or any(not isinstance(m, str) for m in moves):
            raise ApiError(400, "moves must be a list of move texts", field="moves")
        if len(moves) > MAX_PLIES:
            raise ApiError(400, f"too many moves: {len(moves)} (at most {MAX_PLIES})",
                           field="moves")
        long = next((i for i, m in enumerate(moves) if len(m) > MOVE_TEXT_LIMIT), None)
        if long is not None:
            raise ApiError(400, f"move {long + 1} is too long: {len(moves[long])} characters "
                           f"(at most {MOVE_TEXT_LIMIT})", field="moves", ply=long + 1)
        async with live.lock:
            live.stop_engines()
            if live.engine_task is not None:
                live.engine_task.cancel()
                live.engine_task = None
            live.session.set_line(moves)
            await live_games.warm_tree(live)
            state = live_games.changed(live)
        return ok({"game": with_viewer(state, viewer(request, live), live)})

    @api
    async def resign(request: Request) -> Response:
        live = live_games.get(game_id(request))
        data = await read_json(request, ("color",))
        human = live.session.record.human
        default = human if human in ("white", "black") else live.session.state()["turn"]
        color = get_str(data, "color", default, choices=("white", "black"))
        allow(request, live, require_seat, color or default, "resign")
        async with live.lock:
            live.stop_engines()
            live.session.resign(color)
            state = live_games.changed(live)
        return ok({"game": with_viewer(state, viewer(request, live), live)})

    @api
    async def offer_draw(request: Request) -> Response:
        live = live_games.get(game_id(request))
        allow(request, live, require_player, "offer a draw")
        await read_json(request, ())
        session = live.session
        async with live.lock:
            session.check_can_move(by_engine=True)
            if not session.board.can_offer_draw():
                raise ApiError(409, "a draw may not be offered yet: each player must first "
                               f"make {session.board.rules.draw_offer_min_moves} moves")
            if session.two_players():
                mine = sorted(viewer(request, live).seats)
                if not mine:
                    raise ApiError(403, "only the players may offer a draw", kind="forbidden")
                offerer = WHITE if mine == ["white"] else BLACK
                accepted = session.offer_draw(color_name(offerer))
                reason = ("draw agreed" if accepted else
                          f"{color_name(offerer)} offers a draw: the opponent may accept it "
                          "(Offer draw) or play on (a move declines it)")
                state = live_games.changed(live, draw_offer={"accepted": accepted,
                                                             "reason": reason,
                                                             "by": color_name(offerer)})
                return ok({"accepted": accepted, "reason": reason,
                           "game": with_viewer(state, viewer(request, live), live)})
            if session.record.human in ("both", "none"):
                accepted, reason = True, "draw agreed"
            else:
                accepted, reason = await live_games.draw_offer(live)
            if accepted:
                live.stop_engines()
                session.agree_draw()
            state = live_games.changed(live, draw_offer={"accepted": accepted, "reason": reason})
        return ok({"accepted": accepted, "reason": reason,
                   "game": with_viewer(state, viewer(request, live), live)})

    @api
    async def go(request: Request) -> Response:
        live = live_games.get(game_id(request))
        await read_json(request, ())
        session = live.session
        rec = session.record
        turn = color_name(session.board.turn)
        v = allow(request, live, require_player, "ask the engine to move")
        # only for the seat to move: an engine's seat (any player of the game may ask), or
        # a person's seat whose own player asks for a hint-move; never the opponent's
        if rec.seat(turn) is not None:
            require_seat(rec, v, turn, "ask the engine to move")
        elif session.two_players():
            raise ApiError(409, f"{turn} is your friend's seat: it is still open (send them "
                           "the game's invitation link)", kind="seat_open")
        session.check_can_move(by_engine=True)
        if not live_games.maybe_start_engine(live, force=True) and not live.thinking:
            raise ApiError(409, "the engine cannot move now")
        return ok({"game": with_viewer(live.state(), viewer(request, live), live)})

    @api
    async def export_pdn(request: Request) -> Response:
        live = live_games.get(game_id(request))
        text = live.session.pdn_text()
        disposition = "attachment" if request.query_params.get("inline") is None else "inline"
        return Response(text, media_type="application/x-draughts-pdn; charset=utf-8", headers={
            "Content-Disposition": f'{disposition}; filename="{live.session.filename()}"'})

    @api
    async def start_report(request: Request) -> Response:
        live = live_games.get(game_id(request))
        allow(request, live, require_player, "start an analysis of the game")
        data = await read_json(request, ("depth", "movetime"))
        depth = get_int(data, "depth", None, lo=1, hi=REPORT_MAX_DEPTH)
        movetime = get_seconds(data, "movetime", lo=REPORT_MIN_MOVETIME, hi=REPORT_MAX_MOVETIME)
        return ok(live_games.start_report(live, depth=depth, movetime=movetime), 202)

    @api
    async def get_report(request: Request) -> Response:
        gid = game_id(request)
        live = live_games.get(gid)
        if live.reporting:   # how far it got, and the evaluations so far
            return ok({"status": "running", "game_id": gid, **live.report_progress,
                       "partial": live.report_partial})
        report = await asyncio.get_running_loop().run_in_executor(
            live_games.executor, lambda: store.get_report(gid))
        if report is None:
            raise ApiError(404, "this game has not been analysed yet "
                           f"(POST /api/games/{gid}/analysis starts it)", kind="no_analysis")
        rec = live.session.record
        report["stale"] = report["moves"] != rec.moves or report["start_fen"] != rec.start_fen
        return ok(report)

    @api
    async def delete_report(request: Request) -> Response:
        gid = game_id(request)
        live = live_games.get(gid)
        allow(request, live, require_player, "stop or delete the analysis of the game")
        stopped = live.reporting
        live.stop_report()
        deleted = store.delete_report(gid)
        live.forget_report_info()
        if deleted and not stopped:
            live.broadcast({"type": "state", "game": live.state()})
        return ok({"stopped": stopped, "deleted": deleted})

    @api
    async def import_games(request: Request) -> Response:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "application/json":
            data = await read_json(request, ("pdn",), limit=IMPORT_LIMIT + 1024)
            text = get_str(data, "pdn", None, max_len=IMPORT_LIMIT)
            if text is None:
                raise ApiError(400, 'give the PDN text as {"pdn": "..."} or upload the file')
        else:
            body = await read_body(request, IMPORT_LIMIT)
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                text = body.decode("latin-1")
        if not text.strip():
            raise ApiError(400, "the PDN is empty")
        live_games.check_new_game(client_of(request), local=local(request))
        deadline = time.monotonic() + IMPORT_SECONDS
        sessions, errors = await asyncio.get_running_loop().run_in_executor(
            live_games.executor, lambda: import_pdn(store, text, owner=player(request),
                                             deadline=deadline))
        if not sessions:
            raise ApiError(400, "no game could be read from the PDN"
                           + (f": {errors[0]}" if errors else ""), errors=errors[:20])
        for session in sessions:
            live_games.add(session)
        return ok({"games": [s.record.summary() for s in sessions], "errors": errors[:20],
                   "first": sessions[0].id}, 201)

    @api
    async def check_position(request: Request) -> Response:
        data = await read_json(request, ("variant", "fen"))
        try:
            variant = get_variant(get_str(data, "variant", "international", max_len=40))
        except ValueError as err:
            raise ApiError(400, str(err), field="variant") from None
        fen = get_str(data, "fen", None, max_len=400)
        if not fen:
            raise ApiError(400, "fen is required", field="fen")
        try:
            board = Board(fen, variant=variant)
        except InvalidFenError as err:
            raise ApiError(400, f"invalid FEN: {err}", field="fen") from None
        legal = board.legal_moves
        outcome = board.outcome()
        return ok({"fen": board.fen(), "compact_fen": board.fen(compact=True),
                   "variant": variant_info(variant), "turn": "white" if board.turn else "black",
                   "legal_moves": [move_info(m, legal) for m in legal],
                   "compulsory_capture": capture_explanation(board),
                   "over": outcome is not None,
                   "outcome": None if outcome is None else outcome.termination.describe(board.rules)})

    async def game_socket(websocket: WebSocket) -> None:
        gid = websocket.path_params["game_id"]
        await websocket.accept()
        try:
            live = live_games.get(gid)
            state = live.state()
        except ApiError as err:
            await websocket.send_json({"type": "error", "error": err.message, "status": err.status})
            await websocket.close(code=4404 if err.status == 404 else 1011)
            return
        who = player(websocket)
        busy = None
        if live_games.sockets >= MAX_SOCKETS:
            busy = f"the server has {live_games.sockets} live connections (at most {MAX_SOCKETS})"
        elif len(live.subscribers) >= MAX_WATCHERS:
            busy = f"this game has {len(live.subscribers)} watchers (at most {MAX_WATCHERS})"
        elif live_games.player_sockets[who] >= MAX_PLAYER_SOCKETS:
            busy = (f"you have {live_games.player_sockets[who]} live connections open "
                    f"(at most {MAX_PLAYER_SOCKETS})")
        if busy is not None:
            await websocket.send_json({"type": "error", "error": busy + "; try again later",
                                       "status": 503})
            await websocket.close(code=1013)
            live_games.release(live)
            return
        # from here on the slot is taken: the finally below gives it back, whatever happens
        live_games.sockets += 1
        live_games.player_sockets[who] += 1
        sub = Subscriber()
        live.subscribers.add(sub)
        loop = asyncio.get_running_loop()

        async def sender() -> None:
            while True:
                message = await sub.next()
                if message is None:
                    return
                if message.get("type") == "state":  # what this socket's player may do
                    message = {**message, "you": viewer(websocket, live).as_json()}
                await asyncio.wait_for(websocket.send_text(
                    json.dumps(message, separators=(",", ":"))), SEND_TIMEOUT)

        async def receiver() -> None:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                raw = message.get("text")
                if raw is None:
                    sub.send({"type": "error", "error": "binary messages are not understood: "
                              "send JSON text"})
                    continue
                reply = handle_ws_message(websocket, live, raw)
                if reply is not None:
                    sub.send(reply)

        send_task = loop.create_task(sender())
        receive_task = loop.create_task(receiver())
        try:
            sub.send({"type": "state", "game": state})
            if live.thinking and live.last_info is not None:
                sub.send(live.last_info)
            live_games.maybe_start_engine(live)
            await asyncio.wait({send_task, receive_task}, return_when=asyncio.FIRST_COMPLETED)
            if send_task.done() and not send_task.cancelled():
                error = send_task.exception()
                if error is not None or sub.overflowed:
                    log.info("websocket of game %s closed: the client does not read (%s)", gid,
                             "too many messages waiting" if error is None else
                             type(error).__name__)
                    receive_task.cancel()
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(websocket.close(code=1013), 1.0)
        except Exception:  # pragma: no cover - a broken socket
            log.debug("websocket of game %s closed", gid, exc_info=True)
        finally:
            live_games.sockets -= 1
            live_games.player_sockets[who] -= 1
            if live_games.player_sockets[who] <= 0:
                del live_games.player_sockets[who]
            live.subscribers.discard(sub)
            sub.close()
            send_task.cancel()
            receive_task.cancel()
            for task in (send_task, receive_task):
                with contextlib.suppress(BaseException):
                    await task
            if not live.subscribers:
                live.stop_analysis()
                live_games.release(live)

    def handle_ws_message(websocket: WebSocket, live: LiveGame, raw: str) -> dict[str, Any] | None:
        if len(raw) > WS_MESSAGE_LIMIT:
            return {"type": "error", "error": f"message too large (at most {WS_MESSAGE_LIMIT} bytes)"}
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as err:
            return {"type": "error", "error": f"message is not valid JSON: {err}"}
        except RecursionError:
            return {"type": "error", "error": "message is nested too deeply"}
        except ValueError as err:
            return {"type": "error", "error": f"message is not valid JSON here: {str(err)[:100]}"}
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            return {"type": "error", "error": 'a message is a JSON object with a "type"'}
        kind = data["type"]
        try:
            check_text(data)
            if kind == "ping":
                return {"type": "pong"}
            if kind == "state":
                return {"type": "state", "game": live.state()}
            if kind == "analyse":
                multipv = get_int(data, "multipv", 1, lo=1, hi=MAX_MULTIPV)
                ply = get_int(data, "ply", None, lo=0, hi=100000)
                fen = get_str(data, "fen", None, max_len=400)
                allow(websocket, live, require_player, "analyse it")
                live_games.start_analysis(live, multipv=multipv or 1, ply=ply, fen=fen)
                return None
            if kind == "stop":
                allow(websocket, live, require_player, "stop its analysis")
                live.stop_analysis()
                return {"type": "analysis_stopped"}
        except ApiError as err:
            return {"type": "error", "error": err.message, "status": err.status}
        return {"type": "error", "error": f"unknown message type {kind[:40]!r} "
                "(expected ping, state, analyse, stop)"}

    # -- puzzles --------------------------------------------------------------------------------

    puzzle_cache: dict[str, list[Puzzle]] = {}

    def puzzles_of(variant_name: str) -> list[Puzzle]:
        try:
            v = get_variant(variant_name)
        except ValueError as err:
            raise ApiError(400, str(err), field="variant") from None
        if v.name not in puzzle_cache:
            puzzle_cache[v.name] = load_puzzles(v)
        return puzzle_cache[v.name]

    def find_puzzle(request: Request) -> Puzzle:
        pid = str(request.path_params["puzzle_id"])
        for name in VARIANTS:
            for puzzle in puzzles_of(name):
                if puzzle.id == pid:
                    return puzzle
        raise ApiError(404, "no puzzle with that id")

    def puzzle_info(puzzle: Puzzle) -> dict[str, Any]:
        return {"id": puzzle.id, "variant": puzzle.variant, "fen": puzzle.fen,
                "rating": puzzle.rating, "solver": puzzle.solver,
                "solver_moves": puzzle.solver_moves,
                "gain": puzzle.gain}

    def played_moves(data: dict[str, Any]) -> list[str]:
        played = data.get("played", [])
        if (not isinstance(played, list) or len(played) > 60
                or any(not isinstance(m, str) or len(m) > 60 for m in played)):
            raise ApiError(400, "played must be a list of the moves made so far", field="played")
        return played

    @api
    async def next_puzzle(request: Request) -> Response:
        params = request.query_params
        puzzles = puzzles_of(params.get("variant", "international")[:40])
        if not puzzles:
            raise ApiError(404, "no puzzles are shipped for this variant", kind="no_puzzles")
        try:
            rating = ascii_int(params.get("rating", "1200"), max_digits=6)
        except ValueError:
            raise ApiError(400, "rating must be a whole number", field="rating") from None
        skip = set(params.get("seen", "")[:4000].split(","))
        near = [p for p in puzzles if abs(p.rating - rating) <= 150 and p.id not in skip]
        if not near:
            near = sorted((p for p in puzzles if p.id not in skip) or puzzles,
                          key=lambda p: abs(p.rating - rating))[:10]
        return ok(puzzle_info(random.choice(near)))

    @api
    async def get_puzzle(request: Request) -> Response:
        return ok(puzzle_info(find_puzzle(request)))

    @api
    async def puzzle_move(request: Request) -> Response:
        puzzle = find_puzzle(request)
        data = await read_json(request, ("played", "move"))
        played = played_moves(data)
        move = get_str(data, "move", None, max_len=60)
        if not move:
            raise ApiError(400, "move is required", field="move")
        if len(played) % 2:
            raise ApiError(400, "played must end with the opponent's reply", field="played")

        def judge() -> Any:
            return check_move(puzzle, played, move, max_nodes=PUZZLE_NODES)

        try:
            step = await asyncio.get_running_loop().run_in_executor(live_games.executor, judge)
        except ValueError as err:
            raise ApiError(400, str(err)) from None
        board = puzzle.board()
        for text in played:
            board.push(text)
        board.push(move)
        after = board.fen()
        if step.reply is not None:
            board.push(step.reply)
        return ok({"ok": step.ok, "solved": step.solved, "reply": step.reply,
                   "fen_after_move": after, "fen": board.fen(),
                   "solution": list(puzzle.solution) if not step.ok else None})

    @api
    async def puzzle_hint(request: Request) -> Response:
        puzzle = find_puzzle(request)
        data = await read_json(request, ("played", "reveal"))
        played = played_moves(data)
        if len(played) >= len(puzzle.solution) or list(puzzle.solution[:len(played)]) != played:
            raise ApiError(409, "the hint follows the puzzle's line: play on from its solution",
                           kind="off_line")
        text = puzzle.solution[len(played)]
        board = puzzle.board()
        for m in played:
            board.push(m)
        move = board.parse_move(text)
        if data.get("reveal") is True:
            return ok({"from": move.from_square, "move": text})
        return ok({"from": move.from_square})

    async def puzzles_page(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "puzzles.html", headers={"Cache-Control": "no-cache"})

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        detail = getattr(exc, "detail", None) or "not found"
        if status == 404:
            detail = f"no such page or API route: {request.url.path}"
        return JSONResponse({"error": detail, "status": status}, status_code=status)

    routes = [
        Route("/", index),
        Route("/api/variants", variants),
        Route("/puzzles", puzzles_page),
        Route("/api/puzzles/next", next_puzzle, methods=["GET"]),
        Route("/api/puzzles/{puzzle_id}", get_puzzle, methods=["GET"]),
        Route("/api/puzzles/{puzzle_id}/move", puzzle_move, methods=["POST"]),
        Route("/api/puzzles/{puzzle_id}/hint", puzzle_hint, methods=["POST"]),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/import", import_games, methods=["POST"]),
        Route("/api/position", check_position, methods=["POST"]),
        Route("/api/games/{game_id}", get_game, methods=["GET"]),
        Route("/api/games/{game_id}", delete_game, methods=["DELETE"]),
        Route("/api/games/{game_id}/move", play_move, methods=["POST"]),
        Route("/api/games/{game_id}/join", join_game, methods=["POST"]),
        Route("/api/games/{game_id}/undo", undo, methods=["POST"]),
        Route("/api/games/{game_id}/redo", redo, methods=["POST"]),
        Route("/api/games/{game_id}/line", set_line, methods=["POST"]),
        Route("/api/games/{game_id}/resign", resign, methods=["POST"]),
        Route("/api/games/{game_id}/draw", offer_draw, methods=["POST"]),
        Route("/api/games/{game_id}/go", go, methods=["POST"]),
        Route("/api/games/{game_id}/pdn", export_pdn, methods=["GET"]),
        Route("/api/games/{game_id}/analysis", start_report, methods=["POST"]),
        Route("/api/games/{game_id}/analysis", get_report, methods=["GET"]),
        Route("/api/games/{game_id}/analysis", delete_report, methods=["DELETE"]),
        WebSocketRoute("/ws/games/{game_id}", game_socket),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: Any):  # type: ignore[no-untyped-def]
        yield
        live_games.shutdown()
        store.close()

    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(Guard, allowed_hosts=tuple(allowed_hosts))],
                    exception_handlers={404: not_found, 405: not_found})
    app.state.live_games = live_games
    app.state.store = store
    return app
