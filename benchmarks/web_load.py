"""Load tests of ``damier serve`` on loopback: many analysing clients, and hostile ones.

Each scenario starts ``damier serve`` in a child process (a new SQLite file in a
temporary folder), puts it under one kind of load for ``--seconds``, and returns
its figures. Throughout, the server's resident memory is read from ``/proc`` (it
needs Linux), and a prober in a process of its own (so that the clients' work in
this process does not slow it) times ``GET /`` on a new connection every 50 ms.
Everything goes to 127.0.0.1 only; the number of clients and the time are bounded.

Scenarios (``--scenario``; ``all`` runs each in turn, at its default size):

``analysis`` (the default)
    ``--clients`` clients (150), each with its own player cookie and game, open the
    game's WebSocket and ask for a live analysis (multi-PV 2) over and over.
``nonreading``
    ``--clients`` sockets (40), each with its own cookie and a game of 100 random
    plies, open the game's WebSocket with a small receive buffer (4 KiB) and, every
    20 ms, ask for a live analysis (multi-PV 5) and for the game's state (tens of
    KiB), and never read: the kernel's buffers on both sides fill up, and whatever
    the server queues beyond them is its own memory. Reports what was left unread
    (in this side's buffers and in the server's send queues) and how many sockets
    the server closed.
``churn``
    ``--clients`` workers (4) create a game (each without a cookie: a new player
    every time, as a client without a cookie jar), open its WebSocket, ask for an
    analysis and drop the socket (half of them with a close frame), as fast as they
    can; in half of the games the engine has the first move. Reports the games
    made and the memory they left.
``idle``
    ``--clients`` TCP connections (1,000) that send nothing (half of them) or a
    request head one byte a second that never ends (slowloris); meanwhile the
    prober's ``GET /`` must still be answered. The soft limit of open files
    (``RLIMIT_NOFILE``) is raised to the hard limit first (the server inherits it);
    the figures say when it cannot be raised enough.
``greedy``
    One client (one cookie) asks for ``--clients`` games (24) at level 10, in turn
    engine against engine (``"color": "none"``), against the engine with a 90+60
    clock, and engine against engine with a 60+30 clock, each from a position out of
    the opening book; it keeps a live analysis (multi-PV 5) asked on each, and asks
    ``/go`` on them over and over. Once it has asked for its games, a polite client
    (its own cookie) plays a level-1 game against the engine and times each engine
    reply (from sending its move to the WebSocket's state with the reply). Reports
    the polite replies, the prober's latency and how many of the greedy requests
    were refused (429/503, or a WebSocket closed with 1008/1013). All the clients
    share 127.0.0.1: the server can tell them apart by cookie only.

Budgets (the module's constants; ``PASS``/``FAIL`` in the output, and a non-zero
exit status when one fails): peak RSS at most ``PEAK_RSS_BUDGET_MB`` in every
scenario; ``GET /`` at the 95th percentile at most ``P95_BUDGET_MS`` in ``analysis``
and under ``GREEDY_P95_BUDGET_MS`` in ``greedy``. Checks: every polite move
answered (``greedy``), no failed ``GET /`` (``idle``). A failed probe (an error
status, a refused or timed-out connection) counts as ``PROBE_TIMEOUT`` in the
percentiles.

    python benchmarks/web_load.py                      # analysis: 150 clients, 20 s
    python benchmarks/web_load.py --clients 300 --seconds 60 --engines 4
    python benchmarks/web_load.py --scenario idle --clients 1500
    python benchmarks/web_load.py --scenario all --json
    python benchmarks/web_load.py --scenario nonreading --server-src /tmp/old/src
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import fcntl
import http.client
import json
import os
import random
import resource
import select
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

PEAK_RSS_BUDGET_MB = 200
"""The documented budget: peak RSS of the server in every scenario (MiB)."""
P95_BUDGET_MS = 200.0
"""``GET /`` at the 95th percentile under the ``analysis`` load (ms)."""
GREEDY_P95_BUDGET_MS = 100.0
"""``GET /`` at the 95th percentile while the greedy client runs (ms, strictly under)."""
PROBE_INTERVAL = 0.05
"""Seconds between the prober's requests."""
PROBE_TIMEOUT = 5.0
"""Seconds the prober waits for ``GET /``; a failed probe counts as this long."""
REPLY_TIMEOUT = 30.0
"""Seconds the polite client waits for an engine reply before counting it unanswered."""
SETTLE_SECONDS = 2.0
"""Seconds waited after the clients close before reading the memory left."""

SCENARIOS = ("analysis", "nonreading", "churn", "idle", "greedy")
DEFAULTS: dict[str, tuple[int, float]] = {
    "analysis": (150, 20.0), "nonreading": (40, 20.0), "churn": (4, 30.0),
    "idle": (1000, 10.0), "greedy": (24, 30.0)}
"""Each scenario's default size (``--clients``) and length (``--seconds``)."""
MAX_CLIENTS = {"analysis": 1000, "nonreading": 500, "churn": 32, "idle": 5000, "greedy": 200}
MAX_SECONDS = 600.0


# -- the server and what watches it ---------------------------------------------------------


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
             cookie: str | None = None, timeout: float = 30.0) -> tuple[int, Any, str | None]:
    """One request on a new connection: (status, the JSON answer or the raw body, the
    cookie to send next: the server's new one, else ``cookie``). Sends no ``Origin``
    header (not a browser), so the server's same-origin rule lets it through."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"content-type": "application/json"}
        if cookie:
            headers["cookie"] = cookie
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=headers)
        r = conn.getresponse()
        data = r.read()
        set_cookie = r.getheader("set-cookie")
    finally:
        conn.close()
    try:
        parsed = json.loads(data)
    except ValueError:
        parsed = data
    return r.status, parsed, set_cookie.split(";")[0] if set_cookie else cookie


def _try_request(port: int, method: str, path: str, body: Any = None,
                 cookie: str | None = None, timeout: float = 30.0
                 ) -> tuple[int | str, Any, str | None]:
    """:func:`_request`, with a failed connection as its exception's name for a status."""
    try:
        return _request(port, method, path, body, cookie, timeout)
    except (OSError, http.client.HTTPException) as err:
        return type(err).__name__, None, cookie


