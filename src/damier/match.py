"""Engine matches: two engines play a series of game pairs; the score and the Elo difference.

>>> from damier.match import run_match
>>> result = run_match("damier:depth=1,hash=1", "damier:depth=2,hash=1", games=2,
...                    openings=[["32-28", "18-23"]], progress=False, seed=1)
>>> result.wins + result.draws + result.losses
2
>>> [(g.white, g.black) for g in result.games]
[('damier:depth=1,hash=1', 'damier:depth=2,hash=1'), ('damier:depth=2,hash=1', 'damier:depth=1,hash=1')]

Engines
-------
An engine is given by a spec string:

* ``damier`` or ``damier:option=value,...``: damier's own engine
  (:class:`damier.engine.Engine`), in this process. Options: ``level`` (1-10),
  ``hash`` (MiB), ``depth`` and ``nodes`` (search limits of every move),
  ``movetime`` (seconds per move, instead of the match's), ``threads``,
  ``seed`` (randomness below level 10) and ``name`` (the name in the PDN).
* ``hub:COMMAND``: an engine speaking the Hub protocol, run as a subprocess
  (:class:`damier.hub.HubEngine`), e.g. ``hub:dame hub``; the command is split
  like a shell would (quotes allowed).

:func:`run_match` also takes a callable that returns a :class:`Player`
(anything with ``name``, ``new_game()``, ``play(board, movetime=, clock=)``,
``stop()`` and ``close()``): that is how tests bring in fake engines.

Games
-----
Every opening is played twice, once with each engine as White (a game pair).
Openings come from a file (:func:`damier.openings.load_openings`), by default
the openings shipped for the variant (International: balanced 4-ply starts),
shuffled with the match's seed. Each game starts from its opening and is
played until :meth:`damier.Board.outcome` ends it (no legal move, and every
draw rule of the variant), or until ``max_plies`` plies (opening included):
then it is adjudicated a draw (``Termination "adjudication"``).

An engine that plays an illegal move (or none, or text that is no legal move)
loses the game (``Termination "rules infraction"``); one that crashes or stops
answering loses it too (``"abandoned"``, ``"time forfeit"``), as does one whose
clock runs out (``"time forfeit"``; a clock is flagged when it is more than
:data:`CLOCK_TOLERANCE` seconds below zero). The last move's comment (or the
game comment when no move was played) says what happened.

Games are streamed: each one is written to the PDN file as soon as it and
every game before it in the schedule have finished (games finished out of
order, with ``concurrency``, wait for the ones before them), and the match
keeps only a small summary of each game, a :class:`MatchGame` (result,
termination, length, tags and the moves as one line of text), never its game
tree; :attr:`MatchGame.game` rebuilds the tree when asked.

Time control: ``movetime`` seconds per move, or ``clock``: a
:class:`damier.engine.Clock` (the start times, increments, and ``moves_to_go``
for a repeating control of that many moves) or its text (:func:`parse_clock`,
``"60+0.5"``). With neither, engines with no ``depth`` or ``nodes`` option of
their own get :data:`DEFAULT_MOVETIME` seconds per move.

Statistics
----------
The score is the fraction of the points won by engine A (a win 1, a draw 1/2).
The Elo difference is the logistic one, ``elo = -400 log10(1/score - 1)``
(:func:`elo_from_score`): 75% is +190.8 Elo.

The 95% interval is computed on the score and mapped through the same formula:
``score +- 1.959964 * SE``. The standard error comes from

* the pentanomial model when every game played belongs to a complete game
  pair (both colours of an opening): each pair scores 0, 1/2, 1, 3/2 or 2
  points for A; SE is the standard deviation of the per-game score of the
  pairs divided by the square root of the number of pairs. This counts the
  pair as the independent unit, which is right when the openings favour one
  side (:func:`pentanomial_interval`);
* the trinomial model otherwise (an odd number of games, or a match stopped
  in the middle of pairs): each game is independent with results win, draw,
  loss; SE is the standard deviation of the game scores divided by the square
  root of the number of games (:func:`trinomial_interval`).

:attr:`MatchResult.interval_model` says which one was used. A score of 0 or 1
gives an infinite Elo; an interval end at or beyond 0 or 1 is infinite too.
Whenever complete pairs were played, :attr:`MatchResult.pentanomial` holds their
counts ``[LL, LD, DD+WL, WD, WW]`` (pairs in which A scored 0, 1/2, 1, 3/2, 2
points) and :attr:`MatchResult.pentanomial_elo` the Elo of those pairs with its
pentanomial interval. The statistics themselves are in :mod:`damier.sprt`.

SPRT
----
With ``sprt`` (a :class:`damier.sprt.SPRT`; ``--sprt ELO0 ELO1`` on the command
line), each complete pair is added to the test as soon as its second game ends,
and once the test decides (H1: A is ``elo1`` Elo stronger; H0: at most
``elo0``) the match starts no new pair: the games already running are finished
(and the other game of a pair already begun), counted and written, and the
result reports the decision (:attr:`MatchResult.sprt_decision`, the one that
stopped the match). ``games`` is then the most games to play, and must be even.

Resuming
--------
With ``resume`` (``--resume FILE``), every finished game is appended to a journal,
a JSON-lines file, and flushed to disk as it ends: a first line with the
match's settings (engines, variant, time control, openings, opening order,
seed, maximum length), then one line per game with everything its
:class:`MatchGame` holds. Running the match again with the same journal
plays only the games it lacks: the seed (taken from the journal when none is
given) gives the same schedule of openings, the journal's games count as
played, and the PDN file, if any, is written again with all of them. A journal
written with other settings is refused (a :class:`ValueError` naming what
differs). Only whole lines are written (a game dropped by Ctrl-C is not in
it); a last line cut short by a crash is ignored with a warning and replaced
by the next game.

Stopping
--------
Ctrl-C (a :class:`KeyboardInterrupt` in the thread that called
:func:`run_match`) stops the match: the games being played are dropped, the
finished ones are kept (and written), and the result comes back with
``interrupted`` set. A second Ctrl-C also quits the Hub engines at once.
With a journal, run the same match again to go on.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import queue
import random
import re
import shlex
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO, Union

from damier._core import Move
from damier.board import Board
from damier.egdb import DEFAULT_ENGINE_PIECES
from damier.engine import INFINITE_DEPTH, MAX_NODES, Clock, check_limits
from damier.openings import is_fen, load_openings, opening_board
from damier.pdn import Game, GameNode, result_for_variant, write_game
from damier.piece import WHITE
from damier.progress import ProgressBar
from damier.sprt import (SPRT, Z95, EloEstimate, elo_estimate, elo_from_score, format_elo,
                         pentanomial_interval, trinomial_interval)
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = [
    "run_match",
    "MatchResult",
    "MatchGame",
    "EngineSpec",
    "EngineSpecError",
    "EngineStartError",
    "EngineIllegalMoveError",
    "EngineTimeoutError",
    "EngineCrashError",
    "Player",
    "parse_engine_spec",
    "parse_clock",
    "make_player",
    "elo_from_score",
    "trinomial_interval",
    "pentanomial_interval",
    "DEFAULT_MOVETIME",
    "DEFAULT_MAX_PLIES",
    "CLOCK_TOLERANCE",
    "add_match_parser",
    "match_command",
]

DEFAULT_MOVETIME = 0.1
"""Seconds per move for engines with no limit of their own when the match has no time control."""
DEFAULT_MAX_PLIES = 300
"""Plies (opening included) after which a game is adjudicated a draw."""
CLOCK_TOLERANCE = 0.1
"""Seconds a clock may go below zero before its engine loses on time."""


# -- errors ---------------------------------------------------------------------------------


class EngineSpecError(ValueError):
    """A bad engine spec (``damier:level=11``, ``hub:``, an unknown option...)."""


class EngineStartError(RuntimeError):
    """An engine could not be started."""


class EngineIllegalMoveError(Exception):
    """The engine answered with an illegal or unreadable move; ``raw`` is what it sent."""

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw


class EngineTimeoutError(Exception):
    """The engine did not answer in time."""


class EngineCrashError(Exception):
    """The engine died or broke the protocol."""


# -- engine specs ---------------------------------------------------------------------------


def _int_option(low: int, high: int | None = None) -> Callable[[str], int]:
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise ValueError(f"must be {bound}, got {value}")
        return value
    return convert


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or math.isinf(value):
        raise ValueError(f"must be a positive number of seconds, got {text}")
    return value


def _check_movetime(movetime: Any) -> float:
    """``movetime`` as the engine takes it: a finite number of seconds > 0."""
    return check_limits(movetime=movetime)[2]  # type: ignore[return-value]


def _weights_file(text: str) -> str:
    from damier.engine import read_weights

    path = text.strip()
    if not path:
        raise ValueError("needs a file name")
    read_weights(path)   # reports a missing or malformed file now, not mid-match
    return path


_ON = ("on", "yes", "true", "1")
_OFF = ("off", "no", "false", "0")


def _on_off_or(text: str, what: str, check: Callable[[str], object]) -> bool | str:
    """True for on, False for off, else ``text`` itself, which ``check`` reads now
    (a missing or malformed file is reported before the match, not in it)."""
    value = text.strip()
    if value.lower() in _ON:
        return True
    if value.lower() in _OFF:
        return False
    if not value:
        raise ValueError(f"expected on, off or {what}")
    check(value)
    return value


def _book_option(text: str) -> bool | str:
    from damier.book import Book

    return _on_off_or(text, "a book file", Book.read)


def _egdb_option(text: str) -> bool | str:
    from pathlib import Path

    def check(value: str) -> None:
        if not Path(value).is_dir():
            raise ValueError(f"no directory {value}")

    return _on_off_or(text, "a directory", check)


def _switch(text: str) -> bool:
    value = text.strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise ValueError(f"expected on or off, got {text!r}")


def _divisor(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not 0.25 <= value <= 100:
        raise ValueError(f"must be between 0.25 and 100, got {text}")
    return value


def _name(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text.strip()


_DAMIER_OPTIONS: dict[str, tuple[Callable[[str], Any], str]] = {
    "level": (_int_option(1, 10), "strength 1 (beginner) to 10 (full, the default)"),
    "hash": (_int_option(1, 65536), "transposition table size in MiB (default 64)"),
    "depth": (_int_option(1, INFINITE_DEPTH), "search depth of every move, in plies"),
    "nodes": (_int_option(1, MAX_NODES), "nodes searched per move"),
    "movetime": (_positive_float, "seconds per move (instead of the match's time control)"),
    "threads": (_int_option(1, 256), "search threads"),
    "seed": (_int_option(0), "seed of the randomness used below level 10"),
    "weights": (_weights_file, "evaluation weights file (as damier train fit writes it)"),
    "book": (_book_option, "opening book: on (the shipped one), off (the default) or a file"),
    "egdb": (_egdb_option, "endgame databases: on (the default directory's), off (the "
             "default) or a directory"),
    "egdb_pieces": (_int_option(2, 7), "probe the endgame databases up to this many pieces "
                    f"(default {DEFAULT_ENGINE_PIECES})"),
    "name": (_name, "the engine's name in the PDN and the report"),
}
# The search's selectivity settings (damier.engine.SELECTIVITY_NAMES), checked
# for range when the engine is made (Engine.set_selectivity).
_SELECTIVITY_OPTIONS: dict[str, tuple[Callable[[str], Any], str]] = {
    "single_reply": (_switch, "extend a position with one legal move (on/off)"),
    "probcut": (_switch, "ProbCut at non-PV nodes (on/off)"),
    "probcut_margin": (_int_option(0, 10000), "ProbCut margin, centi-men"),
    "probcut_depth": (_int_option(2, 63), "ProbCut from this depth"),
    "probcut_reduction": (_int_option(1, 16), "ProbCut's reduction, plies"),
    "singular": (_switch, "singular extension at PV nodes (on/off)"),
    "singular_depth": (_int_option(2, 63), "singular extension from this depth"),
    "singular_margin": (_int_option(0, 10000), "singular extension margin, centi-men"),
    "threat_qsearch": (_int_option(0, 16), "threat-aware quiescence, plies (0 off)"),
    "history": (_int_option(0, 2), "history updates: 0, 1 or 2"),
    "lmr_depth": (_int_option(1, 64), "late-move reductions from this depth"),
    "lmr_move": (_int_option(1, 64), "late-move reductions after this many moves"),
    "lmr_divisor": (_divisor, "size of the late-move reductions (larger: smaller)"),
}
_DAMIER_OPTIONS.update(_SELECTIVITY_OPTIONS)


@dataclass(frozen=True)
class EngineSpec:
    """A parsed engine spec: ``kind`` is ``"damier"`` or ``"hub"``."""

    kind: str
    text: str
    """The spec as given."""
    options: tuple[tuple[str, Any], ...] = ()
    """``damier`` options, as ``(name, value)`` pairs."""
    command: tuple[str, ...] = ()
    """``hub``: the command line of the engine."""

    @property
    def option_map(self) -> dict[str, Any]:
        return dict(self.options)

    @property
    def label(self) -> str:
        """The engine's name for the PDN and the report (before it is started)."""
        name = self.option_map.get("name")
        if name:
            return str(name)
        return self.text


