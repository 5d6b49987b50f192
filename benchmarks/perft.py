#!/usr/bin/env python3
"""Side-by-side speed benchmark: damier vs dame-rs vs py-draughts (International draughts).

Two measurements, one run:

1. perft: bulk-counted leaf count of the legal-move tree from the start position
   (damier ``Board().perft(9)``, dame-rs ``dame.perft(dame.Board(), 9)``, py-draughts at a
   smaller depth because it is much slower).  Every count is checked against the published
   table; a wrong count is reported as an error and the script exits with status 1.
2. legal_moves: microseconds per ``board.legal_moves`` call through each library's Python API,
   on the start position and on a seeded set of positions reached by random playouts (the
   same move sequences replayed in every library; the three libraries must agree on the legal
   moves of every position).

3. perft per variant (damier only): every variant of the registry
   (``damier.variants.VARIANTS``) from its start position, at the depth whose leaf count first
   reaches ``--variant-leaves``; the counts are checked against the ``initial`` lines of
   ``tests/data/reference/perft.txt`` where there is one.

Goals (from the issue): damier >= 100 M leaves/s and >= 5x dame-rs at perft; damier's
``legal_moves`` at least as fast as dame-rs's.  Each goal prints PASS, FAIL or SKIP (peer
library missing).  The exit status is 0 even on FAIL unless ``--strict``.

Usage (from the repository root, with the compiled core built in place)::

    PYTHONPATH=src python benchmarks/perft.py                # full run (under ~1 minute)
    PYTHONPATH=src python benchmarks/perft.py --quick        # CI smoke test (seconds)
    PYTHONPATH=src python benchmarks/perft.py --json bench.json --repeat 7 --strict

The peers are the ``bench`` extras: ``pip install 'damier[bench]'``
(dame-rs==0.2.0, py-draughts==1.10.1).  See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any

from _common import import_damier

# Published perft counts of the International start position, depth 0..10
# (see /work/shared/reference/perft.txt in the project and tests/).
PUBLISHED = [1, 9, 81, 658, 4265, 27117, 167140, 1049442, 6483961, 41022423, 258895763]

GOAL_LEAVES_PER_S = 100e6
GOAL_RATIO_DAME = 5.0

PINNED = {"dame-rs": "0.2.0", "py-draughts": "1.10.1"}
INSTALL_HINT = "pip install 'damier[bench]'"

# ---------------------------------------------------------------------------
# imports: damier (with a fallback to the in-place build in src/) and the peers
# ---------------------------------------------------------------------------


def _stale_core_warning(damier: Any) -> str | None:
    """A warning when the compiled core is older than its .pyx source (in-place builds)."""
    core_file = Path(damier._core.__file__)
    pyx = core_file.parent / "_core.pyx"
    if (core_file.suffix != ".pyx" and pyx.exists()
            and pyx.stat().st_mtime > core_file.stat().st_mtime):
        return (f"WARNING: {pyx} is newer than {core_file.name}: the figures are for an old build; "
                "rebuild with `python setup.py -q build_ext --inplace`")
    return None


def _import_peer(name: str, module: str) -> tuple[Any | None, str | None]:
    """``(module, version)``, or ``(None, None)`` after printing how to install it."""
    try:
        mod = __import__(module)
    except ImportError as exc:
        print(f"NOTE: {name} is not installed ({exc}); its column is skipped. "
              f"Install the benchmark peers with: {INSTALL_HINT}  "
              f"(or: pip install {name}=={PINNED[name]})", flush=True)
        return None, None
    try:
        from importlib.metadata import version  # noqa: PLC0415
        ver = version(name)
    except Exception:  # noqa: BLE001 - version lookup is best effort
        ver = getattr(mod, "__version__", "?")
    if module == "draughts" and not hasattr(mod, "StandardBoard"):
        # pydraughts (damier's test extra) also imports as "draughts": not py-draughts
        print(f"NOTE: the 'draughts' module here is not {name} (pydraughts, the test extra, "
              f"takes that name); its column is skipped. Install the benchmark peers in an "
              f"environment of their own: {INSTALL_HINT}", flush=True)
        return None, None
    if ver != PINNED[name]:
        print(f"NOTE: {name} {ver} is installed; the benchmark is pinned to {PINNED[name]} "
              f"({INSTALL_HINT})", flush=True)
    return mod, ver


# ---------------------------------------------------------------------------
# the libraries behind one interface
# ---------------------------------------------------------------------------

MoveKey = tuple[int, int, tuple[int, ...]]  # (from, to, sorted captured squares), 1-based


class Lib:
    """One library: how to make a board, count perft, and name its moves."""

    def __init__(self, name: str, version: str, new_board: Callable[[], Any],
                 key: Callable[[Any], MoveKey]) -> None:
        self.name = name
        self.version = version
        self.new_board = new_board
        self.key = key
        # perft entries: (label, depth, function(depth) -> leaves)
        self.perfts: list[tuple[str, int, Callable[[int], int]]] = []

    @property
    def title(self) -> str:
        return f"{self.name} {self.version}"


def _damier_lib(damier: Any) -> Lib:
    lib = Lib("damier", damier.__version__, damier.Board,
              lambda m: (m.from_square, m.to_square, tuple(sorted(m.captures))))
    return lib


def _dame_lib(dame: Any, version: str) -> Lib:
    return Lib("dame-rs", version, dame.Board,
               lambda m: (m.from_square, m.to_square, tuple(sorted(m.captured))))


def _pyd_lib(draughts: Any, version: str) -> Lib:
    return Lib("py-draughts", version, draughts.Board,
               lambda m: (m.square_list[0] + 1, m.square_list[-1] + 1,
                          tuple(sorted(s + 1 for s in m.captured_list))))


def _api_perft(board: Any, depth: int) -> int:
    """A plain perft over a board's public API (legal_moves / push / pop), bulk counted."""
    moves = board.legal_moves
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    for move in moves:
        board.push(move)
        total += _api_perft(board, depth - 1)
        board.pop()
    return total


