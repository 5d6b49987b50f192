"""``damier play``: draughts in the terminal, against the engine or another person.

The session lives in :class:`PlaySession`, which takes input lines and
produces output items (:class:`Message` and :class:`BoardView`); it needs no
terminal, so it is tested directly. The game itself (moves, undo/redo, who is to
move, resignation, draws, clocks, the end in words) is a :class:`damier.game.Game`,
the same as the web app's. :func:`run_terminal` is the thin loop on
top: it draws the items with `rich`, reads lines, and runs the engine's
searches in a worker thread with a spinner (the compiled search releases the
GIL), where Ctrl-C stops the search cleanly. The command line (its arguments and
their checks) is :mod:`damier.cli.play`.

>>> session = PlaySession(white="human", black="human")
>>> print(session.send("32"))
'32' is not enough: several moves start on 32: 32-27, 32-28; type the whole move, e.g. 32-27
>>> print(session.send("32-28").splitlines()[0])
1. 32-28
>>> session.board.fen(compact=True)
'B:W28,31,33-50:B1-20'
>>> print(session.send("46-41"))
illegal move '46-41': the piece on 46 is White's, and it is Black's move; legal moves are
16-21, 17-21, 17-22, 18-22, 18-23, 19-23, 19-24, 20-24, 20-25

Moves are typed in standard notation (``32-28``, ``19x28``; the full path,
or enough of it, for an ambiguous capture). A from-square with exactly one
legal move, or a unique beginning of a move, is enough: ``32`` plays
``32-28`` when that is the only move from 32. Moves are read, and illegal
ones explained, by :mod:`damier.moves`, as everywhere in damier. The commands
are listed by ``help`` (:data:`COMMANDS`).

Every score shown (the engine's moves, its thinking, hints, draw offers) is White's
view, as in the web app, and the greeting says so once (:data:`SCORE_CONVENTION`).
With clocks, the terminal waits for a person's line only until that person's flag
falls: the game then ends at once, and the end is said once.
"""

from __future__ import annotations

import datetime
import difflib
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from damier.board import Board
from damier.egdb import DEFAULT_ENGINE_PIECES, EgdbSetting
from damier.engine import LEVELS, Engine, SearchInfo, SearchResult
from damier.engine_types import MATE_SCORE, MATE_THRESHOLD
from damier.errors import MoveError, PdnError
from damier.game import (COLOR_TITLES, DEFAULT_LEVEL, ENGINE, HUMAN, PLAYER_KINDS, Game, GameEnd,
                         GameError, parse_time_control)
from damier.moves import capture_rule, explain_illegal, move_listing, read_move
from damier.piece import BLACK, WHITE, Color, Piece
from damier.rules import Rules
from damier.variants import Variant, get_variant

__all__ = [
    "PlaySession",
    "Message",
    "BoardView",
    "GameEnd",
    "SearchInterrupted",
    "ThinkTask",
    "COMMANDS",
    "PIECE_SETS",
    "parse_play_clock",
    "resolve_move",
    "explain_illegal",
    "render_board",
    "render_item",
    "run_terminal",
    "TerminalThinker",
    "SCORE_CONVENTION",
    "white_view",
    "plies_text",
    "example_moves",
]


DEFAULT_MOVETIME = 1.0
"""The seconds of a hint and of weighing a draw offer (the engine's moves take their
level's time, :data:`damier.engine.LEVELS`, unless ``movetime`` is given)."""
DRAW_MARGIN = 25
"""The engine accepts a draw offer when its score is within this many centi-men of 0."""

COMMANDS: dict[str, tuple[str, str]] = {
    "help": ("help [COMMAND]", "list the commands, or explain one"),
    "moves": ("moves", "list the legal moves"),
    "board": ("board", "draw the board again"),
    "hint": ("hint", "ask the engine for a move"),
    "undo": ("undo", "take back your last move (and the engine's reply)"),
    "redo": ("redo", "play again what undo took back"),
    "go": ("go", "let the engine move now (resumes after Ctrl-C; at your turn it moves for you)"),
    "flip": ("flip", "turn the board around"),
    "numbers": ("numbers [on|off]", "show the square numbers on the empty squares"),
    "level": ("level N", "engine strength, 1 (a beginner can win) to 10 (full strength)"),
    "new": ("new [VARIANT] [white|black]", "a new game (optionally another variant, "
            "or playing the other colour against the engine)"),
    "fen": ("fen [FEN]", "print the position, or set one up (a new game from there)"),
    "load": ("load FILE", "load a PDN game (its main line) and go on from its end"),
    "save": ("save FILE", "write the game to a PDN file"),
    "draw": ("draw", "offer a draw (or accept your opponent's offer)"),
    "resign": ("resign", "give up the game"),
    "rules": ("rules", "the rules of this variant"),
    "quit": ("quit", "leave (also: exit, Ctrl-D)"),
}
ALIASES = {"exit": "quit", "q": "quit", "?": "help", "h": "help", "accept": "draw",
           "takeback": "undo", "back": "undo", "number": "numbers", "setup": "fen",
           "position": "fen", "open": "load", "write": "save"}


