"""The statistics of a match report (damier.match.results: MatchResult.summary and
to_dict): draw ratio, Elo with its interval and LOS, pentanomial and normalized Elo,
opening bias, the reporting rules for small and degenerate samples, and the results
in each variant's notation.

Every expected figure is computed by hand in the comments (or from the rules of
the variants: FMJD style 2-0, 1-1, 0-2; English 1-0, 1/2-1/2, 0-1), never by the
code under test.
"""

from __future__ import annotations

import json
import math

import pytest

from damier.match import MatchGame, MatchResult, run_match
from damier.pdn import Game, read_games
from damier.variants import VARIANTS

# The notation of each variant's rules: White's win, a draw, Black's win.
NOTATION = {"international": ("2-0", "1-1", "0-2"), "brazilian": ("2-0", "1-1", "0-2"),
            "russian": ("2-0", "1-1", "0-2"), "english": ("1-0", "1/2-1/2", "0-1"),
            # the 10x10 variants of lidraughts write the FMJD style
            "antidraughts": ("2-0", "1-1", "0-2"), "breakthrough": ("2-0", "1-1", "0-2"),
            # Italian (GameType 22) writes the PDN standard's results, like English
            "italian": ("1-0", "1/2-1/2", "0-1"),
            # Frisian and Frysk! as lidraughts writes them; Killer as International
            "frisian": ("2-0", "1-1", "0-2"), "frysk": ("2-0", "1-1", "0-2"),
            "killer": ("2-0", "1-1", "0-2"),
            # Turkish (GameType 30, no FMJD game) the PDN standard's
            "turkish": ("1-0", "1/2-1/2", "0-1")}


def record(number: int, pair: int, a_is_white: bool, result: str,
           variant: str = "international") -> MatchGame:
    white, black = ("A", "B") if a_is_white else ("B", "A")
    return MatchGame(number, f"{pair}.{number}", pair, [], white, black, a_is_white, result,
                     "normal", "no legal move", 40, headers=dict(Game(variant=variant).headers))


def paired(results: list[tuple[str, str]], variant: str = "international") -> list[MatchGame]:
    """One pair per (first, second) result: A has White in the first game, Black in the
    second (results are White-Black: 1-0 is a White win)."""
    games = []
    for pair, (first, second) in enumerate(results, start=1):
        games.append(record(2 * pair - 1, pair, True, first, variant))
        games.append(record(2 * pair, pair, False, second, variant))
    return games


def unpaired(wins: int, draws: int, losses: int) -> list[MatchGame]:
    """Games each in a pair of its own (no complete pair: the trinomial model), A White."""
    results = ["1-0"] * wins + ["1/2-1/2"] * draws + ["0-1"] * losses
    return [record(k, k, True, r) for k, r in enumerate(results, start=1)]


# The pairs of [LL, LD, DD+WL, WD, WW] = [1, 2, 3, 2, 2], as White-Black results:
# LL: A loses with White (0-1) and with Black (1-0)
# LD: A loses with White (0-1), draws with Black           (twice)
# DD: two draws                                            (twice)
# WL: A wins with White (1-0), loses with Black (1-0)      (White won both)
# WD: A draws with White, wins with Black (0-1)            (twice)
# WW: A wins with White (1-0) and with Black (0-1)         (twice)
PAIRS_12322 = [("0-1", "1-0"), ("0-1", "1/2-1/2"), ("0-1", "1/2-1/2"),
               ("1/2-1/2", "1/2-1/2"), ("1/2-1/2", "1/2-1/2"), ("1-0", "1-0"),
               ("1/2-1/2", "0-1"), ("1/2-1/2", "0-1"), ("1-0", "0-1"), ("1-0", "0-1")]


def no_infinity_or_nan(data: dict) -> None:
    text = json.dumps(data, allow_nan=False)  # raises on nan or inf
    assert "inf" not in text


# -- a match of 10 complete pairs ---------------------------------------------------------------


