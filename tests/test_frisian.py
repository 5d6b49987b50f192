"""Frisian draughts and Frysk!, by the rules of the Frisian draughts federation as lidraughts
plays them.

The rules (lidraughts' rules of the variant, as py-draughts' documentation of its Frisian
board reproduces them, and the federation's rules as the Wikipedia and mindsports.nl
summaries give them):

* the International board and start (Frysk!: five men each, ``W:W46-50:B1-5``); men move one
  square diagonally forward; kings move any distance along a diagonal ("crowned pieces ...
  can move freely multiple steps in any diagonal direction");
* "besides capturing diagonally, one can also capture horizontally and vertically. Every
  piece can thus capture in eight directions": a man jumps the piece on the next dark square
  of its row or file (two board squares away: the row neighbours of 28 are 27 and 29, its
  file neighbours 18 and 38) to the dark square beyond (26, 30, 8, 48); a king captures at
  any distance along rows and files as along diagonals, and lands on any free square beyond,
  but where it can capture further from some of them it must land on one of those;
* captured pieces stay on the board until the move ends (they block, and are not jumped
  twice); a man is crowned only when its move ends on the far row;
* the capture of the highest value must be played ("it is compulsory to make the highest
  shot value"; a king "has more value than a man, but less than two men": lidraughts counts
  a man 100 and a king 199); "if a king and a man can play a capture sequence of equal
  value, it is always forced to play with the king";
* a player who also has men "is not allowed to play more than three non-capturing moves in
  a row with the same king"; after the third, that king may still capture, and otherwise
  "one is forced to play with a different king or a man"; "after that one can play any move
  with that king again"; "this rule does not apply for a player that has no more men left".

Every expected move list in the rule positions below is worked out by hand from these texts
and the numbering (square s is on row (s - 1) // 5; the dark squares of even rows are the
columns 1, 3, 5, 7, 9, of odd rows 0, 2, 4, 6, 8), never taken from the code under test.

Then the compiled core is compared with damier's pure-Python oracle (:mod:`damier.oracle`,
written from the same texts) on start-position perft, random placements (with king runs set
on both sides) and random playouts, and with pydraughts (an independent implementation, the
test extra, importing as ``draughts``) move by move along random playouts, from the start
positions and from random placements. pydraughts tracks the king-move limit through its move
history (the side's last three moves: one piece, none a capture, a king since before them),
so the playouts, biased towards quiet moves of the king that moved last, exercise it.

Where pydraughts reads the rules differently (the only disagreements found; each disagreeing
position is checked to be one of these, then left out):

* the weights: pydraughts counts a king 1.501 men where lidraughts counts 199 against 100.
  The two orders differ only when one capture takes at least three kings more and at least
  five men fewer than the other (three kings against five men: lidraughts 597 against 500,
  pydraughts 4.503 against 5); damier follows lidraughts (:data:`WEIGHTS_FEN` is such a
  position).
* rounding: pydraughts adds the weights as floating-point numbers in the order of capture and
  keeps only the captures whose sum equals the largest exactly, so of two captures of equal
  value taking their kings in different orders (five pieces with two kings, or more) the one
  whose sum rounds lower is left out (two kings then three men add up to 6.002, three men
  then two kings to 6.001999999999999). The rules let the player choose among the captures
  of the highest value, so damier keeps them all.

A disagreeing position is left out only when pydraughts' own capture sequences, chosen by
the rules (the highest value at 100 and 199, a king's capture first), give damier's moves,
and chosen by pydraughts' reading (its float sums in its order) give pydraughts' moves.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import pytest

import damier
from damier import Board
from damier.oracle import Position, perft as oracle_perft
from movesets import Key, core_keys, core_texts, oracle_keys, oracle_play, oracle_texts
from damier.variants import get_variant, variant_for_game_type, variant_for_hub_name

FRISIAN = get_variant("frisian")
FRYSK = get_variant("frysk")
SEED = 20261201

WEIGHTS_FEN = "W:W44,46:B7,13,18,27,41,K10,K20,K34"
"""Three kings (44x4) against five men (46x6): see the last rule position."""

Runs = tuple[tuple[int, int], tuple[int, int]]


def their_key(move: Any) -> Key:
    return (move.steps_move[0], move.steps_move[-1], frozenset(move.captures or ()))


def their_keys(board: Any) -> set[Key]:
    return {their_key(m) for m in board.legal_moves()}


# -- the registry ---------------------------------------------------------------------------


def test_registry_fields():
    for variant, game_type in ((FRISIAN, 40), (FRYSK, 97)):
        assert variant.orthogonal_captures and variant.flying_kings
        assert variant.capture_values == (100, 199) and variant.king_move_limit == 3
        assert variant.men_capture_backwards and not variant.promote_during_capture
        assert variant_for_game_type(game_type) is variant
        assert variant_for_hub_name(variant.name) is variant
    assert FRISIAN.initial_fen == "W:W31-50:B1-20" and FRYSK.initial_fen == "W:W46-50:B1-5"


# -- rule positions -------------------------------------------------------------------------

RULE_POSITIONS = [
    # (variant, FEN, the rule, the complete list of legal moves)
    ("frisian", "W:W28:B27,29", "men capture along rows (sideways, both ways): 28 jumps its "
     "row neighbours 27 and 29 to 26 and 30", ["28x26", "28x30"]),
    ("frisian", "W:W28:B18,38", "men capture along files, forward (18, to 8) and backward "
     "(38, to 48)", ["28x48", "28x8"]),
    ("frisian", "B:W27,38:B28", "the same for Black: sideways over 27 to 26, forward along "
     "the file over 38 to 48", ["28x26", "28x48"]),
    ("frisian", "W:W28:B29,30", "a man jumps only to a free square: 30 blocks the jump over "
     "29; moves that do not capture stay diagonal", ["28-22", "28-23"]),
    ("frisian", "W:W28:B8,30", "a man jumps only the next dark square of the row or file "
     "(29 and 18 are empty)", ["28-22", "28-23"]),
    ("frisian", "W:WK36:B38", "a king captures along a row at a distance (37 empty) and lands "
     "on any free square beyond", ["36x39", "36x40"]),
    ("frisian", "W:WK3:B33", "a king captures along a file at a distance (13, 23 empty) to "
     "43, the only dark square beyond on that file", ["3x43"]),
    ("frisian", "W:WK36:B20,38", "a king must land where it can go on: from 40 (not 39) it "
     "takes 20 along the file (30 empty) to 10", ["36x10"]),
    ("frisian", "W:W28:B18,23", "a mixed sequence: 28x19 diagonally over 23, then 19x17 "
     "along the row over 18 (200) beats 28x8 over 18 alone", ["28x17"]),
    ("frisian", "W:W28,46:B27,41,K29", "value: two men (46x37x17 over 41 and 27, 200) beat "
     "one king (28x30 over 29, 199) and one man (28x26, 100)", ["46x17"]),
    ("frisian", "W:W28,46:B12,27,41,K20,K29", "value: two kings (28x30x10 over 29 and 20, "
     "398) beat three men (46x37x17x8 over 41, 27, 12: 300)", ["28x10"]),
    ("frisian", "W:W28,46:B12,20,27,41,K29", "value: three men (300) beat a king and a man "
     "(28x30x10 over 29 and 20: 299)", ["46x8"]),
    ("frisian", "W:WK46,28:B29,41", "equal value (100 each): the king's capture (46x37 or "
     "46x32 over 41) comes before the man's (28x30 over 29)", ["46x32", "46x37"]),
    ("frisian", "W:WK46,28:B41,K29", "value before the king: the man's 28x30 over the king "
     "on 29 (199) beats the king's 46x37/46x32 over 41 (100)", ["28x30"]),
    ("frisian", "W:W28:B18,22,23,33", "captured pieces stay and are not jumped twice: "
     "28x19x17x28 (or 28x17x19x28) around the square cannot jump 23 or 22 again, and goes on "
     "over 33 to 39 (all four, 400)", ["28x39"]),
    ("frisian", "W:W28,K33:B1", "moves that do not capture stay diagonal, for kings too",
     ["28-22", "28-23", "33-15", "33-20", "33-24", "33-29", "33-38", "33-39", "33-42",
      "33-44", "33-47", "33-50"]),
    ("frisian", "W:W13:B8,12", "13x2 over 8 reaches the far row, then 2x22 down the file "
     "over 12: the man is not crowned", ["13x22"]),
    ("frysk", "W:W46-50:B1-5", "the Frysk! start: White's five men on 46-50 step to row 8",
     ["46-41", "47-41", "47-42", "48-42", "48-43", "49-43", "49-44", "50-44", "50-45"]),
    ("frisian", WEIGHTS_FEN, "three kings (44x24x15x4 over 34, "
     "20, 10: 597) beat five men (46x37x17x19x8x6 over 41, 27, 18, 13, 7: 500)", ["44x4"]),
]

RULE_IDS = [f"rule{i}" for i in range(len(RULE_POSITIONS))]


@pytest.mark.parametrize("variant, fen, rule, expected", RULE_POSITIONS, ids=RULE_IDS)
def test_rule_positions(variant, fen, rule, expected):
    board = Board(fen, variant=variant)
    assert core_texts(board) == sorted(expected), rule
    assert board.must_capture == any("x" in m for m in expected)
    assert oracle_texts(Position.from_fen(fen, variant)) == sorted(expected), rule


@pytest.mark.parametrize("variant, fen, rule, expected", RULE_POSITIONS, ids=RULE_IDS)
def test_rule_positions_agree_with_pydraughts(variant, fen, rule, expected):
    draughts = pytest.importorskip("draughts")
    if fen == WEIGHTS_FEN:
        pytest.skip("pydraughts weighs a king 1.501 men (see the module docstring)")
    board = Board(fen, variant=variant)
    assert their_keys(draughts.Board(variant=variant, fen=fen)) == core_keys(board), rule


def test_pydraughts_weighs_a_king_1_501_men():
    """The weights reading (module docstring): 3 x 1.501 = 4.503 kings against 5 men."""
    draughts = pytest.importorskip("draughts")
    theirs = draughts.Board(variant="frisian", fen=WEIGHTS_FEN)
    assert sorted(m.pdn_move for m in theirs.legal_moves()) == ["46x6"]
    assert core_texts(Board(WEIGHTS_FEN, variant="frisian")) == ["44x4"]


def test_crowning_only_at_the_end_of_the_move():
    board = Board("W:W13:B8,12", variant="frisian")
    board.push("13x22")     # touches 2 on the far row, ends on 22
    assert board.piece_at(22) == damier.Piece(damier.WHITE, king=False)
    board = Board("B:W27,38:B28", variant="frisian")
    board.push("28x48")     # a black man ending on row 9 after a file capture
    assert board.piece_at(48) == damier.Piece(damier.BLACK, king=True)
    board = Board("B:W27,38:B28", variant="frisian")
    board.push("28x26")
    assert board.piece_at(26) == damier.Piece(damier.BLACK, king=False)


# -- the king-move limit --------------------------------------------------------------------

# White's king shuttles 46-41-46-41 while Black's men step down, far from it.
THREE_KING_MOVES = ["46-41", "2-8", "41-46", "8-13", "46-41", "1-6"]

KING_LIMIT_CASES = [
    # (FEN, moves played, the complete legal moves then, the king runs then, the rule)
    ("W:WK46,35:B1,2", THREE_KING_MOVES, ["35-30"], ((41, 3), (0, 0)),
     "after three non-capturing moves the king on 41 may not move; the man must"),
    ("W:WK46,35:B1,2", THREE_KING_MOVES[:5] + ["13-19"], ["41x10", "41x14", "41x5"],
     ((41, 3), (0, 0)), "the king may still capture (19 on its diagonal, 14, 10, 5 free)"),
    ("W:WK46:B1,2", THREE_KING_MOVES,
     ["41-10", "41-14", "41-19", "41-23", "41-28", "41-32", "41-36", "41-37", "41-46",
      "41-47", "41-5"], ((41, 3), (0, 0)), "no limit for a player with only kings"),
    ("W:WK46,35:B1,2", THREE_KING_MOVES + ["35-30", "13-18"],
     ["30-24", "30-25", "41-10", "41-14", "41-19", "41-23", "41-28", "41-32", "41-36",
      "41-37", "41-46", "41-47", "41-5"], ((0, 0), (0, 0)),
     "a man's move ends the run: the king may move again"),
    ("W:WK46,K50,35:B1,2", THREE_KING_MOVES,
     ["35-30", "50-11", "50-17", "50-22", "50-28", "50-33", "50-39", "50-44", "50-45"],
     ((41, 3), (0, 0)), "the other king and the man may move (50 stops before 6)"),
    ("W:WK46,K50,35:B1,2", THREE_KING_MOVES + ["50-44", "13-18"],
     ["35-30", "41-10", "41-14", "41-19", "41-23", "41-28", "41-32", "41-36", "41-37",
      "41-46", "41-47", "41-5", "44-11", "44-17", "44-22", "44-28", "44-33", "44-39", "44-40",
      "44-49", "44-50"], ((44, 1), (0, 0)),
     "another king's move ends the run (and starts its own)"),
]

LIMIT_IDS = [f"limit{i}" for i in range(len(KING_LIMIT_CASES))]


@pytest.mark.parametrize("fen, moves, expected, runs, rule", KING_LIMIT_CASES, ids=LIMIT_IDS)
def test_king_move_limit(fen, moves, expected, runs, rule):
    board = Board(fen, variant="frisian")
    pos = Position.from_fen(fen, "frisian")
    for text in moves:
        move = board.push(text)
        pos = oracle_play(pos, (move.from_square, move.to_square, move.capture_set))
    assert core_texts(board) == sorted(expected), rule
    assert oracle_texts(pos) == sorted(expected), rule
    assert board._king_runs() == runs and pos.king_runs == runs


@pytest.mark.parametrize("fen, moves, expected, runs, rule", KING_LIMIT_CASES, ids=LIMIT_IDS)
def test_king_move_limit_agrees_with_pydraughts(fen, moves, expected, runs, rule):
    draughts = pytest.importorskip("draughts")
    board = Board(fen, variant="frisian")
    theirs = draughts.Board(variant="frisian", fen=fen)
    for text in moves:
        move = board.push(text)
        key = (move.from_square, move.to_square, move.capture_set)
        theirs.push(next(m for m in theirs.legal_moves() if their_key(m) == key))
    assert their_keys(theirs) == core_keys(board), rule


def test_king_runs_are_counted_and_pop_restores_them():
    board = Board("W:WK46,35:B1,2", variant="frisian")
    seen = []
    for text in THREE_KING_MOVES:
        board.push(text)
        seen.append(board._king_runs()[0])
    assert seen == [(41, 1), (41, 1), (46, 2), (46, 2), (41, 3), (41, 3)]
    assert core_texts(board) == ["35-30"]
    board.pop()
    board.pop()
    # Back before the third king move: the run is 2, and the king may move (9 squares up
    # its long diagonal, 41 to 5) besides the man's 35-30.
    assert board._king_runs() == ((46, 2), (0, 0))
    assert core_texts(board) == ["35-30", "46-10", "46-14", "46-19", "46-23", "46-28",
                                 "46-32", "46-37", "46-41", "46-5"]
    board.push("46-41")
    board.push("1-6")
    assert core_texts(board) == ["35-30"]
    # The oracle's runs, given by hand, restrict the same king.
    pos = Position.from_fen(board.fen(), "frisian", king_runs=((41, 3), (0, 0)))
    assert oracle_texts(pos) == ["35-30"]
    assert oracle_texts(Position.from_fen(board.fen().split(":+")[0], "frisian")) != ["35-30"]
    with pytest.raises(ValueError):
        Position.from_fen(board.fen(), "frisian", king_runs=((40, 3), (0, 0)))


def test_the_limit_holds_for_black_too():
    # Black's king on 5 shuttles 5-10-5-10 while White's man steps up 50-44-39-33, off the
    # king's lines; then the king may not move, and Black's man on 1 must (to 6 or 7).
    board = Board("B:W50:BK5,1", variant="frisian")
    pos = Position.from_fen("B:W50:BK5,1", "frisian")
    for text in ["5-10", "50-44", "10-5", "44-39", "5-10", "39-33"]:
        move = board.push(text)
        pos = oracle_play(pos, (move.from_square, move.to_square, move.capture_set))
    assert board._king_runs() == ((0, 0), (10, 3)) == pos.king_runs
    assert core_texts(board) == ["1-6", "1-7"] == oracle_texts(pos)


def test_king_runs_travel_in_the_fen():
    """Lidraughts' Frisian FEN field ``+<black run><square>+<white run><square>``
    carries the runs, so a position read back keeps the king-move limit."""
    board = Board("W:WK46,35:B1,2", variant="frisian")
    for text in THREE_KING_MOVES:
        board.push(text)
    assert board.fen() == "W:W35,K41:B6,13:+0+341"
    again = Board(board.fen(), variant="frisian")
    assert again._king_runs() == ((41, 3), (0, 0))
    assert core_texts(again) == ["35-30"]
    assert again.zobrist_hash() == board.zobrist_hash()
    # without the field the same pieces let the king move
    assert len(core_texts(Board("W:W35,K41:B6,13", variant="frisian"))) > 1
    # Black's run, written first; a run of 2 still lets the king move once more
    black = Board("B:W50:B1,K10:+210+0", variant="frisian")
    assert black._king_runs() == ((0, 0), (10, 2))
    assert "10-5" in core_texts(black)
    assert black.fen() == "B:W50:B1,K10:+210+0"
    # no run under way: no field
    assert Board("W:WK46,35:B1,2", variant="frisian").fen() == "W:W35,K46:B1,2"


@pytest.mark.parametrize("fen, variant, message", [
    ("W:WK41,35:B1,2:+0+441", "frisian", "at most 3"),
    ("W:WK41,35:B1,2:+0+335", "frisian", "holds no white king"),
    ("W:WK41,35:B1,2:+341+0", "frisian", "holds no black king"),
    ("W:WK41,35:B1,2:+0+3", "frisian", "no square"),
    ("W:WK41,35:B1,2:+041+0", "frisian", "a run of 0"),
    ("W:WK41,35:B1,2:+0+x41", "frisian", "bad king-run field"),
    ("W:WK41,35:B1,2:+0+0:+0+0", "frisian", "repeated king-run field"),
    ("W:WK41,35:B1,2:+0+141", "international", "not International"),
])
def test_bad_king_run_fields_are_named(fen, variant, message):
    with pytest.raises(damier.InvalidFenError, match=message):
        Board(fen, variant=variant)


# -- core against the oracle ----------------------------------------------------------------


@pytest.mark.parametrize("variant, depth", [("frisian", 4), ("frysk", 5)])
def test_start_perft_matches_oracle(variant, depth):
    board = Board(variant=variant)
    core = [board.perft(d) for d in range(1, depth + 1)]
    start = Position.initial(variant)
    assert core == [oracle_perft(start, d) for d in range(1, depth + 1)]
    # By hand: 9 first moves, and 9 replies to each (the two camps are too far apart to meet).
    assert core[:2] == [9, 81]


def _random_pieces(rng: random.Random, mode: str) -> tuple[dict[int, str], bool]:
    """A random placement (men never on their own crowning row), and who moves.

    ``mode``: ``"any"`` (3 to 30 pieces, kings at some rate), ``"kings"`` (the same with at
    least one king each) or ``"halves"`` (6 to 16 pieces, one king each, the men on their
    own half of the board: quieter positions, where kings have time to move).
    """
    halves = mode == "halves"
    count = rng.randint(6, 16) if halves else rng.choice(
        (rng.randint(3, 8), rng.randint(8, 18), rng.randint(18, 30)))
    king_rate = 0.0 if halves else rng.choice((0.1, 0.3, 0.6))
    pieces: dict[int, str] = {}
    for i, square in enumerate(rng.sample(range(1, 51), count)):
        white = i % 2 == 0
        king = (mode != "any" and i < 2) or rng.random() < king_rate
        if not king and halves and (square <= 25 if white else square > 25):
            continue
        if not king and (square <= 5 if white else square > 45):
            king = True
        pieces[square] = ("W" if king else "w") if white else ("B" if king else "b")
    return pieces, rng.random() < 0.5


def _fen(pieces: dict[int, str], white_to_move: bool) -> str:
    def side(colour: str) -> str:
        return ",".join(("K" if p.isupper() else "") + str(s)
                        for s, p in sorted(pieces.items()) if p.lower() == colour)
    return f"{'W' if white_to_move else 'B'}:W{side('w')}:B{side('b')}"


def _random_runs(rng: random.Random, pieces: dict[int, str]) -> Runs:
    runs = []
    for king in "WB":
        squares = sorted(s for s, p in pieces.items() if p == king)
        runs.append((rng.choice(squares), rng.randint(1, 4)) if squares and rng.random() < 0.7
                    else (0, 0))
    return runs[0], runs[1]


def _bites(board: Board) -> bool:
    """The king-move limit stops a king of the side to move."""
    square, count = board._king_runs()[0 if board.turn == damier.WHITE else 1]
    if count < 3:
        return False
    piece = board.piece_at(square)
    has_men = any(not p.king and p.color == board.turn for p in board.piece_map().values())
    return has_men and piece is not None and piece.king and piece.color == board.turn


@pytest.mark.slow
def test_random_positions_match_oracle():
    rng = random.Random(SEED)
    captures = bitten = 0
    for i in range(2000):
        variant = "frysk" if i % 5 == 0 else "frisian"
        pieces, white = _random_pieces(rng, ("any", "kings", "halves")[i % 3])
        fen = _fen(pieces, white)
        runs = _random_runs(rng, pieces) if i % 4 else ((0, 0), (0, 0))
        board = Board(fen, variant=variant)
        board._set_king_runs(*runs)
        pos = Position.from_fen(fen, variant, king_runs=runs)
        assert core_keys(board) == oracle_keys(pos), (fen, runs)
        captures += board.must_capture
        bitten += _bites(board) and not board.must_capture
    # The sample holds pending captures, and quiet positions where the limit stops a king.
    assert captures > 1000 and bitten > 50, (captures, bitten)


def _choose(rng: random.Random, board: Board) -> Any:
    """A random legal move, mostly a quiet move of the king that made the side's last move
    (so that the king-move limit comes into play), else of any king, else any move."""
    moves = sorted(board.legal_moves, key=str)
    run_square = board._king_runs()[0 if board.turn == damier.WHITE else 1][0]
    quiet_kings = [m for m in moves if not m.is_capture and board.piece_at(m.from_square).king]
    same = [m for m in quiet_kings if m.from_square == run_square]
    r = rng.random()
    if same and r < 0.75:
        return rng.choice(same)
    if quiet_kings and r < 0.85:
        return rng.choice(quiet_kings)
    return rng.choice(moves)


def _effective_runs(board: Board) -> Runs:
    """The core's runs, less those whose king has been taken (the oracle ends them)."""
    runs = []
    for (square, count), colour in zip(board._king_runs(), (damier.WHITE, damier.BLACK),
                                       strict=True):
        piece = board.piece_at(square) if count else None
        ok = piece is not None and piece.king and piece.color == colour
        runs.append((square, count) if ok else (0, 0))
    return runs[0], runs[1]