def key_text(key: MoveKey) -> str:
    """Hub-style text of a move key: ``32-28``, ``28x19x23`` (from, to, captured squares)."""
    frm, to, caps = key
    if not caps:
        return f"{frm}-{to}"
    return "x".join(str(s) for s in (frm, to, *caps))


# ---------------------------------------------------------------------------
# output helpers
# ---------------------------------------------------------------------------


def say(text: str = "", end: str = "\n") -> None:
    print(text, end=end, flush=True)


def fmt_rate(leaves_per_s: float) -> str:
    if leaves_per_s >= 1e6:
        return f"{leaves_per_s / 1e6:8.2f} M leaves/s"
    return f"{leaves_per_s / 1e3:8.1f} k leaves/s"


# ---------------------------------------------------------------------------
# 1. perft
# ---------------------------------------------------------------------------


def time_perft(fn: Callable[[int], int], depth: int, repeat: int) -> tuple[int, float, list[float]]:
    """``(leaves, best seconds, all seconds)`` of ``repeat`` runs of ``fn(depth)``."""
    times = []
    leaves = -1
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        n = fn(depth)
        times.append(time.perf_counter() - t0)
        if leaves not in (-1, n):
            raise RuntimeError(f"perft({depth}) returned {leaves} and then {n}")
        leaves = n
    return leaves, min(times), times


def run_perft(libs: dict[str, Lib], repeat: int) -> tuple[list[dict[str, Any]], list[str]]:
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for lib in libs.values():
        for label, depth, fn in lib.perfts:
            say(f"[perft] {label:<36} depth {depth:2d} ... ", end="")
            try:
                leaves, best, times = time_perft(fn, depth, repeat)
            except Exception as exc:  # noqa: BLE001 - report and go on with the others
                say(f"ERROR: {type(exc).__name__}: {exc}")
                errors.append(f"perft {label} depth {depth}: {type(exc).__name__}: {exc}")
                continue
            expected = PUBLISHED[depth]
            ok = leaves == expected
            rate = leaves / best
            say(f"{leaves:>12,} leaves  best {best:8.4f} s of {repeat}  {fmt_rate(rate)}  "
                + ("count OK" if ok else f"COUNT WRONG (published: {expected:,})"))
            if not ok:
                errors.append(f"perft {label} depth {depth}: {leaves:,} leaves, "
                              f"published count is {expected:,}")
            rows.append({"library": lib.name, "label": label, "version": lib.version,
                         "depth": depth, "leaves": leaves, "expected": expected,
                         "count_ok": ok, "best_s": best, "times_s": times,
                         "leaves_per_s": rate if ok else None})
    return rows, errors


