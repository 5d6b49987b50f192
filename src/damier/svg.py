"""Pictures of draughts boards as SVG (the API follows ``chess.svg``).

:func:`board` draws a position as a standalone SVG document: light and dark
squares, men and kings, the last move, arrows, highlighted squares and the
square numbers. ``Board._repr_svg_`` uses it, so a board shows as a picture in
Jupyter, and ``damier render`` (:mod:`damier.cli.render`) writes it to a ``.svg``
(or, with the ``png`` extra, a ``.png``) file.

>>> import damier
>>> from damier import svg
>>> b = damier.Board()
>>> picture = svg.board(b, lastmove=b.push("32-28"), size=360, coordinates=True)
>>> picture.startswith("<svg") and 'width="360"' in picture
True
>>> svg.board(arrows=[(32, 28), "19x28"]).count('class="arrow"')
2

The output is deterministic: the same arguments give the same text.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from damier._core import Move
from damier.errors import IllegalMoveError
from damier.notation import MAX_MOVE_TEXT, parse_square
from damier.piece import WHITE, Piece
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["board", "piece", "Arrow", "DEFAULT_COLORS", "parse_path"]

SQUARE_SIZE = 50
"""Side of a square in SVG user units (the ``viewBox``; ``size`` scales the picture)."""
FRAME = 10
"""Width of the frame around the squares, in the same units."""
_MAN_RADIUS = 20.0
_KING_RADIUS = 19.0

DEFAULT_COLORS: dict[str, str] = {
    "square light": "#f0dfbd",
    "square dark": "#5f8d4e",
    "frame": "#7a5230",
    "frame edge": "#4a311c",
    "white": "#f6f1e4",
    "white rim": "#8f826b",
    "white crown": "#b7861f",
    "black": "#3b3532",
    "black rim": "#100d0c",
    "black crown": "#e9c14f",
    "lastmove": "#f3dd4fa6",
    "lastmove path": "#f7e25fd9",
    "selected": "#2f7fd8d0",
    "coord": "#ffffffc0",
    "arrow": "#ec8a14cc",
    "arrow red": "#c8281ecc",
    "arrow green": "#1c8a2ecc",
    "arrow blue": "#1d5fc4cc",
    "arrow yellow": "#e6c619cc",
}
"""The default palette (cream and green squares in a wooden frame).

Pass ``colors={"square dark": "#a0703c", ...}`` to :func:`board` to change some
of them. Values are CSS colours; ``#rrggbbaa`` and ``#rgba`` give an opacity.
"""


class Arrow(NamedTuple):
    """An arrow from ``tail`` to ``head`` (square numbers) for :func:`board`.

    ``color`` is a CSS colour or the name of a palette arrow colour (``"red"``,
    ``"green"``, ``"blue"``, ``"yellow"``); None is the default arrow colour.
    """

    tail: int
    head: int
    color: str | None = None


class _Path(NamedTuple):
    squares: tuple[int, ...]
    capture: bool


_SEPARATORS = re.compile(r"\s*([-x×:])\s*")
_ANNOTATION = re.compile(r"[!?+#*]+$")


def parse_path(text: str, variant: Variant | str = DEFAULT_VARIANT) -> tuple[tuple[int, ...], bool]:
    """The squares of a move written ``text`` and whether it is a capture, without a board.

    Accepts ``32-28``, ``19x28``, full capture paths (``47x38x24x13x36``), ``:``
    as a capture sign and, on 8x8 boards, algebraic squares. Every step must
    follow a diagonal.

    >>> parse_path("47x38x24x13x36")
    ((47, 38, 24, 13, 36), True)
    >>> parse_path("32-26")
    Traceback (most recent call last):
    ...
    damier.errors.IllegalMoveError: cannot read move '32-26': 32 and 26 are not on one diagonal
    """
    variant = get_variant(variant)
    if not isinstance(text, str):
        raise TypeError(f"move text must be a str, not {type(text).__name__}")
    if len(text.strip()) > MAX_MOVE_TEXT:  # no move is that long; reading it could be slow
        raise IllegalMoveError(f"cannot read move {text.strip()[:40]!r}... ({len(text.strip())} "
                               f"characters): no move is written in more than {MAX_MOVE_TEXT} "
                               "characters")
    parts = _SEPARATORS.split(_ANNOTATION.sub("", text.strip()))
    if len(parts) < 3 or any(p == "" for p in parts[0::2]):
        raise IllegalMoveError(
            f"cannot read move {text!r}: write it as from-to (32-28) or fromxto (19x28)")
    seps = set(parts[1::2])
    capture = bool(seps & {"x", "×", ":"})
    if "-" in seps and (capture or len(parts) > 3):
        raise IllegalMoveError(
            f"cannot read move {text!r}: a plain move is from-to, a capture uses x between squares")
    try:
        squares = tuple(parse_square(p, variant) for p in parts[0::2])
    except IllegalMoveError as err:
        raise IllegalMoveError(f"cannot read move {text!r}: {err}") from None
    for a, b in zip(squares, squares[1:], strict=False):
        (r1, c1), (r2, c2) = variant.row_col(a), variant.row_col(b)
        if a == b or abs(r1 - r2) != abs(c1 - c2):
            raise IllegalMoveError(
                f"cannot read move {text!r}: {a} and {b} are not on one diagonal")
    return squares, capture


# -- helpers -------------------------------------------------------------------------

def _num(value: float) -> str:
    """A coordinate, short and deterministic."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


