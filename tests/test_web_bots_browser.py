"""A bot in the browser: its owner makes it on the account page (the token shown once), runs
``hanamikoji bot`` with it, and finds it in the lobby, marked as a bot beside the house AI
levels; the owner's rated challenge to it is refused, saying why; another player's whole rated
3+2 game by clicks against it, the bot marked at the table; both ratings move, the bot's profile
says whose bot it is."""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
import threading
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, Page

from browser_support import (
    game_id,
    new_context,
    no_page_errors,
    open_page,
    play_by_clicks,
    shot,
    until,
    wait_for_game,
)
from web_support import Server

PASSWORD = "correct horse 7"
BOT = [sys.executable, "-m", "hanamikoji.cli", "bot"]


def api(page: Page, method: str, path: str, body: Any = None) -> Any:
    return page.evaluate(
        """async ([method, path, body]) => {
            const r = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                         body: body === null ? undefined : JSON.stringify(body)});
            return [r.status, await r.json()];
        }""",
        [method, path, body],
    )


def test_a_bot_from_hanamikoji_bot_plays_a_rated_game_in_the_browser(
    browser: Browser, server: Server
) -> None:
    context, player = new_context(browser), new_context(browser)
    proc = None
    try:
        owner = open_page(context)
        owner.goto(f"{server.url}/")
        status, body = api(
            owner, "POST", "/api/account", {"username": "bea_b", "password": PASSWORD}
        )
        assert status == 201, body
        page = owner
        page.goto(f"{server.url}/account")
        until(page, "() => !document.querySelector('#bots-form').hidden", why="no bots form")
        page.locator("#bot-username").fill("bea_bot")
        page.locator("#bot-create").click()
        until(page, "() => !document.querySelector('#bot-token').hidden", why="no token shown")
        token = page.locator("#bot-token-value").inner_text().strip()
        assert token.startswith("hkbot_")
        shot(page, "bots-account.png")

        proc = subprocess.Popen(
            [*BOT, "--server", server.url, "--token", token, "random"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        page.goto(f"{server.url}/lobby")
        until(page, "() => document.querySelector('[data-bot=\"bea_bot\"]') !== null", why="no bot")
        until(
            page,
            '() => document.querySelector(\'[data-bot="AI-beginner"][data-house="true"]\')',
            why="no house bots",
        )
        row = page.locator('[data-bot="bea_bot"]')
        assert row.locator(".bot-badge").inner_text() == "BOT"
        page.locator("#control").select_option("3+2")
        page.locator("#rated").check()
        shot(page, "bots-lobby.png")
        row.locator("button").click()  # one's own bot: casual games only
        until(page, "() => !document.querySelector('#lobby-error').hidden", why="no refusal")
        assert page.locator("#lobby-error").inner_text() == (
            "This is your own bot: a game against it cannot be rated. Untick “Rated” to play it."
        )

        page = open_page(player)  # another player challenges it, rated
        page.goto(f"{server.url}/")
        status, body = api(
            page, "POST", "/api/account", {"username": "cleo_c", "password": PASSWORD}
        )
        assert status == 201, body
        page.goto(f"{server.url}/lobby")
        until(page, "() => document.querySelector('[data-bot=\"bea_bot\"]') !== null", why="no bot")
        page.locator("#control").select_option("3+2")
        page.locator("#rated").check()
        page.locator('[data-bot="bea_bot"] button').click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"), timeout=20_000)
        wait_for_game(page)
        game = game_id(page)
        until(page, "() => document.querySelector('#opp-name .bot-badge') !== null", why="no mark")
        assert page.locator("#opp-name").inner_text().startswith("bea_bot")
        assert page.locator("#chat").is_hidden()  # a bot does not chat: no box to talk into
        play_by_clicks([page], random.Random(18))
        shot(page, "bots-game-over.png")
        no_page_errors(page)

        status, profile = api(page, "GET", "/api/players/bea_bot")
        assert status == 200 and profile["bot"] == {"owner": "bea_b", "house": False, "level": None}
        assert profile["ratings"]["real-time"]["games"] == 1
        assert profile["games"][0]["game"] == game and profile["games"][0]["rated"]
        status, mine = api(page, "GET", "/api/players/cleo_c")
        assert mine["ratings"]["real-time"]["games"] == 1
        page.goto(f"{server.url}/@/bea_bot")
        until(page, "() => !document.querySelector('#profile-bot').hidden", why="no bot mark")
        assert "@bea_b" in page.locator("#profile-bot").inner_text()
        no_page_errors(page)
    finally:
        context.close()
        player.close()
        if proc is not None:
            proc.terminate()
            proc.wait(10)
            if proc.stderr is not None:
                proc.stderr.close()


def _apart(page: Page, a: str, b: str) -> None:
    """The boxes of ``a`` and ``b`` do not overlap (a row's buttons never cover its text)."""
    one, two = page.locator(a).bounding_box(), page.locator(b).bounding_box()
    assert one is not None and two is not None, (a, b)
    assert (
        one["y"] + one["height"] <= two["y"] + 0.5
        or two["y"] + two["height"] <= one["y"] + 0.5
        or one["x"] + one["width"] <= two["x"] + 0.5
        or two["x"] + two["width"] <= one["x"] + 0.5
    ), (a, one, b, two)


def test_the_account_page_changes_what_a_bot_accepts_and_asks_before_cutting_it_off(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        status, body = api(
            page, "POST", "/api/account", {"username": "dora_b", "password": PASSWORD}
        )
        assert status == 201, body
        page.goto(f"{server.url}/account")
        until(page, "() => !document.querySelector('#bots-form').hidden", why="no bots form")
        page.locator("#bot-username").fill("dora_bot")
        page.locator("#bot-create").click()
        until(page, "() => document.querySelector('[data-bot=\"dora_bot\"]')", why="no row")
        row = page.locator('[data-bot="dora_bot"]')
        # the form's default is the API's: every family of clocks
        assert api(page, "GET", "/api/bots")[1]["bots"][0]["accepts"]["controls"] == [
            "real-time",
            "correspondence",
            "none",
        ]
        what = row.locator(".bot-row-what").inner_text()
        every = "plays real time, correspondence, untimed; rated or casual; 2 at once"
        assert what == f"not connected · {every}", what
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 800})
            _apart(
                page, '[data-bot="dora_bot"] .bot-row-what', '[data-bot="dora_bot"] .bot-actions'
            )
            shot(page, f"bots-account-row-{width}.png", full_page=False)
        page.set_viewport_size({"width": 1280, "height": 800})

        # what it accepts, changed in its row
        row.locator('[data-action="edit"]').click()
        editor = row.locator(".bot-editor")
        assert editor.is_visible()
        editor.locator('input[value="none"]').uncheck()
        editor.locator('input[value="casual"]').uncheck()
        editor.locator('input[name="edit-games"]').fill("1")
        shot(page, "bots-account-edit.png", full_page=False)
        editor.locator('[data-action="save"]').click()
        until(page, "() => !document.querySelector('#bots-saved').hidden", why="not saved")
        accepts = api(page, "GET", "/api/bots")[1]["bots"][0]["accepts"]
        assert accepts == {
            "controls": ["real-time", "correspondence"],
            "rated": True,
            "casual": False,
            "games": 1,
        }
        assert row.locator(".bot-editor").count() == 0
        assert "rated only; 1 at once" in row.locator(".bot-row-what").inner_text()
        # nothing ticked: refused, saying why, nothing changed
        row.locator('[data-action="edit"]').click()
        for box in ("real-time", "correspondence"):
            row.locator(f'.bot-editor input[value="{box}"]').uncheck()
        row.locator('.bot-editor [data-action="save"]').click()
        until(page, "() => document.querySelector('.bot-edit-error')", why="not refused")
        assert api(page, "GET", "/api/bots")[1]["bots"][0]["accepts"] == accepts
        # refused: said in the row, the boxes as the owner left them (they were all ticked again)
        assert row.locator(".bot-edit-error").is_visible()
        assert row.locator('.bot-editor input[name="edit-control"]:checked').count() == 0
        assert page.locator("#bots-form > .form-error").is_hidden()
        row.locator('.bot-editor [data-action="no"]').click()
        assert row.locator(".bot-edit-error").count() == 0
        # a count of games that is no number is refused, not taken as 1
        page.locator("#bot-username").fill("dora_bot2")
        page.locator("#bot-games").fill("")
        page.locator("#bot-create").click()
        until(page, "() => !document.querySelector('#bots-form > .form-error').hidden", why="")
        assert len(api(page, "GET", "/api/bots")[1]["bots"]) == 1

        # a new token and a revocation ask first; Cancel changes nothing
        row.locator('[data-action="token"]').click()
        assert "cuts the bot off now" in row.locator(".bot-confirm-text").inner_text()
        shot(page, "bots-account-confirm.png", full_page=False)
        row.locator('[data-action="no"]').click()
        assert page.locator("#bot-token").is_visible()  # the first token, still the one shown
        first = page.locator("#bot-token-value").inner_text()
        row.locator('[data-action="token"]').click()
        row.locator('[data-action="token-yes"]').click()
        until(
            page,
            "t => document.querySelector('#bot-token-value').textContent !== t",
            first,
            why="no new token",
        )
        row.locator('[data-action="revoke"]').click()
        row.locator('[data-action="revoke-yes"]').click()
        until(
            page,
            "() => /no token/.test(document.querySelector('[data-bot] .bot-row-what').textContent)",
            why="",
        )
        assert api(page, "GET", "/api/bots")[1]["bots"][0]["token"] is False
        no_page_errors(page)
    finally:
        context.close()


class RawBot:
    """A bot on the bot API, in a thread of its own, that declines every challenge offered to it
    (after ``delay`` seconds), or with ``forfeit`` accepts them and forfeits its first decision,
    its engine said to have crashed."""

    def __init__(self, url: str, token: str, delay: float, forfeit: bool = False) -> None:
        self.url = url.replace("http", "ws", 1) + "/ws/bot"
        self.token, self.delay, self.forfeit = token, delay, forfeit
        self.declined: list[str] = []
        self.welcomed = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self.run()), daemon=True)
        self.thread.start()
        assert self.welcomed.wait(10), "the bot was not welcomed"

    async def run(self) -> None:
        async with aiohttp.ClientSession() as http, http.ws_connect(self.url) as ws:
            hello = {"type": "hello", "protocol": "hanamikoji-bot/1", "token": self.token}
            await ws.send_json(hello)
            while not self.stop.is_set():
                try:
                    msg = await ws.receive_json(timeout=0.2)
                except TimeoutError:
                    continue
                if msg["type"] == "welcome":
                    self.welcomed.set()
                elif msg["type"] == "challenge" and self.forfeit:
                    await ws.send_json({"type": "accept", "id": msg["challenge"]["id"]})
                elif msg["type"] == "challenge":
                    await asyncio.sleep(self.delay)
                    await ws.send_json({"type": "decline", "id": msg["challenge"]["id"]})
                    self.declined.append(msg["challenge"]["id"])
                elif msg["type"] == "act":
                    failure = {"type": "forfeit", "game": msg["game"], "kind": "crash"}
                    await ws.send_json(failure)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


