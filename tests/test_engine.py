"""Tests of damier's engine (:mod:`damier.engine`).

1. Tactical shots: ``tests/data/shots_<variant>.txt`` holds positions with a known winning
   combination. Each one is first *proved* by a small brute-force prover written here (an
   exhaustive alpha-beta minimax over :class:`damier.Board` that counts material and knows
   nothing of the engine), then the engine must find the solution.
2. Robustness: the engine never returns an illegal move or an illegal principal variation
   (fuzzing over random positions of the four variants with mixed limits), every level plays
   legal moves, ``stop()`` ends an infinite search, clock budgets are kept, repetition draws
   are seen through the game history, multi-PV output is sane, and a lost position returns
   no move.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import NamedTuple

import pytest

import damier
from damier.engine import MATE_SCORE, Clock, Engine, MoveTimer, SearchInfo, SearchResult

DATA_DIR = Path(__file__).resolve().parent / "data"
VARIANT_NAMES = ("international", "english", "russian", "brazilian")

# ---------------------------------------------------------------------------------------------
# The brute-force prover
# ---------------------------------------------------------------------------------------------
# A plain negamax with alpha-beta pruning (exact: it returns the minimax value whenever that
# value lies inside the window, and a correct bound otherwise) over damier.Board. The value of a
# position is its material, a man 1 and a king 3, from the side to move's point of view, or
# -WIN when the side to move has no legal move (it has lost). At the horizon a position where
# the side to move must capture is not counted: captures are searched on until a quiet
# position is reached (captures are compulsory, so this is part of the game, not a heuristic).
# Nothing here shares code with the engine's search or evaluation.

MAN_VALUE = 1
KING_VALUE = 3
WIN = 1000
WIN_THRESHOLD = WIN - 200  # a value above this is a forced win within the horizon


def material(board: damier.Board) -> int:
    """Material from the side to move's point of view (man 1, king 3)."""
    _, white_men, white_kings, black_men, black_kings = board._pieces()
    score = (MAN_VALUE * (len(white_men) - len(black_men))
             + KING_VALUE * (len(white_kings) - len(black_kings)))
    return score if board.turn == damier.WHITE else -score


