"""damier's own engine: iterative deepening principal-variation search.

The search and evaluation are compiled (``_core.pyx``, ``_search.pxi``) and run
without holding the GIL, so other Python threads stay responsive and may call
:meth:`Engine.stop`.

>>> import damier
>>> from damier.engine import Engine
>>> engine = Engine(hash_mb=16)
>>> board = damier.Board("W:W27,28,32,37,38,43:B13,17,18,19,22,23")
>>> result = engine.search(board, depth=8)
>>> result.best_move in board.legal_moves
True
>>> result.depth >= 8
True

The python-chess style API (``chess.engine`` is the model): one :class:`Limit`,
:meth:`Engine.play` giving a :class:`PlayResult`, :meth:`Engine.analyse` giving
:class:`InfoDict` s, and :meth:`Engine.analysis`, a handle on a search running in
the background. :class:`damier.hub.HubEngine` answers with the same types.

>>> played = engine.play(board, Limit(depth=6))
>>> played.move in board.legal_moves, played.info["depth"]
(True, 6)
>>> lines = engine.analyse(board, Limit(depth=4), multipv=2)
>>> [line["multipv"] for line in lines], lines[0]["score"].relative >= lines[1]["score"].relative
([1, 2], True)
>>> with engine.analysis(board) as analysis:    # no limit: until stop()
...     first = analysis.get(timeout=5.0)
...     analysis.stop()
>>> first["depth"], analysis.wait(timeout=5.0).move in board.legal_moves
(1, True)
"""

from __future__ import annotations

import asyncio
import math
import numbers
import os
import random
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, overload

from damier._core import (MATE_SCORE, MATE_THRESHOLD, EgTables, Move, SearchCore,
                          evaluate_position, root_move_score, set_eval_weights, set_root_first)
from damier.board import Board
from damier.book import DEFAULT_MARGIN, Book, BookMove, shipped_book
from damier.egdb import (DEFAULT_ENGINE_PIECES, MAX_PIECES, EgdbSetting, Verdict, Wdl,
                         default_directory, shared_tables)
from damier.egdb_build import build_missing
from damier.engine_types import (AnalysisComplete, AnalysisResult, Clock, EngineAPI,
                                 INFINITE_DEPTH, InfoDict, Limit, MAX_HASH_MB, MAX_MOVES_TO_GO,
                                 MAX_NODES, MAX_THREADS, MoveTimer, PlayResult, SearchInfo,
                                 SearchResult,
                                 _check_count, _check_limit, _number_text, _play_result,
                                 _result_info, _search_info, check_limits, format_score)
from damier.evalfile import Weights, shipped_weights
from damier.outcome import _FIVE, _SIXTEEN, _is_three_kings_vs_king, _lone_king_class
from damier.piece import WHITE
from damier.score import Cm, Loss, PovScore, Score, Win
from damier.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

__all__ = ["Engine", "EngineAPI", "AsyncEngine", "AsyncAnalysis", "Clock", "MoveTimer", "Limit",
           "PlayResult", "InfoDict", "AnalysisResult",
           "AnalysisComplete", "Score", "Cm", "Win", "Loss", "PovScore",
           "SearchInfo", "SearchResult", "LEVELS", "load_eval_weights", "read_weights",
           "format_score", "check_limits", "INFINITE_DEPTH", "MAX_NODES", "MAX_MOVES_TO_GO",
           "MATE_SCORE", "MATE_THRESHOLD", "MAX_THREADS", "MAX_HASH_MB"]

def _physical_memory_mb() -> int | None:
    """The machine's memory in MiB, or None when the system does not say."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        page_size = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages <= 0 or page_size <= 0:
        return None
    return int(pages * page_size // (1024 * 1024))


def _check_hash_mb(hash_mb: Any) -> int:
    """``hash_mb`` as an int from 1 to :data:`MAX_HASH_MB` that is not more than the
    machine's memory; else a ValueError naming it."""
    if isinstance(hash_mb, bool) or not isinstance(hash_mb, numbers.Integral) \
            or not 1 <= int(hash_mb) <= MAX_HASH_MB:
        raise ValueError(f"hash_mb must be a whole number of MiB from 1 to {MAX_HASH_MB}, "
                         f"got {_number_text(hash_mb)}")
    size = int(hash_mb)
    memory = _physical_memory_mb()
    if memory is not None and size > memory:
        raise ValueError(f"hash_mb must not be more than this machine's memory ({memory} MiB), "
                         f"got {size}")
    return size


def _check_margin(margin: Any) -> int:
    if isinstance(margin, bool) or not isinstance(margin, int) or margin < 0:
        raise ValueError(f"book_margin must be a whole number of centi-men >= 0, "
                         f"got {_number_text(margin)}")
    return margin


def _new_table_error(hash_mb: int) -> MemoryError:
    return MemoryError(f"hash_mb={hash_mb}: not enough memory for a transposition table of "
                       f"{hash_mb} MiB; choose a smaller hash_mb")


class _Ticket:
    """One search asked for: its stop request, kept until the search ends (see
    :meth:`Engine.stop`)."""

    __slots__ = ("stopped",)

    def __init__(self) -> None:
        self.stopped = False


@dataclass(frozen=True)
class Level:
    """How a level weakens the engine: a depth cap, and a margin (centi-men)
    within which a worse move may be picked at random."""

    depth: int | None
    margin: int
    temperature: float
    movetime: float
    """The seconds a move takes at this level when no clock is set (``damier play`` and
    the web app read it here)."""


LEVELS: dict[int, Level] = {
    1: Level(depth=1, margin=120, temperature=60.0, movetime=0.5),
    2: Level(depth=2, margin=100, temperature=50.0, movetime=0.5),
    3: Level(depth=3, margin=80, temperature=40.0, movetime=0.5),
    4: Level(depth=4, margin=60, temperature=30.0, movetime=0.6),
    5: Level(depth=5, margin=45, temperature=20.0, movetime=0.8),
    6: Level(depth=6, margin=30, temperature=14.0, movetime=1.0),
    7: Level(depth=8, margin=20, temperature=9.0, movetime=1.2),
    8: Level(depth=10, margin=10, temperature=5.0, movetime=1.5),
    9: Level(depth=14, margin=4, temperature=2.0, movetime=2.0),
    10: Level(depth=None, margin=0, temperature=0.0, movetime=2.5),
}
"""Level 1 ("a beginner can win") to 10 (full strength): the one table of what a level
means (its depth, its randomness, its time per move)."""

BOOK_MIN_LEVEL = 8
"""The lowest level that plays from an opening book and probes endgame databases in
its games (its analyses always may). Levels 8-10 play the book's best move (the
book's usual margin, :data:`damier.book.DEFAULT_MARGIN`, unless ``book_margin``
says otherwise); the weaker levels search a few plies and pick among worse
moves on purpose, and a book would make them play the opening like masters and
then fall apart, so they leave it aside."""


