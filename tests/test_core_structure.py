"""The compiled core's structure (the architecture issue's item 5): the search in steps,
named constants, one source for the limits that Python shares with the core, and the
evaluation's term slots tied to their names.

- Fixed-depth searches give the moves, scores and node counts that the search gave
  before it was split into steps (recorded with the core built from commit 266fafc,
  the parent of that change): the steps are the same search.
- ``engine_types.MAX_THREADS`` and ``egdb.MAX_PIECES`` / ``egdb.UNUSED`` are the
  core's numbers, and the core enforces them.
- ``EVAL_TERM_NAMES`` is made from the core's term slots: a slot without a name, a
  slot or name given twice, fails.
- The compiled sources keep the shape: no ``DEF`` (deprecated by Cython), no function
  over 80 lines.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import damier
from damier import _core, egdb, engine_types
from damier._core import EVAL_TERM_NAMES, SearchCore, eval_trace
from damier.engine import Engine
from damier.evalfile import Weights
from damier.variants import get_variant

SRC = Path(damier.__file__).resolve().parent
ROUND0 = Path(__file__).parent / "data" / "eval_international_round0.bin"

MIDDLEGAME_A = ("B:W22,27,28,32,33,35,36,38,41,43,44,45,47,48,49,50:"
                "B1,2,3,4,6,7,8,9,11,13,16,18,19,24,25,26")
MIDDLEGAME_B = "W:W24,26,36,38,41,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,13,14,15,16,27"

# (variant, FEN or None for the start, depth, selectivity, multipv, lines): each line
# (move, score, nodes), best first, as the core of commit 266fafc gave them with
# `Engine(hash_mb=16, weights=W, selectivity=S).analyse(board, multipv=N, depth=D)`,
# W the round-0 International weights (tests/data) or material-only weights for the
# other variants, so that new shipped weights do not change them. The numbers of the
# selectivity settings were then the ones of PRE_TUNE (the SPSA-tuned defaults came later).
PRE_TUNE: dict[str, Any] = {"probcut_margin": 100, "probcut_depth": 5, "probcut_reduction": 3,
                            "singular_margin": 30, "singular_depth": 6, "lmr_divisor": 1.5}
BEFORE_SPLIT: list[tuple[str, str | None, int, dict[str, Any], int,
                         list[tuple[str, int, int]]]] = [
    ("international", None, 9, {}, 1, [("31-26", 1, 75363)]),
    ("international", MIDDLEGAME_A, 9, {}, 1, [("7-12", 14, 82199)]),
    ("international", MIDDLEGAME_B, 9, {}, 1, [("41-37", 3, 115672)]),
    ("international", MIDDLEGAME_A, 9, {"history": 2, "threat_qsearch": 2}, 1,
     [("8-12", 18, 78163)]),
    ("international", MIDDLEGAME_B, 9, {"probcut": False, "singular": False, "history": 0}, 1,
     [("45-40", 3, 116290)]),
    ("international", MIDDLEGAME_B, 8, {}, 3,
     [("41-37", 3, 103180), ("45-40", 3, 130695), ("44-40", 0, 181969)]),
    ("international", "W:WK46,K37,28,33:BK5,K14,12,17", 10, {}, 1, [("37-41", 30991, 7133)]),
    ("english", None, 11, {}, 1, [("9-13", 0, 43036)]),
    ("russian", None, 11, {}, 1, [("22-17", 0, 41929)]),
    ("russian", "B:WK1,K6,22:BK32,K29,11", 11, {}, 1, [("29x18", 0, 42390)]),
    ("brazilian", None, 11, {}, 1, [("22-17", 0, 43779)]),
]


@pytest.mark.parametrize("variant, fen, depth, selectivity, multipv, lines", BEFORE_SPLIT)
def test_the_search_in_steps_is_the_search_before(variant: str, fen: str | None, depth: int,
                                                   selectivity: dict[str, Any], multipv: int,
                                                   lines: list[tuple[str, int, int]]) -> None:
    weights = ROUND0 if variant == "international" else Weights.material(get_variant(variant))
    engine = Engine(hash_mb=16, weights=weights, selectivity={**PRE_TUNE, **selectivity})
    board = damier.Board(fen, variant=variant)
    results = engine.search_lines(board, multipv, depth=depth)
    got = []
    for result in results:
        assert result.best_move is not None
        got.append((board.notation(result.best_move), result.score, result.nodes))
    assert got == lines


def test_max_threads_is_the_cores_limit() -> None:
    assert engine_types.MAX_THREADS == _core.MAX_THREADS
    with pytest.raises(ValueError, match=f"between 1 and {_core.MAX_THREADS}"):
        SearchCore(1).set_threads(_core.MAX_THREADS + 1)
    with pytest.raises(ValueError, match="threads"):
        Engine(hash_mb=1, threads=engine_types.MAX_THREADS + 1)


def test_the_tables_limits_are_the_cores() -> None:
    assert egdb.MAX_PIECES == _core.MAX_EG_PIECES
    assert egdb.UNUSED == _core.EGDB_UNUSED == 0xFFFF
    core = SearchCore(1)
    core.set_egdb(None, egdb.MAX_PIECES)
    with pytest.raises(ValueError, match=f"between 0 and {egdb.MAX_PIECES}"):
        core.set_egdb(None, egdb.MAX_PIECES + 1)


def test_term_names_follow_their_slots() -> None:
    names = _core._term_names([(2, "c"), (0, "a"), (1, "b")], 3)
    assert names == ("a", "b", "c")


@pytest.mark.parametrize("slots, nterms, message", [
    ([(0, "a"), (2, "c")], 3, "slot 1 has no name"),
    ([(0, "a"), (1, "b"), (1, "c")], 3, "slot 1"),
    ([(0, "a"), (1, "a")], 2, "'a'"),
    ([(0, "a"), (3, "d")], 3, "slot 3 is out of range"),
    ([(-1, "z"), (0, "a")], 1, "slot -1 is out of range"),
])
def test_term_slots_that_disagree_with_the_names_fail(slots: list[tuple[int, str]], nterms: int,
                                                      message: str) -> None:
    with pytest.raises(ImportError, match=message):
        _core._term_names(slots, nterms)


def test_each_term_name_reads_its_own_slot() -> None:
    # White: kings on 46 and 37, men on 28 and 33; Black: a king on 5, men on 12 and 17.
    # Both sides have a king, White leads by a piece: "king" +1, "kings_lead" +1, "man" 0.
    board = damier.Board("W:WK46,K37,28,33:BK5,12,17")
    feats, counts, _, _ = eval_trace(board)
    terms = {EVAL_TERM_NAMES[f]: c for f, c in zip(feats, counts, strict=True)
             if f < len(EVAL_TERM_NAMES)}
    assert terms["king"] == 1
    assert terms["kings_lead"] == 1
    assert "man" not in terms
    # Only men: no king term, no kings' lead; White's extra man counts once.
    board = damier.Board("W:W28,33,34:B12,17")
    feats, counts, _, _ = eval_trace(board)
    terms = {EVAL_TERM_NAMES[f]: c for f, c in zip(feats, counts, strict=True)
             if f < len(EVAL_TERM_NAMES)}
    assert terms["man"] == 1
    assert "king" not in terms and "kings_lead" not in terms


# -- the compiled sources' shape ------------------------------------------------------------

_FUNCTION = re.compile(r"^(\s*)(?:cdef|cpdef|def)\s+(?!class\b|struct\b|enum\b|extern\b|packed\b)"
                       r"[^=(#]*\(")


def function_lengths(source: str) -> list[tuple[int, int]]:
    """``(first line, lines)`` of every function of a Cython or Python source: from
    its ``def`` line to its last non-blank line."""
    lines = source.splitlines()
    found = []
    for start, line in enumerate(lines):
        match = _FUNCTION.match(line)
        if not match:
            continue
        indent = len(match.group(1))
        i = start
        while not lines[i].split("#", 1)[0].rstrip().endswith(":"):
            i += 1
        end = i
        for j in range(i + 1, len(lines)):
            text = lines[j]
            if text.strip() and len(text) - len(text.lstrip()) <= indent:
                break
            if text.strip():
                end = j
        found.append((start + 1, end - start + 1))
    return found


def test_the_function_scanner_measures_functions() -> None:
    source = ("cdef int f(int a,\n"
              "           int b) noexcept nogil:\n"
              "    cdef int c = g(a)\n"
              "\n"
              "    return c\n"
              "\n"
              "\n"
              "cdef enum:\n"
              "    X = 1\n"
              "def h():\n"
              "    pass\n")
    assert function_lengths(source) == [(1, 5), (10, 2)]


def _compiled_sources() -> list[Path]:
    return sorted([*SRC.glob("*.pyx"), *SRC.glob("*.pxi")])


def test_the_compiled_sources_have_no_def_constants() -> None:
    sources = _compiled_sources()
    assert {"_core.pyx", "_search.pxi", "_eval.pxi"} <= {p.name for p in sources}
    found = [f"{path.name}:{number}: {line.strip()}"
             for path in sources
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.match(r"\s*DEF\s", line)]
    assert not found, ("DEF is deprecated: use a cdef enum or a module constant:\n"
                       + "\n".join(found))


def test_no_compiled_function_is_over_80_lines() -> None:
    long = [f"{path.name}:{first}: {count} lines"
            for path in _compiled_sources()
            for first, count in function_lengths(path.read_text(encoding="utf-8"))
            if count > 80]
    assert not long, "split these into steps:\n" + "\n".join(long)
