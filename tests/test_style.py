"""The code's style: ``ruff check src tests`` finds nothing, with the rules and the line
length set in pyproject.toml (pycodestyle errors, pyflakes and bugbear; 100 columns)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    """The command that runs ruff: the module of this interpreter, else the ruff binary
    installed next to it; skips the test when neither is there."""
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    binary = Path(sys.executable).parent / ("ruff.exe" if sys.platform == "win32" else "ruff")
    if binary.is_file():
        return [str(binary)]
    pytest.skip("ruff is not installed (pip install -e '.[test]' installs it)")


def test_ruff_config_selects_the_rules() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib needs Python 3.11 or later")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]
    assert config["line-length"] == 100
    assert {"E", "F", "B"} <= set(config["lint"]["select"])


def test_ruff_check_is_clean() -> None:
    result = subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "concise",
                             "src", "tests"], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, (f"ruff check src tests found problems:\n"
                                    f"{result.stdout[-8000:]}{result.stderr[-2000:]}")