_HEX_ALPHA = re.compile(r"^#([0-9a-fA-F]{4}|[0-9a-fA-F]{8})$")


def _paint(color: str, prop: str = "fill", opacity: float = 1.0) -> str:
    """``fill="..."`` (or ``stroke``) attributes for ``color``, its alpha (times
    ``opacity``) as an opacity."""
    color = str(color).strip()
    match = _HEX_ALPHA.match(color)
    if match:
        digits = match.group(1)
        if len(digits) == 4:
            digits = "".join(c * 2 for c in digits)
        color, opacity = "#" + digits[:6], opacity * int(digits[6:], 16) / 255
    if opacity == 1.0:
        return f"{prop}={quoteattr(color)}"
    return f"{prop}={quoteattr(color)} {prop}-opacity=\"{opacity:.3f}\""


def _palette(colors: Mapping[str, str] | None) -> dict[str, str]:
    palette = dict(DEFAULT_COLORS)
    for key, value in (colors or {}).items():
        if key not in DEFAULT_COLORS:
            raise ValueError(f"unknown colour {key!r} (known: {', '.join(DEFAULT_COLORS)})")
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"colour {key!r} must be a non-empty string, not {value!r}")
        palette[key] = value
    return palette


def _check_square(square: Any, variant: Variant, what: str) -> int:
    if isinstance(square, bool) or not isinstance(square, int):
        raise TypeError(f"{what}: a square is an int, not {type(square).__name__} {square!r}")
    if not 1 <= square <= variant.squares:
        raise ValueError(
            f"{what}: square {square} is not on the {variant.title} board (1-{variant.squares})")
    return square


def _as_path(value: Any, variant: Variant, what: str) -> _Path:
    """A move, move text or sequence of squares as the squares it passes."""
    if isinstance(value, Move):
        squares = tuple(value.path) if value.has_path else (value.from_square, value.to_square)
        capture = value.is_capture
    elif isinstance(value, str):
        squares, capture = parse_path(value, variant)
    elif isinstance(value, Sequence) and len(value) >= 2:
        squares = tuple(value)
        capture = len(squares) > 2
    else:
        raise TypeError(f"{what}: expected a Move, move text or (from, to), not {value!r}")
    for s in squares:
        _check_square(s, variant, what)
    return _Path(squares, capture)


class _Geometry:
    def __init__(self, variant: Variant, flipped: bool) -> None:
        self.variant = variant
        self.flipped = flipped
        self.n = variant.size

    def corner(self, square: int) -> tuple[int, int]:
        """Top-left corner of ``square`` in user units."""
        row, col = self.variant.row_col(square)
        if self.flipped:
            row, col = self.n - 1 - row, self.n - 1 - col
        return FRAME + col * SQUARE_SIZE, FRAME + row * SQUARE_SIZE

    def center(self, square: int) -> tuple[float, float]:
        x, y = self.corner(square)
        return x + SQUARE_SIZE / 2, y + SQUARE_SIZE / 2

    def cells(self) -> Iterable[tuple[int, int, int | None]]:
        """``(x, y, square or None)`` for every cell, top row first as shown."""
        for row in range(self.n):
            for col in range(self.n):
                r, c = (self.n - 1 - row, self.n - 1 - col) if self.flipped else (row, col)
                square = self.variant.square_at(r, c)
                yield FRAME + col * SQUARE_SIZE, FRAME + row * SQUARE_SIZE, square


# -- pieces --------------------------------------------------------------------------

_CROWN = ("M-10,4.5 L-12,-5.5 L-5.5,-0.5 L0,-9 L5.5,-0.5 L12,-5.5 L10,4.5 Z "
          "M-10,5.8 H10 V8.6 H-10 Z")
