"""The web app's engines: a fixed pool shared by every game.

A game's engine move, the live analysis of every page and the game reports all
run their searches on the same few engines, so the server's memory does not grow
with the number of games or visitors: it holds ``size`` engines of ``hash_mb``
MiB each, whatever comes. A search waits its turn in a fair queue: the clients
(an IP address, then a player of that address) are served round robin, so one
client's many games or analyses delay another client's search by at most the
searches running now. A long job (a live analysis, a game report) asks again for
each depth or position, so it goes to the back of the queue each time; a live
analysis's depth that has run :data:`SLICE_SECONDS` gives its engine up when
another client waits, and an engine move can be given ``max_seconds``; a client
may have at most :data:`MAX_WAITING_PER_CLIENT` searches waiting.

A :class:`Job` is a search request that can be stopped at any time: still
queued, it never starts; running, its engine is told to stop, and a search that
was just starting when the stop came stops at the end of its first iteration
(the :meth:`Job.watch` callback checks), so a stop is never lost.

>>> import damier
>>> pool = EnginePool(size=1, hash_mb=1)
>>> job = Job()
>>> result = pool.submit(job, lambda engine: engine.search(damier.Board(), depth=2)).result()
>>> result.best_move in damier.Board().legal_moves
True
>>> pool.shutdown()
"""

from __future__ import annotations

import collections
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from damier.board import Board
from damier.egdb import DEFAULT_ENGINE_PIECES, EgdbSetting, Verdict
from damier.engine import Engine, SearchResult

__all__ = ["EnginePool", "Job", "JobStopped", "PoolBusy", "PooledEngine", "Client",
           "MAX_WAITING_PER_CLIENT", "SLICE_SECONDS"]

T = TypeVar("T")


class JobStopped(Exception):
    """The job was stopped before its search could start."""


class PoolBusy(Exception):
    """A client has as many searches waiting as it may (:data:`MAX_WAITING_PER_CLIENT`)."""


Client = tuple[str, str]
"""Who a search is for: (IP address, player); the queue is fair between IP addresses
first, then between the players of one address."""

ANONYMOUS: Client = ("", "")

MAX_WAITING_PER_CLIENT = 64
"""Searches one player may have waiting at once; more are refused (:class:`PoolBusy`)."""

SLICE_SECONDS = 1.0
"""How long a live analysis's depth runs before it gives its engine up to another
client's search that waits (the web app's choice; see :meth:`EnginePool.submit`)."""


class Job:
    """A stoppable request for searches (it may run several, one after another), made
    for ``client`` (whose turn it takes in the fair queue)."""

    def __init__(self, client: Client = ANONYMOUS) -> None:
        self.client = client
        self.stopped = threading.Event()
        self.yielded = False
        """Set when the pool cut the last search short (:data:`SLICE_SECONDS` or its
        ``max_seconds``): its result is that of a shorter search."""
        self._lock = threading.Lock()
        self._engine: Engine | None = None

    def stop(self) -> None:
        """Stops the running search, and every one still queued (from any thread)."""
        with self._lock:
            self.stopped.set()
            if self._engine is not None:
                self._engine.stop()

    def _cut(self) -> None:
        """Stops the running search only (the pool needs its engine): the job goes on."""
        with self._lock:
            if self._engine is not None:
                self.yielded = True
                self._engine.stop()

    def watch(self, engine: Engine,
              info: Callable[[Any], Any] | None = None) -> Callable[[Any], Any]:
        """An ``info`` callback for a search of this job: passes each iteration's info on
        to ``info`` and stops the search if the job was stopped meanwhile."""
        def callback(i: Any) -> None:
            if self.stopped.is_set():
                engine.stop()
                return
            if info is not None:
                info(i)
        return callback

    def _attach(self, engine: Engine | None) -> bool:
        with self._lock:
            if engine is not None and self.stopped.is_set():
                return False
            self._engine = engine
            return True


class _Task:
    __slots__ = ("job", "fn", "future", "max_seconds", "slice_seconds", "started")

    def __init__(self, job: Job, fn: Callable[[Engine], Any], future: "Future[Any]",
                 max_seconds: float | None, slice_seconds: float | None) -> None:
        self.job = job
        self.fn = fn
        self.future = future
        self.max_seconds = max_seconds
        self.slice_seconds = slice_seconds
        self.started = 0.0


