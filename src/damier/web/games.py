"""The game routes of ``damier serve``: list, create, join, read, delete; moves, undo,
redo, a new line, resignation, draws, the engine's move; PDN export and import; game
reports; a FEN check. Each is a module-level handler (see :mod:`damier.web.context`);
:data:`damier.web.app.ROUTES` maps them to their paths.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import math
import time

from damier.board import Board
from damier.errors import InvalidFenError
from damier.game import parse_time_control
from damier.piece import BLACK, WHITE
from damier.variants import get_variant
from damier.web.access import (Viewer, require_owner, require_player,
                               require_seat)
from damier.web.session import (HUMAN_CHOICES, MAX_PLIES, ApiError, GameSession, all_variants,
                                capture_explanation, color_name, import_pdn, move_info,
                                variant_info)
from damier.web.context import (allow, api, client_of, game_id, games_of, local, name_of,
                                no_takebacks, ok, player, viewer, with_viewer)
from damier.web.live import (CHAT_LENGTH, REPORT_MAX_DEPTH, REPORT_MAX_MOVETIME,
                             REPORT_MIN_MOVETIME, LiveGame)
from damier.web.storage import GameDeletedError, StorageError
from damier.web.parsing import (IMPORT_LIMIT, JSON_LIMIT, MOVE_TEXT_LIMIT, ascii_int, get_int,
                                get_seconds, get_str, move_spec, read_body, read_json)

from starlette.requests import Request
from starlette.responses import Response

log = logging.getLogger("damier.web")

MAX_OFFSET = 10**9
"""The largest ``offset`` of the list of games."""
IMPORT_SECONDS = 20.0
"""Seconds of work an import may take; the games read by then are kept."""


@api
async def variants(request: Request) -> Response:
    return ok({"variants": all_variants(), "levels": list(range(1, 11)),
               "colors": list(HUMAN_CHOICES), "limits": {"json": JSON_LIMIT,
                                                         "import": IMPORT_LIMIT}})


@api
async def list_games(request: Request) -> Response:
    live_games = games_of(request)
    params = request.query_params
    try:
        limit = ascii_int(params.get("limit", "50"))
        offset = ascii_int(params.get("offset", "0"))
    except ValueError:
        raise ApiError(400, "limit and offset must be integers") from None
    if not 1 <= limit <= 500 or not 0 <= offset <= MAX_OFFSET:
        raise ApiError(400, f"limit must be 1-500 and offset 0-{MAX_OFFSET}")
    who, unowned = player(request), local(request)
    records = live_games.store.list(limit=limit, offset=offset, player=who, unowned=unowned)
    return ok({"games": [r.summary() for r in records],
               "total": live_games.store.count(player=who, unowned=unowned),
               "limit": limit, "offset": offset})


@api
async def create_game(request: Request) -> Response:
    live_games = games_of(request)
    data = await read_json(request, ("variant", "color", "level", "fen", "white", "black",
                                     "clock", "opponent", "name"))
    color = get_str(data, "color", "white", choices=HUMAN_CHOICES)
    opponent = get_str(data, "opponent", "engine", choices=("engine", "friend"))
    name = name_of(request, data)
    clock_text = get_str(data, "clock", None, max_len=40)
    clock = None
    if clock_text:
        try:
            clock = parse_time_control(clock_text)
        except ValueError as err:
            raise ApiError(400, str(err), field="clock") from None
    if opponent == "friend" and color not in ("white", "black"):
        raise ApiError(400, "a game against a friend needs your colour: white or black",
                       field="color")
    live_games.check_new_game(client_of(request), local=local(request),
                              autoplay=opponent == "engine" and color == "none")
    # the names: the person's own (or, between two people, the colour's until the
    # friend comes and gives theirs); the engine's seat is named by its level
    names: dict[str, str | None] = {"white": None, "black": None}
    if opponent == "friend":
        names = {"white": "White", "black": "Black"}
    if color in ("white", "black") and (name or opponent == "friend"):
        names[color] = name or color.title()
    session = GameSession.create(
        live_games.store, variant=get_str(data, "variant", "international", max_len=40),
        human="both" if opponent == "friend" else color,
        level=get_int(data, "level", 5, lo=1, hi=10),
        fen=get_str(data, "fen", None, max_len=400) or None,
        white=get_str(data, "white", None, max_len=100) or names["white"],
        black=get_str(data, "black", None, max_len=100) or names["black"],
        owner=player(request), clock=clock)
    if opponent == "friend":
        session.invite_friend("black" if color == "white" else "white")
    live = live_games.add(session)
    state = live_games.changed(live)
    return ok(with_viewer(state, viewer(request, live), live), 201)


@api
async def join_game(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    data = await read_json(request, ("invite", "name"))
    token = get_str(data, "invite", None, max_len=100)
    if not token:
        raise ApiError(400, "invite is required: the secret of the invitation link",
                       field="invite")
    name = name_of(request, data)
    async with live.lock:
        color = live.session.join(player(request), token, name)
        state = live_games.changed(live, joined=color)
    return ok({"joined": color, "game": with_viewer(state, viewer(request, live), live)})


@api
async def get_game(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    live_games.maybe_start_engine(live)
    return ok(with_viewer(live.state(), viewer(request, live), live))


@api
async def delete_game(request: Request) -> Response:
    live_games = games_of(request)
    gid = game_id(request)
    live = live_games.get(gid)
    allow(request, live, require_owner, "delete it")
    async with live.lock:   # after a change under way, never in its middle
        live_games.forget(gid)
        live_games.store.delete(gid)
    return ok({"deleted": gid})


@api
async def play_move(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    data = await read_json(request, ("move", "from", "to", "path", "captures"))
    spec = move_spec(data)
    async with live.lock:
        turn = "white" if live.session.board.turn == WHITE else "black"
        v = allow(request, live, require_player, "move")
        if live.session.record.seat(turn) is not None:  # a person's seat: theirs only
            require_seat(live.session.record, v, turn, "move")
        elif live.session.two_players():
            raise ApiError(409, f"{turn} is your friend's seat: it is still open (send them "
                           "the game's invitation link)", kind="seat_open")
        # else the engine's turn: the session says so (409)
        if live.session.check_flag():
            live_games.changed(live)
            raise ApiError(409, "the game is over: time is up", kind="game_over")
        played = live.session.play(spec)   # a pending take-back request lapses with it
        live.session.start_clock()
        live.stop_engines()
        await live_games.warm_tree(live)
        state = live_games.changed(live, played=played.text)
    return ok({"played": played.text, "game": with_viewer(state, v, live)})


@api
async def undo(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    allow(request, live, require_player, "take moves back")
    no_takebacks(live, "take moves back")
    data = await read_json(request, ("count",))
    count = get_int(data, "count", None, lo=1, hi=10000)
    async with live.lock:
        live.stop_engines()
        # Taking back while the engine thinks: the engine's move is dropped.
        if live.engine_task is not None:
            live.engine_task.cancel()
            live.engine_task = None
        n = live.session.undo(count) if count is not None else live.session.undo_for_human()
        await live_games.warm_tree(live)
        state = live_games.changed(live) if n else live.state()
        if not n:
            live.broadcast({"type": "state", "game": state})
    return ok({"undone": n, "game": with_viewer(state, viewer(request, live), live)})


@api
async def redo(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    allow(request, live, require_player, "replay moves")
    no_takebacks(live, "replay moves")
    data = await read_json(request, ("count",))
    count = get_int(data, "count", 1, lo=1, hi=10000)
    async with live.lock:
        live.stop_engines()
        n = live.session.redo(count)
        await live_games.warm_tree(live)
        state = live_games.changed(live)
    return ok({"redone": n, "game": with_viewer(state, viewer(request, live), live)})


@api
async def set_line(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    allow(request, live, require_player, "change the moves")
    no_takebacks(live, "change the moves")
    data = await read_json(request, ("moves",), limit=IMPORT_LIMIT)
    moves = data.get("moves")
    if not isinstance(moves, list) or any(not isinstance(m, str) for m in moves):
        raise ApiError(400, "moves must be a list of move texts", field="moves")
    if len(moves) > MAX_PLIES:
        raise ApiError(400, f"too many moves: {len(moves)} (at most {MAX_PLIES})",
                       field="moves")
    long = next((i for i, m in enumerate(moves) if len(m) > MOVE_TEXT_LIMIT), None)
    if long is not None:
        raise ApiError(400, f"move {long + 1} is too long: {len(moves[long])} characters "
                       f"(at most {MOVE_TEXT_LIMIT})", field="moves", ply=long + 1)
    async with live.lock:
        live.stop_engines()
        if live.engine_task is not None:
            live.engine_task.cancel()
            live.engine_task = None
        live.session.set_line(moves)
        await live_games.warm_tree(live)
        state = live_games.changed(live)
    return ok({"game": with_viewer(state, viewer(request, live), live)})


@api
async def resign(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    data = await read_json(request, ("color",))
    human = live.session.record.human
    default = human if human in ("white", "black") else live.session.state()["turn"]
    color = get_str(data, "color", default, choices=("white", "black"))
    allow(request, live, require_seat, color or default, "resign")
    async with live.lock:
        live.stop_engines()
        live.session.resign(color)
        state = live_games.changed(live)
    return ok({"game": with_viewer(state, viewer(request, live), live)})


@api
async def offer_draw(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    allow(request, live, require_player, "offer a draw")
    await read_json(request, ())
    session = live.session
    async with live.lock:
        session.check_can_move(by_engine=True)
        if not session.board.can_offer_draw():
            raise ApiError(409, "a draw may not be offered yet: each player must first "
                           f"make {session.board.rules.draw_offer_min_moves} moves")
        if session.two_players():
            mine = sorted(viewer(request, live).seats)
            if not mine:
                raise ApiError(403, "only the players may offer a draw", kind="forbidden")
            offerer = WHITE if mine == ["white"] else BLACK
            accepted = session.offer_draw(color_name(offerer))
            reason = ("draw agreed" if accepted else
                      f"{color_name(offerer)} offers a draw: the opponent may accept it "
                      "(Offer draw) or play on (a move declines it)")
            state = live_games.changed(live, draw_offer={"accepted": accepted,
                                                         "reason": reason,
                                                         "by": color_name(offerer)})
            return ok({"accepted": accepted, "reason": reason,
                       "game": with_viewer(state, viewer(request, live), live)})
        if session.record.human in ("both", "none"):
            accepted, reason = True, "draw agreed"
        else:
            accepted, reason = await live_games.draw_offer(live)
        if accepted:
            live.stop_engines()
            session.agree_draw()
        state = live_games.changed(live, draw_offer={"accepted": accepted, "reason": reason})
    return ok({"accepted": accepted, "reason": reason,
               "game": with_viewer(state, viewer(request, live), live)})


@api
async def go(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    await read_json(request, ())
    session = live.session
    rec = session.record
    turn = color_name(session.board.turn)
    v = allow(request, live, require_player, "ask the engine to move")
    # only for the seat to move: an engine's seat (any player of the game may ask), or
    # a person's seat whose own player asks for a hint-move; never the opponent's
    if rec.seat(turn) is not None:
        require_seat(rec, v, turn, "ask the engine to move")
    elif session.two_players():
        raise ApiError(409, f"{turn} is your friend's seat: it is still open (send them "
                       "the game's invitation link)", kind="seat_open")
    session.check_can_move(by_engine=True)
    if not live_games.maybe_start_engine(live, force=True) and not live.thinking:
        raise ApiError(409, "the engine cannot move now")
    return ok({"game": with_viewer(live.state(), viewer(request, live), live)})


def _my_seat(v: Viewer, what: str) -> str:
    """The one seat of ``v`` in a game between two people (403 otherwise)."""
    if len(v.seats) != 1:
        raise ApiError(403, f"only the two players may {what}", kind="forbidden")
    return next(iter(v.seats))


def _other(color: str) -> str:
    return "black" if color == "white" else "white"


@api
async def rematch(request: Request) -> Response:
    """A rematch: the same variant, start position, level and clock, the colours
    swapped. Against the engine it starts at once; between two people the first
    player's call offers it and the opponent's call accepts it (``{"decline": true}``
    withdraws or declines the offer). The pages watching the old game hear
    ``{"type": "rematch", "game": id}``."""
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    data = await read_json(request, ("decline",))
    decline = data.get("decline", False)
    if not isinstance(decline, bool):
        raise ApiError(400, "decline must be true or false", field="decline")
    v = allow(request, live, require_player, "ask for a rematch")
    session = live.session
    rec = session.record
    async with live.lock:
        if live.rematch_game is not None:   # made already: the same one for both
            try:
                made = live_games.get(live.rematch_game)
            except ApiError:
                made = None                 # deleted since: another may be made
            if made is not None:
                if decline:
                    raise ApiError(409, "the rematch has started already",
                                   kind="rematch_started")
                return ok({"rematch": made.session.id,
                           "game": with_viewer(made.state(), viewer(request, made), made)})
        if rec.pdn is not None:
            raise ApiError(409, "an imported game has no rematch", kind="no_rematch")
        if not session.is_over():
            raise ApiError(409, "the game is not over yet: a rematch comes after it",
                           kind="not_over")
        if session.two_players():
            if rec.invite is not None:
                raise ApiError(409, "your friend never joined this game: there is nobody to "
                               "play a rematch with", kind="no_rematch")
            me = _my_seat(v, "ask for a rematch")
            if decline:
                session.set_rematch_offer(None)
                state = live_games.changed(live, rematch={"declined_by": me})
                return ok({"rematch": None, "game": with_viewer(state, v, live)})
            if live.rematch_offer != _other(me):
                session.set_rematch_offer(me)
                state = live_games.changed(live, rematch={"offered_by": me})
                return ok({"rematch": None, "offered": True,
                           "game": with_viewer(state, v, live)})
            seats: tuple[str | None, str | None] | None = (rec.black_player, rec.white_player)
            human = "both"
        else:
            if decline:
                raise ApiError(409, "there is no rematch offer to decline", kind="no_rematch")
            seats = None
            human = {"white": "black", "black": "white"}.get(rec.human, rec.human)
        live_games.check_new_game(client_of(request), local=local(request),
                                  autoplay=human == "none")
        clock = (None if rec.clock_initial is None else
                 (rec.clock_initial, rec.clock_increment or 0.0))
        new = GameSession.create(live_games.store, variant=rec.variant, human=human,
                                 level=rec.level, fen=rec.start_fen, white=rec.black,
                                 black=rec.white, owner=rec.owner or v.player, clock=clock,
                                 seats=seats)
        try:
            live_games.set_rematch(live, new.id)    # stored with the old game
        except ApiError:   # not stored (the old game changed or went): no rematch either
            try:
                live_games.store.delete(new.id)
            except StorageError as err:
                log.warning("rematch %s of game %s left stored: %s", new.id, rec.id, err)
            raise
        new_live = live_games.add(new)
        new_state = live_games.changed(new_live)
        live_games.changed(live)
        live.broadcast({"type": "rematch", "game": new.id})
    return ok({"rematch": new.id,
               "game": with_viewer(new_state, viewer(request, new_live), new_live)}, 201)


def _plies_back(live: LiveGame, color: str) -> int:
    """The plies to take back so that ``color``'s last move is unplayed (and the
    opponent's reply with it): 0 when ``color`` has not moved."""
    game = live.session.game
    plies = len(game.plies)
    back = 2 if color_name(game.board.turn) == color else 1
    return back if plies >= back else 0


