"""The web app in a real browser (Debian's chromium through Playwright): games played by clicks.

One ``hanamikoji serve`` process (SQLite in a temporary folder) and one headless chromium serve the
whole module. The tests rely only on the pages' DOM contract (ids, ``data-*`` attributes, roles);
screenshots go to ``test-output/screenshots/`` in the repository root.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page

from browser_support import (
    AI_TIMEOUT_MS,
    DESKTOP,
    LANG,
    PHONE,
    dismiss_scoring,
    error_text,
    game_id,
    game_over,
    hand,
    history_length,
    legal,
    log_length,
    make_move,
    my_decision,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    play_by_clicks,
    record_of,
    shot,
    start_ai_game,
    status,
    to_move,
    until,
    wait_for_game,
    wait_for_my_turn,
    winner_for,
)
from web_support import Server

# -- the tests ------------------------------------------------------------------------------------


def test_a_whole_game_against_the_ai_by_clicks(server: Server, page: Page) -> None:
    page.goto(f"{server.url}/")
    page.locator("#start-ai").wait_for()
    shot(page, "home.png")
    start_ai_game(page, server, seat="random", name="Clicker")
    game = game_id(page)
    assert status(page) == "playing"
    # a level-one heading for a screen reader's outline (axe: page-has-heading-one)
    assert page.locator("h1").first.text_content() == "Hanamikoji – game"

    def screenshots(page: Page, moves: int) -> None:
        if moves != 5:
            return
        shot(page, "game-desktop.png")
        page.set_viewport_size(PHONE)
        try:
            page.wait_for_timeout(300)
            no_horizontal_scroll(page)
            shot(page, "game-phone.png", full_page=False)
        finally:
            page.set_viewport_size(DESKTOP)

    scorings = play_by_clicks([page], random.Random(1), before_move=screenshots)
    assert status(page) == "over" and to_move(page) == "none" and legal(page) == []
    shot(page, "game-over.png")
    shown = page.locator("#result").get_attribute("data-winner")

    record = record_of(page, server, game)
    seat = record.players.index("Clicker")
    assert record.players[1 - seat] == "easy"
    assert shown == winner_for(record, seat)
    # each round's scoring was shown, and the log tells every move once (an offer and its pick
    # share a line) and each round's reveal
    rounds = len(record.rounds)
    assert scorings == [rounds]
    picks = sum(1 for r in record.rounds for m in r.moves if str(m).startswith("P"))
    assert log_length(page) == sum(len(r.moves) for r in record.rounds) - picks + rounds
    no_page_errors(page)

    page.locator("#review-link").click()
    page.wait_for_url(f"**/review/{game}")
    page.locator("#step").wait_for()

    # back at the finished game: the result at once (no scoring to click through again)
    page.go_back()
    wait_for_game(page)
    page.locator("#result").wait_for()
    assert page.locator("#result").get_attribute("data-winner") == shown
    assert not page.locator("#scoring-continue").is_visible()
    # a rematch: a new game at the same level, seats swapped
    page.locator("#rematch").click()
    page.wait_for_url(lambda url: "/g/" in url and f"/g/{game}" not in url)
    wait_for_game(page)
    assert status(page) == "playing"
    rematch = game_id(page)
    response = page.request.get(f"{server.url}/api/games/{rematch}/record")
    assert response.status == 403  # it is on


def create_friend_game(page: Page, server: Server, *, name: str, seat: str = "0") -> str:
    """Create a friend game (3 rounds) from the home page's form; the invitation link it shows."""
    page.goto(f"{server.url}/")
    page.locator("#seat").select_option(seat)
    page.locator("#rounds").select_option("3")
    page.locator("#name").fill(name)
    page.locator("#invite").click()
    link = page.locator("#invite-link")
    link.wait_for()
    invite = link.input_value()
    assert re.fullmatch(re.escape(server.url) + r"/join/[^/?#]+\?i=[A-Za-z0-9_-]+", invite), invite
    return invite


def game_of_invite(invite: str) -> str:
    match = re.search(r"/join/([^/?#]+)", invite)
    assert match, invite
    return match.group(1)


def join_state(page: Page) -> str | None:
    return page.locator("#join").get_attribute("data-state")


def wait_join(page: Page, state: str) -> None:
    """The invitation page shows ``state`` (open, used, own, invalid or error)."""
    until(
        page,
        "s => document.querySelector('#join')?.dataset.state === s",
        state,
        why=f"the invitation page never showed {state!r} (it shows {join_state(page)!r})",
    )


