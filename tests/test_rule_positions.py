"""The FMJD rule positions of ``tests/data/reference/rules.txt`` through the Board API.

Each position must give exactly the listed legal moves, printed with
``board.notation`` (short form, full path where two captures share their start
and end squares), and every listed text must parse back to that move. The
expected moves come from the reference file only.
"""

from __future__ import annotations

import pytest

import damier


def test_legal_moves_are_exactly_the_listed_ones(rule_case):
    board = damier.Board(rule_case.fen)
    legal = board.legal_moves
    assert len(legal) == len(set(legal)), f"duplicate moves in {legal}"
    printed = [board.notation(m) for m in legal]
    assert len(printed) == len(set(printed)), f"two moves print the same: {printed}"
    assert set(printed) == set(rule_case.moves), rule_case.rule
    assert len(legal) == len(rule_case.moves)


def test_listed_moves_parse_back(rule_case):
    board = damier.Board(rule_case.fen)
    legal = board.legal_moves
    seen = set()
    for text in rule_case.moves:
        move = board.parse_move(text)
        assert move in legal
        assert board.notation(move) == text
        seen.add(move)
    assert seen == set(legal)


def test_listed_moves_can_be_played_and_taken_back(rule_case):
    board = damier.Board(rule_case.fen)
    fen = board.fen()
    for text in rule_case.moves:
        played = board.push(text)
        assert board.turn != damier.Board(rule_case.fen).turn
        # The moving piece stands on the end square; every captured piece is gone.
        assert board.piece_at(played.to_square) is not None
        for square in played.captures:
            if square != played.to_square:
                assert board.piece_at(square) is None
        assert len(board.piece_map()) == len(damier.Board(fen).piece_map()) - len(played.captures)
        assert board.pop() == played
        assert board.fen() == fen


def test_legal_moves_are_consistent_with_must_capture(rule_case):
    board = damier.Board(rule_case.fen)
    captures = [m.is_capture for m in board.legal_moves]
    # Every rule position is about a capture: only captures are legal.
    assert all(captures)
    assert board.must_capture


def test_capture_paths_are_geometrically_valid(rule_case):
    """Each captured piece lies between two consecutive squares of the path, on a
    diagonal, and was an opposing piece."""
    board = damier.Board(rule_case.fen)
    variant = board.variant
    for move in board.legal_moves:
        path = move.path
        assert path[0] == move.from_square and path[-1] == move.to_square
        assert len(path) == len(move.captures) + 1
        for (a, b), victim in zip(zip(path, path[1:], strict=False), move.captures,
                                 strict=True):
            (ra, ca), (rb, cb), (rv, cv) = (variant.row_col(a), variant.row_col(b),
                                            variant.row_col(victim))
            assert abs(ra - rb) == abs(ca - cb) > 1, (move, a, b)
            t = (rv - ra) / (rb - ra)
            assert 0 < t < 1 and cv - ca == t * (cb - ca), (move, a, b, victim)
            piece = board.piece_at(victim)
            assert piece is not None and piece.color != board.turn, (move, victim)


@pytest.mark.parametrize("fen, hub, path", [
    # rules.txt: 4x27x38x15 takes 13, 32, 20; 4x31x42x15 takes 13, 37, 20.
    ("W:WK4:B13,20,32,37", "4x15x13x32x20", (4, 27, 38, 15)),
    ("W:WK4:B13,20,32,37", "4x15x13x37x20", (4, 31, 42, 15)),
    # rules.txt: 47x38x24x13x36 takes 42, 29, 19, 31; 47x38x20x9x36 takes 42, 29, 14, 31.
    ("W:WK47:B14,19,29,31,42", "47x36x42x29x19x31", (47, 38, 24, 13, 36)),
    ("W:WK47:B14,19,29,31,42", "47x36x31x29x14x42", (47, 38, 20, 9, 36)),
])
def test_hub_notation_of_the_ambiguous_rule_positions(fen, hub, path):
    board = damier.Board(fen)
    move = board.parse_move(hub)
    assert move.path == path
    assert board.notation(move) == "x".join(map(str, path))
