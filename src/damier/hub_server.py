"""damier's engine as a Hub engine (the protocol of Scan 3.1 and the Hub GUI).

``damier hub`` (its command line: :mod:`damier.cli.hub`) runs :func:`run_hub` on
standard input and output. What it speaks (see :mod:`damier.hub` for the syntax,
positions and moves):

* ``hub`` -> ``id name=damier version=... author=...``, a ``param`` line per
  parameter (``variant``, ``hash`` in MiB, ``level`` 1-10, ``threads``, ``book``:
  ``true`` or ``false``, whether ``go think`` plays the opening from the
  variant's shipped book at levels 8-10), ``bb-size`` (0 to 7: positions of at
  most that many pieces are probed in the endgame databases, 0 none; see
  :meth:`damier.engine.Engine.set_egdb`), ``wait``;
  ``set-param name=... value=...``; ``init`` -> ``ready``.
* ``pos pos=<position> moves="..."`` (or ``pos start``): the position and the
  moves played from it, replayed on a :class:`damier.Board` so that the
  search sees the repetitions.
* ``level`` with ``depth=`` (1-80 plies), ``nodes=`` (1 to 2^63-1),
  ``move-time=`` (seconds > 0), ``time=`` [``moves=``] [``inc=``] (seconds >= 0)
  or ``infinite``; seconds are at most :data:`MAX_SECONDS` (2^32, some 136
  years). Several ``level`` lines after a ``pos`` add up; a ``go`` with no
  ``level`` since the last ``pos`` reuses the previous limits. A ``level`` line
  with a value out of range (``nodes=1e30``, ``time=nan``, ``time=1e18``,
  ``depth=1000``, ``depth=-1``, a number too large) is answered with an
  ``error`` line and changes nothing.
* Default limit: with no limit ever given (no ``depth``, ``nodes``,
  ``move-time``, ``time`` or ``infinite``), ``go think`` thinks a fixed
  :data:`DEFAULT_MOVETIME` (1) second per move, and so does ``go ponder``
  after its ``ponder-hit``; a search with no end would hang a GUI that forgot
  its ``level`` line. ``go analyze`` with no limit analyses until ``stop``
  (or depth 80, or a forced result).
* ``go think`` / ``go ponder`` / ``go analyze``: the search runs in a worker
  thread (the engine releases the GIL) and prints ``info depth=... score=...
  nodes=... time=... nps=... pv="..."`` after each iteration, then ``done
  move=... ponder=...``. ``score`` is in men from the side to move's view; a
  forced win in N plies is ``100 - N/100`` (so ``99.93``: win in 7), a loss
  the negation; ``nps`` is in millions of nodes per second; ``tbhits`` (only
  while endgame tables are in use, ``bb-size`` above 0) counts the table probes
  whose values the search used.
* during a search: ``ping`` -> ``pong``, ``stop`` (latched: a ``stop`` right
  after ``go`` stops the search even if it has not started yet), ``ponder-hit`` (the clock
  starts: the search ends at its time budget or depth); any other command
  ends the search (``done`` comes first) and is then carried out.
* ``new-game`` (clears the hash table), ``ping`` -> ``pong``, ``quit``; end of
  input quits too.

Unknown commands are ignored. A malformed line (bad syntax, bad position,
illegal move in ``moves=``, bad number, unknown parameter) is answered with one
``error message="..."`` line and changes nothing. Numbers are written in ASCII
digits (``depth=٣`` or ``depth=1_0`` is a bad number; a time may have a
fraction and an exponent: ``time=1.5e3``); messages quote at most the start of
a long value (a bad ``pos`` leaves no
position: a ``go`` then answers an error and a bare ``done``). Every line is
flushed.

>>> import io
>>> out = io.StringIO()
>>> run_hub(io.StringIO("hub\\ninit\\nlevel depth=2\\ngo think\\nquit\\n"), out)
0
>>> lines = out.getvalue().splitlines()
>>> lines[0].startswith("id name=damier"), lines[-1].startswith("done move=")
(True, True)
"""

