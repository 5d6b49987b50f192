"""``damier match``: the command line of :mod:`damier.match` (its arguments, their
checks, the report on stdout and the ``--json`` file).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, TextIO

from damier.match import (DEFAULT_MAX_PLIES, DEFAULT_MOVETIME, EngineSpecError,
                          EngineStartError, MatchResult, damier_options_help, parse_clock,
                          parse_engine_spec, read_journal, run_match)
from damier.match.adjudication import Adjudication, DrawAdjudication, LossAdjudication
from damier.match.replay import AdjudicationReplay, replay_adjudication
from damier.openings import load_openings
from damier.sprt import SPRT
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["add_match_parser", "match_command", "usage_error", "add_adjudication_arguments",
           "adjudication_of"]


def add_match_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]"
                     ) -> argparse.ArgumentParser:
    """Adds the ``match`` subcommand to ``damier``'s subparsers."""
    p = subparsers.add_parser(
        "match", help="play a match between two engines (score, Elo, PDN)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play game pairs (each opening with both colours) between engines A and B "
        "and report A's score and Elo difference with its 95% interval.",
        epilog="engines:\n  damier[:option=value,...]  damier's engine; options:\n"
        + damier_options_help().replace("\n  ", "\n    ").replace("  ", "    ", 1)
        + "\n  hub:COMMAND                a Hub-protocol engine run as a subprocess, "
        "e.g. 'hub:dame hub'\n\nexamples:\n  damier match damier:level=5 'hub:dame hub' "
        "--games 20 --movetime 0.1 --pdn games.pdn\n"
        "  damier match damier:weights=new.json damier --games 4000 --sprt 0 10 "
        "--resume new.jsonl\n"
        "  damier match damier:nodes=20000 damier:level=8 --games 1000 --workers 8\n"
        "  damier match --report new.jsonl --sprt 0 10    (the figures of a journal so far)\n"
        "  damier match --report new.jsonl --adjudicate-draw after=60    (what a rule would do)\n\n"
        "With --sprt the match stops once the test decides "
        "(pentanomial GSPRT, logistic Elo);\nwith --resume, running the same command again "
        "plays only the games the journal lacks.")
    p.add_argument("engine_a", metavar="A", nargs="?",
                   help="engine A (the report is from its side)")
    p.add_argument("engine_b", metavar="B", nargs="?", help="engine B")
    p.add_argument("--games", type=int, default=2, help="number of games (default 2)")
    tc = p.add_mutually_exclusive_group()
    tc.add_argument("--movetime", type=float, metavar="S",
                    help=f"seconds per move (default {DEFAULT_MOVETIME:g} for engines without "
                    "a depth/nodes option)")
    tc.add_argument("--clock", metavar="[MOVES/]TIME[+INC]",
                    help="game clock, as in damier play: TIME minutes (or M:SS, or with a "
                    "unit: 10s, 2m) each, INC seconds added per move, e.g. 1+0.5 or 10s+0.1")
    p.add_argument("--openings", metavar="FILE",
                   help="openings (.pdn, or text: one per line); 'none' for the start position "
                   "(default: the openings shipped for the variant)")
    p.add_argument("--sequential", action="store_true",
                   help="play the openings in file order instead of shuffled")
    p.add_argument("--concurrency", type=int, default=1, metavar="K",
                   help="games played at once (default 1)")
    p.add_argument("--pdn", metavar="OUT", help="write the games to this PDN file")
    p.add_argument("--variant", default=DEFAULT_VARIANT,
                   help=f"variant (default {DEFAULT_VARIANT})")
    p.add_argument("--seed", type=int, help="seed of the opening order and engine randomness")
    p.add_argument("--max-plies", type=int, default=DEFAULT_MAX_PLIES, metavar="P",
                   help=f"adjudicate a draw after P plies (default {DEFAULT_MAX_PLIES})")
    add_adjudication_arguments(p)
    p.add_argument("--timeout", type=float, default=10.0, metavar="S",
                   help="Hub engines: seconds to wait for an answer beyond the time to think "
                   "(default 10)")
    p.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                   help="stop as soon as a sequential test (GSPRT on game pairs) accepts "
                   "H0 (A is at most ELO0 Elo stronger) or H1 (ELO1); --games is then the "
                   "most games to play (even)")
    p.add_argument("--alpha", type=float, metavar="A",
                   help="--sprt: the chance of accepting H1 when H0 holds (default 0.05)")
    p.add_argument("--beta", type=float, metavar="B",
                   help="--sprt: the chance of accepting H0 when H1 holds (default 0.05)")
    p.add_argument("--resume", metavar="FILE",
                   help="journal of finished games (JSON lines, written as each game ends); "
                   "run the same command again to play only the games it lacks")
    p.add_argument("--workers", type=int, metavar="N",
                   help="play the game pairs as Ray tasks on a local Ray with N workers (with "
                   "--address: at most N pairs at once on the cluster); needs damier[train]")
    p.add_argument("--address", metavar="HOST:PORT",
                   help="play the game pairs as Ray tasks on the Ray cluster at this address "
                   "(engines start on the workers: Hub commands must exist there)")
    p.add_argument("--report", metavar="FILE",
                   help="play nothing: report the games of this journal (--resume's file, of "
                   "a match running, stopped or ended), with --sprt the test on its pairs, "
                   "with --adjudicate-draw/--adjudicate-loss what those rules would have "
                   "done to its games (on the scores the engines played with)")
    p.add_argument("--json", metavar="OUT", help="write the result as JSON to this file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or lines")
    p.set_defaults(_match_parser=p)
    return p


