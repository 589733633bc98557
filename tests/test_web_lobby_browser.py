"""The lobby and the clocks in the browser, with two browser profiles: two strangers find each
other with "Play someone now" and play a timed game; a short clock runs out and the right player
loses (the red low time, its announcement, the result's words, the record's forfeit).

The server runs tests/clock_serve.py: its 1+0 games give each seat a few seconds.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from browser_support import (
    PHONE,
    game_id,
    legal,
    make_move,
    my_decision,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    record_of,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from clock_serve import command
from test_web_a11y import Findings
from web_support import Server, sqlite_url

SHORT_MS = 10_000
"""Each seat's time in this server's 1+0 games."""

CLOCKS = "() => document.querySelectorAll('#scorebar .clock[data-clock-seat]').length === 2"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """This module's own server: short 1+0 clocks (the other time controls as usual)."""
    db = sqlite_url(tmp_path_factory.mktemp("web-lobby") / "games.sqlite3")
    srv = Server(db, args=["--games-per-minute", "0"], command=command(SHORT_MS))
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


def open_lobby(page: Page, server: Server) -> None:
    page.goto(f"{server.url}/lobby")
    until(page, "() => document.querySelector('#lobby').dataset.conn === 'open'", why="no lobby")


def clock_ms(page: Page, seat: int) -> int:
    return int(
        page.locator(f'#scorebar .clock[data-clock-seat="{seat}"]').get_attribute("data-ms") or -1
    )


def test_two_strangers_meet_in_the_lobby_and_play_a_timed_game(
    browser: Browser, server: Server
) -> None:
    rng = random.Random(23)
    findings = Findings()
    anna_ctx, bob_ctx = new_context(browser), new_context(browser, viewport=PHONE, is_mobile=True)
    try:
        anna, bob = open_page(anna_ctx), open_page(bob_ctx)
        open_lobby(anna, server)
        anna.locator("#control").select_option("3+2")
        anna.locator("#play-now").click()
        until(anna, "() => !document.querySelector('#lobby-waiting').hidden", why="not waiting")
        assert "3 min + 2 s" in anna.locator("#lobby-waiting-text").inner_text()
        shot(anna, "lobby-waiting.png")
        findings.check(anna, "lobby: waiting for an opponent", ("1366x768",))

        open_lobby(bob, server)
        row = bob.locator("#challenges li.challenge")
        until(bob, "() => document.querySelectorAll('#challenges li').length === 1", why="no row")
        assert "3 min + 2 s" in row.inner_text() and "casual" in row.inner_text()
        # a guest who typed no name: their seat's name, still to be drawn; a new player's rating
        assert row.locator(".challenge-who").inner_text() == "Player 1 or 2 guest (1500?)"
        assert row.locator("button").inner_text() == "Accept"
        no_horizontal_scroll(bob)
        shot(bob, "lobby-phone.png")
        findings.check(bob, "lobby: a challenge to accept", ("390x844",))

        bob.locator("#control").select_option("3+2")
        bob.locator("#play-now").click()  # paired with Anna, the longest waiting
        for page in (anna, bob):
            page.wait_for_url(re.compile(r"/g/[^/?#]+"))
            wait_for_game(page)
            until(page, CLOCKS, why="no clocks on the table")
        assert game_id(anna) == game_id(bob)
        # the table says the game's clock and that it is casual, as the lobby did
        for page in (anna, bob):
            kind = page.locator("#round .game-kind").inner_text().strip()
            assert kind == "· 3 min + 2 s · casual", kind
        first = anna if my_decision(anna) else bob
        for _ in range(4):  # a few decisions, by clicks, whoever's turn it is
            mover = next(p for p in (anna, bob) if my_decision(p))
            make_move(mover, rng.choice(legal(mover)))
            other = bob if mover is anna else anna
            wait_for_my_turn(other if not my_decision(mover) else mover)
        seat = 0 if first is anna else 1
        # Each clock shows the server's time: the running one counts down, the other stands.
        running = anna.locator("#scorebar .clock.running")
        assert running.count() == 1
        before = int(running.get_attribute("data-ms") or 0)
        anna.wait_for_timeout(1_100)
        assert before - 1_400 < int(running.get_attribute("data-ms") or 0) < before - 800
        assert 170_000 < clock_ms(anna, seat) <= 184_000  # charged, and 2 s a decision back
        label = anna.locator("#my-standing .clock").get_attribute("aria-label") or ""
        assert label.startswith("Your clock: ")
        shot(anna, "lobby-game-clocks.png", full_page=False)
        findings.check(anna, "table: the clocks", ("1280x720",))
        shot(bob, "lobby-game-clocks-phone.png", full_page=False)
        anna.goto(f"{server.url}/")  # the game is on the home page, with its clock
        row = anna.locator(f'#mine-on li[data-game="{game_id(bob)}"]')
        until(anna, "() => !document.querySelector('#mine').hidden", why="no list of games")
        assert "3 min + 2 s" in row.inner_text() and "left" in row.inner_text()
        # Anna resigns and asks for a rematch: Bob is offered it at his table, not by a link,
        # and Anna's table waits for him by name.
        anna.goto(f"{server.url}/g/{game_id(bob)}")
        wait_for_game(anna)
        anna.locator("#resign").click()
        anna.locator("#resign-yes").click()
        anna.locator("#rematch").click()
        anna.wait_for_url(lambda url: "/g/" in url and f"/g/{game_id(bob)}" not in url)
        wait_for_game(anna)
        until(
            anna,
            "() => /Waiting for .+ to join/.test(document.querySelector('#status').innerText)",
            why="the rematch's table does not wait for the other player by name",
        )
        assert "open the link" not in anna.locator("#status").inner_text()
        for page in (anna, bob):
            no_page_errors(page)
        findings.assert_clean()
    finally:
        anna_ctx.close()
        bob_ctx.close()


