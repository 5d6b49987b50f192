"""Starting Ray for damier's distributed jobs (self-play, endgame database builds,
matches).

Ray is an optional extra (``pip install 'damier[train]'``); nothing here imports it
before it is needed. A job uses the Ray already running in the process if there is
one, else starts one (a local Ray, or joins the cluster at ``address``) and shuts it
down itself when done: a Ctrl-C during that shutdown is then the job's to report as
a stop, not a traceback from Ray's exit handler.
"""

from __future__ import annotations

import re
import socket
from typing import Any

__all__ = ["start_ray"]

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the cluster at a ``HOST:PORT`` address to answer before
joining it (Ray itself would retry for minutes)."""

_HOST_PORT = re.compile(r"^(?:\[(?P<ip6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:/\s\[\]]+)):(?P<port>\d+)$")


def start_ray(address: str | None = None, num_cpus: int | None = None) -> tuple[Any, bool]:
    """``(ray, started)``: the ``ray`` module, initialised, and whether this call
    started it (then the caller calls ``ray.shutdown()`` when done). ``address``
    joins a running cluster; ``num_cpus`` sizes a local one. Without Ray installed,
    an :class:`ImportError` that says how to install it; a ``HOST:PORT`` address
    where nothing answers, a :class:`ConnectionError` that names it."""
    try:
        import ray
    except ImportError:
        raise ImportError("this needs Ray: pip install 'damier[train]'") from None
    if address:
        _check_reachable(address)
    if ray.is_initialized():
        return ray, False
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                              "configure_logging": False}
    if address:
        kwargs["address"] = address
    elif num_cpus:
        kwargs["num_cpus"] = num_cpus
    ray.init(**kwargs)
    return ray, True


def _check_reachable(address: str) -> None:
    """Raises :class:`ConnectionError` when ``address``, of the form ``HOST:PORT``,
    takes no connection within :data:`CONNECT_TIMEOUT` seconds (other forms, such as
    ``auto`` or ``ray://...``, are Ray's to read).

    >>> _check_reachable("auto")
    >>> _check_reachable("127.0.0.1:0")
    Traceback (most recent call last):
    ...
    ConnectionError: cannot reach the Ray cluster at 127.0.0.1:0: ...
    """
    match = _HOST_PORT.match(address.strip())
    if match is None:
        return
    host = match.group("ip6") or match.group("host")
    try:
        with socket.create_connection((host, int(match.group("port"))),
                                      timeout=CONNECT_TIMEOUT):
            pass
    except (OSError, ValueError, OverflowError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConnectionError(f"cannot reach the Ray cluster at {address}: "
                              f"{reason or type(exc).__name__}") from None
