"""The connections of ``damier serve``: time limits and caps below the web app.

uvicorn keeps an HTTP connection that sends nothing, or sends its request head a byte
at a time, for ever, and answers 503 to everybody once ``limit_concurrency``
connections are open: a thousand idle sockets from one client shut everyone out.
:func:`guarded_protocol` makes uvicorn's HTTP protocol class that prevents this:

* **A time for the request head**: a connection must send a whole request head
  within ``head_timeout`` seconds of opening (or of its previous answer, on a
  kept-alive connection), else it is closed. The app's own limit covers the body
  (:data:`damier.web.parsing.BODY_TIMEOUT`), uvicorn's ``timeout_keep_alive`` the
  silence between requests.
* **Idle connections per address**: an IP address may hold ``per_address``
  connections that are not being answered (idle, or still sending their head);
  beyond that its oldest one idle for ``grace`` seconds is closed. Connections whose
  request is being answered are never closed for that, nor those just opened (a
  burst of clients connecting at once sends its requests within the grace).
* **Connections in all**: beyond ``total`` connections the oldest one idle for the
  grace on the server is closed, or else the oldest idle one; when all are being
  answered the new one gets a 503 answer and is closed.

WebSockets leave these counts once upgraded: the app bounds them itself
(:data:`damier.web.sockets.MAX_SOCKETS`, per game and per player).
"""

from __future__ import annotations

import asyncio
import collections
import json
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ConnectionLimits", "guarded_protocol", "HEAD_TIMEOUT", "PER_ADDRESS", "TOTAL"]

HEAD_TIMEOUT = 10.0
"""Seconds a connection has to send a whole request head."""
GRACE = 2.0
"""Seconds a connection may be idle before it can be closed to make room."""
PER_ADDRESS = 64
"""Idle connections (not being answered) one IP address may hold."""
TOTAL = 900
"""Connections in all (below uvicorn's ``limit_concurrency`` of 1000, so that idle
connections never make uvicorn refuse a request)."""


@dataclass
class ConnectionLimits:
    """The limits, and the open connections (oldest first) they are checked against."""

    head_timeout: float = HEAD_TIMEOUT
    grace: float = GRACE
    per_address: int = PER_ADDRESS
    total: int = TOTAL
    open: collections.OrderedDict[Any, str] = field(default_factory=collections.OrderedDict)
    closed_idle: int = 0
    """Idle connections closed to make room (a figure for tests and benchmarks)."""
    refused: int = 0
    timed_out: int = 0

    def _oldest_idle(self, address: str | None, besides: Any, grace: float) -> Any | None:
        now = time.monotonic()
        for conn, where in self.open.items():
            if (conn is not besides and (address is None or where == address)
                    and conn.idle() and conn.idle_for(now) >= grace):
                return conn
        return None

    def admit(self, conn: Any, address: str) -> bool:
        """Counts a new connection in; closes older idle ones to make room; False when
        the connection must be refused (every other connection is being answered)."""
        self.open[conn] = address
        if sum(1 for c, where in self.open.items() if where == address and c.idle()) \
                > self.per_address:
            victim = self._oldest_idle(address, conn, self.grace)
            if victim is not None:
                self.closed_idle += 1
                victim.drop()
        if len(self.open) > self.total:
            victim = (self._oldest_idle(None, conn, self.grace)
                      or self._oldest_idle(None, conn, 0.0))
            if victim is None:
                self.refused += 1
                return False
            self.closed_idle += 1
            victim.drop()
        return True

    def leave(self, conn: Any) -> None:
        self.open.pop(conn, None)


_BUSY = json.dumps({"error": "the server has too many connections open; try again later",
                    "status": 503}).encode()


def guarded_protocol(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's h11 HTTP protocol with ``limits`` (pass it as ``uvicorn.run(http=...)``)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None
        _counted = False
        _upgraded = False
        _idle_since = 0.0

        def idle(self) -> bool:
            """Not answering a request now (waiting for one, or for the rest of its head)."""
            return not self._upgraded and (self.cycle is None or self.cycle.response_complete)

        def idle_for(self, now: float) -> float:
            """Seconds this connection has been idle (0 while a request is answered)."""
            return now - self._idle_since if self.idle() else 0.0

        def drop(self) -> None:
            self._stop_timer()
            limits.leave(self)
            self._counted = False
            if not self.transport.is_closing():
                self.transport.close()

        def _stop_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _start_timer(self) -> None:
            if self._head_timer is None and not self.transport.is_closing():
                self._head_timer = self.loop.call_later(limits.head_timeout, self._too_slow)

        def _too_slow(self) -> None:
            self._head_timer = None
            if self.idle():
                limits.timed_out += 1
                self.drop()

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._idle_since = time.monotonic()
            address = self.client[0] if self.client else ""
            self._counted = True
            if not limits.admit(self, address):
                self._counted = False
                limits.leave(self)
                self.transport.write(b"HTTP/1.1 503 Service Unavailable\r\n"
                                     b"content-type: application/json\r\n"
                                     b"content-length: " + str(len(_BUSY)).encode() + b"\r\n"
                                     b"connection: close\r\n\r\n" + _BUSY)
                self.transport.close()
                return
            self._start_timer()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._upgraded:
                return                  # a WebSocket now: the app keeps its time
            if not self.idle():
                self._stop_timer()      # the head came: the request is being answered
            else:
                self._start_timer()     # a new head is arriving: its time runs

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._idle_since = time.monotonic()
            self._stop_timer()
            self._start_timer()

        def handle_websocket_upgrade(self, event: Any) -> None:
            self._upgraded = True
            self._stop_timer()
            limits.leave(self)
            self._counted = False
            super().handle_websocket_upgrade(event)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            limits.leave(self)
            super().connection_lost(exc)

    return GuardedH11Protocol
