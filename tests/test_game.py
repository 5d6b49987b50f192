"""``damier.game``: the game layer shared by ``damier play`` and ``damier serve``.

Expected values come from the rules (Fischer clocks: the time a side thinks is taken
from its clock, then the increment is added; a fallen flag loses; the FMJD draw rules)
and from hand-worked positions, not from the code under test.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import damier
from damier import BLACK, WHITE, Board, Move, Rules, Termination
from damier.engine import Clock, Engine
from damier.game import (ENGINE, HUMAN, Game, GameClock, GameEnd, GameError, GameOverError,
                         LineError, end_of, players_for_seats)


class FakeTime:
    """A time source the test moves by hand."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def person_vs_engine(**kwargs) -> Game:
    return Game(white=HUMAN, black=ENGINE, level=1, **kwargs)


def two_people(**kwargs) -> Game:
    return Game(white=HUMAN, black=HUMAN, **kwargs)


# -- moves, undo and redo ------------------------------------------------------------------


def test_push_records_moves_as_moves_with_their_text_and_position():
    game = two_people(fen="W:WK47,49:B14,19,29,31,42,5")    # two captures share 47 and 36
    ply = game.push("47x24x36")
    assert ply.move.path == (47, 38, 24, 13, 36)
    assert ply.text == "47x38x24x13x36"                     # the full path: it is ambiguous
    assert ply.fen == game.board.fen()
    assert game.moves == [ply.move] and game.move_texts() == ["47x38x24x13x36"]


def test_an_illegal_move_changes_nothing():
    game = two_people()
    game.push("32-28")
    game.push("19-23")
    with pytest.raises(damier.IllegalMoveError, match="a capture is compulsory"):
        game.push("32-27")
    with pytest.raises(damier.IllegalMoveError):
        game.push(Move(31, 26))
    assert game.move_texts() == ["32-28", "19-23"] and game.board.turn == WHITE


def test_redo_restores_the_same_engine_reply():
    game = person_vs_engine()
    game.push("32-28")
    engine = Engine(hash_mb=1, level=1, seed=7)
    reply = engine.search(game.board.copy(), depth=1).best_move
    assert reply in game.board.legal_moves
    game.push(reply)
    assert game.human_to_move()
    taken = game.undo_to_person()
    assert [p.text for p in taken] == ["32-28", game.redo_texts()[0]]
    assert not game.plies and game.human_to_move()
    replayed = game.redo_to_person()
    assert [p.move for p in replayed] == [Move(32, 28), reply]   # the reply itself, no search
    assert game.moves == [Move(32, 28), reply] and not game.redo_stack
    assert game.human_to_move()


def test_redo_with_replies_goes_on_only_while_the_engine_is_to_move():
    game = person_vs_engine()
    for text in ("32-28", "19-23", "28x19", "14x23"):
        game.push(text)
    game.undo(4)
    # one ply asked for: the person's 32-28, then the engine's 19-23 that undo took back
    assert [p.text for p in game.redo(1, replies=True)] == ["32-28", "19-23"]
    assert game.human_to_move() and game.redo_texts() == ["14x23", "28x19"]
    assert [p.text for p in game.redo(1)] == ["28x19"]     # without replies: one ply
    assert game.engine_to_move()


def test_undo_goes_back_to_the_persons_turn():
    # The person has Black: the engine (White) opened, so the person is to move after an
    # odd number of plies.
    game = Game(white=ENGINE, black=HUMAN)
    assert game.undo_to_person() == []                     # the engine is to move at the start
    game.push("32-28")                                      # the engine
    assert game.plies_to_person() == 0                      # nothing of the person's to undo
    game.push("19-23")                                      # the person
    game.push("28x19")                                      # the engine
    assert game.human_to_move()
    assert [p.text for p in game.undo_to_person()] == ["19-23", "28x19"]
    assert game.move_texts() == ["32-28"] and game.human_to_move()
    game.push("18-23")                                      # the engine is to move now
    assert game.engine_to_move()
    assert [p.text for p in game.undo_to_person()] == ["18-23"]
    assert game.human_to_move()


