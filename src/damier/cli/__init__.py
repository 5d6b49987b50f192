"""The ``damier`` command line.

``damier perft [--variant V] [--fen FEN] --depth N [--divide] [--json]`` counts
the leaves of the legal-move tree, printing a line per depth (to stderr with
``--json``, whose report goes to stdout).

The fronts of the commands (their arguments, their checks and what they print) are the
package's modules: ``match.py``, ``egdb.py``, ``book.py``, ``puzzles.py``,
``openings.py``, ``render.py``, ``analyse.py`` for the library's, and ``play.py`` (the
terminal game of :mod:`damier.play`), ``serve.py`` (the web app, :mod:`damier.web`) and ``hub.py``
(:mod:`damier.hub_server`) for the applications'; ``options.py`` holds the engine
options that ``damier play``, ``serve`` and ``hub`` share (``--egdb``, ``--no-egdb``,
``--egdb-pieces``). No module outside this package imports it (but ``damier.__main__``,
which runs :func:`main`), and the library holds no command line
(``tests/test_layers.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from damier.board import Board
from damier.notation import move_text
from damier.variants import DEFAULT_VARIANT, VARIANTS, get_variant

__all__ = ["main", "build_parser"]

# From this depth on, perft runs move by move so that Ctrl-C stops it promptly.
_DIVIDE_FROM_DEPTH = 7


def build_parser() -> argparse.ArgumentParser:
    titles = ", ".join(v.title for v in VARIANTS.values())
    parser = argparse.ArgumentParser(
        prog="damier", description=f"damier: draughts for Python ({titles}).")
    from damier import __version__
    parser.add_argument("--version", action="version", version=f"damier {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    perft = sub.add_parser(
        "perft", help="count the leaves of the legal-move tree (move generator test)",
        description="Count the leaf nodes of the legal-move tree for depths 1..N, "
        "printing one line per depth.")
    perft.add_argument("--variant", default=DEFAULT_VARIANT,
                       help=f"variant: {', '.join(VARIANTS)} (default: {DEFAULT_VARIANT})")
    perft.add_argument("--fen", help="start position (default: the variant's initial position)")
    perft.add_argument("--depth", type=int, required=True, help="deepest depth to count (1-30)")
    perft.add_argument("--divide", action="store_true",
                       help="also list the count below each legal move at the deepest depth")
    perft.add_argument("--json", action="store_true", help="print a JSON report on stdout")

    from damier.cli.match import add_match_parser
    add_match_parser(sub)
    from damier.cli.hub import add_hub_parser
    add_hub_parser(sub)
    from damier.cli.dxp import add_dxp_parser
    add_dxp_parser(sub)
    from damier.cli.serve import add_serve_parser
    add_serve_parser(sub)
    from damier.cli.play import add_play_parser
    add_play_parser(sub)
    from damier.cli.render import add_render_parser
    add_render_parser(sub)
    from damier.cli.puzzles import add_puzzles_parser
    add_puzzles_parser(sub)
    from damier.cli.book import add_book_parser
    add_book_parser(sub)
    from damier.cli.train import add_train_parser
    add_train_parser(sub)
    from damier.cli.egdb import add_egdb_parser
    add_egdb_parser(sub)
    from damier.cli.openings import add_openings_parser
    add_openings_parser(sub)
    from damier.cli.analyse import add_analyse_parser
    add_analyse_parser(sub)
    return parser


def _perft_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        variant = get_variant(args.variant)
    except ValueError as exc:
        err.write(f"damier perft: {exc}\n")
        return 2
    if not 1 <= args.depth <= 30:
        err.write(f"damier perft: --depth must be between 1 and 30, got {args.depth}\n")
        return 2
    try:
        board = Board(args.fen, variant=variant)
    except ValueError as exc:
        err.write(f"damier perft: invalid --fen: {exc}\n")
        return 2

    progress = err if args.json else out
    depths: list[dict[str, object]] = []
    report: dict[str, object] = {"variant": variant.name, "fen": board.fen(), "depths": depths}
    if not args.json:
        out.write(f"perft {variant.title} {board.fen()}\n")
    divide: list[tuple[str, int]] = []
    for depth in range(1, args.depth + 1):
        start = time.perf_counter()
        want_divide = args.divide and depth == args.depth
        if want_divide or depth >= _DIVIDE_FROM_DEPTH:
            parts = board.perft_divide(depth)
            leaves = sum(n for _, n in parts)
            if want_divide:
                legal = board.legal_moves
                divide = sorted(((move_text(m, legal), n) for m, n in parts))
        else:
            leaves = board.perft(depth)
        seconds = time.perf_counter() - start
        rate = leaves / seconds if seconds > 0 else 0.0
        depths.append({"depth": depth, "leaves": leaves, "seconds": round(seconds, 6),
                                 "leaves_per_second": round(rate)})
        progress.write(f"depth {depth:2d}  {leaves:>15,d} leaves  {seconds:9.3f} s  "
                       f"{rate / 1e6:8.1f} M leaves/s\n")
        progress.flush()
    if args.divide:
        report["divide"] = {move: n for move, n in divide}
        if not args.json:
            out.write(f"divide at depth {args.depth}:\n")
            for move, n in divide:
                out.write(f"  {move:<20} {n:,d}\n")
    if args.json:
        out.write(json.dumps(report, indent=2) + "\n")
    return 0


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Runs the command line; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "perft":
            return _perft_command(args, out, err)
        if args.command == "match":
            from damier.cli.match import match_command
            return match_command(args, out, err)
        if args.command == "dxp":
            from damier.cli.dxp import dxp_command
            return dxp_command(args, out, err)
        if args.command == "hub":
            from damier.cli.hub import hub_command
            return hub_command(args, sys.stdin, out, err)
        if args.command == "serve":
            from damier.cli.serve import serve_command
            return serve_command(args, out, err)
        if args.command == "play":
            from damier.cli.play import play_command
            return play_command(args, out, err)
        if args.command == "render":
            from damier.cli.render import render_command
            return render_command(args, out, err)
        if args.command == "train":
            from damier.cli.train import run as train_run
            return train_run(args, out, err)
        if args.command == "openings":
            from damier.cli.openings import openings_command
            return openings_command(args, out, err)
        if args.command == "puzzles":
            from damier.cli.puzzles import puzzles_command
            return puzzles_command(args, out, err)
        if args.command == "book":
            from damier.cli.book import book_command
            return book_command(args, out, err)
        if args.command == "egdb":
            from damier.cli.egdb import egdb_command
            return egdb_command(args, out, err)
        if args.command == "analyse":
            from damier.cli.analyse import analyse_command
            return analyse_command(args, out, err)
    except KeyboardInterrupt:
        err.write("\ninterrupted\n")
        return 130
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