@api
async def takeback(request: Request) -> Response:
    """Between two people: asks the opponent to take one's last move back, or answers
    the opponent's request (``{"answer": "accept"}`` or ``"decline"``). Accepted, the
    asker's last move (and the reply to it) is taken back; a move lets the request
    lapse; asking when the opponent asked too accepts."""
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    data = await read_json(request, ("answer",))
    answer = get_str(data, "answer", None, choices=("accept", "decline"))
    v = allow(request, live, require_player, "ask to take a move back")
    session = live.session
    if not session.two_players():
        raise ApiError(409, "take-back requests are for games between two people: use Undo",
                       kind="not_two_players")
    me = _my_seat(v, "ask to take a move back")
    async with live.lock:
        if session.is_over():
            raise ApiError(409, "the game is over: no move can be taken back",
                           kind="game_over")
        if answer is None and live.takeback_offer != _other(me):
            if not _plies_back(live, me):
                raise ApiError(409, "you have not moved yet: there is nothing to take back",
                               kind="nothing_to_take_back")
            session.set_takeback_offer(me)
            state = live_games.changed(live, takeback={"offered_by": me})
            return ok({"taken_back": 0, "offered": True, "game": with_viewer(state, v, live)})
        if live.takeback_offer != _other(me):
            raise ApiError(409, "your opponent has not asked to take a move back",
                           kind="no_takeback_request")
        if answer == "decline":
            session.set_takeback_offer(None)
            state = live_games.changed(live, takeback={"declined_by": me})
            return ok({"taken_back": 0, "game": with_viewer(state, v, live)})
        live.stop_engines()
        back = _plies_back(live, _other(me))
        taken = session.undo(back) if back else 0   # the request goes in the same write
        if not taken:
            session.set_takeback_offer(None)
        await live_games.warm_tree(live)
        state = live_games.changed(live, takeback={"accepted_by": me, "plies": taken})
    return ok({"taken_back": taken, "game": with_viewer(state, v, live)})


