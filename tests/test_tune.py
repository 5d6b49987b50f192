"""SPSA tuning (damier.tune, ``damier train tune``): the gains of Spall's schedule, the
direction of the steps on a known objective, the bounds, the state file and its resumption,
and the command on real (tiny) games."""

from __future__ import annotations

import io
import json
import math
import random
import re
from pathlib import Path

import pytest

from damier.cli.train import main
from damier.tune import (Schedule, StepResult, TuneError, TuneParam, TuneSettings, Tuner,
                         engine_values, parse_params, tunable_settings)

OPENINGS = [["32-28", "18-23"], ["33-29", "17-21"], ["31-27", "19-24"]]


def settings(pairs: int = 200, batch: int = 2, seed: int = 5) -> TuneSettings:
    params = (TuneParam("probcut_margin", 100, 20, 300, 12, 0.05, True),
              TuneParam("lmr_divisor", 1.5, 0.8, 4.0, 0.15, 0.05, False))
    return TuneSettings(params=params, pairs=pairs, batch=batch, nodes=1000, seed=seed)


class Objective:
    """A fake match: each game is won by the engine whose settings are nearer the
    hidden optimum (in units of each parameter's scale) with probability growing with
    the difference, else drawn; seeded, so a run can be replayed."""

    def __init__(self, optimum: dict[str, float], scale: dict[str, float], seed: int = 0) -> None:
        self.optimum = optimum
        self.scale = scale
        self.seed = seed
        self.calls: list[tuple[dict[str, int | float], dict[str, int | float]]] = []

    def loss(self, values: dict[str, int | float]) -> float:
        return sum(((values[k] - v) / self.scale[k]) ** 2 for k, v in self.optimum.items())

    def __call__(self, plus: dict[str, int | float], minus: dict[str, int | float],
                 openings: list[list[str]], seed: int) -> StepResult:
        self.calls.append((plus, minus))
        rng = random.Random(f"{self.seed}:{seed}")
        edge = math.tanh(self.loss(minus) - self.loss(plus))   # > 0: plus is better
        wins = draws = losses = 0
        for _ in range(2 * len(openings)):
            u = rng.random()
            if u < 0.3 * max(edge, 0) + 0.05:
                wins += 1
            elif u < 0.3 * abs(edge) + 0.1:
                losses += 1
            else:
                draws += 1
        return StepResult(wins, draws, losses)


def test_spalls_gains_reach_the_end_values_and_shrink() -> None:
    p = TuneParam("probcut_margin", 100, 20, 300, 12, 0.05, True)
    s = Schedule(pairs=1000)
    # c_k = c / (k+1)^0.101 with c = c_end * N^0.101; a_k = a / (A+k+1)^0.602, A = N/10
    assert s.c_k(p, 1000) == pytest.approx(12 * (1000 / 1001) ** 0.101)
    assert s.c_k(p, 0) == pytest.approx(12 * 1000 ** 0.101)
    a = 0.05 * 12 ** 2 * 1100 ** 0.602
    assert s.r_k(p, 0) == pytest.approx(a / 101 ** 0.602 / s.c_k(p, 0) ** 2)
    assert s.r_k(p, 999) == pytest.approx(0.05, rel=1e-3)
    # the step a game won moves the value: r_end * c_end at the end, larger before
    steps = [s.r_k(p, k) * s.c_k(p, k) for k in (100, 300, 600, 999)]
    assert steps == sorted(steps, reverse=True)
    assert steps[-1] == pytest.approx(0.05 * 12, rel=1e-3) and steps[0] > 1.5 * steps[-1]


