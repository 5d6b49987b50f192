"""The draughts variants damier plays, and the geometry of their boards.

Every variant uses the dark squares of a square board, numbered from 1 in the
top left corner (as seen by White) to the last square in the bottom right,
row by row: on 10x10 square 1 is on the first row, second column, square 46 in
White's left corner. White's men start at the bottom and move up (towards
lower numbers); Black's start at the top and move down. The Italian board is
set the other way round (:attr:`Variant.top_left_dark`): each player has a dark
square in the bottom right corner, so square 1 is the top left corner and
square 32 White's right corner (the FID rules, art. 2.3 and 2.4).

>>> from damier.variants import get_variant
>>> v = get_variant("international")
>>> v.squares, v.game_type, v.initial_fen
(50, 20, 'W:W31-50:B1-20')
>>> v.row_col(46), v.square_at(9, 0)
((9, 0), 46)
>>> get_variant("english").white_starts
False
>>> it = get_variant("italian")
>>> it.row_col(1), it.row_col(32), it.square_at(7, 0), it.game_type
((0, 0), (7, 7), None, 22)

This module is the one registry of the variants: every fact that differs from
one variant to another (board, capture rules, usual draw rules, PDN GameType
and result style, Hub name, data files, the evaluation's lone-king scaling)
is a field of its :class:`Variant` here, and no other module compares a
variant's name (``tests/test_variant_registry.py`` checks it). The compiled
core is initialised from this registry when it is imported
(:func:`damier._core.init_variant`), so the core holds no second copy of the
rule flags.

>>> v = get_variant("english")
>>> v.hub_name, v.pdn_results, v.draw_rules.king_moves_limit, v.openings_file
('english', ('1-0', '1/2-1/2', '0-1'), 40, None)
>>> get_variant("international").hub_name, get_variant("international").pdn_results
('normal', ('2-0', '1-1', '0-2'))

The usual draw rules of each variant, and where they come from:

* International (the FMJD rules): threefold repetition with
  the same side to move, 25 king moves each without a capture or man move, the
  16-move rule and the 5-move rule. Seed 001 states the 25-move and 16-move
  rules as tournament rules and adds an immediate draw in king against king, a
  piece-count adjudication and a 40-move minimum before a draw offer; those
  are options of :class:`~damier.rules.Rules` (off by default) and the two
  tournament rules can be switched off one by one.
* Brazilian: the FMJD rules of International draughts.
* Antidraughts (lidraughts' rules of the variant): International draughts in which a
  player who cannot move (no pieces left, or all blocked) wins; threefold repetition
  and the 25-move rule as in International, but no 16-move or 5-move rule.
* Breakthrough (lidraughts' rules of the variant): International draughts in which the
  first man to end its move on the far row, crowned, wins (touching it during a capture
  does nothing); a player who cannot move loses. No draw rule can apply (men never come
  back, so no position repeats, and there are no kings).
* English: threefold repetition and the 40-move rule (neither player has moved
  a man or captured during their own last 40 moves, as the English/WCDF
  tournament rules state it); the historical huff rule of the traditional English rules is an
  opt-in flag (:attr:`~damier.rules.Rules.huff`) whose mechanics belong to the board.
* Russian (the federation rules of 64-square draughts, e.g. as the Ukrainian
  draughts federation publishes them; the last rule is also article 7.2.6 of
  the FMJD rules for Russian draughts): threefold repetition; 15 moves each
  with only king moves; three kings against a lone king not won within 15
  moves each, counted from when that balance arose; both sides having kings
  and no capture or promotion for 30 moves (4 and 5 pieces) or 60 moves (6
  and 7 pieces). The texts say "30 moves" without "each"; damier reads every
  limit as moves by each player, like the rules next to it (some sites count
  30 plies instead: set :attr:`~damier.rules.Rules.balance_unchanged_limits`
  to halve them).
* Italian (the rules of the Federazione Italiana Dama, FID: its Regolamento tecnico,
  capo I, and its short rules "Brief rules of Italian draughts", which say "Draw
  can be reached by an agreement of players or when one and the same position is
  repeated three consecutive times"): threefold repetition, and no move-count rule.
  Other readings are options of :class:`~damier.rules.Rules`: some programs
  (pydraughts) also apply English's 40-move rule to Italian
  (``replace(rules, king_moves_limit=40)``).
* Frisian and Frysk! (the rules of the Frisian draughts federation, as lidraughts plays
  them): threefold repetition; two kings against a lone king drawn after 7 moves each; a
  king against a king drawn after 2 moves each (the federation draws it at once unless
  a king is lost by force; lidraughts gives the two moves instead, and so does damier).
  No king-move rule: the king-move limit (:attr:`Variant.king_move_limit`) keeps the men
  moving. Where the sources differ on the value rule, damier follows lidraughts (a king
  counts 199 against a man's 100) where pydraughts counts a king 1.501 men; the two
  readings choose differently only between five men or more and three kings or more.
"""

