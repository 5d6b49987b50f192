"""Adjudication of match games on the engines' scores (damier.match.adjudication):
the rules by their definitions, scripted engines in a match, the scores the
players report, the journal and ``damier match``'s options."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Callable

import pytest

from damier import Board, Move
from damier.cli import main
from damier.engine import Engine
from damier.hub import HubResult
from damier.match import make_player, run_match
from damier.match.adjudication import Adjudication, DrawAdjudication, LossAdjudication
from damier.match.journal import read_journal
from damier.match.players import HubPlayer, _hub_score
from damier.match.replay import replay_adjudication

Score = Callable[[Board], "int | None"]


class ScoredPlayer:
    """Plays its first legal move (by squares) and reports ``score(board)`` as the
    score of that move."""

    def __init__(self, name: str, score: Score) -> None:
        self.name = name
        self.score = score
        self.last_score: int | None = None

    def new_game(self) -> None:
        pass

    def play(self, board: Board, *, movetime: float | None, clock: object) -> Move:
        self.last_score = self.score(board)
        return sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square))[0]

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def scored(name: str, score: Score) -> Callable[[], ScoredPlayer]:
    return lambda: ScoredPlayer(name, score)


# -- the rules --------------------------------------------------------------------------------


def test_draw_rule_needs_the_ply_and_every_one_of_the_last_scores_within_the_margin() -> None:
    rule = DrawAdjudication(after=10, plies=4, score=20)
    level = [300, -300, 20, -20, 0, 5]          # the last four within 20 centi-men
    assert rule.applies(10, level) and rule.applies(11, level)
    assert not rule.applies(9, level)            # too early
    assert not rule.applies(10, level[:3])       # fewer moves than the rule looks at
    assert not rule.applies(10, [0, 0, 21, 0, 0, -21][:5])
    assert not rule.applies(10, [0, 0, 0, None, 0, 0])   # a move without a score breaks it
    assert not rule.applies(10, [0, 0, None, 0, 0, -21])


def test_loss_rule_needs_both_sides_to_agree_on_the_same_winner() -> None:
    rule = LossAdjudication(plies=4, score=500)
    white_moved = [True, False, True, False]
    # White's moves +500 and more, Black's -500 and less: White is ahead in every one
    assert rule.winner(white_moved, [500, -700, 900, -500]) == "1-0"
    assert rule.winner(white_moved, [-500, 600, -800, 9000]) == "0-1"
    assert rule.winner(white_moved, [500, -700, 900, -499]) is None      # one below the margin
    assert rule.winner(white_moved, [500, 700, 900, -700]) is None       # Black thinks it wins
    assert rule.winner(white_moved, [500, -700, None, -700]) is None
    assert rule.winner(white_moved[1:], [-700, 900, -700]) is None       # too few moves
    # only the last four count
    assert rule.winner([False] + white_moved, [800, 500, -700, 900, -500]) == "1-0"


def test_adjudication_prefers_a_win_to_a_draw_and_records_its_rules() -> None:
    both = Adjudication(DrawAdjudication(after=0, plies=2, score=10_000),
                        LossAdjudication(plies=2, score=100))
    result, reason = both.ending(40, [True, False], [150, -150]) or ("", "")
    assert result == "1-0" and "White wins by adjudication" in reason
    assert both.ending(40, [True, False], [50, -50]) == ("1/2-1/2", both.draw.reason())
    assert both.to_json() == {"draw": "after=0,plies=2,score=10000", "loss": "plies=2,score=100"}
    assert Adjudication().to_json() is None and Adjudication().ending(100, [], []) is None


@pytest.mark.parametrize("text, message", [
    ("plies=1", "plies must be at least 2, got 1"),
    ("after=-1", "after must be at least 0, got -1"),
    ("score=0.2", "score must be a whole number, got '0.2'"),
    ("after=80,after=90", "after given twice"),
    ("moves=8", "unknown key 'moves'; the keys are after, plies, score"),
    ("plies", "'plies' needs a value"),
])
def test_bad_draw_rules_are_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="draw adjudication: ") as info:
        DrawAdjudication.parse(text)
    assert message in str(info.value)


def test_rules_reject_bad_values_made_directly() -> None:
    with pytest.raises(ValueError, match="plies must be a whole number of at least 2"):
        LossAdjudication(plies=0)
    with pytest.raises(ValueError, match="score must be a whole number of at least 1"):
        LossAdjudication(score=0)
    with pytest.raises(ValueError, match="after must be a whole number"):
        DrawAdjudication(after=True)


# -- in a match ------------------------------------------------------------------------------


def test_a_level_game_is_drawn_as_soon_as_the_rule_holds() -> None:
    level = scored("level", lambda board: 0)
    result = run_match(level, level, games=2, openings=[[]], progress=False, seed=1,
                       adjudication=Adjudication(draw=DrawAdjudication(after=10, plies=4,
                                                                       score=0)))
    assert result.draws == 2
    for g in result.games:
        assert (g.termination, g.plies) == ("adjudication", 10)
        assert "both engines scored the last 4 moves within 0.00 men of level" in g.reason
        # the last move's comment: its score (level) and time, then why the game ended
        assert g.game.end().comment.startswith("+0.00 ")
        assert g.game.end().comment.endswith("s; " + g.reason)


def test_the_draw_waits_for_the_last_moves_to_be_level() -> None:
    # level only from the 12th ply on (the board's ply count): the rule's 4 moves end at 15
    late = scored("late", lambda board: 0 if board.ply >= 11 else 250)
    result = run_match(late, late, games=2, openings=[[]], progress=False, seed=1,
                       adjudication=Adjudication(draw=DrawAdjudication(after=10, plies=4,
                                                                       score=50)))
    assert [g.plies for g in result.games] == [15, 15]


def test_a_game_both_engines_see_won_goes_to_the_side_ahead_with_either_colour() -> None:
    # A is sure it wins, B is sure it loses: A wins as White and as Black
    winner, loser = scored("winner", lambda board: 600), scored("loser", lambda board: -600)
    result = run_match(winner, loser, games=2, openings=[[]], progress=False, seed=1,
                       adjudication=Adjudication(loss=LossAdjudication(plies=6, score=500)))
    assert (result.wins, result.draws, result.losses) == (2, 0, 0)
    assert [g.result for g in result.games] == ["1-0", "0-1"]
    assert all(g.termination == "adjudication" and g.plies == 6 for g in result.games)
    assert "White wins by adjudication" in result.games[0].reason
    assert "Black wins by adjudication" in result.games[1].reason


def test_no_adjudication_when_the_engines_disagree_or_give_no_scores() -> None:
    rules = Adjudication(DrawAdjudication(after=0, plies=2, score=100),
                         LossAdjudication(plies=2, score=100))
    optimist = scored("optimist", lambda board: 600)    # both think they win
    result = run_match(optimist, optimist, games=2, openings=[[]], progress=False, seed=1,
                       max_plies=12, adjudication=rules)
    silent = scored("silent", lambda board: None)
    result2 = run_match(silent, silent, games=2, openings=[[]], progress=False, seed=1,
                        max_plies=12, adjudication=rules)
    for g in result.games + result2.games:
        assert g.plies == 12 and "maximum game length" in g.reason


def test_damier_players_report_their_search_score() -> None:
    board = Board("W:W31,32,33,34,35,K45:B11,12,13,14")
    player = make_player("damier:depth=3,hash=1")
    player.play(board, movetime=None, clock=None)
    expected = Engine(hash_mb=1).search(board, depth=3).score
    assert player.last_score == expected  # type: ignore[attr-defined]
    assert expected > 200   # White is two pieces (one a king) up


def test_hub_players_report_the_last_info_score_in_centi_men() -> None:
    class Stub:
        def search(self, board: Board, **limits: object) -> HubResult:
            move = next(iter(board.legal_moves))
            return HubResult(move, None, str(move), infos=[{"depth": 1, "score": 0.5},
                                                            {"depth": 2, "score": -1.25}])

    player = HubPlayer.__new__(HubPlayer)
    player.engine, player.last_score = Stub(), None
    player._hub = __import__("damier.hub", fromlist=["hub"])
    player.play(Board(), movetime=0.01, clock=None)
    assert player.last_score == -125
    assert (_hub_score(None), _hub_score(float("nan")), _hub_score(True), _hub_score(3)) == \
        (None, None, None, 300)


def test_the_journal_keeps_the_rules_and_a_resume_must_give_the_same(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    level = scored("level", lambda board: 0)
    rules = Adjudication(draw=DrawAdjudication(after=6, plies=2, score=0))
    run_match(level, level, games=2, openings=[[]], progress=False, seed=1, resume=journal,
              adjudication=rules)
    header = json.loads(journal.read_text(encoding="utf-8").splitlines()[0])
    assert header["settings"]["adjudication"] == {"draw": "after=6,plies=2,score=0"}
    with pytest.raises(ValueError, match=r"adjudication \(draw after=6,plies=2,score=0 in the "
                                         r"journal, none now\)"):
        run_match(level, level, games=4, openings=[[]], progress=False, seed=1, resume=journal)
    again = run_match(level, level, games=4, openings=[[]], progress=False, seed=1,
                      resume=journal, adjudication=rules)
    assert again.resumed == 2 and [g.plies for g in again.games] == [6, 6, 6, 6]


# -- damier match ------------------------------------------------------------------------------


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_adjudicates_with_the_defaults_and_given_rules(tmp_path: Path) -> None:
    journal = tmp_path / "m.jsonl"
    code, out, err = run(["match", "damier:depth=1,hash=1", "damier:depth=1,hash=1", "--games",
                          "2", "--openings", "none", "--adjudicate-draw", "--adjudicate-loss",
                          "plies=4,score=300", "--resume", str(journal), "--no-progress"])
    assert code == 0, err
    header = json.loads(journal.read_text(encoding="utf-8").splitlines()[0])
    assert header["settings"]["adjudication"] == {"draw": "after=100,plies=8,score=10",
                                                  "loss": "plies=4,score=300"}


@pytest.mark.parametrize("flags, message", [
    (["--adjudicate-draw", "plies=1"], "--adjudicate-draw: plies must be at least 2, got 1"),
    (["--adjudicate-loss", "score=x"], "--adjudicate-loss: score must be a whole number"),
    (["--adjudicate-draw", "", "--adjudicate-loss", "after=3"],
     "--adjudicate-loss: unknown key 'after'; the keys are plies, score"),
])
def test_cli_bad_rules_are_clear(flags: list[str], message: str) -> None:
    code, out, err = run(["match", "damier:depth=1", "damier:depth=1", *flags])
    assert code == 2 and message in err and "Traceback" not in err


# -- the rules replayed on a match's games ----------------------------------------------------

DEPTH2, DEPTH1 = "damier:depth=2,hash=1", "damier:depth=1,hash=1"
TIGHT = Adjudication(DrawAdjudication(after=20, plies=4, score=30),
                     LossAdjudication(plies=4, score=150))


def test_the_replay_ends_the_games_where_the_rules_end_them_when_played() -> None:
    # the same match played out and played with the rules (the engines search to a
    # fixed depth: the same moves up to where the rules end a game); the replay of the
    # rules on the full games must say what the referee did
    full = run_match(DEPTH2, DEPTH1, games=6, seed=3, progress=False)
    live = run_match(DEPTH2, DEPTH1, games=6, seed=3, progress=False, adjudication=TIGHT)
    replay = replay_adjudication(TIGHT, full.games)
    assert replay.games == replay.scored == 6
    assert replay.plies == sum(g.plies for g in full.games)
    ended = {g.number: g for g in replay.ended}
    adjudged = [g for g in live.games if g.termination == "adjudication"]
    assert adjudged and any(g.result == "1/2-1/2" for g in adjudged)
    assert any(g.result != "1/2-1/2" for g in adjudged)
    for played, short in zip(full.games, live.games, strict=True):
        assert played.moves.startswith(short.moves)
        if short.termination == "adjudication":
            assert (ended[played.number].ply, ended[played.number].adjudged) == (
                short.plies, short.result)
            assert ended[played.number].played == played.result
        else:
            assert played.number not in ended
    assert replay.plies_saved == sum(f.plies - s.plies for f, s in zip(
        full.games, live.games, strict=True))
    assert [g.number for g in replay.changed] == [
        s.number for f, s in zip(full.games, live.games, strict=True) if f.result != s.result]


def test_cli_report_replays_the_rules_on_a_journal(tmp_path: Path) -> None:
    journal, data = tmp_path / "full.jsonl", tmp_path / "r.json"
    run_match(DEPTH2, DEPTH1, games=6, seed=3, progress=False, resume=journal)
    full = read_journal(journal)
    code, out, err = run(["match", "--report", str(journal), "--adjudicate-draw",
                          "after=20,plies=4,score=30", "--adjudicate-loss", "plies=4,score=150",
                          "--json", str(data)])
    assert code == 0, err
    replay = replay_adjudication(TIGHT, full.games)
    assert "Adjudication replayed on the engines' scores (draw after=20,plies=4,score=30; " \
           "loss plies=4,score=150)" in out
    assert "games with scores: 6 of 6" in out
    assert f"results changed: {len(replay.changed)}" in out
    international = {"1-0": "2-0", "1/2-1/2": "1-1", "0-1": "0-2"}
    assert replay.changed
    for g in replay.changed:
        assert (f"game {g.number}: {international[g.played]} as played, "
                f"{international[g.adjudged]} at ply {g.ply} of {g.plies}") in out
    written = json.loads(data.read_text(encoding="utf-8"))["adjudication_replay"]
    assert written["scored"] == 6 and written["ended"] == len(replay.ended)
    assert [c["number"] for c in written["changed"]] == [g.number for g in replay.changed]
    # without rules the report is the journal's figures alone
    code, out, err = run(["match", "--report", str(journal)])
    assert code == 0 and "Adjudication replayed" not in out


def test_the_replay_leaves_out_games_kept_without_scores(tmp_path: Path) -> None:
    journal = tmp_path / "old.jsonl"
    run_match(DEPTH1, DEPTH1, games=2, seed=3, progress=False, resume=journal, max_plies=40)
    items = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    for item in items[1:]:
        del item["evals"]              # as a journal written before they were kept
    journal.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    code, out, err = run(["match", "--report", str(journal), "--adjudicate-draw"])
    assert code == 0, err
    assert "none of the 2 games kept the engines' scores" in out


# -- damier train gate and tune ---------------------------------------------------------------


def train(argv: list[str]) -> tuple[int, str, str]:
    from damier.cli.train import main as train_main

    out, err = io.StringIO(), io.StringIO()
    code = train_main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_gate_adjudicates_its_games(tmp_path: Path) -> None:
    import damier
    from damier.pdn import read_games

    pdn = tmp_path / "gate.pdn"
    shipped = Path(damier.__file__).parent / "data" / "eval_international.bin"
    code, out, err = train(["gate", str(shipped), "--nodes", "300",
                            "--games", "2", "--no-sprt", "--pdn", str(pdn), "--no-progress",
                            "--adjudicate-draw", "after=0,plies=2,score=100000"])
    assert "Traceback" not in err
    games = list(read_games(pdn))
    assert len(games) == 2
    for g in games:
        opening = g.headers["Opening"].split()
        assert g.headers["Termination"] == "adjudication"
        assert int(g.headers["PlyCount"]) == len(opening) + 2


def test_tune_keeps_its_rules_and_plays_its_games_with_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import damier.match

    seen: list[object] = []
    real = damier.match.run_match

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(kwargs.get("adjudication"))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(damier.match, "run_match", spy)
    state = tmp_path / "tune.json"
    args = ["tune", str(state), "--param", "probcut_margin", "--pairs", "1", "--batch", "1",
            "--nodes", "300", "--hash", "1", "--no-progress", "--adjudicate-draw", "plies=4"]
    code, out, err = train(args)
    assert code == 0, err
    assert seen == [Adjudication(DrawAdjudication(after=100, plies=4, score=10))]
    stored = json.loads(state.read_text())["settings"]
    assert (stored["adjudicate_draw"], stored["adjudicate_loss"]) == \
        ("after=100,plies=4,score=10", None)
    code, out, err = train(args[:-2])         # the same tune without the rule: refused
    assert code == 2 and "adjudicate_draw" in err and "Traceback" not in err
    code, out, err = train(["tune", str(tmp_path / "t2.json"), "--param", "probcut_margin",
                            "--adjudicate-loss", "score=0"])
    assert code == 2 and "--adjudicate-loss: score must be at least 1, got 0" in err
