"""The variant registry (``damier/variants.py``) holds every variant fact once.

* No module outside ``variants.py`` compares a variant's name (or an alias) or
  keys a table by it: such code would be a second copy of a variant fact. Names
  in docstrings, doctests, default argument values and plain call arguments
  (``get_variant("english")``) are allowed.
* The compiled core is initialised from the registry, and behaves as its flags say.
* Every field of :class:`~damier.variants.Variant` is used by the code.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import re
from importlib import resources
from pathlib import Path

import pytest

import damier
from damier import _core
from damier._core import eval_scale_divisor
from damier.engine import load_eval_weights, variants_with_weights
from damier.hub_server import run_hub
from damier.openings import shipped_openings_path
from damier.pdn import Game, canonical_result, result_for_variant, write_game
from damier.rules import Rules
from damier.variants import (DEFAULT_VARIANT, VARIANTS, Variant, get_variant, variant_for_game_type,
                             variant_for_hub_name)

SRC = Path(damier.__file__).resolve().parent
REGISTRY = SRC / "variants.py"
VARIANT_LIST = list(VARIANTS.values())
NAMES = frozenset(key for v in VARIANT_LIST for key in (v.name, *v.aliases))
"""Every name a variant goes by in damier (the Hub names are ordinary words,
"normal" among them, and are left out)."""


# -- the name-comparison scanner ---------------------------------------------------------

def _is_name(node: ast.AST | None) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value.lower() in NAMES)


def _names_in(node: ast.AST) -> int:
    """How many variant names a tuple, list or set literal holds."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return sum(1 for elt in node.elts if _is_name(elt))
    return 0


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _variant_number_compare(node: ast.Compare) -> bool:
    """``variant.index == 0``, ``board.variant.game_type != 21``: a variant picked by number."""
    operands = [node.left, *node.comparators]
    attrs = [o for o in operands
             if isinstance(o, ast.Attribute) and o.attr in ("index", "game_type")
             and "variant" in _dotted(o).lower()]
    numbers = [o for o in operands if isinstance(o, ast.Constant) and isinstance(o.value, int)]
    return bool(attrs and numbers)


def python_violations(source: str, filename: str = "<string>") -> list[str]:
    """The places in Python ``source`` that compare a variant name or key a table by it."""
    found: list[str] = []

    def report(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{getattr(node, 'lineno', '?')}: {what}")

    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_is_name(o) or _names_in(o) for o in operands):
                report(node, "compares a variant name")
            elif _variant_number_compare(node):
                report(node, "compares a variant's number")
        elif isinstance(node, ast.Dict):
            if any(_is_name(k) for k in node.keys):
                report(node, "a table keyed by variant names")
        elif isinstance(node, ast.Subscript):
            if _is_name(node.slice):
                report(node, "looks a variant name up in a table")
        elif isinstance(node, ast.Call):
            if (isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("get", "pop", "setdefault")
                    and node.args and _is_name(node.args[0])):
                report(node, "looks a variant name up in a table")
        elif isinstance(node, ast.Set):
            if _names_in(node):
                report(node, "a set of variant names")
        elif isinstance(node, (ast.Tuple, ast.List)):
            if _names_in(node) >= 2:
                report(node, "a list of variant names")
        elif isinstance(node, ast.MatchValue):
            if _is_name(node.value):
                report(node, "matches a variant name")
        elif isinstance(node, ast.JoinedStr) and _data_file_named_after_variant(node):
            report(node, "a data file named after the variant (name it in the registry)")
    return found


_DATA_FILE = re.compile(r"\.(?:json|pdn|txt|csv|bin|db)\b")


def _data_file_named_after_variant(node: ast.JoinedStr) -> bool:
    """``f"eval_{variant.name}.json"``: a file name built from a variant's name."""
    text = "".join(v.value for v in node.values
                   if isinstance(v, ast.Constant) and isinstance(v.value, str))
    names = [v.value for v in node.values if isinstance(v, ast.FormattedValue)
             and isinstance(v.value, ast.Attribute) and v.value.attr == "name"
             and re.search(r"(^|\.)(v|\w*variant)$", _dotted(v.value.value).lower())]
    return bool(names and _DATA_FILE.search(text))


