"""While an invited friend has not opened the link, the table calls them "your friend" (Playwright,
Chromium).

- A friend game whose creator does not start: under the hand the prompt waits for "your friend",
  as the status beside it does, not for "Player 1" (the seat's name until the friend gives theirs;
  the home page tells a player with no name that they are "Player 1").

Screenshots: ``test-output/screenshots/fix54b-waiting-*.png``.
"""

from __future__ import annotations

from playwright.sync_api import Browser

from browser_support import new_context, no_page_errors, open_page, shot, until
from web_support import Server


def test_the_prompt_waits_for_your_friend_not_for_a_seat(server: Server, browser: Browser) -> None:
    context = new_context(browser)
    try:
        made = context.request.post(
            f"{server.url}/api/games",
            data={"mode": "friend", "seat": 1, "max_rounds": 3, "name": "Anna"},
        ).json()
        page = open_page(context)
        page.goto(f"{server.url}{made['url']}")
        until(
            page,
            "() => document.querySelector('#choices .prompt')?.textContent.trim()",
            why="no prompt under the hand while the friend is awaited",
        )
        prompt = page.locator("#choices .prompt").inner_text().strip()
        status = page.locator("#status").inner_text()
        shot(page, "fix54b-waiting-host.png", full_page=False)
        assert "friend" in status, status
        assert "Player" not in prompt, f"the prompt names an empty seat: {prompt!r}"
        assert "friend" in prompt, prompt
        no_page_errors(page)
    finally:
        context.close()
