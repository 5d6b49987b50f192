"""Engine matches: two engines play a series of game pairs; the score and the Elo difference.

>>> from damier.match import run_match
>>> result = run_match("damier:depth=1,hash=1", "damier:depth=2,hash=1", games=2,
...                    openings=[["32-28", "18-23"]], progress=False, seed=1)
>>> result.wins + result.draws + result.losses
2
>>> [(g.white, g.black) for g in result.games]
[('damier:depth=1,hash=1', 'damier:depth=2,hash=1'),
 ('damier:depth=2,hash=1', 'damier:depth=1,hash=1')]

Engines
-------
An engine is given by a spec string:

* ``damier`` or ``damier:option=value,...``: damier's own engine
  (:class:`damier.engine.Engine`), in this process. Options: ``level`` (1-10),
  ``hash`` (MiB), ``depth`` and ``nodes`` (search limits of every move),
  ``movetime`` (seconds per move, instead of the match's), ``threads``,
  ``seed`` (randomness below level 10) and ``name`` (the name in the PDN).
* ``hub:COMMAND``: an engine speaking the Hub protocol, run as a subprocess
  (:class:`damier.hub.HubEngine`), e.g. ``hub:dame hub``; the command is split
  like a shell would (quotes allowed).

:func:`run_match` also takes a callable that returns a :class:`Player`
(anything with ``name``, ``new_game()``, ``play(board, movetime=, clock=)``,
``stop()`` and ``close()``): that is how tests bring in fake engines.

Games
-----
Every opening is played twice, once with each engine as White (a game pair).
Openings come from a file (:func:`damier.openings.load_openings`), by default
the openings shipped for the variant (International: balanced 4-ply starts),
shuffled with the match's seed. Each game starts from its opening and is
played until :meth:`damier.Board.outcome` ends it (no legal move, and every
draw rule of the variant), or until ``max_plies`` plies (opening included):
then it is adjudicated a draw (``Termination "adjudication"``). With
``adjudication`` (:mod:`damier.match.adjudication`, ``damier match
--adjudicate-draw`` and ``--adjudicate-loss``) a game ends earlier when both
engines' scores agree that it is level (a draw) or that one side is far ahead
(a win for it), as engine testers end their games.

An engine that plays an illegal move (or none, or text that is no legal move)
loses the game (``Termination "rules infraction"``); one that crashes or stops
answering loses it too (``"abandoned"``, ``"time forfeit"``), as does one whose
clock runs out (``"time forfeit"``; a clock is flagged when it is more than
:data:`CLOCK_TOLERANCE` seconds below zero). The last move's comment (or the
game comment when no move was played) says what happened.

Games are streamed: each one is written to the PDN file as soon as it and
every game before it in the schedule have finished (games finished out of
order, with ``concurrency``, wait for the ones before them), and the match
keeps only a small summary of each game, a :class:`MatchGame` (result,
termination, length, tags and the moves as one line of text), never its game
tree; :attr:`MatchGame.game` rebuilds the tree when asked.

Time control: ``movetime`` seconds per move, or ``clock``: a
:class:`damier.engine.Clock` (the start times, increments, and ``moves_to_go``
for a repeating control of that many moves) or its text (:func:`parse_clock`,
``"1+0.5"``: minutes and seconds, as ``damier play`` reads it). With neither, engines
with no ``depth`` or ``nodes`` option of their own get :data:`DEFAULT_MOVETIME` seconds
per move.

Statistics
----------
The score is the fraction of the points won by engine A (a win 1, a draw 1/2).
The Elo difference is the logistic one, ``elo = -400 log10(1/score - 1)``
(:func:`elo_from_score`): 75% is +190.8 Elo.

The 95% interval is computed on the score and mapped through the same formula:
``score +- 1.959964 * SE``. The standard error comes from

* the pentanomial model when every game played belongs to a complete game
  pair (both colours of an opening): each pair scores 0, 1/2, 1, 3/2 or 2
  points for A; SE is the standard deviation of the per-game score of the
  pairs divided by the square root of the number of pairs. This counts the
  pair as the independent unit, which is right when the openings favour one
  side (:func:`pentanomial_interval`);
* the trinomial model otherwise (an odd number of games, or a match stopped
  in the middle of pairs): each game is independent with results win, draw,
  loss; SE is the standard deviation of the game scores divided by the square
  root of the number of games (:func:`trinomial_interval`).

:attr:`MatchResult.interval_model` says which one was used. A score of 0 or 1
gives an infinite Elo; an interval end at or beyond 0 or 1 is infinite too.
Whenever complete pairs were played, :attr:`MatchResult.pentanomial` holds their
counts ``[LL, LD, DD+WL, WD, WW]`` (pairs in which A scored 0, 1/2, 1, 3/2, 2
points) and :attr:`MatchResult.pentanomial_elo` the Elo of those pairs with its
pentanomial interval. The statistics themselves are in :mod:`damier.sprt`.
The report (:meth:`MatchResult.summary`, :meth:`MatchResult.to_dict`) adds the
draw ratio, the LOS, the normalized Elo and the opening bias, and shows no
infinite Elo or zero-width interval: what the games cannot measure (all games
won, too few games or pairs, no spread) is given as not measurable, with the
reason (:mod:`damier.match.results`).

SPRT
----
With ``sprt`` (a :class:`damier.sprt.SPRT`; ``--sprt ELO0 ELO1`` on the command
line), each complete pair is added to the test as soon as its second game ends,
and once the test decides (H1: A is ``elo1`` Elo stronger; H0: at most
``elo0``) the match starts no new pair: the games already running are finished
(and the other game of a pair already begun), counted and written, and the
result reports the decision (:attr:`MatchResult.sprt_decision`, the one that
stopped the match) with the test as it stood then
(:attr:`MatchResult.sprt_at_decision`: the LLR and the pairs at the decision).
The pairs finished after it are counted in :attr:`MatchResult.sprt` and can take
its LLR back inside the bounds; the decision stands, and the summary gives both.
A journal read back (resumed, or ``--report``) is decided at its first pair, in
the schedule's order, that reached a bound. ``games`` is then the most games to
play, and must be even.

Resuming
--------
With ``resume`` (``--resume FILE``), every finished game is appended to a journal,
a JSON-lines file, and flushed to disk as it ends: a first line with the
match's settings (engines, variant, time control, openings, opening order,
seed, maximum length), then one line per game with everything its
:class:`MatchGame` holds. Running the match again with the same journal
plays only the games it lacks: the seed (taken from the journal when none is
given) gives the same schedule of openings, the journal's games count as
played, and the PDN file, if any, is written again with all of them. A journal
written with other settings is refused (a :class:`ValueError` naming what
differs). Only whole lines are written (a game dropped by Ctrl-C is not in
it); a last line cut short by a crash is ignored with a warning and replaced
by the next game. :func:`read_journal` (``damier match --report FILE``) gives the
result of a journal's games without playing, while its match runs or after it
stopped, with an SPRT's decision on its complete pairs when given one.

Stopping
--------
Ctrl-C (a :class:`KeyboardInterrupt` in the thread that called
:func:`run_match`) stops the match: the games being played are dropped, the
finished ones are kept (and written), and the result comes back with
``interrupted`` set. A second Ctrl-C also quits the Hub engines at once.
With a journal, run the same match again to go on.

Modules
-------
:mod:`damier.match.players` (engine specs, the :class:`Player` protocol, the
players of damier's engine and of Hub engines), :mod:`damier.match.clock` (the
time control), :mod:`damier.match.referee` (one game), :mod:`damier.match.results`
(:class:`MatchGame`, :class:`MatchResult`), :mod:`damier.match.journal` (the
resumable journal) and :mod:`damier.match.runner` (:func:`run_match` and the
:class:`~damier.match.runner.MatchRunner` that holds one run). ``damier match``,
the command line, is :mod:`damier.cli.match`.
"""

