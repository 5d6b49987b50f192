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
* Lidraughts' halfmove and fullmove suffixes ``:H0:F1`` (accepted and ignored).

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
from typing import Mapping

from damier.errors import LONE_SURROGATE, InvalidFenError
from damier.piece import BLACK, WHITE, Piece
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["parse_fen", "format_fen"]

_ENTRY_RE = re.compile(r"(K?)([0-9]+)(?:-(K?)([0-9]+))?\Z", re.IGNORECASE)
_SUFFIX_RE = re.compile(r"([HF])([0-9]+)\Z", re.IGNORECASE)
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
    for index, field in enumerate(fields[1:], start=1):
        if not field:
            raise fail(f"empty field {index} (between two colons)")
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
    return side.upper() == "W", {sq: uses[sq][0] for sq in sorted(uses)}


def format_fen(white_to_move: bool, pieces: Mapping[int, Piece],
               variant: Variant | str = DEFAULT_VARIANT, *, compact: bool = False) -> str:
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
    return ":".join(parts)
