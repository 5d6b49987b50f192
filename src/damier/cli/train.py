"""``damier train``: the command line of :mod:`damier.train` (self-play, rescoring, the
fit and the gate), its arguments, its printing and the manifest of a fit.

    damier train selfplay runs/r1 --games 1000 --nodes 4000
    damier train fit runs/r1 --out fit.bin
    damier train gate fit.bin --movetime 0.1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from damier import train as _train
from damier import tune as _tune
from damier.cli.match import add_adjudication_arguments, adjudication_of
from damier.evalfile import Weights, WeightsFileError, shipped_weights
from damier.openings import pair_openings
from damier.progress import ProgressBar
from damier.train import (FitSettings, RescoreSettings, SelfplaySettings, TrainError, fit, gate,
                          load_dataset, rescore, selfplay)
from damier.variants import DEFAULT_VARIANT, get_variant

__all__ = ["add_train_parser", "build_parser", "main", "run"]

_TITLE = (_train.__doc__ or "damier train").split("\n\n")[0]


def add_train_parser(sub: Any) -> None:
    """Adds ``damier train`` to the ``damier`` command line's subparsers."""
    p = sub.add_parser("train", help="train the evaluation: self-play, fit, gate",
                       description=_TITLE)
    build_parser(p)


def build_parser(p: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    p = p or argparse.ArgumentParser(prog="damier train", description=_TITLE)
    sub = p.add_subparsers(dest="train_command", metavar="STEP", required=True)
    s = sub.add_parser("selfplay", help="play self-play games into a directory (resumable)")
    s.add_argument("out", help="directory of the run (created; resumed when it exists)")
    s.add_argument("--variant", default=DEFAULT_VARIANT)
    s.add_argument("--games", type=int, default=1000, help="games in the run (default 1000)")
    s.add_argument("--nodes", type=int, default=4000, help="nodes a move (default 4000)")
    s.add_argument("--chunk-games", type=int, default=20, help="games a task (default 20)")
    s.add_argument("--random-plies", type=int, default=2,
                   help="random plies after the opening (default 2)")
    s.add_argument("--node-spread", type=int, default=0, metavar="PERCENT",
                   help="draw each move's node budget within this many percent of --nodes "
                        "(seeded), so that games that meet in a position part again "
                        "(default 0: every move searches --nodes)")
    s.add_argument("--weights", help="weights file to play with (default: the shipped weights)")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--backend", choices=("auto", "ray", "local"), default="auto",
                   help="where the games run (default: Ray when installed, else local processes)")
    s.add_argument("--address", help="Ray cluster to join (default: a local Ray)")
    s.add_argument("--workers", type=int, help="parallel games (default: the CPUs)")
    s.add_argument("--no-progress", action="store_true")
    r = sub.add_parser("rescore", help="search a self-play run's positions again, deeper "
                                       "(resumable), for damier train fit --rescored")
    r.add_argument("directory", help="self-play directory")
    r.add_argument("--nodes", type=int, default=RescoreSettings.nodes,
                   help=f"nodes a position (default {RescoreSettings.nodes})")
    r.add_argument("--weights", help="weights file to search with (default: the shipped weights)")
    r.add_argument("--backend", choices=("auto", "ray", "local"), default="auto",
                   help="where the searches run (default: Ray when installed, else local "
                        "processes)")
    r.add_argument("--address", help="Ray cluster to join (default: a local Ray)")
    r.add_argument("--workers", type=int, help="parallel tasks (default: the CPUs)")
    r.add_argument("--repeats", action="store_true",
                   help="search the positions that occurred earlier in the run again too (by "
                        "default each position is searched once: its repeats are left out)")
    r.add_argument("--chunks", type=_chunk_range, metavar="FIRST-LAST",
                   help="rescore only these chunks (inclusive): to split a run between "
                        "machines that share no Ray cluster, each working on a copy; put "
                        "their rescore files back in one directory")
    r.add_argument("--no-progress", action="store_true")
    f = sub.add_parser("fit", help="fit weights to self-play positions")
    f.add_argument("data", nargs="+", help="self-play directories")
    f.add_argument("--out", required=True, help="weights file to write (a manifest goes beside it)")
    f.add_argument("--initial", help="weights to start from (default: the shipped ones)")
    f.add_argument("--epochs", type=int, default=FitSettings.epochs)
    f.add_argument("--batch", type=int, default=FitSettings.batch)
    f.add_argument("--learning-rate", type=float, default=FitSettings.learning_rate)
    f.add_argument("--l2", type=float, default=FitSettings.l2)
    f.add_argument("--rescored", type=_node_counts, metavar="NODES[,NODES...]",
                   help="fit to the scores of 'damier train rescore --nodes NODES' (only the "
                        "rescored chunks are used); with several, each chunk's scores are "
                        "those of the first node count it was rescored at")
    f.add_argument("--all-validation", action="store_true",
                   help="validate on every held-out position, also those a training game has "
                        "(by default these are left out of the validation loss)")
    f.add_argument("--prior-initial", action="store_true",
                   help="the L2 prior pulls the weights towards the initial ones instead of zero "
                        "(for a refit on new games only: what the new games do not show is kept)")
    f.add_argument("--scale", type=float, default=FitSettings.scale)
    f.add_argument("--score-share", type=float, default=FitSettings.score_share,
                   help="the target's share taken from the engine's scores, the rest from the "
                        "game results (default 1: the scores alone)")
    f.add_argument("--td-lambda", type=float, default=FitSettings.td_lambda, metavar="LAMBDA",
                   help="the scores' part of the target is their λ-return over the rest of "
                        "the game: each position looks ahead to the scores after it, weights "
                        "decaying by LAMBDA a position, and to the result (default 0: each "
                        "position's own score)")
    f.add_argument("--validation", type=float, default=FitSettings.validation)
    f.add_argument("--max-gap", type=float, default=FitSettings.max_gap, metavar="CP",
                   help="leave out of training the positions whose self-play score is more "
                        "than CP centi-men from the initial evaluation (tactics a static "
                        "evaluation cannot see; default 0: none left out)")
    f.add_argument("--fixed", default="", help="comma-separated terms kept at their initial "
                   "weights; 'material', 'patterns' (the 4x4 areas) or 'big' (the 4x6 areas) keeps "
                   "whole tables, 'side' the side to move's weight")
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--no-progress", action="store_true")
    g = sub.add_parser("gate", help="match new weights against the current ones (SPRT)")
    g.add_argument("new", help="the new weights file")
    g.add_argument("--against", help="weights file to beat (default: the shipped weights)")
    g.add_argument("--games", type=int, default=400, help="most games (default 400)")
    limit = g.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, help="nodes a move")
    limit.add_argument("--movetime", type=float, help="seconds a move (default 0.1)")
    g.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), default=(0.0, 10.0),
                   help="SPRT bounds in Elo (default 0 10)")
    g.add_argument("--no-sprt", action="store_true", help="play all the games, no SPRT")
    g.add_argument("--concurrency", type=int, default=1)
    g.add_argument("--resume", help="journal of the match (resumes it)")
    g.add_argument("--pdn", help="write the games to this PDN file")
    g.add_argument("--seed", type=int, default=1)
    add_adjudication_arguments(g)
    g.add_argument("--no-progress", action="store_true")
    t = sub.add_parser("tune", help="tune the search's selectivity numbers and the "
                                    "evaluation's terms by SPSA self-play (resumable)",
                       description="SPSA: the engine with every parameter moved by +c or -c "
                       "(random signs) plays the engine moved the other way, a few game pairs a "
                       "step, and the parameters follow the result. The state file is written "
                       "after every step: the same command resumes the tune.")
    t.add_argument("state", help="the tune's state file (JSON; created, or resumed when it "
                                 "exists)")
    t.add_argument("--param", action="append", default=[], metavar="SPEC",
                   help="a parameter: NAME=START,LOW,HIGH,C_END[,R_END] (C_END: the "
                   "perturbation at the end; R_END: the learning rate there, default "
                   f"{_tune.DEFAULT_R_END}) or NAME alone for one of the default set; "
                   "repeat it; none: the default set ("
                   + ", ".join(_tune.DEFAULT_PARAMS) + "). An evaluation weight is "
                   "eval.TERM.open or eval.TERM.end (e.g. eval.king.end), alone to start "
                   "from the engine's weights; each step writes the engines' weights to "
                   "plus.bin and minus.bin beside the state file, and the end STATE.tuned.bin")
    t.add_argument("--pairs", type=int, default=1000, help="game pairs in all (default 1000)")
    t.add_argument("--batch", type=int, default=2, help="game pairs a step (default 2)")
    tlimit = t.add_mutually_exclusive_group()
    tlimit.add_argument("--nodes", type=int, help="nodes a move (default 100000)")
    tlimit.add_argument("--movetime", type=float, help="seconds a move")
    t.add_argument("--variant", default=DEFAULT_VARIANT)
    t.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    t.add_argument("--workers", type=int, help="play the pairs as Ray tasks on a local Ray of "
                   "this many workers (or at most this many of the cluster's); give --batch at "
                   "least as large")
    t.add_argument("--address", help="play the pairs as Ray tasks on the Ray cluster at "
                   "HOST:PORT")
    t.add_argument("--hash", type=int, help="each engine's hash table, MiB (default the "
                   "engine's)")
    t.add_argument("--engine", default="", metavar="OPTIONS",
                   help="options both engines play with, as a damier: engine spec takes them "
                   "(e.g. cont_history=1,hash=16): settings that stay fixed while the "
                   "parameters move")
    t.add_argument("--seed", type=int, default=1)
    add_adjudication_arguments(t)
    t.add_argument("--no-progress", action="store_true")
    return p