def test_report_of_ten_pairs_hand_computed() -> None:
    result = MatchResult.from_games("A", "B", paired(PAIRS_12322))
    # A's games: wins 1 (WL) + 2 (WD) + 4 (WW) = 7; losses 2 (LL) + 2 (LD) + 1 (WL) = 5;
    # draws 2 (LD) + 4 (DD) + 2 (WD) = 8. Points 7 + 4 = 11 of 20: 55%. Draw ratio 8/20 = 40%.
    assert (result.wins, result.draws, result.losses) == (7, 8, 5)
    assert result.pentanomial == (1, 2, 3, 2, 2) and result.interval_model == "pentanomial"
    text = result.summary()
    assert "  score 11/20 = 55.0%, draw ratio 40.0% (8 draws)" in text
    # mean .55, pair variance .0975, SE .0987421: Elo +34.86 [-102.62, +184.91],
    # LOS Phi(.05 / .0987421) = 69.37% (worked out in tests/test_sprt.py)
    assert ("  Elo +34.9 (pentanomial, 10 pairs), 95% interval [-102.6, +184.9], LOS 69.4%"
            in text)
    assert "  pairs [LL, LD, DD+WL, WD, WW]: [1, 2, 3, 2, 2] (10 pairs)" in text
    assert "  pentanomial Elo +34.9 (10 pairs), 95% interval [-102.6, +184.9]" in text
    # nElo 347.436 * .05 / sqrt(.195) = +39.34 [-112.93, +191.61]
    assert "  nElo +39.3 (10 pairs), 95% interval [-112.9, +191.6]" in text
    # White won 1 (LL) + 2 (WL) + 2 (WW) = 5, Black 1 (LL) + 2 (LD) + 2 (WD) + 2 (WW) = 7,
    # 8 draws: White's score (5 + 4) / 20 = 45%
    assert "  results (White-Black) 2-0: 5, 1-1: 8, 0-2: 7; White scored 45.0%" in text
    # same colour won both: the WL pair (White); same engine: LL and the two WW; with a draw:
    # 2 LD + 2 DD + 2 WD = 6
    assert ("  opening pairs: 1 of 10 won by the same colour in both games (White 1, Black 0), "
            "3 by the same engine, 6 with a draw") in text
    assert "inf" not in text and "nan" not in text

    data = result.to_dict()
    no_infinity_or_nan(data)
    assert data["variant"] == "international"
    assert data["score"] == pytest.approx(0.55) and data["draw_ratio"] == pytest.approx(0.4)
    assert (data["elo"], data["elo_low"], data["elo_high"]) == pytest.approx(
        (34.860, -102.62, 184.91), abs=0.01)
    assert data["los"] == pytest.approx(0.69370, abs=1e-5) and data["elo_note"] is None
    assert data["pentanomial_elo"]["elo"] == pytest.approx(34.860, abs=1e-3)
    assert (data["nelo"]["elo"], data["nelo"]["low"], data["nelo"]["high"]) == pytest.approx(
        (39.339, -112.93, 191.61), abs=0.01)
    assert data["white_score"] == pytest.approx(0.45)
    assert data["results"] == {"2-0": 5, "1-1": 8, "0-2": 7}
    assert data["opening_pairs"] == {"pairs": 10, "white_won_both": 1, "black_won_both": 0,
                                     "same_engine": 3, "with_draw": 6}


def test_opening_bias_counts_black_and_incomplete_pairs() -> None:
    # pair 1: Black won both (0-1, 0-1): the opening decided; pair 2: A won both (1-0, 0-1);
    # pair 3 has one game only: counted in White's results, not in the pairs
    games = paired([("0-1", "0-1"), ("1-0", "0-1")]) + [record(5, 3, True, "1-0")]
    bias = MatchResult.from_games("A", "B", games).opening_bias
    # White won 2 (games 3 and 5), Black 3: White's score 2 / 5 = 40%
    assert (bias.white_wins, bias.draws, bias.black_wins) == (2, 0, 3)
    assert bias.white_score == pytest.approx(0.4)
    assert (bias.pairs, bias.white_won_both, bias.black_won_both, bias.same_engine,
            bias.with_draw) == (2, 0, 1, 1, 0)