def fd_limit(needed: int) -> dict[str, Any]:
    """Raises the soft limit of open files to the hard limit (children inherit it) and
    says whether ``needed`` descriptors fit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    error = None
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, needed + 1024)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as err:
            error = str(err)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return {"soft": soft, "hard": hard, "needed": needed,
            "enough": soft == resource.RLIM_INFINITY or soft >= needed, "error": error}


def _end_process(process: "subprocess.Popen[bytes]") -> None:
    """Asks a child process to end; kills it after 10 s."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


class Server:
    """``damier serve`` in a child process on a free port of 127.0.0.1 (a context
    manager: started on entry, stopped on exit). Its log goes to a file, not a pipe,
    so that a server logging much never blocks on a full pipe."""

    def __init__(self, engines: int = 2, hash_mb: int = 16, *, server_src: str | None = None,
                 server_args: tuple[str, ...] = (), start_timeout: float = 60.0) -> None:
        self.engines = engines
        self.hash_mb = hash_mb
        self.server_args = tuple(server_args)
        self.server_src = server_src
        self.start_timeout = start_timeout
        self.port = _free_port()
        self._tmp = tempfile.TemporaryDirectory(prefix="damier-load-")
        self.log_path = Path(self._tmp.name) / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.base_rss = 0.0
        self._last = (0.0, 0.0)
        self.on_stop: list[Callable[[], None]] = []
        """Called when the server stops (the prober's process is stopped this way)."""

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def __enter__(self) -> "Server":
        cmd = [sys.executable, "-m", "damier", "serve", "--port", str(self.port),
               "--db", str(Path(self._tmp.name) / "load.sqlite3"),
               "--engines", str(self.engines), "--hash", str(self.hash_mb), *self.server_args]
        env = dict(os.environ)
        if self.server_src:  # the damier of another source tree (e.g. before a change)
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (os.path.abspath(self.server_src), env.get("PYTHONPATH")) if p)
        log = open(self.log_path, "wb")
        try:
            self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log,
                                            stdin=subprocess.DEVNULL, env=env)
        finally:
            log.close()
        try:
            deadline = time.monotonic() + self.start_timeout
            while True:
                try:
                    if _request(self.port, "GET", "/api/variants", timeout=5)[0] == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("the server did not start: " + self.log_tail())
                time.sleep(0.1)
            self.base_rss = self.rss()[0]
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def rss(self) -> tuple[float, float]:
        """(current, peak) resident memory in MiB; the last reading once the server is gone."""
        try:
            self._last = _rss_mb(self.pid)
        except (OSError, ValueError):
            pass
        return self._last

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_bytes()[-chars:].decode(errors="replace")
        except OSError:
            return ""

    def log_lines(self) -> int:
        try:
            return self.log_path.read_bytes().count(b"\n")
        except OSError:
            return 0

    def stop(self) -> None:
        for call in self.on_stop:
            call()
        if self.process is not None and self.process.poll() is None:
            self.rss()
            _end_process(self.process)
        self._tmp.cleanup()


class MemoryWatch(threading.Thread):
    """Reads the server's resident memory every 0.25 s until stopped."""

    def __init__(self, server: Server) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.samples: list[float] = []
        self.stopped = threading.Event()
        server.on_stop.append(self.stopped.set)

    def run(self) -> None:
        while not self.stopped.is_set():
            self.samples.append(self.server.rss()[0])
            self.stopped.wait(0.25)

    def stop(self) -> float:
        """Stops and returns the largest reading (MiB)."""
        self.stopped.set()
        self.join()
        return max(self.samples, default=0.0)


def _probe_main(port: int, out: str, interval: float, timeout: float, parent: int) -> None:
    """The prober's process: ``GET /`` on a new connection every ``interval`` seconds,
    each as a line ``? start`` (wall-clock seconds) before the request and ``milliseconds
    status`` after it, appended to ``out``; until killed, or its parent is gone."""
    with open(out, "a", buffering=1) as f:
        while os.getppid() == parent:
            f.write(f"? {time.time():.3f}\n")
            started = time.perf_counter()
            status = _try_request(port, "GET", "/", timeout=timeout)[0]
            f.write(f"{(time.perf_counter() - started) * 1000:.2f} {status}\n")
            time.sleep(interval)


