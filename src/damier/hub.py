"""The Hub protocol (version 2, as spoken by Scan 3.1 and the Hub GUI): the
message syntax, positions and moves, and :class:`HubEngine`, a client that
drives any Hub engine run as a subprocess.

Every line, both ways, is ``<command> <name>=<value> <name>=<value> ...``.
Values holding a space, ``=``, a double quote or nothing at all are written in
double quotes; an argument without ``=value`` is a flag (its value is ``""``).
Commands and arguments that a side does not understand are ignored.

>>> msg = parse_line('info depth=3 score=-0.10 pv="32-27 18-22" flag')
>>> msg.command, msg.args["pv"], msg.args["flag"]
('info', '32-27 18-22', '')
>>> format_line("param", name="level", value=10, type="int", min=1, max=10)
'param name=level value=10 type=int min=1 max=10'
>>> format_line("info", [("mean-depth", 4.5)], pv="32-28 19-23")
'info mean-depth=4.5 pv="32-28 19-23"'

A position is one character for the side to move (``W`` or ``B``) then one per
square in square-number order: ``w``/``b`` for men, ``W``/``B`` for kings,
``e`` for an empty square (51 characters on the 10x10 board).

>>> import damier
>>> board = damier.Board()
>>> board_to_hub(board)
'Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww'
>>> hub_to_board(board_to_hub(board)) == board
True

A quiet move is ``from-to``; a capture is ``from x to`` followed by ``x`` and
every captured square (in any order; this module writes them in increasing
order), never the intermediate landing squares.

>>> board = damier.Board("W:WK47:B14,19,29,31,42")
>>> sorted(move_to_hub(m) for m in board.legal_moves)
['47x36x14x29x31x42', '47x36x19x29x31x42']
>>> board.notation(parse_hub_move("47x36x42x31x29x19", board))
'47x38x24x13x36'
"""

from __future__ import annotations

import collections
import math
import os
import queue
import re
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from damier._core import Move
from damier.board import Board
from damier.engine_types import (AnalysisResult, EngineAPI, InfoDict, Limit, PlayResult,
                                 _number_text, check_limits)
from damier.errors import InvalidFenError, MoveError
from damier.moves import match_move, parse_move
from damier.piece import BLACK, WHITE, Piece
from damier.rules import Rules
from damier.score import Cm, Loss, PovScore, Score, Win
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = [
    "HubMessage", "parse_line", "format_line", "quote_value",
    "board_to_hub", "hub_to_board", "move_to_hub", "parse_hub_move",
    "HubError", "HubSyntaxError", "HubEngineError", "HubTimeoutError", "HubIllegalMoveError",
    "HubResult", "HubEngine", "score_from_hub",
]

# -- errors ----------------------------------------------------------------------


class HubError(Exception):
    """Base class of the Hub errors."""


class HubSyntaxError(HubError, ValueError):
    """A line that does not follow the Hub syntax (e.g. an unclosed quote)."""


