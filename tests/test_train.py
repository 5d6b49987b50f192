"""damier train: self-play on Ray (interrupted and resumed, every game counted
once), the fit (recovers known weights) and the command line."""

import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import damier
from damier._core import eval_layout, square_sets
from damier.engine import Engine, Limit
from damier.evalfile import Weights
from damier.cli.train import main
from damier.train import (Dataset, FitSettings, SelfplaySettings, TrainError, fit,
                          lambda_returns, load_dataset, play_chunk, predict, selfplay,
                          trace_arrays)

np = pytest.importorskip("numpy")

TINY = SelfplaySettings(nodes=150, chunk_games=2, max_plies=60, skip_plies=4)


def test_a_chunk_is_deterministic_and_its_positions_are_real() -> None:
    a = play_chunk(TINY, 3)
    b = play_chunk(TINY, 3)
    for key in ("white", "black", "kings", "result", "score", "game"):
        assert np.array_equal(a[key], b[key]), key
    assert int(a["games"]) == 2 and set(a["game"].tolist()) <= {6, 7}
    assert len(a["result"]) > 0 and set(a["result"].tolist()) <= {0.0, 0.5, 1.0}
    # every stored position is a legal, quiet position of the variant
    for w, bl, k, wtm in zip(a["white"][:20], a["black"][:20], a["kings"][:20],
                             a["white_to_move"][:20], strict=True):
        pieces = {}
        for s in range(1, 51):
            if int(w) >> (s - 1) & 1:
                pieces[s] = damier.Piece(damier.WHITE, bool(int(k) >> (s - 1) & 1))
            if int(bl) >> (s - 1) & 1:
                pieces[s] = damier.Piece(damier.BLACK, bool(int(k) >> (s - 1) & 1))
        board = damier.Board()
        board.set_piece_map(pieces, turn=bool(wtm))
        assert square_sets(board) == (int(w), int(bl), int(k), bool(wtm))
        assert board.legal_moves and not board.legal_moves[0].captures


def _chunks(path: Path) -> list[str]:
    return sorted(p.name for p in path.glob("chunk-*.npz"))


def test_selfplay_on_ray_interrupted_and_resumed(tmp_path: Path) -> None:
    """A run on a local Ray, stopped with Ctrl-C after its first chunk, then run
    again: the chunks that were written are kept, the others played, and every
    game is in the data once, as a run that was never stopped would have it."""
    pytest.importorskip("ray")
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "damier", "train", "selfplay", str(out), "--games", "12",
           "--chunk-games", "2", "--nodes", "150", "--backend", "ray", "--workers", "1",
           "--no-progress"]
    env = dict(os.environ, RAY_DISABLE_USAGE_STATS="1")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while not _chunks(out) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert _chunks(out), proc.communicate()[1][-2000:]
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err, err[-2000:]
    first = _chunks(out)
    assert 1 <= len(first) <= 6
    before = {name: (out / name).read_bytes() for name in first}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "resuming" in done.stderr or len(first) == 6
    assert _chunks(out) == [f"chunk-{i:06d}.npz" for i in range(6)]
    for name, data in before.items():
        assert (out / name).read_bytes() == data          # kept, not played again
    data = load_dataset([out])
    assert data.games == 12
    # the same games as an uninterrupted run: chunk by chunk equal to a fresh play
    settings = SelfplaySettings(**json.loads((out / "selfplay.json").read_text()))
    for c in range(6):
        fresh = play_chunk(settings, c)
        with np.load(out / f"chunk-{c:06d}.npz") as stored:
            assert np.array_equal(stored["white"], fresh["white"])
            assert np.array_equal(stored["game"], fresh["game"])
    assert set(np.unique(data.game).tolist()) <= set(range(12))


def test_selfplay_refuses_other_settings_in_the_same_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    selfplay(out, games=2, settings=TINY, backend="local", progress=False)
    with pytest.raises(TrainError, match="nodes: 150 there, 300 now"):
        selfplay(out, games=2, settings=SelfplaySettings(nodes=300, chunk_games=2, max_plies=60,
                                                         skip_plies=4),
                 backend="local", progress=False)
    summary = selfplay(out, games=2, settings=TINY, backend="local", progress=False)
    assert summary["new_games"] == 0


