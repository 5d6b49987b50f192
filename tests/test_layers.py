"""The library knows nothing of its applications.

Library modules (rules, boards, notation, PDN, the engine and its protocol client, games,
puzzles) never import an application module (the terminal game, the web app, the Hub
server, the match runner, the command line, the training and tuning tools), not even
inside a function, and hold no command line (argparse): the fronts of their commands
(``damier egdb``, ``book``, ``puzzles``, ``openings``, ``render``) are in ``damier.cli``. The
match runner (``damier.match``, which ``damier train gate`` and the benchmarks use) does
not import the command line either: ``damier match`` is ``damier.cli.match``; nor do the
terminal game, the web app and the Hub server, whose fronts (``damier play``, ``serve``,
``hub``) are ``damier.cli.play``, ``.serve`` and ``.hub``: nothing outside ``damier.cli``
imports it but ``damier.__main__``. No module is in an import cycle, imports inside
functions counted: the builders of the endgame tables and of the opening books import
their readers, never the reverse.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "damier"

APPLICATIONS = {"play", "web", "hub_server", "match", "cli", "train", "tune", "__main__"}
LIBRARY = {"analysis", "board", "moves", "game", "engine", "engine_types", "pdn", "variants",
           "rules", "outcome", "fen", "notation", "svg", "score", "puzzles", "hub", "errors",
           "piece", "oracle", "openings", "progress", "evalfile", "sprt", "book", "book_build",
           "egdb", "egdb_build", "raytasks", "dxp", "explorer"}
# Import cycles still among library modules (each a lazy or TYPE_CHECKING import back);
# this list only shrinks.
KNOWN_LIBRARY_CYCLES: list[set[str]] = []
"""Import cycles allowed (none: the registry tells ``rules`` how to find a variant, and
``moves`` names ``Board`` for the type checker only)."""


def module_files(name: str) -> list[Path]:
    """The source files of module ``name``: ``name.py``, or every file of package ``name``."""
    package = PACKAGE / name
    if package.is_dir():
        return sorted(package.rglob("*.py"))
    return [PACKAGE / f"{name}.py"]


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (imports for the type checker,
    never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (
                (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
                or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")):
            for statement in node.body:
                skipped.update(id(inner) for inner in ast.walk(statement))
    return skipped


def imported_modules(path: Path, *, runtime_only: bool = False) -> set[str]:
    """The damier modules that ``path`` imports (``damier.match.players`` counts as ``match``);
    relative imports count too (a file outside the package is read as a top-level module).
    ``runtime_only``: leave out the imports under ``if TYPE_CHECKING:``."""
    found: set[str] = set()
    try:
        package = ["damier", *path.resolve().relative_to(PACKAGE).parent.parts]
    except ValueError:
        package = ["damier"]
    tree = ast.parse(path.read_text())
    skipped = _type_checking_only(tree) if runtime_only else set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            names = package[:len(package) - node.level + 1] + (node.module or "").split(".")
            names = [name for name in names if name]
            if len(names) > 1:
                found.add(names[1])
            elif names == ["damier"]:
                found.update(alias.name for alias in node.names)
        elif (isinstance(node, ast.ImportFrom) and node.module
              and node.module.startswith("damier.")):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.ImportFrom) and node.module == "damier":
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("damier."):
                    found.add(alias.name.split(".")[1])
    return found


def imported_top_level(path: Path) -> set[str]:
    """The top-level modules that ``path`` imports, anywhere in it (``argparse``, ``damier``...)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


def test_every_module_is_classified():
    modules = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert {"match", "cli", "web"} <= modules
    assert modules - {"__init__"} <= APPLICATIONS | LIBRARY, modules - APPLICATIONS - LIBRARY


def test_the_library_imports_no_application():
    for name in sorted(LIBRARY):
        for path in module_files(name):
            used = imported_modules(path)
            assert not used & APPLICATIONS, f"{path.name} imports {sorted(used & APPLICATIONS)}"


def test_the_library_has_no_command_line():
    for name in sorted(LIBRARY):
        for path in module_files(name):
            assert "argparse" not in imported_top_level(path), f"damier.{name} imports argparse"


def import_cycles(modules: set[str]) -> list[set[str]]:
    """The import cycles among ``modules`` (imports inside functions counted): the
    strongly connected components of more than one module."""
    graph = {name: set().union(*(imported_modules(p, runtime_only=True)
                                 for p in module_files(name))) & modules - {name}
             for name in modules}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[set[str]] = []

    def visit(name: str) -> None:
        order[name] = low[name] = len(order)
        stack.append(name)
        for other in sorted(graph[name]):
            if other not in order:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], order[other])
        if low[name] == order[name]:
            component = {stack.pop()}
            while name not in component:
                component.add(stack.pop())
            if len(component) > 1:
                cycles.append(component)

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return cycles


def test_no_library_module_is_in_an_import_cycle():
    for cycle in import_cycles(LIBRARY):
        assert cycle in KNOWN_LIBRARY_CYCLES, f"an import cycle: {sorted(cycle)}"


def test_no_application_is_in_an_import_cycle():
    """The command line imports the applications (``play``, ``web``, ``hub_server``...)
    to run them; none of them imports it back."""
    for cycle in import_cycles(APPLICATIONS | LIBRARY):
        assert cycle in KNOWN_LIBRARY_CYCLES, f"an import cycle: {sorted(cycle)}"


def test_only_the_entry_point_imports_the_command_line():
    files = sorted(PACKAGE.rglob("*.py"))
    assert PACKAGE / "play.py" in files and PACKAGE / "web" / "server.py" in files
    for path in files:
        name = path.relative_to(PACKAGE).as_posix()
        if name.startswith("cli/") or name == "__main__.py":
            continue
        assert "cli" not in imported_modules(path), f"damier/{name} imports damier.cli"


def test_the_fronts_of_play_serve_hub_and_train_are_in_the_command_line():
    for name in ("play", "web", "hub_server", "train"):
        for path in module_files(name):
            assert "argparse" not in imported_top_level(path), f"damier/{path.name}: argparse"
    for name in ("play", "serve", "hub", "train"):
        assert (PACKAGE / "cli" / f"{name}.py").is_file(), f"no damier/cli/{name}.py"


def test_builders_import_their_readers_never_the_reverse():
    for reader, builder in (("egdb", "egdb_build"), ("book", "book_build")):
        assert reader in imported_modules(module_files(builder)[0])
        used = imported_modules(module_files(reader)[0])
        assert builder not in used, f"{reader} imports {builder}"
        assert "engine" not in used, f"{reader} imports the engine, which imports it"


def test_the_match_runner_has_no_command_line():
    files = module_files("match")
    assert {p.name for p in files} >= {"__init__.py", "players.py", "runner.py"}
    for path in files:
        assert "cli" not in imported_modules(path), f"damier/match/{path.name} imports damier.cli"
        assert "argparse" not in imported_top_level(path), f"damier/match/{path.name}: argparse"


def test_the_scan_sees_imports_inside_functions(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from damier.play import PlaySession\n"
                      "    import damier.web.app\n"
                      "    import argparse\n    from damier.cli.match import match_command\n")
    assert imported_modules(sample) == {"play", "web", "cli"}
    assert imported_top_level(sample) == {"damier", "argparse"}
    sample.write_text("def f():\n    from .cli.options import egdb_setting\n"
                      "    from . import play\n")
    assert imported_modules(sample) == {"cli", "play"}
    assert imported_modules(PACKAGE / "outcome.py") >= {"piece", "rules"}  # from .piece import
