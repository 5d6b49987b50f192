"""damier's own engine: iterative deepening principal-variation search.

The search and evaluation are compiled (``_core.pyx``, ``_search.pxi``) and run
without holding the GIL, so other Python threads stay responsive and may call
:meth:`Engine.stop`.

>>> import damier
>>> from damier.engine import Engine
>>> engine = Engine(hash_mb=16)
>>> board = damier.Board("W:W27,28,32,37,38,43:B13,17,18,19,22,23")
>>> result = engine.search(board, depth=8)
>>> result.best_move in board.legal_moves
True
>>> result.depth >= 8
True
"""

from __future__ import annotations

import json
import math
import numbers
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from damier._core import (MATE_SCORE, MATE_THRESHOLD, Move, SearchCore, evaluate_position,
                          set_eval_params)
from damier.board import Board
from damier.outcome import _FIVE, _SIXTEEN, _is_three_kings_vs_king, _lone_king_class
from damier.variants import VARIANTS, Variant

__all__ = ["Engine", "Clock", "SearchInfo", "SearchResult", "LEVELS", "load_eval_weights", "read_weights",
           "format_score", "check_limits", "INFINITE_DEPTH", "MAX_NODES", "MAX_MOVES_TO_GO"]

INFINITE_DEPTH = 80
"""The deepest search (plies): ``depth`` goes from 1 to this, and a search with no
depth limit stops here."""
MAX_NODES = 2 ** 63 - 1
"""The largest ``nodes`` limit (the core counts nodes in 64 bits)."""
MAX_MOVES_TO_GO = 10 ** 6
"""The largest ``moves_to_go`` of a :class:`Clock`."""
MAX_THREADS = 64


def _number_text(value: Any) -> str:
    """``value`` for an error message: numbers as Python prints them, other things
    as their repr, shortened."""
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