def test_undo_between_two_people_takes_one_ply():
    game = two_people()
    game.push("32-28")
    game.push("19-23")
    assert [p.text for p in game.undo_to_person()] == ["19-23"]
    assert [p.text for p in game.redo_to_person()] == ["19-23"]


def test_a_move_keeps_redo_when_it_is_the_next_one_and_clears_it_otherwise():
    game = two_people()
    for text in ("32-28", "19-23", "28x19"):
        game.push(text)
    game.undo(2)
    assert game.redo_texts() == ["28x19", "19-23"]
    game.push("19-23")                                      # the move redo would play
    assert game.redo_texts() == ["28x19"]
    game.undo(1)
    game.push("18-23")                                      # another move
    assert game.redo_texts() == [] and not game.can_redo()


def test_set_line_keeps_the_common_moves_and_names_the_bad_one():
    game = two_people()
    game.set_line(["32-28", "19-23", "28x19"])
    assert game.move_texts() == ["32-28", "19-23", "28x19"]
    first = game.plies[0]
    game.set_line(["32-28", "18-23"])
    assert game.move_texts() == ["32-28", "18-23"] and game.plies[0] is first
    assert not game.redo_stack
    with pytest.raises(LineError, match=r"^move 2 \('32-27'\)") as info:
        game.set_line(["32-28", "32-27"])
    assert info.value.ply == 2 and game.move_texts() == ["32-28", "18-23"]


def test_who_is_to_move():
    assert players_for_seats("white") == {WHITE: HUMAN, BLACK: ENGINE}
    assert players_for_seats("none") == {WHITE: ENGINE, BLACK: ENGINE}
    analysis = Game(white=HUMAN, black=HUMAN)
    assert analysis.seats == "both" and analysis.person_color() is None
    assert analysis.human_to_move() and not analysis.engine_to_move()
    engines = Game(white=ENGINE, black=ENGINE)
    assert engines.seats == "none" and engines.engine_to_move()
    game = Game(white=ENGINE, black=HUMAN, level=4)
    assert game.seats == "black" and game.engine_color() == WHITE
    assert game.player_name(WHITE) == "damier level 4" and game.player_name(BLACK) == "you"
    game.resign(BLACK)
    assert not game.engine_to_move() and not game.human_to_move()   # the game is over
    with pytest.raises(ValueError, match="level must be between 1 and 10"):
        Game(level=11)
    with pytest.raises(ValueError, match="white must be 'human' or 'engine'"):
        Game(white="robot")


# -- the end of the game ---------------------------------------------------------------------


def test_resignation():
    game = person_vs_engine()
    game.push("32-28")
    game.resign(WHITE)
    end = game.outcome()
    assert end == GameEnd(BLACK, "resignation", "White resigned", Termination.RESIGNATION)
    assert end.result() == "0-1" and end.headline() == "Black wins: resignation (White resigned)"
    assert game.outcome_info() == {
        "result": "0-1", "winner": "black", "termination": "resignation", "rule": "resignation",
        "text": "Black wins: resignation (White resigned)", "pdn_result": "0-2"}
    with pytest.raises(GameOverError, match="the game is over"):
        game.push("19-23")
    with pytest.raises(GameOverError, match="cannot be taken back"):
        game.undo()
    with pytest.raises(GameOverError):
        game.resign(BLACK)
    game.reopen()                                           # the terminal's undo after resigning
    assert not game.is_over() and [p.text for p in game.undo()] == ["32-28"]


def test_draw_offers_and_agreement():
    game = two_people()
    assert game.can_offer_draw()
    assert game.offer_draw(WHITE) is False and game.draw_offer == WHITE
    game.push("32-28")                                      # the offerer's own move: it stands
    assert game.draw_offer == WHITE
    game.push("19-23")                                      # the opponent plays on: declined
    assert game.draw_offer is None
    game.offer_draw(WHITE)
    assert game.offer_draw(BLACK) is True                   # an offer against an offer: agreed
    end = game.outcome()
    assert end.winner is None and end.result() == "1/2-1/2"
    assert end.headline() == "draw: agreement" and end.termination is Termination.AGREEMENT
    assert not game.can_offer_draw()


