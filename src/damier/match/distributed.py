"""Matches on Ray (``run_match(..., workers=N)`` or ``address=``; ``damier match
--workers N`` / ``--address HOST:PORT``): each game pair is one Ray task, which
starts its own two engines from their specs, plays the pair's games (the same
opening, colours swapped) and sends back their records.

The driver (the process that called :func:`~damier.match.run_match`) keeps
everything else of a local run: the schedule, the journal, the PDN file in
schedule order, the progress display, the SPRT. It keeps at most one pair in
flight per worker slot and hands out the next pair as one comes back, so a
decided SPRT starts no new pair. A pair whose worker dies (the process killed,
the machine lost) is played again from its start, up to :data:`PAIR_ATTEMPTS`
times; records are counted by game number, so no pair is counted twice.
"""

from __future__ import annotations

import random
import signal
import threading
from collections import deque
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from damier.engine import Clock
from damier.match.adjudication import Adjudication
from damier.match.players import (EngineLike, EngineSpec, EngineSpecError, EngineStartError,
                                  Player, make_player)
from damier.match.referee import _GameTask, _Referee
from damier.match.results import MatchGame, MatchResult
from damier.match.runner import MatchRunner, _distinct_names
from damier.variants import get_variant

__all__ = ["PAIR_ATTEMPTS", "RayMatchRunner"]

PAIR_ATTEMPTS = 4
"""Times a game pair is started before the match gives it up (its worker died each time)."""

_WAIT = 0.5
"""Seconds between the driver's looks at a stop request while it waits for pairs."""


@dataclass(frozen=True)
class _PairSetup:
    """What a pair task needs besides its games: the engines, the time control and
    the tags every game shares (the driver's, so that the PDN does not depend on
    the machine that played)."""

    spec_a: EngineLike
    spec_b: EngineLike
    variant: str
    movetime: float | None
    clock: Clock | None
    max_plies: int
    seed: int
    hub_timeout: float
    adjudication: Adjudication | None = None
    name_a: str = "A"
    name_b: str = "B"
    event: str = ""
    date: str = ""
    site: str = ""

    def player(self, side: str, pair: int) -> Player:
        """Starts engine ``side`` ("A" or "B") for pair ``pair``, seeded by the match
        seed and the pair, so that a replayed pair is seeded as before."""
        spec = self.spec_a if side == "A" else self.spec_b
        seed = random.Random(f"{self.seed}:pair{pair}:{side}").randrange(2 ** 31)
        return make_player(spec, seed=seed, hub_timeout=self.hub_timeout)

    def referee(self) -> _Referee:
        referee = _Referee(variant=get_variant(self.variant), movetime=self.movetime,
                           clock=self.clock, max_plies=self.max_plies, event=self.event,
                           stop_event=threading.Event(), adjudication=self.adjudication)
        referee.name_a, referee.name_b = self.name_a, self.name_b
        referee.date, referee.site = self.date, self.site
        return referee


@dataclass
class _PairOutcome:
    """What a pair task sends back: the records of its games, in order, and the
    error that stopped it early (an engine that could not be restarted)."""

    records: list[MatchGame] = field(default_factory=list)
    error: str | None = None


def _close(player: Player | None) -> None:
    if player is None:
        return
    try:
        player.close()
    except Exception:  # noqa: BLE001 - closing is best effort
        pass


def _play_pair(setup: _PairSetup, jobs: list[_GameTask]) -> _PairOutcome:
    """The Ray task: plays ``jobs`` (the games of one pair still to play) with engines
    of its own, restarting an engine that failed, as a local worker thread does."""
    referee = setup.referee()
    outcome = _PairOutcome()
    a: Player | None = None
    b: Player | None = None
    pair = jobs[0].pair
    try:
        for job in jobs:
            try:
                if a is None:
                    a = setup.player("A", pair)
                if b is None:
                    b = setup.player("B", pair)
                record, failed = referee.play(job, a, b)
            except (EngineStartError, EngineSpecError) as err:  # not started, or refused
                outcome.error = str(err)
                return outcome
            outcome.records.append(record)
            if "A" in failed:
                _close(a)
                a = None
            if "B" in failed:
                _close(b)
                b = None
        return outcome
    finally:
        _close(a)
        _close(b)


def _engine_names(setup: _PairSetup) -> tuple[str, str]:
    """The Ray task that starts both engines once, on a worker, before the match:
    their names (a bad engine fails here, at once, with
    :class:`~damier.match.EngineStartError`)."""
    a = setup.player("A", 0)
    try:
        b = setup.player("B", 0)
    except BaseException:
        _close(a)
        raise
    names = (a.name, b.name)
    _close(a)
    _close(b)
    return names


def _task_cpus(spec: EngineLike) -> int:
    """The CPUs a pair task reserves for engine ``spec``: its search threads."""
    if isinstance(spec, EngineSpec) and spec.kind == "damier":
        return int(spec.option_map.get("threads", 1))
    return 1


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


