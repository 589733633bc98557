"""The review on a phone (360 px wide) in every language: an offer on the table, the longest labels
(French) and a long name without a space fit the screen; nothing scrolls sideways.

A game is played against easy over the WebSocket API to its end (every full round has two offers
of a Competition, the widest centre of the table), reviewed in a 360x740 browser. Screenshots are
``test-output/screenshots/review-fix-phone-*.png``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    STEP,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    shot,
    until,
)
from test_web_review_browser import READY, ThreadServer
from web_support import Seat, Server, play_out, sqlite_url

SMALL_PHONE: ViewportSize = {"width": 360, "height": 740}
LANGUAGES = ("en", "ru", "cs", "fr")
LONG_NAME = "W" * 40


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = ThreadServer(sqlite_url(tmp_path_factory.mktemp("review-fix") / "games.sqlite3"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


async def _play(base: str, name: str, seed: int) -> tuple[str, str]:
    """A 3-round game against easy from seat 0, random moves to its end: the game and its token."""
    async with aiohttp.ClientSession() as session:
        response = await session.post(
            f"{base}/api/games",
            json={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "name": name},
        )
        data = await response.json()
        assert response.status == 201, data
        async with session.ws_connect(f"{base}/ws/{data['game']}?t={data['token']}") as ws:
            seat = Seat(ws)
            await seat.until(lambda s: True)
            await play_out([seat], random.Random(seed))
    return str(data["game"]), str(data["token"])


GAMES: dict[tuple[str, str], tuple[str, str]] = {}


def finished(server: Server, name: str) -> tuple[str, str]:
    """A finished game of a player called ``name`` (played once per module)."""
    if (server.url, name) not in GAMES:
        with ThreadPoolExecutor(1) as pool:  # Playwright's sync API runs a loop in this thread
            play = _play(server.url, name, seed=3)
            GAMES[server.url, name] = pool.submit(asyncio.run, play).result(timeout=180)
    return GAMES[server.url, name]


def open_review(browser: Browser, server: Server, name: str, language: str) -> Page:
    """The review of ``name``'s game at 360x740 in ``language``, as its player, analysis drawn."""
    game, token = finished(server, name)
    context = new_context(browser, viewport=SMALL_PHONE)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{language}')")
    page = open_page(context)
    page.goto(f"{server.url}/g/{game}?t={token}")  # the seat's cookie
    page.goto(f"{server.url}/review/{game}")
    until(page, f"() => {STEP} !== ''", why="#step stays empty")
    until(page, READY, why="the graph's line was never drawn", timeout=120_000)
    return page


def competition_frames(page: Page, server: Server) -> list[int]:
    game = page.url.rsplit("/", 1)[-1]
    review: dict[str, Any] = page.request.get(f"{server.url}/api/games/{game}/review").json()
    frames = [i for i, f in enumerate(review["frames"]) if (f.get("offer") or "").startswith("C")]
    assert frames, "the game has no offer of a Competition"
    return frames


def go_to(page: Page, target: int) -> None:
    page.keyboard.press("Home")
    for _ in range(target):
        page.keyboard.press("ArrowRight")
    until(
        page,
        "f => document.querySelector('#review-body').dataset.frame == f",
        target,
        why=f"the review never reached frame {target}",
    )


def sticking_out(page: Page) -> list[str]:
    """The review's elements whose box reaches past the screen's right edge."""
    out: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('#review *')]
            .filter(e => e.getClientRects().length
                         && e.getBoundingClientRect().right > innerWidth + 0.5)
            .map(e => `${e.tagName.toLowerCase()}#${e.id}.${[...e.classList].join('.')}: `
                      + `right ${Math.round(e.getBoundingClientRect().right)}`)"""
    )
    return out


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_offer_of_a_competition_fits_a_small_phone(
    server: Server, browser: Browser, language: str
) -> None:
    page = open_review(browser, server, "Tester", language)
    try:
        frames = competition_frames(page, server)
        for target in frames:
            go_to(page, target)
            assert page.locator("#center .offer-box").is_visible()
            outside = sticking_out(page)
            if outside or target == frames[-1]:
                shot(page, f"review-fix-phone-offer-{language}.png")
            assert not outside, f"{language}, move {target}: {outside}"
            no_horizontal_scroll(page)
        no_page_errors(page)
    finally:
        page.context.close()


def overflowing_with(page: Page, text: str) -> list[str]:
    """The review's boxes holding ``text`` whose content is wider than they are (cut or spilling
    over a neighbour)."""
    out: list[str] = page.evaluate(
        """text => [...document.querySelectorAll('#review *')]
            .filter(e => e.getClientRects().length && getComputedStyle(e).display !== 'inline'
                         && e.textContent.includes(text) && e.scrollWidth > e.clientWidth + 1)
            .map(e => `${e.tagName.toLowerCase()}#${e.id}.${[...e.classList].join('.')}: `
                      + `${e.scrollWidth} > ${e.clientWidth}`)""",
        text,
    )
    return out


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_long_name_without_a_space_wraps_on_a_small_phone(
    server: Server, browser: Browser, language: str
) -> None:
    page = open_review(browser, server, LONG_NAME, language)
    try:
        for where in ("Home", "End"):
            page.keyboard.press(where)
            assert not sticking_out(page), (where, sticking_out(page))
            assert not overflowing_with(page, LONG_NAME), (where, overflowing_with(page, LONG_NAME))
            no_horizontal_scroll(page)
        shot(page, f"review-fix-phone-long-name-{language}.png")
        # the whole name is there to read: in the head, the seat, the legend, the mistakes
        for selector in ("#players", "#near-area .seat-name", "#legend", "#mistake-lists"):
            assert LONG_NAME in page.locator(selector).inner_text().replace("\n", ""), selector
        # the two players' mistakes, side by side or one under the other, never over each other
        boxes: list[dict[str, float]] = page.evaluate(
            """() => [...document.querySelectorAll('#mistake-lists .mistake-list h4')]
                .map(h => h.getBoundingClientRect().toJSON())"""
        )
        assert len(boxes) == 2, boxes
        a, b = boxes
        apart = (
            a["x"] + a["width"] <= b["x"] + 0.5
            or b["x"] + b["width"] <= a["x"] + 0.5
            or a["y"] + a["height"] <= b["y"] + 0.5
            or b["y"] + b["height"] <= a["y"] + 0.5
        )
        assert apart, f"the mistakes' headings overlap: {boxes}"
        no_page_errors(page)
    finally:
        page.context.close()