def test_draw_offers_follow_the_rules():
    rules = replace(Rules.for_variant("international"), draw_offer_min_moves=2)
    game = two_people(rules=rules)
    assert not game.can_offer_draw()
    with pytest.raises(GameError, match="only after 2 moves each"):
        game.offer_draw(WHITE)
    for text in ("31-26", "20-24", "36-31"):
        game.push(text)
    assert not game.can_offer_draw()                        # Black has made one move
    game.push("15-20")
    assert game.can_offer_draw()


@pytest.mark.parametrize("fen, moves, headline", [
    ("W:W28:B23", ["28x19"], "White wins: no legal move (Black has no pieces left)"),
    ("W:W46:B41,37", [], "Black wins: no legal move (White cannot move)"),
    ("W:W36,K47:B15,K4", ["47-42", "4-10", "42-47", "10-4"] * 2, "draw: threefold repetition"),
])
def test_ends_by_the_rules_in_words(fen, moves, headline):
    game = two_people(fen=fen)
    for text in moves:
        game.push(text)
    assert game.is_over() and game.outcome().headline() == headline
    assert game.outcome() == end_of(game.board.outcome(), game.board)


# -- clocks ----------------------------------------------------------------------------------------


def test_fischer_clock_charges_the_mover_and_adds_the_increment():
    now = FakeTime()
    game = two_people(clock=(60.0, 2.0), now=now)
    assert game.times() == {WHITE: 60.0, BLACK: 60.0}
    now.t += 30                                             # not started: nothing counts
    assert game.times() == {WHITE: 60.0, BLACK: 60.0}
    game.start_clock()
    now.t += 10
    assert game.times() == {WHITE: 50.0, BLACK: 60.0}
    ply = game.push("32-28")                                # 60 - 10 + 2
    assert ply.clock == (52.0, 60.0)
    now.t += 5
    game.push("19-23")                                      # 60 - 5 + 2
    assert game.times() == {WHITE: 52.0, BLACK: 57.0}
    now.t += 4
    assert game.times() == {WHITE: 48.0, BLACK: 57.0}       # White's clock runs again


def test_undo_gives_the_time_back_and_redo_restores_it():
    now = FakeTime()
    game = two_people(clock=(60.0, 2.0), now=now)
    game.start_clock()
    now.t += 10
    game.push("32-28")
    now.t += 5
    game.push("19-23")
    now.t += 7
    game.undo()                                # Black's turn again, with its time before 19-23
    assert game.times() == {WHITE: 52.0, BLACK: 60.0}
    now.t += 1
    assert game.times() == {WHITE: 52.0, BLACK: 59.0}       # and its clock runs
    game.redo()
    assert game.times() == {WHITE: 52.0, BLACK: 57.0}       # as it was after 19-23
    game.undo(2)
    assert game.times() == {WHITE: 60.0, BLACK: 60.0}


def test_pause_stops_the_clock_and_charges_the_time_so_far():
    now = FakeTime()
    game = two_people(clock=(60.0, 0.0), now=now)
    game.start_clock()
    now.t += 10
    game.pause_clock()
    now.t += 100
    assert game.times()[WHITE] == 50.0 and not game.clock_running
    game.start_clock()
    now.t += 5
    assert game.times()[WHITE] == 45.0


def test_a_fallen_flag_loses_on_time():
    now = FakeTime()
    game = two_people(clock=(60.0, 0.0), now=now)
    game.start_clock()
    game.push("32-28")
    now.t += 59.5
    assert not game.check_flag()
    now.t += 0.5                                            # exactly no time left: the flag falls
    assert game.check_flag()
    end = game.outcome()
    assert end == GameEnd(WHITE, "time forfeit", "Black's flag fell", Termination.TIME_FORFEIT)
    assert end.headline() == "White wins: time forfeit (Black's flag fell)"
    assert game.outcome_info()["pdn_result"] == "2-0"
    assert game.times()[BLACK] == 0.0
    assert not game.check_flag()                            # once


