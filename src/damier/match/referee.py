"""One game of a match, refereed: the two players move in turn from the opening,
each reply is checked (an illegal move, no move, a crash or a flagged clock loses),
the game ends with :meth:`damier.Board.outcome`, is adjudicated on the engines' scores
(:mod:`damier.match.adjudication`, when the match asks for it) or a draw after
``max_plies`` plies, and what is kept of it is a :class:`~damier.match.results.MatchGame`.

>>> from damier.match.players import make_player
>>> from damier.variants import get_variant
>>> referee = _Referee(variant=get_variant("international"), movetime=None, clock=None,
...                    max_plies=6, event="test", stop_event=threading.Event())
>>> a, b = make_player("damier:depth=1,hash=1"), make_player("damier:depth=1,hash=1")
>>> record, failed = referee.play(_GameTask(1, 1, 1, ("32-28",), True), a, b)
>>> record.result, record.termination, record.plies, record.round, failed
('1/2-1/2', 'adjudication', 6, '1.1', set())
>>> len(record.evals), record.evals[0].depth    # the five moves after the opening
(5, 1)
"""

from __future__ import annotations

import datetime
import platform
import threading
import time
from dataclasses import dataclass
from typing import Any

from damier._core import Move
from damier.board import Board
from damier.engine import Clock
from damier.match.adjudication import Adjudication
from damier.match.clock import _GameClocks, time_control_text
from damier.match.players import (EngineIllegalMoveError, EngineStartError, EngineTimeoutError,
                                   Player)
from damier.match.results import MatchGame, MoveEval
from damier.openings import is_fen, opening_board
from damier.pdn import Game, set_game_tags
from damier.piece import WHITE
from damier.variants import Variant

__all__ = ["DEFAULT_MAX_PLIES"]

DEFAULT_MAX_PLIES = 300
"""Plies (opening included) after which a game is adjudicated a draw."""


@dataclass(frozen=True)
class _GameTask:
    """A game of the schedule: its number, its pair and place in it, its opening,
    and whether engine A is White."""

    number: int
    pair: int
    index_in_pair: int
    opening: tuple[str, ...]
    a_is_white: bool


class _Abandoned(Exception):
    """The match was stopped during this game."""


@dataclass(frozen=True)
class _Side:
    """One side of a game being played."""

    player: Player
    name: str
    colour: str
    """``"White"`` or ``"Black"``."""
    index: int
    """0 for White, 1 for Black (the order of the clocks)."""
    engine: str
    """``"A"`` or ``"B"``: the engine to restart when it fails."""
    loss: str
    """The result when this side loses."""

    def who(self) -> str:
        """The side in the words of a game's end: ``"name (White)"``."""
        return f"{self.name} ({self.colour})"


@dataclass(frozen=True)
class _Ending:
    """How a game ended: its result, PDN Termination and reason in words."""

    result: str
    termination: str
    reason: str


@dataclass
class _Scores:
    """The moves of a game played so far by the engines: by White or not, and what
    the engine said of each (:class:`MoveEval`: the score it was played with, the
    mover's, None when none was given; its depth and time)."""

    white_moved: list[bool]
    evals: list[MoveEval]


def _whole(player: Player, name: str) -> int | None:
    """``player``'s attribute ``name`` when it is a whole number (else None)."""
    value = getattr(player, name, None)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _eval_of(player: Player, seconds: float) -> MoveEval:
    """What ``player`` said of the move it just played in ``seconds``: its
    ``last_score``, ``last_depth`` (None where not a whole number) and ``last_book``."""
    return MoveEval(_whole(player, "last_score"), _whole(player, "last_depth"),
                    round(max(0.0, seconds), 3),
                    getattr(player, "last_book", False) is True)


