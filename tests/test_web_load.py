"""The web server stays bounded under load and hostile clients (loopback only).

The full load tests with their latency goals are ``benchmarks/web_load.py``; here the
same scenarios run shorter and smaller, and only what does not depend on how fast
or busy the machine is gets asserted: the memory budget, that the polite client's
moves are all answered, that idle connections do not make ``GET /`` fail, that
every client got what it asked for. Each test starts its own ``damier serve``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("websockets", reason="the websockets client is not installed")
pytest.importorskip("uvicorn", reason="the web server (uvicorn) is not installed")

if not Path("/proc/self/status").exists():  # pragma: no cover
    pytest.skip("reading a process's memory needs Linux's /proc", allow_module_level=True)

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "web_load.py"
_spec = importlib.util.spec_from_file_location("web_load", _PATH)
assert _spec is not None and _spec.loader is not None
web_load = importlib.util.module_from_spec(_spec)
sys.modules["web_load"] = web_load
_spec.loader.exec_module(web_load)

pytestmark = pytest.mark.slow

BUDGET = web_load.PEAK_RSS_BUDGET_MB


@pytest.fixture()
def short_settle(monkeypatch):
    """One second (not two) for the server to let the closed clients go."""
    monkeypatch.setattr(web_load, "SETTLE_SECONDS", 1.0)


def test_150_websocket_clients_stay_within_the_memory_budget():
    figures = web_load.run_load(clients=150, seconds=6.0, engines=2, hash_mb=16)
    assert not figures["errors"], figures
    assert figures["clients_served"] == 150, figures     # every client got its analysis
    assert figures["peak_rss_mb"] <= BUDGET, figures
    # the closed clients' games left memory: nothing grew after they closed
    assert figures["after_rss_mb"] <= figures["peak_rss_mb"]


def test_sockets_that_ask_but_never_read_stay_within_the_memory_budget(short_settle):
    # 16 sockets flood the server with analysis and state requests (a state of a
    # 100-ply game is tens of KiB) and never read: the kernel's buffers fill, and what
    # the server queues beyond them must stay bounded (or the sockets be closed).
    # Before the fix: 292 MiB here.
    figures = web_load.run_nonreading(sockets=16, seconds=5.0, resend=0.005)
    assert figures["sockets_open"] == 16 and not figures["errors"], figures
    assert figures["requests_sent"] >= 16 * 2, figures
    assert figures["server_alive"], figures
    assert figures["peak_rss_mb"] <= BUDGET, figures


def test_games_made_and_dropped_fast_stay_within_the_memory_budget(short_settle):
    figures = web_load.run_churn(workers=2, seconds=3.0)
    assert figures["games_made"] >= 10, figures
    assert figures["websockets_opened"] >= 10, figures
    assert figures["server_alive"], figures
    assert figures["peak_rss_mb"] <= BUDGET, figures


def test_idle_and_slowloris_connections_do_not_make_get_fail(short_settle):
    # 1,000 connections that send nothing or a header that never ends. Before the fix
    # uvicorn answered every new request 503 from about 1,000 open connections on.
    limit = web_load.fd_limit(1000 + 256)
    if not limit["enough"]:
        pytest.skip(f"needs {limit['needed']} open files; the limit is {limit['soft']} "
                    f"(hard {limit['hard']}) and cannot be raised")
    figures = web_load.run_idle(connections=1000, seconds=3.0)
    assert figures["connections_open"] == 1000, figures
    assert figures["get_samples"] >= 5, figures
    assert figures["get_failed"] == 0, figures["get_failures"]
    assert figures["peak_rss_mb"] <= BUDGET, figures


def test_a_greedy_client_does_not_starve_a_polite_one(short_settle):
    # One client keeps 12 level-10 games searching (engine against engine, long clocks,
    # analyses, /go over and over); another plays at level 1 and every move it makes
    # must get the engine's reply (within 15 s; before the fix the first one waited
    # more than 30 s).
    figures = web_load.run_greedy(games=12, seconds=6.0, reply_timeout=15.0)
    assert figures["polite_moves"] >= 1, figures
    assert figures["polite_answered"] == figures["polite_moves"], figures
    assert figures["greedy_requests"] > 12, figures
    assert figures["peak_rss_mb"] <= BUDGET, figures
