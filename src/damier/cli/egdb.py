"""``damier egdb build|info|verify|probe``: the command line of the endgame databases
(:mod:`damier.egdb`, :mod:`damier.egdb_build`): its arguments and what it prints.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TextIO

from damier.board import Board
from damier.egdb import (FORMAT_VERSION, MAX_PIECES, MissingTableError, TableError, Wdl,
                         default_directory, open_database, signature_name, table_files,
                         table_info, verify_report)
from damier.egdb_build import build
from damier.variants import DEFAULT_VARIANT, VARIANTS, get_variant

__all__ = ["add_egdb_parser", "egdb_command"]


def add_egdb_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``damier egdb`` with the command line's subcommands."""
    p = sub.add_parser("egdb", help="endgame databases: build, describe, probe",
                       description="Endgame databases computed by damier: win/draw/loss and "
                       "the distance to the end for every position of few pieces.")
    cmds = p.add_subparsers(dest="egdb_command", metavar="ACTION")
    cmds.required = True
    dir_help = f"database directory (default: {default_directory()})"
    b = cmds.add_parser("build", help="build every table up to N pieces (resumable)",
                        description="Build every table of 2 to N pieces in dependency order; "
                        "an interrupted build resumes when run again.")
    b.add_argument("--pieces", type=int, default=None,
                   help=f"most pieces (2-{MAX_PIECES}; default: the variant's, "
                   + ", ".join(f"{v.name} {v.egdb_build_pieces}" for v in VARIANTS.values())
                   + ")")
    b.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant: {', '.join(VARIANTS)} (default: {DEFAULT_VARIANT})")
    b.add_argument("--dir", help=dir_help)
    b.add_argument("--threads", type=int, default=1, help="threads (default 1)")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    b.add_argument("--ray", action="store_true",
                   help="run the signatures of each level as Ray tasks (a local Ray unless "
                   "--address; needs damier[train]; --threads is then per task)")
    b.add_argument("--address", help="Ray cluster to join (implies --ray; the directory "
                   "must be shared by every node, at the same path)")
    i = cmds.add_parser("info", help="list the tables of a directory")
    i.add_argument("--dir", help=dir_help)
    i.add_argument("--variant", default=None, help="only this variant")
    c = cmds.add_parser("verify", help="check every table again (value = best successor)")
    c.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant (default: {DEFAULT_VARIANT})")
    c.add_argument("--dir", help=dir_help)
    c.add_argument("--threads", type=int, default=1, help="threads (default 1)")
    q = cmds.add_parser("probe", help="the database's value of a position")
    q.add_argument("fen", metavar="FEN", help="the position")
    q.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant (default: {DEFAULT_VARIANT})")
    q.add_argument("--dir", help=dir_help)


