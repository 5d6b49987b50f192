"""Behaviour of the Board API (python-chess style) and of Move.

Expected values are worked out by hand from the board geometry of
docs/ARCHITECTURE.md and the rule texts (International: White 31-50 and Black
1-20, White starts; English: Black starts; compulsory capture; the huff rule),
or taken from tests/data/reference/rules.txt, never from the code under test.
"""

from __future__ import annotations

import copy
import dataclasses
import random

import pytest

import damier
from damier import (BLACK, WHITE, AmbiguousMoveError, Board, IllegalMoveError, Move, Piece,
                    Rules)

INITIAL = "W:W31-50:B1-20"
INTERNATIONAL_OPENINGS = {"31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30",
                          "35-30"}
ENGLISH_OPENINGS = {"9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"}
# rules.txt: two captures 4x..x15 with the same start and end; 4x27x38x15 takes 13, 32 and
# 20, 4x31x42x15 takes 13, 37 and 20.
TWO_PATHS = "W:WK4:B13,20,32,37"
# rules.txt: the PDN standard's ambiguity example; 47x38x24x13x36 takes 42, 29, 19, 31 and
# 47x38x20x9x36 takes 42, 29, 14, 31.
PDN_EXAMPLE = "W:WK47:B14,19,29,31,42"
# White man on 28 must capture: 28x19 (over 23) or 28x17 (over 22).
TWO_CAPTURES = "W:W28,40:B22,23"


def texts(board: Board) -> set[str]:
    return {board.notation(m) for m in board.legal_moves}


# -- set-up and queries -----------------------------------------------------------


def test_initial_position():
    board = Board()
    assert board.turn == WHITE
    assert board.move_stack == [] and board.ply == 0
    assert board == Board(INITIAL)
    pieces = board.piece_map()
    assert set(pieces) == set(range(1, 21)) | set(range(31, 51))
    assert all(pieces[s] == Piece(BLACK, False) for s in range(1, 21))
    assert all(pieces[s] == Piece(WHITE, False) for s in range(31, 51))
    assert texts(board) == INTERNATIONAL_OPENINGS


def test_english_starts_with_black():
    board = Board(variant="english")
    assert board.turn == BLACK
    assert board.fen().startswith("B:")
    assert set(board.piece_map()) == set(range(1, 13)) | set(range(21, 33))
    assert board.piece_at(1) == Piece(BLACK, False)
    assert board.piece_at(32) == Piece(WHITE, False)
    assert texts(board) == ENGLISH_OPENINGS


@pytest.mark.parametrize("variant", ["russian", "brazilian"])
def test_russian_and_brazilian_start_with_white(variant):
    board = Board(variant=variant)
    assert board.turn == WHITE
    assert texts(board) == {"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"}


def test_piece_at_and_piece_map():
    board = Board("B:W6,K31:BK17,24")
    assert board.piece_at(6) == Piece(WHITE, False)
    assert board.piece_at(31) == Piece(WHITE, True)
    assert board.piece_at(17) == Piece(BLACK, True)
    assert board.piece_at(24) == Piece(BLACK, False)
    assert board.piece_at(1) is None
    assert board.piece_map() == {6: Piece(WHITE, False), 17: Piece(BLACK, True),
                                 24: Piece(BLACK, False), 31: Piece(WHITE, True)}
    assert board.turn == BLACK


@pytest.mark.parametrize("square", [0, 51, -1])
def test_piece_at_off_the_board(square):
    with pytest.raises(ValueError, match=str(square)):
        Board().piece_at(square)


def test_piece_at_off_the_8x8_board():
    with pytest.raises(ValueError, match="33"):
        Board(variant="english").piece_at(33)


def test_must_capture():
    assert not Board().must_capture
    assert Board(TWO_CAPTURES).must_capture
    assert Board(PDN_EXAMPLE).must_capture
    # Black's lone man on 5 and White's on 46 are far apart: nothing to capture.
    assert not Board("B:W46:B5").must_capture
    # English men capture forward only: the black man on 18 cannot take the white man on 14
    # behind it, but the one on 9 can take it forward (9x18).
    assert not Board("B:W14:B18", variant="english").must_capture
    assert Board("B:W14:B9", variant="english").must_capture


