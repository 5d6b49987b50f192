"""``damier play``: the PlaySession logic (no terminal), the board drawing, the
threaded thinker, and the real ``python -m damier play`` driven through a
pseudo-terminal.

Every engine here searches a ply or two deep (or a fraction of a second), so
the whole file runs in a few seconds.
"""

from __future__ import annotations

import _thread
import io
import os
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

import damier
from damier import BLACK, WHITE, Board, Rules
from damier.cli import main
from damier.pdn import read_game
from damier.play import (BoardView, Message, PlaySession, SearchInterrupted, TerminalThinker,
                         ThinkTask, explain_illegal, format_clock, parse_play_clock,
                         render_board, resolve_move)

SRC = Path(damier.__file__).resolve().parents[1]


def hvh(**kwargs) -> PlaySession:
    """A game between two people (no engine moves)."""
    return PlaySession(white="human", black="human", **kwargs)


def hve(**kwargs) -> PlaySession:
    """A person with White against a fast, seeded engine."""
    kwargs.setdefault("level", 1)
    kwargs.setdefault("depth", 1)
    kwargs.setdefault("seed", 7)
    kwargs.setdefault("hash_mb", 1)
    return PlaySession(**kwargs)


def play(session: PlaySession, *moves: str) -> str:
    return "\n".join(session.send(m) for m in moves)


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


# -- moves ------------------------------------------------------------------------------------


def test_start_shows_greeting_and_board():
    session = hvh()
    items = session.start()
    assert isinstance(items[0], Message) and "help" in items[0].text
    board = [i for i in items if isinstance(i, BoardView)]
    assert len(board) == 1
    text = str(board[0])
    assert text.splitlines()[0].split()[0] == "1"        # White's view: square 1 top left
    assert text.count("○") == 20 and text.count("●") == 20
    assert "White to move" in text


def test_short_form_move_is_echoed_with_its_number():
    session = hvh()
    out = session.send("32-28")
    assert out.splitlines()[0] == "1. 32-28"
    out = session.send("19-23")
    assert out.splitlines()[0] == "1... 19-23"
    assert "last move 19-23" in out
    assert [str(m) for m in session.board.move_stack] == ["32-28", "19-23"]


def test_from_square_with_one_legal_move_is_enough():
    session = hvh()
    out = session.send("35")
    assert "35 → 35-30" in out
    assert session.board.move_stack[-1] == damier.Move(35, 30)


def test_from_square_with_several_moves_lists_them():
    session = hvh()
    out = session.send("32")
    assert "several moves start on 32: 32-27, 32-28" in out
    assert not session.board.move_stack


def test_from_square_without_moves_says_why():
    session = hvh()
    assert "the man on 46 cannot move" in session.send("46")
    assert "there is no piece on 25" in session.send("25")
    assert "the piece on 19 is Black's, and it is White's move" in session.send("19")
    assert "square 99 is not on the International board (1-50)" in session.send("99")
    assert not session.board.move_stack


def test_unique_prefix_is_enough_and_ambiguous_prefix_is_listed():
    session = hvh()
    assert "35- → 35-30" in session.send("35-")
    session = hvh()
    out = session.send("32-2")
    assert "'32-2' could be 32-27, 32-28" in out
    assert not session.board.move_stack
    session = hvh(fen="W:W28:B23")
    assert "28x → 28x19" in session.send("28x")


def test_ambiguous_capture_needs_the_full_path():
    session = hvh(fen="W:WK47:B14,19,29,31,42")
    out = session.send("47x36")
    assert "ambiguous move '47x36'" in out
    assert "47x38x20x9x36" in out and "47x38x24x13x36" in out
    assert not session.board.move_stack
    out = session.send("47x24x36")
    assert "1. 47x38x24x13x36" in out
    assert session.board.move_stack[-1].path == (47, 38, 24, 13, 36)


def test_algebraic_squares_on_8x8():
    session = hvh(variant="russian")
    out = session.send("c3-d4")
    assert out.splitlines()[0] == "1. 22-18"
    assert len(session.board.move_stack) == 1