# -- output items -----------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """A line (or a few) of output. ``kind`` picks the style: ``info``, ``move``,
    ``error``, ``hint``, ``result`` or ``help``."""

    text: str
    kind: str = "info"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class BoardView:
    """What the board drawing needs: a snapshot of the position and the display options."""

    variant: Variant
    pieces: dict[int, Piece]
    turn: Color
    flipped: bool = False
    numbers: bool = False
    last_move: Any = None
    """The last move played (a :class:`damier.Move`), marked on the board."""
    status: tuple[str, ...] = ()
    """Lines printed under the board."""

    def __str__(self) -> str:
        return str(render_board(self, color=False).plain)


Item = Union[Message, BoardView]


# -- thinking -----------------------------------------------------------------------------


class SearchInterrupted(Exception):
    """The user stopped a search (Ctrl-C)."""


@dataclass
class ThinkTask:
    """A search to run: ``run(info_callback)`` does it (in any thread), ``stop()``
    ends it early from another thread, ``describe(info)`` words its progress."""

    label: str
    run: Callable[[Callable[[SearchInfo], None] | None], Any]
    stop: Callable[[], None]
    describe: Callable[[SearchInfo], str] = field(default=lambda info: "")


def plain_thinker(task: ThinkTask) -> Any:
    """Runs the search in the calling thread (tests, scripts)."""
    return task.run(None)


# -- clocks -------------------------------------------------------------------------------

parse_play_clock = parse_time_control
"""The time control of ``--clock`` (:func:`damier.game.parse_time_control`)."""


def format_clock(seconds: float) -> str:
    """``4:05``, or ``0:07.3`` under 20 seconds.

    >>> format_clock(245.2), format_clock(7.34), format_clock(-1)
    ('4:05', '0:07.3', '0:00.0')
    """
    seconds = max(0.0, seconds)
    if seconds < 20:
        return f"0:{seconds:04.1f}"
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


# -- scores -----------------------------------------------------------------------------------

SCORE_CONVENTION = "Scores are from White's side: + is good for White, - for Black."
"""Said once, in the greeting: every score the terminal shows (the engine's moves, its
thinking, hints, draw offers) is White's view, as in the web app."""


def white_view(score: int, turn: Color) -> str:
    """An engine score of the side to move (``turn``) in White's view: ``+0.35`` is
    good for White, ``-0.35`` for Black; a forced result names the winner.

    >>> white_view(35, WHITE), white_view(35, BLACK)
    ('+0.35', '-0.35')
    >>> white_view(MATE_SCORE - 7, BLACK), white_view(-(MATE_SCORE - 1), BLACK)
    ('Black wins in 7 plies', 'White wins in 1 ply')
    """
    value = score if turn == WHITE else -score
    if abs(value) > MATE_THRESHOLD:
        plies = MATE_SCORE - abs(value)
        return (f"{'White' if value > 0 else 'Black'} wins in {plies} "
                f"{'ply' if plies == 1 else 'plies'}")
    return f"{value / 100:+.2f}"


def plies_text(count: int) -> str:
    """``1 ply``, ``32 plies``: a count of half-moves (one side's move each).

    >>> plies_text(1), plies_text(0), plies_text(32)
    ('1 ply', '0 plies', '32 plies')
    """
    return f"{count} ply" if count == 1 else f"{count} plies"


def example_moves(board: Board) -> tuple[str, str | None]:
    """Moves to show as examples of typing: a legal move of ``board`` (of the variant's
    start position when ``board`` has none), and a square from which exactly one legal
    move starts (None when there is none), as typed alone.

    >>> example_moves(Board())
    ('31-26', '35')
    >>> example_moves(Board(variant="russian"))
    ('22-17', '21')
    """
    moves = board.legal_moves
    if not moves:
        board = Board(variant=board.variant)
        moves = board.legal_moves
    starts: dict[int, int] = {}
    for move in moves:
        starts[move.from_square] = starts.get(move.from_square, 0) + 1
    alone = [square for square, count in starts.items() if count == 1]
    several = [m for m in moves if starts[m.from_square] > 1]
    move = several[0] if several else moves[0]
    return board.notation(move), (str(alone[-1]) if alone else None)


# -- reading moves ---------------------------------------------------------------------------

_MOVE_LIKE = re.compile(r"^\s*(\d|[a-h](10|[1-9])(\s*[-x×:]|\s*$))", re.IGNORECASE)


def looks_like_move(text: str) -> bool:
    """Whether ``text`` is meant as a move (it starts with a square), not a command."""
    return bool(_MOVE_LIKE.match(text))


resolve_move = read_move
"""The move that a line typed names, and whether it was completed: moves are read
by :func:`damier.moves.read_move` (the one move-input path of damier)."""


# -- drawing the board -------------------------------------------------------------------------

PIECE_SETS: dict[str, dict[tuple[bool, bool, bool], str]] = {
    # (colour terminal, white, king) -> glyph; without colour the sides differ in shape.
    "disc": {
        (True, WHITE, False): "●", (True, WHITE, True): "◉",
        (True, BLACK, False): "●", (True, BLACK, True): "◉",
        (False, WHITE, False): "○", (False, WHITE, True): "◎",
        (False, BLACK, False): "●", (False, BLACK, True): "◉",
    },
    "draughts": {
        (c, WHITE, False): "⛀" for c in (True, False)} | {
        (c, WHITE, True): "⛁" for c in (True, False)} | {
        (c, BLACK, False): "⛂" for c in (True, False)} | {
        (c, BLACK, True): "⛃" for c in (True, False)},
    "ascii": {
        (c, WHITE, False): "w" for c in (True, False)} | {
        (c, WHITE, True): "W" for c in (True, False)} | {
        (c, BLACK, False): "b" for c in (True, False)} | {
        (c, BLACK, True): "B" for c in (True, False)},
}

_LIGHT = "on #eed8b4"
_DARK = "on #8a5a36"
_MARKED = "on #b8892c"
_WHITE_PIECE = "bold #ffffff"
_BLACK_PIECE = "bold #101010"