class Prover:
    """Exhaustive minimax over a :class:`damier.Board` to a fixed depth."""

    def __init__(self) -> None:
        self.nodes = 0

    def negamax(self, board: damier.Board, depth: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        moves = board.legal_moves
        if not moves:
            return -WIN
        if depth <= 0 and not moves[0].is_capture:
            return material(board)
        best = -WIN - 1
        for move in moves:
            # _push_legal/_pop_move: Board.push/pop without the game-record bookkeeping
            # (snapshots for the draw rules), which this search does not need.
            board._push_legal(move)
            value = -self.negamax(board, depth - 1, -beta, -alpha)
            board._pop_move()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    def value_after(self, board: damier.Board, move: damier.Move, depth: int,
                    alpha: int = -WIN - 1, beta: int = WIN + 1) -> int:
        """The minimax value (for the side to move in ``board``) of playing ``move``, with
        ``depth`` plies counted from ``board`` (``move`` included)."""
        board._push_legal(move)
        try:
            return -self.negamax(board, depth - 1, -beta, -alpha)
        finally:
            board._pop_move()

    def at_least(self, board: damier.Board, move: damier.Move, depth: int, bound: int) -> bool:
        """Whether ``move`` scores at least ``bound`` (a null-window search)."""
        return self.value_after(board, move, depth, bound - 1, bound) >= bound


class Shot(NamedTuple):
    variant: str
    fen: str
    solution: str
    depth: int
    gain: int | None
    """Net material the solution wins; None for a forced win of the game (``win``)."""
    comment: str
    line_number: int

    @property
    def id(self) -> str:
        return f"{self.variant}-{self.line_number}-{self.solution}"

    def threshold(self, base: int) -> int:
        """The value (absolute, side to move) the solution must reach."""
        return WIN_THRESHOLD if self.gain is None else base + self.gain


def load_shots(variant: str) -> list[Shot]:
    path = DATA_DIR / f"shots_{variant}.txt"
    shots = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fen, solution, depth, gain, comment = (part.strip() for part in line.split(";", 4))
        shots.append(Shot(variant, fen, solution, int(depth),
                          None if gain == "win" else int(gain), comment, number))
    return shots


ALL_SHOTS = [shot for variant in VARIANT_NAMES for shot in load_shots(variant)]


def prove_shot(shot: Shot) -> None:
    """Raises AssertionError unless ``shot.solution`` is a sound and unique shot: it reaches
    the gain at ``depth`` and at ``depth + 2`` plies against every defence, and no other
    first move reaches it at ``depth`` plies."""
    board = damier.Board(shot.fen, variant=shot.variant)
    solution = board.parse_move(shot.solution)
    base = material(board)
    need = shot.threshold(base)
    prover = Prover()
    for depth in (shot.depth, shot.depth + 2):
        value = prover.value_after(board, solution, depth)
        assert value >= need, (
            f"{shot.fen}: {shot.solution} only reaches {value - base:+d} at {depth} plies "
            f"(needs {'a win' if shot.gain is None else f'{shot.gain:+d}'})")
    for move in board.legal_moves:
        if move == solution:
            continue
        assert not prover.at_least(board, move, shot.depth, need), (
            f"{shot.fen}: {board.notation(move)} also reaches "
            f"{prover.value_after(board, move, shot.depth) - base:+d} at {shot.depth} plies; "
            f"the solution {shot.solution} is not unique")


# ---------------------------------------------------------------------------------------------
# 1. Tactical shots
# ---------------------------------------------------------------------------------------------


def test_shot_files_have_enough_positions() -> None:
    counts = {variant: len(load_shots(variant)) for variant in VARIANT_NAMES}
    assert counts["international"] >= 20, counts
    for variant in ("english", "russian", "brazilian"):
        assert counts[variant] >= 3, counts
    fens = [(shot.variant, shot.fen) for shot in ALL_SHOTS]
    assert len(fens) == len(set(fens)), "a position is listed twice"


def test_prover_on_hand_counted_positions() -> None:
    """The prover itself, on positions counted by hand."""
    prover = Prover()
    # White's only move is the capture 28x19: one man up after one ply, and Black (man on 5)
    # cannot win it back within two more plies.
    board = damier.Board("W:W28,45:B23,5")
    (move,) = board.legal_moves
    assert board.notation(move) == "28x19"
    for depth in (1, 3):
        assert prover.value_after(board, move, depth) - material(board) == 1
    # the coup Philippe: seen 1 ply deep, 27-22 loses a man (the captures that follow are
    # resolved: 18x27 32x21 16x27); from 5 plies on (34-30 25x34 40x16) it wins two
    board = damier.Board("W:W27,32,34,37,38,40,45,49:B1,2,11,12,16,18,23,25")
    move = board.parse_move("27-22")
    assert prover.value_after(board, move, 1) - material(board) == -1
    assert prover.value_after(board, move, 5) - material(board) == 2
    assert prover.value_after(board, move, 7) - material(board) == 2
    # no legal move: lost, whatever the depth
    assert prover.negamax(damier.Board("W:W6:B1"), 3, -WIN - 1, WIN + 1) == -WIN
    assert prover.negamax(damier.Board("W:W:B1"), 0, -WIN - 1, WIN + 1) == -WIN


@pytest.mark.parametrize("shot", ALL_SHOTS, ids=lambda shot: shot.id)
def test_shot_is_sound(shot: Shot) -> None:
    prove_shot(shot)


@pytest.fixture(scope="module")
def shot_engine() -> Engine:
    return Engine(hash_mb=16)


@pytest.mark.parametrize("shot", ALL_SHOTS, ids=lambda shot: shot.id)
def test_engine_finds_shot(shot: Shot, shot_engine: Engine) -> None:
    board = damier.Board(shot.fen, variant=shot.variant)
    solution = board.parse_move(shot.solution)
    shot_engine.new_game()
    result = shot_engine.search(board, depth=shot.depth)
    assert result.best_move is not None
    assert result.best_move == solution, (
        f"{shot.variant} {shot.fen}: expected {shot.solution} ({shot.comment}); the engine "
        f"played {board.notation(result.best_move)} at depth {result.depth}, score "
        f"{result.score}, pv {' '.join(map(str, result.pv))}")
    if shot.gain is None:
        assert result.is_win, f"{shot.fen}: a forced win scored {result.score_text()}"


def test_engine_finds_shot_with_movetime() -> None:
    """The coup Philippe under a time limit rather than a depth."""
    shot = load_shots("international")[0]
    board = damier.Board(shot.fen)
    result = Engine(hash_mb=16).search(board, movetime=0.3)
    assert board.notation(result.best_move) == shot.solution


def test_movetime_is_used_in_full() -> None:
    """A fixed time a move cannot be saved for a later move: the search goes on
    until it is spent (it used to stop at 60% of it, before the next depth)."""
    board = damier.Board()
    start = time.monotonic()
    result = Engine(hash_mb=16).search(board, movetime=0.4)
    elapsed = time.monotonic() - start
    assert elapsed >= 0.38, f"a 0.4 s search returned after {elapsed:.3f} s (depth {result.depth})"


def test_stopped_iteration_keeps_a_better_move_it_proved() -> None:
    """When the limits stop an iteration after it proved a root move better than
    the previous depth's best, the search plays that move: where the best move
    changes from one depth to the next, some node limits that stop the iteration
    before it ends give the new move (before, they all gave the previous depth's
    move); the result's depth is the last one completed."""
    # 40 positions of up to 40 random plies searched to depth 10 give 13-24 such
    # changes of the best move with room for a node limit inside the iteration
    # (seeds 7-9 with the shipped weights; 10 positions of 30 plies to depth 9 gave
    # one or two, too few to tell a kept move from chance).
    rng = random.Random(7)
    kept = 0
    for _ in range(40):
        board = random_position(rng, "international", 40)
        if len(board.legal_moves) < 2:
            continue
        infos: list[SearchInfo] = []
        Engine(hash_mb=16).search(board, depth=10, info=infos.append)
        for before, after in zip(infos, infos[1:], strict=False):
            if not (before.pv and after.pv) or before.pv[0] == after.pv[0]:
                continue
            if after.nodes - before.nodes < 8 * 1024:
                continue  # too few nodes for a node limit inside the iteration
            found = False
            for limit in range(after.nodes - 1024, before.nodes + 1024, -1024):
                result = Engine(hash_mb=16).search(board, nodes=limit)
                assert result.nodes < after.nodes, "a node limit must stop the iteration"
                if result.best_move == after.pv[0]:
                    assert result.depth == before.depth   # the last depth completed
                    found = True
                    break
                # Else the previous depth's move, or another the stopped iteration
                # proved better than it before a third one beat both.
                assert result.depth == before.depth, f"{board.fen()} at {limit} nodes: {result}"
            # (Not found: the new move was proved in the iteration's last 1,024 nodes.)
            kept += found
    assert kept >= 4, f"only {kept} new best moves were kept by a stopped iteration"


# ---------------------------------------------------------------------------------------------
# 2. Fuzzing: legal moves and legal principal variations
# ---------------------------------------------------------------------------------------------


def random_position(rng: random.Random, variant: str, max_plies: int) -> damier.Board:
    """A position reached by a random playout of up to ``max_plies`` uniformly random moves
    (long playouts give positions with kings, endgames and blocked or lost sides)."""
    board = damier.Board(variant=variant)
    for _ in range(rng.randint(0, max_plies)):
        moves = board.legal_moves
        if not moves:
            break
        board._push_legal(rng.choice(moves))
    # a fresh board from the FEN: the searches below are of the position, not the game
    return damier.Board(board.fen(), variant=variant)


def assert_legal_result(board: damier.Board, result: SearchResult, context: str) -> None:
    legal = board.legal_moves
    if not legal:
        assert result.best_move is None, f"{context}: a move in a lost position"
        return
    assert result.best_move is not None, f"{context}: no move"
    assert result.best_move in legal, (
        f"{context}: illegal best move {result.best_move!r}; legal: {legal}")
    assert abs(result.score) <= damier.engine.MATE_SCORE, f"{context}: score {result.score}"
    line = board.copy()
    for ply, move in enumerate(result.pv):
        assert move in line.legal_moves, (
            f"{context}: pv move {ply + 1} {move!r} is illegal in {line.fen()}; "
            f"pv {[str(m) for m in result.pv]}")
        line.push(move)
    if result.pv:
        assert result.pv[0] == result.best_move, f"{context}: pv does not start with the move"


FUZZ_POSITIONS = 2000


def fuzz_boards(seed: int, count: int) -> list[damier.Board]:
    rng = random.Random(seed)
    boards = []
    for i in range(count):
        variant = VARIANT_NAMES[i % len(VARIANT_NAMES)]
        boards.append(random_position(rng, variant, 120 if variant == "international" else 80))
    return boards


def test_fuzz_engine_plays_legal_moves() -> None:
    rng = random.Random(20261121)
    boards = fuzz_boards(7, FUZZ_POSITIONS)
    # positions that must be covered: a single legal move, kings, captures, game over
    boards += [
        damier.Board("W:W28:B23,19"),                     # one legal move: 28-22
        damier.Board("W:W28,45:B23,5"),                   # one legal move: 28x19
        damier.Board("B:W10,K46:BK5"),                    # a king's capture, seven landings
        damier.Board("W:W32,K46:B27,21,K5"),
        damier.Board("W:WK46:B"),                         # Black has nothing left
        damier.Board("W:W:B1"),                           # White has no piece: lost
        damier.Board("W:W6:B1"),                          # White's only man is blocked: lost
        damier.Board("B:W21-32:B", variant="english"),    # Black has no piece: lost
        damier.Board("W:WK1:BK32", variant="russian"),
        damier.Board("W:W5:B28", variant="brazilian"),    # one legal move: 5-1, crowning
    ]
    engine = Engine(hash_mb=8)  # one engine (and hash table) for every variant and position
    singles = with_kings = lost = 0
    for index, board in enumerate(boards):
        legal = board.legal_moves
        singles += len(legal) == 1
        lost += not legal
        with_kings += any(piece.king for piece in board.piece_map().values())
        kind = index % 5
        if kind == 0:
            limits = {"depth": rng.randint(1, 4)}
        elif kind == 1:
            limits = {"nodes": rng.choice((1, 10, 100, 1000, 5000))}
        elif kind == 2:
            limits = {"movetime": rng.choice((0.0005, 0.001, 0.003))}
        elif kind == 3:
            limits = {"depth": rng.randint(1, 3), "nodes": rng.randint(50, 3000)}
        else:
            limits = {"depth": rng.randint(5, 7), "nodes": 20000}
        if rng.random() < 0.05:
            engine.new_game()
        infos: list[SearchInfo] = []
        result = engine.search(board, info=infos.append, **limits)
        context = f"{board.variant.name} {board.fen()} {limits}"
        assert_legal_result(board, result, context)
        for info in infos:  # every iteration's line is legal too
            assert_legal_result(board, SearchResult(info.pv[0] if info.pv else result.best_move,
                                                    info.score, info.depth, info.seldepth,
                                                    info.nodes, info.time, info.pv),
                                f"{context} (info at depth {info.depth})")
        assert [info.depth for info in infos] == list(range(1, len(infos) + 1)), context
    assert singles >= 20, f"only {singles} positions with a single legal move"
    assert with_kings >= 100, f"only {with_kings} positions with kings"
    assert lost >= 3


def test_fuzz_analyse_multipv() -> None:
    """Multi-PV on random positions: distinct legal moves, best first, legal lines."""
    rng = random.Random(99)
    engine = Engine(hash_mb=8)
    for board in fuzz_boards(8, 160):
        legal = board.legal_moves
        multipv = rng.randint(1, 4)
        results = engine.search_lines(board, multipv=multipv, depth=rng.randint(1, 4))
        context = f"{board.variant.name} {board.fen()} multipv={multipv}"
        if not legal:
            assert [r.best_move for r in results] == [None], context
            continue
        assert len(results) == min(multipv, len(legal)), context
        moves = [r.best_move for r in results]
        assert len(set(moves)) == len(moves), context
        scores = [r.score for r in results]
        assert scores == sorted(scores, reverse=True), context
        for result in results:
            assert_legal_result(board, result, context)


def test_single_legal_move_is_returned_at_once() -> None:
    board = damier.Board("W:W28:B23,19")
    assert [board.notation(m) for m in board.legal_moves] == ["28-22"]
    start = time.monotonic()
    result = Engine(hash_mb=1).search(board, movetime=5.0)
    assert result.best_move == board.legal_moves[0]
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("fen, variant", [
    ("W:W:B1", "international"),             # no piece left
    ("W:W6:B1", "international"),            # the only man is blocked
    ("B:W21-32:B", "english"),
    ("W:W:BK10", "russian"),
    ("B:W5:B", "brazilian"),
])
def test_lost_position_returns_no_move(fen: str, variant: str) -> None:
    board = damier.Board(fen, variant=variant)
    assert board.legal_moves == []
    engine = Engine(hash_mb=1)
    for limits in ({"depth": 3}, {"movetime": 0.05}, {"nodes": 100}):
        result = engine.search(board, **limits)
        assert result.best_move is None
        assert result.is_loss
        assert result.pv == []
    results = engine.search_lines(board, multipv=3, depth=2)
    assert [r.best_move for r in results] == [None]


@pytest.mark.parametrize("level", range(1, 11))
def test_levels_play_legal_moves(level: int) -> None:
    engine = Engine(hash_mb=4, level=level, seed=level)
    for board in fuzz_boards(100 + level, 8):
        for limits in ({"depth": 3}, {"movetime": 0.02}):
            result = engine.search(board, **limits)
            assert_legal_result(board, result, f"level {level} {board.fen()} {limits}")


# ---------------------------------------------------------------------------------------------
# 3. Limits: stop(), clocks, movetime
# ---------------------------------------------------------------------------------------------


def test_stop_ends_an_infinite_search() -> None:
    engine = Engine(hash_mb=16)
    board = damier.Board()
    box: dict[str, object] = {}

    def run() -> None:
        box["result"] = engine.search(board, infinite=True)

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.4)
    assert thread.is_alive(), "an infinite search returned on its own"
    stopped_at = time.monotonic()
    engine.stop()
    thread.join(timeout=5.0)
    assert not thread.is_alive(), "stop() did not end the infinite search"
    assert time.monotonic() - stopped_at < 0.25
    result = box["result"]
    assert isinstance(result, SearchResult)
    assert_legal_result(board, result, "infinite search")
    assert result.depth >= 1


