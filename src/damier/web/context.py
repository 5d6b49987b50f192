"""What every route handler of ``damier serve`` shares: the app's games
(:func:`games_of`), the caller (player, client, whether on this machine), their rights
in a game (:func:`allow`), JSON answers, and :func:`api`, the wrapper that turns every
refusal into its JSON error (and an unexpected error into a JSON 500 that keeps the
connection).
"""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Callable
from typing import Any

from damier.web.access import (Viewer, adopt, is_local, viewer_of)
from damier.web.engines import (Client, PoolBusy)
from damier.web.session import (ApiError, clean_name, storage_error)
from damier.web.storage import StorageError
from damier.web.live import LiveGame, LiveGames

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket

log = logging.getLogger("damier.web")


def games_of(conn: "Request | WebSocket") -> LiveGames:
    """The app's games (the :class:`LiveGames` that :func:`damier.web.app.create_app` made)."""
    games: LiveGames = conn.app.state.live_games
    return games


def ok(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status)


def api(handler: Callable[..., Any]) -> Callable[["Request"], Any]:
    """The handler with every refusal answered as its JSON error: an :class:`ApiError`
    with its status, a full engine queue 429, a store that cannot be read or written
    507/503, and a bug a JSON 500 (logged with its traceback) that keeps the connection."""
    async def endpoint(request: Request) -> Response:
        try:
            response: Response = await handler(request)
            return response
        except ApiError as err:
            headers = ({"Retry-After": str(err.extra["retry_after"])}
                       if "retry_after" in err.extra else None)
            return JSONResponse(err.payload(), status_code=err.status, headers=headers)
        except PoolBusy as err:
            return JSONResponse({"error": str(err), "status": 429, "kind": "busy"},
                                status_code=429, headers={"Retry-After": "5"})
        except StorageError as err:   # the store could not be read or written
            log.warning("%s %s: %s", request.method, request.url.path, err)
            failure = storage_error(err, "read or store the games", "nothing was changed")
            return JSONResponse(failure.payload(), status_code=failure.status)
        except Exception:  # a bug: a JSON 500 that keeps the connection usable
            log.exception("unexpected error in %s %s", request.method, request.url.path)
            return JSONResponse({"error": "internal error (the server's log has the "
                                          "details)", "status": 500}, status_code=500)
    endpoint.__name__ = handler.__name__
    return endpoint


def game_id(request: Request) -> str:
    return str(request.path_params["game_id"])


def player(conn: "Request | WebSocket") -> str:
    return str(conn.scope.get("state", {}).get("player", ""))


def client_of(conn: "Request | WebSocket") -> Client:
    return (conn.client.host if conn.client else "", player(conn))


def local(conn: "Request | WebSocket") -> bool:
    return is_local(conn.client.host if conn.client else None)


NAME_COOKIE = "damier_name"
"""The cookie in which the page keeps the person's name (asked once; not a secret)."""


def name_of(conn: "Request | WebSocket", data: dict[str, Any]) -> str | None:
    """The person's name: the request's ``name`` field (refused with 400 when it is not
    a good name, :func:`damier.web.session.clean_name`), else the name cookie's
    (ignored when it is not a good name), else None."""
    given = data.get("name")
    if given is not None:
        if not isinstance(given, str):
            raise ApiError(400, "name must be a string", field="name")
        return clean_name(given)
    cookie = conn.cookies.get(NAME_COOKIE)
    if not cookie or len(cookie) > 400:
        return None
    try:
        return clean_name(urllib.parse.unquote(cookie, errors="strict"))
    except (ApiError, UnicodeDecodeError):
        return None


def viewer(conn: "Request | WebSocket", live: LiveGame) -> Viewer:
    return viewer_of(live.session.record, player(conn), local=local(conn))


def allow(conn: "Request | WebSocket", live: LiveGame, check: Callable[..., None],
          *args: Any) -> Viewer:
    """Checks ``conn``'s right (``check`` of :mod:`damier.web.access`); a game without
    an owner is adopted by its first local player's change."""
    v = viewer(conn, live)
    check(live.session.record, v, *args)
    live.client = client_of(conn)
    if v.adoptable:
        live.session.update_record(lambda rec: adopt(rec, v.player),
                                   "owner", "white_player", "black_player")
        v = viewer(conn, live)
    return v


def no_takebacks(live: LiveGame, what: str) -> None:
    if live.session.two_players():
        raise ApiError(409, f"you cannot {what} in a game between two players",
                       kind="two_players")


def players_only(v: Viewer, live: LiveGame) -> dict[str, Any]:
    """What only the players of a game between two people see in its state: their
    ``chat`` (nothing for spectators, nor in other games)."""
    if v.seats and live.session.two_players():
        try:
            return {"chat": live.chat()}
        except StorageError as err:   # the game still shows; its chat comes back later
            log.warning("chat of game %s not read: %s", live.session.id, err)
    return {}


def with_viewer(state: dict[str, Any], v: Viewer, live: LiveGame | None = None
                ) -> dict[str, Any]:
    you = v.as_json()
    if live is not None and v.owner and live.session.record.invite is not None:
        # only the owner sees the invitation (the friend's seat is still open)
        you["invite"] = live.session.record.invite
    extra = players_only(v, live) if live is not None else {}
    return {**state, **extra, "you": you}