@pytest.mark.parametrize("delay", [0.0, 1.5], ids=["at-once", "later"])
def test_a_bot_that_declines_is_said_to_have_declined(
    browser: Browser, server: Server, delay: float
) -> None:
    """The challenger is told, whether the bot declines at once (before the page heard of the
    challenge it made) or while the page waits; the challenge no longer waits."""
    context = new_context(browser)
    bot = None
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        owner = f"eve_{int(delay * 10)}"
        status, body = api(page, "POST", "/api/account", {"username": owner, "password": PASSWORD})
        assert status == 201, body
        status, made = api(page, "POST", "/api/bots", {"username": f"{owner}_bot"})
        assert status == 201, made
        bot = RawBot(server.url, made["token"], delay)
        page.goto(f"{server.url}/lobby")
        row = page.locator(f'[data-bot="{owner}_bot"]')
        until(page, f"() => document.querySelector('[data-bot=\"{owner}_bot\"]')", why="no bot")
        row.locator("button").click()
        until(page, "() => !document.querySelector('#lobby-error').hidden", why="not told")
        assert page.locator("#lobby-error").inner_text() == (
            f"{owner}_bot declined your challenge: try another time control, or another bot."
        )
        assert page.locator("#lobby-waiting").is_hidden()
        assert len(bot.declined) == 1
        box = page.locator("#lobby-error").bounding_box()  # in sight, where the eye is not
        size = page.viewport_size
        assert box and size and box["y"] >= -1 and box["y"] + box["height"] <= size["height"] + 1
        shot(page, f"bots-declined-{int(delay * 10)}.png", full_page=False)
        no_page_errors(page)
    finally:
        if bot is not None:
            bot.close()
        context.close()