_QUOTED = r"""(['"])(?:%s)\1""" % "|".join(re.escape(n) for n in sorted(NAMES))
_CYTHON_PATTERNS = [
    (re.compile(r"(?:==|!=)\s*" + _QUOTED, re.I), "compares a variant name"),
    (re.compile(_QUOTED + r"\s*(?:==|!=|:|\bin\b|\bnot\s+in\b)", re.I),
     "compares or keys by a variant name"),
    (re.compile(r"\[\s*" + _QUOTED + r"\s*\]", re.I), "looks a variant name up in a table"),
    (re.compile(r"\bV_(?:%s)\b" % "|".join(re.escape(n.upper()) for n in sorted(NAMES)
                                            if n.isidentifier())), "a per-variant constant"),
    (re.compile(r"\bvariant\w*\s*(?:==|!=)\s*\d"), "compares a variant's number"),
    (re.compile(r"\b\d+\s*(?:==|!=)\s*[\w.]*variant\b"), "compares a variant's number"),
]


def cython_violations(source: str, filename: str = "<string>") -> list[str]:
    """The same check for Cython source, by patterns (comments are skipped)."""
    found = []
    for number, line in enumerate(source.splitlines(), start=1):
        code = line.split("#", 1)[0]
        for pattern, what in _CYTHON_PATTERNS:
            if pattern.search(code):
                found.append(f"{filename}:{number}: {what}: {line.strip()}")
    return found


def _sources(*suffixes: str) -> list[Path]:
    return sorted(p for suffix in suffixes for p in SRC.rglob(f"*{suffix}") if p != REGISTRY)


def test_the_scan_covers_the_package():
    names = {p.name for p in _sources(".py", ".pyx", ".pxi")}
    assert {"board.py", "pdn.py", "rules.py", "hub_server.py", "_core.pyx", "_search.pxi"} <= names
    assert "variants.py" not in names


def test_no_module_outside_the_registry_compares_a_variant_name():
    found = []
    for path in _sources(".py"):
        found += python_violations(path.read_text(encoding="utf-8"), str(path.relative_to(SRC)))
    for path in _sources(".pyx", ".pxi"):
        found += cython_violations(path.read_text(encoding="utf-8"), str(path.relative_to(SRC)))
    assert not found, ("variant facts belong in damier/variants.py (a field of Variant), "
                       "not in name comparisons:\n" + "\n".join(found))


@pytest.mark.parametrize("code", [
    'if variant.name == "international": pass',
    'x = "normal" if v.name == "international" else v.name',
    'ok = get_variant(v).name != "english"',
    'ok = name in ("russian", "brazilian")',
    'ok = "russian" in names',
    'RULES = {"international": 1, "english": 2}',
    'r = RULES["english"]',
    'r = RULES.get("checkers")',
    'SHORT = {"english", "russian"}',
    'EIGHT = ["english", "russian", "brazilian"]',
    'ok = board.variant.index == 1',
    'ok = 21 == self.variant.game_type',
    'match v.name:\n    case "russian": pass',
    'path = f"eval_{variant.name}.json"',
    'path = data / f"puzzles_{v.name}.json"',
])
def test_the_scanner_finds_name_comparisons(code):
    assert python_violations(code)


@pytest.mark.parametrize("code", [
    'def f(variant="international"): pass',
    'def f(*, variant: str = "english"): pass',
    'v = get_variant("international")',
    'b = Board(variant="russian")',
    'def f():\n    """>>> f("english") == "english"\n    True\n    """',
    'p.add_argument("--variant", default="international")',
    'data.get("variant", "international")',
    'ok = v.flying_kings and not v.majority_capture',
    'ok = move.index == 0',
    'ok = v.name == DEFAULT_VARIANT',
    'msg = f"{variant.name}: no such square"',
    'path = f"eval_{player.name}.json"',
])
def test_the_scanner_allows_defaults_docstrings_and_arguments(code):
    assert python_violations(code) == []


@pytest.mark.parametrize("code, bad", [
    ('    if g.variant == 1:', True),
    ('    _init_geo(&GEOS[V_ENGLISH], V_ENGLISH, 8, 0, 0, 0, 0, 1)', True),
    ('    if name == "russian":', True),
    ('    if s.g.variant != self._last_variant:', False),
    ('    """16 when a lone king faces three pieces (Russian: "russian" here is text)."""', False),
    ('    if g.flying:  # "english" == no flying kings', False),
])
def test_the_cython_scanner(code, bad):
    assert bool(cython_violations(code)) == bad


