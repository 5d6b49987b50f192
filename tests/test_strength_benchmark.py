"""The baseline of ``benchmarks/strength.py`` runs its own damier, whatever this
process's ``PYTHONPATH`` says.

The benchmark is run as ``PYTHONPATH=src python benchmarks/strength.py``. The
baseline is another build's console script; started with that environment, its
Python would import this tree's damier from ``src`` and the "baseline" match
would be the current engine against itself (which is what happened before the
baseline was run in isolated mode).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _strength():
    sys.path.insert(0, str(_BENCH))
    try:
        spec = importlib.util.spec_from_file_location("strength_under_test", _BENCH / "strength.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(_BENCH))
    return module


def _impostor_tree(tmp_path: Path) -> Path:
    """A directory holding a package named damier that is not any real damier."""
    tree = tmp_path / "src"
    (tree / "damier").mkdir(parents=True)
    (tree / "damier" / "__init__.py").write_text("IMPOSTOR = True\n")
    return tree


def _baseline_script(tmp_path: Path) -> Path:
    """A console script like a virtual environment's ``bin/damier``: it reports
    which damier it imported (instead of speaking Hub)."""
    script = tmp_path / "venv-bin" / "damier"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\n"
                      "import damier\n"
                      "print('impostor' if getattr(damier, 'IMPOSTOR', False) else 'own')\n")
    script.chmod(0o755)
    return script


def test_the_baseline_ignores_the_callers_pythonpath(tmp_path):
    strength = _strength()
    tree = _impostor_tree(tmp_path)
    script = _baseline_script(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(tree))
    # The danger is real: run plainly, the script imports the impostor ...
    plain = subprocess.run([str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert plain.stdout.strip() == "impostor", plain.stderr
    # ... and run as the benchmark runs it, its own damier.
    command = strength.baseline_command(script)
    assert command[-1] == "hub"
    isolated = subprocess.run(command[:-1], env=env, cwd=tree, capture_output=True, text=True,
                              timeout=60)
    assert isolated.stdout.strip() == "own", isolated.stderr


def test_a_baseline_that_is_not_a_python_script_runs_as_it_is(tmp_path):
    strength = _strength()
    script = tmp_path / "engine"
    script.write_text("#!/bin/sh\necho hub\n")
    script.chmod(0o755)
    assert strength.baseline_command(script) == [str(script), "hub"]
    assert strength.baseline_command(tmp_path / "missing") == [str(tmp_path / "missing"), "hub"]


def test_the_external_matches_play_the_given_program_or_are_skipped(tmp_path, capsys):
    import json

    strength = _strength()
    out = tmp_path / "result.json"
    # No program given, no baseline: both are skipped, and say why.
    assert strength.main(["--only", "external,external-baseline", "--games", "2",
                          "--baseline", str(tmp_path / "missing"), "--json", str(out),
                          "--no-progress"]) == 0
    rows = json.loads(out.read_text())
    assert [(r["match"], r.get("skipped")) for r in rows] == [
        ("external", "no --external program"),
        ("external-baseline", "no --external program")]
    # A program given: this tree's engine plays it (here damier at depth 1 stands in
    # for another program); the baseline match still needs a baseline.
    assert strength.main(["--only", "external,external-baseline", "--games", "2",
                          "--movetime", "0.02", "--external", "damier:depth=1,name=other",
                          "--baseline", str(tmp_path / "missing"), "--json", str(out),
                          "--no-progress"]) == 0
    rows = json.loads(out.read_text())
    assert rows[0]["match"] == "external" and rows[0]["games"] == 2
    assert rows[0]["b"] == "other" and not rows[0]["errors"]
    assert rows[1]["match"] == "external-baseline" and "no baseline" in rows[1]["skipped"]
    assert "SKIP: no baseline engine" in capsys.readouterr().out
