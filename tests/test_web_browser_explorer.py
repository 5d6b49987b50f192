"""The opening explorer in the web page (Playwright driving Debian's Chromium, with
``test_web_browser.py``'s fixtures): the panel lists the shipped book's moves and the
stored games' moves for the position at the cursor, a click on a listed move plays it
(or steps to it when it is the next move of the game's tree), and the panel's switch
is remembered.
"""

from __future__ import annotations

import pytest

import damier
from damier.book import shipped_book
from test_web_browser import browser, open_game, page, server, shots, wait_moves  # noqa: F401

pytestmark = pytest.mark.slow

GAMES = """[Event "A"]
[Result "2-0"]

1. 32-28 19-23 2. 28x19 14x23 2-0

[Event "B"]
[Result "1-1"]

1. 32-28 18-23 1-1

[Event "C"]
[Result "0-2"]

1. 33-28 18-23 0-2

[Event "D"]
[Result "2-0"]

1. 32-28 19-23 2. 28x19 14x23 3. 33-28 2-0
"""


def explorer_rows(pg, table: str) -> list[list[str]]:
    return pg.evaluate("""(table) => [...document.querySelectorAll(`#${table} tbody tr`)]
        .filter((tr) => tr.querySelector('button'))
        .map((tr) => [...tr.cells].map((td) => td.textContent.trim()))""", table)


def wait_games(pg, first_move: str) -> None:
    pg.wait_for_function("(m) => { const b = document.querySelector("
                         "'#explorer-games tbody button'); return b && b.textContent === m; }",
                         arg=first_move)


def test_the_explorer_lists_book_and_game_moves_and_plays_them(page, server, shots):  # noqa: F811
    imported = server.api("POST", "/api/import", {"pdn": GAMES})
    assert len(imported["games"]) == 4 and imported["errors"] == []
    game = server.api("POST", "/api/games", {"color": "both"})
    open_game(page, server, game["id"])
    assert not page.is_checked("#explorer-toggle")          # off until asked for
    assert page.is_hidden("#explorer-body")
    page.check("#explorer-toggle")
    wait_games(page, "32-28")
    # the games: 32-28 three times (two White wins, a draw), 33-28 once (Black won)
    games = explorer_rows(page, "explorer-games")
    assert [row[:2] for row in games] == [["32-28", "3"], ["33-28", "1"]]
    assert page.get_attribute("#explorer-games tbody tr:first-child .wdb", "aria-label") \
        == "White won 2, drawn 1, Black won 0"
    assert "4 games indexed" in page.inner_text("#explorer-status")
    # the book: the shipped book's moves at the start, best first, scores in men
    book = shipped_book("international")
    assert book is not None
    start = damier.Board()
    expected = [[start.notation(m.move), f"{'+' if m.score >= 0 else '−'}"
                 f"{abs(m.score) / 100:.2f}", str(m.depth)] for m in book.moves(start)]
    assert explorer_rows(page, "explorer-book") == expected
    page.locator(".explorer").scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "web-explorer.png"))

    # a click on a listed move plays it, and the panel follows the new position
    page.click("#explorer-games tbody button[data-move='32-28']")
    assert wait_moves(page, 1) == ["32-28"]
    wait_games(page, "19-23")
    assert [row[:2] for row in explorer_rows(page, "explorer-games")] == [["19-23", "2"],
                                                                          ["18-23", "1"]]

    # back at the start, 32-28 is the game's next move: the click steps to it
    page.click("#nav-first")
    wait_games(page, "32-28")
    page.click("#explorer-games tbody button[data-move='32-28']")
    page.wait_for_function("() => document.querySelector('#board').dataset.ply === '1'")
    assert wait_moves(page, 1) == ["32-28"]
    # ... and a move that is not there is played from the start (a new line)
    page.click("#nav-first")
    wait_games(page, "32-28")
    page.click("#explorer-book tbody button[data-move='33-28']")
    page.wait_for_function("() => damierApp.game.moves.map((m) => m.text).join() === '33-28'")

    # the switch is remembered
    page.reload()
    page.wait_for_function("(id) => damierApp.game && damierApp.game.id === id",
                           arg=game["id"])
    assert page.is_checked("#explorer-toggle")
    wait_games(page, "18-23")        # after 33-28: the game C's reply
