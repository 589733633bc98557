"""Chat in real browsers (Playwright, Chromium): two players talk through a whole game's page, a
spectator talks in its own room, and the review shows each room to whom it belongs.

Anna plays at 1366x768, Bob on a 390x844 phone: what Anna types as HTML reaches Bob as the same
characters, a quick phrase reaches her in words, Bob's mute hides her, a flood is told when to try
again, chat off hides the box; the hand and the actions stay on screen with the chat beside or
under them. Screenshots: ``test-output/screenshots/chat-*.png``.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page

from browser_support import (
    PHONE,
    friend_game,
    new_context,
    no_page_errors,
    open_page,
    shot,
    until,
)
from test_web_a11y import BLOCKING, axe_violations
from test_web_table import LAPTOP, assert_on_screen
from web_support import Server

LINES = "() => [...document.querySelectorAll('#chat-lines .chat-line')].map((li) => li.textContent)"
DOCK = ["#hand", "#my-actions", "#status"]


def lines(page: Page) -> list[str]:
    result: list[str] = page.evaluate(LINES)
    return result


def say(page: Page, text: str) -> None:
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


def shows(page: Page, text: str, why: str) -> None:
    until(
        page,
        "t => [...document.querySelectorAll('#chat-lines .chat-line')]"
        ".some((li) => li.textContent.includes(t))",
        text,
        why=why,
    )


def chat_violations(page: Page) -> list[dict[str, Any]]:
    """axe's serious and critical findings about the chat box."""
    found = []
    for violation in axe_violations(page):
        if violation.get("impact") not in BLOCKING:
            continue
        nodes = [n for n in violation["nodes"] if any("chat" in str(t) for t in n["target"])]
        if nodes:
            found.append({"id": violation["id"], "nodes": [n["target"] for n in nodes]})
    return found


