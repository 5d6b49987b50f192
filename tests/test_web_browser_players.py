"""What players expect of the web page, in a real browser (Playwright driving Debian's
Chromium, as ``test_web_browser.py`` does; its server and browser fixtures are used):
a phone screen that nothing overflows, real names in a game by link (the joiner's
board turned to its colour), a games list that asks before it deletes and counts moves
as the move list numbers them, an engine line that an undo takes away, take-back
requests, chat and rematches between two people, moves held until confirmed, and
custom time controls.

``DAMIER_WEB_SCREENSHOTS=DIR`` keeps the screenshots (``web-phone.png``,
``web-friend-names.png``, ``web-friend-chat.png``, ``web-rematch.png``,
``web-confirm-move.png``, ``web-games-delete.png``).
"""

from __future__ import annotations

import urllib.error

import pytest

from test_web_browser import (browser, click_square, drag, game_state,  # noqa: F401
                              new_context_page, open_game, page, point, server, shots,
                              wait_moves)

from damier import pdn

pytestmark = pytest.mark.slow


def seat_context(browser, server, name=None):  # noqa: F811
    """A new browser (its own player cookie), with a stored name when ``name`` is given."""
    context, pg = new_context_page(browser)
    if name is not None:
        context.add_cookies([{"name": "damier_name", "value": name, "url": server.url}])
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    return context, pg, errors


def names_shown(pg) -> tuple[str, str]:
    return pg.inner_text("#player-top"), pg.inner_text("#player-bottom")


# -- 2. a phone's screen ---------------------------------------------------------------------------


