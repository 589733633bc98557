"""The table says why the server refused something, and offers nothing it would refuse
(Playwright, Chromium).

The socket passes through the test (``page.route_web_socket``), which may change what the
server sends: the server's own refusals of a claim and of a rematch with a disabled player are
tested without the browser (tests/test_web_clock.py, tests/test_moderation_live.py); here, what
the page makes of them.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Browser, Page, WebSocketRoute

from browser_support import (
    error_text,
    friend_game,
    no_page_errors,
    play_by_clicks,
    start_ai_game,
    until,
    wait_for_my_turn,
)
from web_support import Server

STILL_HERE = (
    "your opponent is still here or has not been gone long enough to claim the game (in 12 s)"
)


class Relay:
    """The page's game socket through the test: ``edit`` may change each message from the
    server; ``to_page`` sends the page one of the test's own."""

    def __init__(self, page: Page, edit: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.edit = edit
        self.pages: list[WebSocketRoute] = []
        page.route_web_socket(re.compile(r"/ws/"), self.route)

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        self.pages.append(ws)

        def from_server(message: str | bytes) -> None:
            if self.edit is not None and isinstance(message, str):
                data = json.loads(message)
                self.edit(data)
                message = json.dumps(data)
            ws.send(message)

        ws.on_message(server.send)
        server.on_message(from_server)

    def to_page(self, message: dict[str, Any]) -> None:
        self.pages[-1].send(json.dumps(message))


def test_a_refusal_says_the_servers_reason_on_an_english_page(server: Server, page: Page) -> None:
    """A claim refused said only "That is not possible in this game right now."."""
    relay = Relay(page)
    start_ai_game(page, server)
    wait_for_my_turn(page)
    relay.to_page({"type": "error", "code": "not-allowed", "message": STILL_HERE})
    until(page, "() => !document.querySelector('#error').hidden", why="no error shown")
    assert error_text(page) == (
        "Your opponent is still here or has not been gone long enough to claim the game (in 12 s)."
    )
    # In another language, the page's own words rather than English in the middle of it.
    page.evaluate("() => localStorage.setItem('hanamikoji.lang', 'fr')")
    page.reload()
    wait_for_my_turn(page)
    relay.to_page({"type": "error", "code": "not-allowed", "message": STILL_HERE})
    until(page, "() => !document.querySelector('#error').hidden", why="no error shown")
    assert "still here" not in error_text(page) and error_text(page)
    no_page_errors(page)


def test_no_rematch_is_offered_against_a_disabled_opponent(server: Server, page: Page) -> None:
    """The server refuses it (the game ended because the moderators disabled that player)."""

    def disabled_ai(data: dict[str, Any]) -> None:
        result = data.get("result")
        if data.get("type") == "state" and result:
            result.update(
                winner=0, reason="forfeit", why="seat 1 was disabled by the server's moderators"
            )

    Relay(page, disabled_ai)
    start_ai_game(page, server)
    wait_for_my_turn(page)
    page.locator("#resign").click()
    page.locator("#resign-yes").click()
    until(page, "() => document.querySelector('#game').dataset.status === 'over'", why="not over")
    assert "disabled" in page.locator("#result-reason").inner_text()
    assert page.locator("#rematch").is_hidden()
    no_page_errors(page)


def test_words_typed_while_offline_stay_in_the_chat_box(server: Server, browser: Browser) -> None:
    """An open socket takes a message while the device is offline and may drop it: the box
    was emptied as if it had been sent."""
    _, (anna, bob) = friend_game(browser, server)
    for page in (anna, bob):
        until(page, "() => !document.querySelector('#chat').hidden", why="the chat box shows")
    anna.context.set_offline(True)
    until(anna, "() => navigator.onLine === false", why="the device never went offline")
    anna.locator("#chat-input").fill("are you there?")
    anna.locator("#chat-input").press("Enter")
    assert anna.locator("#chat-input").input_value() == "are you there?"
    anna.context.set_offline(False)
    until(anna, "() => document.querySelector('#conn').hidden", why="never back online")
    anna.locator("#chat-input").press("Enter")
    until(
        bob,
        "() => [...document.querySelectorAll('#chat-lines .chat-line')]"
        ".some((li) => li.textContent.includes('are you there?'))",
        why="the words sent once back online never came",
    )
    assert anna.locator("#chat-input").input_value() == ""
    no_page_errors(anna)


def test_the_result_tells_a_score_only_once_a_round_was_scored(server: Server, page: Page) -> None:
    """A game given up in its first round read "Charm: you 0, AI (Easy) 0 · Geisha: …", as if a
    score had been counted; a game played to its end keeps its score."""
    start_ai_game(page, server)
    wait_for_my_turn(page)
    page.locator("#resign").click()
    page.locator("#resign-yes").click()
    until(page, "() => document.querySelector('#game').dataset.status === 'over'", why="not over")
    assert page.locator("#result-reason").inner_text()
    assert page.locator("#result-score").inner_text() == ""

    start_ai_game(page, server)
    scorings = play_by_clicks([page], random.Random(5))
    assert scorings[0] >= 1
    score = page.locator("#result-score").inner_text()
    assert score.startswith("Charm: you "), score
    no_page_errors(page)