_loaded_variants: set[str] = set()


def load_eval_weights(variant: Variant, path: str | Path | None = None) -> Weights:
    """Loads the evaluation weights of ``variant`` into the core (for every engine
    without weights of its own) and returns them.

    The weights come from the variant's :attr:`~damier.variants.Variant.eval_weights_file`
    in ``damier/data/`` unless ``path`` (a weights file, :mod:`damier.evalfile`) is
    given (:class:`FileNotFoundError` for a variant that ships none: its engine
    uses the core's material-only weights)."""
    if path is None:
        weights = shipped_weights(variant)
        if weights is None:
            raise FileNotFoundError(
                f"damier ships no evaluation weights for {variant.title} draughts")
    else:
        weights = Weights.read(path, variant=variant)
    set_eval_weights(weights.to_core())
    _loaded_variants.add(variant.name)
    return weights


def read_weights(source: str | Path | Weights) -> Weights:
    """Evaluation weights from a weights file (:mod:`damier.evalfile`), or
    ``source`` itself when it is already :class:`~damier.evalfile.Weights`;
    :class:`~damier.evalfile.WeightsFileError` (a ValueError) when the file
    cannot be used."""
    if isinstance(source, Weights):
        return source
    return Weights.read(source)


def _ensure_weights(variant: Variant) -> None:
    if variant.name not in _loaded_variants and variant.eval_weights_file is not None:
        load_eval_weights(variant)


def evaluate(board: Board) -> int:
    """The static evaluation of ``board`` (centi-men, side to move's view)."""
    _ensure_weights(board.variant)
    return evaluate_position(board)


SELECTIVITY_NAMES = ("single_reply", "single_reply_depth", "capture_ext", "capture_ext_depth",
                     "probcut", "probcut_margin", "probcut_depth", "probcut_reduction",
                     "probcut_percent",
                     "probcut_margin_ply", "singular", "singular_nonpv", "singular_depth",
                     "singular_margin", "threat_qsearch", "shot_qsearch", "shot_margin",
                     "history",
                     "lmr_depth", "lmr_move", "lmr_divisor", "lmr_step", "lmr_forcing", "lmp",
                     "tt_first", "iir", "rfp", "rfp_margin", "sac_prune",
                     "sac_reduce", "cont_history", "history_bonus", "promo_qsearch",
                     "lmr_threat", "threat_order", "lmr_improving", "aspiration")
"""The settings of :meth:`Engine.set_selectivity`."""