# ---------------------------------------------------------------------------
# 2. legal_moves
# ---------------------------------------------------------------------------


def make_playouts(damier: Any, count: int, seed: int, max_plies: int) -> list[list[MoveKey]]:
    """``count`` seeded random move sequences from the start position.

    Each sequence has a length drawn uniformly from 0..max_plies and stops early where the
    game is over (any rule: no move, draw rules), so that no library answers with an empty
    list because of a finished game.  Moves are chosen among the sorted move keys, so the
    sequences depend on the seed only, not on any library's move order.
    """
    rng = random.Random(seed)
    key = _damier_lib(damier).key
    board = damier.Board()
    sequences = []
    for _ in range(count):
        target = rng.randint(0, max_plies)
        seq: list[MoveKey] = []
        while len(seq) < target:
            if board.outcome() is not None:
                break
            by_key = {key(m): m for m in board.legal_moves}
            k = rng.choice(sorted(by_key))
            board.push(by_key[k])
            seq.append(k)
        if seq and board.outcome() is not None:
            board.pop()  # the previous position was checked: the game was not over there
            seq.pop()
        sequences.append(seq)
        board.reset()
    return sequences


def replay(lib: Lib, sequences: list[list[MoveKey]]) -> list[Any]:
    """One board per sequence, with the moves played through the library's own API."""
    boards = []
    for i, seq in enumerate(sequences):
        board = lib.new_board()
        for ply, k in enumerate(seq):
            by_key = {lib.key(m): m for m in board.legal_moves}
            move = by_key.get(k)
            if move is None:
                raise RuntimeError(
                    f"{lib.title}: move {key_text(k)} (ply {ply + 1} of playout {i}) is not among "
                    f"its legal moves {sorted(key_text(x) for x in by_key)}; "
                    f"position {board.fen()}")
            board.push(move)
        boards.append(board)
    return boards


def check_same_moves(sets: dict[str, list[Any]], libs: dict[str, Lib],
                     sequences: list[list[MoveKey]]) -> int:
    """Raises unless every library has the same legal moves in every position; the move total."""
    names = list(sets)
    ref = names[0]
    total = 0
    for i in range(len(sequences)):
        ref_keys = sorted(libs[ref].key(m) for m in sets[ref][i].legal_moves)
        total += len(ref_keys)
        for name in names[1:]:
            keys = sorted(libs[name].key(m) for m in sets[name][i].legal_moves)
            if keys != ref_keys:
                raise RuntimeError(
                    f"legal moves differ in playout {i} "
                    f"({' '.join(key_text(k) for k in sequences[i])}): "
                    f"{ref}: {[key_text(k) for k in ref_keys]}, "
                    f"{name}: {[key_text(k) for k in keys]}")
    return total


def time_legal_moves(boards: Sequence[Any], repeat: int, min_time: float) -> tuple[float, int]:
    """Best-of-``repeat`` seconds per ``board.legal_moves`` call over ``boards``.

    Each repeat calls ``legal_moves`` once on every board, ``passes`` times over (calibrated
    so that a repeat lasts at least ``min_time``); the loop is ``map`` in C with the results
    dropped at once, so little but the call itself is timed.  The garbage collector is off
    while timing, as in ``timeit``.  Returns ``(seconds per call, calls per repeat)``.
    """
    get = attrgetter("legal_moves")

    def once(passes: int) -> float:
        t0 = time.perf_counter()
        for _ in range(passes):
            deque(map(get, boards), maxlen=0)
        return time.perf_counter() - t0

    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        passes = 1
        while True:  # calibrate (this also warms up)
            t = once(passes)
            if t >= min_time:
                break
            passes = max(passes * 2, int(passes * min_time / max(t, 1e-9) * 1.1))
        best = min([t] + [once(passes) for _ in range(repeat - 1)])
    finally:
        if enabled:
            gc.enable()
    calls = passes * len(boards)
    return best / calls, calls


