"""Playing strength: damier against dame (dame-rs), its baseline and its own levels.

Run by hand from the repository root (takes a while: about 10 s per game at
0.1 s per move, divided by --concurrency):

    PYTHONPATH=src python benchmarks/strength.py                      # everything, 200 games each
    PYTHONPATH=src python benchmarks/strength.py --games 40 --concurrency 2
    PYTHONPATH=src python benchmarks/strength.py --only dame --pdn-dir games/
    sh benchmarks/make_baseline.sh                                    # once: the baseline
    PYTHONPATH=src python benchmarks/strength.py --only baseline --games 2000 --sprt 0 10
    PYTHONPATH=src python benchmarks/strength.py --only baseline,dame --games 400 --resume-dir runs/
    PYTHONPATH=src python benchmarks/strength.py --only baseline --a-options egdb=DIR
    PYTHONPATH=src python benchmarks/strength.py --only external,external-baseline \
        --external dxp:localhost:27531 --games 300 --resume-dir runs/

Matches (engine A first; the score and Elo are A's):

* ``dame``:    damier (full strength) vs ``hub:dame hub`` (dame-rs's Hub engine;
  ``pip install dame-rs==0.2.0``, skipped when ``dame`` is not on PATH);
* ``baseline``: damier (this tree) vs damier as of the git tag ``issue23-start``
  (commit 8f3bd69, the start of the strength round 2 issue),
  run as a Hub engine from its own virtual environment
  (``.baseline/venv/bin/damier hub``, under its own Python in isolated mode
  so that ``PYTHONPATH=src`` cannot make it import this tree; ``--baseline PATH``
  for another build;
  skipped when it is missing: ``sh benchmarks/make_baseline.sh`` builds it);
* ``egdb``: damier probing the endgame databases (``--egdb DIR``, default the
  default directory: build them with ``damier egdb build``; skipped when it holds
  none; ``--egdb-pieces N``, default the engine's, 5) vs the same engine without them;
* ``external``, ``external-baseline``: damier (this tree), then the baseline, against
  another program (``--external SPEC``: an engine spec such as ``dxp:localhost:27531``
  or ``hub:COMMAND``; skipped without one), neither with a book or endgame databases:
  the same outside opponent measures the progress from the baseline a second way, not
  by self-play alone (see benchmarks/README.md for building Moby Dam and playing it);
* ``level1``, ``level5``, ``level10``: damier at that level vs damier at full
  strength (level 10 against itself is the control: its Elo should be near 0);
* ``level1v5``, ``level5v8``: weaker level vs stronger level (the ladder).

Every match plays the shipped openings (``damier/data/openings_international.pdn``)
in game pairs, at ``--movetime`` seconds per move, through
:func:`damier.match.run_match`; the Elo interval is the 95% pentanomial one
(trinomial when a match was cut short; see ``damier.match``). ``--json OUT``
writes every figure.

``--sprt ELO0 ELO1`` (with ``--alpha``, ``--beta``) runs each match as a sequential
test on game pairs (:class:`damier.sprt.SPRT`): it stops as soon as the test accepts
H0 (A at most ELO0 Elo stronger) or H1 (ELO1), and ``--games`` is the most games
(even). This is how an engine change is accepted: ``--only baseline --sprt 0 10``.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import shutil
import time
from pathlib import Path
from typing import Any

from _common import import_damier


ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = ".baseline/venv/bin/damier"
BASELINE = "baseline"  # engine B of the baseline match: the --baseline command, as a Hub engine
EGDB = "egdb"  # engine A of the egdb match: damier with the --egdb tables
EXTERNAL = "external"  # engine B of the external matches: the --external spec
BASELINE_BARE = "baseline-bare"  # the baseline without its book and endgame databases

def baseline_command(script: Path) -> list[str]:
    """The command that runs the baseline as a Hub engine, isolated from this
    process's Python settings.

    The baseline is a console script of its own virtual environment. Run as it
    is, it would inherit ``PYTHONPATH`` (``PYTHONPATH=src``, as this benchmark is
    run) and import *this* tree's damier instead of its own: the match would be
    the current engine against itself. So a script whose interpreter is a Python
    runs under that interpreter in isolated mode (``-I``: no ``PYTHON*``
    variables, no user site, no working directory on the path)."""
    try:
        with open(script, "rb") as f:
            first = f.readline(512).decode("utf-8", "replace").strip()
    except OSError:
        first = ""
    if first.startswith("#!"):
        interpreter = first[2:].strip().split()
        if len(interpreter) == 1 and Path(interpreter[0]).name.startswith("python"):
            return [interpreter[0], "-I", str(script), "hub"]
    return [str(script), "hub"]


MATCHES = {
    "dame": ("damier", "hub:dame hub"),
    "baseline": ("damier", BASELINE),
    "egdb": (EGDB, "damier:egdb=off,name=damier"),
    "external": ("damier", EXTERNAL),
    "external-baseline": (BASELINE_BARE, EXTERNAL),
    "level1": ("damier:level=1", "damier"),
    "level5": ("damier:level=5", "damier"),
    "level10": ("damier:level=10,name=damier level 10", "damier"),
    # Against the full engine both weak levels lose every game; these show that
    # the levels are ordered among themselves too.
    "level1v5": ("damier:level=1,name=damier level 1", "damier:level=5,name=damier level 5"),
    "level5v8": ("damier:level=5,name=damier level 5", "damier:level=8,name=damier level 8"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per match (default 200)")
    parser.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    parser.add_argument("--movetime", type=float, default=0.1,
                        help="seconds per move (default 0.1)")
    parser.add_argument("--only", default=",".join(MATCHES),
                        help=f"comma-separated matches to play (default: {','.join(MATCHES)})")
    parser.add_argument("--seed", type=int, default=20261121, help="opening order and engine seed")
    parser.add_argument("--pdn-dir", help="write each match's games to DIR/<match>.pdn")
    parser.add_argument("--json", help="write the results to this JSON file")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, metavar="PATH",
                        help="the baseline's damier command, run as 'PATH hub' (default "
                        f"{DEFAULT_BASELINE}, relative to the repository root; built by "
                        "benchmarks/make_baseline.sh)")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                        help="stop each match once a sequential test accepts ELO0 or ELO1 "
                        "(--games is then the maximum, even)")
    parser.add_argument("--alpha", type=float, default=0.05, help="--sprt: alpha (0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="--sprt: beta (0.05)")
    parser.add_argument("--resume-dir", metavar="DIR",
                        help="keep a journal of each match's finished games in DIR/<match>.jsonl; "
                             "the same command again (after Ctrl-C) plays only the missing games")
    parser.add_argument("--egdb", metavar="DIR",
                        help="the egdb match's endgame databases (default: damier's default "
                        "directory)")
    parser.add_argument("--egdb-pieces", type=int, metavar="N",
                        help="the egdb match probes up to N pieces (default: the engine's "
                        "default, damier.egdb.DEFAULT_ENGINE_PIECES)")
    parser.add_argument("--a-options", default="", metavar="OPTS",
                        help="more options for damier as engine A of the dame and baseline "
                        "matches, e.g. egdb=DIR (its endgame databases)")
    parser.add_argument("--external", metavar="SPEC",
                        help="the other program of the external matches: an engine spec "
                        "(dxp:HOST:PORT or hub:COMMAND)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    import_damier()
    from damier.match import format_elo  # noqa: PLC0415
    from damier.match import run_match  # noqa: PLC0415
    from damier.sprt import SPRT  # noqa: PLC0415

    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in MATCHES]
    if unknown:
        parser.error(f"unknown match {', '.join(unknown)}; choose from {', '.join(MATCHES)}")
    if args.games < 1 or args.concurrency < 1 or not args.movetime > 0:
        parser.error("--games and --concurrency must be at least 1, --movetime positive")
    if args.sprt is not None:
        if args.games % 2:
            parser.error(f"--sprt counts game pairs: --games must be even, got {args.games}")
        try:
            SPRT(args.sprt[0], args.sprt[1], args.alpha, args.beta)
        except ValueError as err:
            parser.error(f"--sprt: {err}")
    baseline = Path(args.baseline)
    if not baseline.is_absolute() and not baseline.exists():
        baseline = ROOT / baseline
    if args.pdn_dir:
        Path(args.pdn_dir).mkdir(parents=True, exist_ok=True)

    rows: list[dict[str, Any]] = []
    began = time.monotonic()
    interrupted = False
    for name in names:
        a, b = MATCHES[name]
        if b.startswith("hub:dame") and shutil.which("dame") is None:
            print(f"[{name}] SKIP: 'dame' is not on PATH (pip install dame-rs==0.2.0)")
            rows.append({"match": name, "skipped": "dame not installed"})
            continue
        if b == EXTERNAL:
            if not args.external:
                print(f"[{name}] SKIP: no --external program given")
                rows.append({"match": name, "skipped": "no --external program"})
                continue
            b = args.external
        if BASELINE in (a, b) or a == BASELINE_BARE:
            if not (baseline.is_file() and baseline.stat().st_mode & 0o111):
                print(f"[{name}] SKIP: no baseline engine at {baseline} (build it with "
                      "'sh benchmarks/make_baseline.sh', or give --baseline PATH)")
                rows.append({"match": name, "skipped": f"no baseline at {baseline}"})
                continue
            if b == BASELINE:
                b = "hub:" + shlex.join(baseline_command(baseline))
            if a == BASELINE_BARE:
                # As "damier" in this process plays: no book, no endgame databases.
                a = "hub:" + shlex.join(baseline_command(baseline) + ["--no-book", "--no-egdb"])
        if a == EGDB:
            from damier.egdb import DEFAULT_ENGINE_PIECES, default_directory  # noqa: PLC0415

            folder = Path(args.egdb) if args.egdb else default_directory()
            if not any((folder / "international").glob("*.egdb")):
                print(f"[{name}] SKIP: no International tables in {folder} (build them with "
                      "'damier egdb build', or give --egdb DIR)")
                rows.append({"match": name, "skipped": f"no tables in {folder}"})
                continue
            pieces = args.egdb_pieces or DEFAULT_ENGINE_PIECES
            a = f"damier:egdb={folder},egdb_pieces={pieces},name=damier egdb {pieces}"
        if args.a_options and a == "damier":
            a = f"damier:{args.a_options}"
        sprt = SPRT(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
        print(f"[{name}] {a} vs {b}: {'at most ' if sprt else ''}{args.games} games at "
              f"{args.movetime:g} s/move, concurrency {args.concurrency}"
              + (f", SPRT [{args.sprt[0]:g}, {args.sprt[1]:g}]" if sprt else ""), flush=True)
        start = time.monotonic()
        pdn = str(Path(args.pdn_dir) / f"{name}.pdn") if args.pdn_dir else None
        journal = None
        if args.resume_dir:
            Path(args.resume_dir).mkdir(parents=True, exist_ok=True)
            journal = str(Path(args.resume_dir) / f"{name}.jsonl")
        result = run_match(a, b, games=args.games, movetime=args.movetime,
                           concurrency=args.concurrency, pdn_path=pdn, seed=args.seed,
                           progress=not args.no_progress, sprt=sprt, resume=journal)
        seconds = time.monotonic() - start
        at = result.sprt_at_decision
        print(result.summary(), flush=True)
        lo, hi = result.elo_interval
        rows.append({"match": name, "a": result.engine_a, "b": result.engine_b,
                     "games": result.games_played, "wins": result.wins, "draws": result.draws,
                     "losses": result.losses, "score": result.score, "elo": result.elo,
                     "elo_low": lo, "elo_high": hi, "interval_model": result.interval_model,
                     "pentanomial": result.pentanomial, "seconds": round(seconds, 1),
                     "interrupted": result.interrupted, "errors": result.errors,
                     "sprt": (dict(sprt.to_dict(), llr=sprt.llr, bounds=sprt.bounds,
                                   decision=result.sprt_decision,
                                   # the LLR and pairs when it decided (the pairs in
                                   # progress then are counted above)
                                   llr_at_decision=at.llr if at else None,
                                   pairs_at_decision=at.pairs if at else None)
                              if sprt else None)})
        if result.interrupted:
            interrupted = True
            break

    print()
    print(f"{'match':<17} {'A':<22} {'B':<16} {'games':>5} {'W':>4} {'D':>4} {'L':>4} "
          f"{'score':>7} {'Elo':>6}  95% interval")
    for row in rows:
        if "skipped" in row:
            print(f"{row['match']:<17} SKIP ({row['skipped']})")
            continue
        score = f"{100 * row['score']:.1f}%" if row["games"] else "n/a"
        print(f"{row['match']:<17} {row['a'][:22]:<22} {row['b'][:16]:<16} {row['games']:>5} "
              f"{row['wins']:>4} {row['draws']:>4} {row['losses']:>4} {score:>7} "
              f"{format_elo(row['elo'], 0):>6}  "
              f"[{format_elo(row['elo_low'], 0)}, {format_elo(row['elo_high'], 0)}] "
              f"({row['interval_model']})")
        if row["pentanomial"] is not None:
            print(f"{'':<17} pairs [LL, LD, DD+WL, WD, WW] {list(row['pentanomial'])}")
        if row["sprt"] is not None:
            test = row["sprt"]
            lower, upper = test["bounds"]
            decided = test["decision"] is not None
            llr = test["llr_at_decision"] if decided else test["llr"]
            print(f"{'':<17} SPRT [{test['elo0']:g}, {test['elo1']:g}]: LLR {llr:.2f} "
                  f"({lower:.2f}, {upper:.2f}), "
                  + (f"{test['decision']} accepted after {test['pairs_at_decision']} pairs"
                     if decided else "no decision"))
    print(f"total {time.monotonic() - began:.0f} s" + (" (interrupted)" if interrupted else ""))
    if args.json:
        def clean(value: Any) -> Any:
            if isinstance(value, float) and not math.isfinite(value):
                return None if math.isnan(value) else ("+inf" if value > 0 else "-inf")
            return value
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump([{k: clean(v) for k, v in row.items()} for row in rows], handle, indent=2)
    return 130 if interrupted else 0


if __name__ == "__main__":
    raise SystemExit(main())
