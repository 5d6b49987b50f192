"""Pieces: a colour and whether the piece is a king."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["WHITE", "BLACK", "Color", "COLOR_NAMES", "Piece"]

Color = bool
WHITE: Color = True
BLACK: Color = False
COLOR_NAMES = {WHITE: "white", BLACK: "black"}


class Piece(NamedTuple):
    """A man or king of one colour.

    >>> Piece(WHITE, king=True).symbol()
    'W'
    >>> Piece.from_symbol("b")
    Piece(color=False, king=False)
    """

    color: Color
    king: bool = False

    def symbol(self) -> str:
        """``w``/``b`` for men, ``W``/``B`` for kings."""
        s = "w" if self.color else "b"
        return s.upper() if self.king else s

    @classmethod
    def from_symbol(cls, symbol: str) -> "Piece":
        """The piece for ``w``, ``W``, ``b`` or ``B``."""
        if symbol not in ("w", "W", "b", "B"):
            raise ValueError(f"invalid piece symbol {symbol!r} (expected w, W, b or B)")
        return cls(symbol in "wW", symbol.isupper())
