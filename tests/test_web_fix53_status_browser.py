"""The status box at the table on a phone (360x740, 390x844) says when it has more above
(Playwright, Chromium).

- Too short for every line (about 110 px; English, and French's longer lines), it is scrolled
  to its newest lines: its top edge then fades (a sign that older lines are above), the newest
  line clear of the fade; scrolled back to its top, the fade goes. The box stays a keyboard
  stop, its lines read out as before.

Screenshots: ``test-output/screenshots/fix53-status-*.png``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    game_over,
    legal,
    make_move,
    new_context,
    no_page_errors,
    open_page,
    shot,
    wait_for_game,
    wait_for_my_turn,
)
from web_support import Server

STATUS_JS = """() => {
  const s = document.querySelector('#status');
  const fade = getComputedStyle(s, '::before');
  const box = s.getBoundingClientRect();
  const lines = [...s.children];
  const last = lines.length ? lines[lines.length - 1].getBoundingClientRect() : null;
  return {
    scrollHeight: s.scrollHeight, clientHeight: s.clientHeight, scrollTop: s.scrollTop,
    tabIndex: s.tabIndex, role: s.getAttribute('role'),
    fade: fade.content !== 'none' && fade.display !== 'none' ? parseFloat(fade.height) : 0,
    fadeEvents: fade.pointerEvents,
    top: box.top, bottom: box.bottom,
    lastTop: last ? last.top : null, lastBottom: last ? last.bottom : null,
  };
}"""


def ai_game(browser: Browser, server: Server, size: ViewportSize, lang: str) -> Page:
    context = new_context(browser, viewport=size)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    return page


@pytest.mark.parametrize(
    ("size", "lang"), [((360, 740), "en"), ((390, 844), "fr")], ids=["360x740-en", "390x844-fr"]
)
def test_the_status_fades_at_its_top_when_older_lines_are_above(
    server: Server, browser: Browser, size: tuple[int, int], lang: str
) -> None:
    width, height = size
    where = f"{width}x{height}-{lang}"
    seen: dict[str, Any] = {}
    rng = random.Random(1)
    # a round's start (its scoring's line, the opponent's move, your turn) overflows the box;
    # a game won in its first round may have none: then another game
    for _ in range(3):
        page = ai_game(browser, server, {"width": width, "height": height}, lang)
        for turn in range(40):
            wait_for_my_turn(page)
            if game_over(page):
                break
            seen = page.evaluate(STATUS_JS)
            if seen["scrollHeight"] > seen["clientHeight"] + 4:
                break
            assert not seen["fade"], f"{where}, decision {turn + 1}: a fade on a whole box: {seen}"
            make_move(page, rng.choice(legal(page)))
        if seen and seen["scrollHeight"] > seen["clientHeight"] + 4:
            break
        page.context.close()
    else:
        raise AssertionError("the status never had more lines than its box in three games")
    try:
        assert seen["scrollHeight"] > seen["clientHeight"] + 4, f"{where}: never overflowed"
        page.locator("#status").scroll_into_view_if_needed()
        shot(page, f"fix53-status-{where}-newest.png", full_page=False)
        assert seen["scrollTop"] > 1, f"{where}: not at its newest lines: {seen}"
        assert seen["fade"] >= 8, f"{where}: no sign of the lines above: {seen}"
        assert seen["fadeEvents"] == "none", f"{where}: the fade takes the clicks: {seen}"
        assert seen["lastTop"] >= seen["top"] + seen["fade"], f"{where}: newest line faded: {seen}"
        assert seen["tabIndex"] == 0 and seen["role"] == "status", seen
        # scrolled back to its top: nothing is above, no fade
        page.evaluate("() => { document.querySelector('#status').scrollTop = 0; }")
        page.wait_for_timeout(200)
        top = page.evaluate(STATUS_JS)
        shot(page, f"fix53-status-{where}-top.png", full_page=False)
        assert not top["fade"], f"{where}: the fade stays at the top: {top}"
        # and down again, by the keyboard
        page.locator("#status").focus()
        page.keyboard.press("End")
        page.wait_for_timeout(300)
        down = page.evaluate(STATUS_JS)
        assert down["scrollTop"] > 1 and down["fade"] >= 8, f"{where}: End: {down}"
        no_page_errors(page)
    finally:
        page.context.close()
