"""Hostile and careless input to the library (issue 21): move text, FEN, PDN, Hub
lines and engine settings.

Every reader refuses what it cannot read with the library's own error and a short
message that names the problem (never a bare ``ValueError``, ``KeyError``,
``OverflowError`` or ``RecursionError``, never the whole input echoed back), reads in
time linear in the size of its input, takes only ASCII digits as numbers, and never
lets a lone UTF-16 surrogate (``"\\ud800"``, which no UTF-8 text can hold) through to
what is printed or stored. The few timings below are generous bounds on inputs that
the quadratic readers took many seconds (or minutes) to read; the fixed readers take
a fraction of a second.

The Hub engine's own cases (``damier hub``'s ``level`` and ``set-param`` numbers, a
``ponder-hit`` after a huge ``time=``) are in ``tests/test_hub.py``."""

from __future__ import annotations

import io
import math
import re
import threading
import time
from typing import Any, ClassVar

import pytest

from damier import Board, IllegalMoveError, InvalidFenError, Move
from damier import engine as engine_module
from damier import moves
from damier._core import SearchCore
from damier.engine import (MAX_HASH_MB, MAX_THREADS, AnalysisComplete, AnalysisResult, Engine,
                           Limit, PlayResult)
from damier.errors import PdnError
from damier.fen import format_fen, parse_fen
from damier.game import Game, LineError
from damier.hub import _info_dict, hub_to_board, parse_line, score_from_hub
from damier.hub_server import _sanitize
from damier.notation import MAX_MOVE_TEXT, parse_square, split_move_text
from damier.pdn import Game as PdnGame
from damier.pdn import Headers, _wrap, read_game, read_games, write_game
from damier.piece import Piece
from damier.svg import parse_path
from damier.variants import get_variant

AMBIGUOUS_FEN = "W:WK47:B14,19,29,31,42"  # 47x38x20x9x36 or 47x38x24x13x36
LONG_MOVE = "32" + " " * 16000 + "28"       # took 2.6 s to read when reading was quadratic


