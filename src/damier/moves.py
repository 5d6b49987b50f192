"""Move input: the one path from what a person or a program writes to a legal
:class:`~damier.Move`, and the one explanation of why an input is not a legal move.

Everything that reads a move uses this module: :meth:`Board.parse_move
<damier.Board.parse_move>` (so :meth:`Board.push <damier.Board.push>` and the
PDN reader), the terminal game (``damier play``) and the web app, for move text
and for the ``{"from", "to", "path", "captures"}`` requests of its board. So
the same input is read the same way, and refused with the same words, wherever
it is typed.

What is read (:func:`parse_move`):

- standard notation: ``32-28``, ``19x28`` (``:`` or ``×`` also mark a capture;
  spaces around the signs are allowed);
- a full capture path (``47x38x24x13x36``), or any part of it that picks one
  move (``47x24x36``);
- Hub style, ``from x to x captured...`` (``28x19x23``: from 28 to 19 taking 23);
- algebraic squares on 8x8 boards (``c3-d4``);
- annotations after the move are ignored (``32-28!``, ``19x28?!``).

Squares are written with ASCII digits (``٣٢-٢٨`` or ``3²-28`` is not a move),
and move text longer than :data:`~damier.notation.MAX_MOVE_TEXT` (200)
characters is refused before it is read: no move is that long, and reading
takes time in proportion to the length of what is read.

Interactive input (``complete=True``, or :func:`read_move`, as ``damier play``
reads what is typed) also takes a bare square when only one move starts there
(or, when no move starts there, only one ends there) and a unique beginning of
a move (``32-2``, ``28x``).

>>> import damier
>>> from damier.moves import explain_illegal, move_from_squares, parse_move, read_move
>>> board = damier.Board()
>>> parse_move(board, "32-28!")
Move(32, 28)
>>> read_move(board, "35")        # the only move from 35
MoveReading(move=Move(35, 30), completed=True)
>>> move_from_squares(board, 33, 29)
Move(33, 29)
>>> board.push("32-28"), board.push("19-23")
(Move(32, 28), Move(19, 23))
>>> parse_move(board, "32-27")
Traceback (most recent call last):
...
damier.errors.IllegalMoveError: illegal move '32-27': a capture is compulsory: the piece on 28
must capture; legal moves are 28x19

Errors are :class:`~damier.errors.IllegalMoveError` (no legal move matches)
and :class:`~damier.errors.AmbiguousMoveError` (several do), both
``ValueError``; they carry the input (``text``), the ``legal_moves`` and, for
an ambiguous input, the ``candidates``:

>>> board = damier.Board("W:WK47:B14,19,29,31,42")
>>> try:
...     parse_move(board, "47x36")
... except damier.AmbiguousMoveError as err:
...     print(err)
...     print(sorted(board.notation(m) for m in err.candidates))
ambiguous move '47x36': it matches 47x38x20x9x36, 47x38x24x13x36; write the full path
['47x38x20x9x36', '47x38x24x13x36']

:func:`explain_illegal` is the explanation itself: the compulsory-capture rule
(with the majority rule, which pieces must capture, and men capturing
backwards where they may), or what is wrong with the piece named:

>>> print(explain_illegal(damier.Board("W:W33,39:B28,18,8,34"), "39-34"))
illegal move '39-34': capturing is compulsory, and the capture taking the most pieces (3) must
be played: the piece on 33 must capture; legal moves are 33x2
>>> print(explain_illegal(damier.Board(), "32-29"))
illegal move '32-29': the man on 32 can only go to 27 or 28; legal moves are 31-26, 31-27,
32-27, 32-28, 33-28, 33-29, 34-29, 34-30, 35-30

To change how moves are read or explained, change this module (and its tests,
``tests/test_moves.py``); printing moves is :mod:`damier.notation`.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from damier._core import Move
from damier.errors import AmbiguousMoveError, IllegalMoveError
from damier.notation import MAX_MOVE_TEXT, move_text, parse_square, split_move_text
from damier.piece import COLOR_NAMES, Color, Piece
from damier.variants import Variant

if TYPE_CHECKING:
    from damier.board import Board

__all__ = ["MoveReading", "parse_move", "read_move", "match_move", "move_from_squares",
           "parse_move_spec", "explain_illegal", "capture_rule", "move_listing"]

_ANNOTATION_MARKS = "!?+#*"
_BARE_SQUARE = re.compile(r"[0-9]+|[a-hA-H](?:10|[1-9])")
_PREFIX = re.compile(r"[0-9]+(?:[-x][0-9]*)*")
_FORMAT_HINT = "write it as from-to (32-28) or fromxto (19x28)"


class MoveReading(NamedTuple):
    """The move that an input names, and whether the input was completed (a bare
    square or the beginning of a move stood for it)."""

    move: Move
    completed: bool


# -- reading ------------------------------------------------------------------------------


def parse_move(board: Board, text: str, *, complete: bool = False) -> Move:
    """The legal move of ``board`` that ``text`` names.

    ``complete`` also takes a bare square or a unique beginning of a move (see
    :func:`read_move`). Raises :class:`~damier.errors.IllegalMoveError` (the
    message says why, see :func:`explain_illegal`) or
    :class:`~damier.errors.AmbiguousMoveError`.
    """
    return _read(text, board.legal_moves, board.variant, board, complete=complete).move


def read_move(board: Board, text: str) -> MoveReading:
    """What a person typed, read as :func:`parse_move` with ``complete=True``:
    the move, and whether a bare square or a beginning of a move stood for it.

    >>> import damier
    >>> board = damier.Board()
    >>> read_move(board, "32-28"), read_move(board, "35-")
    (MoveReading(move=Move(32, 28), completed=False),
     MoveReading(move=Move(35, 30), completed=True))
    >>> read_move(board, "32")
    Traceback (most recent call last):
    ...
    damier.errors.AmbiguousMoveError: '32' is not enough: several moves start on 32: 32-27, 32-28;
    type the whole move, e.g. 32-27
    """
    return _read(text, board.legal_moves, board.variant, board, complete=True)


def match_move(text: str, legal_moves: Sequence[Move], variant: Variant) -> Move:
    """The move among ``legal_moves`` (of a position of ``variant``) that ``text``
    names, for callers that have the legal moves but no :class:`~damier.Board`.
    Without the position the explanation of an illegal move cannot name pieces;
    prefer :func:`parse_move`."""
    return _read(text, legal_moves, variant, None, complete=False).move


def move_from_squares(board: Board, from_square: int, to_square: int, *,
                      path: Sequence[int] | None = None,
                      captures: Collection[int] | None = None) -> Move:
    """The legal move of ``board`` from ``from_square`` to ``to_square``, as a board
    on screen gives it: ``path`` (every square the piece stands on, or enough of
    them) and ``captures`` (the captured squares, in any order) pick one of
    several captures between the same squares.

    >>> import damier
    >>> board = damier.Board("W:WK47:B14,19,29,31,42")
    >>> board.notation(move_from_squares(board, 47, 36, path=[47, 20, 36]))
    '47x38x20x9x36'
    >>> move_from_squares(board, 47, 36)
    Traceback (most recent call last):
    ...
    damier.errors.AmbiguousMoveError: ambiguous move '47x36': it matches 47x38x20x9x36,
    47x38x24x13x36; write the full path

    Squares are ints; ``path`` a sequence and ``captures`` a collection of them, of
    at most as many squares as the board has (one more for ``path``). Anything
    else raises :class:`~damier.errors.IllegalMoveError` naming what is wrong:

    >>> move_from_squares(board, 47, "36")
    Traceback (most recent call last):
    ...
    damier.errors.IllegalMoveError: to_square must be a square number (an int), not '36'
    """
    variant = board.variant
    from_square = _given_square(from_square, "from_square", variant)
    to_square = _given_square(to_square, "to_square", variant)
    if path is not None:
        path = [_given_square(s, "a square of path", variant)
                for s in _given_squares(path, "path", variant.squares + 1)]
    if captures is not None:
        captures = [_given_square(s, "a square of captures", variant)
                    for s in _given_squares(captures, "captures", variant.squares)]
    legal = board.legal_moves
    if path is not None and (len(path) < 2 or path[0] != from_square
                             or path[-1] != to_square):
        raise IllegalMoveError("path must hold at least the start and end squares, "
                               "and start at from_square and end at to_square")
    if path:
        written = "x".join(map(str, path))
    else:
        sign = "x" if any(m.is_capture for m in legal) else "-"
        written = f"{from_square}{sign}{to_square}"
    candidates = [m for m in legal
                  if m.from_square == from_square and m.to_square == to_square]
    if any(not m.is_capture for m in candidates):
        candidates = [m for m in candidates if not m.is_capture]
    if path is not None and candidates:
        exact = [m for m in candidates if list(m.path) == list(path)]
        candidates = exact or [m for m in candidates if _is_subsequence(path, m.path)]
    if captures is not None and candidates:
        wanted = frozenset(captures)
        candidates = [m for m in candidates if m.capture_set == wanted]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise _ambiguous(written, candidates, legal)
    raise IllegalMoveError(
        _explain(written, legal, board.variant, board, squares=(from_square, to_square)),
        text=written, legal_moves=legal)


def parse_move_spec(board: Board, spec: Mapping[str, Any], *, complete: bool = False) -> Move:
    """The move of a request as the web app sends it: ``{"move": "32-28"}`` (read
    by :func:`parse_move`) or ``{"from": 47, "to": 36, "path": [...],
    "captures": [...]}`` (read by :func:`move_from_squares`; ``path`` and
    ``captures`` are optional).

    >>> import damier
    >>> parse_move_spec(damier.Board(), {"from": 32, "to": 28})
    Move(32, 28)

    A request that is not one of these (no ``move`` and no ``from`` or ``to``,
    squares that are not ints...) raises :class:`~damier.errors.IllegalMoveError`
    saying what is wrong; a ``spec`` that is not a mapping, :class:`TypeError`.
    """
    if not isinstance(spec, Mapping):
        raise TypeError(f"a move request is a mapping such as {{'move': '32-28'}} or "
                        f"{{'from': 32, 'to': 28}}, not {type(spec).__name__}")
    if "move" in spec:
        return parse_move(board, spec["move"], complete=complete)
    missing = [key for key in ("from", "to") if key not in spec]
    if missing:
        raise IllegalMoveError(f"a move request needs 'move', or 'from' and 'to' "
                               f"(missing: {', '.join(repr(k) for k in missing)})")
    return move_from_squares(board, spec["from"], spec["to"], path=spec.get("path"),
                             captures=spec.get("captures"))


_HUGE = 10 ** 12
"""Square numbers at least this large are not written out in messages."""


def _given_square(value: Any, what: str, variant: Variant) -> int:
    """``value`` as a square number: an int (not a bool); one too large to write
    in a message is refused here, others off the board are explained later."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        shown = repr(value)
        if len(shown) > 40:
            shown = f"{shown[:30]}... ({type(value).__name__})"
        raise IllegalMoveError(f"{what} must be a square number (an int), not {shown}")
    square = int(value)
    if not -_HUGE < square < _HUGE:
        digits = int(abs(square).bit_length() * 0.30103) + 1
        raise IllegalMoveError(f"{what} is a number of about {digits} digits, not a square "
                               f"of the {variant.title} board (1-{variant.squares})")
    return square


