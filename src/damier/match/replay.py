"""What adjudication rules would have done to the games of a match, from the scores
the engines played their moves with (:attr:`MatchGame.evals`, kept in the PDN and the
journal): ``damier match --report FILE --adjudicate-draw [...] --adjudicate-loss [...]``.

Each game is walked as the referee walks it (:mod:`damier.match.referee`): before
each engine move, the rules (:meth:`Adjudication.ending`) look at the moves so far.
A game they end before its last move is one the rules would have shortened; its
result then is the rules' (a drawn game stays drawn by the draw rule; a decided game
that the draw rule ends, or a game the loss rule gives to the wrong side, is a
result the rules would have changed). Games kept without the engines' scores (a
journal from before they were kept) are left out and counted.

>>> from damier.match.adjudication import DrawAdjudication
>>> from damier.match.results import MatchGame, MoveEval
>>> level = [MoveEval(0, 9, 0.1)] * 6
>>> drawn = MatchGame(1, "1.1", 1, ["32-28"], "A", "B", True, "1/2-1/2", "normal", "x", 7,
...                   evals=level)
>>> won = MatchGame(2, "1.2", 1, ["32-28"], "B", "A", False, "1-0", "normal", "x", 7,
...                 evals=level)
>>> replay = replay_adjudication(Adjudication(DrawAdjudication(after=0, plies=4)), [drawn, won])
>>> [(g.number, g.played, g.adjudged, g.ply) for g in replay.ended]
[(1, '1/2-1/2', '1/2-1/2', 5), (2, '1-0', '1/2-1/2', 5)]
>>> replay.plies_saved, [g.number for g in replay.changed]
(4, [2])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from damier.match.adjudication import Adjudication
from damier.match.results import MatchGame, _opening_plies
from damier.pdn import Game, result_for_variant
from damier.piece import WHITE

__all__ = ["ReplayedGame", "AdjudicationReplay", "replay_adjudication"]


@dataclass(frozen=True)
class ReplayedGame:
    """A game the rules end before its last move: its ``number`` in the match,
    the result ``played`` and the one the rules give (``adjudged``, both as
    ``1-0``/``0-1``/``1/2-1/2``), the ply they end it at and its length as played."""

    number: int
    played: str
    adjudged: str
    ply: int
    plies: int


@dataclass
class AdjudicationReplay:
    """The rules replayed on a match's games (see :func:`replay_adjudication`)."""

    rules: Adjudication
    games: int
    """The games looked at."""
    scored: int
    """Of them, the games with the engines' scores (the others are left out)."""
    plies: int
    """The plies of the scored games, as played."""
    ended: list[ReplayedGame] = field(default_factory=list)
    notation: dict[str, str] = field(default_factory=dict)
    """Each result's text in the games' variant (``1/2-1/2`` is ``1-1`` in International)."""

    @property
    def plies_saved(self) -> int:
        """The plies the rules would not have played."""
        return sum(g.plies - g.ply for g in self.ended)

    @property
    def changed(self) -> list[ReplayedGame]:
        """The games whose result the rules would have changed."""
        return [g for g in self.ended if g.adjudged != g.played]

    def _result(self, result: str) -> str:
        return self.notation.get(result, result)

    def summary(self) -> str:
        """The replay in words, one line per changed result."""
        rules = self.rules.to_json() or {}
        named = "; ".join(f"{kind} {text}" for kind, text in rules.items()) or "no rule"
        head = f"Adjudication replayed on the engines' scores ({named}):"
        if not self.scored:
            return (f"{head} none of the {self.games} games kept the engines' scores "
                    "(matches keep them since damier 2026-12-04)")
        draws = sum(g.adjudged == "1/2-1/2" for g in self.ended)
        share = 100 * self.plies_saved / self.plies if self.plies else 0.0
        lines = [head,
                 f"  games with scores: {self.scored} of {self.games}",
                 f"  ended earlier: {len(self.ended)} ({draws} as draws, "
                 f"{len(self.ended) - draws} as wins), {self.plies_saved} of {self.plies} "
                 f"plies not played ({share:.1f}%)",
                 f"  results changed: {len(self.changed)}"]
        lines += [f"    game {g.number}: {self._result(g.played)} as played, "
                  f"{self._result(g.adjudged)} at ply {g.ply} of {g.plies}"
                  for g in self.changed]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The replay for ``--json``."""
        return {"rules": self.rules.to_json(), "games": self.games, "scored": self.scored,
                "plies": self.plies, "plies_saved": self.plies_saved,
                "ended": len(self.ended),
                "changed": [{"number": g.number, "played": g.played, "adjudged": g.adjudged,
                             "ply": g.ply, "plies": g.plies} for g in self.changed]}


def _white_starts(record: MatchGame) -> bool:
    """Whether White made the first move of ``record`` (its ``FEN`` tag's side)."""
    if "FEN" not in record.headers:
        return True
    try:
        return bool(Game(record.headers).board().turn == WHITE)
    except ValueError:
        return True


def replay_adjudication(rules: Adjudication, games: Sequence[MatchGame]) -> AdjudicationReplay:
    """What ``rules`` would have done to ``games`` (see the module's text)."""
    replay = AdjudicationReplay(rules, len(games), 0, 0)
    for record in games:
        opening = _opening_plies(record.opening)
        evals = record.evals
        if not evals or len(evals) != record.plies - opening:
            continue
        replay.scored += 1
        replay.plies += record.plies
        replay.notation.setdefault(record.result, record.pdn_result)
        white_first = _white_starts(record)
        white_moved = [white_first == ((opening + k) % 2 == 0) for k in range(len(evals))]
        scores = [e.score for e in evals]
        for k in range(len(evals)):
            ending = rules.ending(opening + k, white_moved[:k], scores[:k])
            if ending is not None:
                replay.ended.append(ReplayedGame(record.number, record.result, ending[0],
                                                 opening + k, record.plies))
                text = result_for_variant(ending[0], record.variant)
                replay.notation.setdefault(ending[0], text or ending[0])
                break
    return replay