def render_board(view: BoardView, *, color: bool = True, pieces: str = "disc") -> Any:
    """The board as a :class:`rich.text.Text` (``.plain`` is the text without styles).

    With ``color`` the squares and pieces are coloured and the last move's squares
    are highlighted; without it the empty dark squares show ``.`` and the two
    sides differ in shape (``○`` White, ``●`` Black; ``◎``/``◉`` kings). Each row
    is labelled with the numbers of its first and last squares; ``numbers``
    puts its number on every empty square.
    """
    from rich.text import Text

    variant = view.variant
    glyphs = PIECE_SETS.get(pieces, PIECE_SETS["disc"])
    size = variant.size
    rows = list(range(size))
    cols = list(range(size))
    if view.flipped:
        rows.reverse()
        cols.reverse()
    marked: set[int] = set()
    captured: set[int] = set()
    from_square = None
    if view.last_move is not None:
        marked = {view.last_move.from_square, view.last_move.to_square}
        from_square = view.last_move.from_square
        captured = set(view.last_move.captures)
    width = len(str(variant.squares))
    text = Text()
    for row in rows:
        squares = [variant.square_at(row, c) for c in cols]
        dark = [s for s in squares if s is not None]
        text.append(f"{dark[0]:>{width}} ", style="dim")
        for col, square in zip(cols, squares, strict=True):
            if square is None:
                text.append("   ", style=_LIGHT if color else "")
                continue
            # every square is played on the Turkish board: the light ones keep their shade
            shade = _LIGHT if variant.all_squares and (row + col) % 2 == 0 else _DARK
            background = _MARKED if (color and square in marked) else (shade if color else "")
            piece = view.pieces.get(square)
            if piece is not None:
                glyph = glyphs[(color, piece.color, piece.king)]
                style = (_WHITE_PIECE if piece.color == WHITE else _BLACK_PIECE) if color else ""
                text.append(f" {glyph} ", style=f"{style} {background}".strip())
            elif view.numbers:
                text.append(f"{square:^3}", style=f"#d9c2a0 {background}".strip() if color else "")
            elif square in captured:
                text.append(" × ", style=f"#e06050 {background}".strip() if color else "")
            elif square == from_square:
                text.append(" · ", style=f"#f0e0c0 {background}".strip() if color else "")
            else:
                text.append(" . " if not color else "   ", style=background)
        text.append(f" {dark[-1]}", style="dim")
        text.append("\n")
    for line in view.status:
        text.append(line + "\n")
    text.rstrip()
    return text


def render_item(item: Item, *, color: bool = True, pieces: str = "disc") -> Any:
    """A :class:`Message` or :class:`BoardView` as rich Text."""
    from rich.text import Text

    if isinstance(item, BoardView):
        return render_board(item, color=color, pieces=pieces)
    styles = {"error": "bold red", "hint": "cyan", "result": "bold yellow", "move": "bold",
              "help": "", "info": "", "warning": "yellow"}
    return Text(item.text, style=styles.get(item.kind, "") if color else "")


# -- the session ---------------------------------------------------------------------------


