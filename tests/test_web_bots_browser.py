"""A bot in the browser: its owner makes it on the account page (the token shown once), runs
``hanamikoji bot`` with it, and finds it in the lobby, marked as a bot beside the house AI
levels; the owner's rated challenge to it is refused, saying why; another player's whole rated
3+2 game by clicks against it, the bot marked at the table; both ratings move, the bot's profile
says whose bot it is."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from typing import Any

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