@pytest.mark.slow
def test_random_playouts_match_oracle():
    rng = random.Random(SEED + 1)
    compared = bitten = captures = long_runs = 0
    starts: list[tuple[str, str | None, int]] = (
        [("frisian", None, 200)] * 10 + [("frysk", None, 200)] * 30)
    for _ in range(400):
        pieces, white = _random_pieces(rng, "halves")
        starts.append(("frisian", _fen(pieces, white), 40))
    for variant, fen, plies in starts:
        board = Board(fen, variant=variant)
        pos = Position.from_fen(fen or get_variant(variant).initial_fen, variant)
        for _ply in range(plies):
            assert core_keys(board) == oracle_keys(pos), (board.fen(), board._king_runs())
            # The runs the oracle keeps (see Position) are the core's.
            assert _effective_runs(board) == pos.king_runs, board.fen()
            compared += 1
            bitten += _bites(board)
            captures += board.must_capture
            long_runs += max(count for _, count in pos.king_runs) >= 2
            if not board.legal_moves:
                break
            move = _choose(rng, board)
            pos = oracle_play(pos, (move.from_square, move.to_square, move.capture_set))
            board.push(move)
    assert compared > 4000 and captures > 800, (compared, captures)
    assert long_runs > 400 and bitten > 40, (long_runs, bitten)


