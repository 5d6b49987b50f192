"""``damier book build|show|stats``: the command line of the opening books
(:mod:`damier.book`, :mod:`damier.book_build`): its arguments and what it prints.
``python -m damier.cli.book build|show|stats ...`` runs it as ``damier book`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from damier.board import Board
from damier.book import DEFAULT_MARGIN, Book, BookError, book_stats, check_margin, shipped_book
from damier.book_build import BuildSettings, build
from damier.engine_types import format_score
from damier.variants import DEFAULT_VARIANT, VARIANTS, get_variant

__all__ = ["add_book_parser", "book_command", "main"]


def add_book_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]
                    ) -> argparse.ArgumentParser:
    """Adds the ``book`` subcommand (``build``, ``show``, ``stats``) to ``damier``'s
    subparsers; ``damier.cli.main`` runs it with ``book_command(args, out, err)``."""
    p = subparsers.add_parser("book", help="build, show and count opening books",
                              description="Build an opening book with damier's own search "
                              "(resumable), show a position's book moves, count a book.")
    sub = p.add_subparsers(dest="book_action", metavar="COMMAND")
    sub.required = True
    defaults = BuildSettings()
    b = sub.add_parser("build", help="build a book by drop-out expansion (resumable)",
                       description="Expand positions from the start position, best first, "
                       "scoring every move with a search. Ctrl-C stops; the same command "
                       "again resumes.")
    b.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant: {', '.join(VARIANTS)} (default {DEFAULT_VARIANT})")
    b.add_argument("--positions", type=int, required=True,
                   help="expanded positions in all (those already in --state are kept)")
    b.add_argument("--nodes", type=int, default=defaults.nodes,
                   help=f"search nodes per legal move of a position (default {defaults.nodes})")
    b.add_argument("--out", help="book file to write (default book_VARIANT.bin)")
    b.add_argument("--state", help="build state, for resuming (default OUT.state.json)")
    b.add_argument("--weight", type=float, default=defaults.weight,
                   help="cost of a centi-man below the best move (default "
                   f"{defaults.weight:g})")
    b.add_argument("--ply-cost", type=float, default=defaults.ply_cost,
                   help=f"cost of a ply (default {defaults.ply_cost:g})")
    b.add_argument("--max-loss", type=int, default=defaults.max_loss,
                   help="moves this many centi-men below the best are not followed "
                   f"(default {defaults.max_loss})")
    b.add_argument("--hash", type=int, default=defaults.hash_mb, metavar="MB",
                   help=f"engine hash table in MiB (default {defaults.hash_mb})")
    b.add_argument("--batch", type=int, default=defaults.batch,
                   help="positions expanded together, the cheapest first (a setting of the "
                   f"book; default {defaults.batch})")
    b.add_argument("--workers", type=int, default=1,
                   help="processes that search a batch's positions side by side (the book "
                   "does not depend on it; default 1)")
    b.add_argument("--no-progress", action="store_true", help="no progress output")
    s = sub.add_parser("show", help="the book moves of a position")
    s.add_argument("fen", nargs="?", help="the position (default: the start position)")
    s.add_argument("--book", help="book file (default: the variant's shipped book)")
    s.add_argument("--variant", help="variant (default: the book's, or international)")
    s.add_argument("--margin", type=int, default=DEFAULT_MARGIN,
                   help=f"mark the moves an engine may play, centi-men (default "
                   f"{DEFAULT_MARGIN})")
    t = sub.add_parser("stats", help="count a book's positions and moves")
    t.add_argument("file")
    t.add_argument("--json", action="store_true", help="print JSON")
    return p


def book_command(args: argparse.Namespace, out: TextIO | None = None,
                 err: TextIO | None = None) -> int:
    """Runs a parsed ``book build|show|stats`` command; returns the exit status."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    action = args.book_action
    try:
        if action == "build":
            return _build_command(args, out, err)
        if action == "show":
            return _show_command(args, out)
        return _stats_command(args, out)
    except (OSError, ValueError) as exc:
        err.write(f"damier book {action}: {exc}\n")
        return 2


