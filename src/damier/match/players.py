"""The engines of a match: engine specs (``damier:option=value,...``, ``hub:COMMAND``),
the :class:`Player` protocol and the players that drive damier's engine
(:class:`DamierPlayer`) and Hub engines (:class:`HubPlayer`).

>>> spec = parse_engine_spec("damier:depth=2,hash=1,name=two")
>>> spec.kind, spec.option_map, spec.label
('damier', {'depth': 2, 'hash': 1, 'name': 'two'}, 'two')
>>> player = make_player(spec)
>>> player.name, player.depth
('two', 2)
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, Union

from damier._core import Move
from damier.board import Board
from damier.book import DEFAULT_MARGIN
from damier.egdb import DEFAULT_ENGINE_PIECES
from damier.engine import INFINITE_DEPTH, MAX_NODES, Clock
from damier.match.options import split_options

__all__ = [
    "DEFAULT_MOVETIME",
    "EngineSpec",
    "EngineSpecError",
    "EngineStartError",
    "EngineIllegalMoveError",
    "EngineTimeoutError",
    "EngineCrashError",
    "EngineLike",
    "Player",
    "DamierPlayer",
    "HubPlayer",
    "parse_engine_spec",
    "damier_options_help",
    "make_player",
]

DEFAULT_MOVETIME = 0.1
"""Seconds per move for engines with no limit of their own when the match has no time control."""


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
    "book_margin": (_int_option(0, 10000), "book moves at most this many centi-men below the "
                    f"best are played, at random (default {DEFAULT_MARGIN}; 0: the best only)"),
    "egdb": (_egdb_option, "endgame databases: on (the default directory's), off (the "
             "default) or a directory"),
    "egdb_pieces": (_int_option(2, 7), "probe the endgame databases up to this many pieces "
                    f"(default {DEFAULT_ENGINE_PIECES})"),
    "name": (_name, "the engine's name in the PDN and the report"),
    "adaptive_time": (_switch, "under a clock, time follows the search (on, the default) "
                      "or is a fixed share of the budget (off)"),
}
# The search's selectivity settings (damier.engine.SELECTIVITY_NAMES), checked
# for range when the engine is made (Engine.set_selectivity).
_SELECTIVITY_OPTIONS: dict[str, tuple[Callable[[str], Any], str]] = {
    "single_reply": (_switch, "extend a position with one legal move (on/off)"),
    "single_reply_depth": (_int_option(1, 63), "extend a single reply only from this depth"),
    "capture_ext": (_switch, "extend a position whose moves are captures (on/off)"),
    "capture_ext_depth": (_int_option(0, 63), "extend captures only up to this depth (0 any)"),
    "probcut": (_switch, "ProbCut at non-PV nodes (on/off)"),
    "probcut_margin": (_int_option(0, 10000), "ProbCut margin, centi-men"),
    "probcut_depth": (_int_option(2, 63), "ProbCut from this depth"),
    "probcut_reduction": (_int_option(1, 16), "ProbCut's reduction, plies"),
    "probcut_percent": (_int_option(0, 90), "ProbCut's search at this percent of the depth "
                        "instead (0 off)"),
    "probcut_margin_ply": (_int_option(0, 1000), "ProbCut margin added a ply of depth, "
                           "centi-men"),
    "singular": (_switch, "singular extension at PV nodes (on/off)"),
    "singular_nonpv": (_switch, "singular extension at non-PV nodes too (on/off)"),
    "singular_depth": (_int_option(2, 63), "singular extension from this depth"),
    "singular_margin": (_int_option(0, 10000), "singular extension margin, centi-men"),
    "threat_qsearch": (_int_option(0, 16), "threat-aware quiescence, plies (0 off)"),
    "shot_qsearch": (_int_option(0, 16), "sacrifices searched at quiet quiescence leaves, "
                     "plies (0 off)"),
    "shot_margin": (_int_option(0, 10000), "sacrifices searched only within this many "
                    "centi-men of alpha (0 always)"),
    "history": (_int_option(0, 2), "history updates: 0, 1 or 2"),
    "lmr_depth": (_int_option(1, 64), "late-move reductions from this depth"),
    "lmr_move": (_int_option(1, 64), "late-move reductions after this many moves"),
    "lmr_divisor": (_divisor, "size of the late-move reductions (larger: smaller)"),
    "lmr_step": (_int_option(0, 64), "late-move reductions of a ply, two from this move on, "
                 "instead of the log table (0 off)"),
    "lmr_forcing": (_int_option(0, 8), "plies fewer in the reduction of a move that gives "
                    "the opponent a capture (0 off)"),
    "lmr_threat": (_int_option(0, 8), "plies fewer in the reduction of a move that threatens "
                   "a capture (0 off)"),
    "lmr_improving": (_int_option(0, 8), "plies more in the reductions where the static "
                      "evaluation is no better than two plies before (0 off)"),
    "lmp": (_int_option(0, 64), "late-move pruning: quiet moves after lmp + depth^2 at "
            "depths 1-3 (0 off)"),
    "history_bonus": (_int_option(1, 10000), "percent of depth^2 a cutoff moves the history "
                      "by (100)"),
    "aspiration": (_int_option(0, 10000), "first aspiration window of an iteration, centi-men "
                   "each side of the last score (0 full window)"),
    "threat_order": (_switch, "order the moves that parry a capture threat first (on/off)"),
    "tt_first": (_switch, "search the TT move before scoring the other moves (on/off)"),
    "cont_history": (_int_option(0, 2), "continuation histories in the move order: 0 off, "
                     "1 counter-move, 2 and follow-up"),
    "iir": (_int_option(0, 63), "a node of at least this depth without a TT move is searched "
            "a ply shallower (0 off)"),
    "rfp": (_int_option(0, 63), "reverse futility pruning up to this depth (0 off)"),
    "rfp_margin": (_int_option(0, 10000), "reverse futility margin, centi-men a ply"),
    "sac_prune": (_int_option(0, 63), "skip late moves that lose a man up to this depth "
                  "(0 off)"),
    "sac_reduce": (_int_option(0, 8), "plies more reduction for late moves that lose a man "
                   "(0 off)"),
    "promo_qsearch": (_int_option(0, 2), "crowning moves searched at quiet quiescence leaves: "
                      "0 off, 1 the side to move's, 2 and the opponent's threat of one"),
}
_DAMIER_OPTIONS.update(_SELECTIVITY_OPTIONS)


@dataclass(frozen=True)
class EngineSpec:
    """A parsed engine spec: ``kind`` is ``"damier"``, ``"hub"`` or ``"dxp"``."""

    kind: str
    text: str
    """The spec as given."""
    options: tuple[tuple[str, Any], ...] = ()
    """``damier`` options, as ``(name, value)`` pairs."""
    command: tuple[str, ...] = ()
    """``hub``: the command line of the engine; ``dxp``: the host and port."""

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
    damier.match.players.EngineSpecError: bad engine spec 'damier:level=11':
    option level must be between 1 and 10, got 11
    >>> parse_engine_spec("stockfish")
    Traceback (most recent call last):
    ...
    damier.match.players.EngineSpecError: bad engine spec 'stockfish':
    expected damier[:option=value,...], hub:COMMAND or dxp:HOST[:PORT]
    >>> parse_engine_spec("dxp:localhost:27531").command
    ('localhost', '27531')
    """
    if not isinstance(text, str):
        raise EngineSpecError(f"an engine spec is a string, not {type(text).__name__}")
    spec = text.strip()

    def fail(message: str) -> EngineSpecError:
        return EngineSpecError(f"bad engine spec {text!r}: {message}")

    kind, sep, rest = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "damier":
        return EngineSpec("damier", spec, tuple(_damier_options(rest, fail).items()))
    if kind == "dxp":
        address = rest.strip()
        if not sep or not address:
            raise fail("dxp: needs the program's address, e.g. dxp:localhost:27531")
        from damier.dxp import parse_address
        try:
            host, port = parse_address(address)
        except ValueError as err:
            raise fail(str(err)) from None
        return EngineSpec("dxp", spec, command=(host, str(port)))
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
    raise fail("expected damier[:option=value,...], hub:COMMAND or dxp:HOST[:PORT]")