def _tune_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.concurrency < 1:
        raise ValueError("--concurrency must be at least 1")
    if args.hash is not None and args.hash < 1:
        raise ValueError("--hash must be at least 1")
    nodes = args.nodes if args.nodes is not None or args.movetime is not None else 100_000
    variant = get_variant(args.variant).name
    engine = args.engine.strip()
    base: list[Any] = []

    def eval_start(name: str) -> float:
        # the engine's weights, read once, when an evaluation weight is named alone
        if not base:
            base.append(_tune.base_weights(variant,
                                           _tune.engine_options(engine).get("weights")))
        return float(_tune.eval_value(base[0], name))

    settings = _tune.TuneSettings(params=tuple(_tune.parse_params(args.param,
                                                                  eval_start=eval_start)),
                                  pairs=args.pairs, batch=args.batch, nodes=nodes,
                                  movetime=args.movetime, variant=variant, seed=args.seed,
                                  engine=engine, **_adjudication_texts(args))
    settings.check()
    if args.hash is not None and "hash" in settings.engine_options():
        raise ValueError("--hash and --engine hash=... both set the hash table: give one")
    tuner = _tune.Tuner.open(args.state, settings)
    openings = pair_openings(variant, args.seed)
    bar = ProgressBar("tune", total=settings.pairs, done=tuner.k, stream=err,
                      enabled=not args.no_progress)
    if tuner.k:
        bar.message(f"resuming {args.state} at pair {tuner.k} of {settings.pairs}")

    def on_step(t: _tune.Tuner, r: _tune.StepResult) -> None:
        values = _tune.spec_options(t.values())
        bar.update(values, advance=(r.wins + r.draws + r.losses) // 2,
                   line=f"pair {t.k}/{settings.pairs}: +{r.wins} ={r.draws} -{r.losses}; {values}")

    state = Path(args.state)
    weights_dir = state.resolve().parent
    play = _tune.match_play_pairs(settings, concurrency=args.concurrency, hash_mb=args.hash,
                                  workers=args.workers, address=args.address,
                                  weights_dir=weights_dir if settings.tunes_eval else None)
    ray: Any = None
    started = False
    try:
        if (args.workers is not None or args.address is not None) and not tuner.done:
            from damier.raytasks import start_ray

            if args.workers is not None and args.workers < 1:
                raise ValueError("--workers must be at least 1")
            ray, started = start_ray(args.address, None if args.address else args.workers)
        tuner.run(play, openings, on_step)
    finally:
        bar.close()
        if started:
            ray.shutdown()
    values = tuner.values()
    out.write(f"tune: {tuner.k} pairs, plus +{tuner.wins} ={tuner.draws} -{tuner.losses}\n")
    marks = _trajectory(tuner)
    width = max([20] + [len(p.name) + 1 for p in settings.params])
    out.write(f"  {'pairs':<{width}}" + "".join(f"{int(k):>9}" for k, _ in marks) + "\n")
    for i, p in enumerate(settings.params):
        out.write(f"  {p.name:<{width}}" + "".join(f"{row[i]:>9.6g}" for _, row in marks)
                  + f"  -> {values[p.name]}\n")
    limit = (f"--movetime {settings.movetime:g}" if settings.movetime is not None
             else "--movetime 0.1")
    fixed = f"{settings.engine}," if settings.engine else ""
    search, _ = _tune.split_values(values)
    tuned = _tune.spec_options(search)
    tuned_fixed = fixed
    if settings.tunes_eval:
        # the tuned weights in a file of their own; the step files go
        path = state.with_name(state.stem + ".tuned.bin")
        _tune.eval_weights(settings.weights(), values).write(path)
        for side in ("plus", "minus"):
            (weights_dir / f"{side}.bin").unlink(missing_ok=True)
        out.write(f"the tuned weights: {path}\n")
        kept = _tune.engine_without_weights(settings.engine)
        tuned_fixed = f"{kept}," if kept else ""
        tuned = ",".join(x for x in (tuned, f"weights={path}") if x)
    out.write("test it against the defaults:\n"
              f"  damier match \"damier:{tuned_fixed}{tuned},name=tuned\" "
              f"\"damier:{fixed}name=default\" {limit} --games 1000 --concurrency 2 "
              "--sprt 0 10\n")
    return 0