def test_the_engines_are_perturbed_both_ways_inside_the_bounds() -> None:
    params = settings().params
    assert engine_values(params, [100.4, 1.5], [1, -1], [10.0, 0.1]) == {
        "probcut_margin": 110, "lmr_divisor": 1.4}
    assert engine_values(params, [295.0, 0.85], [1, -1], [12.0, 0.15]) == {
        "probcut_margin": 300, "lmr_divisor": 0.8}
    # the signs of a step follow from the seed and the step alone (a resumed tune
    # replays them), and differ from step to step
    tuner = Tuner(Path("unused.json"), settings(), [100.0, 1.5])
    signs = [tuner.signs(k) for k in range(0, 40, 2)]
    assert all(set(x) <= {-1, 1} for x in signs) and len({tuple(x) for x in signs}) == 4
    assert signs == [Tuner(Path("other.json"), settings(), [0.0, 0.0]).signs(k)
                     for k in range(0, 40, 2)]
    assert signs != [Tuner(Path("u.json"), settings(seed=6), [0.0, 0.0]).signs(k)
                     for k in range(0, 40, 2)]


def test_the_tune_walks_towards_a_known_optimum(tmp_path: Path) -> None:
    # the optimum is far from the start in both parameters; a sign error in the update
    # would walk away from it
    objective = Objective({"probcut_margin": 180, "lmr_divisor": 2.4},
                          {"probcut_margin": 60, "lmr_divisor": 0.6})
    tuner = Tuner.open(tmp_path / "t.json", settings(pairs=600))
    tuner.run(objective, OPENINGS)
    assert tuner.done and tuner.k == 600
    margin, divisor = tuner.theta
    assert abs(margin - 180) < 0.5 * abs(100 - 180), margin
    assert abs(divisor - 2.4) < 0.5 * abs(1.5 - 2.4), divisor
    # each step played theta + c and theta - c against each other, c = c_k of its pairs
    plus, minus = objective.calls[0]
    c0 = Schedule(600).c_k(settings().params[0], 0)
    assert abs(plus["probcut_margin"] - minus["probcut_margin"]) == pytest.approx(2 * c0, abs=1)
    assert tuner.wins + tuner.draws + tuner.losses == 1200


def test_an_interrupted_tune_resumes_to_the_same_values(tmp_path: Path) -> None:
    def fresh() -> Objective:
        return Objective({"probcut_margin": 150, "lmr_divisor": 2.0},
                         {"probcut_margin": 60, "lmr_divisor": 0.6}, seed=3)

    whole = Tuner.open(tmp_path / "whole.json", settings(pairs=40))
    whole.run(fresh(), OPENINGS)

    objective = fresh()
    steps = 0

    def interrupted(plus, minus, openings, seed):  # type: ignore[no-untyped-def]
        nonlocal steps
        steps += 1
        if steps == 8:
            raise KeyboardInterrupt
        return objective(plus, minus, openings, seed)

    path = tmp_path / "parts.json"
    first = Tuner.open(path, settings(pairs=40))
    with pytest.raises(KeyboardInterrupt):
        first.run(interrupted, OPENINGS)
    assert first.k == 14                       # 7 steps of 2 pairs saved, the 8th not
    saved = json.loads(path.read_text())
    assert saved["k"] == 14 and len(saved["history"]) == 7
    resumed = Tuner.open(path, settings(pairs=40))
    assert resumed.k == 14 and resumed.theta == first.theta
    resumed.run(fresh(), OPENINGS)
    assert resumed.k == 40
    assert resumed.theta == pytest.approx(whole.theta)
    assert (resumed.wins, resumed.draws, resumed.losses) == (whole.wins, whole.draws,
                                                              whole.losses)


