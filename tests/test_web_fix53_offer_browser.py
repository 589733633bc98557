"""A phone on its side (740x360) and a three-card Gift (Playwright, Chromium).

- The offer of three cards is shown with its choice buttons in view, without a scroll, and every
  geisha in view above it (below a timed game's pinned bar): the player reads the geisha and
  taps a choice on the same screen. A friend's Gift and Competition (untimed) and the AI's Gift
  (timed).

Screenshots: ``test-output/screenshots/fix53-offer-*.png``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    AI_TIMEOUT_MS,
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

ON_ITS_SIDE: ViewportSize = {"width": 740, "height": 360}

SEEN_JS = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const bar = document.querySelector('#scorebar');
  const pinned = bar && getComputedStyle(bar).position === 'sticky';
  const picks = [...document.querySelectorAll('#offer button.pick')].map((b) => {
    const r = box(b);
    const at = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return { ...r, onTop: Boolean(at && (at === b || b.contains(at))) };
  });
  return {
    vw: innerWidth, vh: innerHeight, sy: scrollY,
    barBottom: pinned ? bar.getBoundingClientRect().bottom : 0,
    geisha: [...document.querySelectorAll('#board .geisha-card')].map(box),
    offer: box(document.querySelector('#offer')),
    picks,
  };
}"""


def settle(page: Page) -> None:
    """The page's own scrolls are over: the scroll stands still."""
    page.evaluate(
        """() => new Promise((done) => {
          let last = -1, still = 0;
          const look = () => {
            still = scrollY === last ? still + 1 : 0;
            last = scrollY;
            if (still >= 6) done(); else setTimeout(look, 50);
          };
          requestAnimationFrame(() => setTimeout(look, 50));
        })"""
    )


def friend_pages(browser: Browser, server: Server) -> tuple[Page, Page]:
    """A friend game: Anna (seat 0, a desktop) and Boris (a phone on its side), in English."""
    first = new_context(browser)
    made = first.request.post(
        f"{server.url}/api/games",
        data={"mode": "friend", "seat": 0, "max_rounds": 3, "name": "Anna"},
    ).json()
    second = new_context(browser, viewport=ON_ITS_SIDE)
    code = made["invite"].split("?i=")[1]
    joined = second.request.post(
        f"{server.url}/api/games/{made['game']}/join", data={"invite": code, "name": "Boris"}
    ).json()
    pages = []
    for context, url in ((first, made["url"]), (second, joined["url"])):
        context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
        page = open_page(context)
        page.goto(f"{server.url}{url}")
        wait_for_game(page)
        pages.append(page)
    return pages[0], pages[1]


def inside(r: dict[str, float], top: float, bottom: float, right: float) -> bool:
    return (
        r["top"] >= top - 0.5
        and r["bottom"] <= bottom + 0.5
        and r["left"] >= -0.5
        and (r["right"] <= right + 0.5)
    )


def ai_page(browser: Browser, server: Server, control: str) -> Page:
    """A timed game against the easy AI on a phone on its side, this page's player first."""
    context = new_context(browser, viewport=ON_ITS_SIDE)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "control": control},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    return page


def assert_gift_in_view(page: Page, where: str) -> None:
    settle(page)
    seen: dict[str, Any] = page.evaluate(SEEN_JS)
    for k, b in enumerate(seen["picks"]):
        assert inside(b, seen["barBottom"], seen["vh"], seen["vw"]), (
            f"{where}: choice {k} is not in view: {b}; {seen}"
        )
        assert b["onTop"], f"{where}: something lies over choice {k}: {seen}"
    for k, g in enumerate(seen["geisha"]):
        assert inside(g, seen["barBottom"], seen["offer"]["top"], seen["vw"]), (
            f"{where}: geisha {k} is not in view above the offer: {g}; {seen}"
        )


@pytest.mark.parametrize("kind", ["G", "C"], ids=["gift", "competition"])
def test_a_friends_offer_shows_its_choices_under_the_geisha_on_its_side(
    server: Server, browser: Browser, kind: str
) -> None:
    anna, boris = friend_pages(browser, server)
    try:
        until(anna, "() => document.querySelector('#game').dataset.toMove === 'me'", why="no turn")
        offers = [m for m in legal(anna) if m[0] == kind]
        # a Gift of three different cards: three choices
        offer = next((m for m in offers if len(set(m[1:])) == 3), offers[0])
        make_move(anna, offer)
        until(
            boris,
            "() => document.querySelectorAll('#offer button.pick').length >= 2",
            why=f"Boris is not offered {offer}",
            timeout=AI_TIMEOUT_MS,
        )
        settle(boris)
        shot(boris, f"fix53-offer-{kind}-friend.png", full_page=False)
        assert_gift_in_view(boris, f"740x360, untimed, {offer}")
        for page in (anna, boris):
            no_page_errors(page)
    finally:
        anna.context.close()
        boris.context.close()


def test_the_ais_gift_shows_its_choices_under_the_pinned_bar_on_its_side(
    server: Server, browser: Browser
) -> None:
    """Each round the AI offers a Gift (every action is used once a round): the first one."""
    page = ai_page(browser, server, "10+5")
    try:
        rng = random.Random(53)
        for _ in range(40):
            wait_for_my_turn(page)
            if game_over(page):
                break
            moves = legal(page)
            if moves[0][0] == "P" and len(moves[0]) == 2:  # a Gift's pick: one card
                shot(page, "fix53-offer-gift-timed.png", full_page=False)
                assert_gift_in_view(page, f"740x360, 10+5, the AI's Gift {moves}")
                break
            make_move(page, rng.choice(moves))
        else:
            raise AssertionError("the AI offered no Gift")
        no_page_errors(page)
    finally:
        page.context.close()
