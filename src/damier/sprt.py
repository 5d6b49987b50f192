"""Match statistics: game pairs, the pentanomial model, Elo and the SPRT.

Engine changes are tested the way engine developers do it: every opening is
played twice with the colours swapped (a game pair), a pair is the independent
unit, and a sequential test (SPRT) decides as soon as the games allow whether
the change is worth ``elo1`` or at most ``elo0`` Elo. This module holds all the
statistics of :mod:`damier.match` (and of anything else that counts game pairs:
a resumed match, or many machines merging their counts). It is pure Python
(standard library only).

Pentanomial counts
------------------
A game pair scores 0, 1/2, 1, 3/2 or 2 points for engine A; the counts of pairs
with each score are five numbers ``[LL, LD, DD+WL, WD, WW]``
(:func:`pentanomial_counts`):

>>> pentanomial_counts([2, 1, 1.5, 1, 0.5, 1])
(0, 1, 3, 1, 1)

Each pair's score is also read as the mean score of its two games, ``0, 1/4,
1/2, 3/4, 1`` (:data:`PAIR_SCORES`): :func:`mean_score` is their average, and
the Elo difference is the logistic one, ``elo = 400 log10(s / (1 - s))``
(:func:`elo_from_score`, :func:`score_from_elo`). :func:`elo_estimate` gives it
with its 95% interval (``mean +- 1.959964 * SE``, SE from the variance of the
pair scores, mapped through the same formula):

>>> est = elo_estimate([1, 1, 3, 3, 2])
>>> round(est.elo, 1), round(est.low, 1), round(est.high, 1)
(70.4, -60.3, 225.9)

The SPRT
--------
:class:`SPRT` is a generalized sequential probability ratio test (GSPRT) on the
pentanomial model. For each hypothesis (H0: the Elo difference is ``elo0``;
H1: it is ``elo1``) it takes the distribution of the five pair scores that is
most likely given the pairs seen, under the constraint that its mean is the
score of that Elo (:func:`constrained_mle`: the maximum-likelihood estimate of
a multinomial under a mean constraint, after M. Van den Bergh). The
log-likelihood ratio of the two is

    LLR = N * sum_i p_i * log(p1_i / p0_i)

with ``N`` pairs, ``p`` the empirical frequencies and ``p0``, ``p1`` the two
constrained estimates (:func:`llr`). The test accepts H1 when LLR reaches
``log((1 - beta) / alpha)`` and H0 when it falls to ``log(beta / (1 - alpha))``
(:func:`sprt_bounds`; about +-2.94 for alpha = beta = 0.05).

>>> test = SPRT(0, 10)
>>> test.add([5, 40, 60, 50, 10])
>>> test.summary(), test.decision
('LLR 0.97 (-2.94, 2.94) [0, 10]', None)
>>> test.add([15, 120, 180, 150, 30])  # pairs from elsewhere: the counts are merged
>>> test.summary(), test.decision
('LLR 3.90 (-2.94, 2.94) [0, 10]', 'H1')

For small Elo differences the LLR is close to the normal approximation
``N (s1 - s0) (2 s - s0 - s1) / (2 var)`` (``s`` the mean pair score, ``var``
the variance of the pair scores, ``s0``, ``s1`` the scores of elo0 and elo1).
The test weighs elo0 against elo1 only: when every pair is won, the
distributions with means ``s0`` and ``s1`` closest to that put about ``s0`` and
``s1`` of their weight on won pairs (the rest on lost ones), so each pair adds
only about ``log(s1 / s0)`` to the LLR (0.014 for [0, 5], 0.6 for [0, 400]);
choose elo0 and elo1 near the differences that matter.

Reporting: what a sample can measure
------------------------------------
:func:`trinomial_report`, :func:`pentanomial_report` and
:func:`normalized_report` give an Elo figure the way a match report shows it
(:class:`EloReport`): each number is None when the games cannot measure it,
and ``note`` says why. The rules, checked in this order:

1. no game (no complete pair): nothing is measured (``"no games"``, ``"no
   complete pairs"``);
2. every game won (lost): the score is 1 (0), the Elo would be infinite: the
   Elo is not measurable, nor its interval (``"all games won"``, ``"all games
   lost"``);
3. fewer than :data:`MIN_GAMES` games (trinomial) or :data:`MIN_PAIRS` pairs
   (pentanomial, nElo): the Elo is given, its interval is not (``"not enough
   games (4 of at least 20)"``): the normal approximation behind the interval
   needs more results than that, and each game moves the score by 5% or more;
   the normalized Elo is not given at all (its unit, the spread of the pairs,
   would come from those few pairs);
4. no spread (every game drawn; every pair scoring the same): the standard
   error is 0, so there is no interval (``"all games drawn"``, ``"every pair
   scored 1 point"``); the normalized Elo is not measurable then (its unit is
   the spread);
5. an end of the score interval at or beyond 0 or 1: that end has no Elo (it
   is None, ``"the interval reaches a score of 100%"``); the other end is given.

The likelihood of superiority (LOS: the probability that A is the stronger,
from the normal approximation) is given only where the interval is (rules
1-4): :func:`los_trinomial` for games, ``Phi((W - L) / sqrt(W + L))`` (draws say
nothing about which side is stronger), and :func:`los_pentanomial` for pairs,
``Phi((s - 1/2) / SE)`` with the pentanomial standard error.

Degenerate cases
----------------
No pairs: the LLR is 0 and there is no decision; the score and Elo are nan.
Empty cells (a count of 0) would make some hypotheses impossible (with only
draws seen, no distribution with another mean is "closest"), so before the
estimate every count of 0 is replaced by :data:`REGULARIZATION` (0.001 of a
pair) in the frequencies ``p``; ``N`` stays the real number of pairs. With all
pairs equal the variance is 0: the interval is a point, the normalized Elo is
nan, and the LLR is finite (and moves slowly, as above).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "PAIR_SCORES",
    "REGULARIZATION",
    "Z95",
    "MAX_SPRT_ELO",
    "MIN_GAMES",
    "MIN_PAIRS",
    "EloEstimate",
    "EloReport",
    "SPRT",
    "constrained_mle",
    "elo_estimate",
    "elo_from_score",
    "llr",
    "los_pentanomial",
    "los_trinomial",
    "mean_score",
    "normalized_elo",
    "normalized_report",
    "pair_variance",
    "pentanomial_counts",
    "pentanomial_interval",
    "pentanomial_report",
    "score_from_elo",
    "sprt_bounds",
    "trinomial_interval",
    "trinomial_report",
]

PAIR_SCORES: tuple[float, float, float, float, float] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The mean game score of a pair scoring 0, 1/2, 1, 3/2, 2 points."""
REGULARIZATION = 1e-3
"""What an empty cell counts for in the frequencies of the SPRT's estimates."""
Z95 = statistics.NormalDist().inv_cdf(0.975)
"""1.959964...: the two-sided 95% quantile of the normal distribution."""
NELO_PER_SIGMA = 800.0 / math.log(10.0)
"""347.4...: normalized Elo per standard deviation of the per-game score."""