_CROWN_BALLS = ((-12.0, -6.2), (0.0, -9.8), (12.0, -6.2))


def _disc(prefix: str, fill: str, rim: str, cy: float, r: float, rings: bool) -> list[str]:
    c = f'cx="0" cy="{_num(cy)}"'
    out = [f'<circle {c} r="{_num(r)}" {_paint(fill)}/>',
           f'<circle {c} r="{_num(r)}" fill="url(#{prefix}-shade)"/>',
           f'<circle {c} r="{_num(r - 0.6)}" fill="none" {_paint(rim, "stroke")} '
           f'stroke-width="1.2"/>']
    if rings:
        out.append(f'<circle {c} r="{_num(r * 0.72)}" fill="none" '
                   f'{_paint(rim, "stroke", opacity=0.55)} stroke-width="1.1"/>')
        out.append(f'<circle {c} r="{_num(r * 0.42)}" fill="none" '
                   f'{_paint(rim, "stroke", opacity=0.35)} stroke-width="0.8"/>')
    return out


def _piece_defs(prefix: str, palette: Mapping[str, str]) -> list[str]:
    out = [
        # Shading laid over every disc: a highlight at the top left, darker towards the rim.
        f'<radialGradient id="{prefix}-shade" cx="0.5" cy="0.5" r="0.5" fx="0.36" fy="0.3">'
        '<stop offset="0" stop-color="#ffffff" stop-opacity="0.5"/>'
        '<stop offset="0.45" stop-color="#ffffff" stop-opacity="0"/>'
        '<stop offset="0.8" stop-color="#000000" stop-opacity="0"/>'
        '<stop offset="1" stop-color="#000000" stop-opacity="0.3"/>'
        '</radialGradient>',
    ]
    for color_name in ("white", "black"):
        fill, rim = palette[color_name], palette[f"{color_name} rim"]
        shadow = '<circle cx="1.5" cy="{cy}" r="{r}" fill="#000000" fill-opacity="0.28"/>'
        man = [f'<g id="{prefix}-{color_name}-man">',
               shadow.format(cy="2.5", r=_num(_MAN_RADIUS + 0.5)),
               *_disc(prefix, fill, rim, 0.0, _MAN_RADIUS, True), "</g>"]
        crown = palette[f"{color_name} crown"]
        king = [f'<g id="{prefix}-{color_name}-king">',
                shadow.format(cy="5.5", r=_num(_KING_RADIUS + 0.5)),
                *_disc(prefix, fill, rim, 3.5, _KING_RADIUS, False),
                *_disc(prefix, fill, rim, -2.5, _KING_RADIUS, False),
                '<g transform="translate(0,-2)">',
                f'<path d="{_CROWN}" {_paint(crown)} {_paint(rim, "stroke")} '
                'stroke-width="0.9" stroke-linejoin="round"/>',
                *(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="1.8" {_paint(crown)} '
                  f'{_paint(rim, "stroke")} stroke-width="0.7"/>' for x, y in _CROWN_BALLS),
                "</g>", "</g>"]
        out.append("".join(man))
        out.append("".join(king))
    return out


def _prefix(palette: Mapping[str, str]) -> str:
    # Ids are shared by every picture of one palette: pictures inlined in one HTML page
    # (Jupyter) then refer to identical definitions, and the output stays deterministic.
    digest = hashlib.sha1(repr(sorted(palette.items())).encode("utf-8")).hexdigest()[:8]
    return f"damier-{digest}"


def _svg_open(size: int, extent: int) -> str:
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ValueError(f"size must be a positive int, not {size!r}")
    return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'version="1.1" width="{size}" height="{size}" viewBox="0 0 {extent} {extent}">')


def _style(style: str | None) -> list[str]:
    if style is None:
        return []
    return [f"<style>{escape(str(style))}</style>"]


def _use(prefix: str, kind: str, x: float, y: float, css: str, square: int | None) -> str:
    ref = f"#{prefix}-{kind}"
    data = f' data-square="{square}"' if square is not None else ""
    return (f'<use href="{ref}" xlink:href="{ref}" class="{css}"{data} '
            f'transform="translate({_num(x)},{_num(y)})"/>')


