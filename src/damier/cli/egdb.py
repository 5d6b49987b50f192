"""``damier egdb build|info|verify|probe``: the command line of the endgame databases
(:mod:`damier.egdb`, :mod:`damier.egdb_build`): its arguments and what it prints.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from damier._core import EgTables
from damier.board import Board
from damier.egdb import (FORMAT_VERSION, MAX_PIECES, MissingTableError, TableError, Wdl,
                         default_directory, open_database, signature_name, signatures,
                         table_files, table_info, verify_report)
from damier.egdb_build import build
from damier.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

__all__ = ["add_egdb_parser", "egdb_command", "build_plan", "BuildPlan"]


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
    b.add_argument("--yes", "-y", action="store_true",
                   help="build without asking (a build expected to take a minute or more, or "
                   "a gigabyte of memory, asks first when the input is a terminal)")
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


BYTES_PER_POSITION = 2
"""A build holds every table it builds or finds in memory, 2 bytes a position (slot), to
the end: its memory at the peak (International 2-5 pieces: 3.8 GB; 8 x 8 2-6 pieces:
7.5 GB, as measured)."""

CONFIRM_SECONDS = 60.0
"""A build expected to take at least this long ..."""
CONFIRM_BYTES = 10**9
"""... or this much memory asks for confirmation when the input is a terminal."""


@dataclass(frozen=True)
class BuildPlan:
    """What ``damier egdb build`` is about to do: the tables of 2 to ``pieces`` pieces
    (``tables`` files, ``there`` of them present), ``positions`` slots in all and
    ``to_build`` slots to build, and the expected ``seconds`` of one core (None when no
    build of the variant was measured) and ``memory`` in bytes."""

    variant: str
    pieces: int
    folder: Path
    tables: int
    there: int
    positions: int
    to_build: int
    seconds: float | None
    memory: int
    rate_from: str | None

    def text(self) -> str:
        """The plan in words (two or three lines)."""
        lines = [f"{self.variant}: the endgame tables of 2 to {self.pieces} pieces in "
                 f"{self.folder}: {self.tables} tables, {self.positions:,d} positions; "
                 + (f"{self.there} there already, {self.tables - self.there} to build"
                    if self.there else "none there yet, all to build")]
        if self.to_build:
            if self.seconds is None:
                took = "time: not known (no build of this variant was measured)"
            else:
                took = (f"expected: about {_duration(self.seconds)} of one core"
                        + (f" (at {self.rate_from}'s speed: {self.variant} was not measured)"
                           if self.rate_from else ""))
            lines.append(f"{took}, and about {_size(self.memory)} of memory at the peak "
                         "(every table is held in memory while the build runs)")
        return "\n".join(lines)


def build_plan(root: Path, variant: Variant, pieces: int) -> BuildPlan:
    """The :class:`BuildPlan` of building ``variant``'s tables of 2 to ``pieces`` pieces
    in ``root`` (the time from :attr:`~damier.variants.Variant.egdb_build_minutes`)."""
    if not 2 <= pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be between 2 and {MAX_PIECES}, got {pieces}")
    folder = root / variant.name
    counter = EgTables(variant.index)
    tables = signatures(pieces)
    sizes = {s: int(counter.positions(s)) for s in tables}
    present = {s for s in tables if (folder / f"{signature_name(s)}.egdb").exists()}
    # a table counts as there when its mirror is too: the build makes the two together
    there = {s for s in present if (s[2], s[3], s[0], s[1]) in present}
    positions = sum(sizes.values())
    to_build = sum(n for s, n in sizes.items() if s not in there)
    # The time per position of the variant's measured build (Variant.egdb_build_minutes),
    # or of a measured variant with the same board and kings.
    measured = next((v for v in (variant, *VARIANTS.values()) if v.egdb_build_minutes
                     and v.size == variant.size and v.flying_kings == variant.flying_kings),
                    None)
    seconds = None
    if measured is not None and measured.egdb_build_minutes is not None:
        reference = EgTables(measured.index)
        rate = measured.egdb_build_minutes * 60 / sum(
            int(reference.positions(s)) for s in signatures(measured.egdb_build_pieces))
        seconds = to_build * rate
    return BuildPlan(variant.name, pieces, folder, len(tables), len(there), positions, to_build,
                     seconds, BYTES_PER_POSITION * positions,
                     None if measured in (None, variant) else measured.title)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} minutes"
    return f"{seconds / 3600:.1f} hours"


def _size(count: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def _confirm(question: str, err: TextIO) -> bool | None:
    """Asks ``question`` on the terminal; None when the input is not a terminal."""
    stdin = sys.stdin
    try:
        if stdin is None or not stdin.isatty():
            return None
    except (ValueError, OSError):
        return None
    err.write(f"{question} [y/N] ")
    err.flush()
    try:
        answer = stdin.readline()
    except (KeyboardInterrupt, EOFError):
        answer = ""
    if not answer.endswith("\n"):
        err.write("\n")
    return answer.strip().lower() in ("y", "yes")


def _build_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    variant = get_variant(args.variant)
    pieces = args.pieces if args.pieces is not None else variant.egdb_build_pieces
    root = Path(args.dir) if args.dir else default_directory()
    if variant.endgame_tables_unsupported:
        raise ValueError(f"no endgame databases for {variant.title}: "
                         f"{variant.endgame_tables_unsupported}")
    if args.ray or args.address is not None:
        try:
            import ray  # noqa: F401 - only to say at once that it is missing
        except ImportError:
            err.write("damier egdb build: this needs Ray: pip install 'damier[train]'\n")
            return 2
    plan = build_plan(root, variant, pieces)
    err.write(plan.text() + "\n")
    big = plan.to_build > 0 and ((plan.seconds or 0.0) >= CONFIRM_SECONDS
                                 or plan.memory >= CONFIRM_BYTES)
    if big and not args.yes:
        answer = _confirm("Build them?", err)
        if answer is False:
            err.write("nothing built\n")
            return 1
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
        out.write(f"{side} to move wins in {_plies(dtw)}\n")
    elif dtw == 0:
        out.write(f"{side} to move has lost (no move)\n")
    else:
        out.write(f"{side} to move loses in {_plies(-dtw)}\n")
    return 0


def _plies(count: int) -> str:
    return f"{count} ply" if count == 1 else f"{count} plies"
