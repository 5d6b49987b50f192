"""The records of a match: :class:`MatchGame`, a small summary of one finished game,
and :class:`MatchResult`, the outcome from engine A's point of view, with the tallies
and the points of the complete game pairs. The statistics themselves (Elo, intervals,
pentanomial counts, normalized Elo, LOS, the SPRT) are those of :mod:`damier.sprt`.

The report (:meth:`MatchResult.summary`, :meth:`MatchResult.to_dict`) follows the
reporting rules of :mod:`damier.sprt`: a figure the games cannot measure (an Elo
when every game was won or lost, an interval from fewer than
:data:`~damier.sprt.MIN_GAMES` games or :data:`~damier.sprt.MIN_PAIRS` pairs or
from games with no spread, an interval end beyond a score of 0 or 1) is printed
as not measurable with the reason, and is None in the JSON, with the reason in
the ``note`` (``elo_note``) beside it; never an infinity or a zero-width interval.

Results are kept as ``1-0``, ``0-1`` and ``1/2-1/2`` (:attr:`MatchGame.result`)
and shown in the variant's notation (:attr:`MatchGame.pdn_result`, from
:attr:`damier.variants.Variant.pdn_results`: ``2-0``, ``1-1``, ``0-2`` in
International, Brazilian and Russian; ``1-0``, ``1/2-1/2``, ``0-1`` in English).

Opening bias (:class:`OpeningBias`): White's results and score over all games
show how much the openings favour White; in a complete pair (one opening played
twice, the colours swapped) both games won by the same colour means the opening
decided the pair, both won by the same engine means the engines did.

>>> a_wins = MatchGame(1, "1.1", 1, [], "A", "B", True, "1-0", "normal", "no legal move", 40)
>>> drawn = MatchGame(2, "1.2", 1, [], "B", "A", False, "1/2-1/2", "adjudication", "-", 300)
>>> a_wins.score_a, drawn.score_a, _pair_points([a_wins, drawn]), _pentanomial([a_wins, drawn])
(1.0, 0.5, {1: 1.5}, (0, 0, 0, 1, 0))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from damier.engine_types import format_score
from damier.openings import is_fen
from damier.pdn import Game, GameNode, result_for_variant
from damier.sprt import (SPRT, EloEstimate, EloReport, elo_estimate, elo_from_score,
                         format_elo, normalized_report, pentanomial_counts,
                         pentanomial_interval, pentanomial_report, trinomial_interval,
                         trinomial_report)
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["MatchGame", "MatchResult", "MoveEval", "OpeningBias"]


@dataclass(frozen=True)
class MoveEval:
    """What an engine said of one of its moves in a match: the ``score`` it played
    the move with (centi-men from its own side, None when it gave none), the
    ``depth`` of that search (None: not given), the ``seconds`` the move took and
    whether it came from the engine's opening ``book``. :meth:`comment` is the move's
    comment in the match's PDN; :meth:`to_json` and :meth:`from_json` its form in the
    match journal.

    >>> MoveEval(35, 11, 0.1).comment(), MoveEval(None, None, 0.0, book=True).comment()
    ('+0.35/11 0.10s', 'book')
    >>> MoveEval.from_json(MoveEval(-120, 9, 0.25).to_json())
    MoveEval(score=-120, depth=9, seconds=0.25, book=False)
    """

    score: int | None
    depth: int | None
    seconds: float
    book: bool = False

    def comment(self) -> str:
        """``+0.35/11 0.10s`` (score in men / depth, time), ``win in 7/11 0.10s``
        for a found win, ``book`` for a book move; the parts the engine did not give
        are left out."""
        if self.book:
            return "book"
        text = "" if self.score is None else format_score(self.score)
        if self.depth is not None and text:
            text += f"/{self.depth}"
        return f"{text} {self.seconds:.2f}s".strip()

    def to_json(self) -> list[Any]:
        """``[score, depth, milliseconds]`` (``null`` for what is not known), with a
        fourth item ``true`` for a book move."""
        item: list[Any] = [self.score, self.depth, round(self.seconds * 1000)]
        if self.book:
            item.append(True)
        return item

    @classmethod
    def from_json(cls, item: Any) -> MoveEval:
        """The inverse of :meth:`to_json`; raises ValueError for anything else."""
        def whole(value: Any) -> bool:
            return value is None or (isinstance(value, int) and not isinstance(value, bool))

        if (not isinstance(item, list) or len(item) not in (3, 4) or not whole(item[0])
                or not whole(item[1]) or not isinstance(item[2], int)
                or isinstance(item[2], bool) or item[2] < 0
                or (len(item) == 4 and item[3] is not True)):
            raise ValueError(f"not a move's evaluation: {item!r}")
        return cls(item[0], item[1], item[2] / 1000, len(item) == 4)


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
    evals: list[MoveEval] = field(default_factory=list)
    """What the engines said of their moves (one for each move after the opening, in
    order; empty for a game recorded without them)."""

    @property
    def game(self) -> Game:
        """The game as a PDN game tree, rebuilt from :attr:`headers` and
        :attr:`moves` on each access (a match keeps no game trees: a long match
        would hold thousands of them)."""
        return _build_game(self.headers, self.moves, _opening_plies(self.opening), self.reason,
                           self.evals)

    @property
    def variant(self) -> Variant:
        """The variant of the game's ``GameType`` tag (International without one)."""
        return _headers_variant(self.headers)

    @property
    def pdn_result(self) -> str:
        """:attr:`result` in the variant's notation (``2-0``, ``1-1``, ``0-2`` in
        International; ``1-0``, ``1/2-1/2``, ``0-1`` in English), as the PDN writes it
        and the match reports show it."""
        return result_for_variant(self.result, self.variant) or self.result

    @property
    def score_a(self) -> float:
        """Engine A's points in this game: 1, 1/2 or 0."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == self.a_is_white else 0.0


def _headers_variant(headers: dict[str, str]) -> Variant:
    """The variant of ``headers``' ``GameType`` tag; the default one without a tag
    or with one damier does not know."""
    if "GameType" not in headers:
        return get_variant(DEFAULT_VARIANT)
    try:
        return Game(headers).variant
    except ValueError:
        return get_variant(DEFAULT_VARIANT)


def _opening_plies(opening: Sequence[str]) -> int:
    """The plies of an opening (its moves, not its FEN)."""
    return len(opening) - (1 if opening and is_fen(opening[0]) else 0)


def _build_game(headers: dict[str, str], moves: str, opening_plies: int, reason: str,
                evals: Sequence[MoveEval] = ()) -> Game:
    """A match game's tree: the moves from the start position of ``headers``, a
    comment at the end of the opening, each engine move's evaluation (``evals``, from
    the first move after the opening) and ``reason`` after the last move."""
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
        elif 0 <= ply - opening_plies - 1 < len(evals):
            node.comment = evals[ply - opening_plies - 1].comment()
    if node is game:
        game.comment = reason
    elif node.comment:
        node.comment = f"{node.comment}; {reason}"
    else:
        node.comment = reason
    return game


def _mean_plies(games: Sequence[MatchGame]) -> float | None:
    return sum(g.plies for g in games) / len(games) if games else None


def _lengths_line(games: Sequence[MatchGame]) -> str:
    """The games' mean length in plies, and that of the draws and the decided games.

    >>> long = MatchGame(1, "1.1", 1, [], "A", "B", True, "1/2-1/2", "normal", "x", 150)
    >>> short = MatchGame(2, "1.2", 1, [], "B", "A", False, "1-0", "normal", "x", 61)
    >>> _lengths_line([long, short])
    'length: 105.5 plies a game (draws 150.0, decided games 61.0)'
    """
    draws = [g for g in games if g.result == "1/2-1/2"]
    decided = [g for g in games if g.result != "1/2-1/2"]
    parts = [f"{label} {mean:.1f}" for label, mean in (("draws", _mean_plies(draws)),
                                                        ("decided games", _mean_plies(decided)))
             if mean is not None]
    return f"length: {_mean_plies(games):.1f} plies a game ({', '.join(parts)})"


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
    """The logistic Elo of :attr:`score` as computed: +-inf at a score of 1 or 0, nan
    with no game (the report gives :attr:`elo_report` instead)."""
    elo_interval: tuple[float, float]
    """95% interval of ``elo`` (see :attr:`interval_model`), as computed."""
    games: list[MatchGame] = field(default_factory=list)
    interval_model: str = "trinomial"
    """``"pentanomial"`` (all games in complete pairs) or ``"trinomial"``."""
    pentanomial: tuple[int, int, int, int, int] | None = None
    """Complete pairs in which A scored 0, 1/2, 1, 3/2, 2 points (``[LL, LD, DD+WL,
    WD, WW]``); None when no pair was completed."""
    interrupted: bool = False
    scheduled: int | None = 0
    """Games scheduled (with an SPRT: the most games the match could play); None when not
    known (the report of a journal, :func:`damier.match.journal.read_journal`)."""
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
    sprt_at_decision: SPRT | None = None
    """The SPRT as it stood at its decision: the complete pairs up to the one that
    took the LLR to a bound. The pairs in progress then are finished and counted in
    :attr:`sprt` afterwards, and can take its LLR back inside the bounds; the decision
    stands (a sequential test decides once). None: no decision."""
    resumed: int = 0
    """Games read back from the journal rather than played in this run."""
    journal_path: str | None = None

    @classmethod
    def from_games(cls, engine_a: str, engine_b: str, games: Sequence[MatchGame],
                   **fields: Any) -> MatchResult:
        """The result of the finished ``games`` (in schedule order): the tallies, the
        Elo with its interval and the pentanomial counts computed from them; the
        other fields from ``fields`` (``scheduled`` defaults to the number of games).

        >>> won = MatchGame(1, "1.1", 1, [], "A", "B", True, "1-0", "normal", "x", 9)
        >>> lost = MatchGame(2, "1.2", 1, [], "A", "B", False, "1-0", "normal", "x", 9)
        >>> result = MatchResult.from_games("A", "B", [won, lost])
        >>> result.wins, result.losses, result.pentanomial, result.interval_model
        (1, 1, (0, 0, 1, 0, 0), 'pentanomial')
        """
        records = list(games)
        wins, draws, losses, score, elo, interval, model, penta = _tally(records)
        fields.setdefault("scheduled", len(records))
        return cls(engine_a=engine_a, engine_b=engine_b, wins=wins, draws=draws,
                   losses=losses, score=score, elo=elo, elo_interval=interval, games=records,
                   interval_model=model, pentanomial=penta,
                   pentanomial_elo=elo_estimate(penta) if penta is not None else None,
                   **fields)

    @property
    def games_played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def draw_ratio(self) -> float:
        """The fraction of the games drawn (nan with no game)."""
        n = self.games_played
        return self.draws / n if n else math.nan

    @property
    def elo_report(self) -> EloReport:
        """The Elo of all games as the report gives it (:mod:`damier.sprt`'s
        reporting rules), with the model of :attr:`interval_model` and its LOS."""
        if self.interval_model == "pentanomial" and self.pentanomial is not None:
            return pentanomial_report(self.pentanomial)
        return trinomial_report(self.wins, self.draws, self.losses)

    @property
    def pentanomial_elo_report(self) -> EloReport | None:
        """The Elo of the complete pairs as the report gives it (None: no pair)."""
        return pentanomial_report(self.pentanomial) if self.pentanomial is not None else None

    @property
    def nelo_report(self) -> EloReport | None:
        """The normalized Elo of the complete pairs (:func:`damier.sprt.normalized_elo`)
        as the report gives it (None: no pair)."""
        return normalized_report(self.pentanomial) if self.pentanomial is not None else None

    @property
    def opening_bias(self) -> OpeningBias:
        """White's results and the complete pairs decided by colour or by engine."""
        return _opening_bias(self.games)

    @property
    def variant(self) -> Variant:
        """The variant of the games (that of the first game's ``GameType`` tag;
        International with no game)."""
        return self.games[0].variant if self.games else get_variant(DEFAULT_VARIANT)

    def summary(self) -> str:
        """The report printed at the end of ``damier match``."""
        n = self.games_played
        of = f"at most {self.scheduled}" if self.sprt is not None else str(self.scheduled)
        lines = [f"{self.engine_a} vs {self.engine_b}: "
                 + (f"{n} of {of} games" if self.scheduled is not None
                    else _count(n, "game"))
                 + (" (interrupted)" if self.interrupted else "")
                 + (f", {self.time_control}" if self.time_control else "")
                 + (f", seed {self.seed}" if self.seed is not None else "")]
        if self.resumed:
            lines.append(f"  {self.resumed} of them read back from {self.journal_path}")
        lines.append(f"  {self.engine_a}: +{self.wins} ={self.draws} -{self.losses}  "
                     f"(W/D/L {self.wins}/{self.draws}/{self.losses})")
        if n:
            lines.extend(self._score_lines())
        if self.sprt is not None:
            lines.extend(self._sprt_lines(self.sprt))
        for error in self.errors:
            lines.append(f"  error: {error}")
        if self.pdn_path:
            lines.append(f"  games written to {self.pdn_path}")
        return "\n".join(lines)

    def _sprt_lines(self, sprt: SPRT) -> list[str]:
        """The SPRT's lines of :meth:`summary`: its decision with the LLR and pairs at
        the decision, then, where pairs finished after it, the test over every pair."""
        if self.sprt_decision is None:
            return [f"  SPRT {sprt.summary()}: no decision"]
        at = self.sprt_at_decision if self.sprt_at_decision is not None else sprt
        decision = {"H1": f"H1 accepted (elo1 = {sprt.elo1:g})",
                    "H0": f"H0 accepted (elo0 = {sprt.elo0:g})"}[self.sprt_decision]
        lines = [f"  SPRT {at.summary()}: {decision} after {_count(at.pairs, 'pair')} "
                 f"{list(at.counts)}"]
        later = sprt.pairs - at.pairs
        if later > 0:
            lines.append(f"  with the {_count(later, 'pair')} finished after the decision: "
                         f"LLR {sprt.llr:.2f} over {_count(sprt.pairs, 'pair')} "
                         "(the decision stands)")
        return lines

    def _score_lines(self) -> list[str]:
        """The lines of :meth:`summary` on the games played: score and draw ratio, Elo
        and LOS, pairs, pentanomial and normalized Elo, opening bias, endings, lengths."""
        n = self.games_played
        lines = [f"  score {self.points:g}/{n} = {100 * self.score:.1f}%, "
                 f"draw ratio {100 * self.draw_ratio:.1f}% ({_count(self.draws, 'draw')})"]
        if self.interval_model == "pentanomial" and self.pentanomial is not None:
            context = f"pentanomial, {_count(sum(self.pentanomial), 'pair')}"
        else:
            context = f"trinomial, {_count(n, 'game')}"
        lines.append(_figure_line("Elo", self.elo_report, context, los=True))
        if self.pentanomial is not None:
            pairs = _count(sum(self.pentanomial), "pair")
            lines.append(f"  pairs [LL, LD, DD+WL, WD, WW]: {list(self.pentanomial)} ({pairs})")
            for label, report in (("pentanomial Elo", self.pentanomial_elo_report),
                                  ("nElo", self.nelo_report)):
                if report is not None:
                    lines.append(_figure_line(label, report, pairs))
        lines.extend(self.opening_bias.lines(self.variant))
        reasons: dict[str, int] = {}
        for g in self.games:
            reasons[_reason_class(g)] = reasons.get(_reason_class(g), 0) + 1
        lines.append("  endings: " + ", ".join(f"{k} {v}" for k, v in
                                                sorted(reasons.items(), key=lambda kv: -kv[1])))
        if self.games:
            lines.append("  " + _lengths_line(self.games))
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (``damier match --json``): every figure of
        :meth:`summary`, not the games (the PDN file holds them).

        A figure the games cannot measure is None, with the reason beside it:
        ``elo``, ``elo_low``, ``elo_high`` and ``los`` with ``elo_note``; each of
        ``pentanomial_elo`` and ``nelo`` is ``{"elo", "low", "high", "los", "note"}``
        (None with no complete pair). ``draw_ratio`` and ``white_score`` are
        fractions; ``results`` counts the games by result in the variant's notation
        (White's result first); ``opening_pairs`` counts the complete pairs:
        ``white_won_both``, ``black_won_both``, ``same_engine`` (won both) and
        ``with_draw``. Any other nan is None."""
        report = self.elo_report
        bias = self.opening_bias
        variant = self.variant
        penta, nelo = self.pentanomial_elo_report, self.nelo_report
        data: dict[str, Any] = {
            "engine_a": self.engine_a, "engine_b": self.engine_b,
            "variant": variant.name if self.games else None,
            "games": self.games_played, "scheduled": self.scheduled,
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "score": self.score, "draw_ratio": self.draw_ratio,
            "elo": report.elo, "elo_low": report.low, "elo_high": report.high,
            "los": report.los, "elo_note": report.note,
            "interval_model": self.interval_model,
            "pentanomial": list(self.pentanomial) if self.pentanomial is not None else None,
            "pentanomial_elo": penta.to_dict() if penta is not None else None,
            "nelo": nelo.to_dict() if nelo is not None else None,
            "white_score": bias.white_score,
            "results": dict(zip(variant.pdn_results,
                                (bias.white_wins, bias.draws, bias.black_wins), strict=True)),
            "opening_pairs": {"pairs": bias.pairs, "white_won_both": bias.white_won_both,
                              "black_won_both": bias.black_won_both,
                              "same_engine": bias.same_engine, "with_draw": bias.with_draw},
            "sprt": None,
            "interrupted": self.interrupted, "errors": list(self.errors), "seed": self.seed,
            "time_control": self.time_control, "pdn": self.pdn_path,
            "resumed": self.resumed, "journal": self.journal_path,
            "mean_plies": _mean_plies(self.games),
        }
        if self.sprt is not None:
            lower, upper = self.sprt.bounds
            at = self.sprt_at_decision
            if at is None and self.sprt_decision is not None:
                at = self.sprt
            data["sprt"] = dict(self.sprt.to_dict(), llr=self.sprt.llr, lower=lower,
                                upper=upper, decision=self.sprt_decision,
                                at_decision=None if at is None else dict(
                                    pairs=at.pairs, counts=list(at.counts), llr=at.llr))
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


def _count(n: int | float, noun: str) -> str:
    """``1 pair``, ``3 pairs``."""
    return f"{n:g} {noun}{'' if n == 1 else 's'}"


def _figure_line(label: str, report: EloReport, context: str, *, los: bool = False) -> str:
    """One line of the summary for an Elo figure: the figure, what it was measured
    on, its 95% interval (or why there is none) and, with ``los``, the LOS."""
    if report.elo is None:
        return f"  {label} not measurable ({context}): {report.note}; no 95% interval"
    line = f"  {label} {format_elo(report.elo)} ({context}), 95% interval "
    if not report.has_interval:
        return line + f"not measurable: {report.note}"
    line += report.interval_text()
    if report.note:
        line += f" ({report.note})"
    if los and report.los is not None:
        line += f", LOS {_los_text(report.los)}"
    return line


def _los_text(los: float) -> str:
    """A LOS in percent, one decimal; ``>99.9%``/``<0.1%`` rather than a rounded 100 or 0.

    >>> _los_text(0.69370), _los_text(0.9999935), _los_text(0.0004)
    ('69.4%', '>99.9%', '<0.1%')
    """
    if los > 0.999:
        return ">99.9%"
    if los < 0.001:
        return "<0.1%"
    return f"{100 * los:.1f}%"


@dataclass(frozen=True)
class OpeningBias:
    """How much the openings of a match favour one colour: White's results over
    all games, and the complete pairs (one opening played twice, the colours
    swapped) by what decided them.

    >>> bias = OpeningBias(white_wins=5, draws=8, black_wins=7, pairs=10,
    ...                    white_won_both=1, black_won_both=0, same_engine=3, with_draw=6)
    >>> bias.games, bias.white_score, bias.same_colour
    (20, 0.45, 1)
    """

    white_wins: int
    draws: int
    black_wins: int
    pairs: int
    """Complete pairs (both games finished)."""
    white_won_both: int
    """Complete pairs whose two games White won: the opening decided them."""
    black_won_both: int
    same_engine: int
    """Complete pairs whose two games the same engine won (once with each colour)."""
    with_draw: int
    """Complete pairs with at least one draw."""

    @property
    def games(self) -> int:
        return self.white_wins + self.draws + self.black_wins

    @property
    def white_score(self) -> float:
        """White's fraction of the points over all games (nan with no game)."""
        return (self.white_wins + 0.5 * self.draws) / self.games if self.games else math.nan

    @property
    def same_colour(self) -> int:
        """Complete pairs whose two games the same colour won."""
        return self.white_won_both + self.black_won_both

    def lines(self, variant: Variant) -> list[str]:
        """The lines of the match summary (none with no game): White's results in
        ``variant``'s notation and score, and the pairs by what decided them."""
        if not self.games:
            return []
        white, draw, black = variant.pdn_results
        lines = [f"  results (White-Black) {white}: {self.white_wins}, {draw}: {self.draws}, "
                 f"{black}: {self.black_wins}; White scored {100 * self.white_score:.1f}%"]
        if self.pairs:
            lines.append(f"  opening pairs: {self.same_colour} of {self.pairs} won by the same "
                         f"colour in both games (White {self.white_won_both}, Black "
                         f"{self.black_won_both}), {self.same_engine} by the same engine, "
                         f"{self.with_draw} with a draw")
        return lines


def _opening_bias(records: Sequence[MatchGame]) -> OpeningBias:
    """The :class:`OpeningBias` of the games ``records``."""
    white = sum(1 for g in records if g.result == "1-0")
    black = sum(1 for g in records if g.result == "0-1")
    by_pair: dict[int, list[MatchGame]] = {}
    for g in records:
        by_pair.setdefault(g.pair, []).append(g)
    pairs = white_both = black_both = same_engine = with_draw = 0
    for games in by_pair.values():
        if len(games) != 2:
            continue
        pairs += 1
        first, second = games
        if "1/2-1/2" in (first.result, second.result):
            with_draw += 1
            continue
        if first.result == second.result:
            if first.result == "1-0":
                white_both += 1
            else:
                black_both += 1
        if first.score_a == second.score_a:
            same_engine += 1
    return OpeningBias(white_wins=white, draws=len(records) - white - black, black_wins=black,
                       pairs=pairs, white_won_both=white_both, black_won_both=black_both,
                       same_engine=same_engine, with_draw=with_draw)


def _reason_class(record: MatchGame) -> str:
    if record.termination == "normal":
        return "no legal move" if record.reason.endswith("no legal move") else record.reason
    return record.termination


# -- tallies ------------------------------------------------------------------------------------


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
    return pentanomial_counts(points.values())


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