def test_illegal_move_when_a_capture_is_compulsory_shows_the_rule():
    session = hvh()
    play(session, "32-28", "19-23")
    out = session.send("32-27")
    assert "illegal move '32-27': a capture is compulsory: the piece on 28 must capture" in out
    assert out.endswith("; legal moves are 28x19")
    assert len(session.board.move_stack) == 2


def test_majority_capture_rule_is_explained_with_the_count():
    session = hvh(fen="W:W33,39:B28,18,8,34")
    out = session.send("39x30")
    assert ("capturing is compulsory, and the capture taking the most pieces (3) must be "
            "played") in out
    assert "the piece on 33 must capture" in out


def test_backward_capture_is_explained():
    session = hvh(fen="W:W27:B32")
    out = session.send("27-21")
    assert "men capture backwards too: 27x38 is legal" in out
    assert "1. 27x38" in session.send("27x38")


def test_free_capture_choice_is_explained_in_russian():
    # Russian: any capture may be chosen.
    session = hvh(variant="russian", fen="W:W22,23:B18,19")
    out = session.send("22-17")
    assert "capturing is compulsory (any capture may be chosen" in out


def test_move_to_an_unreachable_square_lists_where_the_piece_can_go():
    session = hvh()
    out = session.send("32-23")
    assert "the man on 32 can only go to 27 or 28" in out
    assert "legal moves are 31-26, 31-27, 32-27, 32-28" in out


def test_explain_illegal_without_legal_moves():
    assert "has no legal move" in explain_illegal(Board("W:W:B1"), "1-2")


def test_resolve_move_reports_completion():
    board = Board()
    assert resolve_move(board, "32-28") == (damier.Move(32, 28), False)
    assert resolve_move(board, "35") == (damier.Move(35, 30), True)


def test_unknown_command_suggests_help():
    session = hvh()
    out = session.send("fnord")
    assert "unknown command 'fnord'" in out and "`help`" in out
    out = session.send("undi")
    assert "did you mean `undo`?" in out
    assert session.send("   ") == ""


# -- commands -------------------------------------------------------------------------------------


def test_help_lists_every_command_and_explains_one():
    session = hvh()
    out = session.send("help")
    for name in ("help", "hint", "undo", "redo", "flip", "level N", "new [VARIANT] [white|black]",
                 "fen [FEN]", "load FILE", "save FILE", "resign", "draw", "numbers [on|off]",
                 "quit", "moves", "go", "rules"):
        assert name in out, name
    assert session.send("help undo").startswith("undo: take back")
    assert "no command 'bogus'" in session.send("help bogus")


def test_moves_and_rules_and_board():
    session = hvh()
    assert "legal moves for White: 31-26, 31-27" in session.send("moves")
    rules = session.send("rules")
    assert "Capturing is compulsory, and the capture taking the most pieces" in rules
    assert "25 moves each without a capture or a man move" in rules
    assert "○" in session.send("board")
    assert "Men capture forwards only" in hvh(variant="english").send("rules")


def test_scores_are_from_whites_side_everywhere():
    # Black, to move here, has eight men against one: White's view of that is negative
    # whichever side the engine plays or is asked for
    session = hvh(depth=2, fen="B:W46:B1,2,3,4,5,6,7,8")
    greeting = "\n".join(map(str, session.start()))
    assert greeting.count("Scores are from White's side: + is good for White") == 1
    hint = session.send("hint")
    score = hint.split("(", 1)[1].split(",", 1)[0]
    assert score.startswith("-") and float(score) < -3, hint
    assert "for Black" not in hint
    # the engine with Black, replying to White's move: its comment is White's view too
    session = hve(depth=2, fen="W:W46:B1,2,3,4,5,6,7,8")
    reply = session.send("46-41").splitlines()
    comment = next(line for line in reply if "damier: depth" in line)
    score = comment.rsplit(", ", 1)[1]
    assert score.startswith("-") and float(score) < -3, comment
    # a forced result names the winner: White's man on 28 takes Black's last piece
    won = hvh(depth=2, fen="W:W28:B23")
    assert "(White wins in 1 ply" in won.send("hint")


