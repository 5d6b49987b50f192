"""``damier serve``: runs the web app with uvicorn.

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
from typing import Any, TextIO

from damier.cli.options import add_engine_egdb_arguments, egdb_setting
from damier.web.connections import ConnectionLimits, guarded_protocol

__all__ = ["add_serve_parser", "serve_command"]


def add_serve_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
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
    serve.add_argument("--engines", type=int, default=2,
                       help="engine searches at once, shared by every game (default 2)")
    serve.add_argument("--hash", type=int, default=16, metavar="MB",
                       help="hash table of each engine in MiB (default 16)")
    serve.add_argument("--movetime", type=float, default=None,
                       help="seconds the engine thinks per move (default: by level, 0.5-2.5)")
    serve.add_argument("--no-book", action="store_true",
                       help="the engine does not play from the shipped opening book")
    add_engine_egdb_arguments(serve)
    serve.add_argument("--log-level", default="warning",
                       choices=("critical", "error", "warning", "info", "debug"),
                       help="uvicorn's log level (default warning)")


def serve_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        import uvicorn
        from damier.web.app import create_app
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
    _raise_file_limit()
    uvicorn.run(app, **uvicorn_settings(), host=args.host, port=args.port,
                log_level=args.log_level)
    return 0


def uvicorn_settings(limits: ConnectionLimits | None = None) -> dict[str, Any]:
    """uvicorn's settings for the app: the guarded HTTP protocol
    (:mod:`damier.web.connections`: a time for each request head, idle connections
    capped per address and in all), WebSocket messages of at most 64 KiB, 5 seconds of
    keep-alive, at most 1,000 connections and tasks, request heads of at most 16 KiB."""
    return {"http": guarded_protocol(limits or ConnectionLimits()), "ws_max_size": 64 * 1024,
            "timeout_keep_alive": 5, "limit_concurrency": 1000,
            "h11_max_incomplete_event_size": 16 * 1024}


def _raise_file_limit(wanted: int = 4096) -> None:
    """Lets the server hold its 1,000 connections: the soft limit of open files goes up
    to ``wanted`` (or the hard limit, if lower)."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not on this system
        pass
