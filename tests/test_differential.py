"""Differential tests: the compiled core against independent move generators.

1. The pure-Python oracle (:mod:`damier.oracle`, written straight from the rule
   texts, no bitboards) on thousands of random positions per variant: random
   placements with kings, and positions reached by random playouts from the
   start position (realistic, capture-rich). Compared: the set of moves
   ``(from, to, set of captures)``, each move's path (one of the oracle's valid
   paths for that move), the position after each move (captured pieces gone,
   promotion exactly when the oracle says so), and perft on a subset.
2. dame-rs (an independent Rust library, International only; the test extra
   ``dame-rs==0.2.0``) on thousands of random International positions.

Everything is seeded (:class:`random.Random`), so a failure reproduces; the
messages name the FEN of the failing position.
"""

from __future__ import annotations

import random
from collections import defaultdict
from functools import lru_cache

import pytest

import damier
from damier.oracle import Position, perft as oracle_perft
from damier.variants import Variant, get_variant

SEED = 20261121
VARIANTS = ("international", "english", "russian", "brazilian", "italian")
RANDOM_POSITIONS = 3000     # random placements per variant
PLAYOUT_POSITIONS = 2000    # positions from random playouts per variant
PERFT_POSITIONS = 250       # of those, positions whose perft is compared
DAME_POSITIONS = 4000       # International positions compared with dame-rs
MAX_REPORTED = 5

Key = tuple[int, int, frozenset]
PosSpec = tuple[dict[int, str], bool]   # square -> 'w' 'W' 'b' 'B', white to move


# -- position generation ----------------------------------------------------------


