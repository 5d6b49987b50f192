"""The draughts variants damier plays, and the geometry of their boards.

Every variant uses the dark squares of a square board, numbered from 1 in the
top left corner (as seen by White) to the last square in the bottom right,
row by row: on 10x10 square 1 is on the first row, second column, square 46 in
White's left corner. White's men start at the bottom and move up (towards
lower numbers); Black's start at the top and move down.

>>> from damier.variants import get_variant
>>> v = get_variant("international")
>>> v.squares, v.game_type, v.initial_fen
(50, 20, 'W:W31-50:B1-20')
>>> v.row_col(46), v.square_at(9, 0)
((9, 0), 46)
>>> get_variant("english").white_starts
False
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Variant", "VARIANTS", "get_variant", "variant_for_game_type"]


@dataclass(frozen=True)
class Variant:
    """The fixed rules of a variant: board, start position and capture rules.

    Draw rules that players or tournaments may change live in
    :class:`damier.rules.Rules`, not here.
    """

    name: str
    """Identifier used by ``Board(variant=...)``."""
    title: str
    """Human readable name."""
    size: int
    """Board width and height in squares (10 or 8)."""
    game_type: int
    """PDN ``GameType`` tag value."""
    index: int
    """Index used by the compiled core."""
    white_starts: bool
    """True when White makes the first move (all but English)."""
    flying_kings: bool
    """Kings move and capture at any distance along a diagonal."""
    men_capture_backwards: bool
    """Men may capture backwards as well as forwards."""
    majority_capture: bool
    """The capture taking the most pieces is compulsory (kings count as one)."""
    promote_during_capture: bool
    """A man reaching the far row during a capture is crowned at once and
    continues capturing as a king (Russian)."""
    crowning_ends_capture: bool
    """A man reaching the far row during a capture is crowned and the move ends
    there (English)."""
    initial_fen: str
    """The standard starting position."""

    @property
    def squares(self) -> int:
        """Number of playable squares (50 or 32)."""
        return self.size * self.size // 2

    @property
    def per_row(self) -> int:
        """Playable squares on one row (5 or 4)."""
        return self.size // 2

    def row_col(self, square: int) -> tuple[int, int]:
        """Row (0 = top) and column (0 = left) of ``square``, as White sees the board."""
        if not 1 <= square <= self.squares:
            raise ValueError(f"square {square} is not on the {self.title} board (1-{self.squares})")
        row, pos = divmod(square - 1, self.per_row)
        col = 2 * pos + (1 if row % 2 == 0 else 0)
        return row, col

    def square_at(self, row: int, col: int) -> int | None:
        """The square number at ``(row, col)``, or None for a light or off-board square."""
        if not (0 <= row < self.size and 0 <= col < self.size):
            return None
        if (row + col) % 2 == 0:
            return None
        return row * self.per_row + col // 2 + 1

    def promotion_row(self, white: bool) -> int:
        """The row on which a man of that colour is crowned."""
        return 0 if white else self.size - 1


VARIANTS: dict[str, Variant] = {
    "international": Variant(
        name="international",
        title="International",
        size=10,
        game_type=20,
        index=0,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W31-50:B1-20",
    ),
    "english": Variant(
        name="english",
        title="English",
        size=8,
        game_type=21,
        index=1,
        white_starts=False,
        flying_kings=False,
        men_capture_backwards=False,
        majority_capture=False,
        promote_during_capture=False,
        crowning_ends_capture=True,
        initial_fen="B:W21-32:B1-12",
    ),
    "russian": Variant(
        name="russian",
        title="Russian",
        size=8,
        game_type=25,
        index=2,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=False,
        promote_during_capture=True,
        crowning_ends_capture=False,
        initial_fen="W:W21-32:B1-12",
    ),
    "brazilian": Variant(
        name="brazilian",
        title="Brazilian",
        size=8,
        game_type=26,
        index=3,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W21-32:B1-12",
    ),
}

_ALIASES = {
    "international": "international",
    "intl": "international",
    "10x10": "international",
    "fmjd": "international",
    "english": "english",
    "checkers": "english",
    "american": "english",
    "russian": "russian",
    "shashki": "russian",
    "brazilian": "brazilian",
}


def get_variant(name: str | Variant) -> Variant:
    """The :class:`Variant` called ``name`` (case-insensitive; a few aliases accepted).

    >>> get_variant("Checkers").name
    'english'
    >>> get_variant("frisian")
    Traceback (most recent call last):
    ...
    ValueError: unknown variant 'frisian' (choose from: international, english, russian, brazilian)
    """
    if isinstance(name, Variant):
        return name
    key = _ALIASES.get(str(name).strip().lower())
    if key is None:
        raise ValueError(f"unknown variant {name!r} (choose from: {', '.join(VARIANTS)})")
    return VARIANTS[key]


def variant_for_game_type(game_type: int) -> Variant:
    """The variant for a PDN ``GameType`` number (20, 21, 25 or 26).

    >>> variant_for_game_type(25).name
    'russian'
    """
    for variant in VARIANTS.values():
        if variant.game_type == game_type:
            return variant
    supported = ", ".join(f"{v.game_type} ({v.name})" for v in VARIANTS.values())
    raise ValueError(f"unsupported GameType {game_type} (supported: {supported})")