def test_set_up_helpers():
    board = Board()
    board.push("32-28")
    board.clear()
    assert board.piece_map() == {} and board.move_stack == [] and board.turn == WHITE
    board.reset()
    assert board == Board() and board.move_stack == []
    board.set_piece_map({28: Piece(WHITE, False), 23: Piece(BLACK, True)}, BLACK)
    assert board.fen() == "B:W28:BK23"
    board.set_fen(PDN_EXAMPLE)
    assert board == Board(PDN_EXAMPLE)


# -- push / pop ---------------------------------------------------------------------


def test_push_text_and_move_are_the_same():
    a, b = Board(), Board()
    played_a = a.push("32-28")
    played_b = b.push(Move(32, 28))
    assert played_a == played_b == Move(32, 28)
    assert a == b and a.fen() == b.fen()
    assert a.turn == BLACK
    assert a.piece_at(28) == Piece(WHITE, False) and a.piece_at(32) is None


def test_push_capture_move_without_path_returns_the_full_move():
    board = Board(TWO_CAPTURES)
    played = board.push(Move(28, 19, captures=(23,)))
    assert played == Move(28, 19, captures=(23,))
    assert played.path == (28, 19)
    assert board.piece_at(23) is None and board.piece_at(19) == Piece(WHITE, False)
    assert board.piece_at(22) == Piece(BLACK, False)


def test_push_returns_the_path_of_a_long_capture():
    board = Board(TWO_PATHS)
    played = board.push(Move(4, 15, captures=(20, 13, 32)))
    assert played.path == (4, 27, 38, 15)
    assert board.fen() == "B:WK15:B37"


def test_push_pop_restores_fen_turn_and_hash():
    board = Board()
    history = []
    for text in ["32-28", "19-23", "28x19", "14x23", "33-28"]:
        history.append((board.fen(), board.turn, board.zobrist_hash()))
        board.push(text)
    assert board.ply == 5
    assert board.peek() == Move(33, 28)
    while history:
        fen, turn, key = history.pop()
        board.pop()
        assert (board.fen(), board.turn, board.zobrist_hash()) == (fen, turn, key)
    assert board == Board() and board.move_stack == []


@pytest.mark.parametrize("variant", ["international", "english", "russian", "brazilian"])
def test_random_games_push_pop_round_trip(variant):
    rng = random.Random(f"board-{variant}")
    for _ in range(5):
        board = Board(variant=variant)
        fens = []
        for _ in range(120):
            moves = board.legal_moves
            if not moves:
                break
            fens.append((board.fen(), board.turn))
            move = rng.choice(moves)
            played = board.push(move)
            assert played == move and board.move_stack[-1] == move
            assert board.turn != fens[-1][1]
        assert len(board.move_stack) == len(fens)
        while fens:
            fen, turn = fens.pop()
            board.pop()
            assert board.fen() == fen and board.turn == turn
        assert board == Board(variant=variant)


def test_pop_and_peek_on_an_empty_stack():
    with pytest.raises(IndexError):
        Board().pop()
    with pytest.raises(IndexError):
        Board().peek()


def test_push_rejects_other_types():
    with pytest.raises(TypeError):
        Board().push(3228)


def test_push_notation():
    board = Board()
    assert board.push_notation("32-28") == Move(32, 28)
    assert board.turn == BLACK


def test_is_legal():
    board = Board(TWO_CAPTURES)
    assert board.is_legal(Move(28, 19, captures=(23,)))
    assert board.is_legal(Move(28, 17, captures=(22,)))
    assert not board.is_legal(Move(40, 34))  # a capture is compulsory
    assert not board.is_legal(Move(28, 17, captures=(23,)))  # wrong captured piece


# -- illegal and ambiguous moves ---------------------------------------------------------


