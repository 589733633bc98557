"""The chat's fold counts the messages that came while it was folded (Playwright, Chromium).

- Bob, on a phone (390x844), folds the chat (its lines and form go; the fold stays a button,
  kept folded after a reload). Anna's messages then show as a count on the fold (a badge), and
  the fold's accessible name says how many are new. Opened, the lines are there, the badge
  goes, the name is the fold's again.

Screenshots: ``test-output/screenshots/fix53-chat-*.png``.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page

from browser_support import PHONE, friend_game, no_page_errors, shot, until, wait_for_game
from web_support import Server

FOLD_JS = """() => {
  const fold = document.querySelector('#chat-fold');
  const badge = fold && fold.querySelector('.chat-badge');
  const body = document.querySelector('#chat-lines');
  return {
    fold: Boolean(fold), expanded: fold && fold.getAttribute('aria-expanded'),
    name: fold && fold.getAttribute('aria-label'),
    badge: badge && badge.getClientRects().length ? badge.textContent : null,
    linesShown: Boolean(body && body.getClientRects().length),
  };
}"""


def say(page: Page, text: str) -> None:
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


def fold_state(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(FOLD_JS)
    return result


def test_a_folded_chat_counts_the_new_messages(server: Server, browser: Browser) -> None:
    _, (anna, bob) = friend_game(
        browser, server, "Anna", "Bob", init_script="localStorage.setItem('hanamikoji.lang', 'en')"
    )
    try:
        bob.set_viewport_size(PHONE)
        for page in (anna, bob):
            until(page, "() => !document.querySelector('#chat').hidden", why="no chat box")
        seen = fold_state(bob)
        assert seen["fold"] and seen["expanded"] == "true", seen
        assert seen["name"] == "Fold the chat" and seen["badge"] is None, seen
        bob.locator("#chat-fold").click()
        seen = fold_state(bob)
        assert seen["expanded"] == "false" and not seen["linesShown"], seen
        assert seen["name"] == "Open the chat" and seen["badge"] is None, seen
        # kept folded after a reload
        bob.reload()
        wait_for_game(bob)
        until(bob, "() => !document.querySelector('#chat').hidden", why="no chat box")
        assert fold_state(bob)["expanded"] == "false", "the fold was forgotten"
        say(anna, "hello Bob")
        until(
            bob,
            "() => document.querySelector('#chat-fold .chat-badge')?.textContent === '1'",
            why="no count of one new message on Bob's fold",
        )
        say(anna, "your move")
        until(
            bob,
            "() => document.querySelector('#chat-fold .chat-badge')?.textContent === '2'",
            why="no count of two new messages on Bob's fold",
        )
        seen = fold_state(bob)
        assert seen["badge"] == "2", seen
        assert seen["name"] == "Open the chat: 2 new messages", seen
        bob.locator("#chat").scroll_into_view_if_needed()
        shot(bob, "fix53-chat-folded-unread.png", full_page=False)
        fold = bob.locator("#chat-fold").bounding_box()
        assert fold is not None and fold["height"] >= 30 and fold["width"] >= 30, fold
        bob.locator("#chat-fold").click()
        seen = fold_state(bob)
        assert seen["expanded"] == "true" and seen["linesShown"], seen
        assert seen["badge"] is None and seen["name"] == "Fold the chat", seen
        assert "your move" in bob.locator("#chat-lines").inner_text()
        shot(bob, "fix53-chat-opened.png", full_page=False)
        for page in (anna, bob):
            no_page_errors(page)
    finally:
        anna.context.close()
        bob.context.close()
