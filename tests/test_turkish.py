"""Turkish draughts (dama): the rule positions, the compiled core against the oracle, and
pydraughts.

The rule texts (Wikipedia, "Turkish draughts", quoted; Alemanni's page "Turkish 8x8
checkers" gives the same rules for moves, captures and removal):

* an 8x8 board, every square used; 16 men each on the second and third rows, the back rows
  empty; White moves first;
* "Men can move forward or sideways one square, capturing by means of a jump, but they
  cannot move backwards" (Alemanni: "The man captures in any of the same directions that it
  can go"): a man jumps the adjacent enemy piece in front of it or beside it to the empty
  square just beyond;
* "Kings may move any number of squares forwards, backwards or sideways" (Alemanni: "at any
  distance on an open line"), "capturing by jumping over any piece and landing on any square
  within permissible path beyond the captured piece";
* "Pieces are removed immediately after being jumped", so "it is possible to cross the same
  square (previously occupied by a captured piece) more than once in the same capturing
  sequence", and a removal "may open up additional jumps previously impossible";
* "Within a multicapture, turning 180 degrees between two captures is not allowed";
* "If a jump is possible, it must be done. If several ways of jumping are possible, the one
  that captures the most pieces must be chosen. No difference between king and man is made
  during capture; each counts as one piece";
* "When a man reaches the back row, it is promoted to a king at the end of the move": a man
  that reaches the far row during a capture goes on capturing as a man (sideways, along that
  row: it cannot go further forward) and is crowned when the move ends there. Other sources
  read it otherwise (some let the new king go on capturing as a king, one ends the move on
  the far row); damier, its oracle and pydraughts all follow Wikipedia;
* "The game ends when a player has no legal move ... The opponent wins the game."

Squares are numbered 1 to 64 row by row from the top left as White sees the board: square
``s`` is on row ``(s - 1) // 8`` (row 0 is the eighth rank) and column ``(s - 1) % 8``
(column 0 is the a-file), so a8 = 1, h8 = 8, a1 = 57, h1 = 64, d4 = 36. Every expected move
list below is worked out by hand from the texts and this numbering (the algebraic names are
in the comments), never taken from the code under test.

The compiled core is then compared with damier's pure-Python oracle (:mod:`damier.oracle`,
written from the same texts) on start-position perft, random placements and random playouts,
and with pydraughts (an independent library, the test extra, importing as ``draughts``) on
random placements and playouts. pydraughts writes Turkish positions with algebraic square
names (``W:Wd4:Bh8``) and numbers the squares in its moves from a1 = 1 to h8 = 64, row by row
from White's side (d4 = 28): :func:`their_square` converts, and
:func:`test_pydraughts_square_mapping` checks the conversion on hand-worked positions.

The one disagreement with pydraughts (0.6.7), left out of the comparisons after each case is
checked to be it: pydraughts lets a king's non-capturing move pass over pieces (its list of a
king's plain moves along a row or file is every empty square of the line, whatever stands
between): with White kings on e2 and f2 it offers e2-g2 and e2-h2, over the king on f2.
A king moves "at any distance on an open line" (Alemanni), and no rule text lets a piece
pass over another without capturing it, so those moves are wrong: they are dropped from
pydraughts' lists (:func:`their_moves`, which checks that each is a king's non-capturing
move with a piece between its ends; :func:`test_pydraughts_king_moves_pass_over_pieces`
keeps the case in view). Everything else, captures and crowning included, agrees.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import damier
from damier import Board
from damier.oracle import Position, perft as oracle_perft
from movesets import Key, core_keys, core_texts, oracle_keys, oracle_play, oracle_texts
from damier.variants import get_variant, variant_for_game_type

TURKISH = get_variant("turkish")
REFERENCE = Path(__file__).resolve().parent / "data" / "reference" / "perft.txt"
SEED = 20261210
FILES = "abcdefgh"

# -- the board -----------------------------------------------------------------------------


def test_numbering_and_start():
    # Row by row from the top left (a8) as White sees the board, every square used.
    assert TURKISH.all_squares and TURKISH.captures_removed_at_once
    assert TURKISH.squares == 64 and TURKISH.per_row == 8
    for square, rc in ((1, (0, 0)), (8, (0, 7)), (36, (4, 3)), (57, (7, 0)), (64, (7, 7))):
        assert TURKISH.row_col(square) == rc
        assert TURKISH.square_at(*rc) == square
    assert TURKISH.square_at(8, 0) is None and TURKISH.square_at(0, 8) is None
    assert variant_for_game_type(30) is TURKISH
    # White's men on the second and third ranks (a3-h3 = 41-48, a2-h2 = 49-56), Black's on
    # the seventh and sixth (9-16, 17-24); White moves first.
    board = Board(variant="turkish")
    assert board.turn == damier.WHITE
    pieces = board.piece_map()
    assert sorted(s for s, p in pieces.items() if p.color == damier.WHITE) == list(range(41, 57))
    assert sorted(s for s, p in pieces.items() if p.color == damier.BLACK) == list(range(9, 25))
    assert not any(p.king for p in pieces.values())
    # Only the front men can move, one square forward (their neighbours fill the row).
    assert core_texts(board) == sorted(f"{s}-{s - 8}" for s in range(41, 49))


# -- the rule positions ------------------------------------------------------------------------

RULE_POSITIONS = [
    # (FEN, the rule and how the list follows, the complete list of legal moves)
    ("W:W36,41:B8", "men move one square forward or sideways, never backwards: d4 (36) to d5 "
     "(28), c4 (35), e4 (37), not d3 (44); a3 (41) on the edge to a4 (33) and b3 (42)",
     ["36-28", "36-35", "36-37", "41-33", "41-42"]),
    ("B:W57:B20", "the same for Black, whose forward is down the board: d6 (20) to d5 (28), "
     "c6 (19), e6 (21)", ["20-19", "20-21", "20-28"]),
    ("W:W36:B28,35,37,44", "a man captures forward and sideways (Alemanni: 'in any of the same "
     "directions that it can go'), never backwards: d4 takes d5 to d6 (20), c4 to b4 (34), "
     "e4 to f4 (38), not d3 to d2 (52)", ["36x20", "36x34", "36x38"]),
    ("W:W36:B44", "no backward capture, so nothing to take: the man just moves",
     ["36-28", "36-35", "36-37"]),
    ("B:W28,35,44:B36", "Black's man on d4 takes d3 to d2 (52) and c4 to b4 (34); d5 (28) is "
     "behind it", ["36x34", "36x52"]),
    ("W:WK36,52:B22", "a king moves any distance along its row and file over empty squares: "
     "from d4 up the d-file to d5-d8 (28, 20, 12, 4), down to d3 (44) only (its own man on "
     "d2 stops it), along the fourth rank to c4-a4 (35, 34, 33) and e4-h4 (37-40); the man "
     "on d2 goes to d3, c2 (51), e2 (53); f6 (22) is on neither line of the king",
     ["36-28", "36-20", "36-12", "36-4", "36-44", "36-35", "36-34", "36-33", "36-37",
      "36-38", "36-39", "36-40", "52-44", "52-51", "52-53"]),
    ("W:WK57,9:B33", "a flying king takes a piece at a distance and lands on any empty square "
     "beyond it: a1 takes a4 (over a2, a3) and lands on a5 (25) or a6 (17); its own man on a7 "
     "stops it there (the man on a7 has nothing to take)", ["57x17", "57x25"]),
    ("W:WK57:B33,41", "a king jumps a single piece: a3 and a4 stand next to each other, so "
     "a1 takes neither; it moves to a2 (49) or along the first rank (58-64)",
     ["57-49", "57-58", "57-59", "57-60", "57-61", "57-62", "57-63", "57-64"]),
    ("W:WK57:B41,19", "a king that can take more from some of its landing squares must land "
     "on one of them (the most pieces): a1 takes a3 and stops on a6 (17), the only square from "
     "which it can go on, takes c6 along the sixth rank and lands on d6-h6 (20-24)",
     ["57x20", "57x21", "57x22", "57x23", "57x24"]),
    ("W:WK33:B35,21,12,43", "captured pieces leave at once, so the king crosses the square of "
     "a piece it has taken: a4 takes c4 (landing e4, 37), e6 (landing e7, 13), d7 (landing "
     "c7, 11), then goes down the c-file over c4, empty now, and takes c3, landing on c2 (51) "
     "or c1 (59): four pieces; had c4 stayed until the end of the move, three",
     ["33x51", "33x59"]),
    ("W:WK37:B21,53", "no 180-degree turn between two captures: e4 takes e6 (landing e7, 13, "
     "or e8, 5) or e2 (landing e1, 61), one piece each; turning back to take the other would "
     "take two", ["37x13", "37x5", "37x61"]),
    ("W:W42,47:B34,39,23", "the most pieces: b3 takes b4 (one, to b5); g3 takes g4 and g6 "
     "(two, g5 then g7, 15), so only g3 may capture", ["47x15"]),
    ("W:W42,44,47:B34,18,K36,K39,23", "a king counts as one piece, like a man: b3 takes b4 "
     "and b6 (two men, to b7, 10), g3 takes the king on g4 and g6 (two, to g7, 15), both "
     "legal; d3 takes only the king on d4 (one, to d5) and may not", ["42x10", "47x15"]),
    ("W:W20:B12,7", "a man reaching the far row during a capture goes on as a man, crowned at "
     "the end of the move: d6 takes d7 and stops on d8 (4); a king there could go on along "
     "the eighth rank and take g8 (7)", ["20x4"]),
    ("W:W20:B12,5", "the same man on the far row still takes sideways, as a man: d6 takes d7 "
     "(to d8), then e8 (to f8, 6)", ["20x6"]),
    ("W:W57:B49,41,K58,K59", "a man that cannot move: a1 is stopped by a2 (a3 behind it) and "
     "b1 (c1 behind it); White has no legal move and loses", []),
]


@pytest.mark.parametrize("fen, rule, expected", RULE_POSITIONS,
                         ids=[f"rule{i}" for i in range(len(RULE_POSITIONS))])
def test_rule_positions(fen, rule, expected):
    board = Board(fen, variant="turkish")
    assert core_texts(board) == sorted(expected), rule
    assert board.must_capture == any("x" in m for m in expected)
    assert oracle_texts(Position.from_fen(fen, "turkish")) == sorted(expected), rule


def test_captures_in_order_and_crossing_a_taken_square():
    board = Board("W:WK33:B35,21,12,43", variant="turkish")
    moves = [m for m in board.legal_moves if m.to_square == 59]
    assert len(moves) == 1
    assert moves[0].captures == (35, 21, 12, 43)  # c4, e6, d7, c3
    board.push(moves[0])
    assert board.piece_map() == {59: damier.Piece(damier.WHITE, king=True)}
    assert board.turn == damier.BLACK


@pytest.mark.parametrize("fen, end, taken, left", [
    ("W:W20:B12,7", 4, (12,), {7: "b"}),   # d6xd8: g8 is out of a man's reach
    ("W:W20:B12,5", 6, (12, 5), {}),       # d6xd8xf8: e8 taken sideways, as a man
])
def test_crowned_at_the_end_of_the_move(fen, end, taken, left):
    board = Board(fen, variant="turkish")
    (move,) = board.legal_moves
    assert move.captures == taken
    board.push(move)
    after = {end: "W", **left}
    assert {s: p.symbol() for s, p in board.piece_map().items()} == after
    pos = oracle_play(Position.from_fen(fen, "turkish"), (20, end, frozenset(taken)))
    assert pos.pieces == after


@pytest.mark.parametrize("fen, end, taken, left", [
    ("W:W20:B12,7", 4, (12,), {7: "b"}),
    ("W:W20:B12,5", 6, (12, 5), {}),
])
def test_pydraughts_crowns_at_the_end_of_the_move(fen, end, taken, left):
    """pydraughts reads the rule as Wikipedia does: the man goes on capturing as a man."""
    draughts = pytest.importorskip("draughts")
    theirs = draughts.Board(variant="turkish", fen=their_fen(fen))
    moves, _ = their_moves(theirs)
    assert set(moves) == {(20, end, frozenset(taken))}
    theirs.push(moves[(20, end, frozenset(taken))])
    assert their_pieces(theirs.fen) == {end: "W", **left}


def test_no_legal_move_loses():
    board = Board("W:W57:B49,41,K58,K59", variant="turkish")
    assert board.legal_moves == []
    assert board.result() == "0-1"
    outcome = board.outcome()
    assert outcome is not None and outcome.winner == damier.BLACK


# -- core against the oracle ----------------------------------------------------------------


def test_start_perft_matches_oracle():
    board = Board(variant="turkish")
    start = Position.initial("turkish")
    core = [board.perft(d) for d in range(1, 6)]
    assert core == [oracle_perft(start, d) for d in range(1, 6)]
    # By hand: each side's eight front men step forward, and the camps are two ranks apart.
    assert core[:2] == [8, 64]


def _random_fen(rng: random.Random) -> str:
    """A random placement of kings and men, men never on their own crowning row."""
    count = rng.choice((rng.randint(2, 8), rng.randint(6, 20), rng.randint(16, 32)))
    king_rate = rng.choice((0.0, 0.1, 0.3, 0.6, 0.9))
    white, black = [], []
    for square in rng.sample(range(1, 65), count):
        is_white = rng.random() < 0.5
        king = rng.random() < king_rate
        if not king and (square <= 8 if is_white else square >= 57):
            king = True
        (white if is_white else black).append(f"{'K' if king else ''}{square}")
    return f"{rng.choice('WB')}:W{','.join(white)}:B{','.join(black)}"


def _long_kings_capture(board: Board) -> bool:
    """A capture by a king that takes three pieces or more."""
    return any(len(m.captures) >= 3 and board.piece_at(m.from_square).king
               for m in board.legal_moves)


def test_random_positions_match_oracle():
    rng = random.Random(SEED)
    captures = long_kings = 0
    for _ in range(2500):
        fen = _random_fen(rng)
        board = Board(fen, variant="turkish")
        assert core_keys(board) == oracle_keys(Position.from_fen(fen, "turkish")), fen
        captures += board.must_capture
        long_kings += _long_kings_capture(board)
    assert captures > 1000 and long_kings > 100, (captures, long_kings)


def test_random_playouts_match_oracle():
    rng = random.Random(SEED + 1)
    compared = captures = crowned = 0
    starts: list[tuple[str | None, int]] = [(None, 200)] * 40
    starts += [(_random_fen(rng), 30) for _ in range(150)]
    for fen, plies in starts:
        board = Board(fen, variant="turkish")
        pos = Position.from_fen(fen or TURKISH.initial_fen, "turkish")
        for _ply in range(plies):
            assert core_keys(board) == oracle_keys(pos), board.fen()
            compared += 1
            captures += board.must_capture
            if not board.legal_moves:
                break
            move = rng.choice(sorted(board.legal_moves, key=str))
            man = not board.piece_at(move.from_square).king
            pos = oracle_play(pos, (move.from_square, move.to_square, move.capture_set))
            board.push(move)
            crowned += man and board.piece_at(move.to_square).king
            assert {s: p.symbol() for s, p in board.piece_map().items()} == pos.pieces
    assert compared > 4000 and captures > 800 and crowned > 50, (compared, captures, crowned)


# -- pydraughts ------------------------------------------------------------------------------


def algebraic(square: int) -> str:
    """damier's square number as an algebraic name (a8 = 1, h1 = 64)."""
    row, col = divmod(square - 1, 8)
    return f"{FILES[col]}{8 - row}"