def test_errors_are_value_errors():
    assert issubclass(IllegalMoveError, ValueError)
    assert issubclass(AmbiguousMoveError, ValueError)


@pytest.mark.parametrize("text", ["32-29", "46-41", "32x28", "31-22"])
def test_illegal_text_names_the_legal_moves(text):
    board = Board()
    with pytest.raises(IllegalMoveError) as info:
        board.push(text)
    message = str(info.value)
    assert text in message
    for legal in INTERNATIONAL_OPENINGS:
        assert legal in message
    assert "compulsory" not in message
    assert board == Board() and board.move_stack == []


@pytest.mark.parametrize("text", ["abc", "", "32", "32-", "51-46", "32-28-"])
def test_unreadable_text_is_an_illegal_move_error(text):
    with pytest.raises(IllegalMoveError):
        Board().parse_move(text)


def test_square_off_the_board_is_named():
    with pytest.raises(IllegalMoveError, match="51"):
        Board().parse_move("51-46")


@pytest.mark.parametrize("text", ["40-34", "40-35", "28-22"])
def test_illegal_text_says_capture_is_compulsory(text):
    board = Board(TWO_CAPTURES)
    with pytest.raises(IllegalMoveError) as info:
        board.push(text)
    message = str(info.value)
    assert "compulsory" in message
    assert "28x19" in message and "28x17" in message
    assert "40-34" not in message.split(text, 1)[1]  # quiet moves are not offered


def test_majority_rule_message_names_the_capture_to_play():
    # rules.txt: W:W48:B24,K31,34,K42,43 -> only 48x19 (a king counts as one piece).
    board = Board("W:W48:B24,K31,34,K42,43")
    with pytest.raises(IllegalMoveError) as info:
        board.push("48x39")
    assert "compulsory" in str(info.value)
    assert "48x19" in str(info.value)


def test_illegal_move_object_says_capture_is_compulsory():
    board = Board(TWO_CAPTURES)
    with pytest.raises(IllegalMoveError) as info:
        board.push(Move(40, 34))
    message = str(info.value)
    assert "28x19" in message and "28x17" in message
    assert "compulsory" in message


def test_illegal_move_object_with_wrong_captures_is_rejected():
    board = Board(TWO_CAPTURES)
    with pytest.raises(IllegalMoveError) as info:
        board.push(Move(28, 17, captures=(23,)))
    assert "28x17" in str(info.value) and "28x19" in str(info.value)
    assert board.fen() == Board(TWO_CAPTURES).fen() and board.move_stack == []


def test_no_legal_moves_message():
    board = Board("W:W46:B37,41")  # the man on 46 is stuck
    with pytest.raises(IllegalMoveError, match="no legal moves"):
        board.push("46-41")


@pytest.mark.parametrize("fen, text, candidates", [
    (TWO_PATHS, "4x15", ["4x27x38x15", "4x31x42x15"]),
    (PDN_EXAMPLE, "47x36", ["47x38x24x13x36", "47x38x20x9x36"]),
    (PDN_EXAMPLE, "47x38x36", ["47x38x24x13x36", "47x38x20x9x36"]),
    (TWO_PATHS, "4:15", ["4x27x38x15", "4x31x42x15"]),
])
def test_ambiguous_text_names_the_candidates(fen, text, candidates):
    board = Board(fen)
    with pytest.raises(AmbiguousMoveError) as info:
        board.parse_move(text)
    for candidate in candidates:
        assert candidate in str(info.value)
    with pytest.raises(ValueError):
        board.push(text)
    assert board.move_stack == []


# -- parsing forms ----------------------------------------------------------------------