class HubEngineError(HubError):
    """The engine process failed: it could not start, it exited, or it broke the protocol.

    ``returncode`` is its exit status (None while it runs), ``stderr`` its last
    lines of standard error, ``transcript`` the last lines exchanged."""

    def __init__(self, message: str, *, returncode: int | None = None,
                 stderr: Sequence[str] = (), transcript: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = list(stderr)
        self.transcript = list(transcript)


class HubTimeoutError(HubError, TimeoutError):
    """The engine did not answer in time; the message names the engine and what
    it was waiting for."""

    def __init__(self, message: str, *, transcript: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.transcript = list(transcript)


class HubIllegalMoveError(HubError, ValueError):
    """The engine answered a move that is unreadable or illegal in the position.

    ``raw_move`` is the engine's text (``""`` when ``done`` had no move) and
    ``fen`` the position it was asked to search."""

    def __init__(self, message: str, *, raw_move: str, fen: str) -> None:
        super().__init__(message)
        self.raw_move = raw_move
        self.fen = fen


# -- syntax ----------------------------------------------------------------------

# A name, or an unquoted value: any run of characters other than blanks, control
# characters, '=' and '"'.
_ID = r'[^\s="\x00-\x1f\x7f]+'
_COMMAND_RE = re.compile(rf"\s*({_ID})")
_PAIR_RE = re.compile(rf'\s*({_ID})(?:\s*=\s*(?:"([^"]*)"|({_ID})))?')
_ID_FULL_RE = re.compile(rf"{_ID}\Z")
_BLANKS_RE = re.compile(r"\s*")
_EQUALS_RE = re.compile(r"\s*=")


def _shown(text: str, limit: int = 80) -> str:
    """``text`` (a line or a value) quoted in a message: its start only when it is long."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit - 20]!r}... ({len(text)} characters)"


@dataclass(frozen=True)
class HubMessage:
    """One Hub line: the command and its arguments (flags have the value ``""``;
    when a name is repeated, the last value wins)."""

    command: str
    args: dict[str, str] = field(default_factory=dict)

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.args.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self.args


def parse_line(line: str) -> HubMessage:
    """Splits a Hub line into its command and arguments.

    Raises :class:`HubSyntaxError` for an empty line, a missing closing quote,
    an ``=`` without a name or without a value, or a stray quote.

    >>> parse_line('set-param name=book-file value=""').args
    {'name': 'book-file', 'value': ''}
    >>> parse_line('pos pos="Wbbb')
    Traceback (most recent call last):
    ...
    damier.hub.HubSyntaxError: missing closing quote in 'pos pos="Wbbb'
    """
    text = line.rstrip("\r\n")
    match = _COMMAND_RE.match(text)
    if match is None:
        if not text.strip():
            raise HubSyntaxError("empty line")
        raise HubSyntaxError(f"the line does not start with a command: {_shown(text)}")
    command = match.group(1)
    args: dict[str, str] = {}
    pos = match.end()
    # Each step reads from ``pos`` on and never looks at the rest of the line again:
    # a line of many arguments is read in time linear in its length.
    while True:
        pos = _BLANKS_RE.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            break
        match = _PAIR_RE.match(text, pos)
        if match is None or match.end() == pos:
            if text[pos] == "=":
                raise HubSyntaxError(f"'=' without a name in {_shown(text)}")
            raise HubSyntaxError(f"unexpected {text[pos]!r} in {_shown(text)}")
        name, quoted, plain = match.groups()
        end = match.end()
        if quoted is None and plain is None:
            # No value: either a flag, or '=' followed by something that is not a value.
            equals = _EQUALS_RE.match(text, end)
            if equals is not None:
                value_start = _BLANKS_RE.match(text, equals.end()).end()  # type: ignore[union-attr]
                if text.startswith('"', value_start):
                    raise HubSyntaxError(f"missing closing quote in {_shown(text)}")
                raise HubSyntaxError(f"missing value after '{_shown(name, 40)[1:-1]}=' in "
                                     f"{_shown(text)}")
            args[name] = ""
        else:
            args[name] = quoted if quoted is not None else plain
        pos = end
    return HubMessage(command, args)


def quote_value(value: Any) -> str:
    """``value`` as written in a Hub line: as is when it is a plain word, else in
    double quotes. A value holding a double quote or a line break cannot be written.

    >>> quote_value("normal"), quote_value("Fabien Letouzey"), quote_value("")
    ('normal', '"Fabien Letouzey"', '""')
    """
    text = _value_text(value)
    if _ID_FULL_RE.match(text):
        return text
    if '"' in text or "\n" in text or "\r" in text:
        raise ValueError(f"a Hub value cannot hold a double quote or a line break: {text!r}")
    return f'"{text}"'


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def format_line(command: str, pairs: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
                /, **kwargs: Any) -> str:
    """A Hub line: ``command`` then ``name=value`` for each pair (``pairs`` first,
    then the keyword arguments, whose ``_`` become ``-``). A value of ``None``
    leaves the pair out; ``...`` (Ellipsis) writes a flag (the name alone)."""
    items = list(pairs.items()) if isinstance(pairs, Mapping) else list(pairs)
    items += [(name.replace("_", "-"), value) for name, value in kwargs.items()]
    parts = [command]
    for name, value in items:
        if value is None:
            continue
        if value is Ellipsis:
            parts.append(name)
        else:
            parts.append(f"{name}={quote_value(value)}")
    return " ".join(parts)


# -- positions -------------------------------------------------------------------

_PIECE_CHARS = {"w": Piece(WHITE, False), "b": Piece(BLACK, False),
                "W": Piece(WHITE, True), "B": Piece(BLACK, True)}


def board_to_hub(board: Board) -> str:
    """The position of ``board`` in Hub format (side to move, then each square)."""
    pieces = board.piece_map()
    squares = "".join(pieces[s].symbol() if s in pieces else "e"
                      for s in range(1, board.variant.squares + 1))
    return ("W" if board.turn == WHITE else "B") + squares


def hub_to_board(text: str, variant: str | Variant = DEFAULT_VARIANT, *,
                 rules: Rules | None = None) -> Board:
    """A :class:`Board` set up from a Hub position string.

    Raises :class:`damier.errors.InvalidFenError` (a ``ValueError``) when the
    text has the wrong length or an unknown character, or describes an
    impossible position (a man on its own crowning row).

    >>> hub_to_board("W" + "e" * 49 + "b")
    Traceback (most recent call last):
    ...
    damier.errors.InvalidFenError: invalid Hub position 'Weee...eeeb': black man on square 50 ...
    """
    v = get_variant(variant)
    if not isinstance(text, str):
        raise TypeError(f"a Hub position must be a str, not {type(text).__name__}")
    text = text.strip()
    if len(text) != v.squares + 1:
        raise InvalidFenError(
            f"a Hub position for {v.title} draughts has {v.squares + 1} characters (side to "
            f"move, then one per square), not {len(text)}: {_shown(text)}")
    side = text[0]
    if side not in ("W", "B"):
        raise InvalidFenError(
            f"the side to move must be 'W' or 'B', not {side!r} in {_shown(text)}")
    pieces: dict[int, Piece] = {}
    for square, char in enumerate(text[1:], start=1):
        if char == "e":
            continue
        piece = _PIECE_CHARS.get(char)
        if piece is None:
            raise InvalidFenError(
                f"unknown character {char!r} for square {square} in {_shown(text)} (expected w, "
                f"b, W, B or e)")
        pieces[square] = piece
    board = Board(variant=v, rules=rules)
    try:
        board.set_piece_map(pieces, WHITE if side == "W" else BLACK)
    except InvalidFenError as exc:
        raise InvalidFenError(f"invalid Hub position {_shown(text)}: {exc}") from None
    return board


# -- moves -------------------------------------------------------------------------


def move_to_hub(move: Move) -> str:
    """``move`` in Hub format: ``32-28``, or ``28x19x23`` (from, to, then every
    captured square in increasing order).

    >>> move_to_hub(Move(28, 19, captures=(23,)))
    '28x19x23'
    """
    if not move.is_capture:
        return f"{move.from_square}-{move.to_square}"
    return "x".join(str(s) for s in (move.from_square, move.to_square, *sorted(move.captures)))


def parse_hub_move(text: str, board: Board | Sequence[Move], variant: str | Variant | None = None
                   ) -> Move:
    """The legal move of ``board`` (or among the moves ``board``) that ``text`` names.

    Hub format first (``from-to``, ``from x to x captured...``, captured squares in
    any order); standard notation (``19x28``, full capture paths) is accepted too
    when it names exactly one legal move. Raises
    :class:`damier.errors.IllegalMoveError` or
    :class:`damier.errors.AmbiguousMoveError` (both ``ValueError``) otherwise.
    """
    if isinstance(board, Board):
        if variant is None or get_variant(variant) == board.variant:
            return parse_move(board, text)
        return match_move(text, board.legal_moves, get_variant(variant))
    v = get_variant(variant if variant is not None else DEFAULT_VARIANT)
    return match_move(text, list(board), v)


# -- the client --------------------------------------------------------------------

_INT_FIELDS = frozenset({"depth", "seldepth", "nodes", "multipv", "tbhits"})
_FLOAT_FIELDS = frozenset({"score", "time", "nps", "mean-depth"})


_INT_RE = re.compile(r"[+-]?[0-9]{1,30}\Z")
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def _info_dict(args: Mapping[str, str]) -> dict[str, Any]:
    """An ``info`` line's arguments, the numbers converted (written in ASCII digits:
    ``int()`` and ``float()`` would also take ``١٢``, ``1_000`` or ``nan``); a number
    that cannot be read stays text."""
    result: dict[str, Any] = {}
    for name, value in args.items():
        converted: Any = value
        if name in _INT_FIELDS and _INT_RE.match(value):
            converted = int(value)
        elif name in _FLOAT_FIELDS and _FLOAT_RE.match(value):
            converted = float(value)
        result[name] = converted
    return result


@dataclass
class HubResult:
    """What a Hub engine answered to a search.

    ``best_move`` is the legal move named by ``done move=...`` (None only when
    the position has no legal move and the engine named none), ``raw_move`` the
    engine's text, ``ponder_text`` the expected reply as sent (or None) and
    ``ponder_move`` that reply as a legal move after ``best_move`` (None when
    absent or unreadable). ``infos`` holds each ``info`` line's arguments,
    numbers converted (``depth``, ``nodes``: int; ``score``, ``time``, ``nps``,
    ``mean-depth``: float); ``errors`` the messages of ``error`` lines.
    """

    best_move: Move | None
    ponder_text: str | None
    raw_move: str
    infos: list[dict[str, Any]] = field(default_factory=list)
    ponder_move: Move | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def info(self) -> dict[str, Any]:
        """The last ``info`` line's arguments (empty when there was none)."""
        return self.infos[-1] if self.infos else {}


# -- answers as damier.engine's types ----------------------------------------------------


def score_from_hub(text: str) -> Score:
    """The :class:`damier.score.Score` of an ``info score=`` value: men, as a
    float; Scan's convention writes a forced win in N plies as ``100 - N/100``
    (``99.93``: win in 7) and a forced loss as its negation.

    >>> (score_from_hub("0.35"), score_from_hub("-1.2"), score_from_hub("99.93"),
    ...  score_from_hub("-99.96"))
    (Cm(+35), Cm(-120), Win(7), Loss(4))
    """
    if not isinstance(text, str) or not _FLOAT_RE.match(text.strip()):
        raise ValueError(f"not a score: {_shown(str(text), 40)} (a number of men, in ASCII "
                         "digits)")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"not a finite score: {_shown(text, 40)}")
    if abs(value) > 90.0:
        plies = max(0, round((100.0 - abs(value)) * 100))
        return Win(plies) if value > 0 else Loss(plies)
    return Cm(round(value * 100))