def _printable(text: str | None) -> bool:
    """Whether ``text`` can be written to a UTF-8 file or terminal."""
    if text is None:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _timed(function: Any, *args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


# -- move text: bounded and linear ------------------------------------------------------------


def _board_parse(text: str) -> Any:
    return Board().parse_move(text)


def _read_move(text: str) -> Any:
    return moves.read_move(Board(), text)


def _spec(text: str) -> Any:
    return moves.parse_move_spec(Board(), {"move": text})


def _game_push(text: str) -> Any:
    return Game().push(text)


def _game_line(text: str) -> Any:
    return Game().set_line(["33-28", text])


def _svg(text: str) -> Any:
    return parse_path(text)


@pytest.mark.parametrize("read, error", [
    (_board_parse, IllegalMoveError), (_read_move, IllegalMoveError), (_spec, IllegalMoveError),
    (_game_push, IllegalMoveError), (_game_line, LineError), (_svg, IllegalMoveError),
])
def test_move_text_longer_than_the_bound_is_refused_by_its_length(read, error):
    with pytest.raises(error) as info:
        read(LONG_MOVE)
    message = str(info.value)
    assert f"{MAX_MOVE_TEXT} characters" in message and "16004 characters" in message
    assert len(message) < 300, message[:300]


def test_a_long_pdn_move_token_is_refused_by_its_length():
    token = "32" + "-28" * 100_000
    with pytest.raises(PdnError) as info:
        read_game(f"1. {token} *")
    message = str(info.value)
    assert f"no move is written in more than {MAX_MOVE_TEXT} characters" in message
    assert f"({len(token)} characters)" in message and len(message) < 300


def test_explain_illegal_says_the_text_is_too_long():
    message = moves.explain_illegal(Board(), LONG_MOVE)
    assert message.startswith("cannot read move '32 ") and len(message) < 300
    assert f"no move is written in more than {MAX_MOVE_TEXT} characters" in message


def test_move_text_up_to_the_bound_is_read():
    text = "32" + " " * (MAX_MOVE_TEXT - 5) + "-28"
    assert len(text) == MAX_MOVE_TEXT
    assert Board().parse_move(text) == Move(32, 28)
    with pytest.raises(IllegalMoveError, match=f"more than {MAX_MOVE_TEXT} characters"):
        Board().parse_move(text.replace("-", " -"))
    # Whitespace around the move is not counted.
    assert Board().parse_move(" " * 5000 + "32-28" + "\n" * 5000) == Move(32, 28)


def test_long_captures_with_spaces_around_every_sign_are_read():
    board = Board(AMBIGUOUS_FEN)
    assert board.parse_move("47 x 38 x 24 x 13 x 36 !?") == Move(47, 36, captures=(42, 29, 19, 31))
    assert board.parse_move("47 x 36 x 19 x 29 x 31 x 42") == Move(47, 36,
                                                                   captures=(42, 29, 19, 31))


def test_split_move_text_reads_like_the_separator_pattern_in_linear_time():
    # The old reading: re.split with whitespace around the signs (quadratic on long runs
    # of spaces, but the reference for what the parts are).
    pattern = re.compile(r"\s*([-x×:])\s*")
    for text in ["32-28", "32 - 28", " 47x38 x 24 ×13:36 ", "32", "32-", "-28", "3 2-2 8",
                 "a1 - b2", "x", "", "  ", "32--28", "32 x\tx 28"]:
        parts = pattern.split(text)
        assert split_move_text(text) == (parts[0::2], parts[1::2]), text
    text = "32" + " " * 400_000 + "x" + " " * 400_000 + "28"
    result, seconds = _timed(split_move_text, text)
    assert result == (["32", "28"], ["x"])
    assert seconds < 2.0   # some 40 minutes with the pattern


# -- PDN: linear reading and writing -----------------------------------------------------------


def test_a_file_of_games_that_each_open_a_comment_reads_in_linear_time():
    # Each game's "{" is never closed, so each reads to the end of the input; the reader
    # used to do that again for every game (30,000 games: some 100 s).
    games = 30_000
    text = '[Event "x"]\n{\n' * games
    errors: list[PdnError] = []
    read, seconds = _timed(lambda: list(read_games(text, skip_errors=True, errors=errors)))
    # (the reader goes on at the second "[" line after the "{", see _Lexer.skip_game:
    # every other game is skipped with the bad one, as before)
    assert read == [] and len(errors) == games // 2
    assert all("unterminated comment" in str(e) for e in errors)
    assert [(e.game, e.line) for e in errors[:3]] == [(1, 2), (2, 6), (3, 10)]
    assert seconds < 5.0


@pytest.mark.parametrize("make", [
    lambda n: "1. 32-28 " + " " * n + "19-23 *",
    lambda n: "1. 32-28 {" + "x" * n + "} *",
    lambda n: "1" + "." * n + " 32-28 *",
    lambda n: "1. 32-28 " + "(31-26) " * (n // 8) + "*",
    lambda n: "1. 32-28" + "!" * n + " *",
    lambda n: "1. " + "3" * n + "-28 *",
    lambda n: "1. 32-28 $" + "0" * n + "1 *",
], ids=["spaces", "comment", "dots", "variations", "marks", "digits", "nag"])
def test_a_megabyte_of_pathological_pdn_reads_in_linear_time(make):
    # Linear: a megabyte takes about twice the time of half a megabyte (a quadratic reader
    # four times), and no more than a minute on the slowest machine (no hang). Each size
    # is read three times and the fastest counts, so that a busy machine's pauses do
    # not pass for a quadratic reader.
    times = []
    for size in (500_000, 1_000_000):
        text = make(size)
        runs = []
        for _ in range(3):
            errors: list[PdnError] = []
            _, seconds = _timed(lambda t=text, e=errors: list(read_games(t, skip_errors=True,
                                                                         errors=e)))
            assert all(len(str(e)) < 400 for e in errors)
            runs.append(seconds)
            assert seconds < 60.0
        times.append(min(runs))
    half, whole = times
    assert whole < 60.0
    assert whole < 0.05 or whole < 3.2 * half, (half, whole)


def _nested(depth: int) -> PdnGame:
    """A game whose variations are nested ``depth`` deep: at each ply the main move and
    an alternative, and the line goes on after the alternative."""
    fen = "W:WK46,K50:BK1,K5"
    game = PdnGame()
    game.setup(fen)
    board = Board(fen)
    node: Any = game
    for _ in range(depth):
        quiet = [m for m in board.legal_moves if not m.is_capture]
        safe = []
        for move in quiet:   # moves that give no capture, so that the kings stay
            board.push(move)
            if not board.must_capture:
                safe.append(move)
            board.pop()
        node.add_variation(safe[0])
        node = node.add_variation(safe[1])
        board.push(safe[1])
    return game


def test_write_game_writes_variations_nested_thousands_deep():
    game = _nested(3000)  # Python's call stack holds some 1000 calls
    text = write_game(game)
    assert text.count("(") == text.count(")") == 3000
    again = read_game(text)
    assert again is not None and write_game(again) == text
    node: Any = again
    depth = 0
    while len(node.variations) == 2:
        node = node.variations[1]
        depth += 1
    assert depth == 3000


def test_movetext_on_one_line_is_joined_in_linear_time():
    tokens = ["32-28"] * 400_000
    lines, seconds = _timed(_wrap, tokens, None)
    assert lines == [" ".join(tokens)]
    assert seconds < 3.0   # some 10 s when each token looked back over the whole line
    assert _wrap(["1. 32-28", "{a\nbcd}", "19-23", "2. 28x19"], 12) == \
        ["1. 32-28 {a\nbcd} 19-23", "2. 28x19"]


# -- Hub lines: linear reading, short messages ---------------------------------------------------


def test_a_hub_line_of_many_arguments_is_read_in_linear_time():
    line = "go " + "a " * 400_000
    message, seconds = _timed(parse_line, line)
    assert message.args == {"a": ""}
    assert seconds < 3.0  # some 18 s when each argument looked at the rest of the line


@pytest.mark.parametrize("line", ["go " + " " * 1_000_000 + "=", "go a=" + "x" * 1_000_000 + ' "',
                                  'pos pos="' + "W" * 1_000_000])
def test_hub_syntax_errors_quote_a_short_excerpt(line):
    with pytest.raises(ValueError) as info:
        parse_line(line)
    assert len(str(info.value)) < 200 and "characters)" in str(info.value)


def test_hub_positions_are_quoted_short():
    with pytest.raises(InvalidFenError) as info:
        hub_to_board("W" + "e" * 1_000_000)
    assert len(str(info.value)) < 300


# -- numbers are ASCII digits ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["3²-28", "32-2²", "٣٢-٢٨", "３２-２８", "32-28²", "3\u0662-28"])
def test_move_text_with_non_ascii_digits_is_an_illegal_move(text):
    with pytest.raises(IllegalMoveError, match="is not a square|cannot read move"):
        Board().parse_move(text)
    with pytest.raises(IllegalMoveError):
        moves.read_move(Board(), text)


@pytest.mark.parametrize("token", ["٣", "３", "²", "1²"])
def test_parse_square_takes_ascii_digits_only(token):
    with pytest.raises(IllegalMoveError, match="is not a square"):
        parse_square(token, get_variant("international"))


@pytest.mark.parametrize("fen", ["W:W٣١:B1", "W:W3¹:B1", "W:W３１:B1", "W:W31:B1:H٣", "W:WK٣١:B1"])
def test_fen_with_non_ascii_digits_is_refused(fen):
    with pytest.raises(InvalidFenError):
        parse_fen(fen)


def test_fen_squares_with_many_leading_zeros_are_read_without_int_overflow():
    white, pieces = parse_fen("W:W" + "0" * 100_000 + "31:B1")
    assert white and sorted(pieces) == [1, 31]
    with pytest.raises(InvalidFenError) as info:
        parse_fen("W:W" + "0" * 100_000 + "31,31:B1")
    assert "used twice" in str(info.value) and len(str(info.value)) < 400


def test_a_huge_square_given_to_format_fen_is_an_invalid_fen():
    with pytest.raises(InvalidFenError, match="out of range 1-50"):
        format_fen(True, {10 ** 5000: Piece(True)})   # str() of it would raise ValueError


@pytest.mark.parametrize("text", [
    "1. ٣٢-٢٨ *",              # the move's squares
    "1. 32-28 $١ *",            # a NAG
    "١. 32-28 *",               # a move number
    '[GameType "٢١"]\n1. 11-15 *',
    "1. ３２-２８ *",
])
def test_pdn_numbers_in_other_digits_are_refused(text):
    with pytest.raises(PdnError):
        read_game(text)


def test_hub_info_numbers_are_ascii_digits():
    info = _info_dict({"depth": "١٢", "nodes": "1_000", "time": "nan", "score": "0.5",
                       "seldepth": "7"})
    assert info == {"depth": "١٢", "nodes": "1_000", "time": "nan", "score": 0.5, "seldepth": 7}
    for text in ("١", "1_0", "nan", "", "--1"):
        with pytest.raises(ValueError):
            score_from_hub(text)
    assert score_from_hub(" 0.35 ").score() == 35


def test_board_squares_and_perft_depths_are_whole_numbers():
    board = Board()
    with pytest.raises(TypeError):
        board.piece_at(1.5)            # type: ignore[arg-type]
    with pytest.raises(TypeError):
        board.piece_at(True)
    with pytest.raises(ValueError, match="not on the International board"):
        board.piece_at(10 ** 30)
    for depth in (1.5, True, -1, 10 ** 30, 10 ** 5000, "2"):
        with pytest.raises(ValueError, match="depth must be a whole number from 0 to"):
            board.perft(depth)         # type: ignore[arg-type]
        with pytest.raises(ValueError, match="depth must be a whole number from 0 to"):
            board.perft_divide(depth)  # type: ignore[arg-type]
    assert board.perft(1) == 9


# -- move requests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("spec, words", [
    ({"from": 10 ** 5000, "to": 28}, "about 5001 digits"),
    ({"from": "32", "to": 28}, "from_square must be a square number (an int), not '32'"),
    ({"from": True, "to": 28}, "from_square must be a square number"),
    ({"from": 32.0, "to": 28}, "from_square must be a square number"),
    ({"from": None, "to": 28}, "from_square must be a square number"),
    ({"from": 32, "to": 28, "path": "3228"}, "path must be a list of square numbers"),
    ({"from": 32, "to": 28, "path": [32] * 100_000 + [28]}, "path holds more than 51 squares"),
    ({"from": 32, "to": 28, "path": [32, 10 ** 5000, 28]}, "about 5001 digits"),
    ({"from": 32, "to": 28, "captures": 5}, "captures must be a list of square numbers"),
    ({"from": 32, "to": 28, "captures": [[1]]}, "a square of captures must be a square number"),
    ({"from": 32}, "a move request needs 'move', or 'from' and 'to' (missing: 'to')"),
    ({}, "(missing: 'from', 'to')"),
])
def test_malformed_move_requests_are_illegal_moves(spec, words):
    with pytest.raises(IllegalMoveError) as info:
        moves.parse_move_spec(Board(), spec)
    assert words in str(info.value) and len(str(info.value)) < 300