def test_nothing_overflows_a_phone_screen(browser, server, shots):  # noqa: F811
    """Issue (player) 2: at 390x844 the board was about 5 px wider than the screen
    (squares 5, 15, 25 cut, the colour dots clipped)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    context.add_cookies([{"name": "damier_player", "value": server.player, "url": server.url}])
    pg = context.new_page()
    try:
        game = server.api("POST", "/api/games", {"color": "white", "level": 1, "clock": "5+3"})
        pg.goto(f"{server.url}/#game={game['id']}")
        pg.wait_for_function("(id) => damierApp.game && damierApp.game.id === id",
                             arg=game["id"])
        sizes = pg.evaluate("""() => {
            const box = (sel) => document.querySelector(sel).getBoundingClientRect().toJSON();
            return {scroll: document.documentElement.scrollWidth, inner: innerWidth,
                    board: box('#board svg'), area: box('.board-area'),
                    dots: [...document.querySelectorAll('.player .dot, .player .clock')]
                        .map((e) => e.getBoundingClientRect().toJSON()),
                    square5: box('#board rect[data-square="5"]'),
                    outside: [...document.querySelectorAll('body *')].filter((e) => {
                        const r = e.getBoundingClientRect();
                        return r.width && (r.left < -0.5 || r.right > innerWidth + 0.5);
                    }).map((e) => e.id || e.tagName)};
        }""")
        assert sizes["inner"] == 390
        assert sizes["scroll"] <= sizes["inner"], sizes
        board = sizes["board"]
        assert board["left"] >= 0 and board["right"] <= sizes["inner"], board
        assert board["width"] > 300                       # still a big board
        assert sizes["area"]["left"] >= 0 and sizes["area"]["right"] <= sizes["inner"]
        assert sizes["square5"]["right"] <= sizes["inner"]
        assert len(sizes["dots"]) == 4                  # two colour dots, two clocks
        for dot in sizes["dots"]:
            assert dot["left"] >= 0 and dot["right"] <= sizes["inner"], dot
        assert sizes["outside"] == [], sizes["outside"]
        x, y = point(pg, 32)
        pg.touchscreen.tap(x, y)
        x, y = point(pg, 28)
        pg.touchscreen.tap(x, y)
        wait_moves(pg, 2)
        pg.wait_for_timeout(700)   # the engine's move slides in
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
        pg.screenshot(path=str(shots / "web-phone.png"))
    finally:
        context.close()


# -- 1. a game with a friend by link: names and the joiner's board ---------------------------------


def test_friend_by_link_names_both_players_and_turns_the_joiners_board(browser, server,  # noqa: F811
                                                                        page, shots):  # noqa: F811
    """Issue (player) 1: the joiner (Black) saw "Friend", "You" by White and an unturned
    board; spectators saw "You"/"Friend"; the PDN said White "You", Black "Friend"."""
    page.goto(server.url + "/")
    page.wait_for_selector("#dlg-new[open]")
    page.fill("#new-name", "Ann")
    page.select_option("#new-color", "white")
    page.select_option("#new-opponent", "friend")
    page.click("#new-start")
    page.wait_for_function("() => damierApp.game !== null "
                           "&& !document.getElementById('invite').hidden")
    link = page.input_value("#invite-url")
    gid = page.evaluate("() => damierApp.game.id")
    friend_ctx, friend, friend_errors = seat_context(browser, server)
    watcher_ctx, watcher, _ = seat_context(browser, server)
    try:
        friend.goto(link)
        friend.wait_for_selector("#dlg-name[open]")        # asked once, before joining
        friend.fill("#name-input", "Bob")
        friend.click("#name-ok")
        friend.wait_for_function("(id) => damierApp.game && damierApp.game.id === id "
                                 "&& damierApp.you && damierApp.you.seats.includes('black')",
                                 arg=gid)
        stored = {c["name"]: c["value"] for c in friend_ctx.cookies()}
        assert stored["damier_name"] == "Bob"
        # the joiner's board is turned to Black: square 1 at the bottom right
        assert friend.get_attribute("#board svg", "data-flipped") == "true"
        assert friend.locator('#board rect[data-square="1"]').get_attribute("y") == "9"
        top, bottom = names_shown(friend)
        assert "Ann" in top and "(you)" not in top
        assert "Bob" in bottom and "(you)" in bottom and "Friend" not in bottom + top
        # the creator sees the friend's name come in
        page.wait_for_function("() => document.getElementById('player-top').innerText"
                               ".includes('Bob')")
        top, bottom = names_shown(page)
        assert "Ann" in bottom and "(you)" in bottom and "You" not in top
        assert page.get_attribute("#board svg", "data-flipped") == "false"
        # a spectator: both names, nobody is "you"
        watcher.goto(f"{server.url}/#game={gid}")
        watcher.wait_for_function("() => damierApp.you && damierApp.you.spectator")
        top, bottom = names_shown(watcher)
        assert "Bob" in top and "Ann" in bottom and "(you)" not in top + bottom
        click_square(page, 32)
        click_square(page, 28)
        wait_moves(friend, 1)
        assert "Black to move (you)" in friend.inner_text("#status")
        friend.wait_for_timeout(400)
        friend.screenshot(path=str(shots / "web-friend-names.png"))
        # the PDN names them
        text = watcher.evaluate("async (id) => (await fetch(`/api/games/${id}/pdn`)).text()",
                                gid)
        tags = pdn.read_game(text).headers
        assert (tags["White"], tags["Black"]) == ("Ann", "Bob")
        assert friend_errors == []
    finally:
        friend_ctx.close()
        watcher_ctx.close()


# -- 4. and 5. the games list: Delete asks first; moves counted as the move list numbers them ------


def test_the_games_list_asks_before_deleting_and_counts_full_moves(page, server, shots):  # noqa: F811
    gid = server.api("POST", "/api/games", {"color": "both", "white": "Del", "black": "Me"})["id"]
    server.api("POST", f"/api/games/{gid}/line", {"moves": ["32-28", "19-23", "28x19"]})
    page.goto(f"{server.url}/#game={gid}")
    page.wait_for_function("(id) => damierApp.game && damierApp.game.id === id", arg=gid)
    page.click("#btn-games")
    page.wait_for_selector("#dlg-games[open]")
    row = page.locator(f'#games-table tr[data-game="{gid}"]')
    count = row.locator("td.moves-count")
    assert count.inner_text() == "2" and count.get_attribute("title") == "3 plies"
    delete = row.locator("button.delete")
    delete.click()
    assert delete.inner_text() == "Confirm delete"
    page.wait_for_timeout(300)
    assert row.count() == 1
    assert server.api("GET", f"/api/games/{gid}")["id"] == gid      # not deleted yet
    page.screenshot(path=str(shots / "web-games-delete.png"))
    delete.click()
    page.wait_for_function("(id) => !document.querySelector(`#games-table tr[data-game='${id}']`)",
                           arg=gid)
    with pytest.raises(urllib.error.HTTPError) as err:
        server.api("GET", f"/api/games/{gid}")
    assert err.value.code == 404
    # a click, then nothing: the button goes back to Delete by itself
    other = server.api("POST", "/api/games", {"color": "both"})["id"]
    page.click("#dlg-games [data-close]")
    page.click("#btn-games")
    row = page.locator(f'#games-table tr[data-game="{other}"]')
    row.locator("button.delete").click()
    page.wait_for_function("(id) => document.querySelector(`#games-table tr[data-game='${id}'] "
                           "button.delete`).textContent === 'Delete'", arg=other, timeout=8000)
    assert server.api("GET", f"/api/games/{other}")["id"] == other


# -- 7. an undo takes the engine's stale line and evaluation away ----------------------------------


def test_undo_clears_the_engines_stale_line_and_evaluation(page, server):  # noqa: F811
    game = server.api("POST", "/api/games", {"color": "white", "level": 5})
    open_game(page, server, game["id"])
    click_square(page, 32)
    click_square(page, 28)
    wait_moves(page, 2)
    page.wait_for_function("() => document.getElementById('engine-line').textContent !== ''")
    assert page.inner_text("#eval-number") != ""
    page.click("#btn-undo")
    wait_moves(page, 0)
    assert page.inner_text("#engine-line") == ""
    assert page.inner_text("#eval-number") == ""
    assert page.get_attribute("#evalbar", "data-score") == ""
    # a redo brings the same position back, and the engine's line with it
    page.click("#btn-redo")
    wait_moves(page, 2)
    page.wait_for_function("() => document.getElementById('engine-line').textContent !== ''")


# -- 9. between two people: take-backs, chat, rematch ----------------------------------------------


EVIL = '<img src=x onerror="window.pwned=1"><b>hi</b> & bye'


def test_takeback_chat_and_rematch_between_two_browsers(browser, server, page, shots):  # noqa: F811
    game = server.api("POST", "/api/games", {"opponent": "friend", "color": "white",
                                             "name": "Ann"})
    gid = game["id"]
    open_game(page, server, gid)
    link = page.input_value("#invite-url")
    bob_ctx, bob, bob_errors = seat_context(browser, server, name="Bob")
    carol_ctx, carol, _ = seat_context(browser, server)
    try:
        bob.goto(link)                                     # a stored name: no question
        bob.wait_for_function("() => damierApp.you && damierApp.you.seats.includes('black')")
        assert not bob.locator("#dlg-name").evaluate("d => d.open")
        click_square(page, 32)
        click_square(page, 28)
        wait_moves(bob, 1)
        click_square(bob, 19)
        click_square(bob, 23)
        wait_moves(page, 2)
        # Bob asks to take his move back; Ann accepts
        assert bob.locator("#btn-takeback").is_visible()
        assert page.locator("#btn-undo").is_disabled()
        bob.click("#btn-takeback")
        page.wait_for_selector("#offer:not([hidden])")
        assert page.inner_text("#offer-text") == "Bob asks to take back their last move."
        bob.wait_for_function("() => document.getElementById('offer-text').textContent"
                              ".includes('waiting for your opponent')")
        page.click("#offer-accept")
        assert wait_moves(bob, 1) == ["32-28"] and wait_moves(page, 1) == ["32-28"]
        page.wait_for_selector("#offer", state="hidden")
        # chat: text only, for the two players alone
        assert page.locator("#chat").is_visible() and bob.locator("#chat").is_visible()
        page.fill("#chat-input", EVIL)
        page.click("#chat-send")
        bob.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 1")
        assert bob.inner_text("#chat-log .chat-text") == EVIL
        assert bob.inner_text("#chat-log .chat-name") == "Ann"
        assert bob.locator("#chat-log img, #chat-log b").count() == 0
        assert bob.evaluate("() => window.pwned") is None
        bob.fill("#chat-input", "good luck!")
        bob.press("#chat-input", "Enter")
        page.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 2")
        carol.goto(f"{server.url}/#game={gid}")
        carol.wait_for_function("() => damierApp.you && damierApp.you.spectator")
        assert carol.locator("#chat").is_hidden()
        assert carol.locator("#chat-log li").count() == 0
        page.wait_for_timeout(300)
        page.screenshot(path=str(shots / "web-friend-chat.png"))
        # Bob resigns; Ann offers a rematch; Bob accepts: both go to the new game, colours swapped
        bob.click("#btn-resign")
        bob.click("#btn-resign")
        page.wait_for_function("() => damierApp.game.over")
        assert page.locator("#btn-takeback").is_hidden()
        page.click("#btn-rematch")
        bob.wait_for_selector("#offer:not([hidden])")
        assert bob.inner_text("#offer-text") == "Ann offers a rematch (colours swapped)."
        bob.wait_for_timeout(300)
        bob.screenshot(path=str(shots / "web-rematch.png"))
        bob.click("#offer-accept")
        for pg in (page, bob):
            pg.wait_for_function("(id) => damierApp.game && damierApp.game.id !== id "
                                 "&& damierApp.you && !damierApp.you.spectator", arg=gid)
        new = game_state(page)
        assert game_state(bob)["id"] == new["id"]
        assert (new["white"], new["black"]) == ("Bob", "Ann")
        assert page.evaluate("() => damierApp.you.seats") == ["black"]
        assert page.get_attribute("#board svg", "data-flipped") == "true"
        assert bob.get_attribute("#board svg", "data-flipped") == "false"
        click_square(bob, 32)
        click_square(bob, 28)
        assert wait_moves(page, 1) == ["32-28"]
        assert bob_errors == []
    finally:
        bob_ctx.close()
        carol_ctx.close()


# -- 9. optional move confirmation; custom time controls -------------------------------------------


def test_moves_wait_for_confirm_when_asked(page, server, shots):  # noqa: F811
    game = server.api("POST", "/api/games", {"color": "both"})
    open_game(page, server, game["id"])
    page.check("#opt-confirm")
    try:
        drag(page, 32, 28)
        page.wait_for_selector("#confirm-move:not([hidden])")
        assert page.inner_text("#confirm-move-text") == "32-28"
        # shown on the board, not played
        assert page.locator('#board .piece[data-square="28"]').count() == 1
        assert page.locator('#board .piece[data-square="32"]').count() == 0
        assert page.get_attribute("#board", "data-interactive") == "false"
        page.wait_for_timeout(300)
        assert game_state(page)["moves"] == []
        page.screenshot(path=str(shots / "web-confirm-move.png"))
        page.click("#confirm-move-no")
        assert page.locator('#board .piece[data-square="32"]').count() == 1
        assert page.locator('#board .piece[data-square="28"]').count() == 0
        assert server.api("GET", f"/api/games/{game['id']}")["moves"] == []
        click_square(page, 32)
        click_square(page, 28)
        page.click("#confirm-move-yes")
        assert wait_moves(page, 1) == ["32-28"]
        # kept across a reload
        page.reload()
        page.wait_for_function("() => damierApp.game !== null")
        assert page.is_checked("#opt-confirm")
    finally:
        page.uncheck("#opt-confirm")
    drag(page, 19, 23)
    assert wait_moves(page, 2) == ["32-28", "19-23"]


def test_a_custom_time_control_from_the_new_game_dialog(page, server):  # noqa: F811
    page.goto(server.url + "/")
    page.wait_for_selector("#dlg-new[open]")
    page.select_option("#new-color", "white")
    page.select_option("#new-clock", "custom")
    assert page.locator("#new-clock-custom").is_visible()
    page.fill("#new-clock-custom", "abc")
    page.click("#new-start")
    page.wait_for_selector("#new-error:not([hidden])")
    assert "bad clock" in page.inner_text("#new-error")
    assert page.locator("#dlg-new").evaluate("d => d.open")
    page.fill("#new-clock-custom", "2:30+5")
    page.click("#new-start")
    page.wait_for_function("() => damierApp.game !== null && damierApp.game.clock")
    clock = game_state(page)["clock"]
    assert (clock["initial"], clock["increment"]) == (150, 5)
    assert page.inner_text("#player-bottom .clock") == "2:30"


# -- 9. premoves -----------------------------------------------------------------------------


def test_premoves_between_two_browsers(browser, server, page, shots):  # noqa: F811
    """A move picked while the opponent is to move is played as soon as it is legal, and
    dropped, with a word, when it is not (lidraughts' premoves)."""
    game = server.api("POST", "/api/games", {"opponent": "friend", "color": "white",
                                             "name": "Ann"})
    open_game(page, server, game["id"])
    link = page.input_value("#invite-url")
    bob_ctx, bob, bob_errors = seat_context(browser, server, name="Bob")
    try:
        bob.goto(link)
        bob.wait_for_function("() => damierApp.you && damierApp.you.seats.includes('black')")
        click_square(page, 32)
        click_square(page, 28)
        wait_moves(bob, 1)
        # Bob to move: Ann picks 37-32 in advance
        assert page.get_attribute("#board", "data-interactive") == "false"
        click_square(page, 37)
        click_square(page, 32)
        marked = page.eval_on_selector_all("#board rect.premove",
                                           "els => els.map(e => e.dataset.square)")
        assert sorted(marked) == ["32", "37"]
        page.screenshot(path=str(shots / "web-premove.png"))
        click_square(bob, 17)
        click_square(bob, 21)
        # played at once on Ann's page when Bob's move arrives
        assert wait_moves(page, 3) == ["32-28", "17-21", "37-32"]
        assert wait_moves(bob, 3)[-1] == "37-32"
        assert page.locator("#board rect.premove").count() == 0
        # a premove that the reply makes illegal is dropped: 28-23, then Bob's 19-23
        # leaves White a capture to make (28x19)
        click_square(page, 28)
        click_square(page, 23)
        assert page.locator("#board rect.premove").count() == 2
        click_square(bob, 19)
        click_square(bob, 23)
        wait_moves(page, 4)
        page.wait_for_function("() => document.getElementById('message').textContent"
                               ".includes('premove 28-23 is not legal now')")
        assert page.get_attribute("#board", "data-interactive") == "true"
        assert len(game_state(page)["moves"]) == 4
        # a right click drops a premove before it is played
        click_square(page, 28)
        click_square(page, 19)       # White's own move (a capture): played, Bob to move
        wait_moves(bob, 5)
        click_square(page, 31)
        click_square(page, 27)
        assert page.locator("#board rect.premove").count() == 2
        x, y = point(page, 27)
        page.mouse.click(x, y, button="right")
        assert page.locator("#board rect.premove").count() == 0
        assert page.evaluate("() => damierApp.premove") is None
        assert not bob_errors
    finally:
        bob_ctx.close()
