"""Reading and writing draughts FEN strings.

A draughts FEN names the side to move and lists the squares of each colour's
pieces: ``W:W31-50:B1-20`` is the International start position, White to move.

>>> white_to_move, pieces = parse_fen("B:W18,K46:BK1-3,24")
>>> white_to_move
False
>>> pieces[46], pieces[24]
(Piece(color=True, king=True), Piece(color=False, king=False))
>>> format_fen(white_to_move, pieces)
'B:W18,K46:BK1,K2,K3,24'
>>> format_fen(white_to_move, pieces, compact=True)
'B:W18,K46:BK1-3,24'

What :func:`parse_fen` reads:

* the side to move, ``W`` or ``B``, then the colour sections ``W...`` and
  ``B...`` in either order, separated by colons (a missing section means that
  colour has no pieces; an empty section such as the ``W`` in ``W:W:B1`` too);
* in a section, comma-separated entries: a square (``32``), a king (``K32``) or
  a range of squares (``31-35``, ``K1-5`` or ``K1-K5`` for kings);
* upper- or lower-case letters (``w:w31:bk1`` is accepted);
* surrounding whitespace, whitespace around ``:`` and ``,``, and an optional
  trailing ``.``;
* Lidraughts' halfmove and fullmove suffixes ``:H0:F1`` (accepted and ignored);
* for a variant with a king-move limit (Frisian, Frysk!), Lidraughts' field of the
  kings' runs of moves, ``+<black count><square>+<white count><square>`` (``+0+2 28``
  without the space: White's king on 28 has made its last 2 moves without capturing;
  a count of 0 has no square). :func:`parse_fen_king_runs` returns it.

Everything else raises :class:`damier.errors.InvalidFenError` with a message
that names the problem and the offending token: a bad side to move, an unknown
section, a malformed entry, a descending range, a square outside the board, a
square used twice, or a man standing on its own crowning row (an impossible
position). Squares are written with ASCII digits (not ``٣١`` or ``3¹``). A lone
UTF-16 surrogate (such as ``"\\ud800"``, which no UTF-8 text can hold) is
refused first, by its position. Messages quote a long FEN by its first
characters only. The quoted form found in PDN files (``[FEN "W:W31-50:B1-20"]``) is
unwrapped by :mod:`damier.pdn`, not here.

:func:`format_fen` writes one square per entry in increasing order, White's
section first (``W:W31,32,...,50:B1,...,20``), or, with ``compact=True``, ranges
for runs of three or more consecutive squares holding the same kind of piece
(``W:W31-50:B1-20``).
"""

from __future__ import annotations

import re
from typing import Callable, Mapping

from damier.errors import LONE_SURROGATE, InvalidFenError
from damier.piece import BLACK, WHITE, Piece
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["parse_fen", "parse_fen_king_runs", "format_fen", "KingRuns"]

_ENTRY_RE = re.compile(r"(K?)([0-9]+)(?:-(K?)([0-9]+))?\Z", re.IGNORECASE)
_SUFFIX_RE = re.compile(r"([HF])([0-9]+)\Z", re.IGNORECASE)
_RUNS_RE = re.compile(r"\+([0-9])([0-9]*)\+([0-9])([0-9]*)\Z")

KingRuns = tuple[tuple[int, int], tuple[int, int]]
"""The kings' runs of moves of a Frisian position: ``((square, count), (square, count))``
for White then Black, ``(0, 0)`` for a side whose last move was no king's quiet move."""

NO_RUNS: KingRuns = ((0, 0), (0, 0))
_SHOWN_LIMIT = 100
_SECTION_NAMES = {WHITE: "W", BLACK: "B"}


def _shown(fen: str) -> str:
    """``fen`` as messages quote it: its start only when it is long."""
    if len(fen) <= _SHOWN_LIMIT:
        return fen
    return f"{fen[:60]}... ({len(fen)} characters)"