# -- against pydraughts -----------------------------------------------------------------------


def _value_choice(paths: Sequence[tuple[Key, list[int]]], kings: set[int],
                  weigh: Callable[[list[int]], Fraction]) -> set[Key]:
    """The captures a value rule chooses among ``paths`` (pydraughts' capture sequences:
    key and captured squares in order): the highest value by ``weigh``, then, if any is
    made by a king, only those."""
    values = [(key, weigh(order)) for key, order in paths]
    best = max(v for _, v in values)
    chosen = {key for key, v in values if v == best}
    by_king = {key for key in chosen if key[0] in kings}
    return by_king or chosen


def _rules_value(kings: set[int]) -> Callable[[list[int]], Fraction]:
    """lidraughts' weights: a man 100, a king 199."""
    return lambda order: Fraction(sum(199 if s in kings else 100 for s in order))


def _pydraughts_value(kings: set[int]) -> Callable[[list[int]], Fraction]:
    """pydraughts' reading: 1 and 1.501, added as floats in the order of capture (the
    Fraction holds the float's exact value, rounding and all)."""
    def weigh(order: list[int]) -> Fraction:
        total = 0.0
        for square in order:
            total += 1.501 if square in kings else 1.0
        return Fraction(total)
    return weigh


def _exact_1501_value(kings: set[int]) -> Callable[[list[int]], Fraction]:
    """pydraughts' weights without the rounding."""
    return lambda order: sum((Fraction(1501, 1000) if s in kings else Fraction(1)
                              for s in order), Fraction(0))