class PlaySession:
    """A game of draughts driven by text lines, with no terminal.

    :param variant: the variant (default International).
    :param white, black: ``"human"`` or ``"engine"`` (default: a human with White
        against the engine).
    :param level: the engine's level, 1-10.
    :param clock: ``(seconds, increment)`` for each side (see :func:`parse_play_clock`),
        or None for no clocks.
    :param movetime: the engine's seconds per move without a clock, and the time of a
        hint and of weighing a draw offer; None (the default): the level's time per move
        (:data:`damier.engine.LEVELS`) and :data:`DEFAULT_MOVETIME` for hints.
    :param depth: an optional cap on every search's depth (fast tests).
    :param fen: the start position (default: the variant's).
    :param rules: draw rules for games of ``variant`` (default: the variant's).
    :param numbers, flipped: display options (``flipped`` default: from Black's
        side when the human plays Black against the engine).
    :param seed: seed of the engine's choices below level 10.
    :param book: the engine plays the opening from the variant's shipped book
        (:func:`damier.book.shipped_book`; at levels 8-10). ``damier play`` turns
        it on unless ``--no-book``.
    :param egdb: the endgame databases the engine probes (see
        :class:`damier.engine.Engine`); ``damier play`` uses the default directory's
        unless ``--no-egdb``.
    :param egdb_pieces: the engine probes positions of at most this many pieces
        (``--egdb-pieces``).
    :param sink: called with each output item as it is produced (the terminal
        prints it at once); :meth:`handle` also returns the items of one line.
    :param thinker: runs a :class:`ThinkTask` (default: in the calling thread).
    :param now: the time source of the clocks (tests pass a fake).

    ``handle(line)`` plays a move or runs a command, then lets the engine move
    while it is to move (unless paused); ``send(line)`` does the same and returns
    the output as plain text.
    """

    def __init__(self, *, variant: str | Variant = "international", white: str = HUMAN,
                 black: str = ENGINE, level: int = DEFAULT_LEVEL,
                 clock: tuple[float, float] | None = None, movetime: float | None = None,
                 depth: int | None = None, fen: str | None = None, rules: Rules | None = None,
                 numbers: bool = False, flipped: bool | None = None, seed: int | None = None,
                 hash_mb: int = 16, book: bool = False, egdb: EgdbSetting = None,
                 egdb_pieces: int = DEFAULT_ENGINE_PIECES,
                 sink: Callable[[Item], None] | None = None,
                 thinker: Callable[[ThinkTask], Any] | None = None,
                 now: Callable[[], float] = time.monotonic) -> None:
        for name, kind in (("white", white), ("black", black)):
            if kind not in PLAYER_KINDS:
                raise ValueError(f"{name} must be 'human' or 'engine', got {kind!r}")
        if not 1 <= level <= 10:
            raise ValueError(f"level must be between 1 and 10, got {level}")
        if movetime is not None and not movetime > 0:
            raise ValueError("movetime must be positive")
        if depth is not None and depth < 1:
            raise ValueError("depth must be at least 1")
        self.variant = get_variant(variant)
        self._players: dict[Color, str] = {WHITE: white, BLACK: black}
        self._level = level
        self.movetime = movetime
        self.depth = depth
        self.clock_setting = clock
        self.rules = rules
        self._rules_variant: str | None = get_variant(variant).name if rules else None
        self.numbers = numbers
        self.flipped = self._default_flip() if flipped is None else flipped
        self.sink = sink
        self.thinker = thinker or plain_thinker
        self.now = now
        self._seed = seed
        self._hash_mb = hash_mb
        self._book = book
        self._egdb = egdb
        self._egdb_pieces = egdb_pieces
        self._engine: Engine | None = None
        self.quit_requested = False
        self._paused = False
        self._collected: list[list[Item]] = []
        self._new_board(self._make_board(fen))

    # -- state -------------------------------------------------------------------------

    def _make_board(self, fen: str | None = None) -> Board:
        """A board of the session's variant (with its rules when they were given)."""
        rules = self.rules if self.rules is not None and self._rules_variant_ok() else None
        return Board(fen, variant=self.variant, rules=rules)

    def _rules_variant_ok(self) -> bool:
        return self._rules_variant in (None, self.variant.name)

    def _new_board(self, board: Board | None, headers: dict[str, str] | None = None) -> None:
        """A new :class:`damier.game.Game` from ``board`` (its moves included); its clocks
        start at once."""
        board = board if board is not None else self._make_board()
        self.game = Game.from_board(board, white=self._players[WHITE],
                                    black=self._players[BLACK], level=self._level,
                                    clock=self.clock_setting, now=self.now)
        self.variant = self.game.variant
        self.headers: dict[str, str] = dict(headers or {})
        self.paused = False

    def _default_flip(self) -> bool:
        return self._players[BLACK] == HUMAN and self._players[WHITE] == ENGINE

    @property
    def board(self) -> Board:
        """The game's board."""
        return self.game.board

    @property
    def players(self) -> dict[Color, str]:
        """Who plays each colour: ``human`` or ``engine``."""
        return self.game.players

    @property
    def level(self) -> int:
        """The engine's level, 1-10."""
        return self._level

    @level.setter
    def level(self, level: int) -> None:
        self.game.level = level
        self._level = level

    @property
    def paused(self) -> bool:
        """Whether the engine waits for `go` (after Ctrl-C, an undo...): the clocks stop."""
        return self._paused

    @paused.setter
    def paused(self, paused: bool) -> None:
        self._paused = paused
        if paused:
            self.game.pause_clock()
        else:
            self.game.start_clock()

    @property
    def time_left(self) -> dict[Color, float]:
        """Each side's time when its clock last stopped ({} without clocks)."""
        clocks = self.game.clocks
        return {} if clocks is None else {c: clock.remaining_s for c, clock in clocks.items()}

    @property
    def engine(self) -> Engine:
        """The engine (made on first use)."""
        if self._engine is None:
            self._engine = Engine(hash_mb=self._hash_mb, level=self.level, seed=self._seed,
                                  book=self._book, egdb=self._egdb,
                                  egdb_pieces=self._egdb_pieces)
        return self._engine

    @property
    def mode(self) -> str:
        """``human-engine``, ``human-human`` or ``engine-engine``."""
        return self.game.mode

    def human_color(self) -> Color | None:
        """The human's colour against the engine (None unless exactly one human)."""
        return self.game.person_color()

    def player_name(self, color: Color) -> str:
        return self.game.player_name(color)

    def game_end(self) -> GameEnd | None:
        """How the game ended (:meth:`damier.game.Game.outcome`), or None while it goes on."""
        return self.game.outcome()

    def is_over(self) -> bool:
        return self.game.is_over()

    def engine_to_move(self) -> bool:
        return self.game.engine_to_move()

    # -- output ----------------------------------------------------------------------------

    def _emit(self, item: Item) -> None:
        for bucket in self._collected:
            bucket.append(item)
        if self.sink is not None:
            self.sink(item)

    def say(self, text: str, kind: str = "info") -> None:
        self._emit(Message(text, kind))

    @contextmanager
    def _collect(self) -> Iterator[list[Item]]:
        bucket: list[Item] = []
        self._collected.append(bucket)
        try:
            yield bucket
        finally:
            self._collected.pop()

    def view(self) -> BoardView:
        """The board as it is to be drawn now."""
        last = self.board.move_stack[-1] if self.board.move_stack else None
        return BoardView(self.variant, self.board.piece_map(), self.board.turn, self.flipped,
                         self.numbers, last, tuple(self.status_lines()))

    def show_board(self) -> None:
        self._emit(self.view())

    def status_lines(self) -> list[str]:
        board = self.board
        moves = len(board.move_stack)
        number = self._move_number(moves)
        first = f"{self.variant.title} draughts · move {number} · "
        end = self.game_end()
        if end is not None:
            first += f"game over: {end.headline()}"
        else:
            first += f"{COLOR_TITLES[board.turn]} to move"
            if self.players[board.turn] == ENGINE:
                first += " (damier)" + (" · paused: type go" if self.paused else "")
        lines = [first]
        second = []
        if board.move_stack:
            second.append(f"last move {self._last_move_text()}")
        names = f"White: {self.player_name(WHITE)} · Black: {self.player_name(BLACK)}"
        second.append(names)
        lines.append(" · ".join(second))
        if self.time_left:
            times = self.current_times()
            lines.append(f"clock: White {format_clock(times[WHITE])} · "
                         f"Black {format_clock(times[BLACK])}")
        return lines

    def _last_move_text(self) -> str:
        board = self.board.copy()
        move = board.pop()
        return board.notation(move) if move is not None else "huff"

    def _move_number(self, ply: int) -> int:
        offset = 0 if self.board.root().turn == self.variant.white_starts else 1
        return (ply + offset) // 2 + 1

    def _numbered(self, ply: int, text: str) -> str:
        offset = 0 if self.board.root().turn == self.variant.white_starts else 1
        index = ply + offset
        number = index // 2 + 1
        return f"{number}. {text}" if index % 2 == 0 else f"{number}... {text}"

    def prompt(self) -> str:
        """The input prompt, e.g. ``White 4:32 > ``."""
        turn = self.board.turn
        text = COLOR_TITLES[turn]
        if self.is_over():
            text = "game over"
        elif self.players[turn] == ENGINE:
            text = f"{COLOR_TITLES[turn]} (damier, paused)"
        if self.time_left and not self.is_over():
            text += f" {format_clock(self.current_times()[turn])}"
        return f"{text} > "

    # -- clocks ----------------------------------------------------------------------------

    def current_times(self) -> dict[Color, float]:
        """Time left for each side, counting the running turn."""
        return self.game.times()

    def _check_flag(self) -> bool:
        """Ends the game when the side to move has run out of time (not while paused)."""
        if self.paused or not self.game.check_flag():
            return False
        self._announce_end()
        return True

    def seconds_to_flag(self) -> float | None:
        """Seconds until the flag of the side to move falls while a person is to move and
        its clock runs (the terminal waits for a line only that long); None otherwise."""
        game = self.game
        if (game.clocks is None or self.paused or self.is_over() or self.engine_to_move()
                or not game.clock_running):
            return None
        return max(0.0, self.current_times()[self.board.turn])

    def flag_check(self) -> list[Item]:
        """Ends the game when the flag of the side to move has fallen (the terminal calls
        it when the time of :meth:`seconds_to_flag` is up); returns the items said."""
        with self._collect() as items:
            self._check_flag()
        return items

    # -- handling input ----------------------------------------------------------------------

    def start(self) -> list[Item]:
        """The greeting and the board; then the engine moves if it is to move."""
        with self._collect() as items:
            white, black = self.player_name(WHITE), self.player_name(BLACK)
            extra = ""
            if self.clock_setting is not None:
                base, inc = self.clock_setting
                extra += f" Clocks: {format_clock(base)} each, +{inc:g} s a move."
            if self.board.move_stack:
                extra += f" Going on after {plies_text(len(self.board.move_stack))}."
            move, alone = example_moves(self.board)
            typing = f"Type moves like {move}" + (
                f" (or just {alone} when only one move starts there)" if alone else "")
            self.say(f"damier play: {self.variant.title} draughts, White: {white}, "
                     f"Black: {black}.{extra} {typing}; `help` lists the commands. "
                     f"{SCORE_CONVENTION}")
            self.show_board()
            self._announce_end()
            try:
                self.advance()
            except SearchInterrupted:
                self._interrupted()
        return items

    def handle(self, line: str) -> list[Item]:
        """Plays the move or runs the command of ``line``; returns the output items.
        Bad input is explained, never raised."""
        with self._collect() as items:
            try:
                self._handle(line)
                self.advance()
            except SearchInterrupted:
                self._interrupted()
            except (ValueError, OSError) as err:   # explained, never fatal
                self.say(f"{line.strip()!r}: {err}", "error")
        return items

    def send(self, line: str) -> str:
        """:meth:`handle`, with the output as plain text."""
        return "\n".join(str(item) for item in self.handle(line))

    def _handle(self, line: str) -> None:
        text = line.strip()
        if not text:
            self._check_flag()
            return
        if self._check_flag() and looks_like_move(text):
            return          # the flag fell before the move: the end is said, once
        if looks_like_move(text):
            self._human_move(text)
            return
        word, _, rest = text.partition(" ")
        name = word.lower()
        name = ALIASES.get(name, name)
        method = getattr(self, f"_cmd_{name}", None) if name in COMMANDS else None
        if method is None:
            guess = difflib.get_close_matches(name, list(COMMANDS) + list(ALIASES), n=1)
            hint = f"; did you mean `{ALIASES.get(guess[0], guess[0])}`?" if guess else ""
            self.say(f"unknown command {word!r}{hint or '.'} Type `help` for the commands, "
                     "or a move like 32-28.", "error")
            return
        method(rest.strip())

    def advance(self) -> None:
        """Lets the engine play while it is to move, the game goes on and nothing is paused."""
        while not self.paused and not self.quit_requested and not self.is_over() \
                and self.engine_to_move():
            self._engine_move()

    def _interrupted(self) -> None:
        self.paused = True
        self.say("search stopped. The game is paused: type `go` to let the engine move, "
                 "`undo` to take back, or any command.", "warning")
        self.show_board()

    # -- moves -------------------------------------------------------------------------------

    def _human_move(self, text: str) -> None:
        end = self.game_end()
        if end is not None:
            self.say(f"the game is over ({end.headline()}). Type `new` for another game, "
                     "`undo` to take back, `save FILE` or `quit`.", "error")
            return
        turn = self.board.turn
        if self.players[turn] == ENGINE:
            self.say(f"it is the engine's move ({COLOR_TITLES[turn]}): type `go` to let it "
                     "play, or `undo` to take back your move.", "error")
            return
        try:
            move, completed = read_move(self.board, text)
        except MoveError as err:
            self.say(str(err), "error")
            return
        notation = self.board.notation(move)
        self.paused = False         # a move by a person resumes a paused game
        if completed:
            self.say(f"{text.strip()} → {notation}")
        self._play(move, notation)

    def _play(self, move: Any, notation: str, comment: str = "") -> bool:
        """Plays ``move`` for the side to move (charging its clock); False on a flag fall."""
        game = self.game
        turn = game.board.turn
        if game.check_flag():
            self._announce_end()
            return False
        ply = len(game.plies)
        offer = game.draw_offer
        game.push(move)
        if offer is not None and offer != turn:
            self.say(f"{COLOR_TITLES[turn]} plays on: the draw offer is declined.")
        self.say(self._numbered(ply, notation) + (f"   {comment}" if comment else ""), "move")
        self._after_move()
        return True

    def _after_move(self) -> None:
        if self.is_over():
            self.show_board()
            self._announce_end()
        elif not self.engine_to_move() or self.mode == "engine-engine":
            self.show_board()

    def _announce_end(self) -> None:
        end = self.game_end()
        if end is None:
            return
        from damier.pdn import result_for_variant
        result = result_for_variant(end.result(), self.variant) or end.result()
        self.say(f"Game over: {end.headline()}. Result {result}.", "result")
        self.say("Type `new` for another game, `save FILE` to keep this one, `undo` to take "
                 "back, or `quit`.")

    def _engine_move(self, *, for_human: bool = False) -> None:
        board = self.board
        turn = board.turn
        engine = self.engine
        engine.set_level(self.level)
        limits: dict[str, Any] = {}
        if self.depth is not None:
            limits["depth"] = self.depth
        clock = self.game.engine_clock()
        if clock is not None:
            limits["clock"] = clock
        else:
            limits["movetime"] = (self.movetime if self.movetime is not None
                                  else LEVELS[self.level].movetime)
        snapshot = board.copy()
        who = f"damier ({COLOR_TITLES[turn]}, level {self.level})"
        task = ThinkTask(
            label=f"{who} is thinking",
            run=lambda info: engine.search(snapshot, info=info, **limits),
            stop=engine.stop,
            describe=lambda info: self._describe(snapshot, info))
        result: SearchResult = self.thinker(task)
        if result.best_move is None:
            return
        if self._check_flag():
            return
        notation = board.notation(result.best_move)
        comment = f"damier: depth {result.depth}, {white_view(result.score, turn)}"
        if for_human:
            comment += f" (played for {COLOR_TITLES[turn]})"
        self._play(result.best_move, notation, comment)

    def _describe(self, board: Board, info: SearchInfo) -> str:
        line = _pv_text(board, info.pv, 6)
        return f"depth {info.depth} · {white_view(info.score, board.turn)} · {line}"

    def _analyse(self, label: str) -> SearchResult:
        """A full-strength search of the position (hint, draw offers)."""
        engine = self.engine
        snapshot = self.board.copy()
        limits: dict[str, Any] = {"movetime": self.movetime or DEFAULT_MOVETIME}
        if self.depth is not None:
            limits = {"depth": self.depth}
        task = ThinkTask(label=label,
                         run=lambda info: engine.search_lines(snapshot, info=info, **limits)[0],
                         stop=engine.stop,
                         describe=lambda info: self._describe(snapshot, info))
        result: SearchResult = self.thinker(task)
        return result

    # -- commands ----------------------------------------------------------------------------

    def _cmd_help(self, args: str) -> None:
        if args:
            name = ALIASES.get(args.lower(), args.lower())
            if name in COMMANDS:
                usage, text = COMMANDS[name]
                self.say(f"{usage}: {text}", "help")
                return
            self.say(f"no command {args!r}; type `help` for the list", "error")
            return
        width = max(len(usage) for usage, _ in COMMANDS.values())
        move, alone = example_moves(self.board)
        lines = [f"Type a move in standard notation, such as {move} here; a capture is "
                 "written with x (FROMxTO), and with its full path (FROMxVIAx...xTO, or "
                 "enough of it) when two captures share their ends; a square alone"
                 + (f" ({alone})" if alone else "") + " or the start of a move is enough "
                 "when only one move fits.",
                 "Commands:"]
        lines += [f"  {usage:<{width}}  {text}" for usage, text in COMMANDS.values()]
        lines.append("Ctrl-C while the engine thinks stops its search (the game pauses).")
        self.say("\n".join(lines), "help")

    def _cmd_moves(self, args: str) -> None:
        legal = self.board.legal_moves
        if self.is_over() or not legal:
            self.say("no legal moves: the game is over", "error")
            return
        text = f"legal moves for {COLOR_TITLES[self.board.turn]}: {move_listing(legal, legal)}"
        rule = capture_rule(self.board)
        if rule is not None:
            text += f" ({rule})"
        self.say(text)

    def _cmd_board(self, args: str) -> None:
        self.show_board()

    def _cmd_rules(self, args: str) -> None:
        v = self.variant
        lines = [f"{v.title} draughts: {v.size}x{v.size} board, squares 1-{v.squares}, "
                 f"{'White' if v.white_starts else 'Black'} moves first.",
                 "Capturing is compulsory" + (
                     ", and the capture taking the most pieces must be played (kings count as one)."
                     if v.majority_capture else "; any capture may be chosen, but it must be "
                     "taken to the end."),
                 "Men capture backwards too." if v.men_capture_backwards else
                 "Men capture forwards only.",
                 "Kings fly: they move and capture at any distance." if v.flying_kings else
                 "Kings move one square, forwards or backwards."]
        if v.promote_during_capture:
            lines.append("A man reaching the last row during a capture is crowned at once and "
                         "goes on capturing as a king.")
        elif v.crowning_ends_capture:
            lines.append("A man reaching the last row is crowned and the move ends there.")
        else:
            lines.append("A man is crowned only if its move ends on the last row.")
        if not v.men_capture_kings:
            lines.append("Men cannot capture kings.")
        if v.capture_precedence:
            lines.append("Among the captures taking the most pieces, one made by a king comes "
                         "first, then the one taking the most kings, then the one taking a king "
                         "earliest.")
        lines.append("Draws: " + "; ".join(self.board.rules.summary()) + ".")
        self.say("\n".join(lines), "help")

    def _cmd_hint(self, args: str) -> None:
        if self.is_over():
            self.say("the game is over: no hint to give", "error")
            return
        try:
            result = self._analyse("damier looks for a hint")
        except SearchInterrupted:
            self.say("hint stopped", "warning")
            return
        if result.best_move is None:
            self.say("no legal moves", "error")
            return
        board = self.board
        verdict = self.engine.egdb_verdict(board)
        self.say(f"hint: {board.notation(result.best_move)} "
                 f"({white_view(result.score, board.turn)}, depth {result.depth}; line "
                 f"{_pv_text(board, result.pv, 8)})"
                 + (f"; {verdict.text()}" if verdict is not None else ""), "hint")

    def _cmd_undo(self, args: str) -> None:
        game = self.game
        k = game.plies_to_person()
        if k == 0:
            self.say("nothing to undo", "error")
            return
        game.reopen()                # taking back after a resignation or a flag goes on
        taken = game.undo(k)
        self.paused = self.mode == "engine-engine" or self.engine_to_move()
        self.say(f"took back {' '.join(ply.text for ply in taken)}")
        self.show_board()

    def _cmd_redo(self, args: str) -> None:
        if not self.game.redo_stack:
            self.say("nothing to redo", "error")
            return
        try:
            replayed = self.game.redo_to_person()
        except GameError as err:
            self.say(f"{err}. Type `new` for another game.", "error")
            return
        self.paused = self.mode == "engine-engine"
        self.say(f"replayed {' '.join(ply.text for ply in replayed)}")
        self.show_board()
        if self.is_over():
            self._announce_end()

    def _cmd_go(self, args: str) -> None:
        if self.is_over():
            self.say("the game is over; type `new` for another one", "error")
            return
        self.paused = False         # the clock runs again
        if not self.engine_to_move():
            self._engine_move(for_human=True)

    def _cmd_flip(self, args: str) -> None:
        self.flipped = not self.flipped
        self.show_board()

    def _cmd_numbers(self, args: str) -> None:
        value = args.lower()
        if value in ("", "toggle"):
            self.numbers = not self.numbers
        elif value in ("on", "yes", "1", "true", "show"):
            self.numbers = True
        elif value in ("off", "no", "0", "false", "hide"):
            self.numbers = False
        else:
            self.say(f"numbers {args}: expected `numbers on` or `numbers off`", "error")
            return
        self.show_board()

    def _cmd_level(self, args: str) -> None:
        if not args:
            self.say(f"the engine plays at level {self.level} (1-10); `level N` changes it")
            return
        try:
            level = int(args)
        except ValueError:
            level = 0
        if not 1 <= level <= 10:
            self.say(f"level {args}: expected a number from 1 (a beginner can win) to "
                     "10 (full strength)", "error")
            return
        self.level = level
        if self._engine is not None:
            self._engine.set_level(level)
        self.say(f"engine level {level}")

    def _cmd_new(self, args: str) -> None:
        variant = self.variant
        human: Color | None = None
        for token in args.lower().split():
            if token in ("white", "w"):
                human = WHITE
            elif token in ("black", "b"):
                human = BLACK
            else:
                try:
                    variant = get_variant(token)
                except ValueError as err:
                    self.say(f"new {args}: {err}; colours: white, black", "error")
                    return
        if human is not None:
            self._players = {human: HUMAN, (not human): ENGINE}
        self.variant = variant
        self.flipped = self._default_flip()
        if self._engine is not None:
            self._engine.new_game()
        self._new_board(self._make_board())
        self.say(f"new game: {variant.title} draughts, White: {self.player_name(WHITE)}, "
                 f"Black: {self.player_name(BLACK)}")
        self.show_board()

    def _cmd_fen(self, args: str) -> None:
        if not args:
            self.say(self.board.fen(compact=True))
            return
        try:
            board = self._make_board(args)
        except ValueError as err:
            self.say(f"cannot set up {args!r}: {err}", "error")
            return
        self._new_board(board)
        self.say(f"set up {board.fen(compact=True)} ({self.variant.title})")
        self.show_board()
        if self.is_over():
            self._announce_end()

    def load_game(self, path: str | Path) -> None:
        """Goes on from the end of the main line of the first game of a PDN file
        (raises ValueError with the reason when it cannot)."""
        from damier.pdn import canonical_result, read_game
        path = Path(path).expanduser()
        if not path.is_file():
            raise ValueError(f"cannot load {str(path)!r}: no such file")
        try:
            game = read_game(path)
            if game is None:
                raise ValueError("no game in the file")
            board = game.end().board()
        except (PdnError, OSError, ValueError) as err:
            raise ValueError(f"cannot load {str(path)!r}: {err}") from None
        headers = dict(game.headers)
        self.variant = game.variant
        self._new_board(board, headers)
        result = canonical_result(headers.get("Result", "*"))
        if board.outcome() is None and result in ("1-0", "0-1", "1/2-1/2"):
            winner = None if result == "1/2-1/2" else result == "1-0"
            reason = headers.get("Termination", "") or "the result in the file"
            self.game.end_game(GameEnd(winner, reason))
        if self._engine is not None:
            self._engine.new_game()
        self.paused = self.mode == "engine-engine"
        self.say(f"loaded {path.name}: {self.variant.title} draughts, "
                 f"{plies_text(len(board.move_stack))} ({headers.get('White', '?')} - "
                 f"{headers.get('Black', '?')})")

    def _cmd_load(self, args: str) -> None:
        if not args:
            self.say("load FILE: which file?", "error")
            return
        try:
            self.load_game(args)
        except ValueError as err:
            self.say(str(err), "error")
            return
        self.show_board()
        if self.is_over():
            self._announce_end()

    def pdn_game(self) -> Any:
        """The game so far as a :class:`damier.pdn.Game`."""
        from damier.pdn import Game, set_game_tags
        game = Game.from_board(self.board)
        for name, value in self.headers.items():
            if name not in ("GameType", "FEN", "SetUp", "Result"):
                game.headers[name] = value
        tags: dict[str, str | None] = {}
        if "Event" not in self.headers:
            tags = {"Event": "damier play",
                    "Date": datetime.date.today().strftime("%Y.%m.%d"),
                    "White": ("Human" if self.players[WHITE] == HUMAN
                              else self.player_name(WHITE)),
                    "Black": ("Human" if self.players[BLACK] == HUMAN
                              else self.player_name(BLACK))}
        end = self.game_end()
        tags["Result"] = end.result() if end is not None else "*"
        if end is not None and self.game.decided is not None:
            tags["Termination"] = end.reason
        set_game_tags(game.headers, self.variant, tags)
        return game

    def _cmd_save(self, args: str) -> None:
        from damier.pdn import write_game
        if not args:
            self.say("save FILE: which file?", "error")
            return
        path = Path(args).expanduser()
        try:
            text = write_game(self.pdn_game())
            path.write_text(text, encoding="utf-8")
        except OSError as err:
            self.say(f"cannot save to {args!r}: {err.strerror or err}", "error")
            return
        self.say(f"saved {plies_text(len(self.board.move_stack))} to {path}")

    def _cmd_resign(self, args: str) -> None:
        if self.is_over():
            self.say("the game is already over", "error")
            return
        loser = self.human_color() if self.mode == "human-engine" else self.board.turn
        assert loser is not None
        self.game.resign(loser)
        self._announce_end()

    def _cmd_draw(self, args: str) -> None:
        if self.is_over():
            self.say("the game is already over", "error")
            return
        board = self.board
        rules: Rules = board.rules
        if not board.can_offer_draw():
            self.say(f"a draw may be offered only after {rules.draw_offer_min_moves} moves "
                     "each (the rules of this game)", "error")
            return
        offerer = self.human_color() if self.mode == "human-engine" else board.turn
        assert offerer is not None
        opponent = not offerer
        if self.players[opponent] == ENGINE:
            try:
                result = self._analyse("damier weighs the draw offer")
            except SearchInterrupted:
                self.say("draw offer withdrawn (search stopped)", "warning")
                return
            score = result.score if board.turn == opponent else -result.score
            seen = white_view(result.score, board.turn)
            if abs(score) <= DRAW_MARGIN:
                self._agree_draw(f"damier accepts the draw (it sees {seen})")
            else:
                why = ("it thinks it stands better" if score > 0 else
                       "it does not think the game is level")
                self.say(f"damier declines the draw: {why} ({seen}). Play on.", "warning")
            return
        if self.game.draw_offer == opponent:
            self._agree_draw(f"{COLOR_TITLES[offerer]} accepts the draw")
            return
        self.game.offer_draw(offerer)
        self.say(f"{COLOR_TITLES[offerer]} offers a draw: {COLOR_TITLES[opponent]}, type `draw` "
                 "to accept, or play a move to decline.")

    def _agree_draw(self, text: str) -> None:
        self.say(text)
        self.game.agree_draw()
        self._announce_end()

    def _cmd_quit(self, args: str) -> None:
        self.quit_requested = True
        self.paused = True
        self.say("bye")


