"""Running a match: the schedule of game pairs, one pair of engines per worker
thread, the games as they finish (journal, PDN file in schedule order, progress,
SPRT), Ctrl-C, and the result. :func:`run_match` is the entry point; it checks its
arguments and runs a :class:`MatchRunner`, which holds the state of one run.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO

from damier.engine import Clock, check_limits
from damier.match.adjudication import Adjudication
from damier.match.clock import parse_clock, time_control_text
from damier.match.journal import (_Journal, _JournalContents, _match_settings, _read_journal,
                                  _settings_differences)
from damier.match.players import (EngineLike, EngineSpecError, EngineStartError, Player,
                                  make_player, parse_engine_spec)
from damier.match.referee import DEFAULT_MAX_PLIES, _Abandoned, _GameTask, _Referee
from damier.match.results import MatchGame, MatchResult, _pair_points, _tally
from damier.openings import load_openings, opening_board
from damier.pdn import write_game
from damier.progress import ProgressBar
from damier.sprt import SPRT, elo_estimate, format_elo, pentanomial_report
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["MatchRunner", "run_match"]


def run_match(engine_a_spec: EngineLike, engine_b_spec: EngineLike, *, games: int,
              movetime: float | None = None, clock: Clock | str | None = None,
              openings: str | os.PathLike[str] | Sequence[Sequence[str] | str] | None = None,
              concurrency: int = 1, pdn_path: str | os.PathLike[str] | None = None,
              variant: str | Variant = DEFAULT_VARIANT, progress: bool = True,
              seed: int | None = None, max_plies: int = DEFAULT_MAX_PLIES,
              shuffle_openings: bool = True, hub_timeout: float = 10.0,
              event: str | None = None, stream: TextIO | None = None,
              sprt: SPRT | None = None,
              resume: str | os.PathLike[str] | None = None,
              workers: int | None = None, address: str | None = None,
              adjudication: Adjudication | None = None) -> MatchResult:
    """Plays ``games`` games between engine A and engine B and returns the result
    from A's point of view (see :mod:`damier.match`).

    :param engine_a_spec: ``"damier[:option=value,...]"``, ``"hub:COMMAND"``, an
        :class:`~damier.match.EngineSpec`, or a callable returning a
        :class:`~damier.match.Player`.
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
    :param workers: play the game pairs as Ray tasks (:mod:`damier.match.distributed`)
        on a local Ray started with this many workers (one pair at a time each), or,
        with ``address``, on at most this many workers of the cluster.
    :param address: play the game pairs as Ray tasks on the Ray cluster at this
        address (``HOST:PORT``, or ``auto``); engines are started on the workers.
    :param adjudication: end games early on the engines' scores
        (:mod:`damier.match.adjudication`: a draw when both see the game level, a
        win when both see one side far ahead); None: only ``max_plies``.

    Raises :class:`~damier.match.EngineSpecError` for a bad spec,
    :class:`~damier.match.EngineStartError` when an engine does not start,
    :class:`ValueError` for bad arguments, openings or a journal of another match,
    :class:`OSError` when the PDN file or the journal cannot be written. With
    ``workers`` or ``address``: :class:`ImportError` when Ray is not installed,
    :class:`ConnectionError` when the cluster cannot be reached.
    """
    _check_arguments(games=games, concurrency=concurrency, max_plies=max_plies,
                     movetime=movetime, clock=clock, sprt=sprt)
    _check_ray_arguments(workers=workers, address=address, concurrency=concurrency)
    if movetime is not None:
        movetime = _check_movetime(movetime)
    if isinstance(clock, str):
        clock = parse_clock(clock)
    v = get_variant(variant)
    spec_a = parse_engine_spec(engine_a_spec) if isinstance(engine_a_spec, str) else engine_a_spec
    spec_b = parse_engine_spec(engine_b_spec) if isinstance(engine_b_spec, str) else engine_b_spec
    book = _normalize_openings(openings, v)
    runner_type: type[MatchRunner] = MatchRunner
    ray_options: dict[str, Any] = {}
    if workers is not None or address is not None:
        from damier.match.distributed import RayMatchRunner

        runner_type, ray_options = RayMatchRunner, {"workers": workers, "address": address}
    runner = runner_type(spec_a, spec_b, games=games, variant=v, book=book,
                         shipped_openings=openings is None, movetime=movetime, clock=clock,
                         concurrency=concurrency, max_plies=max_plies, seed=seed,
                         shuffle_openings=shuffle_openings, hub_timeout=hub_timeout,
                         event=event, sprt=sprt,
                         journal_path=os.fspath(resume) if resume is not None else None,
                         pdn_path=os.fspath(pdn_path) if pdn_path is not None else None,
                         progress=progress, stream=stream, adjudication=adjudication,
                         **ray_options)
    return runner.run()


def _check_arguments(*, games: Any, concurrency: Any, max_plies: int, movetime: Any,
                     clock: Any, sprt: Any) -> None:
    """Raises :class:`ValueError` for arguments of :func:`run_match` that no match takes."""
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


def _check_ray_arguments(*, workers: Any, address: Any, concurrency: int) -> None:
    """Raises :class:`ValueError` for ``workers`` and ``address`` that no match takes."""
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                or workers < 1):
        raise ValueError(f"workers must be at least 1, got {workers!r}")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise ValueError(f"address must be a Ray address (HOST:PORT or auto), got {address!r}")
    if (workers is not None or address is not None) and concurrency != 1:
        raise ValueError("concurrency is for a match in this process: on Ray each worker "
                         "plays one game pair at a time (give workers instead)")


def _check_movetime(movetime: Any) -> float:
    """``movetime`` as the engine takes it: a finite number of seconds > 0."""
    return check_limits(movetime=movetime)[2]  # type: ignore[return-value]


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


def _distinct_names(a: str, b: str) -> tuple[str, str]:
    if a != b:
        return a, b
    return f"{a} (A)", f"{b} (B)"


def _elo_brief(sprt: SPRT) -> str:
    """The Elo of ``sprt``'s pairs for a progress line, where the pairs measure it:
    ``Elo +6.1 [-3.8, +16.0] `` (with its interval), ``Elo +6.1 `` (too few pairs for
    one), or nothing.

    >>> _elo_brief(SPRT(0, 10, counts=[1, 20, 60, 30, 2]))   # 119 points in 113 pairs
    'Elo +18.5 [-5.0, +42.1] '
    >>> _elo_brief(SPRT(0, 10, counts=[0, 0, 5, 0, 0]))     # too few pairs for an interval
    'Elo +0.0 '
    >>> _elo_brief(SPRT(0, 10, counts=[0, 0, 0, 0, 5]))     # every pair won: no Elo
    ''
    """
    report = pentanomial_report(sprt.counts)
    if report.elo is None:
        return ""
    if report.has_interval and report.low is not None and report.high is not None:
        return (f"Elo {format_elo(report.elo)} [{format_elo(report.low)}, "
                f"{format_elo(report.high)}] ")
    return f"Elo {format_elo(report.elo)} "


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

    def game_done(self, record: MatchGame, sprt: SPRT | None = None) -> None:
        """Shows ``record``'s game; with the match's ``sprt``, its complete pairs' Elo
        and LLR beside the score."""
        if not self.enabled:
            return
        self.done += 1
        self.points += record.score_a
        pct = 100 * self.points / self.done
        score = f"{self.name_a} {self.points:g}/{self.done} ({pct:.1f}%)"
        if sprt is not None and sprt.pairs:
            score += f", {_elo_brief(sprt)}LLR {sprt.llr:.2f}"
        result = record.pdn_result
        width = len(str(self.total))
        self.bar.update(score, advance=1, line=(
            f"[{self.done:>{width}}/{self.total}] {record.round:>6}  "
            f"{record.white} - {record.black}  {result}  ({record.reason}, "
            f"{record.plies} plies)   {score}"))

    def message(self, text: str, *, always: bool = False) -> None:
        self.bar.message(text, always=always)

    def close(self) -> None:
        self.bar.close()


def _join(threads: list[threading.Thread], deadline: float | None = None) -> None:
    """Waits for ``threads`` (until the ``time.monotonic()`` deadline, if any) in short
    joins, so that Ctrl-C reaches the waiting thread."""
    while any(t.is_alive() for t in threads) and (deadline is None
                                                  or time.monotonic() < deadline):
        for t in threads:
            t.join(0.05)


class MatchRunner:
    """One run of a match (:func:`run_match` checks the arguments, makes it and calls
    :meth:`run`): the schedule, the games read back from the journal, the engines
    of the worker threads, the games still to play and the finished ones, the open
    PDN file and journal, and the SPRT's decision. What the worker threads share
    is changed under ``state_lock``. Making it reads the journal, if any, and
    raises :class:`ValueError` when the journal is of another match."""

    def __init__(self, spec_a: EngineLike, spec_b: EngineLike, *, games: int, variant: Variant,
                 book: list[list[str]], shipped_openings: bool = False,
                 movetime: float | None = None, clock: Clock | None = None,
                 concurrency: int = 1, max_plies: int = DEFAULT_MAX_PLIES,
                 seed: int | None = None, shuffle_openings: bool = True,
                 hub_timeout: float = 10.0, event: str | None = None, sprt: SPRT | None = None,
                 journal_path: str | None = None, pdn_path: str | None = None,
                 progress: bool = True, stream: TextIO | None = None,
                 adjudication: Adjudication | None = None) -> None:
        self.spec_a = spec_a
        self.spec_b = spec_b
        self.games = games
        self.variant = variant
        self.book = book
        self.shipped_openings = shipped_openings
        """``book`` is the variant's shipped openings (or the start position when it has none)."""
        self.movetime = movetime
        self.clock = clock
        self.concurrency = concurrency
        self.hub_timeout = hub_timeout
        self.event = event
        self.sprt = sprt
        self.journal_path = journal_path
        self.pdn_path = pdn_path
        self.progress = progress
        self.stream = stream
        self.journal_contents = (_read_journal(journal_path) if journal_path is not None
                                 else _JournalContents())
        self.seed = self._pick_seed(seed)
        self.settings = _match_settings(spec_a, spec_b, variant=variant, movetime=movetime,
                                        clock=clock, book=book, shuffle=shuffle_openings,
                                        seed=self.seed, max_plies=max_plies,
                                        adjudication=adjudication)
        self._check_journal_settings()
        self.finished: dict[int, MatchGame] = {}
        """The finished games by number (those of the journal first)."""
        self.jobs = self._take_resumed(self._schedule(shuffle_openings))
        """The games to play in this run."""
        self.resumed = len(self.finished)
        self.pairs_counted: set[int] = set()
        """The pairs added to the SPRT."""
        self.sprt_at_decision: SPRT | None = None
        """The SPRT as it stood at its decision (None: not decided)."""
        self._count_resumed_pairs()
        self.started_pairs = {record.pair for record in self.finished.values()}
        self.pending: queue.Queue[_GameTask] = queue.Queue()
        self.stop_event = threading.Event()
        self.state_lock = threading.Lock()
        self.players_lock = threading.Lock()
        self.live: list[Player] = []
        """The engines running now."""
        self.errors: list[str] = []
        self.written = 0
        """Games written to the PDN file, in schedule order, so far."""
        self.closed = False
        """The match is over: a game still finishing is dropped."""
        self.interrupted = False
        self.pdn_file: TextIO | None = None
        self.journal: _Journal | None = None
        self.bar: _Progress | None = None
        self.referee = _Referee(variant=variant, movetime=movetime, clock=clock,
                                max_plies=max_plies, event=event or "damier match",
                                stop_event=self.stop_event, adjudication=adjudication)

    # -- before the games: the seed, the schedule, the journal's games

    def _pick_seed(self, seed: int | None) -> int:
        there = self.journal_contents.settings
        if seed is None and there is not None and isinstance(there.get("seed"), int):
            seed = there["seed"]  # the same schedule as the run that wrote the journal
        if seed is None:
            seed = random.SystemRandom().randrange(1, 10 ** 9)
        return seed

    def _check_journal_settings(self) -> None:
        if self.journal_contents.settings is None:
            return
        differences = _settings_differences(self.journal_contents.settings, self.settings)
        if differences:
            raise ValueError(f"--resume {self.journal_path}: the journal was written for another "
                             f"match; it differs in " + "; ".join(differences)
                             + " (give another journal file, or the same settings)")

    def _schedule(self, shuffle: bool) -> list[_GameTask]:
        """Every game of the match: pair ``k`` plays the ``k``-th opening of the
        (shuffled) order twice, A White first."""
        order = list(range(len(self.book)))
        if shuffle:
            random.Random(self.seed).shuffle(order)
        jobs: list[_GameTask] = []
        for number in range(1, self.games + 1):
            pair = (number + 1) // 2
            opening = tuple(self.book[order[(pair - 1) % len(self.book)]])
            jobs.append(_GameTask(number, pair, 2 - number % 2, opening, number % 2 == 1))
        return jobs

    def _take_resumed(self, jobs: list[_GameTask]) -> list[_GameTask]:
        """Counts the journal's games as finished; returns the other ``jobs``."""
        for record in self.journal_contents.records:
            if record.number > self.games:
                continue  # beyond this run's games: kept in the journal, not counted
            job = jobs[record.number - 1]
            if (record.pair, tuple(record.opening), record.a_is_white) != (
                    job.pair, job.opening, job.a_is_white):
                raise ValueError(f"--resume {self.journal_path}: game {record.number} of the "
                                 "journal does not match the schedule of this match (same "
                                 "settings, but another opening or colour): the journal was "
                                 "not written by this version of damier match")
            self.finished[record.number] = record
        return [job for job in jobs if job.number not in self.finished]

    def _count_resumed_pairs(self) -> None:
        """Adds the journal's complete pairs to the SPRT."""
        if self.sprt is None:
            return
        pairs = sorted(_pair_points(list(self.finished.values())).items())
        # in the schedule's order: the first pair to reach a bound decided the test
        self.sprt_at_decision = self.sprt.add_pairs(points for _, points in pairs)
        self.pairs_counted.update(pair for pair, _ in pairs)

    @property
    def sprt_decision(self) -> str | None:
        """``"H1"`` or ``"H0"`` once the SPRT has decided; None before."""
        at = self.sprt_at_decision
        return at.decision if at is not None else None

    # -- the engines

    def start_player(self, side: str, worker: int) -> Player:
        """Starts engine ``side`` ("A" or "B") for worker thread ``worker``."""
        spec = self.spec_a if side == "A" else self.spec_b
        seed = random.Random(f"{self.seed}:{worker}:{side}").randrange(2 ** 31)
        player = make_player(spec, seed=seed, hub_timeout=self.hub_timeout)
        with self.players_lock:
            self.live.append(player)
        return player

    def close_player(self, player: Player | None) -> None:
        if player is None:
            return
        with self.players_lock:
            if player in self.live:
                self.live.remove(player)
        try:
            player.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass

    def stop_all(self, close: bool = False) -> None:
        """Stops the searches of every running engine (``close``: quits the engines)."""
        with self.players_lock:
            players = list(self.live)
        for player in players:
            try:
                player.close() if close else player.stop()
            except Exception:  # noqa: BLE001
                pass

    # -- the run

    def run(self) -> MatchResult:
        """Plays the games and returns the result."""
        # Start the first pair of engines here, so that a bad engine fails at once.
        first_a, first_b = self._start_first_players()
        self._open_files(first_a, first_b)
        self._open_progress()
        for job in self.jobs:
            self.pending.put(job)
        threads = []
        for index in range(max(1, min(self.concurrency, len(self.jobs)))):
            a, b = (first_a, first_b) if index == 0 else (None, None)
            threads.append(threading.Thread(target=self.worker, args=(index, a, b), daemon=True,
                                            name=f"damier-match-{index}"))
        try:
            self._run_threads(threads)
        finally:
            records = self._close()
        return self._result(records)

    def _start_first_players(self) -> tuple[Player, Player]:
        first_a = self.start_player("A", 0)
        try:
            first_b = self.start_player("B", 0)
        except BaseException:
            self.close_player(first_a)
            raise
        referee = self.referee
        referee.name_a, referee.name_b = _distinct_names(first_a.name, first_b.name)
        referee.event = self.event or f"damier match: {referee.name_a} vs {referee.name_b}"
        return first_a, first_b

    def _open_files(self, first_a: Player | None, first_b: Player | None) -> None:
        """Opens the PDN file and the journal (closing the first engines if one fails)."""
        try:
            if self.pdn_path is not None:
                self.pdn_file = open(self.pdn_path, "w", encoding="utf-8")
            if self.journal_path is not None:
                self.journal = _Journal(self.journal_path, self.journal_contents, self.settings)
        except OSError:
            self.close_player(first_a)
            self.close_player(first_b)
            if self.pdn_file is not None:
                self.pdn_file.close()
            raise

    def _open_progress(self) -> None:
        """Starts the progress display, with what there is to say before the first game."""
        bar = self.bar = _Progress(self.games, self.stream if self.stream is not None
                                   else sys.stderr, self.referee.name_a, self.referee.name_b,
                                   self.progress, done=self.resumed,
                                   points=sum(g.score_a for g in self.finished.values()))
        if self.journal_contents.warning:
            bar.message(self.journal_contents.warning, always=True)
        if self.resumed:
            bar.message(f"resuming: {self.resumed} game{'s' if self.resumed != 1 else ''} read "
                        f"back from {self.journal_path}")
        if self.sprt_at_decision is not None:
            at = self.sprt_at_decision
            bar.message(f"SPRT: {at.decision_text()} already ({at.summary()}, after "
                        f"{at.pairs} pairs): no new pair")
        if self.shipped_openings and self.book == [[]]:
            bar.message(f"note: damier ships no openings for {self.variant.title} draughts: every "
                        "game starts from the initial position (give openings for varied games)")

    def _run_threads(self, threads: list[threading.Thread]) -> None:
        """Runs the worker threads to their end; the first Ctrl-C drops the games in
        progress, a second one quits the engines at once."""
        try:
            for t in threads:
                t.start()
            _join(threads)
        except KeyboardInterrupt:
            self.interrupted = True
            self.stop_event.set()
            self.stop_all()
            if self.bar is not None:
                self.bar.message("stopping: dropping the games in progress (Ctrl-C again to quit "
                                 "the engines at once)" + (
                                     f"; run again with --resume {self.journal_path} to go on"
                                     if self.journal_path else ""))
            try:
                _join(threads)
            except KeyboardInterrupt:
                self.stop_all(close=True)
                _join(threads, deadline=time.monotonic() + 2.0)

    def _close(self) -> list[MatchGame]:
        """Ends the run: closes the progress display, the journal and the PDN file
        (writing the finished games after a gap too); returns the finished games."""
        if self.bar is not None:
            self.bar.close()
        with self.state_lock:
            self.closed = True
            if self.journal is not None:
                self.journal.close()
            records = [self.finished[k] for k in sorted(self.finished)]
            if self.pdn_file is not None:
                self._flush_written()
                # after an interruption, write the finished games after a gap too
                for record in records:
                    if record.number > self.written:
                        write_game(record.game, self.pdn_file)
                self.pdn_file.close()
        return records

    def _result(self, records: list[MatchGame]) -> MatchResult:
        if (not self.interrupted and len(records) < self.games and not self.errors
                and self.sprt_decision is None):
            self.errors.append(f"only {len(records)} of {self.games} games were played")
        wins, draws, losses, score, elo, interval, model, penta = _tally(records)
        return MatchResult(engine_a=self.referee.name_a, engine_b=self.referee.name_b,
                           wins=wins, draws=draws, losses=losses, score=score, elo=elo,
                           elo_interval=interval, games=records, interval_model=model,
                           pentanomial=penta, interrupted=self.interrupted,
                           scheduled=self.games, errors=self.errors, seed=self.seed,
                           pdn_path=self.pdn_path,
                           time_control=time_control_text(self.movetime, self.clock),
                           pentanomial_elo=elo_estimate(penta) if penta is not None else None,
                           sprt=self.sprt, sprt_decision=self.sprt_decision,
                           sprt_at_decision=self.sprt_at_decision,
                           resumed=self.resumed, journal_path=self.journal_path)

    # -- the worker threads

    def worker(self, index: int, a: Player | None, b: Player | None) -> None:
        """Worker thread ``index``: plays games with its own engines (``a``, ``b``:
        already started, or None) until there is none left or the match stops."""
        try:
            while not self.stop_event.is_set():
                job = self.take_job()
                if job is None:
                    return
                try:
                    if a is None:
                        a = self.start_player("A", index)
                    if b is None:
                        b = self.start_player("B", index)
                    record, failed = self.referee.play(job, a, b)
                except _Abandoned:
                    return
                except (EngineStartError, EngineSpecError) as err:  # not started, or the
                    self.pending.put(job)                           # game refused: unplayed
                    with self.state_lock:
                        self.errors.append(str(err))
                    return
                except Exception as err:  # noqa: BLE001 - a bug must not hang the match
                    with self.state_lock:
                        self.errors.append(f"game {job.number}: {type(err).__name__}: {err}")
                    self.stop_event.set()
                    return
                if "A" in failed:
                    self.close_player(a)
                    a = None
                if "B" in failed:
                    self.close_player(b)
                    b = None
                with self.state_lock:
                    if self.closed:
                        return  # the match has ended without this game
                    self.game_finished(record)
        finally:
            self.close_player(a)
            self.close_player(b)

    def take_job(self) -> _GameTask | None:
        """The next game to play; None when there is none (or the SPRT has decided
        and only new pairs are left)."""
        while True:
            try:
                job = self.pending.get_nowait()
            except queue.Empty:
                return None
            with self.state_lock:
                if self.sprt_decision is not None and job.pair not in self.started_pairs:
                    continue  # the SPRT has decided: no new pair
                self.started_pairs.add(job.pair)
                return job

    def game_finished(self, record: MatchGame) -> None:
        """Counts a finished game: journal, PDN file, progress, SPRT (called with
        ``state_lock`` held)."""
        self.finished[record.number] = record
        if self.journal is not None:
            self.journal.add(record)
        self._flush_written()
        sprt = self.sprt
        other = record.number + 1 if record.number % 2 else record.number - 1
        decides = False
        if sprt is not None and record.pair not in self.pairs_counted and other in self.finished:
            sprt.add_pair(record.score_a + self.finished[other].score_a)
            self.pairs_counted.add(record.pair)
            decides = self.sprt_decision is None and sprt.decision is not None
        if self.bar is not None:
            self.bar.game_done(record, sprt)
        if decides and sprt is not None:
            self.sprt_at_decision = sprt.copy()
            if self.bar is not None:
                self.bar.message(f"SPRT: {sprt.decision_text()} ({sprt.summary()}) after "
                                 f"{sprt.pairs} pairs: finishing the games in progress")

    def _flush_written(self) -> None:
        """Writes the finished games that follow those written, in schedule order."""
        if self.pdn_file is None:
            return
        while self.written + 1 in self.finished:
            self.written += 1
            write_game(self.finished[self.written].game, self.pdn_file)
        self.pdn_file.flush()
