"""The web server's memory stays bounded under many WebSocket clients (loopback only).

The full load test with its latency goal is ``benchmarks/web_load.py``; here the
same code runs shorter and only the memory budget is asserted (a memory figure
does not depend on how busy the machine is, a latency does).
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


def test_150_websocket_clients_stay_within_the_memory_budget():
    figures = web_load.run_load(clients=150, seconds=6.0, engines=2, hash_mb=16)
    assert not figures["errors"], figures
    assert figures["clients_served"] == 150, figures     # every client got its analysis
    assert figures["peak_rss_mb"] <= web_load.PEAK_RSS_BUDGET_MB, figures
    # the closed clients' games left memory: nothing grew after they closed
    assert figures["after_rss_mb"] <= figures["peak_rss_mb"]
