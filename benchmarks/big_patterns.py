#!/usr/bin/env python3
"""What the big 4x6 pattern tables cost in search speed (International draughts).

The core holds a variant's big tables only when its weights have one of them non-zero
(``EvalW.big``); then every evaluation reads eight more weights from ~8.5 MB of tables.
This measures that cost alone, on the same search tree: the weights under test (the
shipped ones by default, or ``--weights``) with their big tables all zero, against the
same weights with one big-table weight set that no position here reaches (White's view
of table 0 with all twelve squares Black men: Black has no twelve men on White's side
in these positions). The two evaluate every position alike, so the node counts must be
equal (checked) and the time is the price of holding and reading the tables.

Fixed-depth searches of the start position and ``benchmarks/data/middlegames.txt``, a
fresh engine each, pinned to one CPU, the two settings alternated ``--repeat`` times;
the best time of each is compared. Goal (strength issue, item 1): nodes/s with the big
tables >= 85% of nodes/s without them. Prints PASS or FAIL; the exit status is 0 unless
``--strict``.

Usage (from the repository root, the core built in place)::

    PYTHONPATH=src python benchmarks/big_patterns.py                # depth 13, ~30 s
    PYTHONPATH=src python benchmarks/big_patterns.py --depth 11 --positions 4
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from array import array
from pathlib import Path
from typing import Any

from _common import import_damier, pin_one_core
from selectivity import read_middlegames

GOAL = 0.85


def positions(count: int) -> list[str | None]:
    return [None, *read_middlegames()[:count]]


def weight_files(damier: Any, source: str | None, folder: Path) -> tuple[Path, Path]:
    """The weights with their big tables zeroed, and the same with one unreachable big weight."""
    from damier._core import eval_layout  # noqa: PLC0415
    from damier.evalfile import Weights, shipped_weights  # noqa: PLC0415

    variant = damier.Board().variant
    weights = Weights.read(source, variant=variant) if source else shipped_weights(variant)
    assert weights is not None
    layout = eval_layout(variant.index)
    base = (len(layout["terms"]) + layout["patterns"] * layout["pattern_states"]
            + layout["material_states"])
    vector = array("h", weights.vector)
    for i in range(2 * base, 2 * (base + int(layout["big_features"]))):
        vector[i] = 0
    plain, big = folder / "plain.bin", folder / "big.bin"
    Weights(variant, vector).write(plain)
    unreachable = base + 3 ** 12 - 1       # table 0, White's view: twelve Black men
    vector[2 * unreachable] = vector[2 * unreachable + 1] = 8
    Weights(variant, vector).write(big)
    return plain, big


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", help="weights file (default: the shipped weights)")
    parser.add_argument("--depth", type=int, default=13, help="search depth (default 13)")
    parser.add_argument("--positions", type=int, default=8,
                        help="middlegames besides the start position (default 8)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--strict", action="store_true", help="exit 1 on FAIL")
    args = parser.parse_args(argv)
    damier = import_damier()
    from damier.engine import Engine  # noqa: PLC0415

    print(f"damier {damier.__version__}, {pin_one_core()}, depth {args.depth}")
    boards = positions(args.positions)
    best: dict[str, float] = {}
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as folder:
        files = dict(zip(("without", "with"), weight_files(damier, args.weights, Path(folder)),
                         strict=True))
        for round_ in range(1, args.repeat + 1):
            for name, path in files.items():
                nodes, seconds = 0, 0.0
                for fen in boards:
                    engine = Engine(weights=str(path), hash_mb=64)
                    board = damier.Board(fen) if fen else damier.Board()
                    start = time.perf_counter()
                    nodes += engine.search(board, depth=args.depth).nodes
                    seconds += time.perf_counter() - start
                best[name] = min(best.get(name, seconds), seconds)
                counts[name] = nodes
                print(f"round {round_}: {name:>7} the big tables: {nodes:>10,} nodes "
                      f"{seconds:6.2f} s  {nodes / seconds / 1e6:5.2f} M nodes/s", flush=True)
    if counts["with"] != counts["without"]:
        print(f"ERROR: the trees differ ({counts['with']} and {counts['without']} nodes)")
        return 1
    ratio = best["without"] / best["with"]
    verdict = "PASS" if ratio >= GOAL else "FAIL"
    print(f"nodes/s with the big tables / without: {ratio:.3f} (goal >= {GOAL}) {verdict}")
    return 1 if args.strict and verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