def _given_squares(value: Any, what: str, most: int) -> list[Any]:
    """The items of ``value``, a collection of at most ``most`` squares."""
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise IllegalMoveError(f"{what} must be a list of square numbers, "
                               f"not {type(value).__name__}")
    items: list[Any] = []
    for item in value:
        if len(items) == most:
            raise IllegalMoveError(f"{what} holds more than {most} squares: no move has "
                                   "that many")
        items.append(item)
    return items


class _Text(NamedTuple):
    squares: list[int]
    capture_sign: bool
    whole: bool
    """Both ends written and no sign left dangling: a whole move, not its beginning."""


class _Unreadable(Exception):
    """Text that is not a move: ``reason`` says why (None: not in move form at all)."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason)
        self.reason = reason


def _scan(cleaned: str, variant: Variant) -> _Text:
    """The squares of move text (annotations already removed), or :class:`_Unreadable`."""
    tokens, signs = split_move_text(cleaned)
    whole = True
    if len(tokens) == 1:
        if not _BARE_SQUARE.fullmatch(tokens[0]):
            raise _Unreadable(None)
        whole = False
    elif tokens[-1] == "":
        tokens.pop()
        whole = False
    if "" in tokens:
        raise _Unreadable(None)
    try:
        squares = [parse_square(t, variant) for t in tokens]
    except IllegalMoveError as err:
        raise _Unreadable(str(err)) from None
    return _Text(squares, any(sign != "-" for sign in signs), whole)


def _match(text: _Text, legal: Sequence[Move]) -> list[Move]:
    """The legal moves that a whole move text names."""
    squares = text.squares
    first, last = squares[0], squares[-1]
    if len(squares) == 2:
        candidates = [m for m in legal if m.from_square == first and m.to_square == last]
        if text.capture_sign:
            candidates = [m for m in candidates if m.is_capture]
            # "24x1" is also the full path of a single jump from 24 to 1: when a
            # longer capture shares its ends, the text names the single jump.
            single = [m for m in candidates if len(m.captures) == 1]
            if len(candidates) > 1 and len(single) == 1:
                candidates = single
        elif any(not m.is_capture for m in candidates):
            candidates = [m for m in candidates if not m.is_capture]
        return candidates
    exact_path = [m for m in legal if m.is_capture and list(m.path) == squares]
    hub = [m for m in legal if m.is_capture and m.from_square == first
           and m.to_square == squares[1] and m.capture_set == frozenset(squares[2:])
           and len(m.captures) == len(squares) - 2]
    candidates = list(dict.fromkeys(exact_path + hub))
    if not candidates:
        candidates = [m for m in legal if m.is_capture and m.from_square == first
                      and m.to_square == last and _is_subsequence(squares, m.path)]
    return candidates


def _is_subsequence(squares: Sequence[int], path: Sequence[int]) -> bool:
    it = iter(path)
    return all(any(s == p for p in it) for s in squares)


def _read(text: str, legal: Sequence[Move], variant: Variant, board: Board | None, *,
          complete: bool) -> MoveReading:
    if not isinstance(text, str):
        raise TypeError(f"move text must be a str, not {type(text).__name__}")
    written = text.strip()
    if len(written) > MAX_MOVE_TEXT:
        raise IllegalMoveError(_explain(written, legal, variant, board), text=written,
                               legal_moves=legal)
    cleaned = written.rstrip(_ANNOTATION_MARKS)
    try:
        scanned: _Text | None = _scan(cleaned, variant)
    except _Unreadable:
        scanned = None
    if scanned is not None and scanned.whole:
        candidates = _match(scanned, legal)
        if len(candidates) == 1:
            return MoveReading(candidates[0], False)
        if candidates:
            raise _ambiguous(written, candidates, legal)
    if complete:
        if scanned is not None and len(scanned.squares) == 1 and _BARE_SQUARE.fullmatch(cleaned):
            found = _by_square(written, scanned.squares[0], legal)
            if found is not None:
                return MoveReading(found, True)
        else:
            found = _by_prefix(written, cleaned, legal)
            if found is not None:
                return MoveReading(found, True)
    raise IllegalMoveError(_explain(written, legal, variant, board), text=written,
                           legal_moves=legal)


def _by_square(written: str, square: int, legal: Sequence[Move]) -> Move | None:
    """The only move that starts on ``square`` (or, when none does, ends there)."""
    found = [m for m in legal if m.from_square == square]
    where = "start"
    if not found:
        found = [m for m in legal if m.to_square == square]
        where = "end"
    if len(found) == 1:
        return found[0]
    if found:
        example = sorted(found, key=lambda m: _squares_key(move_text(m, legal)))[0]
        raise AmbiguousMoveError(
            f"{written!r} is not enough: several moves {where} on {square}: "
            f"{move_listing(found, legal)}; type the whole move, e.g. {move_text(example, legal)}",
            text=written, legal_moves=legal, candidates=found)
    return None


def _by_prefix(written: str, cleaned: str, legal: Sequence[Move]) -> Move | None:
    """The only move that ``cleaned`` is the beginning of (``32-2``, ``28x``)."""
    tokens, signs = split_move_text(cleaned)
    norm = tokens[0] + "".join(("-" if sign == "-" else "x") + token
                               for sign, token in zip(signs, tokens[1:], strict=True))
    norm = norm.lower()
    if not _PREFIX.fullmatch(norm):
        return None
    found = [m for m in legal if any(t.startswith(norm) for t in _texts(m, legal))]
    if len(found) == 1:
        return found[0]
    if found:
        raise AmbiguousMoveError(
            f"{written!r} could be {move_listing(found, legal)}; type more of the move",
            text=written, legal_moves=legal, candidates=found)
    return None


def _texts(move: Move, legal: Sequence[Move]) -> set[str]:
    """Every way ``move`` may be written: its notation, from x to, its full path."""
    texts = {move_text(move, legal)}
    if move.is_capture:
        texts.add(f"{move.from_square}x{move.to_square}")
        texts.add("x".join(str(s) for s in move.path))
    return texts


def _ambiguous(written: str, candidates: Sequence[Move],
               legal: Sequence[Move]) -> AmbiguousMoveError:
    return AmbiguousMoveError(
        f"ambiguous move {written!r}: it matches {move_listing(candidates, legal)}; "
        "write the full path", text=written, legal_moves=legal, candidates=candidates)


# -- explaining -----------------------------------------------------------------------------


def move_listing(moves: Iterable[Move], legal_moves: Sequence[Move]) -> str:
    """``moves`` in notation (full paths where ``legal_moves`` need them), in square
    order, comma separated; ``none`` when there are none.

    >>> import damier
    >>> board = damier.Board()
    >>> move_listing([m for m in board.legal_moves if m.from_square == 32], board.legal_moves)
    '32-27, 32-28'
    """
    texts = sorted((move_text(m, legal_moves) for m in moves), key=_squares_key)
    return ", ".join(texts) or "none"


def _squares_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.split(r"[-x]", text) if p.isdigit())


def capture_rule(board: Board) -> str | None:
    """Why only captures may be played now, in words, or None when captures are not
    compulsory in this position.

    >>> import damier
    >>> capture_rule(damier.Board("W:W28:B23")), capture_rule(damier.Board()) is None
    ('a capture is compulsory', True)
    >>> capture_rule(damier.Board("W:W38,48:B33,23,3,42"))
    'capturing is compulsory, and the capture taking the most pieces (2) must be played'
    >>> print(capture_rule(damier.Board("W:W28:B22,27,23", variant="frisian")))
    capturing is compulsory, and the capture of the highest value must be played (a man counts 100,
    a king 199; at equal value a king captures)
    >>> capture_rule(damier.Board("W:W22,23:B18,19", variant="russian"))
    'capturing is compulsory (any capture may be chosen, but it must be taken to the end)'
    """
    return _capture_rule(board.legal_moves, board.variant)


def _capture_rule(legal: Sequence[Move], variant: Variant) -> str | None:
    captures = [m for m in legal if m.is_capture]
    if not captures or len(captures) != len(legal):
        return None
    most = max(len(m.captures) for m in captures)
    if variant.capture_values is not None and (most > 1 or len(captures) > 1):
        man, king = variant.capture_values
        return (f"capturing is compulsory, and the capture of the highest value must be played "
                f"(a man counts {man}, a king {king}; at equal value a king captures)")
    if variant.majority_capture and most > 1:
        return (f"capturing is compulsory, and the capture taking the most pieces ({most}) "
                "must be played")
    if not variant.majority_capture and len(captures) > 1:
        return ("capturing is compulsory (any capture may be chosen, but it must be taken to "
                "the end)")
    return "a capture is compulsory"


def explain_illegal(board: Board, text: str, *, from_square: int | None = None,
                    to_square: int | None = None) -> str:
    """Why the move written ``text`` is not a legal move of ``board``, and the legal
    moves: the message of every :class:`~damier.errors.IllegalMoveError` that
    move input raises.

    ``from_square`` and ``to_square``, when given, say which squares the move was
    meant to join (for a :class:`~damier.Move` or a move given by squares); else
    they are read from ``text``.

    >>> import damier
    >>> print(explain_illegal(damier.Board("W:W27:B32"), "27-21"))
    illegal move '27-21': a capture is compulsory: the piece on 27 must capture; in International
    draughts men capture backwards too: 27x38 is legal; legal moves are 27x38
    >>> print(explain_illegal(damier.Board(), "19-23"))
    illegal move '19-23': the piece on 19 is Black's, and it is White's move; legal moves are
    31-26, 31-27, 32-27, 32-28, 33-28, 33-29, 34-29, 34-30, 35-30
    >>> print(explain_illegal(damier.Board("W:W:B1"), "1-2"))
    illegal move '1-2': White has no legal moves
    """
    squares = None
    if from_square is not None or to_square is not None:
        squares = (from_square, to_square)
    return _explain(text.strip(), board.legal_moves, board.variant, board, squares=squares)


def _explain(written: str, legal: Sequence[Move], variant: Variant, board: Board | None, *,
             squares: tuple[int | None, int | None] | None = None) -> str:
    if len(written) > MAX_MOVE_TEXT:
        return (f"cannot read move {written[:40]!r}... ({len(written)} characters): no move "
                f"is written in more than {MAX_MOVE_TEXT} characters")
    listing = move_listing(legal, legal)
    if squares is None:
        try:
            scanned = _scan(written.rstrip(_ANNOTATION_MARKS), variant)
        except _Unreadable as err:
            if err.reason is not None:
                return f"cannot read move {written!r}: {err.reason}"
            return f"cannot read move {written!r}: {_FORMAT_HINT}; legal moves are {listing}"
        ends = scanned.squares
        squares = (ends[0], ends[-1] if len(ends) > 1 else None)
    else:
        for square in squares:
            if square is not None:
                try:
                    parse_square(str(square), variant)
                except IllegalMoveError as err:
                    return f"cannot read move {written!r}: {err}"
    head = f"illegal move {written!r}"
    if not legal:
        side = _side(board.turn) if board is not None else "the side to move"
        return f"{head}: {side} has no legal moves"
    rule = _capture_rule(legal, variant)
    if rule is not None:
        capturers = sorted({m.from_square for m in legal})
        who = (f"the piece on {capturers[0]} must capture" if len(capturers) == 1 else
               f"the pieces on {', '.join(map(str, capturers))} can capture")
        detail = f"{rule}: {who}"
        if board is not None and variant.men_capture_backwards:
            pieces = board.piece_map()
            backwards = [m for m in legal if _is_backward_man_capture(variant, m, pieces)]
            if backwards:
                verb = "is" if len(backwards) == 1 else "are"
                detail += (f"; in {variant.title} draughts men capture backwards too: "
                           f"{move_listing(backwards, legal)} {verb} legal")
        return f"{head}: {detail}; legal moves are {listing}"
    reason = _piece_reason(board, legal, *squares) if board is not None else None
    if reason:
        return f"{head}: {reason}; legal moves are {listing}"
    return f"{head}: legal moves are {listing}"


def _side(color: Color) -> str:
    return COLOR_NAMES[color].capitalize()


def _piece_reason(board: Board, legal: Sequence[Move], from_square: int | None,
                  to_square: int | None) -> str | None:
    """What is wrong with moving the piece on ``from_square`` (to ``to_square``)."""
    if from_square is None:
        return None
    piece = board.piece_at(from_square)
    if piece is None:
        return f"there is no piece on {from_square}"
    if piece.color != board.turn:
        return (f"the piece on {from_square} is {_side(piece.color)}'s, and it is "
                f"{_side(board.turn)}'s move")
    name = "king" if piece.king else "man"
    own = [m for m in legal if m.from_square == from_square]
    if not own:
        return f"the {name} on {from_square} cannot move"
    if to_square is not None:
        meant = [m for m in own if m.to_square == to_square]
        if meant:
            return (f"the move from {from_square} to {to_square} is written "
                    + " or ".join(sorted(move_text(m, legal) for m in meant)))
    targets = sorted({m.to_square for m in own})
    where = " or ".join(map(str, targets)) if len(targets) <= 2 else (
        ", ".join(map(str, targets[:-1])) + f" or {targets[-1]}")
    reason = f"the {name} on {from_square} can only go to {where}"
    if to_square is not None and board.piece_at(to_square) is not None:
        reason = f"{to_square} is occupied; {reason}"
    return reason


def _is_backward_man_capture(variant: Variant, move: Move, pieces: dict[int, Piece]) -> bool:
    piece = pieces.get(move.from_square)
    if piece is None or piece.king or len(move.path) < 2:
        return False
    rows = [variant.row_col(s)[0] for s in move.path]
    forward = -1 if piece.color else 1  # White's men move up the board, Black's down
    return any((b - a) * forward < 0 for a, b in zip(rows, rows[1:], strict=False))
