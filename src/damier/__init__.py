"""damier: draughts (checkers) for Python.

Exact rules for International (10x10, FMJD), English, Russian and Brazilian
draughts; FEN and PDN; a compiled bitboard move generator.

>>> import damier
>>> board = damier.Board()
>>> board.perft(2)
81
>>> board.push("32-28")
Move(32, 28)
"""

from damier._core import Move
from damier.board import Board
from damier.errors import (AmbiguousMoveError, IllegalMoveError, InvalidFenError, MoveError,
                           PdnError)
from damier.outcome import Outcome, Termination
from damier.piece import BLACK, COLOR_NAMES, WHITE, Color, Piece
from damier.rules import Rules
from damier.variants import VARIANTS, Variant, get_variant

__version__ = "0.1.0"

__all__ = [
    "Board",
    "Move",
    "Piece",
    "Color",
    "WHITE",
    "BLACK",
    "COLOR_NAMES",
    "Outcome",
    "Termination",
    "Rules",
    "Variant",
    "VARIANTS",
    "get_variant",
    "MoveError",
    "IllegalMoveError",
    "AmbiguousMoveError",
    "InvalidFenError",
    "PdnError",
    "__version__",
]
