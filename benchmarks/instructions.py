#!/usr/bin/env python3
"""Instructions per node: the search's cost counted by Valgrind, not timed.

On a machine whose timings move by 15-20% from run to run (a shared virtual machine),
nodes per second cannot show a change of a few per cent. The number of instructions
the search executes is exact: Valgrind's callgrind counts those of the search only
(``--toggle-collect`` on the principal variation search, so neither Python's start nor
the weights' loading counts) over fixed-depth searches, and the figure is that count
divided by the nodes searched. Memory stalls are not in it (``--cache-sim`` adds the
simulated first-level data cache misses): confirm a gain in time with
``benchmarks/search.py``.

Each build runs in a child process under ``valgrind --tool=callgrind``: this tree's
(``src/``) and, when there is one, the baseline's (``.baseline/venv/bin/python``, built
by ``sh benchmarks/make_baseline.sh``; ``--baseline PYTHON`` for another). The work:
the start position to ``--start-depth`` (default 13) and the first ``--positions`` (5)
middlegames of ``benchmarks/data/middlegames.txt`` to ``--depth`` (9), one engine, its
hash table kept between them. About a minute a build.

Usage (from the repository root, with the compiled core built in place; needs
``valgrind``: ``apt-get install -y valgrind``)::

    PYTHONPATH=src python benchmarks/instructions.py
    PYTHONPATH=src python benchmarks/instructions.py --depth 10 --positions 20 --no-baseline
    PYTHONPATH=src python benchmarks/instructions.py --cache-sim --json ir.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MIDDLEGAMES = Path(__file__).resolve().parent / "data" / "middlegames.txt"
DEFAULT_BASELINE = ROOT / ".baseline" / "venv" / "bin" / "python"
# The compiled principal variation search (every build since the baseline names it so):
# the instructions counted are those executed while it is on the stack.
SEARCH_SYMBOL = "__pyx_f_6damier_5_core_pvs"

# The child: the same fixed-depth searches with the API every build has.
CHILD = r"""
import json, sys
request = json.loads(sys.argv[1])
import damier
from damier.engine import Engine
engine = Engine(hash_mb=16)
nodes = {"start": engine.search(damier.Board(), depth=request["start_depth"]).nodes}
nodes["middlegames"] = sum(engine.search(damier.Board(fen), depth=request["depth"]).nodes
                           for fen in request["fens"])
print(json.dumps({"version": damier.__version__, "nodes": nodes}))
"""


def say(text: str = "") -> None:
    print(text, flush=True)


def measure(python: str, env: dict[str, str], request: dict[str, Any],
            cache_sim: bool) -> dict[str, Any]:
    """One build under callgrind: its nodes and the instructions (and, with
    ``cache_sim``, the first-level data cache misses) of its searches."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                   f"--toggle-collect={SEARCH_SYMBOL}"]
        if cache_sim:
            command.append("--cache-sim=yes")
        command += [python, "-c", CHILD, json.dumps(request)]
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False,
                              timeout=3600)
        if done.returncode != 0:
            if "Unrecognised instruction" in done.stderr:
                raise RuntimeError(
                    f"{python}: valgrind cannot run this build's compiled core (an instruction "
                    "it does not know, such as AVX-512 from -march=native): build it with "
                    "DAMIER_PORTABLE=1 DAMIER_PGO=0 python setup.py build_ext --inplace, or "
                    "use a newer valgrind")
            raise RuntimeError(f"{python}: {done.stderr.strip()[-800:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        events, totals = [], []
        for line in out.read_text().splitlines():
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:") or line.startswith("summary:"):
                totals = [int(x) for x in line.split()[1:]]
        counts = dict(zip(events, totals, strict=False))
    if not counts.get("Ir"):
        raise RuntimeError(f"{python}: callgrind counted no instructions in {SEARCH_SYMBOL} "
                           "(is the compiled core built?)")
    nodes = result["nodes"]["start"] + result["nodes"]["middlegames"]
    result["instructions"] = counts["Ir"]
    result["per_node"] = counts["Ir"] / max(1, nodes)
    if cache_sim:
        misses = counts.get("D1mr", 0) + counts.get("D1mw", 0)
        result["d1_misses"] = misses
        result["d1_misses_per_node"] = misses / max(1, nodes)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=9, help="middlegames' depth (default 9)")
    parser.add_argument("--start-depth", type=int, default=13,
                        help="the start position's depth (default 13)")
    parser.add_argument("--positions", type=int, default=5,
                        help="middlegames searched, from the first (default 5, at most 20)")
    parser.add_argument("--baseline", metavar="PYTHON", default=None,
                        help="the Python of a baseline build (default: "
                             ".baseline/venv/bin/python when it exists)")
    parser.add_argument("--no-baseline", action="store_true", help="this tree only")
    parser.add_argument("--cache-sim", action="store_true",
                        help="also count the simulated first-level data cache misses")
    parser.add_argument("--json", metavar="OUT", help="write the figures to this file")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        say("SKIP: valgrind is not installed (apt-get install -y valgrind)")
        return 0
    if not 1 <= args.positions <= 20 or args.depth < 1 or args.start_depth < 1:
        parser.error("--positions is 1 to 20, the depths at least 1")
    fens = [line.strip() for line in MIDDLEGAMES.read_text().splitlines()
            if line.strip() and not line.startswith("#")][:args.positions]
    request = {"depth": args.depth, "start_depth": args.start_depth, "fens": fens}
    here_env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep
                    + os.environ.get("PYTHONPATH", ""))
    builds: dict[str, tuple[str, dict[str, str]]] = {"now": (sys.executable, here_env)}
    baseline = args.baseline or (str(DEFAULT_BASELINE) if DEFAULT_BASELINE.exists() else None)
    if baseline and not args.no_baseline:
        builds["baseline"] = (baseline, {k: v for k, v in os.environ.items()
                                         if k != "PYTHONPATH"})
    say(f"instructions per node (callgrind): start position to depth {args.start_depth}, "
        f"{len(fens)} middlegames to depth {args.depth}")
    header = f"{'build':<9} {'nodes':>10} {'instructions':>15} {'per node':>9}"
    if args.cache_sim:
        header += f" {'D1 misses/node':>15}"
    say(header)
    say("-" * len(header))
    rows: dict[str, dict[str, Any]] = {}
    for name, (python, env) in builds.items():
        try:
            r = rows[name] = measure(python, env, request, args.cache_sim)
        except RuntimeError as error:
            say(f"FAIL: {error}")
            return 1
        nodes = r["nodes"]["start"] + r["nodes"]["middlegames"]
        line = f"{name:<9} {nodes:>10,} {r['instructions']:>15,} {r['per_node']:>9.0f}"
        if args.cache_sim:
            line += f" {r['d1_misses_per_node']:>15.2f}"
        say(line)
    if "baseline" in rows:
        ratio = rows["now"]["per_node"] / rows["baseline"]["per_node"]
        say(f"  instructions per node: x{ratio:.3f} of the baseline's (lower is faster)")
    if args.json:
        Path(args.json).write_text(json.dumps({"request": request, "builds": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