def _damier_options(text: str, fail: Callable[[str], EngineSpecError]) -> dict[str, Any]:
    """The options of a ``damier:`` spec (``text``: what follows the colon), read and
    checked; ``fail`` makes the error that names the spec."""
    options: dict[str, Any] = {}
    if not text.strip():
        return options
    for name, value in split_options(text, _DAMIER_OPTIONS, "option", fail):
        convert = _DAMIER_OPTIONS[name][0]
        try:
            options[name] = convert(value)
        except ValueError as err:
            raise fail(f"option {name} {err}") from None
    return options


def damier_options_help() -> str:
    """The ``damier`` spec options, one per line."""
    return "\n".join(f"  {name:<9} {desc}" for name, (_, desc) in _DAMIER_OPTIONS.items())


# -- players --------------------------------------------------------------------------------


class Player(Protocol):
    """What a match needs from an engine. ``play`` returns the move (a
    :class:`~damier.Move` or move text, or None for no move) or raises
    :class:`EngineIllegalMoveError`, :class:`EngineTimeoutError` or
    :class:`EngineCrashError` (any other exception counts as a crash).

    A player may also have ``last_score``: the score its last move was played
    with, in centi-men from its own side (None when it gave none). The match's
    adjudication (:mod:`damier.match.adjudication`) reads it; a player without it
    is never adjudicated on scores. ``last_depth`` (the depth of that search) and
    ``last_book`` (True: the move came from a book) go with it into the games'
    records (:class:`damier.match.results.MoveEval`)."""

    name: str

    def new_game(self) -> None: ...

    def play(self, board: Board, *, movetime: float | None,
             clock: Clock | None) -> Move | str | None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


