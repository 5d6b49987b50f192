"""Matches on Ray (``run_match(..., workers=, address=)``, ``damier match --workers/--address``).

The engines here are deterministic (damier's engine at a fixed depth or node count, level
10, no book), so a match on Ray must give the very games of the same match played in this
process: the same results, the same PDN file, the same report. One local Ray (2 CPUs)
serves the module, except for the first test, whose command starts and stops its own.
"""

from __future__ import annotations

import _thread
import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from damier import Board
from damier.cli import main
from damier.match import (EngineStartError, MatchResult, Player, make_player,
                          parse_engine_spec, run_match)
from damier.pdn import read_games
from damier.sprt import SPRT

pytest.importorskip("ray")

A = "damier:depth=2,hash=1"
B = "damier:nodes=200,hash=1"
SEED = 5


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def outcomes(result: MatchResult) -> list[tuple[int, str, str, str, str, int, str]]:
    return [(g.number, g.round, g.white, g.black, g.result, g.plies, g.moves)
            for g in result.games]


def untimed(pdn_text: str) -> str:
    """A match's PDN without the seconds each move took (``{+0.09/1 0.65s}`` becomes
    ``{+0.09/1}``): the same games played twice differ only in those."""
    return re.sub(r" \d+\.\d\ds([};])", r"\1", pdn_text)


def journal_numbers(path: Path) -> list[int]:
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [item["number"] for item in items if item["type"] == "game"]


