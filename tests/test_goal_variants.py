"""Antidraughts and breakthrough: International draughts with another goal.

The rules (lidraughts' pages of the two variants):

- antidraughts: "the rules of antidraughts are the same as international draughts, with
  the exception that losing means winning": a player who cannot move (no pieces left, or
  all blocked) wins; no draw rule "with only a few pieces left" (so no 16-move or 5-move
  rule), threefold repetition and the other rules as in International;
- breakthrough: "the first player who makes a king wins" - a man ending its move on the
  far row; "nothing happens when the back row is only touched in the middle of a capture
  sequence"; a player who runs out of moves loses, as in International.

The moves are International's, so the start position's perft is the published
International table; pydraughts (an independent implementation, a test extra) plays the
same moves and ends the games the same way on random playouts and random placements.
"""

from __future__ import annotations

import io
import random
from dataclasses import replace
from pathlib import Path

import pytest

import damier
from damier import BLACK, WHITE, Board, pdn
from damier.engine import Engine
from damier.match import run_match
from damier.outcome import Termination
from damier.variants import get_variant, variant_for_game_type, variant_for_hub_name

GOAL_VARIANTS = ("antidraughts", "breakthrough")
DATA = Path(__file__).parent / "data" / "reference" / "perft.txt"


def _international_perft() -> list[int]:
    for line in DATA.read_text().splitlines():
        if line.startswith("international;initial;"):
            return [int(n) for n in line.split(";")[3].split(",")]
    raise AssertionError("no International start perft in the reference table")


@pytest.mark.parametrize("name", GOAL_VARIANTS)
def test_start_position_perft_is_internationals(name: str) -> None:
    # No man can reach the far row in fewer than 11 plies, and no game ends before, so
    # the first plies are International's move tree exactly.
    expected = _international_perft()[:5]
    board = Board(variant=name)
    assert [board.perft(d) for d in range(1, 6)] == expected


@pytest.mark.parametrize("name, game_type, hub", [("antidraughts", 98, "antidraughts"),
                                                   ("breakthrough", 96, "breakthrough")])
def test_registry_names(name: str, game_type: int, hub: str) -> None:
    variant = get_variant(name)
    assert variant.game_type == game_type and variant_for_game_type(game_type) is variant
    assert variant_for_hub_name(hub) is variant
    assert variant.initial_fen == get_variant("international").initial_fen


# -- antidraughts -------------------------------------------------------------------------------

def test_antidraughts_blocked_side_wins() -> None:
    # White's man on 46 can only go to 41, which Black holds, with 37 behind it: White
    # cannot move. In International that loses; in antidraughts it wins.
    fen = "W:W46:B41,37"
    assert Board(fen).outcome().winner == BLACK
    outcome = Board(fen, variant="antidraughts").outcome()
    assert outcome.termination is Termination.NO_MOVES_WINS and outcome.winner == WHITE
    assert Board(fen, variant="antidraughts").result() == "2-0"


def test_antidraughts_side_without_pieces_wins() -> None:
    board = Board("B:W28:B", variant="antidraughts")
    assert board.outcome().winner == BLACK and board.result() == "0-2"
    assert damier.game.end_of(board.outcome(), board).headline() == \
        "Black wins: no legal move, which wins (Black has no pieces left)"


def test_antidraughts_has_no_sixteen_move_rule() -> None:
    # Three kings against a lone king: International draws after 16 moves each; antidraughts
    # has no such rule. Repetition is switched off in both, to see that rule alone.
    fen = "W:WK36,K47,K49:BK4"
    shuffle = ["47-42", "4-10", "42-47", "10-4"] * 8
    for name, drawn in (("international", True), ("antidraughts", False)):
        rules = replace(get_variant(name).draw_rules, repetition_limit=None)
        board = Board(fen, variant=name, rules=rules)
        for text in shuffle:
            board.push(board.parse_move(text))
        outcome = board.outcome()
        if drawn:
            assert outcome is not None and outcome.termination is Termination.SIXTEEN_MOVES
        else:
            assert outcome is None


def test_antidraughts_engine_gives_its_last_man_away() -> None:
    # White's man on 32 may go to 27 or 28. After 32-28 Black's man on 23 must take it
    # (23x32), and White, to move with no piece, has won. The engine sees it at once.
    board = Board("W:W32:B23", variant="antidraughts")
    result = Engine(hash_mb=4).search(board, depth=4)
    assert board.notation(result.best_move) == "32-28"
    assert result.score > 29000
    # In International the same move only loses the man.
    result = Engine(hash_mb=4).search(Board("W:W32:B23"), depth=4)
    assert board.notation(result.best_move) == "32-27"


# -- breakthrough ------------------------------------------------------------------------------

def test_breakthrough_first_king_wins() -> None:
    board = Board("W:W6:B45", variant="breakthrough")
    assert board.outcome() is None
    board.push(board.parse_move("6-1"))
    outcome = board.outcome()
    assert outcome.termination is Termination.CROWNED and outcome.winner == WHITE
    assert board.result() == "2-0"
    black = Board("B:W6:B45", variant="breakthrough")
    black.push(black.parse_move("45-50"))
    assert black.outcome().winner == BLACK and black.result() == "0-2"


def test_breakthrough_touching_the_far_row_in_a_capture_does_nothing() -> None:
    # 13x2x11 takes 8 and 7, touching square 2 on the far row in the middle of the
    # capture: the man ends on 11, uncrowned, and the game goes on (Black has 45).
    board = Board("W:W13:B7,8,45", variant="breakthrough")
    move = board.parse_move("13x11")
    board.push(move)
    assert board.fen() == "B:W11:B45"
    assert board.outcome() is None