@api
async def chat(request: Request) -> Response:
    """A chat message between the two players of a game (``{"text": ...}``): one line
    of at most :data:`~damier.web.live.CHAT_LENGTH` characters, no control characters;
    a few a minute (429 beyond). Only the players' pages get it (``{"type": "chat"}``
    over the WebSocket, and the game's ``chat`` list); spectators never do."""
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    data = await read_json(request, ("text",))
    raw = get_str(data, "text", None, max_len=4 * CHAT_LENGTH)
    v = allow(request, live, require_player, "chat")
    if not live.session.two_players():
        raise ApiError(409, "chat is for games between two people", kind="not_two_players")
    me = _my_seat(v, "chat")
    text = " ".join((raw or "").split())
    if not text:
        raise ApiError(400, "text is required: the message to send", field="text")
    if len(text) > CHAT_LENGTH:
        raise ApiError(400, f"the message is too long: {len(text)} characters (at most "
                       f"{CHAT_LENGTH})", field="text")
    if not text.isprintable():
        raise ApiError(400, "the message holds control characters", field="text")
    wait = live_games.chat_limit.take(v.player)
    if wait:
        seconds = math.ceil(wait)
        raise ApiError(429, f"too many messages: wait {seconds} second"
                       f"{'s' if seconds != 1 else ''}", kind="rate_limited",
                       retry_after=seconds)
    rec = live.session.record
    try:
        message = live.add_chat({
            "color": me, "name": rec.white if me == "white" else rec.black, "text": text,
            "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")})
    except GameDeletedError:
        raise ApiError(410, "the game was deleted", kind="deleted") from None
    live.broadcast({"type": "chat", "players_only": True, "message": message})
    return ok({"message": message}, 201)