class Prober:
    """Times ``GET /`` of ``server`` from a process of its own (see :func:`_probe_main`);
    the server stops it too when it stops (so an error in a scenario leaves no prober
    running)."""

    def __init__(self, server: "Server", interval: float = PROBE_INTERVAL,
                 timeout: float = PROBE_TIMEOUT) -> None:
        self.port = server.port
        self.interval = interval
        self.timeout = timeout
        fd, self.path = tempfile.mkstemp(prefix="damier-probe-", suffix=".txt")
        os.close(fd)
        self.process: subprocess.Popen[bytes] | None = None
        server.on_stop.append(self.kill)

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--probe", str(self.port), self.path,
             str(self.interval), str(self.timeout), str(os.getpid())],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            _end_process(self.process)
        if os.path.exists(self.path):
            os.unlink(self.path)

    def stop(self) -> dict[str, Any]:
        """Stops the prober and returns its figures: samples, failures by status,
        p50/p95/max in ms (a failure counts as the timeout). A request still unanswered
        after a second when the prober stops is a failure (``unfinished``)."""
        stopped = time.time()
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
        samples: list[tuple[float, str]] = []
        pending: float | None = None
        with open(self.path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 2:
                    continue
                try:
                    if parts[0] == "?":
                        pending = float(parts[1])
                    else:
                        samples.append((float(parts[0]), parts[1]))
                        pending = None
                except ValueError:
                    pass
        self.kill()
        if pending is not None and stopped - pending > 1.0:
            samples.append(((stopped - pending) * 1000, "unfinished"))
        failed = Counter(status for _, status in samples if status != "200")
        cost = sorted(ms if status == "200" else self.timeout * 1000 for ms, status in samples)
        ok = [ms for ms, status in samples if status == "200"]
        return {"get_samples": len(samples), "get_failed": sum(failed.values()),
                "get_failures": dict(failed), "get_p50_ms": _percentile(cost, 0.50),
                "get_p95_ms": _percentile(cost, 0.95),
                "get_max_ms": round(max(ok), 1) if ok else None}


def _percentile(ordered: list[float], q: float) -> float | None:
    """The nearest-rank ``q`` quantile of sorted values (None when there are none)."""
    if not ordered:
        return None
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def _tcp_queues(port: int) -> tuple[int, int]:
    """(bytes in the send queues, connections) of the established TCP connections whose
    local port is ``port`` (the server's side), from ``/proc/net/tcp``."""
    queued = count = 0
    try:
        with open("/proc/net/tcp") as f:
            next(f)
            for line in f:
                fields = line.split()
                if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":
                    queued += int(fields[4].split(":")[0], 16)
                    count += 1
    except (OSError, StopIteration, ValueError, IndexError):
        pass
    return queued, count


# -- a minimal WebSocket client -------------------------------------------------------------


class HandshakeRefused(Exception):
    """The server answered a WebSocket handshake with something other than 101."""

    def __init__(self, status: int) -> None:
        super().__init__(f"WebSocket handshake answered with HTTP {status}")
        self.status = status


def _frame(opcode: int, payload: bytes) -> bytes:
    """A client's (masked) WebSocket frame."""
    n = len(payload)
    head = bytearray([0x80 | opcode])
    if n < 126:
        head.append(0x80 | n)
    elif n < 65536:
        head.append(0x80 | 126)
        head += n.to_bytes(2, "big")
    else:
        head.append(0x80 | 127)
        head += n.to_bytes(8, "big")
    mask = os.urandom(4)
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
    return bytes(head) + mask + (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big")


class RawWebSocket:
    """A WebSocket client on a plain non-blocking socket (RFC 6455), so that a scenario
    decides when it reads, if ever. ``rcvbuf``: the socket's receive buffer in bytes
    (set before connecting, so the advertised window stays small)."""

    def __init__(self, port: int, path: str, cookie: str | None, *, rcvbuf: int | None = None,
                 timeout: float = 10.0) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(timeout)
        try:
            sock.connect(("127.0.0.1", port))
            key = base64.b64encode(os.urandom(16)).decode()
            lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket",
                     "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                     "Sec-WebSocket-Version: 13"]
            if cookie:
                lines.append(f"Cookie: {cookie}")
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(4096)
                if not chunk:
                    raise ConnectionError("the server closed the connection in the handshake")
                head += chunk
                if len(head) > 65536:
                    raise ConnectionError("the handshake's answer has no end")
        except BaseException:
            sock.close()
            raise
        head, _, rest = head.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0].split()
        status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 0
        if status != 101:
            sock.close()
            raise HandshakeRefused(status)
        sock.setblocking(False)
        self.sock = sock
        self.inbox = bytearray(rest)
        self.outbox = bytearray()
        self._partial = bytearray()
        self.closed = False
        self.close_code: int | None = None
        self.received = len(rest)
        self.sent_messages = 0

    def send_json(self, message: dict[str, Any]) -> None:
        self.outbox += _frame(1, json.dumps(message).encode())
        self.sent_messages += 1
        self.flush()

    def flush(self) -> bool:
        """Sends what the kernel takes of the pending frames; False once closed."""
        while self.outbox and not self.closed:
            try:
                n = self.sock.send(self.outbox)
            except BlockingIOError:
                break
            except OSError:
                self.closed = True
                break
            del self.outbox[:n]
        return not self.closed

    def pending(self) -> int:
        """Bytes of frames not yet taken by the kernel."""
        return len(self.outbox)

    def read(self) -> list[dict[str, Any] | str]:
        """Reads what has come (without waiting) and returns the messages: the JSON text
        messages, and ``"close"`` for a close frame. Answers pings."""
        while not self.closed:
            try:
                chunk = self.sock.recv(262144)
            except BlockingIOError:
                break
            except OSError:
                self.closed = True
                break
            if not chunk:
                self.closed = True
                break
            self.received += len(chunk)
            self.inbox += chunk
        return self._messages()

    def _messages(self) -> list[dict[str, Any] | str]:
        out: list[dict[str, Any] | str] = []
        buf = self.inbox
        while len(buf) >= 2:
            b0, b1 = buf[0], buf[1]
            n, pos = b1 & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, pos = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, pos = int.from_bytes(buf[2:10], "big"), 10
            if b1 & 0x80:  # a masked frame (servers do not mask; skip the key)
                pos += 4
            if len(buf) < pos + n:
                break
            payload = bytes(buf[pos:pos + n])
            del buf[:pos + n]
            opcode = b0 & 0x0F
            if opcode == 9:  # ping
                self.outbox += _frame(10, payload)
                self.flush()
            elif opcode == 8:
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                self.closed = True
                out.append("close")
            elif opcode in (0, 1):
                self._partial += payload
                if b0 & 0x80:
                    try:
                        out.append(json.loads(bytes(self._partial)))
                    except ValueError:
                        pass
                    self._partial.clear()
        return out

    def wait(self, timeout: float) -> list[dict[str, Any] | str]:
        """Waits up to ``timeout`` seconds for something to read, then reads it."""
        if not self.closed:
            select.select([self.sock], [], [], timeout)
        return self.read()

    def unread(self) -> int:
        """Bytes in the kernel's receive buffer, not yet read."""
        buf = bytearray(4)
        try:
            fcntl.ioctl(self.sock.fileno(), termios.FIONREAD, buf)
        except OSError:
            return 0
        return int.from_bytes(buf, sys.byteorder)

    def hung_up(self) -> bool:
        """Whether the server closed or reset the connection (seen without reading)."""
        if self.closed:
            return True
        poller = select.poll()
        poller.register(self.sock, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
        return bool(poller.poll(0))

    def close(self, *, polite: bool = False) -> None:
        if polite and not self.closed:
            self.outbox += _frame(8, (1000).to_bytes(2, "big"))
            self.flush()
        self.closed = True
        self.sock.close()


def _close_all(items: "list[RawWebSocket] | list[socket.socket]") -> None:
    for item in items:
        item.close()


def _new_game(port: int, body: dict[str, Any], cookie: str | None
              ) -> tuple[int | str, dict[str, Any] | None, str | None]:
    status, game, cookie = _try_request(port, "POST", "/api/games", body, cookie)
    return status, (game if status == 201 and isinstance(game, dict) else None), cookie


def _server_figures(server: Server, watch: MemoryWatch) -> dict[str, Any]:
    max_sampled = watch.stop()
    return {"base_rss_mb": round(server.base_rss, 1), "max_sampled_rss_mb": round(max_sampled, 1)}


def _after(server: Server) -> dict[str, Any]:
    """The memory once the clients have gone (after :data:`SETTLE_SECONDS`)."""
    time.sleep(SETTLE_SECONDS)
    now, peak = server.rss()
    return {"peak_rss_mb": round(peak, 1), "after_rss_mb": round(now, 1),
            "server_alive": server.alive(), "server_log_lines": server.log_lines()}


# -- analysis: many reading clients ---------------------------------------------------------


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


def run_load(clients: int = 150, seconds: float = 20.0, engines: int = 2, hash_mb: int = 16,
             analysis_seconds: float | None = None, *, server_src: str | None = None,
             server_args: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``analysis`` scenario: ``clients`` WebSocket clients asking for analyses over
    and over for ``seconds``; returns its figures."""
    with Server(engines, hash_mb, server_src=server_src, server_args=server_args) as server:
        port = server.port
        games = []
        for _ in range(clients):
            status, game, cookie = _request(port, "POST", "/api/games", {"color": "both"})
            if status != 201 or cookie is None:
                raise RuntimeError(f"creating a game failed: {status} {game}")
            games.append((cookie, game["id"]))
        watch = MemoryWatch(server)
        prober = Prober(server)

        async def main() -> dict[str, Any]:
            stop = asyncio.Event()
            counts: dict[str, int] = {}
            tasks = [asyncio.create_task(_client(port, c, g, stop, counts)) for c, g in games]
            await asyncio.sleep(seconds)
            stop.set()
            results = await asyncio.gather(*tasks, return_exceptions=True)
            errors = [repr(r) for r in results if isinstance(r, BaseException)]
            return {"counts": counts, "errors": errors}

        watch.start()
        prober.start()
        out = asyncio.run(main())
        probe = prober.stop()
        figures = _server_figures(server, watch)
        figures.update(_after(server))
    return {"scenario": "analysis", "clients": clients, "seconds": seconds, "engines": engines,
            "hash_mb": hash_mb, **figures, **probe,
            "analysis_messages": out["counts"].get("analysis", 0),
            "clients_served": out["counts"].get("served", 0),
            "errors_total": len(out["errors"]), "errors": out["errors"][:5]}


run_analysis = run_load


# -- nonreading: sockets that never read ----------------------------------------------------


def random_line(plies: int, seed: int = 21) -> list[str]:
    """Move texts of a seeded random International game of at most ``plies`` plies that
    is not over (a long game makes a large state message)."""
    import damier
    from damier.notation import move_text
    rng = random.Random(seed)
    board = damier.Board()
    line: list[str] = []
    while len(line) < plies:
        legal = board.legal_moves
        move = rng.choice(legal)
        board.push(move)
        if not board.legal_moves:  # the game would be over: stop before
            break
        line.append(move_text(move, legal))
    return line


def random_fen(plies: int, seed: int = 21) -> str:
    """The FEN after :func:`random_line` (a position out of the opening book)."""
    import damier
    board = damier.Board()
    for text in random_line(plies, seed):
        board.push(text)
    return str(board.fen())


def run_nonreading(sockets: int = 40, seconds: float = 20.0, engines: int = 2,
                   hash_mb: int = 16, *, multipv: int = 5, resend: float = 0.02,
                   rcvbuf: int = 4096, plies: int = 100, ask_state: bool = True,
                   server_src: str | None = None, server_args: tuple[str, ...] = ()
                   ) -> dict[str, Any]:
    """The ``nonreading`` scenario: ``sockets`` WebSockets (each its own cookie and game,
    a game of ``plies`` random plies) ask for an analysis (and, with ``ask_state``, the
    game's state, a message of tens of KiB) every ``resend`` seconds for ``seconds``, and
    never read.

    A socket sends new requests only once the kernel has taken the previous ones, so a
    server that stops reading is not flooded by this side either."""
    line = random_line(plies) if plies else []
    with Server(engines, hash_mb, server_src=server_src, server_args=server_args) as server:
        port = server.port
        watch = MemoryWatch(server)
        prober = Prober(server)
        conns: list[RawWebSocket] = []
        server.on_stop.append(lambda: _close_all(conns))
        errors: list[str] = []
        refused: Counter[str] = Counter()
        for _ in range(sockets):
            status, game, cookie = _new_game(port, {"color": "both"}, None)
            if game is None:
                refused[f"create {status}"] += 1
                continue
            if line:
                status = _try_request(port, "POST", f"/api/games/{game['id']}/line",
                                      {"moves": line}, cookie)[0]
                if status != 200:
                    refused[f"line {status}"] += 1
            try:
                conns.append(RawWebSocket(port, f"/ws/games/{game['id']}", cookie, rcvbuf=rcvbuf))
            except HandshakeRefused as err:
                refused[f"websocket {err.status}"] += 1
            except OSError as err:
                errors.append(repr(err))
        watch.start()
        prober.start()
        request = {"type": "analyse", "multipv": multipv}
        state = {"type": "state"}
        for ws in conns:
            ws.send_json(request)
        end = time.monotonic() + seconds
        next_send = time.monotonic() + resend
        stalled = 0  # requests skipped because the previous one still waited to be sent
        while time.monotonic() < end:
            time.sleep(min(resend, 0.02, max(0.0, end - time.monotonic())))
            now = time.monotonic()
            for ws in conns:
                ws.flush()
            if now >= next_send:
                next_send = now + resend
                for ws in conns:
                    if ws.closed:
                        continue
                    if ws.pending():
                        stalled += 1
                    else:
                        ws.send_json(request)
                        if ask_state:
                            ws.send_json(state)
        server_queued, server_conns = _tcp_queues(port)
        unread = sum(ws.unread() for ws in conns)
        closed = sum(ws.hung_up() for ws in conns)
        sent = sum(ws.sent_messages for ws in conns)
        probe = prober.stop()
        figures = _server_figures(server, watch)
        for ws in conns:
            ws.close()  # unread data: the kernel resets the connection
        figures.update(_after(server))
    return {"scenario": "nonreading", "clients": sockets, "seconds": seconds,
            "engines": engines, "hash_mb": hash_mb, "multipv": multipv, "rcvbuf": rcvbuf,
            "plies": len(line), "ask_state": ask_state,
            "sockets_open": len(conns),
            **figures, **probe, "requests_sent": sent, "requests_stalled": stalled,
            "client_unread_kib": round(unread / 1024, 1),
            "server_send_queue_kib": round(server_queued / 1024, 1),
            "server_connections_at_end": server_conns,
            "closed_by_server": closed, "refused": dict(refused), "errors": errors[:5]}


# -- churn: games made and dropped ----------------------------------------------------------


def _churn_worker(port: int, stop: threading.Event, stats: Counter[str],
                  keep_cookie: bool) -> None:
    cookie: str | None = None
    made = 0
    while not stop.is_set():
        # half the games have the engine move first (the person plays black)
        color = "black" if made % 2 else "white"
        status, game, cookie = _new_game(port, {"color": color, "level": 1},
                                         cookie if keep_cookie else None)
        made += 1
        if game is None:
            stats[f"create {status}"] += 1
            stop.wait(0.05)
            continue
        stats["games"] += 1
        try:
            ws = RawWebSocket(port, f"/ws/games/{game['id']}", cookie, timeout=10)
        except HandshakeRefused as err:
            stats[f"websocket {err.status}"] += 1
            continue
        except OSError as err:
            stats[f"websocket {type(err).__name__}"] += 1
            continue
        stats["websockets"] += 1
        ws.send_json({"type": "analyse", "multipv": 2})
        ws.close(polite=bool(stats["games"] % 2))  # half say goodbye, half just vanish


def run_churn(workers: int = 4, seconds: float = 30.0, engines: int = 2,
              hash_mb: int = 16, *, keep_cookie: bool = False,
              server_src: str | None = None, server_args: tuple[str, ...] = ()
              ) -> dict[str, Any]:
    """The ``churn`` scenario: ``workers`` clients make games, open their WebSocket, ask
    for an analysis and drop the socket, as fast as they can for ``seconds``. Each game
    is made without a cookie (a new player each time, as a client without a cookie jar
    does) unless ``keep_cookie``, so a limit of games per player does not hide what the
    games cost."""
    with Server(engines, hash_mb, server_src=server_src, server_args=server_args) as server:
        watch = MemoryWatch(server)
        prober = Prober(server)
        stop = threading.Event()
        server.on_stop.append(stop.set)
        stats: Counter[str] = Counter()
        threads = [threading.Thread(target=_churn_worker,
                                    args=(server.port, stop, stats, keep_cookie), daemon=True)
                   for _ in range(workers)]
        watch.start()
        prober.start()
        started = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join(40)
        took = time.monotonic() - started
        probe = prober.stop()
        figures = _server_figures(server, watch)
        figures.update(_after(server))
    refused = {k: v for k, v in stats.items() if k not in ("games", "websockets")}
    return {"scenario": "churn", "clients": workers, "seconds": seconds, "engines": engines,
            "hash_mb": hash_mb, "games_made": stats["games"],
            "games_per_s": round(stats["games"] / took, 1),
            "websockets_opened": stats["websockets"], **figures, **probe, "refused": refused}


# -- idle: connections that send nothing, or a header that never ends ----------------------


def run_idle(connections: int = 1000, seconds: float = 10.0, engines: int = 2,
             hash_mb: int = 16, *, drip: float = 1.0, server_src: str | None = None,
             server_args: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``idle`` scenario: ``connections`` TCP connections, half silent and half
    sending a request header one byte every ``drip`` seconds (never finished), held
    for ``seconds`` while the prober asks for ``GET /``."""
    limit = fd_limit(connections + 256)
    with Server(engines, hash_mb, server_src=server_src, server_args=server_args) as server:
        port = server.port
        watch = MemoryWatch(server)
        conns: list[tuple[socket.socket, bool]] = []
        server.on_stop.append(lambda: _close_all([s for s, _ in conns]))
        connect_errors: Counter[str] = Counter()
        watch.start()
        for i in range(connections):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(5)
            try:
                s.connect(("127.0.0.1", port))
                slow = i % 2 == 1
                if slow:
                    s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Wait: ".encode())
                s.setblocking(False)
                conns.append((s, slow))
            except OSError as err:
                connect_errors[type(err).__name__] += 1
                s.close()
        time.sleep(0.5)  # let the server accept them before the first probe
        prober = Prober(server)
        prober.start()
        end = time.monotonic() + seconds
        dropped = 0
        while time.monotonic() < end:
            time.sleep(min(drip, max(0.0, end - time.monotonic())))
            for s, slow in conns:
                if slow:
                    try:
                        s.send(b"x")
                    except BlockingIOError:
                        pass
                    except OSError:
                        dropped += 1
        probe = prober.stop()
        poller = select.poll()
        for s, _ in conns:
            poller.register(s, select.POLLIN | select.POLLRDHUP | select.POLLHUP | select.POLLERR)
        closed = len(poller.poll(0))  # the server answered (408, 431...) or closed
        figures = _server_figures(server, watch)
        for s, _ in conns:
            s.close()
        figures.update(_after(server))
    return {"scenario": "idle", "clients": connections, "seconds": seconds, "engines": engines,
            "hash_mb": hash_mb, "fd_soft_limit": limit["soft"], "fd_hard_limit": limit["hard"],
            "fd_limit_enough": limit["enough"], "fd_limit_error": limit["error"],
            "connections_open": len(conns), "connect_errors": dict(connect_errors),
            "drip_send_errors": dropped,
            "closed_or_answered_by_server": closed, **figures, **probe}


# -- greedy: one client hogs the engines, another plays ------------------------------------


GREEDY_GAMES = ({"color": "none", "level": 10},
                {"color": "white", "level": 10, "clock": "90+60"},
                {"color": "none", "level": 10, "clock": "60+30"})
"""What the greedy client asks for, in turn: engine against engine, and long clocks;
each from a position out of the opening book (so every engine move is a full search)."""
GREEDY_START_PLIES = 10


def _greedy_client(port: int, games: int, stop: threading.Event, ready: threading.Event,
                   stats: Counter[str]) -> None:
    """The greedy client of :func:`run_greedy`; sets ``ready`` once it has asked for
    its ``games`` games (made or refused). Every 2 s it asks again for the analyses,
    and opens again the WebSockets that the server closed (as a page does)."""
    cookie: str | None = None
    sockets: dict[str, RawWebSocket | None] = {}  # game id: its WebSocket, if open
    analyse = {"type": "analyse", "multipv": 5}
    kinds = [{**kind, "fen": random_fen(GREEDY_START_PLIES, seed)}
             for seed, kind in enumerate(GREEDY_GAMES)]
    last_analyse = time.monotonic()

    def count(kind: str, status: int | str) -> None:
        stats[f"{kind} {status}"] += 1
        stats["requests"] += 1
        if status in (429, 503):
            stats["refused"] += 1

    def connect(gid: str) -> None:
        sockets[gid] = None
        try:
            ws = RawWebSocket(port, f"/ws/games/{gid}", cookie)
        except HandshakeRefused as err:
            count("websocket", err.status)
            return
        except OSError as err:
            count("websocket", type(err).__name__)
            return
        count("websocket", 101)
        ws.send_json(analyse)
        stats["analyses asked"] += 1
        sockets[gid] = ws

    def pump() -> None:
        nonlocal last_analyse
        again = time.monotonic() - last_analyse > 2.0
        if again:
            last_analyse = time.monotonic()
        for gid, ws in list(sockets.items()):
            if ws is not None:
                messages = ws.read()
                if "close" in messages:
                    stats[f"websocket closed {ws.close_code}"] += 1
                    if ws.close_code in (1008, 1013):
                        stats["refused"] += 1
                elif ws.closed:
                    stats["websocket dropped (no close frame)"] += 1
                if ws.closed:
                    ws.close()
                    sockets[gid] = ws = None
            if again and not stop.is_set():
                if ws is None:
                    connect(gid)
                else:
                    ws.send_json(analyse)
                    stats["analyses asked"] += 1

    try:
        i = 0
        while not stop.is_set():
            if len(sockets) < games:
                status, game, cookie = _new_game(port, kinds[i % len(kinds)], cookie)
                i += 1
                if i >= games:
                    ready.set()
                count("create", status)
                if game is None:
                    if isinstance(status, str):  # no connection: do not spin
                        stop.wait(0.05)
                    continue
                connect(game["id"])
            else:
                for gid in list(sockets):
                    if stop.is_set():
                        break
                    status = _try_request(port, "POST", f"/api/games/{gid}/go", {}, cookie)[0]
                    count("go", status)
                    pump()
            pump()
    finally:
        for ws in sockets.values():
            if ws is not None:
                ws.close()


def _polite_client(port: int, level: int, stop: threading.Event, figures: dict[str, Any],
                   reply_timeout: float, seed: int) -> None:
    """Plays a game at ``level`` (a new one when it ends) until ``stop``, one random
    legal move at a time, and times each engine reply."""
    rng = random.Random(seed)
    times: list[float] = figures["reply_ms"]
    cookie: str | None = None
    ws: RawWebSocket | None = None
    try:
        while not stop.is_set():
            status, game, cookie = _new_game(port, {"color": "white", "level": level}, cookie)
            if game is None:
                figures["errors"].append(f"creating the polite game: {status}")
                stop.wait(0.5)
                continue
            gid = game["id"]
            if ws is not None:
                ws.close()
            try:
                ws = RawWebSocket(port, f"/ws/games/{gid}", cookie)
            except (HandshakeRefused, OSError) as err:
                figures["errors"].append(f"the polite WebSocket: {err!r}")
                ws = None
            while not stop.is_set() and not game["over"] and game["legal_moves"]:
                move = rng.choice(game["legal_moves"])["text"]
                started = time.perf_counter()
                status, answer, cookie = _try_request(port, "POST", f"/api/games/{gid}/move",
                                                      {"move": move}, cookie)
                figures["asked"] += 1
                if status != 200 or not isinstance(answer, dict):
                    figures["errors"].append(f"move {move}: {status} {str(answer)[:200]}")
                    figures["unanswered"] += 1
                    break
                game = answer["game"]
                if game["over"]:
                    figures["answered"] += 1  # nothing to reply to: the game is won
                    break
                plies = len(game["moves"])
                replied = None
                deadline = time.monotonic() + reply_timeout
                last_look = time.monotonic()
                while replied is None and time.monotonic() < deadline:
                    if ws is not None and not ws.closed:
                        messages = ws.wait(0.2)
                    else:  # no socket (refused or closed by the server): GET below
                        messages = []
                        time.sleep(0.2)
                    for msg in messages:
                        if (isinstance(msg, dict) and msg.get("type") == "state"
                                and len(msg["game"]["moves"]) > plies):
                            replied = msg["game"]
                    if replied is None and time.monotonic() - last_look > 1.0:
                        # no WebSocket news for a while: look (the socket may be refused)
                        last_look = time.monotonic()
                        status, answer, cookie = _try_request(port, "GET", f"/api/games/{gid}",
                                                              None, cookie)
                        if (status == 200 and isinstance(answer, dict)
                                and len(answer["moves"]) > plies):
                            replied = answer
                if replied is None:
                    figures["unanswered"] += 1
                    figures["errors"].append(f"no engine reply within {reply_timeout:g} s")
                    return
                times.append((time.perf_counter() - started) * 1000)
                figures["answered"] += 1
                game = replied
                if not game.get("legal_moves") and not game["over"]:
                    _, fresh, cookie = _try_request(port, "GET", f"/api/games/{gid}", None,
                                                    cookie)
                    if isinstance(fresh, dict):
                        game = fresh
    finally:
        if ws is not None:
            ws.close()


def run_greedy(games: int = 24, seconds: float = 30.0, engines: int = 2, hash_mb: int = 16,
               *, polite_level: int = 1, reply_timeout: float = REPLY_TIMEOUT,
               seed: int = 21, server_src: str | None = None,
               server_args: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``greedy`` scenario: a greedy client (``games`` games) and a polite one for
    ``seconds`` in all. The polite client starts once the greedy one has asked for all
    its games (or after a third of ``seconds``), and its last move may be waited for
    up to ``reply_timeout`` seconds more (the greedy client and the prober go on
    meanwhile)."""
    with Server(engines, hash_mb, server_src=server_src, server_args=server_args) as server:
        port = server.port
        watch = MemoryWatch(server)
        prober = Prober(server)
        stop = threading.Event()
        ready = threading.Event()
        polite_stop = threading.Event()
        server.on_stop.extend((stop.set, polite_stop.set, ready.set))
        stats: Counter[str] = Counter()
        polite: dict[str, Any] = {"asked": 0, "answered": 0, "unanswered": 0, "reply_ms": [],
                                  "errors": []}
        greedy = threading.Thread(target=_greedy_client, args=(port, games, stop, ready, stats),
                                  daemon=True)
        polite_thread = threading.Thread(
            target=_polite_client, args=(port, polite_level, polite_stop, polite,
                                         reply_timeout, seed), daemon=True)
        watch.start()
        prober.start()
        started = time.monotonic()
        greedy.start()
        ready.wait(seconds / 3)
        polite_thread.start()
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))
        polite_stop.set()
        polite_thread.join(reply_timeout + 30)
        probe = prober.stop()
        stop.set()
        greedy.join(40)
        figures = _server_figures(server, watch)
        figures.update(_after(server))
    replies = sorted(polite["reply_ms"])
    return {"scenario": "greedy", "clients": games, "seconds": seconds, "engines": engines,
            "hash_mb": hash_mb, **figures, **probe,
            "polite_moves": polite["asked"], "polite_answered": polite["answered"],
            "polite_unanswered": polite["unanswered"],
            "polite_reply_p50_ms": _percentile(replies, 0.50),
            "polite_reply_p95_ms": _percentile(replies, 0.95),
            "polite_reply_max_ms": round(replies[-1], 1) if replies else None,
            "greedy_requests": stats["requests"], "greedy_refused": stats["refused"],
            "greedy_statuses": {k: v for k, v in sorted(stats.items())
                                if k not in ("requests", "refused")},
            "errors": polite["errors"][:5]}


RUNNERS: dict[str, Callable[..., dict[str, Any]]] = {
    "analysis": run_load, "nonreading": run_nonreading, "churn": run_churn,
    "idle": run_idle, "greedy": run_greedy}


# -- goals and the command line -------------------------------------------------------------


def goals(figures: dict[str, Any], rss_budget: float = PEAK_RSS_BUDGET_MB
          ) -> list[tuple[str, bool]]:
    """The budgets and checks of one scenario's figures: (what, passed)."""
    out = [(f"peak RSS {figures['peak_rss_mb']} MiB <= {rss_budget:g} MiB",
            figures["peak_rss_mb"] <= rss_budget)]
    p95 = figures.get("get_p95_ms")
    if figures["scenario"] == "analysis":
        out.append((f"GET / p95 {p95} ms <= {P95_BUDGET_MS:g} ms",
                    p95 is not None and p95 <= P95_BUDGET_MS))
        out.append((f"no client errors ({figures['errors_total']})", not figures["errors"]))
    elif figures["scenario"] == "greedy":
        out.append((f"GET / p95 {p95} ms < {GREEDY_P95_BUDGET_MS:g} ms (greedy client running)",
                    p95 is not None and p95 < GREEDY_P95_BUDGET_MS))
        out.append((f"polite moves answered: {figures['polite_answered']} of "
                    f"{figures['polite_moves']}",
                    figures["polite_moves"] > 0
                    and figures["polite_answered"] == figures["polite_moves"]))
    elif figures["scenario"] == "idle":
        out.append((f"GET / never failed with {figures['connections_open']} idle connections "
                    f"({figures['get_failed']} of {figures['get_samples']} failed)",
                    figures["get_samples"] > 0 and figures["get_failed"] == 0))
        out.append((f"file descriptor limit {figures['fd_soft_limit']} is enough",
                    bool(figures["fd_limit_enough"])))
    if not figures.get("server_alive", True):
        out.append(("the server is still running", False))
    return out


def _table(results: list[dict[str, Any]]) -> str:
    columns = [("scenario", "scenario"), ("clients", "N"), ("seconds", "s"),
               ("peak_rss_mb", "peak MiB"), ("after_rss_mb", "after MiB"),
               ("get_p50_ms", "GET p50"), ("get_p95_ms", "GET p95"), ("get_failed", "GET fail"),
               ("goals", "goals")]
    rows = [[str(r.get(key, "")) for key, _ in columns[:-1]]
             + [f"{sum(r['goals'].values())}/{len(r['goals'])} PASS"] for r in results]
    widths = [max(len(title), *(len(row[i]) for row in rows)) for i, (_, title) in
              enumerate(columns)]
    lines = ["  ".join(title.rjust(w) for (_, title), w in zip(columns, widths, strict=True))]
    lines += ["  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--probe"]:  # the prober's own process (see Prober)
        _probe_main(int(argv[1]), argv[2], float(argv[3]), float(argv[4]), int(argv[5]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=(*SCENARIOS, "all"), default="analysis")
    parser.add_argument("--clients", type=int, default=None,
                        help="the scenario's size: clients, sockets, workers, connections or "
                        "greedy games (default: " + ", ".join(
                            f"{k} {v[0]}" for k, v in DEFAULTS.items()) + ")")
    parser.add_argument("--seconds", type=float, default=None,
                        help="how long the load lasts (default: " + ", ".join(
                            f"{k} {v[1]:g}" for k, v in DEFAULTS.items()) + ")")
    parser.add_argument("--engines", type=int, default=2)
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--rss-budget", type=float, default=PEAK_RSS_BUDGET_MB)
    parser.add_argument("--server-src", metavar="DIR", default=None,
                        help="run the server on the damier of this source folder (put first "
                        "on its PYTHONPATH), e.g. an older checkout's src/ for a before figure")
    parser.add_argument("--server-arg", metavar="ARG", action="append", default=[],
                        help="one more argument for damier serve (repeatable; write "
                        "--server-arg=--no-egdb for one that starts with -)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    if args.scenario == "all" and args.clients is not None:
        parser.error("--clients means a different thing in each scenario: give it with one "
                     "--scenario, not all")
    if args.seconds is not None and not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"seconds must be more than 0 and at most {MAX_SECONDS:g} (a bounded test)")
    for name in names:
        size = DEFAULTS[name][0] if args.clients is None else args.clients
        if not 1 <= size <= MAX_CLIENTS[name]:
            parser.error(f"--clients must be 1-{MAX_CLIENTS[name]} in the {name} scenario "
                         "(a bounded test)")
    if not 1 <= args.engines <= 64 or not 1 <= args.hash <= 4096:
        parser.error("--engines must be 1-64 and --hash 1-4096")
    results = []
    failed = False
    for name in names:
        size, seconds = DEFAULTS[name]
        if args.clients is not None:
            size = args.clients
        if args.seconds is not None:
            seconds = args.seconds
        if not args.json:
            print(f"== {name}: {size} for {seconds:g} s", flush=True)
        figures = RUNNERS[name](size, seconds, args.engines, args.hash,
                                server_src=args.server_src,
                                server_args=tuple(args.server_arg))
        checks = goals(figures, args.rss_budget)
        figures["goals"] = {what: ok for what, ok in checks}
        failed |= not all(ok for _, ok in checks)
        results.append(figures)
        if not args.json:
            for key, value in figures.items():
                if key != "goals":
                    print(f"{key:>28}: {value}")
            for what, ok in checks:
                print(f"{'PASS' if ok else 'FAIL'}  {what}")
            print(flush=True)
    if args.json:
        print(json.dumps(results if args.scenario == "all" else results[0]))
    else:
        print(_table(results))
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