def test_a_node_spread_draws_each_budget_within_it_and_keeps_chunks_deterministic(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``node_spread`` each move searches a budget drawn within that many
    percent of ``nodes`` (seeded by the chunk), so the chunk still plays the same
    games every time; without it every move searches ``nodes``."""
    budgets: list[int] = []
    real_play = Engine.play

    def play(self: Engine, board: damier.Board, limit: Limit) -> Any:
        budgets.append(limit.nodes)
        return real_play(self, board, limit)

    monkeypatch.setattr(Engine, "play", play)
    spread = SelfplaySettings(nodes=200, chunk_games=2, max_plies=40, skip_plies=4, node_spread=25)
    a = play_chunk(spread, 1)
    first = list(budgets)
    assert first and all(150 <= n <= 250 for n in first)
    assert len(set(first)) > len(first) // 2       # drawn, not one value
    budgets.clear()
    b = play_chunk(spread, 1)
    assert budgets == first
    for key in ("white", "black", "kings", "score", "game"):
        assert np.array_equal(a[key], b[key]), key
    budgets.clear()
    play_chunk(SelfplaySettings(nodes=200, chunk_games=2, max_plies=40, skip_plies=4), 1)
    assert budgets and set(budgets) == {200}


def test_a_run_from_before_node_spread_resumes_and_a_bad_spread_is_refused(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    selfplay(out, games=2, settings=TINY, backend="local", progress=False)
    stored = json.loads((out / "selfplay.json").read_text())
    # the settings file of a run begun before the setting existed
    del stored["node_spread"]
    (out / "selfplay.json").write_text(json.dumps(stored))
    assert selfplay(out, games=2, settings=TINY, backend="local",
                    progress=False)["new_games"] == 0
    spread = SelfplaySettings(**dict(TINY.to_dict(), node_spread=10))
    with pytest.raises(TrainError, match="node_spread: 0 there, 10 now"):
        selfplay(out, games=2, settings=spread, backend="local", progress=False)
    for bad in (-1, 101):
        with pytest.raises(TrainError, match=f"--node-spread is a percentage from 0 to 100, "
                                             f"not {bad}"):
            selfplay(tmp_path / "other", games=2, backend="local", progress=False,
                     settings=SelfplaySettings(**dict(TINY.to_dict(), node_spread=bad)))


def _random_positions(n: int, seed: int) -> list[damier.Board]:
    rng = random.Random(seed)
    boards = []
    while len(boards) < n:
        board = damier.Board()
        for _ in range(rng.randrange(4, 90)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.legal_moves and not board.legal_moves[0].captures:
            boards.append(board)
    return boards


def _traces(boards: list[damier.Board]):
    """The boards' feature traces (features, counts, phase, shift), as ``fit`` reads them."""
    sets = np.array([square_sets(b) for b in boards], dtype=np.uint64)
    return trace_arrays(boards[0].variant, sets[:, 0], sets[:, 1], sets[:, 2],
                        sets[:, 3].astype(np.uint8))


def _random_results(boards: list[damier.Board], seed: int) -> Dataset:
    """The boards as games of ten positions each, with random results and no scores."""
    feats, counts, phase, shift = _traces(boards)
    games = np.arange(len(boards)) // 10
    rng = np.random.default_rng(seed)
    return Dataset(boards[0].variant, feats, counts, phase, shift,
                   rng.integers(0, 3, len(boards)) / 2, np.zeros(len(boards)), games,
                   games=int(games.max()) + 1)


def _scored_by_known_weights(boards: list[damier.Board],
                             terms: dict[str, tuple[int, int]]
                             ) -> tuple[Dataset, Weights, Any]:
    """The boards as drawn games of ten positions each, scored by known weights (material
    weights with ``terms`` set, centi-men (opening, endgame)): the data, the weights and
    their evaluation."""
    feats, counts, phase, shift = _traces(boards)
    truth = Weights.material(boards[0].variant)
    for name, (opening, endgame) in terms.items():
        truth.set(name, 8 * opening, 8 * endgame)
    games = np.arange(len(boards)) // 10
    data = Dataset(boards[0].variant, feats, counts, phase, shift, np.full(len(boards), 0.5),
                   np.zeros(len(boards)), games, games=int(games.max()) + 1)
    true_eval = predict(np, np.array(truth.vector, dtype=float), data)
    data.score = true_eval
    return data, truth, true_eval


def test_fit_recovers_known_weights() -> None:
    """Targets made from known weights (score share 1: the target is the sigmoid
    of the known evaluation): the fit's evaluation comes back to the known one
    on positions it was not fitted on, and the material weights with it."""
    boards = _random_positions(3000, seed=2)
    variant = boards[0].variant
    data, _, true_eval = _scored_by_known_weights(boards, {"man": (100, 140),
                                                           "king": (280, 350),
                                                           "advancement": (3, 6),
                                                           "side": (5, 2)})
    start = Weights.material(variant)
    start.set("man", 8 * 60, 8 * 60)
    fitted, history = fit(data, start, FitSettings(epochs=100, batch=512, learning_rate=0.5,
                                                   l2=0.1, score_share=1.0, validation=0.2),
                          progress=False)
    assert history[-1]["validation_loss"] < history[0]["validation_loss"]
    got = predict(np, np.array(fitted.vector, dtype=float), data)
    # Where the sigmoid is not saturated (within 3 men) the evaluation is recovered.
    near = np.abs(true_eval) < 300
    assert near.sum() > 1000
    error = np.abs(got - true_eval)[near].mean()
    assert error < 5.0, error
    man_open, man_end = fitted.get("man")
    # the man's value halfway through the game (the two phases trade off in these positions)
    assert abs((man_open + man_end) / 2 - 960) < 60, fitted.get("man")


def test_fit_reports_the_loss_against_results_and_against_scores_apart() -> None:
    """Each epoch's history has the cross-entropy of the evaluation against the
    games' results alone and against the engine's scores alone, beside the
    blended target's: here (nothing held out, no step taken, so the evaluation is
    the initial one) each is the textbook cross-entropy, computed below from the
    initial weights' evaluation, and the target's loss lies between the two in
    proportion to the score share (cross-entropy is linear in the target)."""
    boards = _random_positions(400, seed=9)
    data, _, _ = _scored_by_known_weights(boards, {"man": (100, 140), "king": (280, 350)})
    data.result = np.where(np.arange(len(boards)) % 3 == 0, 1.0, 0.0)   # results unlike the scores
    initial = Weights.material(data.variant)
    initial.set("man", 8 * 60, 8 * 60)
    ev = predict(np, np.array(initial.vector, dtype=float), data)
    p = 1.0 / (1.0 + np.exp(-ev / 100.0))
    q = 1.0 / (1.0 + np.exp(-data.score / 100.0))

    def xent(t: Any) -> float:
        return float(-(t * np.log(p) + (1 - t) * np.log(1 - p)).mean())

    _, history = fit(data, initial, FitSettings(epochs=1, learning_rate=0.0, score_share=0.25,
                                                validation=0.0), progress=False)
    epoch = history[0]
    assert epoch["validation_result_loss"] == pytest.approx(xent(data.result), abs=2e-6)
    assert epoch["validation_score_loss"] == pytest.approx(xent(q), abs=2e-6)
    assert abs(epoch["validation_result_loss"] - epoch["validation_score_loss"]) > 0.05
    assert epoch["validation_loss"] == pytest.approx(
        0.75 * epoch["validation_result_loss"] + 0.25 * epoch["validation_score_loss"], abs=2e-6)


def _lambda_return_by_sums(values: list[float], result: float, lam: float) -> list[float]:
    """TD(λ)'s return written out as its sum: position t of a game of T positions gets
    (1 - λ) * sum over k = t..T-1 of λ^(k - t) * value_k, plus λ^(T - t) * result."""
    count = len(values)
    return [(1 - lam) * sum(lam ** (k - t) * values[k] for k in range(t, count))
            + lam ** (count - t) * result for t in range(count)]


def test_lambda_returns_are_the_sums_of_td_lambda() -> None:
    """``lambda_returns`` (a backward recurrence over all games at once) gives each
    position the λ-return written out as a sum over its game's later positions;
    lambda 0 gives the values themselves; a game's positions must be stored together."""
    rng = random.Random(4)
    lengths = [1, 7, 2, 30, 5, 1, 12]
    values: list[float] = []
    results: list[float] = []
    game: list[int] = []
    expected: dict[float, list[float]] = {0.3: [], 0.8: [], 0.97: []}
    for number, length in enumerate(lengths):
        own = [rng.random() for _ in range(length)]
        result = rng.choice([0.0, 0.5, 1.0])
        values += own
        results += [result] * length
        game += [10 * number + 3] * length
        for lam in expected:
            expected[lam] += _lambda_return_by_sums(own, result, lam)
    v, r, g = np.array(values), np.array(results), np.array(game)
    for lam, want in expected.items():
        assert lambda_returns(np, v, r, g, lam) == pytest.approx(want, abs=1e-12)
    assert lambda_returns(np, v, r, g, 0.0) == pytest.approx(values, abs=1e-15)
    # the last position of a game of one: half its value, half the result (lambda 0.5)
    assert lambda_returns(np, np.array([0.2]), np.array([1.0]), np.array([5]), 0.5)[0] == 0.6
    assert len(lambda_returns(np, np.zeros(0), np.zeros(0), np.zeros(0, dtype=int), 0.5)) == 0
    with pytest.raises(TrainError, match="not stored together"):
        lambda_returns(np, np.zeros(3), np.zeros(3), np.array([1, 2, 1]), 0.5)


def test_fit_with_td_lambda_targets_the_lambda_returns_of_whole_games() -> None:
    """With ``td_lambda`` the scores' part of the target is their λ-return through the
    game: with no step taken the loss on the target is the cross-entropy against the
    blend of the results and the λ-returns (computed here from the sums); the
    λ-returns of held-out games come from their whole games too."""
    boards = _random_positions(400, seed=11)
    data, _, _ = _scored_by_known_weights(boards, {"man": (100, 140), "king": (280, 350)})
    data.result = (data.game % 3) / 2.0                  # a result for each game of ten
    initial = Weights.material(data.variant)
    initial.set("man", 8 * 60, 8 * 60)
    ev = predict(np, np.array(initial.vector, dtype=float), data)
    p = 1.0 / (1.0 + np.exp(-ev / 100.0))
    q = 1.0 / (1.0 + np.exp(-data.score / 100.0))
    lam = 0.8
    returns = np.zeros(len(boards))
    for number in np.unique(data.game):
        at = np.flatnonzero(data.game == number)
        returns[at] = _lambda_return_by_sums(list(q[at]), float(data.result[at[0]]), lam)
    target = 0.25 * data.result + 0.75 * returns

    def xent(t: Any, keep: Any) -> float:
        return float(-(t * np.log(p) + (1 - t) * np.log(1 - p))[keep].mean())

    everything = np.ones(len(boards), dtype=bool)
    _, history = fit(data, initial, FitSettings(epochs=1, learning_rate=0.0, score_share=0.75,
                                                td_lambda=lam, validation=0.0), progress=False)
    assert history[0]["validation_loss"] == pytest.approx(xent(target, everything), abs=2e-6)
    # the λ-returns are not the scores: the plain blend's loss differs
    assert abs(xent(0.25 * data.result + 0.75 * q, everything)
               - history[0]["validation_loss"]) > 1e-3
    settings = FitSettings(epochs=1, learning_rate=0.0, score_share=0.75, td_lambda=lam,
                           validation=0.3, seed=5, unseen_validation=False)
    _, history = fit(data, initial, settings, progress=False)
    held = np.isin(data.game, np.random.default_rng(5).choice(
        np.unique(data.game), size=int(len(np.unique(data.game)) * 0.3), replace=False))
    assert history[0]["validation_loss"] == pytest.approx(xent(target, held), abs=2e-6)
    # positions left out of training (max_gap) keep the λ-returns of their whole games
    gap = np.abs(data.score - ev) > 40
    assert 0.1 * len(boards) < gap.sum() < 0.9 * len(boards)
    _, history = fit(data, initial, FitSettings(epochs=1, learning_rate=0.0, score_share=0.75,
                                                td_lambda=lam, validation=0.0, max_gap=40),
                     progress=False, stream=io.StringIO())
    assert history[0]["train_loss"] == pytest.approx(xent(target, ~gap), abs=2e-6)


def test_prior_towards_the_initial_weights_keeps_what_the_data_does_not_show() -> None:
    """A pattern state that no position of the data shows: the L2 prior pulls its
    weight to zero by default, and leaves it at its initial value with
    ``prior_initial`` (a refit on new games keeps what they do not show); a state
    the data shows moves either way."""
    boards = _random_positions(400, seed=5)
    variant = boards[0].variant
    feats, counts, phase, shift = _traces(boards)
    layout = eval_layout(variant.index)
    nterms = len(layout["terms"])
    seen = set(feats[counts != 0].ravel().tolist())
    unseen = next(f for f in range(nterms, nterms + 6561) if f not in seen)
    shown = int(feats[0, np.flatnonzero((feats[0] >= nterms) & (feats[0] < nterms + 6561))[0]])
    data = _random_results(boards, seed=3)
    start = Weights.material(variant)
    for f in (unseen, shown):
        start.vector[2 * f] = start.vector[2 * f + 1] = 400
    results = {}
    for centre in (False, True):
        fitted, _ = fit(data, start, FitSettings(epochs=5, batch=64, learning_rate=0.5, l2=0.05,
                                                 score_share=0.0, validation=0.2,
                                                 prior_initial=centre), progress=False)
        results[centre] = fitted
    assert abs(results[False].vector[2 * unseen]) < 100            # pulled towards zero
    assert results[True].vector[2 * unseen] == 400                 # kept
    assert results[True].vector[2 * unseen + 1] == 400
    assert results[True].vector[2 * shown] != 400 or results[True].vector[2 * shown + 1] != 400


def test_fixed_keeps_named_terms_and_whole_tables_at_their_initial_weights() -> None:
    """``fixed`` names terms, whole tables ("material", "patterns", "big") or the side
    to move's weight ("side"): each of their weights stays at its initial value while
    the rest are fitted; an unknown name is an error that lists the names there are."""
    boards = _random_positions(400, seed=11)
    variant = boards[0].variant
    feats, counts, phase, shift = _traces(boards)
    layout = eval_layout(variant.index)
    nterms = len(layout["terms"])
    tables = nterms + int(layout["patterns"]) * int(layout["pattern_states"])
    material = range(tables, tables + int(layout["material_states"]))
    patterns = range(nterms, tables)
    big = range(material.stop, material.stop + int(layout["big_features"]))
    data = _random_results(boards, seed=4)
    start = Weights.material(variant)
    shown = set(feats[counts != 0].ravel().tolist())
    for f in (list(material) + [f for f in patterns if f in shown][:50]
              + [f for f in big if f in shown][:50]):
        start.vector[2 * f] = start.vector[2 * f + 1] = 40
    settings = dict(epochs=3, batch=64, learning_rate=0.5, l2=0.01, score_share=0.0,
                    validation=0.2)

    def changed(fitted: Weights, features: range) -> int:
        return sum(fitted.vector[2 * f + k] != start.vector[2 * f + k]
                   for f in features for k in (0, 1))

    free, _ = fit(data, start, FitSettings(**settings), progress=False)
    assert changed(free, material) > 0 and changed(free, patterns) > 0 and changed(free, big) > 0
    kept, _ = fit(data, start, FitSettings(**settings, fixed=("material", "man")), progress=False)
    assert changed(kept, material) == 0
    assert kept.get("man") == start.get("man")
    assert changed(kept, patterns) > 0
    kept, _ = fit(data, start, FitSettings(**settings, fixed=("patterns",)), progress=False)
    assert changed(kept, patterns) == 0
    assert changed(kept, material) > 0 and changed(kept, big) > 0
    kept, _ = fit(data, start, FitSettings(**settings, fixed=("big",)), progress=False)
    assert changed(kept, big) == 0
    assert changed(kept, patterns) > 0
    kept, _ = fit(data, start, FitSettings(**settings, fixed=("side",)), progress=False)
    assert free.get("side") != start.get("side")
    assert kept.get("side") == start.get("side")
    assert changed(kept, big) > 0
    with pytest.raises(TrainError,
                       match="unknown term 'tempo2'.*tables: patterns, material, big, side"):
        fit(data, start, FitSettings(**settings, fixed=("tempo2",)), progress=False)


def test_max_gap_leaves_out_the_positions_a_static_evaluation_cannot_know() -> None:
    """Positions whose self-play score is far from the initial evaluation (a shot the
    search saw): with ``max_gap`` they are left out of training (the message counts
    them), and the refit stays nearer the evaluation the other positions show."""
    boards = _random_positions(1000, seed=21)
    data, truth, true_eval = _scored_by_known_weights(boards, {"man": (100, 140),
                                                               "advancement": (3, 6)})
    shot = np.random.default_rng(5).random(len(boards)) < 0.15
    data.score = true_eval + 600 * shot             # the deep search saw the shot too
    data.shallow = true_eval + 600 * shot
    settings = dict(epochs=10, batch=256, learning_rate=0.5, l2=0.1, score_share=1.0,
                    validation=0.2)
    errors = {}
    for gap in (0.0, 300.0):
        stream = io.StringIO()
        fitted, _ = fit(data, truth, FitSettings(**settings, max_gap=gap), progress=False,
                        stream=stream)
        got = predict(np, np.array(fitted.vector, dtype=float), data)
        errors[gap] = float(np.abs(got - true_eval)[~shot].mean())
        if gap:
            assert "training positions have a self-play score more than 300" in stream.getvalue()
            left_out = int(stream.getvalue().split("fit: ")[-1].split(" of ")[0])
            # every shot position of the training games, none other (the validation
            # games are a fifth of the 200)
            assert 0.7 * shot.sum() < left_out < shot.sum(), (left_out, shot.sum())
        else:
            assert "self-play score more than" not in stream.getvalue()
    assert errors[300.0] < errors[0.0] / 2, errors


def test_validation_leaves_out_positions_of_training_games() -> None:
    """Every game starts from the same position (as games of one opening do): the
    held-out games' copies of it are left out of the validation loss, since the
    training games have it too; their other positions stay."""
    boards = _random_positions(201, seed=8)
    variant = boards[0].variant
    first, rest = boards[0], boards[1:]
    # 100 games of two positions each: the shared first one, then one of its own.
    order = [b for pair in zip([first] * 100, rest[:100], strict=True) for b in pair]
    feats, counts, phase, shift = _traces(order)
    games = np.arange(len(order)) // 2
    data = Dataset(variant, feats, counts, phase, shift, np.full(len(order), 0.5),
                   np.zeros(len(order)), games, games=100)
    held_out = 20                                   # validation 0.2 of 100 games
    for unseen, expected in ((True, f"{held_out} of {2 * held_out} held-out positions"),
                             (False, None)):
        stream = io.StringIO()
        fit(data, Weights.material(variant), FitSettings(epochs=1, validation=0.2,
                                                          unseen_validation=unseen),
            progress=False, stream=stream)
        if expected:
            assert expected in stream.getvalue(), stream.getvalue()
        else:
            assert "held-out positions" not in stream.getvalue()


def test_rescore_adds_deeper_scores_resumes_and_feeds_the_fit(tmp_path: Path, capsys) -> None:
    """``rescore`` writes one file of scores a chunk (as many as its positions);
    run again it rescores nothing, and a lost file is rescored to the same
    values; ``load_dataset(rescored=...)`` and ``fit --rescored`` use those scores."""
    from damier.train import rescore

    run = tmp_path / "run"
    selfplay(run, games=4, settings=TINY, backend="local", progress=False)
    chunks = sorted(run.glob("chunk-*.npz"))
    # The positions come back as the boards they were stored from.
    for chunk in chunks:
        with np.load(chunk) as data:
            for w, b, k, wtm in zip(data["white"], data["black"], data["kings"],
                                    data["white_to_move"], strict=True):
                board = damier.Board()
                board.set_square_sets(int(w), int(b), int(k), bool(wtm))
                assert square_sets(board) == (int(w), int(b), int(k), bool(wtm))
    first = rescore(run, nodes=300, backend="local", progress=False)
    assert first["chunks"] == first["new_chunks"] == len(chunks)
    files = sorted(run.glob("rescore-300-*.npz"))
    assert len(files) == len(chunks)
    for chunk, extra in zip(chunks, files, strict=True):
        with np.load(chunk) as data, np.load(extra) as deep:
            assert len(deep["score"]) == len(data["score"]) and deep["valid"].any()
    again = rescore(run, nodes=300, backend="local", progress=False)
    assert again["new_chunks"] == 0
    kept = np.load(files[0])["score"].copy()
    files[0].unlink()
    assert rescore(run, nodes=300, backend="local", progress=False)["new_chunks"] == 1
    assert np.array_equal(np.load(files[0])["score"], kept)
    data = load_dataset([run], rescored=300)
    deep = np.concatenate([np.load(f)["score"][np.load(f)["valid"].astype(bool)] for f in files])
    assert np.array_equal(data.score, deep.astype(np.float64))
    weights = tmp_path / "w.bin"
    assert main(["fit", str(run), "--rescored", "300", "--out", str(weights), "--epochs", "1",
                 "--no-progress"]) == 0
    assert json.loads((tmp_path / "w.manifest.json").read_text())["rescored"] == 300
    assert main(["fit", str(run), "--rescored", "999", "--out", str(weights)]) == 2
    assert "damier train rescore" in capsys.readouterr().err
    # Deeper scores for a part of the data: each chunk takes the first node count it has.
    rescore(run, nodes=3000, backend="local", progress=False)
    other = tmp_path / "other"
    shutil.copytree(run, other)
    for path in other.glob("rescore-3000-*.npz"):
        path.unlink()

    def scores(paths: list[Path]) -> Any:
        return np.concatenate([np.load(f)["score"][np.load(f)["valid"].astype(bool)]
                               for f in paths]).astype(np.float64)

    deeper = scores(sorted(run.glob("rescore-3000-*.npz")))
    assert not np.array_equal(deeper, data.score)
    mixed = load_dataset([run, other], rescored=[3000, 300])
    assert np.array_equal(mixed.score, np.concatenate([deeper, data.score]))
    assert main(["fit", str(run), "--rescored", "3000,300", "--out", str(weights), "--epochs",
                 "1", "--no-progress"]) == 0
    assert json.loads((tmp_path / "w.manifest.json").read_text())["rescored"] == [3000, 300]
    for bad in ("x", "300,", "0"):
        with pytest.raises(SystemExit):
            main(["fit", str(run), "--rescored", bad, "--out", str(weights)])
        assert "node counts must be positive whole numbers" in capsys.readouterr().err
    assert main(["rescore", str(tmp_path / "nothing"), "--nodes", "10"]) == 2


def test_rescore_searches_each_position_of_a_run_once(tmp_path: Path, capsys) -> None:
    """A position that occurred before in the run (in chunk order) is left out
    of the rescoring: ``repeat`` 1 and ``valid`` 0; ``--repeats`` searches all."""
    from damier.train import rescore

    run = tmp_path / "run"
    selfplay(run, games=4, settings=TINY, backend="local", progress=False)
    shutil.copy(run / "chunk-000000.npz", run / "chunk-000009.npz")  # all of it repeats
    again = tmp_path / "again"
    shutil.copytree(run, again)
    assert main(["rescore", str(run), "--nodes", "200", "--backend", "local",
                 "--no-progress"]) == 0
    assert "repeats left out" in capsys.readouterr().err
    seen: set[tuple[int, int, int, int]] = set()
    repeats = 0
    for chunk in sorted(run.glob("chunk-*.npz")):
        with np.load(chunk) as data, \
                np.load(run / f"rescore-200-{chunk.stem.split('-')[1]}.npz") as deep:
            keys = zip(data["white"].tolist(), data["black"].tolist(), data["kings"].tolist(),
                       data["white_to_move"].tolist(), strict=True)
            for key, repeat, valid in zip(keys, deep["repeat"], deep["valid"], strict=True):
                assert bool(repeat) == (key in seen), key
                assert not (repeat and valid)
                repeats += int(repeat)
                seen.add(key)
    with np.load(run / "rescore-200-000009.npz") as copy:
        assert copy["repeat"].all() and not copy["valid"].any()
    assert repeats >= len(np.load(run / "chunk-000009.npz")["game"])
    # with --repeats every position is searched: the copy scores as its original
    summary = rescore(again, nodes=200, backend="local", progress=False, repeats=True)
    assert summary["repeats"] == 0
    with np.load(again / "rescore-200-000009.npz") as copy, \
            np.load(again / "rescore-200-000000.npz") as original:
        assert not copy["repeat"].any()
        assert np.array_equal(copy["score"], original["score"])
        assert np.array_equal(copy["valid"], original["valid"]) and copy["valid"].any()


def test_rescore_split_by_chunk_ranges_equals_one_pass(tmp_path: Path, capsys) -> None:
    """Two copies of a run, each rescoring a range of its chunks (as two machines
    with no Ray cluster between them would), give, put together, the files of one
    pass over the whole run: the same scores and the same repeat marks (decided on
    the whole run, so the second range leaves out what the first range has)."""
    from damier.train import rescore

    run = tmp_path / "run"
    selfplay(run, games=6, settings=TINY, backend="local", progress=False)
    shutil.copy(run / "chunk-000000.npz", run / "chunk-000005.npz")  # all of it repeats
    chunks = sorted(int(p.stem.split("-")[1]) for p in run.glob("chunk-*.npz"))
    assert len(chunks) >= 3
    split = chunks[len(chunks) // 2]
    parts = []
    for n, (first, last) in enumerate(((0, split - 1), (split, chunks[-1]))):
        part = tmp_path / f"part{n}"
        shutil.copytree(run, part)
        assert main(["rescore", str(part), "--nodes", "200", "--backend", "local",
                     "--chunks", f"{first}-{last}", "--no-progress"]) == 0
        done = sorted(int(p.stem.split("-")[2]) for p in part.glob("rescore-200-*.npz"))
        assert done == [c for c in chunks if first <= c <= last]
        assert f"rescore: {len(done)} chunks" in capsys.readouterr().err
        parts.append(part)
    rescore(run, nodes=200, backend="local", progress=False)
    for chunk in chunks:
        name = f"rescore-200-{chunk:06d}.npz"
        part = parts[0] if chunk < split else parts[1]
        with np.load(run / name) as whole, np.load(part / name) as piece:
            for key in ("score", "valid", "repeat"):
                assert np.array_equal(whole[key], piece[key]), (chunk, key)
    with np.load(run / "rescore-200-000005.npz") as copy:
        assert copy["repeat"].all()
    # a range already done resumes to nothing; ranges with no chunk or the wrong
    # way round are refused with a clear message
    again = rescore(parts[0], nodes=200, backend="local", progress=False, chunks=(0, split - 1))
    assert again["new_chunks"] == 0 and again["chunks"] == split
    assert main(["rescore", str(run), "--nodes", "200", "--chunks", "50-60"]) == 2
    assert f"no chunk in 50-60 (the run has chunks 0-{chunks[-1]})" in capsys.readouterr().err
    for bad in ("3-1", "x-2", "4", "-1-2", "1-"):
        with pytest.raises(SystemExit):
            main(["rescore", str(run), "--nodes", "200", f"--chunks={bad}"])
        assert "a chunk range is FIRST-LAST" in capsys.readouterr().err


def test_fit_command_writes_usable_weights(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    selfplay(out, games=4, settings=TINY, backend="local", progress=False)
    weights = tmp_path / "w.bin"
    assert main(["fit", str(out), "--out", str(weights), "--epochs", "2", "--no-progress"]) == 0
    manifest = json.loads((tmp_path / "w.manifest.json").read_text())
    assert manifest["games"] == 4 and len(manifest["epochs"]) == 2
    assert all("validation_loss" in e for e in manifest["epochs"])
    engine = Engine(hash_mb=8, weights=weights)
    assert engine.play(damier.Board(), Limit(depth=3)).move in damier.Board().legal_moves
    # bad input: a clear message, no traceback
    assert main(["fit", str(tmp_path / "nothing"), "--out", str(weights)]) == 2
    assert "not a self-play directory" in capsys.readouterr().err
    assert main(["fit", str(out), "--out", str(weights),
                 "--initial", str(tmp_path / "none.bin")]) == 2
    assert "cannot read weights file" in capsys.readouterr().err
    for bad in ("1", "-0.1", "nan"):
        assert main(["fit", str(out), "--out", str(weights), "--td-lambda", bad]) == 2
        assert "--td-lambda must be in [0, 1)" in capsys.readouterr().err
    assert main(["fit", str(out), "--out", str(weights), "--epochs", "1", "--no-progress",
                 "--td-lambda", "0.9", "--score-share", "0.75"]) == 0
    settings = json.loads((tmp_path / "w.manifest.json").read_text())["settings"]
    assert settings["td_lambda"] == 0.9 and settings["score_share"] == 0.75