@api
async def get_tree(request: Request) -> Response:
    """The imported game's tree of variations (the state leaves a large one out)."""
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    if live.session.record.pdn is None:
        raise ApiError(404, "this game has no tree of variations (it was not imported)",
                       kind="no_tree")
    try:   # built and encoded in a worker thread (once per move list)
        _, body = await asyncio.get_running_loop().run_in_executor(live_games.executor,
                                                                   live.tree_json)
    except Exception:  # the moves changed meanwhile: build it here
        _, body = live.tree_json()
    return Response(body, media_type="application/json")


@api
async def export_pdn(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    text = live.session.pdn_text()
    disposition = "attachment" if request.query_params.get("inline") is None else "inline"
    return Response(text, media_type="application/x-draughts-pdn; charset=utf-8", headers={
        "Content-Disposition": f'{disposition}; filename="{live.session.filename()}"'})


@api
async def start_report(request: Request) -> Response:
    live_games = games_of(request)
    live = live_games.get(game_id(request))
    allow(request, live, require_player, "start an analysis of the game")
    data = await read_json(request, ("depth", "movetime"))
    depth = get_int(data, "depth", None, lo=1, hi=REPORT_MAX_DEPTH)
    movetime = get_seconds(data, "movetime", lo=REPORT_MIN_MOVETIME, hi=REPORT_MAX_MOVETIME)
    return ok(live_games.start_report(live, depth=depth, movetime=movetime), 202)


@api
async def get_report(request: Request) -> Response:
    live_games = games_of(request)
    gid = game_id(request)
    live = live_games.get(gid)
    if live.reporting:   # how far it got, and the evaluations so far
        return ok({"status": "running", "game_id": gid, **live.report_progress,
                   "partial": live.report_partial})
    report = await asyncio.get_running_loop().run_in_executor(
        live_games.executor, lambda: live_games.store.get_report(gid))
    if report is None:
        raise ApiError(404, "this game has not been analysed yet "
                       f"(POST /api/games/{gid}/analysis starts it)", kind="no_analysis")
    rec = live.session.record
    report["stale"] = report["moves"] != rec.moves or report["start_fen"] != rec.start_fen
    return ok(report)


@api
async def delete_report(request: Request) -> Response:
    live_games = games_of(request)
    gid = game_id(request)
    live = live_games.get(gid)
    allow(request, live, require_player, "stop or delete the analysis of the game")
    stopped = live.reporting
    live.stop_report()
    deleted = live_games.store.delete_report(gid)
    live.forget_report_info()
    if deleted and not stopped:
        live.broadcast({"type": "state", "game": live.state()})
    return ok({"stopped": stopped, "deleted": deleted})


@api
async def import_games(request: Request) -> Response:
    live_games = games_of(request)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "application/json":
        data = await read_json(request, ("pdn",), limit=IMPORT_LIMIT + 1024)
        text = get_str(data, "pdn", None, max_len=IMPORT_LIMIT)
        if text is None:
            raise ApiError(400, 'give the PDN text as {"pdn": "..."} or upload the file')
    else:
        body = await read_body(request, IMPORT_LIMIT)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            text = body.decode("latin-1")
    if not text.strip():
        raise ApiError(400, "the PDN is empty")
    live_games.check_new_game(client_of(request), local=local(request))
    deadline = time.monotonic() + IMPORT_SECONDS
    sessions, errors = await asyncio.get_running_loop().run_in_executor(
        live_games.executor, lambda: import_pdn(live_games.store, text, owner=player(request),
                                         deadline=deadline))
    if not sessions:
        raise ApiError(400, "no game could be read from the PDN"
                       + (f": {errors[0]}" if errors else ""), errors=errors[:20])
    for session in sessions:
        live_games.add(session)
    return ok({"games": [s.record.summary() for s in sessions], "errors": errors[:20],
               "first": sessions[0].id}, 201)


@api
async def check_position(request: Request) -> Response:
    data = await read_json(request, ("variant", "fen"))
    try:
        variant = get_variant(get_str(data, "variant", "international", max_len=40))
    except ValueError as err:
        raise ApiError(400, str(err), field="variant") from None
    fen = get_str(data, "fen", None, max_len=400)
    if not fen:
        raise ApiError(400, "fen is required", field="fen")
    try:
        board = Board(fen, variant=variant)
    except InvalidFenError as err:
        raise ApiError(400, f"invalid FEN: {err}", field="fen") from None
    legal = board.legal_moves
    outcome = board.outcome()
    return ok({"fen": board.fen(), "compact_fen": board.fen(compact=True),
               "variant": variant_info(variant), "turn": "white" if board.turn else "black",
               "legal_moves": [move_info(m, legal) for m in legal],
               "compulsory_capture": capture_explanation(board),
               "over": outcome is not None,
               "outcome": None if outcome is None else outcome.termination.describe(board.rules)})
