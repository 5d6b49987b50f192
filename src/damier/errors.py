"""Exceptions raised by damier. All are ``ValueError`` subclasses, so callers
that only care that the input was bad can catch ``ValueError``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from damier._core import Move

__all__ = ["MoveError", "IllegalMoveError", "AmbiguousMoveError", "InvalidFenError",
           "PdnError"]

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone UTF-16 surrogate (``"\\ud800"``): text that no UTF-8 file or answer can hold;
the readers of FEN, PDN and Hub lines refuse it by its position."""


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (``\\ud800``), so that a
    message that quotes input can always be printed or stored.

    >>> print(escape_surrogates("a" + chr(0xD800) + "b"))
    a\\ud800b
    """
    if LONE_SURROGATE.search(text) is None:
        return text
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class MoveError(ValueError):
    """Move input that does not name exactly one legal move (see :mod:`damier.moves`).

    ``text`` is the input as written (None when the move was not given as text),
    ``legal_moves`` the legal moves of the position (empty when unknown).
    """

    def __init__(self, message: str, *, text: str | None = None,
                 legal_moves: Iterable[Move] = ()) -> None:
        super().__init__(message)
        self.text = text
        self.legal_moves: tuple[Move, ...] = tuple(legal_moves)


class IllegalMoveError(MoveError):
    """A move that is not legal in the position (the message says why, and lists the
    legal moves)."""


class AmbiguousMoveError(MoveError):
    """Move input that matches more than one legal move: ``candidates`` are those
    moves (the message lists them)."""

    def __init__(self, message: str, *, text: str | None = None,
                 legal_moves: Iterable[Move] = (), candidates: Iterable[Move] = ()) -> None:
        super().__init__(message, text=text, legal_moves=legal_moves)
        self.candidates: tuple[Move, ...] = tuple(candidates)


class InvalidFenError(ValueError):
    """A FEN string that is malformed or describes an impossible position."""


class PdnError(ValueError):
    """A PDN file that cannot be read: the message names the game, line and token.

    ``column`` (from 1) is the place of the bad character when one character is
    the problem (a lone surrogate), else None."""

    def __init__(self, message: str, *, game: int | None = None, line: int | None = None,
                 token: str | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.game = game
        self.line = line
        self.token = token
        self.column = column