class _FairQueue:
    """Tasks by client, served round robin: one IP address after another, and within
    an address one player after another, so that nobody's many searches delay another
    client's by more than the searches running now."""

    def __init__(self) -> None:
        self._by_ip: collections.OrderedDict[
            str, collections.OrderedDict[str, collections.deque[_Task]]] = \
            collections.OrderedDict()
        self.size = 0

    def waiting(self, client: Client) -> int:
        players = self._by_ip.get(client[0])
        tasks = players.get(client[1]) if players is not None else None
        return len(tasks) if tasks is not None else 0

    def others_waiting(self, client: Client) -> bool:
        """Whether a task of a client other than ``client`` waits."""
        for ip, players in self._by_ip.items():
            for player in players:
                if (ip, player) != client:
                    return True
        return False

    def push(self, task: _Task) -> None:
        ip, player = task.job.client
        players = self._by_ip.setdefault(ip, collections.OrderedDict())
        players.setdefault(player, collections.deque()).append(task)
        self.size += 1

    def pop(self) -> _Task | None:
        if not self._by_ip:
            return None
        ip, players = next(iter(self._by_ip.items()))
        player, tasks = next(iter(players.items()))
        task = tasks.popleft()
        self.size -= 1
        # this client goes to the back: of its address's players, and its address of all
        del players[player]
        if tasks:
            players[player] = tasks
        del self._by_ip[ip]
        if players:
            self._by_ip[ip] = players
        return task