def test_two_players_and_a_spectator_talk(server: Server, browser: Browser) -> None:
    game, (anna, bob) = friend_game(browser, server)
    anna.set_viewport_size(LAPTOP)
    bob.set_viewport_size(PHONE)
    for page in (anna, bob):
        until(page, "() => !document.querySelector('#chat').hidden", why="the chat box shows")
        assert page.locator("#chat-title").inner_text() == "Chat"

    # HTML is text: the same characters arrive, no element is made of them.
    say(anna, "<b>x</b> <img src=x onerror=alert(1)>")
    shows(bob, "<b>x</b>", "Bob sees what Anna typed")
    assert bob.locator("#chat-lines b, #chat-lines img").count() == 0
    assert lines(bob) == ["Anna guest: <b>x</b> <img src=x onerror=alert(1)>"]
    assert lines(anna) == ["You: <b>x</b> <img src=x onerror=alert(1)>"]
    assert anna.locator("#chat-input").input_value() == ""

    # A quick phrase, in words.
    bob.locator('#chat button[data-phrase="good-luck"]').click()
    shows(anna, "Good luck!", "Anna sees Bob's quick phrase")
    assert lines(anna)[-1] == "Bob guest: Good luck!"

    # Bob's table with the chat: the hand and the actions stay on screen.
    shot(anna, "chat-1366x768.png", full_page=False)
    shot(bob, "chat-390x844.png", full_page=False)
    shot(bob, "chat-390x844-page.png")
    assert_on_screen(anna, DOCK, LAPTOP, "Anna's table with the chat")
    assert_on_screen(bob, DOCK, PHONE, "Bob's phone with the chat")
    assert chat_violations(anna) == [] and chat_violations(bob) == []

    # A spectator's room: its own, never the players'.
    watcher = open_page(new_context(browser))
    watcher.goto(f"{server.url}/g/{game}")
    until(
        watcher, "() => !document.querySelector('#chat').hidden", why="the spectator's chat shows"
    )
    assert watcher.locator("#chat-title").inner_text() == "Spectators' chat"
    assert lines(watcher) == []  # the players' words are not theirs to read
    say(watcher, "what a start")
    shows(watcher, "what a start", "the spectator sees its own message")
    assert lines(watcher) == ["Guest: what a start"]
    assert watcher.locator("#chat-mute").is_hidden()
    shot(watcher, "chat-spectator-1280x900.png", full_page=False)

    # Bob mutes Anna: her words go, and her next ones never come.
    bob.locator("#chat-mute").click()
    until(
        bob,
        "() => document.querySelector('#chat-mute').getAttribute('aria-pressed') === 'true'",
        why="muted",
    )
    assert lines(bob) == ["You: Good luck!"]
    assert "muted your opponent" in bob.locator("#chat-note").inner_text()
    say(anna, "are you there?")
    shows(anna, "are you there?", "Anna sees her own message")
    bob.wait_for_timeout(500)
    assert not any("are you there" in line for line in lines(bob))
    bob.locator("#chat-mute").click()  # unmuted: the room as it is
    shows(bob, "are you there?", "Bob unmuted sees Anna again")

    # A flood: told when to try again, in words.
    for i in range(6):
        say(bob, f"spam {i}")
    until(bob, "() => !document.querySelector('#chat-error').hidden", why="the flood is refused")
    error = bob.locator("#chat-error").inner_text()
    assert error.startswith("You are sending messages too fast: try again in") and " s." in error
    # the words refused come back to the box, to send when allowed
    assert bob.locator("#chat-input").input_value().startswith("spam ")

    # Chat off, in the settings: nothing shown; on again, the room comes back.
    anna.locator("#prefs > summary").click()
    anna.locator("#pref-chat").uncheck()
    until(anna, "() => document.querySelector('#chat').hidden", why="chat off hides the box")
    assert anna.request.get(f"{server.url}/api/me/chat").json() == {"chat": False}
    anna.reload()
    until(
        anna, "() => document.querySelector('#game').dataset.status === 'playing'", why="reloaded"
    )
    anna.wait_for_timeout(300)
    assert anna.locator("#chat").is_hidden() and not anna.locator("#pref-chat").is_checked()
    anna.locator("#prefs > summary").click()
    anna.locator("#pref-chat").check()
    shows(anna, "spam 0", "chat on again shows the room")
    anna.locator("#prefs > summary").click()

    # The end: the review shows each room to whom it belongs.
    bob.locator("#resign").click()
    bob.locator("#resign-yes").click()
    until(
        anna,
        "() => document.querySelector('#game').dataset.status === 'over'",
        why="the game ended",
    )
    anna.goto(f"{server.url}/review/{game}")
    until(anna, "() => !document.querySelector('#review-chat').hidden", why="the review's chat")
    text = anna.locator("#review-chat").inner_text()
    assert "You: <b>x</b> <img src=x onerror=alert(1)>" in text and "Bob guest: Good luck!" in text
    assert "Guest: what a start" in text and "Spectators' chat" in text
    assert anna.locator("#review-chat b, #review-chat img").count() == 0
    shot(anna, "chat-review-1366x768.png")
    watcher.goto(f"{server.url}/review/{game}")
    until(watcher, "() => !document.querySelector('#review-chat').hidden", why="the review's chat")
    text = watcher.locator("#review-chat").inner_text()
    assert "what a start" in text and "Good luck" not in text and "<b>x</b>" not in text
    for page in (anna, bob, watcher):
        no_page_errors(page)
        page.context.close()


def test_the_settings_with_chat_off_open_inside_a_phone_screen(
    server: Server, browser: Browser
) -> None:
    """The ⚙ menu (where chat is turned off) sits left of the language picker: on a 390 px phone
    its box opened from the gear's right edge, past the screen's left edge, Chat off unreachable."""
    _, pages = friend_game(browser, server)
    bob = pages[1]
    bob.set_viewport_size(PHONE)
    bob.locator("#prefs > summary").click()
    box = bob.locator(".prefs-box").bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    shot(bob, "chat-prefs-390x844.png", full_page=False)
    bob.locator("#pref-chat").uncheck(timeout=5_000)
    until(bob, "() => document.querySelector('#chat').hidden", why="chat off hides the box")
    for page in pages:
        no_page_errors(page)
        page.context.close()