def seat_cookies(context: BrowserContext, game: str) -> list[str]:
    """The values of the context's seat cookies for ``game``."""
    return [c["value"] for c in context.cookies() if c["name"] == f"hk_{game}"]


def test_the_home_page_and_the_lobby_answer_before_their_translations_arrive(
    server: Server, browser: Browser
) -> None:
    """A click while the translations are still on their way (a slow connection) starts the
    game; it used to do nothing, or submit the form to the page itself."""
    context, friend = new_context(browser), new_context(browser)
    try:
        page = open_page(context)
        held: list[Any] = []
        page.route(re.compile(r"/static/i18n/\w+\.json"), lambda route: held.append(route))
        page.goto(f"{server.url}/")
        page.locator("#name").fill("Early")
        page.locator("#invite").click()
        link = page.locator("#invite-link")
        until(page, "() => document.querySelector('#invite-link').value !== ''", why="no game")
        assert held and page.locator("#lang option").count() == 0  # the page not ready yet
        for route in held:
            route.continue_()
        until(page, "() => document.querySelectorAll('#lang option').length > 0", why="no i18n")
        assert page.locator("#name").input_value() == "Early"  # not overwritten by a stored one
        guest = open_page(friend)
        guest.goto(link.input_value())
        until(
            guest,
            "() => document.querySelector('#join-title')?.textContent.includes('Early')",
            why="the invitation does not name Early",
        )
        held.clear()
        page.goto(f"{server.url}/lobby")  # the lobby's Play someone now, the same way
        page.locator("#play-now").click()
        until(page, "() => !document.querySelector('#lobby-waiting').hidden", why="not waiting")
        assert held, "the lobby loaded its translations before the click"
        for route in held:
            route.continue_()
        no_page_errors(page)
    finally:
        context.close()
        friend.close()


def test_a_friend_game_through_the_invite_link(server: Server, browser: Browser) -> None:
    host_context, guest_context = new_context(browser), new_context(browser)
    try:
        host, guest = open_page(host_context), open_page(guest_context)
        invite = create_friend_game(host, server, name="Hostess")
        game = game_of_invite(invite)
        host.locator("#go").click()
        host.wait_for_url(f"{server.url}/g/{game}")  # no token: the cookie holds it
        wait_for_game(host)
        # the table shows the same link while the friend has not come
        until(
            host,
            "() => !document.querySelector('#invite-box').hidden",
            why="the host's table shows no #invite-box before the friend comes",
        )
        assert host.locator("#invite-box #invite-link").input_value() == invite

        guest.goto(invite)
        wait_join(guest, "open")
        title = guest.locator("#join-title")
        assert title.inner_text() == "Hostess invites you to play Hanamikoji"
        assert title.evaluate("e => e === document.activeElement"), "the heading has no focus"
        text = guest.locator("#join-text").inner_text()
        assert "at most 3 rounds" in text and "Hostess starts round 1." in text, text
        assert guest.locator("#name").get_attribute("maxlength") == "40"
        assert guest.locator("label[for=name]").is_visible()
        assert guest.locator("#table-link").is_hidden() and guest.locator("#own").is_hidden()
        assert seat_cookies(guest_context, game) == []
        shot(guest, "join-desktop.png")
        guest.set_viewport_size(PHONE)
        try:
            guest.wait_for_timeout(300)
            no_horizontal_scroll(guest)
            assert guest.locator("#take").is_visible()
            shot(guest, "join-phone.png")
        finally:
            guest.set_viewport_size(DESKTOP)

        history = guest.evaluate("() => history.length")
        guest.locator("#name").fill("Guesto")
        guest.locator("#take").click()
        guest.wait_for_url(f"{server.url}/g/{game}")
        wait_for_game(guest)
        assert game_id(guest) == game
        # location.replace: Back does not lead to the spent invitation
        assert guest.evaluate("() => history.length") == history
        assert guest.evaluate("() => localStorage.getItem('hanamikoji.name')") == "Guesto"
        assert len(seat_cookies(guest_context, game)) == 1
        # each sees the other's name; the host's invitation box goes away
        until(
            host,
            "() => document.querySelector('#opp-name').textContent === 'Guesto'",
            why="the host never sees the guest's name",
        )
        until(
            host,
            "() => document.querySelector('#invite-box').hidden",
            why="the host's #invite-box stays after the friend came",
        )
        assert guest.locator("#opp-name").inner_text() == "Hostess"
        assert guest.locator("#invite-box").is_hidden()
        # seat 0 starts: the host has a decision, the guest waits
        until(
            host,
            "() => document.querySelector('#game').dataset.toMove === 'me'",
            why="the host (seat 0) never gets the first decision",
        )
        assert to_move(guest) == "opponent" and legal(guest) == []

        scorings = play_by_clicks([host, guest], random.Random(2))
        winners = (
            host.locator("#result").get_attribute("data-winner"),
            guest.locator("#result").get_attribute("data-winner"),
        )
        expected = {("me", "opponent"), ("opponent", "me"), ("draw", "draw")}
        assert winners in expected, winners
        record = record_of(host, server, game)
        assert list(record.players) == ["Hostess", "Guesto"]
        assert winners[0] == winner_for(record, 0)
        assert winners[1] == winner_for(record, 1)
        assert scorings == [len(record.rounds)] * 2
        no_page_errors(host)
        no_page_errors(guest)
    finally:
        host_context.close()
        guest_context.close()


