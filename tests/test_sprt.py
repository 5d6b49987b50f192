"""The match statistics and the pentanomial GSPRT (damier.sprt).

Expected values come from hand computation, from an independent formula (the
normal approximation of the LLR) or from the error rates the test promises
(seeded simulations); none is produced by the code under test.
"""

from __future__ import annotations

import json
import math
import random

import pytest

from damier import match as match_module
from damier.sprt import (MIN_GAMES, MIN_PAIRS, PAIR_SCORES, SPRT, constrained_mle, elo_estimate,
                         elo_from_score, llr, los_pentanomial, los_trinomial, mean_score,
                         normalized_elo, normalized_report, pair_variance, pentanomial_counts,
                         pentanomial_interval, pentanomial_report, score_from_elo, sprt_bounds,
                         trinomial_interval, trinomial_report)


def logistic_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def normal_llr(counts: list[int], elo0: float, elo1: float) -> float:
    """The normal approximation of the LLR, written out independently of damier.sprt:
    N (s1 - s0) (2 s - s0 - s1) / (2 var), over the per-pair mean scores."""
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    n = sum(counts)
    s = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    var = sum(c * (v - s) ** 2 for c, v in zip(counts, values, strict=True)) / n
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)


def tilted(base: list[float], target_mean: float) -> list[float]:
    """``base`` exponentially tilted to have mean ``target_mean`` (bisection on the tilt)."""
    values = [0.0, 0.25, 0.5, 0.75, 1.0]

    def dist(t: float) -> list[float]:
        w = [b * math.exp(t * v) for b, v in zip(base, values, strict=True)]
        total = sum(w)
        return [x / total for x in w]

    lo, hi = -50.0, 50.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(p * v for p, v in zip(dist(mid), values, strict=True)) < target_mean:
            lo = mid
        else:
            hi = mid
    return dist((lo + hi) / 2)


# -- counts, scores, Elo --------------------------------------------------------------------


def test_pentanomial_counts_from_pair_scores() -> None:
    assert pentanomial_counts([0, 0.5, 1, 1.5, 2, 2, 1.0]) == (1, 1, 2, 1, 2)
    assert pentanomial_counts([]) == (0, 0, 0, 0, 0)
    for bad in (0.25, 2.5, -0.5, math.nan):
        with pytest.raises(ValueError, match="scores 0, 0.5, 1, 1.5 or 2"):
            pentanomial_counts([bad])


def test_mean_variance_and_elo_hand_computed() -> None:
    # pairs 1, 1, 3, 3, 2 at per-game scores 0, .25, .5, .75, 1:
    # mean (0 + .25 + 1.5 + 2.25 + 2) / 10 = 0.6;
    # variance (.36 + .1225 + 3 * .01 + 3 * .0225 + 2 * .16) / 10 = 0.09
    counts = [1, 1, 3, 3, 2]
    assert mean_score(counts) == pytest.approx(0.6)
    assert pair_variance(counts) == pytest.approx(0.09)
    est = elo_estimate(counts)
    assert est.elo == pytest.approx(400 * math.log10(0.6 / 0.4))  # 70.437
    # SE = 0.3 / sqrt(10); score interval 0.6 -+ 1.959964 * SE = [0.41406, 0.78594]
    assert est.low == pytest.approx(400 * math.log10(0.41406 / 0.58594), abs=0.02)
    assert est.high == pytest.approx(400 * math.log10(0.78594 / 0.21406), abs=0.02)
    # normalized Elo: (800 / ln 10) * (0.6 - 0.5) / sqrt(2 * 0.09) = 81.89
    assert normalized_elo(counts).elo == pytest.approx(800 / math.log(10) * 0.1 / math.sqrt(0.18))
    # a 90% interval is narrower than the 95% one
    narrow = elo_estimate(counts, confidence=0.90)
    assert est.low < narrow.low < narrow.elo < narrow.high < est.high