CLOCK_FENS = [
    damier.Board().fen(),
    "B:W31-50:B1-20",
    "W:W25,27,28,30,31,32,33,35,36,37,39,40,41,42,50:B2,8,9,12,13,14,15,16,17,18,19,20,21,24,26,29",
]


@pytest.mark.parametrize("fen", CLOCK_FENS)
def test_clock_budget_is_respected(fen: str) -> None:
    """A 2 s clock with no increment: one move must not take more than ~0.6 s."""
    engine = Engine(hash_mb=16)
    board = damier.Board(fen)
    start = time.monotonic()
    result = engine.search(board, clock=Clock(white_time=2.0, black_time=2.0))
    elapsed = time.monotonic() - start
    assert elapsed < 0.6, f"{elapsed:.2f} s on a 2 s clock"
    assert_legal_result(board, result, "clock")


def test_clock_nearly_flagged() -> None:
    board = damier.Board()
    start = time.monotonic()
    result = Engine(hash_mb=16).search(board, clock=Clock(white_time=0.05, black_time=0.05))
    assert time.monotonic() - start < 0.2
    assert result.best_move in board.legal_moves


def _timer(moves: list[int], scores: list[int] | None = None) -> MoveTimer:
    """A timer (soft 1 s, hard 3 s) fed depths 1, 2, ... with these best moves and scores."""
    timer = MoveTimer(1.0, 3.0)
    for depth, best in enumerate(moves, 1):
        timer.update(depth, best, scores[depth - 1] if scores else 0)
    return timer


