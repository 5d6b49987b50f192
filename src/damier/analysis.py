"""Game analysis: a game searched move by move, its mistakes judged and marked.

One place for what a mistake is: the web app's game reports (:mod:`damier.web.report`)
and ``damier analyse`` (annotated PDN) both judge moves here.

Every position of a game's main line is searched by damier's engine with the
same limits (a depth and a time per position). For each move the analysis keeps
the score before and after it from the mover's point of view, the engine's best
move and line, the loss (how much the move gave away) and a judgement:

=============  ======  =====  ================================
judgement      mark    NAG    loss (centi-men, 100 = one man)
=============  ======  =====  ================================
inaccuracy     ``?!``  ``$6`` at least ``INACCURACY`` (30)
mistake        ``?``   ``$2`` at least ``MISTAKE`` (80)
blunder        ``??``  ``$4`` at least ``BLUNDER`` (200)
=============  ======  =====  ================================

The loss is ``capped(before) - capped(after)`` where scores are clamped to
``±SCORE_CAP`` (5 men) and a forced win or loss counts as ``±SCORE_CAP``: beyond
five men the game is decided, so giving back material while still that far
ahead is no mistake, while throwing away a forced win (or walking into a forced
loss) from a balanced position is a blunder. A move is never blamed when it is
the engine's own choice, the only legal move, or when it keeps a forced win
(a slower win is still a win). Where the engine's endgame databases hold a
position (and no running move count draws it first), their exact value is the
position's score.

Annotated PDN
-------------
:func:`annotate_game` writes the analysis into a :class:`damier.pdn.Game`: each move
of the main line that is judged gets its judgement's NAG (in place of any ``$2``,
``$4`` or ``$6`` it had; other NAGs stay) and every move of the main line gets, at the
end of its comment (after any comment it already had, and ``"; "``), the annotation::

    {SCORE; best MOVE BEST_SCORE[; loss N][; database: ...]}

``SCORE`` is the score of the position after the move and ``BEST_SCORE`` that of
the position before it, which the engine's ``MOVE`` keeps; both from White's point
of view, whoever moved, in men (``+0.35``, ``-1.20``) or as a forced result in plies
(``win in 7``: White wins, ``loss in 7``: White loses), the web's ``score_text``.
``loss N``: the centi-men the move gave away, when more than 0; ``database: ...``:
the endgame databases' value of the position after the move, when they hold it
(``database: White wins in 13 plies``, ``database: draw``). :data:`ANNOTATION`
matches one and :func:`parse_annotation` reads it back; annotating a game again
replaces the annotations it has (and the marks that went with them).

>>> from damier.engine import Engine
>>> report = analyse_game("W:W28,33:B23", "international", ["28x19"], Engine(hash_mb=1),
...                       depth=4)
>>> [(p["move"], p["forced"], p["loss"], p["judgement"]) for p in report["plies"]]
[('28x19', True, 0, None)]
>>> report["positions"][-1]["score_text"], report["summary"]["white"]["average_loss"]
('win in 0', 0.0)
>>> judge(250), judge(90), judge(30), judge(29)
(('blunder', '??'), ('mistake', '?'), ('inaccuracy', '?!'), (None, None))
>>> annotation(report["plies"][0], report["positions"][1])
'win in 0; best 28x19 win in 1'
>>> parse_annotation("a sharp move -1.45; best 32-28 +0.20; loss 165")
{'score': '-1.45', 'best': '32-28', 'best_score': '+0.20', 'loss': 165, 'database': None}
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from damier._core import MATE_SCORE, MATE_THRESHOLD
from damier.board import Board
from damier.engine import Engine, format_score
from damier.notation import move_text
from damier.piece import WHITE

if TYPE_CHECKING:
    from damier.pdn import Game

__all__ = ["analyse_game", "judge", "move_loss", "capped", "summarise", "ReportCancelled",
           "INACCURACY", "MISTAKE", "BLUNDER", "SCORE_CAP", "THRESHOLDS", "MARK_NAGS",
           "pv_texts", "white_score", "annotation", "ANNOTATION", "parse_annotation",
           "annotate_game", "mainline_texts", "graphs_unavailable", "plot_report",
           "GRAPHS_HINT"]

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
MARK_NAGS = {"?!": 6, "?": 2, "??": 4}
"""The NAG of each mark (PDN ``$6``, ``$2``, ``$4``, as :mod:`damier.pdn` reads the marks)."""
GRAPHS_HINT = "pip install 'damier[graphs]'"
"""How to get matplotlib, which :func:`plot_report` needs."""

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


def summarise(plies: Iterable[dict[str, Any]], name: str) -> dict[str, Any]:
    """The summary of one player's moves ``plies`` (entries of a report's ``plies``,
    from one game or several): ``moves``, ``inaccuracies``, ``mistakes``,
    ``blunders`` and ``average_loss`` (centi-men a move, to 0.1).

    >>> s = summarise([{"loss": 0, "judgement": None},
    ...                {"loss": 35, "judgement": "inaccuracy"}], "Ann")
    >>> s["name"], s["moves"], s["inaccuracies"], s["mistakes"], s["average_loss"]
    ('Ann', 2, 1, 0, 17.5)
    """
    own = list(plies)
    counts = {j: sum(1 for p in own if p["judgement"] == j)
              for j in ("inaccuracy", "mistake", "blunder")}
    average = round(sum(p["loss"] for p in own) / len(own), 1) if own else 0.0
    return {"name": name, "moves": len(own), "inaccuracies": counts["inaccuracy"],
            "mistakes": counts["mistake"], "blunders": counts["blunder"],
            "average_loss": average}


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
    return summarise((p for p in plies if p["color"] == color), name)


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


# -- annotated PDN ------------------------------------------------------------------------

_SCORE = r"[+-]\d+\.\d\d|win in \d+|loss in \d+"
ANNOTATION = re.compile(
    rf"(?:^|(?<=\s))(?P<score>{_SCORE}); best (?P<best>\S+) (?P<best_score>{_SCORE})"
    r"(?:; loss (?P<loss>\d+))?(?:; (?P<database>database: [^;{}]*?))?\s*\Z")
"""An annotation of :func:`annotation` at the end of a comment (see the module's text)."""


def annotation(ply: dict[str, Any], after: dict[str, Any]) -> str:
    """The annotation of a move (see the module's text): ``ply`` is its entry of a
    report's ``plies``, ``after`` the entry of the position after it in ``positions``."""
    parts = [after["score_text"]]
    if ply["best_move"] is not None:
        parts[0] += f"; best {ply['best_move']} {ply['text_before']}"
    if ply["loss"] > 0:
        parts.append(f"loss {ply['loss']}")
    if after.get("database"):
        parts.append(after["database"])
    return "; ".join(parts)


def parse_annotation(comment: str) -> dict[str, Any] | None:
    """The annotation at the end of ``comment`` as a dict (``score``, ``best``,
    ``best_score``, ``loss`` in centi-men, 0 when not written, and ``database`` or
    None), or None when the comment ends with none."""
    match = ANNOTATION.search(comment)
    if match is None:
        return None
    return {"score": match["score"], "best": match["best"], "best_score": match["best_score"],
            "loss": int(match["loss"]) if match["loss"] else 0, "database": match["database"]}


def mainline_texts(game: "Game") -> list[str]:
    """The moves of ``game``'s main line, each in the notation that names it among the
    legal moves of its position (what :func:`analyse_game` takes)."""
    board = game.board()
    texts = []
    for move in game.mainline_moves():
        texts.append(move_text(move, board.legal_moves))
        board.push(move)
    return texts


def annotate_game(game: "Game", plies: Sequence[dict[str, Any]],
                  positions: Sequence[dict[str, Any]]) -> int:
    """Writes the analysis of ``game``'s main line (a report's ``plies`` and
    ``positions``, or their first entries: a partial analysis annotates the moves it
    reached) into the game: NAGs and comments, as the module's text says. Returns the
    number of moves annotated."""
    count = 0
    for node, ply in zip(game.mainline(), plies, strict=False):
        k = ply["ply"]
        if k >= len(positions):
            break
        text = annotation(ply, positions[k])
        old = node.comment
        match = ANNOTATION.search(old)
        if match is not None:   # an earlier analysis: its annotation and its mark go
            old = old[:match.start()]
            old = old[:-2] if old.endswith("; ") else old
            old_mark = judge(int(match["loss"] or 0))[1]
            if old_mark is not None:
                node.nags.discard(MARK_NAGS[old_mark])
        old = old.rstrip()
        node.comment = f"{old}; {text}" if old else text
        if ply["mark"] is not None:
            node.nags.difference_update(MARK_NAGS.values())
            node.nags.add(MARK_NAGS[ply["mark"]])
        count += 1
    return count


# -- evaluation graphs --------------------------------------------------------------------

_MARK_COLOURS = {"inaccuracy": "#e0b000", "mistake": "#e07000", "blunder": "#d01010"}


def graphs_unavailable() -> str | None:
    """Why :func:`plot_report` cannot draw (matplotlib missing), or None when it can."""
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError as exc:
        return f"evaluation graphs need matplotlib, which is not available ({exc}): {GRAPHS_HINT}"
    return None


def plot_report(plies: Sequence[dict[str, Any]], positions: Sequence[dict[str, Any]],
                path: str | Path, *, title: str = "", first_ply: int = 0) -> None:
    """Draws the evaluation graph of an analysis as a PNG file at ``path``: White's
    score (in men, clamped to ±5; a forced result at ±5) after each move, against the
    move number, with the judged moves marked. ``first_ply``: 1 when the game starts
    with the second player to move. Needs matplotlib (:data:`GRAPHS_HINT`: an
    :class:`ImportError` without it); a file that cannot be written raises
    :class:`OSError`.
    """
    try:
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.ticker import MaxNLocator
    except ImportError as exc:
        raise ImportError(f"evaluation graphs need matplotlib: {GRAPHS_HINT}") from exc
    cap = SCORE_CAP / 100
    xs = [(p["ply"] + first_ply) / 2 for p in positions]
    ys = [capped(p["white_score"]) / 100 for p in positions]
    fig = Figure(figsize=(9, 3.6), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    ax.axhline(0, color="#888888", linewidth=0.8)
    if len(xs) > 1:
        # White's advantage light, Black's dark (the colours of the pieces)
        ax.fill_between(xs, ys, 0, where=[y >= 0 for y in ys], interpolate=True,
                        color="#c8c8c8", alpha=0.5, linewidth=0)
        ax.fill_between(xs, ys, 0, where=[y <= 0 for y in ys], interpolate=True,
                        color="#303030", alpha=0.35, linewidth=0)
    ax.plot(xs, ys, color="#1f4e99", linewidth=1.5, marker="." if len(xs) < 60 else None)
    handles = [Line2D([], [], color="#1f4e99", linewidth=1.5, label="evaluation")]
    for name, colour in _MARK_COLOURS.items():
        judged = [p for p in plies if p["judgement"] == name and p["ply"] < len(positions)]
        if not judged:
            continue
        ax.scatter([xs[p["ply"]] for p in judged], [ys[p["ply"]] for p in judged],
                   color=colour, edgecolors="black", linewidths=0.5, s=40, zorder=3)
        mark = judged[0]["mark"]
        handles.append(Line2D([], [], linestyle="", marker="o", color=colour,
                              markeredgecolor="black", markeredgewidth=0.5,
                              label=f"{name} {mark} ({len(judged)})"))
    ax.set_ylim(-cap - 0.3, cap + 0.3)
    ax.set_xlim(math.floor(xs[0]), max(math.ceil(xs[-1]), math.floor(xs[0]) + 2))
    ax.set_yticks([-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    ax.set_xlabel("move number")
    ax.set_ylabel("evaluation, White's view (men)")
    ax.grid(True, color="#e4e4e4", linewidth=0.6)
    ax.legend(handles=handles, loc="best", fontsize="small", framealpha=0.9)
    ax.annotate("above 0: White is better; beyond 5 men and forced results at ±5",
                xy=(1, 0), xycoords="axes fraction", xytext=(0, -30),
                textcoords="offset points", ha="right", va="top", fontsize="x-small",
                color="#666666")
    if title:
        ax.set_title(title, fontsize="medium")
    fig.savefig(path, format="png")
