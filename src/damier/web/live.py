"""The games in memory of ``damier serve``: :class:`LiveGame` (a stored game's session,
its searches and the pages watching it, each page with a :class:`Subscriber` queue)
and :class:`LiveGames` (all of them, the shared engine pool, the worker threads, the
store, and the per-client limits on new games).

The engine searches in worker threads (it releases the GIL), so the event loop and
the other games stay responsive while it thinks. A game report
(:mod:`damier.web.report`) evaluates every position of a finished or imported game
with the same depth and time per position, in a worker thread; the pages watching the
game get ``report_started``, ``report_progress`` (ply k of n, with the new evaluation)
and ``report_done`` (or ``report_stopped``) over the WebSocket, and the report is
stored in SQLite for ``GET .../analysis``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import collections
import itertools
import logging
import math
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from damier._core import Move
from damier.board import Board
from damier.egdb import DEFAULT_ENGINE_PIECES, EgdbSetting
from damier.engine import LEVELS, Engine, SearchInfo, SearchResult, format_score
from damier.engine_types import MATE_THRESHOLD
from damier.errors import InvalidFenError
from damier.piece import WHITE
from damier.web.engines import (SLICE_SECONDS, Client, EnginePool, Job, JobStopped, PoolBusy,
                                PooledEngine)
from damier.web.limits import RateLimit
from damier.web.report import ReportCancelled, analyse_game, pv_texts, white_score
from damier.web.session import (ApiError, GameSession, color_name, move_info)
from damier.web.storage import GameStore


log = logging.getLogger("damier.web")

ANALYSIS_SECONDS = 60.0
"""An analysis stops by itself after this long."""
ANALYSIS_MAX_DEPTH = 40
MAX_SESSIONS = 64
"""Games kept in memory; idle ones beyond this are dropped (they stay stored)."""
IDLE_SECONDS = 600.0
"""A game nobody has used for this long leaves memory (it stays stored)."""
DEFAULT_ENGINES = 2
"""Engines in the shared pool: searches that run at once (more wait their turn)."""
DEFAULT_HASH_MB = 16
"""Each pooled engine's hash table (MiB)."""
SEND_QUEUE_LIMIT = 64
"""Messages waiting for one WebSocket (a newer state replaces a waiting one); a page
that lets more pile up is too slow and its socket is closed (code 1013)."""
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
INLINE_TREE_NODES = 400
"""An imported game's tree of up to this many nodes goes out with each state; a larger
one is sent by ``GET /api/games/{id}/tree`` only (the state says its ``tree_key``), so
a move does not send megabytes to every page watching."""
MAX_REPORTS = 2
"""Game reports running at once on the server (each holds a worker thread)."""
CHAT_HISTORY = 100
"""Chat messages a game keeps (the oldest go first)."""
CHAT_LENGTH = 300
"""The longest chat message, in characters."""
CHAT_PER_MINUTE = 20
CHAT_BURST = 5
"""Chat messages one player may send: :data:`CHAT_BURST` at once, then
:data:`CHAT_PER_MINUTE` a minute."""
DEFAULT_MOVETIME = {number: level.movetime for number, level in LEVELS.items()}
"""Seconds the engine may think per move, by level (:data:`damier.engine.LEVELS`; lower
levels also stop at a depth)."""


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
        self._tree_json: tuple[str, bytes] | None = None
        self._chat: list[dict[str, Any]] | None = None   # None: not read yet

    # between two people: the pending offers, stored with the game (they outlive the
    # server); the draw offer is the game's (:attr:`damier.game.Game.draw_offer`)

    @property
    def rematch_offer(self) -> str | None:
        """The colour whose player offers a rematch (the opponent may accept it)."""
        return self.session.record.offers.rematch

    @property
    def rematch_game(self) -> str | None:
        """The id of the rematch, once it was made."""
        return self.session.record.offers.rematch_game

    @property
    def takeback_offer(self) -> str | None:
        """The colour whose player asks to take their last move back (a move cancels it)."""
        return self.session.record.offers.takeback

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

    def chat(self) -> list[dict[str, Any]]:
        """The players' chat messages (the latest :data:`CHAT_HISTORY`; read from the
        store once)."""
        if self._chat is None:
            self._chat = self.session.store.chat(self.session.id)
        return list(self._chat)

    def add_chat(self, message: dict[str, Any]) -> dict[str, Any]:
        """Stores a chat message (numbered by the store) and returns it as stored."""
        messages = self.chat()
        number = self.session.store.add_chat(self.session.id, message, keep=CHAT_HISTORY)
        stored = {**message, "id": number}
        self._chat = (messages + [stored])[-CHAT_HISTORY:]
        return stored

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
        over = state["over"]
        state["rematch"] = {"offer": self.rematch_offer if over else None,
                            "game": self.rematch_game}
        state["takeback_offer"] = None if over else self.takeback_offer
        state["open_seat"] = (None if rec.invite is None else
                              "white" if rec.white_player is None else "black")
        state["version"] = next_version()
        tree = state.get("tree")
        if tree is not None:
            key = tree_key(rec.moves, rec.redo)
            state["tree_key"] = key
            state["tree_nodes"] = len(tree)
            if len(tree) > INLINE_TREE_NODES:   # the page asks for it: GET .../tree
                state["tree"] = None
        return state

    def tree_json(self) -> tuple[str, bytes]:
        """The imported game's tree as JSON (``{"key", "tree"}``), encoded once per move
        list: every page watching the game gets the same bytes."""
        key = tree_key(self.session.record.moves, self.session.record.redo)
        cached = self._tree_json
        if cached is not None and cached[0] == key:
            return cached
        body = json.dumps({"key": key, "tree": self.session.tree()},
                          separators=(",", ":")).encode()
        self._tree_json = (key, body)
        return self._tree_json

    def idle(self) -> bool:
        return (not self.subscribers and not self.thinking and not self.analysing
                and not self.reporting)


