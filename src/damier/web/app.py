"""The web app of ``damier serve``: a JSON API, a WebSocket and a static page.

Routes (every error is JSON ``{"error": "...", "status": N, ...}``):

=========================================  ==============================================
``GET /``                                   the page (``static/index.html``)
``GET /api/variants``                       the variants and their boards
``GET /api/games``                          past games, most recent first (``limit``, ``offset``)
``POST /api/games``                         a new game: ``{"variant", "color", "level", "fen",
                                            "clock": "5+3", "opponent": "engine"|"friend",
                                            "name"}`` (``name``: the person's)
``GET /api/games/{id}``                     a game: FEN, legal moves, move list, outcome...
``DELETE /api/games/{id}``                  forgets a game
``POST /api/games/{id}/move``               ``{"move": "32-28"}`` or ``{"from", "to", "path"}``
``POST /api/games/{id}/join``               ``{"invite": secret, "name"}``: takes a friend's
                                            open seat
``POST /api/games/{id}/undo``               ``{"count": n}`` (default: back to the person's turn)
``POST /api/games/{id}/redo``               ``{"count": n}`` (default 1)
``POST /api/games/{id}/line``               ``{"moves": [...]}``: replaces the move list
``POST /api/games/{id}/resign``             ``{"color": "white"}`` (default: the person's colour)
``POST /api/games/{id}/draw``               a draw offer; the engine accepts or declines
``POST /api/games/{id}/go``                 the engine plays the side to move now
``POST /api/games/{id}/rematch``            a rematch, colours swapped (``{"decline"}``);
                                            between two people an offer, then its acceptance
``POST /api/games/{id}/takeback``           between two people: asks to take one's last move
                                            back, or ``{"answer": "accept"|"decline"}``
``POST /api/games/{id}/chat``               ``{"text": ...}``: a message to the other player
``GET /api/games/{id}/tree``                an imported game's tree of variations (a state
                                            leaves one of over 400 nodes out: its
                                            ``tree_key`` says when it changed)
``GET /api/games/{id}/pdn``                 the game as a PDN file (download)
``POST /api/games/{id}/analysis``           a game report: ``{"depth": n, "movetime": s}`` (202)
``GET /api/games/{id}/analysis``            the report (or its progress so far while it runs)
``DELETE /api/games/{id}/analysis``         stops a running report and forgets the stored one
``POST /api/import``                        PDN text (JSON ``{"pdn": ...}`` or a raw upload)
``POST /api/position``                      checks a FEN: ``{"variant", "fen"}``
``GET /api/explorer``                       the opening explorer (``variant``, ``fen``)
``GET /puzzles``                            the puzzle page (``static/puzzles.html``)
``GET /api/puzzles/next``                   a puzzle near ``rating`` (``variant``, ``seen``)
``POST /api/puzzles/{id}/move``             ``{"played": [...], "move"}``: right? solved? reply
``POST /api/puzzles/{id}/hint``             ``{"played": [...]}``: the square to move from
``WS /ws/games/{id}``                       live state, engine moves and analysis
=========================================  ==============================================

The handlers live by concern (:mod:`damier.web.games`, :mod:`damier.web.sockets`,
:mod:`damier.web.puzzle_routes`), the games in memory in :mod:`damier.web.live`,
request reading in :mod:`damier.web.parsing`; :data:`ROUTES` is the one route table
(the fuzz test covers every route in it).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from damier.egdb import DEFAULT_ENGINE_PIECES, EgdbSetting
from damier.web.security import Guard
from damier.web.storage import GameStore
from damier.web.games import (chat, check_position, create_game, delete_game,
                              delete_report, export_pdn, get_game, get_report, get_tree, go,
                              import_games, join_game, list_games, offer_draw, play_move,
                              rematch, redo, resign, set_line, start_report, takeback, undo,
                              variants)
from damier.web.live import (ANALYSIS_SECONDS, DEFAULT_ENGINES, DEFAULT_HASH_MB,
                             GAMES_PER_MINUTE, REPORT_DEPTH, REPORT_MAX_DEPTH,
                             REPORT_MAX_MOVETIME, REPORT_MOVETIME, LiveGames)
from damier.web.parsing import IMPORT_LIMIT, JSON_LIMIT
from damier.web.explorer_routes import explorer
from damier.web.puzzle_routes import get_puzzle, next_puzzle, puzzle_hint, puzzle_move
from damier.web.sockets import game_socket

__all__ = ["create_app", "ROUTES", "LiveGames", "JSON_LIMIT", "IMPORT_LIMIT", "STATIC_DIR",
           "REPORT_DEPTH", "REPORT_MOVETIME", "REPORT_MAX_DEPTH", "REPORT_MAX_MOVETIME"]

log = logging.getLogger("damier.web")

STATIC_DIR = Path(__file__).resolve().parent / "static"


async def index(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


async def puzzles_page(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "puzzles.html", headers={"Cache-Control": "no-cache"})


async def not_found(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 404)
    detail = getattr(exc, "detail", None) or "not found"
    if status == 404:
        detail = f"no such page or API route: {request.url.path}"
    return JSONResponse({"error": detail, "status": status}, status_code=status)


ROUTES: list[BaseRoute] = [
    Route("/", index),
    Route("/api/variants", variants),
    Route("/puzzles", puzzles_page),
    Route("/api/puzzles/next", next_puzzle, methods=["GET"]),
    Route("/api/puzzles/{puzzle_id}", get_puzzle, methods=["GET"]),
    Route("/api/puzzles/{puzzle_id}/move", puzzle_move, methods=["POST"]),
    Route("/api/puzzles/{puzzle_id}/hint", puzzle_hint, methods=["POST"]),
    Route("/api/games", list_games, methods=["GET"]),
    Route("/api/games", create_game, methods=["POST"]),
    Route("/api/import", import_games, methods=["POST"]),
    Route("/api/position", check_position, methods=["POST"]),
    Route("/api/explorer", explorer, methods=["GET"]),
    Route("/api/games/{game_id}", get_game, methods=["GET"]),
    Route("/api/games/{game_id}", delete_game, methods=["DELETE"]),
    Route("/api/games/{game_id}/move", play_move, methods=["POST"]),
    Route("/api/games/{game_id}/join", join_game, methods=["POST"]),
    Route("/api/games/{game_id}/undo", undo, methods=["POST"]),
    Route("/api/games/{game_id}/redo", redo, methods=["POST"]),
    Route("/api/games/{game_id}/line", set_line, methods=["POST"]),
    Route("/api/games/{game_id}/resign", resign, methods=["POST"]),
    Route("/api/games/{game_id}/draw", offer_draw, methods=["POST"]),
    Route("/api/games/{game_id}/go", go, methods=["POST"]),
    Route("/api/games/{game_id}/rematch", rematch, methods=["POST"]),
    Route("/api/games/{game_id}/takeback", takeback, methods=["POST"]),
    Route("/api/games/{game_id}/chat", chat, methods=["POST"]),
    Route("/api/games/{game_id}/tree", get_tree, methods=["GET"]),
    Route("/api/games/{game_id}/pdn", export_pdn, methods=["GET"]),
    Route("/api/games/{game_id}/analysis", start_report, methods=["POST"]),
    Route("/api/games/{game_id}/analysis", get_report, methods=["GET"]),
    Route("/api/games/{game_id}/analysis", delete_report, methods=["DELETE"]),
    WebSocketRoute("/ws/games/{game_id}", game_socket),
    Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
]
"""Every route of the app (the fuzz test goes through each one)."""


def create_app(db: str | Path = "damier-games.sqlite3", *,
               movetime: dict[int, float] | float | None = None,
               analysis_seconds: float = ANALYSIS_SECONDS,
               allowed_hosts: Iterable[str] = (), engines: int = DEFAULT_ENGINES,
               hash_mb: int = DEFAULT_HASH_MB, book: bool = True,
               egdb: EgdbSetting = None,
               egdb_pieces: int = DEFAULT_ENGINE_PIECES,
               games_per_minute: int = GAMES_PER_MINUTE) -> Starlette:
    """The Starlette app serving the games stored in the SQLite file ``db``.

    ``movetime``: the engine's seconds per move (one number, or by level).
    ``allowed_hosts``: host names the server answers to besides IP addresses and
    ``localhost`` (see :mod:`damier.web.security`). ``engines`` and ``hash_mb``: the
    shared engine pool (searches at once, and each one's hash table in MiB).
    ``book``: the engine plays the opening from the variant's shipped book (levels
    8-10; analysis never uses it). ``egdb``: the endgame databases the engines probe
    (a directory of the server's, never one a client names; see
    :class:`damier.engine.Engine`), ``egdb_pieces`` the most pieces they probe.
    ``games_per_minute``: the new games one player may start a minute
    (:data:`GAMES_PER_MINUTE`).
    """
    store = GameStore(db)
    live_games = LiveGames(store, movetime=movetime, analysis_seconds=analysis_seconds,
                           engines=engines, hash_mb=hash_mb, book=book, egdb=egdb,
                           egdb_pieces=egdb_pieces, games_per_minute=games_per_minute)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        live_games.shutdown()
        store.close()

    app = Starlette(routes=ROUTES, lifespan=lifespan,
                    middleware=[Middleware(Guard, allowed_hosts=tuple(allowed_hosts))],
                    exception_handlers={404: not_found, 405: not_found})
    app.state.live_games = live_games
    app.state.store = store
    return app