class Engine(EngineAPI):
    """damier's engine.

    :param threads: search threads, 1 to :data:`MAX_THREADS`. With more than one,
        the search is a lazy SMP search: helper threads search the same position
        and share what they find through the transposition table. Multi-PV
        analysis and the weakened levels search with one thread.
    :param hash_mb: transposition table size in MiB, 1 to :data:`MAX_HASH_MB` and
        not more than the machine's memory.
    :param level: 1 (a beginner can win) to 10 (full strength).
    :param seed: seed of the randomness used below level 10.
    :param weights: evaluation weights for this engine only (a weights file,
        see :mod:`damier.evalfile`, or :class:`~damier.evalfile.Weights`), for
        the variant they are for; by default the shipped weights.
    :param book: the opening book that :meth:`play`, :meth:`search` and
        :meth:`think` play from (see :meth:`set_book`): None or False, none (the
        default: a library engine, a match from set openings); True, the shipped
        book of each board's variant (:func:`damier.book.shipped_book`); a book
        file's path or a :class:`~damier.book.Book`. :meth:`analyse` and
        :meth:`analysis` never use it, and levels below :data:`BOOK_MIN_LEVEL`
        neither.
    :param book_margin: book moves at most this many centi-men worse than the
        best book move are played too, at random.
    :param selectivity: the search's selectivity switches and parameters, as
        keywords of :meth:`set_selectivity` (None: the defaults).
    :param egdb: endgame databases (:mod:`damier.egdb`) the searches probe (see
        :meth:`set_egdb`): None or False, none (the default); True, the tables in
        :func:`damier.egdb.default_directory` (whose 2- and 3-piece tables are built
        at the first search of a variant when missing: under a second); a directory.
    :param egdb_pieces: positions of at most this many pieces are probed (the
        tables up to that size are held in memory; International: 94 MB for 2-4
        pieces, 3.8 GB for 5, read in the background: see
        :func:`damier.egdb.shared_tables`).
    :param adaptive_time: under a clock, the time of a move follows the search
        (:class:`MoveTimer`: longer when the best move changes or the score falls,
        shorter when it is settled; the default, accepted by an SPRT match under a
        3 s + 0.03 s clock: +11.5 Elo [+2.3, +20.7] in 848 games); False: a fixed
        share of the move's budget.

    The settings are checked before anything is allocated: one of the wrong type
    (a bool, a float or a str where a whole number is wanted) or out of its range
    raises :class:`ValueError` naming it and its range. A table that the system
    cannot allocate raises :class:`MemoryError` naming ``hash_mb``.

    >>> Engine(level=5.5)
    Traceback (most recent call last):
    ...
    ValueError: level must be a whole number from 1 to 10, got 5.5
    """

    def __init__(self, *, threads: int = 1, hash_mb: int = 64, level: int = 10,
                 seed: int | None = None, weights: str | Path | Weights | None = None,
                 book: bool | str | Path | Book | None = None,
                 book_margin: int = DEFAULT_MARGIN,
                 selectivity: Mapping[str, Any] | None = None,
                 egdb: EgdbSetting = None,
                 egdb_pieces: int = DEFAULT_ENGINE_PIECES,
                 adaptive_time: bool = True) -> None:
        threads = _check_count("threads", threads, 1, MAX_THREADS)
        if not isinstance(adaptive_time, bool):
            raise ValueError(f"adaptive_time must be True or False, got "
                             f"{_number_text(adaptive_time)}")
        self.adaptive_time = adaptive_time
        hash_mb = _check_hash_mb(hash_mb)
        level = _check_count("level", level, 1, 10)
        _check_margin(book_margin)
        _check_count("egdb_pieces", egdb_pieces, 2, MAX_PIECES)
        self.threads = threads
        self.hash_mb = hash_mb
        self.level = level
        try:
            self._core = SearchCore(hash_mb)
        except MemoryError:
            raise _new_table_error(hash_mb) from None
        self._set_core_threads(threads)
        self._lock = threading.Lock()       # one search at a time
        self._state = threading.Lock()      # guards the tickets and the running one
        self._tickets: set[_Ticket] = set()  # the searches asked for and not ended
        self._running: _Ticket | None = None
        self._random = random.Random(seed)
        self.set_book(book, margin=book_margin)
        self.set_egdb(egdb, pieces=egdb_pieces)
        if weights is not None:
            self.set_weights(weights)
        if selectivity is not None:
            self.set_selectivity(**selectivity)

    def set_book(self, book: bool | str | Path | Book | None,
                 margin: int | None = None) -> None:
        """Chooses the opening book (see the ``book`` parameter) and, when given, the
        margin. A book file that cannot be read raises :class:`damier.book.BookError`.

        >>> import damier
        >>> from damier.book import Book, BookMove
        >>> board = damier.Board()
        >>> book = Book()
        >>> book.add(board, [BookMove(board.parse_move("35-30"), 0, 1)])
        >>> engine = Engine(hash_mb=1, book=book)
        >>> played = engine.play(board, Limit(depth=2))
        >>> board.notation(played.move), played.info["string"]
        ('35-30', 'book')
        >>> engine.set_book(False)
        >>> "string" in engine.play(board, Limit(depth=2)).info
        False
        """
        if margin is not None:
            self.book_margin = _check_margin(margin)
        if book is None or book is False:
            self.book: bool | Book = False
        elif book is True or isinstance(book, Book):
            self.book = book
        elif isinstance(book, (str, Path)):
            self.book = Book.read(book)
        else:
            raise TypeError(f"book must be a bool, a path or a damier.book.Book, "
                            f"not {type(book).__name__}")

    def _book_move(self, board: Board) -> SearchResult | None:
        """A move from the opening book for ``board`` at this engine's level, or None."""
        if self.book is False or self.level < BOOK_MIN_LEVEL or not isinstance(board, Board):
            return None
        book = shipped_book(board.variant) if self.book is True else self.book
        if book is None or book.variant != board.variant:
            return None
        chosen: BookMove | None = book.choose(board, margin=self.book_margin, rng=self._random)
        if chosen is None:
            return None
        return SearchResult(chosen.move, chosen.score, chosen.depth, chosen.depth, 0, 0.0,
                            [chosen.move], book=True)

    def set_egdb(self, egdb: EgdbSetting, pieces: int | None = None) -> None:
        """Chooses the endgame databases (see the ``egdb`` parameter) and, when given,
        the most pieces probed (``bb-size``). The tables are read into memory at the
        first search of their variant, once per process (:func:`damier.egdb.shared_tables`).

        With tables, a search of a position they hold plays only moves of its best
        value (a win, else a draw) and wins inside the draw rules' counts where it can:
        a win or loss the tables give is a forced result at its distance whenever the
        game ends before the five-, sixteen- or king-move counts draw it; the search
        probes every position of at most ``pieces`` pieces (hits: ``tbhits``).

        >>> engine = Engine(hash_mb=1, egdb="/no/such/directory")
        >>> engine.search(Board("W:WK46:BK5"), depth=2).tbhits is None   # no tables
        True
        """
        if pieces is not None:
            if (isinstance(pieces, bool) or not isinstance(pieces, int)
                    or not 2 <= pieces <= MAX_PIECES):
                raise ValueError(f"egdb pieces must be a whole number from 2 to {MAX_PIECES}, "
                                 f"got {pieces!r}")
            self.egdb_pieces = pieces
        self._egdb_first_use = egdb is True
        if egdb is None or egdb is False:
            self.egdb: Path | None = None
        elif egdb is True:
            self.egdb = default_directory()
        elif isinstance(egdb, (str, os.PathLike)):
            self.egdb = Path(egdb)
        else:
            raise TypeError(f"egdb must be a bool or a directory, not {type(egdb).__name__}")

    def load_egdb(self, variant: str | Variant = DEFAULT_VARIANT) -> bool:
        """Reads the endgame tables of ``variant`` into memory now (the first search
        would); True when there are tables. A Hub engine does it at ``init``."""
        return self._egdb_tables(get_variant(variant)) is not None

    def _egdb_tables(self, variant: Variant) -> tuple[EgTables, int] | None:
        """The in-memory tables of ``variant`` and the most pieces to probe, or None."""
        if self.egdb is None:
            return None
        return shared_tables(self.egdb, variant=variant, pieces=self.egdb_pieces,
                             prepare=build_missing if self._egdb_first_use else None)

    def egdb_verdict(self, board: Board) -> Verdict | None:
        """What this engine's endgame databases say of ``board`` (None: no tables, or
        not a position they hold), with the move-count rule that draws a win first
        when the count already running leaves too few plies.

        >>> import tempfile
        >>> from damier.egdb_build import build
        >>> tmp = tempfile.TemporaryDirectory()
        >>> _ = build(tmp.name, pieces=3)
        >>> engine = Engine(hash_mb=1, egdb=tmp.name)
        >>> engine.egdb_verdict(Board("W:WK46:BK5")).text()
        'database: Black wins in 2 plies'
        >>> engine.egdb_verdict(Board("W:W28,33:B23")) is None     # 3 men: held, but ...
        False
        >>> engine.egdb_verdict(Board("W:W28,33,34:B23")) is None  # 4 pieces: not built
        True
        >>> tmp.cleanup()
        """
        tables = self._egdb_tables(board.variant)
        if tables is None:
            return None
        raw = tables[0].probe(board)
        if raw < 0 or raw >= 0xFFFE:
            return None
        plies = raw - 1 if raw else 0
        wdl = Wdl.DRAW if raw == 0 else Wdl.WIN if plies & 1 else Wdl.LOSS
        rule = None
        if wdl != Wdl.DRAW:
            limits, done, current = self._endgame_counts(board)
            k = (current & 7) - 1
            if current and done + plies >= limits[k]:
                rule = (f"the {limits[0] // 2}-move rule", f"the {limits[1] // 2}-move rule",
                        "the three-kings rule", "the two-kings rule",
                        "the king-against-king rule", "the one-piece-each rule")[k]
            _, rev, king_draw = self._history(board)
            if rule is None and king_draw and rev + plies >= king_draw:
                rule = f"the {board.rules.king_moves_limit}-move king rule"
        return Verdict(wdl, plies, board.turn == WHITE, rule)

    def set_weights(self, weights: str | Path | Weights) -> None:
        """Evaluation weights for this engine only (see the ``weights`` parameter). What
        the engine learnt with its earlier weights (its transposition table) is forgotten:
        those scores are not the new weights'."""
        core_weights = read_weights(weights).to_core()
        with self._lock:
            self._core.set_weights(core_weights)
            self._core.clear()

    def set_selectivity(self, **settings: Any) -> dict[str, Any]:
        """Sets the search's selectivity switches and parameters and returns them
        all (:attr:`selectivity`); a setting left out keeps its value:

        - ``single_reply`` (bool, on by default): a position with one legal move is
          searched a ply deeper; ``single_reply_depth`` (1 by default): only at nodes
          of at least this depth (measured: 3 searched 41% fewer nodes and lost 15 Elo;
          benchmarks/README.md).
        - ``capture_ext`` (bool, off by default): a position with a capture to make
          (captures are compulsory: every move is one) is searched a ply deeper;
          ``capture_ext_depth`` (0, any depth, by default): only at nodes of at most this
          depth.
        - ``probcut`` (bool, on by default): at non-PV nodes of depth >= ``probcut_depth``
          (6), a null-window search ``probcut_reduction`` (4) plies shallower at beta +
          ``probcut_margin`` (80 centi-men); when it fails high, its score is returned.
          With ``probcut_percent`` (0, off, by default) the reduced search's depth is
          that percent of the node's instead; ``probcut_margin_ply`` (0 by default)
          adds that many centi-men to the margin for each ply of the node's depth.
        - ``singular`` (bool, on by default): at PV nodes of depth >= ``singular_depth``
          (5) whose TT move is stored as a lower bound, the other moves are searched at
          half the depth with a null window ``singular_margin`` (23) centi-men below the
          TT score;
          when all fail low, the TT move is extended by a ply. ``singular_nonpv`` (bool,
          off by default): at non-PV nodes too. The defaults of these numbers and of
          ``lmr_divisor`` come from an SPSA tune (``damier train tune``; +11.7 Elo at
          0.1 s a move against the ones before, benchmarks/README.md).
        - ``threat_qsearch`` (int, plies; True is 1; 1 by default): at a quiet leaf of the
          quiescence search within that many plies of the horizon, when the side not to
          move would have a capture if it were its turn, the quiet moves are searched one
          ply to see whether the threat can be parried.
        - ``shot_qsearch`` (int, plies; True is 1; 0, off, by default): at a quiet leaf of
          the quiescence search within that many plies of the horizon (where no threat
          is searched), the static evaluation stands and each quiet move that gives the
          opponent a capture (a sacrifice, an exchange offer) is searched too, with the
          captures that follow: a shot that starts at the horizon is seen.
          ``shot_margin`` (centi-men; 0, always, by default): only where the static
          evaluation is within that many centi-men of alpha.
        - ``history`` (0, 1 or 2; 1 by default): 0 the plain depth-squared bonus at a
          cutoff; 1 bounded (gravity) updates, with a malus for the quiet moves tried
          before the cutoff move; 2 as 1, and late-move reductions one ply smaller for
          moves with a high history, one larger for a low one.
        - ``lmr_depth``, ``lmr_move``: late-move reductions from this depth, and after
          this many moves searched (3 and 2 by default); ``lmr_divisor``: their size,
          ``log(depth) * log(move number) / lmr_divisor`` plies (1.4509 by default);
          ``lmr_step`` (0, off, by default): instead, a ply, and two plies from the
          ``lmr_step``-th move searched on (counted from 0). ``lmr_forcing`` (0 to 8; 0,
          off, by default): a move that gives the opponent a capture (an exchange offer,
          a sacrifice) is reduced that many plies less; ``lmr_threat`` (0 to 8; 0, off, by
          default): a move after which its side would have a capture if it moved again
          (it threatens one) is reduced that many plies less. ``lmr_improving`` (0 to 8;
          0, off, by default): at a node whose static evaluation is no better than at the
          node two plies up, on the search path (the side to move is not improving its
          position), the late quiet moves are reduced that many plies more.
        - ``lmp`` (int, 0 to 64; 0, off, by default): late-move pruning at depths 1 to 3
          of non-PV nodes: quiet moves after the first ``lmp + depth * depth`` are
          skipped when they give the opponent no capture.
        - ``cont_history`` (0, 1 or 2; True is 1; 0, off, by default): continuation
          histories besides the history: 1 a counter-move history (the quiet moves that
          cut off after the opponent's move to a square, by the side to move), 2 also a
          follow-up history (after the side's own move before it); bounded updates, as
          ``history=1``. A quiet move is ordered by the sum (below the root, with
          ``history`` 1 or 2).
        - ``history_bonus`` (int, 1 to 10,000; 100 by default): the percent of depth
          squared by which a cutoff moves the history scores (``history`` 1 or 2, and the
          continuation histories): the greater, the sooner the bounded scores forget
          older cutoffs.
        - ``threat_order`` (bool, off by default): at a node whose opponent would have a
          capture if it were its turn, the quiet moves after which it has none (they
          parry the threat) are ordered before the other quiet moves, after the killers.
        - ``tt_first`` (bool, off by default): the transposition table's move is searched
          before the other moves are scored.
        - ``iir`` (int, 0 to 63; 0, off, by default): internal iterative reduction: a node
          below the root of at least this depth whose position has no move in the
          transposition table is searched a ply shallower.
        - ``rfp`` (int, 0 to 63; 0, off, by default): reverse futility pruning: a non-PV
          node of at most this depth fails high on its static evaluation when that beats
          beta by ``rfp_margin`` centi-men (100 by default) a ply of depth, only in a
          quiet position (no capture for either side, a move to play).
        - ``sac_prune`` (int, 0 to 63; 0, off, by default), ``sac_reduce`` (0 to 8; 0 by
          default): at non-PV nodes, a quiet move other than the first that loses a man
          (it gives the opponent a capture, and after some capture of it the side has
          none in turn) is skipped at depths up to ``sac_prune`` and reduced
          ``sac_reduce`` plies more at greater depths.
        - ``promo_qsearch`` (0, 1 or 2; True is 1; 0, off, by default): at a quiet leaf of
          the quiescence search where the side to move can crown a man, its static
          evaluation stands and each crowning move is searched too (the evaluation values
          such a man as a man, the king it becomes as some three men); 2 also searches,
          within ``threat_qsearch`` plies of the horizon, the quiet moves of a side whose
          opponent would crown a man with its next move, as a capture threat is searched.
        - ``aspiration`` (int, 0 to 10,000 centi-men; 35 by default): from depth 5 on, an
          iteration of the iterative deepening first searches a window this far each side
          of the previous depth's score; a score outside it widens that side of the window
          fourfold and searches again. 0: every iteration searches the full window.

        >>> engine = Engine(hash_mb=1)
        >>> engine.set_selectivity(probcut=False)["probcut"]
        False
        >>> engine.selectivity["singular"]
        True
        >>> engine.set_selectivity(aspiration=0)["aspiration"]   # the full window
        0
        """
        unknown = set(settings) - set(SELECTIVITY_NAMES)
        if unknown:
            raise TypeError(f"unknown selectivity setting(s): {', '.join(sorted(unknown))}; "
                            f"known: {', '.join(SELECTIVITY_NAMES)}")
        with self._lock:
            return self._core.set_selectivity(**settings)

    @property
    def selectivity(self) -> dict[str, Any]:
        """The search's selectivity switches and parameters (:meth:`set_selectivity`)."""
        return self._core.selectivity

    def set_threads(self, threads: int) -> None:
        """Changes the number of search threads (1 to :data:`MAX_THREADS`)."""
        threads = _check_count("threads", threads, 1, MAX_THREADS)
        with self._lock:
            self._set_core_threads(threads)
            self.threads = threads

    def _set_core_threads(self, threads: int) -> None:
        try:
            self._core.set_threads(threads)
        except MemoryError:
            self._core.set_threads(1)   # frees the helpers that were made
            self.threads = 1
            raise MemoryError(f"threads={threads}: not enough memory for the search "
                              "threads; the engine searches with one thread") from None

    # -- control -----------------------------------------------------------------

    def set_hash(self, hash_mb: int) -> None:
        """Resizes the transposition table (clears it); ``hash_mb`` as for the
        constructor. When the system cannot allocate the new table, the engine keeps
        a table of the old size (cleared) and :class:`MemoryError` names ``hash_mb``."""
        hash_mb = _check_hash_mb(hash_mb)
        with self._lock:
            try:
                self._core.set_hash(hash_mb)
            except MemoryError:
                # The core keeps the table in use: cleared, as a resize leaves it.
                self._core.clear()
                raise _new_table_error(hash_mb) from None
            self.hash_mb = hash_mb

    def set_level(self, level: int) -> None:
        """Changes the level (1 to 10, see the ``level`` parameter)."""
        self.level = _check_count("level", level, 1, 10)

    def new_game(self) -> None:
        """Forgets what was learnt in the previous game."""
        with self._lock:
            self._core.clear()

    def stop(self) -> None:
        """Stops the running search as soon as possible (from any thread).

        The stop is latched: it also stops every search already asked for that
        has not really started yet (a call to :meth:`search`, :meth:`play`,
        :meth:`analyse` waiting for another search to end, or a background search
        of :meth:`analysis` that has not reached the compiled core). It does not
        reach searches asked for after it."""
        with self._state:
            for ticket in self._tickets:
                ticket.stopped = True
            self._core.stop()

    def _request(self) -> _Ticket:
        ticket = _Ticket()
        with self._state:
            self._tickets.add(ticket)
        return ticket

    def _stop_ticket(self, ticket: _Ticket) -> None:
        """Stops the search of ``ticket`` (latched), and no other."""
        with self._state:
            ticket.stopped = True
            if self._running is ticket:
                self._core.stop()

    # -- searching: the python-chess style API ------------------------------------------

    def play(self, board: Board, limit: Limit) -> PlayResult:
        """The move to play in ``board``'s position within ``limit``, at the engine's
        level (python-chess's ``engine.play``).

        >>> import damier
        >>> result = Engine(hash_mb=4).play(damier.Board(), Limit(depth=3))
        >>> result.move in damier.Board().legal_moves, result.info["depth"]
        (True, 3)
        """
        limit = _check_limit(limit)
        result = self._book_move(board) or self._run(
            board, multipv=1, depth=limit.depth, nodes=limit.nodes, movetime=limit.time,
            clock=limit.clock, info=None, infinite=False, weaken=True)[0]
        return _play_result(result, board.turn)

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: None = None) -> InfoDict: ...

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: int) -> list[InfoDict]: ...

    def analyse(self, board: Board, limit: Limit | None = None, multipv: int | None = None, *,
                depth: int | None = None, nodes: int | None = None,
                movetime: float | None = None, info: Callable[[SearchInfo], Any] | None = None,
                infinite: bool = False) -> InfoDict | list[InfoDict] | list[SearchResult]:
        """Analyses ``board``'s position at full strength, as python-chess's
        ``analyse(board, Limit(...), multipv=None)``: the :class:`InfoDict` of the best
        line, or with ``multipv=N`` a list of the ``N`` best lines' infos, best first,
        every one searched to the same depth.

        ``multipv`` is a whole number from 1 to 1000 (more than the legal moves
        gives one line per legal move); the limits are checked as :meth:`search`
        checks them. Under a time or node limit the lines all come from the last
        depth that was completed for every line. (The keyword form without a
        :class:`Limit` is :meth:`search_lines`; called here it still works, with a
        :class:`DeprecationWarning`.)
        """
        if limit is not None:
            if (depth, nodes, movetime, info) != (None, None, None, None) or infinite:
                raise TypeError("analyse() takes a Limit or the keyword limits, not both")
            limit = _check_limit(limit)
            count = 1 if multipv is None else _check_count("multipv", multipv, 1, 1000)
            results = self._run(board, multipv=count, depth=limit.depth, nodes=limit.nodes,
                                movetime=limit.time, clock=limit.clock, info=None,
                                infinite=False, weaken=False)
            lines = [_result_info(r, board.turn, i) for i, r in enumerate(results, start=1)]
            return lines[0] if multipv is None else lines
        warnings.warn("Engine.analyse without a Limit is Engine.search_lines: "
                      "analyse(board, Limit(...), multipv) is the one analyse form",
                      DeprecationWarning, stacklevel=2)
        return self.search_lines(board, 1 if multipv is None else multipv, depth=depth,
                                 nodes=nodes, movetime=movetime, info=info, infinite=infinite)

    def analysis(self, board: Board, limit: Limit | None = None, multipv: int | None = None, *,
                 infinite: bool = False) -> AnalysisResult:
        """Starts analysing ``board``'s position in the background and returns its
        :class:`AnalysisResult` at once (python-chess's ``engine.analysis``).

        With no ``limit`` the search goes on until :meth:`AnalysisResult.stop`
        (or :meth:`stop`); with ``infinite=True`` it also waits for the stop after
        reaching its limit. ``multipv=N`` reports the ``N`` best lines, depth by
        depth. The position is copied: ``board`` may change meanwhile.
        """
        count = 1 if multipv is None else _check_count("multipv", multipv, 1, 1000)
        return self._start(board, limit, multipv=count, weaken=False,
                           infinite=infinite or limit is None)

    def think(self, board: Board, limit: Limit | None = None, *,
              infinite: bool = False) -> AnalysisResult:
        """:meth:`play` in the background: returns an :class:`AnalysisResult` at
        once, whose :meth:`~AnalysisResult.wait` gives the :class:`PlayResult`
        :meth:`play` would (at the engine's level). With no ``limit``, or with
        ``infinite=True`` once the limit is reached, it searches until stopped
        (pondering, or a GUI's "move now"). A move from the opening book (see
        :meth:`set_book`) ends it at once, with one info, unless it searches until
        stopped."""
        infinite = infinite or limit is None
        booked = None if infinite else self._book_move(board)
        if booked is not None:
            _check_limit(limit)
            handle = AnalysisResult(lambda: None)
            info = _result_info(booked, board.turn)
            handle.post(info)
            handle.finish(_play_result(booked, board.turn), lines=[info])
            return handle
        return self._start(board, limit, multipv=1, weaken=True, infinite=infinite)

    def _start(self, board: Board, limit: Limit | None, *, multipv: int, weaken: bool,
               infinite: bool) -> AnalysisResult:
        if not isinstance(board, Board):
            raise TypeError(f"expected a damier.Board, not {type(board).__name__}")
        limit = _check_limit(limit if limit is not None else Limit())
        board = board.copy()
        turn = board.turn
        # The ticket exists before the thread: a stop from now on is never lost.
        ticket = self._request()
        handle = AnalysisResult(lambda: self._stop_ticket(ticket))

        def on_info(info: SearchInfo) -> None:
            handle.post(_search_info(info, turn))

        def work() -> None:
            try:
                results = self._run(board, multipv=multipv, depth=limit.depth,
                                    nodes=limit.nodes, movetime=limit.time, clock=limit.clock,
                                    info=on_info, infinite=infinite, weaken=weaken,
                                    ticket=ticket)
            except BaseException as exc:  # noqa: BLE001 - handed to wait()
                handle.finish(error=exc)
                return
            lines = [_result_info(r, turn, i) for i, r in enumerate(results, start=1)]
            handle.finish(_play_result(results[0], turn), lines=lines)

        try:
            threading.Thread(target=work, name="damier-analysis", daemon=True).start()
        except BaseException:
            with self._state:
                self._tickets.discard(ticket)
            raise
        return handle

    # -- searching: the keyword API -------------------------------------------------------

    def search(self, board: Board, *, depth: int | None = None, nodes: int | None = None,
               movetime: float | None = None, clock: Clock | None = None,
               info: Callable[[SearchInfo], Any] | None = None,
               infinite: bool = False) -> SearchResult:
        """Searches ``board`` and returns the move to play.

        Limits: ``depth`` (plies), ``nodes``, ``movetime`` (seconds), ``clock``
        (game clock; the engine budgets its time), ``infinite`` (until
        :meth:`stop`). With no limit at all the search stops at depth 80 or a
        forced result. ``info`` is called after each completed iteration.

        A bad limit (see :func:`check_limits`: nan, an infinity, zero, a negative
        or out-of-range number, a bool, a string...) raises :class:`ValueError`
        before anything is searched.
        """
        booked = None if infinite else self._book_move(board)
        if booked is not None:
            check_limits(depth=depth, nodes=nodes, movetime=movetime, clock=clock)
            return booked
        results = self._run(board, multipv=1, depth=depth, nodes=nodes, movetime=movetime,
                            clock=clock, info=info, infinite=infinite, weaken=True)
        return results[0]

    def search_lines(self, board: Board, multipv: int = 1, *, depth: int | None = None,
                     nodes: int | None = None, movetime: float | None = None,
                     info: Callable[[SearchInfo], Any] | None = None,
                     infinite: bool = False) -> list[SearchResult]:
        """The ``multipv`` best lines of ``board``'s position at full strength, best
        first, each a :class:`SearchResult` (the keyword counterpart of
        :meth:`analyse`; :meth:`search` is one line at the engine's level). ``info`` is
        called with a :class:`SearchInfo` for each line of each depth; the limits are
        :meth:`search`'s. Under a time or node limit the lines all come from the last
        depth that was completed for every line.

        >>> lines = Engine(hash_mb=1).search_lines(Board(), 2, depth=3)
        >>> len(lines), lines[0].score >= lines[1].score
        (2, True)
        """
        multipv = _check_count("multipv", multipv, 1, 1000)
        return self._run(board, multipv=multipv, depth=depth, nodes=nodes, movetime=movetime,
                         clock=None, info=info, infinite=infinite, weaken=False)

    # -- internals -------------------------------------------------------------------

    def _history(self, board: Board) -> tuple[list[int], int, int]:
        snapshots = board._snapshots
        rev = 0
        for snap in reversed(snapshots[1:]):
            if not snap.king_move:
                break
            rev += 1
        keys = [snap.key for snap in snapshots[len(snapshots) - 1 - rev:len(snapshots) - 1]]
        limit = board.rules.king_moves_limit
        return keys, rev, (2 * limit if limit else 0)

    @staticmethod
    def _endgame_counts(board: Board) -> tuple[tuple[int, ...], int, int]:
        """The plies that draw under the five-move, sixteen-move, three-kings,
        two-kings, king-against-king and one-piece-each rules (0: off), the plies
        already played in the current position's class of material (the classes of
        :mod:`damier.outcome`, tried in its order), and that class as the core's
        ``end_class`` numbers it (0 none; the kind, the index of its limit plus one,
        in the low three bits; what must stay the same for the count to run on,
        times 8)."""
        rules = board.rules
        limits = tuple(2 * n if n else 0 for n in (
            rules.five_moves_limit, rules.sixteen_moves_limit, rules.three_kings_limit,
            rules.two_kings_limit, rules.king_vs_king_limit, rules.one_piece_each_limit))

        def material_class(s: Any) -> int:
            lone = _lone_king_class(s)
            if lone == _FIVE and limits[0]:
                return 1
            if lone == _SIXTEEN and limits[1]:
                return 2
            if limits[2] and _is_three_kings_vs_king(s):
                return 3 + 8 * int(s.pieces)   # a capture starts a new count
            white = s.white_men + s.white_kings
            black = s.black_men + s.black_kings
            if limits[5] and white == 1 and black == 1:
                return 6 + 8 * int(s.white_kings + 2 * s.black_kings)  # a crowning: a new count
            if s.white_men == 0 and s.black_men == 0 and white and black:
                if limits[4] and white == 1 and black == 1:
                    return 5
                if limits[3] and white + black == 3:
                    return 4 + 8 * int(white == 2)
            return 0

        snapshots = board._snapshots
        current = material_class(snapshots[-1])
        done = 0
        if current:
            for snap in reversed(snapshots[:-1]):
                if material_class(snap) != current:
                    break
                done += 1
        return limits, done, current

    def _run(self, board: Board, *, multipv: int, depth: int | None, nodes: int | None,
             movetime: float | None, clock: Clock | None,
             info: Callable[[SearchInfo], Any] | None, infinite: bool,
             weaken: bool, ticket: _Ticket | None = None) -> list[SearchResult]:
        try:
            if not isinstance(board, Board):
                raise TypeError(f"expected a damier.Board, not {type(board).__name__}")
            depth, nodes, movetime = check_limits(depth=depth, nodes=nodes, movetime=movetime,
                                                  clock=clock)
            _ensure_weights(board.variant)
            if ticket is None:
                ticket = self._request()
            level = LEVELS[self.level] if weaken else LEVELS[10]
            # The endgame tables: not for the weak levels (as the book, they would
            # play endings like a master); at the root, with one best move asked
            # for, they leave out moves of a worse value (several lines: every move).
            db_use = not weaken or self.level >= BOOK_MIN_LEVEL
            db_filter = multipv == 1
            if level.depth is not None:
                depth = min(depth, level.depth) if depth is not None else level.depth
            if level.margin and multipv == 1:
                multipv = 64
            with self._lock:
                results = self._search_locked(board, ticket, multipv=multipv, depth=depth,
                                              nodes=nodes, movetime=movetime, clock=clock,
                                              info=info, infinite=infinite,
                                              db_filter=db_filter, db_use=db_use)
        finally:
            if ticket is not None:
                with self._state:
                    self._tickets.discard(ticket)
        # Best first (every line comes from the same depth, but a line cut short
        # by a limit before the first depth was complete may be shallower).
        results.sort(key=lambda r: (-r.depth, -r.score))
        if weaken and level.margin:
            return [self._weakened_choice(results, level)]
        return results

    def _search_locked(self, board: Board, ticket: _Ticket, *, multipv: int, depth: int | None,
                       nodes: int | None, movetime: float | None, clock: Clock | None,
                       info: Callable[[SearchInfo], Any] | None,
                       infinite: bool, db_filter: bool = False,
                       db_use: bool = True) -> list[SearchResult]:
        # The tables first: reading them into memory (once per process) is not the
        # search's time.
        tables = self._egdb_tables(board.variant) if db_use else None
        start = time.monotonic()
        keys, rev, king_draw = self._history(board)
        end_limits, end_done, _ = self._endgame_counts(board)
        core = self._core
        if tables is not None:
            core.set_egdb(tables[0], min(self.egdb_pieces, tables[1]))
        else:
            core.set_egdb(None)
        n = core.new_search(board, keys, rev, king_draw, end_limits, end_done)
        # new_search clears the core's stop flag: a stop asked for before this
        # point is in the ticket, and is applied now (the latch).
        with self._state:
            self._running = ticket
            if ticket.stopped:
                core.stop()
        try:
            root_moves = core.root_moves()
            if n == 0:
                return [SearchResult(None, -MATE_SCORE, 0, 0, 0, 0.0, [])]
            # A fixed time a move cannot be saved for later: the search uses all of
            # it (no soft limit). A clock's time can: stop when the next depth is
            # unlikely to finish within the move's share (``soft``).
            soft = hard = None
            if movetime is not None:
                hard = movetime
            elif clock is not None:
                soft, hard = clock.budget(board.turn)
            deadline = start + hard if hard is not None else 0.0
            core.set_limits(nodes or 0, deadline)
            max_depth = depth if depth is not None else INFINITE_DEPTH
            skip = (self._egdb_root_skip(tables[0], board, root_moves)
                    if tables is not None and db_filter else [])
            lines = min(multipv, n - len(skip))
            helpers = (self._start_helpers(core, max_depth)
                       if lines == 1 and n - len(skip) > 1 else [])
            try:
                results = self._deepen(core, root_moves, lines, max_depth, start, soft, info,
                                       infinite, skip, tables is not None, hard)
            finally:
                core.stop_helpers()
                for thread in helpers:
                    thread.join()
            if not results:
                # Stopped before the first iteration finished: play the first legal move.
                first = next(m for i, m in enumerate(root_moves) if i not in skip)
                results = [SearchResult(first, 0, 0, 0, core.nodes,
                                        time.monotonic() - start, [first],
                                        tbhits=core.egdb_hits if tables is not None else None)]
            return results
        finally:
            with self._state:
                self._running = None

    @staticmethod
    def _egdb_root_skip(tables: EgTables, board: Board, root_moves: list[Move]) -> list[int]:
        """The root moves the endgame tables show worse than the best (indices in
        ``root_moves``): with a win, every move that does not win; with a draw,
        every losing move. Empty when the tables do not hold the position.

        A move that wins by the tables never does worse than one that draws by them:
        the move-count rules only turn wins into draws. Which win to play (the
        fastest inside the counts) is the search's choice: it probes the positions
        after each move."""
        root = tables.probe(board)
        if root < 0 or root >= 0xFFFE:
            return []
        after = dict(tables.probe_moves(board))
        kinds = []
        for move in root_moves:
            value = after.get(move, -1)
            if value < 0 or value >= 0xFFFE:
                return []     # not held (cannot happen when the position itself is)
            # the value for the opponent, who moves next: its loss is our win
            kinds.append(0 if value == 0 else 1 if (value - 1) % 2 == 0 else -1)
        best = max(kinds)
        return [i for i, kind in enumerate(kinds) if kind < best]

    def _deepen(self, core: SearchCore, root_moves: list[Move], lines: int, max_depth: int,
                start: float, soft: float | None, info: Callable[[SearchInfo], Any] | None,
                infinite: bool, skip: Sequence[int] = (),
                tables: bool = False, hard: float | None = None) -> list[SearchResult]:
        """Iterative deepening of the ``lines`` best root moves: depth by depth, and
        at each depth line by line (the moves of the better lines left out, and the
        root moves in ``skip``). ``tables``: endgame tables are probed (``tbhits``).
        Under a clock (``soft`` and ``hard``, seconds) a :class:`MoveTimer` says
        when no new depth is begun.

        Returns the lines of the last depth completed for all of them; when the
        search stops before depth 1 is complete, the lines that depth 1 found."""
        done: list[SearchResult] = []
        done_index: list[int] = []
        window = int(core.selectivity["aspiration"])
        timer = MoveTimer(soft, hard) if soft is not None and hard is not None else None
        for d in range(1, max_depth + 1):
            current: list[SearchResult] = []
            indices: list[int] = []
            for k in range(lines):
                first = done_index[k] if k < len(done_index) else -1
                core.set_skip(list(skip) + indices)
                set_root_first(core, first)
                previous = done[k].score if k < len(done) else None
                score, index, pv, complete = self._search_depth(core, d, previous, window)
                if not complete:
                    if lines == 1 and done:
                        partial = self._partial_result(core, index, pv, done_index[0], d, start,
                                                       tables)
                        if partial is not None:
                            current.append(partial)
                            indices.append(index)
                            done, done_index = current, indices
                    break
                elapsed = time.monotonic() - start
                move = root_moves[index] if index >= 0 else (pv[0] if pv else None)
                hits = core.egdb_hits if tables else None
                current.append(SearchResult(move, score, d, core.seldepth, core.nodes, elapsed,
                                            list(pv), tbhits=hits))
                indices.append(index)
                if info is not None:
                    info(SearchInfo(d, core.seldepth, score, core.nodes, elapsed, list(pv), k + 1,
                                    tbhits=hits))
            if len(current) < lines:
                if not done:
                    done = current
                break
            done, done_index = current, indices
            if infinite:
                continue
            if len(root_moves) - len(skip) == 1:
                break  # a single legal move (or one the tables leave): nothing to think about
            if all(abs(r.score) > MATE_THRESHOLD and MATE_SCORE - abs(r.score) <= d
                   for r in current):
                break  # every line is a forced result, seen to its end
            if timer is not None:
                if self.adaptive_time:
                    timer.update(d, indices[0], current[0].score)
                if time.monotonic() - start >= timer.target():
                    break
        if infinite:
            # An infinite search keeps the last result until stopped.
            while not core.stopped:
                time.sleep(0.005)
        return done

    @staticmethod
    def _partial_result(core: SearchCore, index: int, pv: list[Move], last_index: int,
                        depth: int, start: float, tables: bool = False) -> SearchResult | None:
        """The result of an iteration to ``depth`` stopped by the limits (``index``
        and ``pv``: its best root move and line), when before it stopped it proved a root
        move better than the previous depth's best (``last_index``): that move, its
        line and its score, with ``depth`` - 1, the last depth completed (that
        move was searched one ply deeper). None when it found nothing new. No
        ``info`` reports it: an analysis shows completed depths only."""
        if index < 0 or index == last_index or not pv:
            return None
        return SearchResult(pv[0], root_move_score(core, index), depth - 1, core.seldepth,
                            core.nodes, time.monotonic() - start, list(pv),
                            tbhits=core.egdb_hits if tables else None)

    @staticmethod
    def _search_depth(core: SearchCore, depth: int, previous: int | None,
                      window: int) -> tuple[int, int, list[Move], bool]:
        """One iteration of one line, in an aspiration window around its previous
        score (``window`` centi-men each side from depth 5 on; 0: the full window):
        ``(score, root move index, pv, complete)``. A score outside the window
        widens that side of it fourfold (the step with it), and the iteration is
        searched again. When the limits stopped it (``complete`` false), the index
        and pv are of the best move it had proved by then (pv empty: none yet) and
        the score means nothing."""
        alpha, beta = -MATE_SCORE - 1, MATE_SCORE + 1
        if (window > 0 and previous is not None and depth >= 5
                and abs(previous) < MATE_THRESHOLD):
            alpha, beta = previous - window, previous + window
        while True:
            score, index, pv, stopped = core.search(depth, alpha, beta)
            if stopped:
                return score, index, pv, False
            if score <= alpha:
                alpha = max(-MATE_SCORE - 1, alpha - window * 4)
                window *= 4
            elif score >= beta:
                beta = min(MATE_SCORE + 1, beta + window * 4)
                window *= 4
            else:
                return score, index, pv, True

    def _start_helpers(self, core: SearchCore, max_depth: int) -> list[threading.Thread]:
        threads = []
        for index in range(core.threads - 1):
            thread = threading.Thread(target=core.run_helper, args=(index, max_depth + 1),
                                      name=f"damier-search-helper-{index}", daemon=True)
            thread.start()
            threads.append(thread)
        return threads

    def _weakened_choice(self, results: list[SearchResult], level: Level) -> SearchResult:
        best = results[0]
        if best.is_win or best.is_loss and all(r.is_loss for r in results):
            return best
        # Only moves searched as deep as the best one: a line cut short by the time
        # limit has a shallower, unreliable score.
        pool = [r for r in results if r.score >= best.score - level.margin and not r.is_loss
                and r.depth >= best.depth]
        if not pool:
            return best
        weights = [math.exp((r.score - best.score) / level.temperature) for r in pool]
        return self._random.choices(pool, weights=weights, k=1)[0]


