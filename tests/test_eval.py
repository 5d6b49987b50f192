"""The evaluation: the compiled pattern evaluation equals the sum its trace lists,
is colour-symmetric, and its weight files round-trip and refuse what does not fit."""

import io
import json
import random
import struct
import zlib
from array import array
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import damier
from damier._core import (EVAL_TERM_NAMES, EvalWeights, eval_layout, eval_trace,
                          reset_eval_weights, set_eval_weights)
from damier._core import evaluate_position as evaluate
from damier.engine import Engine, Limit, load_eval_weights
from damier.evalfile import FORMAT_VERSION, Weights, WeightsFileError, shipped_weights
from damier.piece import WHITE
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


def random_weights(variant: str, seed: int) -> Weights:
    n = 2 * eval_layout(VARIANTS[variant].index)["features"]
    values = np.random.default_rng(seed).integers(-3000, 3001, n, dtype=np.int16)
    return Weights(VARIANTS[variant], array("h", values.tobytes()))


def traced_score(board: damier.Board, vector: array) -> int:
    """The evaluation as eval_trace's documentation defines it, in Python."""
    feats, counts, phase, shift = eval_trace(board)
    so = sum(c * vector[2 * f] for f, c in zip(feats, counts, strict=True))
    se = sum(c * vector[2 * f + 1] for f, c in zip(feats, counts, strict=True))
    sign = 1 if board.turn == WHITE else -1
    return ((sign * (so * phase + se * (256 - phase))) >> 11) >> shift


@pytest.fixture
def restore_weights():
    yield
    for variant in VARIANTS.values():
        if variant.eval_weights_file is None:
            reset_eval_weights(variant.index)
        else:
            load_eval_weights(variant)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_evaluation_equals_its_trace_sum(variant: str, restore_weights: None) -> None:
    """With random weights (so that every feature matters), on random positions."""
    for seed in (1, 2):
        weights = random_weights(variant, seed)
        set_eval_weights(weights.to_core())
        for board in random_boards(variant, 150, seed=seed + 10):
            assert evaluate(board) == traced_score(board, weights.vector), board.fen()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_evaluation_is_colour_symmetric(variant: str, restore_weights: None) -> None:
    """The position turned half a turn with the colours swapped (and the other
    side to move) scores the same for the side to move, whatever the weights."""
    weights = random_weights(variant, 7)
    set_eval_weights(weights.to_core())
    for board in random_boards(variant, 200, seed=9):
        n = board.variant.squares
        flipped = {n + 1 - s: damier.Piece(not p.color, p.king)
                   for s, p in board.piece_map().items()}
        other = damier.Board(variant=variant)
        other.set_piece_map(flipped, turn=not board.turn)
        assert evaluate(board) == evaluate(other), board.fen()


def test_trace_counts_men_and_kings() -> None:
    board = damier.Board("W:W31,32,K40:B5,K10,K11")
    feats, counts, phase, shift = eval_trace(board)
    terms = dict(zip(feats, counts, strict=True))
    assert terms[EVAL_TERM_NAMES.index("man")] == 2 - 1
    assert terms[EVAL_TERM_NAMES.index("king")] == 1 - 2
    # A king each and three pieces a side: not scaled (only a lone king's endings are).
    assert phase == 3 * 256 // 40 and shift == 0
    # One White-view and one Black-view pattern feature per table, and the side to move.
    layout = eval_layout(board.variant.index)
    side_to_move = 1 if terms.get(layout["features"] - 1) == 1 else 0
    assert counts.count(1) - side_to_move >= layout["patterns"]
    assert feats[-1] == layout["features"] - 1 and counts[-1] == 1


@pytest.mark.parametrize("fen, variant, shift", [
    ("W:WK46,31,32:BK5", "international", 4),     # a lone king against three pieces
    ("W:WK46,31,32,33:BK5", "international", 0),  # ... against four: no scaling
    ("W:WK29,21,22:BK1", "brazilian", 4),
    ("W:WK46,31,32:BK5,10", "international", 0),  # a king each: not a lone king
    ("W:WK46,31,32,33:BK5,10", "international", 0),  # four pieces: no scaling
    ("W:W16,28,36:BK5,29", "international", 0),   # one side has no king
    ("W:WK29,21,22:BK1,5", "brazilian", 0),
    ("W:WK29,21,22:BK1,5", "english", 0),         # short kings: no drawish endings
    ("W:WK29,21:BK1", "english", 0),
    ("W:WK33:BK5,K50,14", "international", 4),    # the lone king may be White's
    ("B:WK33:BK5,K50,14", "international", 4),    # ... with either side to move
])
def test_drawish_endings_are_scaled_down(fen: str, variant: str, shift: int) -> None:
    """In flying-king variants (the registry's ``lone_king_drawish``) three
    pieces do not beat a king as a rule: a lone king against at most three
    pieces divides the score by 16 (a king each with more pieces is not scaled);
    the trace reports the shift and the evaluation applies it."""
    board = damier.Board(fen, variant=variant)
    assert board.variant.lone_king_drawish == (variant != "english")
    assert eval_trace(board)[3] == shift
    weights = shipped_weights(board.variant)
    assert evaluate(board) == traced_score(board, weights.vector)


