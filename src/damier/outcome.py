"""How a game ends: :class:`Termination`, :class:`Outcome` and the draw-rule bookkeeping.

This module knows nothing about boards. The board records one :class:`Snapshot`
per position of the game (the start position first, then one after every
move) and calls :func:`compute_outcome` after each move:

>>> from damier.outcome import Snapshot, compute_outcome, Termination
>>> from damier.rules import Rules
>>> start = Snapshot(key=1, white_to_move=True, white_men=0, white_kings=1,
...                  black_men=0, black_kings=1, king_move=False, capture=False, promotion=False)
>>> compute_outcome([start], Rules(), has_legal_move=True) is None
True
>>> compute_outcome([start], Rules(), has_legal_move=False)
Outcome(termination=<Termination.NO_MOVES: 'no_moves'>, winner=False)
>>> compute_outcome([start], Rules(king_vs_king_immediate=True), has_legal_move=True).result()
'1/2-1/2'

Rule order
----------
:func:`compute_outcome` checks, in this order, and reports the first that
applies (only the reported reason can differ; every rule after the first
is a draw):

1. ``NO_MOVES``: the side to move has no legal move and loses;
2. ``KING_VS_KING``: king against king with :attr:`Rules.king_vs_king_immediate`;
3. ``THREEFOLD_REPETITION``: :attr:`Rules.repetition_limit`;
4. ``FIVE_MOVES``: :attr:`Rules.five_moves_limit`;
5. ``SIXTEEN_MOVES``: :attr:`Rules.sixteen_moves_limit`;
6. ``THREE_KINGS_VS_KING``: :attr:`Rules.three_kings_limit`;
7. ``ONE_PIECE_EACH``: :attr:`Rules.one_piece_each_limit` (Turkish);
   ``TWO_KINGS_VS_KING``: :attr:`Rules.two_kings_limit`; ``KING_VS_KING`` again for
   :attr:`Rules.king_vs_king_limit` (Frisian);
8. ``BALANCE_UNCHANGED``: :attr:`Rules.balance_unchanged_limits`;
9. ``KING_MOVES``: :attr:`Rules.king_moves_limit`.

Counting
--------
All limits are moves by each player, so a limit of ``n`` is reached ``2 * n``
plies after the position where the count starts. For the king-move rule the
count is the number of consecutive plies, ending with the current one, that
moved a king without capturing. The endgame rules count from the first
snapshot of the current unbroken run of positions in their class (the 16- and
5-move rules: the class of balance; the Russian rules: the exact material), so
a capture from a 16-move ending into a 5-move ending starts the 5-move count
at that capture.

Cost
----
Every rule looks back only as far as it needs: repetition to the last
irreversible move (a capture or a man move: no position before it can occur
again), the move-count rules at most ``2 * limit + 1`` snapshots. A call after
each move of a game therefore costs a bounded amount of work, whatever the
length of the game.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .piece import BLACK, WHITE, Color
from .rules import Rules
from .variants import Variant, get_variant

__all__ = [
    "Termination",
    "Outcome",
    "Snapshot",
    "compute_outcome",
    "adjudicate",
    "draw_offer_allowed",
]


class Termination(enum.Enum):
    """Why a game ended.

    >>> Termination.KING_MOVES.describe(Rules.for_variant("international"))
    '25 king moves'
    >>> Termination.KING_MOVES.describe(Rules.for_variant("russian"))
    '15 king moves'
    >>> Termination.NO_MOVES.describe()
    'no legal move'
    >>> Termination.NO_MOVES.is_draw, Termination.FIVE_MOVES.is_draw
    (False, True)
    """

    NO_MOVES = "no_moves"
    """The side to move has no legal move (no pieces left, or all blocked) and loses."""
    NO_MOVES_WINS = "no_moves_wins"
    """Antidraughts: the side to move has no legal move (no pieces left, or all blocked)
    and wins."""
    CROWNED = "crowned"
    """Breakthrough: a man was crowned, and its side wins."""
    THREEFOLD_REPETITION = "threefold_repetition"
    """The same position with the same side to move occurred for the third time
    (:attr:`Rules.repetition_limit`)."""
    KING_MOVES = "king_moves"
    """The king-move rule: only king moves and no capture for 25 (International,
    Brazilian), 15 (Russian) or 40 (English) moves by each player
    (:attr:`Rules.king_moves_limit`)."""
    SIXTEEN_MOVES = "sixteen_moves"
    """The 16-move rule: a lone king against three pieces including a king
    (:attr:`Rules.sixteen_moves_limit`)."""
    FIVE_MOVES = "five_moves"
    """The 5-move rule: a lone king against two or fewer pieces including a king
    (:attr:`Rules.five_moves_limit`)."""
    KING_VS_KING = "king_vs_king"
    """King against king, drawn at once (:attr:`Rules.king_vs_king_immediate`) or after a
    few moves (:attr:`Rules.king_vs_king_limit`, Frisian)."""
    ONE_PIECE_EACH = "one_piece_each"
    """Turkish: one piece against one piece, not decided in time
    (:attr:`Rules.one_piece_each_limit`)."""
    TWO_KINGS_VS_KING = "two_kings_vs_king"
    """Frisian: two kings failed to beat a lone king in time (:attr:`Rules.two_kings_limit`)."""
    THREE_KINGS_VS_KING = "three_kings_vs_king"
    """Russian: three (or more) kings failed to beat a lone king in time
    (:attr:`Rules.three_kings_limit`)."""
    BALANCE_UNCHANGED = "balance_unchanged"
    """Russian: both sides have kings and the balance of pieces did not change
    for too long (:attr:`Rules.balance_unchanged_limits`)."""
    ADJUDICATION = "adjudication"
    """A stopped game decided by piece count (:func:`adjudicate`)."""
    AGREEMENT = "agreement"
    """The players agreed to a draw."""
    RESIGNATION = "resignation"
    """A player resigned."""
    TIME_FORFEIT = "time_forfeit"
    """A player's time ran out (the flag fell): that player loses, whatever is left on the
    board (draughts has no rule that draws for lack of material, as chess does)."""

    @property
    def is_draw(self) -> bool:
        """True for the terminations that always end in a draw."""
        return self in _DRAWN

    @property
    def is_decisive(self) -> bool:
        """True for the terminations that always have a winner."""
        return self in _DECISIVE

    def describe(self, rules: Rules | None = None) -> str:
        """The termination in words, with the numbers of ``rules``
        (the FMJD rules when None).

        >>> Termination.FIVE_MOVES.describe()
        '5-move rule'
        >>> Termination.BALANCE_UNCHANGED.describe(Rules.for_variant("russian"))
        'unchanged balance of pieces (30/60 moves)'
        >>> Termination.THREEFOLD_REPETITION.describe(Rules(repetition_limit=2))
        'twofold repetition'
        """
        r = rules if rules is not None else Rules()
        if self is Termination.NO_MOVES:
            return "no legal move"
        if self is Termination.NO_MOVES_WINS:
            return "no legal move, which wins"
        if self is Termination.CROWNED:
            return "first king crowned"
        if self is Termination.THREEFOLD_REPETITION:
            n = r.repetition_limit
            if n is None:
                return "repetition"
            return f"{_FOLD.get(n, f'{n}-fold')} repetition"
        if self is Termination.KING_MOVES:
            n = r.king_moves_limit
            return "king-move rule" if n is None else f"{n} king moves"
        if self is Termination.SIXTEEN_MOVES:
            n = r.sixteen_moves_limit
            return "16-move rule" if n is None else f"{n}-move rule"
        if self is Termination.FIVE_MOVES:
            n = r.five_moves_limit
            return "5-move rule" if n is None else f"{n}-move rule"
        if self is Termination.KING_VS_KING:
            return "king against king"
        if self is Termination.THREE_KINGS_VS_KING:
            n = r.three_kings_limit
            base = "three kings against a lone king"
            return base if n is None else f"{base} ({n} moves)"
        if self is Termination.ONE_PIECE_EACH:
            n = r.one_piece_each_limit
            return "one piece each" if n is None else f"one piece each ({n} moves)"
        if self is Termination.TWO_KINGS_VS_KING:
            n = r.two_kings_limit
            base = "two kings against a lone king"
            return base if n is None else f"{base} ({n} moves)"
        if self is Termination.BALANCE_UNCHANGED:
            base = "unchanged balance of pieces"
            limits = sorted({moves for _, moves in r.balance_unchanged_limits})
            if not limits:
                return base
            return f"{base} ({'/'.join(str(m) for m in limits)} moves)"
        if self is Termination.ADJUDICATION:
            return "adjudication by piece count"
        if self is Termination.AGREEMENT:
            return "agreement"
        if self is Termination.TIME_FORFEIT:
            return "time forfeit"
        return "resignation"


_FOLD = {2: "twofold", 3: "threefold", 4: "fourfold", 5: "fivefold"}

_DECISIVE = frozenset({Termination.NO_MOVES, Termination.NO_MOVES_WINS, Termination.CROWNED,
                       Termination.RESIGNATION, Termination.TIME_FORFEIT})
_DRAWN = frozenset(
    {
        Termination.THREEFOLD_REPETITION,
        Termination.KING_MOVES,
        Termination.SIXTEEN_MOVES,
        Termination.FIVE_MOVES,
        Termination.KING_VS_KING,
        Termination.THREE_KINGS_VS_KING,
        Termination.BALANCE_UNCHANGED,
        Termination.AGREEMENT,
    }
)


_RESULTS = ("1-0", "1/2-1/2", "0-1")
"""The results as :meth:`Outcome.result` gives them without a variant (White's
win, a draw, Black's win: the order of :attr:`~damier.variants.Variant.pdn_results`)."""


@dataclass(frozen=True)
class Outcome:
    """The end of a game: why, and who won (None for a draw).

    >>> Outcome(Termination.NO_MOVES, winner=WHITE).result()
    '1-0'
    >>> Outcome(Termination.RESIGNATION, winner=BLACK).result()
    '0-1'
    >>> Outcome(Termination.THREEFOLD_REPETITION, winner=None).result()
    '1/2-1/2'
    >>> Outcome(Termination.AGREEMENT, winner=WHITE)
    Traceback (most recent call last):
    ...
    ValueError: Termination.AGREEMENT is always a draw, got winner=True
    """

    termination: Termination
    winner: Color | None
    """``damier.WHITE`` (True), ``damier.BLACK`` (False), or None for a draw."""

    def __post_init__(self) -> None:
        if not isinstance(self.termination, Termination):
            raise ValueError(f"termination must be a Termination, got {self.termination!r}")
        if self.winner is not None and not isinstance(self.winner, bool):
            raise ValueError(f"winner must be True (white), False (black) or None, "
                             f"got {self.winner!r}")
        if self.termination.is_draw and self.winner is not None:
            raise ValueError(f"{self.termination} is always a draw, got winner={self.winner!r}")
        if self.termination.is_decisive and self.winner is None:
            raise ValueError(f"{self.termination} needs a winner")

    @property
    def is_draw(self) -> bool:
        """True when nobody won."""
        return self.winner is None

    def result(self, variant: Variant | str | None = None) -> str:
        """``"1-0"`` (White won), ``"0-1"`` (Black won) or ``"1/2-1/2"``: the
        same in every variant; with ``variant``, in that variant's notation
        (:attr:`~damier.variants.Variant.pdn_results`: ``"2-0"``, ``"0-2"``,
        ``"1-1"`` in International, Brazilian and Russian), as
        :meth:`damier.Board.result` and the PDN writer give it.

        >>> Outcome(Termination.NO_MOVES, winner=WHITE).result("international")
        '2-0'
        >>> Outcome(Termination.AGREEMENT, winner=None).result("english")
        '1/2-1/2'
        """
        index = 1 if self.winner is None else 0 if self.winner else 2
        if variant is None:
            return _RESULTS[index]
        return get_variant(variant).pdn_results[index]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the draw rules need to know about one position of a game.

    The board appends one per position: the start position (with ``king_move``,
    ``capture`` and ``promotion`` False), then one after each move.
    """

    key: int
    """Hash of the position including the side to move: equal keys mean the same position."""
    white_to_move: bool
    """True when White is to move in this position."""
    white_men: int
    white_kings: int
    black_men: int
    black_kings: int
    king_move: bool
    """The move that led here moved a king and captured nothing (False for the start position)."""
    capture: bool
    """The move that led here captured at least one piece."""
    promotion: bool
    """The move that led here crowned a man."""

    @property
    def material(self) -> tuple[int, int, int, int]:
        """``(white_men, white_kings, black_men, black_kings)``."""
        return (self.white_men, self.white_kings, self.black_men, self.black_kings)

    @property
    def pieces(self) -> int:
        """The number of pieces on the board."""
        return self.white_men + self.white_kings + self.black_men + self.black_kings


# --------------------------------------------------------------------------
# Classes of material used by the endgame rules
# --------------------------------------------------------------------------

_FIVE = 5
_SIXTEEN = 16


def _lone_king_class(s: Snapshot) -> int | None:
    """_FIVE when one side has a lone king and the other one or two pieces with a
    king (king against king included), _SIXTEEN when the other side has exactly
    three pieces with a king, else None."""
    if s.white_men == 0 and s.white_kings == 1:
        other_kings, other = s.black_kings, s.black_men + s.black_kings
    elif s.black_men == 0 and s.black_kings == 1:
        other_kings, other = s.white_kings, s.white_men + s.white_kings
    else:
        return None
    if other_kings == 0:
        return None
    if other <= 2:
        return _FIVE
    if other == 3:
        return _SIXTEEN
    return None


def _is_three_kings_vs_king(s: Snapshot) -> bool:
    """One side a lone king, the other three or more kings and no men."""
    if s.white_men == 0 and s.white_kings == 1:
        return s.black_men == 0 and s.black_kings >= 3
    if s.black_men == 0 and s.black_kings == 1:
        return s.white_men == 0 and s.white_kings >= 3
    return False


def _run_at_least(snapshots: Sequence[Snapshot], plies: int,
                  same: Callable[[Snapshot], bool]) -> bool:
    """True when the last ``plies + 1`` snapshots all satisfy ``same``, i.e. the
    current run of positions started at least ``plies`` plies ago."""
    last = len(snapshots) - 1
    first = last - plies
    if first < 0:
        return False
    for i in range(last - 1, first - 1, -1):  # the current snapshot satisfies it by construction
        if not same(snapshots[i]):
            return False
    return True


def _repetitions(snapshots: Sequence[Snapshot], stop_at: int) -> int:
    """How often the current position (same key, same side to move) occurred,
    counting back to the last irreversible move; stops counting at ``stop_at``."""
    last = len(snapshots) - 1
    cur = snapshots[last]
    key, side = cur.key, cur.white_to_move
    count = 0
    for i in range(last, -1, -1):
        s = snapshots[i]
        if s.key == key and s.white_to_move == side:
            count += 1
            if count >= stop_at:
                break
        if s.capture or not s.king_move:
            # reached by a capture or a man move (or the start position):
            # no earlier position can occur again
            break
    return count


def _king_moves_run_at_least(snapshots: Sequence[Snapshot], plies: int) -> bool:
    """True when the last ``plies`` moves all moved a king without capturing."""
    last = len(snapshots) - 1
    if last < plies:
        return False
    for i in range(last, last - plies, -1):
        s = snapshots[i]
        if not s.king_move or s.capture:
            return False
    return True


def compute_outcome(snapshots: Sequence[Snapshot], rules: Rules,
                    has_legal_move: bool, goal: str = "normal") -> Outcome | None:
    """The outcome of the game whose positions are ``snapshots``, or None while it goes on.

    ``snapshots[0]`` is the game's start position and ``snapshots[-1]`` the
    current one; ``has_legal_move`` says whether the side to move in the
    current position has a legal move. The rules are checked in the order
    given in the module documentation; the first that applies decides.
    Piece-count adjudication, agreement and resignation never come from here
    (see :func:`adjudicate`). ``goal`` is the variant's
    (:attr:`damier.variants.Variant.goal`): in antidraughts (``"misere"``) having no
    legal move wins; in breakthrough (``"crown"``) a king on the board ended the game,
    won by its side (the side not to move when both have one, a set-up position only).
    """
    if not snapshots:
        raise ValueError("compute_outcome needs at least the start position")
    cur = snapshots[-1]
    if goal == "crown" and (cur.white_kings or cur.black_kings):
        mover_has = cur.white_kings if cur.white_to_move else cur.black_kings
        other_has = cur.black_kings if cur.white_to_move else cur.white_kings
        mover = WHITE if cur.white_to_move else BLACK
        return Outcome(Termination.CROWNED,
                       winner=mover if mover_has and not other_has else (not mover))
    if not has_legal_move:
        if goal == "misere":
            return Outcome(Termination.NO_MOVES_WINS,
                           winner=WHITE if cur.white_to_move else BLACK)
        return Outcome(Termination.NO_MOVES, winner=BLACK if cur.white_to_move else WHITE)
    # The side not to move has lost every piece: only possible after a huff
    # (English, opt-in), which removes a piece without passing the turn.
    opponent_pieces = (cur.black_men + cur.black_kings if cur.white_to_move
                       else cur.white_men + cur.white_kings)
    if opponent_pieces == 0:
        return Outcome(Termination.NO_MOVES, winner=WHITE if cur.white_to_move else BLACK)

    if (
        rules.king_vs_king_immediate
        and cur.white_men == 0
        and cur.black_men == 0
        and cur.white_kings == 1
        and cur.black_kings == 1
    ):
        return Outcome(Termination.KING_VS_KING, None)

    limit = rules.repetition_limit
    if limit is not None and _repetitions(snapshots, limit) >= limit:
        return Outcome(Termination.THREEFOLD_REPETITION, None)

    cls = _lone_king_class(cur)
    if cls is not None:
        moves = rules.five_moves_limit if cls == _FIVE else rules.sixteen_moves_limit
        if moves is not None and _run_at_least(snapshots, 2 * moves,
                                               lambda s: _lone_king_class(s) == cls):
            return Outcome(Termination.FIVE_MOVES if cls == _FIVE else Termination.SIXTEEN_MOVES,
                           None)

    material = cur.material
    if rules.three_kings_limit is not None and _is_three_kings_vs_king(cur):
        if _run_at_least(snapshots, 2 * rules.three_kings_limit, lambda s: s.material == material):
            return Outcome(Termination.THREE_KINGS_VS_KING, None)

    if (rules.one_piece_each_limit is not None
            and cur.white_men + cur.white_kings == 1 and cur.black_men + cur.black_kings == 1
            and _run_at_least(snapshots, 2 * rules.one_piece_each_limit,
                              lambda s: s.material == material)):
        return Outcome(Termination.ONE_PIECE_EACH, None)

    if cur.white_men == 0 and cur.black_men == 0:
        kings = sorted((cur.white_kings, cur.black_kings))
        frisian = {(1, 2): (rules.two_kings_limit, Termination.TWO_KINGS_VS_KING),
                   (1, 1): (rules.king_vs_king_limit, Termination.KING_VS_KING)}.get(
                       (kings[0], kings[1]))
        if frisian is not None and frisian[0] is not None and _run_at_least(
                snapshots, 2 * frisian[0], lambda s: s.material == material):
            return Outcome(frisian[1], None)

    if rules.balance_unchanged_limits and cur.white_kings and cur.black_kings:
        moves = rules.balance_unchanged_limit(cur.pieces)
        if moves is not None and _run_at_least(snapshots, 2 * moves,
                                               lambda s: s.material == material):
            return Outcome(Termination.BALANCE_UNCHANGED, None)

    if (rules.king_moves_limit is not None
            and _king_moves_run_at_least(snapshots, 2 * rules.king_moves_limit)):
        return Outcome(Termination.KING_MOVES, None)

    return None


def adjudicate(snapshot: Snapshot) -> Outcome:
    """Piece-count adjudication of a stopped game (an option of some International
    tournaments): the side with more pieces wins; with equal numbers, the side with more
    kings; otherwise a draw. Applications call this when
    :attr:`Rules.piece_count_adjudication` is set and a game is stopped.

    >>> s = Snapshot(key=0, white_to_move=True, white_men=3, white_kings=1,
    ...              black_men=2, black_kings=2, king_move=False, capture=False, promotion=False)
    >>> adjudicate(s)  # four pieces each, Black has more kings
    Outcome(termination=<Termination.ADJUDICATION: 'adjudication'>, winner=False)
    """
    white = snapshot.white_men + snapshot.white_kings
    black = snapshot.black_men + snapshot.black_kings
    if white != black:
        return Outcome(Termination.ADJUDICATION, WHITE if white > black else BLACK)
    if snapshot.white_kings != snapshot.black_kings:
        return Outcome(Termination.ADJUDICATION,
                       WHITE if snapshot.white_kings > snapshot.black_kings else BLACK)
    return Outcome(Termination.ADJUDICATION, None)


def draw_offer_allowed(plies_played: int, rules: Rules) -> bool:
    """Whether a draw may be offered after ``plies_played`` plies of the game:
    each player must have made at least :attr:`Rules.draw_offer_min_moves`
    moves (40 in some International tournaments; 0, always allowed, by default).

    >>> from dataclasses import replace
    >>> r = replace(Rules(), draw_offer_min_moves=40)
    >>> draw_offer_allowed(79, r), draw_offer_allowed(80, r), draw_offer_allowed(0, Rules())
    (False, True, True)
    """
    if plies_played < 0:
        raise ValueError(f"plies_played must be >= 0, got {plies_played}")
    return plies_played >= 2 * rules.draw_offer_min_moves