def test_move_timer_settled_search_stops_sooner() -> None:
    base = _timer([0] * 5).target()       # too few depths to count as settled
    assert base == pytest.approx(0.6)
    assert _timer([0] * 12).target() < base


def test_move_timer_best_move_change_searches_longer() -> None:
    base = _timer([0] * 12).target()
    changed = _timer([0] * 11 + [1]).target()
    assert changed > 0.6 > base
    # the change weighs less with each depth that keeps the new move
    later = [_timer([0] * 11 + [1] * k).target() for k in range(1, 5)]
    assert later == sorted(later, reverse=True) and later[0] > later[-1]


def test_move_timer_changes_at_shallow_depths_do_not_count() -> None:
    assert _timer([0, 1, 2, 3]).target() == pytest.approx(0.6)


def test_move_timer_falling_score_searches_longer() -> None:
    steady = _timer([0] * 8, [20] * 8).target()
    falling = _timer([0] * 8, [20] * 7 + [-20]).target()
    rising = _timer([0] * 8, [20] * 7 + [80]).target()
    assert falling > steady
    assert rising <= steady
    # a forced loss found is no reason to think longer: the result is known
    mated = _timer([0] * 8, [20] * 7 + [-MATE_SCORE + 9]).target()
    assert mated == pytest.approx(steady)