def test_the_greeting_shows_moves_of_its_variant():
    # Russian starts with White's men on 21-32; the moves are 21-17, 22-17, 22-18, 23-18,
    # 23-19, 24-19 and 24-20, and 21 is the only square with one move (21-17)
    legal = {"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"}
    greeting = str(hvh(variant="russian").start()[0])
    assert "32-28" not in greeting
    example = greeting.split("Type moves like ", 1)[1].split()[0]
    assert example in legal
    assert "(or just 21 when only one move starts there)" in greeting
    first = hvh(variant="russian").send("help").splitlines()[0]
    assert first.split("such as ", 1)[1].split()[0] in legal and "32" not in first
    # International: 35 is the only square of the first row with one move
    greeting = str(hvh().start()[0])
    example = greeting.split("Type moves like ", 1)[1].split()[0]
    assert example in {"31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29",
                       "34-30", "35-30"}
    assert "(or just 35 when" in greeting
    # a game going on from a loaded position counts its plies
    session = hvh()
    play(session, "32-28", "19-23", "28x19")
    again = hvh(fen=None)
    again._new_board(session.board.copy())
    assert "Going on after 3 plies." in str(again.start()[0])


def test_hint_suggests_a_legal_move():
    session = hvh(depth=2)
    out = session.send("hint")
    assert out.startswith("hint: ")
    suggestion = out.split()[1]
    assert session.board.parse_move(suggestion) in session.board.legal_moves
    assert not session.board.move_stack


def test_engine_replies_to_the_human():
    session = hve()
    out = session.send("32-28")
    assert "1. 32-28" in out
    assert "1... " in out and "damier: depth 1" in out
    assert len(session.board.move_stack) == 2
    assert session.board.turn == WHITE


def test_engine_moves_first_when_the_human_has_black():
    session = hve(white="engine", black="human")
    assert session.flipped
    session.start()
    assert len(session.board.move_stack) == 1
    assert session.board.turn == BLACK
    board_text = str(session.view())
    assert board_text.splitlines()[0].split()[0] == "50"   # Black's view


def test_undo_and_redo_against_the_engine():
    session = hve()
    session.send("32-28")
    # the second move: any legal one after the engine's reply (a capture may be due)
    play(session, session.board.notation(session.board.legal_moves[0]))
    stack = list(session.board.move_stack)
    assert len(stack) == 4
    out = session.send("undo")
    assert out.startswith("took back ")
    assert list(session.board.move_stack) == stack[:2]
    assert session.board.turn == WHITE
    session.send("undo")
    assert not session.board.move_stack
    assert "nothing to undo" in session.send("undo")
    out = session.send("redo")
    assert out.startswith("replayed 32-28 ")
    assert list(session.board.move_stack) == stack[:2]
    session.send("redo")
    assert list(session.board.move_stack) == stack
    assert "nothing to redo" in session.send("redo")


def test_a_new_move_clears_the_redo_stack():
    session = hvh()
    play(session, "32-28", "19-23", "undo")
    assert len(session.board.move_stack) == 1
    session.send("18-22")
    assert "nothing to redo" in session.send("redo")


def test_undo_between_humans_takes_one_move():
    session = hvh()
    play(session, "32-28", "19-23")
    session.send("undo")
    assert [str(m) for m in session.board.move_stack] == ["32-28"]


def test_flip_and_numbers():
    session = hvh()
    assert not session.flipped
    out = session.send("flip")
    assert session.flipped
    assert out.splitlines()[0].split()[0] == "50"
    out = session.send("numbers on")
    assert session.numbers
    assert " 23 " in out and " 28 " in out            # empty squares show their numbers
    out = session.send("numbers off")
    assert not session.numbers and " 23 " not in out
    session.send("numbers")
    assert session.numbers
    assert "expected `numbers on` or `numbers off`" in session.send("numbers maybe")


def test_level_command():
    session = hve()
    assert "level 1" in session.send("level")
    assert session.send("level 7") == "engine level 7"
    assert session.level == 7
    for bad in ("0", "11", "x"):
        assert "expected a number from 1" in session.send(f"level {bad}")
    assert session.level == 7