def _hub_pv(board: Board, text: str) -> list[Move]:
    """The moves of a ``pv=`` value, as far as they are legal from ``board``."""
    pv: list[Move] = []
    after = board.copy(stack=False)
    for token in text.split():
        try:
            move = parse_hub_move(token, after)
        except MoveError:
            break
        pv.append(move)
        after.push(move)
    return pv


def _hub_info(board: Board, args: Mapping[str, Any]) -> InfoDict:
    """An ``info`` line's arguments (as :func:`_info_dict` converts them) as an
    :class:`InfoDict` for ``board``'s position; what cannot be read is left out."""
    info = InfoDict()
    for name in ("depth", "seldepth", "nodes", "multipv", "tbhits"):
        value = args.get(name)
        if isinstance(value, int) and value >= 0:
            info[name] = value
    seconds = args.get("time")
    if isinstance(seconds, float) and math.isfinite(seconds) and seconds >= 0:
        info["time"] = seconds
    nps = args.get("nps")   # millions of nodes per second
    if isinstance(nps, float) and math.isfinite(nps) and nps >= 0:
        info["nps"] = round(nps * 1e6)
    score = args.get("score")
    if score is not None:
        try:
            info["score"] = PovScore(score_from_hub(str(score)), board.turn)
        except ValueError:
            pass
    pv = args.get("pv")
    if isinstance(pv, str):
        info["pv"] = _hub_pv(board, pv)
    return info


