"""Puzzles: positions where one move wins material (shots), mined by damier's
own engine from its own games and proved by an exhaustive search.

A :class:`Puzzle` is a position, the side to move being the solver, and its
solution: the solver's moves and the forced replies, alternating, ending with
the solver's move that realises the gain. The gain is the net material won
(a man 1, a king 3), or ``"win"`` (the opponent is left without a move).

>>> puzzle = Puzzle.new("international", "W:W27,32,34,37,38,40,45,49:B1,2,11,12,16,18,23,25",
...                     "27-22 18x27 32x21 16x27 34-30 25x34 40x16".split(), gain=2,
...                     rating=1500, depth=5, source="the coup Philippe")
>>> puzzle.id, puzzle.first_move, puzzle.solver
('0620995d64', '27-22', 'white')
>>> bool(verify(puzzle))
True
>>> eval(repr(puzzle)) == puzzle
True

**The proof** (:func:`prove`, :func:`verify`) knows nothing of the engine: a
plain negamax with alpha-beta pruning over :class:`damier.Board` (see
:class:`Prover`). The value of a position is its material from the side to
move's point of view, or a loss (``-WIN``) when the side to move has no legal
move. At the horizon a position where the side to move must capture is not
counted: captures are searched on until a quiet position is reached (captures
are compulsory, so this is part of the game). A puzzle is proven when its first
move reaches at least ``gain`` against every defence within ``depth`` plies
(the first move counted), while every other legal first move reaches less, and
no other first move wins the game (:func:`forced_win`: the opponent left without a
move within :data:`WIN_PLIES` plies, found by a boolean search of at most
:data:`WIN_NODES` nodes, or by an endgame database when one is given): the
solution is sound and unique. ``depth`` is the horizon of that proof; the
solution line may run past it through the captures the horizon resolves. Only
the first move is proven unique: later in the line the solver may have other
moves that keep the gain or win the game, which :func:`check_move` (for a
puzzle page) accepts.

**Themes** (:data:`THEMES`, :func:`puzzle_themes`): each puzzle is tagged with
what its position and solution show: ``shot`` (material given on the way),
``king`` (a man crowned), ``endgame`` (a quarter of the pieces or fewer left),
``blockade`` (a win by leaving pieces that cannot move).

**Mining** (:func:`mine`, :func:`mine_game`): every position of a game from
ply ``skip_plies`` on (6 by default: the opening plies of self-play are book
moves and random moves) is analysed by the engine with two lines
(``multipv=2``) to ``depth`` plies, the hash cleared first so that a
position's analysis does not depend on what came before. Skipped: positions
with a single legal move, and positions where the side to move is already more
than ``max_lead`` (2) men ahead (the game is won already; a king counts 3).
Positions where the side to move must capture are kept when it has a choice
(choosing the right capture is a puzzle too): recaptures that merely restore
the balance never pass the score test below.
A position is a *candidate* when the best line scores at least ``min_score``
(a man) and at least ``min_gap`` (a man) more than the second: a lead the
evaluation may value well below its material (four men against two is about a
man and a half at depth 10), so the filter is loose and the proof decides. Then the
prover searches the best move at 1, 3, 5 ... up to ``max_proof_depth`` plies for
the largest net gain (stopping once the engine's score, in whole men, is
reached); the puzzle's ``depth`` is the smallest horizon giving that gain. The
gain must be at least ``min_gain`` and hold ``extra_plies`` (2) plies deeper
too (no counter-shot right after), the solution line is read off the prover
(the engine's principal variation preferred among equal moves), and the
puzzle is kept only when :func:`verify` proves it.

**Rating** (:func:`rate`)::

    rating = 700 + 60 * find_depth + 120 * (solver_moves - 1)
                 + 120 * quiet + 80 * sacrificed,    rounded to 10, clamped to 800..2200

``find_depth`` is the smallest engine depth from which the engine has found the
shot (analysed from a cleared hash): at that depth and every one after, its best
line is the solution's first move, scoring at least a man and at least a man
more than its second line; ``solver_moves`` is the number of the
solver's moves in the solution; ``quiet`` is 1 when the first move is not a
capture; ``sacrificed`` is the most material the solver is behind its starting
balance along the solution (men, a king 3), at most 3. A capture that wins a
man at once rates 800; the coup Philippe (four moves, two men given, found at
depth 2) 1460.

**The command line** (``damier.cli.puzzles``; a long job: a progress bar, Ctrl-C
stops it, and running the same command again resumes)::

    damier puzzles mine --variant international --games 400 --depth 10 \\
        --out puzzles.json --seed 1
    damier puzzles verify puzzles.json [--write]
    damier puzzles stats puzzles.json

``mine`` plays self-play games (:func:`selfplay_game`: International from a
shipped balanced opening and two random plies, other variants from six random
plies, then the engine at a fixed node budget per move; game ``G`` of seed
``S`` is the same game whenever it is played) and mines them. After each game
it appends one JSON line (the game's counts and puzzles) to the journal
(``OUT`` with ``.journal.jsonl`` instead of ``.json``) and rewrites ``OUT``:
``{"manifest": {...}, "puzzles": [...]}``. A rerun reads the journal and skips
the games already done; ``--games`` may grow between runs, the other options
must stay the same.

``verify`` proves every puzzle of a file again; with ``--write`` it rewrites the
file with the proven ones only, their themes told again, and adds to its manifest's
``"verified"`` list the command, the date and the puzzles dropped with the reason.

The shipped sets are ``damier/data/puzzles_<variant>.json``, with the manifest
that says how they were made; :func:`load_puzzles` reads the one the variant
registry names (:attr:`damier.variants.Variant.puzzles_file`). The
International and English sets were mined before the forced-win search existed and
then checked with ``damier puzzles verify FILE --write``: it dropped 20 of 333 and
16 of 163 puzzles, each with another first move that wins the game (a rule a puzzle
page that accepts every winning move needs).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, TextIO, Union

from damier._core import MATE_SCORE, MATE_THRESHOLD, Move
from damier.board import Board
from damier.piece import WHITE
from damier.progress import ProgressBar
from damier.variants import Variant, get_variant

if TYPE_CHECKING:
    from damier.egdb import Database
    from damier.engine import Engine, SearchInfo

__all__ = ["Puzzle", "Gain", "Verdict", "Prover", "ProofTooLarge", "MiningOptions",
           "MiningStats", "GameReport", "Step", "material", "prove", "verify", "solution_line",
           "check_move", "rate", "puzzle_id", "mine", "mine_game", "mine_position",
           "selfplay_game", "selfplay_games", "load_puzzles", "read_puzzles", "write_puzzles",
           "journal_path", "run_mining", "summarize",
           "forced_win", "puzzle_themes", "THEMES",
           "MAN_VALUE", "KING_VALUE", "WIN", "WIN_THRESHOLD", "WIN_PLIES", "WIN_NODES",
           "FOUND_MARGIN"]

Gain = Union[int, Literal["win"]]
"""Net material won (a man 1, a king 3), or ``"win"``: the opponent is left without a move."""

MAN_VALUE = 1
KING_VALUE = 3
WIN = 1000
"""The prover's value of a position whose side to move has won (the opponent cannot move)."""
WIN_THRESHOLD = WIN - 200
"""A prover value at least this is a forced win within the horizon."""
WIN_PLIES = 15
"""The longest forced win (plies, the move counted) looked for off a puzzle's solution:
:func:`check_move` accepts a move that wins the game within it, and :func:`prove` refuses
a puzzle whose other first moves do (see :func:`forced_win`)."""
WIN_NODES = 400_000
"""The node budget of that search, each move tried a node (about 0.4 s at most); a
win it does not find within the budget is not counted. :func:`check_move` and
:func:`prove` use the same search and budget, so a proven puzzle has no other first
move that :func:`check_move` accepts as a win."""

