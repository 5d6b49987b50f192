"""The engines' common types: the limits of a search (:class:`Limit`, :class:`Clock`,
:func:`check_limits`), what a search gives (:class:`SearchInfo`, :class:`SearchResult`,
:class:`InfoDict`, :class:`PlayResult`, :class:`AnalysisResult`), and
:class:`EngineAPI`, the one protocol that every engine implements:
:class:`damier.engine.Engine` (in this process) and :class:`damier.hub.HubEngine` (a
program spoken to over the Hub protocol).

This module holds no search: the Hub client and the applications use these types
without loading the compiled search or the evaluation weights.
"""

from __future__ import annotations

import abc
import math
import numbers
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypedDict, overload

from damier._core import MATE_SCORE, MATE_THRESHOLD, Move
from damier._core import MAX_THREADS as _CORE_MAX_THREADS
from damier.board import Board
from damier.piece import Color
from damier.score import PovScore, Score

__all__ = ["EngineAPI", "Clock", "MoveTimer", "Limit", "PlayResult", "InfoDict", "AnalysisResult",
           "AnalysisComplete", "SearchInfo", "SearchResult", "format_score", "check_limits",
           "INFINITE_DEPTH", "MAX_NODES", "MAX_MOVES_TO_GO", "MATE_SCORE", "MATE_THRESHOLD"]

INFINITE_DEPTH = 80
"""The deepest search (plies): ``depth`` goes from 1 to this, and a search with no
depth limit stops here."""
MAX_NODES = 2 ** 63 - 1
"""The largest ``nodes`` limit (the core counts nodes in 64 bits)."""
MAX_MOVES_TO_GO = 10 ** 6
"""The largest ``moves_to_go`` of a :class:`Clock`."""
MAX_THREADS: int = _CORE_MAX_THREADS
"""The most search threads (:class:`Engine`'s ``threads``): the compiled search's limit
(``damier._core.MAX_THREADS``)."""
MAX_HASH_MB = 65536
"""The largest transposition table, in MiB (:class:`Engine`'s ``hash_mb``): 64 GiB.
A table is also refused when it is larger than the machine's memory, where that is
known: it is allocated and cleared at once, so it would not fit."""


def _number_text(value: Any) -> str:
    """``value`` for an error message: numbers as Python prints them, other things
    as their repr, shortened."""
    if isinstance(value, int) and not -10 ** 60 < value < 10 ** 60:
        # (no repr(): it raises for an int of more than 4300 digits)
        digits = int(abs(value).bit_length() * 0.30103) + 1
        return f"{'-' if value < 0 else ''}<a number of about {digits} digits>"
    text = repr(value) if not isinstance(value, float) else str(value)
    return text if len(text) <= 60 else text[:40] + "..." + text[-10:]


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_seconds(name: str, value: Any, *, zero_ok: bool) -> float:
    """``value`` as a float: a finite number of seconds, > 0 (or >= 0 with ``zero_ok``);
    else a ValueError naming ``name`` and the bad value."""
    seconds = math.nan
    if _is_real(value):
        try:
            seconds = float(value)
        except (OverflowError, ValueError, TypeError):
            seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0 or (seconds == 0 and not zero_ok):
        bound = ">= 0" if zero_ok else "> 0"
        raise ValueError(f"{name} must be a finite number of seconds {bound}, "
                         f"got {_number_text(value)}")
    return seconds


def _wait_seconds(timeout: Any) -> float | None:
    """A ``timeout`` of the waits of :class:`AnalysisResult` as the threading module
    takes it: None (no limit) stays None, and so does a time longer than the
    threading module can wait (``threading.TIMEOUT_MAX``, some 292 years); a
    negative one waits not at all; nan, bools and non-numbers raise ValueError."""
    if timeout is None:
        return None
    try:
        seconds = float(timeout) if _is_real(timeout) else math.nan
    except OverflowError:   # an int too large for a float
        seconds = math.inf if timeout > 0 else -math.inf
    if math.isnan(seconds):
        raise ValueError(f"timeout must be None or a number of seconds, "
                         f"got {_number_text(timeout)}")
    if seconds > threading.TIMEOUT_MAX:
        return None
    return max(0.0, seconds)


