"""The library knows nothing of its applications.

Library modules (rules, boards, notation, PDN, the engine and its protocol client, games,
puzzles) never import an application module (the terminal game, the web app, the Hub
server, the match runner, the command line, the training tool), not even inside a function,
and hold no command line (argparse) beyond the few that still have theirs. The match
runner (``damier.match``, which ``damier train gate`` and the benchmarks use) does not
import the command line either: ``damier match`` is ``damier.cli.match``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "damier"

APPLICATIONS = {"play", "web", "hub_server", "match", "cli", "train", "__main__"}
LIBRARY = {"board", "moves", "game", "engine", "engine_types", "pdn", "variants", "rules",
           "outcome", "fen", "notation", "svg", "score", "puzzles", "hub", "errors", "piece",
           "oracle", "openings", "progress", "evalfile", "sprt", "book", "egdb", "raytasks"}
# Library modules that still hold the argparse front of their subcommand; it moves to
# damier.cli, and this set only shrinks.
LIBRARY_WITH_COMMAND_LINE = {"book", "egdb", "openings", "puzzles", "svg"}


def module_files(name: str) -> list[Path]:
    """The source files of module ``name``: ``name.py``, or every file of package ``name``."""
    package = PACKAGE / name
    if package.is_dir():
        return sorted(package.rglob("*.py"))
    return [PACKAGE / f"{name}.py"]


def imported_modules(path: Path) -> set[str]:
    """The damier modules that ``path`` imports (``damier.match.players`` counts as ``match``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("damier."):
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
    assert LIBRARY_WITH_COMMAND_LINE <= LIBRARY
    for name in sorted(LIBRARY - LIBRARY_WITH_COMMAND_LINE):
        for path in module_files(name):
            assert "argparse" not in imported_top_level(path), f"damier.{name} imports argparse"


def test_the_match_runner_has_no_command_line():
    files = module_files("match")
    assert {p.name for p in files} >= {"__init__.py", "players.py", "runner.py"}
    for path in files:
        assert "cli" not in imported_modules(path), f"damier/match/{path.name} imports damier.cli"
        assert "argparse" not in imported_top_level(path), f"damier/match/{path.name}: argparse"


def test_the_scan_sees_imports_inside_functions(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from damier.play import PlaySession\n    import damier.web.app\n"
                      "    import argparse\n    from damier.cli.match import match_command\n")
    assert imported_modules(sample) == {"play", "web", "cli"}
    assert imported_top_level(sample) == {"damier", "argparse"}
