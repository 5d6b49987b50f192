"""Results in each variant's own notation, everywhere a game's result is shown or
written: Board.result(), the PDN writer, the terminal (damier play) and the web app
(its state and its PDN export). Match records and reports are in
tests/test_match_stats.py.

The games end by the rules (the side to move has no legal move; threefold
repetition), and the expected strings come from the variants' rules: FMJD style
``2-0``, ``1-1``, ``0-2`` in International, Brazilian and Russian draughts; ``1-0``,
``1/2-1/2``, ``0-1`` in English draughts. None is produced by the code under test.
"""

from __future__ import annotations

import warnings

import pytest

from damier import BLACK, WHITE, Board
from damier.pdn import Game, read_game, write_game
from damier.play import PlaySession

FMJD = {WHITE: "2-0", None: "1-1", BLACK: "0-2"}
ENGLISH = {WHITE: "1-0", None: "1/2-1/2", BLACK: "0-1"}
NOTATION = {"international": FMJD, "brazilian": FMJD, "russian": FMJD, "english": ENGLISH}

# Each ending: a start position and the moves that end the game there.
# White wins: White takes Black's last piece, Black has no legal move.
# Black wins: Black takes White's last piece.
# Draw: the kings go back and forth twice: the start position occurs a third time.
TEN = {WHITE: ("W:W28:B23", ["28x19"]), BLACK: ("B:W28:B23", ["23x32"]),
       None: ("W:W36,K47:B15,K4", ["47-42", "4-10", "42-47", "10-4"] * 2)}
EIGHT = {WHITE: ("W:W18:B14", ["18x9"]), BLACK: ("B:W18:B14", ["14x23"]),
         None: ("W:W32,K30:B1,K3", ["30-25", "3-7", "25-30", "7-3"] * 2)}
ENDINGS = {"international": TEN, "brazilian": EIGHT, "russian": EIGHT, "english": EIGHT}
# White to move and blocked from the start (its man cannot move or capture): Black wins.
BLOCKED = {"international": "W:W46:B41,37", "brazilian": "W:W29:B25,22",
           "russian": "W:W29:B25,22", "english": "W:W29:B25,22"}

CASES = [(variant, winner) for variant in NOTATION for winner in (WHITE, None, BLACK)]
IDS = [f"{variant}-{ {WHITE: 'white', None: 'draw', BLACK: 'black'}[winner]}"
       for variant, winner in CASES]


def played(variant: str, winner: bool | None) -> Board:
    fen, moves = ENDINGS[variant][winner]
    board = Board(fen, variant=variant)
    for move in moves:
        assert board.result() == "*", f"{variant}: the game ended before {move}"
        board.push(move)
    return board


# -- the board ---------------------------------------------------------------------------------


@pytest.mark.parametrize("variant, winner", CASES, ids=IDS)
def test_board_result_in_the_variants_notation(variant: str, winner: bool | None) -> None:
    board = played(variant, winner)
    assert board.is_game_over() and board.outcome().winner == winner
    assert board.result() == NOTATION[variant][winner]
    # the outcome keeps the notation that is the same in every variant
    assert board.outcome().result() == ENGLISH[winner]
    assert board.outcome().result(variant) == NOTATION[variant][winner]


@pytest.mark.parametrize("variant", list(NOTATION))
def test_board_result_of_a_blocked_side(variant: str) -> None:
    board = Board(BLOCKED[variant], variant=variant)
    assert not board.legal_moves
    assert board.result() == NOTATION[variant][BLACK]
    board = Board(variant=variant)
    assert board.result() == "*"


# -- PDN ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant, winner", CASES, ids=IDS)
def test_pdn_writes_the_variants_notation(variant: str, winner: bool | None) -> None:
    expected = NOTATION[variant][winner]
    text = write_game(Game.from_board(played(variant, winner)))
    assert f'[Result "{expected}"]' in text
    assert text.rstrip().endswith(f" {expected}")  # the result token after the moves
    assert read_game(text).headers["Result"] == expected


# -- the terminal ------------------------------------------------------------------------------


@pytest.mark.parametrize("variant, winner", CASES, ids=IDS)
def test_terminal_end_text_and_saved_game(variant: str, winner: bool | None,
                                          tmp_path) -> None:
    expected = NOTATION[variant][winner]
    fen, moves = ENDINGS[variant][winner]
    session = PlaySession(white="human", black="human", variant=variant, fen=fen)
    out = "\n".join(session.send(move) for move in moves)
    assert f". Result {expected}." in out
    assert session.board.result() == expected
    path = tmp_path / "game.pdn"
    session.send(f"save {path}")
    assert read_game(path).headers["Result"] == expected


@pytest.mark.parametrize("variant", list(NOTATION))
def test_terminal_announces_a_game_over_from_the_start(variant: str) -> None:
    session = PlaySession(white="human", black="human", variant=variant,
                          fen=BLOCKED[variant])
    start = "\n".join(str(item) for item in session.start())
    assert f"Result {NOTATION[variant][BLACK]}." in start


# -- the web app -------------------------------------------------------------------------------


@pytest.fixture()
def client(tmp_path):
    pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
    pytest.importorskip("httpx", reason="httpx (needed by Starlette's TestClient) is not installed")
    with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        from damier.web.app import create_app
    app = create_app(tmp_path / "games.sqlite3", movetime=0.05, analysis_seconds=5,
                     allowed_hosts=["testserver"])
    with TestClient(app) as c:
        yield c


@pytest.mark.filterwarnings("ignore:Using `httpx`")
@pytest.mark.parametrize("variant, winner", CASES, ids=IDS)
def test_web_state_and_pdn_export(client, variant: str, winner: bool | None) -> None:
    expected = NOTATION[variant][winner]
    fen, moves = ENDINGS[variant][winner]
    response = client.post("/api/games", json={"variant": variant, "fen": fen, "color": "both"})
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    state = client.post(f"/api/games/{game_id}/line", json={"moves": moves}).json()["game"]
    assert state["over"]
    assert state["outcome"]["pdn_result"] == expected
    listed = client.get("/api/games").json()["games"]
    assert next(g for g in listed if g["id"] == game_id)["pdn_result"] == expected
    text = client.get(f"/api/games/{game_id}/pdn").text
    assert f'[Result "{expected}"]' in text and text.rstrip().endswith(f" {expected}")