def test_pattern_of_a_single_man_is_its_area_state() -> None:
    """Table 0's area holds squares 1, 2, 6, 7, 11, 12, 16, 17 (White's view):
    a White man on 6 is digit 1 (own man) in the third place, state 9."""
    board = damier.Board("W:W6:B45")
    feats, counts, _, _ = eval_trace(board)
    layout = eval_layout(board.variant.index)
    assert layout["areas"][0][0] == 1
    nterms = len(layout["terms"])
    assert [f for f, c in zip(feats, counts, strict=True)
            if c == 1 and nterms <= f < nterms + 6561] == [nterms + 9]
    # Black's man on 45 seen by Black in the turned area of table 0 (lowest square 34):
    # 45 is the turned square 6, so Black's view is the same state, subtracted.
    assert [f for f, c in zip(feats, counts, strict=True)
            if c == -1 and nterms <= f < nterms + 6561] == [nterms + 9]


def _material_state(men: int, kings: int, opp_men: int, opp_kings: int) -> int:
    """The material table's state as its documentation defines it: mixed radix
    (20, 4, 20, 4) over own men, own kings, the opponent's men and kings, each
    count capped at the radix minus one."""
    return (((min(men, 19) * 4 + min(kings, 3)) * 20 + min(opp_men, 19)) * 4
            + min(opp_kings, 3))


@pytest.mark.parametrize("fen, variant, white, black", [
    # White: 2 men 1 king; Black: 1 man 2 kings.
    ("W:W31,32,K40:B5,K10,K11", "international", (2, 1, 1, 2), (1, 2, 2, 1)),
    # The start position: 20 men a side count as 19.
    (None, "international", (19, 0, 19, 0), (19, 0, 19, 0)),
    # Five kings count as three.
    ("B:WK1,K2,K3,K4,K5:B45", "international", (0, 3, 1, 0), (1, 0, 0, 3)),
    ("W:W21,22,K32:B1,2,3", "english", (2, 1, 3, 0), (3, 0, 2, 1)),
])
def test_material_table_state_of_a_position(fen, variant, white, black) -> None:
    """One material feature for White's view (+1) and one for Black's (-1), after
    the area tables."""
    board = damier.Board(fen, variant=variant) if fen else damier.Board(variant=variant)
    feats, counts, _, _ = eval_trace(board)
    layout = eval_layout(board.variant.index)
    base = len(layout["terms"]) + layout["patterns"] * layout["pattern_states"]
    assert layout["material_states"] == 20 * 4 * 20 * 4
    assert layout["features"] == (base + layout["material_states"] + layout["big_features"] + 1)
    material = [(f - base, c) for f, c in zip(feats, counts, strict=True)
                if base <= f < base + layout["material_states"]]
    assert sorted(material) == sorted([(_material_state(*white), 1), (_material_state(*black), -1)])


def test_material_weights_change_the_score_as_documented(restore_weights: None) -> None:
    """A weight on White's material state (2 men, 1 king against 1 man, 2 kings)
    adds to White's score; the same weight on Black's view of it subtracts."""
    board = damier.Board("W:W31,32,K40:B5,K10,K11")
    variant = board.variant
    layout = eval_layout(variant.index)
    base = len(layout["terms"]) + layout["patterns"] * layout["pattern_states"]
    plain = Weights.material(variant)
    set_eval_weights(plain.to_core())
    before = evaluate(board)
    for state, sign in ((_material_state(2, 1, 1, 2), 1), (_material_state(1, 2, 2, 1), -1)):
        w = Weights.material(variant)
        f = base + state
        w.vector[2 * f] = w.vector[2 * f + 1] = 64 * 8     # 64 centi-men, both phases
        set_eval_weights(w.to_core())
        # A king each and three pieces a side: no divisor (only a lone king's).
        assert evaluate(board) == before + sign * 64