def _trajectory(tuner: _tune.Tuner, points: int = 5) -> list[tuple[float, list[float]]]:
    """The values at the start and after about each ``points - 1``-th of the pairs
    played (the last step's), rounded for the table."""
    rows: list[tuple[float, list[float]]] = [(0, [p.start for p in tuner.settings.params])]
    history = tuner.history
    for j in range(1, points):
        if not history:
            break
        want = tuner.k * j / (points - 1)
        step = next((h for h in history if h[0] >= want), history[-1])
        if step[0] > rows[-1][0]:
            rows.append((step[0], [round(x, 3) for x in step[1:]]))
    return rows


def _adjudication_texts(args: argparse.Namespace) -> dict[str, str | None]:
    """The tune's adjudication rules as its state keeps them (each rule's full text)."""
    rules = adjudication_of(args)
    draw = rules.draw if rules is not None else None
    loss = rules.loss if rules is not None else None
    return {"adjudicate_draw": draw.text() if draw is not None else None,
            "adjudicate_loss": loss.text() if loss is not None else None}


def _gate_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    result = gate(args.new, against=args.against, games=args.games, nodes=args.nodes,
                  movetime=args.movetime, sprt=None if args.no_sprt else tuple(args.sprt),
                  concurrency=args.concurrency, resume=args.resume, pdn=args.pdn, seed=args.seed,
                  progress=not args.no_progress, stream=err,
                  adjudication=adjudication_of(args))
    out.write(result.summary() + "\n")
    decision = result.sprt.decision if result.sprt is not None else None
    accepted = decision == "H1" or (decision is None and result.elo_interval[0] > 0)
    out.write(f"gate: {'accepted' if accepted else 'not accepted'}\n")
    return 0 if accepted else 1


