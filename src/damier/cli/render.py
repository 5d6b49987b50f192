"""``damier render``: a position drawn by :mod:`damier.svg` to an ``.svg`` file, or a
``.png`` one with the ``png`` extra.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from damier.board import Board
from damier.piece import Piece
from damier.svg import board, parse_path
from damier.variants import DEFAULT_VARIANT, VARIANTS, get_variant

__all__ = ["add_render_parser", "render_command"]


_PNG_HINT = "pip install 'damier[png]'"


def add_render_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]"
                      ) -> argparse.ArgumentParser:
    """Adds the ``render`` subcommand to ``damier``'s subparsers."""
    p = subparsers.add_parser(
        "render", help="draw a position as an SVG or PNG picture",
        description="Draw the position FEN as a picture: .svg, or .png with the png extra "
        f"({_PNG_HINT}).")
    p.add_argument("fen", metavar="FEN", nargs="?",
                   help="the position (default: the variant's initial position)")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="the picture to write: a .svg or .png file")
    p.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant: {', '.join(VARIANTS)} (default: {DEFAULT_VARIANT})")
    p.add_argument("--size", type=int, default=400, help="width and height in pixels (default 400)")
    p.add_argument("--flipped", action="store_true", help="Black's side at the bottom")
    p.add_argument("--coordinates", action="store_true", help="write the square numbers")
    p.add_argument("--lastmove", metavar="MOVE",
                   help="highlight the move that led to the position, e.g. 32-28 or 47x38x24x13x36")
    return p


def _last_move_check(squares: Sequence[int], pieces: Mapping[int, Piece],
                     text: str) -> str | None:
    start, end = squares[0], squares[-1]
    if end not in pieces:
        return (f"invalid --lastmove {text!r}: it ends on {end}, which is empty in this position "
                "(give the move that led to the position)")
    if start != end and start in pieces:
        return (f"invalid --lastmove {text!r}: it starts on {start}, which is occupied in this "
                "position (give the move that led to the position)")
    return None


def render_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs ``damier render``; returns the exit status."""
    def fail(message: str, status: int = 2) -> int:
        err.write(f"damier render: {message}\n")
        return status

    output = Path(args.output)
    suffix = output.suffix.lower()
    if suffix not in (".svg", ".png"):
        return fail(f"cannot write {args.output!r}: the output file must end in .svg or .png")
    try:
        variant = get_variant(args.variant)
    except ValueError as exc:
        return fail(str(exc))
    if args.size <= 0 or args.size > 20000:
        return fail(f"--size must be between 1 and 20000 pixels, got {args.size}")
    try:
        position = Board(args.fen, variant=variant)
    except ValueError as exc:
        return fail(f"invalid FEN: {exc}")
    if args.lastmove is not None:
        try:
            squares, _capture = parse_path(args.lastmove, variant)
        except ValueError as exc:
            return fail(f"invalid --lastmove: {exc}")
        problem = _last_move_check(squares, position.piece_map(), args.lastmove)
        if problem:
            return fail(problem)
    cairosvg = None
    if suffix == ".png":
        try:
            import cairosvg  # type: ignore[import-untyped, import-not-found, no-redef, unused-ignore]
        except (ImportError, OSError) as exc:
            return fail(f"PNG output needs cairosvg, which is not available ({exc}): "
                        f"{_PNG_HINT} (or write an .svg file)")
    text = board(position, size=args.size, flipped=args.flipped, coordinates=args.coordinates,
                 lastmove=args.lastmove)
    try:
        if cairosvg is not None:
            output.write_bytes(cairosvg.svg2png(bytestring=text.encode("utf-8"),
                                                output_width=args.size,
                                                output_height=args.size))
        else:
            output.write_text(text, encoding="utf-8")
    except OSError as exc:
        return fail(f"cannot write {args.output!r}: {exc.strerror or exc}", 1)
    out.write(f"wrote {output} ({args.size}x{args.size}, {variant.title})\n")
    return 0
