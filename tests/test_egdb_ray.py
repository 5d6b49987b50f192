"""Building endgame databases on Ray (``build(..., ray=True)``, ``damier egdb build --ray``).

One local Ray (2 CPUs) serves the module. A Ray build must give the same files, byte for
byte, as the local build; an interrupted one must resume to the same files; the command
line's ``--ray`` must work, and say in one line that Ray is missing when it is. The levels
the Ray build runs are checked against the moves of the core: every successor's
signature is in the pair, or in a lower level among the tables the task loads.
"""

from __future__ import annotations

import io
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from damier import Board
from damier import egdb, egdb_build
from damier._core import egdb_key, egdb_position
from damier.cli import main as cli_main
from damier.egdb import signatures
from damier.egdb_build import BuildProgress, SignatureReport, build
from damier.variants import VARIANTS, get_variant


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def local3(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[SignatureReport]]:
    root = tmp_path_factory.mktemp("local3")
    return root, build(root, pieces=3)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli_main(args, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _plain(reports: list[SignatureReport]) -> list[tuple[object, ...]]:
    return [(r.signature, r.positions, r.wins, r.draws, r.losses, r.longest, r.bytes, r.skipped)
            for r in reports]


def test_ray_build_gives_the_local_files(local_ray: Any, local3: tuple[Path, list[SignatureReport]],
                                         tmp_path: Path) -> None:
    local, local_reports = local3
    events: list[BuildProgress] = []
    reports = build(tmp_path, pieces=3, ray=True, progress=events.append)
    assert _files(tmp_path / "international") == _files(local / "international")
    assert _plain(reports) == _plain(local_reports)
    assert [e.done for e in events] == list(range(1, len(egdb_build._pairs(3)) + 1))
    assert not any(e.skipped for e in events)
    again: list[BuildProgress] = []
    assert _plain(build(tmp_path, pieces=3, ray=True, progress=again.append)) == \
        [r[:-1] + (True,) for r in _plain(local_reports)]
    assert all(e.skipped for e in again)


def test_interrupted_ray_build_resumes_to_identical_files(
        local_ray: Any, local3: tuple[Path, list[SignatureReport]], tmp_path: Path) -> None:
    local, _ = local3

    def stop(event: BuildProgress) -> None:
        if event.done == 2:        # the first pair of the second level: its other is cancelled
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build(tmp_path, pieces=3, ray=True, progress=stop)
    folder = tmp_path / "international"
    partial = {n for n in _files(folder) if n.endswith(".egdb")}
    assert 3 <= len(partial) <= 5
    events: list[BuildProgress] = []
    reports = build(tmp_path, pieces=3, ray=True, progress=events.append)
    assert sum(r.skipped for r in reports) == len(partial)
    assert [e.skipped for e in events[:2]] == [True, True]
    assert _files(folder) == _files(local / "international")      # no temporary file left


def test_cli_build_with_ray(local_ray: Any, tmp_path: Path) -> None:
    code, out, err = _cli(["egdb", "build", "--pieces", "2", "--dir", str(tmp_path), "--ray"])
    assert code == 0, err
    assert "4 tables" in out and "4 built now" in out
    assert "1010: built (4/4 tables to build)" in err        # the progress lines
    build(tmp_path / "local", pieces=2)
    assert _files(tmp_path / "international") == _files(tmp_path / "local" / "international")


def test_missing_ray_is_one_line_and_exit_2(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)            # import ray fails
    code, out, err = _cli(["egdb", "build", "--pieces", "2", "--dir", str(tmp_path), "--ray",
                           "--no-progress"])
    assert code == 2 and out == ""
    assert "damier[train]" in err and err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(ImportError, match="needs Ray"):
        build(tmp_path, pieces=2, address="localhost:6379")


def test_levels_hold_every_successor() -> None:
    """Every pair's successors (through the core's moves, positions sampled in each
    variant) are in the pair or in the tables of lower levels that its task loads."""
    rng = random.Random(11)
    for name in VARIANTS:
        v = get_variant(name)
        pairs = egdb_build._pairs(4)
        level = {s: i for i, group in enumerate(egdb_build._levels(pairs)) for s in group}
        level.update({egdb._mirror(s): i for s, i in list(level.items())})
        assert sorted(level) == sorted(signatures(4))
        for s in signatures(4):
            allowed = egdb._leads_to(s)
            assert all(level[t] < level[s] for t in allowed)
            size = egdb._core.EgTables(v.index).positions(s)
            for _ in range(60):
                groups = egdb_position(v.index, s, rng.randrange(size))
                if groups is None:
                    continue
                wm, wk, bm, bk = groups
                white = [str(q) for q in wm] + [f"K{q}" for q in wk]
                black = [str(q) for q in bm] + [f"K{q}" for q in bk]
                board = Board(f"W:W{','.join(white)}:B{','.join(black)}", variant=v)
                for move in board.legal_moves:
                    after = board.copy(stack=False)
                    after.push(move)
                    key = egdb_key(after)
                    if key is not None:
                        assert key[0] in allowed | {s, egdb._mirror(s)}, (name, board.fen(), move)
