"""The guided first game on a touch phone on its side (Playwright, Chromium).

The page opens at the hand there, under the pinned score bar and status: the open guide, above
the board in the column, lay above the screen (its box at y -251 to -85 at 844x390) and the new
player never saw its words. At each of the guide's steps (each decision, each action pressed
before its move is confirmed, the game's end), the guide's box is wholly in view below the
pinned score bar and status, its words whole (none scrolled out of its box), and so is what it
asks the player to use: the hand and the actions, an offer's choices, the moves to confirm (at
the end, the result). The whole game is played, random moves by clicks.

Screenshots: ``test-output/screenshots/fix57-guide-*.png``.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    cards_of,
    game_over,
    history_length,
    legal,
    new_context,
    no_page_errors,
    open_page,
    shot,
    wait_for_game,
    wait_for_my_turn,
)
from test_web_fix52_phone2_browser import settle
from web_support import Server

WIDE_SIDE: ViewportSize = {"width": 844, "height": 390}
ON_ITS_SIDE: ViewportSize = {"width": 740, "height": 360}

# The guide's box and words, the pinned top's foot (the score bar's, the status's) and the
# parts of the table the player uses now.
SEEN_JS = """() => {
  const box = (e) => {
    if (!e || !e.getClientRects().length) return null;
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const foot = (e) =>
    getComputedStyle(e).position === 'sticky' ? e.getBoundingClientRect().bottom : 0;
  const guide = document.querySelector('#guide');
  const body = document.querySelector('#guide-body');
  const offer = document.querySelector('#offer:not([hidden]) .picks');
  const choices = document.querySelector('#choices [data-move]') ? '#choices' : null;
  return {
    vw: innerWidth, vh: innerHeight,
    topic: guide.dataset.topic, hidden: guide.hidden, folded: guide.classList.contains('folded'),
    text: document.querySelector('#guide-text')?.textContent || '',
    guide: box(guide), words: box(document.querySelector('#guide-text')),
    cut: body ? body.scrollHeight - body.clientHeight : 0,
    result: box(document.querySelector('#result:not([hidden]) h2')),
    pinned: Math.max(foot(document.querySelector('#scorebar')),
                     foot(document.querySelector('#status'))),
    use: offer
      ? { offer: box(offer) }
      : choices
        ? { choices: box(document.querySelector(choices)) }
        : { hand: box(document.querySelector('#hand')),
            actions: box(document.querySelector('#my-actions')) },
  };
}"""


def guided_game(browser: Browser, server: Server, size: ViewportSize) -> Page:
    """A new player's first game with the guide, started from the home page, on a touch phone."""
    context = new_context(
        browser, viewport=size, is_mobile=True, has_touch=True, reduced_motion="reduce"
    )
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    page.goto(f"{server.url}/")
    page.locator("#start-guided").click()
    page.wait_for_url(re.compile(r"/g/[^/?#]+"))
    wait_for_game(page)
    return page


def within(r: dict[str, float] | None, top: float, seen: dict[str, Any]) -> bool:
    return (
        r is not None
        and r["top"] >= top - 0.5
        and r["bottom"] <= seen["vh"] + 0.5
        and r["left"] >= -0.5
        and r["right"] <= seen["vw"] + 0.5
    )


def assert_guide_and_table_in_view(where: str, seen: dict[str, Any]) -> None:
    assert not seen["hidden"] and not seen["folded"] and seen["text"], (
        f"{where}: the guide is not open with its words: {seen}"
    )
    assert within(seen["guide"], seen["pinned"], seen), (
        f"{where}: the guide's box is not wholly in view below the pinned score bar and "
        f"status: {seen}"
    )
    assert within(seen["words"], seen["pinned"], seen) and seen["cut"] <= 1, (
        f"{where}: the guide's words are not all in view: {seen}"
    )
    below = seen["guide"]["bottom"]
    for name, r in seen["use"].items():
        assert within(r, below, seen), (
            f"{where}: what the guide asks for ({name}) is not in view under the guide: {seen}"
        )


@pytest.mark.parametrize(
    "size", [WIDE_SIDE, ON_ITS_SIDE], ids=lambda s: f"{s['width']}x{s['height']}"
)
def test_on_its_side_the_guides_words_are_in_view_at_every_step(
    server: Server, browser: Browser, size: ViewportSize
) -> None:
    page = guided_game(browser, server, size)
    tag = f"{size['width']}x{size['height']}"
    try:
        rng = random.Random(57)
        topics: set[str] = set()
        for turn in range(40):
            wait_for_my_turn(page)
            if game_over(page):
                # the last step: the game over, its result under the guide
                page.wait_for_function("document.querySelector('#guide').dataset.topic === 'over'")
                settle(page)
                seen = page.evaluate(SEEN_JS)
                seen["use"] = {"result title": seen["result"]}
                shot(page, f"fix57-guide-{tag}-over.png", full_page=False)
                assert_guide_and_table_in_view(f"{tag}, the game over", seen)
                topics.add(seen["topic"])
                break
            settle(page)
            seen = page.evaluate(SEEN_JS)
            topics.add(seen["topic"])
            if turn < 3:
                shot(page, f"fix57-guide-{tag}-{turn + 1}.png", full_page=False)
            assert_guide_and_table_in_view(f"{tag}, decision {turn + 1}", seen)
            move = rng.choice(legal(page))
            before = history_length(page)
            if move[0] == "P":
                page.locator(f'#offer button[data-move="{move}"]').click()
            else:
                for card in cards_of(move):
                    page.locator(
                        f'#hand button.card[data-card="{card}"][aria-pressed="false"]'
                    ).first.click()
                page.locator(f'button[data-action="{move[0]}"]').click()
                page.wait_for_function(
                    "a => document.querySelector('#guide').dataset.topic === a", arg=move[0]
                )
                settle(page)
                seen = page.evaluate(SEEN_JS)
                topics.add(seen["topic"])
                if turn < 3:
                    shot(page, f"fix57-guide-{tag}-{turn + 1}-{move[0]}.png", full_page=False)
                assert_guide_and_table_in_view(f"{tag}, decision {turn + 1}, {move}", seen)
                page.locator(f'#choices button[data-move="{move}"]').click()
            page.wait_for_function(
                "n => Number(document.querySelector('#game').dataset.history) > n", arg=before
            )
        # the steps seen: the welcome, the actions pressed, an opponent's offer to pick from and
        # the game's end (a new round's, when the game lasts that long)
        assert {"welcome", "over"} <= topics and topics & {"S", "D", "G", "C"}, topics
        assert topics & {"pick_G", "pick_C", "pick"}, topics
        no_page_errors(page)
    finally:
        page.context.close()