def test_a_short_clock_runs_out_and_the_right_player_loses(
    browser: Browser, server: Server
) -> None:
    anna_ctx, bob_ctx = new_context(browser), new_context(browser)
    try:
        anna, bob = open_page(anna_ctx), open_page(bob_ctx)
        open_lobby(anna, server)
        made = anna.evaluate(  # 1+0 is not among the page's choices: made as a program would
            """body => fetch('/api/lobby/challenges', {method: 'POST', body,
                 headers: {'Content-Type': 'application/json'}}).then(r => r.status)""",
            '{"control": "1+0", "seat": 0, "rated": true}',
        )
        assert made == 201
        until(anna, "() => document.querySelector('#lobby').dataset.waiting", why="not waiting")
        open_lobby(bob, server)
        until(bob, "() => document.querySelectorAll('#challenges li').length === 1", why="no row")
        assert "rated" in bob.locator("#challenges li").inner_text()
        bob.locator("#challenges li button").click()
        for page in (anna, bob):
            page.wait_for_url(re.compile(r"/g/[^/?#]+"))
            wait_for_game(page)
            until(page, CLOCKS, why="no clocks on the table")
        wait_for_my_turn(anna)
        make_move(anna, legal(anna)[0])  # Anna moves; Bob never does
        until(bob, "() => document.querySelector('#my-standing .clock.low')", why="no low time")
        until(
            bob,
            "() => document.querySelector('#clock-alert').textContent.includes('20 seconds')",
            why="the low time was not announced",
        )
        shot(bob, "clock-low.png", full_page=False)
        for page, winner in ((bob, "opponent"), (anna, "me")):
            until(
                page,
                "() => !document.querySelector('#result').hidden",
                why="no result",
                timeout=SHORT_MS + 10_000,
            )
            assert page.locator("#result").get_attribute("data-winner") == winner
        assert bob.locator("#result-reason").inner_text() == "You ran out of time."
        assert "ran out of time" in anna.locator("#result-reason").inner_text()
        assert bob.locator("#my-standing .clock").inner_text() == "0:00.0"
        shot(bob, "clock-out-of-time.png", full_page=False)
        record = record_of(bob, server, game_id(bob))
        assert record.result is not None
        assert record.result.why == "seat 1 ran out of time (1+0 clock)"
        for page in (anna, bob):
            no_page_errors(page)
    finally:
        anna_ctx.close()
        bob_ctx.close()


def test_a_started_game_is_followed_by_the_tab_that_waited_and_by_no_other(
    browser: Browser, server: Server
) -> None:
    """A tab that waited on its challenge and was away when it was taken finds its game; every
    other visit of the lobby stays in the lobby (for a minute after a game started, the creator's
    and the acceptor's lobbies, reloaded or new, were sent back to that game)."""
    anna_ctx, bob_ctx = new_context(browser), new_context(browser)
    try:
        anna, bob = open_page(anna_ctx), open_page(bob_ctx)
        open_lobby(anna, server)
        made = anna.evaluate(
            """body => fetch('/api/lobby/challenges', {method: 'POST', body,
                 headers: {'Content-Type': 'application/json'}}).then(r => r.json())""",
            '{"control": "1d", "seat": 0}',
        )
        until(anna, "() => document.querySelector('#lobby').dataset.waiting", why="not waiting")
        anna.goto("about:blank")  # the waiting tab away (a reload) while the challenge is taken
        open_lobby(bob, server)
        until(bob, "() => document.querySelectorAll('#challenges li').length === 1", why="no row")
        bob.locator("#challenges li button").click()
        bob.wait_for_url(re.compile(r"/g/[^/?#]+"))
        game = game_id(bob)
        anna.goto(f"{server.url}/lobby")  # the tab that waited: to its game
        anna.wait_for_url(re.compile(rf"/g/{game}"))
        wait_for_game(anna)
        for page in (bob, anna, open_page(anna_ctx)):  # no other visit, the acceptor's neither
            open_lobby(page, server)
            page.wait_for_timeout(1_000)  # (the lobby's first message has come: no start in it)
            assert page.url == f"{server.url}/lobby", page.url
        assert made["challenge"]["id"]
        no_page_errors(bob)
    finally:
        anna_ctx.close()
        bob_ctx.close()


def test_the_name_typed_on_the_home_page_goes_to_the_lobby(
    browser: Browser, server: Server
) -> None:
    """A guest typed a name on the home page ("Your opponent sees this name") and went to the
    lobby from there: the opponent saw "Player 1". The name is kept on the way; one refused
    keeps the visitor on the page, saying why."""
    context = new_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        page.locator("#name").fill("@bob")  # an account's mark: refused
        page.locator("#lobby-link").click()
        until(page, "() => !document.querySelector('#error').hidden", why="no error")
        assert "Your name was not kept" in page.locator("#error").inner_text()
        assert page.url == f"{server.url}/"
        page.locator("#name").fill("Sakura")
        page.locator("#lobby-link").click()
        page.wait_for_url(f"{server.url}/lobby")
        assert page.request.get(f"{server.url}/api/me").json()["name"] == "Sakura"
        no_page_errors(page)
    finally:
        context.close()
