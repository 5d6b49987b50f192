"""Draw rules and rule options of a game.

:class:`Rules` collects every rule that decides when a game ends other than by
a player running out of moves: repetition, the king-move rules, the endgame
move limits, and the options that players, tournaments and sites switch on or
off. :meth:`Rules.for_variant` gives each variant's usual rules; every field
can be changed with :func:`dataclasses.replace`, and a limit set to ``None``
switches its rule off.

All move limits count *moves by each player* (a limit of 25 is reached after
50 plies), as the rule texts word them.

>>> from dataclasses import replace
>>> from damier.rules import Rules
>>> fmjd = Rules.for_variant("international")
>>> fmjd.repetition_limit, fmjd.king_moves_limit, fmjd.sixteen_moves_limit, fmjd.five_moves_limit
(3, 25, 16, 5)
>>> Rules() == fmjd
True
>>> replace(fmjd, king_moves_limit=None).king_moves_limit is None
True
>>> Rules.for_variant("english").king_moves_limit
40
>>> Rules.for_variant("russian").three_kings_limit
15

Each variant's usual rules are the :attr:`~damier.variants.Variant.draw_rules`
of its entry in the variant registry, :mod:`damier.variants`, which also says
where they come from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from damier.variants import Variant

__all__ = ["Rules"]

_variant_lookup: "Callable[[Variant | str], Variant] | None" = None
"""How :meth:`Rules.for_variant` finds a variant: the registry
(:func:`damier.variants.get_variant`) sets it when it is loaded
(:func:`use_variant_lookup`), since it imports this module (this module never imports
it back)."""


def use_variant_lookup(lookup: "Callable[[Variant | str], Variant]") -> None:
    """Sets the variant lookup of :meth:`Rules.for_variant` (the registry calls this)."""
    global _variant_lookup
    _variant_lookup = lookup

BalanceLimits = tuple[tuple[int, int], ...]


def _normalize_balance(limits: Any) -> BalanceLimits:
    """``{pieces: moves}`` or ``((pieces, moves), ...)`` as a sorted tuple of pairs."""
    if limits is None:
        return ()
    items = limits.items() if isinstance(limits, Mapping) else limits
    pairs: dict[int, int] = {}
    for item in items:
        try:
            pieces, moves = item
        except (TypeError, ValueError):
            raise ValueError(
                f"balance_unchanged_limits entries must be (pieces, moves) pairs, got {item!r}"
            ) from None
        if not isinstance(pieces, int) or isinstance(pieces, bool) or pieces < 2:
            raise ValueError(f"balance_unchanged_limits: piece count must be an int >= 2, "
                             f"got {pieces!r}")
        if not isinstance(moves, int) or isinstance(moves, bool) or moves < 1:
            raise ValueError(f"balance_unchanged_limits: move limit must be an int >= 1, "
                             f"got {moves!r}")
        if pieces in pairs:
            raise ValueError(f"balance_unchanged_limits: piece count {pieces} given twice")
        pairs[pieces] = moves
    return tuple(sorted(pairs.items()))


@dataclass(frozen=True)
class Rules:
    """The draw rules and rule options of a game.

    The defaults are the FMJD rules of International draughts; use
    :meth:`for_variant` for another variant's usual rules and
    :func:`dataclasses.replace` to change single fields. Setting a limit to
    ``None`` switches that rule off.

    >>> from dataclasses import replace
    >>> rules = replace(Rules(), king_vs_king_immediate=True, draw_offer_min_moves=40)
    >>> rules.king_vs_king_immediate, rules.draw_offer_min_moves, rules.king_moves_limit
    (True, 40, 25)
    >>> Rules(king_moves_limit=0)
    Traceback (most recent call last):
    ...
    ValueError: king_moves_limit must be None or an int >= 1, got 0
    """

    repetition_limit: int | None = 3
    """The game is drawn when the same position, with the same side to move,
    occurs for the ``repetition_limit``-th time (the occurrences need not be
    consecutive). ``3`` is threefold repetition; ``None`` switches it off.

    >>> Rules().repetition_limit
    3
    """

    king_moves_limit: int | None = 25
    """Drawn after this many consecutive moves by *each* player in which only
    kings moved and nothing was captured (twice as many plies); a man move or
    a capture starts the count again. 25 in International and Brazilian
    (FMJD), 15 in Russian, 40 in English (the 40-move rule: no man moved and
    nothing captured during each player's last 40 moves).

    >>> Rules.for_variant("international").king_moves_limit
    25
    >>> Rules.for_variant("russian").king_moves_limit
    15
    """

    sixteen_moves_limit: int | None = 16
    """The 16-move rule: when one side has only a lone king and the other
    exactly three pieces, at least one of them a king (three kings, two kings
    and a man, or a king and two men), the game is drawn after each player
    made this many moves, counted from the position in which that balance
    arose. A promotion that keeps the balance in this class (a king and two
    men becoming two kings and a man) does not start the count again; a
    capture that leaves two pieces against the king leaves this rule for the
    5-move rule, whose count starts at that capture.

    >>> Rules().sixteen_moves_limit
    16
    """

    five_moves_limit: int | None = 5
    """The 5-move rule: when one side has only a lone king and the other one
    or two pieces, at least one of them a king (two kings, a king and a man, or
    a king: king against king included), the game is drawn after each player
    made this many moves, counted from the position in which that class of
    balance arose (a capture or promotion inside the class does not start the
    count again).

    >>> Rules().five_moves_limit
    5
    """

    king_vs_king_immediate: bool = False
    """Seed 001: an ending of one king against one king (and nothing else) is
    a draw at once, instead of after the 5-move rule.

    >>> Rules().king_vs_king_immediate
    False
    """

    three_kings_limit: int | None = None
    """Russian: when one side has three or more kings (and no men) against a
    lone king, the game is drawn if the stronger side has not won after each
    player made this many moves, counted from the position in which the
    current material arose (any capture or promotion starts the count again).
    15 in Russian; off elsewhere (the 16-move rule covers it).

    >>> Rules.for_variant("russian").three_kings_limit
    15
    """

    balance_unchanged_limits: BalanceLimits = ()
    """Russian: when both sides have at least one king and the material has
    not changed (no capture, no promotion), the game is drawn after each
    player made the given number of moves, by the total number of pieces on
    the board: ``((4, 30), (5, 30), (6, 60), (7, 60))`` in Russian. The count
    starts at the position in which the current material arose. A mapping
    ``{pieces: moves}`` is accepted as well and stored as sorted pairs; an
    empty tuple switches the rule off.

    >>> Rules.for_variant("russian").balance_unchanged_limits
    ((4, 30), (5, 30), (6, 60), (7, 60))
    >>> Rules(balance_unchanged_limits={3: 5, 2: 5}).balance_unchanged_limits
    ((2, 5), (3, 5))
    """

    two_kings_limit: int | None = None
    """Frisian: two kings (and no men) against a lone king are drawn if they have not won
    after each player made this many moves, counted from the position in which that
    material arose: 7 in Frisian (the Frisian rules as lidraughts plays them: "the game is
    drawn after both players made 7 moves"); off elsewhere.

    >>> Rules.for_variant("frisian").two_kings_limit
    7
    """

    king_vs_king_limit: int | None = None
    """Frisian: a king against a king (and nothing else) is drawn after each player made
    this many moves, counted from the position in which that material arose: 2 in Frisian
    (lidraughts' reading of the federation's rule, which draws such an ending at once
    unless one king is lost by force: the two moves leave room for that); off elsewhere
    (:attr:`king_vs_king_immediate` draws it at once).

    >>> Rules.for_variant("frisian").king_vs_king_limit
    2
    """

    one_piece_each_limit: int | None = None
    """Turkish: one piece against one piece (man or king) is drawn after each player made
    this many moves, counted from the position in which that material arose: 2 in
    Turkish (pydraughts' reading of the rule, which draws such an ending at once unless
    one piece is lost by force: the two moves leave room for that); off elsewhere.

    >>> Rules.for_variant("turkish").one_piece_each_limit
    2
    """

    draw_offer_min_moves: int = 0
    """Seed 001 (tournaments): a draw may be offered only after each player
    made at least this many moves (40 there); 0 allows an offer at any time.
    See :func:`damier.outcome.draw_offer_allowed`.

    >>> Rules().draw_offer_min_moves
    0
    """

    piece_count_adjudication: bool = False
    """Seed 001: when a game is stopped, the side with more pieces wins; with
    equal numbers the side with more kings wins; otherwise it is a draw. The
    game never ends by itself through this rule: an application that stops a
    game checks this flag and calls :func:`damier.outcome.adjudicate`.

    >>> Rules().piece_count_adjudication
    False
    """

    huff: bool = False
    """English, historical (the "huff" of the traditional English rules): a player who
    failed to capture when able may have the capturing piece "huffed" (removed) by the
    opponent before the opponent's move, instead of capture being strictly compulsory.
    Opt-in; the board implements the mechanics, this only carries the flag.

    >>> Rules.for_variant("english").huff
    False
    """

    def __post_init__(self) -> None:
        for name in ("king_moves_limit", "sixteen_moves_limit", "five_moves_limit",
                     "three_kings_limit", "two_kings_limit", "king_vs_king_limit",
                     "one_piece_each_limit"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or value < 1):
                raise ValueError(f"{name} must be None or an int >= 1, got {value!r}")
        rep = self.repetition_limit
        if rep is not None and (not isinstance(rep, int) or isinstance(rep, bool) or rep < 2):
            raise ValueError(f"repetition_limit must be None or an int >= 2, got {rep!r}")
        dom = self.draw_offer_min_moves
        if not isinstance(dom, int) or isinstance(dom, bool) or dom < 0:
            raise ValueError(f"draw_offer_min_moves must be an int >= 0, got {dom!r}")
        for name in ("king_vs_king_immediate", "piece_count_adjudication", "huff"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        object.__setattr__(self, "balance_unchanged_limits",
                           _normalize_balance(self.balance_unchanged_limits))

    def balance_unchanged_limit(self, pieces: int) -> int | None:
        """The move limit of the unchanged-balance rule for ``pieces`` pieces
        on the board, or None when the rule does not apply to that count.

        >>> r = Rules.for_variant("russian")
        >>> r.balance_unchanged_limit(5), r.balance_unchanged_limit(6), r.balance_unchanged_limit(8)
        (30, 60, None)
        """
        for count, moves in self.balance_unchanged_limits:
            if count == pieces:
                return moves
        return None

    @classmethod
    def for_variant(cls, variant: Variant | str) -> "Rules":
        """The usual rules of ``variant`` (a :class:`~damier.variants.Variant`
        or a name/alias accepted by :func:`~damier.variants.get_variant`).

        >>> Rules.for_variant("brazilian") == Rules.for_variant("international")
        True
        >>> r = Rules.for_variant("english")
        >>> r.repetition_limit, r.king_moves_limit, r.sixteen_moves_limit, r.five_moves_limit
        (3, 40, None, None)
        >>> Rules.for_variant("xiangqi")
        Traceback (most recent call last):
        ...
        ValueError: unknown variant 'xiangqi' (choose from: international, english, ...)
        """
        if _variant_lookup is None:  # pragma: no cover - importing damier loads the registry
            raise RuntimeError("the variant registry (damier.variants) is not loaded")
        return _variant_lookup(variant).draw_rules

    def summary(self) -> list[str]:
        """The rules that are switched on, in words (for help texts and logs).

        >>> Rules.for_variant("english").summary()
        ['threefold repetition', '40 moves each without a capture or a man move']
        """
        out: list[str] = []
        if self.repetition_limit is not None:
            names = {2: "twofold", 3: "threefold", 4: "fourfold", 5: "fivefold"}
            fold = names.get(self.repetition_limit, f"{self.repetition_limit}-fold")
            out.append(f"{fold} repetition")
        if self.king_moves_limit is not None:
            out.append(f"{self.king_moves_limit} moves each without a capture or a man move")
        if self.sixteen_moves_limit is not None:
            out.append(f"lone king against three pieces: draw after {self.sixteen_moves_limit} "
                       "moves each")
        if self.five_moves_limit is not None:
            out.append("lone king against two or fewer pieces: draw after "
                       f"{self.five_moves_limit} moves each")
        if self.king_vs_king_immediate:
            out.append("king against king: immediate draw")
        if self.three_kings_limit is not None:
            out.append(f"three kings against a lone king: draw after {self.three_kings_limit} "
                       "moves each")
        if self.two_kings_limit is not None:
            out.append(f"two kings against a lone king: draw after {self.two_kings_limit} "
                       "moves each")
        if self.king_vs_king_limit is not None:
            out.append(f"king against king: draw after {self.king_vs_king_limit} moves each")
        if self.one_piece_each_limit is not None:
            out.append(f"one piece each: draw after {self.one_piece_each_limit} moves each")
        for pieces, moves in self.balance_unchanged_limits:
            out.append(f"{pieces} pieces, kings on both sides, balance unchanged: draw after "
                       f"{moves} moves each")
        if self.draw_offer_min_moves:
            out.append(f"draw offers only after {self.draw_offer_min_moves} moves each")
        if self.piece_count_adjudication:
            out.append("piece-count adjudication when a game is stopped")
        if self.huff:
            out.append("huffing")
        return out