def run_legal_moves(damier: Any, libs: dict[str, Lib], positions: int, seed: int,
                    max_plies: int, repeat: int, min_time: float) -> dict[str, Any]:
    say(f"[legal_moves] generating {positions} positions: seeded random playouts "
        f"(seed {seed}, 0-{max_plies} plies) ... ", end="")
    t0 = time.perf_counter()
    sequences = make_playouts(damier, positions, seed, max_plies)
    plies = [len(s) for s in sequences]
    say(f"done in {time.perf_counter() - t0:.1f} s (mean {sum(plies) / len(plies):.1f} plies)")

    sets: dict[str, list[Any]] = {}
    for name, lib in libs.items():
        say(f"[legal_moves] replaying the playouts in {lib.title} ... ", end="")
        t0 = time.perf_counter()
        sets[name] = replay(lib, sequences)
        say(f"done in {time.perf_counter() - t0:.1f} s")
    total_moves = check_same_moves(sets, libs, sequences)
    n_capture = sum(1 for b in sets["damier"] if b.must_capture)
    say(f"[legal_moves] all {len(libs)} libraries agree on the legal moves of every position "
        f"({total_moves} moves, {total_moves / positions:.2f} per position, "
        f"{n_capture} positions with a capture)")

    result: dict[str, Any] = {
        "positions": positions, "seed": seed, "max_plies": max_plies,
        "mean_plies": sum(plies) / len(plies), "moves_per_position": total_moves / positions,
        "positions_with_capture": n_capture, "start_us": {}, "set_us": {}}
    for name, lib in libs.items():
        start = lib.new_board()
        n_start = len(start.legal_moves)
        per_call, calls = time_legal_moves([start] * 1000, repeat, min_time)
        result["start_us"][name] = per_call * 1e6
        say(f"[legal_moves] {lib.title:<20} {f'start position ({n_start} moves)':<26}"
            f"{per_call * 1e6:9.3f} us/call  (best of {repeat}, {calls:,} calls each)")
        per_call, calls = time_legal_moves(sets[name], repeat, min_time)
        result["set_us"][name] = per_call * 1e6
        say(f"[legal_moves] {lib.title:<20} {f'{positions} random positions':<26}"
            f"{per_call * 1e6:9.3f} us/call  (best of {repeat}, {calls:,} calls each)")
    return result


# ---------------------------------------------------------------------------
# 3. perft per variant (damier)
# ---------------------------------------------------------------------------

REFERENCE_PERFT = (Path(__file__).resolve().parent.parent
                   / "tests" / "data" / "reference" / "perft.txt")


def reference_start_counts() -> dict[str, list[int]]:
    """The published start-position counts (depth 1, 2, ...) by variant name, from the
    ``initial`` lines of ``tests/data/reference/perft.txt`` (empty if it is missing)."""
    counts: dict[str, list[int]] = {}
    if not REFERENCE_PERFT.is_file():
        return counts
    for line in REFERENCE_PERFT.read_text(encoding="utf-8").splitlines():
        parts = [p.strip() for p in line.split(";")]
        if line.lstrip().startswith("#") or len(parts) != 4 or parts[1] != "initial":
            continue
        counts[parts[0]] = [int(c) for c in parts[3].split(",")]
    return counts


def run_variants(damier: Any, min_leaves: int,
                 repeat: int) -> tuple[list[dict[str, Any]], list[str]]:
    """damier's perft from every variant's start position, at the first depth with at
    least ``min_leaves`` leaves."""
    from damier.variants import VARIANTS  # noqa: PLC0415

    published = reference_start_counts()
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for variant in VARIANTS.values():
        depth = 1
        while damier.Board(variant=variant).perft(depth) < min_leaves and depth < 20:
            depth += 1
        say(f"[variants] {variant.name:<14} depth {depth:2d} ... ", end="")
        leaves, best, times = time_perft(
            lambda d, v=variant: damier.Board(variant=v).perft(d), depth, repeat)
        counts = published.get(variant.name, [])
        expected = counts[depth - 1] if depth <= len(counts) else None
        ok = expected is None or leaves == expected
        check = ("no published count" if expected is None else
                 "count OK" if ok else f"COUNT WRONG (published: {expected:,})")
        say(f"{leaves:>12,} leaves  best {best:8.4f} s of {repeat}  {fmt_rate(leaves / best)}  "
            f"{check}")
        if not ok:
            errors.append(f"perft {variant.name} depth {depth}: {leaves:,} leaves, "
                          f"published count is {expected:,}")
        rows.append({"variant": variant.name, "depth": depth, "leaves": leaves,
                     "expected": expected, "count_ok": ok, "best_s": best, "times_s": times,
                     "leaves_per_s": leaves / best if ok else None})
    return rows, errors


