"""``damier openings --generate|--check``: the command line of :mod:`damier.openings`
(make the balanced openings of matches, or count those of a file).
``python -m damier.cli.openings ...`` runs it as ``damier openings`` does.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from damier import __version__
from damier.openings import (DEFAULT_DEPTH, DEFAULT_MARGIN, DEFAULT_PLIES, generate_openings,
                             load_openings, write_openings)
from damier.variants import DEFAULT_VARIANT, get_variant

__all__ = ["add_openings_parser", "openings_command", "main"]


def add_openings_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]"
                        ) -> argparse.ArgumentParser:
    """Adds the ``openings`` subcommand to ``damier``'s subparsers."""
    parser = subparsers.add_parser(
        "openings", help="make or check the balanced openings of matches",
        description="Generate a file of balanced openings (every start of --plies plies "
        "whose engine score is within --margin of equality), or check an openings file.")
    parser.add_argument("--generate", action="store_true", help="generate the openings")
    parser.add_argument("--check", metavar="FILE", help="load FILE and print how many openings "
                        "it has")
    parser.add_argument("--variant", default=DEFAULT_VARIANT)
    parser.add_argument("--plies", type=int, default=DEFAULT_PLIES,
                        help=f"plies of each opening (default {DEFAULT_PLIES})")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                        help=f"search depth of the filter (default {DEFAULT_DEPTH})")
    parser.add_argument("--margin", type=int, default=DEFAULT_MARGIN,
                        help=f"largest |score| kept, in centi-men (default {DEFAULT_MARGIN})")
    parser.add_argument("--min-margin", type=int, default=0,
                        help="smallest |score| kept, in centi-men (default 0; more: unbalanced "
                        "openings)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="positions searched at once (default: the number of CPUs)")
    parser.add_argument("--output", "-o", help="output file (default: standard output)")
    parser.set_defaults(_openings_parser=parser)
    return parser


def openings_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs ``damier openings``; returns the exit status (0; 1 for a file that cannot be
    read or holds a bad opening; 2, from argparse, for bad arguments)."""
    parser: argparse.ArgumentParser = args._openings_parser
    if args.check:
        try:
            openings = load_openings(args.check, args.variant)
        except (OSError, ValueError) as exc:
            err.write(f"error: {exc}\n")
            return 1
        out.write(f"{len(openings)} openings in {args.check}\n")
        return 0
    if not args.generate:
        parser.error("give --generate or --check FILE")
    if args.plies < 1 or args.depth < 1 or args.margin < 0:
        parser.error("--plies and --depth must be at least 1, --margin at least 0")
    if not 0 <= args.min_margin <= args.margin:
        parser.error("--min-margin must be between 0 and --margin")
    v = get_variant(args.variant)
    began = time.monotonic()
    generated = generate_openings(variant=v, plies=args.plies, depth=args.depth,
                                  margin=args.margin, min_margin=args.min_margin,
                                  jobs=args.jobs, log=err)
    command = (f"damier openings --generate --variant {v.name} --plies {args.plies} "
               f"--depth {args.depth} --margin {args.margin}"
               + (f" --min-margin {args.min_margin}" if args.min_margin else ""))
    kind, kept = "Balanced", f"|score| <= {args.margin / 100:.2f} men"
    if args.min_margin:
        kind = "Unbalanced"
        kept = f"{args.min_margin / 100:.2f} <= |score| <= {args.margin / 100:.2f} men"
    header = [
        f"{kind} {v.title} draughts openings for engine matches (damier match --openings).",
        f"Made by: {command}  (damier {__version__})",
        f"Every sequence of {args.plies} plies from the start position, one per distinct "
        "resulting position,",
        f"searched by damier's engine (full strength, depth {args.depth}, cleared hash); kept when "
        f"{kept}.",
        f"{len(generated)} openings; the comment after each is the score from White's view, "
        "in men.",
    ]
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            write_openings(generated, handle, header=header)
    else:
        write_openings(generated, out, header=header)
    err.write(f"{len(generated)} openings kept in {time.monotonic() - began:.0f} s\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m damier.cli.openings ...``: ``damier openings ...``."""
    parser = argparse.ArgumentParser(prog="damier")
    add_openings_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["openings", *(argv if argv is not None else sys.argv[1:])])
    return openings_command(args, sys.stdout, sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