def parse_engine_spec(text: str) -> EngineSpec:
    """Reads an engine spec; raises :class:`EngineSpecError` with a clear message.

    >>> parse_engine_spec("damier:level=5,hash=16").option_map
    {'level': 5, 'hash': 16}
    >>> parse_engine_spec("hub:dame hub").command
    ('dame', 'hub')
    >>> parse_engine_spec("damier:level=11")
    Traceback (most recent call last):
    ...
    damier.match.EngineSpecError: bad engine spec 'damier:level=11': option level must be between 1 and 10, got 11
    >>> parse_engine_spec("stockfish")
    Traceback (most recent call last):
    ...
    damier.match.EngineSpecError: bad engine spec 'stockfish': expected damier[:option=value,...] or hub:COMMAND
    """
    if not isinstance(text, str):
        raise EngineSpecError(f"an engine spec is a string, not {type(text).__name__}")
    spec = text.strip()

    def fail(message: str) -> EngineSpecError:
        return EngineSpecError(f"bad engine spec {text!r}: {message}")

    kind, sep, rest = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "damier":
        options: dict[str, Any] = {}
        if rest.strip():
            for item in rest.split(","):
                item = item.strip()
                if not item:
                    continue
                name, eq, value = item.partition("=")
                name = name.strip().lower()
                if not eq:
                    raise fail(f"option {item!r} needs a value (option=value)")
                if name not in _DAMIER_OPTIONS:
                    raise fail(f"unknown option {name!r}; the options are "
                               + ", ".join(_DAMIER_OPTIONS))
                if name in options:
                    raise fail(f"option {name} given twice")
                convert = _DAMIER_OPTIONS[name][0]
                try:
                    options[name] = convert(value.strip())
                except ValueError as err:
                    raise fail(f"option {name} {err}") from None
        return EngineSpec("damier", spec, tuple(options.items()))
    if kind == "hub":
        if not sep or not rest.strip():
            raise fail("hub: needs the engine's command, e.g. hub:dame hub")
        try:
            command = shlex.split(rest)
        except ValueError as err:
            raise fail(f"cannot split the command: {err}") from None
        if not command:
            raise fail("hub: needs the engine's command, e.g. hub:dame hub")
        return EngineSpec("hub", spec, command=tuple(command))
    raise fail("expected damier[:option=value,...] or hub:COMMAND")


def damier_options_help() -> str:
    """The ``damier`` spec options, one per line."""
    return "\n".join(f"  {name:<9} {desc}" for name, (_, desc) in _DAMIER_OPTIONS.items())


# -- time control ---------------------------------------------------------------------------

_CLOCK_RE = re.compile(r"\s*(?:(\d+)\s*/\s*)?([0-9.:]+)\s*(?:\+\s*([0-9.]+))?\s*\Z")


def _seconds(text: str) -> float:
    if ":" in text:
        parts = text.split(":")
        if len(parts) > 3 or not all(parts):
            raise ValueError(text)
        total = 0.0
        for part in parts:
            total = total * 60 + float(part)
        return total
    return float(text)