def test_move_timer_never_past_half_the_hard_limit() -> None:
    timer = _timer([0, 1] * 10, [400 - 50 * k for k in range(20)])
    assert timer.target() == pytest.approx(3.0 * MoveTimer.HARD_SHARE)


@pytest.mark.parametrize("value", [1, "on", None])
def test_adaptive_time_must_be_a_bool(value: object) -> None:
    with pytest.raises(ValueError, match="adaptive_time must be True or False"):
        Engine(hash_mb=1, adaptive_time=value)  # type: ignore[arg-type]


def test_clock_budget_is_kept_with_and_without_adaptive_time() -> None:
    """Both ways of sharing a move's time keep to its hard limit."""
    board = damier.Board(CLOCK_FENS[2])
    clock = Clock(white_time=6.0, black_time=6.0)
    for adaptive in (False, True):
        engine = Engine(hash_mb=16, adaptive_time=adaptive)
        start = time.monotonic()
        result = engine.search(board, clock=clock)
        elapsed = time.monotonic() - start
        hard = clock.budget(board.turn)[1]
        assert elapsed < hard + 0.1, f"adaptive_time={adaptive}: {elapsed:.2f} s"
        assert_legal_result(board, result, f"adaptive_time={adaptive}")


def test_movetime_is_respected() -> None:
    engine = Engine(hash_mb=16)
    for movetime in (0.05, 0.25):
        start = time.monotonic()
        result = engine.search(damier.Board(), movetime=movetime)
        elapsed = time.monotonic() - start
        assert elapsed < movetime + 0.1, f"movetime {movetime}: took {elapsed:.3f} s"
        assert result.best_move in damier.Board().legal_moves