def their_square(number: int) -> int:
    """pydraughts' Turkish square number (a1 = 1, h1 = 8, a8 = 57) as damier's."""
    rank_index, col = divmod(number - 1, 8)
    return (7 - rank_index) * 8 + col + 1


def their_fen(fen: str) -> str:
    """A damier FEN with numbered squares written with pydraughts' algebraic names."""
    side, *fields = fen.split(":")
    out = [side]
    for field in fields:
        items = [item for item in field[1:].split(",") if item]
        out.append(field[0] + ",".join(("K" if item.startswith("K") else "")
                                       + algebraic(int(item.lstrip("K"))) for item in items))
    return ":".join(out)


def their_pieces(fen: str) -> dict[int, str]:
    """The pieces of a pydraughts FEN (algebraic names), by damier square."""
    pieces: dict[int, str] = {}
    for field in fen.split(":")[1:]:
        colour = field[0].lower()
        for item in filter(None, field[1:].split(",")):
            name = item.lstrip("K")
            square = (8 - int(name[1:])) * 8 + FILES.index(name[0]) + 1
            pieces[square] = colour.upper() if item.startswith("K") else colour
    return pieces


def _crosses_a_piece(key: Key, pieces: dict[int, str]) -> bool:
    """A non-capturing move along a row or file with a piece between its two ends."""
    start, end, captures = key
    if captures:
        return False
    (r1, c1), (r2, c2) = divmod(start - 1, 8), divmod(end - 1, 8)
    if r1 == r2:
        between = [r1 * 8 + c + 1 for c in range(min(c1, c2) + 1, max(c1, c2))]
    else:
        between = [r * 8 + c1 + 1 for r in range(min(r1, r2) + 1, max(r1, r2))]
    return any(square in pieces for square in between)