from __future__ import annotations

from dataclasses import dataclass

from damier import _core
from damier.rules import Rules, use_variant_lookup

__all__ = ["Variant", "VARIANTS", "DEFAULT_VARIANT", "get_variant", "variant_for_game_type",
           "variant_for_hub_name"]

DEFAULT_VARIANT = "international"
"""The variant a board, game or command plays when none is named."""


@dataclass(frozen=True)
class Variant:
    """Everything that makes a variant: board, start position, capture rules,
    usual draw rules, names in file formats and protocols, and data files.

    A game's own draw rules (changed by players or tournaments) are a
    :class:`damier.rules.Rules` given to the board; :attr:`draw_rules` are the
    usual ones (:meth:`damier.rules.Rules.for_variant`).
    """

    name: str
    """Identifier used by ``Board(variant=...)``."""
    title: str
    """Human readable name."""
    aliases: tuple[str, ...]
    """Other names :func:`get_variant` accepts (lower case)."""
    size: int
    """Board width and height in squares (10 or 8)."""
    game_type: int
    """PDN ``GameType`` tag value."""
    index: int
    """Index of the variant's tables in the compiled core (0-15, one per variant)."""
    white_starts: bool
    """True when White makes the first move (all but English)."""
    flying_kings: bool
    """Kings move and capture at any distance along a diagonal."""
    men_capture_backwards: bool
    """Men may capture backwards as well as forwards."""
    majority_capture: bool
    """The capture taking the most pieces is compulsory (kings count as one)."""
    promote_during_capture: bool
    """A man reaching the far row during a capture is crowned at once and
    continues capturing as a king (Russian)."""
    crowning_ends_capture: bool
    """A man reaching the far row during a capture is crowned and the move ends
    there (English)."""
    initial_fen: str
    """The standard starting position."""
    draw_rules: Rules
    """The usual draw rules (see the module documentation for their sources)."""
    pdn_results: tuple[str, str, str]
    """How PDN writes a White win, a draw and a Black win: ``("2-0", "1-1",
    "0-2")`` (the FMJD style) or ``("1-0", "1/2-1/2", "0-1")``."""
    hub_name: str
    """The variant's name in the Hub protocol (Scan calls International "normal")."""
    eval_weights_file: str | None
    """The evaluation weights in ``damier/data/`` (None: material only)."""
    openings_file: str | None
    """The balanced openings shipped in ``damier/data/``, or None."""
    puzzles_file: str | None
    """The puzzles shipped in ``damier/data/`` (:func:`damier.puzzles.load_puzzles`), or None."""
    book_file: str | None
    """The opening book shipped in ``damier/data/`` (:func:`damier.book.shipped_book`), or None."""
    lone_king_drawish: bool
    """A lone king against at most three pieces is usually a draw (with flying
    kings it holds a long diagonal): the evaluation scales such positions right
    down (divides by 16)."""
    egdb_build_pieces: int
    """The most pieces ``damier egdb build`` builds when not told (``--pieces``):
    what one core builds in about an hour. Measured on the project's 2-core
    machine: International 2-5 pieces about 50 minutes;
    each 8 x 8 variant 2-5 pieces about 4-5 minutes, and Russian 6 pieces 57
    minutes of CPU time (``damier egdb build --variant russian --pieces 6
    --threads 2``: 70 tables, 3.7e9 slots for 2-6, 1.2 GB on disk, 7.5 GB of
    memory at the peak); English 2-6 pieces 45 minutes of CPU time (``--pieces
    6 --threads 2`` from none: 155 tables, 1.5 GB, 7.5 GB of memory at the
    peak); Brazilian 6 pieces 53 minutes of CPU time (70 tables, 1.2 GB, 7.5
    GB of memory at the peak); Italian 2-5 pieces 121 s of CPU time against English's
    110 s in the same conditions (``damier egdb build --variant italian --pieces 5``: 85
    tables, 0.4 GB of memory at the peak), so 6 pieces about 50 minutes."""

    egdb_build_minutes: float | None = None
    """Minutes of one core that ``damier egdb build`` took for the tables of 2 to
    :attr:`egdb_build_pieces` pieces on the project's 2-core machine (the figures above;
    None: not measured), from which the command estimates a build's time."""
    goal: str = "normal"
    """What wins: ``"normal"`` (a player with no legal move loses), ``"misere"`` (a player
    with no legal move wins: antidraughts) or ``"crown"`` (the first player to
    crown a king wins: breakthrough)."""

    top_left_dark: bool = False
    """The top left square (as White sees the board) is dark, so that each player has a
    dark square in the bottom right corner, and square 1 is that corner (Italian, FID
    rules art. 2.3-2.4); otherwise square 1 is the second square of the top row."""

    men_capture_kings: bool = True
    """Men may capture kings; False in Italian, where a man captures only men (FID
    rules art. 5.3 b)."""

    capture_precedence: bool = False
    """Italian precedence among the captures taking the most pieces (the FID's ten rules,
    5-9: "obbligatorio mangiare con il pezzo più forte", "... il pezzo più forte", "...
    dalla parte dove si incontrano prima i pezzi più forti"; rule summaries say "si mangia
    dove s'incontra prima la dama avversaria"): a capture made by a king before one made
    by a man; then the one taking the most kings; then the one whose first king taken
    comes earliest in the sequence (only the first king counts: two captures taking their
    first king at the same step are equal, wherever their later kings come). What is still
    equal is the player's choice. Needs :attr:`majority_capture`."""

    orthogonal_captures: bool = False
    """Men and kings also capture along the rows and files of dark squares (Frisian): a man
    jumps the piece on the next dark square of its row or file (two squares away) to the
    one beyond it, in any of the four directions; a flying king captures along rows and
    files at any distance as it does along diagonals. Moves that do not capture stay
    diagonal."""

    capture_values: tuple[int, int] | None = None
    """The value rule (Frisian) in place of the count of the majority rule: the capture
    taking the highest value must be played, a man taken counting ``capture_values[0]`` and
    a king ``capture_values[1]``; at equal value a capture made by a king comes first. The
    rules of Frisian draughts (the Frisian draughts federation's, as lidraughts plays them):
    "a king is worth more than a man, but less than two men"; lidraughts weighs them 100
    and 199, so that two kings outweigh three men and three kings five men. Needs
    :attr:`majority_capture`. (pydraughts weighs a king 1.501 men: it lets five men
    outweigh three kings; the module documentation lists this reading.)"""

    king_move_limit: int | None = None
    """A king may make at most this many non-capturing moves in a row while its side still
    has men (Frisian: 3); then that king may only capture, and the player moves another
    piece. Moves of other pieces, and captures, end the run. None: no limit."""

    killer_rule: bool = False
    """Killer draughts: a king's capture whose last piece taken is a king ends on the square
    just beyond that king (its inventor's rule: "the king must stop on the first vacant
    square after the last captured piece, if and only if that piece is also a king"), so
    that two kings can catch a lone king. Needs :attr:`flying_kings`."""

    pdn_variant_tag: str | None = None
    """The PDN ``Variant`` tag that tells this variant apart from another with the same
    :attr:`game_type` (Killer draughts has no GameType of its own: damier writes International's
    20 and ``[Variant "Killer"]``, and reads a game as Killer when both are there)."""

    all_squares: bool = False
    """Every square of the board is used and pieces go along rows and files only (Turkish
    draughts): men move and capture one square forward or sideways, never backwards, and
    kings move and capture along rows and files at any distance. Squares are numbered 1
    to 64 row by row from the top left as White sees the board (moves may also be typed
    with algebraic names, ``a1`` being White's left corner). 8 x 8 only."""

    captures_removed_at_once: bool = False
    """A captured piece leaves the board as it is jumped (Turkish), so the capturing piece
    may cross its square again later in the capture; elsewhere captured pieces stay until
    the move ends and block. A king's capture never turns back along the line it came."""

    def __post_init__(self) -> None:
        if self.all_squares and self.size != 8:
            raise ValueError("all_squares is the 8 x 8 board of every square")
        if self.killer_rule and not self.flying_kings:
            raise ValueError("the killer rule stops a flying king's capture: it needs flying kings")
        if self.capture_values is not None and self.capture_precedence:
            raise ValueError("capture_values and capture_precedence are two rules for one choice")
        if self.capture_precedence and not self.majority_capture:
            raise ValueError("capture_precedence orders the captures taking the most pieces: "
                             "it needs majority_capture")
        if self.goal not in ("normal", "misere", "crown"):
            raise ValueError(f"goal must be normal, misere or crown, got {self.goal!r}")
        if len(self.pdn_results) != 3:
            raise ValueError(f"pdn_results must give three results, got {self.pdn_results!r}")
        if not isinstance(self.draw_rules, Rules):
            raise TypeError(f"draw_rules must be a Rules, got {self.draw_rules!r}")
        if self.egdb_build_pieces < 2:
            raise ValueError(f"egdb_build_pieces must be at least 2, got {self.egdb_build_pieces}")

    @property
    def endgame_tables_unsupported(self) -> str | None:
        """Why damier's endgame databases cannot hold this variant, or None when they can.
        Their values assume that a player who cannot move loses and that a position's
        pieces and side to move are all it is: a variant with another goal, or with the
        king-move limit (which makes the moves depend on the kings' last moves), has none.

        >>> get_variant("international").endgame_tables_unsupported is None
        True
        >>> print(get_variant("antidraughts").endgame_tables_unsupported)
        Antidraughts has another goal (misere): the tables assume that a player who cannot move
        loses
        """
        if self.goal != "normal":
            return (f"{self.title} has another goal ({self.goal}): the tables assume that a "
                    "player who cannot move loses")
        if self.all_squares:
            return f"the tables are laid out on the dark squares; {self.title} uses every square"
        if self.king_move_limit is not None:
            return (f"{self.title} limits a king's moves in a row ({self.king_move_limit}): "
                    "the tables hold positions without the kings' last moves")
        return None

    @property
    def squares(self) -> int:
        """Number of playable squares (50 or 32; 64 on the Turkish board)."""
        return self.size * self.size if self.all_squares else self.size * self.size // 2

    @property
    def per_row(self) -> int:
        """Playable squares on one row (5 or 4; 8 on the Turkish board)."""
        return self.size if self.all_squares else self.size // 2

    def row_col(self, square: int) -> tuple[int, int]:
        """Row (0 = top) and column (0 = left) of ``square``, as White sees the board."""
        if not 1 <= square <= self.squares:
            raise ValueError(f"square {square} is not on the {self.title} board (1-{self.squares})")
        row, pos = divmod(square - 1, self.per_row)
        if self.all_squares:
            return row, pos
        col = 2 * pos + (1 if (row % 2 == 0) != self.top_left_dark else 0)
        return row, col

    def square_at(self, row: int, col: int) -> int | None:
        """The square number at ``(row, col)``, or None for a light or off-board square."""
        if not (0 <= row < self.size and 0 <= col < self.size):
            return None
        if self.all_squares:
            return row * self.size + col + 1
        if (row + col) % 2 == (1 if self.top_left_dark else 0):
            return None
        return row * self.per_row + col // 2 + 1

    def promotion_row(self, white: bool) -> int:
        """The row on which a man of that colour is crowned."""
        return 0 if white else self.size - 1


