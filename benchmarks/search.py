#!/usr/bin/env python3
"""Engine speed benchmark: damier's engine vs dame-rs's engine (International draughts).

Both engines search the International start position under a time limit, on one core, in the
same run:

- damier: ``damier.engine.Engine().search(damier.Board(), movetime=T, info=...)``
- dame-rs: ``dame.Engine().search(dame.Board(), time=T, info=...)``

An ``info`` callback records every completed iteration (depth, nodes, elapsed time). The script
prints, for T = 1 s and T = 10 s: the depth of the last completed iteration, the nodes and time
at that point, nodes per second, and the time the call took in all (an engine may stop before T
when it judges that the next iteration would not finish). The ratios damier / dame-rs follow.

Goals (damier, T = 1 s): >= 6 M nodes/s and depth >= 16. Each prints PASS or FAIL; the exit
status is 0 even on FAIL unless ``--strict``.

A fresh engine (empty hash table) is used for every measurement, after an untimed warm-up
search (loads damier's evaluation weights). The process is pinned to one CPU where the OS
allows it. Node counts are each engine's own (both count the nodes they visit, quiescence
included, but their definitions need not match exactly: compare depth too).

Usage (from the repository root, with the compiled core built in place)::

    PYTHONPATH=src python benchmarks/search.py                 # 1 s and 10 s, about 25 s
    PYTHONPATH=src python benchmarks/search.py --quick         # 1 s only, about 5 s
    PYTHONPATH=src python benchmarks/search.py --json search.json --repeat 3 --strict
    sh benchmarks/make_baseline.sh && PYTHONPATH=src python benchmarks/search.py --quick

``--baseline PYTHON`` (by default ``.baseline/venv/bin/python`` when
``sh benchmarks/make_baseline.sh`` has built it: damier as of the git tag
``issue23-start``, commit 8f3bd69) measures that build the same way in the same run, each engine
in a child process pinned to the same CPU, one after the other for every limit, and adds
the depth each reaches in 0.1 s on the middlegames of ``benchmarks/data/middlegames.txt``
(the mean, and the nodes per second there): the before/after figures of a change.

dame-rs is a ``bench`` extra (``pip install 'damier[bench]'``, dame-rs==0.2.0); when it is
missing its column is left out and the ratios print SKIP.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import import_damier, pin_one_core

GOAL_NPS = 6_000_000
GOAL_DEPTH_1S = 16
PINNED_DAME = "0.2.0"


def say(text: str = "") -> None:
    print(text, flush=True)


# ---------------------------------------------------------------------------------------------
# imports
# ---------------------------------------------------------------------------------------------


def stale_build_warning(damier: Any) -> str | None:
    core = Path(damier._core.__file__)
    newest = max((p for p in (core.parent / "_core.pyx", *core.parent.glob("*.pxi"))
                  if p.exists()),
                 key=lambda p: p.stat().st_mtime, default=None)
    if (core.suffix != ".pyx" and newest is not None
            and newest.stat().st_mtime > core.stat().st_mtime):
        return (f"WARNING: {newest.name} is newer than {core.name}: these figures are for an old "
                "build; rebuild with `python setup.py -q build_ext --inplace`")
    return None


def import_dame() -> tuple[Any | None, str | None]:
    try:
        import dame  # noqa: PLC0415
    except ImportError:
        return None, None
    try:
        from importlib.metadata import version  # noqa: PLC0415
        return dame, version("dame-rs")
    except Exception:  # noqa: BLE001
        return dame, getattr(dame, "__version__", "?")


# ---------------------------------------------------------------------------------------------
# one timed search
# ---------------------------------------------------------------------------------------------


def run_damier(damier: Any, seconds: float) -> dict[str, Any]:
    from damier.engine import Engine  # noqa: PLC0415
    engine = Engine()
    iterations: list[dict[str, Any]] = []

    def info(i: Any) -> None:
        iterations.append({"depth": i.depth, "nodes": i.nodes, "time": i.time,
                           "seldepth": i.seldepth, "score": i.score})

    start = time.perf_counter()
    result = engine.search(damier.Board(), movetime=seconds, info=info)
    wall = time.perf_counter() - start
    return summarize(iterations, wall, str(result.best_move), result.score)


def run_dame(dame: Any, seconds: float) -> dict[str, Any]:
    engine = dame.Engine()
    iterations: list[dict[str, Any]] = []

    def info(i: Any) -> None:
        iterations.append({"depth": i.depth, "nodes": i.nodes, "time": i.elapsed,
                           "seldepth": i.seldepth, "score": i.score})

    start = time.perf_counter()
    result = engine.search(dame.Board(), time=seconds, info=info)
    wall = time.perf_counter() - start
    if not iterations or iterations[-1]["depth"] != result.depth:
        # the result may report an iteration the callback did not (or none was reported)
        iterations.append({"depth": result.depth, "nodes": result.nodes, "time": result.elapsed,
                           "seldepth": None, "score": result.score})
    return summarize(iterations, wall, str(result.best_move), result.score)


def summarize(iterations: list[dict[str, Any]], wall: float, move: str,
              score: Any) -> dict[str, Any]:
    last = iterations[-1] if iterations else {"depth": 0, "nodes": 0, "time": 0.0}
    nps = last["nodes"] / last["time"] if last["time"] > 0 else 0.0
    return {"depth": last["depth"], "nodes": last["nodes"], "time": last["time"], "nps": nps,
            "wall": wall, "best_move": move, "score": score, "iterations": iterations}


# A damier build measured in a child process (this tree's, or the baseline's Python):
# the start position at each limit, then the middlegames at MID_SECONDS each. Only
# the API both builds have (Engine.search with movetime and info).
CHILD = r"""
import json, os, sys, time
request = json.loads(sys.argv[1])
if request["cpu"] is not None and hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {request["cpu"]})
import damier
from damier.engine import Engine
Engine(hash_mb=1).search(damier.Board(), depth=4)
def timed(board, seconds):
    its = []
    engine = Engine()
    start = time.perf_counter()
    result = engine.search(board, movetime=seconds,
                           info=lambda i: its.append([i.depth, i.nodes, i.time]))
    wall = time.perf_counter() - start
    depth, nodes, used = its[-1] if its else (0, 0, 0.0)
    return {"depth": depth, "nodes": nodes, "time": used, "wall": wall,
            "nps": nodes / used if used > 0 else 0.0,
            "best_move": str(result.best_move), "score": result.score}