def test_a_bots_forfeit_says_why(browser: Browser, server: Server) -> None:
    """The table says why a bot lost by forfeit (its engine crashed), not only that it did."""
    context = new_context(browser)
    bot = None
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        status, body = api(
            page, "POST", "/api/account", {"username": "fay_b", "password": PASSWORD}
        )
        assert status == 201, body
        status, made = api(page, "POST", "/api/bots", {"username": "fay_bot"})
        assert status == 201, made
        bot = RawBot(server.url, made["token"], 0.0, forfeit=True)
        page.goto(f"{server.url}/lobby")
        until(page, "() => document.querySelector('[data-bot=\"fay_bot\"]')", why="no bot")
        page.locator("#control").select_option("none")
        page.locator('[data-bot="fay_bot"] button').click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"), timeout=20_000)
        wait_for_game(page)
        if page.locator("#game").get_attribute("data-status") != "over":
            play_by_clicks([page], random.Random(2))
        until(page, "() => !document.querySelector('#result').hidden", why="no result")
        assert page.locator("#result-reason").inner_text() == (
            "fay_bot's engine failed (it crashed): the game is yours by forfeit."
        )
        # its bridge gone, a rematch is refused, saying so, and the button is there to try again
        bot.close()
        page.wait_for_timeout(500)
        page.locator("#rematch").click()
        until(page, "() => !document.querySelector('#error').hidden", why="not refused")
        until(page, "() => !document.querySelector('#rematch').disabled", why="the button stays")
        assert page.locator("#rematch").inner_text() == "Rematch"
        page.locator("#review-link").click()
        until(page, "() => document.querySelector('#players .bot-badge')", why="no bot mark")
        assert page.locator("#players .bot-badge").count() == 1
        # the review says why too (it said only "lost by forfeit")
        until(page, "() => /engine failed/.test(document.body.textContent)", why="no cause")
        assert "fay_bot's engine failed (it crashed)." in page.locator("body").inner_text()
        no_page_errors(page)
    finally:
        if bot is not None:
            bot.close()
        context.close()
