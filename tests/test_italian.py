"""Italian draughts (dama italiana), by the rules of the Federazione Italiana Dama (FID).

The rule texts (FID, Regolamento tecnico, capo I "Regolamento ufficiale di gioco della dama
italiana", and the FID's short rules "Le 10 regole per giocare a dama italiana"):

* art. 2.3: the board is set so that, for each player, the bottom right square is dark;
  art. 2.4: the dark squares are numbered 1-32 left to right, row by row, from the first
  dark square in the top left to the last one in the bottom right (as White sees it);
  art. 2.6: Black's 12 men stand on 1-12, White's on 21-32; art. 3.4: White moves first.
* art. 4 and 5.3: men move and capture forwards only, one square diagonally; kings move and
  capture one square in any diagonal direction; a man captures only men, never kings
  (5.3 b: "una pedina prende solo pedine e non dame"); a king captures men and kings.
* the ten rules 5-9 (art. 6 of the Regolamento): capturing is compulsory; the capture
  taking the most pieces must be played; at equal numbers, with the stronger piece (a king
  before a man); then the one taking the stronger pieces (the most kings); then the one
  where the stronger pieces are met first ("dalla parte dove si incontrano prima i pezzi
  più forti"; rule summaries: "dove s'incontra prima la dama avversaria", the first king
  taken); what is still equal is the player's choice.
* a man reaching the far row is crowned and its move ends there, even during a capture.
* draws: "when one and the same position is repeated three times" (the FID's brief rules).

Every expected move list below is worked out by hand from these texts and the numbering
(square s is on row (s - 1) // 4; on even rows the dark squares are columns 0, 2, 4, 6, on
odd rows 1, 3, 5, 7), never taken from the code under test. pydraughts (an independent
library, the test extra) and damier's pure-Python oracle are compared with the core on the
same positions, and on thousands of random positions and playouts.
"""

from __future__ import annotations

import io
import random
from dataclasses import replace
from pathlib import Path

import pytest

import damier
from damier import Board, pdn
from damier.match import run_match
from damier.oracle import Position, notation as oracle_notation
from damier.outcome import Termination
from damier.rules import Rules
from damier.variants import get_variant, variant_for_game_type, variant_for_hub_name

ITALIAN = get_variant("italian")
REFERENCE = Path(__file__).resolve().parent / "data" / "reference" / "perft.txt"

Key = tuple[int, int, frozenset[int]]


def our_moves(board: Board) -> list[str]:
    return sorted(board.notation(m) for m in board.legal_moves)


def our_keys(board: Board) -> set[Key]:
    return {(m.from_square, m.to_square, m.capture_set) for m in board.legal_moves}


# -- the board and the start position (FID art. 2-3) -------------------------------------


def test_numbering_and_orientation():
    # art. 2.4's diagram, row by row: the first dark square of rows 0, 2, 4, 6 is the
    # corner column 0, of rows 1, 3, 5, 7 column 1.
    dark = {}
    for square in range(1, 33):
        row = (square - 1) // 4
        dark[square] = (row, 2 * ((square - 1) % 4) + (row % 2))
    assert {s: ITALIAN.row_col(s) for s in range(1, 33)} == dark
    for row in range(8):
        for col in range(8):
            expected = next((s for s, rc in dark.items() if rc == (row, col)), None)
            assert ITALIAN.square_at(row, col) == expected
    # art. 2.3: White's bottom right corner is dark (32), its bottom left light; the same
    # holds for Black, whose bottom right corner is square 1.
    assert ITALIAN.square_at(7, 7) == 32 and ITALIAN.square_at(7, 0) is None
    assert ITALIAN.square_at(0, 0) == 1 and ITALIAN.square_at(0, 7) is None
    assert ITALIAN.top_left_dark and not get_variant("english").top_left_dark
    assert variant_for_game_type(22) is ITALIAN and variant_for_hub_name("italian") is ITALIAN


def test_start_position_and_first_moves():
    board = Board(variant="italian")
    assert board.turn == damier.WHITE  # art. 3.4
    pieces = board.piece_map()
    assert sorted(s for s, p in pieces.items() if p.color == damier.BLACK) == list(range(1, 13))
    assert sorted(s for s, p in pieces.items() if p.color == damier.WHITE) == list(range(21, 33))
    assert all(not p.king for p in pieces.values())
    # White's front men 21-24 (row 5) step up to row 4 (17-20): 21 (column 1) to 17 and 18,
    # 24 (column 7, the edge) to 20 only.
    assert our_moves(board) == ["21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"]
    assert board.fen() == "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def test_board_text_shows_the_italian_orientation():
    rows = str(Board(variant="italian")).splitlines()
    assert rows[0].startswith("b")          # square 1 in the top left corner
    assert rows[7].endswith("w")            # square 32 in White's bottom right corner