@pytest.mark.parametrize("fen, text, path", [
    # short forms
    (INITIAL, "32-28", (32, 28)),
    (TWO_CAPTURES, "28x19", (28, 19)),
    (TWO_CAPTURES, "28:17", (28, 17)),            # ':' as the capture sign
    (TWO_CAPTURES, "28 x 19", (28, 19)),
    (INITIAL, "32-28!", (32, 28)),                # annotation glyphs are ignored
    ("W:WK46:B23", "46x10", (46, 10)),            # rules.txt
    # full paths
    (TWO_PATHS, "4x27x38x15", (4, 27, 38, 15)),
    (TWO_PATHS, "4x31x42x15", (4, 31, 42, 15)),
    (PDN_EXAMPLE, "47x38x24x13x36", (47, 38, 24, 13, 36)),
    (PDN_EXAMPLE, "47x38x20x9x36", (47, 38, 20, 9, 36)),
    (PDN_EXAMPLE, "47:38:20:9:36", (47, 38, 20, 9, 36)),
    # partial paths that pick one move
    (TWO_PATHS, "4x27x15", (4, 27, 38, 15)),
    (TWO_PATHS, "4x42x15", (4, 31, 42, 15)),
    (PDN_EXAMPLE, "47x24x36", (47, 38, 24, 13, 36)),
    (PDN_EXAMPLE, "47x9x36", (47, 38, 20, 9, 36)),
    # Hub style: from x to x captured pieces (any order)
    (TWO_PATHS, "4x15x13x32x20", (4, 27, 38, 15)),
    (TWO_PATHS, "4x15x20x37x13", (4, 31, 42, 15)),
    (TWO_CAPTURES, "28x19x23", (28, 19)),
    (TWO_CAPTURES, "28x17x22", (28, 17)),
])
def test_parse_forms(fen, text, path):
    board = Board(fen)
    move = board.parse_move(text)
    assert move in board.legal_moves
    assert move.from_square == path[0] and move.to_square == path[-1]
    assert move.path == path


def test_parse_returns_a_move_whose_notation_is_canonical():
    board = Board(TWO_PATHS)
    assert board.notation(board.parse_move("4x15x13x32x20")) == "4x27x38x15"
    assert board.notation(board.parse_move("4x15x13x37x20")) == "4x31x42x15"


@pytest.mark.parametrize("square, number", [
    ("a1", 29), ("h8", 4), ("b8", 1), ("g1", 32), ("c3", 22), ("d4", 18), ("b2", 25),
    ("h2", 28), ("a7", 5), ("e5", 15),
])
def test_algebraic_squares_on_8x8(square, number):
    from damier.notation import parse_square
    # a1 is White's bottom-left dark square (row 7, column 0 -> square 29); h8 the top right.
    assert parse_square(square, damier.get_variant("russian")) == number
    assert parse_square(square.upper(), damier.get_variant("english")) == number


def test_algebraic_moves_on_8x8():
    board = Board(variant="russian")
    assert board.parse_move("c3-d4") == Move(22, 18)
    assert board.parse_move("a3-b4") == Move(21, 17)
    assert board.parse_move("g3-h4") == Move(24, 20)
    capture = Board("W:W22:B18", variant="russian").parse_move("c3:e5")
    assert capture == Move(22, 15, captures=(18,))
    english = Board(variant="english")
    assert english.parse_move("b6-a5") == Move(9, 13)


def test_algebraic_light_square_and_10x10():
    with pytest.raises(IllegalMoveError, match="light"):
        Board(variant="russian").parse_move("a2-b3")
    with pytest.raises(IllegalMoveError):
        Board().parse_move("c3-d4")  # no algebraic squares on 10x10