def test_trinomial_report_hand_computed() -> None:
    # W/D/L 6/12/2, no complete pair: score .6, Elo +70.44, SE sqrt(.09 / 20),
    # interval [-21.90, +174.09], LOS (1 + erf(1)) / 2 = 92.1%, draw ratio 12/20 = 60%
    result = MatchResult.from_games("A", "B", unpaired(6, 12, 2))
    assert result.interval_model == "trinomial" and result.pentanomial is None
    text = result.summary()
    assert "  score 12/20 = 60.0%, draw ratio 60.0% (12 draws)" in text
    assert "  Elo +70.4 (trinomial, 20 games), 95% interval [-21.9, +174.1], LOS 92.1%" in text
    assert "pairs [" not in text and "nElo" not in text and "opening pairs" not in text
    data = result.to_dict()
    no_infinity_or_nan(data)
    assert data["los"] == pytest.approx((1 + math.erf(1.0)) / 2)
    assert data["pentanomial_elo"] is None and data["nelo"] is None


# -- small and degenerate samples ----------------------------------------------------------------


def test_all_games_won_is_not_measurable() -> None:
    result = MatchResult.from_games("A", "B", paired([("1-0", "0-1")] * 12))
    assert result.elo == math.inf  # the raw figure stays
    text = result.summary()
    assert "  Elo not measurable (pentanomial, 12 pairs): all games won; no 95% interval" in text
    assert "  nElo not measurable (12 pairs): all games won; no 95% interval" in text
    assert "inf" not in text and "+0.0" not in text
    data = result.to_dict()
    no_infinity_or_nan(data)
    assert (data["elo"], data["elo_low"], data["elo_high"], data["los"]) == (None,) * 4
    assert data["elo_note"] == "all games won"
    assert data["pentanomial_elo"]["note"] == "all games won"
    lost = MatchResult.from_games("A", "B", unpaired(0, 0, 3)).to_dict()
    assert lost["elo"] is None and lost["elo_note"] == "all games lost"


def test_too_few_games_give_no_interval() -> None:
    # 2 pairs: LD (0-1, 1/2-1/2) and WL (1-0, 1-0): A scores 0.5 + 1 = 1.5 of 4: 37.5%,
    # Elo = 400 log10(.375 / .625) = -88.7
    result = MatchResult.from_games("A", "B", paired([("0-1", "1/2-1/2"), ("1-0", "1-0")]))
    text = result.summary()
    assert ("  Elo -88.7 (pentanomial, 2 pairs), 95% interval not measurable: "
            "not enough pairs (2 of at least 10)") in text
    assert "  nElo not measurable (2 pairs): not enough pairs (2 of at least 10)" in text
    assert "LOS" not in text
    data = result.to_dict()
    no_infinity_or_nan(data)
    assert data["elo"] == pytest.approx(400 * math.log10(0.375 / 0.625))
    assert (data["elo_low"], data["elo_high"], data["los"]) == (None, None, None)
    assert data["elo_note"] == "not enough pairs (2 of at least 10)"
    # trinomial: 3 games (an odd number): 2 wins, 1 loss
    three = MatchResult.from_games("A", "B", unpaired(2, 0, 1))
    assert "95% interval not measurable: not enough games (3 of at least 20)" in three.summary()


def test_all_games_drawn_give_no_interval() -> None:
    drawn = MatchResult.from_games("A", "B", unpaired(0, 20, 0))
    text = drawn.summary()
    assert ("  Elo +0.0 (trinomial, 20 games), 95% interval not measurable: all games drawn"
            in text)
    assert "[+0.0, +0.0]" not in text
    data = drawn.to_dict()
    assert data["elo"] == 0.0 and data["elo_low"] is None and data["elo_high"] is None
    assert data["elo_note"] == "all games drawn" and data["draw_ratio"] == 1.0
    pairs = MatchResult.from_games("A", "B", paired([("1/2-1/2", "1/2-1/2")] * 10))
    assert "95% interval not measurable: every pair scored 1 point" in pairs.summary()
    assert pairs.to_dict()["nelo"]["elo"] is None