def test_a_move_request_is_a_mapping():
    with pytest.raises(TypeError, match="a move request is a mapping"):
        moves.parse_move_spec(Board(), [32, 28])  # type: ignore[arg-type]
    assert moves.parse_move_spec(Board(), {"from": 32, "to": 28, "path": (32, 28)}) == Move(32, 28)


# -- lone surrogates -------------------------------------------------------------------------------


def test_a_fen_with_a_lone_surrogate_is_refused_by_its_position():
    with pytest.raises(InvalidFenError) as info:
        parse_fen("W:W3\ud800:B1")
    message = str(info.value)
    assert "lone surrogate '\\ud800' at position 5" in message and _printable(message)
    with pytest.raises(InvalidFenError):
        Board("W:W31:B1\udcff")


@pytest.mark.parametrize("text, line, column, token", [
    ('[Event "a\ud800b"]\n1. 32-28 *', 1, 10, '[Event "a\\ud800b"]'),
    ('1. 32-28 {x\ud800} 19-23 *', 1, 12, "{x\\ud800}"),
    ('1. 32-28 {x\nab\udc80c\n} 19-23 *', 2, 3, "ab\\udc80c"),
    ("1. 32-28\ud800 19-23 *", 1, 9, "32-28\\ud800"),
    ("1. 32-28 \ud800 19-23 *", 1, 10, "\\ud800"),
    ("1. 32-28 ;\ud800\n19-23 *", 1, 11, ";\\ud800"),
])
def test_a_pdn_game_with_a_lone_surrogate_is_refused_by_its_position(text, line, column, token):
    errors: list[PdnError] = []
    games = list(read_games(text + '\n[Event "next"]\n1. 33-28 *', skip_errors=True,
                            errors=errors))
    assert [g.headers["Event"] for g in games] == ["next"]   # the next game is read
    (error,) = errors
    assert (error.game, error.line, error.column, error.token) == (1, line, column, token)
    assert "lone surrogate" in str(error) and f"at column {column}" in str(error)
    assert _printable(str(error)) and _printable(error.token)
    with pytest.raises(PdnError, match="lone surrogate"):
        read_game(io.StringIO(text))