def test_a_move_after_the_flag_fell_is_not_played():
    now = FakeTime()
    game = two_people(clock=(5.0, 3.0), now=now)
    game.start_clock()
    now.t += 6
    with pytest.raises(GameOverError, match="White's flag fell"):
        game.push("32-28")
    assert not game.plies
    assert game.outcome().winner == BLACK


def test_a_flag_is_a_loss_whatever_is_on_the_board():
    # No rule of draughts draws for lack of material: Black's single man wins on time
    # against White's twenty.
    now = FakeTime()
    game = two_people(fen="W:W31-50:B1", clock=(5.0, 0.0), now=now)
    game.start_clock()
    now.t += 6
    assert game.check_flag() and game.outcome().winner == BLACK
    assert game.outcome().result() == "0-1"


def test_the_clocks_stop_at_the_end_of_the_game():
    now = FakeTime()
    game = two_people(fen="W:W28:B23", clock=(60.0, 1.0), now=now)
    game.start_clock()
    now.t += 8
    game.push("28x19")                                      # Black has no pieces left
    assert game.is_over()
    now.t += 500
    assert game.times() == {WHITE: 53.0, BLACK: 60.0}
    assert not game.check_flag()
    now = FakeTime()
    game = two_people(clock=(60.0, 0.0), now=now)
    game.start_clock()
    now.t += 20
    game.resign(WHITE)                                      # resigning stops the clock too
    now.t += 500
    assert game.times() == {WHITE: 40.0, BLACK: 60.0}


def test_the_engine_clock_is_the_time_left():
    now = FakeTime()
    game = Game(white=HUMAN, black=ENGINE, clock=(60.0, 2.0), now=now)
    assert two_people().engine_clock() is None
    game.start_clock()
    now.t += 10
    game.push("32-28")
    now.t += 3                                              # the engine has thought 3 s
    clock = game.engine_clock()
    assert clock == Clock(52.0, 57.0, 2.0, 2.0)
    soft, hard = clock.budget(game.board.turn == WHITE)
    assert 0 < soft <= hard < 57.0                          # a budget within Black's time
    now.t += 100                                            # past the flag, not yet checked
    assert game.engine_clock() == Clock(52.0, 0.0, 2.0, 2.0)


def test_game_clock_checks_its_settings():
    with pytest.raises(ValueError):
        GameClock(0.0)
    with pytest.raises(ValueError):
        GameClock(60.0, -1.0)


# -- as a plain dict ------------------------------------------------------------------------------


def test_dict_round_trip_with_clocks_redo_and_an_offer():
    now = FakeTime()
    game = Game(white=HUMAN, black=ENGINE, level=7, white_name="Ann", clock=(60.0, 2.0), now=now)
    game.start_clock()
    for text, seconds in (("32-28", 10), ("19-23", 5), ("28x19", 4), ("14x23", 2)):
        now.t += seconds
        game.push(text)
    game.undo(2)
    now.t += 3
    game.offer_draw(WHITE)
    data = json.loads(json.dumps(game.to_dict()))           # plain JSON data
    assert data["moves"] == ["32-28", "19-23"] and data["redo"] == ["14x23", "28x19"]
    assert (data["human"], data["level"], data["white"], data["black"]) == (
        "white", 7, "Ann", "damier level 7")
    assert data["result"] == "*" and data["clock_initial"] == 60.0
    again = Game.from_dict(data, now=now)
    assert again.to_dict() == data
    assert again.plies == game.plies and again.redo_stack == game.redo_stack
    assert again.times() == game.times() == {WHITE: 49.0, BLACK: 57.0}
    now.t += 1                                              # White's clock goes on running
    assert again.times()[WHITE] == 48.0
    assert again.draw_offer == WHITE
    assert [p.text for p in again.redo_to_person()] == ["28x19", "14x23"]
    # the clocks as they were after 14x23: 52 - 4 + 2 for White, 57 - 2 + 2 for Black
    assert again.times() == {WHITE: 50.0, BLACK: 57.0}