@pytest.mark.parametrize("fen, variant, short, long, long_text", [
    # Russian (free choice of capture): the king on 24 may take 6 alone (24x1) or 27, 26, 14
    # and 6 (24x31x17x10x1).
    pytest.param("W:WK13,K24:BK5,K6,14,26,K27", "russian", Move(24, 1, captures=(6,)),
                 Move(24, 1, captures=(27, 26, 14, 6)), "24x31x17x10x1", id="russian"),
    # English: the king on 23 may take 19 alone (23x16), or 18, 17, 25, 26 round a loop back
    # over its start square and then 19 (23x14x21x30x23x16).
    pytest.param("W:W6,K10,11,15,20,K23,29:B2,4,K5,17,18,19,24,K25,26,27", "english",
                 Move(23, 16, captures=(19,)), Move(23, 16, captures=(18, 17, 25, 26, 19)),
                 "23x14x21x30x23x16", id="english"),
])
def test_full_path_of_a_single_jump_parses_when_a_longer_capture_shares_its_ends(
        fen, variant, short, long, long_text):
    """Both captures end on the same square, so each is written with its full path;
    the single jump's full path is just from x to, and must parse back to it."""
    board = Board(fen, variant=variant)
    assert short in board.legal_moves and long in board.legal_moves
    short_text = f"{short.from_square}x{short.to_square}"
    assert board.notation(long) == long_text
    assert board.notation(short) == short_text
    assert board.parse_move(long_text) == long
    assert board.parse_move(short_text) == short


# -- copy, root, repr, equality -----------------------------------------------------------


def test_copy_is_independent():
    board = Board()
    board.push("32-28")
    clone = board.copy()
    assert clone == board and clone.move_stack == board.move_stack
    clone.push("19-23")
    assert board.turn == BLACK and board.ply == 1 and board.piece_at(23) is None
    assert clone.pop() == Move(19, 23)
    assert clone.pop() == Move(32, 28)
    assert clone == Board()
    assert board.ply == 1 and board.piece_at(28) == Piece(WHITE, False)
    board.pop()
    assert board == Board()
    for other in (copy.copy(board), copy.deepcopy(board)):
        other.push("31-26")
        assert board == Board()


def test_copy_without_stack():
    board = Board(variant="english")
    board.push("11-15")
    clone = board.copy(stack=False)
    assert clone == board and clone.move_stack == []
    assert clone.variant == board.variant
    with pytest.raises(IndexError):
        clone.pop()


def test_root():
    board = Board(TWO_CAPTURES)
    board.push("28x19")
    board.push("22-27")
    root = board.root()
    assert root == Board(TWO_CAPTURES) and root.move_stack == []
    assert board.ply == 2  # untouched
    assert Board().root() == Board()
    english = Board(variant="english")
    english.push("9-13")
    assert english.root() == Board(variant="english")
    assert english.root().variant.name == "english"


@pytest.mark.parametrize("fen, variant", [
    (None, "international"), (PDN_EXAMPLE, "international"), ("B:W6,K31:BK17,24", "international"),
    (None, "english"), ("W:WK13,K24:BK5,K6,14,26,K27", "russian"), (None, "brazilian"),
])
def test_board_repr_round_trips(fen, variant):
    board = Board(fen, variant=variant)
    clone = eval(repr(board), {"Board": Board})
    assert clone == board
    assert clone.variant == board.variant and clone.turn == board.turn
    assert clone.fen() == board.fen()


def test_board_equality():
    assert Board() == Board(INITIAL)
    assert Board() != Board("B:W31-50:B1-20")  # side to move
    assert Board(variant="russian") != Board(variant="brazilian")
    assert Board("W:W28:B23") != Board("W:WK28:B23")


@pytest.mark.parametrize("move", [
    Move(32, 28),
    Move(28, 19, captures=(23,), path=(28, 19)),
    Move(47, 36, captures=(42, 29, 19, 31), path=(47, 38, 24, 13, 36)),
    Move(38, 38, captures=(33, 19, 18, 32), path=(38, 29, 13, 27, 38)),
    Move(4, 15, captures=(13, 32, 20)),
])
def test_move_repr_round_trips(move):
    clone = eval(repr(move), {"Move": Move})
    assert clone == move
    assert clone.path == move.path and clone.captures == move.captures


def test_move_attributes():
    move = Move(47, 36, captures=(42, 29, 19, 31), path=(47, 38, 24, 13, 36))
    assert (move.from_square, move.to_square) == (47, 36)
    assert move.captures == (42, 29, 19, 31)
    assert move.capture_set == frozenset({19, 29, 31, 42})
    assert move.is_capture
    plain = Move(32, 28)
    assert not plain.is_capture and plain.captures == () and plain.path == (32, 28)