def their_moves(board: Any) -> tuple[dict[Key, Any], int]:
    """pydraughts' legal moves by damier key, less its king moves that pass over a piece
    (see the module documentation), and how many of those it listed."""
    pieces = their_pieces(board.fen)
    moves: dict[Key, Any] = {}
    wrong = 0
    for move in board.legal_moves():
        key = (their_square(move.steps_move[0]), their_square(move.steps_move[-1]),
               frozenset(their_square(c) for c in move.captures or ()))
        if _crosses_a_piece(key, pieces):
            assert pieces[key[0]].isupper(), (board.fen, key)  # only ever a king's move
            wrong += 1
            continue
        moves[key] = move
    return moves, wrong


def test_pydraughts_square_mapping():
    draughts = pytest.importorskip("draughts")
    # White's man on d4 steps to d5, c4 and e4: pydraughts' numbers 28 to 36, 27 and 29
    # (a1 = 1, row by row from White's side), damier's 36 to 28, 35 and 37.
    theirs = draughts.Board(variant="turkish", fen="W:Wd4:Bh8")
    assert sorted(m.steps_move for m in theirs.legal_moves()) == [[28, 27], [28, 29], [28, 36]]
    assert [their_square(n) for n in (28, 36, 27, 29)] == [36, 28, 35, 37]
    assert their_fen("W:W36:B8") == "W:Wd4:Bh8"
    assert their_pieces("W:Wd4:BKh8,a1") == {36: "w", 8: "B", 57: "b"}
    # Black's man on d4 goes down to d3 (pydraughts 20, damier 44).
    theirs = draughts.Board(variant="turkish", fen="B:Wa1:Bd4")
    assert sorted(m.steps_move for m in theirs.legal_moves()) == [[28, 20], [28, 27], [28, 29]]
    assert their_square(20) == 44
    # The start position, as pydraughts sets it up.
    assert their_pieces(draughts.Board(variant="turkish").fen) == {
        s: p.symbol() for s, p in Board(variant="turkish").piece_map().items()}


