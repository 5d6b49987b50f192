"""The time control of a match: a clock's text (``[MOVES/]TIME[+INCREMENT]``), read
and written, and both sides' time during a game.

>>> clock = parse_clock("1+0.5")
>>> time_control_text(None, clock), time_control_text(0.1, None), time_control_text(None, None)
('60+0.5', '0.1 s/move', '')
"""

from __future__ import annotations

from damier.engine import Clock
from damier.game import read_time_control

__all__ = ["CLOCK_TOLERANCE", "parse_clock", "time_control_text"]

CLOCK_TOLERANCE = 0.1
"""Seconds a clock may go below zero before its engine loses on time."""

def parse_clock(text: str) -> Clock:
    """A clock from the one clock grammar (:func:`damier.game.read_time_control`):
    ``[MOVES/]TIME[+INCREMENT]``, ``TIME`` in minutes, ``M:SS`` or with a unit (``10s``,
    ``2m``), the increment in seconds; ``MOVES/`` makes it a repeating control of that
    many moves.

    >>> parse_clock("1+0.5")
    Clock(white_time=60.0, black_time=60.0, white_increment=0.5, black_increment=0.5,
          moves_to_go=None)
    >>> parse_clock("10s+0.1").white_time, parse_clock("40/2:00").moves_to_go
    (10.0, 40)
    """
    control = read_time_control(text)
    try:
        return Clock(control.seconds, control.seconds, control.increment, control.increment,
                     control.moves)
    except ValueError as err:  # pragma: no cover - read_time_control bounds every number
        raise ValueError(f"bad clock {text[:40]!r}: {err}") from None


def _clock_text(clock: Clock) -> str:
    def num(x: float) -> str:
        return f"{x:g}"
    text = num(clock.white_time)
    if clock.white_increment:
        text += "+" + num(clock.white_increment)
    if clock.moves_to_go:
        text = f"{clock.moves_to_go}/{text}"
    if (clock.black_time, clock.black_increment) != (clock.white_time, clock.white_increment):
        other = num(clock.black_time) + (f"+{num(clock.black_increment)}"
                                         if clock.black_increment else "")
        text += f" (Black {other})"
    return text


def time_control_text(movetime: float | None, clock: Clock | None) -> str:
    """A match's time control as its PDN ``TimeControl`` tag and its report give it
    (empty with none)."""
    if clock is not None:
        return _clock_text(clock)
    if movetime is not None:
        return f"{movetime:g} s/move"
    return ""


class _GameClocks:
    """Both sides' time left in one game (nothing to keep without a clock): the
    clock handed to the engine to move, and each move's time taken off."""

    def __init__(self, clock: Clock | None) -> None:
        self.clock = clock
        self.times = [clock.white_time, clock.black_time] if clock else [0.0, 0.0]
        """Seconds left, ``[white, black]``."""
        self.moves_made = [0, 0]

    def for_move(self, side: int) -> Clock | None:
        """The clock of the engine to move (``side``: 0 White, 1 Black)."""
        clock = self.clock
        if clock is None:
            return None
        moves_to_go = None
        if clock.moves_to_go:
            moves_to_go = clock.moves_to_go - self.moves_made[side] % clock.moves_to_go
        return Clock(max(0.0, self.times[0]), max(0.0, self.times[1]), clock.white_increment,
                     clock.black_increment, moves_to_go)

    def charge(self, side: int, elapsed: float) -> float | None:
        """Takes a move of ``elapsed`` seconds off ``side``'s clock and adds the
        increment (and the next control's time); returns the seconds over when the
        clock is flagged (more than :data:`CLOCK_TOLERANCE` below zero), else None."""
        clock = self.clock
        if clock is None:
            return None
        self.times[side] -= elapsed
        if self.times[side] < -CLOCK_TOLERANCE:
            return -self.times[side]
        white = side == 0
        self.times[side] += clock.white_increment if white else clock.black_increment
        self.moves_made[side] += 1
        if clock.moves_to_go and self.moves_made[side] % clock.moves_to_go == 0:
            self.times[side] += clock.white_time if white else clock.black_time
        return None
