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


def test_puzzle_page_offers_every_variant_with_puzzles(page, server):  # noqa: F811
    from damier.variants import VARIANTS

    page.goto(f"{server.url}/puzzles")
    page.wait_for_function("() => window.damierPuzzles && damierPuzzles.ready")
    offered = page.evaluate("[...document.querySelectorAll('#pz-variant option')]"
                            ".map((o) => o.value)")
    assert offered == [v.name for v in VARIANTS.values() if v.puzzles_file]
    assert {"international", "english", "russian", "brazilian"} <= set(offered)
    page.select_option("#pz-variant", "russian")
    page.wait_for_function("() => damierPuzzles.ready && damierPuzzles.puzzle.variant === "
                           "'russian'")
    # the Russian board: 8 x 8, 32 dark squares
    page.wait_for_function("() => document.querySelectorAll('#board rect.sq.dark').length "
                           "=== 32")