def _check_count(name: str, value: Any, low: int, high: int, what: str = "") -> int:
    """``value`` as an int from ``low`` to ``high``; else a ValueError naming ``name``."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) \
            or not low <= int(value) <= high:
        raise ValueError(f"{name} must be {what}a whole number from {low} to {high}, "
                         f"got {_number_text(value)}")
    return int(value)


def check_limits(*, depth: Any = None, nodes: Any = None, movetime: Any = None,
                 clock: Any = None) -> tuple[int | None, int | None, float | None]:
    """Checks search limits as :meth:`Engine.search` takes them and returns
    ``(depth, nodes, movetime)`` as int, int and float (None stays None).

    ``depth`` is a whole number from 1 to :data:`INFINITE_DEPTH`, ``nodes`` one
    from 1 to :data:`MAX_NODES`, ``movetime`` a finite number of seconds > 0
    and ``clock`` a :class:`Clock`. Anything else (nan, infinities, bools,
    strings, zero or negative values, numbers out of range) raises a
    :class:`ValueError` that names the limit and the value:

    >>> check_limits(depth=3, movetime=0.5)
    (3, None, 0.5)
    >>> check_limits(movetime=float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: movetime must be a finite number of seconds > 0, got nan
    """
    if depth is not None:
        depth = _check_count("depth", depth, 1, INFINITE_DEPTH)
    if nodes is not None:
        nodes = _check_count("nodes", nodes, 1, MAX_NODES)
    if movetime is not None:
        movetime = _check_seconds("movetime", movetime, zero_ok=False)
    if clock is not None and not isinstance(clock, Clock):
        raise ValueError(f"clock must be a damier.engine.Clock, got {_number_text(clock)}")
    return depth, nodes, movetime


@dataclass(frozen=True)
class Clock:
    """A game clock for the side to move: seconds left, increments and moves to the
    next time control (None: sudden death).

    Times and increments are finite numbers of seconds >= 0 (stored as floats),
    ``moves_to_go`` None or a whole number from 1 to :data:`MAX_MOVES_TO_GO`;
    anything else raises :class:`ValueError`."""

    white_time: float
    black_time: float
    white_increment: float = 0.0
    black_increment: float = 0.0
    moves_to_go: int | None = None

    def __post_init__(self) -> None:
        for name in ("white_time", "black_time", "white_increment", "black_increment"):
            object.__setattr__(self, name, _check_seconds(name, getattr(self, name),
                                                          zero_ok=True))
        if self.moves_to_go is not None:
            object.__setattr__(self, "moves_to_go", _check_count(
                "moves_to_go", self.moves_to_go, 1, MAX_MOVES_TO_GO, "None or "))

    def budget(self, white_to_move: bool) -> tuple[float, float]:
        """``(soft, hard)`` seconds to spend on this move."""
        left = self.white_time if white_to_move else self.black_time
        inc = self.white_increment if white_to_move else self.black_increment
        left = max(0.0, left)
        moves = self.moves_to_go if self.moves_to_go else 30
        reserve = min(1.0, left * 0.05)
        usable = max(0.0, left - reserve)
        soft = usable / max(1, moves) + inc * 0.8
        soft = min(soft, usable * 0.4)
        hard = min(usable * 0.6, soft * 3.0)
        return max(soft, 0.01), max(hard, 0.02)


class MoveTimer:
    """When a search under a clock starts no new depth: after ``soft`` seconds
    (a :meth:`Clock.budget`) scaled by how settled the search is, never past
    ``hard``.

    After each completed depth :meth:`update` takes the best root move and its
    score; :meth:`target` is then the seconds after which the next depth is not
    begun. A settled search (the same best move for several depths) stops
    sooner, and the time saved goes to moves where the best move changes or the
    score falls, which search longer:

    >>> settled, unsettled = MoveTimer(1.0, 3.0), MoveTimer(1.0, 3.0)
    >>> for depth, best in enumerate([0, 0, 0, 0, 0, 0, 0, 0], 1):
    ...     settled.update(depth, best, 10)
    >>> for depth, best in enumerate([0, 0, 0, 0, 0, 0, 1, 2], 1):
    ...     unsettled.update(depth, best, 10)
    >>> settled.target() < 0.6 < unsettled.target() <= 3.0 * MoveTimer.HARD_SHARE
    True
    """

    BASE = 0.6
    """The share of ``soft`` after which a new depth is not begun, all else equal (the
    next depth takes about as long as all those before it)."""
    SETTLED_DEPTHS = 4
    """Depths with the same best move after which the search counts as settled."""
    SETTLED = 0.7
    """The factor of a settled search."""
    CHANGE = 1.0
    """What a change of the best move adds to the factor (it halves at each depth)."""
    DROP = 40
    """A score fall (centi-men, from the previous depth) that doubles the factor;
    smaller falls scale it in proportion."""
    HARD_SHARE = 0.5
    """The target is at most this share of ``hard`` (the depth begun then has the rest)."""
    MIN_DEPTH = 5
    """Depths below this do not count (their best moves change for little)."""

    def __init__(self, soft: float, hard: float) -> None:
        self.soft = soft
        self.hard = hard
        self._best: int | None = None
        self._score = 0           # of the previous depth (once _best is set)
        self._same = 0
        self._change = 0.0
        self._drop = 0.0

    def update(self, depth: int, best: int, score: int) -> None:
        """Depth ``depth`` completed with ``best`` (an index of the root moves) and
        ``score`` (the side to move's view, centi-men)."""
        if depth >= self.MIN_DEPTH and self._best is not None:
            self._change *= 0.5
            if best != self._best:
                self._change += self.CHANGE
                self._same = 0
            else:
                self._same += 1
            fall = 0 if abs(score) >= MATE_THRESHOLD else self._score - score
            self._drop = min(1.0, max(0.0, fall / self.DROP))
        self._best, self._score = best, score

    def target(self) -> float:
        """Seconds after which no new depth is begun."""
        factor = 1.0 + self._change
        factor *= 1.0 + self._drop
        if self._same >= self.SETTLED_DEPTHS and self._change < 0.1 and self._drop == 0.0:
            factor *= self.SETTLED
        return min(self.soft * self.BASE * factor, self.hard * self.HARD_SHARE)


@dataclass(frozen=True)
class SearchInfo:
    """Progress of a search, reported after each completed iteration."""

    depth: int
    seldepth: int
    score: int
    nodes: int
    time: float
    pv: list[Move] = field(default_factory=list)
    multipv: int = 1
    tbhits: int | None = None
    """Endgame-table probes whose value the search used (None: no tables)."""

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0


@dataclass(frozen=True)
class SearchResult:
    """The outcome of a search: the move to play and what the engine saw.

    ``score`` is in centi-men from the side to move's point of view (100 = one
    man); a forced win scores ``MATE_SCORE - plies``, a forced loss the negation.
    """

    best_move: Move | None
    score: int
    depth: int
    seldepth: int
    nodes: int
    time: float
    pv: list[Move] = field(default_factory=list)
    book: bool = False
    """The move comes from the opening book (no search: ``nodes`` and ``time`` are 0)."""
    tbhits: int | None = None
    """Endgame-table probes whose value the search used (None: no tables)."""

    @property
    def ponder(self) -> Move | None:
        """The reply the engine expects (second move of the principal variation)."""
        return self.pv[1] if len(self.pv) > 1 else None

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0

    @property
    def is_win(self) -> bool:
        return self.score > MATE_THRESHOLD

    @property
    def is_loss(self) -> bool:
        return self.score < -MATE_THRESHOLD

    def score_text(self) -> str:
        """The score for people: ``+0.35`` (men) or ``win in 7`` / ``loss in 4`` (plies)."""
        return format_score(self.score)


def format_score(score: int) -> str:
    """``+0.35`` in men, or ``win in N``/``loss in N`` plies.

    >>> format_score(135), format_score(MATE_SCORE - 7)
    ('+1.35', 'win in 7')
    """
    if score > MATE_THRESHOLD:
        return f"win in {MATE_SCORE - score}"
    if score < -MATE_THRESHOLD:
        return f"loss in {MATE_SCORE + score}"
    return f"{score / 100:+.2f}"


# -- the python-chess style API: limits, results, infos, the analysis handle ---------------------


@dataclass(frozen=True, repr=False)
class Limit:
    """When a search stops (python-chess's ``chess.engine.Limit``): after ``depth``
    plies, ``nodes`` nodes, ``time`` seconds, or the budget the engine takes from a
    game ``clock`` (:class:`Clock`), whichever comes first. With no limit at all
    :meth:`Engine.play` and :meth:`Engine.analyse` search to depth
    :data:`INFINITE_DEPTH` or a forced result.

    The limits are checked as :func:`check_limits` checks them (``time`` as its
    ``movetime``), so a bad one raises :class:`ValueError` at once; ``time`` is
    kept as a float. The repr gives back an equal limit:

    >>> Limit(depth=8, time=1)
    Limit(depth=8, time=1.0)
    >>> limit = Limit(nodes=5000, clock=Clock(60, 60, 1, 1))
    >>> eval(repr(limit)) == limit
    True
    >>> Limit(time=0)
    Traceback (most recent call last):
    ...
    ValueError: time must be a finite number of seconds > 0, got 0
    """

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None
    clock: Clock | None = None

    def __post_init__(self) -> None:
        depth, nodes, _ = check_limits(depth=self.depth, nodes=self.nodes, clock=self.clock)
        object.__setattr__(self, "depth", depth)
        object.__setattr__(self, "nodes", nodes)
        if self.time is not None:
            object.__setattr__(self, "time", _check_seconds("time", self.time, zero_ok=False))

    def __repr__(self) -> str:
        fields = [f"{name}={getattr(self, name)!r}" for name in ("depth", "nodes", "time", "clock")
                  if getattr(self, name) is not None]
        return f"Limit({', '.join(fields)})"


class InfoDict(TypedDict, total=False):
    """What an engine reports about a search (python-chess's ``InfoDict``); an
    engine may leave out any key.

    ``score`` (:class:`damier.score.PovScore`), ``depth`` and ``seldepth``
    (plies), ``nodes``, ``nps`` (nodes per second), ``time`` (seconds since the
    search began), ``pv`` (the principal variation as legal :class:`Move` s from
    the searched position), ``multipv`` (the line's rank, from 1), ``tbhits``
    (endgame-table probes whose value the search used; only when the engine has
    tables for the variant) and ``string`` (a remark: ``"book"`` for a move from
    the opening book)."""

    score: PovScore
    depth: int
    seldepth: int
    nodes: int
    nps: int
    time: float
    pv: list[Move]
    multipv: int
    tbhits: int
    string: str


@dataclass
class PlayResult:
    """The answer of :meth:`Engine.play` (python-chess's ``PlayResult``): the move
    to play (None only when the position has no legal move), the reply the engine
    expects (``ponder``, or None) and what it saw (``info``)."""

    move: Move | None
    ponder: Move | None = None
    info: InfoDict = field(default_factory=lambda: InfoDict())


class AnalysisComplete(Exception):
    """:meth:`AnalysisResult.get` was called after the last info had been taken."""


class AnalysisResult:
    """A handle on a search running in the background (python-chess's
    ``SimpleAnalysisResult``), as :meth:`Engine.analysis` and
    :meth:`damier.hub.HubEngine.analysis` return it.

    Iterating yields each :class:`InfoDict` as the engine reports it (a line of
    a multi-PV search has its ``multipv`` key), and ends when the search ends.
    :attr:`info` and :attr:`multipv` are the latest snapshot. :meth:`stop` asks
    the search to end (latched: a stop that comes before the search has really
    started still stops it); :meth:`wait` waits for the end and returns a
    :class:`PlayResult`. As a context manager it stops the search and waits on exit.

    The handle is safe to use from several threads; the waits take a ``timeout``
    in seconds (None: no limit) and raise :class:`TimeoutError` when it passes.
    """

    def __init__(self, stop: Callable[[], None]) -> None:
        self._stop = stop
        self._queue: queue.Queue[InfoDict | None] = queue.Queue()
        self._lock = threading.Lock()
        self._lines: list[InfoDict] = [InfoDict()]
        self._finished = threading.Event()
        self._result: PlayResult | None = None
        self._error: BaseException | None = None
        self._ended = False  # the end of the queue has been read

    # -- the engine's side ---------------------------------------------------------------

    def post(self, info: InfoDict) -> None:
        """Reports ``info`` (the engine's side; called from the search thread)."""
        with self._lock:
            index = max(1, info.get("multipv", 1)) - 1
            while len(self._lines) <= index:
                self._lines.append(InfoDict())
            self._lines[index].update(info)
        self._queue.put(info)

    def finish(self, result: PlayResult | None = None, *, lines: Sequence[InfoDict] | None = None,
               error: BaseException | None = None) -> None:
        """Ends the analysis (the engine's side): its result, the final lines (they
        replace the snapshot) or the error that :meth:`wait` raises."""
        with self._lock:
            if self._finished.is_set():
                return
            if lines:
                self._lines = [line.copy() for line in lines]
            self._result = result
            self._error = error
            self._finished.set()
        self._queue.put(None)

    # -- the user's side -------------------------------------------------------------------

    @property
    def info(self) -> InfoDict:
        """What the engine reported last about the first line (a copy)."""
        with self._lock:
            return self._lines[0].copy()

    @property
    def multipv(self) -> list[InfoDict]:
        """The latest info of each line, best first (copies)."""
        with self._lock:
            return [line.copy() for line in self._lines]

    @property
    def done(self) -> bool:
        """Whether the search has ended."""
        return self._finished.is_set()

    def stop(self) -> None:
        """Asks the search to end now (from any thread; latched, never lost)."""
        if not self._finished.is_set():
            self._stop()

    def wait(self, timeout: float | None = None) -> PlayResult:
        """Waits for the end of the search and returns the best move and its line.

        Raises :class:`TimeoutError` if the search is still running after
        ``timeout`` seconds, or the error that ended the search."""
        if not self._finished.wait(_wait_seconds(timeout)):
            raise TimeoutError(f"the search did not end within {timeout} s")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def get(self, timeout: float | None = None) -> InfoDict:
        """The next info, waiting for it. Raises :class:`AnalysisComplete` when the
        search has ended and every info has been taken, :class:`TimeoutError`
        when none comes within ``timeout`` seconds."""
        if self._ended:
            raise AnalysisComplete()
        try:
            item = self._queue.get(timeout=_wait_seconds(timeout))
        except queue.Empty:
            raise TimeoutError(f"no info within {timeout} s") from None
        if item is None:
            self._ended = True
            self._queue.put(None)  # other readers see the end too
            raise AnalysisComplete()
        return item

    def next(self, timeout: float | None = None) -> InfoDict | None:
        """The next info, or None when the search has ended and every info has
        been taken (see :meth:`get`)."""
        try:
            return self.get(timeout)
        except AnalysisComplete:
            return None

    def empty(self) -> bool:
        """Whether no info is waiting to be taken (the search may still report more)."""
        return self._ended or self._queue.empty() or (
            self._queue.qsize() == 1 and self._finished.is_set())

    def __iter__(self) -> Iterator[InfoDict]:
        return self

    def __next__(self) -> InfoDict:
        try:
            return self.get()
        except AnalysisComplete:
            raise StopIteration from None

    def __enter__(self) -> AnalysisResult:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
        self._finished.wait()

    def __repr__(self) -> str:
        state = "done" if self.done else "running"
        return f"<AnalysisResult {state}, info={self.info!r}>"


def _pov_score(score: int, turn: Color) -> PovScore:
    return PovScore(Score.from_engine(score), turn)


def _info_dict(turn: Color, *, score: int, depth: int, seldepth: int, nodes: int, time: float,
               pv: Sequence[Move], multipv: int, tbhits: int | None) -> InfoDict:
    info = InfoDict(score=_pov_score(score, turn), depth=depth, seldepth=seldepth, nodes=nodes,
                    nps=int(nodes / time) if time > 0 else 0, time=time, pv=list(pv),
                    multipv=multipv)
    if tbhits is not None:
        info["tbhits"] = tbhits
    return info


def _result_info(result: SearchResult, turn: Color, multipv: int = 1) -> InfoDict:
    info = _info_dict(turn, score=result.score, depth=result.depth, seldepth=result.seldepth,
                      nodes=result.nodes, time=result.time, pv=result.pv, multipv=multipv,
                      tbhits=result.tbhits)
    if result.book:
        info["string"] = "book"
    return info


def _search_info(info: SearchInfo, turn: Color) -> InfoDict:
    return _info_dict(turn, score=info.score, depth=info.depth, seldepth=info.seldepth,
                      nodes=info.nodes, time=info.time, pv=info.pv, multipv=info.multipv,
                      tbhits=info.tbhits)


def _play_result(result: SearchResult, turn: Color) -> PlayResult:
    return PlayResult(result.best_move, result.ponder, _result_info(result, turn))


def _check_limit(limit: Any) -> Limit:
    if not isinstance(limit, Limit):
        raise TypeError(f"expected a damier.engine.Limit, not {type(limit).__name__}")
    return limit


class EngineAPI(abc.ABC):
    """What every engine does, whatever runs it: :class:`damier.engine.Engine` (in this
    process), :class:`damier.hub.HubEngine` (a Hub program). A match, a GUI or a bot
    written against this class plays with any of them.

    ``play`` gives the move to play; ``analyse`` the best line's :class:`InfoDict` (with
    ``multipv=N``, a list of the N best lines'); ``analysis`` starts a background
    analysis and returns its :class:`AnalysisResult` at once; ``stop`` ends a running
    search; ``new_game`` forgets the last game; ``quit`` lets the engine go (also at the
    end of a ``with`` block)."""

    @abc.abstractmethod
    def play(self, board: Board, limit: Limit) -> PlayResult:
        """The move to play in ``board``'s position within ``limit``."""

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: None = None) -> InfoDict: ...

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: int) -> list[InfoDict]: ...

    @abc.abstractmethod
    def analyse(self, board: Board, limit: Limit, multipv: int | None = None
                ) -> InfoDict | list[InfoDict]:
        """The best line (or the ``multipv`` best lines) of ``board``'s position."""

    @abc.abstractmethod
    def analysis(self, board: Board, limit: Limit | None = None, multipv: int | None = None, *,
                 infinite: bool = False) -> AnalysisResult:
        """Starts analysing ``board``'s position in the background."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stops the running search (its result is the best found so far)."""

    @abc.abstractmethod
    def new_game(self) -> None:
        """Forgets what was learnt in the previous game."""

    def quit(self) -> None:  # noqa: B027 - a no-op default on purpose, not a missing abstract
        """Lets the engine go (a process ends); an in-process engine has nothing to do."""

    def __enter__(self) -> "EngineAPI":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.quit()