def phi(x: float) -> float:
    """The standard normal distribution function, from erf (not from damier)."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def test_counts_1_2_3_2_2_hand_computed() -> None:
    """[LL, LD, DD+WL, WD, WW] = [1, 2, 3, 2, 2]: N = 10 pairs, per-pair mean scores
    0, 1/4, 1/2, 3/4, 1."""
    counts = [1, 2, 3, 2, 2]
    # mean (1*0 + 2*.25 + 3*.5 + 2*.75 + 2*1) / 10 = (0 + .5 + 1.5 + 1.5 + 2) / 10 = 0.55
    assert mean_score(counts) == pytest.approx(0.55)
    # deviations -.55, -.30, -.05, .20, .45; squares .3025, .09, .0025, .04, .2025
    # variance (.3025 + 2*.09 + 3*.0025 + 2*.04 + 2*.2025) / 10 = .975 / 10 = .0975
    assert pair_variance(counts) == pytest.approx(0.0975)
    # Elo = -400 log10(1/.55 - 1) = -400 log10(.818182) = +34.860
    est = elo_estimate(counts)
    assert est.elo == pytest.approx(-400 * math.log10(1 / 0.55 - 1))
    assert est.elo == pytest.approx(34.860, abs=1e-3)
    # SE = sqrt(.0975 / 10) = .0987421; 1.959964 * SE = .193531
    # score interval [.356469, .743531]
    # low  = -400 log10(1/.356469 - 1) = -400 log10(1.805291) = -102.62
    # high = -400 log10(1/.743531 - 1) = -400 log10(0.344934) = +184.91
    assert est.low == pytest.approx(-102.62, abs=0.01)
    assert est.high == pytest.approx(184.91, abs=0.01)
    # nElo = (800 / ln 10) (s - 1/2) / sqrt(2 var) = 347.436 * .05 / .441588 = +39.34;
    # its interval 347.436 * (.05 -+ .193531) / .441588 = [-112.93, +191.61]
    nelo = normalized_elo(counts)
    assert nelo.elo == pytest.approx(39.339, abs=1e-3)
    assert nelo.low == pytest.approx(-112.93, abs=0.01)
    assert nelo.high == pytest.approx(191.61, abs=0.01)
    # LOS = Phi((s - 1/2) / SE) = Phi(.05 / .0987421) = Phi(.50637) = .69370
    assert los_pentanomial(counts) == pytest.approx(phi(0.05 / math.sqrt(0.00975)))
    assert los_pentanomial(counts) == pytest.approx(0.69370, abs=1e-5)
    # the report gives the same figures: 10 pairs is the minimum (MIN_PAIRS)
    assert MIN_PAIRS == 10
    report = pentanomial_report(counts)
    assert (report.elo, report.low, report.high, report.los) == pytest.approx(
        (est.elo, est.low, est.high, 0.69370), abs=1e-4)
    assert report.has_interval and report.note is None
    nreport = normalized_report(counts)
    assert (nreport.elo, nreport.low, nreport.high) == pytest.approx((39.339, -112.93, 191.61),
                                                                     abs=0.01)


def test_trinomial_6_12_2_hand_computed() -> None:
    """W/D/L 6/12/2 (20 games)."""
    # score (6 + 12/2) / 20 = 0.6; Elo = 400 log10(.6 / .4) = +70.437
    # variance (6 * .4^2 + 12 * .1^2 + 2 * .6^2) / 20 = (.96 + .12 + .72) / 20 = .09
    # SE = sqrt(.09 / 20) = .0670820; 1.959964 * SE = .131478: scores [.468522, .731478]
    # low = 400 log10(.468522 / .531478) = -21.90; high = 400 log10(.731478 / .268522) = +174.09
    low, high = trinomial_interval(6, 12, 2)
    assert low == pytest.approx(-21.90, abs=0.01) and high == pytest.approx(174.09, abs=0.01)
    # LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2 = (1 + erf(4 / 4)) / 2 = .921350
    assert los_trinomial(6, 12, 2) == pytest.approx((1 + math.erf(1.0)) / 2)
    assert los_trinomial(6, 12, 2) == pytest.approx(0.921350, abs=1e-6)
    assert MIN_GAMES == 20
    report = trinomial_report(6, 12, 2)
    assert report.elo == pytest.approx(70.437, abs=1e-3)
    assert (report.low, report.high) == pytest.approx((-21.90, 174.09), abs=0.01)
    assert report.los == pytest.approx(0.921350, abs=1e-6) and report.note is None
    assert str(report) == "+70.4 [-21.9, +174.1]"


def test_los_edge_cases() -> None:
    assert los_trinomial(5, 3, 5) == 0.5  # erf(0) = 0
    assert math.isnan(los_trinomial(0, 7, 0))  # no decisive game
    assert los_trinomial(0, 0, 4) == pytest.approx((1 + math.erf(-4 / math.sqrt(8))) / 2)
    assert math.isnan(los_pentanomial([0, 0, 0, 0, 0]))
    assert math.isnan(los_pentanomial([0, 0, 9, 0, 0]))  # no spread
    assert los_pentanomial([0, 3, 0, 3, 0]) == 0.5


def test_report_rules_for_small_and_degenerate_samples() -> None:
    # 1. nothing played
    assert trinomial_report(0, 0, 0).note == "no games"
    assert pentanomial_report([0, 0, 0, 0, 0]).note == "no complete pairs"
    # 2. every game won or lost: score 1 or 0, Elo +-inf: not measurable (whatever the size)
    for report, note in ((trinomial_report(40, 0, 0), "all games won"),
                         (trinomial_report(0, 0, 3), "all games lost"),
                         (pentanomial_report([0, 0, 0, 0, 12]), "all games won"),
                         (normalized_report([12, 0, 0, 0, 0]), "all games lost")):
        assert (report.elo, report.low, report.high, report.los) == (None, None, None, None)
        assert report.note == note and not report.has_interval
        assert "inf" not in str(report)
    # 3. too few: the Elo (3 wins, 1 draw: 3.5 / 4 = .875, 400 log10(7) = +338.04), no interval
    few = trinomial_report(3, 1, 0)
    assert few.elo == pytest.approx(400 * math.log10(7))
    assert (few.low, few.high, few.los) == (None, None, None)
    assert few.note == "not enough games (4 of at least 20)"
    assert trinomial_report(10, 0, 9).note == "not enough games (19 of at least 20)"
    assert trinomial_report(10, 0, 10).note is None  # 20 games: enough
    assert pentanomial_report([0, 1, 1, 1, 0]).note == "not enough pairs (3 of at least 10)"
    assert pentanomial_report([0, 1, 1, 1, 0]).elo == 0.0
    assert normalized_report([0, 1, 1, 1, 0]).elo is None  # its unit would come from 3 pairs
    # 4. no spread: the Elo (all drawn: 0; every pair 1.5 points: score .75, +190.85), no interval
    drawn = trinomial_report(0, 25, 0)
    assert drawn.elo == 0.0 and drawn.note == "all games drawn" and drawn.low is None
    same = pentanomial_report([0, 0, 0, 11, 0])
    assert same.elo == pytest.approx(400 * math.log10(3)) and same.note == (
        "every pair scored 1.5 points")
    assert not same.has_interval and same.los is None
    assert normalized_report([0, 0, 0, 11, 0]).elo is None
    # 5. an open end: W/D/L 19/1/0: s = .975, var = (19 * .025^2 + .475^2) / 20 = .011875,
    # SE = sqrt(.011875 / 20) = .0243670, 1.959964 * SE = .0477584: scores [.92724, 1.02276];
    # the upper end is beyond 1: no upper bound; low = 400 log10(.927242 / .072758) = +442.12
    open_end = trinomial_report(19, 1, 0)
    assert open_end.has_interval and open_end.high is None
    assert open_end.low == pytest.approx(442.12, abs=0.02)
    assert open_end.note == "the interval reaches a score of 100%"
    assert open_end.interval_text().endswith(", no upper bound]")
    # LOS = Phi(19 / sqrt(19)) = Phi(4.3589)
    assert open_end.los == pytest.approx(phi(math.sqrt(19)))
    mirrored = trinomial_report(0, 1, 19)
    assert mirrored.low is None and mirrored.high == pytest.approx(-442.12, abs=0.02)
    assert mirrored.note == "the interval reaches a score of 0%"


def test_score_and_elo_are_inverse() -> None:
    for elo in (-800.0, -190.848, -5.0, 0.0, 0.1, 35.0, 400.0):
        assert score_from_elo(elo) == pytest.approx(logistic_score(elo), rel=1e-12)
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo, abs=1e-9)
    assert score_from_elo(math.inf) == 1.0 and score_from_elo(-math.inf) == 0.0
    assert score_from_elo(-1e9) == 0.0  # no overflow


def test_degenerate_statistics() -> None:
    assert math.isnan(mean_score([0] * 5)) and math.isnan(pair_variance([0] * 5))
    est = elo_estimate([0, 0, 0, 0, 0])
    assert all(math.isnan(x) for x in (est.elo, est.low, est.high))
    assert elo_estimate([0, 0, 7, 0, 0]).low == 0.0 == elo_estimate([0, 0, 7, 0, 0]).high
    assert elo_estimate([0, 0, 0, 0, 3]).elo == math.inf
    assert math.isnan(normalized_elo([0, 0, 7, 0, 0]).elo)  # no spread: no unit
    with pytest.raises(ValueError, match="five numbers"):
        elo_estimate([1, 2, 3])
    with pytest.raises(ValueError, match="not negative"):
        mean_score([1, -1, 0, 0, 0])


def test_match_keeps_the_statistics_names() -> None:
    """damier.match re-exports the statistics of damier.sprt (one implementation)."""
    assert match_module.elo_from_score is elo_from_score
    assert match_module.pentanomial_interval is pentanomial_interval
    assert match_module.trinomial_interval is trinomial_interval
    assert {"elo_from_score", "pentanomial_interval", "trinomial_interval"} <= set(
        match_module.__all__)


# -- the constrained maximum-likelihood estimate ---------------------------------------------


def test_constrained_mle_two_points_hand_computed() -> None:
    # mass only on 0.25 and 0.75: the mean 0.55 fixes it: q(.75) = (.55 - .25) / .5 = 0.6
    q = constrained_mle([0, 0.5, 0, 0.5, 0], PAIR_SCORES, 0.55)
    assert q == pytest.approx([0, 0.4, 0, 0.6, 0], abs=1e-12)


def test_constrained_mle_is_the_constrained_maximum() -> None:
    rng = random.Random(4)
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    # directions that keep both the total and the mean: sum 0 and sum v_i x_i = 0
    directions = [[1, -2, 1, 0, 0], [0, 1, -2, 1, 0], [0, 0, 1, -2, 1]]
    for _ in range(30):
        p = [rng.uniform(0.05, 1.0) for _ in range(5)]
        total = sum(p)
        p = [x / total for x in p]
        target = rng.uniform(0.2, 0.8)
        q = constrained_mle(p, PAIR_SCORES, target)
        assert sum(q) == pytest.approx(1.0, abs=1e-12)
        assert sum(a * v for a, v in zip(q, values, strict=True)) == pytest.approx(target,
                                                                          abs=1e-10)

        def objective(dist: list[float], p: list[float] = p) -> float:
            return sum(a * math.log(b) for a, b in zip(p, dist, strict=True))

        best = objective(q)
        for direction in directions:
            for t in (-1e-3, 1e-3, -2e-2, 2e-2):
                other = [a + t * d for a, d in zip(q, direction, strict=True)]
                if min(other) > 0:
                    assert objective(other) < best


def test_constrained_mle_at_the_observed_mean_is_the_observation() -> None:
    p = [0.1, 0.2, 0.4, 0.2, 0.1]
    assert constrained_mle(p, PAIR_SCORES, 0.5) == pytest.approx(p)
    with pytest.raises(ValueError, match="no distribution with mean"):
        constrained_mle([0, 0, 1, 0, 0], PAIR_SCORES, 0.6)


# -- the LLR ----------------------------------------------------------------------------------


@pytest.mark.parametrize("counts, elo0, elo1", [
    ([5, 40, 60, 50, 10], 0, 10),
    ([50, 400, 600, 500, 100], 0, 5),
    ([30, 200, 500, 210, 35], -3, 3),
    ([100, 300, 300, 300, 120], 0, 10),
    ([20, 310, 1400, 290, 25], -2, 4),
    ([60, 240, 380, 250, 70], 5, 15),
])
def test_llr_agrees_with_the_normal_approximation(counts: list[int], elo0: float,
                                                  elo1: float) -> None:
    expected = normal_llr(counts, elo0, elo1)
    assert llr(counts, elo0, elo1) == pytest.approx(expected, rel=0.03, abs=0.02)


def vdb_llr(counts: list[int], elo0: float, elo1: float) -> float:
    """The GSPRT LLR written out from M. Van den Bergh's notes, independently of
    damier.sprt (for counts with no empty cell): with p_i = n_i / N and the score
    s of each hypothesis, the most likely distribution with mean s is
    q_i = p_i / (1 + lam (a_i - s)), lam the root of sum p_i (a_i - s) / (1 + lam (a_i - s))
    = 0 between -1 / max(a_i - s) and -1 / min(a_i - s) (found here by bisection), and
    LLR = sum n_i log(q1_i / q0_i)."""
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    n = sum(counts)
    p = [c / n for c in counts]

    def mle(s: float) -> list[float]:
        d = [a - s for a in values]
        lo, hi = -1 / max(d) + 1e-12, -1 / min(d) - 1e-12
        for _ in range(300):
            lam = (lo + hi) / 2
            if sum(pi * di / (1 + lam * di) for pi, di in zip(p, d, strict=True)) > 0:
                lo = lam
            else:
                hi = lam
        lam = (lo + hi) / 2
        return [pi / (1 + lam * di) for pi, di in zip(p, d, strict=True)]

    q0, q1 = mle(logistic_score(elo0)), mle(logistic_score(elo1))
    return sum(c * math.log(b / a) for c, a, b in zip(counts, q0, q1, strict=True))


def test_llr_hand_computed_for_1_2_3_2_2() -> None:
    # p = [.1, .2, .3, .2, .2], observed mean .55. H1 at the observed score (elo1 =
    # 400 log10(.55 / .45) = +34.86) keeps q1 = p (lam = 0). H0 at elo0 = 0 (s0 = .5):
    # f(lam) = -.05 / (1 - .5 lam) - .05 / (1 - .25 lam) + .05 / (1 + .25 lam) + .1 / (1 + .5 lam)
    # f(.50) = -.066667 - .057143 + .044444 + .080000 = +.000635
    # f(.51) = -.067114 - .057307 + .044346 + .079681 = -.000394: lam ~ .5062,
    # q0 = [.1 / .7469, .2 / .87345, .3, .2 / 1.12655, .2 / 1.2531]
    #    = [.13389, .22898, .3, .17753, .15960] (sum 1, mean .5)
    # LLR = 10 * (.1 ln(.1/.13389) + .2 ln(.2/.22898) + .2 ln(.2/.17753) + .2 ln(.2/.15960))
    #     = 10 * (-.029184 - .027064 + .023836 + .045128) = .1272
    elo1 = 400 * math.log10(0.55 / 0.45)
    assert llr([1, 2, 3, 2, 2], 0, elo1) == pytest.approx(0.1272, abs=2e-3)
    # the normal approximation: N (s1 - s0)(2 s - s0 - s1) / (2 var)
    # = 10 * .05 * (1.1 - .5 - .55) / (2 * .0975) = .1282
    assert llr([1, 2, 3, 2, 2], 0, elo1) == pytest.approx(0.1282, abs=3e-3)


@pytest.mark.parametrize("counts, elo0, elo1", [
    ([1, 2, 3, 2, 2], 0, 10),
    ([1, 2, 3, 2, 2], -5, 5),
    ([5, 40, 60, 50, 10], 0, 10),
    ([30, 200, 500, 210, 35], -3, 3),
    ([3, 1, 1, 1, 9], 0, 50),
    ([60, 240, 380, 250, 70], 5, 15),
])
def test_llr_equals_van_den_bergh_formula(counts: list[int], elo0: float, elo1: float) -> None:
    """With no empty cell there is no regularization: the LLR is the published one."""
    assert llr(counts, elo0, elo1) == pytest.approx(vdb_llr(counts, elo0, elo1), rel=1e-7,
                                                    abs=1e-9)


def test_llr_scales_with_the_pairs_and_is_antisymmetric() -> None:
    counts = [20, 80, 150, 90, 25]
    one = llr(counts, 0, 10)
    assert llr([3 * c for c in counts], 0, 10) == pytest.approx(3 * one, rel=1e-9)
    # swapping the hypotheses flips the sign; mirroring the counts and the Elos too
    assert llr(counts, -10, 0) == pytest.approx(-llr(counts[::-1], 0, 10), rel=1e-9)


def test_bounds() -> None:
    assert sprt_bounds() == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    lower, upper = sprt_bounds(0.1, 0.02)
    assert lower == pytest.approx(math.log(0.02 / 0.9))
    assert upper == pytest.approx(math.log(0.98 / 0.1))


def test_degenerate_counts_give_no_error() -> None:
    assert llr([0, 0, 0, 0, 0], 0, 5) == 0.0
    for counts in ([0, 0, 9, 0, 0], [0, 0, 0, 0, 4], [3, 0, 0, 0, 0], [0, 5, 0, 5, 0],
                   [1, 0, 0, 0, 0]):
        value = llr(counts, 0, 5)
        assert math.isfinite(value)
    # all pairs won: evidence for H1, all lost: for H0; all drawn at the score of
    # elo0: for H0
    assert llr([0, 0, 0, 0, 10], 0, 5) > 0 > llr([10, 0, 0, 0, 0], 0, 5)
    assert llr([0, 0, 30, 0, 0], 0, 5) < 0


# -- the SPRT object ------------------------------------------------------------------------


def test_sprt_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="elo1 must be greater than elo0"):
        SPRT(5, 0)
    with pytest.raises(ValueError, match="elo1 must be greater than elo0"):
        SPRT(3, 3)
    for name, kwargs in (("alpha", {"alpha": 0.0}), ("alpha", {"alpha": 0.5}),
                         ("beta", {"beta": -0.1}), ("beta", {"beta": 0.7}),
                         ("alpha", {"alpha": math.nan})):
        with pytest.raises(ValueError, match=name):
            SPRT(0, 5, **kwargs)
    with pytest.raises(ValueError, match="finite"):
        SPRT(0, math.inf)
    with pytest.raises(ValueError, match="whole numbers"):
        SPRT(0, 5).add([1, 2, -1, 0, 0])
    with pytest.raises(ValueError, match="five numbers"):
        SPRT(0, 5).add([1, 2])


def test_sprt_no_pairs() -> None:
    test = SPRT(0, 5)
    assert test.llr == 0.0 and test.decision is None and test.pairs == 0
    assert test.summary() == "LLR 0.00 (-2.94, 2.94) [0, 5]"


def test_sprt_decisions_follow_the_bounds() -> None:
    counts = [5, 40, 60, 50, 10]  # mean score 0.530: +21 Elo
    expected = normal_llr(counts, 0, 10)
    test = SPRT(0, 10, counts=counts)
    assert test.llr == pytest.approx(expected, rel=0.03)
    assert test.decision is None  # about 0.98 < 2.94
    for _ in range(3):
        test.add(counts)
    assert test.llr > math.log(0.95 / 0.05) and test.decision == "H1"
    bad = SPRT(0, 10, counts=[c * 4 for c in counts[::-1]])
    assert bad.decision == "H0"
    # with looser error rates the same counts decide sooner
    assert SPRT(0, 10, alpha=0.3, beta=0.3, counts=counts).decision == "H1"


def test_merging_counts_equals_counting_at_once() -> None:
    rng = random.Random(11)
    scores = [rng.choice([0, 0.5, 1, 1, 1, 1.5, 1.5, 2]) for _ in range(301)]
    at_once = SPRT(-2, 8)
    for s in scores:
        at_once.add_pair(s)
    first, second = SPRT(-2, 8), SPRT(-2, 8)
    for s in scores[:150]:
        first.add_pair(s)
    second.add(pentanomial_counts(scores[150:]))
    first.add(second)
    assert first.counts == at_once.counts == pentanomial_counts(scores)
    assert first.llr == at_once.llr
    assert first == at_once


def test_sprt_round_trips_through_json() -> None:
    test = SPRT(-1.5, 4, alpha=0.1, beta=0.025, counts=[3, 10, 20, 12, 4])
    data = json.loads(json.dumps(test.to_dict()))
    back = SPRT.from_dict(data)
    assert back == test and back.llr == test.llr and back.bounds == test.bounds
    assert (back.elo0, back.elo1, back.alpha, back.beta) == (-1.5, 4, 0.1, 0.025)
    with pytest.raises(ValueError):
        SPRT.from_dict({"elo0": 0})


def test_summary_format() -> None:
    test = SPRT(0, 5, counts=[0, 0, 0, 0, 0])
    assert test.summary() == "LLR 0.00 (-2.94, 2.94) [0, 5]"
    test = SPRT(-3, 1.5, alpha=0.1, beta=0.1, counts=[1, 2, 3, 2, 1])
    lower, upper = math.log(0.1 / 0.9), math.log(0.9 / 0.1)
    assert test.summary() == f"LLR {test.llr:.2f} ({lower:.2f}, {upper:.2f}) [-3, 1.5]"


# -- the error rates, simulated --------------------------------------------------------------


def simulate(dist: list[float], elo0: float, elo1: float, runs: int, seed: int,
             max_pairs: int = 20000) -> dict[str | None, int]:
    """Runs ``runs`` SPRTs on pairs drawn from ``dist``; how often each decision came."""
    rng = random.Random(seed)
    cumulative = [sum(dist[: i + 1]) for i in range(5)]
    outcomes: dict[str | None, int] = {"H0": 0, "H1": 0, None: 0}
    for _ in range(runs):
        test = SPRT(elo0, elo1)
        counts = [0, 0, 0, 0, 0]
        decision = None
        for pairs in range(1, max_pairs + 1):
            u = rng.random()
            counts[next(i for i, c in enumerate(cumulative) if u < c or i == 4)] += 1
            if pairs % 4 == 0:  # look every 4 pairs (a match looks every pair)
                test = SPRT(elo0, elo1, counts=counts)
                decision = test.decision
                if decision is not None:
                    break
        outcomes[decision] += 1
    return outcomes


BASE = [0.06, 0.22, 0.44, 0.22, 0.06]  # drawish, symmetric: mean 0.5


def test_simulated_sprt_accepts_h0_at_elo0() -> None:
    dist = tilted(BASE, logistic_score(0.0))
    outcomes = simulate(dist, 0, 40, runs=250, seed=1)
    assert outcomes["H0"] >= 0.90 * 250, outcomes
    assert outcomes[None] == 0


def test_simulated_sprt_accepts_h1_at_elo1() -> None:
    dist = tilted(BASE, logistic_score(40.0))
    outcomes = simulate(dist, 0, 40, runs=250, seed=2)
    assert outcomes["H1"] >= 0.90 * 250, outcomes
    assert outcomes[None] == 0


def test_simulated_sprt_far_outside_the_hypotheses() -> None:
    # far better than elo1: H1 almost always, and far worse than elo0: H0
    assert simulate(tilted(BASE, logistic_score(120.0)), 0, 40, runs=80, seed=3)["H1"] >= 78
    assert simulate(tilted(BASE, logistic_score(-80.0)), 0, 40, runs=80, seed=4)["H0"] >= 78


def test_add_pairs_keeps_the_test_as_it_stood_at_the_first_crossing() -> None:
    """A sequential test decides once: at the first pair that takes the LLR to a bound.
    Pairs counted after it (games that were in progress) may take the LLR back inside
    the bounds; the copy ``add_pairs`` returns is the test at the decision."""
    rng = random.Random(5)
    # a strong start (H1 soon), then a run of lost pairs that brings the LLR back down
    scores = [rng.choice([1, 1.5, 1.5, 2, 2]) for _ in range(200)] + [0.0] * 200
    test = SPRT(0, 10)
    at = test.add_pairs(scores)
    assert at is not None and at.decision == "H1"
    k = at.pairs
    assert at.counts == pentanomial_counts(scores[:k])
    assert SPRT(0, 10, counts=pentanomial_counts(scores[:k - 1])).decision is None
    assert test.counts == pentanomial_counts(scores)      # every pair is counted
    assert test.decision != "H1" and test.llr < at.llr    # back inside (or below)
    assert at.pairs < 200                                  # within the strong start
    # already decided: later pairs return no new decision
    decided = SPRT(0, 10, counts=at.counts)
    assert decided.add_pairs([0.0, 0.0]) is None
    # none decides: None, and the pairs are counted
    undecided = SPRT(0, 10)
    assert undecided.add_pairs([1.0, 1.5, 0.5]) is None and undecided.pairs == 3