from __future__ import annotations

import math
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import IO, Any

import damier
from damier._core import MATE_SCORE, MATE_THRESHOLD, Move
from damier.board import Board
from damier.egdb import DEFAULT_ENGINE_PIECES, MAX_PIECES, EgdbSetting
from damier.engine import (INFINITE_DEPTH, MAX_MOVES_TO_GO, MAX_NODES, AnalysisResult, Clock,
                           Engine, InfoDict, Limit, PlayResult)
from damier.errors import MoveError, escape_surrogates
from damier.hub import (HubMessage, HubSyntaxError, format_line, hub_to_board, move_to_hub,
                        parse_line)
from damier.moves import parse_move
from damier.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant, variant_for_hub_name

__all__ = ["run_hub", "HubServer", "hub_score", "ENGINE_NAME", "HASH_RANGE", "DEFAULT_MOVETIME",
           "MAX_SECONDS"]

ENGINE_NAME = "damier"
ENGINE_AUTHOR = "damier developers"
HASH_RANGE = (1, 4096)
THREADS_RANGE = (1, 64)
DEFAULT_HASH_MB = 64
DEFAULT_MOVETIME = 1.0
"""Seconds a ``go think`` (or a ``ponder-hit``) thinks when no limit was ever given."""
MAX_LINE = 64 * 1024
"""The longest input line read (characters): a position and a game's moves take far
less; a longer line is read in bounded pieces and refused with one ``error``."""
MAX_SECONDS = float(2 ** 32)
"""The largest ``time=``, ``inc=`` and ``move-time=`` (seconds, some 136 years): more
than any clock, and more than the 2^31-1 that some programs send to mean "no limit";
less than Python's timers can wait (``threading.TIMEOUT_MAX``, some 292 years), which
a larger value would overflow when the clock starts (``ponder-hit``)."""
# Hub variant names are the registry's Variant.hub_name (Scan calls International "normal").
_VARIANT_VALUES = " ".join(v.hub_name for v in VARIANTS.values())


def hub_score(score: int) -> str:
    """A score for ``info score=``: men with two decimals; a forced win in N
    plies is ``100 - N/100``, a forced loss its negation (Scan's convention).

    >>> hub_score(35), hub_score(-120), hub_score(MATE_SCORE - 7), hub_score(-MATE_SCORE + 4)
    ('0.35', '-1.20', '99.93', '-99.96')
    """
    if abs(score) > MATE_THRESHOLD:
        plies = min(MATE_SCORE - abs(score), 999)
        value = 100.0 - plies / 100.0
        return f"{value if score > 0 else -value:.2f}"
    return f"{score / 100.0:.2f}"


_MESSAGE_LIMIT = 2000


def _sanitize(message: str) -> str:
    """``message`` as one ``error`` line may hold it: one line, no double quote, no
    lone surrogate (written as its escape), at most about 2000 characters."""
    text = " ".join(str(message).split())
    if len(text) > _MESSAGE_LIMIT:
        text = text[:_MESSAGE_LIMIT] + f"... ({len(text)} characters)"
    text = escape_surrogates(text)
    return text.replace('"', "'") or "error"