Counts = tuple[int, int, int, int, int]


# -- Elo and scores ---------------------------------------------------------------------------


def elo_from_score(score: float) -> float:
    """The logistic Elo difference of a score (fraction of the points):
    ``-400 * log10(1/score - 1)``; +-inf at 1 and 0, nan for nan.

    >>> round(elo_from_score(0.75), 1), elo_from_score(0.5), elo_from_score(1.0)
    (190.8, 0.0, inf)
    """
    if math.isnan(score):
        return math.nan
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))  # = -400 log10(1/score - 1)


def score_from_elo(elo: float) -> float:
    """The expected score of an Elo difference (logistic): ``1 / (1 + 10**(-elo/400))``.

    >>> score_from_elo(0), round(score_from_elo(190.849), 4), score_from_elo(-math.inf)
    (0.5, 0.75, 0.0)
    """
    if math.isnan(elo):
        return math.nan
    exponent = -elo / 400.0 * math.log(10.0)
    if exponent > 700.0:  # exp would overflow: the score is 0 to double precision
        return 0.0
    return 1.0 / (1.0 + math.exp(exponent))


def _interval(mean: float, se: float, z: float) -> tuple[float, float]:
    return elo_from_score(mean - z * se), elo_from_score(mean + z * se)


def _check_counts(counts: Sequence[float]) -> list[float]:
    if isinstance(counts, (str, bytes)) or len(counts) != 5:
        raise ValueError("pentanomial counts are five numbers (pairs scoring 0, 1/2, 1, 3/2, 2)")
    values = [float(c) for c in counts]
    if any(not c >= 0 or math.isinf(c) for c in values):
        raise ValueError(f"pentanomial counts must be finite and not negative, got {list(counts)}")
    return values


