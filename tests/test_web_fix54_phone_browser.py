"""Preferences kept as chosen, and the table and the review on a phone (Playwright, Chromium).

- Choosing one preference (the AI's level on the home page) keeps that one alone: a default the
  page derives from the system (the "instant" pace of reduced motion) is not stored as if chosen,
  and follows the system when it changes.
- A phone on its side (740x360): the review opens with the board's geisha in view.
- A phone upright (360x740): the guide opened lies over the top of the page, the board in view
  above the pinned hand; folded again, the board's foot is above the hand.
- A phone upright, an untimed game: the page's own scroll as a decision comes never leaves a
  line of the score bar (the opponent's standing) cut in half at the screen's top.

Screenshots: ``test-output/screenshots/fix54-*.png``.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    game_over,
    legal,
    make_move,
    new_context,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from web_support import Server

UPRIGHT: ViewportSize = {"width": 360, "height": 740}
ON_ITS_SIDE: ViewportSize = {"width": 740, "height": 360}

PLACES_JS = """() => {
  const box = (s) => {
    const e = document.querySelector(s);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom };
  };
  const geisha = [...document.querySelectorAll('#board .geisha-card')]
    .map((g) => g.getBoundingClientRect());
  return {
    vh: innerHeight, sy: scrollY,
    board: box('#board'), dock: box('.my-area'), guide: box('#guide'),
    lines: ['#round', '#opp-standing', '#my-standing'].map(box),
    geishaTop: Math.min(...geisha.map((g) => g.top)),
    geishaBottom: Math.max(...geisha.map((g) => g.bottom)),
  };
}"""


def places(page: Page) -> dict[str, Any]:
    seen: dict[str, Any] = page.evaluate(PLACES_JS)
    return seen


def settle(page: Page) -> None:
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 80)))")


def ai_game(browser: Browser, server: Server, size: ViewportSize) -> Page:
    context = new_context(browser, viewport=size)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "control": "none"},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    return page


def test_a_chosen_preference_is_stored_alone(server: Server, browser: Browser) -> None:
    context = new_context(browser, reduced_motion="reduce")
    page = open_page(context)
    try:
        page.goto(f"{server.url}/")
        page.locator("#level").select_option("hard")
        stored = json.loads(page.evaluate("() => localStorage.getItem('hanamikoji.prefs')"))
        assert stored == {"level": "hard"}, f"more than the level chosen was stored: {stored}"
        page.locator("#level").select_option("easy")
        stored = json.loads(page.evaluate("() => localStorage.getItem('hanamikoji.prefs')"))
        assert stored == {"level": "easy"}, stored
        # the system no longer asks for less motion: the pace is the usual one again
        page.emulate_media(reduced_motion="no-preference")
        page.reload()
        pace = page.evaluate("async () => (await import('/static/js/prefs.js')).prefs().pace")
        assert pace == "normal", f"the reduced motion's pace stuck: {pace}"
        no_page_errors(page)
    finally:
        context.close()


def test_the_review_on_a_phone_on_its_side_opens_with_the_board_in_view(
    server: Server, browser: Browser
) -> None:
    page = ai_game(browser, server, ON_ITS_SIDE)
    try:
        wait_for_my_turn(page)
        page.locator("#resign").click()
        page.locator("#resign-yes").click()
        until(page, "() => !document.querySelector('#result').hidden", why="no result")
        game = re.search(r"/g/([^/?#]+)", page.url)
        assert game
        page.goto(f"{server.url}/review/{game.group(1)}")
        until(page, "() => document.querySelector('#board .geisha-card')", why="no board")
        settle(page)
        shot(page, "fix54-review-740x360.png", full_page=False)
        seen = places(page)
        assert seen["sy"] == 0, seen
        assert seen["geishaTop"] >= 0 and seen["geishaBottom"] <= seen["vh"], (
            f"the geisha are not in view as the review opens: {seen}"
        )
        no_page_errors(page)
    finally:
        page.context.close()


def test_the_guide_opened_on_a_phone_leaves_the_board_in_view(
    server: Server, browser: Browser
) -> None:
    context = new_context(browser, viewport=UPRIGHT)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    try:
        page.goto(f"{server.url}/")
        page.locator("#start-guided").click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(page)
        wait_for_my_turn(page)
        settle(page)
        assert page.locator("#guide.folded").count() == 1
        page.locator("#guide-fold").click()
        settle(page)
        shot(page, "fix54-guide-open-360x740.png", full_page=False)
        seen = places(page)
        assert page.locator("#guide-text").is_visible()
        assert seen["board"]["top"] >= 0, f"the board's head is above the screen: {seen}"
        assert seen["board"]["bottom"] <= seen["dock"]["top"] + 1, (
            f"the opened guide pushed the board under the hand: {seen}"
        )
        assert seen["guide"]["bottom"] <= seen["board"]["top"] + 1, (
            f"the guide lies over the board: {seen}"
        )
        page.locator("#guide-fold").click()
        settle(page)
        shot(page, "fix54-guide-folded-360x740.png", full_page=False)
        seen = places(page)
        assert seen["board"]["bottom"] <= seen["dock"]["top"] + 1, seen
        assert seen["board"]["top"] >= 0, seen
        no_page_errors(page)
    finally:
        context.close()


def test_no_line_of_the_score_bar_is_cut_at_the_top_of_a_phone(
    server: Server, browser: Browser
) -> None:
    page = ai_game(browser, server, UPRIGHT)
    try:
        rng = random.Random(4)
        for turn in range(8):
            wait_for_my_turn(page)
            if game_over(page):
                break
            settle(page)
            seen = places(page)
            if turn < 3:
                shot(page, f"fix54-untimed-360x740-{turn + 1}.png", full_page=False)
            for line in seen["lines"]:
                cut = line["top"] < -1 and line["bottom"] > 1
                assert not cut, f"decision {turn + 1}: a line of the score bar is cut: {seen}"
            make_move(page, rng.choice(legal(page)))
        no_page_errors(page)
    finally:
        page.context.close()