def test_a_used_invitation_gives_no_seat(server: Server, browser: Browser) -> None:
    contexts = [new_context(browser) for _ in range(3)]
    try:
        host, guest, late = (open_page(c) for c in contexts)
        invite = create_friend_game(host, server, name="Anna")
        game = game_of_invite(invite)
        late.goto(invite)  # opened before the guest, taken after
        wait_join(late, "open")
        guest.goto(invite)
        wait_join(guest, "open")
        guest.locator("#take").click()
        guest.wait_for_url(f"{server.url}/g/{game}")
        wait_for_game(guest)

        guest.goto(invite)  # the guest's own seat is one click away
        wait_join(guest, "used")
        assert guest.locator("#table-link").is_visible()
        guest.locator("#table-link").click()
        guest.wait_for_url(f"{server.url}/g/{game}")
        wait_for_game(guest)

        late.locator("#name").fill("Latecomer")
        late.locator("#take").click()  # the server answers 410
        wait_join(late, "used")
        for _ in range(2):
            assert late.locator("#join-title").inner_text() == "This invitation has been used"
            assert late.locator("#join-form").is_hidden() and late.locator("#take").is_hidden()
            assert late.locator("#table-link").is_hidden()
            home = late.locator("#home-link")
            assert home.is_visible() and home.inner_text() == "Start a new game"
            assert home.get_attribute("href") == "/"
            assert seat_cookies(contexts[2], game) == []
            late.reload()  # and read from the invitation itself
            wait_join(late, "used")
        shot(late, "join-used.png")
        assert late.locator("#game").count() == 0

        # the game page opens no seat for them either: they may only watch
        late.goto(f"{server.url}/g/{game}")
        until(
            late,
            "() => !document.querySelector('#watching').hidden",
            why="the game page does not say a visitor without a seat has none",
        )
        assert "no seat" in late.locator("#watching").inner_text()
        assert late.locator("#hand button.card").count() == 0
        assert seat_cookies(contexts[2], game) == []
        code = invite.split("?i=")[1]
        answer = late.request.get(f"{server.url}/api/games/{game}/invitation?i={code}")
        assert answer.ok and answer.json()["status"] == "used" and not answer.json()["yours"]
        no_page_errors(late)
        no_page_errors(guest)
    finally:
        for context in contexts:
            context.close()


def test_an_invitation_to_a_game_that_ended_says_so(server: Server, browser: Browser) -> None:
    """The creator resigned before the friend came: the page says the game is over, and no seat
    is given (it would be the seat that won)."""
    host_context, late_context = new_context(browser), new_context(browser)
    try:
        host, late = open_page(host_context), open_page(late_context)
        invite = create_friend_game(host, server, name="Anna")
        game = game_of_invite(invite)
        late.goto(invite)
        wait_join(late, "open")
        host.goto(f"{server.url}/g/{game}")
        wait_for_game(host)
        host.locator("#resign").click()
        host.locator("#resign-yes").click()
        host.locator("#result").wait_for()
        # no win for a "Player 2" who never came, no rematch, review or chat with nobody
        until(
            host,
            "() => document.querySelector('#result-title').textContent === 'Invitation withdrawn'",
            why=f"the result says {host.locator('#result-title').inner_text()!r}",
        )
        assert "before anyone took the seat" in host.locator("#result-reason").inner_text()
        for nothing in ("#rematch", "#review-link", "#chat"):
            assert host.locator(nothing).is_hidden(), nothing
        late.locator("#take").click()  # the server answers 409 over
        wait_join(late, "over")
        for _ in range(2):
            assert late.locator("#join-title").inner_text() == "This game is over"
            assert late.locator("#join-form").is_hidden()
            assert late.locator("#table-link").is_hidden()
            assert late.locator("#home-link").is_visible()
            assert seat_cookies(late_context, game) == []
            late.reload()  # and read from the invitation itself
            wait_join(late, "over")
        host.goto(invite)  # the creator's own seat is kept
        wait_join(host, "over")
        assert host.locator("#table-link").is_visible()
        # a spectator reads no win of a "Player 2" either (and nothing to share), the creator's
        # home page no lost game to review
        late.goto(f"{server.url}/g/{game}")
        until(
            late,
            "() => document.querySelector('#result-title')?.textContent === 'Invitation withdrawn'",
            why=f"the spectator reads {late.locator('#result-title').inner_text()!r}",
        )
        host.goto(f"{server.url}/")
        item = host.locator(f'#mine-finished li[data-game="{game}"]')
        item.wait_for()
        assert item.get_attribute("data-result") == "withdrawn"
        assert "Invitation withdrawn" in item.inner_text() and item.locator("a").count() == 0
        no_page_errors(late)
        no_page_errors(host)
    finally:
        host_context.close()
        late_context.close()


