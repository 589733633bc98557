"""A friend game's host, before and after the friend opens the link (Playwright, Chromium).

- At the table, the scorebar calls the seat nobody has taken "Your friend", with its "starts"
  badge when it starts, not "Player 1" (a host with no name of their own is "Player 1" too, and
  read it as waiting for themself); the friend's own name comes once they join.
- On the home page, with the invitation link shown, the host is told when the friend joins (the
  page asks the invitation's state while it is shown): it said nothing until "Go to the table".
- The home page's help under the name says an unnamed player is "Player 1" or "Player 2" by the
  seat: with "Draw lots" or the second seat they may be "Player 2".

Screenshots: ``test-output/screenshots/fix54c-*.png``.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Browser

from browser_support import DESKTOP, new_context, no_page_errors, open_page, shot, until
from web_support import Server


def _join(browser: Browser, server: Server, invite: str, name: str) -> None:
    """The friend opens the link (its API): the seat is theirs."""
    parts = urlsplit(invite)
    game = parts.path.rstrip("/").split("/")[-1]
    code = parse_qs(parts.query)["i"][0]
    friend = new_context(browser)
    try:
        answer = friend.request.post(
            f"{server.url}/api/games/{game}/join", data={"invite": code, "name": name}
        )
        assert answer.status == 201, answer.text()
    finally:
        friend.close()


def test_the_scorebar_calls_the_empty_seat_your_friend(server: Server, browser: Browser) -> None:
    context = new_context(browser, viewport=DESKTOP)
    try:
        # no name: the host is "Player 2" here, and the friend, who starts, the seat "Player 1"
        made = context.request.post(
            f"{server.url}/api/games",
            data={"mode": "friend", "seat": 1, "max_rounds": 3, "name": ""},
        ).json()
        page = open_page(context)
        page.goto(f"{server.url}{made['url']}")
        until(
            page, "() => document.querySelector('#opp-name')?.textContent.trim()", why="no scorebar"
        )
        shot(page, "fix54c-scorebar-waiting.png", full_page=False)
        name = page.locator("#opp-name").inner_text().strip()
        assert name == "Your friend", f"the empty seat is named {name!r}"
        assert page.locator("#opp-standing .first-tag").count() == 1, (
            "the friend's seat lost its badge"
        )
        assert "Your friend" in (page.locator("#opp-standing").get_attribute("aria-label") or "")
        _join(browser, server, made["invite"], "Boris")
        until(
            page,
            "() => document.querySelector('#opp-name')?.textContent.trim() === 'Boris'",
            why="the friend's name did not come once they joined",
        )
        shot(page, "fix54c-scorebar-joined.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()


def test_the_home_page_says_when_the_friend_has_joined(server: Server, browser: Browser) -> None:
    context = new_context(browser, viewport=DESKTOP)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        page.locator("#name").fill("Anna")
        page.locator("#invite").click()
        until(
            page,
            "() => !document.querySelector('#invite-result').hidden",
            why="no invitation shown",
        )
        until(
            page,
            "() => document.querySelector('#invite-state')?.dataset.state === 'waiting'",
            why="the home page says nothing of the friend it waits for",
        )
        assert "opens the link" in page.locator("#invite-state").inner_text()
        shot(page, "fix54c-home-waiting.png", full_page=False)
        _join(browser, server, page.locator("#invite-link").input_value(), "Boris")
        until(
            page,
            "() => document.querySelector('#invite-state')?.dataset.state === 'joined'",
            why="the home page did not say that the friend has joined",
        )
        assert "has joined" in page.locator("#invite-state").inner_text()
        assert page.locator("#invite-state").get_attribute("role") == "status"
        shot(page, "fix54c-home-joined.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()


def test_the_name_help_says_player_1_or_2_by_the_seat(server: Server, browser: Browser) -> None:
    context = new_context(browser, viewport=DESKTOP)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        until(page, "() => document.documentElement.lang === 'en'", why="no language")
        until(
            page,
            "() => document.querySelector('#name-help')?.textContent.includes('Player 2')",
            why="the help says only “Player 1”",
        )
        help_text = page.locator("#name-help").inner_text()
        assert "Player 1" in help_text and "round 1" in help_text, help_text
        shot(page, "fix54c-home-name-help.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()
