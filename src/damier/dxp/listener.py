"""A DXP server: connections accepted and each served in a thread of its own."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable

from damier.dxp.connection import DEFAULT_PORT, DxpClosed, DxpConnection
from damier.dxp.messages import Chat

__all__ = ["DxpListener"]

log = logging.getLogger("damier.dxp")


class DxpListener:
    """A DXP server: accepts connections on ``host:port`` and hands each to ``serve``
    (called with the :class:`DxpConnection`, in a thread of its own), at most
    ``max_connections`` at once (one more is told so in a CHAT and closed).

    ``port`` 0 picks a free port (see :attr:`port`). :meth:`serve_forever` runs until
    :meth:`close`, or until ``connections`` connections have been served.
    """

    def __init__(self, serve: Callable[[DxpConnection], None], host: str = "",
                 port: int = DEFAULT_PORT, *, max_connections: int = 4,
                 on_message: Callable[[str, str, str], None] | None = None,
                 on_event: Callable[[str], None] | None = None) -> None:
        self.serve = serve
        self.max_connections = max_connections
        self.on_message = on_message
        self.on_event = on_event
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            self._sock = socket.create_server((host, port), family=family, reuse_port=False)
        except OSError as err:
            raise DxpClosed(f"cannot listen on {host or '*'}:{port}: "
                            f"{err.strerror or err}") from None
        self.port = self._sock.getsockname()[1]
        self.host = host
        self._threads: list[threading.Thread] = []
        self._closed = threading.Event()
        self._active = 0
        self._count_lock = threading.Lock()

    def _event(self, text: str) -> None:
        log.info("%s", text)
        if self.on_event is not None:
            self.on_event(text)

    def serve_forever(self, connections: int | None = None) -> None:
        """Serves connections until :meth:`close` (or after ``connections`` of them)."""
        served = 0
        self._sock.settimeout(0.2)
        try:
            while not self._closed.is_set() and (connections is None or served < connections):
                try:
                    sock, address = self._sock.accept()
                except (socket.timeout, TimeoutError):
                    continue
                except OSError:
                    if self._closed.is_set():
                        break
                    continue
                peer = f"{address[0]}:{address[1]}"
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                on_message = None
                if self.on_message is not None:
                    hook = self.on_message

                    def on_message(direction: str, text: str, peer: str = peer,
                                   hook: Callable[[str, str, str], None] = hook) -> None:
                        hook(peer, direction, text)
                connection = DxpConnection(sock, peer=peer, on_message=on_message)
                with self._count_lock:
                    busy = self._active >= self.max_connections
                    if not busy:
                        self._active += 1
                if busy:
                    self._event(f"{peer}: refused, {self.max_connections} connections "
                                "are being served")
                    try:
                        connection.send(Chat(f"busy: {self.max_connections} games are being "
                                             "played, try again later"))
                    except DxpClosed:
                        pass
                    connection.close()
                    continue
                served += 1
                self._event(f"{peer}: connected")
                thread = threading.Thread(target=self._serve_one, args=(connection,),
                                          name=f"dxp {peer}", daemon=True)
                self._threads = [t for t in self._threads if t.is_alive()]
                self._threads.append(thread)
                thread.start()
        except BaseException:
            self.close()  # interrupted: the games being played end with the process
            raise
        for thread in list(self._threads):
            thread.join()

    def _serve_one(self, connection: DxpConnection) -> None:
        try:
            self.serve(connection)
        except Exception:  # noqa: BLE001 - one connection's failure never stops the server
            log.exception("serving %s failed", connection.peer)
            self._event(f"{connection.peer}: failed (see the log)")
        finally:
            connection.close()
            with self._count_lock:
                self._active -= 1
            self._event(f"{connection.peer}: disconnected")

    def close(self) -> None:
        """Stops accepting connections (the ones being served go on to their end)."""
        self._closed.set()
        try:
            self._sock.close()
        except OSError:
            pass

    def __enter__(self) -> DxpListener:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()