def _describe(piece: Piece) -> str:
    return f"{'white' if piece.color else 'black'} {'king' if piece.king else 'man'}"


def parse_fen(text: str, variant: Variant | str = DEFAULT_VARIANT) -> tuple[bool, dict[int, Piece]]:
    """Read a FEN string: ``(white_to_move, {square: Piece})``.

    The dictionary is ordered by square number.

    >>> parse_fen("W:W31-50:B1-20")[1][31]
    Piece(color=True, king=False)
    >>> parse_fen(" B:BK1-3:W ")
    (False, {1: Piece(color=False, king=True), 2: Piece(color=False, king=True),
             3: Piece(color=False, king=True)})
    >>> parse_fen("W:W51:B1")
    Traceback (most recent call last):
    ...
    damier.errors.InvalidFenError: square 51 is out of range 1-50 for International
    (entry "51" in the W section of FEN "W:W51:B1")
    """
    white_to_move, pieces, _ = _parse(text, variant)
    return white_to_move, pieces


def parse_fen_king_runs(text: str, variant: Variant | str = DEFAULT_VARIANT) -> KingRuns:
    """The kings' runs of moves of a FEN (Lidraughts' Frisian field), checked as
    :func:`parse_fen` checks the rest; ``((0, 0), (0, 0))`` when it has none.

    >>> parse_fen_king_runs("B:WK28,35:BK3,12:H0:F1:+0+228", "frisian")
    ((28, 2), (0, 0))
    >>> parse_fen_king_runs("W:WK28:BK3:+328+0", "frisian")
    Traceback (most recent call last):
    ...
    damier.errors.InvalidFenError: the king-run field "+328+0" puts Black's run on square 28, ...
    >>> parse_fen_king_runs("W:WK28:BK3:+0+128")
    Traceback (most recent call last):
    ...
    damier.errors.InvalidFenError: a king-run field "+0+128" is for a variant with a ...
    """
    return _parse(text, variant)[2]


