"""The ``damier`` command's own options (the subcommands have their own test files)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import damier

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "damier", *args], capture_output=True,
                          text=True, timeout=60)


def test_version_is_the_package_version():
    match = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert match is not None
    declared = match.group(1)
    assert damier.__version__ == declared
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"damier {declared}"


def test_help_names_the_variants_it_plays():
    # Frisian, Killer and Turkish were added after the description was first written:
    # the help must name what --variant accepts, not the first four.
    r = run("--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    for title in ("International", "English", "Russian", "Brazilian", "Antidraughts",
                  "Breakthrough", "Italian", "Frisian", "Frysk!", "Killer", "Turkish"):
        assert title in text


def test_serve_help_names_its_safety_options_and_needs_no_extra():
    r = run("serve", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "extra" not in text
    for option in ("--allowed-host", "--engines", "--hash", "--host", "--db"):
        assert option in text
    assert re.search(r"default 127\.0\.0\.1", text)


def test_train_and_openings_are_reachable_from_damier():
    for name, words in (("train", "selfplay"), ("openings", "--generate")):
        r = run(name, "--help")
        assert r.returncode == 0 and words in r.stdout, (name, r.stdout[:300], r.stderr[:300])
    r = run("openings", "--check", "/no/such/file.pdn")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    r = run("openings", "--generate", "--margin", "20", "--min-margin", "30")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--min-margin must be between 0 and --margin" in r.stderr


def test_serve_uses_the_book_unless_no_book(monkeypatch, tmp_path: Path) -> None:
    """``damier serve`` hands the book switch to the app: on by default (the shipped
    strength after ``pip install``), off with ``--no-book``."""
    import argparse
    import io

    import uvicorn

    import damier.web.app
    from damier.cli.serve import add_serve_parser, serve_command

    made: list[bool] = []
    real = damier.web.app.create_app

    def create_app(*args, **kwargs):  # type: ignore[no-untyped-def]
        made.append(kwargs["book"])
        return real(*args, **kwargs)

    monkeypatch.setattr(damier.web.app, "create_app", create_app)
    served: list[dict[str, object]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: served.append(kwargs))
    parser = argparse.ArgumentParser()
    add_serve_parser(parser.add_subparsers(dest="command"))
    db = str(tmp_path / "g.sqlite3")
    for extra in ([], ["--no-book"]):
        args = parser.parse_args(["serve", "--db", db, *extra])
        assert serve_command(args, io.StringIO(), io.StringIO()) == 0
    assert made == [True, False]
    # uvicorn runs the app with the guarded settings (damier.web.server.uvicorn_settings).
    assert [(k["host"], k["port"], k["log_level"], k["limit_concurrency"]) for k in served] \
        == [("127.0.0.1", 8000, "warning", 1000)] * 2


def test_the_command_fronts_run_as_modules_of_cli():
    """``python -m damier.cli.openings`` (and ``.book``, ``.puzzles``) is ``damier openings``;
    the library modules that had a command line say where it went, in one line."""
    shipped = ROOT / "src" / "damier" / "data" / "openings_international.pdn"
    r = subprocess.run([sys.executable, "-m", "damier.cli.openings", "--check", str(shipped)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout == run("openings", "--check", str(shipped)).stdout
    assert re.fullmatch(r"\d+ openings in .*openings_international\.pdn\n", r.stdout)
    for name, words in (("book", "build|show|stats"), ("puzzles", "mine|verify|stats")):
        r = subprocess.run([sys.executable, "-m", f"damier.cli.{name}", "--help"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and r.stdout == run(name, "--help").stdout
        r = subprocess.run([sys.executable, "-m", f"damier.{name}", "stats", "x"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and r.stdout == ""
        assert r.stderr == (f"damier.{name} has no command line: run 'damier {name} {words} "
                            f"...' (or python -m damier.cli.{name})\n")