class RayMatchRunner(MatchRunner):
    """A :class:`~damier.match.runner.MatchRunner` whose game pairs are Ray tasks:
    ``address`` joins a running cluster, else a local Ray is started with ``workers``
    worker slots (a Ray already running in the process is used as it is). At most
    ``workers`` pairs are in flight at once (default: as many as the cluster's CPUs
    hold). The driver keeps the state of the match in one thread; a Ctrl-C cancels
    the pairs in flight and ends the match with the finished ones."""

    def __init__(self, *args: Any, workers: int | None = None, address: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.workers = workers
        self.address = address
        self.cpus = max(_task_cpus(self.spec_a), _task_cpus(self.spec_b))
        """CPUs reserved by each pair task."""
        self.attempts: dict[int, int] = {}
        """Times each pair was sent to Ray."""
        self.returned: set[int] = set()
        """The pairs whose records came back."""
        self.stop_requested = False

    def run(self) -> MatchResult:
        """Plays the games on Ray and returns the result. Raises :class:`ImportError`
        when Ray is not installed (saying how to install it), :class:`ConnectionError`
        when the cluster at ``address`` cannot be reached, and the errors of a local
        run (a bad engine: :class:`~damier.match.EngineStartError`, raised by a task
        that starts both engines once before the match); :class:`ValueError` when an
        engine given as a callable cannot be pickled, or needs more CPUs (threads) than
        a node has."""
        from damier.raytasks import start_ray

        ray, started = start_ray(self.address,
                                 None if self.address else (self.workers or 1) * self.cpus)
        try:
            self._check_cluster(ray)
            self._learn_names(ray)
            self._open_files(None, None)
        except BaseException:
            if started:
                ray.shutdown()
            raise
        self._open_progress()
        if self.bar is not None and self.jobs:
            where = f"the Ray cluster at {self.address}" if self.address else "Ray"
            self.bar.message(f"playing on {where}: up to {self._slots(ray)} game pairs at once")
        pending: dict[Any, int] = {}
        caught, previous = self._catch_ctrl_c()
        try:
            self._play(ray, pending)
        except KeyboardInterrupt:
            self.stop_requested = True
        finally:
            if caught:
                signal.signal(signal.SIGINT,
                              previous if previous is not None else signal.default_int_handler)
            if self.stop_requested:
                self._note_stop()
            records = self._end(ray, started, pending)
        return self._result(records)

    # -- before the games

    def _check_cluster(self, ray: Any) -> None:
        """Raises :class:`ValueError` when no node of the cluster has the CPUs a pair
        task needs (the task would wait for ever)."""
        largest = max((node.get("Resources", {}).get("CPU", 0.0) for node in ray.nodes()
                       if node.get("Alive")), default=0.0)
        if largest < self.cpus:
            raise ValueError(f"the engines' threads need {self.cpus} CPUs on one Ray node, and "
                             f"the largest node has {largest:g}")

    def _learn_names(self, ray: Any) -> None:
        """Starts both engines once on a worker: their names (for the records and the
        PDN) and a clear error now, not in every pair, when one does not start."""
        for side, spec in (("A", self.spec_a), ("B", self.spec_b)):
            try:
                ray.cloudpickle.dumps(spec)
            except Exception as exc:  # noqa: BLE001 - whatever pickling raises
                raise ValueError(f"engine {side} cannot be sent to the Ray workers (an engine "
                                 f"given as a callable must be picklable): {exc}") from None
        probe = ray.remote(num_cpus=self.cpus, max_retries=2)(_engine_names)
        ref = probe.remote(self._setup())
        try:
            name_a, name_b = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, (EngineStartError, EngineSpecError)):
                raise cause from None
            raise EngineStartError(f"cannot start the engines on a Ray worker: "
                                   f"{type(cause).__name__ if cause else 'error'}: "
                                   f"{cause if cause else _first_line(exc)}") from None
        except ray.exceptions.RayError as exc:
            raise EngineStartError(f"cannot start the engines on a Ray worker: "
                                   f"{_first_line(exc)}") from None
        referee = self.referee
        referee.name_a, referee.name_b = _distinct_names(name_a, name_b)
        referee.event = self.event or f"damier match: {referee.name_a} vs {referee.name_b}"

    def _setup(self) -> _PairSetup:
        referee = self.referee
        return _PairSetup(spec_a=self.spec_a, spec_b=self.spec_b, variant=self.variant.name,
                          movetime=self.movetime, clock=self.clock,
                          max_plies=referee.max_plies, seed=self.seed,
                          hub_timeout=self.hub_timeout, adjudication=referee.adjudication,
                          name_a=referee.name_a,
                          name_b=referee.name_b, event=referee.event, date=referee.date,
                          site=referee.site)

    def _slots(self, ray: Any) -> int:
        """Pairs in flight at once: ``workers``, or as many as the cluster's CPUs hold."""
        cpus = int(ray.cluster_resources().get("CPU", 0))
        slots = max(1, cpus // self.cpus)
        return min(slots, self.workers) if self.workers else slots

    # -- the games

    def _pairs(self) -> deque[list[_GameTask]]:
        """The games to play, grouped by pair, in schedule order."""
        pairs: dict[int, list[_GameTask]] = {}
        for job in self.jobs:
            pairs.setdefault(job.pair, []).append(job)
        return deque(pairs[k] for k in sorted(pairs))

    def _play(self, ray: Any, pending: dict[Any, int]) -> None:
        """Sends the pairs to Ray, at most a slot's worth at a time, and counts them as
        they come back, until none is left or the match stops."""
        task = ray.remote(num_cpus=self.cpus, max_retries=0)(_play_pair)
        setup = ray.put(self._setup())
        waiting = self._pairs()
        by_pair = {jobs[0].pair: jobs for jobs in waiting}
        slots = self._slots(ray)
        while not self.stop_requested:
            while waiting and len(pending) < slots and not self.errors:
                jobs = waiting.popleft()
                pair = jobs[0].pair
                if self.sprt_decision is not None and pair not in self.started_pairs:
                    continue  # the SPRT has decided: no new pair
                self.started_pairs.add(pair)
                pending[self._submit(task, setup, jobs)] = pair
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=_WAIT)
            for ref in ready:
                pair = pending.pop(ref)
                lost = self._pair_back(ray, ref, pair)
                if lost and not self.stop_requested:
                    pending[self._submit(task, setup, by_pair[pair])] = pair
            if ready and waiting:
                slots = self._slots(ray)  # a cluster may have grown or shrunk

    def _submit(self, task: Any, setup: Any, jobs: list[_GameTask]) -> Any:
        pair = jobs[0].pair
        self.attempts[pair] = self.attempts.get(pair, 0) + 1
        return task.remote(setup, jobs)

    def _pair_back(self, ray: Any, ref: Any, pair: int) -> bool:
        """Counts the games of a pair that came back; True when its worker died and
        the pair must be played again."""
        try:
            outcome: _PairOutcome = ray.get(ref)
        except ray.exceptions.RayError as exc:
            if self.stop_requested:
                return False   # Ctrl-C also reaches the workers of a local Ray: part of the stop
            return self._pair_lost(ray, exc, pair)
        if pair in self.returned:
            return False  # already counted (a pair is never counted twice)
        self.returned.add(pair)
        with self.state_lock:
            for record in outcome.records:
                if record.number not in self.finished:
                    self.game_finished(record)
            if outcome.error is not None:
                self.errors.append(outcome.error)
        return False

    def _pair_lost(self, ray: Any, exc: BaseException, pair: int) -> bool:
        """Pair ``pair`` came back as the error ``exc``: True when its worker died and it
        is to be played again (at most :data:`PAIR_ATTEMPTS` times), else the error is
        the match's."""
        errors = ray.exceptions
        if isinstance(exc, errors.TaskCancelledError):
            return False
        if isinstance(exc, errors.RayTaskError):  # an exception in the task: a bug
            cause = getattr(exc, "cause", None)
            self.errors.append(f"pair {pair}: " + (f"{type(cause).__name__}: {cause}"
                                                    if cause is not None else _first_line(exc)))
            return False
        # the worker or its machine died
        if self.attempts.get(pair, 0) < PAIR_ATTEMPTS:
            if self.bar is not None:
                self.bar.message(f"pair {pair}: its Ray worker died ({_first_line(exc)}); "
                                 "playing the pair again")
            return True
        self.errors.append(f"pair {pair}: its Ray worker died {PAIR_ATTEMPTS} times: "
                           f"{_first_line(exc)}")
        return False

    # -- stopping

    def _catch_ctrl_c(self) -> tuple[bool, Any]:
        """While the games run, Ctrl-C asks the driver to stop: it ends the match at
        its next look at the pairs (within :data:`_WAIT` seconds), never while a pair
        is being counted; a second one raises :class:`KeyboardInterrupt` at once.
        Returns whether the handler is installed, and the handler it replaced (it
        is not in a thread other than the main one, where Ctrl-C is a
        :class:`KeyboardInterrupt` as usual)."""
        def handler(signum: int, frame: FrameType | None) -> None:
            if self.stop_requested:
                raise KeyboardInterrupt
            self.stop_requested = True

        if threading.current_thread() is not threading.main_thread():
            return False, None
        return True, signal.signal(signal.SIGINT, handler)

    def _note_stop(self) -> None:
        self.interrupted = True
        if self.bar is not None:
            self.bar.message("stopping: cancelling the game pairs in progress" + (
                f"; run again with --resume {self.journal_path} to go on"
                if self.journal_path else ""))

    def _end(self, ray: Any, started: bool, pending: dict[Any, int]) -> list[MatchGame]:
        """Cancels the pairs in flight, writes the finished games (:meth:`_close`)
        and shuts down a Ray this run started; returns the finished games. A Ctrl-C
        meanwhile only skips what is left of the cancelling or the shutdown."""
        try:
            for ref in pending:
                ray.cancel(ref, force=True)
        except KeyboardInterrupt:
            self.interrupted = True
        except Exception:  # noqa: BLE001 - a cluster already gone has nothing to cancel
            pass
        records = self._close()
        if started:
            try:
                ray.shutdown()   # here, not at exit: a Ctrl-C during it is part of the stop
            except KeyboardInterrupt:
                self.interrupted = True
        return records