def test_the_longest_name_stays_inside_the_table(server: Server, browser: Browser) -> None:
    """A name of 40 letters without a space (the most the server takes) wraps inside the score
    bar, the status and the result, on a desktop and on a phone."""
    host_context, guest_context = new_context(browser), new_context(browser)
    try:
        host, guest = open_page(host_context), open_page(guest_context)
        invite = create_friend_game(host, server, name="Anna")
        game = game_of_invite(invite)
        guest.goto(invite)
        wait_join(guest, "open")
        guest.locator("#name").fill("W" * 40)
        guest.locator("#take").click()
        wait_for_game(guest)
        host.goto(f"{server.url}/g/{game}")
        wait_for_game(host)
        host.locator("#resign").click()
        host.locator("#resign-yes").click()
        host.locator("#result").wait_for()
        assert "W" * 40 in host.locator("#result").inner_text()
        overflowing = """() => [...document.querySelectorAll(
            '#scorebar, #scorebar *, .panel, .panel > *, #result *')]
            .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
            .map(e => e.id || e.className || e.tagName)"""
        for size in (DESKTOP, PHONE):
            host.set_viewport_size(size)
            host.wait_for_timeout(300)
            assert host.evaluate(overflowing) == [], size
            no_horizontal_scroll(host)
        shot(host, "long-name-phone.png")
        no_page_errors(host)
        no_page_errors(guest)
    finally:
        host_context.close()
        guest_context.close()


def test_the_creator_cannot_take_their_own_invitation(server: Server, browser: Browser) -> None:
    host_context, friend_context = new_context(browser), new_context(browser)
    try:
        host = open_page(host_context)
        invite = create_friend_game(host, server, name="Anna", seat="1")
        game = game_of_invite(invite)
        cookie = seat_cookies(host_context, game)
        assert len(cookie) == 1

        host.goto(invite)
        wait_join(host, "own")
        assert host.locator("#join-title").inner_text() == "This is your own invitation"
        assert "Send the link to your friend" in host.locator("#join-text").inner_text()
        assert host.locator("#join-form").is_hidden() and host.locator("#take").is_hidden()
        assert host.locator("#invite-link").input_value() == invite
        assert host.locator("#copy-invite").is_visible()
        shot(host, "join-own.png")
        # nor by asking the server directly
        code = invite.split("?i=")[1]
        answer = host.request.post(
            f"{server.url}/api/games/{game}/join", data={"invite": code, "name": "Anna again"}
        )
        assert answer.status == 403 and answer.json()["code"] == "not-allowed", answer.text()
        assert seat_cookies(host_context, game) == cookie

        table = host.locator("#table-link")
        assert table.get_attribute("href") == f"/g/{game}"
        table.click()
        host.wait_for_url(f"{server.url}/g/{game}")
        wait_for_game(host)
        assert host.locator("#my-name").inner_text() == "Anna"

        # the invitation is still open for the friend
        friend = open_page(friend_context)
        friend.goto(invite)
        wait_join(friend, "open")
        assert friend.locator("#join-title").inner_text() == "Anna invites you to play Hanamikoji"
        assert "You start round 1." in friend.locator("#join-text").inner_text()
        # the friend who starts is the first player, unnamed (it said "Player 2")
        assert "you play as “Player 1”" in friend.locator("#name-help").inner_text()
        no_page_errors(host)
        no_page_errors(friend)
    finally:
        host_context.close()
        friend_context.close()


