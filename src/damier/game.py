"""The game layer: one game of draughts as the applications play it, free of any terminal,
web framework, database or thread.

A :class:`Game` holds the board (the start position and the moves played, as
:class:`~damier.Move`\\ s), what undo took back (so that redo replays exactly those
moves, the engine's reply included), who plays each side (a person or the engine), the
engine's level, the players' names, how the game ended (the rules of the board, or a
decision: resignation, a draw agreed, a flag fallen), the clocks, and the end of the
game in words (:class:`GameEnd`, one wording for ``damier play`` and ``damier serve``).
It is written to and read from a plain dict (:meth:`Game.to_dict`,
:meth:`Game.from_dict`) with the fields of the web app's stored games.

>>> game = Game(white=HUMAN, black=ENGINE, level=3)
>>> game.push("32-28").text
'32-28'
>>> game.engine_to_move(), game.human_to_move()
(True, False)
>>> game.push("19-23").text        # the engine's reply, however it was found
'19-23'
>>> [ply.text for ply in game.undo_to_person()]
['32-28', '19-23']
>>> [ply.text for ply in game.redo_to_person()]     # the same reply, not a new search
['32-28', '19-23']
>>> game.resign(WHITE)
>>> game.outcome().headline()
'Black wins: resignation (White resigned)'

Clocks (Fischer: a time for each side and an increment added after each move) read
an injectable time source, so that tests can drive them:

>>> t = [0.0]
>>> game = Game(white=HUMAN, black=HUMAN, clock=(60.0, 2.0), now=lambda: t[0])
>>> game.start_clock()
>>> t[0] = 10.0
>>> _ = game.push("32-28")
>>> game.times() == {WHITE: 52.0, BLACK: 60.0}
True
"""

from __future__ import annotations

import re

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from damier._core import Move
from damier.board import Board
from damier.errors import IllegalMoveError
from damier.notation import move_text
from damier.outcome import Outcome, Termination
from damier.pdn import result_for_variant
from damier.piece import BLACK, WHITE, Color
from damier.rules import Rules
from damier.variants import Variant, get_variant

if TYPE_CHECKING:
    from damier.engine import Clock

__all__ = [
    "HUMAN", "ENGINE", "PLAYER_KINDS", "SEATS", "COLOR_TITLES", "DEFAULT_LEVEL",
    "GameError", "GameOverError", "LineError",
    "GameEnd", "end_of", "resignation", "draw_agreed", "time_forfeit",
    "Ply", "GameClock", "Game", "GameSnapshot", "players_for_seats", "parse_time_control",
    "read_time_control", "TimeControl",
]

HUMAN = "human"
"""A side played by a person."""
ENGINE = "engine"
"""A side played by damier's engine."""
PLAYER_KINDS = (HUMAN, ENGINE)

SEATS = ("white", "black", "both", "none")
"""Who the person plays, as the web app stores it (``Game.seats``): one colour (the engine
plays the other), ``both`` (two people at one board, or analysis: the engine never moves
by itself) or ``none`` (the engine plays both sides)."""

COLOR_TITLES = {WHITE: "White", BLACK: "Black"}
DEFAULT_LEVEL = 5

_DECISIONS = (Termination.RESIGNATION, Termination.AGREEMENT, Termination.TIME_FORFEIT)
"""The ends that a player's decision (or a clock) makes, not the position: they are
stored with the game, and taking moves back does not undo them."""


MAX_CLOCK_SECONDS = 24 * 3600.0
"""The longest time a clock may start with."""
MAX_INCREMENT_SECONDS = 600.0
"""The largest increment per move."""
_TIME = r"(\d+(?:\.\d*)?|\.\d+)"
_CLOCK_RE = re.compile(
    r"^\s*(?:(\d+)\s*/\s*)?"                                  # MOVES/
    rf"(?:(\d+):(\d{{1,2}})|{_TIME}\s*([ms]?))"                # M:SS, or a number [m|s]
    rf"\s*(?:\+\s*{_TIME}\s*s?)?\s*$",                         # +INCREMENT (seconds)
    re.ASCII)   # ASCII digits only: int() would read "٥" as 5


@dataclass(frozen=True)
class TimeControl:
    """A clock setting: ``seconds`` each, ``increment`` seconds added per move, and
    ``moves`` (None, or a repeating control: the time is given again every that many
    moves)."""

    seconds: float
    increment: float = 0.0
    moves: int | None = None


