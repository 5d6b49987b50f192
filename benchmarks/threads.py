#!/usr/bin/env python3
"""Lazy SMP benchmark: damier's engine with 1 thread and with N threads, in the same run.

For each position (the International start and the first shipped openings), a fresh engine
searches to a fixed depth; the script prints the time to depth and the nodes per second of
each thread count, and the speed-up (total time with 1 thread / total time with N). A lazy
SMP search searches more nodes to the same depth than one thread (the helpers overlap), so
the time to depth is the figure that matters, not the node rate.

``--match GAMES`` then plays a match, N threads against 1 thread, at ``--movetime`` seconds
per move with one game at a time (so that the threads have the cores to themselves) and
prints the score and Elo: the gain in strength, which is what lazy SMP is for.

Run by hand on an otherwise idle machine with at least N cores:

    PYTHONPATH=src python benchmarks/threads.py                        # 2 threads, depth 15
    PYTHONPATH=src python benchmarks/threads.py --threads 2 --depth 16 --positions 12
    PYTHONPATH=src python benchmarks/threads.py --match 100 --movetime 0.1
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from _common import import_damier


def positions(damier: Any, count: int) -> list[Any]:
    from damier.openings import load_openings  # noqa: PLC0415
    boards = [damier.Board()]
    for opening in load_openings()[: max(0, count - 1)]:
        board = damier.Board()
        for text in opening:
            board.push(text)
        boards.append(board)
    return boards


def time_to_depth(damier: Any, boards: list[Any], threads: int,
                  depth: int) -> list[tuple[float, int]]:
    from damier.engine import Engine  # noqa: PLC0415
    out = []
    for board in boards:
        engine = Engine(threads=threads, hash_mb=128)
        start = time.perf_counter()
        result = engine.search(board, depth=depth)
        out.append((time.perf_counter() - start, result.nodes))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2,
                        help="threads to compare with 1 (default 2)")
    parser.add_argument("--depth", type=int, default=15, help="search depth (default 15)")
    parser.add_argument("--positions", type=int, default=8, help="positions (default 8)")
    parser.add_argument("--match", type=int, default=0, metavar="GAMES",
                        help="then play GAMES games, N threads against 1 (default: none)")
    parser.add_argument("--movetime", type=float, default=0.1, help="seconds per move in the match")
    args = parser.parse_args(argv)
    damier = import_damier()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"damier {damier.__version__}, {cores} cores available, depth {args.depth}")
    if cores is not None and cores < args.threads:
        print("WARNING: fewer cores than threads: the figures will not show a speed-up")
    boards = positions(damier, args.positions)
    time_to_depth(damier, boards[:1], 1, 8)   # warm-up: loads the weights
    figures = {}
    for threads in (1, args.threads):
        runs = time_to_depth(damier, boards, threads, args.depth)
        total = sum(t for t, _ in runs)
        nodes = sum(n for _, n in runs)
        figures[threads] = runs
        print(f"{threads} thread(s): {total:7.2f} s to depth {args.depth} "
              f"over {len(boards)} positions, "
              f"{nodes / total / 1e6:5.2f} M nodes/s")
    single, multi = figures[1], figures[args.threads]
    ratios = [a[0] / b[0] for a, b in zip(single, multi, strict=True)]
    print(f"speed-up (time to depth, 1 thread / {args.threads}): total "
          f"{sum(t for t, _ in single) / sum(t for t, _ in multi):.2f}x, "
          f"median per position {statistics.median(ratios):.2f}x")
    if args.match:
        from damier.match import run_match  # noqa: PLC0415
        result = run_match(f"damier:threads={args.threads},name=damier {args.threads} threads",
                           "damier:name=damier 1 thread", games=args.match,
                           movetime=args.movetime, concurrency=1, seed=20261121)
        print(result.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