def test_a_lone_surrogate_in_a_skipped_line_does_no_harm():
    game = read_game("% \ud800 a comment line\n1. 32-28 *")
    assert game is not None and len(game.mainline_moves()) == 1


def test_tag_values_with_a_lone_surrogate_are_refused():
    headers = Headers()
    with pytest.raises(ValueError, match="tag White: lone surrogate '\\\\ud800' at position 4"):
        headers["White"] = "Bob\ud800"
    assert "White" not in headers
    with pytest.raises(ValueError, match="lone surrogate"):
        PdnGame({"Black": "\udc80"})


def test_write_game_replaces_lone_surrogates_in_comments():
    game = PdnGame()
    node = game.add_variation("32-28", comment="good \ud800 move")
    node.add_variation("19-23", starting_comment="x")
    game.comment = "\udcff"
    text = write_game(game)
    assert _printable(text)
    assert "{good \ufffd move}" in text and text.count("\ufffd") == 2
    assert read_game(text) is not None


def test_hub_error_lines_never_hold_a_lone_surrogate():
    text = _sanitize('bad "value" \ud800' + "x" * 5000)
    assert _printable(text) and "\\ud800" in text and '"' not in text and len(text) < 2100


# -- engine settings -------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, name", [
    ({"level": 5.5}, "level"), ({"level": True}, "level"), ({"level": "5"}, "level"),
    ({"level": 0}, "level"), ({"level": 11}, "level"), ({"level": math.nan}, "level"),
    ({"threads": 1.5}, "threads"), ({"threads": True}, "threads"), ({"threads": 0}, "threads"),
    ({"threads": MAX_THREADS + 1}, "threads"), ({"threads": "2"}, "threads"),
    ({"hash_mb": 10 ** 12}, "hash_mb"), ({"hash_mb": 2 ** 62}, "hash_mb"),
    ({"hash_mb": 1.5}, "hash_mb"), ({"hash_mb": True}, "hash_mb"), ({"hash_mb": 0}, "hash_mb"),
    ({"hash_mb": MAX_HASH_MB + 1}, "hash_mb"), ({"hash_mb": -5}, "hash_mb"),
    ({"hash_mb": 10 ** 5000}, "hash_mb"),   # (an int that repr() refuses to write)
    ({"book_margin": True}, "book_margin"), ({"book_margin": -1}, "book_margin"),
    ({"egdb_pieces": 3.0}, "egdb_pieces"), ({"egdb_pieces": 99}, "egdb_pieces"),
])
def test_engine_settings_of_the_wrong_type_or_range_are_value_errors(kwargs, name):
    with pytest.raises(ValueError) as info:
        Engine(**kwargs)
    message = str(info.value)
    assert message.startswith(f"{name} must be a whole number"), message
    assert " from " in message or ">= 0" in message