def test_a_state_file_of_other_settings_or_garbage_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    Tuner.open(path, settings(pairs=10)).run(
        Objective({"probcut_margin": 100, "lmr_divisor": 1.5},
                  {"probcut_margin": 60, "lmr_divisor": 0.6}), OPENINGS)
    with pytest.raises(TuneError, match="other settings.*pairs"):
        Tuner.open(path, settings(pairs=20))
    with pytest.raises(TuneError, match="other settings.*seed"):
        Tuner.open(path, settings(pairs=10, seed=6))
    assert Tuner.open(path, None).k == 10
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(TuneError, match="not a readable tune state file"):
        Tuner.open(bad, settings())
    for text in ("[]", "null", json.dumps({"version": 1, "settings": {}})):
        bad.write_text(text)
        with pytest.raises(TuneError, match="not a readable tune state file"):
            Tuner.open(bad, None)
    edited = json.loads(path.read_text())
    edited["settings"]["params"][0]["start"] = 1000           # outside its bounds
    bad.write_text(json.dumps(edited))
    with pytest.raises(TuneError, match="the start 1000 is outside"):
        Tuner.open(bad, None)
    bad.write_text(json.dumps({"version": 99}))
    with pytest.raises(TuneError, match="not a tune state file of this version"):
        Tuner.open(bad, settings())
    with pytest.raises(TuneError, match="does not exist"):
        Tuner.open(tmp_path / "none.json", None)
    with pytest.raises(TuneError, match="its directory .* does not exist"):
        Tuner.open(tmp_path / "no" / "t.json", settings())
    with pytest.raises(TuneError, match="not a readable tune state file"):
        Tuner.open(tmp_path, settings())                 # a directory


def test_a_step_that_did_not_play_its_games_is_not_counted(tmp_path: Path) -> None:
    tuner = Tuner.open(tmp_path / "t.json", settings(pairs=10))
    with pytest.raises(TuneError, match="4 games expected, 3 played"):
        tuner.step(lambda *args: StepResult(1, 1, 1), OPENINGS)
    assert tuner.k == 0 and not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("text, message", [
    ("probcut=1,0,1,1", "'probcut' is not a numeric selectivity setting"),
    ("nonsense", "'nonsense' is not a numeric selectivity setting"),
    ("lmr_move=2,1,8", "4 or 5 finite numbers"),
    ("lmr_move=2,1,8,x", "numbers"),
    ("lmr_move=2,1,8,nan", "4 or 5 finite numbers"),
    ("lmr_move=9,1,8,1", "the start 9 is outside 1..8"),
    ("lmr_move=2,8,1,1", "outside"),
    ("lmr_move=2,1,8,0.3", "needs c_end >= 0.5"),
    ("lmr_move=2,1,8,1,-1", "must be > 0"),
    ("lmr_move=2,1,3,2", "too large for the bounds"),
    ("rfp_margin", "no default range"),
    ("eval.queen.open", "no evaluation term 'queen'"),
    ("eval.king.middle", "eval.TERM.open or eval.TERM.end"),
    ("eval.king", "eval.TERM.open or eval.TERM.end"),
    ("eval.king.end", "no weights to start from"),
    ("eval.king.end=2400,-40000,3000,100", "within -32767..32767"),
    ("eval.scale.queens.open", "no table 'queens' to scale; the tables are: areas, material, big"),
    ("eval.scale.big.middle", "eval.TERM.open or eval.TERM.end"),
])
def test_bad_parameters_are_named(text: str, message: str) -> None:
    with pytest.raises(TuneError, match=message):
        parse_params([text])


def test_parameters_are_the_engines_numeric_settings() -> None:
    tunable = tunable_settings()
    assert isinstance(tunable["lmr_divisor"], float) and isinstance(tunable["lmr_move"], int)
    assert not any(isinstance(v, bool) for v in tunable.values())
    default = parse_params([])
    assert all(p.start == tunable[p.name] for p in default)
    integer = {p.name: p.integer for p in default}
    assert not integer["lmr_divisor"] and integer["lmr_move"]
    with pytest.raises(TuneError, match="named twice"):
        parse_params(["lmr_move", "lmr_move"])


