"""A DXP connection: whole messages sent and received over a TCP socket.

Layer 1 of DXP: every message is 1 to 127 ASCII characters followed by a NUL byte.
:class:`DxpConnection` cuts the byte stream at the NULs, so a message that cannot be read
is dropped and the next one is read as it should be; 127 bytes without a NUL cannot be
read on and close the connection. Reads wait at most the timeout given.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

from damier.dxp.messages import MAX_MESSAGE, DxpError, Message, encode, parse_message, split_frames

__all__ = ["DEFAULT_PORT", "DxpClosed", "DxpTimeout", "DxpConnection", "parse_address"]

DEFAULT_PORT = 27531
"""The DXP port."""


class DxpClosed(ConnectionError):
    """The connection is gone (the peer closed it, a send or receive failed)."""


class DxpTimeout(TimeoutError):
    """No complete message arrived in time."""


def parse_address(text: str, *, listen: bool = False) -> tuple[str, int]:
    """``(host, port)`` of an address: ``HOST:PORT``, ``HOST`` (the DXP port), ``[::1]:PORT``
    for IPv6; to listen, also ``PORT`` alone (every interface: ``""``).

    >>> parse_address("localhost:27532"), parse_address("10.0.0.2")
    (('localhost', 27532), ('10.0.0.2', 27531))
    >>> parse_address("27531", listen=True), parse_address("[::1]:5000")
    (('', 27531), ('::1', 5000))
    >>> parse_address("host:99999")
    Traceback (most recent call last):
    ...
    ValueError: bad address 'host:99999': the port must be a number from 1 to 65535
    """
    if not isinstance(text, str):
        raise TypeError(f"an address is a str, not {type(text).__name__}")
    raw = text.strip()

    def fail(problem: str) -> ValueError:
        return ValueError(f"bad address {text!r}: {problem}")

    host, port_text = raw, ""
    if raw.startswith("["):
        close = raw.find("]")
        if close < 0:
            raise fail("an IPv6 address in [brackets] needs its closing ]")
        host, rest = raw[1:close], raw[close + 1:]
        if rest:
            if not rest.startswith(":"):
                raise fail("expected :PORT after the ]")
            port_text = rest[1:]
    elif raw.count(":") == 1:
        host, port_text = raw.split(":")
    elif listen and raw.isascii() and raw.isdigit():
        host, port_text = "", raw
    if not host and not listen:
        raise fail("the host is missing (HOST:PORT)")
    if port_text == "":
        if ":" in raw and not raw.startswith("["):
            raise fail("the port is missing after the colon")
        return host, DEFAULT_PORT
    if not (port_text.isascii() and port_text.isdigit()) or not 1 <= int(port_text) <= 65535:
        raise fail("the port must be a number from 1 to 65535")
    return host, int(port_text)


class DxpConnection:
    """Whole DXP messages over one socket: :meth:`send`, :meth:`receive` with a timeout.

    A message that cannot be read raises :class:`~damier.dxp.DxpError` from
    :meth:`receive`, and the connection stays usable (messages are cut at their NULs,
    so the next one is read as it should be) unless 127 bytes came without a NUL,
    which closes it. ``on_message`` is called with ``("<-", text)`` for each message
    received and ``("->", text)`` for each sent (for a log).
    """

    def __init__(self, sock: socket.socket, *, peer: str | None = None,
                 on_message: Callable[[str, str], None] | None = None) -> None:
        self._sock = sock
        self._buffer = b""
        self._send_lock = threading.Lock()
        self._recv_lock = threading.Lock()
        self.closed = False
        self.on_message = on_message
        if peer is None:
            try:
                address = sock.getpeername()
                peer = f"{address[0]}:{address[1]}"
            except (OSError, IndexError, TypeError):
                peer = "peer"
        self.peer = peer

    @classmethod
    def connect(cls, host: str, port: int = DEFAULT_PORT, *, timeout: float = 10.0,
                on_message: Callable[[str, str], None] | None = None) -> DxpConnection:
        """Connects to a DXP program at ``host:port``; :class:`DxpClosed` when it cannot."""
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as err:
            raise DxpClosed(f"cannot connect to {host}:{port}: {err.strerror or err}") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock, peer=f"{host}:{port}", on_message=on_message)

    def send(self, message: Message) -> None:
        """Sends ``message``; :class:`DxpClosed` when the connection is gone."""
        data = encode(message)
        with self._send_lock:
            if self.closed:
                raise DxpClosed(f"the connection to {self.peer} is closed")
            try:
                self._sock.sendall(data)
            except OSError as err:
                self.close()
                raise DxpClosed(f"cannot send to {self.peer}: {err.strerror or err}") from None
        if self.on_message is not None:
            self.on_message("->", data[:-1].decode("ascii"))

    def receive(self, timeout: float | None) -> Message:
        """The next message, waiting at most ``timeout`` seconds (None: for ever).

        Raises :class:`DxpTimeout` when none is complete in time, :class:`DxpClosed`
        when the connection is gone and :class:`~damier.dxp.DxpError` for a message
        that cannot be read (the bad message is dropped).
        """
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        with self._recv_lock:
            while True:
                end = self._buffer.find(b"\0")
                if end >= 0:
                    raw, self._buffer = self._buffer[:end], self._buffer[end + 1:]
                    if self.on_message is not None:
                        self.on_message("<-", raw.decode("ascii", "backslashreplace"))
                    texts, _ = split_frames(raw + b"\0")
                    return parse_message(texts[0])
                if len(self._buffer) > MAX_MESSAGE:
                    size = len(self._buffer)
                    self._buffer = b""
                    self.close()
                    raise DxpError("message", "bytes", f"{size} bytes",
                                   f"no NUL within {MAX_MESSAGE} characters: the stream "
                                   "cannot be read on, the connection is closed")
                if self.closed:
                    raise DxpClosed(f"the connection to {self.peer} is closed")
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise DxpTimeout(f"no message from {self.peer} in {timeout:g} s")
                try:
                    self._sock.settimeout(left)
                    chunk = self._sock.recv(4096)
                except (socket.timeout, TimeoutError):
                    raise DxpTimeout(f"no message from {self.peer} in {timeout:g} s") from None
                except OSError as err:
                    self.close()
                    raise DxpClosed(f"the connection to {self.peer} failed: "
                                    f"{err.strerror or err}") from None
                if not chunk:
                    self.close()
                    raise DxpClosed(f"{self.peer} closed the connection")
                self._buffer += chunk

    def close(self) -> None:
        """Closes the connection (again: nothing)."""
        if self.closed:
            return
        self.closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self._sock.close()
        except OSError:
            pass

    def __enter__(self) -> DxpConnection:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()
