"""Engine scores, modelled on python-chess's ``chess.engine.Score`` and ``PovScore``.

A :class:`Score` is seen from one side: :class:`Cm` is an evaluation in
centi-men (100 = one man; python-chess's ``Cp``), :class:`Win` a forced win and
:class:`Loss` a forced loss, both in **plies** (half-moves) as the engine counts
them. A :class:`PovScore` is a relative score and the colour it is relative to.

>>> from damier import WHITE, BLACK
>>> score = PovScore(Cm(35), BLACK)
>>> score.relative, score.white(), score.black()
(Cm(+35), Cm(-35), Cm(+35))
>>> str(PovScore(Win(7), WHITE).black())
'loss in 7'
>>> Loss(2) < Cm(-900) < Cm(0) < Cm(120) < Win(9) < Win(3)
True
>>> Win(7).win_in(), Win(7).score(), Win(7).score(win_score=31000)
(7, None, 30993)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from damier._core import MATE_SCORE, MATE_THRESHOLD
from damier.piece import BLACK, WHITE, Color

__all__ = ["Score", "Cm", "Win", "Loss", "PovScore", "MATE_SCORE", "MATE_THRESHOLD"]


class Score(ABC):
    """A score from the point of view of one side (see the module documentation).

    Scores compare as the side would rank them: a loss in fewer plies is the
    worst, then longer losses, evaluations by value, longer wins, and a win in
    fewer plies is the best. ``-score`` is the same score seen from the other side.
    """

    __slots__ = ()

    @abstractmethod
    def score(self, *, win_score: int | None = None) -> int | None:
        """The evaluation in centi-men; a forced win or loss gives None, or with
        ``win_score`` the number ``win_score - plies`` (its negation for a loss).

        ``win_score=MATE_SCORE`` gives back the engine's own number:

        >>> Score.from_engine(MATE_SCORE - 5).score(win_score=MATE_SCORE) == MATE_SCORE - 5
        True
        """

    def win_in(self) -> int | None:
        """Plies to a forced win, or None when the score is no forced win."""
        return None

    def loss_in(self) -> int | None:
        """Plies to a forced loss, or None when the score is no forced loss."""
        return None

    def is_win(self) -> bool:
        return self.win_in() is not None

    def is_loss(self) -> bool:
        return self.loss_in() is not None

    @abstractmethod
    def __neg__(self) -> Score: ...

    def __pos__(self) -> Score:
        return self

    @abstractmethod
    def _key(self) -> tuple[int, int]: ...

    @staticmethod
    def from_engine(value: int) -> Score:
        """The score of an engine number: centi-men, or ``MATE_SCORE - plies`` for
        a forced win (a loss the negation), as :class:`damier.engine.Engine`
        reports them.

        >>> (Score.from_engine(-135), Score.from_engine(MATE_SCORE - 7),
        ...  Score.from_engine(-MATE_SCORE))
        (Cm(-135), Win(7), Loss(0))
        """
        value = int(value)
        if value > MATE_THRESHOLD:
            return Win(MATE_SCORE - value)
        if value < -MATE_THRESHOLD:
            return Loss(MATE_SCORE + value)
        return Cm(value)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._key() < other._key()

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._key() <= other._key()

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._key() > other._key()

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._key() >= other._key()


@dataclass(frozen=True, eq=True, order=False, repr=False)
class Cm(Score):
    """An evaluation in centi-men (100 = one man).

    >>> Cm(35), str(Cm(35)), -Cm(35), Cm(35).score()
    (Cm(+35), '+0.35', Cm(-35), 35)
    """

    centimen: int

    def score(self, *, win_score: int | None = None) -> int | None:
        return self.centimen

    def __neg__(self) -> Score:
        return Cm(-self.centimen)

    def _key(self) -> tuple[int, int]:
        return (1, self.centimen)

    def __repr__(self) -> str:
        return f"Cm({self.centimen:+d})"

    def __str__(self) -> str:
        return f"{self.centimen / 100:+.2f}"


@dataclass(frozen=True, eq=True, order=False, repr=False)
class Win(Score):
    """A forced win in ``plies`` half-moves (0: the opponent has already lost).

    >>> Win(7), str(Win(7)), -Win(7)
    (Win(7), 'win in 7', Loss(7))
    """

    plies: int

    def score(self, *, win_score: int | None = None) -> int | None:
        return None if win_score is None else win_score - self.plies

    def win_in(self) -> int | None:
        return self.plies

    def __neg__(self) -> Score:
        return Loss(self.plies)

    def _key(self) -> tuple[int, int]:
        return (2, -self.plies)

    def __repr__(self) -> str:
        return f"Win({self.plies})"

    def __str__(self) -> str:
        return f"win in {self.plies}"


@dataclass(frozen=True, eq=True, order=False, repr=False)
class Loss(Score):
    """A forced loss in ``plies`` half-moves (0: lost, no legal move).

    >>> Loss(4), str(Loss(4)), Loss(4).loss_in(), Loss(4).score(win_score=MATE_SCORE)
    (Loss(4), 'loss in 4', 4, -30996)
    """

    plies: int

    def score(self, *, win_score: int | None = None) -> int | None:
        return None if win_score is None else -(win_score - self.plies)

    def loss_in(self) -> int | None:
        return self.plies

    def __neg__(self) -> Score:
        return Win(self.plies)

    def _key(self) -> tuple[int, int]:
        return (0, self.plies)

    def __repr__(self) -> str:
        return f"Loss({self.plies})"

    def __str__(self) -> str:
        return f"loss in {self.plies}"


class PovScore:
    """A score relative to one side: ``relative`` is seen from ``turn``.

    >>> from damier import WHITE, BLACK
    >>> s = PovScore(Cm(-20), WHITE)
    >>> s
    PovScore(Cm(-20), WHITE)
    >>> s.pov(BLACK), s.is_decisive(), -s
    (Cm(+20), False, PovScore(Cm(+20), BLACK))
    >>> eval(repr(s)) == s
    True
    """

    __slots__ = ("relative", "turn")

    def __init__(self, relative: Score, turn: Color) -> None:
        if not isinstance(relative, Score):
            raise TypeError(f"relative must be a Score, not {type(relative).__name__}")
        self.relative: Score = relative
        self.turn: Color = bool(turn)

    def white(self) -> Score:
        """The score from White's point of view."""
        return self.pov(WHITE)

    def black(self) -> Score:
        """The score from Black's point of view."""
        return self.pov(BLACK)

    def pov(self, color: Color) -> Score:
        """The score from ``color``'s point of view."""
        return self.relative if bool(color) == self.turn else -self.relative

    def is_decisive(self) -> bool:
        """Whether one side (either) has a forced win (python-chess's ``is_mate``)."""
        return self.relative.is_win() or self.relative.is_loss()

    def __neg__(self) -> PovScore:
        return PovScore(-self.relative, not self.turn)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PovScore):
            return NotImplemented
        return self.white() == other.white()

    def __hash__(self) -> int:
        return hash(self.white())

    def __repr__(self) -> str:
        return f"PovScore({self.relative!r}, {'WHITE' if self.turn else 'BLACK'})"

    def __str__(self) -> str:
        return str(self.relative)