class EnginePool:
    """``size`` engines of ``hash_mb`` MiB each, and a fair queue (round robin between
    clients: :class:`Job`'s ``client``). With ``book``, the engines play the opening from
    the variant's shipped book (at levels 8-10; their analyses never use it). ``egdb``:
    the endgame databases they probe (see :class:`damier.engine.Engine`; held in memory
    once for all of them), ``egdb_pieces`` the most pieces they probe.

    A search given ``max_seconds`` is stopped after that long (it returns its best move
    so far); one given ``slice_seconds`` (a live analysis's depth, an engine move on a
    long clock) after that long when another client's search waits. Either way its
    job's ``yielded`` is set."""

    def __init__(self, *, size: int = 2, hash_mb: int = 16, book: bool = False,
                 egdb: EgdbSetting = None, egdb_pieces: int = DEFAULT_ENGINE_PIECES,
                 max_waiting: int = MAX_WAITING_PER_CLIENT) -> None:
        if size < 1:
            raise ValueError(f"the engine pool needs at least one engine, got {size}")
        if hash_mb < 1:
            raise ValueError(f"hash_mb must be at least 1, got {hash_mb}")
        self.size = size
        self.hash_mb = hash_mb
        self.book = book
        self.egdb = egdb
        self.egdb_pieces = egdb_pieces
        self.max_waiting = max_waiting
        self._verdicts: Engine | None = None   # probes the tables only (no search)
        self._free: queue.SimpleQueue[Engine] = queue.SimpleQueue()
        self._created = 0
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queue = _FairQueue()
        self._running: list[_Task] = []
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"damier-search-{i}",
                                          daemon=True) for i in range(size)]
        for thread in self._threads:
            thread.start()
        self._watchdog = threading.Thread(target=self._watch, name="damier-search-watch",
                                          daemon=True)
        self._watchdog.start()

    @property
    def memory_mb(self) -> int:
        """The most memory the engines' hash tables take (MiB)."""
        return self.size * self.hash_mb

    def stats(self) -> dict[str, int]:
        """Engines, searches running and searches waiting."""
        with self._lock:
            return {"engines": self.size, "hash_mb": self.hash_mb,
                    "running": len(self._running), "waiting": self._queue.size}

    def waiting(self, client: Client) -> int:
        """Searches of ``client`` waiting for an engine."""
        with self._lock:
            return self._queue.waiting(client)

    def _take(self) -> Engine:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            with self._lock:
                if self._created < self.size:
                    self._created += 1
                    create = True
                else:
                    create = False
            if create:
                return Engine(hash_mb=self.hash_mb, level=10, book=self.book,
                              egdb=self.egdb, egdb_pieces=self.egdb_pieces)
            return self._free.get()

    def egdb_verdict(self, board: Board) -> Verdict | None:
        """What the engines' endgame databases say of ``board`` (None: not held, or no
        databases); a probe, no search: it does not wait for an engine."""
        if not self.egdb:
            return None
        with self._lock:
            if self._verdicts is None:
                self._verdicts = Engine(hash_mb=1, egdb=self.egdb,
                                        egdb_pieces=self.egdb_pieces)
            engine = self._verdicts
        return engine.egdb_verdict(board)

    def submit(self, job: Job, fn: Callable[[Engine], T], *, max_seconds: float | None = None,
               slice_seconds: float | None = None) -> "Future[T]":
        """Queues ``fn(engine)`` for ``job``'s client; the future raises
        :class:`JobStopped` when ``job`` is stopped before its turn comes, and
        :class:`PoolBusy` when the client already has ``max_waiting`` searches waiting."""
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                future.set_exception(JobStopped())
                return future
            if self._queue.waiting(job.client) >= self.max_waiting:
                future.set_exception(PoolBusy(
                    f"{self.max_waiting} searches of yours are waiting for the engines "
                    "(at most that many): try again when they are done"))
                return future
            self._queue.push(_Task(job, fn, future, max_seconds, slice_seconds))
            self._wake.notify_all()
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._closed and self._queue.size == 0:
                    self._wake.wait()
                if self._closed:
                    return
                task = self._queue.pop()
            assert task is not None
            self._run(task)

    def _run(self, task: _Task) -> None:
        job = task.job
        if not task.future.set_running_or_notify_cancel():
            return
        if job.stopped.is_set():
            task.future.set_exception(JobStopped())
            return
        engine = self._take()
        try:
            if not job._attach(engine):
                task.future.set_exception(JobStopped())
                return
            job.yielded = False
            with self._lock:
                task.started = time.monotonic()
                self._running.append(task)
                self._wake.notify_all()
            try:
                result = task.fn(engine)
            except BaseException as err:  # the caller sees it through the future
                task.future.set_exception(err)
            else:
                task.future.set_result(result)
            finally:
                with self._lock:
                    self._running.remove(task)
                job._attach(None)
        finally:
            engine.set_level(10)
            self._free.put(engine)

    def _watch(self) -> None:
        """Stops the searches past their time: ``max_seconds``, or a preemptible one's
        slice while another client waits."""
        while True:
            with self._lock:
                if self._closed:
                    return
                if not self._running:
                    self._wake.wait()
                    continue
                now = time.monotonic()
                due = []
                for task in self._running:
                    ran = now - task.started
                    if task.max_seconds is not None and ran >= task.max_seconds:
                        due.append(task)
                    elif (task.slice_seconds is not None and ran >= task.slice_seconds
                          and self._queue.others_waiting(task.job.client)):
                        due.append(task)
                self._wake.wait(0.05)
            for task in due:
                task.job._cut()

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            while (task := self._queue.pop()) is not None:
                task.future.cancel()
            self._wake.notify_all()


class PooledEngine:
    """An engine-like object whose every ``search_lines`` takes its turn in a pool (what a
    game report needs: it searches position after position)."""

    def __init__(self, pool: EnginePool, job: Job) -> None:
        self.pool = pool
        self.job = job
        self._fresh = False

    def new_game(self) -> None:
        """The next search starts with an empty hash table (as a lone engine would)."""
        self._fresh = True

    def search_lines(self, board: Board, multipv: int = 1,
                     **limits: Any) -> list[SearchResult]:
        fresh, self._fresh = self._fresh, False

        def run(engine: Engine) -> list[SearchResult]:
            if fresh:
                engine.new_game()
            return engine.search_lines(board, multipv, info=self.job.watch(engine), **limits)

        return self.pool.submit(self.job, run).result()

    def egdb_verdict(self, board: Board) -> Verdict | None:
        """The pool's endgame databases' value of ``board`` (a probe: no turn to wait)."""
        return self.pool.egdb_verdict(board)

    def stop(self) -> None:
        self.job.stop()