# -- the core is initialised from the registry, and follows its flags --------------------

def _sq(v: Variant, row: int, col: int) -> int:
    if v.top_left_dark:
        # The positions below are drawn for a board whose top left square is light: on the
        # Italian board their mirror image (the move rules are symmetric) stands on dark squares.
        col = v.size - 1 - col
    square = v.square_at(row, col)
    assert square is not None, (row, col)
    return square


def _board(v: Variant, *, white_men=(), white_kings=(), black_men=(), black_kings=(),
           white_to_move=True) -> damier.Board:
    def side(men, kings):
        return ",".join([str(_sq(v, *rc)) for rc in men] + [f"K{_sq(v, *rc)}" for rc in kings])
    fen = (f"{'W' if white_to_move else 'B'}:W{side(white_men, white_kings)}"
           f":B{side(black_men, black_kings)}")
    return damier.Board(fen, variant=v)


@pytest.fixture(params=VARIANT_LIST, ids=lambda v: v.name)
def variant(request) -> Variant:
    return request.param


DIAGONAL_LIST = [v for v in VARIANT_LIST if not v.all_squares]
ALL_SQUARES_LIST = [v for v in VARIANT_LIST if v.all_squares]


@pytest.fixture(params=DIAGONAL_LIST, ids=lambda v: v.name)
def diagonal_variant(request) -> Variant:
    """The variants played on the dark squares, along diagonals (the positions below)."""
    return request.param


def test_the_core_holds_the_registry_facts(variant):
    facts = _core.variant_facts(variant.index)
    assert facts is not None
    assert facts == {name: getattr(variant, name) for name in facts}


def test_core_indices_are_distinct_and_unused_slots_are_empty():
    indices = {v.index for v in VARIANT_LIST}
    assert len(indices) == len(VARIANT_LIST)
    for index in range(8):
        assert (_core.variant_facts(index) is None) == (index not in indices)


def test_init_variant_is_idempotent_and_refuses_other_facts(variant):
    facts = _core.variant_facts(variant.index)
    size = facts.pop("size")
    _core.init_variant(variant.index, size, **facts)  # the same facts again: nothing changes
    assert damier.Board(variant=variant).perft(3) > 0
    flipped = dict(facts, men_capture_backwards=not facts["men_capture_backwards"])
    if facts["all_squares"]:   # the board of every square has men that never capture back
        flipped = dict(facts, flying_kings=not facts["flying_kings"])
    if facts["orthogonal_captures"]:   # orthogonal captures need men capturing backwards
        flipped = dict(facts, majority_capture=not facts["majority_capture"],
                       capture_values=None)
    with pytest.raises(ValueError, match="already initialised"):
        _core.init_variant(variant.index, size, **flipped)
    assert _core.variant_facts(variant.index) == dict(facts, size=size)


def test_a_board_refuses_an_uninitialised_core_index():
    with pytest.raises(ValueError, match="unknown variant index"):
        damier.Board()._core_init(max(v.index for v in VARIANT_LIST) + 1)


def test_board_size_start_position_and_first_mover(variant):
    board = damier.Board(variant=variant)
    assert board.turn == variant.white_starts
    assert board.fen() == damier.Board(variant.initial_fen, variant=variant).fen()
    if variant.all_squares:   # Turkish: every square; each side's back row starts empty
        assert variant.squares == variant.size ** 2
        assert max(board.piece_map()) == variant.squares - variant.size
    else:
        assert max(board.piece_map()) == variant.squares == variant.size ** 2 // 2
    assert damier.Board(variant=variant.name).variant is variant


def test_flying_kings(diagonal_variant):
    variant = diagonal_variant
    n = variant.size
    # A king in White's left corner, the long diagonal empty up to a man in the far corner.
    board = _board(variant, white_kings=[(n - 1, 0)], black_men=[(0, n - 1)])
    assert len(board.legal_moves) == (n - 2 if variant.flying_kings else 1)


def test_men_capture_backwards(diagonal_variant):
    variant = diagonal_variant
    # A white man with a black man diagonally behind it and the square beyond empty.
    board = _board(variant, white_men=[(2, 1)], black_men=[(3, 2)])
    assert board.must_capture == variant.men_capture_backwards


