"""SPSA tuning of the search's selectivity parameters, and of the evaluation's hand-named
terms, by self-play game pairs.

Simultaneous perturbation stochastic approximation (J. C. Spall, "Multivariate
stochastic approximation using a simultaneous perturbation gradient approximation",
IEEE Trans. Automatic Control 37, 1992), the way engine developers tune search
parameters: at each step every parameter is moved by ``+c`` or ``-c`` at once (one
random sign each), the engine with ``theta + c * delta`` plays the engine with
``theta - c * delta`` a few game pairs, and ``theta`` moves along ``delta`` by their
score difference. The gains follow Spall's schedule, ``c_k = c / (k + 1) ** gamma`` and
``a_k = a / (A + k + 1) ** alpha`` (``k``: game pairs played; ``gamma`` 0.101,
``alpha`` 0.602, ``A`` a tenth of the pairs), set from each parameter's perturbation at
the end (``c_end``) and its learning rate there (``r_end = a_end / c_end ** 2``), as
the chess engines' testing frameworks take them. A parameter then moves by
``r_k * c_k * (wins - losses)`` of the "plus" engine at each step.

The tuned values are a proposal: like any engine change, they are accepted by an
SPRT match against the defaults (``damier match "damier:SETTINGS" damier --sprt 0 10``).

>>> params = parse_params(["probcut_margin=100,40,200,10", "lmr_divisor=1.5,1,3,0.1"])
>>> params[0]  # doctest: +NORMALIZE_WHITESPACE
TuneParam(name='probcut_margin', start=100.0, low=40.0, high=200.0, c_end=10.0,
          r_end=0.05, integer=True)
>>> schedule = Schedule(pairs=1000)
>>> round(schedule.c_k(params[0], 0), 2), round(schedule.c_k(params[0], 1000), 2)
(20.09, 10.0)
>>> engine_values(params, [100.4, 1.5], [1, -1], [10.0, 0.1])
{'probcut_margin': 110, 'lmr_divisor': 1.4}

The evaluation's terms (``man``, ``king``, ``runaway``...) are tuned the same way, each
weight by itself: ``eval.TERM.open`` and ``eval.TERM.end`` (the opening and endgame
weight, in the weight file's units, eighths of a centi-man). Their values start from the
engine's weights (the variant's shipped ones, or ``weights=FILE`` among the engine
options), and each engine of a step plays a weights file with its own values
(:func:`eval_weights`).

>>> p = parse_params(["eval.king.end"], eval_start=lambda name: 2400)[0]
>>> (p.name, p.start, p.low, p.high, p.c_end, p.integer)
('eval.king.end', 2400.0, 1200.0, 3600.0, 120.0, True)

The state of a tune is a JSON file, written after every step, so that the same command
resumes an interrupted tune where it stopped (:class:`Tuner`).
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from array import array
from typing import TYPE_CHECKING, Any

from damier.match.adjudication import Adjudication, DrawAdjudication, LossAdjudication
from damier.variants import DEFAULT_VARIANT, get_variant

if TYPE_CHECKING:
    from damier.evalfile import Weights

__all__ = ["DEFAULT_PARAMS", "EVAL_PREFIX", "PlayPairs", "Schedule", "StepResult", "TuneError",
           "TuneParam", "TuneSettings", "Tuner", "base_weights", "engine_options",
           "engine_values", "engine_without_weights", "eval_term", "eval_value",
           "eval_weights", "match_play_pairs", "parse_params", "split_values",
           "tunable_settings"]

STATE_VERSION = 1

# Parameters named eval.TERM.open / eval.TERM.end are weights of the evaluation's terms;
# eval.scale.TABLE.open / .end scale a whole table of the weights, in percent.
EVAL_PREFIX = "eval."
_EVAL_PARTS = ("open", "end")
_SCALE_PREFIX = "scale."
# The tables a scale moves: the 4 x 4 area patterns, the material table, the big 4 x 6
# patterns (``eval_layout``'s sections of the weights, in this order after the terms).
SCALE_TABLES = ("areas", "material", "big")
# A weight is an int16 of the weights file.
_WEIGHT_LIMIT = 32767


class TuneError(ValueError):
    """A bad tuning setting, or a state file that cannot be resumed (the message says
    which and why)."""


def tunable_settings() -> dict[str, Any]:
    """The selectivity settings that take a number (the switches left out), with
    their defaults: the parameters a tune can move.

    >>> tunable_settings()["probcut_margin"] == 80
    True
    >>> "probcut" in tunable_settings()          # a switch (on/off)
    False
    """
    from damier.engine import Engine

    defaults = Engine(hash_mb=1).selectivity
    return {k: v for k, v in defaults.items() if not isinstance(v, bool)}


def eval_term(name: str) -> tuple[str, int] | None:
    """The evaluation term and part (0 opening, 1 endgame) a parameter named
    ``eval.TERM.open`` or ``eval.TERM.end`` moves; None for a search setting.
    :class:`TuneError` for an ``eval.`` name that is no term's weight. The terms are
    the hand-named ones (``EVAL_TERM_NAMES``) and ``side``, the side to move's bonus;
    ``eval.scale.TABLE.open|end`` scales a whole table (:data:`SCALE_TABLES`) by a
    percentage of its weights in the engine's file.

    >>> eval_term("eval.king.end"), eval_term("eval.side.open"), eval_term("probcut_margin")
    (('king', 1), ('side', 0), None)
    >>> eval_term("eval.scale.big.end")
    ('scale.big', 1)
    >>> eval_term("eval.queen.open")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    damier.tune.TuneError: 'eval.queen.open': no evaluation term 'queen'; the terms are: man, ...
    """
    if not name.startswith(EVAL_PREFIX):
        return None
    from damier._core import EVAL_TERM_NAMES

    term, _, part = name[len(EVAL_PREFIX):].rpartition(".")
    if part not in _EVAL_PARTS:
        raise TuneError(f"{name!r}: an evaluation weight is eval.TERM.open or eval.TERM.end")
    if term.startswith(_SCALE_PREFIX):
        if term[len(_SCALE_PREFIX):] not in SCALE_TABLES:
            raise TuneError(f"{name!r}: no table {term[len(_SCALE_PREFIX):]!r} to scale; the "
                            f"tables are: {', '.join(SCALE_TABLES)}")
        return term, _EVAL_PARTS.index(part)
    if term not in EVAL_TERM_NAMES and term != "side":
        raise TuneError(f"{name!r}: no evaluation term {term!r}; the terms are: "
                        f"{', '.join(EVAL_TERM_NAMES)} and side (the side to move)")
    return term, _EVAL_PARTS.index(part)


@dataclass(frozen=True)
class TuneParam:
    """One parameter of a tune: a selectivity setting (:func:`tunable_settings`), its
    value to start from, its bounds, its perturbation at the end of the tune
    (``c_end``, in the setting's units) and its learning rate there (``r_end``:
    at the end, each game the "plus" engine wins more than it loses moves the value
    by ``r_end * c_end``). ``integer``: the engine takes whole values (the
    perturbed values are rounded)."""

    name: str
    start: float
    low: float
    high: float
    c_end: float
    r_end: float
    integer: bool

    def check(self) -> None:
        """Raises :class:`TuneError` naming what is wrong with the parameter."""
        if not self.low <= self.start <= self.high:
            raise TuneError(f"{self.name}: the start {self.start:g} is outside "
                            f"{self.low:g}..{self.high:g}")
        if self.low >= self.high:
            raise TuneError(f"{self.name}: the bounds {self.low:g}..{self.high:g} are empty")
        if not self.c_end > 0 or not self.r_end > 0:
            raise TuneError(f"{self.name}: c_end and r_end must be > 0")
        if self.integer and self.c_end < 0.5:
            raise TuneError(f"{self.name}: a whole-number setting needs c_end >= 0.5 (a "
                            "smaller perturbation rounds away)")
        if 2 * self.c_end > self.high - self.low:
            raise TuneError(f"{self.name}: c_end {self.c_end:g} is too large for the bounds "
                            f"{self.low:g}..{self.high:g}")
        if eval_term(self.name) is not None and (self.low < -_WEIGHT_LIMIT
                                                 or self.high > _WEIGHT_LIMIT):
            raise TuneError(f"{self.name}: an evaluation weight stays within "
                            f"-{_WEIGHT_LIMIT}..{_WEIGHT_LIMIT}")


# The parameters tuned when none are named: the numbers of the selectivity that shape
# the tree (the ProbCut, singular-extension and late-move-reduction settings), each from
# its default. Bounds keep each in the range where it still means what it says; the
# late-move reductions' least depth and first move start at their lower bounds, below
# which they change nothing (a reduction leaves at least a ply of depth, so nodes of
# depth 2 are never reduced, and the log table reduces neither of the first two moves).
_DEFAULT_RANGES: dict[str, tuple[float, float, float]] = {
    # name: (low, high, c_end)
    "probcut_margin": (20, 300, 12),
    "probcut_depth": (3, 10, 1),
    "probcut_reduction": (1, 8, 1),
    "singular_margin": (0, 150, 10),
    "singular_depth": (3, 12, 1),
    "lmr_depth": (3, 10, 1),
    "lmr_move": (2, 10, 1),
    "lmr_divisor": (0.8, 4.0, 0.15),
}

# The learning rate at the end, unless given: a game won moves a parameter by a twentieth
# of its perturbation at the end (the step is r_end * c_end a game).
DEFAULT_R_END = 0.05


def _default_params() -> list[TuneParam]:
    defaults = tunable_settings()
    return [TuneParam(name, float(defaults[name]), low, high, c_end, DEFAULT_R_END,
                      isinstance(defaults[name], int))
            for name, (low, high, c_end) in _DEFAULT_RANGES.items()]


DEFAULT_PARAMS = tuple(_DEFAULT_RANGES)


def _eval_default(name: str, start: float) -> TuneParam:
    """An evaluation weight's default range: half its value each way (at least 80, ten
    centi-men), a twentieth of it as the perturbation at the end (at least 8); a table's
    scale: 50 to 150 percent, 5 at the end."""
    if _is_scale(name):
        return TuneParam(name, float(start), 50.0, 150.0, 5.0, DEFAULT_R_END, True)
    half = max(abs(start) / 2, 80.0)
    low = max(-_WEIGHT_LIMIT, start - half)
    high = min(_WEIGHT_LIMIT, start + half)
    return TuneParam(name, float(start), float(low), float(high), max(abs(start) / 20, 8.0),
                     DEFAULT_R_END, True)


def parse_params(texts: Sequence[str], *,
                 eval_start: Callable[[str], float] | None = None) -> list[TuneParam]:
    """Parameters from their texts, ``NAME=START,LOW,HIGH,C_END[,R_END]`` or just ``NAME``
    (one of :data:`DEFAULT_PARAMS`, with its default settings; or an evaluation weight
    ``eval.TERM.open|end``, from ``eval_start(NAME)``, its value in the engine's
    weights, with :func:`_eval_default`'s range); none: the default set.

    >>> [p.name for p in parse_params([])][:3]
    ['probcut_margin', 'probcut_depth', 'probcut_reduction']
    >>> parse_params(["lmr_move=2,1,8,1,0.1"])[0].r_end
    0.1
    >>> parse_params(["eval.runaway.end=208,100,400,10"])[0].integer
    True
    >>> parse_params(["probcut=1,0,1,1"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    damier.tune.TuneError: 'probcut' is not a numeric selectivity setting nor an evaluation ...
    """
    if not texts:
        return _default_params()
    tunable = tunable_settings()
    defaults = {p.name: p for p in _default_params()}
    params: list[TuneParam] = []
    for text in texts:
        name, _, rest = text.partition("=")
        name = name.strip()
        is_eval = eval_term(name) is not None
        if not is_eval and name not in tunable:
            raise TuneError(f"{(name or text)!r} is not a numeric selectivity setting nor an "
                            "evaluation weight (eval.TERM.open or eval.TERM.end); the settings "
                            f"are: {', '.join(sorted(tunable))}")
        if any(p.name == name for p in params):
            raise TuneError(f"{name} is named twice")
        if not rest:
            if is_eval:
                if eval_start is None:
                    raise TuneError(f"{name}: give it as {name}=START,LOW,HIGH,C_END[,R_END] "
                                    "(no weights to start from)")
                params.append(_eval_default(name, eval_start(name)))
                continue
            if name not in defaults:
                raise TuneError(f"{name} has no default range: give it as "
                                f"{name}=START,LOW,HIGH,C_END[,R_END]")
            params.append(defaults[name])
            continue
        try:
            numbers = [float(x) for x in rest.split(",")]
        except ValueError:
            raise TuneError(f"{text!r}: expected {name}=START,LOW,HIGH,C_END[,R_END] "
                            "(numbers)") from None
        if len(numbers) not in (4, 5) or not all(math.isfinite(x) for x in numbers):
            raise TuneError(f"{text!r}: expected {name}=START,LOW,HIGH,C_END[,R_END] "
                            "(4 or 5 finite numbers)")
        start, low, high, c_end = numbers[:4]
        r_end = numbers[4] if len(numbers) == 5 else DEFAULT_R_END
        params.append(TuneParam(name, start, low, high, c_end, r_end,
                                is_eval or isinstance(tunable[name], int)))
    for p in params:
        p.check()
    return params


@dataclass(frozen=True)
class Schedule:
    """Spall's gain sequences for a tune of ``pairs`` game pairs (``k`` counts the
    pairs played before a step)."""

    pairs: int
    alpha: float = 0.602
    gamma: float = 0.101
    a_share: float = 0.1     # A = a_share * pairs (Spall: about a tenth of the steps)

    @property
    def big_a(self) -> float:
        return self.a_share * self.pairs

    def c_k(self, p: TuneParam, k: int) -> float:
        """The perturbation of ``p`` at step ``k``: ``c_end`` at ``k = pairs``."""
        c = p.c_end * self.pairs ** self.gamma
        return float(c / (k + 1) ** self.gamma)

    def r_k(self, p: TuneParam, k: int) -> float:
        """The learning rate ``a_k / c_k ** 2`` of ``p`` at step ``k``: ``r_end`` at the end."""
        a = p.r_end * p.c_end ** 2 * (self.big_a + self.pairs) ** self.alpha
        a_k = a / (self.big_a + k + 1) ** self.alpha
        return float(a_k / self.c_k(p, k) ** 2)


def engine_values(params: Sequence[TuneParam], theta: Sequence[float], signs: Sequence[int],
                  c: Sequence[float]) -> dict[str, int | float]:
    """The settings of an engine at ``theta + signs * c``, inside the bounds, rounded
    for whole-number settings (and to 4 decimals for the others)."""
    values: dict[str, int | float] = {}
    for p, t, s, ck in zip(params, theta, signs, c, strict=True):
        x = min(p.high, max(p.low, t + s * ck))
        values[p.name] = int(round(x)) if p.integer else round(x, 4)
    return values


def spec_options(values: dict[str, int | float]) -> str:
    """``name=value,...`` as engine specs take them (``damier:OPTIONS``).

    >>> spec_options({"probcut_margin": 90, "lmr_divisor": 1.25})
    'probcut_margin=90,lmr_divisor=1.25'
    """
    return ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                    for k, v in values.items())


def engine_options(engine: str) -> dict[str, Any]:
    """The options of a tune's ``--engine`` text, as a ``damier:`` engine spec reads
    them (:class:`TuneError` names what is wrong).

    >>> engine_options("cont_history=1,hash=16")
    {'cont_history': 1, 'hash': 16}
    """
    from damier.match.players import EngineSpecError, parse_engine_spec

    if not isinstance(engine, str):
        raise TuneError("the engine options are a text (name=value,...)")
    try:
        return dict(parse_engine_spec(f"damier:{engine}").option_map)
    except EngineSpecError as exc:
        raise TuneError(f"--engine {engine!r}: {str(exc).split(': ', 1)[-1]}") from None


def split_values(values: dict[str, int | float]) -> tuple[dict[str, int | float],
                                                         dict[str, int | float]]:
    """The search settings and the evaluation weights (``eval.*``) of an engine's values.

    >>> split_values({"probcut_margin": 90, "eval.king.end": 2500})
    ({'probcut_margin': 90}, {'eval.king.end': 2500})
    """
    search = {k: v for k, v in values.items() if eval_term(k) is None}
    weights = {k: v for k, v in values.items() if eval_term(k) is not None}
    return search, weights


def base_weights(variant: str, weights: str | None = None) -> Weights:
    """The weights that a tune's evaluation parameters start from and move: the file
    ``weights`` (the engine option ``weights=FILE``), else the variant's shipped ones."""
    from damier.engine import read_weights
    from damier.evalfile import WeightsFileError, shipped_weights

    v = get_variant(variant)
    if weights:
        try:
            w = read_weights(weights)
        except (OSError, WeightsFileError) as exc:
            raise TuneError(f"weights={weights}: {exc}") from None
        if w.variant.name != v.name:
            raise TuneError(f"weights={weights} holds {w.variant.name} weights, not {v.name}")
        return w
    shipped = shipped_weights(v)
    if shipped is None:
        raise TuneError(f"{v.name} ships no evaluation weights to tune: give --engine "
                        "weights=FILE")
    return shipped


def _is_scale(name: str) -> bool:
    term = eval_term(name)
    return term is not None and term[0].startswith(_SCALE_PREFIX)


def eval_value(weights: Weights, name: str) -> int:
    """The value of the evaluation parameter ``name`` (``eval.TERM.open|end``) in
    ``weights``; a table's scale is 100 (percent of the weights as they are)."""
    term = eval_term(name)
    if term is None:
        raise TuneError(f"{name} is not an evaluation weight")
    if term[0].startswith(_SCALE_PREFIX):
        return 100
    return weights.get(term[0])[term[1]]


def _table_spans(variant_index: int) -> dict[str, tuple[int, int]]:
    """Each table of :data:`SCALE_TABLES`: its first feature and its number of features
    in the weights (the terms come first, the side to move last)."""
    from damier._core import eval_layout

    layout = eval_layout(variant_index)
    first = len(layout["terms"])
    spans = {}
    for table, size in zip(SCALE_TABLES, (int(layout["patterns"]) * int(layout["pattern_states"]),
                                          int(layout["material_states"]),
                                          int(layout["big_features"])), strict=True):
        spans[table] = (first, size)
        first += size
    if first != int(layout["features"]) - 1:
        raise AssertionError(f"the weights' layout has {layout['features']} features, "
                             f"the tables end at {first} (+1 for the side to move)")
    return spans


def _scale_table(vector: array[int], base: array[int], span: tuple[int, int], part: int,
                 percent: float) -> None:
    """``vector``'s weights of one part (0 opening, 1 endgame) of a table: ``base``'s
    times ``percent / 100``, rounded, within int16."""
    first, size = span
    lo, hi = 2 * first + part, 2 * (first + size)
    try:
        import numpy as np
    except ImportError:      # numpy comes with the train extra; this is the slow way
        factor = percent / 100
        vector[lo:hi:2] = array("h", (max(-_WEIGHT_LIMIT, min(_WEIGHT_LIMIT, round(x * factor)))
                                      for x in base[lo:hi:2]))
        return
    values = np.frombuffer(base, dtype=np.int16)[lo:hi:2].astype(np.float64) * (percent / 100)
    scaled = np.clip(np.rint(values), -_WEIGHT_LIMIT, _WEIGHT_LIMIT).astype(np.int16)
    view = np.frombuffer(vector, dtype=np.int16)   # shares vector's memory
    view[lo:hi:2] = scaled


def eval_weights(base: Weights, values: dict[str, int | float]) -> Weights:
    """A copy of ``base`` with the evaluation weights among ``values`` (the search
    settings among them are left out); a table's scale multiplies ``base``'s weights of
    that table and part.

    >>> from damier.evalfile import Weights
    >>> w = eval_weights(Weights.material("english"), {"eval.king.end": 2500,
    ...                                                 "eval.scale.areas.open": 90})
    >>> w.get("king")
    (2400, 2500)
    """
    from damier.evalfile import Weights as _Weights

    w = _Weights(base.variant, array("h", base.vector))
    for name, value in values.items():
        term = eval_term(name)
        if term is None:
            continue
        if term[0].startswith(_SCALE_PREFIX):
            spans = _table_spans(base.variant.index)
            _scale_table(w.vector, base.vector, spans[term[0][len(_SCALE_PREFIX):]], term[1],
                         float(value))
            continue
        pair = list(w.get(term[0]))
        pair[term[1]] = int(round(value))
        w.set(term[0], pair[0], pair[1])
    return w


def _write_weights(w: Weights, path: Path) -> None:
    """Writes ``w`` uncompressed (a step's file is read at once; compressing 8 MB of
    big tables each step would cost more than the games), atomically."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(w.to_bytes(compress=False))
    os.replace(tmp, path)


def engine_without_weights(engine: str) -> str:
    """The engine options without ``weights=...`` (an evaluation tune gives each engine
    its own file)."""
    return ",".join(part for part in engine.split(",")
                    if part.strip() and part.partition("=")[0].strip() != "weights")


@dataclass(frozen=True)
class StepResult:
    """What one step's game pairs gave the "plus" engine."""

    wins: int
    draws: int
    losses: int


# plays the two engines' game pairs from the openings: (plus settings, minus settings,
# openings, seed) -> the plus engine's wins, draws and losses
PlayPairs = Callable[[dict[str, int | float], dict[str, int | float], list[list[str]], int],
                     StepResult]


@dataclass(frozen=True)
class TuneSettings:
    """The settings of a tune that its state keeps (a resumed tune must match them):
    the parameters, the game pairs in all and per step, the search limit of a move
    (``nodes`` or ``movetime``), the variant, the seed, and ``engine``: options both
    engines play with, as a ``damier:`` engine spec takes them (say
    ``"cont_history=1,hash=16"``; none of the tuned parameters, nor ``name``,
    ``nodes`` or ``movetime``, which the tune sets).

    >>> params = tuple(parse_params(["probcut_margin"]))
    >>> TuneSettings(params, pairs=10, nodes=1000, engine="cont_history=1").check()
    >>> TuneSettings(params, pairs=10, nodes=1000, engine="probcut_margin=90").check()
    Traceback (most recent call last):
    ...
    damier.tune.TuneError: --engine sets probcut_margin, a tuned parameter
    """

    params: tuple[TuneParam, ...]
    pairs: int
    batch: int = 2
    nodes: int | None = None
    movetime: float | None = None
    variant: str = DEFAULT_VARIANT
    seed: int = 1
    engine: str = ""
    adjudicate_draw: str | None = None
    """The games' draw rule (:class:`damier.match.adjudication.DrawAdjudication`'s
    text; None: none)."""
    adjudicate_loss: str | None = None
    """Their loss rule (:class:`~damier.match.adjudication.LossAdjudication`'s text)."""

    def check(self) -> None:
        if not self.params:
            raise TuneError("no parameters to tune")
        if self.pairs < 1 or self.batch < 1:
            raise TuneError("pairs and batch must be at least 1")
        if (self.nodes is None) == (self.movetime is None):
            raise TuneError("give a search limit a move: nodes or movetime (not both)")
        if self.nodes is not None and self.nodes < 1:
            raise TuneError("nodes must be at least 1")
        if self.movetime is not None and not (math.isfinite(self.movetime) and self.movetime > 0):
            raise TuneError("movetime must be a number of seconds > 0")
        get_variant(self.variant)
        for p in self.params:
            p.check()
        self.engine_options()
        self.adjudication()
        if self.tunes_eval:
            self.weights()

    def adjudication(self) -> Adjudication | None:
        """The rules the games are adjudicated by (None: none); :class:`TuneError`
        for a rule that does not read."""
        if self.adjudicate_draw is None and self.adjudicate_loss is None:
            return None
        try:
            return Adjudication(
                DrawAdjudication.parse(self.adjudicate_draw)
                if self.adjudicate_draw is not None else None,
                LossAdjudication.parse(self.adjudicate_loss)
                if self.adjudicate_loss is not None else None)
        except ValueError as exc:
            raise TuneError(str(exc)) from None

    @property
    def tunes_eval(self) -> bool:
        """Whether evaluation weights are among the parameters."""
        return any(eval_term(p.name) is not None for p in self.params)

    def weights(self) -> Weights:
        """The weights the evaluation parameters move (:func:`base_weights`)."""
        return base_weights(self.variant, self.engine_options().get("weights"))

    def engine_options(self) -> dict[str, Any]:
        """The options of ``engine``, read and checked (:class:`TuneError` names what
        is wrong)."""
        options = engine_options(self.engine)
        tuned = {p.name for p in self.params}
        for name in options:
            if name in tuned:
                raise TuneError(f"--engine sets {name}, a tuned parameter")
            if name in ("name", "nodes", "movetime"):
                raise TuneError(f"--engine sets {name}, which the tune sets itself")
        return options

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["params"] = [asdict(p) for p in self.params]
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> TuneSettings:
        params = tuple(TuneParam(**p) for p in d["params"])
        return TuneSettings(params=params, pairs=d["pairs"], batch=d["batch"], nodes=d["nodes"],
                            movetime=d["movetime"], variant=d["variant"], seed=d["seed"],
                            engine=d.get("engine", ""),
                            adjudicate_draw=d.get("adjudicate_draw"),
                            adjudicate_loss=d.get("adjudicate_loss"))


@dataclass
class Tuner:
    """A tune and its state file: :meth:`open` starts one or resumes it, :meth:`step`
    plays one step's pairs and moves ``theta``, :meth:`run` steps to the end.

    ``theta`` holds the current values (floats, in the order of the parameters),
    ``k`` the game pairs played, ``history`` ``[k, theta...]`` after each step."""

    path: Path
    settings: TuneSettings
    theta: list[float]
    k: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    history: list[list[float]] = field(default_factory=list)

    @staticmethod
    def open(path: str | os.PathLike[str], settings: TuneSettings | None) -> Tuner:
        """The tune of the state file ``path``: resumed when the file exists (then
        ``settings``, when given, must be the ones it holds), else a new one with
        ``settings``. Raises :class:`TuneError` for a bad or mismatched file."""
        p = Path(path)
        if p.exists():
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
                if data.get("version") != STATE_VERSION:
                    raise TuneError(f"{p}: not a tune state file of this version")
                stored = TuneSettings.from_json(data["settings"])
                stored.check()
                tuner = Tuner(p, stored, [float(x) for x in data["theta"]], int(data["k"]),
                              int(data["wins"]), int(data["draws"]), int(data["losses"]),
                              [list(map(float, h)) for h in data["history"]])
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError,
                    ValueError, AttributeError) as exc:
                if isinstance(exc, TuneError):
                    raise
                raise TuneError(f"{p}: not a readable tune state file ({exc})") from None
            if len(tuner.theta) != len(stored.params):
                raise TuneError(f"{p}: its values do not match its parameters")
            if settings is not None and settings != stored:
                changed = [k for k, v in settings.to_json().items() if stored.to_json()[k] != v]
                raise TuneError(f"{p} holds a tune with other settings ({', '.join(changed)}); "
                                "leave the settings out to resume it, or give another file")
            return tuner
        if settings is None:
            raise TuneError(f"{p} does not exist: give the settings of a new tune")
        if not p.parent.is_dir():
            raise TuneError(f"{p}: its directory {p.parent} does not exist")
        settings.check()
        return Tuner(p, settings, [q.start for q in settings.params])

    @property
    def done(self) -> bool:
        return self.k >= self.settings.pairs

    def values(self) -> dict[str, int | float]:
        """The current values as the engine takes them."""
        params = self.settings.params
        return engine_values(params, self.theta, [0] * len(params), [0.0] * len(params))

    def signs(self, k: int) -> list[int]:
        """The perturbation's signs at step ``k`` (the same on a resumed run)."""
        rng = random.Random(f"{self.settings.seed}:{k}")
        return [rng.choice((-1, 1)) for _ in self.settings.params]

    def step(self, play: PlayPairs, openings: Sequence[Sequence[str]]) -> StepResult:
        """Plays one step (``batch`` pairs, or what is left) and saves the state."""
        s = self.settings
        k = self.k
        pairs = min(s.batch, s.pairs - k)
        signs = self.signs(k)
        schedule = Schedule(s.pairs)
        c = [schedule.c_k(p, k) for p in s.params]
        plus = engine_values(s.params, self.theta, signs, c)
        minus = engine_values(s.params, self.theta, [-x for x in signs], c)
        chosen = [list(openings[(k + j) % len(openings)]) for j in range(pairs)]
        result = play(plus, minus, chosen, s.seed * 1_000_003 + k)
        if result.wins + result.draws + result.losses != 2 * pairs:
            raise TuneError(f"step at pair {k}: {2 * pairs} games expected, "
                            f"{result.wins + result.draws + result.losses} played")
        score = result.wins - result.losses
        for i, p in enumerate(s.params):
            moved = self.theta[i] + schedule.r_k(p, k) * c[i] * score * signs[i]
            self.theta[i] = min(p.high, max(p.low, moved))
        self.k += pairs
        self.wins += result.wins
        self.draws += result.draws
        self.losses += result.losses
        self.history.append([float(self.k)] + [round(t, 6) for t in self.theta])
        self.save()
        return result

    def save(self) -> None:
        """Writes the state file (a new file renamed over the old one)."""
        data = {"version": STATE_VERSION, "settings": self.settings.to_json(),
                "theta": self.theta, "k": self.k, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "history": self.history}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)

    def run(self, play: PlayPairs, openings: Sequence[Sequence[str]],
            on_step: Callable[[Tuner, StepResult], None] | None = None) -> None:
        """Steps until every pair is played (``on_step`` after each)."""
        if not openings:
            raise TuneError("no openings")
        while not self.done:
            result = self.step(play, openings)
            if on_step is not None:
                on_step(self, result)


