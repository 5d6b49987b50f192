"""``damier puzzles mine|verify|stats``: the command line of :mod:`damier.puzzles` (its
arguments, the progress of ``verify``, what it prints). ``python -m damier.cli.puzzles
mine|verify|stats ...`` runs it as ``damier puzzles`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from damier.progress import ProgressBar
from damier.puzzles import (WIN_NODES, WIN_PLIES, MiningOptions, puzzle_themes, read_puzzles,
                            run_mining, summarize, verify, write_puzzles)
from damier.variants import get_variant

__all__ = ["add_puzzles_parser", "puzzles_command", "main"]


def add_puzzles_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]
                       ) -> argparse.ArgumentParser:
    """Adds the ``puzzles`` subcommand (``mine``, ``verify``, ``stats``) to
    ``damier``'s subparsers. ``damier.cli.main`` then runs it with
    ``puzzles_command(args, out, err)`` (as it runs ``match_command``)."""
    p = subparsers.add_parser("puzzles", help="mine, verify and count puzzles (shots)",
                              description="Mine puzzles from self-play games, re-prove them, "
                              "count them.")
    _add_commands(p)
    return p


def _add_commands(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="puzzles_action", metavar="COMMAND")
    sub.required = True
    defaults = MiningOptions()
    m = sub.add_parser("mine", help="mine puzzles from self-play games (resumable)",
                       description="Play self-play games and mine their positions for puzzles. "
                       "Ctrl-C stops; the same command again resumes.")
    m.add_argument("--variant", default="international")
    m.add_argument("--games", type=int, required=True, help="games in all (done ones skipped)")
    m.add_argument("--depth", type=int, default=defaults.depth,
                   help=f"engine analysis depth (default {defaults.depth})")
    m.add_argument("--out", required=True, help="puzzle file to write (JSON)")
    m.add_argument("--seed", type=int, default=1, help="self-play seed (default 1)")
    m.add_argument("--nodes", type=int, default=1000,
                   help="engine nodes per self-play move (default 1000)")
    m.add_argument("--journal", help="journal file (default: OUT with .journal.jsonl)")
    for name, text in (("min_gain", "smallest net gain, men"),
                       ("min_score", "best line's smallest score, centi-men"),
                       ("min_gap", "smallest gap to the second line, centi-men"),
                       ("skip_plies", "plies of each game not mined"),
                       ("max_proof_depth", "deepest proof horizon, plies"),
                       ("extra_plies", "plies past the depth the gain must hold"),
                       ("max_nodes", "prover nodes per candidate"),
                       ("max_lead", "positions where the side to move leads by more are "
                                    "skipped, men")):
        m.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(defaults, name),
                       help=f"{text} (default {getattr(defaults, name)})")
    m.add_argument("--no-progress", action="store_true", help="no progress output")
    v = sub.add_parser("verify", help="re-prove every puzzle of a file",
                       description="Re-prove every puzzle of a file: its solution sound, its "
                       "first move the only one reaching the gain, and no other first move "
                       "winning the game (a forced-win search, or the endgame database with "
                       "--egdb). --write keeps the proven puzzles only.")
    v.add_argument("file")
    v.add_argument("--extra-plies", type=int, default=0,
                   help="also require the gain that many plies deeper (default 0)")
    v.add_argument("--win-plies", type=int, default=WIN_PLIES,
                   help="look for other first moves winning the game within this many plies "
                   f"(default {WIN_PLIES}; 0: not at all)")
    v.add_argument("--win-nodes", type=int, default=WIN_NODES,
                   help=f"the node budget of that search, per move (default {WIN_NODES})")
    v.add_argument("--egdb", metavar="DIR",
                   help="also ask the endgame databases in DIR (damier egdb build)")
    v.add_argument("--write", action="store_true",
                   help="rewrite FILE with the proven puzzles only (the dropped ones and why "
                   "are listed in its manifest), their themes told again")
    v.add_argument("--no-progress", action="store_true")
    s = sub.add_parser("stats", help="count the puzzles of a file by rating, gain, depth")
    s.add_argument("file")
    s.add_argument("--json", action="store_true", help="print JSON")


def puzzles_command(args: argparse.Namespace, out: TextIO | None = None,
                err: TextIO | None = None) -> int:
    """Runs a parsed ``mine``/``verify``/``stats`` command; the exit status."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    command = args.puzzles_action
    try:
        if command == "mine":
            return _mine_command(args, out, err)
        if command == "verify":
            return _verify_command(args, out, err)
        return _stats_command(args, out, err)
    except (OSError, ValueError) as exc:
        err.write(f"puzzles {command}: {exc}\n")
        return 2


def _mine_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    options = MiningOptions(depth=args.depth, min_gain=args.min_gain, min_score=args.min_score,
                            min_gap=args.min_gap, skip_plies=args.skip_plies,
                            max_proof_depth=args.max_proof_depth, extra_plies=args.extra_plies,
                            max_nodes=args.max_nodes, max_lead=args.max_lead)
    if args.games < 1 or args.nodes < 1:
        raise ValueError("--games and --nodes must be at least 1")
    variant = get_variant(args.variant).name
    start = time.monotonic()
    try:
        stats = run_mining(variant=variant, games=args.games, out=args.out, seed=args.seed,
                           nodes=args.nodes, options=options, journal=args.journal,
                           progress=not args.no_progress, stream=err)
    except KeyboardInterrupt:
        err.write("\nstopped; the games done are kept: run the same command again to resume\n")
        return 130
    puzzles, _ = read_puzzles(args.out)
    out.write(f"{stats.games} game(s) mined in {time.monotonic() - start:.0f} s: "
              f"{stats.positions} positions, {stats.candidates} candidates, {stats.proven} "
              f"puzzles; {args.out} holds {len(puzzles)} puzzles\n")
    return 0