def test_majority_capture(diagonal_variant):
    variant = diagonal_variant
    # From (5, 2): one piece to the left, two (forwards, zigzag) to the right.
    board = _board(variant, white_men=[(5, 2)], black_men=[(4, 1), (4, 3), (2, 5)])
    counts = sorted(len(m.captures) for m in board.legal_moves)
    assert counts == ([2] if variant.majority_capture else [1, 2])


def test_promotion_during_a_capture(diagonal_variant):
    variant = diagonal_variant
    # The man is crowned on (0, 3); only a king that may go on at once (and fly)
    # takes the piece on (2, 5), two squares away down the other diagonal.
    board = _board(variant, white_men=[(2, 1)], black_men=[(1, 2), (2, 5)])
    best = max(board.legal_moves, key=lambda m: len(m.captures))
    assert len(best.captures) == (2 if variant.promote_during_capture and variant.flying_kings
                                  else 1)
    board.push(best)
    assert board.piece_at(best.to_square).king


def test_crowning_ends_a_capture(diagonal_variant):
    variant = diagonal_variant
    # The man reaches (0, 3) on the far row with a piece to take right behind it.
    board = _board(variant, white_men=[(2, 1)], black_men=[(1, 2), (1, 4)])
    goes_on = (variant.men_capture_backwards or variant.promote_during_capture) \
        and not variant.crowning_ends_capture
    best = max(board.legal_moves, key=lambda m: len(m.captures))
    assert len(best.captures) == (2 if goes_on else 1)
    board.push(best)
    crowned = variant.crowning_ends_capture or variant.promote_during_capture or not goes_on
    assert board.piece_at(best.to_square).king == crowned


def test_lone_king_scaling(variant):
    n = variant.size
    board = _board(variant, white_kings=[(n - 1, 0)], black_kings=[(0, n - 1)],
                   black_men=[(0, 1), (0, 3)])
    assert eval_scale_divisor(board) == (16 if variant.lone_king_drawish else 1)
    board = _board(variant, white_kings=[(n - 1, 0)], black_men=[(0, 1), (0, 3), (0, 5), (1, 6)])
    assert eval_scale_divisor(board) == 1  # four pieces against the king: no scaling


@pytest.mark.parametrize("variant", ALL_SQUARES_LIST, ids=lambda v: v.name)
def test_the_board_of_every_square_follows_the_flags(variant):
    # Pieces go along rows and files: a king in White's left corner (7, 0) sees its file
    # up to (1, 0) (a man on (0, 0), nothing beyond it) and its row.
    n = variant.size
    board = _board(variant, white_kings=[(n - 1, 0)], black_men=[(0, 0)])
    assert len(board.legal_moves) == ((n - 2) + (n - 1) if variant.flying_kings else 2)
    # men do not capture backwards, but forwards and sideways
    assert not _board(variant, white_men=[(2, 1)], black_men=[(3, 1)]).must_capture
    assert _board(variant, white_men=[(2, 1)], black_men=[(1, 1)]).must_capture
    assert _board(variant, white_men=[(2, 1)], black_men=[(2, 2)]).must_capture
    assert not variant.men_capture_backwards
    # the majority rule: one piece to the left, two straight ahead
    board = _board(variant, white_men=[(5, 2)], black_men=[(5, 1), (4, 2), (2, 2)])
    counts = sorted(len(m.captures) for m in board.legal_moves)
    assert counts == ([2] if variant.majority_capture else [1, 2])
    # a man reaching the far row during a capture goes on along it, and is crowned at the end
    board = _board(variant, white_men=[(2, 1)], black_men=[(1, 1), (0, 2)])
    (best,) = board.legal_moves
    assert len(best.captures) == 2 and best.to_square == _sq(variant, 0, 3)
    board.push(best)
    assert board.piece_at(best.to_square).king


# -- the other fields, through the code that uses them -----------------------------------

def test_names_aliases_and_game_type(variant):
    for key in (variant.name, variant.name.upper(), *variant.aliases):
        assert get_variant(key) is variant
    assert variant_for_game_type(variant.game_type, variant.pdn_variant_tag) is variant
    # the title is the name as people write it (punctuation aside: "Frysk!")
    assert variant.title and variant.title.lower().rstrip("!") == variant.name
    assert DEFAULT_VARIANT in VARIANTS


