"""On a touch screen the table says "tap", not "click or press a key" (Playwright, Chromium).

- While the opponent's moves are shown one at a time, the status's line that tells how to see
  the rest at once (and the prompt under the hand while they are shown) says "Tap" on a phone
  (no hover, a coarse pointer: 360x740, touch), and "Click or press a key" on a desktop.

Screenshots: ``test-output/screenshots/fix53-touch-*.png``.
"""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser

from browser_support import (
    DESKTOP,
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

# Every text the skip line and the hand's prompt had while the page ran (they last a second).
RECORD = """
localStorage.setItem('hanamikoji.lang', 'en');
localStorage.setItem('hanamikoji.prefs', JSON.stringify({ pace: 'normal' }));
window.__said = [];
new MutationObserver(() => {
  for (const e of document.querySelectorAll('#status .skip, #choices .prompt')) {
    const text = e.textContent.trim();
    if (text && !window.__said.includes(text)) {
      window.__said.push(text);
      if (e.matches('.skip') && !window.__shown) window.__shown = true;
    }
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_the_skip_line_says_tap_on_a_touch_screen(
    server: Server, browser: Browser, device: str
) -> None:
    touch = device == "phone"
    options = (
        {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True}
        if touch
        else {"viewport": DESKTOP}
    )
    context = new_context(browser, reduced_motion="no-preference", **options)
    context.add_init_script(RECORD)
    page = open_page(context)
    try:
        made = page.request.post(
            f"{server.url}/api/games",
            data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3},
        ).json()
        page.goto(f"{server.url}{made['url']}")
        wait_for_game(page)
        media = page.evaluate("() => matchMedia('(hover: none), (pointer: coarse)').matches")
        assert media is touch, f"{device}: the media query says {media}"
        rng = random.Random(53)
        for _ in range(30):
            wait_for_my_turn(page)
            if game_over(page) or page.evaluate("() => Boolean(window.__shown)"):
                break
            moves = legal(page)
            # an offer of mine: the AI's pick and its own move come together, one held back
            offers = [m for m in moves if m[0] in "GC"]
            make_move(page, rng.choice(offers or moves))
            if page.locator("#status .skip").count():
                shot(page, f"fix53-touch-{device}.png", full_page=False)
        said = page.evaluate("() => window.__said")
        skips = [s for s in said if "at once" in s]
        assert skips, f"{device}: the moves were never shown one at a time: {said}"
        told = [s for s in said if "skip" in s or "at once" in s]
        if touch:
            assert all(s.startswith("Tap") or "(tap to skip)" in s for s in told), told
            assert not any("lick" in s or "key" in s for s in told), told
        else:
            assert all("lick or press a key" in s for s in told), told
        no_page_errors(page)
    finally:
        context.close()
