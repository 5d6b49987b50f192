"""Draw rules and game end, move by move, on synthetic position histories.

Every expected value below is derived from the rule texts (seeds 000, 001, 003
and the Russian federation rules documented in damier.rules), not from
running the code: "drawn after both players made N moves" means the draw is
reached on ply 2N after the position where the count starts, and not on ply
2N - 1.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import FrozenInstanceError, replace

import pytest

from damier.outcome import (
    Outcome,
    Snapshot,
    Termination,
    adjudicate,
    compute_outcome,
    draw_offer_allowed,
)
from damier.piece import BLACK, WHITE
from damier.rules import Rules
from damier.variants import get_variant

FMJD = Rules.for_variant("international")
RUSSIAN = Rules.for_variant("russian")
ENGLISH = Rules.for_variant("english")

# (white_men, white_kings, black_men, black_kings)
MIDDLEGAME = (3, 2, 3, 2)  # 10 pieces: no endgame rule applies


class History:
    """A synthetic game: a list of snapshots grown one ply at a time.

    Every new position gets a fresh key unless one is given, so nothing repeats
    by accident.
    """

    _keys = itertools.count(1000)

    def __init__(self, material=MIDDLEGAME, white_to_move=True, key=None):
        wm, wk, bm, bk = material
        self.snaps: list[Snapshot] = [
            Snapshot(
                key=next(self._keys) if key is None else key,
                white_to_move=white_to_move,
                white_men=wm,
                white_kings=wk,
                black_men=bm,
                black_kings=bk,
                king_move=False,
                capture=False,
                promotion=False,
            )
        ]

    @property
    def plies(self) -> int:
        return len(self.snaps) - 1

    @property
    def cur(self) -> Snapshot:
        return self.snaps[-1]

    def _push(self, *, material=None, key=None, king_move=False, capture=False, promotion=False):
        c = self.cur
        wm, wk, bm, bk = c.material if material is None else material
        self.snaps.append(
            Snapshot(
                key=next(self._keys) if key is None else key,
                white_to_move=not c.white_to_move,
                white_men=wm,
                white_kings=wk,
                black_men=bm,
                black_kings=bk,
                king_move=king_move,
                capture=capture,
                promotion=promotion,
            )
        )
        return self

    def king(self, n=1, key=None):
        """``n`` quiet king moves."""
        for _ in range(n):
            self._push(king_move=True, key=key)
        return self

    def man(self, n=1):
        """``n`` quiet man moves (no promotion)."""
        for _ in range(n):
            self._push()
        return self

    def capture(self, material):
        """A capture leading to ``material`` (a capture is never a 'king move')."""
        return self._push(material=material, capture=True)

    def promote(self, material):
        """A man move that crowns, leading to ``material``."""
        return self._push(material=material, promotion=True)

    def outcome(self, rules=FMJD, has_legal_move=True):
        return compute_outcome(self.snaps, rules, has_legal_move)


def draw(termination):
    return Outcome(termination, None)


# ---------------------------------------------------------------------------
# No legal move
# ---------------------------------------------------------------------------


def test_no_legal_move_side_to_move_loses():
    h = History()
    # White to move, blocked
    assert h.outcome(has_legal_move=False) == Outcome(Termination.NO_MOVES, BLACK)
    h.man()
    assert h.outcome(has_legal_move=False) == Outcome(Termination.NO_MOVES, WHITE)
    assert h.outcome(has_legal_move=False).result() == "1-0"


def test_no_legal_move_is_checked_before_the_draw_rules():
    # king against king with the immediate-draw option, and the third repetition:
    # the side to move having no move still decides
    h = History(material=(0, 1, 0, 1), key=1)
    rules = replace(FMJD, king_vs_king_immediate=True)
    assert h.outcome(rules, has_legal_move=False) == Outcome(Termination.NO_MOVES, BLACK)
    h = History(key=1).king(key=2).king(key=1).king(key=2).king(key=1)
    assert h.outcome() == draw(Termination.THREEFOLD_REPETITION)
    assert h.outcome(has_legal_move=False) == Outcome(Termination.NO_MOVES, BLACK)


def test_game_goes_on():
    h = History()
    assert h.outcome() is None
    h.man(5).king(5)
    assert h.outcome() is None


def test_empty_history_rejected():
    with pytest.raises(ValueError):
        compute_outcome([], FMJD, True)


# ---------------------------------------------------------------------------
# Repetition
# ---------------------------------------------------------------------------


def cycle(keys, plies, start_white=True):
    """A history whose positions have the given keys, cycling, all reached by king moves."""
    it = itertools.cycle(keys)
    h = History(key=next(it), white_to_move=start_white)
    for _ in range(plies):
        h.king(key=next(it))
    return h


@pytest.mark.parametrize("rules", [FMJD, RUSSIAN, ENGLISH, Rules.for_variant("brazilian")])
def test_threefold_repetition(rules):
    # A B C D A B C D A: position A (White to move) occurs at plies 0, 4 and 8
    assert cycle([1, 2, 3, 4], 4).outcome(rules) is None  # twice: no draw
    assert cycle([1, 2, 3, 4], 7).outcome(rules) is None
    assert cycle([1, 2, 3, 4], 8).outcome(rules) == draw(Termination.THREEFOLD_REPETITION)


def test_repetition_need_not_be_consecutive():
    # plies: A B A C D E A  -> the third A at ply 6
    h = History(key=1).king(key=2).king(key=1).king(key=3).king(key=4).king(key=5)
    assert h.outcome() is None
    h.king(key=1)
    assert h.outcome() == draw(Termination.THREEFOLD_REPETITION)


def test_repetition_counts_the_start_position():
    h = History(key=1).king(key=2).king(key=1).king(key=2)
    assert h.outcome() is None
    h.king(key=1)
    assert h.outcome() == draw(Termination.THREEFOLD_REPETITION)


def test_repetition_with_other_side_to_move_is_not_a_repetition():
    # the same arrangement of pieces (key 7) with White to move at plies 0, 6
    # and with Black to move at plies 3, 5: twice each, no draw
    h = History(key=7)  # W
    h.king(key=8)  # B
    h.king(key=9)  # W
    h.king(key=7)  # B to move
    h.king(key=10)  # W
    h.king(key=7)  # B to move
    assert h.outcome() is None
    h.king(key=7)  # W to move: second time with White to move
    assert h.outcome() is None
    h.king(key=11)  # B
    assert h.outcome() is None
    h.king(key=7)  # W to move: third time with White to move
    assert h.outcome() == draw(Termination.THREEFOLD_REPETITION)


def test_repetition_after_a_man_move_counts_from_scratch():
    # A B A, then a man move: positions before it can never return, so the
    # repetition count of the new position X starts there (and a key equal to an
    # earlier one before the man move is not looked at)
    h = History(key=1).king(key=2).king(key=1).king(key=2).man()
    x = h.cur.key
    h.king(key=20).king(key=x)
    assert h.outcome() is None  # X twice
    h.king(key=20).king(key=x)
    assert h.outcome() == draw(Termination.THREEFOLD_REPETITION)  # X three times
    # the scan stops at the last irreversible move
    h = History(key=1).king(key=2).king(key=1).capture(MIDDLEGAME).king(key=1)
    assert h.cur.white_to_move and h.outcome() is None


def test_repetition_options():
    assert cycle([1, 2], 2).outcome(replace(FMJD, repetition_limit=2)) == draw(
        Termination.THREEFOLD_REPETITION
    )
    assert cycle([1, 2], 2).outcome() is None
    off = replace(FMJD, repetition_limit=None, king_moves_limit=None)
    assert cycle([1, 2], 40).outcome(off) is None
    four = replace(FMJD, repetition_limit=4)
    assert cycle([1, 2], 4).outcome(four) is None
    assert cycle([1, 2], 6).outcome(four) == draw(Termination.THREEFOLD_REPETITION)


# ---------------------------------------------------------------------------
# King-move rules: 25 (FMJD), 15 (Russian), 40 (English)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, moves",
    [(FMJD, 25), (Rules.for_variant("brazilian"), 25), (RUSSIAN, 15), (ENGLISH, 40)],
)
def test_king_moves_rule(rules, moves):
    h = History().king(2 * moves - 1)
    assert h.outcome(rules) is None
    h.king()
    assert h.outcome(rules) == draw(Termination.KING_MOVES)


def test_king_moves_49_plies_no_draw_50_draw():
    h = History().man(3).king(49)
    assert h.outcome() is None
    h.king()
    assert h.outcome() == draw(Termination.KING_MOVES)


def test_man_move_resets_king_moves():
    # 29 king plies, a man move on ply 30, then the count starts again
    h = History().king(29).man()
    assert h.plies == 30
    h.king(49)
    assert h.plies == 79 and h.outcome() is None
    h.king()
    assert h.plies == 80 and h.outcome() == draw(Termination.KING_MOVES)


def test_capture_resets_king_moves():
    # a king that captures does not make a "king move" in the sense of the rule
    h = History().king(40).capture((3, 2, 3, 1)).king(49)
    assert h.outcome() is None
    h.king()
    assert h.outcome() == draw(Termination.KING_MOVES)


def test_promotion_resets_king_moves():
    h = History().king(40).promote((2, 3, 3, 2)).king(49)
    assert h.outcome() is None
    h.king()
    assert h.outcome() == draw(Termination.KING_MOVES)


def test_king_moves_from_start_position_count():
    # a game set up with kings only counts from its first move
    h = History(material=(0, 3, 0, 3)).king(49)
    assert h.outcome(replace(FMJD, repetition_limit=None)) is None
    h.king()
    assert h.outcome() == draw(Termination.KING_MOVES)


def test_king_moves_rule_switched_off():
    rules = replace(FMJD, king_moves_limit=None)
    h = History().king(300)
    assert h.outcome(rules) is None
    assert h.outcome() == draw(Termination.KING_MOVES)


# ---------------------------------------------------------------------------
# 16-move and 5-move rules (FMJD)
# ---------------------------------------------------------------------------


def enter_sixteen():
    """White 3 kings + 1 man against a lone black king; Black captures a king:
    White has two kings and a man (three pieces incl. a king) against the lone king."""
    h = History(material=(1, 3, 0, 1)).king(6)
    h.capture((1, 2, 0, 1))
    return h, h.plies


def test_sixteen_move_rule():
    h, e = enter_sixteen()
    h.king(31)
    assert h.plies == e + 31 and h.outcome() is None
    h.king()
    assert h.plies == e + 32 and h.outcome() == draw(Termination.SIXTEEN_MOVES)


def test_sixteen_move_rule_counts_man_moves_too():
    # men moving or crowning inside the 16-move ending does not restart the count
    h, e = enter_sixteen()
    h.king(5).man().king(10).promote((0, 3, 0, 1)).king(14)
    assert h.plies == e + 31 and h.outcome() is None
    h.king()
    assert h.outcome() == draw(Termination.SIXTEEN_MOVES)


@pytest.mark.parametrize(
    "strong",
    [(0, 3), (1, 2), (2, 1)],  # three kings, two kings and a man, a king and two men
)
def test_sixteen_move_classes_either_colour(strong):
    men, kings = strong
    for material in [(men, kings, 0, 1), (0, 1, men, kings)]:
        h = History(material=material).king(31)
        assert h.outcome() is None
        h.king()
        assert h.outcome() == draw(Termination.SIXTEEN_MOVES)


def test_sixteen_move_count_starts_when_the_balance_arises():
    # three men against a king is not a 16-move ending; the count starts when a man is crowned
    h = History(material=(3, 0, 0, 1)).man().king().man().king()
    h.promote((2, 1, 0, 1))
    e = h.plies
    h.king(31)
    assert h.outcome() is None
    h.king()
    assert h.plies == e + 32 and h.outcome() == draw(Termination.SIXTEEN_MOVES)


def test_capture_from_sixteen_to_five_restarts_the_count():
    h, e = enter_sixteen()
    h.king(29)
    h.capture((0, 2, 0, 1))  # ply e+30: two kings against one -> the 5-move rule, counted from here
    c = h.plies
    assert c == e + 30
    h.king(2)
    assert h.plies == e + 32 and h.outcome() is None  # the 16-move count no longer applies
    h.king(7)
    assert h.plies == c + 9 and h.outcome() is None
    h.king()
    assert h.plies == c + 10 and h.outcome() == draw(Termination.FIVE_MOVES)


def test_early_capture_into_five_move_ending():
    h, e = enter_sixteen()
    h.king(3).capture((1, 1, 0, 1))  # king and man against king
    c = h.plies
    h.king(9)
    assert h.outcome() is None
    h.king()
    assert h.plies == c + 10 and h.outcome() == draw(Termination.FIVE_MOVES)


@pytest.mark.parametrize("strong", [(0, 2), (1, 1), (0, 1)])  # two kings, king and man, king
def test_five_move_rule(strong):
    men, kings = strong
    for material in [(men, kings, 0, 1), (0, 1, men, kings)]:
        h = History(material=material).king(9)
        assert h.outcome() is None
        h.king()
        assert h.outcome() == draw(Termination.FIVE_MOVES)


def test_five_move_rule_entered_from_a_larger_ending():
    h = History(material=(2, 2, 0, 1)).king(20)
    assert h.outcome() is None
    h.capture((0, 2, 0, 1))
    c = h.plies
    h.king(9)
    assert h.outcome() is None
    h.king()
    assert h.plies == c + 10 and h.outcome() == draw(Termination.FIVE_MOVES)


def test_five_move_count_runs_on_inside_its_class():
    # two kings against a king, then the lone king takes one: still a
    # 5-move ending, counted from when it arose (documented choice)
    h = History(material=(0, 2, 0, 1)).king(4).capture((0, 1, 0, 1)).king(4)
    assert h.plies == 9 and h.outcome() is None
    h.king()
    assert h.outcome() == draw(Termination.FIVE_MOVES)


def test_no_endgame_rule_without_a_king_on_the_strong_side():
    rules = replace(FMJD, king_moves_limit=None)
    for material in [(3, 0, 0, 1), (2, 0, 0, 1), (1, 0, 0, 1)]:
        h = History(material=material)
        for _ in range(40):
            h.man().king()
        assert h.outcome(rules) is None
    # four pieces against a lone king, or two kings each: no move limit either
    for material in [(1, 3, 0, 1), (0, 4, 0, 1), (0, 2, 0, 2), (0, 1, 1, 0)]:
        assert History(material=material).king(49).outcome() is None


def test_sixteen_move_rule_switched_off():
    rules = replace(FMJD, sixteen_moves_limit=None)
    h, e = enter_sixteen()
    h.king(32)
    assert h.outcome(rules) is None
    assert h.outcome() == draw(Termination.SIXTEEN_MOVES)
    # the 5-move rule still applies
    h.capture((0, 2, 0, 1)).king(10)
    assert h.outcome(rules) == draw(Termination.FIVE_MOVES)


def test_five_move_rule_switched_off():
    rules = replace(FMJD, five_moves_limit=None)
    h = History(material=(0, 2, 0, 1)).king(10)
    assert h.outcome(rules) is None
    h.king(39)
    assert h.outcome(rules) is None
    h.king()  # 50 king plies: the 25-move rule still applies
    assert h.outcome(rules) == draw(Termination.KING_MOVES)


# ---------------------------------------------------------------------------
# King against king (seed 001 option)
# ---------------------------------------------------------------------------


def test_king_vs_king_immediate():
    rules = replace(FMJD, king_vs_king_immediate=True)
    h = History(material=(0, 2, 0, 1)).king(3)
    assert h.outcome(rules) is None
    h.capture((0, 1, 0, 1))
    assert h.outcome(rules) == draw(Termination.KING_VS_KING)
    # off by default: the 5-move rule decides
    assert h.outcome() is None
    assert History(material=(0, 1, 0, 1)).outcome(rules) == draw(Termination.KING_VS_KING)
    # a king and a man against a king is not king against king
    assert History(material=(1, 1, 0, 1)).outcome(rules) is None


def test_king_vs_king_default_is_five_moves():
    h = History(material=(0, 1, 0, 1)).king(9)
    assert h.outcome() is None
    h.king()
    assert h.outcome() == draw(Termination.FIVE_MOVES)


# ---------------------------------------------------------------------------
# Russian
# ---------------------------------------------------------------------------


def test_russian_three_kings_against_king():
    rules = replace(RUSSIAN, king_moves_limit=None)
    h = History(material=(1, 3, 1, 1)).king(3).capture((0, 3, 1, 1)).king(2).capture((0, 3, 0, 1))
    e = h.plies
    h.king(29)
    assert h.outcome(rules) is None and h.outcome(RUSSIAN) is None
    h.king()
    assert h.plies == e + 30
    assert h.outcome(rules) == draw(Termination.THREE_KINGS_VS_KING)
    # with the 15 king-move rule on as well, the more specific reason is reported
    assert h.outcome(RUSSIAN) == draw(Termination.THREE_KINGS_VS_KING)


def test_russian_three_kings_either_colour_and_more_kings():
    rules = replace(RUSSIAN, king_moves_limit=None)
    for material in [(0, 1, 0, 3), (0, 4, 0, 1)]:
        h = History(material=material).king(29)
        assert h.outcome(rules) is None
        h.king()
        assert h.outcome(rules) == draw(Termination.THREE_KINGS_VS_KING)


def test_russian_three_kings_count_restarts_on_capture():
    rules = replace(RUSSIAN, king_moves_limit=None)
    h = History(material=(0, 4, 0, 1)).king(20).capture((0, 3, 0, 1))
    c = h.plies
    h.king(29)
    assert h.outcome(rules) is None  # c + 29; 49 plies since the 4-king ending arose
    h.king()
    assert h.plies == c + 30 and h.outcome(rules) == draw(Termination.THREE_KINGS_VS_KING)


def test_russian_three_kings_needs_kings_only():
    # two kings and a man against a king: not the three-kings rule (nor a Russian 16-move rule)
    rules = replace(RUSSIAN, king_moves_limit=None)
    h = History(material=(1, 2, 0, 1))
    for _ in range(20):
        h.man().king()
    assert h.outcome(rules) is None


def test_russian_king_moves_15():
    h = History().king(29)
    assert h.outcome(RUSSIAN) is None
    h.king()
    assert h.outcome(RUSSIAN) == draw(Termination.KING_MOVES)
    h = History().king(20).man().king(29)
    assert h.outcome(RUSSIAN) is None
    h.king()
    assert h.outcome(RUSSIAN) == draw(Termination.KING_MOVES)


def alternate(h, plies):
    """Plies that keep the material: a man move and a king move in turn
    (so that the king-move rule never fires)."""
    for i in range(plies):
        if i % 2 == 0:
            h.man()
        else:
            h.king()
    return h


@pytest.mark.parametrize(
    "material, moves",
    [
        ((1, 1, 1, 1), 30),  # 4 pieces
        ((1, 2, 1, 1), 30),  # 5 pieces
        ((1, 2, 2, 1), 60),  # 6 pieces
        ((2, 2, 2, 1), 60),  # 7 pieces
    ],
)
def test_russian_balance_unchanged(material, moves):
    h = History(material=(material[0] + 1,) + material[1:]).man(3)
    h.capture(material)  # the balance arises here
    e = h.plies
    alternate(h, 2 * moves - 1)
    assert h.outcome(RUSSIAN) is None
    alternate(h, 1)
    assert h.plies == e + 2 * moves
    assert h.outcome(RUSSIAN) == draw(Termination.BALANCE_UNCHANGED)


def test_russian_balance_unchanged_restarts_on_promotion_and_capture():
    h = History(material=(2, 1, 1, 1))  # 5 pieces, both sides have kings
    alternate(h, 50)
    h.promote((1, 2, 1, 1))  # still 5 pieces, but the balance changed
    p = h.plies
    alternate(h, 59)
    assert h.outcome(RUSSIAN) is None
    alternate(h, 1)
    assert h.plies == p + 60 and h.outcome(RUSSIAN) == draw(Termination.BALANCE_UNCHANGED)
    h.capture((1, 2, 0, 1))  # 4 pieces
    c = h.plies
    alternate(h, 59)
    assert h.outcome(RUSSIAN) is None
    alternate(h, 1)
    assert h.plies == c + 60 and h.outcome(RUSSIAN) == draw(Termination.BALANCE_UNCHANGED)


def test_russian_balance_unchanged_needs_kings_on_both_sides_and_4_to_7_pieces():
    # one-sided kings, 8 pieces
    for material in [(2, 2, 3, 0), (1, 0, 1, 1), (3, 1, 3, 1), (2, 2, 3, 1)]:
        h = History(material=material)
        alternate(h, 130)
        assert h.outcome(RUSSIAN) is None, material


def test_russian_has_no_fmjd_endgame_rules():
    h = History(material=(1, 2, 0, 1))  # 16-move class
    alternate(h, 40)
    assert h.outcome(RUSSIAN) is None
    h = History(material=(1, 1, 0, 1))  # 5-move class
    alternate(h, 12)
    assert h.outcome(RUSSIAN) is None


def test_russian_rules_switched_off():
    rules = replace(RUSSIAN, three_kings_limit=None, king_moves_limit=None,
                    balance_unchanged_limits=())
    h = History(material=(0, 3, 0, 1)).king(100)
    assert h.outcome(rules) is None
    assert (h.outcome(replace(rules, balance_unchanged_limits={4: 30}))
            == draw(Termination.BALANCE_UNCHANGED))


# ---------------------------------------------------------------------------
# English
# ---------------------------------------------------------------------------


def test_english_forty_move_rule():
    h = History(material=(2, 2, 1, 3)).king(79)
    assert h.outcome(ENGLISH) is None
    h.king()
    assert h.outcome(ENGLISH) == draw(Termination.KING_MOVES)
    h = History().king(60).man().king(79)
    assert h.outcome(ENGLISH) is None
    h.king()
    assert h.outcome(ENGLISH) == draw(Termination.KING_MOVES)


def test_english_has_no_five_or_sixteen_move_rule():
    h = History(material=(0, 1, 0, 1)).king(10)
    assert h.outcome(ENGLISH) is None
    h = History(material=(1, 2, 0, 1)).king(32)
    assert h.outcome(ENGLISH) is None


def test_english_threefold():
    assert cycle([1, 2], 3).outcome(ENGLISH) is None
    assert (cycle([1, 2], 4, start_white=False).outcome(ENGLISH)
            == draw(Termination.THREEFOLD_REPETITION))


# ---------------------------------------------------------------------------
# Variant defaults and rule options
# ---------------------------------------------------------------------------


def test_international_defaults():
    r = Rules.for_variant("international")
    assert r == Rules()
    assert r.repetition_limit == 3
    assert r.king_moves_limit == 25
    assert r.sixteen_moves_limit == 16
    assert r.five_moves_limit == 5
    assert r.king_vs_king_immediate is False
    assert r.draw_offer_min_moves == 0
    assert r.piece_count_adjudication is False
    assert r.three_kings_limit is None
    assert r.balance_unchanged_limits == ()
    assert r.huff is False


def test_brazilian_uses_fmjd_rules():
    assert Rules.for_variant("brazilian") == Rules.for_variant("international")


def test_english_defaults():
    r = Rules.for_variant("english")
    assert (r.repetition_limit, r.king_moves_limit) == (3, 40)
    assert r.sixteen_moves_limit is None and r.five_moves_limit is None
    assert r.three_kings_limit is None and r.balance_unchanged_limits == ()
    assert r.huff is False
    assert replace(r, huff=True).huff is True


def test_russian_defaults():
    r = Rules.for_variant("russian")
    assert (r.repetition_limit, r.king_moves_limit, r.three_kings_limit) == (3, 15, 15)
    assert r.sixteen_moves_limit is None and r.five_moves_limit is None
    assert ([r.balance_unchanged_limit(n) for n in range(2, 10)]
            == [None, None, 30, 30, 60, 60, None, None])


def test_for_variant_accepts_variant_objects_and_aliases():
    assert Rules.for_variant(get_variant("russian")) == RUSSIAN
    assert Rules.for_variant("Checkers") == ENGLISH
    assert Rules.for_variant("FMJD") == FMJD
    with pytest.raises(ValueError):
        Rules.for_variant("xiangqi")


def test_rules_are_frozen_and_hashable():
    with pytest.raises(FrozenInstanceError):
        FMJD.king_moves_limit = 10  # type: ignore[misc]
    assert hash(RUSSIAN) == hash(replace(RUSSIAN))
    assert replace(RUSSIAN, balance_unchanged_limits={7: 60, 6: 60, 5: 30, 4: 30}) == RUSSIAN


@pytest.mark.parametrize(
    "field, value",
    [
        ("king_moves_limit", 0),
        ("sixteen_moves_limit", -1),
        ("five_moves_limit", 2.5),
        ("three_kings_limit", True),
        ("repetition_limit", 1),
        ("draw_offer_min_moves", -1),
        ("huff", 1),
        ("balance_unchanged_limits", ((4, 0),)),
        ("balance_unchanged_limits", ((4, 30), (4, 60))),
        ("balance_unchanged_limits", (4, 30)),
    ],
)
def test_rules_validation(field, value):
    with pytest.raises(ValueError):
        replace(FMJD, **{field: value})


def test_seed_001_options_together():
    # seed 001: king against king drawn at once, piece-count adjudication, draw
    # offers after 40 moves each, tournament rules switched off
    site = replace(
        FMJD,
        king_vs_king_immediate=True,
        piece_count_adjudication=True,
        draw_offer_min_moves=40,
        king_moves_limit=None,
        sixteen_moves_limit=None,
    )
    assert History().king(200).outcome(site) is None
    h, _ = enter_sixteen()
    assert h.king(40).outcome(site) is None
    assert History(material=(0, 1, 0, 1)).outcome(site) == draw(Termination.KING_VS_KING)
    assert not draw_offer_allowed(79, site) and draw_offer_allowed(80, site)


# ---------------------------------------------------------------------------
# Adjudication and draw offers
# ---------------------------------------------------------------------------


def snap(material, white_to_move=True):
    wm, wk, bm, bk = material
    return Snapshot(0, white_to_move, wm, wk, bm, bk, False, False, False)


@pytest.mark.parametrize(
    "material, winner",
    [
        ((5, 0, 4, 0), WHITE),  # more pieces
        ((3, 0, 1, 1), WHITE),  # more pieces beats more kings
        ((1, 0, 0, 3), BLACK),
        ((2, 1, 1, 2), BLACK),  # equal count, Black has more kings
        ((0, 2, 1, 1), WHITE),
        ((2, 1, 2, 1), None),  # equal pieces and kings
        ((0, 1, 0, 1), None),
    ],
)
def test_adjudication(material, winner):
    out = adjudicate(snap(material))
    assert out == Outcome(Termination.ADJUDICATION, winner)
    assert adjudicate(snap(material, white_to_move=False)) == out  # side to move does not matter


def test_adjudication_is_never_automatic():
    rules = replace(FMJD, piece_count_adjudication=True)
    assert History(material=(5, 0, 1, 0)).outcome(rules) is None


def test_draw_offer_threshold():
    assert draw_offer_allowed(0, FMJD)
    rules = replace(FMJD, draw_offer_min_moves=40)
    assert not draw_offer_allowed(0, rules)
    assert not draw_offer_allowed(79, rules)  # White made 40 moves, Black 39
    assert draw_offer_allowed(80, rules)
    assert draw_offer_allowed(81, rules)
    with pytest.raises(ValueError):
        draw_offer_allowed(-1, FMJD)


# ---------------------------------------------------------------------------
# Outcome and Termination
# ---------------------------------------------------------------------------


def test_results():
    assert Outcome(Termination.NO_MOVES, WHITE).result() == "1-0"
    assert Outcome(Termination.NO_MOVES, BLACK).result() == "0-1"
    assert Outcome(Termination.RESIGNATION, BLACK).result() == "0-1"
    assert Outcome(Termination.AGREEMENT, None).result() == "1/2-1/2"
    assert Outcome(Termination.ADJUDICATION, None).result() == "1/2-1/2"
    assert Outcome(Termination.ADJUDICATION, WHITE).result() == "1-0"
    assert Outcome(Termination.FIVE_MOVES, None).is_draw


def test_outcome_consistency_checks():
    with pytest.raises(ValueError):
        Outcome(Termination.NO_MOVES, None)
    with pytest.raises(ValueError):
        Outcome(Termination.RESIGNATION, None)
    with pytest.raises(ValueError):
        Outcome(Termination.KING_MOVES, WHITE)
    with pytest.raises(ValueError):
        Outcome(Termination.NO_MOVES, 1)  # type: ignore[arg-type]


def test_descriptions():
    assert Termination.KING_MOVES.describe(FMJD) == "25 king moves"
    assert Termination.KING_MOVES.describe(RUSSIAN) == "15 king moves"
    assert Termination.KING_MOVES.describe(ENGLISH) == "40 king moves"
    assert Termination.KING_MOVES.describe() == "25 king moves"
    assert Termination.THREEFOLD_REPETITION.describe() == "threefold repetition"
    assert Termination.SIXTEEN_MOVES.describe() == "16-move rule"
    assert Termination.FIVE_MOVES.describe() == "5-move rule"
    assert (Termination.THREE_KINGS_VS_KING.describe(RUSSIAN)
            == "three kings against a lone king (15 moves)")
    for t in Termination:
        assert isinstance(t.describe(FMJD), str) and t.describe(RUSSIAN)


# ---------------------------------------------------------------------------
# Cost: how far back each call looks
# ---------------------------------------------------------------------------


class Watched(Sequence):
    """A list that records the lowest index read."""

    def __init__(self, items):
        self.items = items
        self.lowest = len(items)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        j = i if i >= 0 else len(self.items) + i
        self.lowest = min(self.lowest, j)
        return self.items[i]


def test_lookback_is_bounded():
    # a long game of king moves with a man move every 40 plies: every call looks
    # back at most to the last man move (repetition) / 50 plies (king-move rule)
    h = History()
    for _ in range(100):
        h.man().king(39)
    w = Watched(h.snaps)
    assert compute_outcome(w, FMJD, True) is None
    assert len(h.snaps) - 1 - w.lowest <= 50
    # long endgame: the rule only needs its own window
    h = History(material=(1, 3, 0, 1))
    for _ in range(300):
        h.man().king()
    h.capture((1, 2, 0, 1)).king(32)
    w = Watched(h.snaps)
    assert compute_outcome(w, FMJD, True) == draw(Termination.SIXTEEN_MOVES)
    assert len(h.snaps) - 1 - w.lowest <= 33


def test_long_game_every_move():
    # compute_outcome after each of 3000 plies stays cheap (no quadratic scan)
    h = History()
    rules = replace(FMJD, king_moves_limit=None)
    for i in range(3000):
        if i % 100 == 0:
            h.man()
        else:
            h.king()
        assert compute_outcome(h.snaps, rules, True) is None


def test_snapshot_helpers():
    s = snap((1, 2, 3, 4))
    assert s.material == (1, 2, 3, 4) and s.pieces == 10
    with pytest.raises(FrozenInstanceError):
        s.key = 5  # type: ignore[misc]
