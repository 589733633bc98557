"""The profile page, given the profile API's answer: a rated game played as a guest before
signing in to the account says it was not counted, in every language (it read "rated" beside a
header counting one game fewer)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route

from browser_support import new_context, shot, until
from web_support import Server

DAY = 86_400_000
START = 1_700_000_000_000
HISTORY: list[dict[str, Any]] = [
    {"game": f"g{i}", "family": "real-time", "at": START + i * DAY,
     "rating": 1500 + (60 if i % 2 else -45) * (i % 5), "deviation": 300 - 12 * i, "score": i % 2}
    for i in range(1, 15)
]  # fmt: skip


def game(game_id: str, rated: bool, counted: bool) -> dict[str, Any]:
    return {"game": game_id, "mode": "ai", "level": "beginner", "seat": 0, "opponent": None,
            "opponent_username": None, "control": "3+2", "rated": rated, "counted": counted,
            "result": "lost", "reason": "resigned", "review": f"/review/{game_id}",
            "updated": "2024-12-07T10:00:00+00:00"}  # fmt: skip


PROFILE = {
    "username": "alice_r",
    "name": "Alice",
    "bot": None,
    "ratings": {"real-time": {"rating": 1431, "deviation": 227, "provisional": True, "games": 14}},
    "history": HISTORY,
    "games": [game("guest1", True, False), game("g14", True, True), game("casual1", False, False)],
}


def answer(route: Route) -> None:
    route.fulfill(status=200, content_type="application/json", body=json.dumps(PROFILE))


@contextmanager
def profile(browser: Browser, server: Server, language: str, width: int) -> Iterator[Page]:
    context = new_context(browser, viewport={"width": width, "height": 740})
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{language}')")
    try:
        page = context.new_page()
        page.route("**/api/players/*", answer)
        page.goto(f"{server.url}/@/alice_r")
        until(page, "() => document.querySelectorAll('#profile-games li').length === 3", why="rows")
        yield page
    finally:
        context.close()


WORDS = {
    "en": ("rated as a guest", "rated", "casual"),
    "fr": ("en tant qu'invité", "classée", "amicale"),
    "ru": ("гостем", "рейтинговая", ""),
    "cs": ("jako host", "hodnocená", ""),
}


@pytest.mark.parametrize("language", sorted(WORDS))
def test_a_guests_rated_game_is_marked_not_counted(
    server: Server, browser: Browser, language: str
) -> None:
    with profile(browser, server, language, 1280) as page:
        guest = page.locator("#profile-games li[data-game='guest1']").inner_text()
        counted = page.locator("#profile-games li[data-game='g14']").inner_text()
        words = WORDS[language]
        assert words[0] in guest, guest
        assert words[0] not in counted, counted
        # the counted game says what it did to the rating
        assert any(sign in counted for sign in ("+", "\u2212", "\u00b1")), counted
        if language == "en":
            shot(page, "people-fix-profile-guest-game-en.png")


@pytest.mark.parametrize("width", [360, 1280])
def test_the_rating_plot_is_readable_on_a_phone(
    server: Server, browser: Browser, width: int
) -> None:
    """The plot's range labels were drawn in the SVG, scaled down to about 6 px on a phone; now
    at least 11 px high at any width, inside the page, and each point has a value of its own
    for a screen reader (the plot had one title for all)."""
    with profile(browser, server, "en", width) as page:
        shot(page, f"people-fix-profile-plot-{width}.png")
        ticks = page.evaluate(
            """() => [...document.querySelectorAll('#profile-plots .plot-tick')].map((e) => {
                const r = e.getBoundingClientRect();
                return {text: e.textContent, height: r.height,
                        size: parseFloat(getComputedStyle(e).fontSize), right: r.right};
            })"""
        )
        assert [t["text"] for t in ticks] == ["1800", "1300"], ticks
        assert all(t["size"] >= 11 and t["height"] >= 11 for t in ticks), ticks
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        svg = page.locator("#profile-plots svg").bounding_box()
        assert svg is not None and all(t["right"] <= svg["x"] for t in ticks)  # beside, not over
        points = page.locator("#profile-plots .plot-points li").all_inner_texts()
        assert len(points) == len(HISTORY)
        assert points[0].startswith("game 1, ") and points[0].endswith(
            f": {round(HISTORY[0]['rating'])}"
        )
        titles = page.locator("#profile-plots circle title").all_text_contents()
        assert titles == points