def variants_with_weights() -> Iterable[str]:
    """Variants whose evaluation weights ship with damier."""
    return [v.name for v in VARIANTS.values() if v.eval_weights_file is not None
            and resources.files("damier").joinpath("data", v.eval_weights_file).is_file()]


# -- the asyncio flavour ------------------------------------------------------------------


class AsyncAnalysis:
    """An :class:`AnalysisResult` for asyncio code: ``async for info in analysis``,
    ``await analysis.wait()``; :meth:`stop` is immediate (and latched)."""

    def __init__(self, handle: AnalysisResult) -> None:
        self.handle = handle

    @property
    def info(self) -> InfoDict:
        return self.handle.info

    @property
    def multipv(self) -> list[InfoDict]:
        return self.handle.multipv

    def stop(self) -> None:
        self.handle.stop()

    async def wait(self) -> PlayResult:
        return await asyncio.get_running_loop().run_in_executor(None, self.handle.wait)

    def __aiter__(self) -> "AsyncAnalysis":
        return self

    async def __anext__(self) -> InfoDict:
        loop = asyncio.get_running_loop()
        while True:
            try:
                return self.handle.get(timeout=0)
            except AnalysisComplete:
                raise StopAsyncIteration from None
            except TimeoutError:
                # nothing yet: wait in a worker thread, a little at a time, so that a
                # cancelled task does not leave a thread blocked for long
                try:
                    return await loop.run_in_executor(None, self.handle.get, 0.1)
                except TimeoutError:
                    continue
                except AnalysisComplete:
                    raise StopAsyncIteration from None

    async def __aenter__(self) -> "AsyncAnalysis":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop()
        try:
            await self.wait()
        except Exception:  # the search's own error was the caller's to see
            pass


