"""Shared test configuration: the reference-data directory and test markers.

The published reference tables (``perft.txt``, ``rules.txt``) live outside the
repository, in ``shared/reference/`` beside the checkout (CI clones the
repository next to ``shared/``). Tests that need them skip with a clear reason
when the directory is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REFERENCE_DIR = Path(__file__).resolve().parents[2] / "shared" / "reference"
MISSING_REFERENCE = (
    f"reference data not found at {REFERENCE_DIR} (shared/reference/ must sit beside the "
    "repository checkout)"
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: a test taking a second or more (still run by default; deselect with -m 'not slow')",
    )


def reference_lines(name: str) -> list[str] | None:
    """The data lines of ``shared/reference/<name>`` (comments and blank lines
    dropped), or None when the file is missing."""
    path = REFERENCE_DIR / name
    if not path.is_file():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The directory of the published reference tables (skips when missing)."""
    if not REFERENCE_DIR.is_dir():
        pytest.skip(MISSING_REFERENCE)
    return REFERENCE_DIR