def _parse(text: str, variant: Variant | str) -> tuple[bool, dict[int, Piece], KingRuns]:
    v = get_variant(variant)
    if not isinstance(text, str):
        raise TypeError(f"FEN must be a str, not {type(text).__name__}")
    bad = LONE_SURROGATE.search(text)
    if bad is not None:
        raise InvalidFenError(f"lone surrogate {bad.group()!r} at position {bad.start() + 1} of "
                              f"FEN {_shown(text)!a}: not a Unicode character (no UTF-8 "
                              "text holds one); give the FEN as valid Unicode text")
    fen = text.strip()
    if fen.endswith("."):
        fen = fen[:-1].rstrip()
    if not fen:
        raise InvalidFenError(f"empty FEN {_shown(text)!r}")

    shown = _shown(fen)

    def fail(problem: str) -> InvalidFenError:
        return InvalidFenError(f'{problem} (FEN "{shown}")')

    if '"' in fen or "'" in fen:
        raise fail("unexpected quote character: give the FEN without the quotes "
                   'of a PDN [FEN "..."] tag')
    fields = [field.strip() for field in fen.split(":")]
    side = fields[0]
    if side.upper() not in ("W", "B"):
        raise fail(f'bad side to move "{_shown(side)}": expected W or B')
    if len(fields) == 1:
        raise fail("no piece sections: expected e.g. W:W31-50:B1-20")

    # square -> (piece, entry, section) of its first use, for error messages.
    uses: dict[int, tuple[Piece, str, str]] = {}
    seen_sections: set[str] = set()
    runs_field: str | None = None
    for index, field in enumerate(fields[1:], start=1):
        if not field:
            raise fail(f"empty field {index} (between two colons)")
        if field.startswith("+"):
            if runs_field is not None:
                raise fail(f'repeated king-run field "{_shown(field)}"')
            runs_field = field
            continue
        head = field[0].upper()
        suffix = _SUFFIX_RE.match(field)
        if suffix is not None:
            key = suffix.group(1).upper()
            if key in seen_sections:
                raise fail(f'repeated "{key}" field "{_shown(field)}"')
            seen_sections.add(key)
            continue
        if head not in ("W", "B"):
            raise fail(f'unknown section "{_shown(field)}": expected a W or B section '
                       "(or Lidraughts' H/F counters)")
        if head in seen_sections:
            raise fail(f'the {head} section appears twice (second one: "{_shown(field)}")')
        seen_sections.add(head)
        color = head == "W"
        body = field[1:].strip()
        if not body:
            continue
        for raw in body.split(","):
            entry = raw.strip()
            where = f'"{_shown(entry)}" in the {head} section of FEN "{shown}"'
            if not entry:
                raise fail(f'empty entry in the {head} section "{_shown(field)}" (stray comma)')
            m = _ENTRY_RE.match(entry)
            if m is None:
                raise InvalidFenError(
                    f"bad entry {where}: expected a square (32), a king (K32) or a range "
                    "(31-35, K1-5)")
            king_first, first, king_last, last = m.groups()
            if king_last and not king_first:
                raise InvalidFenError(f'bad range {where}: a king range is written K1-5 or K1-K5')
            for number in (first, last):
                if number is not None and len(number.lstrip("0")) > 4:
                    # no board has that many squares; int() of thousands of digits is slow,
                    # or refused
                    digits = (number if len(number) <= 12
                              else f"{number[:12]}... ({len(number)} digits)")
                    raise InvalidFenError(f"square {digits} is out of range 1-{v.squares} for "
                                          f"{v.title} (entry {where})")
            # without the leading zeros: int() refuses more than 4300 digits
            start = int(first.lstrip("0") or "0")
            stop = int(last.lstrip("0") or "0") if last is not None else start
            for sq in (start, stop):
                if not 1 <= sq <= v.squares:
                    raise InvalidFenError(
                        f"square {sq} is out of range 1-{v.squares} for {v.title} (entry {where})")
            if stop < start:
                raise InvalidFenError(f"descending range {where}: write {stop}-{start}")
            piece = Piece(color, bool(king_first))
            for sq in range(start, stop + 1):
                if sq in uses:
                    other, other_entry, other_section = uses[sq]
                    raise fail(f"square {sq} is used twice: {_describe(other)} "
                               f'("{_shown(other_entry)}" in the {other_section} section) and '
                               f'{_describe(piece)} ("{_shown(entry)}" in the {head} section)')
                uses[sq] = (piece, entry, head)

    for sq, (piece, entry, section) in uses.items():
        if piece.king:
            continue
        row = v.row_col(sq)[0]
        if row == v.promotion_row(piece.color):
            first_sq = row * v.per_row + 1
            raise fail(f"{_describe(piece)} on square {sq} (\"{_shown(entry)}\" in the {section} "
                       f"section) stands on {'White' if piece.color else 'Black'}'s crowning row "
                       f"(squares {first_sq}-{first_sq + v.per_row - 1}): impossible position")
    pieces = {sq: uses[sq][0] for sq in sorted(uses)}
    runs = NO_RUNS if runs_field is None else _parse_runs(runs_field, v, pieces, fail)
    return side.upper() == "W", pieces, runs


