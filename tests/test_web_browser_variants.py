"""The web page draws every variant's board as its rules set it (Playwright driving
Debian's Chromium, with ``test_web_browser.py``'s fixtures): Italian draughts has its dark
square in each player's bottom right corner, with square 1 the top left corner and square 32
White's bottom right corner (FID rules, art. 2.3-2.4); the others have a light top left
corner and square 1 second on the top row.
"""

from __future__ import annotations

import pytest

from test_web_browser import browser, page, server, shots  # noqa: F401

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


def test_a_short_frisian_game_with_an_orthogonal_capture(page, server, shots):  # noqa: F811
    """Frisian draughts in the page: the variant picked in the New game dialog, a 10 x 10
    board, and a man capturing along its file (the Frisian rules: men and kings also
    capture along rows and files, jumping the piece on the next dark square, two squares
    away), its path drawn straight down the file."""
    from test_web_browser import click_square, wait_moves

    page.goto(server.url + "/")
    page.wait_for_selector("#dlg-new[open]")
    titles = page.eval_on_selector_all("#new-variant option", "els => els.map(e => e.value)")
    assert "frisian" in titles and "frysk" in titles
    page.select_option("#new-variant", "frisian")
    page.select_option("#new-color", "both")
    page.click("#new-start")
    page.wait_for_function("() => damierApp.game && damierApp.game.variant.name === 'frisian'")
    assert page.evaluate("document.querySelectorAll('#board rect.sq.dark').length") == 50
    played = []
    for start, end in ((31, 26), (17, 21), (26, 17)):
        click_square(page, start)
        click_square(page, end)
        played = wait_moves(page, len(played) + 1)
    assert played == ["31-26", "17-21", "26x17"]
    # Black may take the man on 17 three ways, each worth one man: diagonally from 11 or
    # 12, or along the file from 7, over 12's and 17's file neighbour to 27.
    assert page.locator("#board circle.capturer").count() == 3
    click_square(page, 7)
    path = page.get_attribute("#board polyline.capture-path", "points")
    xs = {round(float(p.split(",")[0]), 3) for p in path.split()}
    assert len(xs) == 1, f"the capture along the file is drawn straight down: {path}"
    assert page.locator("#board path.captured-mark").count() == 1
    page.screenshot(path=str(shots / "web-frisian-orthogonal-capture.png"))
    click_square(page, 27)
    played = wait_moves(page, 4)
    assert played[-1] == "7x27"
    last = page.evaluate("() => damierApp.game.moves[3]")
    assert last["path"] == [7, 27] and last["captures"] == [17]
    assert page.evaluate("() => damierApp.game.fen").startswith("W:")


def test_a_short_turkish_game_on_every_square(page, server, shots):  # noqa: F811
    """Turkish draughts in the page: all 64 squares played on and numbered, a man moving
    sideways, and a capture straight up a file that crowns the man (Turkish rules: men
    move and capture forward and sideways, crowned when the move ends on the far row)."""
    from test_web_browser import click_square, wait_moves

    page.goto(server.url + "/")
    page.wait_for_selector("#dlg-new[open]")
    page.select_option("#new-variant", "turkish")
    page.select_option("#new-color", "both")
    page.click("#new-start")
    page.wait_for_function("() => damierApp.game && damierApp.game.variant.name === 'turkish'")
    assert page.evaluate("document.querySelectorAll('#board rect[data-square]').length") == 64
    assert page.evaluate("document.querySelectorAll('#board text.sq-number').length") == 64
    played = []
    for start, end in ((44, 36), (17, 25), (43, 44), (20, 28)):
        click_square(page, start)
        click_square(page, end)
        played = wait_moves(page, len(played) + 1)
    assert played == ["44-36", "17-25", "43-44", "20-28"]
    # 36 takes 28 (to 20) and 12 (to 4), up its file, and is crowned on the far row
    click_square(page, 36)
    path = page.get_attribute("#board polyline.capture-path", "points")
    xs = {round(float(p.split(",")[0]), 3) for p in path.split()}
    assert len(xs) == 1, f"the capture up the file is drawn straight: {path}"
    page.screenshot(path=str(shots / "web-turkish-capture.png"))
    click_square(page, 4)
    played = wait_moves(page, 5)
    assert played[-1] == "36x4"
    last = page.evaluate("() => damierApp.game.moves[4]")
    assert last["path"] == [36, 20, 4] and last["captures"] == [28, 12]
    assert page.evaluate("() => damierApp.game.fen").split(":W")[1].startswith("K4,")
