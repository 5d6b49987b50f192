"""``damier play``: the command line of the terminal game (:mod:`damier.play`): its
arguments, their checks, and the session it starts on the terminal.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from damier.cli.options import add_engine_egdb_arguments, egdb_setting
from damier.egdb import DEFAULT_ENGINE_PIECES
from damier.engine import LEVELS
from damier.game import DEFAULT_LEVEL, ENGINE, HUMAN, PLAYER_KINDS
from damier.play import DEFAULT_MOVETIME, PIECE_SETS, PlaySession, parse_play_clock, run_terminal
from damier.variants import VARIANTS, get_variant

__all__ = ["add_play_parser", "play_command"]


def add_play_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``play`` subcommand to ``damier``'s subparsers."""
    p = subparsers.add_parser(
        "play", help="play draughts in the terminal (against the engine, or two people)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play draughts in the terminal: you against damier's engine (default: you "
        "have White), two people, or the engine against itself. Type moves like 32-28 or "
        "19x28 (a square alone is enough when only one move starts there) and `help` for the "
        "commands.",
        epilog="examples:\n  damier play\n  damier play --black human --white engine --level 3\n"
        "  damier play --variant russian --clock 5+3\n"
        "  damier play --white engine --black engine --movetime 0.2")
    p.add_argument("--variant", default="international",
                   help=f"variant: {', '.join(VARIANTS)} (default: international)")
    p.add_argument("--white", choices=PLAYER_KINDS, default=None,
                   help="who plays White (default: human)")
    p.add_argument("--black", choices=PLAYER_KINDS, default=None,
                   help="who plays Black (default: engine, or human when --white engine)")
    p.add_argument("--level", type=int, default=DEFAULT_LEVEL,
                   help=f"engine level 1 (a beginner can win) to 10 (default {DEFAULT_LEVEL})")
    p.add_argument("--clock", metavar="TIME[+SEC]",
                   help="game clocks: TIME minutes (or M:SS, or with a unit: 90s) each, SEC "
                   "seconds added per move, e.g. 5+3; a flag fall loses")
    p.add_argument("--movetime", type=float, default=None, metavar="SEC",
                   help="engine seconds per move without a clock, and for hints (default: "
                   f"by level, {LEVELS[1].movetime:g}-{LEVELS[10].movetime:g} s, and "
                   f"{DEFAULT_MOVETIME:g} s for hints)")
    p.add_argument("--depth", type=int, help="cap the engine's search depth (plies)")
    p.add_argument("--fen", help="start from this position")
    p.add_argument("--load", metavar="FILE", help="start from the end of this PDN game")
    p.add_argument("--numbers", action="store_true", help="show the square numbers")
    p.add_argument("--flip", action="store_true", help="show the board from Black's side")
    p.add_argument("--pieces", choices=sorted(PIECE_SETS), default="disc",
                   help="piece symbols: disc (●/◉), draughts (⛀⛁⛂⛃) or ascii (w W b B)")
    p.add_argument("--seed", type=int, help="seed of the engine's choices below level 10")
    p.add_argument("--no-book", action="store_true",
                   help="the engine does not play the opening from its book")
    add_engine_egdb_arguments(p)
    p.add_argument("--no-color", action="store_true", help="no colours")
    parser: argparse.ArgumentParser = p
    return parser


def play_command(args: argparse.Namespace, out: TextIO, err: TextIO,
                 read_line: Callable[[str], str] | None = None) -> int:
    """Runs ``damier play``: checks the arguments (a bad one: one line on ``err`` and the
    exit status 2), then plays on the terminal (:func:`damier.play.run_terminal`, drawn
    on ``out``; ``read_line`` reads the lines typed, default: the console's input)."""
    from rich.console import Console

    white = args.white or HUMAN
    black = args.black or (HUMAN if args.white == ENGINE else ENGINE)
    try:
        variant = get_variant(args.variant)
        clock = parse_play_clock(args.clock) if args.clock else None
        if not 1 <= args.level <= 10:
            raise ValueError(f"--level must be between 1 and 10, got {args.level}")
        if args.movetime is not None and not args.movetime > 0:
            raise ValueError("--movetime must be positive")
        if args.depth is not None and args.depth < 1:
            raise ValueError("--depth must be at least 1")
        session = PlaySession(variant=variant, white=white, black=black, level=args.level,
                              clock=clock, movetime=args.movetime, depth=args.depth,
                              fen=args.fen, numbers=args.numbers,
                              flipped=True if args.flip else None, seed=args.seed,
                              book=not getattr(args, "no_book", False),
                              egdb=egdb_setting(args),
                              egdb_pieces=getattr(args, "egdb_pieces", DEFAULT_ENGINE_PIECES))
    except ValueError as exc:
        err.write(f"damier play: {exc}\n")
        return 2
    if args.load:
        try:
            session.load_game(args.load)
        except ValueError as exc:
            err.write(f"damier play: {exc}\n")
            return 2
    console = Console(file=out, no_color=args.no_color or None, highlight=False)
    return run_terminal(session, console, pieces=args.pieces, read_line=read_line)