def random_placement(rng: random.Random, variant: Variant) -> PosSpec:
    """A random position: men never on their own crowning row, some kings."""
    n = variant.squares
    kind = rng.random()
    if kind < 0.35:
        count = rng.randint(2, 7)              # endgames: kings roam
    elif kind < 0.8:
        count = rng.randint(6, n // 2)         # middle games
    else:
        count = rng.randint(n // 2, n * 4 // 5)  # crowded boards
    king_rate = rng.choice((0.0, 0.1, 0.25, 0.5, 0.9))
    # Sometimes the men stand in the opponent's half, near their crowning row:
    # promotions, and captures that reach the crowning row (and go on, in Russian).
    advanced = rng.random() < 0.3
    squares = rng.sample(range(1, n + 1), count)
    pieces: dict[int, str] = {}
    for square in squares:
        white = rng.random() < 0.5
        if advanced:
            white = variant.row_col(square)[0] < variant.size // 2
            if rng.random() < 0.3:
                white = not white
        king = rng.random() < king_rate
        if not king and variant.row_col(square)[0] == variant.promotion_row(white):
            # A man cannot stand on its own crowning row: the other side's man
            # may (it is that side's starting row), or a king.
            if rng.random() < 0.5:
                white = not white
            else:
                king = True
        pieces[square] = ("W" if king else "w") if white else ("B" if king else "b")
    if not any(s.isupper() for s in pieces.values()):
        square = rng.choice(squares)
        pieces[square] = pieces[square].upper()
    return pieces, rng.random() < 0.5


def spec_of(board: damier.Board) -> PosSpec:
    return {s: p.symbol() for s, p in board.piece_map().items()}, board.turn


def playout_specs(rng: random.Random, variant: Variant, count: int) -> list[PosSpec]:
    """Positions met in random games from the start position."""
    specs: list[PosSpec] = []
    while len(specs) < count:
        board = damier.Board(variant=variant.name)
        keep = rng.choice((0.1, 0.3, 0.6))
        for ply in range(rng.randint(20, 200)):
            moves = board.legal_moves
            if ply >= 4 and rng.random() < keep:
                specs.append(spec_of(board))
            if not moves:
                break
            board.push(rng.choice(moves))
        specs.append(spec_of(board))
    return specs[:count]


def fen_of(spec: PosSpec) -> str:
    pieces, white = spec

    def side(colour: str) -> str:
        items = [("K" if p.isupper() else "") + str(s)
                 for s, p in sorted(pieces.items()) if p.lower() == colour]
        return colour.upper() + ",".join(items)

    return ("W" if white else "B") + ":" + side("w") + ":" + side("b")


@lru_cache(maxsize=None)
def positions(variant_name: str) -> tuple[tuple[str, str], ...]:
    """``(origin, fen)`` for the random and the playout positions of a variant."""
    variant = get_variant(variant_name)
    rng = random.Random(f"{SEED}-{variant_name}")
    result = [("random", fen_of(random_placement(rng, variant))) for _ in range(RANDOM_POSITIONS)]
    result += [("playout", fen_of(spec)) for spec in playout_specs(rng, variant, PLAYOUT_POSITIONS)]
    return tuple(result)


# -- comparison helpers -----------------------------------------------------------


def key(move) -> Key:
    return (move.from_square, move.to_square, frozenset(move.captures))


def oracle_paths(pos: Position) -> dict[Key, set[tuple[int, ...]]]:
    """Every valid path of every legal capture (the oracle keeps one path per move
    in ``legal_moves``; its capture search lists them all)."""
    paths: dict[Key, set[tuple[int, ...]]] = defaultdict(set)
    for move in pos._capture_moves():
        paths[move.key()].add(move.path)
    return paths


def symbols(board: damier.Board) -> dict[int, str]:
    return {s: p.symbol() for s, p in board.piece_map().items()}


def compare_position(variant: str, fen: str) -> list[str]:
    """The differences between the core and the oracle in one position."""
    problems: list[str] = []
    board = damier.Board(fen, variant=variant)
    pos = Position.from_fen(fen, variant)
    core = board.legal_moves
    core_keys = [key(m) for m in core]
    if len(set(core_keys)) != len(core_keys):
        problems.append(f"duplicate moves {core}")
    oracle = {m.key(): m for m in pos.legal_moves()}
    if set(core_keys) != set(oracle):
        missing = sorted(oracle.keys() - set(core_keys), key=str)
        extra = sorted(set(core_keys) - oracle.keys(), key=str)
        problems.append(f"moves differ: core lacks {missing}, core has extra {extra}")
        return problems
    if board.must_capture != any(m.is_capture for m in oracle.values()):
        problems.append(f"must_capture is {board.must_capture}")
    paths = oracle_paths(pos) if any(m.is_capture for m in core) else {}
    for move in core:
        om = oracle[key(move)]
        if move.is_capture and move.path not in paths[key(move)]:
            problems.append(f"{move!r}: path not valid; valid paths {sorted(paths[key(move)])}")
        mover = board.piece_at(move.from_square)
        board.push(move)
        expected = om.promotes or mover.king
        landed = board.piece_at(move.to_square)
        if landed is None or landed.king != expected or landed.color != mover.color:
            problems.append(f"{move!r}: piece on {move.to_square} after the move is {landed}, "
                            f"expected a {'king' if expected else 'man'} "
                            f"(oracle promotes={om.promotes})")
        after = pos.play(om)
        if symbols(board) != after.pieces or board.turn != after.white_to_move:
            problems.append(f"{move!r}: position after it is {board.fen()}, "
                            f"oracle: {after!r}")
        board.pop()
    if board.fen() != damier.Board(fen, variant=variant).fen():
        problems.append("push/pop did not restore the position")
    return problems


def report(failures: list[tuple[str, str, list[str]]], total: int) -> str:
    lines = [f"{len(failures)} of {total} positions differ; first {MAX_REPORTED}:"]
    for origin, fen, problems in failures[:MAX_REPORTED]:
        lines.append(f"  [{origin}] {fen}")
        lines.extend(f"      {p}" for p in problems[:4])
    return "\n".join(lines)


# -- core vs oracle ---------------------------------------------------------------


def test_generated_positions_are_varied():
    """The generator really produces kings, captures and both sides to move."""
    for variant in VARIANTS:
        specs = positions(variant)
        assert len(specs) >= 2000
        fens = [fen for _, fen in specs]
        assert sum("K" in fen for fen in fens) > len(fens) // 3, variant
        assert sum(fen.startswith("B") for fen in fens) > len(fens) // 4, variant
        captures = sum(damier.Board(fen, variant=variant).must_capture for fen in fens)
        assert captures > len(fens) // 10, (variant, captures)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_core_matches_oracle(variant):
    failures = []
    specs = positions(variant)
    for origin, fen in specs:
        problems = compare_position(variant, fen)
        if problems:
            failures.append((origin, fen, problems))
    assert not failures, report(failures, len(specs))


@pytest.mark.parametrize("variant", VARIANTS)
def test_notation_round_trips_on_random_positions(variant):
    """Every legal move prints (full path only when two moves share start and end)
    and parses back to itself."""
    failures = []
    specs = positions(variant)[::4]
    for origin, fen in specs:
        board = damier.Board(fen, variant=variant)
        legal = board.legal_moves
        problems = []
        for move in legal:
            text = board.notation(move)
            shared = [m for m in legal if (m.from_square, m.to_square)
                      == (move.from_square, move.to_square)]
            sign = "x" if move.is_capture else "-"
            expected = ("x".join(map(str, move.path)) if len(shared) > 1
                        else f"{move.from_square}{sign}{move.to_square}")
            if text != expected:
                problems.append(f"{move!r} prints {text!r}, expected {expected!r}")
                continue
            try:
                parsed = board.parse_move(text)
            except ValueError as exc:
                problems.append(f"{move!r} prints {text!r}, which does not parse: {exc}")
                continue
            if parsed != move:
                problems.append(f"{move!r} prints {text!r}, which parses to {parsed!r}")
        if problems:
            failures.append((origin, fen, problems))
    assert not failures, report(failures, len(specs))


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_perft_matches_oracle(variant):
    failures = []
    specs = positions(variant)
    step = len(specs) // PERFT_POSITIONS
    chosen = specs[::step][:PERFT_POSITIONS]
    for origin, fen in chosen:
        board = damier.Board(fen, variant=variant)
        depth = 3 if board.perft(3) <= 3000 else 2
        expected = oracle_perft(Position.from_fen(fen, variant), depth)
        got = board.perft(depth)
        if got != expected:
            failures.append((origin, fen, [f"perft({depth}) = {got}, oracle {expected}"]))
    assert not failures, report(failures, len(chosen))


# -- core vs dame-rs ------------------------------------------------------------------


@lru_cache(maxsize=None)
def dame_positions() -> tuple[tuple[str, str], ...]:
    """International positions for the dame-rs comparison (a seed of their own)."""
    variant = get_variant("international")
    rng = random.Random(f"{SEED}-dame")
    half = DAME_POSITIONS // 2
    result = [("random", fen_of(random_placement(rng, variant))) for _ in range(half)]
    result += [("playout", fen_of(s)) for s in playout_specs(rng, variant, DAME_POSITIONS - half)]
    return tuple(result)


@pytest.fixture(scope="module")
def dame():
    return pytest.importorskip("dame", reason="dame-rs (pip install dame-rs==0.2.0) not installed")


def dame_keys(dboard) -> list[Key]:
    return [(m.from_square, m.to_square, frozenset(m.captured)) for m in dboard.legal_moves]


@pytest.mark.slow
def test_core_matches_dame(dame):
    failures = []
    specs = dame_positions()
    compared = 0
    for origin, fen in specs:
        dboard = dame.Board(fen)
        outcome = dboard.outcome()
        if outcome is not None and outcome.termination != dame.Termination.NO_MOVES:
            continue  # dame-rs declares the game over by a draw rule: no move list to compare
        compared += 1
        board = damier.Board(fen)
        legal = board.legal_moves
        theirs = dame_keys(dboard)
        ours = [key(m) for m in legal]
        problems = []
        if set(ours) != set(theirs) or len(ours) != len(theirs):
            problems.append(f"moves differ: damier lacks "
                            f"{sorted(set(theirs) - set(ours), key=str)}, "
                            f"damier has extra {sorted(set(ours) - set(theirs), key=str)}")
        else:
            by_key = {key(m): m for m in legal}
            for dmove in dboard.legal_moves:
                move = by_key[(dmove.from_square, dmove.to_square, frozenset(dmove.captured))]
                # dame-rs writes the short form; damier too unless two moves share start and end.
                shared = sum((m.from_square, m.to_square) == (move.from_square, move.to_square)
                             for m in legal)
                if shared == 1 and str(dmove) != board.notation(move):
                    problems.append(f"{move!r} prints {board.notation(move)!r}, "
                                    f"dame {str(dmove)!r}")
        if board.must_capture != dboard.must_capture:
            problems.append(f"must_capture {board.must_capture}, dame {dboard.must_capture}")
        if problems:
            failures.append((origin, fen, problems))
    assert compared >= 2000
    assert not failures, report(failures, compared)


def test_perft_matches_dame(dame):
    failures = []
    chosen = dame_positions()[::40]
    for origin, fen in chosen:
        board = damier.Board(fen)
        dboard = dame.Board(fen)
        if dboard.outcome() is not None:
            continue
        for depth in (1, 2, 3):
            got, expected = board.perft(depth), dame.perft(dboard, depth)
            if got != expected:
                failures.append((origin, fen, [f"perft({depth}) = {got}, dame {expected}"]))
                break
    assert not failures, report(failures, len(chosen))