def _parse_runs(field: str, v: Variant, pieces: Mapping[int, Piece],
                fail: Callable[[str], InvalidFenError]) -> KingRuns:
    """Lidraughts' king-run field: ``+<count><square>`` for Black, then White."""
    shown = _shown(field)
    if v.king_move_limit is None:
        raise fail(f'a king-run field "{shown}" is for a variant with a king-move limit '
                   f"(Frisian, Frysk!), not {v.title}")
    m = _RUNS_RE.match(field)
    if m is None:
        raise fail(f'bad king-run field "{shown}": expected +<count><square>+<count><square> '
                   "(Black's run, then White's; e.g. +0+228)")
    runs: list[tuple[int, int]] = []
    for (count_text, square_text), color in (((m.group(3), m.group(4)), WHITE),
                                             ((m.group(1), m.group(2)), BLACK)):
        name = "White" if color else "Black"
        count = int(count_text)
        if count == 0:
            if square_text:
                raise fail(f'the king-run field "{shown}" gives {name} a square with a run of 0')
            runs.append((0, 0))
            continue
        if count > v.king_move_limit:
            raise fail(f'the king-run field "{shown}" gives {name} a run of {count} moves: '
                       f"{v.title} allows at most {v.king_move_limit}")
        if not square_text or len(square_text) > 4:
            raise fail(f'the king-run field "{shown}" gives {name}\'s run no square')
        square = int(square_text)
        held = pieces.get(square)
        if held is None or not held.king or held.color != color:
            raise fail(f'the king-run field "{shown}" puts {name}\'s run on square {square}, '
                       f"which holds no {name.lower()} king")
        runs.append((square, count))
    return runs[0], runs[1]


def format_fen(white_to_move: bool, pieces: Mapping[int, Piece],
               variant: Variant | str = DEFAULT_VARIANT, *, compact: bool = False,
               king_runs: KingRuns = NO_RUNS) -> str:
    """Write a FEN string for the side to move and a ``{square: Piece}`` mapping.

    Pieces may be :class:`~damier.piece.Piece` objects or ``(color, king)``
    pairs. Squares outside the board raise :class:`~damier.errors.InvalidFenError`;
    the position itself is not checked (see :func:`parse_fen` for the checks
    made when reading).

    >>> from damier.piece import Piece
    >>> pieces = {sq: Piece(True) for sq in range(31, 51)}
    >>> pieces.update({sq: Piece(False) for sq in range(1, 21)})
    >>> format_fen(True, pieces, compact=True)
    'W:W31-50:B1-20'
    >>> format_fen(False, {5: Piece(False), 6: Piece(True, king=True)}, "english")
    'B:WK6:B5'

    ``king_runs`` (White's then Black's ``(square, count)``) adds Lidraughts' king-run
    field when a run is under way:

    >>> format_fen(False, {28: Piece(True, king=True), 3: Piece(False, king=True)},
    ...            "frisian", king_runs=((28, 2), (0, 0)))
    'B:WK28:BK3:+0+228'
    """
    v = get_variant(variant)
    by_color: dict[bool, list[tuple[int, bool]]] = {WHITE: [], BLACK: []}
    for sq, piece in pieces.items():
        if isinstance(sq, bool) or not isinstance(sq, int):
            raise InvalidFenError(f"square {sq!r} is not an integer")
        if not 1 <= sq <= v.squares:
            shown = str(sq) if -10 ** 12 < sq < 10 ** 12 else "<a number that large>"
            raise InvalidFenError(f"square {shown} is out of range 1-{v.squares} for {v.title}")
        color, king = piece[0], piece[1]
        by_color[bool(color)].append((sq, bool(king)))

    parts = ["W" if white_to_move else "B"]
    for color in (WHITE, BLACK):
        entries = sorted(by_color[color])
        out: list[str] = []
        i = 0
        while i < len(entries):
            sq, king = entries[i]
            j = i
            if compact:
                while (j + 1 < len(entries) and entries[j + 1][0] == entries[j][0] + 1
                       and entries[j + 1][1] == king):
                    j += 1
            prefix = "K" if king else ""
            if j - i >= 2:
                out.append(f"{prefix}{sq}-{entries[j][0]}")
                i = j + 1
            else:
                out.append(f"{prefix}{sq}")
                i += 1
        parts.append(_SECTION_NAMES[color] + ",".join(out))
    if king_runs != NO_RUNS:
        (w_sq, w_count), (b_sq, b_count) = king_runs
        parts.append(f"+{b_count}{b_sq if b_count else ''}+{w_count}{w_sq if w_count else ''}")
    return ":".join(parts)
