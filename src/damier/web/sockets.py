"""The WebSocket of ``damier serve``'s games (``/ws/games/{id}``): live states, engine
moves and lines, analyses and game reports go out through each socket's bounded
queue (:class:`damier.web.live.Subscriber`); the page's messages (``ping``,
``state``, ``analyse``, ``stop``) come in. Sockets are capped on the server, per game
and per player; a slot is always given back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from damier.web.access import (require_player)
from damier.web.session import (ApiError)
from damier.web.context import allow, games_of, player, players_only, viewer
from damier.web.live import LiveGame, Subscriber
from damier.web.parsing import check_text, get_int, get_str

from starlette.websockets import WebSocket

log = logging.getLogger("damier.web")

WS_MESSAGE_LIMIT = 16 * 1024
MAX_MULTIPV = 5
MAX_SOCKETS = 512
"""WebSocket connections at once on the whole server; more are refused (close 1013)."""
MAX_WATCHERS = 128
"""WebSocket connections at once on one game."""
MAX_PLAYER_SOCKETS = 32
"""WebSocket connections at once of one player (one cookie)."""
SEND_TIMEOUT = 20.0
"""Seconds one message may take to go out on a WebSocket before the socket is closed
(a client that stopped reading)."""


async def game_socket(websocket: WebSocket) -> None:
    live_games = games_of(websocket)
    gid = websocket.path_params["game_id"]
    await websocket.accept()
    try:
        live = live_games.get(gid)
        state = live.state()
    except ApiError as err:
        await websocket.send_json({"type": "error", "error": err.message, "status": err.status})
        await websocket.close(code=4404 if err.status == 404 else 1011)
        return
    who = player(websocket)
    busy = None
    if live_games.sockets >= MAX_SOCKETS:
        busy = f"the server has {live_games.sockets} live connections (at most {MAX_SOCKETS})"
    elif len(live.subscribers) >= MAX_WATCHERS:
        busy = f"this game has {len(live.subscribers)} watchers (at most {MAX_WATCHERS})"
    elif live_games.player_sockets[who] >= MAX_PLAYER_SOCKETS:
        busy = (f"you have {live_games.player_sockets[who]} live connections open "
                f"(at most {MAX_PLAYER_SOCKETS})")
    if busy is not None:
        await websocket.send_json({"type": "error", "error": busy + "; try again later",
                                   "status": 503})
        await websocket.close(code=1013)
        live_games.release(live)
        return
    # from here on the slot is taken: the finally below gives it back, whatever happens
    live_games.sockets += 1
    live_games.player_sockets[who] += 1
    sub = Subscriber()
    live.subscribers.add(sub)
    loop = asyncio.get_running_loop()

    async def sender() -> None:
        while True:
            message = await sub.next()
            if message is None:
                return
            if message.get("players_only") and not viewer(websocket, live).seats:
                continue                        # the players' chat: not for spectators
            if message.get("type") == "state":  # what this socket's player may do
                v = viewer(websocket, live)
                extra = players_only(v, live)
                game = {**message["game"], **extra} if extra else message["game"]
                message = {**message, "game": game, "you": v.as_json()}
            await asyncio.wait_for(websocket.send_text(
                json.dumps(message, separators=(",", ":"))), SEND_TIMEOUT)

    async def receiver() -> None:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                sub.send({"type": "error", "error": "binary messages are not understood: "
                          "send JSON text"})
                continue
            reply = handle_ws_message(websocket, live, raw)
            if reply is not None:
                sub.send(reply)

    send_task = loop.create_task(sender())
    receive_task = loop.create_task(receiver())
    try:
        sub.send({"type": "state", "game": state})
        if live.thinking and live.last_info is not None:
            sub.send(live.last_info)
        live_games.maybe_start_engine(live)
        await asyncio.wait({send_task, receive_task}, return_when=asyncio.FIRST_COMPLETED)
        if send_task.done() and not send_task.cancelled():
            error = send_task.exception()
            if error is not None or sub.overflowed:
                log.info("websocket of game %s closed: the client does not read (%s)", gid,
                         "too many messages waiting" if error is None else
                         type(error).__name__)
                receive_task.cancel()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(websocket.close(code=1013), 1.0)
    except Exception:  # pragma: no cover - a broken socket
        log.debug("websocket of game %s closed", gid, exc_info=True)
    finally:
        live_games.sockets -= 1
        live_games.player_sockets[who] -= 1
        if live_games.player_sockets[who] <= 0:
            del live_games.player_sockets[who]
        live.subscribers.discard(sub)
        sub.close()
        send_task.cancel()
        receive_task.cancel()
        for task in (send_task, receive_task):
            with contextlib.suppress(BaseException):
                await task
        if not live.subscribers:
            live.stop_analysis()
            live_games.release(live)


def handle_ws_message(websocket: WebSocket, live: LiveGame, raw: str) -> dict[str, Any] | None:
    live_games = games_of(websocket)
    if len(raw) > WS_MESSAGE_LIMIT:
        return {"type": "error", "error": f"message too large (at most {WS_MESSAGE_LIMIT} bytes)"}
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        return {"type": "error", "error": f"message is not valid JSON: {err}"}
    except RecursionError:
        return {"type": "error", "error": "message is nested too deeply"}
    except ValueError as err:
        return {"type": "error", "error": f"message is not valid JSON here: {str(err)[:100]}"}
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return {"type": "error", "error": 'a message is a JSON object with a "type"'}
    kind = data["type"]
    try:
        check_text(data)
        if kind == "ping":
            return {"type": "pong"}
        if kind == "state":
            return {"type": "state", "game": live.state()}
        if kind == "analyse":
            multipv = get_int(data, "multipv", 1, lo=1, hi=MAX_MULTIPV)
            ply = get_int(data, "ply", None, lo=0, hi=100000)
            fen = get_str(data, "fen", None, max_len=400)
            allow(websocket, live, require_player, "analyse it")
            live_games.start_analysis(live, multipv=multipv or 1, ply=ply, fen=fen)
            return None
        if kind == "stop":
            allow(websocket, live, require_player, "stop its analysis")
            live.stop_analysis()
            return {"type": "analysis_stopped"}
    except ApiError as err:
        return {"type": "error", "error": err.message, "status": err.status}
    return {"type": "error", "error": f"unknown message type {kind[:40]!r} "
            "(expected ping, state, analyse, stop)"}