_FMJD_RULES = Rules()
"""The FMJD draw rules (the defaults of :class:`~damier.rules.Rules`)."""

_FMJD_RESULTS = ("2-0", "1-1", "0-2")

_FRISIAN_RULES = Rules(
    repetition_limit=3,
    king_moves_limit=None,
    sixteen_moves_limit=None,
    five_moves_limit=None,
    two_kings_limit=7,
    king_vs_king_limit=2,
)
"""The Frisian draw rules (see the module documentation)."""

VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant(
        name="international",
        title="International",
        aliases=("intl", "10x10", "fmjd"),
        size=10,
        game_type=20,
        index=0,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W31-50:B1-20",
        draw_rules=_FMJD_RULES,
        pdn_results=_FMJD_RESULTS,
        hub_name="normal",
        eval_weights_file="eval_international.bin",
        openings_file="openings_international.pdn",
        puzzles_file="puzzles_international.json",
        book_file="book_international.bin",
        lone_king_drawish=True,
        egdb_build_pieces=5,
        egdb_build_minutes=50.0,
    ),
    Variant(
        name="english",
        title="English",
        aliases=("checkers", "american"),
        size=8,
        game_type=21,
        index=1,
        white_starts=False,
        flying_kings=False,
        men_capture_backwards=False,
        majority_capture=False,
        promote_during_capture=False,
        crowning_ends_capture=True,
        initial_fen="B:W21-32:B1-12",
        draw_rules=Rules(
            repetition_limit=3,
            king_moves_limit=40,
            sixteen_moves_limit=None,
            five_moves_limit=None,
        ),
        pdn_results=("1-0", "1/2-1/2", "0-1"),
        hub_name="english",
        eval_weights_file="eval_english.bin",
        openings_file=None,
        puzzles_file="puzzles_english.json",
        book_file=None,
        lone_king_drawish=False,
        egdb_build_pieces=6,
        egdb_build_minutes=45.0,
    ),
    Variant(
        name="russian",
        title="Russian",
        aliases=("shashki",),
        size=8,
        game_type=25,
        index=2,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=False,
        promote_during_capture=True,
        crowning_ends_capture=False,
        initial_fen="W:W21-32:B1-12",
        draw_rules=Rules(
            repetition_limit=3,
            king_moves_limit=15,
            sixteen_moves_limit=None,
            five_moves_limit=None,
            three_kings_limit=15,
            balance_unchanged_limits=((4, 30), (5, 30), (6, 60), (7, 60)),
        ),
        pdn_results=_FMJD_RESULTS,
        hub_name="russian",
        eval_weights_file="eval_russian.bin",
        openings_file=None,
        puzzles_file="puzzles_russian.json",
        book_file=None,
        lone_king_drawish=True,
        egdb_build_pieces=6,
        egdb_build_minutes=62.0,
    ),
    Variant(
        name="brazilian",
        title="Brazilian",
        aliases=(),
        size=8,
        game_type=26,
        index=3,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W21-32:B1-12",
        draw_rules=_FMJD_RULES,
        pdn_results=_FMJD_RESULTS,
        hub_name="brazilian",
        eval_weights_file="eval_brazilian.bin",
        openings_file=None,
        puzzles_file="puzzles_brazilian.json",
        book_file=None,
        lone_king_drawish=True,
        egdb_build_pieces=6,
        egdb_build_minutes=58.0,
    ),
    Variant(
        name="antidraughts",
        title="Antidraughts",
        aliases=("anti", "losing", "giveaway"),
        size=10,
        game_type=98,
        index=4,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W31-50:B1-20",
        draw_rules=Rules(sixteen_moves_limit=None, five_moves_limit=None),
        pdn_results=_FMJD_RESULTS,
        hub_name="antidraughts",
        eval_weights_file=None,
        openings_file=None,
        puzzles_file=None,
        book_file=None,
        lone_king_drawish=False,
        egdb_build_pieces=2,
        goal="misere",
    ),
    Variant(
        name="breakthrough",
        title="Breakthrough",
        aliases=("bt",),
        size=10,
        game_type=96,
        index=5,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W31-50:B1-20",
        draw_rules=_FMJD_RULES,
        pdn_results=_FMJD_RESULTS,
        hub_name="breakthrough",
        eval_weights_file=None,
        openings_file=None,
        puzzles_file=None,
        book_file=None,
        lone_king_drawish=False,
        egdb_build_pieces=2,
        goal="crown",
    ),
    Variant(
        name="italian",
        title="Italian",
        aliases=("dama", "dama italiana"),
        size=8,
        game_type=22,
        index=6,
        white_starts=True,
        flying_kings=False,
        men_capture_backwards=False,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=True,
        initial_fen="W:W21-32:B1-12",
        draw_rules=Rules(
            repetition_limit=3,
            king_moves_limit=None,
            sixteen_moves_limit=None,
            five_moves_limit=None,
        ),
        pdn_results=("1-0", "1/2-1/2", "0-1"),
        hub_name="italian",
        eval_weights_file="eval_italian.bin",
        openings_file=None,
        puzzles_file=None,
        book_file=None,
        lone_king_drawish=False,
        egdb_build_pieces=6,
        top_left_dark=True,
        men_capture_kings=False,
        capture_precedence=True,
    ),
    Variant(
        name="frisian",
        title="Frisian",
        aliases=("fries", "frysk spul"),
        size=10,
        game_type=40,
        index=7,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W31-50:B1-20",
        draw_rules=_FRISIAN_RULES,
        pdn_results=_FMJD_RESULTS,
        hub_name="frisian",
        eval_weights_file="eval_frisian.bin",
        openings_file=None,
        puzzles_file=None,
        book_file=None,
        lone_king_drawish=False,
        egdb_build_pieces=2,
        orthogonal_captures=True,
        capture_values=(100, 199),
        king_move_limit=3,
    ),
    Variant(
        name="frysk",
        title="Frysk!",
        aliases=("frysk!",),
        size=10,
        game_type=97,
        index=8,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W46-50:B1-5",
        draw_rules=_FRISIAN_RULES,
        pdn_results=_FMJD_RESULTS,
        hub_name="frysk",
        eval_weights_file="eval_frysk.bin",
        openings_file=None,
        puzzles_file=None,
        book_file=None,
        lone_king_drawish=False,
        egdb_build_pieces=2,
        orthogonal_captures=True,
        capture_values=(100, 199),
        king_move_limit=3,
    ),
    Variant(
        name="killer",
        title="Killer",
        aliases=("killer draughts",),
        size=10,
        game_type=20,
        index=9,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=True,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W31-50:B1-20",
        draw_rules=_FMJD_RULES,
        pdn_results=_FMJD_RESULTS,
        hub_name="killer",
        eval_weights_file="eval_killer.bin",
        openings_file="openings_international.pdn",
        puzzles_file=None,
        book_file=None,
        lone_king_drawish=False,
        egdb_build_pieces=5,
        killer_rule=True,
        pdn_variant_tag="Killer",
    ),
    Variant(
        name="turkish",
        title="Turkish",
        aliases=("turkish draughts", "dama turca"),
        size=8,
        game_type=30,
        index=10,
        white_starts=True,
        flying_kings=True,
        men_capture_backwards=False,
        majority_capture=True,
        promote_during_capture=False,
        crowning_ends_capture=False,
        initial_fen="W:W41-56:B9-24",
        draw_rules=Rules(
            repetition_limit=3,
            king_moves_limit=None,
            sixteen_moves_limit=None,
            five_moves_limit=None,
            one_piece_each_limit=2,
        ),
        pdn_results=("1-0", "1/2-1/2", "0-1"),
        hub_name="turkish",
        eval_weights_file="eval_turkish.bin",
        openings_file=None,
        puzzles_file=None,
        book_file=None,
        lone_king_drawish=False,
        egdb_build_pieces=2,
        all_squares=True,
        captures_removed_at_once=True,
    ),
)}
"""The variants, by name, in the order menus list them."""