def test_new_game_with_variant_and_colour():
    session = hve()
    session.send("32-28")
    out = session.send("new russian black")
    assert "new game: Russian draughts" in out
    assert session.variant.name == "russian"
    assert session.players == {WHITE: "engine", BLACK: "human"}
    assert session.flipped
    assert len(session.board.move_stack) == 1          # the engine (White) opened
    out = session.send("new")
    assert session.variant.name == "russian" and len(session.board.move_stack) == 1
    assert "unknown variant 'xiangqi'" in session.send("new xiangqi")
    session.send("new english white")
    assert session.variant.name == "english"
    assert session.players[WHITE] == "human"
    assert len(session.board.move_stack) == 1          # Black (the engine) moves first


def test_fen_prints_and_sets_up():
    session = hvh()
    assert session.send("fen") == "W:W31-50:B1-20"
    out = session.send("fen B:W28:B19,K5")
    assert "set up B:W28:BK5,19" in out
    assert session.board.turn == BLACK and not session.board.move_stack
    assert "cannot set up 'W:W99'" in session.send("fen W:W99")
    assert session.send("fen") == "B:W28:BK5,19"


def test_save_and_load_round_trip(tmp_path):
    session = hvh()
    play(session, "32-28", "19-23", "28x19")
    path = tmp_path / "game.pdn"
    out = session.send(f"save {path}")
    assert "saved 3 plies" in out
    game = read_game(path)
    assert [str(m) for m in game.mainline_moves()] == ["32-28", "19-23", "28x19"]
    assert game.headers["Result"] == "*"
    assert game.headers["White"] == "Human" and game.headers["Event"] == "damier play"

    fresh = hvh()
    out = fresh.send(f"load {path}")
    assert "loaded game.pdn: International draughts, 3 plies" in out
    assert fresh.board.fen() == session.board.fen()
    assert list(fresh.board.move_stack) == list(session.board.move_stack)
    fresh.send("undo")                                  # the loaded moves can be taken back
    assert len(fresh.board.move_stack) == 2


def test_save_and_load_a_finished_game_and_a_set_up_position(tmp_path):
    session = hvh(variant="english", fen="W:W18:B14,K1")
    play(session, "18x9", "resign")
    path = tmp_path / "won.pdn"
    session.send(f"save {path}")
    text = path.read_text()
    assert '[FEN "W:W18:BK1,14"]' in text and '[GameType "21"]' in text
    assert '[Result "1-0"]' in text and '[Termination "resignation"]' in text
    fresh = hvh()
    out = fresh.send(f"load {path}")
    assert fresh.variant.name == "english"
    assert "Game over: White wins: resignation. Result 1-0." in out
    assert "the game is over" in fresh.send("1-5")


def test_load_errors_are_explained(tmp_path):
    session = hvh()
    assert "no such file" in session.send(f"load {tmp_path / 'missing.pdn'}")
    bad = tmp_path / "bad.pdn"
    bad.write_text('[Event "x"]\n1. 32-27 33-28 *\n')
    assert "cannot load" in session.send(f"load {bad}")
    empty = tmp_path / "empty.pdn"
    empty.write_text("")
    assert "no game in the file" in session.send(f"load {empty}")
    assert "which file?" in session.send("load")
    assert "cannot save" in session.send(f"save {tmp_path / 'no' / 'such' / 'dir.pdn'}")
    assert session.board.fen(compact=True) == "W:W31-50:B1-20"


# -- game end ------------------------------------------------------------------------------------


def test_resign_against_the_engine():
    session = hve()
    out = session.send("resign")
    assert "Game over: Black wins: resignation (White resigned). Result 0-2." in out
    assert "Type `new` for another game, `save FILE` to keep this one" in out
    assert "the game is over" in session.send("32-28")
    assert session.prompt() == "game over > "
    assert "already over" in session.send("resign")