def test_a_crafted_seat_link_does_not_replace_the_seat_cookie(
    server: Server, context: BrowserContext, page: Page
) -> None:
    invite = create_friend_game(page, server, name="Anna")
    game = game_of_invite(invite)
    cookie = seat_cookies(context, game)
    assert len(cookie) == 1

    page.goto(f"{server.url}/g/{game}?t=WRONG")
    until(
        page,
        "() => !document.querySelector('#watching').hidden",
        why="a wrong ?t= does not say it gives no seat",
    )
    assert "no seat" in page.locator("#watching").inner_text()
    assert seat_cookies(context, game) == cookie

    page.goto(f"{server.url}/g/{game}")  # the cookie still opens the creator's seat
    wait_for_game(page)
    assert status(page) == "playing" and page.locator("#my-name").inner_text() == "Anna"
    assert seat_cookies(context, game) == cookie
    no_page_errors(page)


def test_a_seat_link_leaves_no_token_in_the_address_and_the_table_shares_the_game(
    server: Server, browser: Browser
) -> None:
    host_context, guest_context, watcher_context, device_context = (
        new_context(browser) for _ in range(4)
    )
    try:
        host_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
        host, guest = open_page(host_context), open_page(guest_context)
        invite = create_friend_game(host, server, name="Hostess")
        game = game_of_invite(invite)
        table = f"{server.url}/g/{game}"
        host.locator("#go").click()  # the seat's link, ?t= and all
        host.wait_for_url(table)
        wait_for_game(host)
        guest.goto(invite)
        wait_join(guest, "open")
        guest.locator("#name").fill("Guesto")
        guest.locator("#take").click()
        guest.wait_for_url(table)
        wait_for_game(guest)
        (token,) = seat_cookies(guest_context, game)
        assert token not in guest.url and "t=" not in guest.url
        guest.reload()  # the cookie keeps the seat
        wait_for_game(guest)
        assert guest.url == table and guest.locator("#my-name").inner_text() == "Guesto"
        assert guest.locator("#game").get_attribute("data-role") == "player"

        # the link to watch: the table's address, which anyone may open to watch
        until(host, "() => !document.querySelector('#share').hidden", why="no #share at the table")
        assert host.locator("#watch-link").input_value() == table
        assert "watch this game, not play it" in host.locator("#share").inner_text()
        host.locator("#copy-watch").click()
        until(
            host,
            "() => document.querySelector('#copy-watch').textContent === 'Copied'",
            why="the link to watch was not copied",
        )
        copied = host.evaluate("() => navigator.clipboard.readText()")
        assert copied == table
        watcher = open_page(watcher_context)
        watcher.goto(copied)
        until(
            watcher,
            "() => document.querySelector('#game').dataset.role === 'spectator'",
            why="the link to watch does not open the spectator's table",
        )
        assert watcher.locator("#watching").is_visible()
        assert watcher.locator("#share").is_hidden() and seat_cookies(watcher_context, game) == []
        assert watcher.url == table  # what a spectator copies carries no token either

        # the guest's way back from another device: the seat's private link, asked for
        assert guest.locator("#seat-link-row").is_hidden()
        guest.locator("#seat-link-box > summary").click()
        until(
            guest,
            "() => !document.querySelector('#seat-link-row').hidden",
            why="the private link never came",
        )
        assert (
            "whoever opens this link plays as you"
            in guest.locator("#seat-link-warning").inner_text()
        )
        private = guest.locator("#seat-link").input_value()
        assert private == f"{table}?t={token}"
        device = open_page(device_context)
        device.goto(private)
        device.wait_for_url(table)
        wait_for_game(device)
        assert device.locator("#my-name").inner_text() == "Guesto"
        assert device.locator("#game").get_attribute("data-role") == "player"
        for page in (host, guest, watcher, device):
            no_page_errors(page)
    finally:
        for context in (host_context, guest_context, watcher_context, device_context):
            context.close()


