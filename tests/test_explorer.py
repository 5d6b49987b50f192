"""The opening explorer (damier.explorer): per position, the moves played in a set of
games with how often and how the games ended, and the shipped book's moves.

The games are written here by hand and their counts worked out by hand; the random
games are counted by a direct tally written in this file, keyed by
:func:`damier.book.position_key` as the book's format documents it.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

import pytest

import damier
from damier.book import position_key, shipped_book
from damier.errors import InvalidFenError, PdnError
from damier.explorer import MAX_PLIES, Explorer, ExplorerMove
from damier.variants import VARIANTS


def table(explorer: Explorer, board: damier.Board) -> list[tuple[str, int, int, int, int]]:
    return [(m.text, m.games, m.white, m.draws, m.black) for m in explorer.moves(board)]


def after(*moves: str, fen: str | None = None, variant: str = "international") -> damier.Board:
    board = damier.Board(fen, variant=variant)
    for move in moves:
        board.push(move)
    return board


@pytest.fixture()
def five_games() -> Explorer:
    explorer = Explorer("international")
    assert explorer.add_game(["32-28", "19-23", "28x19", "14x23"], "2-0") == 4   # White won
    assert explorer.add_game(["32-28", "18-23"], "1-1") == 2                     # a draw
    assert explorer.add_game(["33-28", "18-23"], "0-2") == 2                     # Black won
    assert explorer.add_game(["32-28"], "*") == 1                                # not over
    assert explorer.add_game(["32-28", "19-23"], "1-0") == 2   # White won, general notation
    return explorer


def test_counts_of_hand_made_games(five_games: Explorer) -> None:
    # the start: 32-28 in four games (two White wins, one draw, one without result)
    assert table(five_games, damier.Board()) == [("32-28", 4, 2, 1, 0), ("33-28", 1, 0, 0, 1)]
    assert table(five_games, after("32-28")) == [("19-23", 2, 2, 0, 0), ("18-23", 1, 0, 1, 0)]
    assert table(five_games, after("32-28", "19-23")) == [("28x19", 1, 1, 0, 0)]
    assert table(five_games, after("33-28")) == [("18-23", 1, 0, 0, 1)]
    assert table(five_games, after("32-28", "19-23", "28x19", "14x23")) == []  # the game ended
    assert table(five_games, after("31-26")) == []                              # never reached
    assert five_games.game_count == 5
    assert five_games.games(damier.Board()) == 5
    assert five_games.games(after("32-28")) == 3


def test_a_listed_move_is_the_legal_move_with_its_text(five_games: Explorer) -> None:
    board = after("32-28", "19-23")
    [entry] = five_games.moves(board)
    assert isinstance(entry, ExplorerMove)
    assert entry.move in board.legal_moves and entry.move == damier.Move(28, 19, captures=(23,))
    assert entry.text == board.notation(entry.move) == "28x19"


def test_games_meet_again_after_a_transposition() -> None:
    explorer = Explorer()
    assert explorer.add_game(["31-26", "20-25", "35-30", "15-20"], "2-0") == 4
    assert explorer.add_game(["35-30", "20-25", "31-26", "14-20"], "0-2") == 4
    met = after("31-26", "20-25", "35-30")
    assert met == after("35-30", "20-25", "31-26")
    assert table(explorer, met) == [("14-20", 1, 0, 0, 1), ("15-20", 1, 1, 0, 0)]


def test_a_game_from_a_set_up_position_is_indexed_from_there() -> None:
    fen = "W:W33:B18"
    explorer = Explorer()
    assert explorer.add_game(["33-29", "18-23", "29x18"], "2-0", start_fen=fen) == 3
    assert table(explorer, damier.Board(fen)) == [("33-29", 1, 1, 0, 0)]
    assert table(explorer, after("33-29", fen=fen)) == [("18-23", 1, 1, 0, 0)]
    assert table(explorer, after("33-29", "18-23", fen=fen)) == [("29x18", 1, 1, 0, 0)]
    assert table(explorer, damier.Board()) == []


def test_an_illegal_move_stops_the_game_there_without_raising() -> None:
    explorer = Explorer()
    # 32-27 after 32-28: the square is empty; the rest of the game is not indexed
    assert explorer.add_game(["32-28", "32-27", "19-23"], "2-0") == 1
    assert table(explorer, damier.Board()) == [("32-28", 1, 1, 0, 0)]
    assert table(explorer, after("32-28")) == []
    # unreadable text and an illegal Move stop a game the same way
    assert explorer.add_game(["33-28", "not a move"], "0-2") == 1
    assert explorer.add_game([damier.Move(34, 30), damier.Move(34, 29)], "1-1") == 1
    assert explorer.add_game(["31-27x"], "1-1") == 0
    assert table(explorer, damier.Board()) == [("32-28", 1, 1, 0, 0), ("33-28", 1, 0, 0, 1),
                                               ("34-30", 1, 0, 1, 0)]
    assert explorer.game_count == 3      # the game of no legal move is not counted


def test_max_plies_bounds_the_positions_of_a_game() -> None:
    explorer = Explorer()
    moves = ["32-28", "19-23", "28x19", "14x23"]
    assert explorer.add_game(moves, "2-0", max_plies=2) == 2
    assert table(explorer, after("32-28")) == [("19-23", 1, 1, 0, 0)]
    assert table(explorer, after("32-28", "19-23")) == []
    assert explorer.add_game(moves, "2-0", max_plies=0) == 0
    assert MAX_PLIES == 40
    long_game = ["50-45", "1-6", "45-50", "6-1"] * 20        # kings shuffling: 80 plies
    assert Explorer().add_game(long_game, "1-1", start_fen="W:WK50:BK1") == 40
    with pytest.raises(ValueError, match="max_plies"):
        explorer.add_game(moves, "2-0", max_plies=-1)


def test_a_position_a_game_passes_twice_counts_that_game_once() -> None:
    fen = "W:WK50:BK1"
    explorer = Explorer()
    # the start position comes back after four plies and 50-45 is played again
    assert explorer.add_game(["50-45", "1-6", "45-50", "6-1", "50-45"], "1-1",
                             start_fen=fen) == 5
    assert table(explorer, damier.Board(fen)) == [("50-45", 1, 0, 1, 0)]
    assert table(explorer, after("50-45", fen=fen)) == [("1-6", 1, 0, 1, 0)]


def test_results_in_each_notation_and_without_one() -> None:
    explorer = Explorer("english")
    for result in ("1-0", "2-0", "1/2-1/2", "1-1", "0-1", "0-2", "*", "0-0", None):
        explorer.add_game(["11-15"], result)
    # black moves first in English draughts
    assert table(explorer, damier.Board(variant="english")) == [("11-15", 9, 2, 2, 2)]
    with pytest.raises(ValueError, match="not a result"):
        explorer.add_game(["11-15"], "2-1")


def test_bad_arguments_are_refused() -> None:
    explorer = Explorer()
    with pytest.raises(InvalidFenError):
        explorer.add_game(["32-28"], "2-0", start_fen="W:W51:B1")
    with pytest.raises(ValueError, match="Russian"):
        explorer.moves(damier.Board(variant="russian"))
    with pytest.raises(TypeError):
        explorer.moves("W:W31-50:B1-20")  # type: ignore[arg-type]
    assert explorer.game_count == 0 and len(explorer) == 0


def test_remove_game_takes_a_game_back(five_games: Explorer) -> None:
    assert five_games.remove_game(["32-28", "18-23"], "1-1") == 2
    assert table(five_games, damier.Board()) == [("32-28", 3, 2, 0, 0), ("33-28", 1, 0, 0, 1)]
    assert table(five_games, after("32-28")) == [("19-23", 2, 2, 0, 0)]
    for moves, result in ((["32-28", "19-23", "28x19", "14x23"], "2-0"),
                          (["33-28", "18-23"], "0-2"), (["32-28"], "*"),
                          (["32-28", "19-23"], "1-0")):
        five_games.remove_game(moves, result)
    assert len(five_games) == 0 and five_games.game_count == 0
    assert table(five_games, damier.Board()) == []


def random_games(variant: str, count: int, plies: int, seed: int) -> list[list[damier.Move]]:
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board = damier.Board(variant=variant)
        moves = []
        for _ in range(plies):
            legal = board.legal_moves
            if not legal:
                break
            moves.append(rng.choice(legal))
            board.push(moves[-1])
        games.append(moves)
    return games


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_random_games_count_as_a_direct_tally(variant: str) -> None:
    """Games of random moves, given as text and as Moves, counted as a tally over
    ``position_key`` (each game once per position and move) counts them."""
    games = random_games(variant, 40, 30, seed=len(variant))
    results = ["1-0", "1/2-1/2", "0-1", "*"]
    tally: dict[bytes, dict[str, list[int]]] = defaultdict(dict)
    column = {"1-0": 1, "1/2-1/2": 2, "0-1": 3}
    boards: dict[bytes, damier.Board] = {}
    as_text, as_moves = Explorer(variant), Explorer(variant)
    for number, moves in enumerate(games):
        result = results[number % 4]
        board = damier.Board(variant=variant)
        texts, seen = [], set()
        for move in moves[:20]:
            key, text = position_key(board), board.notation(move)
            boards.setdefault(key, board.copy())
            if (key, text) not in seen:
                seen.add((key, text))
                counts = tally[key].setdefault(text, [0, 0, 0, 0])
                counts[0] += 1
                if result in column:
                    counts[column[result]] += 1
            texts.append(text)
            board.push(move)
        assert as_text.add_game(texts, result, max_plies=20) == len(texts)
        assert as_moves.add_game(moves, result, max_plies=20) == len(texts)
    for key, board in boards.items():
        rows = [(text, games, white, draws, black)
                for text, (games, white, draws, black) in tally[key].items()]
        expected = sorted(rows, key=lambda row: (-row[1], row[0]))
        assert table(as_text, board) == expected
        assert table(as_moves, board) == expected
    assert len(as_text) == len(boards)


def test_book_moves_are_the_shipped_books() -> None:
    book = shipped_book("international")
    assert book is not None
    explorer = Explorer("international")
    for board in (damier.Board(), after("32-28"), after("32-28", "19-23")):
        assert explorer.book_moves(board) == book.moves(board)
    assert len(explorer.book_moves(damier.Board())) >= 2
    assert explorer.book_moves(damier.Board("W:W33:B18")) == []     # not a book position
    assert shipped_book("english") is None
    assert Explorer("english").book_moves(damier.Board(variant="english")) == []


PDN = """[Event "one"]
[Result "2-0"]

