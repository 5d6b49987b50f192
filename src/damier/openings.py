"""Openings for engine matches: loading opening files, and making the shipped one.

An opening is a list of move texts played from the variant's start position
(``["32-28", "18-23", "37-32", "12-18"]``). An opening may instead start from a
set-up position: its first item is then a FEN (``"W:W28,...:B..."``), followed
by the moves (if any) played from there.

:func:`load_openings` reads two kinds of files:

* PDN (``.pdn``): every game is an opening (its main line; a ``FEN`` tag
  gives its start position). Comments, ``%`` lines and ``;`` comments are
  ignored.
* text (any other name): one opening per line, the moves separated by spaces
  (move numbers such as ``1.`` are allowed and ignored), optionally starting
  with a FEN; ``#`` starts a comment, blank lines are skipped.

Every opening is played out on a board while loading, so an illegal move is
reported at once with the file and line (or game) number.

>>> openings = load_openings()   # the shipped International openings
>>> len(openings) > 100
True
>>> load_openings(["32-28 18-23", "W:W28,33:B18,19"])
[['32-28', '18-23'], ['W:W28,33:B18,19']]

The shipped file ``damier/data/openings_international.pdn`` was made by
``damier openings --generate``: every sequence of 4 plies (two moves
by White, two by Black) from the start position, one sequence per distinct
resulting position, kept when a depth-12 search by damier's engine scores the
position within 0.20 men of equality (see :func:`generate_openings` and the
file's header comment).
"""

from __future__ import annotations

import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import TextIO

from damier.board import Board
from damier.errors import PdnError
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["load_openings", "opening_board", "is_fen", "generate_openings", "write_openings",
           "shipped_openings_path", "DEFAULT_PLIES", "DEFAULT_DEPTH", "DEFAULT_MARGIN"]

_FEN_RE = re.compile(r"[WBwb]:")
_NUMBER_RE = re.compile(r"\d+\.+\Z")

DEFAULT_PLIES = 4
DEFAULT_DEPTH = 12
DEFAULT_MARGIN = 20
"""Centi-men: the largest absolute score (White's view) an opening may have."""


def is_fen(text: str) -> bool:
    """Whether ``text`` is a FEN (``W:...`` or ``B:...``) rather than a move.

    >>> is_fen("W:W31-50:B1-20"), is_fen("32-28"), is_fen("c3-d4")
    (True, False, False)
    """
    return bool(_FEN_RE.match(text.strip()))


def opening_board(opening: Sequence[str], variant: str | Variant = DEFAULT_VARIANT) -> Board:
    """A board with ``opening`` played out (its moves on the move stack).

    Raises :class:`ValueError` (an :class:`~damier.errors.IllegalMoveError` or
    :class:`~damier.errors.InvalidFenError`) for a bad move or FEN.

    >>> opening_board(["32-28", "18-23"]).fen()
    'W:W28,31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,19,20,23'
    """
    moves = list(opening)
    fen = None
    if moves and is_fen(moves[0]):
        fen = moves.pop(0)
    board = Board(fen, variant=variant)
    for ply, text in enumerate(moves, start=1):
        try:
            board.push(text)
        except ValueError as err:
            raise type(err)(f"ply {ply} ({text!r}): {err}") from None
    return board


def shipped_openings_path(variant: str | Variant = DEFAULT_VARIANT) -> Path | None:
    """The openings file that ships for ``variant``, or None if there is none."""
    name = get_variant(variant).openings_file
    if name is None:
        return None
    entry = resources.files("damier").joinpath("data", name)
    if not entry.is_file():
        return None
    return Path(str(entry))


def _split_line(line: str) -> list[str]:
    line = line.split("#", 1)[0]
    return [tok for tok in line.split() if not _NUMBER_RE.match(tok)]


def _read_text(lines: Iterable[str], origin: str, variant: Variant) -> list[list[str]]:
    openings: list[list[str]] = []
    for number, line in enumerate(lines, start=1):
        opening = _split_line(line)
        if not opening:
            continue
        try:
            opening_board(opening, variant)
        except ValueError as err:
            raise ValueError(f"{origin}, line {number}: {err}") from None
        openings.append(opening)
    return openings


