"""Exceptions raised by damier. All are ``ValueError`` subclasses, so callers
that only care that the input was bad can catch ``ValueError``."""

from __future__ import annotations

__all__ = ["IllegalMoveError", "AmbiguousMoveError", "InvalidFenError", "PdnError"]


class IllegalMoveError(ValueError):
    """A move that is not legal in the position (the message lists the legal moves)."""


class AmbiguousMoveError(ValueError):
    """Move text that matches more than one legal move (the message lists the candidates)."""


class InvalidFenError(ValueError):
    """A FEN string that is malformed or describes an impossible position."""


class PdnError(ValueError):
    """A PDN file that cannot be read: the message names the game, line and token."""

    def __init__(self, message: str, *, game: int | None = None, line: int | None = None,
                 token: str | None = None) -> None:
        super().__init__(message)
        self.game = game
        self.line = line
        self.token = token