# ---------------------------------------------------------------------------
# summary and goals
# ---------------------------------------------------------------------------


def summarize(libs: dict[str, Lib], perft_rows: list[dict[str, Any]],
              lm: dict[str, Any] | None,
              quick: bool) -> tuple[list[dict[str, Any]], dict[str, float]]:
    say()
    say("=" * 78)
    say("perft, International start position (bulk-counted leaves; best time of the repeats)")
    say("=" * 78)
    say(f"{'engine':<36}{'depth':>5}{'leaves':>14}{'best s':>10}{'leaves/s':>15}")
    for r in perft_rows:
        rate = f"{r['leaves_per_s'] / 1e6:.2f} M" if r["leaves_per_s"] else "WRONG COUNT"
        say(f"{r['label']:<36}{r['depth']:>5}{r['leaves']:>14,}{r['best_s']:>10.4f}{rate:>15}")

    def rate_of(label_prefix: str) -> float | None:
        for r in perft_rows:
            if r["label"].startswith(label_prefix) and r["leaves_per_s"]:
                return r["leaves_per_s"]
        return None

    ratios: dict[str, float] = {}
    d_rate = rate_of("damier")
    for r in perft_rows:
        if r["library"] != "damier" and r["leaves_per_s"] and d_rate:
            ratio = d_rate / r["leaves_per_s"]
            ratios[f"perft damier/{r['label']}"] = ratio
            d_depth = next(x["depth"] for x in perft_rows if x["library"] == "damier")
            note = ("" if r["depth"] == d_depth
                    else f"  (leaves/s at depth {d_depth} vs depth {r['depth']})")
            say(f"  damier / {r['label']:<36} {ratio:8.2f}x{note}")

    if lm is not None:
        say()
        say("=" * 78)
        say("legal_moves through the Python API (us per call; best of the repeats)")
        say("=" * 78)
        names = list(libs)
        say(f"{'position set':<36}" + "".join(f"{libs[n].name:>14}" for n in names))
        say(f"{'start position':<36}" + "".join(f"{lm['start_us'][n]:>14.3f}" for n in names))
        label = f"{lm['positions']} random positions"
        say(f"{label:<36}" + "".join(f"{lm['set_us'][n]:>14.3f}" for n in names))
        for n in names[1:]:
            for which, title in (("start_us", "start position"), ("set_us", label)):
                ratio = lm[which][n] / lm[which]["damier"]
                ratios[f"legal_moves {libs[n].name}/damier {title}"] = ratio
                say(f"  {libs[n].name + ' / damier time, ' + title:<48} {ratio:8.2f}x  "
                    f"(damier is {ratio:.2f}x as fast)")

    # goals
    goals: list[dict[str, Any]] = []
    say()
    say("=" * 78)
    say("goals" + ("  (--quick: smaller depth and position set; the full run is the reference)"
                   if quick else ""))
    say("=" * 78)

    def goal(name: str, status: str, detail: str) -> None:
        goals.append({"goal": name, "status": status, "detail": detail})
        say(f"{status:<5} {name}: {detail}")

    dame_rate = rate_of("dame-rs")
    if d_rate is None:
        goal("perft >= 100 M leaves/s", "FAIL", "damier has no valid perft figure")
    else:
        goal("perft >= 100 M leaves/s", "PASS" if d_rate >= GOAL_LEAVES_PER_S else "FAIL",
             f"damier {d_rate / 1e6:.2f} M leaves/s")
    if "dame-rs" not in libs:
        goal("perft >= 5x dame-rs", "SKIP", f"dame-rs not installed ({INSTALL_HINT})")
    elif d_rate is None or dame_rate is None:
        goal("perft >= 5x dame-rs", "FAIL", "no valid perft figure for damier or dame-rs")
    else:
        ratio = d_rate / dame_rate
        goal("perft >= 5x dame-rs", "PASS" if ratio >= GOAL_RATIO_DAME else "FAIL",
             f"{ratio:.2f}x ({d_rate / 1e6:.2f} vs {dame_rate / 1e6:.2f} M leaves/s)")
    for which, title in (("set_us", "random positions"), ("start_us", "start position")):
        name = f"legal_moves at least as fast as dame-rs ({title})"
        if "dame-rs" not in libs:
            goal(name, "SKIP", f"dame-rs not installed ({INSTALL_HINT})")
        elif lm is None:
            goal(name, "SKIP", "legal_moves benchmark not run")
        else:
            d, o = lm[which]["damier"], lm[which]["dame-rs"]
            goal(name, "PASS" if d <= o else "FAIL",
                 f"damier {d:.3f} us vs dame-rs {o:.3f} us per call ({o / d:.2f}x)")
    return goals, ratios


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Benchmark damier against dame-rs and py-draughts: perft leaves/s and "
        "legal_moves us/call (International draughts).")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: perft depth 7 (py-draughts 4), 200 positions, 2 repeats")
    p.add_argument("--repeat", type=int, default=None, metavar="N",
                   help="runs per measurement, the best one counts (default 5; --quick 2)")
    p.add_argument("--json", metavar="OUT", help="write every figure to OUT as JSON")
    p.add_argument("--strict", action="store_true",
                   help="exit with status 1 if a goal FAILs (default: 0 unless a count is wrong)")
    p.add_argument("--depth", type=int, default=None,
                   help="perft depth for damier and dame-rs (default 9; --quick 7)")
    p.add_argument("--pyd-depth", type=int, default=None,
                   help="perft depth for py-draughts (default 6; --quick 4)")
    p.add_argument("--positions", type=int, default=None,
                   help="random positions for legal_moves (default 2000; --quick 200)")
    p.add_argument("--seed", type=int, default=20261121, help="seed of the random playouts")
    p.add_argument("--max-plies", type=int, default=120,
                   help="longest random playout, in plies (default 120)")
    p.add_argument("--no-legal-moves", action="store_true", help="skip the legal_moves benchmark")
    p.add_argument("--variant-leaves", type=int, default=None, metavar="N",
                   help="perft per variant: the first depth with at least N leaves "
                   "(default 5000000; --quick 100000)")
    p.add_argument("--no-variants", action="store_true", help="skip the perft per variant")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (2 if args.quick else 5)
    depth = args.depth if args.depth is not None else (7 if args.quick else 9)
    pyd_depth = args.pyd_depth if args.pyd_depth is not None else (4 if args.quick else 6)
    positions = args.positions if args.positions is not None else (200 if args.quick else 2000)
    min_time = 0.02 if args.quick else 0.05
    for name, value, hi in (("--depth", depth, len(PUBLISHED) - 1),
                            ("--pyd-depth", pyd_depth, len(PUBLISHED) - 1)):
        if not 1 <= value <= hi:
            build_parser().error(f"{name} must be between 1 and {hi} (published counts)")
    if repeat < 1 or positions < 1:
        build_parser().error("--repeat and --positions must be at least 1")
    variant_leaves = (args.variant_leaves if args.variant_leaves is not None
                      else (100_000 if args.quick else 5_000_000))
    if variant_leaves < 1:
        build_parser().error("--variant-leaves must be at least 1")

    t_start = time.perf_counter()
    damier = import_damier()
    say(f"damier benchmark: Python {platform.python_version()} "
        f"({platform.python_implementation()}), "
        f"{platform.machine()}, {platform.system()}, {os.cpu_count()} CPUs; "
        f"processor: {_cpu_name()}")
    say(f"damier {damier.__version__} from {Path(damier.__file__).parent}")
    warning = _stale_core_warning(damier)
    if warning:
        say(warning)

    libs: dict[str, Lib] = {"damier": _damier_lib(damier)}
    b = damier.Board
    libs["damier"].perfts.append(("damier Board().perft", depth, lambda d: b().perft(d)))
    dame, dame_ver = _import_peer("dame-rs", "dame")
    if dame is not None:
        libs["dame-rs"] = _dame_lib(dame, dame_ver)
        libs["dame-rs"].perfts.append(
            ("dame-rs dame.perft", depth, lambda d: dame.perft(dame.Board(), d)))
    draughts, pyd_ver = _import_peer("py-draughts", "draughts")
    if draughts is not None:
        lib = libs["py-draughts"] = _pyd_lib(draughts, pyd_ver)
        try:  # its own perft: the turbo engine's bitboard generator (not a Board method)
            from draughts.engines.turbo import perft_from_board  # noqa: PLC0415
            lib.perfts.append(("py-draughts turbo.perft_from_board", pyd_depth,
                               lambda d: perft_from_board(draughts.Board(), d)))
        except ImportError:
            say("NOTE: py-draughts has no draughts.engines.turbo.perft_from_board; "
                "only its Board API perft is measured")
        lib.perfts.append(("py-draughts Board API loop", pyd_depth,
                           lambda d: _api_perft(draughts.Board(), d)))

    say(f"perft: depth {depth} (py-draughts: depth {pyd_depth}), best of {repeat}; "
        f"legal_moves: start position and {positions} random positions, best of {repeat}")
    say()
    perft_rows, errors = run_perft(libs, repeat)

    lm = None
    if not args.no_legal_moves:
        say()
        try:
            lm = run_legal_moves(damier, libs, positions, args.seed, args.max_plies, repeat,
                                 min_time)
        except RuntimeError as exc:
            say(f"\nERROR: {exc}")
            errors.append(f"legal_moves: {exc}")

    variant_rows: list[dict[str, Any]] = []
    if not args.no_variants:
        say()
        variant_rows, variant_errors = run_variants(damier, variant_leaves, repeat)
        errors += variant_errors

    goals, ratios = summarize(libs, perft_rows, lm, args.quick)
    if variant_rows:
        say()
        say("=" * 78)
        say("damier perft per variant, start positions (bulk-counted leaves; best time)")
        say("=" * 78)
        say(f"{'variant':<36}{'depth':>5}{'leaves':>14}{'best s':>10}{'leaves/s':>15}")
        for r in variant_rows:
            rate = f"{r['leaves_per_s'] / 1e6:.2f} M" if r["leaves_per_s"] else "WRONG COUNT"
            say(f"{r['variant']:<36}{r['depth']:>5}{r['leaves']:>14,}{r['best_s']:>10.4f}"
                f"{rate:>15}")
    elapsed = time.perf_counter() - t_start
    say()
    if errors:
        say("ERRORS (wrong counts or disagreeing move generators; "
            "the figures above are not valid):")
        for e in errors:
            say(f"  - {e}")
    failed = [g for g in goals if g["status"] == "FAIL"]
    say(f"done in {elapsed:.1f} s: {sum(g['status'] == 'PASS' for g in goals)} PASS, "
        f"{len(failed)} FAIL, {sum(g['status'] == 'SKIP' for g in goals)} SKIP"
        + (f", {len(errors)} ERROR" if errors else ""))

    if args.json:
        report = {
            "benchmark": "damier benchmarks/perft.py",
            "argv": list(sys.argv[1:] if argv is None else argv),
            "quick": args.quick, "repeat": repeat,
            "machine": {"python": platform.python_version(), "implementation":
                        platform.python_implementation(), "machine": platform.machine(),
                        "system": platform.system(), "cpus": os.cpu_count(),
                        "processor": _cpu_name()},
            "libraries": {n: lib.version for n, lib in libs.items()},
            "perft": perft_rows, "legal_moves": lm, "variants": variant_rows,
            "ratios": ratios, "goals": goals,
            "errors": errors, "elapsed_s": elapsed,
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        say(f"figures written to {args.json}")

    if errors:
        return 1
    if args.strict and failed:
        return 1
    return 0


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
