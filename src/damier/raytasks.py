"""Starting Ray for damier's distributed jobs (self-play, endgame database builds).

Ray is an optional extra (``pip install 'damier[train]'``); nothing here imports it
before it is needed. A job uses the Ray already running in the process if there is
one, else starts one (a local Ray, or joins the cluster at ``address``) and shuts it
down itself when done: a Ctrl-C during that shutdown is then the job's to report as
a stop, not a traceback from Ray's exit handler.
"""

from __future__ import annotations

from typing import Any

__all__ = ["start_ray"]


def start_ray(address: str | None = None, num_cpus: int | None = None) -> tuple[Any, bool]:
    """``(ray, started)``: the ``ray`` module, initialised, and whether this call
    started it (then the caller calls ``ray.shutdown()`` when done). ``address``
    joins a running cluster; ``num_cpus`` sizes a local one. Without Ray installed,
    an :class:`ImportError` that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ImportError("this needs Ray: pip install 'damier[train]'") from None
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
