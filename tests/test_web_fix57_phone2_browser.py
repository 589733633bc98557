"""Long names on a phone (390x844, Playwright, Chromium): a friend game between two players
whose names are 40 letters without a space, and a spectator.

- The spectator's banner ("You are watching ...") stays inside the screen: the page does not
  scroll sideways.
- A round's scoring, for both players and the spectator: both Secrets and their captions, the
  step's words and the totals are inside the dialog, and the page does not scroll sideways.

Screenshots: ``test-output/screenshots/fix57-long-*.png``.
"""

from __future__ import annotations

import random
from typing import Any

from playwright.sync_api import Browser, Page

from browser_support import (
    PHONE,
    friend_game,
    legal,
    make_move,
    my_decision,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
)
from test_web_fix52_phone2_browser import inside
from web_support import Server

ANNA = "Wolfeschlegelsteinhausenbergerdorffvoral"
BOB = "Bartholomewsworthingtonmcgillicuddyiiiii"

# The scoring dialog's inner box and the boxes of what it says (wider than the dialog when a
# long word runs past its edge: then its scroll width shows it).
SCORING_JS = """() => {
  const d = document.querySelector('#scoring');
  if (!d || !d.open) return null;
  const box = (e) => {
    const r = e.getBoundingClientRect();
    const over = Math.max(0, e.scrollWidth - e.clientWidth);
    return { what: e.id || e.tagName, left: r.left, top: r.top, right: r.right + over,
             bottom: r.bottom };
  };
  const r = d.getBoundingClientRect();
  const parts = ['#scoring-text', '#scoring-totals', '#scoring-secrets figure',
                 '#scoring-secrets figcaption'];
  return {
    vw: innerWidth,
    dialog: { left: r.left + d.clientLeft, right: r.left + d.clientLeft + d.clientWidth },
    parts: parts.flatMap((s) => [...d.querySelectorAll(s)]).filter((e) => e.getClientRects().length)
      .map(box),
  };
}"""


def assert_scoring_inside(where: str, seen: dict[str, Any]) -> None:
    left, right = seen["dialog"]["left"], seen["dialog"]["right"]
    assert seen["parts"], f"{where}: the scoring shows nothing: {seen}"
    for part in seen["parts"]:
        assert inside(part, -1e9, 1e9, left, right), (
            f"{where}: {part['what']} runs out of the scoring dialog: {part}; {seen['dialog']}"
        )


def scoring_open(page: Page) -> bool:
    return bool(page.evaluate("() => Boolean(document.querySelector('#scoring')?.open)"))


def test_long_names_stay_inside_a_phones_banner_and_scoring(
    server: Server, browser: Browser
) -> None:
    _, pages = friend_game(browser, server, ANNA, BOB)
    watcher = new_context(browser, viewport=PHONE)
    try:
        for page in pages:
            page.set_viewport_size(PHONE)
        spectator = open_page(watcher)
        spectator.goto(pages[0].url.split("?")[0])
        wait_for_game(spectator)
        until(
            spectator,
            "name => document.querySelector('#watching-names')?.textContent.includes(name)",
            ANNA,
            why="the banner does not name the players",
        )
        shot(spectator, "fix57-long-banner.png", full_page=False)
        no_horizontal_scroll(spectator)
        rng = random.Random(57)
        everyone = [*pages, spectator]
        for _ in range(60):
            if any(scoring_open(page) for page in pages):
                break
            mover = next((page for page in pages if my_decision(page)), None)
            if mover is None:
                pages[0].wait_for_timeout(100)
                continue
            make_move(mover, rng.choice(legal(mover)))
        else:
            raise AssertionError("no scoring came in 60 moves")
        for k, page in enumerate(everyone):
            until(
                page,
                "() => document.querySelector('#scoring')?.open",
                why=f"page {k}: no scoring",
            )
            # the step that shows both Secrets (the first) is the widest
            page.wait_for_function(
                "() => document.querySelectorAll('#scoring-secrets figure').length === 2"
            )
            seen = page.evaluate(SCORING_JS)
            shot(page, f"fix57-long-scoring-{k}.png", full_page=False)
            assert_scoring_inside(f"page {k}, the Secrets", seen)
            no_horizontal_scroll(page)
            # each step after it: the words and the totals name the players too
            for step in range(12):
                if not scoring_open(page):
                    break
                page.locator("#scoring-continue").click()
                seen = page.evaluate(SCORING_JS)
                if seen is None:
                    break
                assert_scoring_inside(f"page {k}, step {step + 2}", seen)
                no_horizontal_scroll(page)
        for page in everyone:
            no_page_errors(page)
    finally:
        for page in pages:
            page.context.close()
        watcher.close()
