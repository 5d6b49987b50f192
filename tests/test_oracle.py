"""Tests of the pure-Python oracle move generator (damier.oracle).

Expected values come only from the reference data in ``tests/data/reference``
(published perft counts and FMJD rule positions) and from hand-made positions worked out from
the rule texts, never from the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from damier.oracle import OracleMove, Position, notation, perft

REFERENCE = Path(__file__).resolve().parent / "data" / "reference"
PERFT_FILE = REFERENCE / "perft.txt"
RULES_FILE = REFERENCE / "rules.txt"

# Perft depths are tested while the published count stays at or below this
# many leaves: that keeps the whole file at a few seconds.
MAX_LEAVES = 30_000


def _data_lines(path: Path) -> list[str]:
    if not path.exists():   # part of the repository: missing is an error, not a skip
        raise FileNotFoundError(f"reference data not found: {path}")
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _perft_cases() -> list:
    cases = []
    for line in _data_lines(PERFT_FILE):
        variant, name, fen, counts = line.split(";")
        counts = [int(c) for c in counts.split(",")]
        for depth, count in enumerate(counts, start=1):
            if count <= MAX_LEAVES or depth == 1:
                cases.append(pytest.param(variant, fen, depth, count,
                                          id=f"{variant}-{name}-d{depth}"))
    return cases


def _rule_cases() -> list:
    cases = []
    for number, line in enumerate(_data_lines(RULES_FILE), start=1):
        fen, rule, moves = line.split(";")
        cases.append(pytest.param(fen, moves.split(), id=f"{number}-{rule[:40]}"))
    return cases


def texts(position: Position, captures_optional: bool = False) -> set[str]:
    legal = position.legal_moves(captures_optional=captures_optional)
    result = {notation(move, legal) for move in legal}
    assert len(result) == len(legal), "two legal moves print the same"
    return result


def only_move(position: Position) -> OracleMove:
    legal = position.legal_moves()
    assert len(legal) == 1, legal
    return legal[0]


# ----------------------------------------------------------------- reference data



@pytest.mark.parametrize("variant, fen, depth, count",
                         _perft_cases() or [pytest.param(None, None, 0, 0, id="none")])
def test_perft_reference(variant, fen, depth, count):
    position = Position.initial(variant) if fen == "initial" else Position.from_fen(fen, variant)
    assert perft(position, depth) == count


@pytest.mark.parametrize("fen, expected", _rule_cases() or [pytest.param(None, None, id="none")])
def test_international_rule_positions(fen, expected):
    position = Position.from_fen(fen, "international")
    assert texts(position) == set(expected)


# ----------------------------------------------------------------- hand-made rule tests
#
# 8x8 squares (row 0 at the top, as White sees the board):
#   row 0:  1  2  3  4   (columns 1 3 5 7)      row 4: 17 18 19 20  (1 3 5 7)
#   row 1:  5  6  7  8   (columns 0 2 4 6)      row 5: 21 22 23 24  (0 2 4 6)
#   row 2:  9 10 11 12                          row 6: 25 26 27 28
#   row 3: 13 14 15 16                          row 7: 29 30 31 32


def test_english_man_cannot_capture_backwards():
    # The black man on 22 is behind the white man on 18, with 25 empty beyond it.
    assert texts(Position.from_fen("W:W18:B22", "english")) == {"18-14", "18-15"}
    # Russian (and Brazilian) men do capture backwards.
    assert texts(Position.from_fen("W:W18:B22", "russian")) == {"18x25"}
    assert texts(Position.from_fen("W:W18:B22", "brazilian")) == {"18x25"}


def test_english_man_captures_forward_only_but_king_both_ways():
    assert texts(Position.from_fen("W:W22:B18,26", "english")) == {"22x15"}
    assert texts(Position.from_fen("W:WK22:B18,26", "english")) == {"22x15", "22x31"}


def test_english_king_is_short():
    # The black man on 18 is three squares up the long diagonal from the king on 29.
    assert texts(Position.from_fen("W:WK29:B18", "english")) == {"29-25"}
    # A flying king takes it at a distance and lands on any free square beyond it.
    assert texts(Position.from_fen("W:WK29:B18", "brazilian")) == {"29x15", "29x11", "29x8", "29x4"}
    # A short king moves one square; a flying king any distance.
    assert texts(Position.from_fen("W:WK29:B1", "english")) == {"29-25"}
    flying = {"29-25", "29-22", "29-18", "29-15", "29-11", "29-8", "29-4"}
    assert texts(Position.from_fen("W:WK29:B1", "russian")) == flying


def test_russian_man_crowned_mid_capture_continues_as_king():
    # 9x2 over 6 reaches the far row; as a king it goes on over 7 and lands anywhere beyond.
    position = Position.from_fen("W:W9:B6,7", "russian")
    assert texts(position) == {"9x11", "9x16", "9x20"}
    for move in position.legal_moves():
        assert move.captures == (6, 7)
        assert move.path[:2] == (9, 2)
        assert move.promotes
    # Going on as a flying king: 11 is taken from a distance (7 is passed over).
    assert texts(Position.from_fen("W:W9:B6,11", "russian")) == {"9x16", "9x20"}
    after = Position.from_fen("W:W9:B6,7", "russian")
    move = next(m for m in after.legal_moves() if m.to_square == 20)
    assert after.play(move).pieces == {20: "W"}


def test_english_man_crowned_mid_capture_stops():
    position = Position.from_fen("W:W9:B6,7", "english")
    move = only_move(position)
    assert ((move.from_square, move.to_square, move.captures, move.path, move.promotes)
            == (9, 2, (6,), (9, 2), True))
    after = position.play(move)
    assert after.pieces == {2: "W", 7: "b"}
    assert after.white_to_move is False


def test_brazilian_man_passing_the_far_row_is_not_crowned():
    # The man lands on 2 but, still a man, must go on capturing backwards over 7.
    move = only_move(Position.from_fen("W:W9:B6,7", "brazilian"))
    assert ((move.to_square, move.captures, move.path, move.promotes)
            == (11, (6, 7), (9, 2, 11), False))


def test_man_crowned_by_a_plain_move_to_the_far_row():
    position = Position.from_fen("W:W6:B32", "english")
    assert texts(position) == {"6-1", "6-2"}
    assert all(m.promotes for m in position.legal_moves())
    # A black man on 27 steps down to 31 on the last row (32 is held by White).
    black = Position.from_fen("B:W32:B27", "brazilian")
    assert texts(black) == {"27-31"}
    assert only_move(black).promotes


def test_brazilian_majority_capture():
    # Over 22 to 17 takes one piece; over 23 and 16 to 12 takes two.
    assert texts(Position.from_fen("W:W26:B16,22,23", "brazilian")) == {"26x12"}


def test_russian_and_english_free_choice_of_a_shorter_capture():
    # Free choice between the two sequences, but each must be completed (no 26x19).
    assert texts(Position.from_fen("W:W26:B16,22,23", "russian")) == {"26x17", "26x12"}
    assert texts(Position.from_fen("W:W26:B16,22,23", "english")) == {"26x17", "26x12"}


def test_flying_king_must_land_where_it_can_capture_further():
    # The king on 29 takes 22; of the squares beyond (18, 15, 11, 8, 4) only from 15
    # can it capture further (over 10), so it must land on 15 and go on.
    position = Position.from_fen("W:WK29:B10,22", "russian")
    assert texts(position) == {"29x6", "29x1"}
    assert {m.path for m in position.legal_moves()} == {(29, 15, 6), (29, 15, 1)}


def test_captures_optional_adds_the_ordinary_moves():
    position = Position.from_fen("W:W22:B18,26", "english")
    assert texts(position) == {"22x15"}
    assert texts(position, captures_optional=True) == {"22x15", "22-17"}
    # Without a capture the flag changes nothing.
    quiet = Position.from_fen("W:W22:B1", "english")
    assert texts(quiet, captures_optional=True) == texts(quiet) == {"22-17", "22-18"}


def test_black_men_move_down_and_english_black_starts():
    assert texts(Position.from_fen("B:W32:B1", "english")) == {"1-5", "1-6"}
    assert Position.initial("english").white_to_move is False
    assert Position.initial("russian").white_to_move is True
    assert texts(Position.initial("english")) == {"9-13", "9-14", "10-14", "10-15", "11-15",
                                                  "11-16", "12-16"}


# ----------------------------------------------------------------- helpers and interface


def test_from_fen_ranges_and_kings():
    position = Position.from_fen("B:W6,9,K31:BK17,K24,1-3", "international")
    assert position.white_to_move is False
    assert position.pieces == {6: "w", 9: "w", 31: "W", 17: "B", 24: "B", 1: "b", 2: "b", 3: "b"}
    assert len(Position.initial("international").pieces) == 40
    assert len(Position.initial("brazilian").pieces) == 24


def test_move_key_and_notation_of_plain_moves():
    move = OracleMove(32, 28, (), (32, 28), False)
    assert move.key() == (32, 28, frozenset())
    assert notation(move, [move]) == "32-28"
    capture = OracleMove(19, 28, (23,), (19, 28), False)
    assert notation(capture, [capture]) == "19x28"
    a = OracleMove(4, 15, (27, 38, 31), (4, 27, 38, 15), False)
    b = OracleMove(4, 15, (31, 42, 27), (4, 31, 42, 15), False)
    assert a.key() != b.key()
    assert notation(a, [a, b]) == "4x27x38x15"


def test_same_captured_set_by_two_paths_is_one_move():
    # The king on 38 can go round 32, 33, 19, 18 either way and come back to 38.
    position = Position.from_fen("W:WK38:B18,19,32,33", "international")
    round_trips = [m for m in position.legal_moves() if m.to_square == 38]
    assert len(round_trips) == 1
    assert sorted(round_trips[0].captures) == [18, 19, 32, 33]


def test_play_removes_captured_pieces_and_flips_the_side():
    position = Position.from_fen("W:W35:B30,K40", "international")
    move = next(m for m in position.legal_moves() if m.to_square == 24)
    after = position.play(move)
    assert after.pieces == {24: "w", 40: "B"}
    assert after.white_to_move is False
    assert position.pieces == {35: "w", 30: "b", 40: "B"}  # the original is unchanged