def test_game_ends_with_no_legal_move():
    session = hvh(fen="W:W28:B23")
    out = session.send("28x19")
    assert "Game over: White wins: no legal move (Black has no pieces left). Result 2-0." in out
    session = hvh(fen="W:W46:B41,37")                  # White is blocked from the start
    start = "\n".join(str(item) for item in session.start())
    assert "Game over: Black wins: no legal move (White cannot move). Result 0-2." in start
    assert "the game is over" in session.send("46-41")


def test_threefold_repetition_draw_is_announced():
    session = hvh(fen="W:W36,K47:B15,K4")
    out = play(session, "47-42", "4-10", "42-47", "10-4", "47-42", "4-10", "42-47", "10-4")
    assert "Game over: draw: threefold repetition. Result 1-1." in out


def test_king_move_rule_draw_uses_the_rules_numbers():
    rules = replace(Rules.for_variant("international"), king_moves_limit=2)
    session = hvh(fen="W:WK46,K50:BK5,K1", rules=rules)
    out = play(session, "50-44", "1-6", "44-40", "5-10")
    assert "Game over: draw: 2 king moves. Result 1-1." in out


def test_draw_offer_between_humans():
    session = hvh()
    out = session.send("draw")
    assert "White offers a draw: Black, type `draw` to accept" in out
    session.send("32-28")
    out = session.send("draw")
    assert "Black accepts the draw" in out and "Game over: draw: agreement" in out
    session = hvh()
    play(session, "draw", "32-28")
    out = session.send("19-23")
    assert "the draw offer is declined" in out
    assert "offers a draw" in session.send("draw")


def test_engine_accepts_a_level_draw_and_declines_otherwise():
    session = hve(depth=2)
    out = session.send("draw")
    assert "damier accepts the draw" in out and "Game over: draw: agreement" in out
    session = hve(depth=2, fen="W:W31:B1-20")
    out = session.send("draw")
    assert "damier declines the draw: it thinks it stands better" in out
    assert not session.is_over()


def test_draw_offers_follow_the_rules():
    rules = replace(Rules.for_variant("international"), draw_offer_min_moves=2)
    session = hvh(rules=rules)
    assert "only after 2 moves each" in session.send("draw")


def test_engine_against_engine_plays_a_whole_game():
    session = PlaySession(white="engine", black="engine", level=1, depth=1, seed=3, hash_mb=1,
                          variant="english")
    items = session.start()
    assert session.is_over()
    texts = [str(i) for i in items if isinstance(i, Message)]
    assert any(t.startswith("Game over: ") for t in texts)
    boards = [i for i in items if isinstance(i, BoardView)]
    assert len(boards) == len(session.board.move_stack) + 1


# -- clocks ------------------------------------------------------------------------------------


def test_parse_play_clock():
    assert parse_play_clock("5+3") == (300.0, 3.0)
    assert parse_play_clock("2:30") == (150.0, 0.0)
    for bad in ("", "five", "0", "5+x"):
        with pytest.raises(ValueError):
            parse_play_clock(bad)
    assert format_clock(65) == "1:05"


def test_clock_is_charged_and_incremented():
    clock = FakeClock()
    session = hvh(clock=(60.0, 2.0), now=clock)
    assert "clock: White 1:00 · Black 1:00" in session.send("board")
    clock.t += 10
    assert session.prompt() == "White 0:50 > "
    session.send("32-28")
    assert session.time_left[WHITE] == pytest.approx(52.0)
    clock.t += 5
    session.send("19-23")
    assert session.time_left[BLACK] == pytest.approx(57.0)
    session.send("undo")                                 # undo gives the time back
    assert session.time_left[BLACK] == pytest.approx(60.0)


def test_flag_fall_ends_the_game(tmp_path):
    clock = FakeClock()
    session = hvh(clock=(1.0, 0.0), now=clock)
    session.send("32-28")
    clock.t += 61
    out = session.send("19-23")
    assert "Game over: White wins: time forfeit (Black's flag fell). Result 2-0." in out
    assert len(session.board.move_stack) == 1
    assert "saved 1 ply" in session.send(f"save {tmp_path / 'flag.pdn'}")
    assert '[Termination "time forfeit"]' in (tmp_path / "flag.pdn").read_text()