def _selfplay_command(args: argparse.Namespace, err: TextIO) -> int:
    settings = SelfplaySettings(variant=get_variant(args.variant).name, nodes=args.nodes,
                                chunk_games=args.chunk_games, random_plies=args.random_plies,
                                node_spread=args.node_spread, seed=args.seed)
    summary = selfplay(args.out, games=args.games, settings=settings, weights=args.weights,
                       backend=args.backend, address=args.address, workers=args.workers,
                       progress=not args.no_progress, stream=err)
    err.write(f"selfplay: {summary['games']} games in {args.out} ({summary['new_games']} new, "
              f"{summary['new_positions']} new positions, {summary['seconds']:.0f} s)\n")
    return 0


def _rescore_command(args: argparse.Namespace, err: TextIO) -> int:
    summary = rescore(args.directory, nodes=args.nodes, weights=args.weights,
                      backend=args.backend, address=args.address, workers=args.workers,
                      progress=not args.no_progress, stream=err, repeats=args.repeats,
                      chunks=args.chunks)
    err.write(f"rescore: {summary['chunks']} chunks of {args.directory} at {args.nodes} nodes "
              f"({summary['new_chunks']} new, {summary['positions']} positions searched, "
              f"{summary['repeats']} repeats left out, {summary['seconds']:.0f} s)\n")
    return 0