_BY_NAME: dict[str, Variant] = {}
for _v in VARIANTS.values():
    for _key in (_v.name, *_v.aliases):
        if _key in _BY_NAME or _key != _key.lower():
            raise ValueError(f"variant name or alias {_key!r} given twice or not lower case")
        _BY_NAME[_key] = _v
if len({_v.index for _v in VARIANTS.values()}) != len(VARIANTS):
    raise ValueError("two variants share a core index")
if len({(_v.game_type, _v.pdn_variant_tag) for _v in VARIANTS.values()}) != len(VARIANTS):
    raise ValueError("two variants share a PDN GameType and Variant tag")
if len({_v.hub_name for _v in VARIANTS.values()}) != len(VARIANTS):
    raise ValueError("two variants share a Hub name")
if DEFAULT_VARIANT not in VARIANTS:
    raise ValueError(f"the default variant {DEFAULT_VARIANT!r} is not in the registry")

def _init_core(variant: Variant) -> None:
    """Fills the compiled core's tables of ``variant`` from the registry."""
    _core.init_variant(
        variant.index, variant.size,
        flying_kings=variant.flying_kings,
        men_capture_backwards=variant.men_capture_backwards,
        majority_capture=variant.majority_capture,
        promote_during_capture=variant.promote_during_capture,
        crowning_ends_capture=variant.crowning_ends_capture,
        lone_king_drawish=variant.lone_king_drawish,
        goal=variant.goal,
        top_left_dark=variant.top_left_dark,
        men_capture_kings=variant.men_capture_kings,
        capture_precedence=variant.capture_precedence,
        orthogonal_captures=variant.orthogonal_captures,
        capture_values=variant.capture_values,
        king_move_limit=variant.king_move_limit,
        killer_rule=variant.killer_rule,
        all_squares=variant.all_squares,
        captures_removed_at_once=variant.captures_removed_at_once,
    )