def test_weights_before_the_material_table_read_with_zeros() -> None:
    """tests/data/eval_international_round0.bin was written before the material
    table: it reads with that table all zeros, its other weights as stored."""
    raw_file = (Path(__file__).parent / "data" / "eval_international_round0.bin").read_bytes()
    stored = array("h")
    stored.frombytes(zlib.decompress(raw_file[100:]))
    weights = Weights.read(Path(__file__).parent / "data" / "eval_international_round0.bin")
    layout = eval_layout(weights.variant.index)
    at = 2 * (len(layout["terms"]) + layout["patterns"] * layout["pattern_states"])
    size = 2 * (layout["material_states"] + layout["big_features"])
    assert len(stored) + size == len(weights.vector)
    assert weights.vector[:at] == stored[:at]
    assert not any(weights.vector[at:at + size])
    assert weights.vector[at + size:] == stored[at:]
    # Written again, it is a file of the current layout that reads back the same.
    assert Weights.from_bytes(weights.to_bytes()) == weights


def test_weights_before_the_big_tables_read_with_zeros(restore_weights: None) -> None:
    """tests/data/eval_international_round5.bin (round 5, shipped until 2026-11-27) was
    written before the big 4 x 6 tables: it reads with them all zeros after its material
    table, and evaluates as the sum of its own weights."""
    path = Path(__file__).parent / "data" / "eval_international_round5.bin"
    stored = array("h")
    stored.frombytes(zlib.decompress(path.read_bytes()[100:]))
    weights = Weights.read(path)
    layout = eval_layout(weights.variant.index)
    at = 2 * (len(layout["terms"]) + layout["patterns"] * layout["pattern_states"]
              + layout["material_states"])
    size = 2 * layout["big_features"]
    assert size == 2 * 4 * 3 ** 12
    assert len(stored) + size == len(weights.vector)
    assert weights.vector[:at] == stored[:at]
    assert not any(weights.vector[at:at + size])
    assert weights.vector[at + size:] == stored[at:]
    set_eval_weights(weights.to_core())
    for board in random_boards("international", 40, seed=4):
        assert evaluate(board) == traced_score(board, weights.vector)


def test_big_pattern_of_a_single_man_is_its_area_state(restore_weights: None) -> None:
    """Big table 0 holds squares 21, 22, 26, 27, ..., 46, 47 (rows 4-9, columns 0-3,
    White's view): a White man on 27 is digit 1 in the fourth place (state 27); Black's
    man on 24, the half-turn of 27, is the same state of Black's view, subtracted. A
    weight there moves the score by its value, and by nothing once the man leaves the
    area."""
    board = damier.Board("W:W27:B24")
    v = board.variant
    layout = eval_layout(v.index)
    assert layout["big_areas"][0] == ([21, 22, 26, 27, 31, 32, 36, 37, 41, 42, 46, 47],
                                      [4, 5, 9, 10, 14, 15, 19, 20, 24, 25, 29, 30])
    base = (len(layout["terms"]) + layout["patterns"] * layout["pattern_states"]
            + layout["material_states"])
    feats, counts, _, _ = eval_trace(board)
    big = [(f - base, c) for f, c in zip(feats, counts, strict=True)
           if base <= f < base + layout["big_states"]]
    assert sorted(big) == [(27, -1), (27, 1)]
    w = Weights.material(v)
    w.vector[2 * (base + 27)] = w.vector[2 * (base + 27) + 1] = 40 * 8
    set_eval_weights(w.to_core())
    plain = Weights.material(v)
    lone = damier.Board("W:W27:B1")      # Black's man outside table 0's turned area
    for b, delta in ((board, 0), (lone, 40)):
        with_weight = evaluate(b)
        set_eval_weights(plain.to_core())
        assert with_weight - evaluate(b) == delta, b.fen()
        set_eval_weights(w.to_core())


@pytest.mark.parametrize("variant", [name for name, v in VARIANTS.items() if v.eval_weights_file])
def test_shipped_weights_load_and_keep_the_square_table(variant: str) -> None:
    """The shipped weights came from the linear evaluation's square table (the
    manifest keeps it): the pattern weights must add up to that table."""
    v = VARIANTS[variant]
    weights = load_eval_weights(v)
    manifest = json.loads(resources.files("damier").joinpath(
        "data", f"eval_{variant}.manifest.json").read_text())
    if "linear_weights" not in manifest:
        pytest.skip("trained weights: no square table to compare with")
    squares = manifest["linear_weights"]["squares"]
    layout = eval_layout(v.index)
    lo, hi = len(layout["terms"]), len(layout["terms"]) + layout["patterns"] * 6561
    for board in random_boards(variant, 100, seed=3):
        feats, counts, _, _ = eval_trace(board)
        pattern = sum(c * weights.vector[2 * f] for f, c in zip(feats, counts, strict=True)
                      if lo <= f < hi)
        table = sum((8 * squares[s - 1] if p.color == WHITE else -8 * squares[v.squares - s])
                    for s, p in board.piece_map().items() if not p.king)
        # Each area's weight is rounded once: at most half a unit per area scored.
        assert abs(pattern - table) <= layout["patterns"], board.fen()


