"""Load test of ``damier serve``: many WebSocket clients analysing at once, on loopback.

Starts ``damier serve`` in a child process (a new SQLite file in a temporary folder),
then ``--clients`` clients, each with its own player cookie and its own game, open
the game's WebSocket and ask for a live analysis (multi-PV 2) over and over, while a
prober times ``GET /`` every 50 ms. The server's resident memory is read from
``/proc`` throughout (it needs Linux). After ``--seconds`` the clients close and the
memory is read once more.

Goals (the defaults): peak RSS under ``--rss-budget`` MiB (the server's base, about
60 MiB, plus its engine pool: 2 engines of 16 MiB, plus the clients' queues and
games), and ``GET /`` under 200 ms at the 95th percentile. Everything goes to
127.0.0.1 only; the number of clients and the time are bounded.

    python benchmarks/web_load.py                      # 150 clients, 20 s
    python benchmarks/web_load.py --clients 300 --seconds 60 --engines 4
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PEAK_RSS_BUDGET_MB = 200
"""The documented budget: peak RSS of the server under the default load."""
P95_BUDGET_MS = 200.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident memory of a process in MiB."""
    now = peak = 0.0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                now = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    return now, peak


def _request(port: int, method: str, path: str, body: Any = None,
             cookie: str | None = None) -> tuple[int, Any, str | None]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"content-type": "application/json"}
    if cookie:
        headers["cookie"] = cookie
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers=headers)
    r = conn.getresponse()
    data = r.read()
    set_cookie = r.getheader("set-cookie")
    conn.close()
    try:
        parsed = json.loads(data)
    except ValueError:
        parsed = data
    return r.status, parsed, set_cookie.split(";")[0] if set_cookie else cookie


async def _client(port: int, cookie: str, gid: str, stop: asyncio.Event,
                  counts: dict[str, int]) -> None:
    import websockets
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/games/{gid}",
                                  additional_headers={"cookie": cookie},
                                  max_size=2**20) as ws:
        await ws.send(json.dumps({"type": "analyse", "multipv": 2}))
        served = False
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except asyncio.TimeoutError:
                continue
            msg = json.loads(raw)
            counts[msg["type"]] = counts.get(msg["type"], 0) + 1
            if msg["type"] == "analysis" and msg.get("lines") and not served:
                served = True
                counts["served"] = counts.get("served", 0) + 1
            if msg["type"] == "analysis" and msg.get("done"):
                await ws.send(json.dumps({"type": "analyse", "multipv": 2}))


async def _probe(port: int, stop: asyncio.Event, times: list[float]) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        started = time.perf_counter()
        status, _, _ = await loop.run_in_executor(None, _request, port, "GET", "/")
        if status == 200:
            times.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.05)


async def _watch_memory(pid: int, stop: asyncio.Event, samples: list[float]) -> None:
    while not stop.is_set():
        samples.append(_rss_mb(pid)[0])
        await asyncio.sleep(0.25)


def run_load(clients: int = 150, seconds: float = 20.0, engines: int = 2, hash_mb: int = 16,
             analysis_seconds: float | None = None) -> dict[str, Any]:
    """Runs the load test and returns its figures."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "damier", "serve", "--port", str(port),
               "--db", str(Path(tmp) / "load.sqlite3"), "--engines", str(engines),
               "--hash", str(hash_mb)]
        server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if _request(port, "GET", "/api/variants")[0] == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start: "
                                       + (server.stderr.read().decode()[-2000:]
                                          if server.poll() is not None and server.stderr else ""))
                time.sleep(0.1)
            base_rss = _rss_mb(server.pid)[0]
            games = []
            for _ in range(clients):
                status, game, cookie = _request(port, "POST", "/api/games", {"color": "both"})
                if status != 201 or cookie is None:
                    raise RuntimeError(f"creating a game failed: {status} {game}")
                games.append((cookie, game["id"]))

            async def main() -> dict[str, Any]:
                stop = asyncio.Event()
                counts: dict[str, int] = {}
                times: list[float] = []
                memory: list[float] = []
                tasks = [asyncio.create_task(_client(port, c, g, stop, counts)) for c, g in games]
                tasks.append(asyncio.create_task(_probe(port, stop, times)))
                tasks.append(asyncio.create_task(_watch_memory(server.pid, stop, memory)))
                await asyncio.sleep(seconds)
                stop.set()
                results = await asyncio.gather(*tasks, return_exceptions=True)
                errors = [repr(r) for r in results if isinstance(r, BaseException)]
                return {"counts": counts, "times": times, "memory": memory, "errors": errors}

            out = asyncio.run(main())
            time.sleep(1.0)  # let the server release the closed games
            after_rss, peak_rss = _rss_mb(server.pid)
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
    times = sorted(out["times"])
    p = (lambda q: times[min(len(times) - 1, int(q * len(times)))] if times else float("nan"))
    return {"clients": clients, "seconds": seconds, "engines": engines, "hash_mb": hash_mb,
            "base_rss_mb": round(base_rss, 1), "peak_rss_mb": round(peak_rss, 1),
            "max_sampled_rss_mb": round(max(out["memory"], default=0.0), 1),
            "after_rss_mb": round(after_rss, 1), "get_samples": len(times),
            "get_p50_ms": round(p(0.50), 1), "get_p95_ms": round(p(0.95), 1),
            "get_max_ms": round(times[-1], 1) if times else None,
            "analysis_messages": out["counts"].get("analysis", 0),
            "clients_served": out["counts"].get("served", 0),
            "errors": out["errors"][:5]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=150)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--engines", type=int, default=2)
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--rss-budget", type=float, default=PEAK_RSS_BUDGET_MB)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= 1000 or not 0 < args.seconds <= 600:
        parser.error("clients must be 1-1000 and seconds 0-600 (a bounded test)")
    figures = run_load(args.clients, args.seconds, args.engines, args.hash)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>20}: {value}")
    ok_rss = figures["peak_rss_mb"] <= args.rss_budget
    ok_get = figures["get_p95_ms"] <= P95_BUDGET_MS
    print(f"peak RSS {figures['peak_rss_mb']} MiB (budget {args.rss_budget}): "
          f"{'PASS' if ok_rss else 'FAIL'}; GET / p95 {figures['get_p95_ms']} ms "
          f"(budget {P95_BUDGET_MS:g}): {'PASS' if ok_get else 'FAIL'}")
    return 0 if ok_rss and ok_get and not figures["errors"] else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