def egdb_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs ``damier egdb ...``; returns the exit status."""
    action = args.egdb_command
    try:
        if action == "build":
            return _build_command(args, out, err)
        if action == "info":
            return _info_command(args, out, err)
        if action == "verify":
            return _verify_command(args, out, err)
        return _probe_command(args, out, err)
    except (ValueError, FileNotFoundError, MissingTableError, RuntimeError, OSError) as exc:
        err.write(f"damier egdb {action}: {exc}\n")
        return 2


def _build_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    variant = get_variant(args.variant)
    pieces = args.pieces if args.pieces is not None else variant.egdb_build_pieces
    root = Path(args.dir) if args.dir else default_directory()
    start = time.perf_counter()
    try:
        reports = build(root, pieces=pieces, variant=variant, threads=args.threads,
                        progress=not args.no_progress, stream=err,
                        ray=args.ray or args.address is not None, address=args.address)
    except ImportError as exc:
        err.write(f"damier egdb build: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write(f"\ninterrupted: the finished tables are kept in {root / variant.name}; "
                  "run the same command again to resume\n")
        return 130
    built = [r for r in reports if not r.skipped]
    total_bytes = sum(r.bytes for r in reports)
    out.write(f"{variant.name}: {len(reports)} tables up to {pieces} pieces in "
              f"{root / variant.name} ({len(built)} built now, "
              f"{time.perf_counter() - start:.1f} s; "
              f"{sum(r.positions for r in reports):,d} slots, {total_bytes:,d} bytes)\n")
    return 0


def _info_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    root = Path(args.dir) if args.dir else default_directory()
    if not root.is_dir():
        raise FileNotFoundError(f"no database directory {root}")
    names = [args.variant] if args.variant else [v for v in VARIANTS]
    found = False
    bad = old = 0
    for name in names:
        variant = get_variant(name)
        folder = root / variant.name
        paths = table_files(root, variant=variant)
        if not paths:
            continue
        found = True
        out.write(f"{variant.name} ({folder}):\n")
        out.write(f"  {'table':<6} {'positions':>12} {'wins':>12} {'draws':>12} {'losses':>12}"
                  f" {'longest':>7} {'bytes':>11}\n")
        totals = [0, 0, 0, 0, 0]
        for path in paths:
            try:
                info = table_info(path, variant=variant)
            except (TableError, OSError) as exc:
                bad += 1
                out.write(f"  {path.stem:<6} unusable: {exc}\n")
                continue
            old += info.version < FORMAT_VERSION
            size = path.stat().st_size
            positions = info.positions - info.unused
            out.write(f"  {path.stem:<6} {positions:>12,d} {info.wins:>12,d} {info.draws:>12,d}"
                      f" {info.losses:>12,d} {info.longest:>7d} {size:>11,d}\n")
            for k, x in enumerate((positions, info.wins, info.draws, info.losses, size)):
                totals[k] += x
        out.write(f"  {'total':<6} {totals[0]:>12,d} {totals[1]:>12,d} {totals[2]:>12,d}"
                  f" {totals[3]:>12,d} {'':>7} {totals[4]:>11,d}\n")
    if not found:
        out.write(f"no tables in {root}\n")
    if old:
        out.write(f"{old} {'table' if old == 1 else 'tables'} of format version 1 (read with "
                  "every header field checked; rebuilt, the checksum covers the header too)\n")
    if bad:
        out.write(f"{bad} {'table' if bad == 1 else 'tables'} unusable: delete "
                  f"{'it' if bad == 1 else 'them'} and run 'damier egdb build' again\n")
    return 1 if bad else 0


def _verify_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    variant = get_variant(args.variant)
    report = verify_report(args.dir, variant=variant, threads=args.threads)
    if not (report.wrong or report.unusable or report.unchecked):
        root = Path(args.dir) if args.dir else default_directory()
        out.write(f"{variant.name}: no tables in {root / variant.name}\n")
        return 1
    for s, n in report.wrong.items():
        if n:
            out.write(f"{signature_name(s)}: {n:,d} wrong positions\n")
    for s, why in report.unusable.items():
        out.write(f"{signature_name(s)}: unusable: {why}\n")
    for s, needs in report.unchecked.items():
        out.write(f"{signature_name(s)}: not checked: it needs "
                  f"{', '.join(signature_name(t) for t in needs)}\n")
    if report.missing:
        most = max(sum(s) for s in [*report.missing, *report.wrong, *report.unusable,
                                    *report.unchecked])
        out.write(f"missing: {', '.join(signature_name(s) for s in report.missing)} "
                  f"(of the tables of 2 to {most} pieces)\n")
    problems = [f"{n} {what}" for n, what in (
        (sum(1 for n in report.wrong.values() if n), "wrong"),
        (len(report.unusable), "unusable"), (len(report.missing), "missing"),
        (len(report.unchecked), "not checked")) if n]
    out.write(f"{variant.name}: {len(report.wrong)} tables checked, "
              f"{', '.join(problems) if problems else 'all sound'}\n")
    if report.unusable or report.missing:
        out.write("delete the unusable tables and run 'damier egdb build' again to build "
                  "what is missing\n")
    return 0 if report.sound else 1


def _probe_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    variant = get_variant(args.variant)
    try:
        board = Board(args.fen, variant=variant)
    except ValueError as exc:
        raise ValueError(f"invalid FEN: {exc}") from None
    with open_database(args.dir, variant=variant) as db:
        wdl = db.probe_wdl(board)
        dtw = db.probe_dtw(board)
    side = "White" if board.turn else "Black"
    if wdl == Wdl.DRAW:
        out.write("draw\n")
    elif wdl == Wdl.WIN:
        out.write(f"{side} to move wins in {dtw} plies\n")
    else:
        out.write(f"{side} to move loses in {-dtw} plies\n")
    return 0