def _build_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    settings = BuildSettings(variant=get_variant(args.variant).name, nodes=args.nodes,
                             weight=args.weight, ply_cost=args.ply_cost,
                             max_loss=args.max_loss, hash_mb=args.hash, batch=args.batch)
    target = Path(args.out or f"book_{settings.variant}.bin")
    state = Path(args.state) if args.state else target.with_name(target.name + ".state.json")
    try:
        book = build(positions=args.positions, settings=settings, state=state, out=target,
                     progress=not args.no_progress, stream=err, workers=args.workers)
    except KeyboardInterrupt:
        err.write(f"\nstopped; the positions expanded are kept in {state}: run the same "
                  "command again to resume\n")
        return 130
    out.write(f"{len(book)} positions, {book.move_count()} book moves: {target} "
              f"(manifest {target.with_suffix('.json')}, state {state})\n")
    return 0


def _show_command(args: argparse.Namespace, out: TextIO) -> int:
    margin = check_margin(args.margin)
    if args.book:
        book = Book.read(args.book, variant=args.variant)
    else:
        variant = get_variant(args.variant or DEFAULT_VARIANT)
        shipped = shipped_book(variant)
        if shipped is None:
            raise BookError(f"damier ships no opening book for {variant.title} draughts; "
                            "give one with --book")
        book = shipped
    board = Board(args.fen, variant=book.variant) if args.fen else Board(variant=book.variant)
    moves = book.moves(board)
    out.write(f"{board.fen(compact=True)}\n")
    if not moves:
        out.write("not in the book\n")
        return 1
    best = moves[0].score
    for move in moves:
        mark = "*" if move.score >= best - margin else " "
        out.write(f"{mark} {board.notation(move.move):<12} {format_score(move.score):>10}  "
                  f"depth {move.depth}\n")
    out.write(f"(* within {margin} centi-men of the best: the moves an engine plays; "
              f"{book.nodes(board)} nodes searched here)\n")
    return 0


def _stats_command(args: argparse.Namespace, out: TextIO) -> int:
    book = Book.read(args.file)
    stats = book_stats(book)
    manifest_path = Path(args.file).with_suffix(".json")
    if manifest_path.is_file():
        try:
            stats["manifest"] = json.loads(manifest_path.read_text(encoding="utf-8"))
        except ValueError:
            stats["manifest"] = None
    if args.json:
        out.write(json.dumps(stats, indent=1) + "\n")
        return 0
    out.write(f"{book.variant.title} opening book: {stats['positions']} positions, "
              f"{stats['book_moves']} book moves, {stats['reached_from_start']} reached from "
              "the start position through book moves\n")
    if stats["positions_by_ply"]:
        out.write("positions by ply: " + ", ".join(
            f"{ply}: {count}" for ply, count in stats["positions_by_ply"].items()) + "\n")
    if stats["start_moves"]:
        out.write("start position: " + ", ".join(
            f"{m['move']} {m['score']:+d}" for m in stats["start_moves"]) + "\n")
        out.write(f"main line ({len(stats['main_line'])} plies): "
                  f"{' '.join(stats['main_line'])}\n")
    manifest = stats.get("manifest")
    if isinstance(manifest, dict) and manifest.get("command"):
        out.write(f"built by: {manifest['command']} ({manifest.get('seconds')} s, "
                  f"{manifest.get('date')}, commit {manifest.get('commit')})\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m damier.cli.book build|show|stats ...``: ``damier book ...``."""
    parser = argparse.ArgumentParser(prog="damier")
    sub = parser.add_subparsers(dest="command")
    add_book_parser(sub)
    args = parser.parse_args(["book", *(argv if argv is not None else sys.argv[1:])])
    return book_command(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
