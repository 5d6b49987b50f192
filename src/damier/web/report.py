"""Game reports: a finished game analysed move by move, its mistakes marked.

Every position of the game's main line is searched by damier's engine with the
same limits (a depth and a time per position). For each move the report keeps
the score before and after it from the mover's point of view, the engine's best
move and line, the loss (how much the move gave away) and a judgement:

=============  ======  ================================
judgement      mark    loss (centi-men, 100 = one man)
=============  ======  ================================
inaccuracy     ``?!``  at least ``INACCURACY`` (30)
mistake        ``?``   at least ``MISTAKE`` (80)
blunder        ``??``  at least ``BLUNDER`` (200)
=============  ======  ================================

The loss is ``capped(before) - capped(after)`` where scores are clamped to
``±SCORE_CAP`` (5 men) and a forced win or loss counts as ``±SCORE_CAP``: beyond
five men the game is decided, so giving back material while still that far
ahead is no mistake, while throwing away a forced win (or walking into a forced
loss) from a balanced position is a blunder. A move is never blamed when it is
the engine's own choice, the only legal move, or when it keeps a forced win
(a slower win is still a win).

The module has no web framework in it: :func:`analyse_game` runs in a worker
thread of the web app and reports its progress through a callback.

>>> from damier.engine import Engine
>>> report = analyse_game("W:W28,33:B23", "international", ["28x19"], Engine(hash_mb=1),
...                       depth=4)
>>> [(p["move"], p["forced"], p["loss"], p["judgement"]) for p in report["plies"]]
[('28x19', True, 0, None)]
>>> report["positions"][-1]["score_text"], report["summary"]["white"]["average_loss"]
('win in 0', 0.0)
>>> judge(250), judge(90), judge(30), judge(29)
(('blunder', '??'), ('mistake', '?'), ('inaccuracy', '?!'), (None, None))
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from damier._core import MATE_SCORE, MATE_THRESHOLD
from damier.board import Board
from damier.engine import Engine, format_score
from damier.notation import move_text
from damier.piece import WHITE

__all__ = ["analyse_game", "judge", "move_loss", "capped", "ReportCancelled", "INACCURACY",
           "MISTAKE", "BLUNDER", "SCORE_CAP", "THRESHOLDS", "pv_texts", "white_score"]

INACCURACY = 30
"""Centi-men lost by an inaccuracy (``?!``) at least."""
MISTAKE = 80
"""Centi-men lost by a mistake (``?``) at least."""
BLUNDER = 200
"""Centi-men lost by a blunder (``??``) at least: two men."""
SCORE_CAP = 500
"""Scores are clamped to ±5 men for the losses; a forced win or loss counts as ±5 men."""
THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER,
              "cap": SCORE_CAP}
PV_LENGTH = 10
"""Moves of each engine line kept in a report."""

_JUDGEMENTS = (("blunder", BLUNDER, "??"), ("mistake", MISTAKE, "?"),
               ("inaccuracy", INACCURACY, "?!"))


class ReportCancelled(Exception):
    """The analysis was stopped before the end."""


def white_score(score: int, turn: bool) -> int:
    """A score of the side to move (``turn``) from White's point of view."""
    return score if turn == WHITE else -score


def pv_texts(board: Board, pv: list[Any]) -> list[str]:
    """The moves of a principal variation in notation (stops at the first bad move)."""
    board = board.copy(stack=False)
    out = []
    for move in pv:
        legal = board.legal_moves
        if move not in legal:
            break
        out.append(move_text(move, legal))
        board.push(move)
    return out


def capped(score: int) -> int:
    """``score`` clamped to ``±SCORE_CAP``; a forced win or loss is ``±SCORE_CAP``.

    >>> capped(120), capped(900), capped(MATE_SCORE - 3), capped(-MATE_SCORE + 8)
    (120, 500, 500, -500)
    """
    if score > MATE_THRESHOLD:
        return SCORE_CAP
    if score < -MATE_THRESHOLD:
        return -SCORE_CAP
    return max(-SCORE_CAP, min(SCORE_CAP, score))


def move_loss(before: int, after: int, *, best: bool = False, forced: bool = False) -> int:
    """How much a move gave away, in centi-men (never negative).

    ``before``: the best score of the position the move was played in, ``after``:
    the score after it, both from the mover's point of view. ``best``: the move is
    the engine's choice; ``forced``: the only legal move.

    >>> move_loss(20, -190), move_loss(MATE_SCORE - 5, 150), move_loss(700, 520)
    (210, 350, 0)
    >>> move_loss(MATE_SCORE - 5, MATE_SCORE - 9), move_loss(-MATE_SCORE + 9, -MATE_SCORE + 2)
    (0, 0)
    >>> move_loss(40, -300, best=True), move_loss(40, -300, forced=True)
    (0, 0)
    """
    if best or forced or after > MATE_THRESHOLD:
        return 0
    return max(0, capped(before) - capped(after))


def judge(loss: int) -> tuple[str | None, str | None]:
    """The judgement and mark of a move that lost ``loss`` centi-men."""
    for name, threshold, mark in _JUDGEMENTS:
        if loss >= threshold:
            return name, mark
    return None, None