for _v in VARIANTS.values():
    _init_core(_v)
del _v, _key


def get_variant(name: str | Variant) -> Variant:
    """The :class:`Variant` called ``name`` (case-insensitive; a few aliases accepted).

    >>> get_variant("Checkers").name
    'english'
    >>> get_variant("xiangqi")
    Traceback (most recent call last):
    ...
    ValueError: unknown variant 'xiangqi' (choose from: international, english, russian, brazilian,
    antidraughts, breakthrough, italian, frisian, frysk, killer, turkish)
    """
    if isinstance(name, Variant):
        return name
    variant = _BY_NAME.get(str(name).strip().lower())
    if variant is None:
        raise ValueError(f"unknown variant {name!r} (choose from: {', '.join(VARIANTS)})")
    return variant


use_variant_lookup(get_variant)   # Rules.for_variant finds the variants here


def variant_for_game_type(game_type: int, variant_tag: str | None = None) -> Variant:
    """The variant for a PDN ``GameType`` number (20, 21, 22, 25, 26, 40, 96, 97 or 98) and,
    where several variants share the number, the game's ``Variant`` tag (any case; a tag no
    variant of that number has, or none, gives the one without a tag).

    >>> variant_for_game_type(25).name
    'russian'
    >>> variant_for_game_type(20).name, variant_for_game_type(20, "killer").name
    ('international', 'killer')
    """
    tag = (variant_tag or "").strip().lower()
    plain = None
    for variant in VARIANTS.values():
        if variant.game_type != game_type:
            continue
        if variant.pdn_variant_tag is None:
            plain = plain or variant
        elif variant.pdn_variant_tag.lower() == tag:
            return variant
    if plain is not None:
        return plain
    for variant in VARIANTS.values():
        if variant.game_type == game_type:
            return variant
    supported = ", ".join(f"{v.game_type} ({v.name})" for v in VARIANTS.values())
    raise ValueError(f"unsupported GameType {game_type} (supported: {supported})")


def variant_for_hub_name(name: str) -> Variant | None:
    """The variant a Hub ``variant`` parameter names (its :attr:`~Variant.hub_name`,
    its damier name or an alias, case-insensitive: Scan's ``bt`` and ``losing`` too),
    or None.

    >>> variant_for_hub_name("normal").name, variant_for_hub_name("Russian").name
    ('international', 'russian')
    >>> variant_for_hub_name("bt").name, variant_for_hub_name("losing").name
    ('breakthrough', 'antidraughts')
    >>> variant_for_hub_name("frisian").name, variant_for_hub_name("xiangqi") is None
    ('frisian', True)
    """
    key = name.strip().lower()
    for variant in VARIANTS.values():
        if key in (variant.hub_name, variant.name, *variant.aliases):
            return variant
    return None