def test_move_equality_ignores_the_path():
    a = Move(4, 15, captures=(13, 32, 20), path=(4, 27, 38, 15))
    b = Move(4, 15, captures=(20, 13, 32))
    c = Move(4, 15, captures=(13, 37, 20), path=(4, 31, 42, 15))
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2
    assert Move(28, 19) != Move(28, 19, captures=(23,))
    assert Move(32, 28) != Move(32, 27)
    assert Move(32, 28) != "32-28"


@pytest.mark.parametrize("args, kwargs, word", [
    ((0, 5), {}, "0"),
    ((1, 65), {}, "65"),
    ((5, 14), {"captures": (10, 10)}, "10"),
    ((1, 10), {"captures": (5,), "path": (1, 9, 10)}, "path"),
    ((1, 10), {"captures": (5,), "path": (2, 10)}, "path"),
    ((1, 10), {"path": (1, 5, 10)}, "path"),
    ((1, 10), {"captures": (5,), "path": (1, 11)}, "path"),
])
def test_move_constructor_errors(args, kwargs, word):
    with pytest.raises(ValueError, match=word):
        Move(*args, **kwargs)


# -- the huff rule (English, opt-in) -------------------------------------------------------

# Black to move; the black man on 9 can take the white man on 14 (9x18); the man on 1 can
# move quietly. White has a spare man on 30.
HUFF_FEN = "B:W14,30:B1,9"


def huff_rules() -> Rules:
    return dataclasses.replace(Rules.for_variant("english"), huff=True)


def test_without_huff_capture_is_compulsory():
    board = Board(HUFF_FEN, variant="english")
    assert texts(board) == {"9x18"}
    with pytest.raises(IllegalMoveError, match="compulsory"):
        board.push("1-5")
    with pytest.raises(IllegalMoveError):
        board.huff(9)


def test_huff_player_may_skip_a_capture():
    board = Board(HUFF_FEN, variant="english", rules=huff_rules())
    assert board.must_capture
    # The capture and the quiet moves (9-14 is blocked by the white man on 14).
    assert texts(board) == {"9x18", "9-13", "1-5", "1-6"}
    board.push("1-5")
    assert board.turn == WHITE
    assert board.huffable_squares() == frozenset({9})


def test_huff_removes_the_piece_and_pop_undoes_it():
    board = Board(HUFF_FEN, variant="english", rules=huff_rules())
    board.push("1-5")
    before = board.fen()
    board.huff(9)
    assert board.piece_at(9) is None
    assert board.turn == WHITE  # the huffer still makes a move
    assert board.huffable_squares() == frozenset()
    assert board.fen() == "W:W14,30:B5"
    board.push("30-26")
    assert board.turn == BLACK
    assert board.pop() == Move(30, 26)
    assert board.pop() is None  # undoes the huff
    assert board.fen() == before
    assert board.huffable_squares() == frozenset({9})
    assert board.pop() == Move(1, 5)
    assert board.fen() == Board(HUFF_FEN, variant="english").fen()


def test_huff_only_the_piece_that_failed_to_capture():
    board = Board(HUFF_FEN, variant="english", rules=huff_rules())
    board.push("1-5")
    with pytest.raises(IllegalMoveError) as info:
        board.huff(5)
    assert "9" in str(info.value)
    with pytest.raises(IllegalMoveError):
        board.huff(14)  # one's own piece
    assert board.fen() == "W:W14,30:B5,9"


def test_huff_after_the_capturing_piece_moved_away():
    board = Board(HUFF_FEN, variant="english", rules=huff_rules())
    board.push("9-13")  # the man that should have taken 14 steps aside
    assert board.huffable_squares() == frozenset({13})
    board.huff(13)
    assert board.piece_at(13) is None