def test_dict_round_trip_of_decided_games():
    for decide, headline in ((lambda g: g.resign(BLACK),
                              "White wins: resignation (Black resigned)"),
                             (lambda g: g.agree_draw(), "draw: agreement")):
        game = two_people()
        game.push("32-28")
        decide(game)
        data = game.to_dict()
        assert data["termination_text"] == headline
        again = Game.from_dict(data)
        assert again.decided == game.decided and again.outcome().headline() == headline
    now = FakeTime()
    game = two_people(clock=(1.0, 0.0), now=now)
    game.start_clock()
    now.t += 2
    game.check_flag()
    again = Game.from_dict(json.loads(json.dumps(game.to_dict())), now=now)
    assert again.outcome().termination is Termination.TIME_FORFEIT
    assert again.times() == {WHITE: 0.0, BLACK: 1.0}
    loaded = two_people()
    loaded.end_game(GameEnd(WHITE, "the result in the file"))   # a result read from a PDN
    again = Game.from_dict(loaded.to_dict())
    assert again.outcome().headline() == "White wins: the result in the file"


def test_dict_round_trip_keeps_the_variant_and_start_position():
    game = Game("B:W21-32:B1-12", variant="english", white=HUMAN, black=HUMAN)
    game.push("11-15")
    again = Game.from_dict(game.to_dict())
    assert again.variant.name == "english" and again.board == game.board
    assert again.start_fen == game.start_fen


def test_from_board_keeps_the_moves():
    board = Board()
    for text in ("32-28", "19-23", "28x19"):
        board.push(text)
    game = Game.from_board(board, white=HUMAN, black=HUMAN)
    assert game.moves == board.move_stack and game.board.fen() == board.fen()
    assert game.start_fen == Board().fen()


# -- one wording for the terminal and the web -----------------------------------------------------


def test_terminal_and_web_word_the_end_alike(tmp_path):
    pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
    from damier import play
    from damier.web.session import GameSession
    from damier.web.storage import GameStore

    assert play.GameEnd is GameEnd      # one class, from the game layer

    store = GameStore(":memory:")
    cases = [
        ("W:W28:B23", ["28x19"], None, "White wins: no legal move (Black has no pieces left)"),
        ("W:W46:B41,37", [], None, "Black wins: no legal move (White cannot move)"),
        ("W:W36,K47:B15,K4", ["47-42", "4-10", "42-47", "10-4"] * 2, None,
         "draw: threefold repetition"),
        (None, ["32-28", "19-23"], "resign", "Black wins: resignation (White resigned)"),
    ]
    for fen, moves, command, headline in cases:
        terminal = play.PlaySession(white="human", black="human", fen=fen)
        out = "\n".join(str(item) for item in terminal.start())
        out += "\n".join(terminal.send(m) for m in moves)
        web = GameSession.create(store, human="both", fen=fen)
        for text in moves:
            web.play({"move": text})
        if command == "resign":
            out += terminal.send("resign")                  # White to move resigns
            web.resign("white")
        assert f"Game over: {headline}. Result" in out
        assert web.state()["outcome"]["text"] == headline
        assert terminal.game_end().headline() == headline
    store.close()


def test_terminal_and_web_sessions_keep_their_game_in_the_game_layer(tmp_path):
    pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
    from damier.play import PlaySession
    from damier.web.session import GameSession
    from damier.web.storage import GameStore

    terminal = PlaySession(white="human", black="human")
    terminal.send("32-28")
    assert isinstance(terminal.game, Game) and terminal.game.move_texts() == ["32-28"]
    store = GameStore(tmp_path / "g.sqlite3")
    web = GameSession.create(store, human="both")
    web.play({"move": "32-28"})
    assert isinstance(web.game, Game) and web.game.move_texts() == web.record.moves == ["32-28"]
    store.close()