def _merged_info(board: Board, infos: Iterable[Mapping[str, Any]]) -> InfoDict:
    """The ``info`` lines merged, a later line's values replacing an earlier one's
    (python-chess merges them so)."""
    merged = InfoDict()
    for args in infos:
        merged.update(_hub_info(board, args))
    return merged


def _play_result(board: Board, result: HubResult) -> PlayResult:
    return PlayResult(result.best_move, result.ponder_move, _merged_info(board, result.infos))


def _check_limit(limit: Any) -> Limit:
    if not isinstance(limit, Limit):
        raise TypeError(f"expected a damier.engine.Limit, not {type(limit).__name__}")
    return limit


def _check_multipv(multipv: Any) -> None:
    if multipv is not None and multipv != 1:
        raise ValueError(f"the Hub protocol reports one line: multipv must be None or 1, "
                         f"not {multipv!r}")


def _level(board: Board, *, depth: Any, nodes: Any, movetime: Any,
           clock: Any) -> tuple[list[tuple[str, Any]], float]:
    """The ``level`` pairs of these limits, and the seconds they may take (0: no
    time limit). The limits are those damier's engine takes (no nan, infinity or
    overflowing number that would leave us waiting for ever)."""
    depth, nodes, movetime = check_limits(depth=depth, nodes=nodes, movetime=movetime,
                                          clock=clock)
    level: list[tuple[str, Any]] = []
    budget = 0.0
    if depth is not None:
        level.append(("depth", depth))
    if nodes is not None:
        level.append(("nodes", nodes))
    if movetime is not None:
        level.append(("move-time", _seconds(movetime)))
        budget = float(movetime)
    if clock is not None:
        white = board.turn == WHITE
        left = max(0.0, clock.white_time if white else clock.black_time)
        inc = clock.white_increment if white else clock.black_increment
        if clock.moves_to_go:
            level.append(("moves", int(clock.moves_to_go)))
        level.append(("time", _seconds(left + inc)))
        if inc:
            level.append(("inc", _seconds(inc)))
        budget = max(budget, left + inc) if movetime is None else budget
    return level, budget


_EOF = object()
_LONGEST_WAIT = 3600.0 * 24
"""The longest single wait for a line (a day); a later deadline is waited for in steps."""


def _check_timeout(timeout: Any) -> float:
    """``timeout`` as a float: a finite number of seconds > 0."""
    seconds = math.nan
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        try:
            seconds = float(timeout)
        except OverflowError:
            seconds = math.inf
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"timeout must be a finite number of seconds > 0, "
                         f"got {_number_text(timeout)}")
    return seconds