def session(sid: int) -> list[str]:
    """The processes of session ``sid`` (from /proc): ``pid command`` each."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue                  # gone meanwhile
        command, fields = text[text.index("(") + 1:text.rindex(")")], text.rsplit(")", 1)[1]
        if int(fields.split()[3]) == sid:
            found.append(f"{stat.parent.name} {command}")
    return found


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    import ray

    os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")
    # The players defined in this module travel to the workers by value (the workers
    # cannot import a test module).
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()
    ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def local8(tmp_path_factory: pytest.TempPathFactory) -> tuple[MatchResult, str]:
    """The reference: 8 games played in this process, and their PDN file."""
    pdn = tmp_path_factory.mktemp("local") / "local.pdn"
    result = run_match(A, B, games=8, seed=SEED, progress=False, pdn_path=pdn)
    return result, pdn.read_text(encoding="utf-8")


# -- first, with no Ray running: the command line starts its own and stops it ---------------


def test_cli_workers_starts_a_local_ray_and_gives_the_local_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ray

    monkeypatch.setenv("RAY_DISABLE_USAGE_STATS", "1")

    assert not ray.is_initialized()
    argv = ["match", A, B, "--games", "4", "--seed", str(SEED), "--no-progress"]
    code, local_out, err = cli(argv + ["--pdn", str(tmp_path / "local.pdn")])
    assert code == 0, err
    code, ray_out, err = cli(argv + ["--pdn", str(tmp_path / "ray.pdn"), "--workers", "2",
                                     "--json", str(tmp_path / "ray.json")])
    assert code == 0, err
    assert not ray.is_initialized()                     # the Ray it started is shut down
    assert ray_out == local_out.replace("local.pdn", "ray.pdn")
    assert (untimed((tmp_path / "ray.pdn").read_text())
            == untimed((tmp_path / "local.pdn").read_text()))
    assert json.loads((tmp_path / "ray.json").read_text())["games"] == 4


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_ctrl_c_on_the_command_line_stops_its_ray_and_keeps_the_finished_pairs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real Ctrl-C: SIGINT to the whole process group (the command, its Ray, the
    workers), as a terminal sends it."""
    monkeypatch.setenv("RAY_DISABLE_USAGE_STATS", "1")
    journal, pdn = tmp_path / "stop.jsonl", tmp_path / "stop.pdn"
    proc = subprocess.Popen([sys.executable, "-m", "damier.cli", "match", A,
                             "damier:movetime=0.02,hash=1", "--games", "40", "--workers", "2",
                             "--seed", str(SEED), "--pdn", str(pdn), "--resume", str(journal)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (journal.exists() and len(journal_numbers(journal)) >= 2):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "stopping: cancelling the game pairs" in err
    numbers = sorted(journal_numbers(journal))
    assert 2 <= len(numbers) < 40
    assert all(k + (1 if k % 2 else -1) in numbers for k in numbers)   # whole pairs only
    assert f"{len(numbers)} of 40 games" in out and "interrupted" in out
    assert [g.headers["Round"] for g in read_games(pdn)] == [
        f"{(k + 1) // 2}.{2 - k % 2}" for k in numbers]
    deadline = time.monotonic() + 10
    while session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session(proc.pid) == []    # the Ray it started (raylet, workers) has gone with it


def test_cli_without_ray_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)           # import ray fails
    for option in (["--workers", "2"], ["--address", "10.0.0.1:6379"]):
        code, out, err = cli(["match", A, B, "--no-progress"] + option)
        assert code == 2 and out == ""
        assert "pip install 'damier[train]'" in err and err.count("\n") == 1
        assert "Traceback" not in err
    with pytest.raises(ImportError, match=r"needs Ray: pip install 'damier\[train\]'"):
        run_match(A, B, games=2, progress=False, workers=2)


def test_bad_ray_options_are_clear() -> None:
    code, out, err = cli(["match", A, B, "--address", "127.0.0.1:1", "--no-progress"])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--address: cannot reach the Ray cluster at 127.0.0.1:1" in err
    for argv, message in [(["--workers", "0"], "--workers must be at least 1, got 0"),
                          (["--workers", "2", "--concurrency", "2"],
                           "--concurrency is for a match in this process")]:
        code, out, err = cli(["match", A, B, "--no-progress"] + argv)
        assert code == 2 and message in err and "Traceback" not in err
    with pytest.raises(ValueError, match="workers must be at least 1"):
        run_match(A, B, games=2, progress=False, workers=0)
    with pytest.raises(ValueError, match="address must be a Ray address"):
        run_match(A, B, games=2, progress=False, address=" ")


# -- on the module's Ray -------------------------------------------------------------------


def test_damier_player_with_nodes_is_deterministic() -> None:
    """What the comparisons below rest on: a DamierPlayer at a fixed node count plays
    the same moves whatever its seed, and a fresh engine plays as one that has played
    games before (a Ray task starts fresh engines for each pair)."""
    board = Board()
    used = make_player(B, seed=1)
    for _ in range(3):
        used.new_game()
        used.play(board, movetime=None, clock=None)
    for _ in range(30):
        fresh = make_player(parse_engine_spec(B), seed=len(board.move_stack) + 7)
        used.new_game()
        move = fresh.play(board, movetime=None, clock=None)
        assert move == used.play(board, movetime=None, clock=None)
        assert move is not None
        board.push(move)
        if board.outcome() is not None:
            break


def test_ray_match_gives_the_local_games_and_pdn(local_ray: Any, local8: tuple[MatchResult, str],
                                                 tmp_path: Path) -> None:
    local, local_pdn = local8
    stream = io.StringIO()
    pdn = tmp_path / "ray.pdn"
    result = run_match(A, B, games=8, seed=SEED, progress=True, stream=stream, pdn_path=pdn,
                       workers=2)
    assert outcomes(result) == outcomes(local)
    assert untimed(pdn.read_text(encoding="utf-8")) == untimed(local_pdn)  # schedule order
    assert result.summary().replace(str(pdn), "X") == local.summary().replace(
        str(local.pdn_path), "X")
    lines = [line for line in stream.getvalue().splitlines() if line.startswith("[")]
    assert [line.split()[0] for line in lines] == [f"[{k}/8]" for k in range(1, 9)]
    assert "playing on Ray: up to 2 game pairs at once" in stream.getvalue()
    assert local_ray.is_initialized()                  # a Ray it did not start stays up


def test_cli_address_joins_the_cluster(local_ray: Any, local8: tuple[MatchResult, str],
                                       tmp_path: Path) -> None:
    address = local_ray.get_runtime_context().gcs_address
    pdn = tmp_path / "a.pdn"
    code, out, err = cli(["match", A, B, "--games", "8", "--seed", str(SEED), "--address",
                          address, "--pdn", str(pdn)])
    assert code == 0, err
    assert f"playing on the Ray cluster at {address}: up to 2 game pairs at once" in err
    assert "8 of 8 games" in out
    assert untimed(pdn.read_text(encoding="utf-8")) == untimed(local8[1])


class DiesOnce:
    """Engine B (as ``B``) whose worker process dies in the middle of the second game
    of its pair, the first time only (``marker`` is the file that says it happened)."""

    def __init__(self, marker: str) -> None:
        self.inner = make_player(B)
        self.name = self.inner.name
        self.marker = marker
        self.games = 0

    def new_game(self) -> None:
        self.games += 1
        self.inner.new_game()

    def play(self, board: Board, *, movetime: float | None, clock: Any) -> Any:
        if self.games == 2 and len(board.move_stack) >= 20 and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(3)                                  # the worker process dies
        return self.inner.play(board, movetime=movetime, clock=clock)

    @property
    def last_score(self) -> Any:       # what the engine said of its move, for the PDN
        return getattr(self.inner, "last_score", None)

    @property
    def last_depth(self) -> Any:
        return getattr(self.inner, "last_depth", None)

    def stop(self) -> None:
        self.inner.stop()

    def close(self) -> None:
        self.inner.close()


def test_a_dead_worker_has_its_pair_played_again_and_counted_once(
        local_ray: Any, local8: tuple[MatchResult, str], tmp_path: Path) -> None:
    local, local_pdn = local8
    marker = str(tmp_path / "died")

    def engine_b() -> Player:
        return DiesOnce(marker)

    journal, pdn, stream = tmp_path / "j.jsonl", tmp_path / "d.pdn", io.StringIO()
    result = run_match(A, engine_b, games=8, seed=SEED, progress=True, stream=stream,
                       pdn_path=pdn, resume=journal, workers=2)
    assert os.path.exists(marker) and int(Path(marker).read_text()) != os.getpid()
    assert "its Ray worker died" in stream.getvalue()
    assert "playing the pair again" in stream.getvalue()
    assert not result.errors and not result.interrupted
    assert outcomes(result) == outcomes(local)              # every game once, as played here
    assert (result.wins, result.draws, result.losses) == (local.wins, local.draws, local.losses)
    assert sorted(journal_numbers(journal)) == list(range(1, 9))   # no game written twice
    assert untimed(pdn.read_text(encoding="utf-8")) == untimed(local_pdn)
    played = [line for line in stream.getvalue().splitlines() if line.startswith("[")]
    assert len(played) == 8


def test_a_pair_that_comes_back_twice_is_counted_once(local8: tuple[MatchResult, str],
                                                     tmp_path: Path) -> None:
    """The driver's guard (no Ray needed): the same pair's records handed in twice, as a
    replay of a pair thought lost would, are counted, journalled and written once."""
    import ray

    from damier.match.distributed import RayMatchRunner, _PairOutcome
    from damier.variants import get_variant

    local, _ = local8
    journal, pdn = tmp_path / "twice.jsonl", tmp_path / "twice.pdn"
    runner = RayMatchRunner(parse_engine_spec(A), parse_engine_spec(B), games=8,
                            variant=get_variant("international"),
                            book=[g.opening for g in local.games[::2]], shuffle_openings=False,
                            seed=SEED, journal_path=str(journal), pdn_path=str(pdn),
                            progress=False, workers=2)
    runner._open_files(None, None)
    runner._open_progress()
    fake = type("FakeRay", (), {"exceptions": ray.exceptions,
                                "get": staticmethod(lambda ref: ref)})
    for pair in (1, 2, 1, 2, 2):
        outcome = _PairOutcome(list(local.games[2 * pair - 2:2 * pair]))
        assert runner._pair_back(fake, outcome, pair) is False
    records = runner._close()
    assert [g.number for g in records] == [1, 2, 3, 4]
    assert sorted(journal_numbers(journal)) == [1, 2, 3, 4]
    assert [g.headers["Round"] for g in read_games(pdn)] == ["1.1", "1.2", "2.1", "2.2"]


def test_resume_on_ray_plays_only_the_missing_games(local_ray: Any,
                                                    local8: tuple[MatchResult, str],
                                                    tmp_path: Path) -> None:
    local, local_pdn = local8
    journal = tmp_path / "r.jsonl"
    run_match(A, B, games=3, seed=SEED, progress=False, resume=journal)  # pair 2 half played
    stream, pdn = io.StringIO(), tmp_path / "r.pdn"
    result = run_match(A, B, games=8, progress=True, stream=stream, pdn_path=pdn,
                       resume=journal, workers=2)               # the journal's seed
    assert result.resumed == 3 and not result.errors
    played = [line.split()[1] for line in stream.getvalue().splitlines() if line.startswith("[")]
    assert sorted(played) == ["2.2", "3.1", "3.2", "4.1", "4.2"]
    assert outcomes(result) == outcomes(local)
    assert sorted(journal_numbers(journal)) == list(range(1, 9))
    assert untimed(pdn.read_text(encoding="utf-8")) == untimed(local_pdn)


def slow_loser() -> Player:
    """An engine that answers an illegal move after 0.02 s (and so loses every game)."""

    class SlowLoser:
        name = "slow loser"

        def new_game(self) -> None:
            pass

        def play(self, board: Board, *, movetime: float | None, clock: Any) -> str:
            time.sleep(0.02)
            return "1-50"

        def stop(self) -> None:
            pass

        def close(self) -> None:
            pass

    return SlowLoser()


def test_sprt_on_ray_starts_no_pair_once_decided(local_ray: Any) -> None:
    test = SPRT(0, 400)      # decides H1 after 5 pairs won
    result = run_match(A, slow_loser, games=40, openings=[["32-28", "18-23"]], progress=False,
                       seed=1, sprt=test, workers=2)
    assert result.sprt_decision == "H1" and not result.errors
    n = len(result.games)
    assert 10 <= n <= 12 and n % 2 == 0          # at most one other pair was in flight
    assert test.pairs == n // 2 and result.wins == n
    assert [g.number for g in result.games] == list(range(1, n + 1))


def test_ctrl_c_cancels_the_pairs_and_keeps_the_finished_ones(local_ray: Any,
                                                              tmp_path: Path) -> None:
    class Interrupt(io.StringIO):
        """The progress stream: Ctrl-C once the second game has been reported."""

        def write(self, text: str) -> int:
            if text.startswith("[ 2/12]"):
                threading.Timer(0.01, _thread.interrupt_main).start()
            return super().write(text)

    def slow_b() -> Player:
        class Slow:
            def __init__(self) -> None:
                self.inner = make_player(B)
                self.name = self.inner.name

            def new_game(self) -> None:
                self.inner.new_game()

            def play(self, board: Board, *, movetime: float | None, clock: Any) -> Any:
                time.sleep(0.01)
                return self.inner.play(board, movetime=movetime, clock=clock)

            def stop(self) -> None:
                pass

            def close(self) -> None:
                pass

        return Slow()

    journal, pdn, stream = tmp_path / "c.jsonl", tmp_path / "c.pdn", Interrupt()
    result = run_match(A, slow_b, games=12, seed=SEED, progress=True, stream=stream,
                       pdn_path=pdn, resume=journal, max_plies=60, workers=2)
    assert result.interrupted and "stopping: cancelling the game pairs in progress" in \
        stream.getvalue()
    numbers = [g.number for g in result.games]
    assert 2 <= len(numbers) < 12 and len(numbers) % 2 == 0       # whole pairs only
    assert sorted(journal_numbers(journal)) == numbers
    assert [g.headers["Round"] for g in read_games(pdn)] == [g.round for g in result.games]
    again = run_match(A, slow_b, games=12, progress=False, resume=journal, max_plies=60,
                      workers=2)
    assert not again.interrupted and not again.errors and len(again.games) == 12
    here = run_match(A, B, games=12, seed=SEED, progress=False, max_plies=60)
    assert outcomes(again) == outcomes(here)


def test_engines_that_cannot_play_on_the_workers_are_refused_at_once(local_ray: Any,
                                                                      tmp_path: Path) -> None:
    with pytest.raises(EngineStartError, match="cannot start engine"):
        run_match(A, f"hub:{tmp_path / 'no-such-engine'}", games=2, progress=False, workers=2)
    code, out, err = cli(["match", A, f"hub:{tmp_path / 'no-such-engine'}", "--workers", "2"])
    assert code == 2 and "cannot start engine" in err and "Traceback" not in err
    lock = threading.Lock()

    def unpicklable() -> Player:
        with lock:
            return make_player(B)

    with pytest.raises(ValueError, match="engine B cannot be sent to the Ray workers"):
        run_match(A, unpicklable, games=2, progress=False, workers=2)
    with pytest.raises(ValueError, match="need 4 CPUs on one Ray node, and the largest node has 2"):
        run_match("damier:depth=1,threads=4", B, games=2, progress=False, workers=2)


def test_hub_engine_runs_on_the_worker(local_ray: Any, tmp_path: Path) -> None:
    pytest.importorskip("damier.hub")
    command = shlex.join([sys.executable, "-m", "damier.cli", "hub"])
    # a generous start-up time: on a loaded machine the Hub engine's start (imports,
    # weights, tables) beside the Ray workers can take longer than the default 10 s
    result = run_match("damier:depth=1,hash=1", f"hub:{command}", games=2, movetime=0.02,
                       max_plies=20, progress=False, seed=1, workers=2, hub_timeout=60)
    assert not result.errors and len(result.games) == 2
    assert all(g.termination in ("normal", "adjudication") for g in result.games)