def _explain(board: Board, theirs: Any, ours: set[Key], their_set: set[Key]) -> str:
    """Why pydraughts' moves differ from ours: "weights" or "rounding" (module docstring);
    fails when neither explains it."""
    moves, captured = theirs._game.get_moves()
    paths = []
    for steps, order in zip(moves, captured, strict=True):
        squares = [s for s in order if s is not None]
        if squares:
            paths.append(((steps[0][0], steps[-1][1], frozenset(squares)), squares))
    assert paths, f"no capture, yet the moves differ: {board.fen()}"
    kings = {s for s, p in board.piece_map().items() if p.king}
    assert _value_choice(paths, kings, _rules_value(kings)) == ours, board.fen()
    assert _value_choice(paths, kings, _pydraughts_value(kings)) == their_set, board.fen()
    exact = _value_choice(paths, kings, _exact_1501_value(kings))
    return "rounding" if exact != their_set else "weights"


def _pydraughts_playouts(draughts: Any, rng: random.Random,
                         starts: list[tuple[str, str | None, int]]) -> dict[str, int]:
    counts = {"compared": 0, "bitten": 0, "weights": 0, "rounding": 0}
    for variant, fen, plies in starts:
        board = Board(fen, variant=variant)
        theirs = draughts.Board(variant=variant, fen=fen or "startpos")
        for _ply in range(plies):
            ours = core_keys(board)
            their_moves = {their_key(m): m for m in theirs.legal_moves()}
            if set(their_moves) != ours:
                counts[_explain(board, theirs, ours, set(their_moves))] += 1
            else:
                counts["compared"] += 1
                counts["bitten"] += _bites(board)
            if not ours:
                break
            # Play a move both sides list (in the excluded positions the two lists differ).
            move = _choose(rng, board)
            key = (move.from_square, move.to_square, move.capture_set)
            if key not in their_moves:
                shared = sorted(set(their_moves) & ours, key=str)
                if not shared:
                    break
                key = rng.choice(shared)
                move = next(m for m in board.legal_moves
                            if (m.from_square, m.to_square, m.capture_set) == key)
            theirs.push(their_moves[key])
            board.push(move)
    return counts