def _chunk_range(text: str) -> tuple[int, int]:
    """``--chunks``' value: FIRST-LAST, whole numbers, FIRST at most LAST."""
    first, sep, last = text.partition("-")
    if sep and first.strip().isdigit() and last.strip().isdigit():
        if int(first) <= int(last):
            return int(first), int(last)
    raise argparse.ArgumentTypeError(f"a chunk range is FIRST-LAST (whole numbers, FIRST at "
                                     f"most LAST), not {text!r}")


def _node_counts(text: str) -> list[int]:
    """``--rescored``'s value: node counts, comma-separated."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"node counts must be positive whole numbers "
                                         f"separated by commas, not {text!r}")
    return counts


def _fit_command(args: argparse.Namespace, err: TextIO) -> int:
    data = load_dataset(args.data, rescored=args.rescored)
    if args.initial:
        initial = Weights.read(args.initial, variant=data.variant)
    else:
        initial = shipped_weights(data.variant) or Weights.material(data.variant)
    settings = FitSettings(epochs=args.epochs, batch=args.batch, learning_rate=args.learning_rate,
                           l2=args.l2, scale=args.scale, score_share=args.score_share,
                           validation=args.validation, seed=args.seed,
                           prior_initial=args.prior_initial,
                           unseen_validation=not args.all_validation,
                           max_gap=args.max_gap, td_lambda=args.td_lambda,
                           fixed=tuple(x.strip() for x in args.fixed.split(",") if x.strip()))
    if settings.epochs < 1 or settings.batch < 1 or not 0 <= settings.validation < 1:
        raise TrainError("--epochs and --batch must be at least 1, --validation in [0, 1)")
    if not 0 <= settings.td_lambda < 1:
        raise TrainError(f"--td-lambda must be in [0, 1), got {settings.td_lambda:g}")
    if not 0 <= settings.max_gap < float("inf"):
        raise TrainError(f"--max-gap must be 0 or more centi-men, got {settings.max_gap:g}")
    err.write(f"fit: {len(data)} positions from {data.games} games ({data.variant.name})\n")
    began = time.monotonic()
    weights, history = fit(data, initial, settings, progress=not args.no_progress, stream=err)
    out = Path(args.out)
    weights.write(out)
    best = min(history, key=lambda h: h["validation_loss"]) if history else {}
    manifest = {"file": out.name, "variant": data.variant.name, "made_by": "damier train fit",
                "data": data.sources, "games": data.games, "positions": len(data),
                "initial": args.initial or "shipped", "settings": dict(settings.__dict__),
                "rescored": (args.rescored[0] if args.rescored and len(args.rescored) == 1
                             else args.rescored),
                "epochs": history, "best_epoch": best,
                "seconds": round(time.monotonic() - began, 1)}
    manifest_path = out.with_name(out.stem + ".manifest.json")
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    err.write(f"fit: wrote {out} and {manifest_path.name} (best validation loss "
              f"{best.get('validation_loss')} at epoch {best.get('epoch')})\n")
    return 0


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(args, out if out is not None else sys.stdout, err if err is not None else sys.stderr)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs a parsed ``damier train`` command; 2 with a message on a bad setting."""
    try:
        if args.train_command == "selfplay":
            return _selfplay_command(args, err)
        if args.train_command == "rescore":
            return _rescore_command(args, err)
        if args.train_command == "fit":
            return _fit_command(args, err)
        if args.train_command == "gate":
            return _gate_command(args, out, err)
        if args.train_command == "tune":
            return _tune_command(args, out, err)
    except (TrainError, WeightsFileError, ValueError, ImportError, OSError) as exc:
        err.write(f"damier train {args.train_command}: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write(f"damier train {args.train_command}: stopped; run the same command to resume\n")
        return 130
    raise AssertionError(args.train_command)


if __name__ == "__main__":
    sys.exit(main())
