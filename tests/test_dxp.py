"""Tests for damier.dxp: DXP messages read and written exactly, framing, clear errors,
positions and moves. Expected texts are built here from the protocol's field widths,
never by the code under test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from damier import BLACK, WHITE, Board, Move
from damier.dxp import (MAX_MESSAGE, BackAccept, BackRequest, Chat, DxpError, GameAccept,
                        GameEnd, GameRequest, MoveMessage, Position, board_from_position,
                        encode, format_message, frame, message_for_move, move_from_message,
                        parse_message, position_of, split_frames)

START_SQUARES = "z" * 20 + "e" * 10 + "w" * 20


# -- exact field widths -----------------------------------------------------------------------

def test_gamereq_start_position_fields():
    name = "Kingsrow"
    text = "R" + "01" + name + " " * (32 - len(name)) + "Z" + "005" + "000" + "A"
    assert len(text) == 1 + 2 + 32 + 1 + 3 + 3 + 1
    msg = GameRequest(name, BLACK, 5, 0)
    assert format_message(msg) == text
    assert parse_message(text) == msg


def test_gamereq_with_position_fields():
    squares = "e" * 10 + "z" + "e" * 29 + "W" + "e" * 9
    text = "R" + "01" + "A" * 32 + "W" + "120" + "040" + "B" + "Z" + squares
    assert len(text) == 94
    msg = GameRequest("A" * 32, WHITE, 120, 40, Position(BLACK, squares))
    assert format_message(msg) == text
    assert parse_message(text) == msg


def test_gameacc_fields():
    assert format_message(GameAccept("Me", 3)) == "A" + "Me" + " " * 30 + "3"
    assert parse_message("A" + "x y" + " " * 29 + "0") == GameAccept("x y", 0)


def test_move_fields():
    assert format_message(MoveMessage(7, 32, 28)) == "M" + "0007" + "32" + "28" + "00"
    assert (format_message(MoveMessage(9999, 47, 36, (42, 29, 14, 31)))
            == "M" + "9999" + "47" + "36" + "04" + "42" + "29" + "14" + "31")
    assert format_message(MoveMessage(0, 1, 5, (3,))) == "M" + "0000" + "01" + "05" + "01" + "03"


def test_short_messages_fields():
    assert format_message(GameEnd(1, 0)) == "E10"
    assert format_message(GameEnd(GameEnd.I_WIN, GameEnd.STOP)) == "E31"
    assert format_message(Chat("hello there")) == "Chello there"
    assert format_message(Chat()) == "C"
    assert format_message(BackRequest(7, BLACK)) == "B007Z"
    assert format_message(BackAccept(2)) == "K2"
    assert parse_message("B123W") == BackRequest(123, WHITE)
    assert parse_message("K1") == BackAccept(1)
    assert parse_message("C") == Chat("")


def test_encode_adds_the_nul():
    assert encode(GameEnd(2, 1)) == b"E21\x00"
    assert frame("C x") == b"C x\x00"


# -- round trips ----------------------------------------------------------------------------

names = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=32).filter(
    lambda s: not s.endswith(" "))
colours = st.sampled_from([WHITE, BLACK])
squares_text = st.text(st.sampled_from("ewzWZ"), min_size=50, max_size=50)
square = st.integers(1, 50)
messages = st.one_of(
    st.builds(GameRequest, names, colours, st.integers(0, 999), st.integers(0, 999),
              st.none() | st.builds(Position, colours, squares_text), st.integers(0, 99)),
    st.builds(GameAccept, names, st.integers(0, 3)),
    st.builds(MoveMessage, st.integers(0, 9999), square, square,
              st.lists(square, unique=True, max_size=20).map(tuple)),
    st.builds(GameEnd, st.integers(0, 3), st.integers(0, 1)),
    st.builds(Chat, st.text(st.characters(min_codepoint=1, max_codepoint=127), max_size=126)),
    st.builds(BackRequest, st.integers(0, 999), colours),
    st.builds(BackAccept, st.integers(0, 2)),
)


@settings(max_examples=300, deadline=None)
@given(messages)
def test_every_message_round_trips(msg):
    text = format_message(msg)
    assert 1 <= len(text) <= MAX_MESSAGE and text.isascii()
    assert parse_message(text) == msg
    assert split_frames(encode(msg)) == ([text], b"")


@settings(max_examples=100, deadline=None)
@given(st.lists(messages, max_size=6), st.data())
def test_framing_of_split_streams(msgs, data):
    stream = b"".join(encode(m) for m in msgs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=5)))
    got, rest = [], b""
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        texts, rest = split_frames(rest + stream[start:end])
        got.extend(parse_message(t) for t in texts)
    assert got == msgs and rest == b""


def test_split_frames_keeps_the_incomplete_rest():
    assert split_frames(b"") == ([], b"")
    assert split_frames(b"E2") == ([], b"E2")
    assert split_frames(b"E20\x00K0\x00B00") == (["E20", "K0"], b"B00")


# -- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("", "empty"),
    ("C" + "x" * 127, "128 characters"),
    ("Ccafé", "'é'"),
    ("C\x00", "'\\x00'"),
    ("X12", "kind 'X'"),
    ("E2", "GAMEEND stop code '': cut short"),
    ("E201", "GAMEEND end '1'"),
    ("E40", "GAMEEND reason '4': out of range 0-3"),
    ("E2x", "GAMEEND stop code 'x': not 1 ASCII digit"),
    ("E٢0", "'٢'"),  # a non-ASCII digit
    ("M00123228", "MOVE number captured '': cut short"),
    ("M0012512800", "MOVE from square '51': out of range 1-50"),
    ("M0012002800", "MOVE from square '0'"),
    ("M001232280127", None),
    ("M00123228012", "MOVE captured squares '2': the count 01 needs 2 digits here, not 1"),
    ("M0012322802271", "MOVE captured squares '271'"),
    ("M0012322802 727", "MOVE captured square ' 7': not 2 ASCII digits"),
    ("M00123228022727", "MOVE captured squares '(27, 27)': a square is captured twice"),
    ("R02" + "n" * 32 + "W005000C", "GAMEREQ position 'C'"),
    ("R01" + "n" * 32 + "X005000A", "GAMEREQ follower colour 'X': not a colour"),
    ("R01" + "n" * 32 + "W005000AA", "GAMEREQ end 'A'"),
    ("R01" + "n" * 32 + "W005000BW" + "e" * 49, "GAMEREQ squares"),
    ("R01" + "n" * 32 + "W005000BW" + "e" * 49 + "q", "square 50 holds 'q'"),
    ("R01" + "n" * 31 + "\x01W005000A", "GAMEREQ name"),
    ("A" + "n" * 32 + "4", "GAMEACC code '4'"),
    ("A" + "n" * 32, "GAMEACC code '': cut short"),
    ("B012", "BACKREQ colour '': cut short"),
    ("B-12W", "BACKREQ move number '-12'"),
    ("K3", "BACKACC code '3'"),
])
def test_bad_messages_are_named(text, words):
    if words is None:
        parse_message(text)  # the control: well formed
        return
    with pytest.raises(DxpError) as caught:
        parse_message(text)
    assert words in str(caught.value), str(caught.value)


@pytest.mark.parametrize("make, words", [
    (lambda: GameRequest("n" * 33, WHITE, 5), "GAMEREQ name 'nnnn"),
    (lambda: GameRequest("trailing ", WHITE, 5), "ends with a space"),
    (lambda: GameRequest("Zoë", WHITE, 5), "'ë'"),
    (lambda: GameRequest("n", "W", 5), "GAMEREQ follower colour 'W'"),  # type: ignore[arg-type]
    (lambda: GameRequest("n", WHITE, 1000), "GAMEREQ thinking time '1000': out of range"),
    (lambda: GameRequest("n", WHITE, 5, -1), "GAMEREQ number of moves '-1'"),
    (lambda: GameRequest("n", WHITE, 5, 0, Position(WHITE, "e" * 51)), "51 characters"),
    (lambda: GameAccept("n", 4), "GAMEACC code '4'"),
    (lambda: MoveMessage(10000, 1, 2), "MOVE time '10000'"),
    (lambda: MoveMessage(1, 1, 2, (51,)), "MOVE captured square '51'"),
    (lambda: MoveMessage(1, 1, 2, [3]), "MOVE captured squares '[3]': not a tuple"),  # type: ignore[arg-type]
    (lambda: MoveMessage(1, True, 2), "not an int (bool)"),
    (lambda: GameEnd(0, 2), "GAMEEND stop code '2'"),
    (lambda: Chat("x" * 127), "longer than 126"),
    (lambda: BackRequest(1000, WHITE), "BACKREQ move number"),
    (lambda: BackAccept(3), "BACKACC code '3'"),
])
def test_bad_fields_are_refused_when_written(make, words):
    with pytest.raises(DxpError) as caught:
        make()
    assert words in str(caught.value), str(caught.value)


@pytest.mark.parametrize("stream, words", [
    (b"C caf\xc3\xa9\x00", "byte 6 is 0xc3, not ASCII"),
    (b"E20\x00\x00", "empty"),
    (b"C" + b"x" * 127 + b"\x00", "128 characters"),
    (b"C" + b"x" * 127, "128 bytes without a NUL"),
])
def test_bad_streams_are_named(stream, words):
    with pytest.raises(DxpError) as caught:
        split_frames(stream)
    assert words in str(caught.value), str(caught.value)


def test_errors_carry_kind_field_and_text():
    with pytest.raises(DxpError) as caught:
        parse_message("M0012992800")
    error = caught.value
    assert (error.kind, error.field, error.text) == ("MOVE", "from square", "99")
    assert isinstance(error, ValueError)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=140) | st.text(st.sampled_from("RAMECBKWZABewzWZ 0123456789"),
                                       max_size=100))
def test_any_text_parses_or_raises_dxp_error(text):
    try:
        msg = parse_message(text)
    except DxpError:
        return
    assert format_message(msg) == text or isinstance(msg, (GameRequest, GameAccept))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_split_or_raise_dxp_error(data):
    try:
        texts, rest = split_frames(data)
    except DxpError:
        return
    assert len(rest) <= MAX_MESSAGE
    for text in texts:
        try:
            parse_message(text)
        except DxpError:
            pass


# -- positions --------------------------------------------------------------------------------

def test_start_position_both_ways():
    board = board_from_position(WHITE, START_SQUARES)
    assert board.fen() == Board().fen()
    assert position_of(Board()) == (WHITE, START_SQUARES)


def test_position_kings_and_side():
    squares = "Z" + "e" * 20 + "z" + "e" * 20 + "w" + "e" * 6 + "W"
    board = board_from_position(BLACK, squares)
    assert board.fen() == Board("B:W43,K50:B22,K1").fen()
    assert position_of(board) == Position(BLACK, squares)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_board_position_round_trip(data):
    board = Board()
    for _ in range(data.draw(st.integers(0, 30))):
        moves = board.legal_moves
        if not moves:
            break
        board.push(data.draw(st.sampled_from(moves)))
    side, squares = position_of(board)
    again = board_from_position(side, squares)
    assert again.fen() == board.fen()
    assert position_of(again) == (side, squares)


def test_impossible_positions_and_other_variants_are_refused():
    with pytest.raises(DxpError, match="GAMEREQ squares .*crowning row"):
        board_from_position(WHITE, "w" + "e" * 49)
    with pytest.raises(DxpError, match="GAMEREQ squares"):
        board_from_position(WHITE, "e" * 49)
    with pytest.raises(DxpError, match="International draughts only"):
        position_of(Board(variant="english"))


# -- moves ------------------------------------------------------------------------------------

def test_quiet_move_both_ways():
    board = Board()
    assert move_from_message(board, MoveMessage(3, 32, 28)) == Move(32, 28)
    assert message_for_move(board, Move(32, 28), 3) == MoveMessage(3, 32, 28)


def test_capture_both_ways():
    board = Board("W:W28:B23")
    move = move_from_message(board, MoveMessage(0, 28, 19, (23,)))
    assert move.captures == (23,)
    assert format_message(message_for_move(board, move, 12)) == "M0012" + "28" + "19" + "01" + "23"


def test_ambiguous_capture_is_picked_by_its_captured_squares():
    board = Board("W:WK47:B14,19,29,31,42")
    via_19 = move_from_message(board, MoveMessage(5, 47, 36, (31, 19, 29, 42)))  # any order
    via_14 = move_from_message(board, MoveMessage(5, 47, 36, (42, 29, 14, 31)))
    assert via_19.capture_set == {19, 29, 31, 42}
    assert via_14.capture_set == {14, 29, 31, 42}
    assert board.notation(via_19) == "47x38x24x13x36"
    assert board.notation(via_14) == "47x38x20x9x36"
    assert set(message_for_move(board, via_14, 5).captures) == {14, 29, 31, 42}
    with pytest.raises(DxpError, match="MOVE move '47x36 capturing 29, 31, 42': not a legal"):
        move_from_message(board, MoveMessage(5, 47, 36, (42, 29, 31)))


def test_illegal_moves_are_refused():
    board = Board("W:W28:B23")
    with pytest.raises(DxpError, match="MOVE move '28-22': not a legal move"):
        move_from_message(board, MoveMessage(0, 28, 22))  # the capture is compulsory
    with pytest.raises(DxpError, match="not a legal move"):
        message_for_move(board, Move(28, 22), 1)
    with pytest.raises(DxpError, match="International draughts only"):
        move_from_message(Board(variant="english"), MoveMessage(0, 22, 18))