def piece(piece: Piece, size: int | None = None, *, colors: Mapping[str, str] | None = None) -> str:
    """One man or king as a standalone SVG (``size`` pixels, default 50).

    >>> from damier import Piece, WHITE
    >>> 'class="piece white king"' in piece(Piece(WHITE, king=True))
    True
    """
    palette = _palette(colors)
    prefix = _prefix(palette)
    kind = f"{'white' if piece.color == WHITE else 'black'}-{'king' if piece.king else 'man'}"
    parts = [_svg_open(SQUARE_SIZE if size is None else size, SQUARE_SIZE), "<defs>",
             *_piece_defs(prefix, palette), "</defs>",
             _use(prefix, kind, SQUARE_SIZE / 2, SQUARE_SIZE / 2, "piece " + kind.replace("-", " "),
                  None),
             "</svg>"]
    return "\n".join(parts) + "\n"


# -- the board -----------------------------------------------------------------------

def _arrow(geo: _Geometry, path: Sequence[int], paint: str, css: str) -> str:
    points = [geo.center(s) for s in path]
    width, head_length, head_width = 9.0, 21.0, 25.0
    if len(points) == 2 and points[0] == points[1]:
        x, y = points[0]
        return (f'<circle class="{css}" cx="{_num(x)}" cy="{_num(y)}" '
                f'r="{_num(SQUARE_SIZE * 0.42)}" fill="none" {paint.replace("fill", "stroke")} '
                f'stroke-width="{_num(width * 0.6)}"/>')
    (x1, y1), (x2, y2) = points[-2], points[-1]
    length = math.hypot(x2 - x1, y2 - y1)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    bx, by = x2 - ux * head_length, y2 - uy * head_length
    shaft = points[:-1] + [(bx, by)]
    px, py = -uy * head_width / 2, ux * head_width / 2
    head = [(x2, y2), (bx + px, by + py), (bx - px, by - py)]
    fmt = " ".join
    return (f'<g class="{css}">'
            f'<polyline points="{fmt(f"{_num(x)},{_num(y)}" for x, y in shaft)}" fill="none" '
            f'{paint.replace("fill", "stroke")} stroke-width="{_num(width)}" '
            'stroke-linecap="butt" stroke-linejoin="round"/>'
            f'<polygon points="{fmt(f"{_num(x)},{_num(y)}" for x, y in head)}" {paint}/>'
            "</g>")


def _arrow_parts(value: Any, palette: Mapping[str, str], variant: Variant) -> tuple[_Path, str]:
    color = None
    if isinstance(value, Arrow):
        color = value.color
        value = (value.tail, value.head)
    elif (isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 3
          and (value[2] is None or isinstance(value[2], str))):
        color = value[2]
        value = tuple(value[:2])
    path = _as_path(value, variant, "arrows")
    if color is None:
        return path, palette["arrow"]
    if not isinstance(color, str) or not color.strip():
        raise ValueError(f"arrows: an arrow colour is a non-empty string, not {color!r}")
    return path, palette.get(f"arrow {color.strip().lower()}", color)


