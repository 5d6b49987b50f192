"""The journal of a resumable match (``damier match --resume FILE``): a JSON-lines
file, a first line with the match's settings, then one line per finished game with
everything its :class:`~damier.match.results.MatchGame` holds, each written whole and
flushed to disk as the game ends.

>>> import os, shutil, tempfile
>>> record = MatchGame(1, "1.1", 1, ["32-28"], "A", "B", True, "1-0", "normal", "x", 3,
...                    moves="32-28 19-23 28x19",
...                    evals=[MoveEval(-40, 9, 0.1), MoveEval(None, None, 0.1)])
>>> path = os.path.join(tempfile.mkdtemp(), "match.jsonl")
>>> journal = _Journal(path, _read_journal(path), {"seed": 1})
>>> journal.add(record); journal.close()
>>> contents = _read_journal(path)
>>> contents.settings, contents.records == [record]
({'seed': 1}, True)
>>> shutil.rmtree(os.path.dirname(path))
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any, TextIO

from damier.engine import Clock
from damier.match.adjudication import Adjudication
from damier.match.clock import time_control_text
from damier.match.players import EngineLike, EngineSpec
from damier.match.results import MatchGame, MatchResult, MoveEval, _pair_points
from damier.sprt import SPRT
from damier.variants import Variant

__all__ = ["JOURNAL_VERSION", "read_journal"]

JOURNAL_VERSION = 1
"""The format version written in a match journal's first line."""


# -- the settings line --------------------------------------------------------------------------


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
                    shuffle: bool, seed: int, max_plies: int,
                    adjudication: Adjudication | None = None) -> dict[str, Any]:
    """What a journal must agree on with the match that goes on with it (a journal
    written before adjudication was recorded had none)."""
    digest = hashlib.sha256(json.dumps(book, separators=(",", ":")).encode("utf-8"))
    return {"engine A": _spec_label(spec_a), "engine B": _spec_label(spec_b),
            "variant": variant.name,
            "time control": {"movetime": movetime,
                             "clock": time_control_text(None, clock) if clock is not None
                             else None},
            "openings": {"count": len(book), "sha256": digest.hexdigest()[:16]},
            "opening order": "shuffled" if shuffle else "sequential",
            "seed": seed, "max plies": max_plies,
            "adjudication": adjudication.to_json() if adjudication is not None else None}


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
        if key == "adjudication":
            return ("none" if not value else
                    "; ".join(f"{rule} {text}" for rule, text in dict(value).items()))
        return repr(value)
    return [f"{key} ({show(key, there.get(key))} in the journal, {show(key, here[key])} now)"
            for key in here if there.get(key) != here[key]]


# -- game lines ---------------------------------------------------------------------------------


_GAME_FIELDS = ("number", "round", "pair", "opening", "white", "black", "a_is_white", "result",
                "termination", "reason", "plies", "headers", "moves")


def _game_line(record: MatchGame) -> str:
    data: dict[str, Any] = {"type": "game"}
    data.update((name, getattr(record, name)) for name in _GAME_FIELDS)
    if record.evals:
        data["evals"] = [item.to_json() for item in record.evals]
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def _game_from_line(data: dict[str, Any], where: str) -> MatchGame:
    try:
        record = MatchGame(**{name: data[name] for name in _GAME_FIELDS})
        evals = data.get("evals", [])
        if not isinstance(evals, list):
            raise TypeError("evals is not a list")
        record.evals = [MoveEval.from_json(item) for item in evals]
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{where} is not a game of a match journal ({err})") from None
    if (not isinstance(record.number, int) or record.number < 1
            or not isinstance(record.pair, int) or record.result not in ("1-0", "0-1", "1/2-1/2")
            or not isinstance(record.a_is_white, bool) or not isinstance(record.opening, list)
            or not isinstance(record.headers, dict)):
        raise ValueError(f"{where} is not a game of a match journal (bad values)")
    return record


