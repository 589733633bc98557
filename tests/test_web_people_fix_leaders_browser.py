"""The leaderboard on a 360 px phone in every language, with a 40-letter display name without a
space: the name wraps inside its cell (the whole name in the link's title and accessible name),
and the rating and games columns stay on the screen (the board was 722 px wide in English, 803
px in Russian). The server's answer is given to the page as the leaderboard API would send it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, Page, Route

from browser_support import new_context, shot, until
from web_support import Server

LONG = "Ω" * 40
PLAYERS = [
    {"rank": 1, "username": "Jiri", "name": "Jiri", "bot": False, "rating": 1515,
     "deviation": 105, "provisional": False, "games": 14},
    {"rank": 2, "username": "Ab_cdefghijklmnop-19", "name": LONG, "bot": False, "rating": 1485,
     "deviation": 105, "provisional": False, "games": 14},
]  # fmt: skip


def answer(route: Route) -> None:
    family = "correspondence" if "correspondence" in route.request.url else "real-time"
    body = {
        "family": family,
        "players": PLAYERS,
        "ai": [{"level": "medium", "rating": 1500, "bot": True, "username": "AI-medium"}],
    }
    route.fulfill(status=200, content_type="application/json", body=json.dumps(body))


@contextmanager
def leaders(browser: Browser, server: Server, language: str, width: int) -> Iterator[Page]:
    context = new_context(browser, viewport={"width": width, "height": 740})
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{language}')")
    try:
        page = context.new_page()
        page.route("**/api/leaders?*", answer)
        page.goto(f"{server.url}/leaders")
        until(
            page,
            "() => document.querySelectorAll('table.leaders tbody tr').length === 4",
            why="the two boards' rows",
        )
        yield page
    finally:
        context.close()


@pytest.mark.parametrize("language", ["en", "ru", "cs", "fr"])
def test_the_leaderboard_fits_a_phone_with_a_long_name(
    server: Server, browser: Browser, language: str
) -> None:
    with leaders(browser, server, language, 360) as page:
        width = page.evaluate("document.documentElement.scrollWidth")
        if True:  # every language's, to look at
            shot(page, f"people-fix-leaders-phone-{language}.png")
        assert width <= 360, f"{language}: the page is {width} px wide"
        # every cell of every row inside the screen: the rating and the games too
        outside = page.evaluate(
            """() => [...document.querySelectorAll('table.leaders td, table.leaders th')]
                .filter((c) => c.getBoundingClientRect().right > 360)
                .map((c) => c.textContent)"""
        )
        assert not outside, f"{language}: {outside}"
        link = page.locator("table.leaders a[href='/@/Ab_cdefghijklmnop-19']").first
        assert link.get_attribute("title") == f"{LONG} (@Ab_cdefghijklmnop-19)"
        assert LONG in (link.text_content() or "")


def test_the_leaderboard_on_a_laptop_keeps_a_name_on_one_line(
    server: Server, browser: Browser
) -> None:
    with leaders(browser, server, "en", 1280) as page:
        shot(page, "people-fix-leaders-laptop-en.png")
        height = page.evaluate(
            """() => document.querySelector("table.leaders a[href='/@/Jiri']")
                .getBoundingClientRect().height"""
        )
        assert height < 30  # one line: nothing wraps where there is room