@pytest.mark.slow
def test_playouts_from_the_start_agree_with_pydraughts():
    draughts = pytest.importorskip("draughts")
    rng = random.Random(SEED + 2)
    counts = _pydraughts_playouts(
        draughts, rng, [("frisian", None, 200)] * 4 + [("frysk", None, 200)] * 40)
    assert counts["compared"] > 1500 and counts["bitten"] > 0, counts


@pytest.mark.slow
def test_playouts_from_random_placements_agree_with_pydraughts():
    draughts = pytest.importorskip("draughts")
    rng = random.Random(SEED + 3)
    starts: list[tuple[str, str | None, int]] = []
    for _ in range(350):
        pieces, white = _random_pieces(rng, "halves")
        starts.append(("frisian", _fen(pieces, white), 40))
    counts = _pydraughts_playouts(draughts, rng, starts)
    assert counts["compared"] > 2500 and counts["bitten"] > 30, counts


@pytest.mark.parametrize("fen, reason", [
    # Black's king on 2 takes six pieces, two of them kings (798), along several paths:
    # 2x42x24x8x28x5x45 takes 22, 38, the kings on 13 and 18, then 14 and 35 (pydraughts'
    # sum 7.002); 2x32x43x3x25x45x12 takes 22, 38, the king on 13, 14, 35, the king on 18
    # (7.001999999999999), and pydraughts leaves it out, with the moves ending on 12, 7, 1.
    ("B:WK13,14,K18,22,35,38,K50:BK2,17", "rounding"),
    (WEIGHTS_FEN, "weights"),
])
def test_the_pydraughts_readings_are_told_apart(fen, reason):
    draughts = pytest.importorskip("draughts")
    board = Board(fen, variant="frisian")
    theirs = draughts.Board(variant="frisian", fen=fen)
    ours, their_set = core_keys(board), their_keys(theirs)
    assert ours != their_set
    assert _explain(board, theirs, ours, their_set) == reason