def parse_clock(text: str) -> Clock:
    """A clock from ``[MOVES/]TIME[+INCREMENT]``: ``TIME`` in seconds or
    ``M:SS``, the increment in seconds; ``MOVES/`` makes it a repeating
    control of that many moves.

    >>> parse_clock("60+0.5")
    Clock(white_time=60.0, black_time=60.0, white_increment=0.5, black_increment=0.5, moves_to_go=None)
    >>> parse_clock("40/2:00").moves_to_go, parse_clock("40/2:00").white_time
    (40, 120.0)
    """
    m = _CLOCK_RE.match(text)
    try:
        if m is None:
            raise ValueError(text)
        base = _seconds(m.group(2))
        inc = float(m.group(3)) if m.group(3) else 0.0
        moves = int(m.group(1)) if m.group(1) else None
    except ValueError:
        raise ValueError(f"bad clock {text!r}: expected [MOVES/]TIME[+INCREMENT], e.g. 60+0.5, "
                         "3:00+2 or 40/120") from None
    if base <= 0 or (moves is not None and moves < 1):
        raise ValueError(f"bad clock {text!r}: the time must be positive")
    try:
        return Clock(base, base, inc, inc, moves)
    except ValueError as err:  # a number too large: an infinite time, a huge count
        shown = text if len(text) <= 40 else text[:30] + "..."
        raise ValueError(f"bad clock {shown!r}: {err}") from None


def _clock_text(clock: Clock) -> str:
    def num(x: float) -> str:
        return f"{x:g}"
    text = num(clock.white_time)
    if clock.white_increment:
        text += "+" + num(clock.white_increment)
    if clock.moves_to_go:
        text = f"{clock.moves_to_go}/{text}"
    if (clock.black_time, clock.black_increment) != (clock.white_time, clock.white_increment):
        other = num(clock.black_time) + (f"+{num(clock.black_increment)}"
                                         if clock.black_increment else "")
        text += f" (Black {other})"
    return text


# -- players --------------------------------------------------------------------------------


class Player(Protocol):
    """What a match needs from an engine. ``play`` returns the move (a
    :class:`~damier.Move` or move text, or None for no move) or raises
    :class:`EngineIllegalMoveError`, :class:`EngineTimeoutError` or
    :class:`EngineCrashError` (any other exception counts as a crash)."""

    name: str

    def new_game(self) -> None: ...

    def play(self, board: Board, *, movetime: float | None,
             clock: Clock | None) -> Move | str | None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


class DamierPlayer:
    """damier's in-process engine with the options of a ``damier:...`` spec."""

    def __init__(self, spec: EngineSpec, *, seed: int | None = None) -> None:
        from damier.engine import Engine

        opts = spec.option_map
        self.spec = spec
        self.name = spec.label
        self.depth: int | None = opts.get("depth")
        self.nodes: int | None = opts.get("nodes")
        self.movetime: float | None = opts.get("movetime")
        kwargs: dict[str, Any] = {"level": opts.get("level", 10),
                                  "threads": opts.get("threads", 1),
                                  "seed": opts.get("seed", seed)}
        if "hash" in opts:
            kwargs["hash_mb"] = opts["hash"]
        if "weights" in opts:
            kwargs["weights"] = opts["weights"]
        if "book" in opts:
            kwargs["book"] = opts["book"]
        if "egdb" in opts:
            kwargs["egdb"] = opts["egdb"]
        if "egdb_pieces" in opts:
            kwargs["egdb_pieces"] = opts["egdb_pieces"]
        selectivity = {name: opts[name] for name in _SELECTIVITY_OPTIONS if name in opts}
        if selectivity:
            kwargs["selectivity"] = selectivity
        self.engine = Engine(**kwargs)

    def new_game(self) -> None:
        self.engine.new_game()

    def play(self, board: Board, *, movetime: float | None, clock: Clock | None) -> Move | None:
        limits: dict[str, Any] = {"depth": self.depth, "nodes": self.nodes}
        if self.movetime is not None:
            limits["movetime"] = self.movetime
        elif clock is not None:
            limits["clock"] = clock
        elif movetime is not None:
            limits["movetime"] = movetime
        elif self.depth is None and self.nodes is None:
            limits["movetime"] = DEFAULT_MOVETIME
        return self.engine.search(board, **limits).best_move

    def stop(self) -> None:
        self.engine.stop()

    def close(self) -> None:
        self.engine.stop()