def read_time_control(text: str) -> TimeControl:
    """The one clock grammar of ``damier play --clock``, ``damier match --clock`` and the
    web app's ``clock``: ``[MOVES/]TIME[+INCREMENT]``. ``TIME`` is in minutes (``5``,
    ``0.5``), or ``M:SS``, or given a unit: ``90s``, ``2m``; the increment is in seconds
    (``+3`` or ``+3s``). ``5+3``: five minutes each and three seconds added per move.

    >>> read_time_control("5+3")
    TimeControl(seconds=300.0, increment=3.0, moves=None)
    >>> read_time_control("1:30+2"), read_time_control("10s+0.1s")
    (TimeControl(seconds=90.0, increment=2.0, moves=None),
     TimeControl(seconds=10.0, increment=0.1, moves=None))
    >>> read_time_control("40/2m").moves, read_time_control("40/2m").seconds
    (40, 120.0)
    """
    match = _CLOCK_RE.match(text) if len(text) <= 100 else None
    if match is None:
        shown = text if len(text) <= 40 else text[:30] + "..."
        raise ValueError(f"bad clock {shown!r}: expected [MOVES/]TIME[+SECONDS], TIME in "
                         "minutes, M:SS or with a unit (90s, 2m); e.g. 5+3 (5 minutes each, "
                         "3 seconds added per move), 10s+0.1 or 40/2m")
    moves_text, minutes, seconds, number, unit, inc_text = match.groups()
    if minutes is not None:
        base = int(minutes) * 60.0 + int(seconds)
    else:
        base = float(number) * (1.0 if unit == "s" else 60.0)
    increment = float(inc_text) if inc_text else 0.0
    moves = int(moves_text) if moves_text else None
    if (not 0 < base <= MAX_CLOCK_SECONDS or increment > MAX_INCREMENT_SECONDS
            or (moves is not None and not 1 <= moves <= 1000)):
        shown = text if len(text) <= 40 else text[:30] + "..."
        raise ValueError(f"bad clock {shown!r}: the time must be more than 0 and at most "
                         f"{MAX_CLOCK_SECONDS // 3600:g} hours, the increment at most "
                         f"{MAX_INCREMENT_SECONDS:g} seconds, the moves 1 to 1000")
    return TimeControl(base, increment, moves)


def parse_time_control(text: str) -> tuple[float, float]:
    """``(seconds, increment)`` of a clock without a move count (:func:`read_time_control`;
    games in the terminal and the browser have no repeating controls).

    >>> parse_time_control("5+3"), parse_time_control("0.5"), parse_time_control("1:30+2")
    ((300.0, 3.0), (30.0, 0.0), (90.0, 2.0))
    """
    control = read_time_control(text)
    if control.moves is not None:
        raise ValueError(f"bad clock {text[:40]!r}: a number of moves per period "
                         f"({control.moves}/) is for engine matches; give MINUTES[+SECONDS]")
    return control.seconds, control.increment


class GameError(ValueError):
    """A change the game refuses (the message says why)."""


class GameOverError(GameError):
    """The game is over: no move may be played (or, after a decision, taken back)."""


class LineError(GameError):
    """A move of a line given to :meth:`Game.set_line` is not legal where it stands;
    ``ply`` is its number, from 1."""

    def __init__(self, message: str, ply: int) -> None:
        super().__init__(message)
        self.ply = ply


# -- the end of a game, in words ------------------------------------------------------------


