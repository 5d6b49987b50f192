"""``damier analyse``: the games of a PDN file searched move by move and written back
annotated (the front of :mod:`damier.analysis`).

``damier analyse GAMES.pdn [--movetime S] [--depth N] [-o OUT.pdn] [--graphs DIR]``

Every position of every game's main line is searched with the same limits (by default
:data:`DEFAULT_MOVETIME` seconds a position); each move gets the engine's annotation
at the end of its comment and its judgement's NAG (``$6`` ``?!``, ``$2`` ``?``, ``$4``
``??``), by the thresholds and rules of :mod:`damier.analysis` (the web's game reports
judge the same way). The games keep their tags, comments and variations; each game is
written as soon as it is analysed, to ``OUT.pdn`` or else to stdout. Each game is read
in its own variant (its ``GameType`` tag). The endgame databases are probed as by
``damier play`` (``--egdb DIR``, ``--no-egdb``, ``--egdb-pieces N``).

At the end, a summary by player (moves, inaccuracies, mistakes, blunders, average loss
in centi-men): on stdout with ``-o``, else on stderr (stdout holds the PDN). The
progress bar (a line per game when stderr is not a terminal) is on stderr.

``--graphs DIR``: an evaluation graph per game, ``DIR/<name of GAMES>-<k>.png`` (game
``k`` of the file, from 1), drawn with matplotlib (``pip install 'damier[graphs]'``).

Exit status: 0; 1 when a game of the file was skipped (a bad game: a warning names it),
a graph could not be written or writing the games failed; 2, before anything is
analysed, for bad arguments, a file that cannot be read (or holds no game that can
be), an ``OUT.pdn`` that cannot be opened for writing (or is ``GAMES.pdn`` itself) or a
graph directory that cannot be made (one line says what is wrong); 130 when stopped by
Ctrl-C, after writing the games analysed so far (the game being analysed whole, with
the annotations of the moves it reached).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from damier.analysis import (BLUNDER, INACCURACY, MISTAKE, analyse_game, annotate_game,
                             graphs_unavailable, mainline_texts, plot_report, summarise)
from damier.cli.options import add_engine_egdb_arguments, egdb_setting
from damier.engine import Engine
from damier.engine_types import INFINITE_DEPTH
from damier.errors import PdnError
from damier.pdn import Game, read_games, write_game
from damier.progress import ProgressBar

__all__ = ["add_analyse_parser", "analyse_command", "DEFAULT_MOVETIME", "MAX_MOVETIME"]

DEFAULT_MOVETIME = 1.0
"""Seconds a position when neither ``--movetime`` nor ``--depth`` is given."""
MAX_MOVETIME = 3600.0
"""The most ``--movetime`` may be (seconds a position)."""
HASH_MB = 32
"""The engine's transposition table (MiB), cleared before each position."""


def add_analyse_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]"
                       ) -> argparse.ArgumentParser:
    """Adds the ``analyse`` subcommand to ``damier``'s subparsers."""
    p = subparsers.add_parser(
        "analyse", help="annotate the games of a PDN file: scores, best moves, ?! ? ?? marks",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Search every position of every game and write the games back with "
        "the engine's\nscore and best move in a comment after each move, and a mark for "
        f"each inaccuracy\n(?!, $6: at least {INACCURACY} centi-men lost), mistake "
        f"(?, $2: {MISTAKE}) and blunder (??, $4: {BLUNDER});\nthen a summary by player.",
        epilog="comments: {SCORE; best MOVE BEST_SCORE[; loss N][; database: ...]}\n"
        "  SCORE after the move, BEST_SCORE before it (what the engine's MOVE keeps), both\n"
        "  from White's point of view: +0.35 (men), 'win in 7' (White wins in 7 plies)\n"
        "  or 'loss in 7'; loss N: centi-men the move gave away; database: the endgame\n"
        "  databases' value after the move.\n\n"
        "examples:\n  damier analyse games.pdn -o annotated.pdn\n"
        "  damier analyse games.pdn --depth 10 --graphs graphs/ > annotated.pdn")
    p.add_argument("games", metavar="GAMES.pdn", help="the games to analyse (a PDN file)")
    p.add_argument("--movetime", metavar="S",
                   help=f"seconds a position (default {DEFAULT_MOVETIME:g}; none with "
                   f"--depth alone; at most {MAX_MOVETIME:g})")
    p.add_argument("--depth", metavar="N",
                   help=f"search each position to depth N (1-{INFINITE_DEPTH})")
    p.add_argument("-o", "--output", metavar="OUT.pdn",
                   help="write the annotated games to this file (default: stdout)")
    p.add_argument("--graphs", metavar="DIR",
                   help="write an evaluation graph per game (PNG) into DIR, made if missing "
                   "(needs matplotlib: pip install 'damier[graphs]')")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or lines")
    add_engine_egdb_arguments(p)
    return p


