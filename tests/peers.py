"""Peer draughts programs that cannot share the test environment, run in a subprocess.

py-draughts (PyPI ``py-draughts``, GPL; run here, never copied) imports as
``draughts``, and so does pydraughts, which the test extra installs. The two cannot
live in one environment, so py-draughts is installed on its own, with its
dependencies, into ``<repo>/.peers/py-draughts-1.10.1`` (ignored by git), and is
run by a child Python whose ``PYTHONPATH`` puts that folder first. One child
handles a whole batch of positions: the request goes in as JSON on its standard
input and the answer comes back as JSON on its standard output.

The folder is installed the first time it is needed (``python -m pip install
--target``, about 20 s and 100 MB), under a file lock and by renaming a finished
temporary folder, so parallel test processes (pytest-xdist) neither clash nor see
half an install. If it cannot be installed (no network, no pip), the public
functions call :func:`pytest.skip` with the reason, so the tests that use them are
skipped, never errors; the failure is remembered for the rest of the process.

Positions are PDN FENs (``W:W31-50:B1-20``, white's list first, ``K`` before a
king, ranges allowed), which is what ``damier.Board.fen()`` writes. Squares are
numbered as PDN numbers them (1-50 on 10x10, 1-32 on 8x8, square 1 the second
square of the top row as White sees the board), which is also py-draughts'
numbering (its moves count squares from 0; the child adds 1).

py-draughts' board classes, by the names used here (:data:`PY_DRAUGHTS_VARIANTS`):
``standard`` (International), ``american`` (English checkers: NB py-draughts makes
captures optional in it), ``russian``, ``brazilian``, ``antidraughts``,
``breakthrough``, ``frisian`` and ``frysk``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "PY_DRAUGHTS_VERSION", "PY_DRAUGHTS_VARIANTS", "PeerError", "PeerMove", "PeerUnavailable",
    "py_draughts_dir", "py_draughts_legal_moves", "py_draughts_legal_moves_by_variant",
    "py_draughts_perft", "py_draughts_perfts", "py_draughts_perfts_by_variant",
]

PY_DRAUGHTS_VERSION = "1.10.1"
"""The py-draughts release the tests compare against (also pinned in the ``bench`` extra)."""

PY_DRAUGHTS_VARIANTS: dict[str, str] = {
    "standard": "StandardBoard",
    "american": "AmericanBoard",
    "russian": "RussianBoard",
    "brazilian": "BrazilianBoard",
    "antidraughts": "AntidraughtsBoard",
    "breakthrough": "BreakthroughBoard",
    "frisian": "FrisianBoard",
    "frysk": "FryskBoard",
}
"""py-draughts' variant names (the keys the functions here take) and its board classes."""

PeerMove = tuple[int, int, frozenset[int]]
"""A move as ``(from square, to square, frozenset of the captured squares)``."""

REPO_ROOT = Path(__file__).resolve().parent.parent
PEERS_DIR = REPO_ROOT / ".peers"
INSTALL_TIMEOUT_S = 900
"""The most a pip install may take before it counts as failed."""
RUN_TIMEOUT_S = 1800
"""The most one batch may take in the child before it counts as failed."""
_MARKER = "damier-peer-installed.json"
"""Written into a finished install: the version and the Python it was installed for."""


class PeerUnavailable(RuntimeError):
    """The peer could not be installed or started (the tests skip on it)."""


class PeerError(RuntimeError):
    """The peer ran but failed on a request (a rejected FEN, a crash): a real error."""


# -- installation -------------------------------------------------------------------


def _python_tag() -> str:
    """What makes an install usable by this interpreter (compiled dependencies)."""
    return f"{sys.implementation.cache_tag}-{sys.platform}-{os.uname().machine}"


