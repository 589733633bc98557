"""The status at the table on a touch phone, fourth pass (Playwright, Chromium).

- On its side (844x390, 740x360), the moves of the opponent shown one at a time ("tap to
  skip"): whenever the pinned status changes, the line of what to do now is wholly in view in it
  (below the pinned score bar, clear of its top's fade), and so is the newest line of what the
  opponent did; at each decision, the page settled, every geisha is in view below the pinned
  status, with the hand under them (at an offer, its choices in view).
- Turned from its side back upright in a timed game (its score bar pinned), the status's whole
  box, its top edge too, is in view below the bar.

Screenshots: ``test-output/screenshots/fix57-*.png``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    AI_TIMEOUT_MS,
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
from test_web_fix52_phone2_browser import inside, settle
from web_support import Server

TALL: ViewportSize = {"width": 390, "height": 844}
WIDE_SIDE: ViewportSize = {"width": 844, "height": 390}
ON_ITS_SIDE: ViewportSize = {"width": 740, "height": 360}

# Where the status's lines are, measured after each change of its words has been laid out: the
# line of what to do now and the newest news against the box's inner area (less the fade at its
# top while it is scrolled) and the pinned score bar's foot.
RECORD = """
localStorage.setItem('hanamikoji.lang', 'en');
localStorage.setItem('hanamikoji.prefs', JSON.stringify({ pace: 'normal' }));
window.__seen = [];
window.__measure = () => {
  const s = document.querySelector('#status');
  const now = s && s.querySelector('.now');
  if (!now || !now.getClientRects().length) return null;
  const box = s.getBoundingClientRect();
  const top = box.top + s.clientTop;
  const fade = s.classList.contains('more-above')
    ? parseFloat(getComputedStyle(s, '::before').height) || 0 : 0;
  const bar = document.querySelector('#scorebar');
  const pinned = getComputedStyle(bar).position === 'sticky';
  const barFoot = pinned ? bar.getBoundingClientRect().bottom : 0;
  const rects = [...now.getClientRects()];
  const news = [...s.querySelectorAll('.news')].pop();
  const n = news ? news.getBoundingClientRect() : null;
  return {
    text: s.innerText, skip: Boolean(s.querySelector('.skip')),
    boxTop: box.top, inner: [top, top + s.clientHeight], fade, barFoot,
    now: [rects[0].top, rects[rects.length - 1].bottom], news: n && [n.top, n.bottom],
  };
};
addEventListener('DOMContentLoaded', () => {
  const s = document.querySelector('#status');
  if (!s) return;
  new MutationObserver(() => requestAnimationFrame(() => {
    const m = window.__measure();
    if (m) window.__seen.push(m);
  })).observe(s, { subtree: true, childList: true, characterData: true });
});
"""

# The table's parts at a decision: the pinned top's foot (the score bar's and the status's, when
# they are pinned), every geisha, and the hand or the offer's choices.
TABLE_JS = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const foot = (e) =>
    getComputedStyle(e).position === 'sticky' ? e.getBoundingClientRect().bottom : 0;
  const picks = document.querySelector('#offer:not([hidden]) .picks');
  return {
    vw: innerWidth, vh: innerHeight, sy: scrollY,
    pinned: Math.max(foot(document.querySelector('#scorebar')),
                     foot(document.querySelector('#status'))),
    geisha: [...document.querySelectorAll('#board .geisha-card')].map(box),
    keep: box(picks || document.querySelector('#hand')),
  };
}"""


def phone_game(
    browser: Browser, server: Server, size: ViewportSize, control: str, motion: str = "reduce"
) -> Page:
    """A three-round game against the easy AI on a touch phone (its moves paced, as by default,
    where ``motion`` is "no-preference")."""
    context = new_context(
        browser, viewport=size, is_mobile=True, has_touch=True, reduced_motion=motion
    )
    context.add_init_script(RECORD)
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "control": control},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    return page


