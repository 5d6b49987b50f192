"""The web app served by uvicorn: :func:`run_server` serves it with
:func:`uvicorn_settings` (the guarded HTTP protocol of :mod:`damier.web.connections`
and uvicorn's limits) after raising the limit of open files for its connections.
``damier serve`` (:mod:`damier.cli.serve`) reads its arguments and calls it.
"""

from __future__ import annotations

from typing import Any

from damier.web.connections import ConnectionLimits, guarded_protocol

__all__ = ["run_server", "uvicorn_settings"]


def run_server(app: Any, *, host: str, port: int, log_level: str = "warning") -> None:
    """Serves ``app`` (from :func:`damier.web.app.create_app`) on ``host:port`` until
    uvicorn stops (Ctrl-C), with :func:`uvicorn_settings` and ``log_level`` as uvicorn's."""
    import uvicorn

    _raise_file_limit()
    uvicorn.run(app, **uvicorn_settings(), host=host, port=port, log_level=log_level)


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
