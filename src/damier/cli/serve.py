"""``damier serve``: the command line of the web app (:mod:`damier.web`): its arguments,
their checks and the lines it prints; :func:`damier.web.server.run_server` serves the app.

``damier serve [--host 127.0.0.1] [--port 8000] [--db PATH]`` serves the page
and the API; games are stored in the SQLite file ``--db`` (default
``damier-games.sqlite3`` in the current directory).

By default the server listens on this machine only. ``--host 0.0.0.0`` opens it
to the network (to play a friend on another device); it stays guarded as
:mod:`damier.web.security` says: it answers to IP addresses and ``localhost``,
and to the names given with ``--allowed-host``; changes come only from its own
pages; each game's seats belong to the browsers that took them
(:mod:`damier.web.access`). The engines are a fixed pool (``--engines`` of
``--hash`` MiB each), so memory stays bounded whatever the number of visitors.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from damier.cli.options import add_engine_egdb_arguments, egdb_setting
from damier.web.live import DEFAULT_ENGINES, DEFAULT_HASH_MB

__all__ = ["add_serve_parser", "serve_command"]


def add_serve_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Adds the ``serve`` subcommand to the ``damier`` command's subparsers."""
    serve = sub.add_parser(
        "serve", help="play and analyse in a web browser",
        description="Serve the damier web app: play the engine, analyse, import and export "
        "PDN in a browser. Games are stored in an SQLite file.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--db", default="damier-games.sqlite3",
                       help="SQLite file of the games (default: damier-games.sqlite3)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="a host name the server answers to besides IP addresses and "
                       "localhost (e.g. the machine's name on the network); repeatable")
    serve.add_argument("--engines", type=int, default=DEFAULT_ENGINES,
                       help="engine searches at once, shared by every game "
                       f"(default {DEFAULT_ENGINES})")
    serve.add_argument("--hash", type=int, default=DEFAULT_HASH_MB, metavar="MB",
                       help=f"hash table of each engine in MiB (default {DEFAULT_HASH_MB})")
    serve.add_argument("--movetime", type=float, default=None,
                       help="seconds the engine thinks per move (default: by level, 0.5-2.5)")
    serve.add_argument("--no-book", action="store_true",
                       help="the engine does not play from the shipped opening book")
    add_engine_egdb_arguments(serve)
    serve.add_argument("--log-level", default="warning",
                       choices=("critical", "error", "warning", "info", "debug"),
                       help="uvicorn's log level (default warning)")


def serve_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs ``damier serve``: checks the arguments and opens the games' database (a
    problem: one line on ``err`` and the exit status 2), prints the address on ``out``,
    then serves until Ctrl-C; returns the exit status."""
    try:
        import uvicorn  # noqa: F401  (without the web extra: the hint below)

        from damier.web.app import create_app
        from damier.web.server import run_server
        if not 1 <= args.engines <= 64:
            raise RuntimeError(f"--engines must be 1-64, got {args.engines}")
        if not 1 <= args.hash <= 4096:
            raise RuntimeError(f"--hash must be 1-4096 MiB, got {args.hash}")
        app = create_app(args.db, movetime=args.movetime, allowed_hosts=args.allowed_host,
                         engines=args.engines, hash_mb=args.hash, book=not args.no_book,
                         egdb=egdb_setting(args), egdb_pieces=args.egdb_pieces)
    except ImportError as exc:
        err.write(f"damier serve: the web extra is missing ({exc}); "
                  "install it with: pip install 'damier[web]'\n")
        return 2
    except RuntimeError as exc:
        err.write(f"damier serve: {exc}\n")
        return 2
    if not 0 <= args.port <= 65535:
        err.write(f"damier serve: --port must be 0-65535, got {args.port}\n")
        return 2
    if args.movetime is not None and args.movetime <= 0:
        err.write("damier serve: --movetime must be positive\n")
        return 2
    host = f"[{args.host}]" if ":" in args.host else args.host
    out.write(f"damier serve: http://{host}:{args.port}/  (games in {args.db}; Ctrl-C stops)\n")
    out.flush()
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        out.write("damier serve: listening beyond this machine: anyone on the network can "
                  "open the page, watch games by their link and start games of their own\n")
    run_server(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0
