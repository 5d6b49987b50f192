"""Shared by the benchmark scripts: import damier, falling back to the in-place
build in ``src/`` when it is not installed."""

from __future__ import annotations

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
