#!/usr/bin/env python3
"""Search selectivity benchmark: each selectivity switch of the engine
(``Engine.set_selectivity``) alone, and all of them together, against all off.

For every configuration, on one core:

- the mean depth of the last completed iteration at 0.1 s and at 1 s over the
  middlegame positions of ``benchmarks/data/middlegames.txt``, and the depth
  reached from the start position;
- nodes per second (all the timed searches together);
- the nodes of fixed-depth searches of the middlegames (``--fixed-depth``, 11 by
  default): unlike the timed figures, these do not depend on the machine's load;
- tactics: the shots of the shipped puzzle set (``data/puzzles_international.json``,
  :func:`damier.puzzles.load_puzzles`) whose first move the engine plays at a fixed
  node budget, so that selectivity is seen not to lose tactics.

Every search uses a fresh engine (an empty hash table). The timed searches go
position by position and, for each position, configuration by configuration, so
that a load that changes during the run (another job on the machine) spreads over
all configurations alike; with a busy machine, compare configurations within one
run, not across runs.

"All off" is the search as it was before the switches: only the single-reply
extension, which the search always had, is on (``single_reply_off`` measures it).

Usage (from the repository root, with the compiled core built in place)::

    PYTHONPATH=src python benchmarks/selectivity.py                   # everything, ~8 min
    PYTHONPATH=src python benchmarks/selectivity.py --quick           # 0.1 s only, 8 positions
    PYTHONPATH=src python benchmarks/selectivity.py --configs off,probcut --json out.json
    PYTHONPATH=src python benchmarks/selectivity.py --make-middlegames   # rewrites the positions
    PYTHONPATH=src python benchmarks/selectivity.py --match all --games 60 --match-nodes 20000

``--match CONFIG`` plays a short sanity match (``damier.match.run_match``, one game at a
time, the shipped openings) of that configuration against all off, at a fixed node
budget a move, instead of the measurements.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from _common import import_damier

HERE = Path(__file__).resolve().parent
MIDDLEGAMES = HERE / "data" / "middlegames.txt"

ALL_ON: dict[str, Any] = {"probcut": True, "singular": True, "threat_qsearch": 1, "history": 1}

CONFIGS: dict[str, dict[str, Any]] = {
    "off": {},
    "single_reply_off": {"single_reply": False},
    "probcut": {"probcut": True},
    "singular": {"singular": True},
    "threat_qsearch": {"threat_qsearch": 1},
    "shot_qsearch": {"shot_qsearch": 1},
    "sac_prune": {"sac_prune": 3},
    "history1": {"history": 1},
    "history2": {"history": 2},
    "lmr_div_1.25": {"lmr_divisor": 1.25},
    "lmr_div_2": {"lmr_divisor": 2.0},
    "lmr_div_2.5": {"lmr_divisor": 2.5},
    "all": ALL_ON,
}


def settings_of(name: str) -> dict[str, Any]:
    """The settings of a configuration: a name of ``CONFIGS``, or a base name followed
    by ``+setting=value`` parts (``all+lmr_divisor=1.0+lmr_move=1``)."""
    base, *parts = name.split("+")
    if base not in CONFIGS:
        raise KeyError(base)
    settings = dict(CONFIGS[base])
    for part in parts:
        key, _, value = part.partition("=")
        if not key or not value:
            raise KeyError(part)
        settings[key] = float(value) if "." in value else int(value)
    return settings


DEFAULT_CONFIGS = ("off", "single_reply_off", "probcut", "singular", "threat_qsearch",
                   "history1", "history2", "all")


def say(text: str = "") -> None:
    print(text, flush=True)


def read_middlegames(path: Path = MIDDLEGAMES) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def make_middlegames(damier: Any, path: Path = MIDDLEGAMES, count: int = 20) -> list[str]:
    """Plays shipped openings on to ply 30-36 at 1500 nodes a move and keeps quiet,
    balanced positions with at least 26 pieces."""
    from damier.engine import Engine  # noqa: PLC0415
    from damier.openings import load_openings, opening_board  # noqa: PLC0415
    openings = load_openings()
    rng = random.Random(10)
    rng.shuffle(openings)
    engine = Engine(hash_mb=8, seed=1)
    fens: list[str] = []
    for opening in openings:
        board = opening_board(opening)
        plies = rng.randint(30, 36)
        while board.ply < plies and board.outcome() is None:
            move = engine.search(board, nodes=1500).best_move
            assert move is not None
            board.push(move)
        if board.outcome() is not None or board.must_capture or sum(board._counts()) < 26:
            continue
        if abs(engine.search(board, nodes=20000).score) > 60:
            continue
        fens.append(board.fen())
        say(f"{len(fens):3d}  ply {board.ply}  {board.fen()}")
        if len(fens) == count:
            break
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"# {len(fens)} International middlegame positions (the benchmark of "
        "benchmarks/selectivity.py):\n"
        "# each a shipped opening (data/openings_international.pdn, shuffled with seed 10)\n"
        "# played on to ply 30-36 by damier's engine at 1500 nodes a move, kept when no capture\n"
        "# is pending, at least 26 pieces stand and |score| <= 0.60 men at 20000 nodes.\n"
        "# Made by: python benchmarks/selectivity.py --make-middlegames\n"
        + "\n".join(fens) + "\n")
    return fens


def engine_for(settings: dict[str, Any]) -> Any:
    from damier.engine import Engine  # noqa: PLC0415
    return Engine(hash_mb=16, selectivity=settings)


def timed(damier: Any, fens: list[str | None], names: list[str], seconds: float
          ) -> dict[str, dict[str, Any]]:
    """Depth reached in ``seconds`` for every position and configuration."""
    out: dict[str, dict[str, Any]] = {n: {"depths": [], "nodes": 0, "time": 0.0} for n in names}
    for fen in fens:
        board = damier.Board(fen) if fen else damier.Board()
        for name in names:
            engine = engine_for(settings_of(name))
            start = time.perf_counter()
            result = engine.search(board, movetime=seconds)
            elapsed = time.perf_counter() - start
            row = out[name]
            row["depths"].append(result.depth)
            row["nodes"] += result.nodes
            row["time"] += elapsed
    return out


def fixed_depth_nodes(damier: Any, fens: list[str], names: list[str], depth: int
                      ) -> dict[str, int]:
    """Nodes of fixed-depth searches of ``fens``, all together, per configuration."""
    out = {}
    for name in names:
        total = 0
        for fen in fens:
            total += engine_for(settings_of(name)).search(damier.Board(fen), depth=depth).nodes
        out[name] = total
    return out


def puzzles_solved(damier: Any, names: list[str], nodes: int, limit: int | None
                   ) -> dict[str, dict[str, Any]]:
    from damier.puzzles import load_puzzles  # noqa: PLC0415
    puzzles = load_puzzles("international")
    if limit:
        puzzles = puzzles[:limit]
    out = {}
    for name in names:
        engine = engine_for(settings_of(name))
        solved = 0
        missed: list[str] = []
        start = time.perf_counter()
        for puzzle in puzzles:
            board = puzzle.board()
            engine.new_game()
            result = engine.search(board, nodes=nodes)
            if result.best_move == board.parse_move(puzzle.first_move):
                solved += 1
            else:
                missed.append(puzzle.id)
        out[name] = {"solved": solved, "total": len(puzzles), "missed": missed,
                     "time": time.perf_counter() - start}
    return out


def _known(name: str) -> bool:
    try:
        settings_of(name)
    except (KeyError, ValueError):
        return False
    return True


def sanity_match(name: str, games: int, nodes: int, seed: int) -> Any:
    """``name`` against all off, ``nodes`` a move, one game at a time."""
    from damier.match import DamierPlayer, parse_engine_spec, run_match  # noqa: PLC0415

    def player(config: str) -> Any:
        def start() -> Any:
            p = DamierPlayer(parse_engine_spec(f"damier:nodes={nodes},hash=16"))
            p.engine.set_selectivity(**settings_of(config))
            p.name = f"damier {config}"
            return p
        return start

    return run_match(player(name), player("off"), games=games, concurrency=1, seed=seed,
                     progress=False, event=f"selectivity {name} vs off, {nodes} nodes")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                        help=f"comma-separated, of: {', '.join(CONFIGS)}; a name may add "
                        "settings: all+lmr_divisor=1.0+lmr_move=1")
    parser.add_argument("--times", default="0.1,1", help="seconds a search (comma-separated)")
    parser.add_argument("--positions", type=int, default=0,
                        help="use only the first N middlegames (0: all)")
    parser.add_argument("--puzzle-nodes", default="3000,10000",
                        help="node budgets of the puzzle searches (comma-separated)")
    parser.add_argument("--puzzles", type=int, default=0, help="only the first N puzzles")
    parser.add_argument("--no-puzzles", action="store_true")
    parser.add_argument("--no-timed", action="store_true")
    parser.add_argument("--fixed-depth", type=int, default=11,
                        help="depth of the fixed-depth node counts (0: none)")
    parser.add_argument("--quick", action="store_true", help="0.1 s only, 8 positions")
    parser.add_argument("--cpu", type=int, default=None, help="pin to this CPU (default: the last)")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--match", metavar="CONFIG",
                        help="play a sanity match of CONFIG against all off instead")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--match-nodes", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--make-middlegames", action="store_true",
                        help="rewrite benchmarks/data/middlegames.txt and stop")
    args = parser.parse_args(argv)
    damier = import_damier()
    if args.make_middlegames:
        make_middlegames(damier)
        return 0
    if args.match:
        if not _known(args.match):
            parser.error(f"unknown configuration {args.match!r}; known: {', '.join(CONFIGS)}")
        result = sanity_match(args.match, args.games, args.match_nodes, args.seed)
        say(result.summary())
        if args.json:
            Path(args.json).write_text(json.dumps(result.to_dict(), indent=1))
        return 0
    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    for name in names:
        if not _known(name):
            parser.error(f"unknown configuration {name!r}; known: {', '.join(CONFIGS)}")
    if hasattr(os, "sched_setaffinity"):
        cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    times = [0.1] if args.quick else [float(t) for t in args.times.split(",")]
    mids = read_middlegames()
    if args.quick:
        mids = mids[:8]
    elif args.positions:
        mids = mids[:args.positions]
    say(f"damier {damier.__file__}; {len(mids)} middlegames + the start position; "
        f"configurations: {', '.join(names)}")
    # Warm-up (loads the evaluation weights).
    engine_for({}).search(damier.Board(), depth=4)

    report: dict[str, Any] = {"configs": {n: settings_of(n) for n in names}, "timed": {},
                              "puzzles": {}}
    if not args.no_timed:
        for seconds in times:
            start = timed(damier, [None], names, seconds)
            mid = timed(damier, list(mids), names, seconds)
            report["timed"][str(seconds)] = {
                n: {"start_depth": start[n]["depths"][0],
                    "mean_depth": sum(mid[n]["depths"]) / len(mid[n]["depths"]),
                    "depths": mid[n]["depths"],
                    "nps": (start[n]["nodes"] + mid[n]["nodes"])
                    / max(1e-9, start[n]["time"] + mid[n]["time"])}
                for n in names}
    if args.fixed_depth:
        report["fixed_depth"] = {"depth": args.fixed_depth,
                                 "nodes": fixed_depth_nodes(damier, mids, names, args.fixed_depth)}
    budgets = [int(n) for n in args.puzzle_nodes.split(",") if n.strip()]
    if not args.no_puzzles:
        for budget in budgets:
            report["puzzles"][str(budget)] = puzzles_solved(damier, names, budget,
                                                            args.puzzles or None)

    head = f"{'configuration':18s}"
    for seconds in report["timed"]:
        head += f" | {seconds + ' s: mid depth':>16s} {'start':>5s} {'Mnps':>5s}"
    if "fixed_depth" in report:
        head += f" | {'Mnodes d' + str(args.fixed_depth):>10s}"
    for budget in report["puzzles"]:
        head += f" | {'puzzles @' + budget:>15s}"
    say()
    say(head)
    say("-" * len(head))
    for name in names:
        line = f"{name:18s}"
        for row in report["timed"].values():
            r = row[name]
            line += f" | {r['mean_depth']:16.2f} {r['start_depth']:5d} {r['nps'] / 1e6:5.2f}"
        if "fixed_depth" in report:
            line += f" | {report['fixed_depth']['nodes'][name] / 1e6:10.2f}"
        for by_config in report["puzzles"].values():
            p = by_config[name]
            line += f" | {str(p['solved']) + '/' + str(p['total']):>15s}"
        say(line)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
