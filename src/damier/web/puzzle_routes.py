"""The puzzle routes of ``damier serve``: the next puzzle near a rating, a puzzle, a
move judged (by the puzzle's line, or the prover off it, in a worker thread), a hint.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

from damier.puzzles import Puzzle, check_move, load_puzzles
from damier.variants import VARIANTS, get_variant
from damier.web.session import (ApiError)
from damier.web.context import api, games_of, ok
from damier.web.parsing import ascii_int, get_str, read_json

from starlette.requests import Request
from starlette.responses import Response

log = logging.getLogger("damier.web")

PUZZLE_NODES = 300_000
"""The prover's node budget for judging a move off a puzzle's line."""


_puzzle_cache: dict[str, list[Puzzle]] = {}


def puzzles_of(variant_name: str) -> list[Puzzle]:
    try:
        v = get_variant(variant_name)
    except ValueError as err:
        raise ApiError(400, str(err), field="variant") from None
    if v.name not in _puzzle_cache:
        _puzzle_cache[v.name] = load_puzzles(v)
    return _puzzle_cache[v.name]


def find_puzzle(request: Request) -> Puzzle:
    pid = str(request.path_params["puzzle_id"])
    for name in VARIANTS:
        for puzzle in puzzles_of(name):
            if puzzle.id == pid:
                return puzzle
    raise ApiError(404, "no puzzle with that id")


def puzzle_info(puzzle: Puzzle) -> dict[str, Any]:
    return {"id": puzzle.id, "variant": puzzle.variant, "fen": puzzle.fen,
            "rating": puzzle.rating, "solver": puzzle.solver,
            "solver_moves": puzzle.solver_moves,
            "gain": puzzle.gain}


def played_moves(data: dict[str, Any]) -> list[str]:
    played = data.get("played", [])
    if (not isinstance(played, list) or len(played) > 60
            or any(not isinstance(m, str) or len(m) > 60 for m in played)):
        raise ApiError(400, "played must be a list of the moves made so far", field="played")
    return played


@api
async def next_puzzle(request: Request) -> Response:
    params = request.query_params
    puzzles = puzzles_of(params.get("variant", "international")[:40])
    if not puzzles:
        raise ApiError(404, "no puzzles are shipped for this variant", kind="no_puzzles")
    try:
        rating = ascii_int(params.get("rating", "1200"), max_digits=6)
    except ValueError:
        raise ApiError(400, "rating must be a whole number", field="rating") from None
    skip = set(params.get("seen", "")[:4000].split(","))
    near = [p for p in puzzles if abs(p.rating - rating) <= 150 and p.id not in skip]
    if not near:
        near = sorted((p for p in puzzles if p.id not in skip) or puzzles,
                      key=lambda p: abs(p.rating - rating))[:10]
    return ok(puzzle_info(random.choice(near)))


@api
async def get_puzzle(request: Request) -> Response:
    return ok(puzzle_info(find_puzzle(request)))


@api
async def puzzle_move(request: Request) -> Response:
    live_games = games_of(request)
    puzzle = find_puzzle(request)
    data = await read_json(request, ("played", "move"))
    played = played_moves(data)
    move = get_str(data, "move", None, max_len=60)
    if not move:
        raise ApiError(400, "move is required", field="move")
    if len(played) % 2:
        raise ApiError(400, "played must end with the opponent's reply", field="played")

    def judge() -> Any:
        return check_move(puzzle, played, move, max_nodes=PUZZLE_NODES)

    try:
        step = await asyncio.get_running_loop().run_in_executor(live_games.executor, judge)
    except ValueError as err:
        raise ApiError(400, str(err)) from None
    board = puzzle.board()
    for text in played:
        board.push(text)
    board.push(move)
    after = board.fen()
    if step.reply is not None:
        board.push(step.reply)
    return ok({"ok": step.ok, "solved": step.solved, "reply": step.reply,
               "fen_after_move": after, "fen": board.fen(),
               "solution": list(puzzle.solution) if not step.ok else None})


@api
async def puzzle_hint(request: Request) -> Response:
    puzzle = find_puzzle(request)
    data = await read_json(request, ("played", "reveal"))
    played = played_moves(data)
    if len(played) >= len(puzzle.solution) or list(puzzle.solution[:len(played)]) != played:
        raise ApiError(409, "the hint follows the puzzle's line: play on from its solution",
                       kind="off_line")
    text = puzzle.solution[len(played)]
    board = puzzle.board()
    for m in played:
        board.push(m)
    move = board.parse_move(text)
    if data.get("reveal") is True:
        return ok({"from": move.from_square, "move": text})
    return ok({"from": move.from_square})