# -- reading and writing ------------------------------------------------------------------------


@dataclass
class _JournalContents:
    settings: dict[str, Any] | None = None
    """None: a new (or empty) journal."""
    records: list[MatchGame] = field(default_factory=list)
    good_size: int = 0
    """Bytes of whole lines; anything after them is cut off before appending."""
    warning: str | None = None


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
        if item is not None:
            _take_line(contents, item, path, where, seen)
        contents.good_size = offset
    return contents


def _take_line(contents: _JournalContents, item: dict[str, Any], path: str, where: str,
               seen: set[int]) -> None:
    """Adds a journal line (``item``, read from ``where``) to ``contents``: the
    settings of the first line, then games (``seen``: their numbers so far)."""
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


# -- the report of a journal --------------------------------------------------------------------


def read_journal(path: str | os.PathLike[str], *, sprt: SPRT | None = None) -> MatchResult:
    """The result of the games in the match journal at ``path`` (``damier match
    --resume``'s file), without playing: of a match still running, one stopped, or
    one that ended. With ``sprt`` (a fresh :class:`damier.sprt.SPRT`), every
    complete pair is added to it and the result reports its decision on them.
    :class:`OSError` when the file cannot be read (a missing file is one),
    :class:`ValueError` naming the line when it is no match journal.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "match.jsonl")
    >>> journal = _Journal(path, _read_journal(path), {"engine A": "A", "engine B": "B",
    ...     "time control": {"movetime": 0.1, "clock": None}, "seed": 7})
    >>> for number, a_white, result in ((1, True, "1-0"), (2, False, "1/2-1/2")):
    ...     white, black = ("A", "B") if a_white else ("B", "A")
    ...     journal.add(MatchGame(number, "1.1", 1, [], white, black, a_white, result,
    ...                           "normal", "x", 30))
    >>> journal.close()
    >>> result = read_journal(path, sprt=SPRT(0, 10))
    >>> result.wins, result.draws, result.losses, result.pentanomial, result.time_control
    (1, 1, 0, (0, 0, 0, 1, 0), '0.1 s/move')
    >>> result.sprt.pairs, result.sprt_decision
    (1, None)
    >>> os.remove(path)
    """
    name = os.fspath(path)
    if not os.path.exists(name):
        raise FileNotFoundError(2, "no such match journal", name)
    contents = _read_journal(name)
    if contents.settings is None:
        if contents.warning is not None:
            raise ValueError(f"{name} is not a damier match journal (its first line is no "
                             "JSON line of match settings)")
        raise ValueError(f"{name} is empty: no match journal")
    settings = contents.settings
    records = sorted(contents.records, key=lambda r: r.number)
    name_a, name_b = str(settings.get("engine A", "A")), str(settings.get("engine B", "B"))
    if records:
        first = records[0]
        name_a, name_b = ((first.white, first.black) if first.a_is_white
                          else (first.black, first.white))
    control = settings.get("time control")
    control = control if isinstance(control, dict) else {}
    movetime, clock = control.get("movetime"), control.get("clock")
    # a clock is stored as its text already (_match_settings)
    time_control = (time_control_text(float(movetime), None)
                    if isinstance(movetime, (int, float)) else str(clock) if clock else "")
    seed = settings.get("seed")
    decision, at = None, None
    if sprt is not None:
        # in the schedule's order: the first pair to reach a bound decided the test
        at = sprt.add_pairs(points for _, points in sorted(_pair_points(records).items()))
        decision = at.decision if at is not None else None
    # scheduled None: the journal does not say how many games the match was to play
    return MatchResult.from_games(name_a, name_b, records, seed=seed if isinstance(seed, int)
                                  else None, time_control=time_control, sprt=sprt,
                                  sprt_decision=decision, sprt_at_decision=at,
                                  resumed=len(records),
                                  journal_path=name, scheduled=None)