def test_node_limit_is_respected() -> None:
    engine = Engine(hash_mb=16)
    infos: list[SearchInfo] = []
    result = engine.search(damier.Board(), nodes=20000, info=infos.append)
    assert result.nodes <= 20000 + 1024  # the limit is checked every 1024 nodes
    assert infos and [i.depth for i in infos] == list(range(1, len(infos) + 1))


# ---------------------------------------------------------------------------------------------
# 4. Repetition draws through the game history
# ---------------------------------------------------------------------------------------------


def test_repetition_in_history_scores_a_draw() -> None:
    """Black is two men up (one far back on 5; without it, a king each and at most three
    pieces a side is a drawish ending), with two men about to crown; White's king has just
    gone 2-11-2 while Black's king went 40-34-40. Without the history White is lost (a
    clearly negative score); with it, 2-11 returns to a position of the game, which the
    search counts as a draw (the usual engine reading of the repetition rule), and nothing
    else is as good."""
    fen = "W:W25,K2:B5,38,41,K40"
    engine = Engine(hash_mb=16)
    fresh = damier.Board(fen)
    baseline = engine.search(fresh, depth=6)
    assert baseline.score < -100, f"the test position is not lost for White: {baseline.score}"

    played = damier.Board(fen)
    for move in ("2-11", "40-34", "11-2", "34-40"):
        played.push(move)
    assert played.fen() == fresh.fen()
    assert played.outcome() is None
    for depth in (1, 4, 6, 9):
        engine.new_game()
        result = engine.search(played, depth=depth)
        assert result.score == 0, (
            f"depth {depth}: expected a repetition draw (0), got {result.score}, "
            f"pv {[str(m) for m in result.pv]}")
        assert played.notation(result.best_move) == "2-11"
    # the draw is for the side that repeats; Black, a man up, avoids it
    played.push("2-11")
    engine.new_game()
    result = engine.search(played, depth=6)
    assert result.score > 100
    assert played.notation(result.best_move) != "40-34"