def _check_count(name: str, value: Any, low: int, high: int, what: str = "") -> int:
    """``value`` as an int from ``low`` to ``high``; else a ValueError naming ``name``."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) \
            or not low <= value <= high:
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


@dataclass(frozen=True)
class Level:
    """How a level weakens the engine: a depth cap, and a margin (centi-men)
    within which a worse move may be picked at random."""

    depth: int | None
    margin: int
    temperature: float


LEVELS: dict[int, Level] = {
    1: Level(depth=1, margin=120, temperature=60.0),
    2: Level(depth=2, margin=100, temperature=50.0),
    3: Level(depth=3, margin=80, temperature=40.0),
    4: Level(depth=4, margin=60, temperature=30.0),
    5: Level(depth=5, margin=45, temperature=20.0),
    6: Level(depth=6, margin=30, temperature=14.0),
    7: Level(depth=8, margin=20, temperature=9.0),
    8: Level(depth=10, margin=10, temperature=5.0),
    9: Level(depth=14, margin=4, temperature=2.0),
    10: Level(depth=None, margin=0, temperature=0.0),
}
"""Level 1 ("a beginner can win") to 10 (full strength)."""


_loaded_variants: set[str] = set()


def load_eval_weights(variant: Variant, path: str | None = None) -> dict[str, Any]:
    """Loads the evaluation weights of ``variant`` into the core and returns them.

    The weights come from ``damier/data/eval_<variant>.json`` unless ``path`` is given."""
    if path is None:
        text = resources.files("damier").joinpath("data", f"eval_{variant.name}.json").read_text()
    else:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    data = json.loads(text)
    set_eval_params(variant.index, *_weight_vectors(data, variant))
    _loaded_variants.add(variant.name)
    return data


def _weight_vectors(data: dict[str, Any], variant: Variant) -> tuple[list[int], list[int], int]:
    """``(terms, squares, tempo)`` from a weights dictionary; a term that the
    file does not name (a file older than the term) weighs 0."""
    from damier._core import EVAL_TERM_NAMES

    try:
        given = data["terms"]
        unknown = sorted(set(given) - set(EVAL_TERM_NAMES))
        if unknown:
            raise ValueError(f"unknown evaluation terms {', '.join(unknown)} (terms: "
                             f"{', '.join(EVAL_TERM_NAMES)})")
        terms = [int(given.get(name, 0)) for name in EVAL_TERM_NAMES]
        pst = [int(v) for v in data["squares"]]
        tempo = int(data.get("tempo", 0))
    except (KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"bad evaluation weights: missing or malformed {err}") from None
    if len(pst) != variant.squares:
        raise ValueError(f"bad evaluation weights: {len(pst)} squares for {variant.name}, "
                         f"which has {variant.squares}")
    if "variant" in data and data["variant"] != variant.name:
        raise ValueError(f"evaluation weights for {data['variant']}, not {variant.name}")
    return terms, pst, tempo


def read_weights(source: str | Path | dict[str, Any]) -> dict[str, Any]:
    """Evaluation weights from a JSON file (as ``damier.tuning`` writes) or a dict."""
    if isinstance(source, dict):
        return source
    try:
        with open(source, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as err:
        raise ValueError(f"cannot read evaluation weights {source}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"evaluation weights {source} are not JSON: {err}") from None
    if not isinstance(data, dict):
        raise ValueError(f"evaluation weights {source}: expected a JSON object")
    return data


def _ensure_weights(variant: Variant) -> None:
    if variant.name not in _loaded_variants:
        load_eval_weights(variant)


def evaluate(board: Board) -> int:
    """The static evaluation of ``board`` (centi-men, side to move's view)."""
    _ensure_weights(board.variant)
    return evaluate_position(board)


class Engine:
    """damier's engine.

    :param threads: search threads. With more than one, the search is a lazy
        SMP search: helper threads search the same position and share what
        they find through the transposition table. Multi-PV analysis and the
        weakened levels search with one thread.
    :param hash_mb: transposition table size in MiB.
    :param level: 1 (a beginner can win) to 10 (full strength).
    :param seed: seed of the randomness used below level 10.
    :param weights: evaluation weights for this engine only (a JSON file as
        ``damier.tuning`` writes, or its dict), for the variant they name;
        by default the shipped weights.
    """

    def __init__(self, *, threads: int = 1, hash_mb: int = 64, level: int = 10,
                 seed: int | None = None, weights: str | Path | dict[str, Any] | None = None) -> None:
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be between 1 and {MAX_THREADS}, got {threads}")
        if not 1 <= level <= 10:
            raise ValueError(f"level must be between 1 and 10, got {level}")
        self.threads = threads
        self.hash_mb = hash_mb
        self.level = level
        self._core = SearchCore(hash_mb)
        self._core.set_threads(threads)
        self._lock = threading.Lock()
        self._random = random.Random(seed)
        if weights is not None:
            self.set_weights(weights)

    def set_weights(self, weights: str | Path | dict[str, Any]) -> None:
        """Evaluation weights for this engine only (see the ``weights`` parameter)."""
        data = read_weights(weights)
        variant = VARIANTS.get(str(data.get("variant", "international")))
        if variant is None:
            raise ValueError(f"evaluation weights for an unknown variant {data.get('variant')!r}")
        with self._lock:
            self._core.set_weights(variant.index, *_weight_vectors(data, variant))

    def set_threads(self, threads: int) -> None:
        """Changes the number of search threads."""
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be between 1 and {MAX_THREADS}, got {threads}")
        with self._lock:
            self._core.set_threads(threads)
            self.threads = threads

    # -- control -----------------------------------------------------------------

    def set_hash(self, hash_mb: int) -> None:
        """Resizes the transposition table (clears it)."""
        with self._lock:
            self._core.set_hash(hash_mb)
            self.hash_mb = hash_mb

    def set_level(self, level: int) -> None:
        if not 1 <= level <= 10:
            raise ValueError(f"level must be between 1 and 10, got {level}")
        self.level = level

    def new_game(self) -> None:
        """Forgets what was learnt in the previous game."""
        with self._lock:
            self._core.clear()

    def stop(self) -> None:
        """Stops the running search as soon as possible (from any thread)."""
        self._core.stop()

    # -- searching -----------------------------------------------------------------

    def search(self, board: Board, *, depth: int | None = None, nodes: int | None = None,
               movetime: float | None = None, clock: Clock | None = None,
               info: Callable[[SearchInfo], Any] | None = None,
               infinite: bool = False) -> SearchResult:
        """Searches ``board`` and returns the move to play.

        Limits: ``depth`` (plies), ``nodes``, ``movetime`` (seconds), ``clock``
        (game clock; the engine budgets its time), ``infinite`` (until
        :meth:`stop`). With no limit at all the search stops at depth 80 or a
        forced result. ``info`` is called after each completed iteration.

        A bad limit (see :func:`check_limits`: nan, an infinity, zero, a negative
        or out-of-range number, a bool, a string...) raises :class:`ValueError`
        before anything is searched.
        """
        results = self._run(board, multipv=1, depth=depth, nodes=nodes, movetime=movetime,
                            clock=clock, info=info, infinite=infinite, weaken=True)
        return results[0]

    def analyse(self, board: Board, *, multipv: int = 1, depth: int | None = None,
                nodes: int | None = None, movetime: float | None = None,
                info: Callable[[SearchInfo], Any] | None = None,
                infinite: bool = False) -> list[SearchResult]:
        """The best ``multipv`` moves with their scores and lines, best first
        (always at full strength). ``multipv`` is a whole number from 1 to 1000;
        the limits are checked as :meth:`search` checks them."""
        multipv = _check_count("multipv", multipv, 1, 1000)
        return self._run(board, multipv=multipv, depth=depth, nodes=nodes, movetime=movetime,
                         clock=None, info=info, infinite=infinite, weaken=False)

    # -- internals -------------------------------------------------------------------

    def _history(self, board: Board) -> tuple[list[int], int, int]:
        snapshots = board._snapshots
        rev = 0
        for snap in reversed(snapshots[1:]):
            if not snap.king_move:
                break
            rev += 1
        keys = [snap.key for snap in snapshots[len(snapshots) - 1 - rev:len(snapshots) - 1]]
        limit = board.rules.king_moves_limit
        return keys, rev, (2 * limit if limit else 0)

    @staticmethod
    def _endgame_counts(board: Board) -> tuple[tuple[int, int, int], int]:
        """The plies that draw under the five-move, sixteen-move and three-kings
        rules (0: off), and the plies already played in the current position's
        class of material (the classes of :mod:`damier.outcome`)."""
        rules = board.rules
        limits = tuple(2 * n if n else 0 for n in (rules.five_moves_limit,
                                                    rules.sixteen_moves_limit,
                                                    rules.three_kings_limit))

        def material_class(s: Any) -> int:
            # the classes of damier.outcome, numbered as end_class in the core numbers them
            lone = _lone_king_class(s)
            if lone == _FIVE and limits[0]:
                return 1
            if lone == _SIXTEEN and limits[1]:
                return 2
            if limits[2] and _is_three_kings_vs_king(s):
                return 3 + 4 * s.pieces   # a capture starts a new count
            return 0

        snapshots = board._snapshots
        current = material_class(snapshots[-1])
        done = 0
        if current:
            for snap in reversed(snapshots[:-1]):
                if material_class(snap) != current:
                    break
                done += 1
        return limits, done

    def _run(self, board: Board, *, multipv: int, depth: int | None, nodes: int | None,
             movetime: float | None, clock: Clock | None,
             info: Callable[[SearchInfo], Any] | None, infinite: bool,
             weaken: bool) -> list[SearchResult]:
        if not isinstance(board, Board):
            raise TypeError(f"expected a damier.Board, not {type(board).__name__}")
        depth, nodes, movetime = check_limits(depth=depth, nodes=nodes, movetime=movetime,
                                              clock=clock)
        _ensure_weights(board.variant)
        level = LEVELS[self.level] if weaken else LEVELS[10]
        if level.depth is not None:
            depth = min(depth, level.depth) if depth is not None else level.depth
        if level.margin and multipv == 1:
            multipv = 64

        with self._lock:
            start = time.monotonic()
            keys, rev, king_draw = self._history(board)
            end_limits, end_done = self._endgame_counts(board)
            core = self._core
            n = core.new_search(board, keys, rev, king_draw, end_limits, end_done)
            root_moves = core.root_moves()
            if n == 0:
                return [SearchResult(None, -MATE_SCORE, 0, 0, 0, 0.0, [])]
            soft = hard = None
            if movetime is not None:
                soft = hard = movetime
            elif clock is not None:
                soft, hard = clock.budget(board.turn)
            deadline = start + hard if hard is not None else 0.0
            core.set_limits(nodes or 0, deadline)
            max_depth = depth if depth is not None else INFINITE_DEPTH
            multipv = min(multipv, n)

            results: list[SearchResult] = []
            skipped: list[int] = []
            helpers = self._start_helpers(core, max_depth) if multipv == 1 and n > 1 else []
            try:
                for pv_index in range(multipv):
                    core.set_skip(skipped)
                    best = self._iterate(core, root_moves, max_depth, start, soft, info,
                                         pv_index + 1, infinite and multipv == 1, n)
                    if best is None:
                        break
                    result, index = best
                    results.append(result)
                    skipped.append(index)
                    if core.stopped:
                        break
            finally:
                core.stop_helpers()
                for thread in helpers:
                    thread.join()
            if not results:
                # Stopped before the first iteration finished: play the first legal move.
                results = [SearchResult(root_moves[0], 0, 0, 0, core.nodes,
                                        time.monotonic() - start, [root_moves[0]])]
        # Best first; a line cut short by a limit (shallower) after the full-depth ones.
        results.sort(key=lambda r: (-r.depth, -r.score))
        if weaken and level.margin:
            return [self._weakened_choice(results, level)]
        return results

    def _iterate(self, core: SearchCore, root_moves: list[Move], max_depth: int, start: float,
                 soft: float | None, info: Callable[[SearchInfo], Any] | None, multipv: int,
                 infinite: bool, candidates: int) -> tuple[SearchResult, int] | None:
        best: tuple[SearchResult, int] | None = None
        previous: int | None = None
        for d in range(1, max_depth + 1):
            alpha, beta = -MATE_SCORE - 1, MATE_SCORE + 1
            window = 35
            if previous is not None and d >= 5 and abs(previous) < MATE_THRESHOLD:
                alpha, beta = previous - window, previous + window
            while True:
                score, index, pv, stopped = core.search(d, alpha, beta)
                if stopped:
                    break
                if score <= alpha:
                    alpha = max(-MATE_SCORE - 1, alpha - window * 4)
                    window *= 4
                elif score >= beta:
                    beta = min(MATE_SCORE + 1, beta + window * 4)
                    window *= 4
                else:
                    break
            if stopped:
                break
            previous = score
            elapsed = time.monotonic() - start
            move = root_moves[index] if index >= 0 else (pv[0] if pv else None)
            result = SearchResult(move, score, d, core.seldepth, core.nodes, elapsed, list(pv))
            best = (result, index)
            if info is not None:
                info(SearchInfo(d, core.seldepth, score, core.nodes, elapsed, list(pv), multipv))
            if candidates == 1 and not infinite and d >= 1:
                break  # a single legal move: nothing to think about
            if abs(score) > MATE_THRESHOLD and MATE_SCORE - abs(score) <= d and not infinite:
                break
            if soft is not None and not infinite and elapsed >= soft * 0.6:
                break
        if infinite and not core.stopped:
            # An infinite search keeps the last result until stopped.
            while not core.stopped:
                time.sleep(0.005)
        return best

    def _start_helpers(self, core: SearchCore, max_depth: int) -> list[threading.Thread]:
        threads = []
        for index in range(core.threads - 1):
            thread = threading.Thread(target=core.run_helper, args=(index, max_depth + 1),
                                      name=f"damier-search-helper-{index}", daemon=True)
            thread.start()
            threads.append(thread)
        return threads

    def _weakened_choice(self, results: list[SearchResult], level: Level) -> SearchResult:
        best = results[0]
        if best.is_win or best.is_loss and all(r.is_loss for r in results):
            return best
        # Only moves searched as deep as the best one: a line cut short by the time
        # limit has a shallower, unreliable score.
        pool = [r for r in results if r.score >= best.score - level.margin and not r.is_loss
                and r.depth >= best.depth]
        if not pool:
            return best
        weights = [math.exp((r.score - best.score) / level.temperature) for r in pool]
        return self._random.choices(pool, weights=weights, k=1)[0]


def variants_with_weights() -> Iterable[str]:
    """Variants whose evaluation weights ship with damier."""
    return [name for name in VARIANTS
            if resources.files("damier").joinpath("data", f"eval_{name}.json").is_file()]
