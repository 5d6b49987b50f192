#!/usr/bin/env python3
"""Endgame database benchmark: build time and size per piece count, and probes per second.

Builds the tables of 2 to N pieces (default 3) of a variant in a directory (default a
fresh temporary one, removed afterwards; ``--dir`` keeps them and resumes), level by
level so that each piece count is timed alone, then probes random positions of the
largest level through :mod:`damier.egdb` (``Database.probe_wdl``: FEN-free, from
``Board`` objects made beforehand; the first pass opens the tables, the second is
timed) and through the in-memory C tables (``_core.EgTables.probe``, what the engine
would use).

Usage (from the repository root, with the compiled core built in place)::

    PYTHONPATH=src python benchmarks/egdb.py                       # 2-3 pieces
    PYTHONPATH=src python benchmarks/egdb.py --pieces 4 --threads 2
    PYTHONPATH=src python benchmarks/egdb.py --variant english --pieces 4 --json egdb.json
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from damier import Board, _core
from damier.egdb import open_database, signatures
from damier.egdb_build import build
from damier.variants import get_variant


def _random_boards(variant: str, pieces: int, count: int, rng: random.Random) -> list[Board]:
    v = get_variant(variant)
    level = [s for s in signatures(pieces) if sum(s) == pieces]
    boards = []
    while len(boards) < count:
        sig = rng.choice(level)
        slot = rng.randrange(_core.EgTables(v.index).positions(sig))
        pos = _core.egdb_position(v.index, sig, slot)
        if pos is None:
            continue
        wm, wk, bm, bk = pos
        white = [str(s) for s in wm] + [f"K{s}" for s in wk]
        black = [str(s) for s in bm] + [f"K{s}" for s in bk]
        side = rng.choice("WB")
        board = Board(f"W:W{','.join(white)}:B{','.join(black)}", variant=v)
        if side == "B":   # the same material with the other side to move
            board = Board(f"B:W{','.join(black_to_white(v, bm, bk))}:"
                          f"B{','.join(black_to_white(v, wm, wk))}", variant=v)
        boards.append(board)
    return boards


def black_to_white(v: object, men: list[int], kings: list[int]) -> list[str]:
    n = get_variant(v).squares  # type: ignore[arg-type]
    return [str(n + 1 - s) for s in men] + [f"K{n + 1 - s}" for s in kings]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="international")
    ap.add_argument("--pieces", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dir", help="keep the tables here (default: a temporary directory)")
    ap.add_argument("--probes", type=int, default=20000)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    tmp = None
    if args.dir:
        root = Path(args.dir)
    else:
        tmp = tempfile.TemporaryDirectory()
        root = Path(tmp.name)
    report: dict[str, object] = {"variant": args.variant, "threads": args.threads, "levels": []}
    print(f"{args.variant}, {args.threads} thread(s), tables in {root}")
    print(f"{'pieces':>6} {'tables':>6} {'slots':>13} {'positions':>13} {'bytes':>12} "
          f"{'seconds':>8}")
    for n in range(2, args.pieces + 1):
        start = time.perf_counter()
        reports = build(root, pieces=n, variant=args.variant, threads=args.threads)
        seconds = time.perf_counter() - start
        level = [r for r in reports if sum(r.signature) == n]
        slots = sum(r.positions for r in level)
        positions = sum(r.wins + r.draws + r.losses for r in level)
        size = sum(r.bytes for r in level)
        print(f"{n:>6} {len(level):>6} {slots:>13,d} {positions:>13,d} {size:>12,d} "
              f"{seconds:>8.2f}")
        report["levels"].append({"pieces": n, "tables": len(level),  # type: ignore[union-attr]
                                 "slots": slots, "positions": positions, "bytes": size,
                                 "seconds": round(seconds, 3)})
    rng = random.Random(1)
    boards = _random_boards(args.variant, args.pieces, args.probes, rng)
    with open_database(root, variant=args.variant) as db:
        for b in boards:
            db.probe_wdl(b)
        start = time.perf_counter()
        for b in boards:
            db.probe_wdl(b)
        rate = len(boards) / (time.perf_counter() - start)
    tables = _core.EgTables(get_variant(args.variant).index)
    with open_database(root, variant=args.variant) as db:
        for sig in db.signatures():
            tables.add(sig, db.table(sig).values())
    start = time.perf_counter()
    for b in boards:
        tables.probe(b)
    c_rate = len(boards) / (time.perf_counter() - start)
    print(f"probes/s ({args.pieces} pieces): Database.probe_wdl {rate:,.0f}; "
          f"EgTables.probe (in memory, called from Python) {c_rate:,.0f}")
    report["probes_per_second"] = round(rate)
    report["c_probes_per_second_from_python"] = round(c_rate)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