def test_draw_rules(variant):
    assert isinstance(variant.draw_rules, Rules)
    assert Rules.for_variant(variant) is variant.draw_rules
    assert damier.Board(variant=variant).rules == variant.draw_rules


def test_pdn_results(variant):
    white, draw, black = variant.pdn_results
    assert [result_for_variant(r, variant) for r in ("1-0", "1/2-1/2", "0-1", "*")] == \
        [white, draw, black, "*"]
    assert [canonical_result(r) for r in variant.pdn_results] == ["1-0", "1/2-1/2", "0-1"]
    board = damier.Board(f"B:W{variant.squares}:B", variant=variant)  # Black has no pieces left
    text = write_game(Game.from_board(board))
    # Having no piece left loses, but wins in antidraughts (lidraughts' rules of the variant).
    assert f'[Result "{black if variant.goal == "misere" else white}"]' in text


def test_hub_name(variant):
    assert variant_for_hub_name(variant.hub_name) is variant
    out = io.StringIO()
    assert run_hub(io.StringIO("hub\nquit\n"), out, variant=variant) == 0
    assert f"name=variant value={variant.hub_name} " in out.getvalue()
    out = io.StringIO()
    run_hub(io.StringIO(f"set-param name=variant value={variant.hub_name}\nhub\nquit\n"), out,
            variant=next(v for v in VARIANT_LIST if v is not variant))
    assert f"name=variant value={variant.hub_name} " in out.getvalue()
    assert "error" not in out.getvalue()


def test_data_files(variant):
    data = resources.files("damier").joinpath("data")
    if variant.eval_weights_file is None:
        assert variant.name not in variants_with_weights()
    else:
        assert data.joinpath(variant.eval_weights_file).is_file()
        assert variant.name in variants_with_weights()
        weights = load_eval_weights(variant)
        assert weights.variant.name == variant.name
    shipped = shipped_openings_path(variant)
    if variant.openings_file is None:
        assert shipped is None
    else:
        assert shipped is not None and shipped.name == variant.openings_file
    if variant.puzzles_file is not None:
        assert data.joinpath(variant.puzzles_file).is_file()


def test_data_files_belong_to_variants():
    """Every evaluation, openings or puzzles file in damier/data is named by the registry."""
    named = {f for v in VARIANT_LIST for f in (v.eval_weights_file, v.openings_file, v.puzzles_file)
             if f}
    shipped = {p.name for p in resources.files("damier").joinpath("data").iterdir()
               if p.name.startswith(("eval_", "openings_", "puzzles_"))}
    manifests = {name for name in shipped if name.endswith(".manifest.json")}
    assert shipped - manifests == named
    # a manifest says how a named file was made: eval_x.manifest.json for eval_x.bin
    stems = {name.rsplit(".", 1)[0] for name in named}
    assert {name[:-len(".manifest.json")] for name in manifests} <= stems


# -- every registry field is used -------------------------------------------------------

def _attributes_used() -> set[str]:
    """Attribute names read anywhere in the package: every module but the registry,
    and the registry's own code outside the Variant class (the core's initialisation,
    the name table)."""
    used: set[str] = set()
    for path in _sources(".py"):
        used |= {n.attr for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(n, ast.Attribute)}
    for statement in ast.parse(REGISTRY.read_text(encoding="utf-8")).body:
        if isinstance(statement, ast.ClassDef) and statement.name == "Variant":
            continue
        used |= {n.attr for n in ast.walk(statement) if isinstance(n, ast.Attribute)}
    return used


def test_every_registry_field_is_used():
    used = _attributes_used()
    unused = [f.name for f in dataclasses.fields(Variant) if f.name not in used]
    assert not unused, f"Variant fields no code reads: {unused}"


def test_the_core_flags_are_passed_from_the_registry():
    """variants.py hands every core fact to init_variant by its field's name."""
    tree = ast.parse(REGISTRY.read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "init_variant"]
    assert len(calls) == 1
    passed = {kw.arg: kw.value.attr for kw in calls[0].keywords
              if isinstance(kw.value, ast.Attribute)}
    facts = _core.variant_facts(VARIANT_LIST[0].index)
    assert {k for k in facts if k != "size"} == set(passed)
    assert all(key == attr for key, attr in passed.items())