# -- pentanomial counts ---------------------------------------------------------------------


def pentanomial_counts(pair_scores: Iterable[float]) -> Counts:
    """The pentanomial counts of game-pair scores (points of A in each pair:
    0, 0.5, 1, 1.5 or 2).

    >>> pentanomial_counts([0, 0.5, 1, 1, 2, 2, 2])
    (1, 1, 2, 0, 3)
    >>> pentanomial_counts([0.7])
    Traceback (most recent call last):
    ...
    ValueError: a game pair scores 0, 0.5, 1, 1.5 or 2 points, not 0.7
    """
    counts = [0, 0, 0, 0, 0]
    for score in pair_scores:
        index = 2 * float(score)
        if index not in (0.0, 1.0, 2.0, 3.0, 4.0):
            raise ValueError(f"a game pair scores 0, 0.5, 1, 1.5 or 2 points, not {score}")
        counts[int(index)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def mean_score(counts: Sequence[float]) -> float:
    """A's mean score per game over the pairs (nan with no pair).

    >>> mean_score([1, 1, 3, 3, 2]), mean_score([0, 0, 0, 0, 0])
    (0.6, nan)
    """
    values = _check_counts(counts)
    pairs = sum(values)
    if pairs == 0:
        return math.nan
    return sum(c * v for c, v in zip(values, PAIR_SCORES, strict=True)) / pairs


def pair_variance(counts: Sequence[float]) -> float:
    """The variance of the pair scores (each the mean score of its two games),
    over the pairs (the population variance; nan with no pair).

    >>> round(pair_variance([1, 1, 3, 3, 2]), 6)
    0.09
    """
    values = _check_counts(counts)
    pairs = sum(values)
    if pairs == 0:
        return math.nan
    s = sum(c * v for c, v in zip(values, PAIR_SCORES, strict=True)) / pairs
    return sum(c * (v - s) ** 2 for c, v in zip(values, PAIR_SCORES, strict=True)) / pairs


def trinomial_interval(wins: int, draws: int, losses: int, *,
                       z: float = Z95) -> tuple[float, float]:
    """The Elo interval from the per-game (trinomial) standard error of the score
    (for games not played in complete pairs).

    >>> lo, hi = trinomial_interval(50, 100, 50)
    >>> round(lo, 1), round(hi, 1)
    (-34.2, 34.2)
    """
    n = wins + draws + losses
    if n == 0:
        return (math.nan, math.nan)
    s = (wins + 0.5 * draws) / n
    var = (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n
    return _interval(s, math.sqrt(var / n), z)


def pentanomial_interval(counts: Sequence[float], *, z: float = Z95) -> tuple[float, float]:
    """The Elo interval from the pentanomial standard error: ``counts`` are the
    numbers of game pairs in which A scored 0, 1/2, 1, 3/2 and 2 points.

    >>> lo, hi = pentanomial_interval([0, 50, 0, 50, 0])
    >>> round(lo, 1), round(hi, 1)
    (-34.2, 34.2)
    """
    values = _check_counts(counts)
    pairs = sum(values)
    if pairs == 0:
        return (math.nan, math.nan)
    return _interval(mean_score(values), math.sqrt(pair_variance(values) / pairs), z)


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its interval (``low``, ``high``) at ``confidence``."""

    elo: float
    low: float
    high: float
    confidence: float = 0.95

    def __str__(self) -> str:
        return f"{format_elo(self.elo)} [{format_elo(self.low)}, {format_elo(self.high)}]"


def format_elo(value: float, digits: int = 1) -> str:
    """An Elo difference for people: signed, ``n/a`` or ``+inf``/``-inf``.

    >>> format_elo(12.345), format_elo(float("nan")), format_elo(-float("inf"))
    ('+12.3', 'n/a', '-inf')
    """
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.{digits}f}"


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return statistics.NormalDist().inv_cdf(0.5 + confidence / 2.0)


def elo_estimate(counts: Sequence[float], *, confidence: float = 0.95) -> EloEstimate:
    """The logistic Elo difference of pentanomial counts and its interval
    (:func:`pentanomial_interval`).

    >>> str(elo_estimate([0, 50, 0, 50, 0]))
    '+0.0 [-34.2, +34.2]'
    >>> str(elo_estimate([0, 0, 0, 0, 0]))
    'n/a [n/a, n/a]'
    """
    values = _check_counts(counts)
    low, high = pentanomial_interval(values, z=_z(confidence))
    return EloEstimate(elo_from_score(mean_score(values)), low, high, confidence)


def normalized_elo(counts: Sequence[float], *, confidence: float = 0.95) -> EloEstimate:
    """The normalized Elo of pentanomial counts and its interval:
    ``(800 / ln 10) * (s - 1/2) / sigma``, with ``s`` the mean score and
    ``sigma = sqrt(2) * SD(pair scores)`` the per-game standard deviation that
    the pairs show. It measures the difference in units of the noise, so it
    does not depend on how drawish the games are; nan when the pairs have no
    spread (all equal) or there is no pair.

    >>> est = normalized_elo([0, 50, 0, 50, 0])
    >>> est.elo, round(est.low, 1), round(est.high, 1)
    (0.0, -48.2, 48.2)
    """
    values = _check_counts(counts)
    pairs = sum(values)
    z = _z(confidence)
    var = pair_variance(values)
    if pairs == 0 or not var > 0:
        return EloEstimate(math.nan, math.nan, math.nan, confidence)
    sigma = math.sqrt(2.0 * var)
    s = mean_score(values)
    se = math.sqrt(var / pairs)

    def nelo(score: float) -> float:
        return NELO_PER_SIGMA * (score - 0.5) / sigma

    return EloEstimate(nelo(s), nelo(s - z * se), nelo(s + z * se), confidence)


# -- the likelihood of superiority -------------------------------------------------------------


def los_trinomial(wins: int, draws: int, losses: int) -> float:
    """The likelihood of superiority of games: ``Phi((W - L) / sqrt(W + L))``,
    i.e. ``(1 + erf((W - L) / sqrt(2 (W + L)))) / 2`` (draws do not count);
    nan with no decisive game.

    >>> round(los_trinomial(6, 12, 2), 4), los_trinomial(3, 0, 3), los_trinomial(0, 5, 0)
    (0.9214, 0.5, nan)
    """
    decisive = wins + losses
    if decisive == 0:
        return math.nan
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * decisive)))


def los_pentanomial(counts: Sequence[float]) -> float:
    """The likelihood of superiority of game pairs: ``Phi((s - 1/2) / SE)``, ``s``
    the mean score and ``SE`` its pentanomial standard error (as in
    :func:`pentanomial_interval`); nan with no pair or no spread.

    >>> los_pentanomial([0, 50, 0, 50, 0]), round(los_pentanomial([1, 2, 3, 2, 2]), 4)
    (0.5, 0.6937)
    """
    values = _check_counts(counts)
    pairs = sum(values)
    if pairs == 0:
        return math.nan
    var = pair_variance(values)
    if not var > 0:
        return math.nan
    return statistics.NormalDist().cdf((mean_score(values) - 0.5) / math.sqrt(var / pairs))


# -- reports: what a sample can measure ----------------------------------------------------------

MIN_GAMES = 20
"""The fewest games for which a trinomial interval (and LOS) is reported."""
MIN_PAIRS = 10
"""The fewest complete game pairs for which a pentanomial interval, the normalized
Elo's interval and the pentanomial LOS are reported (the same 20 games)."""


@dataclass(frozen=True)
class EloReport:
    """An Elo figure as a match report gives it: each number is None where the
    games cannot measure it, and ``note`` says why (the rules are in the module
    documentation). ``low``/``high`` of None with ``has_interval`` true is an
    end with no bound.

    >>> str(trinomial_report(6, 12, 2))
    '+70.4 [-21.9, +174.1]'
    >>> report = trinomial_report(4, 0, 0)
    >>> report.elo, report.note, str(report)
    (None, 'all games won', 'not measurable (all games won)')
    >>> str(trinomial_report(3, 1, 0))
    '+338.0, no interval (not enough games (4 of at least 20))'
    """

    elo: float | None
    low: float | None
    high: float | None
    has_interval: bool
    los: float | None = None
    """The likelihood of superiority (0 to 1), where the interval is measured."""
    note: str | None = None
    """Why a figure is missing (None: all are there)."""
    confidence: float = 0.95

    def interval_text(self) -> str:
        """``[low, high]``, with ``no lower bound``/``no upper bound`` for an open end,
        or ``not measurable``."""
        if not self.has_interval:
            return "not measurable"
        low = format_elo(self.low) if self.low is not None else "no lower bound"
        high = format_elo(self.high) if self.high is not None else "no upper bound"
        return f"[{low}, {high}]"

    def __str__(self) -> str:
        if self.elo is None:
            return f"not measurable ({self.note})"
        if not self.has_interval:
            return f"{format_elo(self.elo)}, no interval ({self.note})"
        return f"{format_elo(self.elo)} {self.interval_text()}"

    def to_dict(self) -> dict[str, float | str | None]:
        """``elo``, ``low``, ``high``, ``los`` (None where not measured) and ``note``."""
        return {"elo": self.elo, "low": self.low, "high": self.high, "los": self.los,
                "note": self.note}


def _report(n: float, minimum: int, unit: str, score: float, var: float, *, same: str,
            confidence: float, value: Callable[[float], float] | None = None,
            los: Callable[[], float] | None = None) -> EloReport:
    """The rules of the module documentation on a sample of ``n`` results (games or
    pairs) with mean ``score`` and variance ``var`` (of one result). ``value`` maps
    a score to the figure (the logistic Elo unless given: then the figure is bounded
    for every score); ``los()`` gives the LOS."""
    z = _z(confidence)
    if score >= 1.0 or score <= 0.0:
        return EloReport(None, None, None, False, note="all games won" if score >= 1.0
                         else "all games lost", confidence=confidence)
    logistic = value is None
    to_figure: Callable[[float], float] = elo_from_score if value is None else value
    elo = to_figure(score)
    if n < minimum:
        count = int(n) if float(n).is_integer() else n
        return EloReport(elo, None, None, False,
                         note=f"not enough {unit} ({count} of at least {minimum})",
                         confidence=confidence)
    if not var > 0:
        return EloReport(elo, None, None, False, note=same, confidence=confidence)
    se = math.sqrt(var / n)
    low_score, high_score = score - z * se, score + z * se
    low: float | None = to_figure(low_score)
    high: float | None = to_figure(high_score)
    notes = []
    if logistic and low_score <= 0.0:
        low = None
        notes.append("the interval reaches a score of 0%")
    if logistic and high_score >= 1.0:
        high = None
        notes.append("the interval reaches a score of 100%")
    return EloReport(elo, low, high, True, los=los() if los is not None else None,
                     note="; ".join(notes) or None, confidence=confidence)


def trinomial_report(wins: int, draws: int, losses: int, *,
                     confidence: float = 0.95) -> EloReport:
    """The logistic Elo of games (wins, draws and losses of A) with its trinomial
    interval and LOS (:func:`los_trinomial`), under the reporting rules of the
    module documentation.

    >>> trinomial_report(0, 0, 0).note, trinomial_report(0, 20, 0).note
    ('no games', 'all games drawn')
    """
    n = wins + draws + losses
    if n == 0:
        return EloReport(None, None, None, False, note="no games", confidence=confidence)
    s = (wins + 0.5 * draws) / n
    var = (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n
    return _report(n, MIN_GAMES, "games", s, var, same="all games drawn",
                   confidence=confidence, los=lambda: los_trinomial(wins, draws, losses))


def _points_text(points: float) -> str:
    return f"{points:g} point{'' if points == 1 else 's'}"


def pentanomial_report(counts: Sequence[float], *, confidence: float = 0.95) -> EloReport:
    """The logistic Elo of game pairs (pentanomial counts) with its pentanomial
    interval and LOS (:func:`los_pentanomial`), under the reporting rules of the
    module documentation.

    >>> str(pentanomial_report([1, 2, 3, 2, 2]))
    '+34.9 [-102.6, +184.9]'
    >>> pentanomial_report([0, 0, 12, 0, 0]).note
    'every pair scored 1 point'
    """
    values = _check_counts(counts)
    pairs = sum(values)
    if pairs == 0:
        return EloReport(None, None, None, False, note="no complete pairs",
                         confidence=confidence)
    s = mean_score(values)
    return _report(pairs, MIN_PAIRS, "pairs", s, pair_variance(values),
                   same=f"every pair scored {_points_text(2 * s)}", confidence=confidence,
                   los=lambda: los_pentanomial(values))


def normalized_report(counts: Sequence[float], *, confidence: float = 0.95) -> EloReport:
    """The normalized Elo of game pairs (:func:`normalized_elo`) under the reporting
    rules of the module documentation (it has no LOS of its own: that of
    :func:`pentanomial_report` is the same).

    >>> str(normalized_report([1, 2, 3, 2, 2]))
    '+39.3 [-112.9, +191.6]'
    >>> normalized_report([0, 0, 12, 0, 0]).note, normalized_report([0, 1, 1, 1, 0]).note
    ('every pair scored 1 point', 'not enough pairs (3 of at least 10)')
    """
    values = _check_counts(counts)
    pairs = sum(values)
    if pairs == 0:
        return EloReport(None, None, None, False, note="no complete pairs",
                         confidence=confidence)
    s, var = mean_score(values), pair_variance(values)
    # the unit of the normalized Elo is the spread of the pairs: with none, or from too
    # few pairs, there is no figure
    note = None
    if s >= 1.0 or s <= 0.0:
        note = "all games won" if s >= 1.0 else "all games lost"
    elif pairs < MIN_PAIRS:
        note = f"not enough pairs ({pairs:g} of at least {MIN_PAIRS})"
    elif not var > 0:
        note = f"every pair scored {_points_text(2 * s)}"
    if note is not None:
        return EloReport(None, None, None, False, note=note, confidence=confidence)
    sigma = math.sqrt(2.0 * var)

    def nelo(score: float) -> float:
        return NELO_PER_SIGMA * (score - 0.5) / sigma

    return _report(pairs, MIN_PAIRS, "pairs", s, var, same="", confidence=confidence,
                   value=nelo)


# -- the generalized SPRT -------------------------------------------------------------------


def constrained_mle(probs: Sequence[float], values: Sequence[float], mean: float
                    ) -> list[float]:
    """The distribution on ``values`` with mean ``mean`` that is most likely for
    the observed frequencies ``probs`` (it maximizes ``sum probs_i log q_i``).

    It is ``q_i = probs_i / (1 + mu * (values_i - mean))``, with ``mu`` the one
    root of ``sum probs_i (values_i - mean) / (1 + mu (values_i - mean)) = 0``
    where every denominator is positive (found by Newton's method, kept within
    the bracket by bisection). ``mean`` must lie strictly between the smallest
    and the largest value of positive frequency (or equal the observed mean).

    >>> [round(q, 6) for q in constrained_mle([0, 0.5, 0, 0.5, 0], PAIR_SCORES, 0.55)]
    [0.0, 0.4, 0.0, 0.6, 0.0]
    """
    if len(probs) != len(values) or not probs:
        raise ValueError("probs and values must have the same, non-zero length")
    total = math.fsum(probs)
    if not total > 0 or any(not p >= 0 for p in probs):
        raise ValueError(f"probs must be non-negative and not all zero, got {list(probs)}")
    p = [x / total for x in probs]
    d = [v - mean for v in values]
    support = [di for pi, di in zip(p, d, strict=True) if pi > 0]
    if math.fsum(pi * di for pi, di in zip(p, d, strict=True)) == 0.0:
        return p
    d_max, d_min = max(support), min(support)
    if not (d_max > 0 > d_min):
        raise ValueError(f"no distribution with mean {mean} on the observed values")
    # f(mu) decreases from +inf at mu = -1/d_max to -inf at mu = -1/d_min.
    lo, hi = -1.0 / d_max, -1.0 / d_min

    def f(mu: float) -> tuple[float, float]:
        value = slope = 0.0
        for pi, di in zip(p, d, strict=True):
            if pi > 0:
                r = di / (1.0 + mu * di)
                value += pi * r
                slope -= pi * r * r
        return value, slope

    mu = 0.0
    for _ in range(200):
        value, slope = f(mu)
        if value > 0:
            lo = mu
        else:
            hi = mu
        if abs(value) < 1e-15 or hi - lo < 1e-15 * max(1.0, abs(mu)):
            break
        step = mu - value / slope if slope < 0 else math.nan
        mu = step if lo < step < hi else (lo + hi) / 2.0
    q = [pi / (1.0 + mu * di) for pi, di in zip(p, d, strict=True)]
    norm = math.fsum(q)
    return [x / norm for x in q]


def _regularized(counts: Sequence[float]) -> list[float]:
    values = _check_counts(counts)
    return [c if c > 0 else REGULARIZATION for c in values]


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``)
    for the pentanomial ``counts`` (logistic Elo; see the module documentation).

    >>> llr([0, 0, 0, 0, 0], 0, 5)
    0.0
    >>> abs(llr([10, 40, 60, 40, 10], -5, 5)) < 1e-9  # symmetric: H0 and H1 equally likely
    True
    >>> llr([10, 40, 60, 40, 20], 0, 5) > 0 > llr([20, 40, 60, 40, 10], 0, 5)
    True
    """
    values = _check_counts(counts)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    if not (0.0 < s0 < 1.0 and 0.0 < s1 < 1.0):
        raise ValueError(f"the Elo differences of an SPRT must be finite, got {elo0}, {elo1}")
    pairs = sum(values)
    if pairs == 0:
        return 0.0
    reg = _regularized(values)
    total = sum(reg)
    p = [c / total for c in reg]
    p0 = constrained_mle(p, PAIR_SCORES, s0)
    p1 = constrained_mle(p, PAIR_SCORES, s1)
    return pairs * math.fsum(pi * math.log(b / a) for pi, a, b in zip(p, p0, p1, strict=True))


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """The SPRT's LLR bounds: H0 is accepted at or below the first, H1 at or
    above the second.

    >>> [round(b, 4) for b in sprt_bounds(0.05, 0.05)]
    [-2.9444, 2.9444]
    """
    _check_error_rate("alpha", alpha)
    _check_error_rate("beta", beta)
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _check_error_rate(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number between 0 and 0.5, got {value!r}")
    if not 0.0 < value < 0.5:
        raise ValueError(f"{name} must be between 0 and 0.5 (exclusive), got {value}")
    return float(value)


MAX_SPRT_ELO = 1000.0
"""The largest Elo difference (either sign) an SPRT hypothesis may name."""


def _check_elo(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number of Elo, got {value!r}")
    if abs(value) > MAX_SPRT_ELO:
        raise ValueError(f"{name} must be between -{MAX_SPRT_ELO:g} and {MAX_SPRT_ELO:g} Elo, "
                         f"got {value:g}")
    return float(value)


def _number_text(value: float) -> str:
    return f"{value:g}"


class SPRT:
    """A sequential test of H0 (the Elo difference is ``elo0``) against H1 (it
    is ``elo1``), with error rates ``alpha`` (accepting H1 when H0 holds) and
    ``beta`` (accepting H0 when H1 holds).

    Its whole state is the pentanomial counts (and its parameters): a local
    match, a resumed one and runs on other machines share it by merging counts
    (:meth:`add`), and :meth:`to_dict`/:meth:`from_dict` store it as JSON.

    >>> test = SPRT(0, 5)
    >>> test.add_pair(2); test.add_pair(1.5); test.add([0, 1, 2, 0, 0])
    >>> test.counts, test.pairs, test.decision
    ((0, 1, 2, 1, 1), 5, None)
    >>> SPRT.from_dict(test.to_dict()).counts == test.counts
    True
    >>> SPRT(5, 5)
    Traceback (most recent call last):
    ...
    ValueError: elo1 must be greater than elo0, got elo0=5, elo1=5
    """

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                 counts: Sequence[int] | None = None) -> None:
        self.elo0 = _check_elo("elo0", elo0)
        self.elo1 = _check_elo("elo1", elo1)
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 must be greater than elo0, got elo0={elo0:g}, "
                             f"elo1={elo1:g}")
        self.alpha = _check_error_rate("alpha", alpha)
        self.beta = _check_error_rate("beta", beta)
        self._counts: list[int] = [0, 0, 0, 0, 0]
        if counts is not None:
            self.add(counts)

    # state

    @property
    def counts(self) -> Counts:
        """Pairs in which A scored 0, 1/2, 1, 3/2, 2 points: ``[LL, LD, DD+WL, WD, WW]``."""
        c = self._counts
        return c[0], c[1], c[2], c[3], c[4]

    @property
    def pairs(self) -> int:
        return sum(self._counts)

    def add(self, counts: Sequence[int] | SPRT) -> None:
        """Adds pentanomial counts (five whole numbers, or another SPRT's counts)."""
        if isinstance(counts, SPRT):
            counts = counts.counts
        if isinstance(counts, (str, bytes)) or len(counts) != 5:
            raise ValueError("pentanomial counts are five numbers (pairs scoring 0, 1/2, 1, "
                             "3/2, 2)")
        for c in counts:
            if isinstance(c, bool) or not isinstance(c, int) or c < 0:
                raise ValueError(f"pentanomial counts are whole numbers >= 0, got {list(counts)}")
        for i, c in enumerate(counts):
            self._counts[i] += c

    def add_pair(self, points: float) -> None:
        """Counts one game pair in which A scored ``points`` (0, 0.5, 1, 1.5 or 2)."""
        self.add(pentanomial_counts([points]))

    def add_pairs(self, points: Iterable[float]) -> SPRT | None:
        """Counts game pairs in order, each as :meth:`add_pair`, and returns a copy of
        the test as it stood when one of them decided it (the first to take the LLR to
        a bound): the decision of a sequential test, which the pairs after it do not
        undo. None when the test had decided before these pairs, or none decides it.

        >>> test = SPRT(0, 400)
        >>> at = test.add_pairs([2, 2, 2, 2, 2, 1, 0.5])
        >>> at.pairs, at.decision, test.pairs, test.decision
        (5, 'H1', 7, None)
        """
        decided = self.decision is not None
        at: SPRT | None = None
        for p in points:
            self.add_pair(p)
            if not decided and self.decision is not None:
                at, decided = self.copy(), True
        return at

    def copy(self) -> SPRT:
        """A copy of the test with its counts.

        >>> SPRT(0, 5, counts=[0, 1, 2, 3, 0]).copy()
        SPRT(elo0=0, elo1=5, alpha=0.05, beta=0.05, counts=[0, 1, 2, 3, 0])
        """
        return SPRT(self.elo0, self.elo1, self.alpha, self.beta, counts=self.counts)

    # the test

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 (:func:`llr`)."""
        return llr(self._counts, self.elo0, self.elo1)

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower, upper)``: H0 is accepted at or below lower, H1 at or above upper."""
        return sprt_bounds(self.alpha, self.beta)

    @property
    def decision(self) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted) or None (play on)."""
        if self.pairs == 0:
            return None
        value = self.llr
        lower, upper = self.bounds
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"
        return None

    @property
    def elo(self) -> EloEstimate:
        """The Elo difference of the counts with its 95% interval."""
        return elo_estimate(self._counts)

    def summary(self) -> str:
        """One line: ``LLR value (lower, upper) [elo0, elo1]``.

        >>> SPRT(0, 5).summary()
        'LLR 0.00 (-2.94, 2.94) [0, 5]'
        """
        lower, upper = self.bounds
        return (f"LLR {self.llr:.2f} ({lower:.2f}, {upper:.2f}) "
                f"[{_number_text(self.elo0)}, {_number_text(self.elo1)}]")

    def decision_text(self) -> str:
        """The decision in words."""
        decision = self.decision
        if decision == "H1":
            return f"H1 accepted (elo1 = {_number_text(self.elo1)})"
        if decision == "H0":
            return f"H0 accepted (elo0 = {_number_text(self.elo0)})"
        return "no decision yet"

    # storage

    def to_dict(self) -> dict[str, Any]:
        """The test as JSON-ready data (what :meth:`from_dict` reads)."""
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "counts": list(self._counts)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SPRT:
        """The test stored by :meth:`to_dict`; ValueError for bad data."""
        try:
            return cls(data["elo0"], data["elo1"], data.get("alpha", 0.05),
                       data.get("beta", 0.05), counts=list(data.get("counts", [0] * 5)))
        except (KeyError, TypeError) as err:
            raise ValueError(f"not an SPRT: {err}") from None

    def same_test(self, other: SPRT) -> bool:
        """Whether ``other`` tests the same hypotheses with the same error rates."""
        return (self.elo0, self.elo1, self.alpha, self.beta) == (
            other.elo0, other.elo1, other.alpha, other.beta)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SPRT):
            return NotImplemented
        return self.same_test(other) and self.counts == other.counts

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (f"SPRT(elo0={_number_text(self.elo0)}, elo1={_number_text(self.elo1)}, "
                f"alpha={_number_text(self.alpha)}, beta={_number_text(self.beta)}, "
                f"counts={list(self._counts)})")