def test_engine_setters_check_their_values_and_change_nothing_when_refused():
    engine = Engine(hash_mb=1)
    for setter, value in [(engine.set_level, 5.5), (engine.set_level, True),
                          (engine.set_threads, 2.5), (engine.set_threads, 0),
                          (engine.set_hash, 10 ** 12), (engine.set_hash, 1.5),
                          (engine.set_hash, True), (engine.set_hash, 0)]:
        with pytest.raises(ValueError):
            setter(value)
    assert (engine.level, engine.threads, engine.hash_mb) == (10, 1, 1)
    engine.set_level(3)
    engine.set_hash(2)
    assert (engine.level, engine.hash_mb) == (3, 2)
    assert engine.play(Board(), Limit(depth=2)).move in Board().legal_moves


def test_a_hash_larger_than_the_machine_is_refused(monkeypatch):
    monkeypatch.setattr(engine_module, "_physical_memory_mb", lambda: 100)
    with pytest.raises(ValueError, match=r"hash_mb must not be more than this machine's memory "
                                         r"\(100 MiB\), got 200"):
        Engine(hash_mb=200)
    engine = Engine(hash_mb=100)
    with pytest.raises(ValueError, match="machine's memory"):
        engine.set_hash(101)
    assert engine.hash_mb == 100