# ---------------------------------------------------------------------------------------------
# 5. Multi-PV
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_analyse_multipv(variant: str) -> None:
    board = damier.Board(variant=variant)
    results = Engine(hash_mb=16).search_lines(board, multipv=3, depth=6)
    assert len(results) == 3
    moves = [r.best_move for r in results]
    assert len(set(moves)) == 3, moves
    assert all(m in board.legal_moves for m in moves)
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True), scores
    for result in results:
        assert_legal_result(board, result, f"multipv {variant}")


def test_analyse_multipv_more_than_legal_moves() -> None:
    board = damier.Board("W:W28:B23,19")  # one legal move
    results = Engine(hash_mb=4).search_lines(board, multipv=3, depth=4)
    assert [r.best_move for r in results] == board.legal_moves


def test_analyse_multipv_orders_a_shot_first() -> None:
    shot = load_shots("international")[0]
    board = damier.Board(shot.fen)
    results = Engine(hash_mb=16).search_lines(board, multipv=3, depth=shot.depth)
    assert board.notation(results[0].best_move) == shot.solution
    assert results[0].score > results[1].score >= results[2].score


# ---------------------------------------------------------------------------------------------
# 6. One engine, several variants
# ---------------------------------------------------------------------------------------------

# The same FEN means a different game in English and Brazilian draughts: the variants'
# Zobrist keys must differ so that one Engine's transposition table keeps them apart.
CROSS_VARIANT_FEN = "W:W21,22,29:B2,4,6,9,10,16,K27"


def test_engine_reused_across_variants_gives_the_fresh_result() -> None:
    english = damier.Board(CROSS_VARIANT_FEN, variant="english")
    brazilian = damier.Board(CROSS_VARIANT_FEN, variant="brazilian")
    assert english.zobrist_hash() != brazilian.zobrist_hash()
    fresh = Engine(hash_mb=16).search(english, depth=8)
    control = Engine(hash_mb=16)
    control.search(english, depth=8)
    again = control.search(english, depth=8)
    # Same variant: the second search starts with the first one's table, and its entries
    # are used (a smaller tree; the move and score may differ, as they may between
    # searches of different trees).
    assert again.nodes < fresh.nodes and again.best_move in english.legal_moves
    # Another variant first: its table entries must not be taken for English ones (and
    # the move-ordering statistics are reset on a change of variant), so the search is
    # the fresh one exactly.
    shared = Engine(hash_mb=16)
    shared.search(brazilian, depth=8)
    result = shared.search(english, depth=8)
    assert (result.best_move, result.score, result.nodes) == \
        (fresh.best_move, fresh.score, fresh.nodes)