@pytest.mark.parametrize("fen, rule, expected", RULE_POSITIONS,
                         ids=[f"rule{i}" for i in range(len(RULE_POSITIONS))])
def test_rule_positions_agree_with_pydraughts(fen, rule, expected):
    draughts = pytest.importorskip("draughts")
    theirs, _ = their_moves(draughts.Board(variant="turkish", fen=their_fen(fen)))
    assert set(theirs) == core_keys(Board(fen, variant="turkish")), rule


def test_pydraughts_king_moves_pass_over_pieces():
    """The disagreement left out (module documentation): kings on e2 and f2."""
    draughts = pytest.importorskip("draughts")
    theirs = draughts.Board(variant="turkish", fen="W:WKe2,Kf2:B")
    board = Board("W:WK53,K54:B", variant="turkish")
    raw = {(their_square(m.steps_move[0]), their_square(m.steps_move[-1]))
           for m in theirs.legal_moves()}
    ours = {(m.from_square, m.to_square) for m in board.legal_moves}
    # e2 = 53, f2 = 54 (a2 = 49 ... h2 = 56): pydraughts moves e2 over f2 to g2 and h2, and
    # f2 over e2 to d2, c2, b2, a2; everything else (along the files, and the squares short
    # of the other king) both list.
    assert raw - ours == {(53, 55), (53, 56), (54, 52), (54, 51), (54, 50), (54, 49)}
    assert ours <= raw
    moves, wrong = their_moves(theirs)
    assert set(moves) == core_keys(board) and wrong == 6