@dataclass(frozen=True)
class _Limits:
    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    time: float | None = None
    moves: int | None = None
    inc: float | None = None
    infinite: bool = False

    def clock(self) -> Clock | None:
        if self.time is None:
            return None
        inc = self.inc or 0.0
        # Hub adds the increment before each move: ``time`` already holds it.
        left = max(0.0, self.time - inc)
        return Clock(left, left, inc, inc, self.moves or None)

    def unlimited(self) -> bool:
        """No limit at all: a search would never end (``go think`` then thinks
        :data:`DEFAULT_MOVETIME` seconds)."""
        return (self.depth is None and self.nodes is None and self.movetime is None
                and self.time is None and not self.infinite)

    def think_movetime(self) -> float | None:
        """The ``move-time`` of a ``go think``: the one given, or the default when
        there is no limit at all."""
        if self.movetime is None and self.unlimited():
            return DEFAULT_MOVETIME
        return self.movetime

    def budget(self, white_to_move: bool) -> tuple[float, float] | None:
        """``(soft, hard)`` seconds for a move, or None without a time limit (the
        default time when there is no limit at all)."""
        movetime = self.think_movetime()
        if movetime is not None:
            return movetime, movetime
        clock = self.clock()
        return clock.budget(white_to_move) if clock is not None else None


