"""Move sets of the compiled board and of the oracle in comparable forms, shared by the
variant tests: notation texts (sorted) and ``(from, to, captured squares)`` keys."""

from __future__ import annotations

from damier import Board
from damier.oracle import Position, notation as oracle_notation

Key = tuple[int, int, frozenset[int]]


def core_texts(board: Board) -> list[str]:
    return sorted(board.notation(m) for m in board.legal_moves)


def core_keys(board: Board) -> set[Key]:
    return {(m.from_square, m.to_square, m.capture_set) for m in board.legal_moves}


def oracle_texts(pos: Position) -> list[str]:
    legal = pos.legal_moves()
    return sorted(oracle_notation(m, legal) for m in legal)


def oracle_keys(pos: Position) -> set[Key]:
    return {m.key() for m in pos.legal_moves()}


def oracle_play(pos: Position, key: Key) -> Position:
    return pos.play(next(m for m in pos.legal_moves() if m.key() == key))
