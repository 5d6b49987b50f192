"""The evaluation: the fast evaluation equals the weighted sum of the features the
tuning tool fits, and its weight files are complete."""

import json
import random
from importlib import resources

import pytest

import damier
from damier._core import EVAL_TERM_NAMES, eval_feature_vector, evaluate_from_features
from damier.engine import evaluate, load_eval_weights
from damier.variants import VARIANTS


def random_boards(variant: str, count: int, seed: int) -> list[damier.Board]:
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        board = damier.Board(variant=variant)
        for _ in range(rng.randrange(0, 150)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_fast_evaluation_equals_feature_sum(variant: str) -> None:
    for board in random_boards(variant, 300, seed=5):
        assert evaluate(board) == evaluate_from_features(board), board.fen()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_weight_files_name_every_term_and_square(variant: str) -> None:
    data = json.loads(resources.files("damier").joinpath(
        "data", f"eval_{variant}.json").read_text())
    assert set(data["terms"]) == set(EVAL_TERM_NAMES)
    assert len(data["squares"]) == VARIANTS[variant].squares
    load_eval_weights(VARIANTS[variant])


def test_evaluation_is_symmetric() -> None:
    """The colour-flipped position (rotated board, other side to move) scores the same."""
    for board in random_boards("international", 200, seed=9):
        n = board.variant.squares
        flipped = {n + 1 - s: damier.Piece(not p.color, p.king) for s, p in board.piece_map().items()}
        other = damier.Board(variant="international")
        other.set_piece_map(flipped, turn=not board.turn)
        assert evaluate(board) == evaluate(other), board.fen()


def test_material_features_count_pieces() -> None:
    board = damier.Board("W:W31,32,K40:B5,K10,K11")
    terms, pst = eval_feature_vector(board)
    assert terms[EVAL_TERM_NAMES.index("man")] == 2 - 1
    assert sum(pst) == 2 - 1