class _Referee:
    """Plays the games of a match (see :meth:`play`) with its time control,
    adjudication and maximum length; ``name_a``, ``name_b`` and ``event`` are set
    once the first engines have told their names. Setting ``stop_event`` abandons
    the games."""

    def __init__(self, *, variant: Variant, movetime: float | None, clock: Clock | None,
                 max_plies: int, event: str, stop_event: threading.Event,
                 adjudication: Adjudication | None = None) -> None:
        self.variant = variant
        self.movetime = movetime
        self.clock = clock
        self.adjudication = adjudication or Adjudication()
        self.max_plies = max_plies
        self.event = event
        self.stop_event = stop_event
        self.name_a = "A"
        self.name_b = "B"
        self.date = datetime.date.today().strftime("%Y.%m.%d")
        self.site = platform.node() or "?"

    def play(self, job: _GameTask, player_a: Player, player_b: Player
             ) -> tuple[MatchGame, set[str]]:
        """Plays ``job``; returns the record and the engines ("A", "B") that failed
        (to be restarted). Raises _Abandoned when the match is stopped."""
        white, black = (player_a, player_b) if job.a_is_white else (player_b, player_a)
        white_name, black_name = ((self.name_a, self.name_b) if job.a_is_white
                                  else (self.name_b, self.name_a))
        sides = (_Side(white, white_name, "White", 0, "A" if white is player_a else "B", "0-1"),
                 _Side(black, black_name, "Black", 1, "A" if black is player_a else "B", "1-0"))
        board = opening_board(job.opening, self.variant)
        for player in (white, black):
            try:
                player.new_game()
            except Exception:  # noqa: BLE001 - a failure shows again at its first move
                pass
        clocks = _GameClocks(self.clock)
        failed: set[str] = set()
        scores = _Scores([], [])
        while True:
            if self.stop_event.is_set():
                raise _Abandoned()
            ending = self._ending(board, scores)
            if ending is None:
                ending = self._play_move(board, sides[0 if board.turn == WHITE else 1], clocks,
                                         failed, scores)
            if ending is not None:
                for player in (white, black):  # a player may want to see the end (DXP)
                    game_over = getattr(player, "game_over", None)
                    if callable(game_over):
                        try:
                            game_over(board)
                        except Exception:  # noqa: BLE001 - the game is decided already
                            pass
                return (self._record(job, board, white_name, black_name, ending, scores.evals),
                        failed)

    def _ending(self, board: Board, scores: _Scores) -> _Ending | None:
        """The end of the game at ``board`` by the rules or by adjudication (None: it goes on)."""
        outcome = board.outcome()
        if outcome is not None:
            reason = outcome.termination.describe(board.rules)
            if outcome.winner is not None and reason == "no legal move":
                reason = f"{'Black' if outcome.winner == WHITE else 'White'} has no legal move"
            return _Ending(outcome.result(), "normal", reason)
        adjudged = self.adjudication.ending(len(board.move_stack), scores.white_moved,
                                            [e.score for e in scores.evals])
        if adjudged is not None:
            return _Ending(adjudged[0], "adjudication", adjudged[1])
        if len(board.move_stack) >= self.max_plies:
            return _Ending("1/2-1/2", "adjudication",
                           f"draw by adjudication: maximum game length of {self.max_plies} plies")
        return None

    def _play_move(self, board: Board, side: _Side, clocks: _GameClocks,
                   failed: set[str], scores: _Scores) -> _Ending | None:
        """Asks ``side`` for its move and plays it on ``board`` (and its score into
        ``scores``); returns the end of the game when the move loses it (and adds
        the engine to ``failed`` when it must be restarted)."""
        move_clock = clocks.for_move(side.index)
        began = time.monotonic()
        reply, failure = self._ask(side, board, move_clock)
        elapsed = time.monotonic() - began
        if failure is not None:
            # A Ctrl-C also reaches engine subprocesses: a failure while the
            # match is being stopped is part of the stop, not a loss.
            if self.stop_event.wait(0.3):
                raise _Abandoned()
            failed.add(side.engine)
            return _Ending(side.loss, *failure)
        move, problem = _check_move(board, reply)
        if move is None:
            failed.add(side.engine)  # restart: its idea of the position may be wrong
            return _Ending(side.loss, "rules infraction", f"{side.who()} {problem}")
        over = clocks.charge(side.index, elapsed)
        if over is not None:
            if self.stop_event.is_set():
                raise _Abandoned()
            return _Ending(side.loss, "time forfeit",
                           f"{side.who()} lost on time ({over:.2f} s over)")
        board.push(move)
        scores.white_moved.append(side.index == 0)
        scores.evals.append(_eval_of(side.player, elapsed))
        return None

    def _ask(self, side: _Side, board: Board, clock: Clock | None
             ) -> tuple[Move | str | None, tuple[str, str] | None]:
        """``side``'s reply, or its failure: (PDN Termination, reason)."""
        try:
            return side.player.play(board, movetime=self.movetime, clock=clock), None
        except EngineStartError:
            raise  # the engine refused the game: not a game played (the runner stops)
        except EngineIllegalMoveError as err:
            return None, ("rules infraction", f"{side.who()} " + (
                "played no move" if err.raw is None else f"played an illegal move: {err.raw!r}"))
        except EngineTimeoutError as err:
            return None, ("time forfeit", f"{side.who()} did not answer in time"
                          + (f": {err}" if str(err) else ""))
        except Exception as err:  # noqa: BLE001 - any engine failure loses the game
            return None, ("abandoned", f"{side.who()} failed: {str(err) or type(err).__name__}")

    def _record(self, job: _GameTask, board: Board, white: str, black: str,
                ending: _Ending, evals: list[MoveEval]) -> MatchGame:
        """What the match keeps of a finished game (``board``: its final position;
        ``evals``: the engines' words on their moves)."""
        start = board.root()
        texts = []
        for move in board.move_stack:
            texts.append(start.notation(move))
            start.push(move)
        return MatchGame(number=job.number, round=f"{job.pair}.{job.index_in_pair}",
                         pair=job.pair, opening=list(job.opening), white=white, black=black,
                         a_is_white=job.a_is_white, result=ending.result,
                         termination=ending.termination, reason=ending.reason,
                         plies=len(board.move_stack),
                         headers=self._pdn_headers(job, board, white, black, ending.result,
                                                   ending.termination),
                         moves=" ".join(texts), evals=list(evals))

    def _pdn_headers(self, job: _GameTask, board: Board, white: str, black: str, result: str,
                     termination: str) -> dict[str, str]:
        """The PDN tags of a finished game (``board``: its final position)."""
        game = Game(variant=self.variant)
        game.setup(board.root())
        moves = [m for m in job.opening if not is_fen(m)]
        set_game_tags(game.headers, self.variant, {
            "Event": self.event, "Site": self.site, "Date": self.date,
            "Round": f"{job.pair}.{job.index_in_pair}", "White": white, "Black": black,
            "Result": result, "Opening": " ".join(moves) if moves else None,
            "TimeControl": time_control_text(self.movetime, self.clock) or None,
            "Termination": termination, "PlyCount": str(len(board.move_stack))})
        return dict(game.headers)


def _check_move(board: Board, reply: Any) -> tuple[Move | None, str]:
    """The legal move of an engine's reply, or None and what was wrong with it."""
    if reply is None:
        return None, "played no move"
    if isinstance(reply, str):
        try:
            return board.parse_move(reply), ""
        except ValueError:
            return None, f"played an illegal move: {reply!r}"
    if isinstance(reply, Move):
        for legal in board.legal_moves:
            if legal == reply:
                return legal, ""
        text = "x".join(map(str, reply.path)) if reply.is_capture else \
            f"{reply.from_square}-{reply.to_square}"
        return None, f"played an illegal move: {text!r}"
    return None, f"answered {reply!r}, which is not a move"
