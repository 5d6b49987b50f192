"""Command-line options shared by the commands that run the engine (``damier play``,
``serve``, ``hub``): which endgame databases it probes (``--egdb DIR``, ``--no-egdb``,
``--egdb-pieces N``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from damier.egdb import DEFAULT_ENGINE_PIECES, MAX_PIECES, default_directory

__all__ = ["add_engine_egdb_arguments", "egdb_setting"]


def add_engine_egdb_arguments(parser: argparse.ArgumentParser) -> None:
    """``--egdb DIR`` and ``--no-egdb`` for the commands that run the engine (``damier
    play``, ``serve``, ``hub``); :func:`egdb_setting` reads them. A ``DIR`` that is not
    an existing directory ends the command while its arguments are read, with one line
    (``damier play: --egdb /x: no such directory``) and exit status 2."""
    parser.add_argument("--egdb", metavar="DIR", action=_DirectoryAction,
                        help="endgame databases the engine probes (default: "
                        f"{default_directory()}, when it holds tables; build them with "
                        "'damier egdb build')")
    parser.add_argument("--no-egdb", action="store_true",
                        help="the engine probes no endgame database")
    parser.add_argument("--egdb-pieces", type=_pieces_argument, default=DEFAULT_ENGINE_PIECES,
                        metavar="N",
                        help="the engine probes positions of at most N pieces and holds "
                        f"their tables in memory (default {DEFAULT_ENGINE_PIECES}; "
                        "International: 4 pieces 94 MB, 5 pieces 3.8 GB)")


class _DirectoryAction(argparse.Action):
    """Stores an existing directory; anything else ends the command at once with one
    line (``damier play: --egdb /x: no such directory``) and exit status 2."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        path = str(values)
        problem = None
        if not path:
            problem = "an empty path"
        elif not os.path.exists(path):
            problem = "no such directory"
        elif not os.path.isdir(path):
            problem = "not a directory"
        if problem is not None:
            parser.exit(2, f"{parser.prog}: {option_string or self.dest} {path or repr(path)}: "
                        f"{problem}\n")
        setattr(namespace, self.dest, path)


def _pieces_argument(text: str) -> int:
    try:
        pieces = int(text)
    except ValueError:
        pieces = 0
    if not 2 <= pieces <= MAX_PIECES:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 2 to {MAX_PIECES}, not {text!r}")
    return pieces


def egdb_setting(args: argparse.Namespace) -> bool | str:
    """The engine's ``egdb`` setting from :func:`add_engine_egdb_arguments`' options."""
    if getattr(args, "no_egdb", False):
        return False
    directory: str | None = getattr(args, "egdb", None)
    return directory if directory else True