def test_breakthrough_no_move_still_loses() -> None:
    assert Board("W:W46:B41,37", variant="breakthrough").outcome().winner == BLACK


def test_breakthrough_engine_runs_for_the_far_row() -> None:
    board = Board("W:W16,40:B5,45", variant="breakthrough")
    result = Engine(hash_mb=4).search(board, depth=8)
    assert result.score > 29000
    assert board.notation(result.best_move) in ("16-11", "16-10")


# -- games, PDN and the engine playing both sides -----------------------------------------------

@pytest.mark.parametrize("name", GOAL_VARIANTS)
def test_pdn_round_trip_keeps_the_variant(name: str) -> None:
    board = Board(variant=name)
    for text in ("32-28", "19-23", "28x19", "14x23"):
        board.push(board.parse_move(text))
    text = pdn.write_game(pdn.Game.from_board(board))
    assert f'[GameType "{get_variant(name).game_type}"]' in text
    game = pdn.read_game(text)
    assert game.variant is get_variant(name)
    assert list(game.mainline_moves()) == list(board.move_stack)


@pytest.mark.parametrize("name", GOAL_VARIANTS)
def test_engine_plays_the_variant_in_a_match(name: str, tmp_path: Path) -> None:
    out = tmp_path / "games.pdn"
    result = run_match("damier:depth=2", "damier:depth=3", games=2, variant=name,
                       progress=False, pdn_path=out, stream=io.StringIO(), max_plies=200)
    assert result.games_played == 2 and not result.errors
    assert all(g.termination in ("normal", "adjudication") for g in result.games)
    for game in pdn.read_games(out.read_text()):
        board = game.board()
        for move in game.mainline_moves():
            assert move in board.legal_moves
            board.push(move)
        if game.headers["Result"] != "*":
            assert game.headers["Result"] in ("2-0", "1-1", "0-2")


# -- against pydraughts -------------------------------------------------------------------------

def _their_moves(board: object) -> set[tuple[int, int, frozenset[int]]]:
    return {(m.steps_move[0], m.steps_move[-1], frozenset(m.captures))
            for m in board.legal_moves()}  # type: ignore[attr-defined]


def _our_moves(board: Board) -> set[tuple[int, int, frozenset[int]]]:
    return {(m.from_square, m.to_square, m.capture_set) for m in board.legal_moves}


def _our_winner(board: Board) -> int | None:
    outcome = board.outcome()
    if outcome is None:
        return None
    return 0 if outcome.winner is None else (2 if outcome.winner == WHITE else 1)


@pytest.mark.parametrize("name", GOAL_VARIANTS)
def test_random_playouts_agree_with_pydraughts(name: str) -> None:
    draughts = pytest.importorskip("draughts")
    rng = random.Random(20261125)
    compared = ended = 0
    for _ in range(15):
        ours = Board(variant=name)
        theirs = draughts.Board(variant=name)
        for _ply in range(200):
            assert _our_moves(ours) == _their_moves(theirs), ours.fen()
            compared += 1
            over = ours.outcome() is not None
            if over:
                assert theirs.is_over(), ours.fen()
                assert _our_winner(ours) == theirs.winner(), ours.fen()
                ended += 1
                break
            move = rng.choice(sorted(ours.legal_moves, key=str))
            key = (move.from_square, move.to_square, move.capture_set)
            theirs.push(next(m for m in theirs.legal_moves()
                             if (m.steps_move[0], m.steps_move[-1], frozenset(m.captures)) == key))
            ours.push(move)
    assert compared > 500 and ended > 5


def _random_fen(rng: random.Random, kings: bool) -> str:
    squares = rng.sample(range(1, 51), rng.randint(2, 14))
    white, black = [], []
    for square in squares:
        is_white = rng.random() < 0.5
        crowning = square <= 5 if is_white else square > 45
        king = kings and rng.random() < 0.3
        if crowning and not king:
            continue
        (white if is_white else black).append(f"{'K' if king else ''}{square}")
    turn = rng.choice("WB")
    return f"{turn}:W{','.join(white)}:B{','.join(black)}"


def test_random_antidraughts_positions_agree_with_pydraughts() -> None:
    draughts = pytest.importorskip("draughts")
    rng = random.Random(11)
    checked = decided = 0
    for _ in range(600):
        fen = _random_fen(rng, kings=True)
        ours = Board(fen, variant="antidraughts")
        theirs = draughts.Board(variant="antidraughts", fen=fen)
        assert _our_moves(ours) == _their_moves(theirs), fen
        if not ours.legal_moves:
            assert theirs.is_over() and _our_winner(ours) == theirs.winner(), fen
            decided += 1
        checked += 1
    assert checked == 600 and decided > 10


def test_random_breakthrough_positions_agree_with_pydraughts() -> None:
    draughts = pytest.importorskip("draughts")
    rng = random.Random(12)
    for _ in range(600):
        fen = _random_fen(rng, kings=False)
        ours = Board(fen, variant="breakthrough")
        theirs = draughts.Board(variant="breakthrough", fen=fen)
        assert _our_moves(ours) == _their_moves(theirs), fen
        # One move each, then compare how the game stands (a crowning ends it).
        for move in list(ours.legal_moves)[:3]:
            child = ours.copy()
            child.push(move)
            key = (move.from_square, move.to_square, move.capture_set)
            other = draughts.Board(variant="breakthrough", fen=fen)
            other.push(next(m for m in other.legal_moves()
                            if (m.steps_move[0], m.steps_move[-1], frozenset(m.captures)) == key))
            assert (child.outcome() is not None) == other.is_over(), (fen, move)
            if other.is_over():
                assert _our_winner(child) == other.winner(), (fen, move)