RATING_MIN = 800
RATING_MAX = 2200


# -- puzzles ----------------------------------------------------------------------------------


def _normal_fen(variant: Variant, fen: str) -> str:
    return Board(fen, variant=variant).fen()


def puzzle_id(variant: str | Variant, fen: str) -> str:
    """The stable id of a puzzle: the first 10 hex digits of the SHA-256 of
    ``"<variant>:<FEN>"``, the FEN as :meth:`damier.Board.fen` writes it.

    >>> puzzle_id("international", "W:W27,32,34,37,38,40,45,49:B1,2,11,12,16,18,23,25")
    '0620995d64'
    """
    v = get_variant(variant)
    text = f"{v.name}:{_normal_fen(v, fen)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _check_gain(gain: Any) -> Gain:
    if gain == "win":
        return "win"
    if isinstance(gain, int) and not isinstance(gain, bool) and gain >= 1:
        return gain
    raise ValueError(f"gain must be a whole number >= 1 or 'win', got {gain!r}")


@dataclass(frozen=True)
class Puzzle:
    """A shot: ``fen`` (the solver to move) and its ``solution``.

    :param id: :func:`puzzle_id` of the variant and FEN (:meth:`new` computes it).
    :param variant: the variant's name.
    :param fen: the position, as :meth:`damier.Board.fen` writes it.
    :param solution: move texts: the solver's moves and the replies, alternating,
        ending with the solver's move that realises the gain (a list is kept as a tuple).
    :param gain: net material won (a man 1, a king 3), or ``"win"``.
    :param rating: difficulty, about 800 to 2200 (see :func:`rate`).
    :param depth: the plies of the proof's horizon (first move included).
    :param source: where the position comes from, e.g. ``"selfplay seed 1 game 7 ply 31"``.
    :param themes: what kind of puzzle it is, names of :data:`THEMES` in that order
        (:func:`puzzle_themes` tells them; a list is kept as a tuple).
    """

    id: str
    variant: str
    fen: str
    solution: tuple[str, ...]
    gain: Gain
    rating: int
    depth: int
    source: str = ""
    themes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        solution = tuple(self.solution)
        if not solution or not all(isinstance(text, str) and text for text in solution):
            raise ValueError(f"a puzzle's solution is a non-empty list of moves, got {solution!r}")
        object.__setattr__(self, "solution", solution)
        themes = self.themes
        if isinstance(themes, str) or not isinstance(themes, Iterable):
            raise ValueError(f"a puzzle's themes are a list of names, got {themes!r}")
        themes = tuple(themes)
        unknown = [t for t in themes if t not in THEMES]
        if unknown:
            raise ValueError(f"unknown puzzle theme {unknown[0]!r} (the themes: "
                             f"{', '.join(THEMES)})")
        object.__setattr__(self, "themes", tuple(t for t in THEMES if t in themes))
        object.__setattr__(self, "gain", _check_gain(self.gain))
        for name in ("rating", "depth"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"a puzzle's {name} is a whole number >= 1, got {value!r}")

    @classmethod
    def new(cls, variant: str | Variant, fen: str, solution: Sequence[str], gain: Gain,
            rating: int, depth: int, source: str = "", themes: Iterable[str] = ()) -> Puzzle:
        """A puzzle with its id computed and its FEN normalised."""
        v = get_variant(variant)
        return cls(puzzle_id(v, fen), v.name, _normal_fen(v, fen), tuple(solution), gain,
                   rating, depth, source, tuple(themes))

    def board(self) -> Board:
        """The puzzle's position on a new board."""
        return Board(self.fen, variant=self.variant)

    @property
    def first_move(self) -> str:
        """The move to find."""
        return self.solution[0]

    @property
    def solver(self) -> str:
        """``"white"`` or ``"black"``: the side to move, who solves the puzzle."""
        return "white" if self.fen.startswith("W") else "black"

    @property
    def solver_moves(self) -> int:
        """How many moves of the solution are the solver's."""
        return (len(self.solution) + 1) // 2

    def to_dict(self) -> dict[str, Any]:
        """The puzzle as JSON-ready data (``solution`` a list)."""
        return {"id": self.id, "variant": self.variant, "fen": self.fen,
                "solution": list(self.solution), "gain": self.gain, "rating": self.rating,
                "depth": self.depth, "source": self.source, "themes": list(self.themes)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Puzzle:
        """The puzzle of :meth:`to_dict`'s data. The id must be the position's
        :func:`puzzle_id` (:class:`ValueError` otherwise)."""
        known = {f.name for f in fields(cls)}
        missing = known - {"source", "themes"} - set(data)
        if missing:
            raise ValueError(f"a puzzle needs {', '.join(sorted(missing))}")
        solution = data["solution"]
        if isinstance(solution, str) or not isinstance(solution, Sequence):
            raise ValueError(f"a puzzle's solution is a list of moves, got {solution!r}")
        themes = data.get("themes") or ()
        if isinstance(themes, str) or not isinstance(themes, Sequence):
            raise ValueError(f"a puzzle's themes are a list of names, got {themes!r}")
        puzzle = cls(str(data["id"]), str(data["variant"]), str(data["fen"]), tuple(solution),
                     data["gain"], data["rating"], data["depth"], str(data.get("source", "")),
                     tuple(themes))
        expected = puzzle_id(puzzle.variant, puzzle.fen)
        if puzzle.id != expected:
            raise ValueError(f"puzzle {puzzle.id!r}: the id of {puzzle.variant} {puzzle.fen} "
                             f"is {expected!r}")
        return puzzle


# -- the prover -------------------------------------------------------------------------------


class ProofTooLarge(Exception):
    """The prover went past its node budget."""


def material(board: Board) -> int:
    """Material from the side to move's point of view (a man 1, a king 3).

    >>> material(Board("W:W27,K32:B1,2"))
    2
    """
    white_men, white_kings, black_men, black_kings = board._counts()
    score = (MAN_VALUE * (white_men - black_men)
             + KING_VALUE * (white_kings - black_kings))
    return score if board.turn == WHITE else -score


class Prover:
    """Exhaustive negamax with alpha-beta pruning over a :class:`damier.Board`.

    Exact: it returns the minimax value whenever it lies inside the window
    ``(alpha, beta)``, a correct bound otherwise. ``max_nodes`` (None: no limit)
    makes a search raise :class:`ProofTooLarge` past that many nodes in all.

    >>> board = Board("W:W28,45:B23,5")
    >>> Prover().value_after(board, board.parse_move("28x19"), 3) - material(board)
    1
    """

    def __init__(self, max_nodes: int | None = None) -> None:
        self.nodes = 0
        self.max_nodes = max_nodes
        # what the forced-win search has proven: (variant, position key) -> (the fewest
        # plies it is known won within, 0 when none; the most plies known not enough)
        self._proven: dict[tuple[int, int], tuple[int, int]] = {}
        # the defence that last held a position (tried first when it comes again)
        self._saving: dict[tuple[int, int], Move] = {}

    def negamax(self, board: Board, depth: int, alpha: int = -WIN - 1,
                beta: int = WIN + 1) -> int:
        """The value of ``board`` for its side to move, searched ``depth`` plies
        (and on through captures)."""
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise ProofTooLarge(f"more than {self.max_nodes} nodes")
        moves = board.legal_moves
        if not moves:
            return -WIN
        if depth <= 0 and not moves[0].is_capture:
            return material(board)
        best = -WIN - 1
        for move in moves:
            # _push_legal/_pop_move: Board.push/pop without the game record's
            # bookkeeping (the draw rules), which this search does not use.
            board._push_legal(move)
            value = -self.negamax(board, depth - 1, -beta, -alpha)
            board._pop_move()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    def value_after(self, board: Board, move: Move, depth: int, alpha: int = -WIN - 1,
                    beta: int = WIN + 1) -> int:
        """The value for ``board``'s side to move of playing ``move``, ``depth``
        plies counted from ``board`` (``move`` included)."""
        board._push_legal(move)
        try:
            return -self.negamax(board, depth - 1, -beta, -alpha)
        finally:
            board._pop_move()

    def at_least(self, board: Board, move: Move, depth: int, bound: int) -> bool:
        """Whether ``move`` reaches at least ``bound`` (a null-window search)."""
        return self.value_after(board, move, depth, bound - 1, bound) >= bound

    # -- forced wins: the opponent left without a move ---------------------------------------

    def _count(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise ProofTooLarge(f"more than {self.max_nodes} nodes")

    def wins_within(self, board: Board, plies: int) -> bool:
        """Whether ``board``'s side to move leaves the opponent without a legal move
        within ``plies`` plies (its own moves counted) against every defence.

        A boolean search (each move tried is a node): the moves leaving the opponent
        the fewest replies are tried first, and what is proven of a position (won
        within ``n`` plies, or not within ``n``) is kept for the rest of the
        prover's searches, so that deepening ``plies`` two at a time costs little
        more than the last step.

        >>> Prover().wins_within(Board("W:W28:B23"), 1)         # 28x19 takes the last man
        True
        >>> Prover().wins_within(Board("W:WK31:BK20"), 5)       # a king each: a draw
        False
        """
        if plies < 1:
            return False
        key = (board.variant.index, board.zobrist_hash())
        won, lost = self._proven.get(key, (0, 0))
        if won and won <= plies:
            return True
        if lost >= plies:
            return False
        result = False
        tried: list[tuple[int, int, Move, list[Move]]] = []
        for index, move in enumerate(board.legal_moves):
            self._count()
            board._push_legal(move)
            if plies < 3:
                result = not board._has_legal_move()
                board._pop_move()
                if result:
                    break
                continue
            replies = board.legal_moves
            board._pop_move()
            if not replies:
                result = True
                break
            tried.append((len(replies), index, move, replies))
        if not result and tried:
            tried.sort(key=lambda item: (item[0], item[1]))
            for _, _, move, replies in tried:
                board._push_legal(move)
                try:
                    result = self._every_reply_loses(board, replies, plies - 1)
                finally:
                    board._pop_move()
                if result:
                    break
        if result:
            won = min(won, plies) if won else plies
        else:
            lost = max(lost, plies)
        self._proven[key] = (won, lost)
        return result

    def _every_reply_loses(self, board: Board, replies: list[Move], plies: int) -> bool:
        """Whether every one of ``replies``, the legal moves of ``board``'s side to move,
        lets the opponent win within ``plies - 1`` plies after it."""
        key = (board.variant.index, board.zobrist_hash())
        saving = self._saving.get(key)
        if saving is not None and saving in replies:
            replies = [saving, *(reply for reply in replies if reply != saving)]
        for reply in replies:
            self._count()
            board._push_legal(reply)
            try:
                won = self.wins_within(board, plies - 1)
            finally:
                board._pop_move()
            if not won:
                self._saving[key] = reply
                return False
        return True

    def win_distance(self, board: Board, move: Move, plies: int) -> int | None:
        """The fewest plies (``move`` counted: an odd number) within which playing
        ``move`` leaves the opponent without a legal move against every defence, searched
        up to ``plies``; None when there is no such win within ``plies``. Raises
        :class:`ProofTooLarge` past the node budget (the search deepens two plies at
        a time, so a budget stops it at the depth it had reached).

        >>> board = Board("W:W10,15,21,31,39,44:B4,12,32")
        >>> Prover().win_distance(board, board.parse_move("39-33"), 15)
        13
        >>> Prover().win_distance(board, board.parse_move("10-5"), 13) is None
        True
        """
        work = board.copy(stack=False)
        work._push_legal(move)
        self._count()
        replies = work.legal_moves
        if not replies:
            return 1
        for total in range(3, plies + 1, 2):
            if self._every_reply_loses(work, replies, total - 1):
                return total
        return None


def _need(board: Board, gain: Gain) -> int:
    """The value (absolute, side to move) that reaching ``gain`` means."""
    return WIN_THRESHOLD if gain == "win" else material(board) + gain


def _net(value: int, base: int) -> int | Literal["win"]:
    return "win" if value >= WIN_THRESHOLD else value - base


def forced_win(board: Board, move: Move, *, plies: int = WIN_PLIES,
               max_nodes: int | None = WIN_NODES,
               database: Database | None = None) -> int | None:
    """The plies (``move`` counted) within which playing ``move`` wins the game for
    ``board``'s side to move, the opponent left without a legal move against every
    defence; None when that is not shown.

    The endgame ``database`` decides when it is given and holds the position after
    ``move`` (at any distance: a database win is a win); otherwise the prover's
    forced-win search (:meth:`Prover.win_distance`) looks ``plies`` deep within
    ``max_nodes`` nodes. The draw rules are not looked at (as in the prover).

    >>> board = Board("W:W10,15,21,31,39,44:B4,12,32")
    >>> forced_win(board, board.parse_move("39-33"))
    13
    >>> forced_win(board, board.parse_move("21-16")) is None
    True
    """
    if database is not None and database.variant == board.variant:
        from damier.egdb import Wdl

        after = board.copy(stack=False)
        after._push_legal(move)
        wdl = database.get_wdl(after)
        if wdl is not None:
            if wdl != Wdl.LOSS:
                return None
            return 1 - database.probe_dtw(after)      # the opponent loses in -dtw plies
    try:
        return Prover(max_nodes).win_distance(board, move, plies)
    except ProofTooLarge:
        return None


@dataclass(frozen=True)
class Verdict:
    """What :func:`prove` or :func:`verify` found; true when proven.

    ``reason`` says why not (``"proven"`` otherwise); ``reached``: the net gain
    the first move reaches at the depth (``"win"`` for a forced win; None when
    not searched); ``rival``: another first move that reaches the gain too;
    ``nodes``: the prover's nodes."""

    ok: bool
    reason: str
    reached: int | Literal["win"] | None = None
    rival: str | None = None
    nodes: int = 0

    def __bool__(self) -> bool:
        return self.ok


def prove(board: Board, move: Move | str, *, gain: Gain, depth: int, extra_plies: int = 0,
          max_nodes: int | None = None, win_plies: int = WIN_PLIES,
          win_nodes: int | None = WIN_NODES, database: Database | None = None) -> Verdict:
    """Proves that ``move`` is a sound and unique shot in ``board``'s position:
    it reaches at least ``gain`` against every defence within ``depth`` plies
    (and within ``depth + extra_plies`` too), no other legal move reaches
    ``gain`` within ``depth`` plies, and no other legal move wins the game
    (:func:`forced_win` with ``win_plies``, ``win_nodes`` and ``database``;
    ``win_plies=0`` and no database leave that out), since :func:`check_move`
    accepts such a move too.

    >>> board = Board("W:W27,32,34,37,38,40,45,49:B1,2,11,12,16,18,23,25")
    >>> prove(board, "27-22", gain=2, depth=5)
    Verdict(ok=True, reason='proven', reached=2, rival=None, nodes=...)
    >>> prove(board, "27-22", gain=2, depth=3).reason
    'the first move reaches -1 at 3 plies, not +2'
    """
    gain = _check_gain(gain)
    board = board.copy(stack=False)
    if isinstance(move, str):
        move = board.parse_move(move)
    elif not board.is_legal(move):
        return Verdict(False, f"{move!r} is not legal")
    base = material(board)
    need = _need(board, gain)
    prover = Prover(max_nodes)
    try:
        reached = prover.value_after(board, move, depth)
        if reached < need:
            return Verdict(False, f"the first move reaches {_gain_text(_net(reached, base))} at "
                           f"{depth} plies, not {_gain_text(gain)}", _net(reached, base),
                           nodes=prover.nodes)
        if extra_plies > 0:
            deeper = prover.value_after(board, move, depth + extra_plies)
            if deeper < need:
                return Verdict(False, f"the first move reaches only "
                               f"{_gain_text(_net(deeper, base))} at {depth + extra_plies} "
                               "plies", _net(reached, base), nodes=prover.nodes)
        for other in board.legal_moves:
            if other != move and prover.at_least(board, other, depth, need):
                rival = board.notation(other)
                return Verdict(False, f"not unique: {rival} reaches {_gain_text(gain)} too",
                               _net(reached, base), rival, prover.nodes)
    except ProofTooLarge as exc:
        return Verdict(False, f"too large to prove ({exc})", nodes=prover.nodes)
    if win_plies > 0 or database is not None:
        for other in board.legal_moves:
            if other == move:
                continue
            plies = forced_win(board, other, plies=win_plies, max_nodes=win_nodes,
                               database=database)
            if plies is not None:
                rival = board.notation(other)
                return Verdict(False, f"not unique: {rival} wins the game too (in {plies} "
                               f"{_plies(plies)})", _net(reached, base), rival, prover.nodes)
    return Verdict(True, "proven", _net(reached, base), nodes=prover.nodes)


def _plies(count: int) -> str:
    return "ply" if count == 1 else "plies"


def _gain_text(gain: int | Literal["win"]) -> str:
    return "a win" if gain == "win" else f"{gain:+d}"


def verify(puzzle: Puzzle | Board | str, solution: Sequence[str] | str | None = None, *,
           gain: Gain | None = None, depth: int | None = None,
           variant: str | Variant = "international", complete: bool | None = None,
           extra_plies: int = 0, max_nodes: int | None = None, win_plies: int = WIN_PLIES,
           win_nodes: int | None = WIN_NODES, database: Database | None = None) -> Verdict:
    """Checks a puzzle with the prover, independently of the engine.

    ``puzzle`` is a :class:`Puzzle`, or a position (a board or a FEN of
    ``variant``) with its ``solution`` (a move, or the line as a list or as
    text separated by spaces), ``gain`` and ``depth``. Proven when:

    - the solution's moves are legal one after the other, and :func:`prove`
      proves its first move (sound and unique at ``depth`` plies, and no other
      first move winning the game: ``win_plies``, ``win_nodes``, ``database``);
    - when the solution is ``complete`` (the default for a :class:`Puzzle`):
      it has an odd number of moves (the solver moves last) and it realises
      the gain: after it the solver is at least ``gain`` ahead of the starting
      balance, and stays so once the pending captures are played out (or, for
      ``"win"``, the opponent has no move).

    >>> verify("W:W28,32,37,38,43,47:B1,3,10,17,19,20", "28-22", gain=4, depth=5)
    Verdict(ok=True, reason='proven', reached=4, rival=None, nodes=...)
    >>> verify("W:W28,32,37,38,43,47:B1,3,10,17,19,20", "32-27", gain=4, depth=5).reason
    'the first move reaches +0 at 5 plies, not +4'
    """
    if isinstance(puzzle, Puzzle):
        board = puzzle.board()
        texts: list[str] = list(puzzle.solution)
        gain = puzzle.gain if gain is None else gain
        depth = puzzle.depth if depth is None else depth
        complete = True if complete is None else complete
    else:
        board = Board(puzzle, variant=variant) if isinstance(puzzle, str) else puzzle.copy(
            stack=False)
        if solution is None or gain is None or depth is None:
            raise TypeError("verify() of a position needs its solution, gain and depth")
        texts = solution.split() if isinstance(solution, str) else list(solution)
        complete = False if complete is None else complete
    if not texts:
        return Verdict(False, "no solution")
    gain = _check_gain(gain)
    line = board.copy(stack=False)
    base = material(board)
    moves: list[Move] = []
    for ply, text in enumerate(texts):
        try:
            moves.append(line.push(text))
        except ValueError as exc:
            return Verdict(False, f"move {ply + 1} of the solution, {text!r}, is illegal: {exc}")
    if complete:
        if len(moves) % 2 == 0:
            return Verdict(False, "the solution ends with the opponent's move")
        if not _realised(line, base, gain):
            return Verdict(False, f"the solution does not realise {_gain_text(gain)}")
    return prove(board, moves[0], gain=gain, depth=depth, extra_plies=extra_plies,
                 max_nodes=max_nodes, win_plies=win_plies, win_nodes=win_nodes,
                 database=database)


def _realised(board: Board, base: int, gain: Gain) -> bool:
    """After a solver's move (``board``: the opponent to move), whether the gain
    is in hand: for a material gain, the solver is ``gain`` ahead of ``base``
    (its starting material) now and once the pending captures are played out."""
    if gain == "win":
        return not board.legal_moves
    need = base + gain
    if -material(board) < need:
        return False
    return -Prover().negamax(board, 0) >= need


def solution_line(board: Board, first: Move, *, gain: Gain, depth: int,
                  hint: Sequence[Move] = (), max_nodes: int | None = None) -> list[Move] | None:
    """The solution of a proven shot as moves: ``first``, then the best defence
    and a solver's move keeping the gain in hand, alternating, until the gain is
    realised (see :func:`verify`). Among equally good moves the ``hint`` line
    (the engine's principal variation) is preferred, then the first in
    move-generator order. None when ``first`` does not reach ``gain`` within
    ``depth`` plies.

    >>> board = Board("W:W27,32,34,37,38,40,45,49:B1,2,11,12,16,18,23,25")
    >>> line = solution_line(board, board.parse_move("27-22"), gain=2, depth=5)
    >>> " ".join(_texts(board, line))
    '27-22 18x27 32x21 16x27 34-30 25x34 40x16'
    """
    work = board.copy(stack=False)
    solver_need = _need(work, gain)          # absolute, from the solver's side
    base = material(work)
    prover = Prover(max_nodes)
    if not work.is_legal(first) or prover.value_after(work, first, depth) < solver_need:
        return None
    suggested = list(hint[1:]) if hint and hint[0] == first else []
    line = [first]
    work._push_legal(first)
    remaining = depth - 1
    for _ in range(2 * depth + 60):
        # the opponent to move
        if _realised(work, base, gain):
            return line
        replies = work.legal_moves
        reply = _pick(prover, work, replies, remaining, suggested[0] if suggested else None)
        suggested = suggested[1:] if suggested and suggested[0] == reply else []
        line.append(reply)
        work._push_legal(reply)
        remaining -= 1
        # the solver to move: a move keeping the gain in hand
        moves = work.legal_moves
        keep = suggested[0] if suggested and suggested[0] in moves else None
        if keep is None or prover.value_after(work, keep, remaining) < solver_need:
            keep = None
            for move in moves:
                if prover.value_after(work, move, remaining) >= solver_need:
                    keep = move
                    break
        if keep is None:
            return None
        suggested = suggested[1:] if suggested and suggested[0] == keep else []
        line.append(keep)
        work._push_legal(keep)
        remaining -= 1
    return None


def _pick(prover: Prover, board: Board, moves: Sequence[Move], depth: int,
          preferred: Move | None) -> Move:
    """The best move for ``board``'s side to move within ``depth`` plies:
    ``preferred`` (when legal) or the first move in order among equals."""
    ordered = list(moves)
    if preferred is not None and preferred in ordered:
        ordered.remove(preferred)
        ordered.insert(0, preferred)
    best_move = ordered[0]
    best = prover.value_after(board, best_move, depth)
    for move in ordered[1:]:
        value = prover.value_after(board, move, depth, best, WIN + 1)
        if value > best:
            best, best_move = value, move
    return best_move


@dataclass(frozen=True)
class Step:
    """The answer of :func:`check_move`: whether the move is ``ok`` (it keeps the
    gain in hand), whether the puzzle is then ``solved`` (the gain realised),
    and the opponent's ``reply`` to play next (None when solved or wrong)."""

    ok: bool
    solved: bool
    reply: str | None


def check_move(puzzle: Puzzle, played: Sequence[str], move: str, *,
               max_nodes: int | None = 2_000_000, win_plies: int = WIN_PLIES,
               win_nodes: int | None = WIN_NODES, database: Database | None = None) -> Step:
    """Judges the solver's ``move`` after the moves ``played`` from the puzzle's
    position (the solver's moves and the replies, an even number of them), for
    a puzzle page.

    A move is right when it is the solution's (while the player follows it), when
    the prover finds it still reaches the gain against every defence within the
    plies left of the puzzle's depth (at least one; ``max_nodes``), or when it wins
    the game (:func:`forced_win`: the endgame ``database`` when given and the
    position is in it, else a forced-win search ``win_plies`` deep within
    ``win_nodes``), even if more slowly or faster than the solution. The first move
    of a proven puzzle has no such rival (:func:`prove` checks it with the same
    search), so there only the solution's first move is right. The reply is the
    solution's while the player follows it; else, after a move that wins the game,
    the defence that holds out longest, and after any other the prover's best
    defence. An illegal ``move`` or ``played`` raises :class:`damier.IllegalMoveError`.

    >>> puzzle = Puzzle.new("international", "W:W27,32,34,37,38,40,45,49:B1,2,11,12,16,18,23,25",
    ...                     "27-22 18x27 32x21 16x27 34-30 25x34 40x16".split(), 2, 1460, 5)
    >>> check_move(puzzle, [], "34-30")
    Step(ok=False, solved=False, reply=None)
    >>> check_move(puzzle, [], "27-22")
    Step(ok=True, solved=False, reply='18x27')
    >>> check_move(puzzle, "27-22 18x27 32x21 16x27 34-30 25x34".split(), "40x16")
    Step(ok=True, solved=True, reply=None)
    """
    if len(played) % 2:
        raise ValueError("check_move() is for the solver's moves: played must hold an even "
                         f"number of moves, got {len(played)}")
    board = puzzle.board()
    base = material(board)
    for text in played:
        board.push(text)
    chosen = board.parse_move(move)
    ply = len(played)
    solution = puzzle.solution
    on_line = (list(played) == list(solution[:ply]) and ply < len(solution)
               and board.parse_move(solution[ply]) == chosen)
    remaining = max(1, puzzle.depth - ply)
    win: int | None = None
    if not on_line:
        need = WIN_THRESHOLD if puzzle.gain == "win" else base + puzzle.gain
        try:
            # on a copy: a search stopped by its budget leaves its moves on the board
            keeps = Prover(max_nodes).value_after(board.copy(stack=False), chosen,
                                                  remaining) >= need
        except ProofTooLarge:
            keeps = False
        if not keeps:
            win = forced_win(board, chosen, plies=win_plies, max_nodes=win_nodes,
                             database=database)
            if win is None:
                return Step(False, False, None)
    board.push(chosen)
    if not board.legal_moves or _realised(board, base, puzzle.gain):
        return Step(True, True, None)
    if on_line and ply + 1 < len(solution):
        return Step(True, False, solution[ply + 1])
    reply = _longest_defence(board, win, win_nodes, database) if win is not None else None
    if reply is None:
        reply = _pick(Prover(None), board, board.legal_moves, remaining - 1, None)
    return Step(True, False, board.notation(reply))


def _longest_defence(board: Board, plies: int, max_nodes: int | None,
                     database: Database | None) -> Move | None:
    """The reply of ``board``'s side to move, lost within ``plies`` plies (its own
    moves counted), that holds out longest: by the ``database`` when it holds the
    position, else by the forced-win search within ``max_nodes``; None past the budget."""
    if database is not None and database.variant == board.variant \
            and database.get_wdl(board) is not None:
        return database.best_moves(board.copy(stack=False))[0][0]
    prover = Prover(max_nodes)
    best: Move | None = None
    longest = -1
    try:
        for reply in board.legal_moves:
            board._push_legal(reply)
            try:
                lasts = next((n for n in range(1, plies, 2) if prover.wins_within(board, n)),
                             plies)
            finally:
                board._pop_move()
            if lasts > longest:
                best, longest = reply, lasts
    except ProofTooLarge:
        return None
    return best


def _texts(board: Board, moves: Sequence[Move]) -> list[str]:
    """``moves``, played one after the other from ``board``, as move texts."""
    work = board.copy(stack=False)
    texts = []
    for move in moves:
        texts.append(work.notation(move))
        work.push(move)
    return texts


# -- rating -----------------------------------------------------------------------------------


def rate(*, find_depth: int, solver_moves: int, quiet: bool, sacrificed: int) -> int:
    """The difficulty rating of a puzzle::

        700 + 60 * find_depth + 120 * (solver_moves - 1) + 120 * quiet + 80 * min(sacrificed, 3)

    rounded to a multiple of 10 and clamped to 800..2200 (see the module's doc).

    >>> rate(find_depth=1, solver_moves=1, quiet=False, sacrificed=0)
    800
    >>> rate(find_depth=5, solver_moves=4, quiet=True, sacrificed=2)
    1640
    """
    raw = (700 + 60 * max(1, find_depth) + 120 * (max(1, solver_moves) - 1)
           + 120 * int(quiet) + 80 * max(0, min(sacrificed, 3)))
    return max(RATING_MIN, min(RATING_MAX, int(round(raw / 10.0)) * 10))


def _sacrificed(board: Board, line: Sequence[Move]) -> int:
    """The most material the solver is behind its starting balance along ``line``."""
    work = board.copy(stack=False)
    base = material(work)
    worst = 0
    for ply, move in enumerate(line):
        work._push_legal(move)
        solver_view = -material(work) if ply % 2 == 0 else material(work)
        worst = max(worst, base - solver_view)
    return worst


# -- themes -----------------------------------------------------------------------------------

THEMES: dict[str, str] = {
    "shot": "the solver gives material on the way (a man or more behind its starting "
            "balance at some point of the solution) and wins more back: a combination",
    "king": "one of the solver's men is crowned in the solution",
    "endgame": "at most a quarter of the pieces the game starts with are on the board "
               "(10 in International, 6 on 8x8 boards)",
    "blockade": "the solution wins the game by leaving the opponent pieces that cannot move",
}
"""The themes a puzzle is tagged with (:attr:`Puzzle.themes`), in this order: each
name and what it means. :func:`puzzle_themes` tells them from the position and the
solution alone."""


def puzzle_themes(puzzle: Puzzle) -> tuple[str, ...]:
    """The :data:`THEMES` of ``puzzle``, told from its position and solution (an
    illegal solution raises :class:`damier.IllegalMoveError`).

    >>> coup = Puzzle.new("international", "W:W27,32,34,37,38,40,45,49:B1,2,11,12,16,18,23,25",
    ...                   "27-22 18x27 32x21 16x27 34-30 25x34 40x16".split(), 2, 1460, 5)
    >>> puzzle_themes(coup)      # two men given on the way, sixteen pieces on the board
    ('shot',)
    """
    board = puzzle.board()
    start = board.variant
    initial = Board(variant=start)
    found: set[str] = set()
    if sum(board._counts()) * 4 <= sum(initial._counts()):
        found.add("endgame")
    solver = board.turn
    work = board.copy(stack=False)
    moves = []
    for ply, text in enumerate(puzzle.solution):
        move = work.parse_move(text)
        piece = work.piece_at(move.from_square)
        work.push(move)
        moves.append(move)
        crowned = work.piece_at(move.to_square)
        if (ply % 2 == 0 and piece is not None and not piece.king and crowned is not None
                and crowned.king):
            found.add("king")
    if _sacrificed(board, moves) >= MAN_VALUE:
        found.add("shot")
    if puzzle.gain == "win" and not work.legal_moves and any(
            piece.color != solver for piece in work.piece_map().values()):
        found.add("blockade")
    return tuple(t for t in THEMES if t in found)


# -- mining -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MiningOptions:
    """How positions are mined (see the module's doc). Scores in centi-men."""

    depth: int = 10
    """Engine analysis depth (plies)."""
    min_gain: int = 1
    """Smallest net material gain kept (men)."""
    min_score: int = 100
    """The best line's score must be at least this."""
    min_gap: int = 100
    """... and at least this more than the second line's."""
    skip_plies: int = 6
    """Positions before this ply of the game are not mined."""
    max_proof_depth: int = 9
    """Deepest horizon at which the prover looks for the gain (plies)."""
    extra_plies: int = 2
    """The gain must hold this many plies past the puzzle's depth too."""
    max_nodes: int = 3_000_000
    """The prover's node budget per candidate; past it the candidate is dropped."""
    max_lead: int = 2
    """Positions where the side to move is already more than this ahead (men, a
    king 3) are not mined: the game is won already."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{f.name} must be a whole number >= 0, got {value!r}")
        if self.depth < 1 or self.min_gain < 1 or self.max_proof_depth < 1:
            raise ValueError("depth, min_gain and max_proof_depth must be at least 1")

    def to_dict(self) -> dict[str, int]:
        return {f.name: int(getattr(self, f.name)) for f in fields(self)}


@dataclass
class MiningStats:
    """Counts of a mining run."""

    games: int = 0
    positions: int = 0
    """Positions analysed by the engine."""
    candidates: int = 0
    """Positions passing the engine's score test."""
    proven: int = 0
    """Candidates proven and kept as puzzles (before removing duplicates)."""
    rejected: Counter[str] = field(default_factory=Counter)
    """Candidates dropped, by reason."""
    seconds: float = 0.0

    def add(self, other: MiningStats) -> None:
        self.games += other.games
        self.positions += other.positions
        self.candidates += other.candidates
        self.proven += other.proven
        self.rejected.update(other.rejected)
        self.seconds += other.seconds

    def to_dict(self) -> dict[str, Any]:
        return {"games": self.games, "positions": self.positions, "candidates": self.candidates,
                "proven": self.proven, "rejected": dict(sorted(self.rejected.items())),
                "seconds": round(self.seconds, 1)}


@dataclass
class GameReport:
    """The puzzles of one game and its counts (:func:`mine_game`)."""

    puzzles: list[Puzzle]
    stats: MiningStats


FOUND_MARGIN = 100
"""For the rating, the engine has found a shot at a depth when its best line there
is the shot's first move, scores at least this (a man) and at least this more
than its second line."""


def _find_depth(trace: Mapping[int, dict[int, tuple[Move | None, int]]], first: Move,
                options: MiningOptions) -> int:
    """The smallest depth from which the engine has found ``first`` at every
    depth (see :data:`FOUND_MARGIN`)."""
    found = max(trace) if trace else options.depth
    for depth in sorted(trace, reverse=True):
        lines = trace[depth]
        if 1 not in lines:
            break
        move, score = lines[1]
        second = lines[2][1] if 2 in lines else -MATE_SCORE
        if move != first or score < FOUND_MARGIN or score - second < FOUND_MARGIN:
            break
        found = depth
    return found


def mine_position(board: Board, engine: Engine, options: MiningOptions = MiningOptions(), *,
                  source: str = "") -> tuple[Puzzle | None, str]:
    """Mines one position: ``(puzzle, "proven")``, or ``(None, why)`` with
    ``why`` one of ``"single move"``, ``"no shot"`` (not a candidate: the engine
    sees no winning move standing out), ``"gain below N"``, ``"unstable"``,
    ``"not unique"``, ``"too large"``, ``"no line"``, ``"unproven"``."""
    if len(board.legal_moves) < 2:
        return None, "single move"
    trace: dict[int, dict[int, tuple[Move | None, int]]] = {}

    def record(info: SearchInfo) -> None:
        trace.setdefault(info.depth, {})[info.multipv] = (info.pv[0] if info.pv else None,
                                                          info.score)

    engine.new_game()
    lines = engine.search_lines(board, 2, depth=options.depth, info=record)
    best = lines[0]
    second = lines[1].score if len(lines) > 1 else -MATE_SCORE
    first = best.best_move
    if first is None or best.score < options.min_score or best.score - second < options.min_gap:
        return None, "no shot"
    work = board.copy(stack=False)
    base = material(work)
    prover = Prover(options.max_nodes)
    expected: Gain = "win" if best.score > MATE_THRESHOLD else max(options.min_gain,
                                                                    best.score // 100)
    gain: Gain | None = None
    depth = 0
    try:
        best_value = -WIN - 1
        for plies in range(1, options.max_proof_depth + 1, 2):
            value = prover.value_after(work, first, plies)
            if value > best_value:
                best_value, depth = value, plies
            if value >= WIN_THRESHOLD or (expected != "win" and value - base >= expected):
                break
        if best_value >= WIN_THRESHOLD:
            gain = "win"
        elif best_value - base >= options.min_gain:
            gain = best_value - base
        else:
            return None, f"gain below {options.min_gain}"
    except ProofTooLarge:
        return None, "too large"
    line = solution_line(work, first, gain=gain, depth=depth, hint=best.pv,
                         max_nodes=options.max_nodes)
    if line is None:
        return None, "no line"
    texts = _texts(work, line)
    rating = rate(find_depth=_find_depth(trace, first, options), solver_moves=(len(line) + 1) // 2,
                  quiet=not first.is_capture, sacrificed=_sacrificed(work, line))
    puzzle = Puzzle.new(board.variant, work.fen(), texts, gain, rating, depth, source)
    puzzle = replace(puzzle, themes=puzzle_themes(puzzle))
    verdict = verify(puzzle, extra_plies=options.extra_plies, max_nodes=options.max_nodes)
    if not verdict:
        if verdict.reason.startswith("not unique"):
            return None, "not unique"
        if verdict.reason.startswith("too large"):
            return None, "too large"
        if "reaches only" in verdict.reason:
            return None, "unstable"
        return None, "unproven"
    return puzzle, "proven"


def mine_game(game: Board | Mapping[str, Any], engine: Engine,
              options: MiningOptions = MiningOptions(), *, source: str = "game",
              on_position: Callable[[int], None] | None = None) -> GameReport:
    """Mines every position of a game (see :func:`mine_position`).

    ``game`` is a board whose move stack is the game (played from its root,
    which may be a set-up position), or a record ``{"variant", "moves"}`` (and
    optionally ``"fen"``, the start position) as :func:`damier.tuning.selfplay`
    writes. Each puzzle's source is ``f"{source} ply {P}"``, ``P`` the ply of
    its position in the game. ``on_position`` is called with each ply mined."""
    start = time.process_time()
    if isinstance(game, Board):
        board = game.root()
        moves: list[Move | str] = list(game.move_stack)
    else:
        board = Board(game.get("fen"), variant=str(game.get("variant", "international")))
        moves = list(game["moves"])
    stats = MiningStats(games=1)
    puzzles: list[Puzzle] = []
    for ply in range(len(moves) + 1):
        if (ply >= options.skip_plies and len(board.legal_moves) >= 2
                and material(board) <= options.max_lead):
            stats.positions += 1
            puzzle, why = mine_position(board, engine, options, source=f"{source} ply {ply}")
            if why != "no shot":
                stats.candidates += 1
                if puzzle is not None:
                    stats.proven += 1
                    puzzles.append(puzzle)
                else:
                    stats.rejected[why] += 1
            if on_position is not None:
                on_position(ply)
        if ply < len(moves):
            board.push(moves[ply])
    stats.seconds = time.process_time() - start
    return GameReport(puzzles, stats)


def mine(games: Iterable[Board | Mapping[str, Any]], engine: Engine, *, depth: int = 10,
         min_gain: int = 1, min_score: int = 100, min_gap: int = 100, skip_plies: int = 6,
         max_proof_depth: int = 9, extra_plies: int = 2, max_nodes: int = 3_000_000,
         max_lead: int = 2, stats: MiningStats | None = None) -> list[Puzzle]:
    """The puzzles of ``games`` (boards or records, see :func:`mine_game`), each
    position once (the first game it occurs in), in the order found. The
    counts are added to ``stats`` when given. The source of a puzzle is
    ``"game G ply P"``, or ``"<record's source> ply P"`` for a record with a
    ``"source"``."""
    options = MiningOptions(depth=depth, min_gain=min_gain, min_score=min_score,
                            min_gap=min_gap, skip_plies=skip_plies,
                            max_proof_depth=max_proof_depth, extra_plies=extra_plies,
                            max_nodes=max_nodes, max_lead=max_lead)
    found: dict[str, Puzzle] = {}
    for number, game in enumerate(games, start=1):
        label = f"game {number}"
        if not isinstance(game, Board) and game.get("source"):
            label = str(game["source"])
        report = mine_game(game, engine, options, source=label)
        if stats is not None:
            stats.add(report.stats)
        for puzzle in report.puzzles:
            found.setdefault(puzzle.id, puzzle)
    return list(found.values())


# -- self-play games --------------------------------------------------------------------------


def selfplay_game(variant: str | Variant, engine: Engine, *, seed: int, game: int,
                  nodes: int = 1000, opening_plies: int = 6, max_plies: int = 250) -> Board:
    """Self-play game number ``game`` of ``seed``, as a board whose move stack is
    the game: a variant with shipped openings from a balanced opening and two random
    plies, other variants from ``opening_plies`` random plies, then the
    engine's best move at ``nodes`` nodes a move (its hash cleared first) until
    the game ends or ``max_plies``. The same arguments give the same game."""
    from damier.openings import load_openings, opening_board

    v = get_variant(variant)
    rnd = random.Random(seed * 1_000_003 + game)
    openings = load_openings(variant=v) if v.openings_file else []
    if openings:
        board = opening_board(rnd.choice(openings), v)
        extra = min(opening_plies, 2)
    else:
        board = Board(variant=v)
        extra = opening_plies
    for _ in range(extra):
        moves = board.legal_moves
        if not moves or board.outcome() is not None:
            break
        board.push(rnd.choice(moves))
    engine.new_game()
    while board.outcome() is None and board.ply < max_plies:
        found = engine.search(board, nodes=nodes)
        if found.best_move is None:
            break
        board.push(found.best_move)
    return board


def selfplay_games(variant: str | Variant, n: int, engine: Engine, *, nodes: int = 1000,
                   seed: int = 1, start: int = 1) -> Iterator[Board]:
    """Games ``start`` .. ``start + n - 1`` of :func:`selfplay_game`."""
    for game in range(start, start + n):
        yield selfplay_game(variant, engine, seed=seed, game=game, nodes=nodes)


# -- files ------------------------------------------------------------------------------------


def read_puzzles(source: str | os.PathLike[str] | IO[str]) -> tuple[list[Puzzle], dict[str, Any]]:
    """The puzzles of a file (a path or an open text file) and its manifest
    (``{}`` when it has none): a JSON document ``{"manifest", "puzzles"}``, a
    JSON list of puzzles, or a mining journal (JSON lines)."""
    if isinstance(source, (str, os.PathLike)):
        text = Path(source).read_text(encoding="utf-8")
    else:
        text = source.read()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and "puzzles" in data:
        return ([Puzzle.from_dict(p) for p in data["puzzles"]],
                dict(data.get("manifest") or {}))
    if isinstance(data, list):
        return [Puzzle.from_dict(p) for p in data], {}
    header, games, _ = _read_journal_text(text)
    seen: dict[str, Puzzle] = {}
    for record in games.values():
        for item in record.get("puzzles", []):
            puzzle = Puzzle.from_dict(item)
            seen.setdefault(puzzle.id, puzzle)
    return list(seen.values()), header


def write_puzzles(path: str | os.PathLike[str], puzzles: Iterable[Puzzle],
                  manifest: Mapping[str, Any] | None = None) -> None:
    """Writes ``{"manifest": ..., "puzzles": [...]}`` to ``path`` at once
    (through a temporary file): the puzzles sorted by rating, then id."""
    ordered = sorted(puzzles, key=lambda p: (p.rating, p.id))
    data = {"manifest": dict(manifest or {}), "puzzles": [p.to_dict() for p in ordered]}
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        handle.write("{\n\"manifest\": ")
        handle.write(json.dumps(data["manifest"], indent=1))
        handle.write(",\n\"puzzles\": [\n")
        handle.write(",\n".join(json.dumps(p) for p in data["puzzles"]))
        handle.write("\n]\n}\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, target)


def load_puzzles(variant: str | Variant = "international") -> list[Puzzle]:
    """The puzzles shipped for ``variant`` (``damier/data/puzzles_<variant>.json``),
    easiest first; ``[]`` for a variant with none shipped.

    >>> puzzles = load_puzzles("international")
    >>> len(puzzles) >= 60, puzzles[0].rating <= puzzles[-1].rating
    (True, True)
    """
    v = get_variant(variant)
    if v.puzzles_file is None:
        return []
    resource = resources.files("damier") / "data" / v.puzzles_file
    if not resource.is_file():
        return []
    with resource.open("r", encoding="utf-8") as handle:
        puzzles, _ = read_puzzles(handle)
    return sorted(puzzles, key=lambda p: (p.rating, p.id))


# -- the mining job ---------------------------------------------------------------------------


def journal_path(out: str | os.PathLike[str]) -> Path:
    """The mining journal kept beside ``out``: ``x.json`` -> ``x.journal.jsonl``."""
    path = Path(out)
    stem = path.name[:-5] if path.name.endswith(".json") else path.name
    return path.with_name(stem + ".journal.jsonl")


def _read_journal_text(text: str) -> tuple[dict[str, Any], dict[int, dict[str, Any]],
                                           list[dict[str, Any]]]:
    """The journal's header, its games by number and its sessions (one per run
    that mined games: when, and with which engine). A line cut short by an
    interruption (the last one) is ignored."""
    header: dict[str, Any] = {}
    games: dict[int, dict[str, Any]] = {}
    sessions: list[dict[str, Any]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("type") == "mining":
            header = record
        elif record.get("type") == "game":
            games[int(record["game"])] = record
        elif record.get("type") == "session":
            sessions.append(record)
    return header, games, sessions


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10,
                              cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.rstrip("\n") if done.returncode == 0 else None


def _engine_version() -> dict[str, Any]:
    from damier import __version__

    import damier._core

    commit = _git("rev-parse", "HEAD")
    changed = _git("status", "--porcelain", "--", ".")
    dirty = sorted(line[3:] for line in changed.splitlines()) if changed else []
    core = Path(damier._core.__file__ or "")
    digest = hashlib.sha256(core.read_bytes()).hexdigest()[:16] if core.is_file() else None
    return {"damier": __version__, "commit": commit, "uncommitted_changes": dirty,
            "compiled_core": core.name, "compiled_core_sha256": digest}


def summarize(puzzles: Sequence[Puzzle]) -> dict[str, Any]:
    """Counts of ``puzzles``: how many, their ratings (extremes, quartiles, 200-point
    buckets), gains, depths, how many begin with a quiet move and how many have each
    theme (the ``summary`` of a mined file's manifest; ``damier puzzles stats`` prints
    it)."""
    ratings = sorted(p.rating for p in puzzles)
    gains = Counter(str(p.gain) for p in puzzles)
    buckets = Counter(f"{r // 200 * 200}-{r // 200 * 200 + 199}" for r in ratings)

    def quantile(q: float) -> int | None:
        return ratings[min(len(ratings) - 1, int(q * len(ratings)))] if ratings else None

    return {"puzzles": len(puzzles),
            "rating": {"min": ratings[0] if ratings else None, "p25": quantile(0.25),
                       "median": quantile(0.5), "p75": quantile(0.75),
                       "max": ratings[-1] if ratings else None,
                       "histogram": dict(sorted(buckets.items(),
                                                key=lambda kv: int(kv[0].split("-")[0])))},
            "gain": dict(sorted(gains.items())),
            "depth": dict(sorted(Counter(str(p.depth) for p in puzzles).items(),
                                 key=lambda kv: int(kv[0]))),
            "quiet_first_move": sum(1 for p in puzzles if "x" not in p.first_move),
            "themes": {name: count for name in THEMES
                       if (count := sum(1 for p in puzzles if name in p.themes))}}


def run_mining(*, variant: str, games: int, out: str | os.PathLike[str], seed: int = 1,
               nodes: int = 1000, options: MiningOptions = MiningOptions(),
               journal: str | os.PathLike[str] | None = None, command: str | None = None,
               progress: bool = True, stream: TextIO | None = None) -> MiningStats:
    """The ``mine`` command: mines self-play games 1..``games`` of ``seed``
    into ``out``, resuming from the journal (see the module's doc). Returns the
    counts of the games mined by this call. Stopped by Ctrl-C
    (:class:`KeyboardInterrupt` propagates; the games done are kept)."""
    from damier.engine import Engine

    v = get_variant(variant)
    stream = stream if stream is not None else sys.stderr
    journal = Path(journal) if journal is not None else journal_path(out)
    settings = {"variant": v.name, "seed": seed, "nodes": nodes, "options": options.to_dict()}
    header, done, sessions = _read_journal_text(journal.read_text(encoding="utf-8")) \
        if journal.exists() else ({}, {}, [])
    if header:
        previous = {k: header.get(k) for k in settings}
        if previous != settings:
            raise ValueError(f"{journal} was written with other settings ({previous}); "
                             f"use another --out, or the same settings ({settings})")
    else:
        if done:
            raise ValueError(f"{journal} has no header line")
        with journal.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"type": "mining", **settings,
                                     "started": _now()}) + "\n")

    def write_out() -> MiningStats:
        total = MiningStats()
        found: dict[str, Puzzle] = {}
        for number in sorted(done):
            record = done[number]
            part = record["stats"]
            total.add(MiningStats(part["games"], part["positions"], part["candidates"],
                                  part["proven"], Counter(part["rejected"]), part["seconds"]))
            for item in record["puzzles"]:
                puzzle = Puzzle.from_dict(item)
                found.setdefault(puzzle.id, puzzle)
        manifest = {
            "command": command or _command_text(variant=v.name, games=games, out=out, seed=seed,
                                                nodes=nodes, options=options),
            "made_by": "damier.puzzles mine: self-play games of damier's engine, mined and "
                       "proved (see the damier.puzzles module doc)",
            **settings, "games": games, "games_done": len(done),
            "engine": sessions[-1]["engine"] if sessions else _engine_version(),
            "sessions": [{k: item[k] for k in ("started", "engine", "first_game")}
                         for item in sessions],
            "updated": _now(),
            "counts": {**total.to_dict(), "unique_puzzles": len(found)},
            "summary": summarize(list(found.values())),
        }
        write_puzzles(out, found.values(), manifest)
        return total

    todo = [g for g in range(1, games + 1) if g not in done]
    this_run = MiningStats()
    engine = Engine(hash_mb=16)
    bar = ProgressBar("mining", total=games, done=games - len(todo), stream=stream,
                      enabled=progress)
    if not todo:
        write_out()
    # this run's session line goes in with its first game done
    session = {"type": "session", "started": _now(), "engine": _engine_version(),
               "first_game": todo[0] if todo else None}
    try:
        if done and todo:
            bar.message(f"resuming: {len(done)} game(s) already in {journal}")
        for number in todo:
            board = selfplay_game(v, engine, seed=seed, game=number, nodes=nodes)
            label = f"selfplay seed {seed} game {number}"

            def tick(ply: int, number: int = number, plies: int = board.ply) -> None:
                bar.update(f"game {number} ply {ply}/{plies}  {this_run.proven} puzzles")

            report = mine_game(board, engine, options, source=label, on_position=tick)
            this_run.add(report.stats)
            record = {"type": "game", "game": number, "plies": board.ply,
                      "moves": _texts(board.root(), board.move_stack),
                      "stats": report.stats.to_dict(),
                      "puzzles": [p.to_dict() for p in report.puzzles]}
            with journal.open("a", encoding="utf-8") as handle:
                if not sessions or sessions[-1] is not session:
                    handle.write(json.dumps(session) + "\n")
                    sessions.append(session)
                handle.write(json.dumps(record) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            done[number] = record
            total = write_out()
            bar.update(f"{total.proven} puzzles ({len(report.puzzles)} in game {number})",
                       advance=1,
                       line=f"[{len(done)}/{games}] game {number}: {board.ply} plies, "
                            f"{report.stats.positions} positions, {report.stats.candidates} "
                            f"candidates, {len(report.puzzles)} puzzles; {total.proven} in all")
    finally:
        bar.close()
    return this_run


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def _command_text(*, variant: str, games: int, out: str | os.PathLike[str], seed: int,
                  nodes: int, options: MiningOptions) -> str:
    defaults = MiningOptions()
    parts = ["damier puzzles mine", f"--variant {variant}", f"--games {games}",
             f"--depth {options.depth}", f"--out {Path(out).name}", f"--seed {seed}",
             f"--nodes {nodes}"]
    for name in ("min_gain", "min_score", "min_gap", "skip_plies", "max_proof_depth",
                 "extra_plies", "max_nodes", "max_lead"):
        if getattr(options, name) != getattr(defaults, name):
            parts.append(f"--{name.replace('_', '-')} {getattr(options, name)}")
    return " ".join(parts)


if __name__ == "__main__":  # pragma: no cover - the command line is damier.cli.puzzles
    raise SystemExit("damier.puzzles has no command line: run 'damier puzzles "
                     "mine|verify|stats ...' (or python -m damier.cli.puzzles)")