def test_a_flag_fall_is_said_once():
    clock = FakeClock()
    session = hvh(clock=(1.0, 0.0), now=clock)
    clock.t += 61
    out = session.send("32-28")            # typed after White's flag fell
    assert out.count("Game over: Black wins: time forfeit (White's flag fell)") == 1
    assert out.count("Type `new`") == 1 and "the game is over (" not in out
    assert not session.board.move_stack


def test_the_terminal_knows_when_the_person_to_move_runs_out_of_time():
    clock = FakeClock()
    session = hve(clock=(60.0, 0.0), now=clock, depth=1)
    assert session.seconds_to_flag() == pytest.approx(60.0)
    clock.t += 59.5
    assert session.seconds_to_flag() == pytest.approx(0.5)
    assert session.flag_check() == [] and not session.is_over()
    clock.t += 1
    said = "\n".join(map(str, session.flag_check()))
    assert said.count("Game over: Black wins: time forfeit (White's flag fell)") == 1
    assert session.seconds_to_flag() is None            # the game is over: no timer
    assert hve(now=FakeClock()).seconds_to_flag() is None  # no clocks


def test_commands_still_work_after_a_flag_fall(tmp_path):
    clock = FakeClock()
    session = hvh(clock=(1.0, 0.0), now=clock)
    clock.t += 61
    out = session.send(f"save {tmp_path / 'g.pdn'}")
    assert "time forfeit (White's flag fell)" in out and "saved 0 plies" in out


def test_engine_uses_the_clock():
    clock = FakeClock()
    session = hve(clock=(60.0, 1.0), now=clock, depth=None)
    session.send("32-28")
    assert len(session.board.move_stack) == 2
    assert session.time_left[BLACK] <= 61.0


# -- stopping the engine ------------------------------------------------------------------------


def test_interrupted_search_pauses_and_go_resumes():
    session = hve()

    def interrupting(task: ThinkTask):
        raise SearchInterrupted()

    session.thinker = interrupting
    out = session.send("32-28")
    assert "search stopped" in out
    assert session.paused and session.board.turn == BLACK
    assert "it is the engine's move (Black): type `go`" in session.send("19-23")
    assert session.prompt() == "Black (damier, paused) > "
    session.thinker = lambda task: task.run(None)
    session.send("go")
    assert not session.paused and len(session.board.move_stack) == 2
    assert session.board.turn == WHITE


def test_a_move_by_the_person_resumes_a_paused_game():
    session = hve()
    session.thinker = lambda task: (_ for _ in ()).throw(SearchInterrupted())
    session.send("go")                                  # the engine moving for White: stopped
    assert session.paused and session.board.turn == WHITE
    session.thinker = lambda task: task.run(None)
    session.send("32-28")
    assert not session.paused and len(session.board.move_stack) == 2


def test_interrupted_then_undo_gives_the_move_back():
    session = hve()
    session.thinker = lambda task: (_ for _ in ()).throw(SearchInterrupted())
    session.send("32-28")
    out = session.send("undo")
    assert "took back 32-28" in out
    assert not session.board.move_stack and not session.paused


def test_go_at_the_humans_turn_lets_the_engine_move_for_them():
    session = hvh(depth=1)
    out = session.send("go")
    assert "(played for White)" in out
    assert len(session.board.move_stack) == 1


def test_terminal_thinker_runs_in_a_thread_and_stops_on_ctrl_c():
    from rich.console import Console

    console = Console(file=io.StringIO(), force_terminal=False)
    stop = threading.Event()
    ran_in: list[str] = []

    def run(info):
        ran_in.append(threading.current_thread().name)
        stop.wait(10)
        return "result"

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    with pytest.raises(SearchInterrupted):
        TerminalThinker(console)(ThinkTask("thinking", run, stop.set))
    assert time.monotonic() - started < 5
    assert ran_in == ["damier-search"]
    assert stop.is_set()


def test_terminal_thinker_returns_the_result():
    from rich.console import Console

    console = Console(file=io.StringIO())
    session = hvh(depth=3)
    board = session.board.copy()
    task = ThinkTask("t", lambda info: session.engine.search(board, depth=3, info=info),
                     session.engine.stop)
    result = TerminalThinker(console)(task)
    assert result.best_move in board.legal_moves