class AsyncEngine:
    """The engine API for asyncio code, as python-chess's ``chess.engine`` protocol:
    ``await engine.play(board, limit)``, ``await engine.analyse(...)`` and
    ``async with engine.analysis(...) as analysis: async for info in analysis``.
    The searches run in worker threads (the engine releases the GIL), so the event
    loop goes on meanwhile. It wraps an :class:`Engine` or a
    :class:`damier.hub.HubEngine`.

    >>> import asyncio, damier
    >>> async def main() -> bool:
    ...     engine = AsyncEngine(Engine(hash_mb=1))
    ...     result = await engine.play(damier.Board(), Limit(depth=4))
    ...     async with engine.analysis(damier.Board(), Limit(depth=3)) as analysis:
    ...         depths = [info.get("depth") async for info in analysis]
    ...     return result.move in damier.Board().legal_moves and depths[-1] == 3
    >>> asyncio.run(main())
    True
    """

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    async def play(self, board: Board, limit: Limit) -> PlayResult:
        copy = board.copy()
        result: PlayResult = await asyncio.get_running_loop().run_in_executor(
            None, lambda: self.engine.play(copy, limit))
        return result

    async def analyse(self, board: Board, limit: Limit,
                      multipv: int | None = None) -> InfoDict | list[InfoDict]:
        copy = board.copy()
        result: InfoDict | list[InfoDict] = await asyncio.get_running_loop().run_in_executor(
            None, lambda: self.engine.analyse(copy, limit, multipv))
        return result

    def analysis(self, board: Board, limit: Limit | None = None,
                 multipv: int | None = None) -> AsyncAnalysis:
        return AsyncAnalysis(self.engine.analysis(board.copy(), limit, multipv))

    def stop(self) -> None:
        self.engine.stop()