class _UsageError(Exception):
    """Bad arguments or files: the message of the one line written."""


class _WriteError(Exception):
    """The annotated games could not be written (its argument: the OSError)."""


def _limits(args: argparse.Namespace) -> tuple[int | None, float | None]:
    """``(depth, movetime)`` from the arguments (:class:`_UsageError` when bad)."""
    depth = None
    if args.depth is not None:
        try:
            depth = int(args.depth)
        except ValueError:
            depth = 0
        if not 1 <= depth <= INFINITE_DEPTH:
            raise _UsageError(f"--depth must be a whole number from 1 to {INFINITE_DEPTH}, "
                              f"got {args.depth!r}")
    movetime = None
    if args.movetime is not None:
        try:
            movetime = float(args.movetime)
        except ValueError:
            movetime = math.nan
        if not (math.isfinite(movetime) and 0 < movetime <= MAX_MOVETIME):
            raise _UsageError(f"--movetime must be a number of seconds > 0 and at most "
                              f"{MAX_MOVETIME:g}, got {args.movetime!r}")
    elif depth is None:
        movetime = DEFAULT_MOVETIME
    return depth, movetime


def _read(name: str) -> tuple[list[Game], list[PdnError]]:
    """The games of the file ``name`` and the errors of those skipped."""
    path = Path(name)
    if not path.exists():
        raise _UsageError(f"{name}: no such file")
    if path.is_dir():
        raise _UsageError(f"{name}: a directory, not a PDN file")
    errors: list[PdnError] = []
    try:
        with read_games(path, skip_errors=True, errors=errors) as reader:
            games = list(reader)
    except OSError as exc:
        raise _UsageError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if not games:
        if errors:
            raise _UsageError(f"{name}: no game could be read: {errors[0]}"
                              + (f" (and {len(errors) - 1} more bad games)"
                                 if len(errors) > 1 else ""))
        raise _UsageError(f"{name}: no games in the file")
    return games, errors


