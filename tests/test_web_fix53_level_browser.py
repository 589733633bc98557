"""The home page remembers the AI's level (Playwright, Chromium).

- A level chosen on the home page (390x844) is the one shown when the player comes back after a
  game, and after a reload (it went back to Medium); kept with the other preferences
  (``hanamikoji.prefs``, js/prefs.js). A fresh browser still starts at Medium.

Screenshots: ``test-output/screenshots/fix53-level-*.png``.
"""

from __future__ import annotations

import re

from playwright.sync_api import Browser

from browser_support import PHONE, new_context, no_page_errors, open_page, shot, wait_for_game
from web_support import Server


def test_the_level_chosen_is_kept_for_the_next_game(server: Server, browser: Browser) -> None:
    context = new_context(browser, viewport=PHONE)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    try:
        page.goto(f"{server.url}/")
        assert page.locator("#level").input_value() == "medium", "a fresh browser's level"
        page.locator("#level").select_option("hard")
        page.locator("#rounds").select_option("3")
        page.locator("#start-ai").click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(page)
        assert page.locator("#game").get_attribute("data-status") in ("playing", "over")
        # back on the home page (a new game): the level chosen, not Medium
        page.goto(f"{server.url}/")
        page.locator("#level").wait_for()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        page.locator("#level").scroll_into_view_if_needed()
        shot(page, "fix53-level-home-after.png", full_page=False)
        assert page.locator("#level").input_value() == "hard", "the level went back"
        kept = page.evaluate("() => JSON.parse(localStorage.getItem('hanamikoji.prefs')).level")
        assert kept == "hard", kept
        page.locator("#level").select_option("beginner")
        page.reload()
        page.locator("#level").wait_for()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        assert page.locator("#level").input_value() == "beginner", "the level went back"
        no_page_errors(page)
    finally:
        context.close()
