"""The web page in a real browser: Playwright for Python driving Debian's Chromium.

A ``damier serve`` runs in a subprocess on a free loopback port with a temporary
database. Skipped with the reason when Playwright or Chromium is missing (install
with ``pip install playwright`` and ``apt-get install chromium``; no browser is
ever downloaded). ``DAMIER_CHROMIUM`` overrides the browser path;
``DAMIER_WEB_SCREENSHOTS=DIR`` keeps the screenshots in DIR (they go to a
temporary directory otherwise).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import damier
from damier import pdn

CHROMIUM = os.environ.get("DAMIER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="Playwright for Python is not installed "
                                      "(pip install playwright)")
pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (uvicorn) is not installed")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium)",
                allow_module_level=True)

pytestmark = pytest.mark.slow

SRC = str(Path(damier.__file__).resolve().parents[1])
AMBIGUOUS_FEN = "W:WK47,49:B14,19,29,31,42,5"
DOUBLE_FEN = "W:W38,48:B33,23,3"
PDN_WITH_VARIATIONS = """[Event "Browser import"]
[White "Alpha"]
[Black "Beta"]
[Result "2-0"]

1. 32-28 19-23 (1... 18-23 2. 37-32 {quiet}) 2. 28x19 14x23 3. 33-28 (3. 34-29 23x34 \
4. 40x29) 3... 23x32 4. 37x28 2-0
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``damier serve`` in a subprocess; ``kill()`` sends SIGKILL, ``start()`` starts it again."""

    def __init__(self, db: Path, port: int) -> None:
        self.db = db
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        # the player the tests' API calls act as; the browser pages get the same cookie,
        # so the games the tests create are theirs (another cookie would only watch)
        self.player = secrets.token_urlsafe(32)

    def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "damier", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--db", str(self.db), "--movetime", "0.1"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.url + "/api/variants", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"damier serve exited: {self.proc.stderr.read().decode()}")
            if time.monotonic() > deadline:
                raise RuntimeError("damier serve did not start in 30 s")
            time.sleep(0.1)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def api(self, method: str, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json",
                                                  "Cookie": f"damier_player={self.player}"})
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.loads(r.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("web") / "games.sqlite3", free_port())
    srv.start()
    yield srv
    srv.kill()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    context.add_cookies([{"name": "damier_player", "value": server.player, "url": server.url}])
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(15000)
    yield pg
    context.close()
    assert errors == [], f"errors in the page: {errors}"


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    target = os.environ.get("DAMIER_WEB_SCREENSHOTS")
    path = Path(target) if target else tmp_path_factory.mktemp("shots")
    path.mkdir(parents=True, exist_ok=True)
    return path


# -- helpers -----------------------------------------------------------------------------------


def point(page, square: int, which: str = "main") -> tuple[float, float]:
    return tuple(page.evaluate("([s, w]) => damierApp.squarePoint(s, w)", [square, which]))


def click_square(page, square: int, which: str = "main") -> None:
    x, y = point(page, square, which)
    page.mouse.click(x, y)


def drag(page, start: int, end: int) -> None:
    x0, y0 = point(page, start)
    x1, y1 = point(page, end)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


def moves(page) -> list[str]:
    return page.eval_on_selector_all("#move-list .move.in-line",
                                     "els => els.map(e => e.textContent)")


def wait_moves(page, count: int, timeout: float = 20000) -> list[str]:
    page.wait_for_function(
        "(n) => document.querySelectorAll('#move-list .move.in-line').length === n "
        "&& damierApp.game && !damierApp.game.engine_thinking", arg=count, timeout=timeout)
    return moves(page)


def game_state(page) -> dict:
    return page.evaluate("() => damierApp.game")


def open_game(page, server, game_id: str) -> None:
    page.goto(f"{server.url}/#game={game_id}")
    page.wait_for_function("(id) => damierApp.game && damierApp.game.id === id", arg=game_id)


def new_game_via_dialog(page, server, color="white", level="1"):
    page.goto(server.url + "/")
    page.wait_for_selector("#dlg-new[open]")
    page.select_option("#new-variant", "international")
    page.select_option("#new-color", color)
    page.fill("#new-level", level)
    page.click("#new-start")
    page.wait_for_function("() => damierApp.game !== null")


# -- tests ----------------------------------------------------------------------------------------


def test_board_is_a_real_draughts_board(page, server, shots):
    new_game_via_dialog(page, server)
    svg = page.locator("#board svg")
    assert svg.get_attribute("viewBox") == "0 0 10 10"
    # square 46 is White's bottom-left corner, a dark square; 1 is top row, second column
    assert page.locator('#board rect[data-square="46"]').get_attribute("x") == "0"
    assert page.locator('#board rect[data-square="46"]').get_attribute("y") == "9"
    assert page.locator('#board rect[data-square="1"]').get_attribute("x") == "1"
    assert page.locator('#board rect[data-square="1"]').get_attribute("y") == "0"
    assert page.locator("#board rect.sq.dark").count() == 50
    assert page.locator("#board rect.sq.light").count() == 50
    assert page.locator("#board .piece.white").count() == 20
    assert page.locator("#board .piece.black").count() == 20
    assert page.locator('#board .piece.white[data-square="46"]').count() == 1
    # the lowest white piece is drawn in the bottom row
    box = page.locator("#board svg").bounding_box()
    x46, y46 = point(page, 46)
    assert x46 < box["x"] + box["width"] / 10 and y46 > box["y"] + box["height"] * 0.9
    page.screenshot(path=str(shots / "web-start.png"))


def test_play_the_engine_by_clicks_and_drags(page, server, shots):
    new_game_via_dialog(page, server, level="1")
    # an illegal attempt is explained
    click_square(page, 46)
    page.wait_for_selector("#message:not([hidden])")
    assert "The piece on 46 has no legal move" in page.inner_text("#message")
    # click-click
    click_square(page, 32)
    assert page.locator("#board circle.dest").count() == 2
    click_square(page, 27)
    played = wait_moves(page, 2)
    assert played[0] == "32-27"
    # drag and drop: a legal move of the position
    legal = game_state(page)["legal_moves"]
    move = (next(m for m in legal if not m["captures"])
            if not game_state(page)["must_capture"] else legal[0])
    drag(page, move["from"], move["to"])
    played = wait_moves(page, 4)
    assert played[2] == move["text"]
    # an illegal destination
    own = [m["from"] for m in game_state(page)["legal_moves"]]
    click_square(page, own[0])
    click_square(page, 3)
    page.wait_for_selector("#message:not([hidden])")
    assert "Illegal move" in page.inner_text("#message")
    # analysis: the evaluation bar and the best lines
    page.check("#analyse-toggle")
    lines = min(2, len(game_state(page)["legal_moves"]))   # two lines by default (multi-PV)
    page.wait_for_function("(n) => document.querySelectorAll('#analysis-lines li').length === n",
                           arg=lines)
    page.wait_for_function("() => document.getElementById('evalbar').dataset.score !== ''")
    page.wait_for_timeout(700)
    page.screenshot(path=str(shots / "web-game.png"))
    page.uncheck("#analyse-toggle")
    # undo takes back the engine's move and ours
    page.click("#btn-undo")
    assert wait_moves(page, 2) == played[:2]
    # flip: square 46 goes to the top right
    page.click("#btn-flip")
    assert page.locator("#board svg").get_attribute("data-flipped") == "true"
    assert page.locator('#board rect[data-square="46"]').get_attribute("x") == "9"
    assert page.locator('#board rect[data-square="46"]').get_attribute("y") == "0"
    assert "damier" in page.inner_text("#player-bottom")
    page.click("#btn-flip")
    assert page.locator('#board rect[data-square="46"]').get_attribute("y") == "9"
    # navigation through the moves
    page.click("#nav-first")
    assert page.locator("#board").get_attribute("data-ply") == "0"
    assert page.locator("#board").get_attribute("data-interactive") == "false"
    page.keyboard.press("ArrowRight")
    assert page.locator("#board").get_attribute("data-ply") == "1"
    page.click("#nav-last")
    assert page.locator("#board").get_attribute("data-ply") == "2"
    # resign needs a confirmation
    page.click("#btn-resign")
    assert page.inner_text("#btn-resign") == "Confirm resign"
    page.click("#btn-resign")
    page.wait_for_function("() => damierApp.game.over")
    assert "Black wins: resignation (White resigned)" in page.inner_text("#status")


def test_multi_capture_and_capture_choice(page, server, shots):
    game = server.api("POST", "/api/games", {"fen": DOUBLE_FEN, "color": "white", "level": 1})
    open_game(page, server, game["id"])
    assert "the capture taking the most pieces (2) must be played" in page.inner_text("#status")
    assert page.locator("#board circle.capturer").count() == 1
    click_square(page, 38)
    assert page.locator("#board polyline.capture-path").count() == 1
    assert page.locator("#board path.captured-mark").count() == 2
    click_square(page, 18)
    played = wait_moves(page, 2)
    assert played[0] == "38x18"

    # the position editor sets up two captures with the same ends
    page.click("#btn-editor")
    page.wait_for_selector("#dlg-editor[open]")
    page.fill("#editor-fen", AMBIGUOUS_FEN)
    page.click("#editor-load")
    page.wait_for_function("() => document.querySelectorAll('#editor-board .piece').length === 8")
    page.check('#editor-palette input[value="b"]')
    click_square(page, 3, "editor")
    assert "3" in page.input_value("#editor-fen").split(":B")[1].split(",")
    page.check('#editor-palette input[value=""]')
    click_square(page, 3, "editor")
    assert page.input_value("#editor-fen") == "W:WK47,49:B5,14,19,29,31,42"
    page.fill("#editor-level", "1")
    page.click("#editor-play-white")
    page.wait_for_function("() => damierApp.game && damierApp.game.start_fen.startsWith('W:WK47')")
    click_square(page, 47)
    click_square(page, 36)
    page.wait_for_selector("#choice:not([hidden])")
    buttons = page.eval_on_selector_all("#choice-buttons button",
                                        "els => els.map(e => e.textContent)")
    assert sorted(buttons) == ["47x38x20x9x36", "47x38x24x13x36"]
    assert page.locator("#board polyline.choice-path").count() == 2
    # the page redrawing the same position (here the board turned round, "f") keeps the
    # choice open, its paths drawn on the turned board
    before = page.get_attribute("#board polyline.choice-path", "points")
    page.keyboard.press("f")
    page.wait_for_function("() => damierApp.flipped === true")
    assert page.is_visible("#choice")
    assert page.locator("#board polyline.choice-path").count() == 2
    assert page.get_attribute("#board polyline.choice-path", "points") != before
    page.keyboard.press("f")
    page.wait_for_function("() => damierApp.flipped === false")
    assert page.get_attribute("#board polyline.choice-path", "points") == before
    page.screenshot(path=str(shots / "web-capture-choice.png"))
    page.click('#choice-buttons button[data-move="47x38x24x13x36"]')
    played = wait_moves(page, 2)
    assert played[0] == "47x38x24x13x36"
    assert game_state(page)["moves"][0]["path"] == [47, 38, 24, 13, 36]


def test_import_step_through_and_export(page, server, shots, tmp_path):
    page.goto(server.url + "/")
    page.wait_for_selector("#dlg-new[open]")
    page.click("#dlg-new [data-close]")
    page.click("#btn-import")
    page.fill("#import-text", PDN_WITH_VARIATIONS)
    page.click("#import-go")
    page.wait_for_function("() => damierApp.game && damierApp.game.white === 'Alpha'")
    assert page.locator("#board").get_attribute("data-ply") == "0"
    assert page.locator("#move-list .variation").count() == 2
    assert "quiet" in page.inner_text("#move-list")
    for ply in (1, 2, 3):
        page.click("#nav-next")
        assert page.locator("#board").get_attribute("data-ply") == str(ply)
    assert page.input_value("#fen-text") == game_state(page)["moves"][2]["fen"]
    # into a variation
    page.click('#move-list .variation-move:text-is("18-23")')
    fen = page.input_value("#fen-text")
    expected = damier.Board()
    expected.push("32-28")
    expected.push("18-23")
    assert fen == expected.fen()
    page.click("#nav-next")
    assert page.inner_text("#move-list .move.current") == "37-32"
    page.screenshot(path=str(shots / "web-import.png"))
    # export
    with page.expect_download() as info:
        page.click("#btn-export")
    path = tmp_path / "export.pdn"
    info.value.save_as(path)
    text = path.read_text()
    assert '[Event "Browser import"]' in text and "(1... 18-23 2. 37-32 {quiet})" in text
    game = pdn.read_game(text)
    assert [str(m) for m in game.mainline_moves()][:3] == ["32-28", "19-23", "28x19"]
    # a file upload
    upload = tmp_path / "upload.pdn"
    upload.write_text('[Event "Uploaded"]\n[White "U"]\n1. 31-27 17-21 *\n')
    page.click("#btn-import")
    page.set_input_files("#import-file", str(upload))
    page.click("#import-go")
    page.wait_for_function("() => damierApp.game && damierApp.game.white === 'U'")
    assert page.locator("#move-list .move").count() == 2
    # the games list
    page.click("#btn-games")
    page.wait_for_selector("#dlg-games[open]")
    assert page.locator("#games-table tbody tr").count() >= 2
    page.click("#dlg-games [data-close]")


def test_a_large_imported_tree_is_shown_and_follows_a_move(page, server):
    # a tree over the state's inline size comes by GET .../tree, once per change
    from test_web_hardening import big_tree_pdn
    result = server.api("POST", "/api/import", {"pdn": big_tree_pdn(600)})
    gid = result["first"]
    state = server.api("GET", f"/api/games/{gid}")
    assert state["tree"] is None and state["tree_nodes"] > 400
    open_game(page, server, gid)
    page.wait_for_function(f"() => damierApp.tree.length === {state['tree_nodes']}")
    assert page.locator("#move-list .variation").count() > 10
    played = server.api("POST", f"/api/games/{gid}/undo", {"count": 1000})
    assert played["undone"] == len(state["moves"])
    server.api("POST", f"/api/games/{gid}/move", {"move": "35-30"})
    page.wait_for_function("() => damierApp.game.moves.length === 1 && damierApp.tree.some("
                           "(n) => n.text === '35-30' && n.in_line)")


def test_reload_resumes_the_game(page, server):
    new_game_via_dialog(page, server, color="both")
    click_square(page, 33)
    click_square(page, 28)
    wait_moves(page, 1)
    click_square(page, 17)
    click_square(page, 22)
    assert wait_moves(page, 2) == ["33-28", "17-22"]
    gid = game_state(page)["id"]
    page.reload()
    page.wait_for_function("(id) => damierApp.game && damierApp.game.id === id", arg=gid)
    assert wait_moves(page, 2) == ["33-28", "17-22"]
    assert page.locator("#board").get_attribute("data-interactive") == "true"
    # a capture is compulsory now; the page says so
    assert "a capture is compulsory" in page.inner_text("#status")
    page.click("#btn-undo")
    assert wait_moves(page, 1) == ["33-28"]
    page.click("#btn-redo")
    assert wait_moves(page, 2) == ["33-28", "17-22"]


def test_server_killed_mid_game(page, server):
    game = server.api("POST", "/api/games", {"color": "white", "level": 1})
    open_game(page, server, game["id"])
    click_square(page, 32)
    click_square(page, 28)
    before = wait_moves(page, 2)
    move = next(m for m in game_state(page)["legal_moves"])
    click_square(page, move["from"])
    click_square(page, move["to"])
    page.wait_for_function("() => damierApp.game.moves.length >= 3")
    server.kill()       # SIGKILL, maybe while the engine thinks
    page.wait_for_function("() => document.getElementById('status').textContent"
                           ".includes('reconnecting')")
    server.start()
    # the page reconnects by itself and the engine answers the stored move
    played = wait_moves(page, 4, timeout=30000)
    assert played[:3] == before + [move["text"]]
    page.reload()
    page.wait_for_function("(id) => damierApp.game && damierApp.game.id === id", arg=game["id"])
    assert wait_moves(page, 4) == played
    state = server.api("GET", f"/api/games/{game['id']}")
    assert [m["text"] for m in state["moves"]] == played


# 3. 31-27?? lets Black take two men (21x23), then the game goes on for 12 more moves.
REPORT_GAME = ["32-28", "17-21", "34-30", "20-24", "31-27", "21x23", "38-32", "12-17", "39-34",
               "7-12", "33-28", "16-21", "44-39", "21-27", "32x21", "17x26", "42-38", "23x32",
               "37x28", "14-20", "50-44", "10-14", "28-23", "19x28", "30x10", "5x14", "36-31",
               "26x37", "41x23", "18x29"]


def test_game_report(page, server, shots):
    playing = server.api("POST", "/api/games", {"color": "white", "level": 1})
    open_game(page, server, playing["id"])
    assert page.locator("#btn-report").is_disabled()    # not before the game is over
    game = server.api("POST", "/api/games", {"color": "both", "white": "Ann", "black": "Bob"})
    server.api("POST", f"/api/games/{game['id']}/line", {"moves": REPORT_GAME})
    server.api("POST", f"/api/games/{game['id']}/resign", {"color": "white"})
    open_game(page, server, game["id"])
    assert page.locator("#report-graph").is_hidden()
    assert page.locator("#move-list .mark").count() == 0
    page.select_option("#report-strength", "quick")     # depth 6: fast
    page.click("#btn-report")
    page.wait_for_function("() => damierApp.report !== null", timeout=30000)
    assert page.locator("#report-progress").is_hidden()
    assert page.inner_text("#btn-report") == "Analyse again"
    report = page.evaluate("() => damierApp.report")
    judged = {p["ply"]: p for p in report["plies"] if p["judgement"]}
    assert judged[5]["move"] == "31-27" and judged[5]["judgement"] == "blunder"
    # the marks in the move list, coloured by their kind
    marks = page.eval_on_selector_all("#move-list .mark",
                                      "els => els.map(e => [e.textContent, e.className])")
    assert marks == [[p["mark"], f"mark {p['judgement']}"] for p in judged.values()]
    blunder = page.locator('#move-list .move[data-ply="5"]')
    assert "blunder" in blunder.get_attribute("class")
    assert blunder.evaluate("e => e.nextElementSibling.textContent") == "??"
    colour = page.eval_on_selector("#move-list .mark.blunder", "e => getComputedStyle(e).color")
    assert colour == "rgb(212, 60, 60)"
    # the summary and the evaluation graph: one point a position, a dot a marked move
    assert page.locator("#report-summary tbody tr").count() == 2
    assert "Ann" in page.inner_text('#report-summary tr[data-color="white"]')
    graph = page.locator("#report-graph svg")
    assert graph.locator("polyline.graph-line").count() == 1
    points = graph.locator("polyline.graph-line").get_attribute("points")
    assert len(points.split()) == len(REPORT_GAME) + 1
    assert graph.locator("circle.graph-mark").count() == len(judged)
    assert graph.locator('circle.graph-mark.blunder[data-ply="5"]').count() == 1
    # a marked move: its position, the engine's better move as an arrow, the comment
    blunder.click()
    assert page.locator("#board").get_attribute("data-ply") == "5"
    arrow = page.locator("#board polyline.hint-arrow")
    assert arrow.count() == 1
    best = judged[5]["best"]
    assert ((arrow.get_attribute("data-from"), arrow.get_attribute("data-to"))
            == (str(best["from"]), str(best["to"])))
    comment = page.inner_text("#report-comment")
    assert "31-27??" in comment and "Blunder" in comment and f"Better: {best['text']}" in comment
    assert graph.locator("line.graph-cursor").count() == 1
    page.mouse.move(5, 5)   # no hover highlight in the picture
    page.wait_for_timeout(400)
    page.screenshot(path=str(shots / "web-analysis.png"))
    # a point of the graph
    page.click('#report-graph rect.graph-hit[data-ply="12"]')
    assert page.locator("#board").get_attribute("data-ply") == "12"
    entry = report["plies"][11]
    assert page.locator("#board polyline.hint-arrow").count() == (0 if entry["played_best"] else 1)
    assert entry["move"] in page.inner_text("#report-comment")
    # the report is stored: a reload shows it again
    page.reload()
    page.wait_for_function("(id) => damierApp.game && damierApp.game.id === id", arg=game["id"])
    page.wait_for_function("(n) => document.querySelectorAll('#move-list .mark').length === n",
                           arg=len(judged))
    assert page.locator("#report-graph circle.graph-mark").count() == len(judged)


def test_phone_layout(browser, server, shots):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    context.add_cookies([{"name": "damier_player", "value": server.player, "url": server.url}])
    page = context.new_page()
    try:
        game = server.api("POST", "/api/games", {"color": "white", "level": 1})
        page.goto(f"{server.url}/#game={game['id']}")
        page.wait_for_function("(id) => damierApp.game && damierApp.game.id === id", arg=game["id"])
        board = page.locator("#board svg").bounding_box()
        panel = page.locator(".panel").bounding_box()
        assert board["width"] <= 390 and board["width"] > 300
        assert panel["y"] >= board["y"] + board["height"] - 1   # the panel goes below the board
        page.tap("#btn-flip")
        assert page.locator("#board svg").get_attribute("data-flipped") == "true"
        page.tap("#btn-flip")
        x, y = point(page, 32)
        page.touchscreen.tap(x, y)
        x, y = point(page, 28)
        page.touchscreen.tap(x, y)
        assert wait_moves(page, 2)[0] == "32-28"
        page.wait_for_timeout(700)   # the engine's move slides in
        page.screenshot(path=str(shots / "web-phone.png"))
    finally:
        context.close()


def test_a_spectator_sees_the_game_live_but_cannot_play(browser, server, page):
    game = server.api("POST", "/api/games", {"color": "both"})
    open_game(page, server, game["id"])
    assert page.get_attribute("#board", "data-interactive") == "true"
    other = browser.new_context(viewport={"width": 1280, "height": 900})   # its own cookie
    watcher = other.new_page()
    try:
        open_game(watcher, server, game["id"])
        watcher.wait_for_function("() => damierApp.you && damierApp.you.spectator")
        assert "watching (read-only)" in watcher.inner_text("#status")
        assert watcher.get_attribute("#board", "data-interactive") == "false"
        for button in ("#btn-undo", "#btn-resign", "#btn-draw", "#btn-go"):
            assert watcher.locator(button).is_disabled(), button
        # the player moves; the watcher's board follows over the WebSocket
        x, y = point(page, 32)
        page.mouse.click(x, y)
        x, y = point(page, 28)
        page.mouse.click(x, y)
        assert wait_moves(watcher, 1)[0] == "32-28"
        # and a move sent by the watcher's page itself is refused by the server
        status = watcher.evaluate("""async (id) => (await fetch(`/api/games/${id}/move`, {
            method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({move: "19-23"})})).status""", game["id"])
        assert status == 403
    finally:
        other.close()


def new_context_page(browser, server=None):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    if server is not None:
        context.add_cookies([{"name": "damier_player", "value": server.player, "url": server.url}])
    page = context.new_page()
    page.set_default_timeout(15000)
    return context, page


def test_two_browsers_play_by_link_while_a_third_only_watches(browser, server, page, shots):
    page.goto(server.url + "/")
    page.wait_for_selector("#dlg-new[open]")
    page.select_option("#new-variant", "international")
    page.select_option("#new-color", "white")
    page.select_option("#new-opponent", "friend")
    page.click("#new-start")
    page.wait_for_function("() => damierApp.game !== null "
                           "&& !document.getElementById('invite').hidden")
    link = page.input_value("#invite-url")
    gid = page.evaluate("() => damierApp.game.id")
    assert f"#game={gid}&join=" in link
    page.screenshot(path=str(shots / "web-invite.png"))
    friend_ctx, friend = new_context_page(browser)          # another browser: its own cookie
    watcher_ctx, watcher = new_context_page(browser)
    try:
        friend.goto(link)
        friend.wait_for_selector("#dlg-name[open]")   # the joiner is asked for a name once
        friend.fill("#name-input", "Bob")
        friend.click("#name-ok")
        friend.wait_for_function("(id) => damierApp.game && damierApp.game.id === id "
                                 "&& damierApp.you && damierApp.you.seats.includes('black')",
                                 arg=gid)
        assert "join=" not in friend.url      # the spent secret leaves the address bar
        page.wait_for_function("() => document.getElementById('invite').hidden")
        # white moves by clicks in the first browser; the friend sees it live
        click_square(page, 32)
        click_square(page, 28)
        assert wait_moves(friend, 1) == ["32-28"]
        assert friend.get_attribute("#board", "data-interactive") == "true"
        click_square(friend, 19)
        click_square(friend, 23)
        assert wait_moves(page, 2) == ["32-28", "19-23"]
        # a third browser, with the watch link, sees the game but cannot move
        watcher.goto(f"{server.url}/#game={gid}")
        watcher.wait_for_function("() => damierApp.you && damierApp.you.spectator")
        assert watcher.get_attribute("#board", "data-interactive") == "false"
        assert "watching (read-only)" in watcher.inner_text("#status")
        status = watcher.evaluate("""async (id) => (await fetch(`/api/games/${id}/move`, {
            method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({move: "28x19"})})).status""", gid)
        assert status == 403
        # it is White's turn: the friend (Black) cannot move either, and there are no take-backs
        assert friend.get_attribute("#board", "data-interactive") == "false"
        assert page.locator("#btn-undo").is_disabled()
        click_square(page, 28)
        click_square(page, 19)
        assert wait_moves(watcher, 3) == ["32-28", "19-23", "28x19"]
        friend.screenshot(path=str(shots / "web-friend.png"))
    finally:
        friend_ctx.close()
        watcher_ctx.close()


def test_a_timed_game_is_lost_on_time_in_the_browser(server, page, shots):
    # 0.05 minutes (3 s) each: White plays, the engine answers, then White's flag falls
    game = server.api("POST", "/api/games", {"color": "white", "level": 1, "clock": "0.05"})
    open_game(page, server, game["id"])
    assert page.locator("#player-bottom .clock").inner_text() == "0:03.0"
    click_square(page, 32)
    click_square(page, 28)
    wait_moves(page, 2)
    page.wait_for_function("() => damierApp.game.over", timeout=20000)
    status = page.inner_text("#status")
    assert "time forfeit" in status and "0-2" in status
    assert page.locator("#player-bottom .clock").inner_text() == "0:00.0"
    assert page.get_attribute("#board", "data-interactive") == "false"
    page.screenshot(path=str(shots / "web-clock.png"))


def test_redo_restores_the_same_engine_reply(server, page):
    game = server.api("POST", "/api/games", {"color": "white", "level": 3})
    open_game(page, server, game["id"])
    click_square(page, 32)
    click_square(page, 28)
    played = wait_moves(page, 2)
    page.click("#btn-undo")
    page.wait_for_function("() => damierApp.game.moves.length === 0")
    page.click("#btn-redo")
    assert wait_moves(page, 2) == played
    time.sleep(0.5)   # the engine does not search again: the reply stays the one it played
    assert moves(page) == played and not game_state(page)["engine_thinking"]


def test_a_puzzle_is_solved_with_a_hint_and_the_streak_grows(server, page, shots):
    from damier.puzzles import load_puzzles
    puzzle = next(p for p in load_puzzles("international") if p.solver_moves >= 2)
    page.goto(f"{server.url}/puzzles#{puzzle.id}")
    page.wait_for_function("() => window.damierPuzzles && damierPuzzles.ready")
    assert page.get_attribute("#board", "data-interactive") == "true"
    page.click("#pz-hint")
    board = puzzle.board()
    first = board.parse_move(puzzle.solution[0])
    page.wait_for_function("(s) => document.getElementById('message').textContent.includes("
                           "'piece on ' + s)", arg=first.from_square)
    for ply, text in enumerate(puzzle.solution):
        move = board.parse_move(text)
        if ply % 2 == 0:   # the solver's move, played by clicks (the path for a capture)
            page.wait_for_function("(n) => damierPuzzles.played.length === n && document."
                                   "getElementById('board').dataset.interactive === 'true'",
                                   arg=ply)
            x, y = page.evaluate("(s) => damierPuzzles.squarePoint(s)", move.from_square)
            page.mouse.click(x, y)
            x, y = page.evaluate("(s) => damierPuzzles.squarePoint(s)", move.to_square)
            page.mouse.click(x, y)
        board.push(move)
    page.wait_for_function("() => damierPuzzles.done")
    assert page.inner_text("#pz-status") == "Solved!"
    assert page.inner_text("#pz-streak") == "1"
    page.screenshot(path=str(shots / "web-puzzle.png"))
    # a wrong first move in the next one ends the streak and shows the solution
    page.click("#pz-next")
    page.wait_for_function("(id) => damierPuzzles.ready && damierPuzzles.puzzle.id !== id",
                           arg=puzzle.id)
    nxt = page.evaluate("() => damierPuzzles.puzzle")
    from damier import Board
    b = Board(nxt["fen"])
    solution_first = None
    from damier.puzzles import load_puzzles as _lp
    solution_first = next(p for p in _lp("international") if p.id == nxt["id"]).solution[0]
    wrong = next(m for m in b.legal_moves
                 if b.notation(m) != b.notation(b.parse_move(solution_first)))
    x, y = page.evaluate("(s) => damierPuzzles.squarePoint(s)", wrong.from_square)
    page.mouse.click(x, y)
    x, y = page.evaluate("(s) => damierPuzzles.squarePoint(s)", wrong.to_square)
    page.mouse.click(x, y)
    page.wait_for_function("() => damierPuzzles.failed && document.getElementById('pz-status')"
                           ".textContent.startsWith('Not this time')")
    assert page.inner_text("#pz-streak") == "0"
    assert "solution" in page.inner_text("#message")


# -- what players expect: the capture chooser on a 900 px screen, imported headers, analysis
# arrows and a readable evaluation, themes, sounds, copy buttons ---------------------------------


def test_the_capture_chooser_cancel_is_on_a_900px_screen(page, server):
    assert page.viewport_size == {"width": 1280, "height": 900}
    game = server.api("POST", "/api/games", {"fen": AMBIGUOUS_FEN, "color": "white", "level": 1})
    open_game(page, server, game["id"])
    click_square(page, 47)
    click_square(page, 36)
    page.wait_for_selector("#choice:not([hidden])")
    box = page.locator("#choice-cancel").bounding_box()
    assert box is not None
    assert 0 <= box["y"] and box["y"] + box["height"] <= 900, box
    assert 0 <= box["x"] and box["x"] + box["width"] <= 1280, box
    for button in page.locator("#choice-buttons button").all():
        b = button.bounding_box()
        assert b is not None and b["y"] + b["height"] <= 900
    page.click("#choice-cancel")   # a real click: it fails when something covers the button
    page.wait_for_selector("#choice", state="hidden")
    assert moves(page) == []
    assert page.locator("#board").get_attribute("data-interactive") == "true"


IMPORT_WITH_HEADERS = """[Event "Club championship"]
[Site "Utrecht"]
[Date "2024.05.01"]
[Round "3"]
[White "Alpha"]
[Black "Beta"]
[Result "1-0"]