class _UsageError(Exception):
    """Bad arguments or engines: the message for :func:`usage_error`."""


def usage_error(err: TextIO, message: str) -> int:
    """Writes ``damier match: message`` on ``err``; returns the exit status 2."""
    err.write(f"damier match: {message}\n")
    return 2


def match_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs ``damier match``; returns the exit status (0; 2 for bad arguments or
    engines; 1 when games could not be played; 130 when stopped by Ctrl-C)."""
    try:
        result = _run(args, err)
        replay = _replay(args, result)
    except _UsageError as exc:
        return usage_error(err, str(exc))
    out.write(result.summary() + "\n")
    if replay is not None:
        out.write("\n" + replay.summary() + "\n")
    out.flush()
    json_path = getattr(args, "json", None)
    if json_path:
        data = result.to_dict()
        if replay is not None:
            data["adjudication_replay"] = replay.to_dict()
        try:
            with open(json_path, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)
                handle.write("\n")
        except OSError as exc:
            err.write(f"damier match: --json: {exc}\n")
            return 1
    if result.interrupted:
        return 130
    return 1 if result.errors else 0


def _run(args: argparse.Namespace, err: TextIO) -> MatchResult:
    """Checks the arguments and plays the match (progress on ``err``); raises
    :class:`_UsageError` for bad arguments or engines."""
    if getattr(args, "report", None) is not None:
        return _report(args)
    if args.engine_a is None or args.engine_b is None:
        raise _UsageError("give engines A and B (or --report FILE: the figures of a journal)")
    _check_numbers(args)
    sprt = _sprt(args)
    try:
        variant = get_variant(args.variant)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    try:
        spec_a = parse_engine_spec(args.engine_a)
        spec_b = parse_engine_spec(args.engine_b)
    except EngineSpecError as exc:
        raise _UsageError(str(exc)) from None
    clock = None
    if args.clock is not None:
        try:
            clock = parse_clock(args.clock)
        except ValueError as exc:
            raise _UsageError(f"--clock: {exc}") from None
    openings = _openings(args, variant)
    workers, address = _ray_options(args)
    adjudication = _adjudication(args)
    try:
        return run_match(spec_a, spec_b, games=args.games, movetime=args.movetime, clock=clock,
                         openings=openings, concurrency=args.concurrency, pdn_path=args.pdn,
                         variant=variant, progress=not args.no_progress, seed=args.seed,
                         max_plies=args.max_plies, shuffle_openings=not args.sequential,
                         hub_timeout=args.timeout, stream=err, sprt=sprt,
                         resume=getattr(args, "resume", None), workers=workers,
                         address=address, adjudication=adjudication)
    except (EngineSpecError, EngineStartError) as exc:
        raise _UsageError(str(exc)) from None
    except ImportError as exc:   # Ray is not installed
        raise _UsageError(f"--workers/--address: {exc}") from None
    except ConnectionError as exc:   # the Ray cluster does not answer
        raise _UsageError(f"--address: {exc}") from None
    except OSError as exc:
        name = exc.filename if getattr(exc, "filename", None) else args.pdn
        flag = "--resume" if name == getattr(args, "resume", None) else "--pdn"
        raise _UsageError(f"{flag}: {exc}") from None
    except ValueError as exc:
        raise _UsageError(str(exc)) from None


def _report(args: argparse.Namespace) -> MatchResult:
    """``--report FILE``: the result of a journal's games, with ``--sprt`` its test."""
    if args.engine_a is not None:
        raise _UsageError("--report reads the games of a journal: give no engines")
    sprt = _sprt(args, pairs_only=False)
    try:
        return read_journal(args.report, sprt=sprt)
    except OSError as exc:
        raise _UsageError(f"--report: {exc.filename}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise _UsageError(f"--report: {exc}") from None


def _replay(args: argparse.Namespace, result: MatchResult) -> AdjudicationReplay | None:
    """With ``--report``, what ``--adjudicate-draw``/``--adjudicate-loss`` would have
    done to the journal's games (None: no rule given, or no report)."""
    if getattr(args, "report", None) is None:
        return None
    rules = _adjudication(args)
    return None if rules is None else replay_adjudication(rules, result.games)


def _check_numbers(args: argparse.Namespace) -> None:
    """Raises :class:`_UsageError` for a count or a time out of range."""
    if args.games < 1:
        raise _UsageError(f"--games must be at least 1, got {args.games}")
    if args.concurrency < 1:
        raise _UsageError(f"--concurrency must be at least 1, got {args.concurrency}")
    if args.max_plies < 1:
        raise _UsageError(f"--max-plies must be at least 1, got {args.max_plies}")
    if args.movetime is not None and not (args.movetime > 0 and math.isfinite(args.movetime)):
        raise _UsageError(f"--movetime must be positive (a finite number of seconds), "
                          f"got {args.movetime}")
    if not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise _UsageError(f"--timeout must be positive (a finite number of seconds), "
                          f"got {args.timeout}")


def add_adjudication_arguments(p: argparse.ArgumentParser) -> None:
    """``--adjudicate-draw`` and ``--adjudicate-loss`` (read by :func:`adjudication_of`);
    ``damier train gate`` and ``tune`` take them too."""
    p.add_argument("--adjudicate-draw", nargs="?", const="", metavar="after=P,plies=N,score=CM",
                   help="a draw from ply P on (default 100) when both engines scored the last N "
                   "moves (default 8) within CM centi-men (default 10) of level")
    p.add_argument("--adjudicate-loss", nargs="?", const="", metavar="plies=N,score=CM",
                   help="a win for the side that both engines scored at least CM centi-men "
                   "(default 500) ahead over the last N moves (default 8)")


def adjudication_of(args: argparse.Namespace) -> Adjudication | None:
    """The rules of ``--adjudicate-draw`` and ``--adjudicate-loss`` (None: neither);
    :class:`ValueError` naming the option and what is wrong with it."""
    draw_text = getattr(args, "adjudicate_draw", None)
    loss_text = getattr(args, "adjudicate_loss", None)
    if draw_text is None and loss_text is None:
        return None
    draw = loss = None
    try:
        if draw_text is not None:
            draw = DrawAdjudication.parse(draw_text)
        if loss_text is not None:
            loss = LossAdjudication.parse(loss_text)
    except ValueError as exc:
        flag = "--adjudicate-loss" if draw_text is None or draw is not None else "--adjudicate-draw"
        raise ValueError(f"{flag}: {str(exc).partition(': ')[2]}") from None
    return Adjudication(draw, loss)


def _adjudication(args: argparse.Namespace) -> Adjudication | None:
    try:
        return adjudication_of(args)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None


def _ray_options(args: argparse.Namespace) -> tuple[int | None, str | None]:
    """``--workers`` and ``--address``, checked (a count, a non-empty address, and
    Ray installed when either is given)."""
    workers, address = getattr(args, "workers", None), getattr(args, "address", None)
    if workers is not None and workers < 1:
        raise _UsageError(f"--workers must be at least 1, got {workers}")
    if address is not None and not address.strip():
        raise _UsageError("--address needs the Ray cluster's HOST:PORT (or auto)")
    if workers is None and address is None:
        return None, None
    if args.concurrency != 1:
        raise _UsageError("--concurrency is for a match in this process; on Ray each worker "
                          "plays one game pair at a time (give --workers instead)")
    try:
        import ray  # noqa: F401 - only whether it is there
    except ImportError:
        raise _UsageError("--workers/--address need Ray: pip install 'damier[train]'") from None
    return workers, address


def _sprt(args: argparse.Namespace, *, pairs_only: bool = True) -> SPRT | None:
    """The SPRT of ``--sprt ELO0 ELO1`` (``--alpha``, ``--beta``), or None;
    ``pairs_only``: ``--games`` must then be even (a match to play)."""
    sprt_args = getattr(args, "sprt", None)
    alpha, beta = getattr(args, "alpha", None), getattr(args, "beta", None)
    if sprt_args is None:
        if alpha is not None or beta is not None:
            raise _UsageError("--alpha and --beta are the error rates of --sprt ELO0 ELO1")
        return None
    try:
        sprt = SPRT(sprt_args[0], sprt_args[1], 0.05 if alpha is None else alpha,
                    0.05 if beta is None else beta)
    except ValueError as exc:
        raise _UsageError(f"--sprt: {exc}") from None
    if pairs_only and args.games % 2:
        raise _UsageError(f"--sprt counts game pairs: --games (the most games to play) "
                          f"must be even, got {args.games}")
    return sprt


def _openings(args: argparse.Namespace, variant: Variant) -> Any:
    """The openings of ``--openings`` (None: the variant's shipped ones)."""
    if args.openings is None:
        return None
    if args.openings.strip().lower() == "none":
        return [[]]
    try:
        return load_openings(args.openings, variant)
    except (OSError, ValueError) as exc:
        raise _UsageError(f"--openings: {exc}") from None
