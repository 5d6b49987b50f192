"""The time control of a match: a clock's text (``[MOVES/]TIME[+INCREMENT]``), read
and written, and both sides' time during a game.

>>> clock = parse_clock("60+0.5")
>>> time_control_text(None, clock), time_control_text(0.1, None), time_control_text(None, None)
('60+0.5', '0.1 s/move', '')
"""

from __future__ import annotations

import re

from damier.engine import Clock

__all__ = ["CLOCK_TOLERANCE", "parse_clock", "time_control_text"]

CLOCK_TOLERANCE = 0.1
"""Seconds a clock may go below zero before its engine loses on time."""

_CLOCK_RE = re.compile(r"\s*(?:(\d+)\s*/\s*)?([0-9.:]+)\s*(?:\+\s*([0-9.]+))?\s*\Z")


def _seconds(text: str) -> float:
    if ":" in text:
        parts = text.split(":")
        if len(parts) > 3 or not all(parts):
            raise ValueError(text)
        total = 0.0
        for part in parts:
            total = total * 60 + float(part)
        return total
    return float(text)


def parse_clock(text: str) -> Clock:
    """A clock from ``[MOVES/]TIME[+INCREMENT]``: ``TIME`` in seconds or
    ``M:SS``, the increment in seconds; ``MOVES/`` makes it a repeating
    control of that many moves.

    >>> parse_clock("60+0.5")
    Clock(white_time=60.0, black_time=60.0, white_increment=0.5, black_increment=0.5, moves_to_go=None)
    >>> parse_clock("40/2:00").moves_to_go, parse_clock("40/2:00").white_time
    (40, 120.0)
    """
    m = _CLOCK_RE.match(text)
    try:
        if m is None:
            raise ValueError(text)
        base = _seconds(m.group(2))
        inc = float(m.group(3)) if m.group(3) else 0.0
        moves = int(m.group(1)) if m.group(1) else None
    except ValueError:
        raise ValueError(f"bad clock {text!r}: expected [MOVES/]TIME[+INCREMENT], e.g. 60+0.5, "
                         "3:00+2 or 40/120") from None
    if base <= 0 or (moves is not None and moves < 1):
        raise ValueError(f"bad clock {text!r}: the time must be positive")
    try:
        return Clock(base, base, inc, inc, moves)
    except ValueError as err:  # a number too large: an infinite time, a huge count
        shown = text if len(text) <= 40 else text[:30] + "..."
        raise ValueError(f"bad clock {shown!r}: {err}") from None


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
