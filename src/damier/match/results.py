"""The records of a match: :class:`MatchGame`, a small summary of one finished game,
and :class:`MatchResult`, the outcome from engine A's point of view, with the tallies
and the points of the complete game pairs. The statistics themselves (Elo, intervals,
pentanomial counts, the SPRT) are those of :mod:`damier.sprt`.

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

from damier.openings import is_fen
from damier.pdn import Game, GameNode
from damier.sprt import (SPRT, EloEstimate, elo_from_score, format_elo, pentanomial_counts,
                         pentanomial_interval, trinomial_interval)

__all__ = ["MatchGame", "MatchResult"]


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

    @property
    def game(self) -> Game:
        """The game as a PDN game tree, rebuilt from :attr:`headers` and
        :attr:`moves` on each access (a match keeps no game trees: a long match
        would hold thousands of them)."""
        return _build_game(self.headers, self.moves, _opening_plies(self.opening), self.reason)

    @property
    def score_a(self) -> float:
        """Engine A's points in this game: 1, 1/2 or 0."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == self.a_is_white else 0.0


def _opening_plies(opening: Sequence[str]) -> int:
    """The plies of an opening (its moves, not its FEN)."""
    return len(opening) - (1 if opening and is_fen(opening[0]) else 0)


def _build_game(headers: dict[str, str], moves: str, opening_plies: int, reason: str) -> Game:
    """A match game's tree: the moves from the start position of ``headers``, a
    comment at the end of the opening and ``reason`` after the last move."""
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
    if node is game:
        game.comment = reason
    elif node.comment:
        node.comment = f"{node.comment}; {reason}"
    else:
        node.comment = reason
    return game


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
    elo_interval: tuple[float, float]
    """95% interval of ``elo`` (see :attr:`interval_model`)."""
    games: list[MatchGame] = field(default_factory=list)
    interval_model: str = "trinomial"
    """``"pentanomial"`` (all games in complete pairs) or ``"trinomial"``."""
    pentanomial: tuple[int, int, int, int, int] | None = None
    """Complete pairs in which A scored 0, 1/2, 1, 3/2, 2 points (``[LL, LD, DD+WL,
    WD, WW]``); None when no pair was completed."""
    interrupted: bool = False
    scheduled: int = 0
    """Games scheduled (with an SPRT: the most games the match could play)."""
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
    resumed: int = 0
    """Games read back from the journal rather than played in this run."""
    journal_path: str | None = None

    @property
    def games_played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    def summary(self) -> str:
        """The report printed at the end of ``damier match``."""
        n = self.games_played
        of = f"at most {self.scheduled}" if self.sprt is not None else str(self.scheduled)
        lines = [f"{self.engine_a} vs {self.engine_b}: {n} of {of} games"
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
            line = f"  SPRT {self.sprt.summary()}: "
            if self.sprt_decision is not None:
                line += {"H1": f"H1 accepted (elo1 = {self.sprt.elo1:g})",
                         "H0": f"H0 accepted (elo0 = {self.sprt.elo0:g})"}[self.sprt_decision]
            else:
                line += "no decision"
            lines.append(line)
        for error in self.errors:
            lines.append(f"  error: {error}")
        if self.pdn_path:
            lines.append(f"  games written to {self.pdn_path}")
        return "\n".join(lines)

    def _score_lines(self) -> list[str]:
        """The lines of :meth:`summary` on the games played: score, Elo, pairs, endings."""
        n = self.games_played
        lo, hi = self.elo_interval
        lines = [f"  score {self.points:g}/{n} = {100 * self.score:.1f}%",
                 f"  Elo {format_elo(self.elo)}, 95% interval [{format_elo(lo)}, "
                 f"{format_elo(hi)}] ({self.interval_model})"]
        if self.pentanomial is not None:
            pairs = sum(self.pentanomial)
            line = (f"  pairs [LL, LD, DD+WL, WD, WW]: {list(self.pentanomial)} "
                    f"({pairs} pair{'s' if pairs != 1 else ''})")
            est = self.pentanomial_elo
            if est is not None:
                line += (f", pentanomial Elo {format_elo(est.elo)} "
                         f"[{format_elo(est.low)}, {format_elo(est.high)}]")
            lines.append(line)
        reasons: dict[str, int] = {}
        for g in self.games:
            reasons[_reason_class(g)] = reasons.get(_reason_class(g), 0) + 1
        lines.append("  endings: " + ", ".join(f"{k} {v}" for k, v in
                                                sorted(reasons.items(), key=lambda kv: -kv[1])))
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (``damier match --json``): every figure of
        :meth:`summary`, infinite Elo as ``"+inf"``/``"-inf"`` and nan as None;
        not the games (the PDN file holds them)."""
        est = self.pentanomial_elo
        data: dict[str, Any] = {
            "engine_a": self.engine_a, "engine_b": self.engine_b,
            "games": self.games_played, "scheduled": self.scheduled,
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "score": self.score, "elo": self.elo,
            "elo_low": self.elo_interval[0], "elo_high": self.elo_interval[1],
            "interval_model": self.interval_model,
            "pentanomial": list(self.pentanomial) if self.pentanomial is not None else None,
            "pentanomial_elo": ({"elo": est.elo, "low": est.low, "high": est.high}
                                if est is not None else None),
            "sprt": None,
            "interrupted": self.interrupted, "errors": list(self.errors), "seed": self.seed,
            "time_control": self.time_control, "pdn": self.pdn_path,
            "resumed": self.resumed, "journal": self.journal_path,
        }
        if self.sprt is not None:
            lower, upper = self.sprt.bounds
            data["sprt"] = dict(self.sprt.to_dict(), llr=self.sprt.llr, lower=lower,
                                upper=upper, decision=self.sprt_decision)
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
