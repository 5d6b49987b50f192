"""Move input (``damier.moves``): one reading of what is typed, and one explanation
of why it is not a legal move, wherever it is typed.

Every illegal input below goes through the library (``Board.parse_move``,
``damier.moves``), the terminal game (``PlaySession``, ``damier.play.resolve_move``),
the web app (its HTTP API, through Starlette's TestClient) and the PDN reader,
and must come back with the same words. The expected sentences are written out
here by hand from the rules (FMJD rule 4: capturing is compulsory, the capture
taking the most pieces must be played, men capture backwards in International
and Russian draughts; Russian and English: any capture may be chosen) and from
the wording damier has promised before (README, the web API and terminal tests).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

import damier
from damier import AmbiguousMoveError, Board, IllegalMoveError, Move
from damier import moves
from damier.errors import MoveError
from damier.pdn import read_game
from damier.play import PlaySession, resolve_move

START = "W:W31-50:B1-20"
INITIAL_LEGAL = "31-26, 31-27, 32-27, 32-28, 33-28, 33-29, 34-29, 34-30, 35-30"
AMBIGUOUS_FEN = "W:WK47:B14,19,29,31,42"  # 47x38x20x9x36 or 47x38x24x13x36, both end on 36

# (variant, FEN, what is typed, the explanation)
ILLEGAL = [
    pytest.param(
        "international", "W:W28,32:B23", "32-27",
        "illegal move '32-27': a capture is compulsory: the piece on 28 must capture; "
        "legal moves are 28x19", id="capture-compulsory"),
    pytest.param(
        "international", "W:W33,39:B28,18,8,34", "39-34",
        "illegal move '39-34': capturing is compulsory, and the capture taking the most pieces "
        "(3) must be played: the piece on 33 must capture; legal moves are 33x2",
        id="majority-capture"),
    pytest.param(
        "international", "W:W38,48:B33,23,3,42", "48x37",
        "illegal move '48x37': capturing is compulsory, and the capture taking the most pieces "
        "(2) must be played: the piece on 38 must capture; legal moves are 38x18",
        id="majority-capture-two"),
    pytest.param(
        "international", "W:W27:B32", "27-21",
        "illegal move '27-21': a capture is compulsory: the piece on 27 must capture; in "
        "International draughts men capture backwards too: 27x38 is legal; legal moves are 27x38",
        id="men-capture-backwards"),
    pytest.param(
        "russian", "W:W22,23:B18,19", "22-17",
        "illegal move '22-17': capturing is compulsory (any capture may be chosen, but it must "
        "be taken to the end): the pieces on 22, 23 can capture; in Russian draughts men capture "
        "backwards too: 22x24 is legal; legal moves are 22x24, 23x14, 23x16",
        id="russian-free-choice"),
    pytest.param(
        "english", "B:W22,23:B18,19", "18-15",
        "illegal move '18-15': capturing is compulsory (any capture may be chosen, but it must "
        "be taken to the end): the pieces on 18, 19 can capture; legal moves are 18x25, "
        "18x27, 19x26",
        id="english-free-choice"),
    pytest.param(
        "international", START, "46-41",
        f"illegal move '46-41': the man on 46 cannot move; legal moves are {INITIAL_LEGAL}",
        id="piece-cannot-move"),
    pytest.param(
        "international", START, "19-23",
        "illegal move '19-23': the piece on 19 is Black's, and it is White's move; "
        f"legal moves are {INITIAL_LEGAL}", id="opponents-piece"),
    pytest.param(
        "international", START, "25-30",
        f"illegal move '25-30': there is no piece on 25; legal moves are {INITIAL_LEGAL}",
        id="no-piece"),
    pytest.param(
        "international", START, "32-23",
        f"illegal move '32-23': the man on 32 can only go to 27 or 28; legal moves are "
        f"{INITIAL_LEGAL}", id="unreachable-square"),
    pytest.param(
        "international", START, "32-37",
        f"illegal move '32-37': 37 is occupied; the man on 32 can only go to 27 or 28; legal "
        f"moves are {INITIAL_LEGAL}", id="occupied-square"),
    pytest.param(
        "international", START, "32x28",
        f"illegal move '32x28': the move from 32 to 28 is written 32-28; legal moves are "
        f"{INITIAL_LEGAL}", id="capture-sign-on-a-plain-move"),
    pytest.param(
        "international", START, "32--28",
        f"cannot read move '32--28': write it as from-to (32-28) or fromxto (19x28); legal moves "
        f"are {INITIAL_LEGAL}", id="unreadable"),
    pytest.param(
        "international", START, "51-46",
        "cannot read move '51-46': square 51 is not on the International board (1-50)",
        id="square-off-the-board"),
]
NOT_PDN_MOVES = {"32--28"}  # not a move token in PDN: the PDN reader refuses it as a token

AMBIGUOUS = [
    pytest.param(
        "international", AMBIGUOUS_FEN, "47x36",
        "ambiguous move '47x36': it matches 47x38x20x9x36, 47x38x24x13x36; write the full path",
        id="two-paths"),
    pytest.param(
        "international", AMBIGUOUS_FEN, "47x38x36",
        "ambiguous move '47x38x36': it matches 47x38x20x9x36, 47x38x24x13x36; write the full "
        "path", id="part-of-both-paths"),
]


# -- where the user types ------------------------------------------------------------------


def through_board(variant: str, fen: str, text: str) -> str:
    board = Board(fen, variant=variant)
    with pytest.raises(MoveError) as info:
        board.parse_move(text)
    with pytest.raises(MoveError) as pushed:
        board.push(text)
    assert str(pushed.value) == str(info.value)
    assert board.fen() == Board(fen, variant=variant).fen() and board.move_stack == []
    return str(info.value)


def through_moves(variant: str, fen: str, text: str) -> str:
    with pytest.raises(MoveError) as info:
        moves.parse_move(Board(fen, variant=variant), text)
    return str(info.value)


def through_terminal(variant: str, fen: str, text: str) -> str:
    session = PlaySession(white="human", black="human", variant=variant, fen=fen)
    out = session.send(text)
    assert session.board.move_stack == []
    with pytest.raises(MoveError) as info:
        resolve_move(session.board, text)
    assert str(info.value) == out
    return out


def through_pdn(variant: str, fen: str, text: str) -> str:
    """The PDN reader's message, with the move quoted as the other paths quote it."""
    game_type = damier.get_variant(variant).game_type
    pdn = f'[GameType "{game_type}"]\n[FEN "{fen}"]\n1. {text} *\n'
    with pytest.raises(damier.PdnError) as info:
        read_game(pdn)
    message = str(info.value)
    prefix = "game 1, line 3: "
    assert message.startswith(prefix), message
    return message[len(prefix):].replace(f'"{text}"', repr(text), 1)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
    pytest.importorskip("httpx", reason="httpx (needed by Starlette's TestClient) is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from damier.web.app import create_app

    app = create_app(tmp_path_factory.mktemp("web") / "games.sqlite3", movetime=0.05,
                     allowed_hosts=["testserver"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with TestClient(app) as client:
            yield client


def web_game(web: Any, variant: str, fen: str) -> str:
    response = web.post("/api/games", json={"variant": variant, "fen": fen, "color": "both"})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def through_web(web: Any, variant: str, fen: str, text: str) -> dict[str, Any]:
    gid = web_game(web, variant, fen)
    response = web.post(f"/api/games/{gid}/move", json={"move": text})
    assert response.status_code == 400, response.text
    body: dict[str, Any] = response.json()
    assert web.get(f"/api/games/{gid}").json()["moves"] == []
    return body


# -- the same words everywhere -------------------------------------------------------------


@pytest.mark.parametrize("variant, fen, text, expected", ILLEGAL)
def test_illegal_input_is_explained_the_same_everywhere(web, variant, fen, text, expected):
    assert through_board(variant, fen, text) == expected
    assert through_moves(variant, fen, text) == expected
    assert through_terminal(variant, fen, text) == expected
    if text not in NOT_PDN_MOVES:
        assert through_pdn(variant, fen, text) == expected
    body = through_web(web, variant, fen, text)
    assert body["error"] == expected
    assert body["kind"] == "illegal_move"


def test_no_legal_moves():
    # The game is over there, so the terminal and the web refuse any move before reading
    # it (game over); the reading itself says the same as the library.
    fen, text = "W:W46:B37,41", "46-41"
    expected = "illegal move '46-41': White has no legal moves"
    assert through_board("international", fen, text) == expected
    assert through_moves("international", fen, text) == expected
    assert through_pdn("international", fen, text) == expected
    with pytest.raises(IllegalMoveError) as info:
        resolve_move(Board(fen), text)
    assert str(info.value) == expected


@pytest.mark.parametrize("variant, fen, text, expected", AMBIGUOUS)
def test_ambiguous_input_is_explained_the_same_everywhere(web, variant, fen, text, expected):
    assert through_board(variant, fen, text) == expected
    assert through_moves(variant, fen, text) == expected
    assert through_terminal(variant, fen, text) == expected
    assert through_pdn(variant, fen, text) == expected
    body = through_web(web, variant, fen, text)
    assert body["error"] == expected
    assert body["kind"] == "ambiguous_move"
    assert sorted(c["text"] for c in body["candidates"]) == ["47x38x20x9x36", "47x38x24x13x36"]


def test_squares_from_the_web_board_are_explained_like_text(web):
    # The page sends {from, to}: with no capture to make it is the move written 46-41.
    gid = web_game(web, "international", START)
    body = web.post(f"/api/games/{gid}/move", json={"from": 46, "to": 41}).json()
    assert body["error"] == through_terminal("international", START, "46-41")
    # With a capture to make, from/to is read as the capture 32x27.
    expected = ("illegal move '32x27': a capture is compulsory: the piece on 28 must capture; "
                "legal moves are 28x19")
    gid = web_game(web, "international", "W:W28,32:B23")
    body = web.post(f"/api/games/{gid}/move", json={"from": 32, "to": 27}).json()
    assert body["error"] == expected
    assert through_terminal("international", "W:W28,32:B23", "32x27") == expected
    with pytest.raises(IllegalMoveError, match=expected):
        moves.move_from_squares(Board("W:W28,32:B23"), 32, 27)


def test_the_compulsory_capture_sentence_is_one_sentence(web):
    sentence = "a capture is compulsory"
    majority = ("capturing is compulsory, and the capture taking the most pieces (2) must be "
                "played")
    for fen, rule in (("W:W28,32:B23", sentence), ("W:W38,48:B33,23,3,42", majority)):
        board = Board(fen)
        assert moves.capture_rule(board) == rule
        gid = web_game(web, "international", fen)
        assert web.get(f"/api/games/{gid}").json()["compulsory_capture"] == rule
        position = web.post("/api/position", json={"variant": "international", "fen": fen})
        assert position.json()["compulsory_capture"] == rule
        session = PlaySession(white="human", black="human", fen=fen)
        assert session.send("moves").endswith(f"({rule})")
    assert moves.capture_rule(Board()) is None


def test_illegal_move_objects_are_explained_too():
    board = Board("W:W28,32:B23")
    with pytest.raises(IllegalMoveError) as info:
        board.push(Move(32, 27))
    assert str(info.value) == ("illegal move '32-27': a capture is compulsory: the piece on 28 "
                               "must capture; legal moves are 28x19")
    assert info.value.text == "32-27"
    assert info.value.legal_moves == (Move(28, 19, captures=(23,)),)


# -- reading -------------------------------------------------------------------------------


@pytest.mark.parametrize("fen, text, expected", [
    (START, "32-28", Move(32, 28)),
    (START, " 32 - 28 ", Move(32, 28)),
    (START, "32-28!", Move(32, 28)),
    (START, "32-28?!", Move(32, 28)),
    ("W:W28:B23", "28x19", Move(28, 19, captures=(23,))),
    ("W:W28:B23", "28:19", Move(28, 19, captures=(23,))),
    ("W:W28:B23", "28×19+", Move(28, 19, captures=(23,))),
    ("W:W28:B23", "28-19", Move(28, 19, captures=(23,))),          # the sign is not checked
    ("W:W28:B23", "28x19x23", Move(28, 19, captures=(23,))),       # Hub style
    (AMBIGUOUS_FEN, "47x38x24x13x36", Move(47, 36, captures=(42, 29, 19, 31))),   # full path
    (AMBIGUOUS_FEN, "47x24x36", Move(47, 36, captures=(42, 29, 19, 31))),         # part of it
    (AMBIGUOUS_FEN, "47x36x19x29x31x42", Move(47, 36, captures=(42, 29, 19, 31))),  # Hub
])
def test_standard_notation_is_read(fen, text, expected):
    board = Board(fen)
    assert board.parse_move(text) == expected
    assert moves.parse_move(board, text) == expected
    assert moves.read_move(board, text) == (expected, False)


def test_algebraic_squares_on_8x8():
    board = Board(variant="russian")
    assert moves.parse_move(board, "c3-d4") == Move(22, 18)


@pytest.mark.parametrize("fen, text, expected", [
    (START, "35", Move(35, 30)),     # the only move that starts on 35
    (START, "26", Move(31, 26)),     # no move starts on 26, only one ends there
    (START, "35-", Move(35, 30)),    # a unique beginning of a move
    ("W:W28:B23", "28x", Move(28, 19, captures=(23,))),
    ("W:W28:B23", "28", Move(28, 19, captures=(23,))),
])
def test_interactive_input_completes_a_square_or_a_beginning(fen, text, expected):
    board = Board(fen)
    assert moves.read_move(board, text) == (expected, True)
    assert moves.parse_move(board, text, complete=True) == expected
    with pytest.raises(IllegalMoveError):
        board.parse_move(text)  # the library reads whole moves only
    session = PlaySession(white="human", black="human", fen=fen)
    out = session.send(text)
    assert out.startswith(f"{text} → {board.notation(expected)}")
    assert session.board.move_stack == [expected]


@pytest.mark.parametrize("text, expected, candidates", [
    ("32", "'32' is not enough: several moves start on 32: 32-27, 32-28; type the whole move, "
     "e.g. 32-27", [Move(32, 27), Move(32, 28)]),
    ("30", "'30' is not enough: several moves end on 30: 34-30, 35-30; type the whole move, "
     "e.g. 34-30", [Move(34, 30), Move(35, 30)]),
    ("32-2", "'32-2' could be 32-27, 32-28; type more of the move", [Move(32, 27), Move(32, 28)]),
])
def test_incomplete_input_names_the_candidates(text, expected, candidates):
    board = Board()
    with pytest.raises(AmbiguousMoveError) as info:
        moves.read_move(board, text)
    assert str(info.value) == expected
    assert sorted(info.value.candidates, key=lambda m: (m.from_square, m.to_square)) == candidates
    assert info.value.text == text and len(info.value.legal_moves) == 9
    assert PlaySession(white="human", black="human").send(text) == expected


def test_structured_spec():
    board = Board(AMBIGUOUS_FEN)
    wanted = Move(47, 36, captures=(42, 29, 14, 31))
    assert moves.parse_move_spec(board, {"from": 47, "to": 36,
                                         "path": [47, 38, 20, 9, 36]}) == wanted
    assert moves.parse_move_spec(board, {"from": 47, "to": 36, "path": [47, 20, 36]}) == wanted
    assert moves.parse_move_spec(board, {"from": 47, "to": 36,
                                         "captures": [14, 29, 31, 42]}) == wanted
    assert moves.parse_move_spec(board, {"move": "47x20x36"}) == wanted
    with pytest.raises(AmbiguousMoveError) as info:
        moves.parse_move_spec(board, {"from": 47, "to": 36})
    assert len(info.value.candidates) == 2
    with pytest.raises(IllegalMoveError, match="square 99 is not on the International board"):
        moves.parse_move_spec(board, {"from": 47, "to": 99})
    with pytest.raises(ValueError, match="path must"):
        moves.move_from_squares(board, 47, 36, path=[38, 36])


def test_errors_stay_value_errors():
    assert issubclass(IllegalMoveError, MoveError) and issubclass(AmbiguousMoveError, MoveError)
    assert issubclass(MoveError, ValueError)
    with pytest.raises(TypeError):
        moves.parse_move(Board(), 3228)  # type: ignore[arg-type]


def test_listing_is_in_square_order():
    # 9-14 before 10-15: squares compare as numbers, not as text.
    assert moves.move_listing([Move(10, 15), Move(9, 14)], []) == "9-14, 10-15"
    assert moves.move_listing([], []) == "none"


def test_hub_pos_moves_are_explained_like_board_parse_move():
    # The Hub engine reads the moves= of a pos line through damier.moves too: an illegal
    # move there gets the same explanation as Board.parse_move gives.
    import io

    from damier.hub import board_to_hub, parse_line
    from damier.hub_server import HubServer

    board = Board()
    board.push(board.parse_move("32-28"))
    board.push(board.parse_move("19-23"))
    with pytest.raises(IllegalMoveError) as info:
        board.parse_move("32-27")
    expected = str(info.value)
    assert "capture is compulsory" in expected

    out = io.StringIO()
    server = HubServer(io.StringIO(), out)
    server.handle_line(f'pos pos={board_to_hub(Board())} moves="32-28 19-23 32-27"')
    (answer,) = out.getvalue().splitlines()
    error = parse_line(answer)
    assert error.command == "error"
    assert error.args["message"].endswith(expected)
    assert server.board is None
