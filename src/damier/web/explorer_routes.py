"""The opening explorer of ``damier serve``: ``GET /api/explorer?variant=NAME&fen=FEN``.

For the position ``fen`` (default: the variant's start position) it answers the moves
of the variant's shipped opening book with their scores, and the moves played from the
position in the server's finished games with how those games ended::

    {"fen": ..., "variant": "international",
     "book": [{"move": "32-28", "from": 32, "to": 28, "path": [32, 28], "captures": [],
               "score": 12, "depth": 9, "mate": null}, ...],
     "games": [{"move": "32-28", "from": 32, "to": 28, "path": [32, 28], "captures": [],
                "games": 14, "white": 6, "draws": 5, "black": 3}, ...],
     "indexed_games": 120}

``score`` is in centi-men from the side to move's view (``mate``: the plies of a forced
win, negative for a loss, else null); ``games`` are most played first.

The games are those of the store (every player's: the answer holds counts only, never
who played) that are over (a result other than ``*``): the newest :data:`MAX_GAMES`
games of the store are looked at, :data:`MAX_PLIES` plies of each
(:class:`damier.explorer.Explorer`). :class:`GamesIndex` builds a variant's index in a
worker thread when the variant is first asked for, and keeps it: each request checks a
cheap stamp of the store (the number of games and the newest change), and when it
changed reads only the games changed since (newest first) and indexes only those
whose moves or result changed; a deleted game, too many changes at once, or
:data:`FULL_RESCAN_SECONDS` since the last full look makes it read the newest games
again (still indexing only what changed).

Bad input is a 400 JSON error naming the field: an unknown variant, a FEN that is not
a position of the variant, a query string over :data:`QUERY_LIMIT` characters.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from damier._core import MATE_SCORE, MATE_THRESHOLD
from damier.board import Board
from damier.explorer import Explorer
from damier.pdn import canonical_result
from damier.variants import Variant, get_variant
from damier.web.context import api, games_of, ok
from damier.web.session import ApiError
from damier.web.storage import GameStore, StoredGame

__all__ = ["explorer", "GamesIndex", "MAX_GAMES", "MAX_PLIES", "QUERY_LIMIT",
           "FULL_RESCAN_SECONDS"]

log = logging.getLogger("damier.web")

MAX_GAMES = 5000
"""The newest stored games that the explorer looks at."""
MAX_PLIES = 40
"""The plies of each game indexed."""
QUERY_LIMIT = 1000
"""The longest query string accepted (characters)."""
FEN_LIMIT = 400
"""The longest FEN accepted (characters), as ``POST /api/position`` takes."""
FULL_RESCAN_SECONDS = 300.0
"""At most this long between two full looks at the newest games (changes are read
incrementally in between)."""
PAGE = 500
"""Games read from the store at once."""

_Game = tuple[str, tuple[str, ...], str]
"""What is indexed of a game: its start FEN, its first moves and its result."""


@dataclass(frozen=True)
class _Seen:
    """A stored game as last read: when it changed and its write version, its variant
    ("" when unknown) and what is indexed of it (None: nothing, the game is not over)."""

    updated_at: str
    version: int
    variant: str
    game: _Game | None


class GamesIndex:
    """The explorers of the games of ``store``, one per variant, each built when first
    asked for and brought up to date with the store on each :meth:`lookup` (see the
    module documentation). Thread-safe: one lookup at a time."""

    def __init__(self, store: GameStore, *, max_games: int = MAX_GAMES,
                 max_plies: int = MAX_PLIES, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.store = store
        self.max_games = max_games
        self.max_plies = max_plies
        self._clock = clock
        self._lock = threading.Lock()
        self._stamp: tuple[Any, ...] | None = None
        self._count = 0
        self._top = ""
        self._seen: dict[str, _Seen] = {}
        self._serial = 0
        self._scanned_at = float("-inf")
        self._explorers: dict[str, tuple[Explorer, dict[str, _Game], list[int]]] = {}
        self.full_scans = 0
        """How many times the newest games were read in full (for tests and the curious)."""
        self.indexed = 0
        """How many games were indexed, counting each change of a game again."""
        self.async_lock: asyncio.Lock | None = None
        """Held by the route while a lookup runs, so that requests wait in the event
        loop rather than in worker threads."""

    # -- the store ------------------------------------------------------------------------

    def _stamp_now(self) -> tuple[Any, ...]:
        count = self.store.count()
        newest = self.store.list(limit=1)
        if not newest:
            return (count,)
        return (count, newest[0].updated_at, newest[0].id, newest[0].version)

    def _seen_of(self, record: StoredGame) -> _Seen:
        try:
            variant = get_variant(record.variant).name
        except ValueError:
            variant = ""
        result = canonical_result(record.result or "*")
        game: _Game | None = None
        if variant and result is not None and result != "*":
            # an imported game's main line goes on with the moves that redo would
            # replay (kept as a stack: the next one last)
            moves = record.moves + (record.redo[::-1] if record.pdn is not None else [])
            # the same texts recur in many games: one string each
            game = (sys.intern(record.start_fen),
                    tuple(map(sys.intern, moves[:self.max_plies])), result)
        return _Seen(record.updated_at, record.version, variant, game)

    def _refresh(self) -> None:
        stamp = self._stamp_now()
        now = self._clock()
        if stamp == self._stamp and now - self._scanned_at < FULL_RESCAN_SECONDS:
            return
        if (self._stamp is None or now - self._scanned_at >= FULL_RESCAN_SECONDS
                or not self._read_changes(stamp[0])):
            self._read_all(stamp[0], now)
        self._stamp = stamp

    def _read_all(self, count: int, now: float) -> None:
        seen: dict[str, _Seen] = {}
        offset = 0
        while offset < self.max_games:
            page = self.store.list(limit=min(PAGE, self.max_games - offset), offset=offset)
            for record in page:
                seen.setdefault(record.id, self._seen_of(record))
            if len(page) < PAGE:
                break
            offset += len(page)
        self._seen = seen
        self._count = count
        self._top = max((s.updated_at for s in seen.values()), default="")
        self._scanned_at = now
        self._serial += 1
        self.full_scans += 1

    def _read_changes(self, count: int) -> bool:
        """Reads the games changed since the last read (those changed last come first in
        the store's list); False when that cannot tell the whole change (a game was
        deleted, or too many changed): then everything is read again."""
        fresh: dict[str, _Seen] = {}
        offset = 0
        size = 16           # most often one game or two changed: small pages first
        done = False
        while not done:
            page = self.store.list(limit=size, offset=offset)
            for record in page:
                known = self._seen.get(record.id)
                if record.updated_at < self._top or (
                        record.updated_at == self._top and known is not None
                        and known.version == record.version):
                    done = True     # older than the last read, and so the rest
                    break
                fresh.setdefault(record.id, self._seen_of(record))
            if len(page) < size:
                done = True
            offset += len(page)
            size = min(PAGE, size * 4)
            if not done and offset >= self.max_games:
                return False
        new = sum(1 for game_id in fresh if game_id not in self._seen)
        if count != self._count + new:
            return False
        if any(_indexed(self._seen.get(game_id)) != _indexed(seen)
               for game_id, seen in fresh.items()):
            self._serial += 1
        self._seen.update(fresh)
        self._count = count
        self._top = max([self._top, *(s.updated_at for s in fresh.values())])
        if len(self._seen) > self.max_games:
            newest = sorted(self._seen.items(), key=lambda item: item[1].updated_at,
                            reverse=True)
            self._seen = dict(newest[:self.max_games])
            self._serial += 1
        return True

    # -- the explorers ---------------------------------------------------------------------

    def _explorer(self, variant: Variant) -> Explorer:
        """The explorer of ``variant``, brought up to date with what was read."""
        entry = self._explorers.get(variant.name)
        if entry is None:
            entry = self._explorers[variant.name] = (Explorer(variant), {}, [-1])
        explorer, indexed, synced = entry
        if synced[0] == self._serial:
            return explorer
        target = {game_id: seen.game for game_id, seen in self._seen.items()
                  if seen.variant == variant.name and seen.game is not None}
        for game_id in [g for g in indexed if g not in target]:
            self._unindex(explorer, indexed.pop(game_id))
        for game_id, game in target.items():
            old = indexed.get(game_id)
            if old == game:
                continue
            if old is not None:
                self._unindex(explorer, indexed.pop(game_id))
            start_fen, moves, result = game
            try:
                explorer.add_game(moves, result, start_fen, self.max_plies)
            except ValueError as err:   # a start position the variant does not read
                log.info("explorer: game %s left out: %s", game_id, str(err)[:200])
                continue
            indexed[game_id] = game
            self.indexed += 1
        synced[0] = self._serial
        return explorer

    def _unindex(self, explorer: Explorer, game: _Game) -> None:
        start_fen, moves, result = game
        explorer.remove_game(moves, result, start_fen, self.max_plies)

    def lookup(self, variant: Variant, board: Board) -> dict[str, Any]:
        """The explorer's answer for ``board`` (a position of ``variant``), the index
        first brought up to date with the store (this reads the store: call it from a
        worker thread)."""
        with self._lock:
            self._refresh()
            explorer = self._explorer(variant)
            games = explorer.moves(board)
            indexed_games = explorer.game_count
        book = explorer.book_moves(board)
        return {
            "fen": board.fen(), "variant": variant.name,
            "book": [{**_move_json(board, m.move), "score": m.score, "depth": m.depth,
                      "mate": _mate(m.score)} for m in book],
            "games": [{**_move_json(board, m.move), "games": m.games, "white": m.white,
                       "draws": m.draws, "black": m.black} for m in games],
            "indexed_games": indexed_games,
        }


def _indexed(seen: _Seen | None) -> tuple[str, _Game | None] | None:
    return None if seen is None else (seen.variant, seen.game)


def _move_json(board: Board, move: Any) -> dict[str, Any]:
    return {"move": board.notation(move), "from": move.from_square, "to": move.to_square,
            "path": list(move.path), "captures": list(move.captures)}


def _mate(score: int) -> int | None:
    """The plies of a forced win (negative: a loss) that a book score stands for."""
    if score >= MATE_THRESHOLD:
        return MATE_SCORE - score
    if score <= -MATE_THRESHOLD:
        return -(MATE_SCORE + score)
    return None


def index_of(request: Request) -> GamesIndex:
    """The app's :class:`GamesIndex`, made on first use."""
    state = request.app.state
    index: GamesIndex | None = getattr(state, "explorer_index", None)
    if index is None:
        index = GamesIndex(games_of(request).store)
        state.explorer_index = index
    return index


@api
async def explorer(request: Request) -> Response:
    if len(request.url.query) > QUERY_LIMIT:
        raise ApiError(400, f"the query string is too long (at most {QUERY_LIMIT} "
                       "characters)")
    params = request.query_params
    name = params.get("variant", "international")
    if len(name) > 40:
        raise ApiError(400, "variant is too long (at most 40 characters)", field="variant")
    try:
        variant = get_variant(name)
    except ValueError as err:
        raise ApiError(400, str(err), field="variant") from None
    fen = params.get("fen", "").strip()
    if len(fen) > FEN_LIMIT:
        raise ApiError(400, f"fen is too long (at most {FEN_LIMIT} characters)", field="fen")
    try:
        board = Board(fen or None, variant=variant)
    except ValueError as err:
        raise ApiError(400, f"invalid FEN: {err}", field="fen") from None
    index = index_of(request)
    if index.async_lock is None:
        index.async_lock = asyncio.Lock()
    async with index.async_lock:
        answer = await asyncio.to_thread(index.lookup, variant, board)
    return ok(answer)
