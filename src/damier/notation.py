"""Move text: printing moves in standard draughts notation, and reading squares.

Moves print as ``32-28`` (a plain move) and ``19x28`` (a capture). When two
legal captures share their start and end squares, each is written with its
full path, every landing square included (``47x38x24x13x36``), as the PDN
standard says.

Reading moves is :mod:`damier.moves` (through :meth:`Board.parse_move
<damier.Board.parse_move>`): it accepts the short form where it is unambiguous,
the full path (or any part of it that picks one move), Hub style ``from x to x
captured...`` (``28x19x23``: from 28 to 19 capturing 23), ``:`` as a capture
sign, and on 8x8 boards algebraic squares (``c3-d4``, ``c3:e5``).

>>> import damier
>>> board = damier.Board("W:WK47:B14,19,29,31,42")
>>> sorted(board.notation(m) for m in board.legal_moves)
['47x38x20x9x36', '47x38x24x13x36']
>>> board.notation(board.parse_move("47x24x36"))
'47x38x24x13x36'
>>> board.parse_move("47x36")
Traceback (most recent call last):
...
damier.errors.AmbiguousMoveError: ambiguous move '47x36': it matches 47x38x20x9x36,
47x38x24x13x36; write the full path
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from damier._core import Move
from damier.errors import IllegalMoveError
from damier.variants import Variant

__all__ = ["MAX_MOVE_TEXT", "move_text", "parse_square", "split_move_text"]

MAX_MOVE_TEXT = 200
"""The longest move text that is read, in characters (surrounding whitespace not
counted); longer text is refused before it is read.

A move captures at most 20 pieces (all the opponent's, on the largest board,
10x10): written as its full path, such a capture is 21 squares of at most two
digits and 20 signs (62 characters), in Hub style (from, to, then the 20
captured squares) 65 characters, and with a space on either side of every sign
102 and 107. 200 leaves room for that, for annotations (``!?``) and for some
stray spaces; no longer text is a move."""

_ALGEBRAIC = re.compile(r"^([a-j])(10|[1-9])$")
_SIGNS = re.compile(r"([-x×:])")


def move_text(move: Move, legal_moves: Sequence[Move]) -> str:
    """The standard notation of ``move`` among ``legal_moves``.

    >>> from damier import Move
    >>> move_text(Move(32, 28), [])
    '32-28'
    """
    if not move.is_capture:
        return f"{move.from_square}-{move.to_square}"
    for other in legal_moves:
        if (other.from_square == move.from_square and other.to_square == move.to_square
                and other != move):
            return "x".join(str(s) for s in move.path)
    return f"{move.from_square}x{move.to_square}"


def parse_square(token: str, variant: Variant) -> int:
    """A square number from ``token``: a number, or algebraic (``c3``) on 8x8 boards.

    >>> from damier.variants import get_variant
    >>> parse_square("a1", get_variant("russian")), parse_square("h8", get_variant("russian"))
    (29, 4)
    """
    token = token.strip()
    if token.isascii() and token.isdigit():   # ASCII digits only: not "²" or "٣"
        if len(token.lstrip("0")) > 4:
            # no board has that many squares; int() of thousands of digits is slow, or refused
            shown = token if len(token) <= 12 else f"{token[:12]}... ({len(token)} digits)"
            raise IllegalMoveError(
                f"square {shown} is not on the {variant.title} board (1-{variant.squares})")
        square = int(token)
        if not 1 <= square <= variant.squares:
            raise IllegalMoveError(
                f"square {square} is not on the {variant.title} board (1-{variant.squares})")
        return square
    match = _ALGEBRAIC.match(token.lower())
    if match and variant.size == 8:
        col = ord(match.group(1)) - ord("a")
        row = variant.size - int(match.group(2))
        dark = variant.square_at(row, col)
        if dark is None:
            raise IllegalMoveError(f"{token} is a light square: pieces stand on dark squares only")
        return dark
    shown = repr(token) if len(token) <= 40 else f"{token[:30]!r}... ({len(token)} characters)"
    raise IllegalMoveError(f"{shown} is not a square")


def split_move_text(text: str) -> tuple[list[str], list[str]]:
    """The parts of move text between its signs (``-``, ``x``, ``×``, ``:``), with
    the whitespace next to a sign removed, and the signs; in time linear in the
    length of ``text`` (a pattern such as ``\\s*([-x:])\\s*`` would take time
    quadratic in the length of a run of spaces).

    >>> split_move_text("32 - 28")
    (['32', '28'], ['-'])
    >>> split_move_text("47x38 x24")
    (['47', '38', '24'], ['x', 'x'])
    """
    parts = _SIGNS.split(text)
    tokens = parts[0::2]
    last = len(tokens) - 1
    for i, token in enumerate(tokens):
        if i > 0:
            token = token.lstrip()
        if i < last:
            token = token.rstrip()
        tokens[i] = token
    return tokens, parts[1::2]