def test_weights_file_round_trips(tmp_path) -> None:
    weights = random_weights("international", 3)
    path = tmp_path / "w.bin"
    weights.write(path)
    again = Weights.read(path, variant="international")
    assert again == weights
    assert again.to_core().to_bytes() == weights.vector.tobytes()
    raw = path.read_bytes()
    assert raw[:8] == b"DAMIEREV"
    assert struct.unpack_from("<H", raw, 8)[0] == FORMAT_VERSION


def _corrupt(data: bytes, offset: int, new: bytes) -> bytes:
    return data[:offset] + new + data[offset + len(new):]


def test_weights_file_refuses_what_does_not_fit(tmp_path) -> None:
    data = Weights.material("international").to_bytes()
    with pytest.raises(WeightsFileError, match="for international draughts, not english"):
        Weights.from_bytes(data, variant="english")
    with pytest.raises(WeightsFileError, match="format version 2"):
        Weights.from_bytes(_corrupt(data, 8, struct.pack("<H", 2)))
    with pytest.raises(WeightsFileError, match="bad magic"):
        Weights.from_bytes(_corrupt(data, 0, b"NOTDAMIE"))
    with pytest.raises(WeightsFileError, match="another evaluation layout"):
        Weights.from_bytes(_corrupt(data, 26, bytes(32)))
    with pytest.raises(WeightsFileError, match="damaged payload"):
        Weights.from_bytes(_corrupt(data, 68, bytes(32)))
    with pytest.raises(WeightsFileError, match="truncated"):
        Weights.from_bytes(data[:-3])
    with pytest.raises(WeightsFileError, match="too short"):
        Weights.from_bytes(b"DAMIEREV")
    with pytest.raises(WeightsFileError, match="unknown variant"):
        Weights.from_bytes(_corrupt(data, 10, b"xyzzy" + bytes(11)))
    with pytest.raises(WeightsFileError, match="cannot read weights file"):
        Weights.read(tmp_path / "missing.bin")
    with pytest.raises(ValueError, match="expected"):
        EvalWeights(VARIANTS["international"].index, b"\0" * 10)


def test_engine_weights_of_its_own(tmp_path) -> None:
    """An engine given weights of its own searches with them; others keep the shipped ones."""
    board = damier.Board()      # after any first move no capture is pending: a quiet leaf
    material = Weights.material("international")
    material.set("man", 8 * 100, 8 * 100)
    lopsided = Weights.material("international")
    lopsided.set("side", 8 * 500, 8 * 500)    # the side to move gets five men
    path = tmp_path / "lopsided.bin"
    lopsided.write(path)
    own = Engine(weights=path)
    plain = Engine(weights=material)
    a = own.analyse(board, Limit(depth=1))["score"].relative.score()
    b = plain.analyse(board, Limit(depth=1))["score"].relative.score()
    # Depth 1: White moves and the score is the leaf's, where Black is to move.
    assert a is not None and b is not None and abs((b - a) - 500) <= 1
    with pytest.raises(ValueError, match="not a damier weights file"):
        Engine(weights=io.BytesIO(b"x" * 200))  # type: ignore[arg-type]


def test_new_weights_are_searched_with_nothing_of_the_old(tmp_path) -> None:
    """An engine whose weights change between two searches of the same position scores
    the second one as an engine that only ever had the new weights: what the first
    search stored (its transposition table, its evaluation cache) is not reused."""
    board = damier.Board("W:W31,32,33,34,35,36,37,38,39,40:B11,12,13,14,15,16,17,18,19,20")
    material = Weights.material("international")
    lopsided = Weights.material("international")
    lopsided.set("side", 8 * 300, 8 * 300)    # the side to move gets three men
    lopsided.set("advancement", 8 * 40, 8 * 10)
    limit = Limit(depth=5)
    fresh = Engine(weights=lopsided).analyse(board, limit)["score"].relative.score()
    engine = Engine(weights=material)
    before = engine.analyse(board, limit)["score"].relative.score()
    engine.set_weights(lopsided)
    after = engine.analyse(board, limit)["score"].relative.score()
    assert fresh is not None and before is not None and after is not None
    assert fresh != before       # the weights do change this score
    assert after == fresh
