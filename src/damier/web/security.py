"""What every request to ``damier serve`` passes through before it reaches a route.

:class:`Guard` is a plain ASGI middleware (it wraps HTTP and WebSocket alike):

* **Host check** (against DNS rebinding): the ``Host`` header must name this
  server: an IP address, ``localhost``, or a name given with
  ``--allowed-host``. A page on ``http://evil.example`` whose name was
  re-pointed at 127.0.0.1 sends ``Host: evil.example`` and gets 421.
* **Same origin for every change**: a request that may change something (any
  method but GET, HEAD and OPTIONS) and every WebSocket must come from the
  server's own pages. A browser says where a request comes from in ``Origin``
  (and ``Sec-Fetch-Site``); one from another site is refused with 403. Programs
  that are not browsers send neither header and are let through: they cannot
  carry a visitor's cookie.
* **The player cookie**: each browser (or API client) gets a random secret,
  ``damier_player``, the first time it calls; the games it creates and the seats
  it takes are tied to it (see :mod:`damier.web.access`). The cookie is
  ``HttpOnly`` and ``SameSite=Lax``, so other sites' pages can neither read it
  nor send it with their requests.
* **Security headers** on every answer: a Content Security Policy that allows
  only the server's own scripts and no framing, ``X-Frame-Options: DENY``,
  ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` (game
  links are capabilities and must not leak) and ``Cross-Origin-Opener-Policy``.
* **No 500 page and no dropped connection**: an error no route expected becomes
  a JSON 500 answer, logged with its traceback, and the connection stays usable.
* **Whole answers only**: ``Range`` headers are ignored (the files are small), so
  that no answer is a non-JSON range error.

>>> allowed_host("127.0.0.1:8000", frozenset()), allowed_host("[::1]:80", frozenset())
(True, True)
>>> allowed_host("localhost", frozenset()), allowed_host("evil.example", frozenset())
(True, False)
>>> allowed_host("board.lan:8000", frozenset({"board.lan"}))
True
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
import re
import secrets
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

__all__ = ["Guard", "PLAYER_COOKIE", "allowed_host", "player_id", "SECURITY_HEADERS"]

log = logging.getLogger("damier.web")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PLAYER_COOKIE = "damier_player"
_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)


def player_id(token: str) -> str:
    """The name under which a player's games are stored: a hash of the cookie's secret
    (the database never holds the secret itself).

    >>> len(player_id("x" * 32)), player_id("x" * 32) == player_id("x" * 32)
    (32, True)
    """
    return hashlib.sha256(token.encode()).hexdigest()[:32]


def _host_name(host: str) -> str:
    """The name in a ``Host`` header, without the port and brackets, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[1:end] if end > 0 else host
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def allowed_host(host: str, extra: frozenset[str]) -> bool:
    """Whether a ``Host`` header names this server: an IP address (a rebinding page
    always sends a name), ``localhost``, or one of the ``extra`` names."""
    name = _host_name(host)
    if not name:
        return False
    if name == "localhost" or name.endswith(".localhost") or name in extra:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        if name not in out:  # the first of repeated headers
            out[name] = value.decode("latin-1")
    return out


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def _same_origin(headers: dict[str, str], scope: Scope) -> bool:
    """Whether a browser's request comes from this server's own pages."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = headers.get("origin")
    if origin is None:
        return site is None or site in ("same-origin", "none")
    if origin == "null":
        return False
    host = headers.get("host", "")
    scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
    return origin.lower() in (f"{scheme}://{host}".lower(),)


class Guard:
    """The ASGI middleware described in the module docstring.

    ``allowed_hosts``: names (besides IP addresses and ``localhost``) that the
    ``Host`` header may carry, e.g. the machine's name on the local network.
    """

    def __init__(self, app: ASGIApp, *, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed_hosts = frozenset(_host_name(h) for h in allowed_hosts if h.strip())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get("host", "")
        if not allowed_host(host, self.allowed_hosts):
            shown = host[:100] or "(none)"
            await self._refuse(scope, receive, send, 421,
                               f"this server does not answer to the host name {shown!r}; start "
                               "it with --allowed-host NAME to allow a name")
            return
        changes = kind == "websocket" or scope.get("method", "GET").upper() not in _SAFE_METHODS
        if changes and not _same_origin(headers, scope):
            origin = headers.get("origin") or headers.get("sec-fetch-site") or "?"
            await self._refuse(scope, receive, send, 403,
                               f"cross-site request refused (from {origin[:100]!r}): changes "
                               "are accepted only from this server's own pages")
            return

        token = _cookie(headers.get("cookie", ""), PLAYER_COOKIE)
        new_token = None
        if token is None or not _TOKEN_RE.match(token):
            token = new_token = secrets.token_urlsafe(32)
        scope.setdefault("state", {})
        scope["state"]["player"] = player_id(token)
        secure = "; Secure" if scope.get("scheme") in ("https", "wss") else ""
        cookie = (f"{PLAYER_COOKIE}={new_token}; Path=/; Max-Age=31536000; HttpOnly; "
                  f"SameSite=Lax{secure}").encode() if new_token else None

        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        # Every answer is whole: a Range header (which Starlette's file answers would
        # meet with plain-text 400/416 errors) is ignored, as HTTP allows.
        scope["headers"] = [(k, v) for k, v in scope.get("headers", [])
                            if k.lower() not in (b"range", b"if-range")]

        started = finished = False

        async def send_wrapper(message: Message) -> None:
            nonlocal started, finished
            if message["type"] == "http.response.body" and not message.get("more_body"):
                finished = True
            if message["type"] == "http.response.start":
                started = True
                extra = list(SECURITY_HEADERS)
                if cookie is not None:
                    extra.append((b"set-cookie", cookie))
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in extra if k not in present or k == b"set-cookie"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception:
            log.exception("unexpected error in %s %s", scope.get("method"), scope.get("path"))
            if finished:  # answered already (Starlette's error page): keep the connection
                return
            if started:  # the answer is under way: nothing more can be said
                raise
            body = json.dumps({"error": "internal error (the server's log has the details)",
                               "status": 500}).encode()
            await send_wrapper({"type": "http.response.start", "status": 500,
                                "headers": [(b"content-type", b"application/json"),
                                            (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, status: int,
                      message: str) -> None:
        if scope["type"] == "websocket":
            # Before the handshake is accepted a close is answered with HTTP 403.
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 4000 + status, "reason": message[:120]})
            return
        body = json.dumps({"error": message, "status": status}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]
                    + list(SECURITY_HEADERS)})
        await send({"type": "http.response.body", "body": body})