@dataclass(frozen=True)
class GameEnd:
    """How a game ended: the winner (None for a draw), the rule in words (``reason``:
    ``resignation``, ``25 king moves``, ``time forfeit``...), what happened in words
    (``detail``: ``Black resigned``, ``Black cannot move``...; may be empty) and the
    :class:`~damier.Termination` (None for a result taken from a game record whose rule is
    known only in words)."""

    winner: Color | None
    reason: str
    detail: str = ""
    termination: Termination | None = None

    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2`` (see :func:`damier.pdn.result_for_variant`
        for each variant's own notation)."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == WHITE else "0-1"

    def headline(self) -> str:
        """The end in words, as both the terminal and the web app show it:
        ``White wins: resignation (Black resigned)``, ``draw: 25 king moves``.

        >>> GameEnd(BLACK, "time forfeit", "White's flag fell").headline()
        "Black wins: time forfeit (White's flag fell)"
        """
        who = "draw" if self.winner is None else f"{COLOR_TITLES[self.winner]} wins"
        text = f"{who}: {self.reason}"
        return f"{text} ({self.detail})" if self.detail else text

    @property
    def winner_name(self) -> str | None:
        """``white``, ``black`` or None."""
        return None if self.winner is None else ("white" if self.winner else "black")


def end_of(outcome: Outcome, board: Board) -> GameEnd:
    """The end of the game on ``board`` (``board.outcome()``) in words.

    >>> end_of(Board("B:W28:B").outcome(), Board("B:W28:B")).headline()
    'White wins: no legal move (Black has no pieces left)'
    >>> board = Board("W:W46:B41,37")
    >>> end_of(board.outcome(), board).headline()
    'Black wins: no legal move (White cannot move)'
    """
    detail = ""
    if (outcome.termination in (Termination.NO_MOVES, Termination.NO_MOVES_WINS)
            and outcome.winner is not None):
        stuck = (not outcome.winner if outcome.termination is Termination.NO_MOVES
                 else outcome.winner)
        has_pieces = any(p.color == stuck for p in board.piece_map().values())
        detail = (f"{COLOR_TITLES[stuck]} cannot move" if has_pieces
                  else f"{COLOR_TITLES[stuck]} has no pieces left")
    return GameEnd(outcome.winner, outcome.termination.describe(board.rules), detail,
                   outcome.termination)


def resignation(loser: Color) -> GameEnd:
    """``loser`` resigned."""
    return GameEnd(not loser, Termination.RESIGNATION.describe(),
                   f"{COLOR_TITLES[loser]} resigned", Termination.RESIGNATION)


def draw_agreed() -> GameEnd:
    """The players agreed to a draw."""
    return GameEnd(None, Termination.AGREEMENT.describe(), "", Termination.AGREEMENT)


def time_forfeit(loser: Color) -> GameEnd:
    """``loser``'s time ran out: a loss, whatever is left on the board."""
    return GameEnd(not loser, Termination.TIME_FORFEIT.describe(),
                   f"{COLOR_TITLES[loser]}'s flag fell", Termination.TIME_FORFEIT)


# -- clocks ------------------------------------------------------------------------------------


class GameClock:
    """One side's clock, Fischer style: ``initial_s`` seconds, and ``increment_s`` added
    after each of the side's moves. ``now`` is the time source (seconds, any origin):
    :func:`time.monotonic` by default; a game stored across restarts uses
    :func:`time.time`, and tests pass a fake.

    >>> t = [100.0]
    >>> clock = GameClock(60.0, 1.0, now=lambda: t[0])
    >>> clock.start(); t[0] = 115.0
    >>> clock.remaining()
    45.0
    >>> clock.stop()
    45.0
    >>> clock.add_increment(); clock.remaining()
    46.0
    """

    def __init__(self, initial_s: float, increment_s: float = 0.0, *,
                 now: Callable[[], float] = time.monotonic) -> None:
        if not initial_s > 0 or initial_s == float("inf"):
            raise ValueError(f"a clock needs a positive, finite time, got {initial_s!r}")
        if not increment_s >= 0 or increment_s == float("inf"):
            raise ValueError(f"the increment must be a finite number >= 0, got {increment_s!r}")
        self.initial_s = float(initial_s)
        self.increment_s = float(increment_s)
        self.now = now
        self.remaining_s = self.initial_s
        """Seconds left when the clock last stopped (not counting a running period)."""
        self.running_since: float | None = None
        """The time source's value when the clock started, or None when it is stopped."""

    @property
    def running(self) -> bool:
        return self.running_since is not None

    def start(self) -> None:
        """Starts the clock (nothing when it runs)."""
        if self.running_since is None:
            self.running_since = self.now()

    def stop(self) -> float:
        """Stops the clock, charging the time since it started; returns the time left."""
        if self.running_since is not None:
            self.remaining_s -= self.now() - self.running_since
            self.running_since = None
        return self.remaining_s

    def remaining(self) -> float:
        """Seconds left now, counting the running period (negative once the flag fell)."""
        if self.running_since is None:
            return self.remaining_s
        return self.remaining_s - (self.now() - self.running_since)

    def add_increment(self) -> None:
        self.remaining_s += self.increment_s

    def set(self, remaining_s: float) -> None:
        """Sets the time left (stopped)."""
        self.remaining_s = float(remaining_s)
        self.running_since = None

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return (f"GameClock({self.initial_s:g}+{self.increment_s:g}, "
                f"{self.remaining():.1f} s left, {state})")


# -- the game ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ply:
    """One move of the game: the legal :class:`~damier.Move`, its text in standard
    notation where it was played (full path only when two captures share their ends),
    the FEN after it, and the clocks after it (``(white, black)`` seconds, increment
    added; None without clocks)."""

    move: Move
    text: str
    fen: str
    clock: tuple[float, float] | None = None


@dataclass(frozen=True)
class GameSnapshot:
    """A game's state at one moment (:meth:`Game.snapshot`, :meth:`Game.restore`)."""

    plies: tuple[Ply, ...]
    redo: tuple[Ply, ...]
    decided: GameEnd | None
    draw_offer: Color | None
    clocks_on: bool
    clocks: tuple[tuple[float, float | None], ...] | None
    """``(remaining_s, running_since)`` of the white and the black clock (None: no clocks)."""
    start_times: tuple[float, float]
    players: dict[Color, str]
    level: int
    names: dict[Color, str | None]


def players_for_seats(seats: str) -> dict[Color, str]:
    """The players of :data:`SEATS` ``seats``.

    >>> players_for_seats("black") == {WHITE: ENGINE, BLACK: HUMAN}
    True
    """
    if seats not in SEATS:
        raise ValueError(f"seats must be one of {', '.join(SEATS)}, got {seats!r}")
    return {WHITE: HUMAN if seats in ("white", "both") else ENGINE,
            BLACK: HUMAN if seats in ("black", "both") else ENGINE}


def _color_of(name: Any) -> Color | None:
    return {"white": WHITE, "black": BLACK}.get(name) if isinstance(name, str) else None


class Game:
    """A game of draughts: board, undo/redo, who plays, decisions, clocks, the end in words.

    :param fen: the start position (default: the variant's).
    :param variant, rules: the game's variant and draw rules (default: the variant's).
    :param white, black: who plays each side, :data:`HUMAN` or :data:`ENGINE`.
    :param level: the engine's level, 1-10.
    :param white_name, black_name: the players' names (default: see :meth:`player_name`).
    :param clock: ``(seconds, increment)`` for each side, or None for no clocks. The
        clocks do not run until :meth:`start_clock`.
    :param now: the clocks' time source.

    Moves are pushed with :meth:`push` (a legal :class:`~damier.Move` or move text);
    :meth:`undo` and :meth:`undo_to_person` take plies back onto the redo stack, which
    :meth:`redo` and :meth:`redo_to_person` replay exactly (clock times included); a
    pushed move that is the next one on the redo stack keeps the rest of it, any other
    move clears it. The game ends by the rules of the board (:meth:`Board.outcome`) or by
    a decision (:meth:`resign`, :meth:`agree_draw`, a flag found fallen by
    :meth:`check_flag` or :meth:`push`, :meth:`end_game`), which only :meth:`reopen`
    clears.
    """

    def __init__(self, fen: str | None = None, *, variant: str | Variant = "international",
                 rules: Rules | None = None, white: str = HUMAN, black: str = ENGINE,
                 level: int = DEFAULT_LEVEL, white_name: str | None = None,
                 black_name: str | None = None, clock: tuple[float, float] | None = None,
                 now: Callable[[], float] = time.monotonic) -> None:
        for name, kind in (("white", white), ("black", black)):
            if kind not in PLAYER_KINDS:
                raise ValueError(f"{name} must be 'human' or 'engine', got {kind!r}")
        self.board = Board(fen, variant=get_variant(variant), rules=rules)
        self.start_fen = self.board.fen()
        self.players: dict[Color, str] = {WHITE: white, BLACK: black}
        self.level = level
        self.names: dict[Color, str | None] = {WHITE: white_name, BLACK: black_name}
        self.now = now
        self._plies: list[Ply] = []
        self._redo: list[Ply] = []
        self._decided: GameEnd | None = None
        self.draw_offer: Color | None = None
        """The side whose draw offer waits for an answer (None: no offer)."""
        self.clocks: dict[Color, GameClock] | None = None
        self._clocks_on = False
        self._start_times: tuple[float, float] = (0.0, 0.0)
        if clock is not None:
            self.clocks = {c: GameClock(clock[0], clock[1], now=now) for c in (WHITE, BLACK)}
            self._start_times = (self.clocks[WHITE].initial_s, self.clocks[BLACK].initial_s)

    @property
    def level(self) -> int:
        return self._level

    @level.setter
    def level(self, level: int) -> None:
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
            raise ValueError(f"level must be between 1 and 10, got {level}")
        self._level = level

    @classmethod
    def from_board(cls, board: Board, **kwargs: Any) -> "Game":
        """A game from the start position of ``board`` with its moves played (no clock
        time is charged for them); ``kwargs`` as for :class:`Game`."""
        game = cls(board.root().fen(), variant=board.variant, rules=board.rules, **kwargs)
        for move in board.move_stack:
            game._append(game._legal(move), charge=False)
        return game

    # -- what the game is ---------------------------------------------------------------------

    @property
    def variant(self) -> Variant:
        return self.board.variant

    @property
    def rules(self) -> Rules:
        return self.board.rules

    @property
    def plies(self) -> tuple[Ply, ...]:
        """The moves played, in order."""
        return tuple(self._plies)

    @property
    def moves(self) -> list[Move]:
        return [ply.move for ply in self._plies]

    def move_texts(self) -> list[str]:
        return [ply.text for ply in self._plies]

    @property
    def redo_stack(self) -> tuple[Ply, ...]:
        """The plies that redo would replay, the next one last."""
        return tuple(self._redo)

    def redo_texts(self) -> list[str]:
        """The redo stack's move texts, the next one last (as the web app stores it)."""
        return [ply.text for ply in self._redo]

    def can_redo(self) -> bool:
        return bool(self._redo) and not self.is_over()

    @property
    def seats(self) -> str:
        """Who the person plays, one of :data:`SEATS`."""
        white, black = self.players[WHITE] == HUMAN, self.players[BLACK] == HUMAN
        if white and black:
            return "both"
        if white or black:
            return "white" if white else "black"
        return "none"

    @property
    def mode(self) -> str:
        """``human-engine``, ``human-human`` or ``engine-engine``."""
        return {"both": "human-human", "none": "engine-engine"}.get(self.seats, "human-engine")

    def person_color(self) -> Color | None:
        """The colour of the one person playing the engine (None with two people or none)."""
        humans = [c for c in (WHITE, BLACK) if self.players[c] == HUMAN]
        return humans[0] if len(humans) == 1 else None

    def engine_color(self) -> Color | None:
        """The engine's colour against one person (None with two people or none)."""
        person = self.person_color()
        return None if person is None else not person

    def player_name(self, color: Color) -> str:
        """The name of ``color``'s player: the name given, else ``damier level N`` for the
        engine, ``you`` for a person against the engine and ``human`` for two people."""
        name = self.names[color]
        if name is not None:
            return name
        if self.players[color] == ENGINE:
            return f"damier level {self.level}"
        return "you" if self.mode == "human-engine" else "human"

    def turn_at(self, ply: int) -> Color:
        """The side to move after ``ply`` plies."""
        start = self.board.turn if len(self._plies) % 2 == 0 else not self.board.turn
        return start if ply % 2 == 0 else not start

    def human_to_move(self) -> bool:
        """Whether the game goes on and a person is to move."""
        return not self.is_over() and self.players[self.board.turn] == HUMAN

    def engine_to_move(self) -> bool:
        """Whether the game goes on and the engine is to move."""
        return not self.is_over() and self.players[self.board.turn] == ENGINE

    # -- the end --------------------------------------------------------------------------------

    @property
    def decided(self) -> GameEnd | None:
        """The end that a decision made (resignation, agreement, flag, a recorded result),
        or None."""
        return self._decided

    def outcome(self) -> GameEnd | None:
        """How the game ended (a decision first, else the rules of the board), or None."""
        if self._decided is not None:
            return self._decided
        outcome = self.board.outcome()
        return None if outcome is None else end_of(outcome, self.board)

    def is_over(self) -> bool:
        return self.outcome() is not None

    def outcome_info(self) -> dict[str, Any] | None:
        """The end as data (None while the game goes on): ``result`` (``1-0``...),
        ``winner`` (``white``/``black``/None), ``termination`` (a
        :class:`~damier.Termination` value, or None), ``rule`` (the rule in words),
        ``text`` (:meth:`GameEnd.headline`) and ``pdn_result`` (in the variant's notation,
        ``2-0`` in International)."""
        end = self.outcome()
        if end is None:
            return None
        return {"result": end.result(), "winner": end.winner_name,
                "termination": end.termination.value if end.termination else None,
                "rule": end.reason, "text": end.headline(),
                "pdn_result": result_for_variant(end.result(), self.variant)}

    def end_game(self, end: GameEnd) -> None:
        """Ends the game by a decision (the clocks stop)."""
        self._decided = end
        self.draw_offer = None
        self._sync_clocks()

    def reopen(self) -> None:
        """Clears a decision, so that the game goes on (the terminal's undo after a
        resignation); the clocks run again if they were running."""
        self._decided = None
        self._sync_clocks()

    def outcome_text(self) -> str | None:
        """:meth:`GameEnd.headline` of the end, or None while the game goes on."""
        end = self.outcome()
        return None if end is None else end.headline()

    def _check_not_over(self) -> None:
        end = self.outcome()
        if end is not None:
            raise GameOverError(f"the game is over ({end.headline()})")

    def resign(self, color: Color) -> None:
        """``color`` resigns."""
        self._check_not_over()
        self.end_game(resignation(color))

    def can_offer_draw(self) -> bool:
        """Whether a draw may be offered now (the game goes on and the rules allow it)."""
        return not self.is_over() and self.board.can_offer_draw()

    def offer_draw(self, color: Color) -> bool:
        """``color`` offers a draw; True when that accepts the opponent's offer (the game
        ends drawn), False when the offer now waits for the opponent's answer (a move by
        the opponent declines it)."""
        self._check_not_over()
        if not self.board.can_offer_draw():
            raise GameError(f"a draw may be offered only after "
                            f"{self.rules.draw_offer_min_moves} moves each")
        if self.draw_offer == (not color):
            self.agree_draw()
            return True
        self.draw_offer = color
        return False

    def agree_draw(self) -> None:
        """Ends the game drawn by agreement."""
        self._check_not_over()
        self.end_game(draw_agreed())

    # -- moves --------------------------------------------------------------------------------

    def _legal(self, move: Move | str) -> Move:
        """The legal move that ``move`` names (raises, saying why, when none)."""
        if isinstance(move, str):
            return self.board.parse_move(move)
        matches = [m for m in self.board.legal_moves if m == move]
        if not matches:
            self.board.copy().push(move)   # raises IllegalMoveError (or TypeError), saying why
            raise IllegalMoveError(f"{move!r} is not legal in {self.board.fen()}")
        return next((m for m in matches if m.path == move.path), matches[0])

    def _append(self, move: Move, *, charge: bool) -> Ply:
        board = self.board
        mover = board.turn
        legal = board.legal_moves
        played = board.push(move)
        text = move_text(played, legal)
        times = None
        if self.clocks is not None:
            clock = self.clocks[mover]
            clock.stop()
            if charge:
                clock.add_increment()
            times = (self.clocks[WHITE].remaining_s, self.clocks[BLACK].remaining_s)
        ply = Ply(played, text, board.fen(), times)
        self._plies.append(ply)
        if self.draw_offer is not None and self.draw_offer != mover:
            self.draw_offer = None    # playing on declines the opponent's offer
        self._sync_clocks()
        return ply

    def push(self, move: Move | str) -> Ply:
        """Plays ``move`` (a :class:`~damier.Move` or move text) for the side to move,
        charging its clock and adding its increment; returns the :class:`Ply`.

        Raises :class:`GameOverError` when the game is over, or when the mover's flag is
        found fallen (the game then ends on time, the move unplayed), and
        :class:`~damier.IllegalMoveError`/:class:`~damier.AmbiguousMoveError` for a
        move that is not legal (nothing changes)."""
        self._check_not_over()
        if self.check_flag():
            raise GameOverError(f"the game is over ({self.outcome_text()})")
        ply = self._append(self._legal(move), charge=True)
        if self._redo and self._redo[-1].move == ply.move:
            self._redo.pop()
        else:
            self._redo.clear()
        return ply

    def undo(self, n: int = 1) -> list[Ply]:
        """Takes back up to ``n`` plies onto the redo stack; returns them in the order
        they were played. The clocks go back to the times of the position reached.
        Raises :class:`GameOverError` after a decision (see :meth:`reopen`)."""
        if self._decided is not None:
            raise GameOverError(f"the game is over ({self._decided.headline()}); "
                                "it cannot be taken back")
        n = max(0, min(n, len(self._plies)))
        if n == 0:
            return []
        taken = self._plies[-n:]
        del self._plies[-n:]
        for _ in range(n):
            self.board.pop()
        self._redo.extend(reversed(taken))
        self.draw_offer = None
        if self.clocks is not None:
            times = self._plies[-1].clock if self._plies else None
            self._set_times(times if times is not None else self._start_times)
        self._sync_clocks()
        return taken

    def plies_to_person(self) -> int:
        """How many plies :meth:`undo_to_person` takes back (0: none)."""
        plies = len(self._plies)
        person = self.person_color()
        if person is None:
            return min(1, plies)
        for back in range(1, plies + 1):
            if self.turn_at(plies - back) == person:
                return back
        return 0

    def undo_to_person(self) -> list[Ply]:
        """Undo as a person means it: back to the last position where the person was to
        move against the engine (their move and the engine's reply), else one ply."""
        if self._decided is not None:
            return self.undo(1)      # raises GameOverError
        return self.undo(self.plies_to_person())

    def redo(self, n: int = 1, *, replies: bool = False) -> list[Ply]:
        """Replays up to ``n`` plies of the redo stack, exactly as they were played (the
        clocks as they were after each); with ``replies``, then goes on replaying while the
        engine is to move against a person, so that the engine's undone reply comes back
        rather than a new search. Returns the plies replayed."""
        if self._decided is not None:
            raise GameOverError(f"the game is over ({self._decided.headline()})")
        done: list[Ply] = []
        while len(done) < n and self._redo and not self.is_over():
            done.append(self._replay(self._redo.pop()))
        if replies and self.person_color() is not None:
            while self._redo and self.engine_to_move():
                done.append(self._replay(self._redo.pop()))
        return done

    def redo_to_person(self) -> list[Ply]:
        """Redo as a person means it: their move and the engine's reply that undo took
        back (one ply between two people)."""
        return self.redo(1, replies=True)

    def _replay(self, ply: Ply) -> Ply:
        self.board.push(ply.move)
        self._plies.append(ply)
        self.draw_offer = None
        if self.clocks is not None and ply.clock is not None:
            self._set_times(ply.clock)
        self._sync_clocks()
        return ply

    def set_line(self, moves: Sequence[Move | str]) -> None:
        """Replaces the moves by ``moves`` (played from the start position; the moves in
        common with the present line are kept, clock times included; the new ones cost no
        time). Clears the redo stack. Raises :class:`LineError` for a move that is not
        legal where it stands (nothing changes), :class:`GameOverError` after a decision."""
        if self._decided is not None:
            raise GameOverError(f"the game is over ({self._decided.headline()})")
        board = self.board.root()
        line: list[Move] = []
        for i, item in enumerate(moves):
            try:
                if isinstance(item, str):
                    move = board.parse_move(item)
                else:
                    found = next((m for m in board.legal_moves if m == item), None)
                    if found is None:
                        board.copy().push(item)   # raises IllegalMoveError, saying why
                        raise IllegalMoveError(f"{item!r} is not legal in {board.fen()}")
                    move = found
            except ValueError as err:
                shown = repr(item)
                if len(shown) > 60:   # a long move text: its error quotes its start
                    shown = shown[:40] + "..."
                raise LineError(f"move {i + 1} ({shown}): {err}", ply=i + 1) from None
            line.append(move)
            board.push(move)
        common = 0
        while (common < min(len(line), len(self._plies))
               and self._plies[common].move == line[common]):
            common += 1
        self._redo.clear()
        if len(self._plies) > common:
            self.undo(len(self._plies) - common)
            self._redo.clear()
        for move in line[common:]:
            self._append(move, charge=False)

    # -- clocks ---------------------------------------------------------------------------------

    @property
    def clock_running(self) -> bool:
        """Whether the clocks are on (the side to move's clock runs while the game goes on)."""
        return self._clocks_on

    def start_clock(self) -> None:
        """Starts the clocks: the side to move's clock runs from now (and after each move
        the opponent's), until :meth:`pause_clock` or the end of the game."""
        self._clocks_on = True
        self._sync_clocks()

    def pause_clock(self) -> None:
        """Stops the clocks, charging the running one with the time it ran."""
        self._clocks_on = False
        self._sync_clocks()

    def _sync_clocks(self) -> None:
        if self.clocks is None:
            return
        running = self._clocks_on and not self.is_over()
        turn = self.board.turn
        for color, clock in self.clocks.items():
            if running and color == turn:
                clock.start()
            else:
                clock.stop()

    def _set_times(self, times: tuple[float, float]) -> None:
        assert self.clocks is not None
        self.clocks[WHITE].set(times[0])
        self.clocks[BLACK].set(times[1])

    def times(self) -> dict[Color, float]:
        """Seconds left for each side now, counting the running clock ({} without clocks)."""
        if self.clocks is None:
            return {}
        return {color: clock.remaining() for color, clock in self.clocks.items()}

    def check_flag(self) -> bool:
        """Ends the game on time when the side to move has no time left (its flag fell;
        a loss, whatever is on the board); True when it did."""
        if self.clocks is None or self.is_over():
            return False
        turn = self.board.turn
        clock = self.clocks[turn]
        if clock.remaining() > 0:
            return False
        clock.set(0.0)
        self.end_game(time_forfeit(turn))
        return True

    def engine_clock(self) -> "Clock | None":
        """The clocks as the engine's :class:`damier.engine.Clock` (times left now, never
        below 0), from which it budgets its move; None without clocks."""
        if self.clocks is None:
            return None
        from damier.engine import Clock
        times = self.times()
        return Clock(max(0.0, times[WHITE]), max(0.0, times[BLACK]),
                     self.clocks[WHITE].increment_s, self.clocks[BLACK].increment_s)

    # -- snapshots ---------------------------------------------------------------------------

    def snapshot(self) -> "GameSnapshot":
        """The game's state now (moves, redo stack, decision, draw offer, clocks, who plays,
        level, names), for :meth:`restore`: a change that could not be stored is taken
        back this way. Cheap: the plies are shared, not copied.

        >>> game = Game(white=HUMAN, black=HUMAN)
        >>> _ = game.push("32-28")
        >>> saved = game.snapshot()
        >>> _ = game.undo(1); _ = game.push("31-27"); game.resign(BLACK)
        >>> game.restore(saved)
        >>> game.move_texts(), game.outcome(), game.board.fen() == saved.plies[-1].fen
        (['32-28'], None, True)
        """
        clocks = None
        if self.clocks is not None:
            clocks = tuple((c.remaining_s, c.running_since) for c in
                           (self.clocks[WHITE], self.clocks[BLACK]))
        return GameSnapshot(tuple(self._plies), tuple(self._redo), self._decided,
                            self.draw_offer, self._clocks_on, clocks, self._start_times,
                            dict(self.players), self._level, dict(self.names))

    def restore(self, snapshot: "GameSnapshot") -> None:
        """Puts the game back as it was at ``snapshot`` (of this game): the board is taken
        back to the moves in common and the snapshot's moves played again."""
        plies = self._plies
        common = 0
        limit = min(len(plies), len(snapshot.plies))
        while common < limit and plies[common] is snapshot.plies[common]:
            common += 1
        for _ in range(len(plies) - common):
            self.board.pop()
        for ply in snapshot.plies[common:]:
            self.board.push(ply.move)
        self._plies = list(snapshot.plies)
        self._redo = list(snapshot.redo)
        self._decided = snapshot.decided
        self.draw_offer = snapshot.draw_offer
        self._clocks_on = snapshot.clocks_on
        self._start_times = snapshot.start_times
        if self.clocks is not None and snapshot.clocks is not None:
            for color, (remaining, since) in zip((WHITE, BLACK), snapshot.clocks, strict=False):
                self.clocks[color].remaining_s = remaining
                self.clocks[color].running_since = since
        self.players = dict(snapshot.players)
        self._level = snapshot.level
        self.names = dict(snapshot.names)

    # -- as a plain dict -------------------------------------------------------------------------

    def clock_state(self) -> dict[str, Any] | None:
        """The clocks' state as plain data (None without clocks): ``remaining``
        (``[white, black]`` seconds when last stopped), ``running`` (the clocks are on),
        ``since`` (the time source's value when the running clock started, or None),
        ``start`` (the times before the first move), ``times`` and ``redo_times`` (the
        times after each ply and each redo ply)."""
        if self.clocks is None:
            return None
        turn_clock = self.clocks[self.board.turn]
        return {"remaining": [self.clocks[WHITE].remaining_s, self.clocks[BLACK].remaining_s],
                "running": self._clocks_on, "since": turn_clock.running_since,
                "start": list(self._start_times),
                "times": [list(p.clock) if p.clock else None for p in self._plies],
                "redo_times": [list(p.clock) if p.clock else None for p in self._redo]}

    def to_dict(self) -> dict[str, Any]:
        """The game as plain data (JSON-ready), with the fields of the web app's stored
        games: ``variant``, ``start_fen``, ``moves`` and ``redo`` (move texts; redo's next
        move last), ``human`` (:data:`SEATS`), ``level``, ``white`` and ``black`` (names),
        ``result``, ``termination``, ``termination_text``, ``winner``, ``clock_initial``,
        ``clock_increment``, ``clock_state`` (:meth:`clock_state`); and ``draw_offer``,
        ``end_reason`` and ``end_detail`` (a decision's words, for ends without a
        :class:`~damier.Termination`). Custom rules are not included (pass them to
        :meth:`from_dict`)."""
        info = self.outcome_info()
        decided = self._decided
        return {
            "variant": self.variant.name, "start_fen": self.start_fen,
            "moves": self.move_texts(), "redo": self.redo_texts(),
            "human": self.seats, "level": self.level,
            "white": self.player_name(WHITE), "black": self.player_name(BLACK),
            "result": info["result"] if info else "*",
            "termination": info["termination"] if info else None,
            "termination_text": info["text"] if info else None,
            "winner": info["winner"] if info else None,
            "clock_initial": self.clocks[WHITE].initial_s if self.clocks else None,
            "clock_increment": self.clocks[WHITE].increment_s if self.clocks else None,
            "clock_state": self.clock_state(),
            "draw_offer": None if self.draw_offer is None else
            ("white" if self.draw_offer else "black"),
            "end_reason": decided.reason if decided else None,
            "end_detail": decided.detail if decided else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, rules: Rules | None = None,
                  now: Callable[[], float] = time.monotonic) -> "Game":
        """The game of :meth:`to_dict`'s ``data`` (a stored web game's fields will do;
        other keys are ignored). Redo moves that no longer read are dropped; a move that
        does not raises :class:`~damier.IllegalMoveError`."""
        players = players_for_seats(data.get("human", "white"))
        clock = None
        if data.get("clock_initial") is not None:
            clock = (float(data["clock_initial"]), float(data.get("clock_increment") or 0.0))
        game = cls(data.get("start_fen"), variant=data.get("variant", "international"),
                   rules=rules, white=players[WHITE], black=players[BLACK],
                   level=int(data.get("level", DEFAULT_LEVEL)), white_name=data.get("white"),
                   black_name=data.get("black"), clock=clock, now=now)
        state: Mapping[str, Any] = data.get("clock_state") or {}
        times: Sequence[Any] = state.get("times") or []
        for i, text in enumerate(data.get("moves") or []):
            ply = game._append(game.board.parse_move(text), charge=False)
            if game.clocks is not None and i < len(times) and times[i]:
                game._plies[-1] = Ply(ply.move, ply.text, ply.fen, (times[i][0], times[i][1]))
        game._redo = game._read_redo(data.get("redo") or [], state.get("redo_times") or [])
        termination = data.get("termination")
        winner = _color_of(data.get("winner"))
        if termination in {t.value for t in _DECISIONS}:
            term = Termination(termination)
            if term is Termination.AGREEMENT:
                game._decided = draw_agreed()
            elif winner is not None:
                game._decided = (resignation if term is Termination.RESIGNATION
                                 else time_forfeit)(not winner)
        elif termination is None and data.get("end_reason") and data.get("result", "*") != "*":
            game._decided = GameEnd(winner, data["end_reason"], data.get("end_detail") or "")
        game.draw_offer = _color_of(data.get("draw_offer"))
        if game.clocks is not None:
            if state.get("start"):
                game._start_times = (float(state["start"][0]), float(state["start"][1]))
            if state.get("remaining"):
                game._set_times((float(state["remaining"][0]), float(state["remaining"][1])))
            game._clocks_on = bool(state.get("running"))
            game._sync_clocks()
            since = state.get("since")
            turn_clock = game.clocks[game.board.turn]
            if since is not None and turn_clock.running:
                turn_clock.running_since = float(since)
        return game

    def _read_redo(self, texts: Sequence[str], times: Sequence[Any]) -> list[Ply]:
        board = self.board.copy()
        plies: list[Ply] = []
        for i in range(len(texts) - 1, -1, -1):   # the next move to replay is the last
            try:
                legal = board.legal_moves
                move = board.push(board.parse_move(texts[i]))
            except ValueError:
                break
            clock = times[i] if i < len(times) and times[i] else None
            plies.append(Ply(move, move_text(move, legal), board.fen(),
                             (clock[0], clock[1]) if clock else None))
        plies.reverse()
        return plies

    def __repr__(self) -> str:
        end = self.outcome()
        state = end.headline() if end else f"{COLOR_TITLES[self.board.turn]} to move"
        return (f"<Game {self.variant.name} {self.player_name(WHITE)!r} - "
                f"{self.player_name(BLACK)!r}, {len(self._plies)} plies, {state}>")

