"""A game given up before any round was scored: its review tells who won and how, without a score
line of zeros ("Charm: Tester 0, AI (Easy) 0. Geisha: ...") that reads as if one was counted; a
game with a round scored keeps it. In every language."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor

import aiohttp
import pytest
from playwright.sync_api import Browser

from browser_support import STEP, new_context, no_page_errors, open_page, shot, until
from test_web_review_fix_phone_browser import finished, server  # noqa: F401 (a fixture)
from web_support import Seat, Server, my_turn, over

SCORE_WORDS = {"en": "Charm:", "fr": "Points Art", "ru": "Обаяние:", "cs": "Šarm:"}
RESIGNED = {
    "en": "AI (Easy) won: Tester resigned.",
    "fr": "L'IA (Facile) a gagné : Tester a abandonné.",
}


async def _resign_in_round_one(base: str) -> tuple[str, str]:
    """A game against easy that Tester resigns after their first move: (game, token)."""
    async with aiohttp.ClientSession() as session:
        response = await session.post(
            f"{base}/api/games",
            json={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "name": "Tester"},
        )
        data = await response.json()
        async with session.ws_connect(f"{base}/ws/{data['game']}?t={data['token']}") as ws:
            seat = Seat(ws)
            state = await seat.until(my_turn)
            version = state["game"]["version"]
            move = random.Random(1).choice(state["legal"])
            await seat.send(type="move", move=move, version=version)
            await seat.until(lambda s: s["game"]["version"] > version)
            await seat.send(type="resign")
            await seat.until(over)
    return str(data["game"]), str(data["token"])


def summary_of(browser: Browser, base: str, game: str, token: str, language: str, what: str) -> str:
    context = new_context(browser)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{language}')")
    try:
        page = open_page(context)
        page.goto(f"{base}/g/{game}?t={token}")
        page.goto(f"{base}/review/{game}")
        until(page, f"() => {STEP} !== ''", why="#step stays empty")
        text = page.locator("#summary").inner_text().strip()
        shot(page, f"review-fix-score-{what}-{language}.png", full_page=False)
        no_page_errors(page)
        return text
    finally:
        context.close()


@pytest.mark.parametrize("language", list(SCORE_WORDS))
def test_a_game_given_up_in_round_one_has_no_score_line(
    server: Server,  # noqa: F811
    browser: Browser,
    language: str,
) -> None:
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API runs a loop in this thread
        game, token = pool.submit(asyncio.run, _resign_in_round_one(server.url)).result(60)
    summary = summary_of(browser, server.url, game, token, language, "round-1")
    assert SCORE_WORDS[language] not in summary, summary
    if language in RESIGNED:
        assert summary == RESIGNED[language]
    # a game with its rounds scored tells the score
    game, token = finished(server, "Tester")
    assert SCORE_WORDS[language] in summary_of(browser, server.url, game, token, language, "full")