1. 32-28 19-23 2. 28x19 14x23 2-0

[Event "two"]
[Result "1-1"]

1. 32-28 18-23 1-1

[Event "bad"]
[Result "0-2"]

1. 32-29 *

[Event "set up"]
[FEN "W:W33:B18"]
[Result "0-2"]

1. 33-29 18-23 2. 29x18 0-2
"""


def test_from_pdn_indexes_each_good_game(tmp_path: Path) -> None:
    errors: list[PdnError] = []
    explorer = Explorer.from_pdn(PDN, errors=errors)
    assert explorer.variant.name == "international"
    assert len(errors) == 1 and "32-29" in str(errors[0])
    assert table(explorer, damier.Board()) == [("32-28", 2, 1, 1, 0)]
    assert table(explorer, after("32-28")) == [("18-23", 1, 0, 1, 0), ("19-23", 1, 1, 0, 0)]
    assert table(explorer, damier.Board("W:W33:B18")) == [("33-29", 1, 0, 0, 1)]
    path = tmp_path / "games.pdn"
    path.write_text(PDN, encoding="utf-8")
    assert table(Explorer.from_pdn(path), damier.Board()) == [("32-28", 2, 1, 1, 0)]


def test_from_pdn_keeps_to_one_variant() -> None:
    text = ('[GameType "21"]\n[Result "1-0"]\n\n1. 11-15 23-19 1-0\n\n'
            '[Result "2-0"]\n\n1. 32-28 2-0\n')
    explorer = Explorer.from_pdn(text)     # the first game's variant: English
    assert explorer.variant.name == "english"
    assert table(explorer, damier.Board(variant="english")) == [("11-15", 1, 1, 0, 0)]
    assert explorer.game_count == 1
    assert Explorer.from_pdn("").variant.name == "international"