def match_play_pairs(settings: TuneSettings, *, concurrency: int = 1,
                     hash_mb: int | None = None, workers: int | None = None,
                     address: str | None = None,
                     weights_dir: str | os.PathLike[str] | None = None) -> PlayPairs:
    """A :data:`PlayPairs` that plays damier's engine against itself with
    :func:`damier.match.run_match` (in this process, ``concurrency`` games at once; or,
    with ``workers`` or ``address``, each pair a Ray task: start Ray once before the tune,
    :func:`damier.raytasks.start_ray`, so that the steps share it), each engine with its
    settings and the tune's limit a move. When the tune moves evaluation weights, each
    step writes the two engines' weights files into ``weights_dir`` (``plus.bin`` and
    ``minus.bin``; they must be readable where the games are played, so not on a Ray
    cluster at ``address``). A game that could not be played stops the tune
    (:class:`TuneError`); Ctrl-C stops it (:class:`KeyboardInterrupt`), the step not
    counted."""
    from damier.match import run_match

    base: Weights | None = None
    files: dict[str, Path] = {}
    engine = settings.engine.strip()
    if settings.tunes_eval:
        if address is not None:
            raise TuneError("evaluation weights are tuned through files on this machine: "
                            "not on a Ray cluster (--address)")
        if weights_dir is None:
            raise TuneError("evaluation weights are tuned through files: give a directory "
                            "for them")
        directory = Path(weights_dir).resolve()
        if not directory.is_dir():
            raise TuneError(f"{directory}: no such directory for the weights files")
        if any(ch in str(directory) for ch in ",=:"):
            raise TuneError(f"{directory}: an engine spec cannot name a file in a directory "
                            "whose path holds ',', '=' or ':'")
        base = settings.weights()
        files = {side: directory / f"{side}.bin" for side in ("plus", "minus")}
        engine = engine_without_weights(engine)
    fixed = [f"nodes={settings.nodes}"] if settings.nodes is not None else []
    if hash_mb is not None:
        fixed.append(f"hash={hash_mb}")
    if engine:
        fixed.append(engine)

    def spec(side: str, values: dict[str, int | float]) -> str:
        search, weights = split_values(values)
        parts = [f"name={side}", *fixed]
        if search:
            parts.append(spec_options(search))
        if base is not None:
            _write_weights(eval_weights(base, weights), files[side])
            parts.append(f"weights={files[side]}")
        return "damier:" + ",".join(parts)

    def play(plus: dict[str, int | float], minus: dict[str, int | float],
             openings: list[list[str]], seed: int) -> StepResult:
        result = run_match(spec("plus", plus), spec("minus", minus),
                           games=2 * len(openings), movetime=settings.movetime,
                           openings=openings, shuffle_openings=False,
                           concurrency=concurrency, variant=settings.variant, progress=False,
                           seed=seed % (2 ** 31), workers=workers, address=address,
                           adjudication=settings.adjudication())
        if result.interrupted:
            raise KeyboardInterrupt
        if result.errors:
            raise TuneError("; ".join(result.errors))
        return StepResult(result.wins, result.draws, result.losses)

    return play