def _move_json(move: Any, legal: list[Any]) -> dict[str, Any]:
    return {"text": move_text(move, legal), "from": move.from_square, "to": move.to_square,
            "path": list(move.path), "captures": list(move.captures)}


def _evaluate(board: Board, engine: Engine, depth: int | None,
              movetime: float | None) -> dict[str, Any]:
    """The engine's view of one position (side to move's point of view)."""
    legal = board.legal_moves
    outcome = board.outcome()
    turn = board.turn
    entry: dict[str, Any] = {"ply": len(board.move_stack), "fen": board.fen(),
                             "turn": "white" if turn == WHITE else "black"}
    if outcome is not None or not legal:
        if outcome is None:  # no legal move: the side to move has lost
            score = -MATE_SCORE
        elif outcome.winner is None:
            score = 0
        else:
            score = MATE_SCORE if outcome.winner == turn else -MATE_SCORE
        entry.update(score=score, depth=0, best=None, pv=[], terminal=True,
                     outcome=None if outcome is None else outcome.termination.value)
    else:
        # A fresh transposition table for every position: the report depends only on
        # the game and the limits, not on what was searched before.
        engine.new_game()
        result = engine.search_lines(board, 1, depth=depth, movetime=movetime)[0]
        best = result.best_move
        entry.update(score=result.score, depth=result.depth,
                     best=_move_json(best, legal) if best is not None else None,
                     pv=pv_texts(board, result.pv)[:PV_LENGTH], terminal=False)
        # The endgame databases' value where they hold the position and no running
        # count draws it first: exact, where the search's may not be.
        verdict = engine.egdb_verdict(board)
        if verdict is not None:
            entry["database"] = verdict.text()
            if verdict.score is not None:
                entry["score"] = verdict.score
    ws = white_score(entry["score"], turn)
    entry.update(white_score=ws, score_text=format_score(ws))
    return entry


def _judged_move(ply: int, text: str, forced: bool, before: dict[str, Any],
                 after: dict[str, Any]) -> dict[str, Any]:
    """The entry of move ``ply`` (1-based) from the evaluations around it."""
    score_before = before["score"]
    score_after = -after["score"]
    best = before["best"]
    played_best = best is not None and best["text"] == text
    loss = move_loss(score_before, score_after, best=played_best, forced=forced)
    judgement, mark = judge(loss)
    return {"ply": ply, "move": text, "color": before["turn"],
            "score_before": score_before, "score_after": score_after,
            "white_score_before": before["white_score"], "white_score_after": after["white_score"],
            "text_before": before["score_text"], "text_after": after["score_text"],
            "best": best, "best_move": best["text"] if best else None, "best_pv": before["pv"],
            "played_best": played_best, "forced": forced, "loss": loss,
            "judgement": judgement, "mark": mark}


def _summary(plies: list[dict[str, Any]], color: str, name: str) -> dict[str, Any]:
    own = [p for p in plies if p["color"] == color]
    counts = {j: sum(1 for p in own if p["judgement"] == j)
              for j in ("inaccuracy", "mistake", "blunder")}
    average = round(sum(p["loss"] for p in own) / len(own), 1) if own else 0.0
    return {"name": name, "moves": len(own), "inaccuracies": counts["inaccuracy"],
            "mistakes": counts["mistake"], "blunders": counts["blunder"],
            "average_loss": average}


def analyse_game(start_fen: str, variant: str, moves: list[str], engine: Engine, *,
                 depth: int | None = None, movetime: float | None = None,
                 white: str = "White", black: str = "Black",
                 progress: Callable[[int, int, dict[str, Any], dict[str, Any] | None], Any]
                 | None = None,
                 stop: threading.Event | None = None) -> dict[str, Any]:
    """The report of the game ``moves`` played from ``start_fen``.

    Each of the ``len(moves) + 1`` positions is searched with the same ``depth``
    and ``movetime`` (seconds). ``progress(k, n, position, move)`` is called after
    position ``k`` of the ``n`` plies (``move`` is the entry of move ``k``, None
    for ``k = 0``); setting ``stop`` stops the analysis (:class:`ReportCancelled`).
    """
    started = time.monotonic()
    board = Board(start_fen, variant=variant)
    n = len(moves)
    positions: list[dict[str, Any]] = []
    plies: list[dict[str, Any]] = []

    def check() -> None:
        if stop is not None and stop.is_set():
            raise ReportCancelled()

    check()
    positions.append(_evaluate(board, engine, depth, movetime))
    if progress is not None:
        progress(0, n, positions[0], None)
    for k, text in enumerate(moves, start=1):
        check()
        legal = board.legal_moves
        move = board.parse_move(text)
        played = move_text(move, legal)
        board.push(move)
        positions.append(_evaluate(board, engine, depth, movetime))
        check()
        entry = _judged_move(k, played, len(legal) == 1, positions[-2], positions[-1])
        plies.append(entry)
        if progress is not None:
            progress(k, n, positions[-1], entry)
    return {
        "status": "done",
        "start_fen": start_fen,
        "variant": variant,
        "moves": list(moves),
        "depth": depth,
        "movetime": movetime,
        "thresholds": dict(THRESHOLDS),
        "positions": positions,
        "plies": plies,
        "summary": {"white": _summary(plies, "white", white),
                    "black": _summary(plies, "black", black)},
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "elapsed": round(time.monotonic() - started, 3),
    }
