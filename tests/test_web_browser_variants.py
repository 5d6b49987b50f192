"""The web page draws every variant's board as its rules set it (Playwright driving
Debian's Chromium, with ``test_web_browser.py``'s fixtures): Italian draughts has its dark
square in each player's bottom right corner, with square 1 the top left corner and square 32
White's bottom right corner (FID rules, art. 2.3-2.4); the others have a light top left
corner and square 1 second on the top row.
"""

from __future__ import annotations

import pytest

from test_web_browser import browser, page, server  # noqa: F401

pytestmark = pytest.mark.slow


def _square_boxes(pg, squares):
    return pg.evaluate("""(squares) => squares.map((s) => {
        const rect = document.querySelector(`#board rect[data-square="${s}"]`);
        return rect ? [Number(rect.getAttribute('x')), Number(rect.getAttribute('y'))] : null;
    })""", squares)


@pytest.mark.parametrize("variant, corners", [
    # square -> (column, row) of its rect, as White sees the board
    ("italian", {1: (0, 0), 4: (6, 0), 5: (1, 1), 29: (1, 7), 32: (7, 7)}),
    ("english", {1: (1, 0), 4: (7, 0), 5: (0, 1), 29: (0, 7), 32: (6, 7)}),
])
def test_board_orientation_follows_the_variant(page, server, variant, corners):  # noqa: F811
    game = server.api("POST", "/api/games", {"color": "white", "level": 1, "variant": variant})
    page.goto(f"{server.url}/#game={game['id']}")
    page.wait_for_function("(id) => damierApp.game && damierApp.game.id === id", arg=game["id"])
    squares = list(corners)
    boxes = _square_boxes(page, squares)
    assert {s: tuple(b) for s, b in zip(squares, boxes, strict=True)} == corners
    # every dark square of the board carries a number, 32 of them
    assert page.evaluate("document.querySelectorAll('#board rect.sq.dark').length") == 32