def _pv_text(board: Board, pv: list[Any], limit: int) -> str:
    copy = board.copy()
    texts = []
    for move in pv[:limit]:
        try:
            texts.append(copy.notation(move))
            copy.push(move)
        except ValueError:
            break
    return " ".join(texts) if texts else "-"


# -- the terminal -----------------------------------------------------------------------------


class TerminalThinker:
    """Runs a search in a worker thread under a rich spinner showing depth, score
    and line; Ctrl-C stops the search and raises :class:`SearchInterrupted`."""

    def __init__(self, console: Any) -> None:
        self.console = console

    def __call__(self, task: ThinkTask) -> Any:
        from rich.text import Text

        box: dict[str, Any] = {}
        latest: list[SearchInfo | None] = [None]
        # The worker says when it is done with an Event: a Thread.join() interrupted by
        # Ctrl-C can leave the thread marked as stopped while it still runs.
        done = threading.Event()

        def target() -> None:
            try:
                box["result"] = task.run(lambda info: latest.__setitem__(0, info))
            except BaseException as err:  # handed to the main thread
                box["error"] = err
            finally:
                done.set()

        worker = threading.Thread(target=target, name="damier-search", daemon=True)
        start = time.monotonic()
        interrupted = False
        with self.console.status(Text(task.label), spinner="dots") as status:
            worker.start()
            try:
                while not done.wait(0.1):
                    info = latest[0]
                    line = f"{task.label} ({time.monotonic() - start:.1f} s)"
                    if info is not None:
                        line += " · " + task.describe(info)
                    status.update(Text(line))
            except KeyboardInterrupt:
                interrupted = True
            finally:
                while not done.is_set():
                    task.stop()
                    try:
                        done.wait(0.05)
                    except KeyboardInterrupt:
                        pass
        if interrupted:
            raise SearchInterrupted()
        if "error" in box:
            raise box["error"]
        return box["result"]