def test_nothing_to_huff_after_a_capture_or_a_quiet_position():
    board = Board(HUFF_FEN, variant="english", rules=huff_rules())
    board.push("9x18")
    assert board.huffable_squares() == frozenset()
    with pytest.raises(IllegalMoveError):
        board.huff(18)
    quiet = Board(variant="english", rules=huff_rules())
    quiet.push("11-15")
    assert quiet.huffable_squares() == frozenset()


def test_huff_chance_ends_with_the_next_move():
    board = Board(HUFF_FEN, variant="english", rules=huff_rules())
    board.push("1-5")
    board.push("30-26")  # White does not huff
    assert board.huffable_squares() == frozenset()
    with pytest.raises(IllegalMoveError):
        board.huff(9)


# -- mirror ---------------------------------------------------------------------------------


def _key(move: Move) -> tuple[int, int, tuple[int, ...]]:
    return (move.from_square, move.to_square, tuple(sorted(move.capture_set)))


def _turned(move: Move, squares: int) -> Move:
    """``move`` with the board turned half a turn: square s becomes squares + 1 - s."""
    last = squares + 1
    if not move.is_capture:
        return Move(last - move.from_square, last - move.to_square)
    return Move(last - move.from_square, last - move.to_square,
                captures=[last - s for s in move.captures], path=[last - s for s in move.path])


def test_mirror_of_a_hand_made_position():
    # White: a man on 28 and a king on 46; Black: a man on 23; White to move.
    # Turned half a turn (s -> 51 - s) with the colours swapped: Black men on 23 (from
    # 28) and a black king on 5 (from 46), a white man on 28 (from 23), Black to move.
    board = Board("W:W28,K46:B23")
    mirrored = board.mirror()
    assert mirrored.turn == BLACK
    assert mirrored.piece_map() == {5: Piece(BLACK, True), 23: Piece(BLACK, False),
                                    28: Piece(WHITE, False)}
    # 28x19 (taking 23) becomes 23x32 taking 28; the king on 5 cannot move while a
    # capture is compulsory
    assert mirrored.legal_moves == [Move(23, 32, captures=(28,), path=(23, 32))]
    assert mirrored.move_stack == [] and mirrored.variant == board.variant
    # the initial position mirrored is itself with the other side to move
    assert Board().mirror() == Board(INITIAL.replace("W:", "B:", 1))
    english = Board(variant="english").mirror()      # English: Black starts
    assert english.fen() == "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


@pytest.mark.parametrize("variant", list(damier.VARIANTS))
def test_mirror_is_an_involution_and_maps_the_legal_moves_one_to_one(variant):
    rng = random.Random(f"mirror-{variant}")
    rules = Rules.for_variant(variant)
    checked = 0
    for _ in range(4):
        board = Board(variant=variant)
        for _ in range(80):
            moves = board.legal_moves
            mirrored = board.mirror()
            assert mirrored.mirror() == board
            assert mirrored.turn != board.turn and mirrored.rules == board.rules == rules
            squares = board.variant.squares
            # by their squares and the pieces they take (a capture reached by two paths is
            # one move, shown with the path found first, which may differ once turned)
            assert sorted(_key(_turned(m, squares)) for m in moves) == sorted(
                map(_key, mirrored.legal_moves))
            assert len(mirrored.legal_moves) == len(set(mirrored.legal_moves)) == len(moves)
            checked += 1
            if not moves or board.outcome() is not None:
                break
            board.push(rng.choice(moves))
    assert checked > 40


def test_str_of_a_move_names_it_alone():
    # TWO_PATHS: 4x27x38x15 takes 13, 32 and 20; 4x31x42x15 takes 13, 37 and 20. Both
    # start on 4 and end on 15, so "4x15" would name either.
    board = Board(TWO_PATHS)
    assert sorted(str(m) for m in board.legal_moves) == ["4x27x38x15", "4x31x42x15"]
    for move in board.legal_moves:
        assert board.parse_move(str(move)) == move
    # a plain move and a one-piece capture keep their short form (their path)
    assert str(Move(32, 28)) == "32-28"
    assert str(Move(28, 19, captures=(23,), path=(28, 19))) == "28x19"