def test_the_command_tunes_on_real_games_and_resumes(tmp_path: Path) -> None:
    state = tmp_path / "tune.json"
    args = ["tune", str(state), "--param", "probcut_margin", "--param", "lmr_divisor=1.5,1,3,0.2",
            "--pairs", "2", "--batch", "1", "--nodes", "300", "--hash", "1", "--no-progress"]
    out, err = io.StringIO(), io.StringIO()
    assert main(args, out=out, err=err) == 0, err.getvalue()
    text = out.getvalue()
    assert "tune: 2 pairs" in text
    rows = {line.split()[0]: line.split() for line in text.splitlines()[1:4]}
    assert rows["pairs"] == ["pairs", "0", "1", "2"]           # the values after each pair
    assert rows["probcut_margin"][:2] == ["probcut_margin", "80"]     # the engine's default
    assert rows["probcut_margin"][-2] == "->" and rows["lmr_divisor"][1] == "1.5"
    assert 'damier match "damier:probcut_margin=' in text and "--sprt 0 10" in text
    data = json.loads(state.read_text())
    assert data["k"] == 2 and data["wins"] + data["draws"] + data["losses"] == 4
    assert len(data["history"]) == 2
    # run again: nothing left to play, the same values printed
    out2 = io.StringIO()
    assert main(args, out=out2, err=io.StringIO()) == 0
    assert out2.getvalue() == text
    # other settings for the same file: refused, with a message and no traceback
    err3 = io.StringIO()
    other = [("400" if a == "300" else a) for a in args]
    assert main(other, out=io.StringIO(), err=err3) == 2
    assert "other settings (nodes)" in err3.getvalue() and "Traceback" not in err3.getvalue()


def test_the_command_names_bad_settings(tmp_path: Path) -> None:
    for extra, message in [(["--param", "probcut=1,0,1,1"], "not a numeric selectivity"),
                           (["--pairs", "0"], "pairs and batch must be at least 1"),
                           (["--concurrency", "0"], "--concurrency must be at least 1"),
                           (["--movetime", "-1"], "movetime must be")]:
        err = io.StringIO()
        assert main(["tune", str(tmp_path / "t.json"), *extra], out=io.StringIO(), err=err) == 2
        assert message in err.getvalue() and err.getvalue().count("\n") == 1
        assert not (tmp_path / "t.json").exists()