def _verify_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.win_plies < 0 or args.win_nodes < 1 or args.extra_plies < 0:
        raise ValueError("--win-plies and --extra-plies must be at least 0, --win-nodes at "
                         "least 1")
    puzzles, manifest = read_puzzles(args.file)
    database = None
    if args.egdb:
        from damier.egdb import open_database

        variants = {p.variant for p in puzzles}
        if len(variants) > 1:
            raise ValueError(f"--egdb: the file holds puzzles of {len(variants)} variants")
        database = open_database(args.egdb, variant=variants.pop() if variants
                                 else "international")
    bar = ProgressBar("verifying", total=len(puzzles), stream=err,
                      enabled=not args.no_progress)
    kept = []
    dropped = []
    start = time.monotonic()
    try:
        for puzzle in puzzles:
            verdict = verify(puzzle, extra_plies=args.extra_plies, win_plies=args.win_plies,
                             win_nodes=args.win_nodes, database=database)
            if verdict:
                kept.append(puzzle)
            else:
                dropped.append({"id": puzzle.id, "source": puzzle.source,
                                "reason": verdict.reason})
                bar.message(f"FAILED {puzzle.id} ({puzzle.source}): {verdict.reason}",
                            always=True)
            bar.update(f"{len(dropped)} failed", advance=1)
    except KeyboardInterrupt:
        bar.close()
        err.write("\nstopped\n")
        return 130
    finally:
        bar.close()
        if database is not None:
            database.close()
    seconds = time.monotonic() - start
    out.write(f"{len(kept)}/{len(puzzles)} puzzles proven ({seconds:.1f} s)\n")
    if not args.write:
        return 1 if dropped else 0
    from dataclasses import replace

    from damier.puzzles import _engine_version, _now

    kept = [replace(p, themes=puzzle_themes(p)) for p in kept]
    checks = list(manifest.get("verified", []))
    command = (f"damier puzzles verify {Path(args.file).name} --write"
               + (f" --extra-plies {args.extra_plies}" if args.extra_plies else "")
               + (f" --win-plies {args.win_plies}" if args.win_plies != WIN_PLIES else "")
               + (f" --win-nodes {args.win_nodes}" if args.win_nodes != WIN_NODES else "")
               + (" --egdb DIR" if database is not None else ""))
    checks.append({"command": command, "date": _now(), "engine": _engine_version(),
                   "puzzles": len(puzzles), "kept": len(kept), "dropped": dropped,
                   "seconds": round(seconds, 1)})
    manifest = {**manifest, "verified": checks, "summary": summarize(kept)}
    write_puzzles(args.file, kept, manifest)
    out.write(f"{args.file}: {len(kept)} {'puzzle' if len(kept) == 1 else 'puzzles'} kept, "
              f"{len(dropped)} dropped (listed in its manifest's \"verified\")\n")
    return 0


def _stats_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    puzzles, manifest = read_puzzles(args.file)
    summary = summarize(puzzles)
    if manifest.get("counts"):
        summary["mining"] = manifest["counts"]
    if args.json:
        out.write(json.dumps(summary, indent=1) + "\n")
        return 0
    rating = summary["rating"]
    out.write(f"{summary['puzzles']} puzzles\n")
    if puzzles:
        out.write(f"rating: {rating['min']} .. {rating['max']} (median {rating['median']}, "
                  f"quartiles {rating['p25']} / {rating['p75']})\n")
        for bucket, count in rating["histogram"].items():
            out.write(f"  {bucket:>9}  {count:4d}  {'#' * count}\n")
        out.write("gain: " + ", ".join(f"{k} x{v}" for k, v in summary["gain"].items()) + "\n")
        out.write("depth: " + ", ".join(f"{k} x{v}" for k, v in summary["depth"].items())
                  + "\n")
        out.write(f"quiet first move: {summary['quiet_first_move']}\n")
        if summary["themes"]:
            out.write("themes: " + ", ".join(f"{k} x{v}" for k, v in summary["themes"].items())
                      + "\n")
    counts = summary.get("mining")
    if isinstance(counts, dict) and all(key in counts for key in (
            "games", "positions", "candidates", "proven", "seconds", "rejected")):
        out.write(f"mined from {counts['games']} games: {counts['positions']} positions, "
                  f"{counts['candidates']} candidates, {counts['proven']} proven, "
                  f"{counts['seconds']} s of CPU; rejected: {counts['rejected']}\n")
    for check in manifest.get("verified", []):
        if isinstance(check, dict) and "kept" in check and "dropped" in check:
            out.write(f"verified {check.get('date', '')}: {check['kept']} kept, "
                      f"{len(check['dropped'])} dropped\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m damier.cli.puzzles mine|verify|stats ...``: ``damier puzzles ...``."""
    parser = argparse.ArgumentParser(prog="damier")
    add_puzzles_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["puzzles", *(argv if argv is not None else sys.argv[1:])])
    return puzzles_command(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
