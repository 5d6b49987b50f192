"""Move text: printing and parsing moves in standard draughts notation.

Moves print as ``32-28`` (a plain move) and ``19x28`` (a capture). When two
legal captures share their start and end squares, each is written with its
full path, every landing square included (``47x38x24x13x36``), as the PDN
standard says.

Parsing accepts the short form where it is unambiguous, the full path (or any
part of it that picks one move), Hub style ``from x to x captured...``
(``28x19x23``: from 28 to 19 capturing 23), ``:`` as a capture sign, and on
8x8 boards algebraic squares (``c3-d4``, ``c3:e5``).

>>> import damier
>>> board = damier.Board("W:WK47:B14,19,29,31,42")
>>> sorted(board.notation(m) for m in board.legal_moves)
['47x38x20x9x36', '47x38x24x13x36']
>>> board.notation(board.parse_move("47x24x36"))
'47x38x24x13x36'
>>> board.parse_move("47x36")
Traceback (most recent call last):
...
damier.errors.AmbiguousMoveError: ambiguous move '47x36': it matches 47x38x20x9x36, 47x38x24x13x36; write the full path
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from damier._core import Move
from damier.errors import AmbiguousMoveError, IllegalMoveError
from damier.variants import Variant

__all__ = ["move_text", "parse_move_text", "parse_square", "illegal_move_message"]

_SEPARATORS = re.compile(r"\s*([-x×:])\s*")
_ANNOTATION = re.compile(r"[!?+#*]+$")
_ALGEBRAIC = re.compile(r"^([a-j])(10|[1-9])$")


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
    if token.isdigit():
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
        square = variant.square_at(row, col)
        if square is None:
            raise IllegalMoveError(f"{token} is a light square: pieces stand on dark squares only")
        return square
    raise IllegalMoveError(f"{token!r} is not a square")


def _listing(moves: Sequence[Move], legal_moves: Sequence[Move]) -> str:
    return ", ".join(sorted(move_text(m, legal_moves) for m in moves)) or "none"


def parse_move_text(text: str, legal_moves: Sequence[Move], variant: Variant) -> Move:
    """The legal move that ``text`` describes.

    Raises :class:`IllegalMoveError` when no legal move matches (the message
    lists the legal moves, and says when a capture is compulsory) and
    :class:`AmbiguousMoveError` when several do.
    """
    if not isinstance(text, str):
        raise TypeError(f"move text must be a str, not {type(text).__name__}")
    raw = text
    cleaned = _ANNOTATION.sub("", text.strip())
    parts = _SEPARATORS.split(cleaned)
    if len(parts) < 3 or len(parts) % 2 == 0 or any(p == "" for p in parts[0::2]):
        raise IllegalMoveError(
            f"cannot read move {raw!r}: write it as from-to (32-28) or fromxto (19x28); "
            f"legal moves are {_listing(legal_moves, legal_moves)}")
    try:
        squares = [parse_square(p, variant) for p in parts[0::2]]
    except IllegalMoveError as err:
        raise IllegalMoveError(f"cannot read move {raw!r}: {err}") from None
    seps = set(parts[1::2])
    capture_sign = bool(seps & {"x", "×", ":"})

    first, last = squares[0], squares[-1]
    if len(squares) == 2:
        candidates = [m for m in legal_moves if m.from_square == first and m.to_square == last]
        if capture_sign:
            candidates = [m for m in candidates if m.is_capture]
            # "24x1" is also the full path of a single jump from 24 to 1: when a
            # longer capture shares its ends, the text names the single jump.
            single = [m for m in candidates if len(m.captures) == 1]
            if len(candidates) > 1 and len(single) == 1:
                candidates = single
        elif any(not m.is_capture for m in candidates):
            candidates = [m for m in candidates if not m.is_capture]
    else:
        exact_path = [m for m in legal_moves if m.is_capture and list(m.path) == squares]
        hub = [m for m in legal_moves if m.is_capture and m.from_square == first
               and m.to_square == squares[1] and m.capture_set == frozenset(squares[2:])
               and len(m.captures) == len(squares) - 2]
        candidates = list(dict.fromkeys(exact_path + hub))
        if not candidates:
            candidates = [m for m in legal_moves if m.is_capture and m.from_square == first
                          and m.to_square == last and _is_subsequence(squares, m.path)]

    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        raise AmbiguousMoveError(
            f"ambiguous move {raw!r}: it matches {_listing(candidates, legal_moves)}; "
            f"write the full path")
    raise IllegalMoveError(illegal_move_message(raw, legal_moves, variant))


def _is_subsequence(squares: Sequence[int], path: Sequence[int]) -> bool:
    it = iter(path)
    return all(any(s == p for p in it) for s in squares)


def illegal_move_message(raw: str, legal_moves: Sequence[Move], variant: Variant) -> str:
    """The message of an :class:`IllegalMoveError` for the move written ``raw``:
    the legal moves, and why a capture is compulsory when it is."""
    if not legal_moves:
        return f"illegal move {raw!r}: the side to move has no legal moves"
    listing = _listing(legal_moves, legal_moves)
    captures = [m for m in legal_moves if m.is_capture]
    if captures and len(captures) == len(legal_moves):
        most = max(len(m.captures) for m in captures)
        detail = "a capture is compulsory"
        if variant.majority_capture and most > 1:
            detail = f"capturing is compulsory, and the capture taking the most pieces ({most})"
            detail += " must be played"
        return f"illegal move {raw!r}: {detail}; legal moves are {listing}"
    return f"illegal move {raw!r}: legal moves are {listing}"