def _graph_directory(name: str) -> Path:
    """The directory of ``--graphs``, made if missing (:class:`_UsageError` when it
    cannot be, or cannot be written to)."""
    problem = graphs_unavailable()
    if problem is not None:
        raise _UsageError(f"--graphs: {problem}")
    directory = Path(name)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise _UsageError(f"--graphs {name}: not a directory") from None
    except OSError as exc:
        raise _UsageError(f"--graphs {name}: cannot make the directory: "
                          f"{exc.strerror or exc}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise _UsageError(f"--graphs {name}: cannot write to this directory")
    return directory


def _name(game: Game, tag: str) -> str:
    value = game.headers.get(tag, "").strip()
    return value if value and value != "?" else tag


def _title(game: Game) -> str:
    parts = [f"{_name(game, 'White')} - {_name(game, 'Black')}"]
    for tag in ("Event", "Date"):
        value = game.headers.get(tag, "").strip()
        if value and "?" not in value:
            parts.append(value)
    return ", ".join(parts) + f" ({game.variant.title})"


def _marks(summary: dict[str, Any]) -> str:
    return (f"{summary['inaccuracies']} ?!, {summary['mistakes']} ?, {summary['blunders']} ??, "
            f"average loss {summary['average_loss']:g}")


def _write_summary(stream: TextIO, players: dict[str, list[dict[str, Any]]],
                   games: dict[str, int], analysed: int) -> None:
    moves = sum(len(plies) for plies in players.values())
    stream.write(f"summary of {analysed} game{'s' if analysed != 1 else ''}, {moves} moves "
                 f"(loss in centi-men; ?! >= {INACCURACY}, ? >= {MISTAKE}, ?? >= {BLUNDER}):\n")
    width = max([len("player")] + [len(name) for name in players])
    stream.write(f"  {'player':<{width}}  games  moves  inaccuracies  mistakes  blunders  "
                 f"average loss\n")
    for name, plies in players.items():
        s = summarise(plies, name)
        stream.write(f"  {name:<{width}}  {games[name]:>5}  {s['moves']:>5}  "
                     f"{s['inaccuracies']:>12}  {s['mistakes']:>8}  {s['blunders']:>8}  "
                     f"{s['average_loss']:>12.1f}\n")
    stream.flush()


def analyse_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs ``damier analyse``; returns the exit status (see the module's text)."""
    try:
        depth, movetime = _limits(args)
        games, bad = _read(args.games)
        graphs = _graph_directory(args.graphs) if args.graphs is not None else None
        output: TextIO = out
        if args.output is not None:
            if _same_file(args.output, args.games):
                raise _UsageError(f"-o {args.output}: that is {args.games} itself; write the "
                                  "annotated games to another file")
            try:
                output = open(args.output, "w", encoding="utf-8")
            except OSError as exc:
                raise _UsageError(f"-o {args.output}: cannot write: "
                                  f"{exc.strerror or exc}") from None
    except _UsageError as exc:
        err.write(f"damier analyse: {exc}\n")
        return 2
    try:
        return _analyse(args, games, bad, depth, movetime, graphs, output,
                        out if args.output is not None else err, err)
    except _WriteError as exc:
        cause = exc.args[0]
        if isinstance(cause, BrokenPipeError) and output is sys.stdout:
            # the reader went away (``damier analyse g.pdn | head``): no more output,
            # and none at exit either
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        err.write(f"damier analyse: cannot write the annotated games to "
                  f"{args.output or 'stdout'}: {cause.strerror or cause}\n")
        return 1
    finally:
        if output is not out:
            output.close()


def _analyse(args: argparse.Namespace, games: list[Game], bad: list[PdnError],
             depth: int | None, movetime: float | None, graphs: Path | None, output: TextIO,
             report: TextIO, err: TextIO) -> int:
    status = 0
    for error in bad:
        err.write(f"damier analyse: {args.games}: skipped {error}\n")
        status = 1
    engine = Engine(hash_mb=HASH_MB, egdb=egdb_setting(args), egdb_pieces=args.egdb_pieces)
    texts = [mainline_texts(game) for game in games]
    # No bar while the games themselves go to the terminal: the two would mix.
    bar = ProgressBar("analysing", total=sum(len(t) + 1 for t in texts), stream=err,
                      enabled=not args.no_progress and not _isatty(output))
    players: dict[str, list[dict[str, Any]]] = {}
    played: dict[str, int] = {}
    stem = Path(args.games).stem or "game"
    analysed = 0
    number = 0
    positions: list[dict[str, Any]] = []
    plies: list[dict[str, Any]] = []
    game: Game | None = None

    def progress(k: int, n: int, position: dict[str, Any], move: dict[str, Any] | None
                 ) -> None:
        positions.append(position)
        if move is not None:
            plies.append(move)
        bar.update(f"game {number}/{len(games)}, ply {k}/{n}", advance=1)

    def finish(game: Game) -> None:
        annotate_game(game, plies, positions)
        try:
            write_game(game, output)
            output.flush()
        except OSError as exc:
            raise _WriteError(exc) from None
        white, black = _name(game, "White"), _name(game, "Black")
        for name, colour in ((white, "white"), (black, "black")):
            players.setdefault(name, []).extend(p for p in plies if p["color"] == colour)
            played[name] = played.get(name, 0) + 1

    try:
        for number, (game, moves) in enumerate(zip(games, texts, strict=True), start=1):
            positions.clear()
            plies.clear()
            start = game.board()
            analyse_game(start.fen(), game.variant.name, moves, engine, depth=depth,
                         movetime=movetime, white=_name(game, "White"),
                         black=_name(game, "Black"), progress=progress)
            finish(game)
            analysed += 1
            white = summarise((p for p in plies if p["color"] == "white"), "")
            black = summarise((p for p in plies if p["color"] == "black"), "")
            bar.update(f"game {number}/{len(games)} done", line=(
                f"game {number}/{len(games)} ({_title(game)}, {len(plies)} plies): "
                f"{_name(game, 'White')} {_marks(white)}; "
                f"{_name(game, 'Black')} {_marks(black)}"))
            if graphs is not None:
                path = graphs / f"{stem}-{number}.png"
                first = 0 if start.turn == game.variant.white_starts else 1
                try:
                    plot_report(plies, positions, path, title=_title(game), first_ply=first)
                except OSError as exc:
                    bar.message(f"damier analyse: cannot write {path}: {exc.strerror or exc}",
                                always=True)
                    status = 1
    except KeyboardInterrupt:
        bar.close()
        err.flush()
        partial = game is not None and len(positions) > 0 and analysed < number
        if partial:
            assert game is not None
            finish(game)   # the moves reached so far are annotated, the game written whole
        err.write(f"\ninterrupted: {analysed} of {len(games)} games analysed"
                  + (f", game {number} to ply {len(plies)}" if partial else "") + "\n")
        _write_summary(report, players, played, analysed + partial)
        return 130
    finally:
        bar.close()
    _write_summary(report, players, played, analysed)
    return status


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (ValueError, OSError, AttributeError):
        return False
