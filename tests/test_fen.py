"""Tests for damier.fen: strict FEN parsing with clear errors, and writing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from damier.errors import InvalidFenError
from damier.fen import format_fen, parse_fen
from damier.piece import BLACK, WHITE, Piece
from damier.variants import VARIANTS, get_variant

WM, WK, BM, BK = Piece(WHITE), Piece(WHITE, True), Piece(BLACK), Piece(BLACK, True)


# -- reading ------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=list(VARIANTS))
def test_initial_positions(variant):
    white_to_move, pieces = parse_fen(variant.initial_fen, variant)
    assert white_to_move == variant.white_starts
    # men on the first 4 rows (10x10) or 3 rows (8x8) each, but Frysk!: its back row only
    # (lidraughts' Frysk!, "Frisian draughts starting with 5 pieces each")
    rows = 1 if variant.name == "frysk" else (4 if variant.size == 10 else 3)
    if variant.all_squares:
        # Turkish: 16 men each on the second and third rows, the back row empty
        assert sorted(sq for sq, p in pieces.items() if p == BM) == list(range(9, 25))
        assert sorted(sq for sq, p in pieces.items() if p == WM) == list(range(41, 57))
        assert format_fen(white_to_move, pieces, variant, compact=True) == variant.initial_fen
        return
    n = variant.per_row * rows
    assert sorted(sq for sq, p in pieces.items() if p == BM) == list(range(1, n + 1))
    assert sorted(sq for sq, p in pieces.items() if p == WM) == list(range(variant.squares - n + 1,
                                                                             variant.squares + 1))
    assert len(pieces) == 2 * n
    assert format_fen(white_to_move, pieces, variant, compact=True) == variant.initial_fen


def test_variant_by_name_and_object():
    assert parse_fen("W:W21:B1", "english") == parse_fen("W:W21:B1", get_variant("english"))


def test_kings_singles_and_ranges():
    assert parse_fen("W:WK46") == (True, {46: WK})
    assert parse_fen("W:W31,K32") == (True, {31: WM, 32: WK})
    assert parse_fen("B:BK1-3") == (False, {1: BK, 2: BK, 3: BK})
    assert parse_fen("B:BK1-K3") == parse_fen("B:BK1-3")
    assert parse_fen("W:W31-33,K34,35") == (True, {31: WM, 32: WM, 33: WM, 34: WK, 35: WM})
    assert parse_fen("W:W7-7") == (True, {7: WM})


def test_section_order_and_empty_sections():
    assert parse_fen("W:B1-20:W31-50") == parse_fen("W:W31-50:B1-20")
    assert parse_fen("W:W:B1") == (True, {1: BM})
    assert parse_fen("B:W:B") == (False, {})
    assert parse_fen("W:B10") == (True, {10: BM})  # a missing section means no pieces


def test_result_is_ordered_by_square():
    _, pieces = parse_fen("W:W50,31,40:B20,1")
    assert list(pieces) == [1, 20, 31, 40, 50]


def test_tolerated_forms():
    expected = parse_fen("W:W31-50:B1-20")
    assert parse_fen("  W:W31-50:B1-20 \n") == expected
    assert parse_fen("W:W31-50:B1-20.") == expected
    assert parse_fen("W:W31-50:B1-20:H0:F1") == expected
    assert parse_fen("W:W31-50:B1-20:H0:F1.") == expected
    assert parse_fen("w:w31-50:b1-20") == expected
    assert parse_fen("W : W31-50 : B1-20") == expected
    assert parse_fen("W:W31, 32:B1 ,k2") == (True, {1: BM, 2: BK, 31: WM, 32: WM})
    assert parse_fen("B:W31:B1:F12:H3") == (False, {1: BM, 31: WM})


def test_kings_may_stand_on_any_row():
    assert parse_fen("W:WK1:BK50") == (True, {1: WK, 50: BK})
    # and men may stand on the opponent's crowning row
    assert parse_fen("W:W46:B5") == (True, {5: BM, 46: WM})


def _error(fen, variant="international"):
    with pytest.raises(InvalidFenError) as info:
        parse_fen(fen, variant)
    return str(info.value)


@pytest.mark.parametrize("fen", ["", "   ", ".", "\n"])
def test_empty(fen):
    assert "empty FEN" in _error(fen)


def test_bad_side_to_move():
    assert _error("X:W31:B1") == 'bad side to move "X": expected W or B (FEN "X:W31:B1")'
    assert 'bad side to move "WB"' in _error("WB:W31:B1")
    assert 'bad side to move ""' in _error(":W31:B1")


def test_no_sections():
    assert "no piece sections" in _error("W")


def test_unknown_section():
    msg = _error("W:W31:X1")
    assert 'unknown section "X1"' in msg
    assert 'unknown section "H"' in _error("W:W31:B1:H")


def test_repeated_section():
    assert 'the W section appears twice (second one: "W32")' in _error("W:W31:B1:W32")
    assert 'repeated "H" field "H2"' in _error("W:W31:B1:H0:H2")


def test_empty_field_and_entries():
    assert "empty field 1" in _error("W::B1")
    assert 'empty entry in the W section "W31,,32"' in _error("W:W31,,32:B1")
    assert "empty entry" in _error("W:W31,:B1")


def test_square_out_of_range():
    assert _error("W:W51:B1") == ('square 51 is out of range 1-50 for International '
                                  '(entry "51" in the W section of FEN "W:W51:B1")')
    assert "square 33 is out of range 1-32 for English" in _error("B:W33:B1", "english")
    assert "square 0 is out of range 1-50" in _error("W:W0:B1")
    assert ('square 55 is out of range 1-50 for International (entry "45-55"'
            in _error("W:W45-55:B1"))
    assert "square 33 is out of range 1-32 for Russian" in _error("W:W21:BK33", "russian")


def test_square_used_twice():
    msg = _error("W:W31:B31")
    assert ('square 31 is used twice: white man ("31" in the W section) and black man '
            '("31" in the B section)') in msg
    msg = _error("W:W30-33:BK32")
    assert ('square 32 is used twice: white man ("30-33" in the W section) and black king '
            '("K32" in the B section)') in msg
    assert "square 35 is used twice" in _error("W:W31-35,35:B1")


def test_man_on_own_crowning_row():
    msg = _error("W:W3:B10")
    assert msg.startswith('white man on square 3 ("3" in the W section) stands on White\'s '
                          "crowning row (squares 1-5): impossible position")
    msg = _error("W:W40:B46")
    assert "black man on square 46" in msg and "(squares 46-50)" in msg
    assert "black man on square 29" in _error("B:W21:B29", "english")
    assert "white man on square 1 (\"1-4\" in the W section)" in _error("W:W1-4:B10", "brazilian")


def test_bad_ranges():
    assert 'descending range "31-20" in the W section' in _error("W:W31-20:B1")
    assert 'bad range "1-K3"' in _error("W:W1-K3:B10")
    assert 'bad entry "31-"' in _error("W:W31-:B1")
    assert 'bad entry "31-32-33"' in _error("W:W31-32-33:B1")


@pytest.mark.parametrize("fen, token", [
    ("W:W31-50:B1-20x", "1-20x"),
    ("W:W31;32:B1", "31;32"),
    ("W:W31 32:B1", "31 32"),
    ("W:WKK31:B1", "KK31"),
    ("W:W+31:B1", "+31"),
    ("W:Wa1:B1", "a1"),
])
def test_garbage_entries(fen, token):
    assert f'bad entry "{token}"' in _error(fen)


def test_quoted_fen_is_rejected_with_a_hint():
    assert "quote" in _error('"W:W31-50:B1-20"')


def test_not_a_string():
    with pytest.raises(TypeError):
        parse_fen(None)  # type: ignore[arg-type]


def test_unknown_variant():
    with pytest.raises(ValueError, match="unknown variant"):
        parse_fen("W:W31:B1", "xiangqi")


def test_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_fen("W:W99")


# -- writing ------------------------------------------------------------------


def test_format_plain_and_compact():
    _, pieces = parse_fen("W:W31-50:B1-20")
    plain = format_fen(True, pieces)
    assert plain == ("W:W" + ",".join(map(str, range(31, 51)))
                     + ":B" + ",".join(map(str, range(1, 21))))
    assert format_fen(True, pieces, compact=True) == "W:W31-50:B1-20"


def test_format_kings_and_runs():
    pieces = {1: BK, 2: BK, 3: BK, 4: BM, 5: BK, 6: BK,
              28: WM, 29: WM, 30: WK, 31: WM, 32: WM, 33: WM}
    assert format_fen(False, pieces) == "B:W28,29,K30,31,32,33:BK1,K2,K3,4,K5,K6"
    assert format_fen(False, pieces, compact=True) == "B:W28,29,K30,31-33:BK1-3,4,K5,K6"


def test_format_empty_and_tuples():
    assert format_fen(True, {}) == "W:W:B"
    assert format_fen(False, {10: (True, False), 11: (False, True)}, "russian") == "B:W10:BK11"


def test_format_rejects_bad_squares():
    with pytest.raises(InvalidFenError, match="square 33 is out of range 1-32 for English"):
        format_fen(True, {33: WM}, "english")
    with pytest.raises(InvalidFenError, match="not an integer"):
        format_fen(True, {"5": WM})  # type: ignore[dict-item]


# -- round trips --------------------------------------------------------------


@st.composite
def positions(draw):
    variant = draw(st.sampled_from(list(VARIANTS.values())))
    squares = draw(st.sets(st.integers(1, variant.squares), max_size=variant.squares))
    pieces = {}
    for sq in sorted(squares):
        row = variant.row_col(sq)[0]
        choices = [WK, BK]
        if row != variant.promotion_row(WHITE):
            choices.append(WM)
        if row != variant.promotion_row(BLACK):
            choices.append(BM)
        pieces[sq] = draw(st.sampled_from(choices))
    return variant, draw(st.booleans()), pieces


@settings(max_examples=300, deadline=None)
@given(positions(), st.booleans())
def test_round_trip(position, compact):
    variant, white_to_move, pieces = position
    fen = format_fen(white_to_move, pieces, variant, compact=compact)
    assert parse_fen(fen, variant) == (white_to_move, pieces)
    # writing what was read gives the same text back
    assert format_fen(*parse_fen(fen, variant), variant, compact=compact) == fen


@settings(max_examples=300, deadline=None)
@given(positions())
def test_compact_is_never_longer_and_means_the_same(position):
    variant, white_to_move, pieces = position
    compact = format_fen(white_to_move, pieces, variant, compact=True)
    plain = format_fen(white_to_move, pieces, variant)
    assert len(compact) <= len(plain)
    assert parse_fen(compact, variant) == parse_fen(plain, variant)


_fen_chars = st.text(alphabet="WBKwbk0123456789-,:. HF", max_size=30)


@settings(max_examples=500, deadline=None)
@given(_fen_chars, st.sampled_from(list(VARIANTS)))
def test_parse_is_stable_or_fails_cleanly(text, variant):
    try:
        parsed = parse_fen(text, variant)
    except InvalidFenError:
        return
    again = parse_fen(format_fen(*parsed, variant), variant)
    assert again == parsed
    assert parse_fen(format_fen(*again, variant, compact=True), variant) == parsed