class _FlagDue(Exception):
    """The time of the side to move ran out while the terminal waited for its line."""


def _read_before_flag(read_line: Callable[[str], str], session: PlaySession) -> str:
    """``read_line(prompt)``, given up with :class:`_FlagDue` when the clock of the
    person to move runs out first: a timer signal (SIGALRM) interrupts the wait, so the
    flag ends the game without a line being typed. Without the signal (Windows, or
    not the main thread) the flag is seen after the next line, as before."""
    seconds = session.seconds_to_flag()
    if (seconds is None or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        return read_line(session.prompt())

    def due(signum: int, frame: Any) -> None:
        raise _FlagDue()

    previous = signal.signal(signal.SIGALRM, due)
    try:
        # a moment past the flag, so that the game's own check sees it fall
        signal.setitimer(signal.ITIMER_REAL, seconds + 0.05)
        try:
            return read_line(session.prompt())
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def run_terminal(session: PlaySession, console: Any, *, pieces: str = "disc",
                 read_line: Callable[[str], str] | None = None) -> int:
    """The interactive loop: prints the session's output with ``console`` and
    feeds it the lines typed; returns the exit status."""
    color = console.color_system is not None and not console.no_color

    def sink(item: Item) -> None:
        console.print(render_item(item, color=color, pieces=pieces), highlight=False)

    session.sink = sink
    session.thinker = TerminalThinker(console)
    timed = False
    if read_line is None:
        try:
            import readline  # noqa: F401  (line editing and history for input())
        except ImportError:  # pragma: no cover
            pass

        def read_line(prompt: str) -> str:
            from rich.markup import escape
            return str(console.input(f"[bold]{escape(prompt)}[/bold]"))

        timed = True

    try:
        session.start()
    except KeyboardInterrupt:
        session._interrupted()
    interrupts = 0
    while not session.quit_requested:
        try:
            if timed:
                line = _read_before_flag(read_line, session)
            else:
                line = read_line(session.prompt())
        except _FlagDue:
            console.print()
            session.flag_check()
            continue
        except EOFError:
            console.print()
            break
        except KeyboardInterrupt:
            interrupts += 1
            if interrupts >= 2:
                console.print()
                break
            console.print("\n(Ctrl-C again or `quit` to leave)", style="dim")
            continue
        interrupts = 0
        try:
            session.handle(line)
        except Exception as exc:  # a bug must not lose the game
            console.print(f"internal error ({type(exc).__name__}: {exc}); the game goes on",
                          style="bold red", markup=False)
        except KeyboardInterrupt:
            if session.engine_to_move() and not session.is_over():
                session._interrupted()
            else:
                console.print("(interrupted)", style="dim")
    return 0
