"""``damier hub``: the command line of damier's Hub engine (:mod:`damier.hub_server`):
its arguments and their checks; the protocol itself runs on standard input and output.
"""

from __future__ import annotations

from typing import IO, Any

from damier.cli.options import add_engine_egdb_arguments, egdb_setting
from damier.egdb import DEFAULT_ENGINE_PIECES
from damier.hub_server import run_hub
from damier.variants import DEFAULT_VARIANT, VARIANTS, get_variant

__all__ = ["add_hub_parser", "hub_command"]


def add_hub_parser(sub: Any) -> None:
    """Adds the ``hub`` subcommand to the ``damier`` command's subparsers."""
    hub = sub.add_parser(
        "hub", help="run the engine with the Hub protocol on stdin/stdout (for Hub GUIs)",
        description="Speak the Hub protocol (version 2, as used by Scan 3.1 and the Hub GUI) "
        "on standard input and output.")
    hub.add_argument("--variant", default=DEFAULT_VARIANT,
                     help=f"variant: {', '.join(VARIANTS)} (default: {DEFAULT_VARIANT}; the "
                     "GUI may change it with set-param name=variant)")
    hub.add_argument("--no-book", action="store_true",
                     help="do not play the opening from the shipped book (the GUI may change "
                     "it with set-param name=book)")
    add_engine_egdb_arguments(hub)


def hub_command(args: Any, stdin: IO[str], out: IO[str], err: IO[str]) -> int:
    """Runs ``damier hub [--variant V]``: :func:`damier.hub_server.run_hub` on ``stdin``
    and ``out`` (stray bytes in the input read as U+FFFD); an unknown variant is one line
    on ``err`` and the exit status 2."""
    try:
        variant = get_variant(getattr(args, "variant", None) or DEFAULT_VARIANT)
    except ValueError as exc:
        err.write(f"damier hub: {exc}\n")
        return 2
    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")  # stray bytes must not crash the engine
        except (ValueError, OSError):
            pass
    return run_hub(stdin, out, variant=variant, book=not getattr(args, "no_book", False),
                   egdb=egdb_setting(args),
                   egdb_pieces=getattr(args, "egdb_pieces", DEFAULT_ENGINE_PIECES))