# -- moves (FID art. 4) -----------------------------------------------------------------


@pytest.mark.parametrize("fen, expected", [
    # A man steps forwards one square (22: row 5, column 3, to 18 and 19); a king one
    # square in each direction (15: row 3, column 5, to 11, 12, 19 and 20).
    ("W:W22,K15:B1", ["15-11", "15-12", "15-19", "15-20", "22-18", "22-19"]),
    # A black man steps down the board (6: row 1, column 3, to 10 and 11).
    ("B:W32:B6", ["6-10", "6-11"]),
    # A man never captures backwards: the black man on 22 is behind the white man on 18.
    ("W:W18:B22", ["18-13", "18-14"]),
    # A king captures backwards too, one square beyond the piece.
    ("W:WK18:B22", ["18x27"]),
])
def test_moves(fen, expected):
    assert our_moves(Board(fen, variant="italian")) == sorted(expected)


# -- captures: the rule positions ----------------------------------------------------------

RULE_POSITIONS = [
    # (FEN, the rule, the complete list of legal moves)
    ("W:W22:BK18", "art. 5.3 b: a man does not capture a king (22 would jump 18 to 13)",
     ["22-19"]),
    ("W:W22:B18", "the same with a man on 18: the capture is compulsory", ["22x13"]),
    ("W:WK22:BK18", "art. 5.3 d: a king captures a king", ["22x13"]),
    ("W:W26:B22,K14", "art. 5.3 b during a sequence: after 26x19 the man cannot go on over "
     "the king on 14", ["26x19"]),
    ("W:W27:B15,22,23", "FID rule 5: the most pieces (27x18 takes one, 27x20x11 two)",
     ["27x11"]),
    ("W:W27,K25:B21,23", "FID rule 6: at equal numbers a king's capture comes before a "
     "man's (25x18 and 27x20 take one each)", ["25x18"]),
    ("W:W27,K25:B15,21,23", "FID rule 5 before 6: the man's capture of two beats the king's "
     "of one", ["27x11"]),
    ("W:WK18:B7,14,K22,23", "FID rule 7: the most kings (18x11x4 takes 14 and 7, "
     "18x27x20 takes the king on 22 and 23)", ["18x20"]),
    ("W:WK18:B14,K7,K22,23", "FID rule 8: the king met first (18x11x4 takes 14 then the "
     "king on 7; 18x27x20 the king on 22 first)", ["18x20"]),
    ("W:WK13,K31:BK18,K19,20,K28", "FID rule 8 compares the first king taken: 13x22x15x24 takes "
     "kings first and second, 31x24x15x22 first and third; both are legal", ["13x24", "31x22"]),
    ("W:WK18:B13,14", "FID rule 9: what is still equal is the player's choice",
     ["18x11", "18x9"]),
    ("W:W10:B6,7", "a man reaching the far row during a capture is crowned and stops: from 3 "
     "a king could take 7 backwards", ["10x3"]),
    ("B:W23,26:B19,K22", "the same for Black, rule 6: the king on 22 takes the man on 26 "
     "(to 29), the man on 19 the man on 23 (to 28); the king's capture comes first",
     ["22x29"]),
]


@pytest.mark.parametrize("fen, rule, expected", RULE_POSITIONS,
                         ids=[f"rule{i}" for i in range(len(RULE_POSITIONS))])
def test_rule_positions(fen, rule, expected):
    board = Board(fen, variant="italian")
    assert our_moves(board) == sorted(expected), rule
    assert board.must_capture == any("x" in m for m in expected)
    pos = Position.from_fen(fen, "italian")
    legal = pos.legal_moves()
    assert sorted(oracle_notation(m, legal) for m in legal) == sorted(expected), rule


@pytest.mark.parametrize("fen, rule, expected", RULE_POSITIONS,
                         ids=[f"rule{i}" for i in range(len(RULE_POSITIONS))])
def test_rule_positions_agree_with_pydraughts(fen, rule, expected):
    draughts = pytest.importorskip("draughts")
    theirs = draughts.Board(variant="italian", fen=fen)
    assert sorted(m.pdn_move for m in theirs.legal_moves()) == sorted(expected), rule


def test_a_man_crowned_during_a_capture_stops_there():
    board = Board("W:W10:B6,7", variant="italian")
    move = board.push(board.parse_move("10x3"))
    assert move.captures == (6,)
    assert board.piece_at(3) == damier.Piece(damier.WHITE, king=True)
    assert board.piece_at(7) == damier.Piece(damier.BLACK, king=False)  # not taken
    assert board.turn == damier.BLACK