# -- drawing ------------------------------------------------------------------------------------


def test_board_drawing_marks_the_last_move_and_kings():
    session = hvh(fen="W:W28,K46:B23,K5")
    session.send("28x19")
    text = render_board(session.view(), color=False).plain
    lines = text.splitlines()
    assert "◎" in lines[9] and "◉" in lines[0]         # kings: White on 46, Black on 5
    assert "×" in lines[4]                                # the captured man on 23
    assert "·" in lines[5]                                # the square the man left (28)
    assert "○" in lines[3]                                # it stands on 19
    colored = render_board(session.view(), color=True)
    assert colored.plain.count("●") == 1 and "◉" in colored.plain
    assert any("#b8892c" in str(span.style) for span in colored.spans)   # highlighted squares
    ascii_board = render_board(session.view(), color=False, pieces="ascii").plain
    assert "W" in ascii_board and "B" in ascii_board


# -- the command line ------------------------------------------------------------------------------


def run_cli(argv: list[str], lines: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    feed = iter(lines)

    def read_line(prompt: str) -> str:
        out.write(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    from damier.cli.play import play_command
    from damier.cli import build_parser
    args = build_parser().parse_args(argv)
    code = play_command(args, out, err, read_line=read_line)
    return code, out.getvalue(), err.getvalue()


def test_cli_options_are_checked():
    for argv, message in ((["play", "--clock", "fast"], "bad clock"),
                          (["play", "--level", "11"], "--level must be between 1 and 10"),
                          (["play", "--variant", "xiangqi"], "unknown variant"),
                          (["play", "--fen", "W:W99"], "out of range"),
                          (["play", "--load", "/nonexistent/x.pdn"], "no such file")):
        out, err = io.StringIO(), io.StringIO()
        assert main(argv, out=out, err=err) == 2, argv
        assert message in err.getvalue(), (argv, err.getvalue())


def test_cli_play_between_humans_with_scripted_lines(tmp_path):
    code, out, _ = run_cli(["play", "--white", "human", "--black", "human", "--numbers"],
                           ["32-28", "19-23", "28x19", f"save {tmp_path / 'g.pdn'}", "quit"])
    assert code == 0
    assert "2. 28x19" in out and "saved 3 plies" in out and "bye" in out
    code, out, _ = run_cli(["play", "--white", "human", "--black", "human",
                            "--load", str(tmp_path / "g.pdn")], ["fen"])
    assert code == 0
    assert "B:W19,31,33-50:B1-18,20" in out


def test_cli_engine_against_engine_with_clock():
    code, out, _ = run_cli(["play", "--white", "engine", "--black", "engine", "--level", "1",
                            "--depth", "1", "--seed", "5", "--variant", "russian",
                            "--clock", "1+0"], [])
    assert code == 0
    assert "Game over: " in out


# -- the real program in a pseudo-terminal ---------------------------------------------------------

try:  # the pseudo-terminal tests need pexpect (the test extra) and POSIX
    import pexpect
except ImportError:  # pragma: no cover
    pexpect = None


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
    env.pop("NO_COLOR", None)
    env["TERM"] = "xterm-256color"
    return env


def spawn(*args: str, cwd: Path | None = None):
    if pexpect is None or sys.platform == "win32":  # pragma: no cover
        pytest.skip("pseudo-terminal tests need pexpect (pip install pexpect) on POSIX")
    child = pexpect.spawn(sys.executable, ["-m", "damier", "play", *args], env=_env(),
                          dimensions=(60, 220), encoding="utf-8", timeout=30,
                          cwd=str(cwd) if cwd else None)
    return child


def test_pty_game_with_capture_undo_save_and_load(tmp_path):
    child = spawn("--white", "human", "--black", "human", cwd=tmp_path)
    try:
        child.expect("White > ")
        child.sendline("32-28")
        child.expect("1. 32-28")
        child.expect("Black > ")
        child.sendline("19-23")
        child.expect("White > ")
        child.sendline("32-27")                                  # illegal: capture compulsory
        child.expect("a capture is compulsory: the piece on 28 must capture")
        child.expect("White > ")
        child.sendline("28x19")
        child.expect("2. 28x19")
        child.expect("Black > ")
        child.sendline("undo")
        child.expect("took back 28x19")
        child.expect("White > ")
        child.sendline("28")                                     # the only move from 28
        child.expect("28 → 28x19")
        child.expect("Black > ")
        child.sendline("save game.pdn")
        child.expect("saved 3 plies")
        child.sendline("new")
        child.expect("new game")
        child.expect("White > ")
        child.sendline("load game.pdn")
        child.expect("loaded game.pdn: International draughts, 3 plies")
        child.expect("Black > ")
        child.sendline("fen")
        child.expect("B:W19,31,33-50:B1-18,20")
        child.sendline("quit")
        child.expect("bye")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    game = read_game(tmp_path / "game.pdn")
    assert [str(m) for m in game.mainline_moves()] == ["32-28", "19-23", "28x19"]


def test_pty_engine_replies_and_gives_hints():
    child = spawn("--level", "1", "--seed", "1", "--movetime", "0.05")
    try:
        child.expect("White > ")
        child.sendline("33-28")
        child.expect(r"1\.\.\. \d+-\d+ +damier: depth")
        child.expect("White > ")
        child.sendline("hint")
        child.expect("hint: ")
        child.expect("White > ")
        child.sendline("resign")
        child.expect("Game over: Black wins: resignation")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_pty_a_flag_falls_while_the_terminal_waits_for_a_move():
    import io
    child = spawn("--white", "human", "--black", "human", "--clock", "2s")
    log = io.StringIO()
    child.logfile_read = log
    try:
        child.expect(r"White 0:0\d\.\d > ")
        started = time.monotonic()
        # nothing typed: White's two seconds run out while the prompt waits
        child.expect(r"Game over: Black wins: time forfeit \(White's flag fell\)", timeout=10)
        assert time.monotonic() - started < 6
        child.expect("game over > ")
        child.sendline("board")
        child.expect("game over > ")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert log.getvalue().count("Game over: Black wins: time forfeit") == 1


def test_pty_ctrl_c_stops_the_engine_search():
    child = spawn("--level", "10", "--movetime", "60", "--no-book")
    try:
        child.expect("White > ")
        child.sendline("32-28")
        child.expect("is thinking")                   # the spinner, while the search runs
        time.sleep(0.3)
        started = time.monotonic()
        child.sendintr()
        child.expect("search stopped")
        assert time.monotonic() - started < 10
        child.expect(r"\(damier, paused\)")
        child.sendline("undo")
        child.expect("took back 32-28")
        child.expect("White > ")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_piped_engine_against_engine_game_ends_with_its_rule():
    proc = subprocess.run([sys.executable, "-m", "damier", "play", "--white", "engine", "--black",
                           "engine", "--level", "1", "--depth", "1", "--seed", "2"],
                          env=_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Game over: " in proc.stdout
    assert "Type `new` for another game" in proc.stdout


def test_the_engines_time_per_move_is_its_levels_unless_given(monkeypatch):
    # one table of what a level means (damier.engine.LEVELS), read by the terminal and
    # the web app alike
    from damier.engine import LEVELS, Engine
    from damier.web.live import DEFAULT_MOVETIME
    seen: list[float | None] = []
    real = Engine.search

    def search(self, board, **limits):
        seen.append(limits.get("movetime"))
        return real(self, board, depth=1)

    monkeypatch.setattr(Engine, "search", search)
    for level, movetime, expected in ((1, None, LEVELS[1].movetime),
                                      (10, None, LEVELS[10].movetime), (10, 0.3, 0.3)):
        seen.clear()
        session = PlaySession(white="engine", black="human", level=level, movetime=movetime,
                              hash_mb=1)
        session.handle("")
        assert seen and seen[0] == expected, (level, movetime, seen)
    assert DEFAULT_MOVETIME == {n: level.movetime for n, level in LEVELS.items()}
    assert LEVELS[1].movetime < LEVELS[10].movetime