def test_the_invitation_page_can_try_again_after_an_error(server: Server, browser: Browser) -> None:
    host_context, friend_context = new_context(browser), new_context(browser)
    try:
        invite = create_friend_game(open_page(host_context), server, name="Anna")
        game = game_of_invite(invite)
        friend = open_page(friend_context)
        failures = {"invitation": 1, "join": 1}

        def busy(route: Any) -> None:  # the server's answers when it is busy or limited
            kind = "join" if route.request.method == "POST" else "invitation"
            if failures[kind]:
                failures[kind] -= 1
                status, code, message = (
                    (503, "busy", "the server is busy: try again in a minute")
                    if kind == "invitation"
                    else (
                        429,
                        "too-many",
                        "too many new games: at most 20 a minute from one address",
                    )
                )
                route.fulfill(
                    status=status,
                    json={"code": code, "error": message},
                    headers={"Retry-After": "12"},
                )
            else:
                route.continue_()

        friend.route(re.compile(rf"/api/games/{re.escape(game)}/(invitation|join)"), busy)
        friend.goto(invite)
        wait_join(friend, "error")
        error = friend.locator("#error")
        assert error.get_attribute("role") == "alert"
        assert error.inner_text() == (
            "The invitation could not be loaded. The server is busy: try again in a minute."
        )
        assert friend.locator("#join-form").is_hidden()
        friend.locator("#retry").click()
        wait_join(friend, "open")
        assert error.is_hidden() and friend.locator("#retry").is_hidden()

        friend.locator("#name").fill("Bob")
        friend.locator("#take").click()
        until(
            friend,
            "() => !document.querySelector('#error').hidden",
            why="a 429 on taking the seat shows no error",
        )
        assert error.inner_text() == (
            "The seat could not be taken. Too many new games: at most 20 a minute from one address."
        )
        assert join_state(friend) == "open" and friend.locator("#take").is_enabled()
        assert seat_cookies(friend_context, game) == []
        friend.locator("#take").click()  # again: now the server answers
        friend.wait_for_url(f"{server.url}/g/{game}")
        wait_for_game(friend)
        assert friend.locator("#my-name").inner_text() == "Bob"
        no_page_errors(friend)
    finally:
        host_context.close()
        friend_context.close()


def test_the_home_page_says_why_a_game_was_not_created(server: Server, page: Page) -> None:
    answers = [
        (
            429,
            "too-many",
            "too many new games: at most 20 a minute from one address; try again in 12 s",
        ),
        (
            503,
            "busy",
            "the server is busy: too many games are waiting for the AI; try again in a minute",
        ),
    ]

    def refuse(route: Any) -> None:
        if route.request.method != "POST" or not answers:
            route.continue_()
            return
        status, code, message = answers.pop(0)
        route.fulfill(status=status, json={"code": code, "error": message})

    page.route(re.compile(r"/api/games$"), refuse)
    page.goto(f"{server.url}/")
    page.locator("#invite").click()
    until(page, "() => !document.querySelector('#error').hidden", why="a 429 shows no #error")
    assert error_text(page) == (
        "The game could not be created. Too many new games: at most 20 a minute from one "
        "address; try again in 12 s."
    )
    page.locator("#start-ai").click()
    until(
        page,
        "() => document.querySelector('#error').textContent.includes('busy')",
        why="a 503 shows no #error",
    )
    assert (
        error_text(page)
        == "The game could not be created. The server is busy: try again in a minute."
    )
    page.locator("#invite").click()  # and the third time it works
    page.locator("#invite-link").wait_for()
    assert error_text(page) == ""
    no_page_errors(page)


def test_a_wrong_invitation_link_is_not_valid(server: Server, page: Page) -> None:
    invite = create_friend_game(page, server, name="Anna")
    game = game_of_invite(invite)
    for link in (
        f"{server.url}/join/{game}?i=WRONG",
        f"{server.url}/join/{game}",
        f"{server.url}/join/nosuchgame?i=WRONG",
    ):
        page.goto(link)
        wait_join(page, "invalid")
        assert page.locator("#join-title").inner_text() == "This invitation link is not valid"
        assert page.locator("#join-form").is_hidden()
        assert page.locator("#home-link").is_visible()
    no_page_errors(page)


def test_a_reload_mid_game_brings_the_same_table_back(server: Server, page: Page) -> None:
    start_ai_game(page, server, seat="0")
    rng = random.Random(3)
    for _ in range(4):
        wait_for_my_turn(page)
        assert not game_over(page)
        make_move(page, rng.choice(legal(page)))
    wait_for_my_turn(page)
    before = (legal(page), hand(page), history_length(page), log_length(page))
    assert before[0] and before[2] >= 4

    page.reload()
    wait_for_game(page)
    until(
        page,
        "n => Number(document.querySelector('#game').dataset.history) >= n",
        before[2],
        why=f"after the reload, the history never had the {before[2]} entries again",
    )
    wait_for_my_turn(page)
    assert (legal(page), hand(page), history_length(page), log_length(page)) == before

    # and the game goes on (the round ends after 6 decisions of each side: it may end the game)
    make_move(page, rng.choice(legal(page)))
    assert history_length(page) > before[2]
    wait_for_my_turn(page)
    if not game_over(page):
        make_move(page, rng.choice(legal(page)))
    no_page_errors(page)