def test_a_man_cannot_capture_a_king_but_a_king_can():
    men = Board("W:W22:B18", variant="italian")
    king = Board("W:W22:BK18", variant="italian")
    assert men.must_capture and not king.must_capture
    # In English (no such rule) the man on 22 takes the king on 18.
    assert Board("W:W22:BK18", variant="english").must_capture


# -- against pydraughts: the start position, random positions and playouts ---------------

SEED = 20261126
RANDOM_POSITIONS = 3000
PLAYOUTS = 60


def _their_keys(board) -> set[Key]:
    return {(m.steps_move[0], m.steps_move[-1], frozenset(m.captures or ()))
            for m in board.legal_moves()}


def _random_fen(rng: random.Random) -> str:
    """A random position with kings; men never on their own crowning row."""
    count = rng.choice((rng.randint(2, 7), rng.randint(6, 16), rng.randint(16, 26)))
    king_rate = rng.choice((0.1, 0.3, 0.5, 0.9))
    white, black = [], []
    for square in rng.sample(range(1, 33), count):
        is_white = rng.random() < 0.5
        king = rng.random() < king_rate
        if not king and square <= 4 and is_white or not king and square >= 29 and not is_white:
            king = True
        (white if is_white else black).append(f"{'K' if king else ''}{square}")
    return f"{rng.choice('WB')}:W{','.join(white)}:B{','.join(black)}"


def test_start_position_agrees_with_pydraughts():
    draughts = pytest.importorskip("draughts")
    assert our_keys(Board(variant="italian")) == _their_keys(draughts.Board(variant="italian"))


@pytest.mark.slow
def test_random_positions_agree_with_pydraughts():
    draughts = pytest.importorskip("draughts")
    rng = random.Random(SEED)
    captures = kings_taken = 0
    for _ in range(RANDOM_POSITIONS):
        fen = _random_fen(rng)
        ours = Board(fen, variant="italian")
        assert our_keys(ours) == _their_keys(draughts.Board(variant="italian", fen=fen)), fen
        captures += ours.must_capture
        kings_taken += any(ours.piece_at(s).king for m in ours.legal_moves for s in m.captures)
    # The sample holds pending captures, and captures of kings.
    assert captures > RANDOM_POSITIONS // 5 and kings_taken > RANDOM_POSITIONS // 20


def _their_pieces(fen: str) -> dict[int, str]:
    pieces: dict[int, str] = {}
    for field in fen.split(":")[1:]:
        colour = field[0].lower()
        for item in filter(None, field[1:].split(",")):
            king = item.startswith("K")
            pieces[int(item.lstrip("K"))] = colour.upper() if king else colour
    return pieces


@pytest.mark.slow
def test_random_playouts_agree_with_pydraughts():
    draughts = pytest.importorskip("draughts")
    rng = random.Random(SEED + 1)
    compared = finished = 0
    for _ in range(PLAYOUTS):
        ours = Board(variant="italian")
        theirs = draughts.Board(variant="italian")
        for _ply in range(300):
            assert our_keys(ours) == _their_keys(theirs), ours.fen()
            compared += 1
            if not ours.legal_moves:
                assert theirs.is_over() and theirs.winner() == (1 if ours.turn else 2)
                finished += 1
                break
            move = rng.choice(sorted(ours.legal_moves, key=str))
            key = (move.from_square, move.to_square, move.capture_set)
            theirs.push(next(m for m in theirs.legal_moves()
                             if (m.steps_move[0], m.steps_move[-1], frozenset(m.captures or ()))
                             == key))
            ours.push(move)
            symbols = {s: p.symbol() for s, p in ours.piece_map().items()}
            assert symbols == _their_pieces(theirs.fen), (ours.fen(), theirs.fen)
    assert compared > 3000 and finished > 10


def test_oracle_agrees_on_random_positions():
    rng = random.Random(SEED + 2)
    for _ in range(400):
        fen = _random_fen(rng)
        pos = Position.from_fen(fen, "italian")
        assert our_keys(Board(fen, variant="italian")) == {m.key() for m in pos.legal_moves()}, fen


# -- perft (tests/data/reference/perft.txt) --------------------------------------------