{An opening comment} 1. 32-28! {a good start} 19-23?! 2. 28x19 $3 14x23 3. 37-32 ?? 1-0
"""


def test_an_imported_game_shows_its_headers_nags_and_opening_comment(page, server, shots):
    page.goto(server.url + "/")
    page.wait_for_selector("#dlg-new[open]")
    page.click("#dlg-new [data-close]")
    page.click("#btn-import")
    page.fill("#import-text", IMPORT_WITH_HEADERS)
    page.click("#import-go")
    page.wait_for_function("() => damierApp.game && damierApp.game.white === 'Alpha'")
    headers = page.locator("#game-headers")
    assert headers.is_visible()
    for name, value in (("Event", "Club championship"), ("Site", "Utrecht"), ("Date", "2024.05.01"),
                        ("Round", "3"), ("White", "Alpha"), ("Black", "Beta"), ("Result", "2-0")):
        assert page.inner_text(f'#game-headers dd[data-header="{name}"]') == value
    assert page.inner_text("#move-list .game-comment") == "An opening comment"
    glyphs = page.eval_on_selector_all("#move-list .nag", "els => els.map(e => e.textContent)")
    assert glyphs == ["!", "?!", "!!", "??"]
    assert "a good start" in page.inner_text("#move-list")
    assert page.inner_text("#move-list .result") == "2-0"
    page.screenshot(path=str(shots / "web-import-headers.png"))
    # the games list writes the result in the variant's style
    page.click("#btn-games")
    page.wait_for_selector("#dlg-games[open]")
    row = page.locator(f'#games-table tr[data-game="{game_state(page)["id"]}"]')
    assert "2-0" in row.inner_text()
    page.click("#dlg-games [data-close]")


def test_live_analysis_draws_arrows_and_a_readable_evaluation(page, server, shots):
    game = server.api("POST", "/api/games", {"color": "both"})
    open_game(page, server, game["id"])
    page.select_option("#multipv", "3")
    page.check("#analyse-toggle")
    page.wait_for_function(
        "() => document.querySelectorAll('#board polyline.hint-arrow.analysis').length === 3",
        timeout=20000)
    assert page.locator("#board polyline.hint-arrow.analysis.best-line").count() == 1
    # read the arrow and the first line together: a deeper result may replace both at any time
    arrow, first_line = page.evaluate("""() => {
        const best = document.querySelector('#board polyline.best-line');
        const line = document.querySelector('#analysis-lines li:first-child');
        return [`${best.dataset.from}-${best.dataset.to}`, line.innerText];
    }""")
    assert arrow in first_line, (arrow, first_line)
    number = page.inner_text("#eval-number")
    assert re.fullmatch(r"[+−]\d+\.\d\d|(White|Black) wins( in \d+)?", number), number
    page.screenshot(path=str(shots / "web-analysis-arrows.png"))
    page.uncheck("#analyse-toggle")
    page.wait_for_function(
        "() => document.querySelectorAll('#board polyline.hint-arrow.analysis').length === 0")


def test_themes_sounds_and_copy_buttons(page, server, shots):
    game = server.api("POST", "/api/games", {"color": "both"})
    open_game(page, server, game["id"])
    dark = "() => getComputedStyle(document.querySelector('#board .sq.dark')).fill"
    wood = page.evaluate(dark)
    page.select_option("#opt-theme", "green")
    assert page.evaluate(dark) != wood
    assert page.evaluate("() => document.documentElement.dataset.theme") == "green"
    # sounds are off in an automated browser until switched on
    assert not page.is_checked("#opt-sound")
    drag(page, 32, 28)
    wait_moves(page, 1)
    page.check("#opt-sound")
    page.evaluate("() => { damierApp.soundLog.length = 0; }")
    drag(page, 19, 23)
    wait_moves(page, 2)
    drag(page, 28, 19)
    wait_moves(page, 3)
    assert page.evaluate("() => damierApp.soundLog") == ["move", "capture"]
    page.wait_for_timeout(700)   # the capture's animation ends
    page.screenshot(path=str(shots / "web-themes.png"))
    # both settings are kept
    page.reload()
    page.wait_for_function("() => damierApp.game !== null")
    assert page.is_checked("#opt-sound")
    assert page.input_value("#opt-theme") == "green"
    assert page.evaluate(dark) != wood
    # copy the FEN and the PDN
    page.click("#btn-copy-fen")
    assert page.evaluate("() => damierApp.lastCopied") == page.input_value("#fen-text")
    page.click("#btn-copy-pdn")
    page.wait_for_function("() => (damierApp.lastCopied || '').includes('[Event')")
    assert "1. 32-28 19-23 2. 28x19" in page.evaluate("() => damierApp.lastCopied")
    # the end of the game sounds too
    page.evaluate("() => { damierApp.soundLog.length = 0; }")
    page.click("#btn-resign")
    page.click("#btn-resign")
    page.wait_for_function("() => damierApp.game.over")
    assert page.evaluate("() => damierApp.soundLog") == ["end"]
    page.select_option("#opt-theme", "wood")
    page.uncheck("#opt-sound")
