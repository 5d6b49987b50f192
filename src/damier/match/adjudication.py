"""Ending a match game early on the engines' own scores, as engine testers do:
a draw when both engines have seen the game level for a while, a win when both
have seen one side far ahead.

Each engine move comes with the score it was played with (centi-men from the
mover's side, ``Player.last_score``; None when the engine gave none). The rules
look at the last moves of the game, which alternate between the two engines, so
both have to agree:

* :class:`DrawAdjudication` ``(after, plies, score)``: from ply ``after`` on
  (opening included), a game whose last ``plies`` moves were all played with a
  score within ``score`` centi-men of 0 is a draw.
* :class:`LossAdjudication` ``(plies, score)``: a game whose last ``plies``
  moves all scored the same side at least ``score`` centi-men ahead (the winner's
  moves at least +score, the loser's at most -score) is won by that side.

A move without a score (an engine that reports none, a book move) breaks the run.
The game's PDN Termination is ``"adjudication"``, its last comment says which rule.

>>> rule = DrawAdjudication.parse("after=80,plies=8,score=20")
>>> rule
DrawAdjudication(after=80, plies=8, score=20)
>>> rule.applies(80, [5, -3, 0, 12, -20, 1, 0, 7])
True
>>> rule.applies(79, [5, -3, 0, 12, -20, 1, 0, 7]), rule.applies(80, [5, -3, 0, 12, -21, 1, 0, 7])
(False, False)
>>> LossAdjudication.parse("plies=4,score=300").winner([True, False, True, False],
...                                                   [350, -420, 300, -9000])
'1-0'

On the engines' own scores, in a match of damier against itself at 0.1 s a move
played out (benchmarks/README.md, "Adjudication"; :mod:`damier.match.replay`), a
looser draw rule, ``after=80,plies=8,score=20`` (the first defaults), would have drawn
about one decided game in five: both engines see a game level for many moves and one
still wins it. The defaults, ``after=100,plies=8,score=10``, drew none of them, and
save far fewer plies. Scores of a lead seldom tell a win in draughts (a lone king
often holds a draw against three pieces), so a loss rule needs a large score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from damier.match.options import split_options

__all__ = ["DrawAdjudication", "LossAdjudication", "Adjudication"]


def _parse_fields(text: str, what: str, defaults: dict[str, int],
                  lows: dict[str, int]) -> dict[str, int]:
    """``key=value,...`` over ``defaults`` (whole numbers of at least ``lows``);
    :class:`ValueError` naming the bad part."""
    values = dict(defaults)

    def fail(message: str) -> ValueError:
        return ValueError(f"{what}: {message}")

    for key, value in split_options(text, defaults, "key", fail):
        try:
            number = int(value)
        except ValueError:
            raise fail(f"{key} must be a whole number, got {value!r}") from None
        if number < lows[key]:
            raise fail(f"{key} must be at least {lows[key]}, got {number}")
        values[key] = number
    return values


@dataclass(frozen=True)
class DrawAdjudication:
    """A draw from ply ``after`` on (opening included) when the last ``plies``
    moves were all played with a score within ``score`` centi-men of level."""

    after: int = 100
    plies: int = 8
    score: int = 10

    def __post_init__(self) -> None:
        _check(self, after=0, plies=2, score=0)

    @classmethod
    def parse(cls, text: str) -> DrawAdjudication:
        """From ``"after=100,plies=8,score=10"`` (each key optional: the defaults);
        :class:`ValueError` naming what is wrong.

        >>> DrawAdjudication.parse("")
        DrawAdjudication(after=100, plies=8, score=10)
        >>> DrawAdjudication.parse("plies=1")
        Traceback (most recent call last):
        ...
        ValueError: draw adjudication: plies must be at least 2, got 1
        """
        d = cls()
        return cls(**_parse_fields(text, "draw adjudication",
                                   {"after": d.after, "plies": d.plies, "score": d.score},
                                   {"after": 0, "plies": 2, "score": 0}))

    def applies(self, ply: int, scores: Sequence[int | None]) -> bool:
        """Whether a game at ``ply`` whose moves were played with ``scores`` (the
        mover's, in order; None: none given) is a draw by this rule."""
        if ply < self.after or len(scores) < self.plies:
            return False
        return all(s is not None and abs(s) <= self.score for s in scores[-self.plies:])

    def text(self) -> str:
        return f"after={self.after},plies={self.plies},score={self.score}"

    def reason(self) -> str:
        return (f"draw by adjudication: both engines scored the last {self.plies} moves "
                f"within {self.score / 100:.2f} men of level")


@dataclass(frozen=True)
class LossAdjudication:
    """A win for the side that the last ``plies`` moves all scored at least
    ``score`` centi-men ahead (both engines agreeing)."""

    plies: int = 8
    score: int = 500

    def __post_init__(self) -> None:
        _check(self, plies=2, score=1)

    @classmethod
    def parse(cls, text: str) -> LossAdjudication:
        """From ``"plies=8,score=500"`` (each key optional: the defaults);
        :class:`ValueError` naming what is wrong.

        >>> LossAdjudication.parse("score=3.5")
        Traceback (most recent call last):
        ...
        ValueError: loss adjudication: score must be a whole number, got '3.5'
        """
        d = cls()
        return cls(**_parse_fields(text, "loss adjudication",
                                   {"plies": d.plies, "score": d.score},
                                   {"plies": 2, "score": 1}))

    def winner(self, white_moved: Sequence[bool], scores: Sequence[int | None]) -> str | None:
        """``"1-0"`` or ``"0-1"`` when this rule ends a game whose moves were played
        by White or not (``white_moved``) with ``scores`` (the mover's); else None."""
        if len(scores) < self.plies:
            return None
        ahead = set()
        for white, s in zip(white_moved[-self.plies:], scores[-self.plies:], strict=True):
            if s is None:
                return None
            for_white = s if white else -s
            if for_white >= self.score:
                ahead.add("1-0")
            elif for_white <= -self.score:
                ahead.add("0-1")
            else:
                return None
        return ahead.pop() if len(ahead) == 1 else None

    def text(self) -> str:
        return f"plies={self.plies},score={self.score}"

    def reason(self, result: str) -> str:
        winner, loser = ("White", "Black") if result == "1-0" else ("Black", "White")
        return (f"{winner} wins by adjudication: both engines scored the last {self.plies} "
                f"moves {self.score / 100:.2f} men or more for {winner} ({loser} lost)")


def _check(rule: Any, **lows: int) -> None:
    for key, low in lows.items():
        value = getattr(rule, key)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{type(rule).__name__}.{key} must be a whole number of at "
                             f"least {low}, got {value!r}")


@dataclass(frozen=True)
class Adjudication:
    """The adjudication rules of a match (None: that rule is off)."""

    draw: DrawAdjudication | None = None
    loss: LossAdjudication | None = None

    def to_json(self) -> dict[str, str] | None:
        """What a match journal records (None: no rule)."""
        if self.draw is None and self.loss is None:
            return None
        out = {}
        if self.draw is not None:
            out["draw"] = self.draw.text()
        if self.loss is not None:
            out["loss"] = self.loss.text()
        return out

    def ending(self, ply: int, white_moved: Sequence[bool],
               scores: Sequence[int | None]) -> tuple[str, str] | None:
        """``(result, reason)`` when a rule ends the game at ``ply`` (the moves so
        far: by White or not, and their scores); else None."""
        if self.loss is not None:
            result = self.loss.winner(white_moved, scores)
            if result is not None:
                return result, self.loss.reason(result)
        if self.draw is not None and self.draw.applies(ply, scores):
            return "1/2-1/2", self.draw.reason()
        return None