out = {"version": damier.__version__, "path": os.path.dirname(damier.__file__),
       "start": timed(damier.Board(), request["seconds"]) if request["seconds"] else None,
       "middlegames": [timed(damier.Board(fen), request["mid_seconds"])
                       for fen in request["fens"]]}
print(json.dumps(out))
"""
MID_SECONDS = 0.1
MIDDLEGAMES = Path(__file__).resolve().parent / "data" / "middlegames.txt"
DEFAULT_BASELINE = Path(__file__).resolve().parent.parent / ".baseline" / "venv" / "bin" / "python"


def run_child(python: str, env: dict[str, str], seconds: float | None, fens: list[str],
              cpu: int | None) -> dict[str, Any]:
    import subprocess  # noqa: PLC0415
    request = json.dumps({"seconds": seconds, "fens": fens, "mid_seconds": MID_SECONDS,
                          "cpu": cpu})
    done = subprocess.run([python, "-c", CHILD, request], capture_output=True, text=True,
                          env=env, check=False, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{python}: {done.stderr.strip()[-500:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def compare_baseline(baseline: str, times: list[float], cpu: int | None,
                     report: dict[str, Any], repeat: int = 1) -> None:
    """The before/after table: this tree and the baseline, each in a child process.

    With ``repeat`` > 1 every measurement is made that many times, the two builds
    taking turns (which goes first alternates), and each row gives the median; the
    ratios are the medians of the ratios of the runs made back to back, so that a
    slow spell of a shared machine weighs on both sides of a ratio."""
    src = str(Path(__file__).resolve().parent.parent / "src")
    here_env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    fens = [line.strip() for line in MIDDLEGAMES.read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    engines = {"now": (sys.executable, here_env), "baseline": (baseline, base_env)}
    keys = [f"{t:g}s" for t in times]
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        name: {key: [] for key in [*keys, "middlegames"]} for name in engines}
    for rep in range(repeat):
        names = list(engines) if rep % 2 == 0 else list(reversed(engines))
        for seconds, key in zip(times, keys, strict=True):
            for name in names:
                python, env = engines[name]
                runs[name][key].append(run_child(python, env, seconds, [], cpu)["start"])
        for name in names:
            python, env = engines[name]
            mids = run_child(python, env, None, fens, cpu)["middlegames"]
            runs[name]["middlegames"].append({
                "positions": len(mids), "seconds": MID_SECONDS,
                "mean_depth": sum(m["depth"] for m in mids) / len(mids),
                "nps": sum(m["nodes"] for m in mids) / max(1e-9, sum(m["time"] for m in mids))})
    what = "one run each" if repeat == 1 else f"the median of {repeat} runs each, taking turns"
    say(f"before/after: this tree against the baseline ({baseline}), one child process "
        f"each, pinned to CPU {cpu}; {what}")
    header = f"{'limit':>6}  {'engine':<9} {'depth':>5} {'nodes':>12} {'nodes/s':>11}"
    say(header)
    say("-" * len(header))
    rows: dict[str, dict[str, Any]] = {name: {} for name in engines}
    for seconds, key in zip(times, keys, strict=True):
        for name in engines:
            made = runs[name][key]
            row = sorted(made, key=lambda r: r["nps"])[len(made) // 2]
            row = dict(row, nps=statistics.median([r["nps"] for r in made]),
                       depth=statistics.median([r["depth"] for r in made]), runs=made)
            rows[name][key] = row
            say(f"{seconds:>5.0f}s  {name:<9} {row['depth']:>5g} {row['nodes']:>12,} "
                f"{fmt_nps(row['nps']):>11}")
    for name in engines:
        made = runs[name]["middlegames"]
        row = {"positions": made[0]["positions"], "seconds": MID_SECONDS,
               "mean_depth": statistics.median([r["mean_depth"] for r in made]),
               "nps": statistics.median([r["nps"] for r in made]), "runs": made}
        rows[name]["middlegames"] = row
        say(f"{MID_SECONDS:>5.1f}s  {name:<9} {row['mean_depth']:>5.2f} "
            f"{'(mean of ' + str(row['positions']):>12} {fmt_nps(row['nps']):>11}  middlegames)")
    now, base = runs["now"], runs["baseline"]
    ratios: dict[str, float] = {}
    for key in [*keys, "middlegames"]:
        pairs = [a["nps"] / b["nps"] for a, b in zip(now[key], base[key], strict=True) if b["nps"]]
        ratios[key] = statistics.median(pairs) if pairs else float("nan")
    for key in keys:
        say(f"  {key}: nodes/s x{ratios[key]:.2f}, depth {rows['now'][key]['depth']:g} vs "
            f"{rows['baseline'][key]['depth']:g}")
    say(f"  middlegames at {MID_SECONDS} s: depth {rows['now']['middlegames']['mean_depth']:.2f}"
        f" vs {rows['baseline']['middlegames']['mean_depth']:.2f}, nodes/s "
        f"x{ratios['middlegames']:.2f}")
    report["baseline"] = {"python": baseline, "repeat": repeat, "rows": rows,
                          "nps_ratios": ratios}
    say()


def best_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run reported: the deepest, then the fastest in nodes per second."""
    return max(runs, key=lambda r: (r["depth"], r["nps"]))