class HubEngine(EngineAPI):
    """Drives a Hub engine running as a subprocess.

    :param command: the command line, as a list or a string (split like a shell).
    :param timeout: seconds to wait for each answer (the handshake, ``ready``,
        ``pong``); a search may take its time limit plus this. A finite number
        > 0 (:class:`ValueError` otherwise, as for the ``timeout`` of the searches).
    :param cwd, env: the process's working directory and environment.
    :param name: the engine's name in messages (default: the ``id name=``).
    :param options: engine parameters to set before ``init`` (``{"hash": 16}``).

    The constructor starts the process and does the ``hub``/``wait`` handshake
    then ``init``/``ready``; ``name``, ``version``, ``author``, ``country`` come
    from the engine's ``id`` line and ``params`` from its ``param`` lines
    (``{"hash": {"name": "hash", "value": "64", "type": "int", ...}}``).

    Every wait has a time limit (:class:`HubTimeoutError`); the process exiting
    raises :class:`HubEngineError` with its exit status and last standard-error
    lines. Use it from one thread; :meth:`stop` may be called from another.
    """

    TRANSCRIPT_LINES = 200
    STDERR_LINES = 50

    def __init__(self, command: str | Sequence[str], *, timeout: float = 10.0,
                 cwd: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None,
                 name: str | None = None, options: Mapping[str, Any] | None = None) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self.timeout = _check_timeout(timeout)
        self.command = (shlex.split(command) if isinstance(command, str)
                        else [str(c) for c in command])
        if not self.command:
            raise ValueError("empty engine command")
        self._given_name = name
        self.name = name or os.path.basename(self.command[0])
        self.version: str | None = None
        self.author: str | None = None
        self.country: str | None = None
        self.params: dict[str, dict[str, str]] = {}
        self._transcript: collections.deque[str] = collections.deque(maxlen=self.TRANSCRIPT_LINES)
        self._stderr: collections.deque[str] = collections.deque(maxlen=self.STDERR_LINES)
        self._lines: queue.Queue[Any] = queue.Queue()
        self._write_lock = threading.Lock()
        self._eof = False
        self._dirty = False  # an answer may still be in flight (after a timeout)
        self._analysis: AnalysisResult | None = None
        try:
            self._proc = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                bufsize=1, cwd=cwd, env=dict(env) if env is not None else None)
        except OSError as exc:
            raise HubEngineError(f"cannot start Hub engine {self.command!r}: {exc}") from exc
        self._reader = threading.Thread(target=self._read_stdout, name=f"hub-{self.name}-stdout",
                                        daemon=True)
        self._err_reader = threading.Thread(target=self._read_stderr,
                                            name=f"hub-{self.name}-stderr", daemon=True)
        self._reader.start()
        self._err_reader.start()
        try:
            self._handshake(options or {})
        except BaseException:
            self._kill()
            raise

    # -- process plumbing ------------------------------------------------------------

    def _read_stdout(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        try:
            for line in iter(proc.stdout.readline, ""):
                self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(_EOF)

    def _read_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        try:
            for line in iter(proc.stderr.readline, ""):
                self._stderr.append(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass

    @property
    def transcript(self) -> list[str]:
        """The last lines exchanged, ``> `` sent and ``< `` received."""
        return list(self._transcript)

    @property
    def stderr_lines(self) -> list[str]:
        """The engine's last lines of standard error."""
        return list(self._stderr)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    def _tail(self) -> str:
        lines = list(self._transcript)[-8:]
        return "; last lines: " + " | ".join(lines) if lines else ""

    def _died(self, what: str) -> HubEngineError:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                code = proc.poll()
        self._err_reader.join(timeout=1.0)
        stderr = list(self._stderr)[-10:]
        message = f"Hub engine {self.name} "
        message += (f"exited with code {code}" if code is not None
                    else "closed its output") + f" while {what}"
        if stderr:
            message += "; last stderr lines: " + " | ".join(stderr)
        else:
            message += self._tail()
        return HubEngineError(message, returncode=code, stderr=stderr,
                              transcript=list(self._transcript))

    def send(self, line: str) -> None:
        """Sends one raw line to the engine."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.closed:
            raise HubEngineError(f"Hub engine {self.name} is not running",
                                 transcript=list(self._transcript))
        with self._write_lock:
            self._transcript.append("> " + line)
            try:
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                raise self._died(f"sending {line!r}") from None

    def _next_line(self, deadline: float | Callable[[], float], what: str) -> str:
        """The next line; ``deadline`` is a monotonic time, or a function giving it
        (asked again every quarter second: an analysis's deadline comes with its stop)."""
        if self._eof:
            raise self._died(what)
        while True:
            until = deadline() if callable(deadline) else deadline
            remaining = until - time.monotonic()
            try:
                if remaining <= 0:
                    item = self._lines.get_nowait()
                elif callable(deadline):
                    item = self._lines.get(timeout=min(remaining, 0.25))
                else:
                    # A deadline far away (a time limit of years) is waited for in
                    # steps that the threading module can wait.
                    item = self._lines.get(timeout=min(remaining, _LONGEST_WAIT))
                break
            except queue.Empty:
                if remaining <= 0 or (not callable(deadline) and remaining <= _LONGEST_WAIT):
                    raise HubTimeoutError(
                        f"Hub engine {self.name} did not answer in time while {what}"
                        f"{self._tail()}", transcript=list(self._transcript)) from None
        if item is _EOF:
            self._eof = True
            raise self._died(what)
        line: str = item
        self._transcript.append("< " + line)
        return line

    def _wait_for(self, command: str, deadline: float | Callable[[], float], what: str,
                  on_line: Callable[[HubMessage], None] | None = None) -> HubMessage:
        while True:
            line = self._next_line(deadline, what)
            if not line.strip():
                continue
            try:
                message = parse_line(line)
            except HubSyntaxError:
                continue  # not a protocol line (e.g. a banner): ignore it
            if message.command == command:
                return message
            if on_line is not None:
                on_line(message)

    def _drain(self) -> None:
        while True:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                return
            if item is _EOF:
                self._eof = True
                return
            self._transcript.append("< " + item)

    def _sync(self) -> None:
        """Discards answers still in flight from an abandoned request."""
        if self._dirty:
            self._drain()
            self.send("ping")
            self._wait_for("pong", time.monotonic() + self.timeout, "waiting for pong (resync)")
            self._dirty = False
        else:
            self._drain()

    # -- handshake ------------------------------------------------------------------------

    def _handshake(self, options: Mapping[str, Any]) -> None:
        self.send("hub")

        def on_line(message: HubMessage) -> None:
            if message.command == "id":
                self.name = self._given_name or message.get("name") or self.name
                self.version = message.get("version", self.version)
                self.author = message.get("author", self.author)
                self.country = message.get("country", self.country)
            elif message.command == "param" and message.get("name"):
                self.params[message.args["name"]] = dict(message.args)

        self._wait_for("wait", time.monotonic() + self.timeout, "waiting for 'wait' after 'hub'",
                       on_line)
        for name, value in options.items():
            self.set_param(name, value)
        self.send("init")
        self._wait_for("ready", time.monotonic() + self.timeout,
                       "waiting for 'ready' after 'init'")

    # -- commands -------------------------------------------------------------------------

    def set_param(self, name: str, value: Any) -> None:
        """Sends ``set-param name=... value=...`` (booleans as ``true``/``false``).

        The Hub GUI sets parameters before ``init`` only (see ``options``); most
        engines also take them later."""
        self.send(format_line("set-param", name=name, value=value))
        if name in self.params:
            self.params[name]["value"] = _value_text(value)

    def new_game(self) -> None:
        """Tells the engine that the next search is unrelated to the previous ones."""
        self.send("new-game")

    def ping(self, timeout: float | None = None) -> float:
        """Sends ``ping``, waits for ``pong`` and returns the round trip in seconds."""
        self._sync()
        start = time.monotonic()
        self.send("ping")
        self._wait_for("pong", start + (self.timeout if timeout is None else timeout),
                       "waiting for pong")
        return time.monotonic() - start

    def stop(self) -> None:
        """Asks the engine to end its search now (safe from another thread); it
        also stops a running :meth:`analysis`, even one that has not sent its
        ``go`` yet."""
        analysis = self._analysis
        if analysis is not None and not analysis.done:
            analysis.stop()
            return
        self._send_stop()

    def _send_stop(self) -> None:
        if self.alive:
            try:
                self.send("stop")
            except HubEngineError:
                pass

    def search(self, board: Board, *, movetime: float | None = None, depth: int | None = None,
               nodes: int | None = None, clock: Any | None = None,
               info: Callable[[dict[str, Any]], Any] | None = None,
               timeout: float | None = None, mode: str = "think") -> HubResult:
        """Asks for a move in ``board``'s position and waits for ``done``.

        Sends ``pos`` (the start position of the game, ``board.root()``, and the
        moves of ``board.move_stack`` so that the engine sees repetitions),
        one ``level`` line with the given limits (``movetime`` seconds,
        ``depth`` plies, ``nodes``, or a :class:`damier.engine.Clock`, sent as
        ``time``/``inc``/``moves`` for the side to move; Hub counts the
        increment before each move, so ``time`` includes it), then ``go think``
        (or ``go analyze`` with ``mode="analyze"``). ``info`` is called with each
        ``info`` line's arguments as they come.

        Waits at most the time limit (movetime, or the side's clock) plus
        ``timeout`` (default: the engine's ``timeout``) for ``done``. Raises
        :class:`HubIllegalMoveError` when the answer is not a legal move,
        :class:`HubTimeoutError` and :class:`HubEngineError` as described in the
        class. :meth:`play`, :meth:`analyse` and :meth:`analysis` give the same
        answers as :class:`damier.engine.Engine`'s.
        """
        if not isinstance(board, Board):
            raise TypeError(f"expected a damier.Board, not {type(board).__name__}")
        if mode not in ("think", "analyze"):
            raise ValueError(f"mode must be 'think' or 'analyze', not {mode!r}")
        if movetime is None and depth is None and nodes is None and clock is None:
            raise ValueError("give a limit: movetime, depth, nodes or clock")
        level, budget = _level(board, depth=depth, nodes=nodes, movetime=movetime, clock=clock)
        self._end_analysis()
        grace = self.timeout if timeout is None else _check_timeout(timeout)
        deadline = time.monotonic() + budget + grace
        return self._go(board, level, mode, lambda: deadline, info)

    def _go(self, board: Board, level: list[tuple[str, Any]], mode: str,
            deadline: Callable[[], float], info: Callable[[dict[str, Any]], Any] | None,
            sent: Callable[[], None] | None = None) -> HubResult:
        """Sends the search and waits for ``done`` (until ``deadline()``); ``sent``
        is called once ``go`` is out."""
        self._sync()
        self.send(self._pos_line(board))
        self.send(format_line("level", level))
        self.send(f"go {mode}")
        if sent is not None:
            sent()
        result = HubResult(None, None, "")

        def on_line(message: HubMessage) -> None:
            if message.command == "info":
                data = _info_dict(message.args)
                result.infos.append(data)
                if info is not None:
                    info(data)
            elif message.command == "error":
                result.errors.append(message.get("message") or " ".join(
                    f"{k}={v}" if v else k for k, v in message.args.items()))

        try:
            done = self._wait_for("done", deadline, "waiting for 'done' (searching)", on_line)
        except HubTimeoutError:
            self._dirty = True
            self._send_stop()
            raise
        return self._finish(board, done, result)

    # -- the python-chess style API (the types of damier.engine) ----------------------------

    def play(self, board: Board, limit: Limit, *, timeout: float | None = None) -> PlayResult:
        """The engine's move in ``board``'s position within ``limit`` (``go think``),
        as :meth:`damier.engine.Engine.play` gives it: a :class:`PlayResult` whose
        ``info`` merges the ``info`` lines (score as a ``PovScore``, ``pv`` as
        legal moves). ``timeout`` as in :meth:`search`."""
        limit = _check_limit(limit)
        result = self.search(board, movetime=limit.time, depth=limit.depth, nodes=limit.nodes,
                             clock=limit.clock, timeout=timeout)
        return _play_result(board, result)

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: None = None, *,
                timeout: float | None = None) -> InfoDict: ...

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: int, *,
                timeout: float | None = None) -> list[InfoDict]: ...

    def analyse(self, board: Board, limit: Limit, multipv: int | None = None, *,
                timeout: float | None = None) -> InfoDict | list[InfoDict]:
        """Analyses ``board``'s position within ``limit`` (``go analyze``) and returns
        the :class:`InfoDict` of the line, or with ``multipv=1`` a list of it (the
        Hub protocol has one line: a larger ``multipv`` raises ValueError)."""
        limit = _check_limit(limit)
        _check_multipv(multipv)
        result = self.search(board, movetime=limit.time, depth=limit.depth, nodes=limit.nodes,
                             clock=limit.clock, timeout=timeout, mode="analyze")
        info = _merged_info(board, result.infos)
        return info if multipv is None else [info]

    def analysis(self, board: Board, limit: Limit | None = None, multipv: int | None = None, *,
                 infinite: bool = False, timeout: float | None = None) -> AnalysisResult:
        """Starts ``go analyze`` in ``board``'s position and returns at once an
        :class:`damier.engine.AnalysisResult` that yields each ``info`` line as an
        :class:`InfoDict`, as :meth:`damier.engine.Engine.analysis` does.

        With no ``limit`` (``level infinite``), or with ``infinite=True``, the
        engine analyses until :meth:`AnalysisResult.stop` (or :meth:`stop`). The
        stop is latched: one that comes before ``go`` has been sent is sent right
        after it. ``done`` is awaited up to the time limit plus ``timeout``
        (default: the engine's ``timeout``) and, after a stop, up to ``timeout``;
        a failure is raised by :meth:`AnalysisResult.wait`. Until the analysis
        ends, use no other method but :meth:`stop` (:meth:`search`,
        :meth:`play`, :meth:`analyse`, :meth:`analysis` and :meth:`quit` stop it
        and wait for it first).
        """
        if not isinstance(board, Board):
            raise TypeError(f"expected a damier.Board, not {type(board).__name__}")
        _check_multipv(multipv)
        if limit is not None:
            limit = _check_limit(limit)
            level, budget = _level(board, depth=limit.depth, nodes=limit.nodes,
                                   movetime=limit.time, clock=limit.clock)
        else:
            level, budget = [], 0.0
        endless = infinite or not level
        if endless:
            level.append(("infinite", ...))
        self._end_analysis()
        board = board.copy()
        grace = self.timeout if timeout is None else _check_timeout(timeout)
        lock = threading.Lock()
        state: dict[str, float | None] = {"go": None, "stop": None}

        def stop() -> None:
            with lock:
                if state["stop"] is None:
                    state["stop"] = time.monotonic()
                go_sent = state["go"] is not None
            if go_sent:
                self._send_stop()

        def sent() -> None:
            with lock:
                state["go"] = time.monotonic()
                stopped = state["stop"] is not None
            if stopped:
                self._send_stop()

        def deadline() -> float:
            with lock:
                go, stopped = state["go"], state["stop"]
            if stopped is not None:
                return max(stopped, go or stopped) + grace
            if endless or go is None:
                return math.inf
            return go + budget + grace

        handle = AnalysisResult(stop)

        def work() -> None:
            try:
                result = self._go(board, level, "analyze", deadline,
                                  lambda args: handle.post(_hub_info(board, args)), sent)
            except BaseException as exc:  # noqa: BLE001 - handed to wait()
                handle.finish(error=exc)
                return
            handle.finish(_play_result(board, result), lines=[_merged_info(board, result.infos)])

        self._analysis = handle
        threading.Thread(target=work, name=f"hub-{self.name}-analysis", daemon=True).start()
        return handle

    def _end_analysis(self) -> None:
        """Stops the running :meth:`analysis`, if any, and waits for its end."""
        handle = self._analysis
        if handle is None:
            return
        handle.stop()
        try:
            handle.wait(self.timeout + 1.0)
        except TimeoutError:
            self._dirty = True
        except Exception:  # noqa: BLE001 - the analysis's own error, for its wait()
            pass
        self._analysis = None

    def _pos_line(self, board: Board) -> str:
        actions = getattr(board, "_actions", [])
        if any(kind != "move" for kind, _ in actions):
            # A huff is not a move that Hub can send: send the current position alone.
            return format_line("pos", pos=board_to_hub(board))
        moves = " ".join(move_to_hub(m) for m in board.move_stack)
        return format_line("pos", pos=board_to_hub(board.root()), moves=moves or None)

    def _finish(self, board: Board, done: HubMessage, result: HubResult) -> HubResult:
        raw = done.get("move", "") or ""
        result.raw_move = raw
        result.ponder_text = done.get("ponder") or None
        legal = board.legal_moves
        if not raw:
            if legal:
                raise HubIllegalMoveError(
                    f"Hub engine {self.name} answered no move in {board.fen()}, which has "
                    f"{len(legal)} legal moves", raw_move="", fen=board.fen())
            return result
        try:
            move = parse_hub_move(raw, board)
        except MoveError as exc:
            raise HubIllegalMoveError(
                f"Hub engine {self.name} played {raw!r}, which is not a legal move in "
                f"{board.fen()}: {exc}", raw_move=raw, fen=board.fen()) from None
        result.best_move = move
        if result.ponder_text:
            after = board.copy(stack=False)
            after.push(move)
            try:
                result.ponder_move = parse_hub_move(result.ponder_text, after)
            except MoveError:
                result.ponder_move = None
        return result

    # -- closing ------------------------------------------------------------------------

    def quit(self) -> None:
        """Sends ``quit`` and waits for the process to exit (kills it if it does not)."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            self._end_analysis()
            try:
                self.send("quit")
            except HubEngineError:
                pass
            try:
                proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                self._kill()
        self._close_pipes()

    close = quit

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                proc.kill()
            except OSError:
                pass
            try:
                proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                pass
        self._close_pipes()

    def _close_pipes(self) -> None:
        proc = self._proc
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass

    def __enter__(self) -> "HubEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            try:
                proc.kill()
                proc.wait(timeout=1.0)
            except Exception:  # noqa: BLE001 - nothing more to do at collection time
                pass

    def __repr__(self) -> str:
        state = "running" if self.alive else f"exited ({self.returncode})"
        return f"<HubEngine {self.name!r} {state}>"


def _seconds(value: float) -> str:
    text = f"{float(value):.3f}".rstrip("0").rstrip(".")
    return text or "0"