def _read_pdn(path: str, variant: Variant) -> list[list[str]]:
    from damier.pdn import read_games

    openings: list[list[str]] = []
    try:
        # a Path: read_games takes a str for PDN text, never for a file name
        for game in read_games(Path(path), variant=variant):
            opening: list[str] = []
            fen = game.headers.get("FEN", "").strip()
            if fen:
                opening.append(fen)
            board = game.board()
            for move in game.mainline_moves():
                opening.append(board.notation(move))
                board.push(move)
            openings.append(opening)
    except PdnError as err:
        raise ValueError(f"{path}: {err}") from None
    return openings


_CACHE: dict[tuple[str, int, int, str], tuple[tuple[str, ...], ...]] = {}
"""Files already read (by path, modification time, size and variant)."""


def load_openings(path: str | os.PathLike[str] | Iterable[str] | None = None,
                  variant: str | Variant = DEFAULT_VARIANT) -> list[list[str]]:
    """The openings of a file: a list of openings, each a list of move texts
    (a first item that is a FEN gives the start position).

    ``path`` is a ``.pdn`` file, a text file (one opening per line), an
    iterable of lines (text format), or None for the file shipped for
    ``variant`` (:class:`FileNotFoundError` if there is none). Duplicates are
    kept (they are played as often as they occur). A bad opening raises
    :class:`ValueError` naming the line or game.
    """
    v = get_variant(variant)
    if path is None:
        shipped = shipped_openings_path(v)
        if shipped is None:
            raise FileNotFoundError(f"damier ships no openings for {v.title} draughts: "
                                    "give an openings file")
        path = shipped
    if isinstance(path, (str, os.PathLike)):
        name = os.fspath(path)
        if not os.path.isfile(name):
            raise FileNotFoundError(f"no such openings file: {name!r}")
        stat = os.stat(name)
        key = (os.path.abspath(name), stat.st_mtime_ns, stat.st_size, v.name)
        cached = _CACHE.get(key)
        if cached is None:
            if name.lower().endswith(".pdn"):
                openings = _read_pdn(name, v)
            else:
                with open(name, encoding="utf-8") as handle:
                    openings = _read_text(handle, name, v)
            if not openings:
                raise ValueError(f"{name}: no openings found")
            cached = _CACHE[key] = tuple(tuple(o) for o in openings)
        return [list(o) for o in cached]
    return _read_text(path, "openings", v)


# -- generation ---------------------------------------------------------------------------


def _enumerate(board: Board, plies: int) -> list[list[str]]:
    """Every sequence of ``plies`` legal moves from ``board`` (a game that ends
    earlier is not an opening), as move texts."""
    if plies == 0:
        return [[]]
    if board.is_game_over():
        return []
    result = []
    for move in sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square, m.path)):
        text = board.notation(move)
        board.push(move)
        for rest in _enumerate(board, plies - 1):
            result.append([text] + rest)
        board.pop()
    return result


def start_sequences(variant: str | Variant = DEFAULT_VARIANT, plies: int = 4) -> list[list[str]]:
    """Every sequence of ``plies`` moves from the start position, one per position it
    reaches (the first in the order of the moves' squares): openings for a variant
    without shipped balanced ones, unsorted by score (played with both colours, a lopsided
    one is still fair).

    >>> len(start_sequences("international", 2)), start_sequences("english", 1)[0]
    (81, ['9-13'])
    """
    v = get_variant(variant)
    seen: set[str] = set()
    unique: list[list[str]] = []
    for moves in _enumerate(Board(variant=v), plies):
        fen = opening_board(moves, v).fen()
        if fen not in seen:
            seen.add(fen)
            unique.append(moves)
    return unique