def test_a_seat_opened_in_too_many_windows_closes_the_oldest_for_good(
    server: Server, context: BrowserContext, page: Page
) -> None:
    start_ai_game(page, server, seat="0")
    url = f"{server.url}/g/{game_id(page)}"
    newer = []
    for _ in range(8):  # the server keeps 8 windows of a seat: the ninth closes the first
        window = open_page(context)
        window.goto(url)
        wait_for_game(window)
        newer.append(window)
    until(
        page,
        "() => !document.querySelector('#error').hidden",
        why="the oldest window does not say it was closed",
    )
    assert "too many windows" in error_text(page)
    page.wait_for_timeout(3_000)  # it does not come back (and close another window in turn)
    assert "too many windows" in error_text(page)
    for window in newer:
        assert error_text(window) == "" and window.locator("#conn").is_hidden()
        no_page_errors(window)
    no_page_errors(page)


ENGLISH_MOVE = re.compile(
    r"(Secret|Discard|Gift): (\d(?:, \d)*)|Competition: (\d)\+(\d) \| (\d)\+(\d)|Take (\d(?:\+\d)?)"
)


def test_a_scoring_interrupted_by_a_reload_is_shown_again(server: Server, page: Page) -> None:
    start_ai_game(page, server, seat="0")
    rng = random.Random(21)
    scoring = page.locator("#scoring-continue")
    for _ in range(40):  # round 1 has at most 12 decisions of this seat
        deadline = time.monotonic() + AI_TIMEOUT_MS / 1000
        while not (scoring.is_visible() or my_decision(page) or game_over(page)):
            assert time.monotonic() < deadline, "neither a decision nor a scoring came"
            page.wait_for_timeout(50)
        if scoring.is_visible():
            break
        make_move(page, rng.choice(legal(page)))
    assert scoring.is_visible(), "round 1 ended without its scoring being shown"
    page.reload()
    wait_for_game(page)
    page.locator("#scoring-continue").wait_for(state="visible", timeout=10_000)
    assert dismiss_scoring(page)
    page.reload()  # now it was watched to the end: not shown a third time
    wait_for_game(page)
    page.wait_for_timeout(1_500)
    assert not page.locator("#scoring-continue").is_visible()


def moves_named(text: str) -> list[str]:
    """The moves an English text names ("Gift: 1, 4, 7" is G147, "Take 4+7" is P47)."""
    found = []
    for m in ENGLISH_MOVE.finditer(text):
        if m.group(1):
            found.append(m.group(1)[0] + "".join(sorted(m.group(2).replace(", ", ""))))
        elif m.group(3):
            pairs = sorted(["".join(sorted(m.group(3, 4))), "".join(sorted(m.group(5, 6)))])
            found.append(f"C{pairs[0]}-{pairs[1]}")
        else:
            found.append("P" + "".join(sorted(m.group(7).replace("+", ""))))
    return found


def test_hint_and_undo_against_the_ai(server: Server, page: Page) -> None:
    start_ai_game(page, server, seat="0")
    wait_for_my_turn(page)
    moves = legal(page)
    page.locator("#hint").click()
    hint = page.locator("#hint-text")
    hint.wait_for()
    until(
        page,
        "() => /\\d/.test(document.querySelector('#hint-text').textContent)",
        why="#hint-text never showed a suggestion",
        timeout=AI_TIMEOUT_MS,
    )
    named = moves_named(hint.inner_text())
    assert named, f"the hint names no move: {hint.inner_text()!r}"
    assert set(named) <= set(moves), (named, moves)

    before = (legal(page), hand(page))
    secrets = [m for m in before[0] if m[0] == "S"]
    make_move(page, random.Random(4).choice(secrets))  # the AI answers with its own action
    wait_for_my_turn(page)
    assert not game_over(page)
    assert (legal(page), hand(page)) != before
    undo = page.locator("#undo")
    until(page, "() => !document.querySelector('#undo').disabled", why="#undo stays disabled")
    undo.click()
    until(
        page,
        "([legal, hand]) => document.querySelector('#game').dataset.legal === legal &&"
        " [...document.querySelectorAll('#hand button.card')].map(c => c.dataset.card).join('')"
        " === hand",
        [" ".join(before[0]), "".join(before[1])],
        why=f"after #undo the table is not as before the move: {before}",
    )
    assert (legal(page), hand(page)) == before
    assert to_move(page) == "me"
    # said, not only seen in a shorter move list
    assert "Your last move was taken back" in page.locator("#status").inner_text()
    make_move(page, legal(page)[0])  # and no more once the game moves on
    until(
        page,
        "() => !/taken back/.test(document.querySelector('#status').textContent)",
        why="the undo is still said after the next move",
    )
    no_page_errors(page)


