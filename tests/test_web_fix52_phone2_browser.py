"""The table on a phone, second pass (Playwright, Chromium).

- On its side (740x360), a timed game: the pinned score bar is one line, and every geisha is in
  view below it at the first decision and when an offer is shown (the page's own scrolls stop
  below the bar).

Screenshots: ``test-output/screenshots/fix52b-*.png``.
"""

from __future__ import annotations

import random
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
    wait_for_game,
    wait_for_my_turn,
)
from web_support import Server

UPRIGHT: ViewportSize = {"width": 360, "height": 740}
ON_ITS_SIDE: ViewportSize = {"width": 740, "height": 360}

# Every geisha's box, the pinned bar's foot (0 when nothing is pinned at the top), the dock's top
# (the viewport's foot when it is not pinned) and the hand's box.
GEISHA_JS = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const bar = document.querySelector('#scorebar');
  const pinned = bar && getComputedStyle(bar).position === 'sticky';
  const dock = document.querySelector('.my-area');
  const docked = getComputedStyle(dock).position === 'sticky';
  return {
    vw: innerWidth, vh: innerHeight, sy: scrollY,
    barBottom: pinned ? bar.getBoundingClientRect().bottom : 0,
    barHeight: pinned ? bar.getBoundingClientRect().height : 0,
    dockTop: docked ? dock.getBoundingClientRect().top : innerHeight,
    geisha: [...document.querySelectorAll('#board .geisha-card')].map(box),
    hand: box(document.querySelector('#hand')),
  };
}"""


# The scoring dialog's visible area, the step's sentence and Continue.
def settle(page: Page) -> None:
    """The page's own scrolls (js/game.js, smooth ones too) are over: the scroll stands still."""
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


def inside(r: dict[str, float], top: float, bottom: float, left: float, right: float) -> bool:
    return (
        r["top"] >= top - 0.5
        and r["bottom"] <= bottom + 0.5
        and r["left"] >= left - 0.5
        and r["right"] <= right + 0.5
    )


def assert_geisha_in_view(where: str, seen: dict[str, Any]) -> None:
    for k, g in enumerate(seen["geisha"]):
        assert inside(g, seen["barBottom"], seen["dockTop"], 0, seen["vw"]), (
            f"{where}: geisha {k} is not in view below the pinned bar (and above the dock): "
            f"{g}; {seen}"
        )


def ai_game(browser: Browser, server: Server, size: ViewportSize, control: str) -> Page:
    """A three-round game against the easy AI, this page's player first, in English."""
    context = new_context(browser, viewport=size)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "control": control},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    return page


def test_the_geisha_stay_in_view_under_the_pinned_bar_on_its_side(
    server: Server, browser: Browser
) -> None:
    page = ai_game(browser, server, ON_ITS_SIDE, "10+5")
    try:
        wait_for_my_turn(page)
        settle(page)
        seen = page.evaluate(GEISHA_JS)
        shot(page, "fix52b-side-first.png", full_page=False)
        assert 0 < seen["barHeight"] <= 34, f"the pinned bar is not one short line: {seen}"
        assert_geisha_in_view("740x360, the first decision", seen)
        assert inside(seen["hand"], seen["barBottom"], seen["vh"], 0, seen["vw"]), seen
        rng = random.Random(3)
        offers = 0
        for turn in range(12):
            moves = legal(page)
            if moves[0][0] == "P":
                offers += 1
                seen = page.evaluate(GEISHA_JS)
                if offers == 1:
                    shot(page, "fix52b-side-offer.png", full_page=False)
                assert_geisha_in_view(f"740x360, decision {turn + 1}, an offer", seen)
                if offers >= 2:
                    break
            make_move(page, rng.choice(moves))
            wait_for_my_turn(page)
            if game_over(page):
                break
            settle(page)
        assert offers, "no offer came in twelve decisions"
        no_page_errors(page)
    finally:
        page.context.close()