MAX_FORCED_PLIES = 20
"""The most forced moves (positions with one legal move) that an analysis plays
through before it searches."""


def past_forced_moves(board: Board) -> tuple[list[Move], Board]:
    """The moves of ``board``'s position while each has a single legal move (at most
    :data:`MAX_FORCED_PLIES`), and the position after them, where a choice comes;
    ``([], board)`` when the game ends on the way (the search of ``board`` itself
    then knows the result at once).

    >>> forced, after = past_forced_moves(Board("W:W38:B33,3"))
    >>> [str(m) for m in forced], len(after.legal_moves) > 1
    (['38x29'], True)
    """
    searched = board.copy()
    forced: list[Move] = []
    while len(forced) < MAX_FORCED_PLIES:
        moves = searched.legal_moves
        if len(moves) != 1 or searched.outcome() is not None:
            break
        searched.push(moves[0])
        forced.append(moves[0])
    if not searched.legal_moves or searched.outcome() is not None:
        return [], board
    return forced, searched


def score_before(score: int, plies: int) -> int:
    """The score ``score`` of a position (its side to move's view) seen ``plies`` plies
    earlier, from the side to move there: negated each ply, a win or a loss one ply
    further away each ply.

    >>> score_before(35, 1), score_before(35, 2)
    (-35, 35)
    >>> from damier.engine_types import MATE_SCORE
    >>> format_score(score_before(MATE_SCORE - 3, 1))
    'loss in 4'
    """
    for _ in range(plies):
        score = -score + (1 if score > MATE_THRESHOLD else -1 if score < -MATE_THRESHOLD else 0)
    return score


_versions = itertools.count(time.time_ns() // 1000)


def tree_key(moves: Sequence[str], redo: Sequence[str] = ()) -> str:
    """A short name of an imported game's tree with the moves ``moves`` (and the moves
    ``redo`` would replay) merged in (the tree changes with them): the page asks for the
    tree again when it changes."""
    text = json.dumps([list(moves), list(redo)])
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


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
        self.chat_limit = RateLimit(per_minute=CHAT_PER_MINUTE, burst=CHAT_BURST)

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
            # the stored game, its pending offers included (they outlive the server)
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

    def set_rematch(self, live: LiveGame, rematch: str) -> None:
        """Stores ``rematch`` as the id of the rematch of ``live``'s game (its offer
        goes); raises :class:`ApiError` when that cannot be stored."""
        live.session.set_rematch(rematch)

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
        # one legal move (a forced capture, say): the engine answers such a position at
        # once, at depth 1, so the search starts after the forced moves and each line
        # shows them first
        forced, searched = past_forced_moves(board) if len(legal) == 1 else ([], board)
        lines_asked = 1 if forced else multipv
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
                    return engine.search_lines(searched, lines_asked, depth=depth,
                                               movetime=left, info=job.watch(engine))

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
                    score = score_before(r.score, len(forced))
                    ws = white_score(score, board.turn)
                    pv = forced + list(r.pv)
                    lines.append({"score": score, "white_score": ws,
                                  "score_text": format_score(ws),
                                  "depth": r.depth + len(forced),
                                  "pv": pv_texts(board, pv),
                                  "move": move_info(pv[0], legal) if pv else None})
                last_depth = depth + len(forced)
                send({"type": "analysis", "fen": fen, "ply": ply, "depth": last_depth,
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
            job, lambda engine: engine.search_lines(board, 1, depth=12, movetime=movetime)))
        score = results[0].score if results else 0
        engine_is_white = session.record.human == "black"
        engine_view = score if (board.turn == WHITE) == engine_is_white else -score
        if engine_view <= 20:
            return True, (f"the engine accepts: it sees nothing better than a draw "
                          f"({format_score(engine_view)} for itself)")
        return False, (f"the engine declines: it thinks it stands better "
                       f"({format_score(engine_view)} for itself)")