@pytest.mark.slow
def test_random_positions_agree_with_pydraughts():
    draughts = pytest.importorskip("draughts")
    rng = random.Random(SEED + 2)
    captures = wrong = 0
    for _ in range(400):
        fen = _random_fen(rng)
        theirs, dropped = their_moves(draughts.Board(variant="turkish", fen=their_fen(fen)))
        board = Board(fen, variant="turkish")
        assert set(theirs) == core_keys(board), fen
        captures += board.must_capture
        wrong += dropped
    assert captures > 200 and wrong > 0, (captures, wrong)


@pytest.mark.slow
def test_random_playouts_agree_with_pydraughts():
    draughts = pytest.importorskip("draughts")
    rng = random.Random(SEED + 3)
    compared = captures = 0
    starts: list[tuple[str | None, int]] = [(None, 120)] * 6
    starts += [(_random_fen(rng), 12) for _ in range(25)]
    for fen, plies in starts:
        ours = Board(fen, variant="turkish")
        theirs = draughts.Board(variant="turkish", fen=their_fen(fen) if fen else "startpos")
        for _ply in range(plies):
            moves, _ = their_moves(theirs)
            assert set(moves) == core_keys(ours), ours.fen()
            compared += 1
            captures += ours.must_capture
            if not ours.legal_moves:
                # No legal move: the player to move loses (pydraughts: 1 Black, 2 White).
                assert theirs.is_over() and theirs.winner() == (1 if ours.turn else 2)
                break
            move = rng.choice(sorted(ours.legal_moves, key=str))
            theirs.push(moves[(move.from_square, move.to_square, move.capture_set)])
            ours.push(move)
            assert their_pieces(theirs.fen) == {
                s: p.symbol() for s, p in ours.piece_map().items()}, (ours.fen(), theirs.fen)
    assert compared > 550 and captures > 150, (compared, captures)


# -- perft (tests/data/reference/perft.txt) ------------------------------------------------


def test_the_reference_table_has_turkish_counts_from_another_program():
    lines = [line for line in REFERENCE.read_text(encoding="utf-8").splitlines()
             if line.startswith("turkish;initial;")]
    assert len(lines) == 1
    counts = [int(c) for c in lines[0].split(";")[3].split(",")]
    assert len(counts) >= 5
    # By hand: eight first moves, eight replies to each (the camps are two ranks apart).
    assert counts[:2] == [8, 64]
    # The oracle, written from the rule texts without the core, agrees with the table.
    start = Position.initial("turkish")
    assert [oracle_perft(start, d) for d in range(1, 5)] == counts[:4]