def _install_ok(target: Path) -> bool:
    """Whether ``target`` holds a finished install made for this interpreter."""
    try:
        marker = json.loads((target / _MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(marker.get("version") == PY_DRAUGHTS_VERSION
                and marker.get("python") == _python_tag())


_failure: str | None = None
"""Why the install failed in this process (it is not tried again), or None."""


def py_draughts_dir() -> Path:
    """The folder holding py-draughts and its dependencies, installed if missing.

    Raises :class:`PeerUnavailable` if it cannot be installed; later calls in the
    same process raise it again at once, without trying pip again.
    """
    global _failure
    target = PEERS_DIR / f"py-draughts-{PY_DRAUGHTS_VERSION}"
    if _install_ok(target):
        return target
    if _failure is not None:
        raise PeerUnavailable(_failure)
    try:
        PEERS_DIR.mkdir(exist_ok=True)
        with open(PEERS_DIR / f".py-draughts-{PY_DRAUGHTS_VERSION}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)     # another process may be installing
            if not _install_ok(target):
                _install(target)
    except PeerUnavailable as exc:
        _failure = str(exc)
        raise
    except OSError as exc:
        _failure = f"cannot install py-draughts into {target}: {exc}"
        raise PeerUnavailable(_failure) from exc
    return target


def _install(target: Path) -> None:
    """Installs into a temporary folder beside ``target`` and renames it into place
    (the caller holds the lock). An old install made for another Python is replaced."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--no-input", "--retries", "2", "--timeout", "30",
               "--target", str(tmp), f"py-draughts=={PY_DRAUGHTS_VERSION}"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PeerUnavailable(f"pip install py-draughts=={PY_DRAUGHTS_VERSION} failed: "
                                  f"{exc}") from exc
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            errors = [line for line in lines if line.startswith("ERROR")]
            tail = " | ".join(errors or lines[-3:])
            raise PeerUnavailable(f"pip install py-draughts=={PY_DRAUGHTS_VERSION} failed "
                                  f"(exit {done.returncode}; no network?): {tail}")
        marker = {"version": PY_DRAUGHTS_VERSION, "python": _python_tag()}
        (tmp / _MARKER).write_text(json.dumps(marker), encoding="utf-8")
        tmp.chmod(0o755)                     # mkdtemp makes it private to its owner
        if target.exists():                  # an install for another Python, or unfinished
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
            target.rename(old / "dir")
            shutil.rmtree(old, ignore_errors=True)
        tmp.rename(target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


# -- the child process ------------------------------------------------------------------

# Runs in the child: reads one JSON request (a list of jobs), answers one JSON object.
# Squares in py-draughts' moves count from 0 (``square_list``, ``captured_list``).
_WORKER = r"""
import json, sys
from loguru import logger
logger.remove()                # py-draughts logs every board it makes
import draughts
if not draughts.__file__.startswith(sys.argv[1]):     # not pydraughts, also "draughts"
    sys.exit(f"imported draughts from {draughts.__file__}, not from {sys.argv[1]}")

def moves(b):
    return [[m.square_list[0] + 1, m.square_list[-1] + 1, [c + 1 for c in m.captured_list]]
            for m in b.legal_moves]

def distinct(legal):
    # One move per (from, to, set of captures), as perft counts them: py-draughts' Frisian
    # boards (and so Frysk!) list some captures twice, by two routes.
    seen = {}
    for m in legal:
        seen.setdefault((m.square_list[0], m.square_list[-1], frozenset(m.captured_list)), m)
    return list(seen.values())

def perft(b, depth):
    if depth == 0:
        return 1
    legal = distinct(b.legal_moves)
    if depth == 1:
        return len(legal)
    total = 0
    for m in legal:
        b.push(m)
        total += perft(b, depth - 1)
        b.pop()
    return total

results = []
for job in json.load(sys.stdin):
    cls = getattr(draughts, job["board"])
    out = []
    for fen in job["fens"]:
        try:
            b = cls.from_fen(fen)
            out.append(moves(b) if job["op"] == "moves" else perft(b, job["depth"]))
        except Exception as exc:
            json.dump({"error": f"{type(exc).__name__}: {exc}", "fen": fen,
                       "variant": job["variant"]}, sys.stdout)
            sys.exit(0)
    results.append(out)
json.dump({"results": results}, sys.stdout)
"""


def _check_variant(peer_variant: str) -> str:
    """py-draughts' board class for ``peer_variant`` (:class:`ValueError` if unknown)."""
    try:
        return PY_DRAUGHTS_VARIANTS[peer_variant]
    except KeyError:
        raise ValueError(f"unknown py-draughts variant {peer_variant!r} "
                         f"(choose from: {', '.join(PY_DRAUGHTS_VARIANTS)})") from None


def _run(jobs: list[dict[str, Any]]) -> list[list[Any]]:
    """Runs ``jobs`` (``op`` ``moves`` or ``perft``, ``variant``, ``fens``, ``depth``)
    in one fresh child and returns one result list per job."""
    for job in jobs:
        job["board"] = _check_variant(job["variant"])
    try:
        target = py_draughts_dir()
    except PeerUnavailable as exc:
        pytest.skip(f"py-draughts {PY_DRAUGHTS_VERSION} unavailable: {exc}")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(target), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PYTHONHOME", None)
    # cwd: the install folder, so that no ``draughts`` of the working directory shadows it.
    done = subprocess.run([sys.executable, "-c", _WORKER, str(target) + os.sep],
                          input=json.dumps(jobs), capture_output=True, text=True, env=env,
                          cwd=target, timeout=RUN_TIMEOUT_S)
    if done.returncode != 0:
        raise PeerError(f"py-draughts child exited {done.returncode}: "
                        f"{done.stderr.strip()[-2000:]}")
    answer = json.loads(done.stdout)
    if "error" in answer:
        raise PeerError(f"py-draughts ({answer['variant']}) failed on {answer['fen']}: "
                        f"{answer['error']}")
    results: list[list[Any]] = answer["results"]
    return results


def _move_sets(result: list[Any]) -> list[set[PeerMove]]:
    return [{(int(f), int(t), frozenset(int(c) for c in caps)) for f, t, caps in moves}
            for moves in result]


def py_draughts_legal_moves(peer_variant: str, fens: list[str]) -> list[set[PeerMove]]:
    """py-draughts' legal moves in each of ``fens`` (one child process for the batch).

    ``peer_variant`` is a key of :data:`PY_DRAUGHTS_VARIANTS`. Each position gives
    the set of its moves as ``(from, to, frozenset(captured squares))``, squares
    numbered 1-50 or 1-32 (PDN). Moves that py-draughts lists twice (two capture
    paths with the same ends and captured pieces) are one element. Skips the
    calling test if py-draughts cannot be installed; raises :class:`PeerError` if
    py-draughts rejects a position (it refuses a man on its own crowning row).
    """
    return py_draughts_legal_moves_by_variant({peer_variant: fens})[peer_variant]


def py_draughts_legal_moves_by_variant(
        fens: dict[str, list[str]]) -> dict[str, list[set[PeerMove]]]:
    """:func:`py_draughts_legal_moves` for several variants (the keys) in one child
    process: starting one costs about a second (py-draughts imports a web server)."""
    jobs = [{"op": "moves", "variant": v, "fens": list(f)} for v, f in fens.items() if f]
    results = iter(_run(jobs) if jobs else [])
    return {v: _move_sets(next(results)) if f else [] for v, f in fens.items()}


def py_draughts_perfts(peer_variant: str, fens: list[str], depth: int) -> list[int]:
    """py-draughts' perft (leaf count at ``depth`` plies, through its ``legal_moves``,
    ``push`` and ``pop``) of each of ``fens``, in one child process.

    Each move counts once per ``(from, to, set of captured squares)``, as in
    ``tests/data/reference/perft.txt``: py-draughts' boards drop such duplicates
    themselves, except its Frisian board (and so Frysk!), which lists some captures
    twice (two routes with the same ends and captured pieces)."""
    return py_draughts_perfts_by_variant({peer_variant: fens}, depth)[peer_variant]


def py_draughts_perfts_by_variant(fens: dict[str, list[str]], depth: int) -> dict[str, list[int]]:
    """:func:`py_draughts_perfts` for several variants (the keys) in one child process."""
    if depth < 0:
        raise ValueError(f"depth must be at least 0, got {depth}")
    jobs = [{"op": "perft", "variant": v, "fens": list(f), "depth": depth}
            for v, f in fens.items() if f]
    results = iter(_run(jobs) if jobs else [])
    return {v: [int(n) for n in next(results)] if f else [] for v, f in fens.items()}


def py_draughts_perft(peer_variant: str, fen: str, depth: int) -> int:
    """py-draughts' perft of one position (see :func:`py_draughts_perfts`)."""
    return py_draughts_perfts(peer_variant, [fen], depth)[0]