from __future__ import annotations

# Names in __all__ are the API of damier.match; the "X as X" ones stay importable
# from here as they were before the package was split (benchmarks, tests).
from damier.match.clock import CLOCK_TOLERANCE, parse_clock
from damier.match.journal import JOURNAL_VERSION as JOURNAL_VERSION
from damier.match.journal import read_journal
from damier.match.players import (DEFAULT_MOVETIME, EngineCrashError, EngineIllegalMoveError,
                                  EngineSpec, EngineSpecError, EngineStartError,
                                  EngineTimeoutError, Player, make_player, parse_engine_spec)
from damier.match.players import DamierPlayer as DamierPlayer
from damier.match.players import EngineLike as EngineLike
from damier.match.players import HubPlayer as HubPlayer
from damier.match.players import damier_options_help as damier_options_help
from damier.match.referee import DEFAULT_MAX_PLIES
from damier.match.results import MatchGame, MatchResult, MoveEval
from damier.match.runner import run_match
from damier.sprt import SPRT as SPRT
from damier.sprt import EloEstimate as EloEstimate
from damier.sprt import elo_estimate as elo_estimate
from damier.sprt import elo_from_score, pentanomial_interval, trinomial_interval
from damier.sprt import format_elo as format_elo

__all__ = [
    "run_match",
    "read_journal",
    "MatchResult",
    "MatchGame",
    "MoveEval",
    "EngineSpec",
    "EngineSpecError",
    "EngineStartError",
    "EngineIllegalMoveError",
    "EngineTimeoutError",
    "EngineCrashError",
    "Player",
    "parse_engine_spec",
    "parse_clock",
    "make_player",
    "elo_from_score",
    "trinomial_interval",
    "pentanomial_interval",
    "DEFAULT_MOVETIME",
    "DEFAULT_MAX_PLIES",
    "CLOCK_TOLERANCE",
]
