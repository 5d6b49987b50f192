"""Shared test configuration: the published reference data and test markers.

The reference tables (``perft.txt``, ``rules.txt``; see their header comments
for sources and format) live in ``tests/data/reference/``, so every test runs for
anyone who clones the repository; a missing table is an error, not a skip.

Tests get the data through parametrized arguments generated here:

* ``perft_case``: a :class:`PerftCase` per (position, depth) of ``perft.txt``
  whose published leaf count is at most :data:`MAX_PERFT_LEAVES`; the cases
  above :data:`SLOW_PERFT_LEAVES` carry the ``slow`` marker (still run by
  default).
* ``perft_line``: a :class:`PerftLine` per line of ``perft.txt``.
* ``rule_case``: a :class:`RuleCase` per line of ``rules.txt``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest

REFERENCE_DIR = Path(__file__).resolve().parent / "data" / "reference"

MAX_PERFT_LEAVES = 10**9
SLOW_PERFT_LEAVES = 10**7


def _missing(name: str) -> str:
    return f"reference data {name} not found in {REFERENCE_DIR} (it belongs to the repository)"


class PerftLine(NamedTuple):
    variant: str
    name: str
    fen: str | None
    """The FEN, or None for the variant's initial position (``initial`` in the file)."""
    counts: tuple[int, ...]
    """Published leaf counts for depth 1, 2, 3, ..."""


class PerftCase(NamedTuple):
    variant: str
    name: str
    fen: str | None
    depth: int
    leaves: int


class RuleCase(NamedTuple):
    fen: str
    rule: str
    moves: tuple[str, ...]
    """The complete list of legal moves, as printed in the file."""


def reference_lines(name: str) -> list[str] | None:
    """The data lines of ``tests/data/reference/<name>`` (comments and blank lines
    dropped), or None when the file is missing."""
    path = REFERENCE_DIR / name
    if not path.is_file():
        raise FileNotFoundError(_missing(name))
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def perft_lines() -> list[PerftLine] | None:
    lines = reference_lines("perft.txt")
    if lines is None:
        return None
    result = []
    for line in lines:
        variant, name, fen, counts = line.split(";")
        result.append(PerftLine(variant.strip(), name.strip(),
                                None if fen.strip() == "initial" else fen.strip(),
                                tuple(int(c) for c in counts.split(","))))
    return result


def rule_cases() -> list[RuleCase] | None:
    lines = reference_lines("rules.txt")
    if lines is None:
        return None
    result = []
    for line in lines:
        fen, rule, moves = line.split(";")
        result.append(RuleCase(fen.strip(), rule.strip(), tuple(moves.split())))
    return result


def _skip_param(name: str) -> list:
    return [pytest.param(None, id="missing-reference",
                         marks=pytest.mark.skip(reason=_missing(name)))]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: a test taking about a second or more (run by default; deselect with -m 'not slow')",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "perft_case" in metafunc.fixturenames:
        lines = perft_lines()
        if lines is None:
            params = _skip_param("perft.txt")
        else:
            params = []
            for line in lines:
                for depth, leaves in enumerate(line.counts, start=1):
                    if leaves > MAX_PERFT_LEAVES:
                        continue
                    marks = [pytest.mark.slow] if leaves > SLOW_PERFT_LEAVES else []
                    params.append(pytest.param(
                        PerftCase(line.variant, line.name, line.fen, depth, leaves),
                        id=f"{line.variant}-{line.name}-d{depth}", marks=marks))
        metafunc.parametrize("perft_case", params)
    if "perft_line" in metafunc.fixturenames:
        lines = perft_lines()
        params = (_skip_param("perft.txt") if lines is None else
                  [pytest.param(line, id=f"{line.variant}-{line.name}") for line in lines])
        metafunc.parametrize("perft_line", params)
    if "rule_case" in metafunc.fixturenames:
        cases = rule_cases()
        params = (_skip_param("rules.txt") if cases is None else
                  [pytest.param(case,
                                id=f"{number}-" + re.sub(r"\W+", "-", case.rule[:40]).strip("-"))
                   for number, case in enumerate(cases, start=1)])
        metafunc.parametrize("rule_case", params)


@pytest.fixture(scope="session")
def perft_table() -> dict[tuple[str, str], PerftLine]:
    """``perft.txt`` by ``(variant, name)``."""
    lines = perft_lines()
    assert lines is not None
    return {(line.variant, line.name): line for line in lines}


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The directory of the published reference tables."""
    if not REFERENCE_DIR.is_dir():
        raise FileNotFoundError(f"{REFERENCE_DIR} is missing (it belongs to the repository)")
    return REFERENCE_DIR


@pytest.fixture(autouse=True)
def _default_sigint_handler():
    """Every test starts with Python's own Ctrl-C handler (a test that installs
    its own and is cut short must not change what Ctrl-C does in the next one)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield


@pytest.fixture(autouse=True, scope="session")
def _private_cache_directory(tmp_path_factory: pytest.TempPathFactory):
    """The user's cache directory (``$XDG_CACHE_HOME``) is a fresh one for the test run:
    the engines of ``damier play``, ``serve`` and ``hub`` build their first endgame
    tables there, never in the home directory of the machine running the tests."""
    import os

    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old