def test_the_command_plays_its_pairs_on_ray_like_in_process(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    monkeypatch.setenv("RAY_DISABLE_USAGE_STATS", "1")
    common = ["--param", "probcut_margin", "--pairs", "2", "--batch", "2", "--nodes", "300",
              "--hash", "1", "--no-progress"]
    assert main(["tune", str(tmp_path / "here.json"), *common], out=io.StringIO(),
                err=io.StringIO()) == 0
    err = io.StringIO()
    assert main(["tune", str(tmp_path / "ray.json"), *common, "--workers", "2"],
                out=io.StringIO(), err=err) == 0, err.getvalue()
    here = json.loads((tmp_path / "here.json").read_text())
    there = json.loads((tmp_path / "ray.json").read_text())
    # fixed nodes a move: the same games, so the same steps
    assert there["history"] == here["history"] and there["wins"] == here["wins"]
    import ray

    assert not ray.is_initialized()                    # the command stopped the Ray it started


def test_the_default_ranges_start_where_the_reductions_begin_to_act() -> None:
    # below lmr_depth 3 and lmr_move 2 the late-move reductions search the very same tree
    # (a reduction leaves at least a ply; the log table reduces neither of the first two
    # moves), so the default set's ranges start there
    import damier
    from damier.engine import Engine

    board = damier.Board("W:W27,28,31,32,33,34,36,37,38,39,41,43,44,45,47,48:"
                         "B3,5,6,7,8,9,11,12,13,14,16,17,18,19,22,23")

    def nodes(**selectivity: int) -> int:
        engine = Engine(hash_mb=4, selectivity=selectivity)
        return engine.search(board, depth=8).nodes

    default = nodes()
    assert nodes(lmr_depth=1) == nodes(lmr_depth=2) == default
    assert nodes(lmr_move=1) == default
    assert nodes(lmr_depth=4) != default and nodes(lmr_move=3) != default
    ranges = {p.name: (p.low, p.start) for p in parse_params([])}
    assert ranges["lmr_depth"] == (3, 3) and ranges["lmr_move"] == (2, 2)


def test_fixed_engine_options_reach_both_engines(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import damier.match
    from damier.match.players import parse_engine_spec

    real = damier.match.run_match
    specs: list[tuple[str, str]] = []

    def spy(a: str, b: str, **kwargs: object) -> object:
        specs.append((a, b))
        return real(a, b, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(damier.match, "run_match", spy)
    out, err = io.StringIO(), io.StringIO()
    args = ["tune", str(tmp_path / "t.json"), "--param", "probcut_margin", "--pairs", "1",
            "--nodes", "300", "--hash", "1", "--engine", "cont_history=1, lmp=2",
            "--no-progress"]
    assert main(args, out=out, err=err) == 0, err.getvalue()
    assert len(specs) == 1
    plus, minus = (parse_engine_spec(s).option_map for s in specs[0])
    for options in (plus, minus):
        assert options["cont_history"] == 1 and options["lmp"] == 2
        assert options["nodes"] == 300 and options["hash"] == 1
    assert plus["probcut_margin"] != minus["probcut_margin"]       # only these differ
    assert {k for k in plus if plus[k] != minus[k]} == {"name", "probcut_margin"}
    # the match it proposes keeps the fixed options on both sides
    command = out.getvalue().splitlines()[-1]
    assert '"damier:cont_history=1, lmp=2,probcut_margin=' in command
    assert '"damier:cont_history=1, lmp=2,name=default"' in command
    # the state keeps them: other options for the same file are refused
    err2 = io.StringIO()
    other = [("cont_history=2" if a.startswith("cont_history") else a) for a in args]
    assert main(other, out=io.StringIO(), err=err2) == 2
    assert "other settings (engine)" in err2.getvalue()


def test_a_state_file_from_before_the_engine_options_resumes(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    Tuner.open(path, settings(pairs=4)).step(
        Objective({"probcut_margin": 100, "lmr_divisor": 1.5},
                  {"probcut_margin": 60, "lmr_divisor": 0.6}), OPENINGS)
    data = json.loads(path.read_text())
    assert data["settings"]["engine"] == ""
    del data["settings"]["engine"]                      # as the first tunes wrote it
    path.write_text(json.dumps(data))
    tuner = Tuner.open(path, settings(pairs=4))
    assert tuner.k == 2 and tuner.settings.engine == ""


@pytest.mark.parametrize("engine, message", [
    ("probcut_margin=90", "--engine sets probcut_margin, a tuned parameter"),
    ("name=x", "--engine sets name, which the tune sets itself"),
    ("nodes=5", "--engine sets nodes, which the tune sets itself"),
    ("cont_history=3", "option cont_history must be between 0 and 2"),
    ("frobnicate=1", "unknown option 'frobnicate'"),
    ("hash=4", "--hash and --engine hash=... both set the hash table"),
])
def test_the_command_refuses_bad_engine_options(tmp_path: Path, engine: str,
                                                message: str) -> None:
    err = io.StringIO()
    args = ["tune", str(tmp_path / "t.json"), "--param", "probcut_margin", "--pairs", "1",
            "--nodes", "300", "--hash", "1", "--engine", engine]
    assert main(args, out=io.StringIO(), err=err) == 2
    assert message in err.getvalue() and err.getvalue().count("\n") == 1, err.getvalue()
    assert not (tmp_path / "t.json").exists()


DATA = Path(__file__).parent / "data"


def test_eval_weights_move_one_weight_of_the_engines_weights() -> None:
    from damier.evalfile import Weights
    from damier.tune import eval_weights, eval_value

    base = Weights.read(DATA / "eval_international_round5.bin")
    moved = eval_weights(base, {"eval.king.end": 2500, "eval.man.open": 760,
                                "probcut_margin": 90})
    assert moved.get("king") == (base.get("king")[0], 2500)
    assert moved.get("man") == (760, base.get("man")[1])
    assert eval_value(moved, "eval.king.end") == 2500
    changed = [i for i, (a, b) in enumerate(zip(base.vector, moved.vector, strict=True)) if a != b]
    assert len(changed) == 2                       # nothing else moved
    assert base.get("king")[1] != 2500             # and the base is left as it was


def test_the_side_to_moves_weight_is_a_parameter_too() -> None:
    from damier.evalfile import Weights
    from damier.tune import eval_value, eval_weights

    base = Weights.read(DATA / "eval_international_round5.bin")
    (side,) = parse_params(["eval.side.end=100,0,300,20"])
    assert (side.start, side.low, side.high) == (100, 0, 300)
    moved = eval_weights(base, {"eval.side.open": base.get("side")[0] + 40})
    assert moved.get("side") == (base.get("side")[0] + 40, base.get("side")[1])
    assert eval_value(moved, "eval.side.open") == base.get("side")[0] + 40
    changed = [i for i, (a, b) in enumerate(zip(base.vector, moved.vector, strict=True)) if a != b]
    assert len(changed) == 1                       # one weight: the side to move's
    # starting from the engine's weights when no start is given
    with pytest.raises(TuneError, match="no weights to start from"):
        parse_params(["eval.side.open"])


def test_a_tables_scale_multiplies_that_table_and_part_only() -> None:
    from damier._core import eval_layout
    from damier.evalfile import Weights
    from damier.tune import _table_spans, eval_value, eval_weights

    base = Weights.read(DATA / "eval_international_round5.bin")
    layout = eval_layout(base.variant.index)
    terms, areas = len(layout["terms"]), layout["patterns"] * layout["pattern_states"]
    material = layout["material_states"]
    assert _table_spans(base.variant.index) == {
        "areas": (terms, areas), "material": (terms + areas, material),
        "big": (terms + areas + material, layout["big_features"])}
    assert eval_value(base, "eval.scale.areas.open") == 100
    moved = eval_weights(base, {"eval.scale.areas.open": 150, "eval.scale.material.end": 0,
                                "eval.man.open": 700})
    old, new = base.vector, moved.vector
    for f in range(layout["features"]):
        for part in (0, 1):
            a, b = old[2 * f + part], new[2 * f + part]
            if terms <= f < terms + areas and part == 0:
                assert b == max(-32767, min(32767, round(a * 1.5))), (f, a, b)
            elif terms + areas <= f < terms + areas + material and part == 1:
                assert b == 0
            elif f == 0 and part == 0:
                assert b == 700                             # the man's opening weight
            else:
                assert a == b, (f, part)
    assert any(old[2 * f] for f in range(terms, terms + areas))     # something was scaled
    assert any(old[2 * f + 1] for f in range(terms + areas, terms + areas + material))
    # scales start from the base each time: 150 then 100 gives the base back
    assert eval_weights(base, {"eval.scale.areas.open": 100}).vector == old


def test_a_tables_scale_without_numpy_gives_the_same_weights(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from damier.evalfile import Weights
    from damier.tune import eval_weights

    base = Weights.read(DATA / "eval_international_round5.bin")
    values = {"eval.scale.areas.end": 73, "eval.scale.material.open": 121}
    with_numpy = eval_weights(base, values)
    monkeypatch.setitem(sys.modules, "numpy", None)     # import numpy fails
    assert eval_weights(base, values) == with_numpy != base


def test_a_tables_scale_has_a_default_range() -> None:
    (scale,) = parse_params(["eval.scale.big.end"], eval_start=lambda name: 100)
    assert (scale.start, scale.low, scale.high, scale.c_end, scale.integer) == (
        100, 50, 150, 5, True)


def test_eval_weights_reach_each_engine_through_its_own_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import damier.match
    from damier.evalfile import Weights
    from damier.match.players import parse_engine_spec

    real = damier.match.run_match
    seen: list[tuple[dict[str, object], dict[str, object], Weights, Weights]] = []

    def spy(a: str, b: str, **kwargs: object) -> object:
        plus, minus = (parse_engine_spec(s).option_map for s in (a, b))
        # read now: the next step writes the files again
        seen.append((plus, minus, Weights.read(str(plus["weights"])),
                     Weights.read(str(minus["weights"]))))
        return real(a, b, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(damier.match, "run_match", spy)
    base_file = DATA / "eval_international_round5.bin"
    base = Weights.read(base_file)
    state = tmp_path / "t.json"
    out, err = io.StringIO(), io.StringIO()
    args = ["tune", str(state), "--param", "eval.king.end", "--param",
            "eval.king_mobility.open=150,100,400,10", "--param", "probcut_margin", "--pairs", "2",
            "--batch", "1", "--nodes", "300", "--hash", "1", "--engine",
            f"weights={base_file},lmp=2", "--no-progress"]
    assert main(args, out=out, err=err) == 0, err.getvalue()
    assert len(seen) == 2
    tuner = Tuner.open(state, None)
    king = next(p for p in tuner.settings.params if p.name == "eval.king.end")
    assert king.start == base.get("king")[1]       # from --engine weights=, not the shipped
    for plus, minus, wplus, wminus in seen:
        assert plus["weights"] != minus["weights"] and plus["lmp"] == minus["lmp"] == 2
        assert plus["probcut_margin"] != minus["probcut_margin"]
        assert wplus.get("king")[1] != wminus.get("king")[1]
        assert wplus.get("king_mobility")[0] != wminus.get("king_mobility")[0]
        # the opening halves and every other weight are the base file's
        assert wplus.get("king")[0] == wminus.get("king")[0] == base.get("king")[0]
        changed = [i for i, (a, b) in enumerate(zip(wplus.vector, base.vector, strict=True))
                   if a != b]
        assert len(changed) == 2
    # the first step's engines sit either side of the start, by the same amount
    plus, minus, wplus, wminus = seen[0]
    assert wplus.get("king")[1] + wminus.get("king")[1] == 2 * king.start
    # the end: the tuned weights in a file, the step files gone, a match to confirm
    tuned = Weights.read(tmp_path / "t.tuned.bin")
    values = tuner.values()
    assert tuned.get("king")[1] == values["eval.king.end"]
    assert tuned.get("king_mobility")[0] == values["eval.king_mobility.open"]
    assert not (tmp_path / "plus.bin").exists() and not (tmp_path / "minus.bin").exists()
    # the trajectory's columns line up under the header, a name longer than 20 letters too
    table = out.getvalue().splitlines()[1:5]
    assert [line.split()[0] for line in table] == ["pairs", "eval.king.end",
                                                    "eval.king_mobility.open", "probcut_margin"]
    ends = [[m.end() for m in re.finditer(r"\S+", line)][1:4] for line in table]
    assert ends[1:] == [ends[0]] * 3, table
    command = out.getvalue().splitlines()[-1]
    assert f"lmp=2,probcut_margin={values['probcut_margin']},weights={tmp_path / 't.tuned.bin'}," \
        in command
    assert f'"damier:weights={base_file},lmp=2,name=default"' in command


def test_eval_weights_are_not_tuned_on_a_ray_cluster() -> None:
    from damier.tune import match_play_pairs

    params = tuple(parse_params(["eval.king.end=2400,1200,3600,100"]))
    tune = TuneSettings(params, pairs=2, nodes=300)
    with pytest.raises(TuneError, match="not on a Ray cluster"):
        match_play_pairs(tune, address="127.0.0.1:6379")
    with pytest.raises(TuneError, match="give a directory"):
        match_play_pairs(tune)
