"""Shared by the benchmark scripts: import damier, falling back to the in-place
build in ``src/`` when it is not installed."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any


def import_damier() -> Any:
    try:
        import damier  # noqa: PLC0415
    except ImportError:
        src = Path(__file__).resolve().parent.parent / "src"
        if not (src / "damier").is_dir():
            raise
        sys.path.insert(0, str(src))
        import damier  # noqa: PLC0415
    return damier


def pin_one_core() -> str:
    """Pins this process to the last CPU it may use; says what was done."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return f"pinned to CPU {cpus[-1]} (of {len(cpus)} available)"
    except OSError as error:
        return f"not pinned ({error})"