class HubPlayer:
    """A Hub engine subprocess (:class:`damier.hub.HubEngine`)."""

    def __init__(self, spec: EngineSpec, *, timeout: float = 10.0) -> None:
        from damier import hub

        self._hub = hub
        self.spec = spec
        self.engine = hub.HubEngine(list(spec.command), timeout=timeout)
        reported = getattr(self.engine, "name", None)
        version = getattr(self.engine, "version", None)
        self.name = str(reported) if reported else " ".join(spec.command)
        if reported and version:
            self.name = f"{reported} {version}"

    def new_game(self) -> None:
        self._call(self.engine.new_game)

    def play(self, board: Board, *, movetime: float | None, clock: Clock | None) -> Move | str | None:
        if clock is None and movetime is None:
            movetime = DEFAULT_MOVETIME
        result = self._call(self.engine.search, board, movetime=None if clock else movetime,
                            clock=clock)
        best: Move | None = result.best_move
        if best is not None:
            return best
        raw = getattr(result, "raw_move", None)
        return str(raw) if raw else None

    def _call(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        hub = self._hub
        try:
            return method(*args, **kwargs)
        except hub.HubIllegalMoveError as err:
            raw = getattr(err, "raw_move", getattr(err, "raw", None))
            raise EngineIllegalMoveError(str(err), raw if raw else None) from err
        except hub.HubTimeoutError as err:
            raise EngineTimeoutError(str(err) or "no answer in time") from err
        except hub.HubEngineError as err:
            raise EngineCrashError(str(err) or type(err).__name__) from err

    def stop(self) -> None:
        stop = getattr(self.engine, "stop", None)
        if callable(stop):
            try:
                stop()
            except Exception:  # noqa: BLE001 - best effort while stopping
                pass

    def close(self) -> None:
        try:
            self.engine.quit()
        except Exception:  # noqa: BLE001 - the engine may already be gone
            pass


EngineLike = Union[str, EngineSpec, Callable[[], Player]]


def make_player(spec: EngineLike, *, seed: int | None = None, hub_timeout: float = 10.0) -> Player:
    """Starts the engine of ``spec`` (a spec string, an :class:`EngineSpec`, or a
    callable returning a :class:`Player`); raises :class:`EngineStartError`."""
    if isinstance(spec, str):
        spec = parse_engine_spec(spec)
    try:
        if isinstance(spec, EngineSpec):
            if spec.kind == "damier":
                return DamierPlayer(spec, seed=seed)
            return HubPlayer(spec, timeout=hub_timeout)
        return spec()
    except EngineSpecError:
        raise
    except Exception as err:  # noqa: BLE001 - report any failure to start as such
        label = spec.text if isinstance(spec, EngineSpec) else getattr(spec, "__name__", "engine")
        detail = str(err) or type(err).__name__
        if isinstance(err, ImportError):
            detail = f"Hub engines need damier.hub ({detail})"
        raise EngineStartError(f"cannot start engine {label!r}: {detail}") from err


# -- statistics -----------------------------------------------------------------------------
# The statistics live in damier.sprt; elo_from_score, trinomial_interval and
# pentanomial_interval are imported above and stay importable from here.


# -- records --------------------------------------------------------------------------------


@dataclass
class MatchGame:
    """One finished game of a match."""

    number: int
    """1-based number in the match schedule."""
    round: str
    """``pair.game``, e.g. ``"3.2"`` (the PDN Round tag)."""
    pair: int
    opening: list[str]
    white: str
    black: str
    a_is_white: bool
    result: str
    """``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``."""
    termination: str
    """The PDN Termination tag: normal, adjudication, rules infraction, time forfeit, abandoned."""
    reason: str
    """What ended the game, in words."""
    plies: int
    headers: dict[str, str] = field(default_factory=dict)
    """The game's PDN tags, as written (``GameType``, ``FEN`` for a set-up start...)."""
    moves: str = ""
    """The game's moves from its start position (opening included), in standard
    notation, separated by spaces."""

    @property
    def game(self) -> Game:
        """The game as a PDN game tree, rebuilt from :attr:`headers` and
        :attr:`moves` on each access (a match keeps no game trees: a long match
        would hold thousands of them)."""
        return _build_game(self.headers, self.moves, _opening_plies(self.opening), self.reason)

    @property
    def score_a(self) -> float:
        """Engine A's points in this game: 1, 1/2 or 0."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == self.a_is_white else 0.0


@dataclass
class MatchResult:
    """The outcome of a match, from engine A's point of view."""

    engine_a: str
    engine_b: str
    wins: int
    draws: int
    losses: int
    score: float
    """A's fraction of the points (nan with no game)."""
    elo: float
    elo_interval: tuple[float, float]
    """95% interval of ``elo`` (see :attr:`interval_model`)."""
    games: list[MatchGame] = field(default_factory=list)
    interval_model: str = "trinomial"
    """``"pentanomial"`` (all games in complete pairs) or ``"trinomial"``."""
    pentanomial: tuple[int, int, int, int, int] | None = None
    """Complete pairs in which A scored 0, 1/2, 1, 3/2, 2 points (``[LL, LD, DD+WL,
    WD, WW]``); None when no pair was completed."""
    interrupted: bool = False
    scheduled: int = 0
    """Games scheduled (with an SPRT: the most games the match could play)."""
    errors: list[str] = field(default_factory=list)
    seed: int | None = None
    pdn_path: str | None = None
    time_control: str = ""
    pentanomial_elo: EloEstimate | None = None
    """The Elo of the complete pairs with its 95% pentanomial interval."""
    sprt: SPRT | None = None
    """The match's SPRT, holding every complete pair (the games finished after its
    decision included)."""
    sprt_decision: str | None = None
    """``"H1"`` or ``"H0"``: the decision that stopped the match (None: none reached)."""
    resumed: int = 0
    """Games read back from the journal rather than played in this run."""
    journal_path: str | None = None

    @property
    def games_played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    def summary(self) -> str:
        """The report printed at the end of ``damier match``."""
        n = self.games_played
        of = f"at most {self.scheduled}" if self.sprt is not None else str(self.scheduled)
        lines = [f"{self.engine_a} vs {self.engine_b}: {n} of {of} games"
                 + (" (interrupted)" if self.interrupted else "")
                 + (f", {self.time_control}" if self.time_control else "")
                 + (f", seed {self.seed}" if self.seed is not None else "")]
        if self.resumed:
            lines.append(f"  {self.resumed} of them read back from {self.journal_path}")
        lines.append(f"  {self.engine_a}: +{self.wins} ={self.draws} -{self.losses}  "
                     f"(W/D/L {self.wins}/{self.draws}/{self.losses})")
        if n:
            lo, hi = self.elo_interval
            lines.append(f"  score {self.points:g}/{n} = {100 * self.score:.1f}%")
            lines.append(f"  Elo {format_elo(self.elo)}, 95% interval [{format_elo(lo)}, "
                         f"{format_elo(hi)}] ({self.interval_model})")
            if self.pentanomial is not None:
                pairs = sum(self.pentanomial)
                line = (f"  pairs [LL, LD, DD+WL, WD, WW]: {list(self.pentanomial)} "
                        f"({pairs} pair{'s' if pairs != 1 else ''})")
                est = self.pentanomial_elo
                if est is not None:
                    line += (f", pentanomial Elo {format_elo(est.elo)} "
                             f"[{format_elo(est.low)}, {format_elo(est.high)}]")
                lines.append(line)
            reasons: dict[str, int] = {}
            for g in self.games:
                reasons[_reason_class(g)] = reasons.get(_reason_class(g), 0) + 1
            lines.append("  endings: " + ", ".join(f"{k} {v}" for k, v in
                                                    sorted(reasons.items(), key=lambda kv: -kv[1])))
        if self.sprt is not None:
            line = f"  SPRT {self.sprt.summary()}: "
            if self.sprt_decision is not None:
                line += {"H1": f"H1 accepted (elo1 = {self.sprt.elo1:g})",
                         "H0": f"H0 accepted (elo0 = {self.sprt.elo0:g})"}[self.sprt_decision]
            else:
                line += "no decision"
            lines.append(line)
        for error in self.errors:
            lines.append(f"  error: {error}")
        if self.pdn_path:
            lines.append(f"  games written to {self.pdn_path}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (``damier match --json``): every figure of
        :meth:`summary`, infinite Elo as ``"+inf"``/``"-inf"`` and nan as None;
        not the games (the PDN file holds them)."""
        est = self.pentanomial_elo
        data: dict[str, Any] = {
            "engine_a": self.engine_a, "engine_b": self.engine_b,
            "games": self.games_played, "scheduled": self.scheduled,
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "score": self.score, "elo": self.elo,
            "elo_low": self.elo_interval[0], "elo_high": self.elo_interval[1],
            "interval_model": self.interval_model,
            "pentanomial": list(self.pentanomial) if self.pentanomial is not None else None,
            "pentanomial_elo": ({"elo": est.elo, "low": est.low, "high": est.high}
                                if est is not None else None),
            "sprt": None,
            "interrupted": self.interrupted, "errors": list(self.errors), "seed": self.seed,
            "time_control": self.time_control, "pdn": self.pdn_path,
            "resumed": self.resumed, "journal": self.journal_path,
        }
        if self.sprt is not None:
            lower, upper = self.sprt.bounds
            data["sprt"] = dict(self.sprt.to_dict(), llr=self.sprt.llr, lower=lower,
                                upper=upper, decision=self.sprt_decision)
        return {k: _json_value(v) for k, v in data.items()}


def _json_value(value: Any) -> Any:
    """``value`` with nan as None and infinities as ``"+inf"``/``"-inf"`` (also inside
    dicts and lists): plain JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("+inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    return value


def _reason_class(record: MatchGame) -> str:
    if record.termination == "normal":
        return "no legal move" if record.reason.endswith("no legal move") else record.reason
    return record.termination


def _pair_points(records: Sequence[MatchGame]) -> dict[int, float]:
    """A's points in each complete pair (both games finished) of ``records``."""
    by_pair: dict[int, list[MatchGame]] = {}
    for g in records:
        by_pair.setdefault(g.pair, []).append(g)
    return {pair: sum(g.score_a for g in games) for pair, games in by_pair.items()
            if len(games) == 2}


def _pentanomial(records: Sequence[MatchGame]) -> tuple[int, int, int, int, int] | None:
    """The pentanomial counts of the complete pairs of ``records`` (None: none)."""
    points = _pair_points(records)
    if not points:
        return None
    counts = [0, 0, 0, 0, 0]
    for value in points.values():
        counts[int(round(2 * value))] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def _tally(records: list[MatchGame]) -> tuple[int, int, int, float, float, tuple[float, float],
                                               str, tuple[int, int, int, int, int] | None]:
    """Wins, draws, losses, score, Elo, its interval and model, and the pentanomial
    counts of the complete pairs."""
    wins = sum(1 for g in records if g.score_a == 1.0)
    draws = sum(1 for g in records if g.score_a == 0.5)
    losses = sum(1 for g in records if g.score_a == 0.0)
    n = len(records)
    score = (wins + 0.5 * draws) / n if n else math.nan
    elo = elo_from_score(score)
    penta = _pentanomial(records)
    if n and penta is not None and 2 * sum(penta) == n:  # every game in a complete pair
        return wins, draws, losses, score, elo, pentanomial_interval(penta), "pentanomial", penta
    return (wins, draws, losses, score, elo, trinomial_interval(wins, draws, losses),
            "trinomial", penta)


# -- playing a game ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _GameTask:
    number: int
    pair: int
    index_in_pair: int
    opening: tuple[str, ...]
    a_is_white: bool


class _Abandoned(Exception):
    """The match was stopped during this game."""


class _Match:
    def __init__(self, spec_a: EngineLike, spec_b: EngineLike, *, variant: Variant,
                 movetime: float | None, clock: Clock | None, max_plies: int, seed: int,
                 hub_timeout: float, event: str) -> None:
        self.spec_a = spec_a
        self.spec_b = spec_b
        self.variant = variant
        self.movetime = movetime
        self.clock = clock
        self.max_plies = max_plies
        self.seed = seed
        self.hub_timeout = hub_timeout
        self.event = event
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.live: list[Player] = []
        self.name_a = "A"
        self.name_b = "B"
        self.date = datetime.date.today().strftime("%Y.%m.%d")
        self.site = platform.node() or "?"

    # players

    def start_player(self, side: str, worker: int) -> Player:
        spec = self.spec_a if side == "A" else self.spec_b
        seed = random.Random(f"{self.seed}:{worker}:{side}").randrange(2 ** 31)
        player = make_player(spec, seed=seed, hub_timeout=self.hub_timeout)
        with self.lock:
            self.live.append(player)
        return player

    def close_player(self, player: Player | None) -> None:
        if player is None:
            return
        with self.lock:
            if player in self.live:
                self.live.remove(player)
        try:
            player.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass

    def stop_all(self, close: bool = False) -> None:
        with self.lock:
            players = list(self.live)
        for player in players:
            try:
                player.close() if close else player.stop()
            except Exception:  # noqa: BLE001
                pass

    # one game

    def _time_control_text(self) -> str:
        if self.clock is not None:
            return _clock_text(self.clock)
        if self.movetime is not None:
            return f"{self.movetime:g} s/move"
        return ""

    def play(self, job: _GameTask, player_a: Player, player_b: Player
             ) -> tuple[MatchGame, set[str]]:
        """Plays ``job``; returns the record and the sides ("A", "B") whose engine
        failed (to be restarted). Raises _Abandoned when the match is stopped."""
        white, black = (player_a, player_b) if job.a_is_white else (player_b, player_a)
        white_name, black_name = ((self.name_a, self.name_b) if job.a_is_white
                                  else (self.name_b, self.name_a))
        board = opening_board(job.opening, self.variant)
        failed: set[str] = set()
        for player in (white, black):
            try:
                player.new_game()
            except Exception:  # noqa: BLE001 - a failure shows again at its first move
                pass

        clock = self.clock
        times = [clock.white_time, clock.black_time] if clock else [0.0, 0.0]  # [white, black]
        moves_made = [0, 0]
        result: str
        termination: str
        reason: str
        while True:
            if self.stop_event.is_set():
                raise _Abandoned()
            outcome = board.outcome()
            if outcome is not None:
                result = outcome.result()
                termination = "normal"
                reason = outcome.termination.describe(board.rules)
                if outcome.winner is not None and reason == "no legal move":
                    reason = f"{'Black' if outcome.winner == WHITE else 'White'} has no legal move"
                break
            if len(board.move_stack) >= self.max_plies:
                result, termination = "1/2-1/2", "adjudication"
                reason = f"draw by adjudication: maximum game length of {self.max_plies} plies"
                break
            white_to_move = board.turn == WHITE
            mover = white if white_to_move else black
            mover_name = white_name if white_to_move else black_name
            colour = "White" if white_to_move else "Black"
            side_index = 0 if white_to_move else 1
            mover_side = "A" if (mover is player_a) else "B"
            lose = "0-1" if white_to_move else "1-0"
            move_clock = None
            if clock is not None:
                mtg = None
                if clock.moves_to_go:
                    mtg = clock.moves_to_go - moves_made[side_index] % clock.moves_to_go
                move_clock = Clock(max(0.0, times[0]), max(0.0, times[1]), clock.white_increment,
                                   clock.black_increment, mtg)
            began = time.monotonic()
            failure: tuple[str, str] | None = None
            try:
                reply = mover.play(board, movetime=self.movetime, clock=move_clock)
            except EngineIllegalMoveError as err:
                failure = ("rules infraction", f"{mover_name} ({colour}) " + (
                    "played no move" if err.raw is None else f"played an illegal move: {err.raw!r}"))
            except EngineTimeoutError as err:
                failure = ("time forfeit", f"{mover_name} ({colour}) did not answer in time"
                           + (f": {err}" if str(err) else ""))
            except Exception as err:  # noqa: BLE001 - any engine failure loses the game
                failure = ("abandoned", f"{mover_name} ({colour}) failed: "
                           f"{str(err) or type(err).__name__}")
            elapsed = time.monotonic() - began
            if failure is not None:
                # A Ctrl-C also reaches engine subprocesses: a failure while the
                # match is being stopped is part of the stop, not a loss.
                if self.stop_event.wait(0.3):
                    raise _Abandoned()
                failed.add(mover_side)
                result, (termination, reason) = lose, failure
                break
            move, problem = _check_move(board, reply)
            if move is None:
                result, termination = lose, "rules infraction"
                reason = f"{mover_name} ({colour}) {problem}"
                failed.add(mover_side)  # restart: its idea of the position may be wrong
                break
            if clock is not None:
                times[side_index] -= elapsed
                if times[side_index] < -CLOCK_TOLERANCE:
                    if self.stop_event.is_set():
                        raise _Abandoned()
                    result, termination = lose, "time forfeit"
                    reason = (f"{mover_name} ({colour}) lost on time "
                              f"({-times[side_index]:.2f} s over)")
                    break
                inc = clock.white_increment if white_to_move else clock.black_increment
                times[side_index] += inc
                moves_made[side_index] += 1
                if clock.moves_to_go and moves_made[side_index] % clock.moves_to_go == 0:
                    times[side_index] += clock.white_time if white_to_move else clock.black_time
            board.push(move)

        start = board.root()
        texts = []
        for move in board.move_stack:
            texts.append(start.notation(move))
            start.push(move)
        record = MatchGame(number=job.number, round=f"{job.pair}.{job.index_in_pair}",
                            pair=job.pair, opening=list(job.opening), white=white_name,
                            black=black_name, a_is_white=job.a_is_white, result=result,
                            termination=termination, reason=reason,
                            plies=len(board.move_stack),
                            headers=self._pdn_headers(job, board, white_name, black_name,
                                                      result, termination),
                            moves=" ".join(texts))
        return record, failed

    def _pdn_headers(self, job: _GameTask, board: Board, white: str, black: str, result: str,
                     termination: str) -> dict[str, str]:
        """The PDN tags of a finished game (``board``: its final position)."""
        game = Game(variant=self.variant)
        game.setup(board.root())
        headers = game.headers
        headers["Event"] = self.event
        headers["Site"] = self.site
        headers["Date"] = self.date
        headers["Round"] = f"{job.pair}.{job.index_in_pair}"
        headers["White"] = white
        headers["Black"] = black
        headers["Result"] = result_for_variant(result, self.variant) or result
        moves = [m for m in job.opening if not is_fen(m)]
        if moves:
            headers["Opening"] = " ".join(moves)
        tc = self._time_control_text()
        if tc:
            headers["TimeControl"] = tc
        headers["Termination"] = termination
        headers["PlyCount"] = str(len(board.move_stack))
        return dict(headers)


def _opening_plies(opening: Sequence[str]) -> int:
    """The plies of an opening (its moves, not its FEN)."""
    return len(opening) - (1 if opening and is_fen(opening[0]) else 0)


def _build_game(headers: dict[str, str], moves: str, opening_plies: int, reason: str) -> Game:
    """A match game's tree: the moves from the start position of ``headers``, a
    comment at the end of the opening and ``reason`` after the last move."""
    game = Game(headers)
    board = game.board()
    node: GameNode = game
    texts = moves.split()
    for ply, text in enumerate(texts, start=1):
        move = board.parse_move(text)
        node = node.add_variation(move)
        board.push(move)
        if ply == opening_plies and ply < len(texts):
            node.comment = "end of opening"
    if node is game:
        game.comment = reason
    elif node.comment:
        node.comment = f"{node.comment}; {reason}"
    else:
        node.comment = reason
    return game


def _check_move(board: Board, reply: Any) -> tuple[Move | None, str]:
    """The legal move of an engine's reply, or None and what was wrong with it."""
    if reply is None:
        return None, "played no move"
    if isinstance(reply, str):
        try:
            return board.parse_move(reply), ""
        except ValueError:
            return None, f"played an illegal move: {reply!r}"
    if isinstance(reply, Move):
        for legal in board.legal_moves:
            if legal == reply:
                return legal, ""
        text = "x".join(map(str, reply.path)) if reply.is_capture else \
            f"{reply.from_square}-{reply.to_square}"
        return None, f"played an illegal move: {text!r}"
    return None, f"answered {reply!r}, which is not a move"


# -- progress ---------------------------------------------------------------------------------


class _Progress:
    """The match's progress: the running score beside a :class:`ProgressBar`, or a line
    per game."""

    def __init__(self, total: int, stream: TextIO, name_a: str, name_b: str,
                 enabled: bool, *, done: int = 0, points: float = 0.0) -> None:
        self.total = total
        self.name_a = name_a
        self.enabled = enabled
        self.done = done
        self.points = points
        self.bar = ProgressBar(f"{name_a} vs {name_b}", total=total, stream=stream,
                               done=done, enabled=enabled)

    def game_done(self, record: MatchGame) -> None:
        if not self.enabled:
            return
        self.done += 1
        self.points += record.score_a
        pct = 100 * self.points / self.done
        score = f"{self.name_a} {self.points:g}/{self.done} ({pct:.1f}%)"
        result = {"1-0": "1-0", "0-1": "0-1"}.get(record.result, "1/2")
        width = len(str(self.total))
        self.bar.update(score, advance=1, line=(
            f"[{self.done:>{width}}/{self.total}] {record.round:>6}  "
            f"{record.white} - {record.black}  {result}  ({record.reason}, "
            f"{record.plies} plies)   {score}"))

    def message(self, text: str, *, always: bool = False) -> None:
        self.bar.message(text, always=always)

    def close(self) -> None:
        self.bar.close()


# -- the match --------------------------------------------------------------------------------


def _normalize_openings(openings: Any, variant: Variant) -> list[list[str]]:
    if openings is None:
        try:
            return load_openings(None, variant)
        except FileNotFoundError:
            return [[]]  # no shipped openings: the start position
    if isinstance(openings, (str, os.PathLike)):
        return load_openings(openings, variant)
    result: list[list[str]] = []
    for item in openings:
        opening = item.split() if isinstance(item, str) else list(item)
        opening_board(opening, variant)  # raises ValueError for a bad opening
        result.append(opening)
    if not result:
        raise ValueError("no openings given")
    return result


JOURNAL_VERSION = 1
"""The format version written in a match journal's first line."""


def _spec_label(spec: EngineLike) -> str:
    """An engine as the journal names it: its spec text, or a callable's name."""
    if isinstance(spec, str):
        return spec.strip()
    if isinstance(spec, EngineSpec):
        return spec.text
    return "callable:" + str(getattr(spec, "__qualname__", None)
                             or getattr(spec, "__name__", None) or type(spec).__name__)


def _match_settings(spec_a: EngineLike, spec_b: EngineLike, *, variant: Variant,
                    movetime: float | None, clock: Clock | None, book: list[list[str]],
                    shuffle: bool, seed: int, max_plies: int) -> dict[str, Any]:
    """What a journal must agree on with the match that goes on with it."""
    digest = hashlib.sha256(json.dumps(book, separators=(",", ":")).encode("utf-8"))
    return {"engine A": _spec_label(spec_a), "engine B": _spec_label(spec_b),
            "variant": variant.name,
            "time control": {"movetime": movetime,
                             "clock": _clock_text(clock) if clock is not None else None},
            "openings": {"count": len(book), "sha256": digest.hexdigest()[:16]},
            "opening order": "shuffled" if shuffle else "sequential",
            "seed": seed, "max plies": max_plies}


def _settings_differences(there: dict[str, Any], here: dict[str, Any]) -> list[str]:
    def show(key: str, value: Any) -> str:
        if key == "openings" and isinstance(value, dict):
            return f"{value.get('count')} openings, digest {value.get('sha256')}"
        if key == "time control" and isinstance(value, dict):
            if value.get("clock"):
                return f"clock {value['clock']}"
            if value.get("movetime") is not None:
                return f"{value['movetime']:g} s/move"
            return "none"
        return repr(value)
    return [f"{key} ({show(key, there.get(key))} in the journal, {show(key, here[key])} now)"
            for key in here if there.get(key) != here[key]]


@dataclass
class _JournalContents:
    settings: dict[str, Any] | None = None
    """None: a new (or empty) journal."""
    records: list[MatchGame] = field(default_factory=list)
    good_size: int = 0
    """Bytes of whole lines; anything after them is cut off before appending."""
    warning: str | None = None


_GAME_FIELDS = ("number", "round", "pair", "opening", "white", "black", "a_is_white", "result",
                "termination", "reason", "plies", "headers", "moves")


def _game_line(record: MatchGame) -> str:
    data: dict[str, Any] = {"type": "game"}
    data.update((name, getattr(record, name)) for name in _GAME_FIELDS)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def _game_from_line(data: dict[str, Any], where: str) -> MatchGame:
    try:
        record = MatchGame(**{name: data[name] for name in _GAME_FIELDS})
    except (KeyError, TypeError) as err:
        raise ValueError(f"{where} is not a game of a match journal ({err})") from None
    if (not isinstance(record.number, int) or record.number < 1
            or not isinstance(record.pair, int) or record.result not in ("1-0", "0-1", "1/2-1/2")
            or not isinstance(record.a_is_white, bool) or not isinstance(record.opening, list)
            or not isinstance(record.headers, dict)):
        raise ValueError(f"{where} is not a game of a match journal (bad values)")
    return record


def _read_journal(path: str) -> _JournalContents:
    """The journal at ``path`` (an empty one when the file does not exist)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return _JournalContents()
    contents = _JournalContents()
    lines = data.split(b"\n")
    offset = 0
    seen: set[int] = set()
    for index, raw in enumerate(lines):
        last = index == len(lines) - 1
        if last and not raw:
            break  # the file ends with a whole line
        where = f"{path}, line {index + 1}"
        try:
            if last:
                raise ValueError("no end of line")
            item = json.loads(raw.decode("utf-8")) if raw.strip() else None
            if item is not None and not isinstance(item, dict):
                raise ValueError("not a JSON object")
        except ValueError as err:
            # The last line: a crash cut it short. Anywhere else the file is damaged.
            if last or (index == len(lines) - 2 and not lines[-1]):
                contents.warning = (f"warning: {where} is incomplete ({err}): ignored, "
                                    "that game is played again")
                break
            raise ValueError(f"{where} is not a line of a match journal ({err})") from None
        offset += len(raw) + 1
        if item is None:
            contents.good_size = offset
            continue
        kind = item.get("type")
        if contents.settings is None:
            if kind != "header" or not isinstance(item.get("settings"), dict):
                raise ValueError(f"{path} is not a damier match journal (its first line "
                                 "has no match settings)")
            if item.get("version") != JOURNAL_VERSION:
                raise ValueError(f"{path}: a match journal of version {item.get('version')!r}; "
                                 f"this damier reads version {JOURNAL_VERSION}")
            contents.settings = item["settings"]
        elif kind == "game":
            record = _game_from_line(item, where)
            if record.number in seen:
                raise ValueError(f"{where}: game {record.number} is in the journal twice")
            seen.add(record.number)
            contents.records.append(record)
        else:
            raise ValueError(f"{where} is not a line of a match journal (type {kind!r})")
        contents.good_size = offset
    return contents


class _Journal:
    """The journal being written: one whole line per finished game, flushed to disk."""

    def __init__(self, path: str, contents: _JournalContents,
                 settings: dict[str, Any]) -> None:
        self.path = path
        if contents.settings is None:
            self.handle: TextIO | None = open(path, "w", encoding="utf-8", newline="\n")
            self._write(json.dumps({"type": "header", "journal": "damier match",
                                    "version": JOURNAL_VERSION, "settings": settings,
                                    "created": datetime.datetime.now().isoformat(
                                        timespec="seconds")},
                                   ensure_ascii=False, separators=(",", ":")) + "\n")
        else:
            with open(path, "r+b") as raw:
                raw.truncate(contents.good_size)  # drop a line cut short by a crash
            self.handle = open(path, "a", encoding="utf-8", newline="\n")

    def _write(self, line: str) -> None:
        assert self.handle is not None
        self.handle.write(line)
        self.handle.flush()
        try:
            os.fsync(self.handle.fileno())
        except OSError:  # noqa: PERF203 - not every file can be synced (a pipe)
            pass

    def add(self, record: MatchGame) -> None:
        if self.handle is not None:
            self._write(_game_line(record))

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def _distinct_names(a: str, b: str) -> tuple[str, str]:
    if a != b:
        return a, b
    return f"{a} (A)", f"{b} (B)"


def run_match(engine_a_spec: EngineLike, engine_b_spec: EngineLike, *, games: int,
              movetime: float | None = None, clock: Clock | str | None = None,
              openings: str | os.PathLike[str] | Sequence[Sequence[str] | str] | None = None,
              concurrency: int = 1, pdn_path: str | os.PathLike[str] | None = None,
              variant: str | Variant = DEFAULT_VARIANT, progress: bool = True,
              seed: int | None = None, max_plies: int = DEFAULT_MAX_PLIES,
              shuffle_openings: bool = True, hub_timeout: float = 10.0,
              event: str | None = None, stream: TextIO | None = None,
              sprt: SPRT | None = None,
              resume: str | os.PathLike[str] | None = None) -> MatchResult:
    """Plays ``games`` games between engine A and engine B and returns the result
    from A's point of view (see the module documentation).

    :param engine_a_spec: ``"damier[:option=value,...]"``, ``"hub:COMMAND"``, an
        :class:`EngineSpec`, or a callable returning a :class:`Player`.
    :param games: number of games; game ``2k-1`` and ``2k`` play the same opening
        with colours swapped (A is White in the first). With ``sprt``: the most
        games to play (an even number).
    :param movetime: seconds per move; ``clock``: a game clock (exclusive).
    :param openings: a file (``.pdn`` or text), a list of openings (each a list
        of move texts, or one string of moves), or None for the openings shipped
        for the variant (the start position if there are none). They are
        shuffled with ``seed`` unless ``shuffle_openings`` is False and reused
        when there are fewer pairs than games need.
    :param concurrency: games played at once (one engine pair per thread).
    :param pdn_path: where to write the games (PDN, in schedule order).
    :param progress: show a progress bar (``rich``) or a line per game on
        ``stream`` (default ``sys.stderr``).
    :param seed: seeds the opening order and the engines' randomness (random
        when None, or the journal's with ``resume``; the seed used is in the result).
    :param max_plies: a game still going after this many plies is a draw.
    :param hub_timeout: the ``timeout`` of Hub engines.
    :param sprt: a :class:`damier.sprt.SPRT` to which every complete pair is
        added; the match starts no new pair once it decides.
    :param resume: a match journal (JSON lines): the games in it are not played
        again, and every game finished now is appended to it.

    Raises :class:`EngineSpecError` for a bad spec, :class:`EngineStartError`
    when an engine does not start, :class:`ValueError` for bad arguments,
    openings or a journal of another match, :class:`OSError` when the PDN file
    or the journal cannot be written.
    """
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive number, got {games!r}")
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency!r}")
    if max_plies < 1:
        raise ValueError(f"max_plies must be at least 1, got {max_plies}")
    if movetime is not None and clock is not None:
        raise ValueError("give movetime or clock, not both")
    if sprt is not None:
        if not isinstance(sprt, SPRT):
            raise ValueError(f"sprt must be a damier.sprt.SPRT, not {type(sprt).__name__}")
        if games % 2:
            raise ValueError(f"an SPRT counts game pairs (each opening with both colours): "
                             f"the number of games (the most to play) must be even, got {games}")
    if movetime is not None:
        movetime = _check_movetime(movetime)
    if isinstance(clock, str):
        clock = parse_clock(clock)
    v = get_variant(variant)
    spec_a = parse_engine_spec(engine_a_spec) if isinstance(engine_a_spec, str) else engine_a_spec
    spec_b = parse_engine_spec(engine_b_spec) if isinstance(engine_b_spec, str) else engine_b_spec
    book = _normalize_openings(openings, v)

    journal_path = os.fspath(resume) if resume is not None else None
    journal_contents = _JournalContents()
    if journal_path is not None:
        journal_contents = _read_journal(journal_path)
        there = journal_contents.settings
        if seed is None and there is not None and isinstance(there.get("seed"), int):
            seed = there["seed"]  # the same schedule as the run that wrote the journal
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10 ** 9)
    settings = _match_settings(spec_a, spec_b, variant=v, movetime=movetime, clock=clock,
                               book=book, shuffle=shuffle_openings, seed=seed,
                               max_plies=max_plies)
    if journal_contents.settings is not None:
        differences = _settings_differences(journal_contents.settings, settings)
        if differences:
            raise ValueError(f"--resume {journal_path}: the journal was written for another "
                             f"match; it differs in " + "; ".join(differences)
                             + " (give another journal file, or the same settings)")

    order = list(range(len(book)))
    if shuffle_openings:
        random.Random(seed).shuffle(order)
    jobs: list[_GameTask] = []
    for number in range(1, games + 1):
        pair = (number + 1) // 2
        opening = tuple(book[order[(pair - 1) % len(book)]])
        jobs.append(_GameTask(number, pair, 2 - number % 2, opening, number % 2 == 1))

    finished: dict[int, MatchGame] = {}
    for record in journal_contents.records:
        if record.number > games:
            continue  # beyond this run's games: kept in the journal, not counted
        job = jobs[record.number - 1]
        if (record.pair, tuple(record.opening), record.a_is_white) != (
                job.pair, job.opening, job.a_is_white):
            raise ValueError(f"--resume {journal_path}: game {record.number} of the journal "
                             "does not match the schedule of this match (same settings, but "
                             "another opening or colour): the journal was not written by "
                             "this version of damier match")
        finished[record.number] = record
    resumed = len(finished)
    jobs = [job for job in jobs if job.number not in finished]

    # The SPRT: the journal's complete pairs first.
    pairs_counted: set[int] = set()
    sprt_decision: list[str | None] = [None]
    if sprt is not None:
        for pair, points in sorted(_pair_points(list(finished.values())).items()):
            sprt.add_pair(points)
            pairs_counted.add(pair)
        sprt_decision[0] = sprt.decision
    started_pairs = {record.pair for record in finished.values()}

    out = stream if stream is not None else sys.stderr
    match = _Match(spec_a, spec_b, variant=v, movetime=movetime, clock=clock,
                   max_plies=max_plies, seed=seed, hub_timeout=hub_timeout,
                   event=event or "damier match")
    # Start the first pair of engines here, so that a bad engine fails at once.
    first_a = match.start_player("A", 0)
    try:
        first_b = match.start_player("B", 0)
    except BaseException:
        match.close_player(first_a)
        raise
    match.name_a, match.name_b = _distinct_names(first_a.name, first_b.name)
    match.event = event or f"damier match: {match.name_a} vs {match.name_b}"

    pdn_file: TextIO | None = None
    journal: _Journal | None = None
    try:
        if pdn_path is not None:
            pdn_file = open(os.fspath(pdn_path), "w", encoding="utf-8")
        if journal_path is not None:
            journal = _Journal(journal_path, journal_contents, settings)
    except OSError:
        match.close_player(first_a)
        match.close_player(first_b)
        if pdn_file is not None:
            pdn_file.close()
        raise

    bar = _Progress(games, out, match.name_a, match.name_b, progress,
                    done=resumed, points=sum(g.score_a for g in finished.values()))
    if journal_contents.warning:
        bar.message(journal_contents.warning, always=True)
    if resumed:
        bar.message(f"resuming: {resumed} game{'s' if resumed != 1 else ''} read back from "
                    f"{journal_path}")
    if sprt is not None and sprt_decision[0] is not None:
        bar.message(f"SPRT: {sprt.decision_text()} already ({sprt.summary()}): no new pair")
    if openings is None and book == [[]]:
        bar.message(f"note: damier ships no openings for {v.title} draughts: every game starts "
                    "from the initial position (give openings for varied games)")
    pending: queue.Queue[_GameTask] = queue.Queue()
    for job in jobs:
        pending.put(job)
    written = [0]  # games written, in schedule order, so far
    errors: list[str] = []
    state_lock = threading.Lock()
    closed = [False]  # the match is over: a game still finishing is dropped

    def flush_written() -> None:
        if pdn_file is None:
            return
        while written[0] + 1 in finished:
            written[0] += 1
            write_game(finished[written[0]].game, pdn_file)
        pdn_file.flush()

    def take_job() -> _GameTask | None:
        """The next game to play; None when there is none (or the SPRT has decided
        and only new pairs are left)."""
        while True:
            try:
                job = pending.get_nowait()
            except queue.Empty:
                return None
            with state_lock:
                if sprt_decision[0] is not None and job.pair not in started_pairs:
                    continue  # the SPRT has decided: no new pair
                started_pairs.add(job.pair)
                return job

    def game_finished(record: MatchGame) -> None:
        """Counts a finished game (called with state_lock held)."""
        finished[record.number] = record
        if journal is not None:
            journal.add(record)
        flush_written()
        bar.game_done(record)
        if sprt is None or record.pair in pairs_counted:
            return
        other = record.number + 1 if record.number % 2 else record.number - 1
        if other not in finished:
            return
        sprt.add_pair(record.score_a + finished[other].score_a)
        pairs_counted.add(record.pair)
        if sprt_decision[0] is None:
            sprt_decision[0] = sprt.decision
            if sprt_decision[0] is not None:
                bar.message(f"SPRT: {sprt.decision_text()} ({sprt.summary()}) after "
                            f"{sprt.pairs} pairs: finishing the games in progress")

    def worker(index: int, players: list[Player | None]) -> None:
        a, b = players
        try:
            while not match.stop_event.is_set():
                job = take_job()
                if job is None:
                    return
                try:
                    if a is None:
                        a = match.start_player("A", index)
                    if b is None:
                        b = match.start_player("B", index)
                except (EngineStartError, EngineSpecError) as err:
                    pending.put(job)
                    with state_lock:
                        errors.append(str(err))
                    return
                try:
                    record, failed = match.play(job, a, b)
                except _Abandoned:
                    return
                except Exception as err:  # noqa: BLE001 - a bug must not hang the match
                    with state_lock:
                        errors.append(f"game {job.number}: {type(err).__name__}: {err}")
                    match.stop_event.set()
                    return
                if "A" in failed:
                    match.close_player(a)
                    a = None
                if "B" in failed:
                    match.close_player(b)
                    b = None
                with state_lock:
                    if closed[0]:
                        return  # the match has ended without this game
                    game_finished(record)
        finally:
            match.close_player(a)
            match.close_player(b)

    threads = []
    for index in range(max(1, min(concurrency, len(jobs)))):
        initial: list[Player | None] = [first_a, first_b] if index == 0 else [None, None]
        t = threading.Thread(target=worker, args=(index, initial), daemon=True,
                             name=f"damier-match-{index}")
        threads.append(t)
    interrupted = False
    try:
        try:
            for t in threads:
                t.start()
            while any(t.is_alive() for t in threads):
                for t in threads:
                    t.join(0.05)
        except KeyboardInterrupt:
            interrupted = True
            match.stop_event.set()
            match.stop_all()
            bar.message("stopping: dropping the games in progress (Ctrl-C again to quit the "
                        "engines at once)" + (f"; run again with --resume {journal_path} to "
                                              "go on" if journal_path else ""))
            try:
                while any(t.is_alive() for t in threads):
                    for t in threads:
                        t.join(0.05)
            except KeyboardInterrupt:
                match.stop_all(close=True)
                deadline = time.monotonic() + 2.0
                while any(t.is_alive() for t in threads) and time.monotonic() < deadline:
                    for t in threads:
                        t.join(0.05)
    finally:
        bar.close()
        with state_lock:
            closed[0] = True
            if journal is not None:
                journal.close()
            records = [finished[k] for k in sorted(finished)]
            if pdn_file is not None:
                flush_written()
                # after an interruption, write the finished games after a gap too
                for record in records:
                    if record.number > written[0]:
                        write_game(record.game, pdn_file)
                pdn_file.close()

    if (not interrupted and len(records) < games and not errors
            and sprt_decision[0] is None):
        errors.append(f"only {len(records)} of {games} games were played")
    wins, draws, losses, score, elo, interval, model, penta = _tally(records)
    return MatchResult(engine_a=match.name_a, engine_b=match.name_b, wins=wins, draws=draws,
                       losses=losses, score=score, elo=elo, elo_interval=interval, games=records,
                       interval_model=model, pentanomial=penta, interrupted=interrupted,
                       scheduled=games, errors=errors, seed=seed,
                       pdn_path=os.fspath(pdn_path) if pdn_path is not None else None,
                       time_control=match._time_control_text(),
                       pentanomial_elo=elo_estimate(penta) if penta is not None else None,
                       sprt=sprt, sprt_decision=sprt_decision[0], resumed=resumed,
                       journal_path=journal_path)


# -- command line -----------------------------------------------------------------------------


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
        "--resume new.jsonl\n\nWith --sprt the match stops once the test decides "
        "(pentanomial GSPRT, logistic Elo);\nwith --resume, running the same command again "
        "plays only the games the journal lacks.")
    p.add_argument("engine_a", metavar="A", help="engine A (the report is from its side)")
    p.add_argument("engine_b", metavar="B", help="engine B")
    p.add_argument("--games", type=int, default=2, help="number of games (default 2)")
    tc = p.add_mutually_exclusive_group()
    tc.add_argument("--movetime", type=float, metavar="S",
                    help=f"seconds per move (default {DEFAULT_MOVETIME:g} for engines without "
                    "a depth/nodes option)")
    tc.add_argument("--clock", metavar="[MOVES/]TIME[+INC]",
                    help="game clock: TIME seconds (or M:SS) each, INC seconds added per move, "
                    "e.g. 60+0.5")
    p.add_argument("--openings", metavar="FILE",
                   help="openings (.pdn, or text: one per line); 'none' for the start position "
                   "(default: the openings shipped for the variant)")
    p.add_argument("--sequential", action="store_true",
                   help="play the openings in file order instead of shuffled")
    p.add_argument("--concurrency", type=int, default=1, metavar="K",
                   help="games played at once (default 1)")
    p.add_argument("--pdn", metavar="OUT", help="write the games to this PDN file")
    p.add_argument("--variant", default=DEFAULT_VARIANT, help=f"variant (default {DEFAULT_VARIANT})")
    p.add_argument("--seed", type=int, help="seed of the opening order and engine randomness")
    p.add_argument("--max-plies", type=int, default=DEFAULT_MAX_PLIES, metavar="P",
                   help=f"adjudicate a draw after P plies (default {DEFAULT_MAX_PLIES})")
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
    p.add_argument("--json", metavar="OUT", help="write the result as JSON to this file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or lines")
    p.set_defaults(_match_parser=p)
    return p


def match_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Runs ``damier match``; returns the exit status (0; 2 for bad arguments or
    engines; 1 when games could not be played; 130 when stopped by Ctrl-C)."""
    def usage_error(message: str) -> int:
        err.write(f"damier match: {message}\n")
        return 2

    if args.games < 1:
        return usage_error(f"--games must be at least 1, got {args.games}")
    if args.concurrency < 1:
        return usage_error(f"--concurrency must be at least 1, got {args.concurrency}")
    if args.max_plies < 1:
        return usage_error(f"--max-plies must be at least 1, got {args.max_plies}")
    if args.movetime is not None and not (args.movetime > 0 and math.isfinite(args.movetime)):
        return usage_error(f"--movetime must be positive (a finite number of seconds), "
                           f"got {args.movetime}")
    if not (args.timeout > 0 and math.isfinite(args.timeout)):
        return usage_error(f"--timeout must be positive (a finite number of seconds), "
                           f"got {args.timeout}")
    sprt: SPRT | None = None
    sprt_args = getattr(args, "sprt", None)
    alpha, beta = getattr(args, "alpha", None), getattr(args, "beta", None)
    if sprt_args is None and (alpha is not None or beta is not None):
        return usage_error("--alpha and --beta are the error rates of --sprt ELO0 ELO1")
    if sprt_args is not None:
        try:
            sprt = SPRT(sprt_args[0], sprt_args[1], 0.05 if alpha is None else alpha,
                        0.05 if beta is None else beta)
        except ValueError as exc:
            return usage_error(f"--sprt: {exc}")
        if args.games % 2:
            return usage_error(f"--sprt counts game pairs: --games (the most games to play) "
                               f"must be even, got {args.games}")
    try:
        variant = get_variant(args.variant)
    except ValueError as exc:
        return usage_error(str(exc))
    try:
        spec_a = parse_engine_spec(args.engine_a)
        spec_b = parse_engine_spec(args.engine_b)
    except EngineSpecError as exc:
        return usage_error(str(exc))
    clock = None
    if args.clock is not None:
        try:
            clock = parse_clock(args.clock)
        except ValueError as exc:
            return usage_error(f"--clock: {exc}")
    openings: Any = None
    if args.openings is not None:
        if args.openings.strip().lower() == "none":
            openings = [[]]
        else:
            try:
                openings = load_openings(args.openings, variant)
            except (OSError, ValueError) as exc:
                return usage_error(f"--openings: {exc}")
    try:
        result = run_match(spec_a, spec_b, games=args.games, movetime=args.movetime, clock=clock,
                           openings=openings, concurrency=args.concurrency, pdn_path=args.pdn,
                           variant=variant, progress=not args.no_progress, seed=args.seed,
                           max_plies=args.max_plies, shuffle_openings=not args.sequential,
                           hub_timeout=args.timeout, stream=err, sprt=sprt,
                           resume=getattr(args, "resume", None))
    except (EngineSpecError, EngineStartError) as exc:
        return usage_error(str(exc))
    except OSError as exc:
        name = exc.filename if getattr(exc, "filename", None) else args.pdn
        return usage_error(f"{'--resume' if name == getattr(args, 'resume', None) else '--pdn'}: "
                           f"{exc}")
    except ValueError as exc:
        return usage_error(str(exc))
    out.write(result.summary() + "\n")
    out.flush()
    json_path = getattr(args, "json", None)
    if json_path:
        try:
            with open(json_path, "w", encoding="utf-8") as handle:
                json.dump(result.to_dict(), handle, indent=2)
                handle.write("\n")
        except OSError as exc:
            err.write(f"damier match: --json: {exc}\n")
            return 1
    if result.interrupted:
        return 130
    return 1 if result.errors else 0
