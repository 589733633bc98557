"""Ratings and correspondence in the browser, two browser profiles: a rated correspondence game
survives a browser closing (signed in again, it is on the home page) and, resigned, moves both
players' ratings, shown on their profiles with the history's plot; the leaderboard page; a rated
3+2 game against the beginner started from the home page (no hint, no undo; on a phone each
standing one line and the prompt that repeats the status left out), resigned, its rating change in
the result and on the profile.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Page

from browser_support import (
    DESKTOP,
    PHONE,
    game_id,
    new_context,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from hanamikoji.glicko2 import Rating, update
from hanamikoji.web.ratings import AI_RATINGS
from web_support import Server

PASSWORD = "correct horse 7"


def api(page: Page, method: str, path: str, body: Any = None) -> Any:
    """A request from the page itself (same origin, its cookies): the status and the JSON."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const r = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                         body: body === null ? undefined : JSON.stringify(body)});
            return [r.status, await r.json()];
        }""",
        [method, path, body],
    )


def signed_up(page: Page, server: Server, name: str) -> None:
    page.goto(f"{server.url}/")
    status, body = api(page, "POST", "/api/account", {"username": name, "password": PASSWORD})
    assert status == 201, body


def test_a_correspondence_game_survives_the_browser_and_moves_both_ratings(
    browser: Browser, server: Server
) -> None:
    anna_ctx, bob_ctx = new_context(browser), new_context(browser)
    try:
        anna, bob = open_page(anna_ctx), open_page(bob_ctx)
        signed_up(anna, server, "anna_r")
        signed_up(bob, server, "bob_r")
        status, made = api(
            anna, "POST", "/api/lobby/challenges", {"control": "1d", "rated": True, "seat": 0}
        )
        assert status == 201, made
        status, taken = api(
            bob, "POST", f"/api/lobby/challenges/{made['challenge']['id']}/accept", {}
        )
        assert status == 201, taken
        game = taken["game"]
        anna.goto(f"{server.url}/g/{game}")
        until(anna, "() => document.querySelectorAll('#hand .card').length > 0", why="no hand")
        # a day's clocks in one kind of words: the running one "23 h 59 min", not "23:59:56"
        until(anna, "() => document.querySelectorAll('[data-clock-seat]').length === 2", why="")
        assert anna.locator("#my-standing .clock").inner_text() == "23 h 59 min"
        assert anna.locator("#opp-standing .clock").inner_text() == "1 d 0 h"
        anna_ctx.close()  # the browser closes: its cookies and tabs are gone

        anna_ctx = new_context(browser)
        anna = open_page(anna_ctx)
        anna.goto(f"{server.url}/")
        status, body = api(
            anna, "POST", "/api/account/signin", {"username": "anna_r", "password": PASSWORD}
        )
        assert status == 200, body
        anna.goto(f"{server.url}/")
        row = anna.locator(f'#mine-on li[data-game="{game}"]')
        until(anna, "() => !document.querySelector('#mine').hidden", why="no list of games")
        assert row.count() == 1  # the game is on the home page again
        shot(anna, "ratings-correspondence-home.png")

        bob.goto(f"{server.url}/g/{game}?t={taken['token']}")
        until(bob, "() => !document.querySelector('#resign').disabled", why="no resign button")
        bob.locator("#resign").click()
        bob.locator("#resign-yes").click()
        until(bob, "() => document.body.textContent.includes('resign')", why="no result")

        anna.goto(f"{server.url}/@/anna_r")
        until(anna, "() => document.querySelector('#profile-ratings li') !== null", why="no rating")
        text = anna.locator("#profile-ratings").inner_text()
        assert "Correspondence" in text and "1662?" in text  # a new player's first win
        assert anna.locator("svg.rating-plot[data-family='correspondence'] circle").count() == 1
        assert anna.locator("#profile-username").inner_text() == "user name @anna_r"
        assert (
            anna.locator(f'#profile-games li[data-game="{game}"] a.btn').get_attribute("href")
            == f"/review/{game}"
        )
        shot(anna, "ratings-profile.png")
        no_page_errors(anna)

        bob.goto(f"{server.url}/@/BOB_R")
        until(bob, "() => document.querySelector('#profile-ratings li') !== null", why="no rating")
        assert "1338?" in bob.locator("#profile-ratings").inner_text()

        bob.goto(f"{server.url}/leaders")
        until(
            bob,
            "() => document.querySelectorAll('#leaders-ai li').length === 5",
            why="no AI levels",
        )
        assert "1500" in bob.locator("#leaders-ai li[data-level='medium']").inner_text()
        assert bob.locator("#leaders-boards section").count() == 2
        shot(bob, "ratings-leaders.png")
        no_page_errors(bob)
    finally:
        anna_ctx.close()
        bob_ctx.close()


def test_a_rated_timed_game_against_the_ai_from_the_home_page(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    try:
        page = open_page(context)
        signed_up(page, server, "cleo_ai")
        page.goto(f"{server.url}/")
        rated = page.locator("#ai-rated")
        until(
            page,
            "() => document.querySelector('#ai-control option').textContent !== 'none'",
            why="no words",
        )
        assert rated.is_disabled()  # untimed (the default): never rated
        page.locator("#level").select_option("beginner")
        page.locator("#seat").select_option("0")
        page.locator("#ai-control").select_option("3+2")
        assert rated.is_enabled()
        rated.check()
        shot(page, "home-rated-ai.png")
        page.locator("#start-ai").click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(page)
        game = game_id(page)
        until(
            page,
            "() => document.querySelectorAll('[data-clock-seat]').length === 2",
            why="no clocks",
        )
        assert page.locator("#hint").is_hidden() and page.locator("#undo").is_hidden()
        shot(page, "table-rated-ai.png")
        # the player's turn on a laptop: the status says so, the prompt under the actions too
        wait_for_my_turn(page)
        assert page.locator("#choices .prompt").is_visible()
        # on a phone each standing (name, mark, clock, who starts, charm, geisha) is one line,
        # as tall as the other's, and the prompt that only repeats the status is left out
        page.set_viewport_size(PHONE)
        heights = [page.locator(f"#{w}-standing").bounding_box() for w in ("my", "opp")]
        assert heights[0] and heights[1] and heights[0]["height"] == heights[1]["height"], heights
        assert page.locator("#my-standing .first-tag").count() == 1
        assert page.locator("#status .now").is_visible()
        assert page.locator("#choices .prompt").is_hidden()
        page.locator("#hand button.card").first.click()  # what the prompt adds shows
        until(page, "() => document.querySelector('#choices .prompt').offsetParent", why="hidden")
        page.locator("#hand button.card").first.click()
        shot(page, "table-rated-ai-390.png", full_page=False)
        page.set_viewport_size(DESKTOP)
        until(page, "() => !document.querySelector('#resign').disabled", why="no resign button")
        page.locator("#resign").click()
        page.locator("#resign-yes").click()
        until(
            page, "() => document.querySelector('#game').dataset.status === 'over'", why="not over"
        )
        expected = update(Rating(), [(AI_RATINGS["beginner"], 0.0)], periods=0)
        # the result says what the game did to the player's rating (the AI's never moves)
        after = round(expected.rating)
        until(page, "() => !document.querySelector('#result-rating').hidden", why="no change")
        said = page.locator("#result-rating").inner_text()
        assert said == f"Your rating: 1500 \u2192 {after}? (\u2212{1500 - after})", said
        shot(page, "result-rated-ai.png")
        no_page_errors(page)

        page.goto(f"{server.url}/@/cleo_ai")
        until(page, "() => document.querySelector('#profile-ratings li') !== null", why="no rating")
        assert f"{round(expected.rating)}?" in page.locator("#profile-ratings").inner_text()
        row = page.locator(f'#profile-games li[data-game="{game}"]')
        assert row.count() == 1
        # the game's row says what it did to the rating, and when it was played
        text = row.locator(".mine-what").inner_text()
        assert f"rated \u2212{1500 - after}" in text, text
        # the opponent and the clock in words, as on the home page (they were "beginner", "3+2")
        assert text.startswith("against AI (Beginner) · 3 min + 2 s · "), text
        assert re.search(r" · [A-Z][a-z]{2} \d{1,2}, \d{4}$", text), text  # "Dec 6, 2026"
        # one rated game is a line from 1500, not a lone dot
        points = page.locator("svg.rating-plot polyline").get_attribute("points") or ""
        assert len(points.split()) == 2
        assert page.locator("svg.rating-plot circle").count() == 1
        shot(page, "profile-rated-ai.png")
        no_page_errors(page)
    finally:
        context.close()


def test_a_profile_that_does_not_exist_and_a_house_bots_fixed_rating(
    server: Server, browser: Browser
) -> None:
    context = new_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/@/nobody_here")
        until(page, "() => !document.querySelector('#profile-error').hidden", why="no error")
        assert "no player" in page.locator("#profile-error").inner_text()
        assert page.locator("#profile-name").inner_text() == "@nobody_here"
        assert page.locator("#profile-body").is_hidden()  # no ratings, plots nor games of nobody
        page.goto(f"{server.url}/@/%E0%A4")  # a malformed escape: the same, not a broken page
        until(page, "() => !document.querySelector('#profile-error').hidden", why="no error")
        assert page.locator("#profile-body").is_hidden()
        # A house bot's rating is its level's, fixed: no history to plot, nothing provisional.
        page.goto(f"{server.url}/@/AI-easy")
        until(page, "() => document.querySelector('#profile-ratings li') !== null", why="none")
        fixed = str(round(AI_RATINGS["easy"].rating))
        assert fixed in page.locator("#profile-ratings").inner_text()
        assert page.locator("#profile-plots svg").count() == 0
        assert page.locator("#profile-history-title").is_hidden()
        assert page.locator("#profile-provisional-help").is_hidden()
        no_page_errors(page)
    finally:
        context.close()
