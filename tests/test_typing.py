"""The package's types: ``mypy --strict`` passes, and the compiled core's stub is complete."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import damier._core as core

SRC = Path(__file__).resolve().parent.parent / "src" / "damier"


def _stub() -> dict[str, ast.AST]:
    tree = ast.parse((SRC / "_core.pyi").read_text())
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
    return names


def test_core_stub_names_every_public_name():
    stub = _stub()
    public = {n for n in dir(core) if not n.startswith("_")}
    assert sorted(public - set(stub)) == [], "public names of _core missing from _core.pyi"
    # the stub may also declare a private helper the tests call, but only one _core has
    assert sorted(set(stub) - set(dir(core)) - {"annotations"}) == [], \
        "_core.pyi names what _core lacks"


def test_core_stub_classes_have_every_public_member():
    stub = _stub()
    for name, node in stub.items():
        if not isinstance(node, ast.ClassDef):
            continue
        declared = {n.name for n in node.body if isinstance(n, (ast.FunctionDef,))}
        declared |= {n.target.id for n in node.body
                     if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
        runtime = {m for m in vars(getattr(core, name)) if not m.startswith("_")}
        assert sorted(runtime - declared) == [], f"_core.{name} members missing from the stub"


@pytest.mark.slow
def test_mypy_strict_passes():
    if shutil.which("mypy") is None and subprocess.run(
            [sys.executable, "-c", "import mypy"], capture_output=True).returncode != 0:
        pytest.skip("mypy is not installed (pip install -e '.[test]' installs it)")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                             str(SRC)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