def measure(name: str, fn: Callable[[float], dict[str, Any]], seconds: float,
            repeat: int) -> dict[str, Any]:
    runs = [fn(seconds) for _ in range(repeat)]
    best = best_of(runs)
    best = dict(best, runs=[{k: v for k, v in r.items() if k != "iterations"} for r in runs])
    return best


# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------


def fmt_nps(nps: float) -> str:
    return f"{nps / 1e6:.2f} M/s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the 1 s searches only")
    parser.add_argument("--json", metavar="OUT", help="write every figure to OUT")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per measurement (the deepest, then fastest, is reported; "
                             "against the baseline: the median, the builds taking turns)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a goal FAILs")
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one CPU")
    parser.add_argument("--baseline", metavar="PYTHON", default=None,
                        help="the Python of a baseline build to measure in the same run "
                             "(default: .baseline/venv/bin/python when it exists)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline")
    args = parser.parse_args(argv)

    damier = import_damier()
    importlib.import_module("damier.engine")
    dame, dame_version = import_dame()
    pin = "not pinned (--no-pin)" if args.no_pin else pin_one_core()
    times = [1.0] if args.quick else [1.0, 10.0]

    say("damier engine benchmark: International start position, one search per limit")
    say(f"machine: {platform.machine()} {platform.processor() or ''}".rstrip()
        + f", Python {platform.python_version()}, {pin}")
    warning = stale_build_warning(damier)
    if warning:
        say(warning)
    say(f"damier {damier.__version__} ({Path(damier.__file__).parent})")
    if dame is None:
        say(f"dame-rs: not installed (pip install dame-rs=={PINNED_DAME}); its column is skipped")
    else:
        note = "" if dame_version == PINNED_DAME else f" (pinned version is {PINNED_DAME})"
        say(f"dame-rs {dame_version}{note}")
    say()

    # warm-up (untimed): loads the evaluation weights, touches the code paths
    from damier.engine import Engine  # noqa: PLC0415
    Engine(hash_mb=1).search(damier.Board(), depth=4)
    if dame is not None:
        dame.Engine(hash_mb=1).search(dame.Board(), depth=4)

    report: dict[str, Any] = {
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpu": platform.processor(), "pinning": pin},
        "versions": {"damier": damier.__version__, "dame-rs": dame_version},
        "goals": {}, "results": {}}

    header = f"{'limit':>6}  {'engine':<8} {'depth':>5} {'nodes':>12} {'time s':>7} " \
             f"{'nodes/s':>11} {'call s':>7}  best move"
    say(header)
    say("-" * len(header))
    for seconds in times:
        rows = {"damier": measure("damier", lambda t: run_damier(damier, t), seconds, args.repeat)}
        if dame is not None:
            rows["dame-rs"] = measure("dame-rs", lambda t: run_dame(dame, t), seconds, args.repeat)
        for name, row in rows.items():
            say(f"{seconds:>5.0f}s  {name:<8} {row['depth']:>5} {row['nodes']:>12,} "
                f"{row['time']:>7.3f} {fmt_nps(row['nps']):>11} {row['wall']:>7.3f}  "
                f"{row['best_move']}")
        if "dame-rs" in rows:
            d, r = rows["damier"], rows["dame-rs"]
            ratio_nps = d["nps"] / r["nps"] if r["nps"] else float("nan")
            say(f"{'':>6}  ratio damier/dame-rs: nodes/s x{ratio_nps:.2f}, "
                f"depth {d['depth']} vs {r['depth']} ({d['depth'] - r['depth']:+d})")
            rows["ratio"] = {"nps": ratio_nps, "depth_difference": d["depth"] - r["depth"]}
        else:
            say(f"{'':>6}  ratio damier/dame-rs: SKIP (dame-rs not installed)")
        report["results"][f"{seconds:g}s"] = rows
        say()

    baseline = args.baseline or (str(DEFAULT_BASELINE) if DEFAULT_BASELINE.exists() else None)
    if args.no_baseline or baseline is None:
        say("before/after: SKIP (no baseline; sh benchmarks/make_baseline.sh builds it)\n")
    else:
        cpu = None
        if not args.no_pin and hasattr(os, "sched_getaffinity"):
            cpu = sorted(os.sched_getaffinity(0))[-1]
        compare_baseline(baseline, times, cpu, report, args.repeat)

    one = report["results"]["1s"]["damier"]
    goals = {
        f"damier >= {GOAL_NPS / 1e6:g} M nodes/s (1 s search)":
            ("PASS" if one["nps"] >= GOAL_NPS else "FAIL", fmt_nps(one["nps"])),
        f"damier depth >= {GOAL_DEPTH_1S} in 1 s":
            ("PASS" if one["depth"] >= GOAL_DEPTH_1S else "FAIL", f"depth {one['depth']}"),
    }
    say("goals:")
    for goal, (verdict, value) in goals.items():
        say(f"  {verdict:<4}  {goal}: {value}")
        report["goals"][goal] = {"verdict": verdict, "value": value}

    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
        say(f"\nwrote {args.json}")
    failed = any(verdict == "FAIL" for verdict, _ in goals.values())
    return 1 if (failed and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
