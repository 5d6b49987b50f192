"""The library knows nothing of its applications.

Library modules (rules, boards, notation, PDN, the engine and its protocol client, games,
puzzles) never import an application module (the terminal game, the web app, the Hub
server, the match runner, the command line, the training tool), not even inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "damier"

APPLICATIONS = {"play", "web", "hub_server", "match", "cli", "train", "__main__"}
LIBRARY = {"board", "moves", "game", "engine", "pdn", "variants", "rules", "outcome", "fen",
           "notation", "svg", "score", "puzzles", "hub", "errors", "piece", "oracle",
           "openings", "progress", "evalfile", "sprt", "book", "egdb", "raytasks"}


def imported_modules(path: Path) -> set[str]:
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


def test_every_module_is_classified():
    modules = {p.stem for p in PACKAGE.glob("*.py")} | {"web"}
    assert modules - {"__init__"} <= APPLICATIONS | LIBRARY, modules - APPLICATIONS - LIBRARY


def test_the_library_imports_no_application():
    for name in sorted(LIBRARY):
        used = imported_modules(PACKAGE / f"{name}.py")
        assert not used & APPLICATIONS, f"damier.{name} imports {sorted(used & APPLICATIONS)}"


def test_the_scan_sees_imports_inside_functions(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from damier.play import PlaySession\n    import damier.web.app\n")
    assert imported_modules(sample) == {"play", "web"}