def pair_openings(variant: str | Variant = DEFAULT_VARIANT, seed: int = 1) -> list[list[str]]:
    """The openings of game pairs between two versions of an engine (a tune, a gate):
    the ones shipped for ``variant``, else every position 4 plies from the start
    (:func:`start_sequences`: without some openings, every pair would replay the same
    two games); shuffled with ``seed``, so that the same seed gives the same order.

    >>> len(pair_openings("international")) == len(load_openings(None, "international"))
    True
    >>> pair_openings("english", 3) == pair_openings("english", 3) != pair_openings("english", 4)
    True
    >>> sorted(pair_openings("english")) == sorted(start_sequences("english", 4))
    True
    """
    import random

    v = get_variant(variant)
    try:
        openings = load_openings(None, v)
    except FileNotFoundError:
        openings = start_sequences(v, 4)
    random.Random(seed).shuffle(openings)
    return openings


def generate_openings(*, variant: str | Variant = DEFAULT_VARIANT, plies: int = DEFAULT_PLIES,
                      depth: int = DEFAULT_DEPTH, margin: int = DEFAULT_MARGIN,
                      min_margin: int = 0, hash_mb: int = 32, jobs: int = 1,
                      log: TextIO | None = None) -> list[tuple[list[str], int]]:
    """The balanced openings of ``plies`` plies, with their scores (or, with
    ``min_margin``, the unbalanced ones).

    Every sequence of ``plies`` moves from the start position is played; of the
    sequences that reach the same position only the first (in the order of the
    moves' squares) is kept. Each position is searched by damier's engine to
    ``depth`` plies at full strength (with a cleared hash table, so the result
    does not depend on the order), and the opening is kept when the score,
    seen from White, is within ``margin`` centi-men of 0 and at least
    ``min_margin`` from it. Returns ``(moves, score)`` pairs, score from White's
    view. ``jobs`` searches run at once (threads; the result does not depend on it).

    Unbalanced openings (one side ahead by a fraction of a man, played with both
    colours) make fewer games end in a draw; measured at 0.1 s a move, they did not
    make a match decide in fewer games: the pairs of two draws became pairs of a win
    each, with the same normalized Elo (``benchmarks/README.md`` has the figures).
    """
    if not 0 <= min_margin <= margin:
        raise ValueError(f"need 0 <= min_margin <= margin, got {min_margin} and {margin}")
    from damier.engine import Engine

    v = get_variant(variant)
    start = Board(variant=v)
    sequences = _enumerate(start, plies)
    seen: set[str] = set()
    unique: list[list[str]] = []
    for moves in sequences:
        fen = opening_board(moves, v).fen()
        if fen not in seen:
            seen.add(fen)
            unique.append(moves)
    if log is not None:
        log.write(f"{len(sequences)} sequences of {plies} plies, {len(unique)} distinct "
                  f"positions; searching each to depth {depth}\n")
    local = threading.local()

    def score_of(moves: list[str]) -> int:
        engine = getattr(local, "engine", None)
        if engine is None:
            engine = local.engine = Engine(hash_mb=hash_mb)
        board = opening_board(moves, v)
        engine.new_game()
        result = engine.search(board, depth=depth)
        return result.score if board.turn else -result.score  # White's view

    kept: list[tuple[list[str], int]] = []
    began = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for index, (moves, white_score) in enumerate(
                zip(unique, pool.map(score_of, unique), strict=True), start=1):
            if min_margin <= abs(white_score) <= margin:
                kept.append((moves, white_score))
            if log is not None and (index % 200 == 0 or index == len(unique)):
                log.write(f"  {index}/{len(unique)} searched, {len(kept)} kept "
                          f"({time.monotonic() - began:.0f} s)\n")
                log.flush()
    return kept


def write_openings(openings: Sequence[tuple[list[str], int]], out: TextIO, *,
                   header: Sequence[str] = ()) -> None:
    """Writes ``(moves, score)`` openings as a PDN file of bare move texts,
    one game per line, each with its score as a comment."""
    for line in header:
        out.write(f"% {line}".rstrip() + "\n")
    for moves, score in openings:
        parts = []
        for i, text in enumerate(moves):
            parts.append(f"{i // 2 + 1}. {text}" if i % 2 == 0 else text)
        out.write(" ".join(parts) + f" {{{score / 100:+.2f}}} *\n")


if __name__ == "__main__":  # pragma: no cover - the command line is damier.cli.openings
    raise SystemExit("damier.openings has no command line: run 'damier openings "
                     "--generate|--check FILE ...' (or python -m damier.cli.openings)")