def size_id(size: ViewportSize) -> str:
    return f"{size['width']}x{size['height']}"


def assert_status_lines_in_view(where: str, m: dict[str, Any]) -> None:
    top, bottom = m["inner"]
    clear = max(top + m["fade"], m["barFoot"])
    assert m["now"][0] >= clear - 0.5 and m["now"][1] <= bottom + 0.5, (
        f"{where}: the line of what to do now is not wholly in view: {m}"
    )
    if m["news"]:
        assert m["news"][0] >= max(top, m["barFoot"]) - 0.5 and m["news"][1] <= bottom + 0.5, (
            f"{where}: the newest line of what the opponent did is out of view: {m}"
        )


@pytest.mark.parametrize("size", [WIDE_SIDE, ON_ITS_SIDE], ids=size_id)
def test_on_its_side_the_status_shows_what_happened_and_what_to_do(
    server: Server, browser: Browser, size: ViewportSize
) -> None:
    page = phone_game(browser, server, size, "none", "no-preference")
    where = size_id(size)
    try:
        rng = random.Random(57)
        decisions = 0
        for turn in range(10):
            wait_for_my_turn(page)
            if game_over(page):
                break
            settle(page)
            decisions += 1
            m = page.evaluate("() => window.__measure()")
            assert_status_lines_in_view(f"{where}, decision {turn + 1}", m)
            seen = page.evaluate(TABLE_JS)
            if turn in (1, 3):
                shot(page, f"fix57-side-{where}-{turn + 1}.png", full_page=False)
            # (an offer's choices take more room under the board: at 740x360 there is room for
            # them and part of each geisha only, which is not checked here)
            for k, g in enumerate(seen["geisha"] if legal(page)[0][0] != "P" else []):
                assert inside(g, seen["pinned"], seen["vh"], 0, seen["vw"]), (
                    f"{where}, decision {turn + 1}: geisha {k} is not wholly in view below the "
                    f"pinned status: {g}; {seen}; {m['text']!r}"
                )
            assert inside(seen["keep"], seen["pinned"], seen["vh"], 0, seen["vw"]), (
                f"{where}, decision {turn + 1}: the hand (or the offer) is out of view: {seen}"
            )
            moves = legal(page)
            # an offer of mine: the AI's pick and its own move come paced, one after the other
            offers = [move for move in moves if move[0] in "GC"]
            make_move(page, rng.choice(offers or moves))
        assert decisions >= 6, f"{where}: only {decisions} decisions"
        seen = page.evaluate("() => window.__seen")
        paced = [m for m in seen if m["skip"]]
        assert paced, f"{where}: the opponent's moves were never shown one at a time"
        for k, m in enumerate(seen):
            assert_status_lines_in_view(f"{where}, the status's change {k + 1}", m)
        no_page_errors(page)
    finally:
        page.context.close()


@pytest.mark.parametrize("control", ["10+5", "none"])
def test_turned_back_upright_the_status_box_is_whole_below_the_bar(
    server: Server, browser: Browser, control: str
) -> None:
    page = phone_game(browser, server, TALL, control)
    try:
        wait_for_my_turn(page, AI_TIMEOUT_MS)
        settle(page)
        for turn, size in enumerate((WIDE_SIDE, TALL, WIDE_SIDE, TALL)):
            page.set_viewport_size(size)
            settle(page)
            where = f"{control}, turned to {size_id(size)} ({turn + 1})"
            m = page.evaluate("() => window.__measure()")
            shot(page, f"fix57-turned-{control}-{turn + 1}.png", full_page=False)
            assert m["boxTop"] >= m["barFoot"] - 0.5, (
                f"{where}: the status's top edge is under the pinned bar: {m}"
            )
            assert_status_lines_in_view(where, m)
            if size is WIDE_SIDE:
                # on its side the player scrolls down to the hand and the actions, then turns
                page.locator("#my-actions").scroll_into_view_if_needed()
                settle(page)
        no_page_errors(page)
    finally:
        page.context.close()
