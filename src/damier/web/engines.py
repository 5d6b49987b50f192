"""The web app's engines: a fixed pool shared by every game.

A game's engine move, the live analysis of every page and the game reports all
run their searches on the same few engines, so the server's memory does not grow
with the number of games or visitors: it holds ``size`` engines of ``hash_mb``
MiB each, whatever comes. A search waits its turn in one queue, first come first
served; a long job (a live analysis, a game report) asks again for each depth or
position, so it goes to the back of the queue each time and never shuts the
others out.

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

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from damier.board import Board
from damier.egdb import DEFAULT_ENGINE_PIECES, EgdbSetting, Verdict
from damier.engine import Engine, SearchResult

__all__ = ["EnginePool", "Job", "JobStopped", "PooledEngine"]

T = TypeVar("T")


class JobStopped(Exception):
    """The job was stopped before its search could start."""


class Job:
    """A stoppable request for searches (it may run several, one after another)."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._engine: Engine | None = None

    def stop(self) -> None:
        """Stops the running search, and every one still queued (from any thread)."""
        with self._lock:
            self.stopped.set()
            if self._engine is not None:
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


class EnginePool:
    """``size`` engines of ``hash_mb`` MiB each, and one first-come-first-served queue.
    With ``book``, the engines play the opening from the variant's shipped book (at
    levels 8-10; their analyses never use it). ``egdb``: the endgame databases they
    probe (see :class:`damier.engine.Engine`; held in memory once for all of them),
    ``egdb_pieces`` the most pieces they probe."""

    def __init__(self, *, size: int = 2, hash_mb: int = 16, book: bool = False,
                 egdb: EgdbSetting = None, egdb_pieces: int = DEFAULT_ENGINE_PIECES) -> None:
        if size < 1:
            raise ValueError(f"the engine pool needs at least one engine, got {size}")
        if hash_mb < 1:
            raise ValueError(f"hash_mb must be at least 1, got {hash_mb}")
        self.size = size
        self.hash_mb = hash_mb
        self.book = book
        self.egdb = egdb
        self.egdb_pieces = egdb_pieces
        self._verdicts: Engine | None = None   # probes the tables only (no search)
        self._free: queue.SimpleQueue[Engine] = queue.SimpleQueue()
        self._created = 0
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="damier-search")
        self._waiting = 0
        self._running = 0

    @property
    def memory_mb(self) -> int:
        """The most memory the engines' hash tables take (MiB)."""
        return self.size * self.hash_mb

    def stats(self) -> dict[str, int]:
        """Engines, searches running and searches waiting."""
        with self._lock:
            return {"engines": self.size, "hash_mb": self.hash_mb, "running": self._running,
                    "waiting": self._waiting}

    def _take(self) -> Engine:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            with self._lock:
                if self._created < self.size:
                    self._created += 1
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

    def submit(self, job: Job, fn: Callable[[Engine], T]) -> "Future[T]":
        """Queues ``fn(engine)``; raises :class:`JobStopped` (in the future) when ``job``
        is stopped before its turn comes."""
        with self._lock:
            self._waiting += 1

        def run() -> T:
            with self._lock:
                self._waiting -= 1
            if job.stopped.is_set():
                raise JobStopped()
            engine = self._take()
            try:
                if not job._attach(engine):
                    raise JobStopped()
                with self._lock:
                    self._running += 1
                try:
                    return fn(engine)
                finally:
                    with self._lock:
                        self._running -= 1
                    job._attach(None)
            finally:
                engine.set_level(10)
                self._free.put(engine)

        return self._executor.submit(run)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class PooledEngine:
    """An engine-like object whose every ``analyse`` takes its turn in a pool (what a
    game report needs: it searches position after position)."""

    def __init__(self, pool: EnginePool, job: Job) -> None:
        self.pool = pool
        self.job = job
        self._fresh = False

    def new_game(self) -> None:
        """The next search starts with an empty hash table (as a lone engine would)."""
        self._fresh = True

    def analyse(self, board: Board, **limits: Any) -> list[SearchResult]:
        fresh, self._fresh = self._fresh, False

        def run(engine: Engine) -> list[SearchResult]:
            if fresh:
                engine.new_game()
            return engine.analyse(board, info=self.job.watch(engine), **limits)

        return self.pool.submit(self.job, run).result()

    def egdb_verdict(self, board: Board) -> Verdict | None:
        """The pool's endgame databases' value of ``board`` (a probe: no turn to wait)."""
        return self.pool.egdb_verdict(board)

    def stop(self) -> None:
        self.job.stop()
