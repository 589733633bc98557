"""A friend game its creator ended before anyone joined has no review: the review's page and its API
(review, analysis, record, chat) say the invitation was withdrawn and nothing was played, as the
table and the list of one's games do, instead of "Player 2 won: Host resigned" over 0 moves.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import aiohttp
from playwright.sync_api import Browser

from browser_support import new_context, no_page_errors, open_page, shot, until
from web_support import Seat, Server, claim_invite, over

ENDPOINTS = ("review", "analysis", "record", "chat")


async def _friend_game(base: str, *, joined: bool) -> tuple[str, str]:
    """A friend game Host resigns, before anyone joined or after the friend did: (game, token)."""
    async with aiohttp.ClientSession() as session:
        response = await session.post(
            f"{base}/api/games", json={"mode": "friend", "seat": 0, "max_rounds": 3, "name": "Host"}
        )
        made = await response.json()
        assert response.status == 201, made
        if joined:
            await claim_invite(base, made["invite"], "Friend")
        async with session.ws_connect(f"{base}/ws/{made['game']}?t={made['token']}") as ws:
            seat = Seat(ws)
            await seat.until(lambda s: True)
            await seat.send(type="resign")
            await seat.until(over)
    return str(made["game"]), str(made["token"])


def friend_game(server: Server, *, joined: bool) -> tuple[str, str]:
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API runs a loop in this thread
        return pool.submit(asyncio.run, _friend_game(server.url, joined=joined)).result(60)


def test_a_withdrawn_invitation_has_no_review(server: Server, browser: Browser) -> None:
    game, token = friend_game(server, joined=False)
    context = new_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/g/{game}?t={token}")  # the creator's seat cookie
        for endpoint in ENDPOINTS:
            response = page.request.get(f"{server.url}/api/games/{game}/{endpoint}")
            body = response.json()
            assert (response.status, body["code"]) == (410, "withdrawn"), (endpoint, body)
            assert "nothing was played" in body["error"], body
        for language, words in (
            ("en", "Invitation withdrawn: nothing was played"),
            ("fr", "Invitation retirée : rien n'a été joué"),
        ):
            page.evaluate(f"localStorage.setItem('hanamikoji.lang', '{language}')")
            page.goto(f"{server.url}/review/{game}")
            until(page, "() => !document.querySelector('#error').hidden", why="no message shown")
            assert words in page.locator("#error").inner_text()
            assert page.locator("#review-body").is_hidden()
            text = page.locator("#review").inner_text()
            assert "Player 2" not in text and "resign" not in text, text
            shot(page, f"review-fix-withdrawn-{language}.png")
        no_page_errors(page)
    finally:
        context.close()


def test_a_friend_game_resigned_after_the_friend_came_keeps_its_review(
    server: Server, browser: Browser
) -> None:
    game, token = friend_game(server, joined=True)
    context = new_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/g/{game}?t={token}")
        for endpoint in ("review", "record"):
            response = page.request.get(f"{server.url}/api/games/{game}/{endpoint}")
            assert response.ok, (endpoint, response.status, response.text())
        page.goto(f"{server.url}/review/{game}")
        until(
            page,
            "() => /Friend won/.test(document.querySelector('#summary').textContent)",
            why="the review does not say who won",
        )
        no_page_errors(page)
    finally:
        context.close()