class _ShortOfMemory(SearchCore):
    """A search core whose tables of more than 16 MiB cannot be allocated."""

    sizes: ClassVar[list[int]] = []

    def set_hash(self, hash_mb: int) -> None:
        type(self).sizes.append(hash_mb)
        if hash_mb > 16:
            raise MemoryError()
        super().set_hash(hash_mb)


def test_a_table_that_cannot_be_allocated_names_hash_mb(monkeypatch):
    monkeypatch.setattr(engine_module, "SearchCore", _ShortOfMemory)
    with pytest.raises(MemoryError, match="hash_mb=32: not enough memory for a transposition "
                                          "table of 32 MiB"):
        Engine(hash_mb=32)
    engine = Engine(hash_mb=8)
    _ShortOfMemory.sizes.clear()
    with pytest.raises(MemoryError, match="hash_mb=64"):
        engine.set_hash(64)
    assert _ShortOfMemory.sizes == [64]      # the core keeps the table it has
    assert engine.hash_mb == 8
    assert engine.search(Board(), depth=3).best_move in Board().legal_moves


def test_a_core_whose_new_table_cannot_be_had_keeps_its_table():
    core = SearchCore(1)
    entries = core.hash_entries
    with pytest.raises(MemoryError, match="the table in use is kept"):
        core.set_hash(2**31 - 1)       # about two petabytes: never allocated
    assert core.hash_entries == entries
    core.clear()                        # the table is still there (it used to be freed)
    engine = Engine(hash_mb=1)
    engine._core = core
    assert engine.search(Board(), depth=3).best_move in Board().legal_moves


def test_analysis_waits_take_any_timeout():
    handle = AnalysisResult(lambda: None)
    threading.Timer(0.05, handle.post, args=({"depth": 1},)).start()
    assert handle.get(timeout=1e300) == {"depth": 1}        # was an OverflowError
    played = PlayResult(Move(32, 28), None, {})
    threading.Timer(0.05, handle.finish, args=(played,)).start()
    with pytest.raises(AnalysisComplete):
        handle.get(timeout=10 ** 400)
    assert handle.wait(timeout=1e300) is played
    for bad in (math.nan, "1", True):
        with pytest.raises(ValueError, match="timeout must be None or a number of seconds"):
            handle.wait(timeout=bad)  # type: ignore[arg-type]
    with pytest.raises(TimeoutError):   # a negative timeout does not wait
        AnalysisResult(lambda: None).get(timeout=-1)