def test_an_interval_end_beyond_a_score_of_one_is_open() -> None:
    # W/D/L 19/1/0: scores [.92724, 1.02276]: low +442.12, no upper bound
    result = MatchResult.from_games("A", "B", unpaired(19, 1, 0))
    text = result.summary()
    assert ("  Elo +636.4 (trinomial, 20 games), 95% interval [+442.1, no upper bound] "
            "(the interval reaches a score of 100%), LOS >99.9%") in text
    data = result.to_dict()
    no_infinity_or_nan(data)
    # Elo = 400 log10(.975 / .025) = 400 log10(39) = +636.43
    assert data["elo"] == pytest.approx(400 * math.log10(39))
    assert data["elo_low"] == pytest.approx(442.12, abs=0.02) and data["elo_high"] is None
    assert data["elo_note"] == "the interval reaches a score of 100%"


def test_no_games() -> None:
    result = MatchResult.from_games("A", "B", [])
    assert "0 of 0 games" in result.summary()
    data = result.to_dict()
    no_infinity_or_nan(data)
    assert data["elo"] is None and data["elo_note"] == "no games" and data["variant"] is None


def test_the_report_gives_the_mean_length_of_the_games_draws_and_decided_games() -> None:
    games = paired([("1-0", "1/2-1/2"), ("1/2-1/2", "0-1")])
    for game, plies in zip(games, (61, 150, 120, 30), strict=True):
        game.plies = plies
    result = MatchResult.from_games("A", "B", games)
    # (61 + 150 + 120 + 30) / 4 = 90.25; draws (150 + 120) / 2; decided (61 + 30) / 2
    assert "  length: 90.2 plies a game (draws 135.0, decided games 45.5)" in result.summary()
    assert result.to_dict()["mean_plies"] == 90.25
    drawn = MatchResult.from_games("A", "B", paired([("1/2-1/2", "1/2-1/2")]))
    assert "length: 40.0 plies a game (draws 40.0)\n" in drawn.summary() + "\n"
    assert MatchResult.from_games("A", "B", []).to_dict()["mean_plies"] is None


# -- results in each variant's notation -----------------------------------------------------------


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_records_and_summary_use_the_variants_notation(variant: str) -> None:
    white, draw, black = NOTATION[variant]
    games = paired([("1-0", "1/2-1/2"), ("0-1", "0-1")], variant)
    assert [g.pdn_result for g in games] == [white, draw, black, black]
    result = MatchResult.from_games("A", "B", games)
    assert f"  results (White-Black) {white}: 1, {draw}: 1, {black}: 2;" in result.summary()
    assert result.to_dict()["results"] == {white: 1, draw: 1, black: 2}


class FakePlayer:
    """A scripted engine answering ``reply(board)``."""

    def __init__(self, name: str, reply) -> None:
        self.name = name
        self.reply = reply

    def new_game(self) -> None:
        pass

    def play(self, board, *, movetime, clock):
        return self.reply(board)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def first_move(board):
    return sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square))[0]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_real_match_writes_the_variants_notation(variant: str, tmp_path) -> None:
    """A plays a legal move, B an illegal one: B loses each game, with White in the
    second game of the pair and Black in the first."""
    white, draw, black = NOTATION[variant]
    out = tmp_path / "games.pdn"
    result = run_match(lambda: FakePlayer("A", first_move),
                       lambda: FakePlayer("B", lambda board: "1-50"), games=2, variant=variant,
                       openings=[[]], progress=False, seed=1, pdn_path=out)
    assert [(g.a_is_white, g.result) for g in result.games] == [(True, "1-0"), (False, "0-1")]
    assert [g.pdn_result for g in result.games] == [white, black]
    assert [g.headers["Result"] for g in result.games] == [white, black]
    assert [g.headers["Result"] for g in read_games(out)] == [white, black]
    assert f"results (White-Black) {white}: 1, {draw}: 0, {black}: 1;" in result.summary()
    # a game stopped at the length limit is adjudicated a draw
    drawn = run_match(lambda: FakePlayer("A", first_move), lambda: FakePlayer("B", first_move),
                      games=2, variant=variant, openings=[[]], progress=False, seed=1,
                      max_plies=2)
    assert [g.pdn_result for g in drawn.games] == [draw, draw]
    assert [g.game.headers["Result"] for g in drawn.games] == [draw, draw]