def test_keyboard_reaches_cards_and_actions_and_toggles_cards(server: Server, page: Page) -> None:
    start_ai_game(page, server, seat="0")
    wait_for_my_turn(page)
    describe = (
        "() => { const e = document.activeElement;"
        " if (e.matches('#hand button.card')) return 'card';"
        " if (e.matches('button[data-action]')) return 'action:' + e.dataset.action;"
        " return e.tagName + (e.id ? '#' + e.id : ''); }"
    )
    page.locator("body").click(position={"x": 2, "y": 2})
    reached: list[str] = []
    for _ in range(60):
        page.keyboard.press("Tab")
        reached.append(page.evaluate(describe))
        if "card" in reached and any(r.startswith("action:") for r in reached):
            break
    assert "card" in reached, f"Tab never reached a card of #hand: {reached}"
    assert any(r.startswith("action:") for r in reached), f"Tab never reached an action: {reached}"

    # back to the first card, by keyboard only
    for _ in range(60):
        if page.evaluate(describe) == "card":
            break
        page.keyboard.press("Shift+Tab")
    assert page.evaluate(describe) == "card"
    pressed = "want => document.activeElement.getAttribute('aria-pressed') === want"
    assert page.evaluate(pressed, "false")
    page.keyboard.press("Enter")
    until(
        page,
        pressed,
        "true",
        why="Enter on a focused card did not select it (or the focus left it)",
    )
    assert page.evaluate(describe) == "card", "the focus left the card after Enter"
    page.keyboard.press("Space")
    until(page, pressed, "false", why="Space on a selected card did not deselect it")
    assert page.evaluate(describe) == "card", "the focus left the card after Space"
    page.keyboard.press("Space")
    until(page, pressed, "true", why="Space on a focused card did not select it")
    assert page.locator('#hand button.card[aria-pressed="true"]').count() == 1
    no_page_errors(page)


def test_the_language_can_be_switched_and_is_kept(server: Server, page: Page) -> None:
    languages = "() => document.querySelector('select#lang')?.options.length >= 4"
    page.goto(f"{server.url}/rules")
    until(page, languages, why="the rules page has no select#lang with 4 languages")
    shot(page, "rules.png")
    page.goto(f"{server.url}/")
    until(page, languages, why="the home page has no select#lang with 4 languages")
    start = page.locator("#start-ai")
    assert page.locator("html").get_attribute("lang") == "en"
    text = "e => e.textContent.trim()"
    texts = {"en": start.evaluate(text)}
    for code in ("ru", "cs", "fr"):
        page.locator("#lang").select_option(code)
        until(page, LANG, code, why=f"choosing {code} does not set <html lang>")
        until(
            page,
            "old => !old.includes(document.querySelector('#start-ai').textContent.trim())",
            list(texts.values()),
            why=f"choosing {code} does not translate #start-ai",
        )
        texts[code] = start.evaluate(text)
    assert len(set(texts.values())) == 4, texts

    page.reload()
    until(page, LANG, "fr", why="after a reload the language is no longer fr")
    until(
        page,
        "fr => document.querySelector('#start-ai').textContent.trim() === fr",
        texts["fr"],
        why="after a reload #start-ai is no longer in French",
    )
    assert page.locator("#lang").input_value() == "fr"
    page.goto(f"{server.url}/rules")  # and on the other pages
    until(page, LANG, "fr", why="the rules page does not keep the chosen language")
    assert page.locator("#lang").input_value() == "fr"
    no_page_errors(page)


def test_a_name_cleared_on_the_invitation_page_is_no_name(server: Server, browser: Browser) -> None:
    """The field came filled with the name this browser remembered; the friend cleared it (the
    help says "Left empty, you play as 'Player 2'") and still joined under the old name."""
    host_context, friend_context = new_context(browser), new_context(browser)
    try:
        host = open_page(host_context)
        invite = create_friend_game(host, server, name="Anna")
        friend_context.add_init_script("localStorage.setItem('hanamikoji.name', 'Alice')")
        friend = open_page(friend_context)
        friend.goto(f"{server.url}/")  # a guest who once played as Alice: the server keeps it
        said = friend.request.post(f"{server.url}/api/me", data={"name": "Alice"})
        assert said.ok, said.text()
        friend.goto(invite)
        wait_join(friend, "open")
        assert friend.locator("#name").input_value() == "Alice"
        friend.locator("#name").fill("")
        friend.locator("#take").click()
        friend.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(friend)
        assert friend.locator("#my-name").inner_text() == "Player 2"
        no_page_errors(friend)
    finally:
        host_context.close()
        friend_context.close()