def board(board: Any = None, *, size: int = 400, flipped: bool = False,
          lastmove: Move | str | Sequence[int] | None = None,
          arrows: Iterable[Any] = (), coordinates: bool = False,
          squares: Iterable[int] | None = None, colors: Mapping[str, str] | None = None,
          style: str | None = None) -> str:
    """The board as a standalone SVG document of ``size`` x ``size`` pixels.

    :param board: a :class:`damier.Board` (None: an empty International board).
    :param flipped: Black's side at the bottom (default: White's).
    :param lastmove: a :class:`damier.Move`, move text (``"32-28"``,
        ``"47x38x24x13x36"``) or a sequence of squares; its start and end squares
        are highlighted and a capture's landing path is drawn.
    :param arrows: arrows to draw: :class:`Arrow`, ``(tail, head)``,
        ``(tail, head, color)``, moves (a capture's arrow follows its path) or move text.
    :param coordinates: write the square numbers in the dark squares (in every square
        on the Turkish board).
    :param squares: squares to highlight.
    :param colors: palette entries to change (keys of :data:`DEFAULT_COLORS`).
    :param style: CSS put in a ``<style>`` element.

    Elements carry classes for styling and tests: ``square light``, ``square dark``
    (with ``data-square``), ``piece white man`` / ``piece black king`` ...,
    ``lastmove``, ``lastmove-path``, ``selected``, ``coord``, ``arrow``.

    >>> import damier
    >>> text = board(damier.Board("W:WK46,30:B5"), flipped=True)
    >>> text.count('class="piece'), text.count('class="piece white king"')
    (3, 1)
    """
    if board is None:
        variant = get_variant(DEFAULT_VARIANT)
        pieces: Mapping[int, Piece] = {}
        description = "International draughts board"
    else:
        variant = get_variant(board.variant)
        pieces = board.piece_map()
        description = f"{variant.title} draughts: {board.fen()}"
    palette = _palette(colors)
    prefix = _prefix(palette)
    geo = _Geometry(variant, bool(flipped))
    inner = variant.size * SQUARE_SIZE
    extent = inner + 2 * FRAME
    last = _as_path(lastmove, variant, "lastmove") if lastmove is not None else None
    selected = sorted({_check_square(s, variant, "squares") for s in squares or ()})
    arrow_list = [_arrow_parts(a, palette, variant) for a in arrows]

    parts = [_svg_open(size, extent), f"<desc>{escape(description)}</desc>", *_style(style),
             "<defs>", *_piece_defs(prefix, palette), "</defs>",
             f'<rect class="frame" x="0" y="0" width="{extent}" height="{extent}" '
             f'{_paint(palette["frame"])}/>',
             f'<rect x="{_num(FRAME / 2)}" y="{_num(FRAME / 2)}" width="{extent - FRAME}" '
             f'height="{extent - FRAME}" fill="none" '
             f'{_paint(palette["frame edge"], "stroke", opacity=0.6)} stroke-width="1"/>']

    light, dark = _paint(palette["square light"]), _paint(palette["square dark"])
    for x, y, square in geo.cells():
        if square is None:
            parts.append(f'<rect class="square light" x="{x}" y="{y}" width="{SQUARE_SIZE}" '
                         f'height="{SQUARE_SIZE}" {light}/>')
        elif geo.variant.all_squares and ((x - FRAME) + (y - FRAME)) // SQUARE_SIZE % 2 == 0:
            # every square is played on (Turkish): the light ones too
            parts.append(f'<rect class="square light played" data-square="{square}" x="{x}" '
                         f'y="{y}" width="{SQUARE_SIZE}" height="{SQUARE_SIZE}" {light}/>')
        else:
            parts.append(f'<rect class="square dark" data-square="{square}" x="{x}" y="{y}" '
                         f'width="{SQUARE_SIZE}" height="{SQUARE_SIZE}" {dark}/>')
    parts.append(f'<rect x="{FRAME}" y="{FRAME}" width="{inner}" height="{inner}" fill="none" '
                 f'{_paint(palette["frame edge"], "stroke")} stroke-width="1.5"/>')

    if last is not None:
        paint = _paint(palette["lastmove"])
        for square in dict.fromkeys((last.squares[0], last.squares[-1])):
            x, y = geo.corner(square)
            parts.append(f'<rect class="lastmove" data-square="{square}" x="{x}" y="{y}" '
                         f'width="{SQUARE_SIZE}" height="{SQUARE_SIZE}" {paint}/>')
    for square in selected:
        x, y = geo.corner(square)
        parts.append(f'<rect class="selected" data-square="{square}" x="{x + 2}" y="{y + 2}" '
                     f'width="{SQUARE_SIZE - 4}" height="{SQUARE_SIZE - 4}" '
                     f'{_paint(palette["selected"], opacity=0.45)} '
                     f'{_paint(palette["selected"], "stroke")} stroke-width="4"/>')
    if last is not None and last.capture:
        stroke = _paint(palette["lastmove path"], "stroke")
        points = " ".join(f"{_num(x)},{_num(y)}" for x, y in map(geo.center, last.squares))
        parts.append(f'<polyline class="lastmove-path" points="{points}" fill="none" {stroke} '
                     'stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/>')
        for square in last.squares[1:-1]:
            cx, cy = geo.center(square)
            parts.append(f'<circle class="lastmove-stop" cx="{_num(cx)}" cy="{_num(cy)}" r="6" '
                         f'{_paint(palette["lastmove path"])}/>')

    for square, p in sorted(pieces.items()):
        color = "white" if p.color == WHITE else "black"
        kind = "king" if p.king else "man"
        px, py = geo.center(square)
        parts.append(_use(prefix, f"{color}-{kind}", px, py, f"piece {color} {kind}", square))

    if coordinates:
        paint = _paint(palette["coord"])
        on_light = _paint(palette["square dark"], opacity=0.85)
        for square in range(1, variant.squares + 1):
            x, y = geo.corner(square)
            light_cell = variant.all_squares and ((x - FRAME) + (y - FRAME)) // SQUARE_SIZE % 2 == 0
            parts.append(f'<text class="coord" x="{x + 2.5}" y="{y + 10}" font-size="9.5" '
                         f'font-family="Helvetica, Arial, sans-serif" '
                         f'{on_light if light_cell else paint}>'
                         f"{escape(str(square))}</text>")

    for path, color in arrow_list:
        parts.append(_arrow(geo, path.squares, _paint(color), "arrow"))

    parts.append("</svg>")
    return "\n".join(parts) + "\n"