_ENGINE_ARGUMENTS = (("hash", "hash_mb"), ("weights", "weights"), ("book", "book"),
                     ("book_margin", "book_margin"), ("egdb", "egdb"),
                     ("egdb_pieces", "egdb_pieces"), ("adaptive_time", "adaptive_time"))
"""Spec options passed on to :class:`damier.engine.Engine` when given: (option, argument)."""


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
        for option, argument in _ENGINE_ARGUMENTS:
            if option in opts:
                kwargs[argument] = opts[option]
        selectivity = {name: opts[name] for name in _SELECTIVITY_OPTIONS if name in opts}
        if selectivity:
            kwargs["selectivity"] = selectivity
        self.engine = Engine(**kwargs)
        self.last_score: int | None = None
        """The score of the last move played (centi-men, this side's; see :class:`Player`)."""
        self.last_depth: int | None = None
        """The depth of the last move's search (None: a book move)."""
        self.last_book = False
        """Whether the last move came from the opening book."""

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
        self.last_score = self.last_depth = None
        result = self.engine.search(board, **limits)
        self.last_book = result.book
        if not result.book:
            self.last_score = result.score
            self.last_depth = result.depth
        return result.best_move

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
        self.last_score: int | None = None
        """The score of the last ``info`` line of the last search, in centi-men (None:
        none given; see :class:`Player`)."""
        self.last_depth: int | None = None
        """The depth of that ``info`` line (None: none given)."""

    def new_game(self) -> None:
        self._call(self.engine.new_game)

    def play(self, board: Board, *, movetime: float | None,
             clock: Clock | None) -> Move | str | None:
        if clock is None and movetime is None:
            movetime = DEFAULT_MOVETIME
        self.last_score = self.last_depth = None
        result = self._call(self.engine.search, board, movetime=None if clock else movetime,
                            clock=clock)
        self.last_score = _hub_score(result.info.get("score"))
        self.last_depth = result.info.get("depth")    # an int as damier.hub parses it
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


def _hub_score(men: Any) -> int | None:
    """A Hub ``info score=`` (men, as :class:`damier.hub.HubResult` holds it) in
    centi-men; None when there is none."""
    if isinstance(men, bool) or not isinstance(men, (int, float)) or not math.isfinite(men):
        return None
    return round(men * 100)


class DxpPlayer:
    """Another program reached over DXP (:class:`damier.dxp.DxpEngine`): this side asks
    for each game with the position to play from and the time of the match (see
    :mod:`damier.dxp.engine` for how a per-move time is sent in whole minutes)."""

    def __init__(self, spec: EngineSpec, *, timeout: float = 10.0, name: str = "damier") -> None:
        from damier import dxp

        self._dxp = dxp
        host, port = spec.command
        self.spec = spec
        self.engine = dxp.DxpEngine(host, int(port), name=name, timeout=max(timeout, 10.0),
                                    connect_timeout=timeout)
        self.name = spec.text

    def new_game(self) -> None:
        self.engine.new_game()

    def play(self, board: Board, *, movetime: float | None, clock: Clock | None) -> Move:
        from damier.engine_types import Limit

        if clock is None and movetime is None:
            movetime = DEFAULT_MOVETIME
        limit = Limit(clock=clock) if clock is not None else Limit(time=movetime)
        dxp = self._dxp
        try:
            move = self.engine.play(board, limit).move
        except dxp.DxpTimeout as err:
            raise EngineTimeoutError(str(err)) from err
        except dxp.DxpError as err:
            if err.kind == "MOVE" and err.field == "move":
                raise EngineIllegalMoveError(str(err), err.text) from err
            raise EngineCrashError(str(err)) from err
        except dxp.DxpRefused as err:
            # No game was played: the match cannot go on with this program (a game
            # scored as lost by a program that never played it would be a false result).
            raise EngineStartError(f"{self.name}: {err}") from err
        except (dxp.DxpClosed, EOFError) as err:
            raise EngineCrashError(str(err)) from err
        assert move is not None
        return move

    def game_over(self, board: Board) -> None:
        """Shows the peer the game's last move and ends the game (GAMEEND)."""
        self.engine.end_game(board)

    def stop(self) -> None:
        self.engine.stop()

    def close(self) -> None:
        try:
            self.engine.quit()
        except Exception:  # noqa: BLE001 - the connection may already be gone
            pass


EngineLike = Union[str, EngineSpec, Callable[[], Player]]
"""What a match takes for an engine: a spec string, an :class:`EngineSpec`, or a
callable returning a :class:`Player`."""


def make_player(spec: EngineLike, *, seed: int | None = None, hub_timeout: float = 10.0) -> Player:
    """Starts the engine of ``spec`` (a spec string, an :class:`EngineSpec`, or a
    callable returning a :class:`Player`); raises :class:`EngineStartError`."""
    if isinstance(spec, str):
        spec = parse_engine_spec(spec)
    try:
        if isinstance(spec, EngineSpec):
            if spec.kind == "damier":
                return DamierPlayer(spec, seed=seed)
            if spec.kind == "dxp":
                return DxpPlayer(spec, timeout=hub_timeout)
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