def test_the_reference_table_has_italian_counts_from_another_program():
    lines = [line for line in REFERENCE.read_text(encoding="utf-8").splitlines()
             if line.startswith("italian;initial;")]
    assert len(lines) == 1
    counts = [int(c) for c in lines[0].split(";")[3].split(",")]
    assert len(counts) >= 8
    # Up to 4 plies no capture can arise and Italian counts equal English's (the start
    # positions are mirror images of each other, colours swapped); from 6 plies on, the
    # majority rule (English has none) makes them differ.
    english = next(line for line in REFERENCE.read_text(encoding="utf-8").splitlines()
                   if line.startswith("english;initial;"))
    english_counts = [int(c) for c in english.split(";")[3].split(",")]
    assert counts[:5] == english_counts[:5] and counts[5] != english_counts[5]
    board = Board(variant="italian")
    assert [board.perft(d) for d in range(1, 7)] == counts[:6]


# -- endgame tables ----------------------------------------------------------------------


def test_endgame_table_slots_round_trip():
    """A position's slot in the endgame tables decodes back to it: the slot ranks the
    squares in number order, which on the Italian board is not the core's bit order."""
    from damier import _core

    rng = random.Random(SEED + 3)
    checked = 0
    for _ in range(300):
        squares = rng.sample(range(1, 33), 4)
        kings = [f"K{s}" for s in squares]
        fen = f"W:W{kings[0]},{kings[1]}:B{kings[2]},{kings[3]}"
        board = Board(fen, variant="italian")
        found = _core.egdb_key(board)
        assert found is not None
        signature, slot = found
        assert signature == (0, 2, 0, 2)
        assert _core.egdb_position(ITALIAN.index, signature, slot) == (
            [], sorted(squares[:2]), [], sorted(squares[2:]))
        checked += 1
    assert checked == 300
    # The core lists the squares of each kind in increasing order.
    assert Board("W:W21,22,23,24:B5,6,7", variant="italian")._pieces()[1] == [21, 22, 23, 24]


def test_endgame_tables_build_and_verify(tmp_path):
    from damier.egdb_build import build

    reports = build(tmp_path, pieces=3, variant="italian")
    assert reports  # every table verified (each value the best over its successors)
    assert (tmp_path / "italian").is_dir()


# -- draws, notation, PDN -----------------------------------------------------------------


def test_draw_rules():
    rules = Rules.for_variant("italian")
    assert rules.repetition_limit == 3
    assert rules.king_moves_limit is None and rules.sixteen_moves_limit is None
    assert rules.five_moves_limit is None
    board = Board("W:WK29:BK4", variant="italian")
    for text in ("29-25", "4-8", "25-29", "8-4") * 2:
        assert board.outcome() is None
        board.push(board.parse_move(text))
    outcome = board.outcome()
    assert outcome is not None and outcome.termination == Termination.THREEFOLD_REPETITION
    # pydraughts' reading (English's 40-move rule) is an option.
    forty = replace(rules, king_moves_limit=40)
    assert Board("W:WK29:BK4", variant="italian", rules=forty).rules.king_moves_limit == 40


def test_pdn_game_type_22_round_trips():
    board = Board(variant="italian")
    for text in ("21-17", "12-16", "17-13", "9x18", "22x13", "10x17"):
        board.push(board.parse_move(text))
    text = pdn.write_game(pdn.Game.from_board(board))
    assert '[GameType "22"]' in text and "3. 22x13 10x17" in text
    game = pdn.read_game(text)
    assert game.variant is ITALIAN
    assert list(game.mainline_moves()) == list(board.move_stack)
    # Black has no piece left: White wins, written 1-0.
    assert Board("B:W32:B", variant="italian").result() == "1-0"


# -- the engine and the command line ------------------------------------------------------


def test_engine_plays_italian_in_a_match(tmp_path):
    out = tmp_path / "games.pdn"
    result = run_match("damier:depth=2", "damier:depth=3", games=2, variant="italian",
                       progress=False, pdn_path=out, stream=io.StringIO(), seed=3)
    assert result.games_played == 2 and not result.errors
    games = list(pdn.read_games(out.read_text()))
    assert len(games) == 2
    for game in games:
        assert game.variant is ITALIAN
        board = game.board()
        for move in game.mainline_moves():
            assert move in board.legal_moves
            board.push(move)
        assert game.headers["Result"] in ("1-0", "1/2-1/2", "0-1", "*")


def test_play_command_starts_an_italian_game():
    from damier.cli import build_parser
    from damier.cli.play import play_command

    out, err = io.StringIO(), io.StringIO()
    lines = iter(["21-18", "rules", "quit"])

    def read_line(prompt: str) -> str:
        out.write(prompt)
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    args = build_parser().parse_args(["play", "--variant", "italian", "--white", "human",
                                      "--black", "human"])
    assert play_command(args, out, err, read_line=read_line) == 0
    text = out.getvalue()
    assert "Italian draughts" in text and "Men cannot capture kings." in text
    assert "threefold repetition" in text