class _SearchTask:
    """A search: the engine's handle on it (:class:`damier.engine.AnalysisResult`,
    whose stop is latched) and the thread that writes its ``info`` lines and its
    ``done``."""

    def __init__(self, mode: str, board: Board, limits: _Limits, handle: AnalysisResult) -> None:
        self.mode = mode
        self.board = board
        self.limits = limits
        self.handle = handle
        self.thread: threading.Thread | None = None
        self.pondering = mode == "ponder"
        self.last_depth = 0
        self.timer: threading.Timer | None = None

    def alive(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


class HubServer:
    """The Hub engine loop (see the module documentation); :func:`run_hub` runs one."""

    def __init__(self, stdin: IO[str], stdout: IO[str], *,
                 engine_factory: Callable[..., Engine] = Engine,
                 variant: str | Variant = DEFAULT_VARIANT, book: bool = False,
                 egdb: EgdbSetting = None, egdb_pieces: int = DEFAULT_ENGINE_PIECES) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.engine_factory = engine_factory
        self.variant = get_variant(variant)
        self.hash_mb = DEFAULT_HASH_MB
        self.level = 10
        self.threads = 1
        self.book = book
        # the databases' directory (True: the default one); bb-size turns probing on and off
        self.egdb_dir: bool | str | os.PathLike[str] = egdb if egdb else True
        self.bb_size = egdb_pieces if egdb else 0
        self.engine: Engine | None = None
        self.board: Board | None = Board(variant=self.variant)
        self._pending: _Limits | None = None
        self._limits = _Limits()
        self._job: _SearchTask | None = None
        self._out_lock = threading.Lock()
        self._closed = False

    # -- output -----------------------------------------------------------------------

    def write(self, line: str) -> None:
        with self._out_lock:
            if self._closed:
                return
            try:
                self.stdout.write(line + "\n")
                self.stdout.flush()
            except (BrokenPipeError, OSError, ValueError):
                self._closed = True

    def error(self, message: str) -> None:
        self.write(format_line("error", message=_sanitize(message)))

    # -- the loop ----------------------------------------------------------------------

    def run(self) -> int:
        """Reads and carries out commands until ``quit`` or the end of input; returns 0."""
        try:
            while True:
                line = self.stdin.readline(MAX_LINE + 1)
                if not line:
                    break
                if len(line) > MAX_LINE and not line.endswith("\n"):
                    # read the rest of the line in bounded pieces, then refuse it whole
                    rest = line
                    while rest and not rest.endswith("\n"):
                        rest = self.stdin.readline(MAX_LINE)
                    self.error(f"line too long (more than {MAX_LINE} characters): ignored")
                    continue
                if not line.strip():
                    continue
                if self.handle_line(line) == "quit":
                    break
        except KeyboardInterrupt:
            self._end_job()
            raise
        self._end_job()
        return 0

    def handle_line(self, line: str) -> str | None:
        """Carries out one line; returns ``"quit"`` after ``quit``."""
        try:
            message = parse_line(line)
        except HubSyntaxError as exc:
            self.error(f"bad syntax: {exc}")
            return None
        command = message.command
        handler = self._HANDLERS.get(command)
        if handler is None:
            return None  # unknown commands are ignored (and do not end a search)
        job = self._job
        if job is not None and job.alive():
            if command == "ping":
                self.write("pong")
                return None
            if command == "stop":
                self._request_stop(job)
                return None
            if command == "ponder-hit":
                self._ponder_hit(job)
                return None
            # Any other command ends the search first (its done comes before).
            self._end_job()
        try:
            return handler(self, message)
        except Exception as exc:  # noqa: BLE001 - an engine must not crash on input
            self.error(f"{command}: {exc}")
            return None

    # -- commands ----------------------------------------------------------------------

    def _cmd_hub(self, message: HubMessage) -> None:
        self.write(format_line("id", name=ENGINE_NAME, version=damier.__version__,
                               author=ENGINE_AUTHOR))
        self.write(format_line("param", name="variant", value=self.variant.hub_name,
                               type="enum", values=_VARIANT_VALUES))
        self.write(format_line("param", name="hash", value=self.hash_mb, type="int",
                               min=HASH_RANGE[0], max=HASH_RANGE[1]))
        self.write(format_line("param", name="level", value=self.level, type="int", min=1,
                               max=10))
        self.write(format_line("param", name="threads", value=self.threads, type="int",
                               min=THREADS_RANGE[0], max=THREADS_RANGE[1]))
        self.write(format_line("param", name="book", value=self.book, type="bool"))
        self.write(format_line("param", name="bb-size", value=self.bb_size, type="int", min=0,
                               max=MAX_PIECES))
        self.write("wait")

    def _cmd_set_param(self, message: HubMessage) -> None:
        name = message.get("name")
        if not name:
            self.error("set-param: missing name=")
            return
        value = (message.get("value") or "").strip()
        if name == "hash":
            hash_mb = _parse_int(value, "hash", *HASH_RANGE)
            if hash_mb is None:
                self.error(f"set-param: hash must be an integer from {HASH_RANGE[0]} to "
                           f"{HASH_RANGE[1]} (MiB), not {_shown(value)}")
                return
            if self.engine is not None and hash_mb != self.hash_mb:
                self.engine.set_hash(hash_mb)
            self.hash_mb = hash_mb
        elif name == "level":
            level = _parse_int(value, "level", 1, 10)
            if level is None:
                self.error(f"set-param: level must be an integer from 1 to 10, "
                           f"not {_shown(value)}")
                return
            if self.engine is not None:
                self.engine.set_level(level)
            self.level = level
        elif name == "threads":
            threads = _parse_int(value, "threads", *THREADS_RANGE)
            if threads is None:
                self.error(f"set-param: threads must be an integer from {THREADS_RANGE[0]} to "
                           f"{THREADS_RANGE[1]}, not {_shown(value)}")
                return
            if self.engine is not None and threads != self.threads:
                self.engine.set_threads(threads)
            self.threads = threads
        elif name == "variant":
            chosen = variant_for_hub_name(value)
            if chosen is None:
                self.error(f"set-param: unknown variant {_shown(value)} (choose from: "
                           f"{_VARIANT_VALUES})")
                return
            if chosen != self.variant:
                self.variant = chosen
                self.board = Board(variant=self.variant)
        elif name == "book":
            if value.lower() not in ("true", "false"):
                self.error(f"set-param: book must be true or false, not {_shown(value)}")
                return
            self.book = value.lower() == "true"
            if self.engine is not None:
                self.engine.set_book(self.book)
        elif name == "bb-size":
            size = _parse_int(value, "bb-size", 0, MAX_PIECES)
            if size is None:
                self.error(f"set-param: bb-size must be an integer from 0 to {MAX_PIECES} "
                           f"(pieces; 0: no endgame database), not {_shown(value)}")
                return
            self.bb_size = size
            if self.engine is not None:
                self._apply_egdb(self.engine)
        else:
            self.error(f"set-param: unknown parameter {_shown(name)} (parameters: variant, "
                       f"hash, level, threads, book, bb-size)")

    def _cmd_init(self, message: HubMessage) -> None:
        self._engine()
        self.write("ready")

    def _cmd_pos(self, message: HubMessage) -> None:
        self._pending = None
        self.board = None
        text = message.get("pos")
        try:
            board = (hub_to_board(text, self.variant) if text is not None
                     else Board(variant=self.variant))
        except ValueError as exc:
            self.error(f"bad position: {exc}")
            return
        moves = (message.get("moves") or "").split()
        for number, token in enumerate(moves, start=1):
            try:
                move = parse_move(board, token)
            except MoveError as exc:
                self.error(f"illegal move {_shown(token)} in moves= (move {number}): {exc}")
                return
            board.push(move)
        self.board = board

    def _cmd_level(self, message: HubMessage) -> None:
        args = message.args
        updates: dict[str, Any] = {}
        try:
            if "depth" in args:
                updates["depth"] = _int_arg(args["depth"], "depth", 1, INFINITE_DEPTH)
            if "nodes" in args:
                updates["nodes"] = _int_arg(args["nodes"], "nodes", 1, MAX_NODES)
            if "move-time" in args:
                updates["movetime"] = _float_arg(args["move-time"], "move-time", positive=True)
            if "time" in args:
                updates["time"] = _float_arg(args["time"], "time")
            if "moves" in args:
                updates["moves"] = _int_arg(args["moves"], "moves", 0, MAX_MOVES_TO_GO)
            if "inc" in args:
                updates["inc"] = _float_arg(args["inc"], "inc")
        except ValueError as exc:
            self.error(f"level: {exc}")
            return
        base = self._pending if self._pending is not None else _Limits()
        if ("moves" in updates or "inc" in updates) and "time" not in updates \
                and base.time is None:
            self.error("level: moves= and inc= need time=")
            return
        if "infinite" in args:
            updates["infinite"] = True
        self._pending = replace(base, **updates)

    def _cmd_go(self, message: HubMessage) -> None:
        if "analyze" in message.args:
            mode = "analyze"
        elif "ponder" in message.args:
            mode = "ponder"
        else:
            mode = "think"
        if self._pending is not None:
            self._limits = self._pending
            self._pending = None
        limits = self._limits
        if self.board is None:
            self.error("go: no position (the last pos line was rejected)")
            self.write("done")
            return
        engine = self._engine()
        board = self.board.copy()
        try:
            handle = self._start(engine, mode, board, limits)
        except Exception as exc:  # noqa: BLE001 - report, then still answer done
            self.error(f"search failed: {exc}")
            self.write(self._done_line(board, None))
            return
        # The search has its handle before the next command is read: a stop that
        # follows at once is latched by the engine, never lost.
        job = _SearchTask(mode, board, limits, handle)
        job.thread = threading.Thread(target=self._report, args=(job,),
                                      name="damier-hub-search", daemon=True)
        self._job = job
        job.thread.start()

    def _cmd_new_game(self, message: HubMessage) -> None:
        if self.engine is not None:
            self.engine.new_game()

    def _cmd_ping(self, message: HubMessage) -> None:
        self.write("pong")

    def _cmd_quit(self, message: HubMessage) -> str:
        return "quit"

    def _cmd_ignore(self, message: HubMessage) -> None:
        return None  # stop / ponder-hit with no search running

    _HANDLERS: dict[str, Callable[["HubServer", HubMessage], str | None]] = {
        "hub": _cmd_hub,
        "set-param": _cmd_set_param,
        "init": _cmd_init,
        "pos": _cmd_pos,
        "level": _cmd_level,
        "go": _cmd_go,
        "new-game": _cmd_new_game,
        "ping": _cmd_ping,
        "quit": _cmd_quit,
        "stop": _cmd_ignore,
        "ponder-hit": _cmd_ignore,
    }

    # -- the engine and its searches -------------------------------------------------------

    def _engine(self) -> Engine:
        if self.engine is None:
            self.engine = self.engine_factory(hash_mb=self.hash_mb, level=self.level)
            if self.threads != 1:
                self.engine.set_threads(self.threads)
            if self.book:
                self.engine.set_book(True)
            self._apply_egdb(self.engine)
        return self.engine

    def _apply_egdb(self, engine: Engine) -> None:
        if self.bb_size >= 2:
            engine.set_egdb(self.egdb_dir, pieces=self.bb_size)
            engine.load_egdb(self.variant)   # before "ready", not in a game's first move
        else:
            engine.set_egdb(None)

    @staticmethod
    def _start(engine: Engine, mode: str, board: Board, limits: _Limits) -> AnalysisResult:
        """Starts the search of a ``go``: analyze at full strength, think and
        ponder at the engine's level (pondering, and ``level infinite``, until
        stopped)."""
        if mode == "analyze":
            movetime = limits.movetime
            if movetime is None and limits.time is not None:
                movetime = limits.budget(board.turn == damier.WHITE)[1]  # type: ignore[index]
            return engine.analysis(board, Limit(depth=limits.depth, nodes=limits.nodes,
                                                time=movetime), infinite=limits.infinite)
        if mode == "ponder" or limits.infinite:
            # The clock is not running: search until ponder-hit then the budget, or stop.
            return engine.think(board, Limit(depth=limits.depth, nodes=limits.nodes),
                                infinite=True)
        return engine.think(board, Limit(depth=limits.depth, nodes=limits.nodes,
                                         time=limits.think_movetime(), clock=limits.clock()))

    def _report(self, job: _SearchTask) -> None:
        """Writes the search's ``info`` lines as they come, then its ``done``."""
        handle = job.handle
        limits = job.limits
        result: PlayResult | None = None
        try:
            for info in handle:
                job.last_depth = info.get("depth", job.last_depth)
                if (not job.pondering and job.mode == "ponder" and limits.depth is not None
                        and job.last_depth >= limits.depth):
                    handle.stop()
                self.write(self._info_line(info))
            result = handle.wait()
        except Exception as exc:  # noqa: BLE001 - report, then still answer done
            self.error(f"search failed: {exc}")
        finally:
            self.write(self._done_line(job.board, result))
            if job.timer is not None:
                job.timer.cancel()

    @staticmethod
    def _info_line(info: InfoDict) -> str:
        pv = " ".join(move_to_hub(m) for m in info.get("pv", []))
        score = info.get("score")
        value = score.relative.score(win_score=MATE_SCORE) if score is not None else None
        seconds = info.get("time", 0.0)
        return format_line("info", depth=info.get("depth"), seldepth=info.get("seldepth"),
                           score=hub_score(value) if value is not None else None,
                           nodes=info.get("nodes"), time=f"{seconds:.3f}",
                           nps=f"{info.get('nps', 0) / 1e6:.2f}", tbhits=info.get("tbhits"),
                           pv=pv or None)

    @staticmethod
    def _done_line(board: Board, result: PlayResult | None) -> str:
        legal = board.legal_moves
        move: Move | None = result.move if result is not None else None
        if move is None or move not in legal:
            move = legal[0] if legal else None
        if move is None:
            return "done"
        ponder: Move | None = None
        if result is not None and result.move == move and result.ponder is not None:
            after = board.copy(stack=False)
            after.push(move)
            if result.ponder in after.legal_moves:
                ponder = result.ponder
        return format_line("done", move=move_to_hub(move),
                           ponder=move_to_hub(ponder) if ponder is not None else None)

    @staticmethod
    def _request_stop(job: _SearchTask) -> None:
        """Stops ``job``'s search (the engine latches the stop: one that comes
        before the search has really started is not lost)."""
        job.handle.stop()

    def _ponder_hit(self, job: _SearchTask) -> None:
        if job.mode != "ponder" or not job.pondering:
            return
        job.pondering = False
        limits = job.limits
        if limits.infinite:
            return
        if limits.depth is not None and job.last_depth >= limits.depth:
            self._request_stop(job)
            return
        budget = limits.budget(job.board.turn == damier.WHITE)
        if budget is not None:
            # (the level line keeps the seconds below MAX_SECONDS: no Timer can overflow)
            seconds = min(budget[0], threading.TIMEOUT_MAX)
            job.timer = threading.Timer(seconds, self._request_stop, args=(job,))
            job.timer.daemon = True
            job.timer.start()

    def _end_job(self) -> None:
        """Stops the running search (if any) and waits until its ``done`` is out."""
        job = self._job
        if job is None:
            return
        if job.alive():
            self._request_stop(job)
            assert job.thread is not None
            job.thread.join()
        if job.timer is not None:
            job.timer.cancel()
        self._job = None


# Numbers in ASCII digits only: int() and float() also take "١٢", "1_000", " 5 ",
# and float() "nan" and "infinity".
_INT_RE = re.compile(r"[+-]?([0-9]+)\Z")
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def _parse_int(text: str, name: str, low: int, high: int) -> int | None:
    """``text`` as an int from ``low`` to ``high``, or None."""
    match = _INT_RE.match(text)
    digits = match.group(1).lstrip("0") if match is not None else ""
    if match is None or len(digits) > 30:   # no int() of huge numbers: it is slow, or refused
        return None
    value = int(digits or "0") * (-1 if text.startswith("-") else 1)
    return value if low <= value <= high else None


def _shown(text: str) -> str:
    """``text`` quoted for an error message, shortened if long."""
    return repr(text if len(text) <= 40 else text[:30] + "...")


def _int_arg(text: str, name: str, minimum: int, maximum: int) -> int:
    value = _parse_int(text, name, minimum, maximum)
    if value is None:
        raise ValueError(f"{name}= must be an integer from {minimum} to {maximum}, "
                         f"not {_shown(text)}")
    return value


def _float_arg(text: str, name: str, *, positive: bool = False) -> float:
    """``text`` as seconds: >= 0 (> 0 if ``positive``), at most :data:`MAX_SECONDS`."""
    value = float(text) if _FLOAT_RE.match(text) else math.nan
    if math.isnan(value):
        raise ValueError(f"{name}= must be a number of seconds, not {_shown(text)}")
    if not value <= MAX_SECONDS or value < 0 or (positive and value == 0):
        low = "more than 0" if positive else "at least 0"
        raise ValueError(f"{name}= must be a number of seconds {low} and at most "
                         f"{MAX_SECONDS:.0f} (some 136 years), not {_shown(text)}")
    return value


def run_hub(stdin: IO[str], stdout: IO[str], *, engine_factory: Callable[..., Engine] = Engine,
            variant: str | Variant = DEFAULT_VARIANT, book: bool = False,
            egdb: EgdbSetting = None, egdb_pieces: int = DEFAULT_ENGINE_PIECES) -> int:
    """Runs damier's engine as a Hub engine on ``stdin``/``stdout`` until ``quit``
    or the end of input; returns the exit status (0).

    ``engine_factory`` is called as ``engine_factory(hash_mb=..., level=...)``
    at ``init`` (or at the first search) and must return an object with the
    :class:`damier.engine.Engine` interface. ``book``: the ``book`` parameter's
    first value (``damier hub`` turns it on unless ``--no-book``). ``egdb``: the endgame
    databases (``damier hub`` probes the default directory's unless ``--no-egdb``);
    with them ``bb-size`` starts at ``egdb_pieces`` (``--egdb-pieces``), without at 0."""
    return HubServer(stdin, stdout, engine_factory=engine_factory, variant=variant,
                     book=book, egdb=egdb, egdb_pieces=egdb_pieces).run()
