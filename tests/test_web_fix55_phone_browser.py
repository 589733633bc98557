"""The table on a phone, third pass (Playwright, Chromium, touch phones' viewports).

- On its side (740x360, 844x390), timed or not, the page opens at the first decision with the
  score bar and the status's newest line pinned at the top, in view with the hand and the actions.
- On its side, a round's scoring shows all of its board (the lower row of cards, your side) in
  the dialog above Continue, at every step.
- Upright (360x740, 390x844), while choosing cards (one card selected): Hint, Undo and Resign are
  wholly on screen, the whole board stands above the pinned hand, and the status's newest line is
  in view; scrolled to the end, the whole board is still above the hand.
- The guide, opened upright, keeps its height to the room above the board as the page scrolls
  and as the phone is turned (upright, on its side, upright).
- Turned (upright, on its side, upright) at a decision, the status's line is never under the
  pinned score bar.

Screenshots: ``test-output/screenshots/fix55-*.png``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    AI_TIMEOUT_MS,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from test_web_fix52_phone2_browser import guided_game, inside, play_to_the_scoring, settle
from web_support import Server

UPRIGHT: ViewportSize = {"width": 360, "height": 740}
TALL: ViewportSize = {"width": 390, "height": 844}
ON_ITS_SIDE: ViewportSize = {"width": 740, "height": 360}
WIDE_SIDE: ViewportSize = {"width": 844, "height": 390}

# The table's parts on screen (viewport coordinates); for the status's newest line and the
# game's buttons also whether they are drawn on top at their middle (not under a pinned part).
PARTS_JS = """() => {
  const box = (e) => {
    if (!e || !e.getClientRects().length) return null;
    const r = e.getBoundingClientRect();
    const at = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom,
             onTop: Boolean(at && (at === e || e.contains(at))) };
  };
  const dock = document.querySelector('.my-area');
  return {
    vw: innerWidth, vh: innerHeight, sy: scrollY,
    pinned: getComputedStyle(dock).position === 'sticky',
    bar: box(document.querySelector('#scorebar')),
    now: box(document.querySelector('#status .now')),
    board: box(document.querySelector('#board')),
    dock: box(dock),
    hand: box(document.querySelector('#hand')),
    actions: box(document.querySelector('#my-actions')),
    buttons: [...document.querySelectorAll('.game-controls .btn')].map(box).filter(Boolean),
  };
}"""

# The scoring dialog at its top: its board's box, Continue's row, and whether it scrolls.
SCORING_JS = """() => {
  const d = document.querySelector('#scoring');
  if (!d || !d.open) return null;
  d.scrollTop = 0;
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const cards = [...d.querySelectorAll('#scoring-board .pcard, #scoring-board .geisha-card')];
  return {
    vh: innerHeight, dialog: box(d), board: box(d.querySelector('#scoring-board')),
    lowest: Math.max(...cards.map((c) => c.getBoundingClientRect().bottom)),
    actions: box(d.querySelector('.dialog-actions')),
  };
}"""

# The opened guide's box and the board's top.
GUIDE_JS = """() => {
  const g = document.querySelector('#guide');
  const r = g.getBoundingClientRect();
  return { vh: innerHeight, sy: scrollY, top: r.top, bottom: r.bottom,
           fixed: getComputedStyle(g).position === 'fixed',
           folded: g.classList.contains('folded'), hidden: g.hidden,
           board: document.querySelector('#board').getBoundingClientRect().top };
}"""


def phone_game(browser: Browser, server: Server, size: ViewportSize, control: str) -> Page:
    """A three-round game against the easy AI on a touch phone, this page's player first."""
    context = new_context(browser, viewport=size, is_mobile=True, has_touch=True)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "control": control},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    return page


def parts(page: Page) -> dict[str, Any]:
    seen: dict[str, Any] = page.evaluate(PARTS_JS)
    return seen


def on_screen(r: dict[str, Any] | None, seen: dict[str, Any]) -> bool:
    return r is not None and inside(r, 0, seen["vh"], 0, seen["vw"])


def assert_status_in_view(where: str, seen: dict[str, Any]) -> None:
    now = seen["now"]
    assert on_screen(now, seen), f"{where}: the status's line is off screen: {seen}"
    assert now["onTop"], f"{where}: something lies over the status's line: {seen}"


def size_id(size: ViewportSize) -> str:
    return f"{size['width']}x{size['height']}"


@pytest.mark.parametrize(
    ("size", "control"),
    [(ON_ITS_SIDE, "none"), (WIDE_SIDE, "none"), (ON_ITS_SIDE, "10+5"), (WIDE_SIDE, "10+5")],
    ids=["740x360", "844x390", "740x360-timed", "844x390-timed"],
)
def test_on_its_side_the_page_opens_with_the_status_and_the_hand_in_view(
    server: Server, browser: Browser, size: ViewportSize, control: str
) -> None:
    page = phone_game(browser, server, size, control)
    try:
        where = f"{size_id(size)} {control}, the first decision"
        wait_for_my_turn(page)
        settle(page)
        seen = parts(page)
        shot(page, f"fix55-side-open-{size_id(size)}-{control}.png", full_page=False)
        assert not seen["pinned"], f"{where}: the dock is pinned on a short screen: {seen}"
        assert on_screen(seen["bar"], seen), f"{where}: the score bar is off screen: {seen}"
        assert_status_in_view(where, seen)
        assert on_screen(seen["hand"], seen), f"{where}: the hand is off screen: {seen}"
        assert on_screen(seen["actions"], seen), f"{where}: the actions are off screen: {seen}"
        no_horizontal_scroll(page)
        no_page_errors(page)
    finally:
        page.context.close()


@pytest.mark.parametrize("size", [ON_ITS_SIDE, WIDE_SIDE], ids=size_id)
def test_on_its_side_the_scoring_shows_its_whole_board(
    server: Server, browser: Browser, size: ViewportSize
) -> None:
    page = phone_game(browser, server, size, "none")
    try:
        play_to_the_scoring(page, random.Random(5))
        for step in range(12):
            page.wait_for_timeout(150)
            seen = page.evaluate(SCORING_JS)
            if seen is None:
                break
            where = f"{size_id(size)}, the scoring's step {step + 1}"
            if step == 0:
                shot(page, f"fix55-scoring-{size_id(size)}.png", full_page=False)
            assert seen["lowest"] <= seen["actions"]["top"] + 0.5, (
                f"{where}: the board's lower row is under Continue: {seen}"
            )
            assert seen["board"]["top"] >= seen["dialog"]["top"] - 0.5, seen
            assert seen["dialog"]["bottom"] <= seen["vh"] + 0.5, seen
            page.locator("#scoring-continue").click()
        else:
            raise AssertionError("the scoring does not close")
        no_page_errors(page)
    finally:
        page.context.close()


def test_upright_the_buttons_and_your_side_stay_in_view_while_choosing(
    server: Server, browser: Browser
) -> None:
    for size in (UPRIGHT, TALL):
        page = phone_game(browser, server, size, "none")
        try:
            where = f"{size_id(size)}, one card selected"
            wait_for_my_turn(page)
            settle(page)
            page.locator("#hand button.card").first.click()
            settle(page)
            seen = parts(page)
            shot(page, f"fix55-upright-choosing-{size_id(size)}.png", full_page=False)
            assert seen["pinned"], f"{where}: the dock is not pinned: {seen}"
            assert seen["board"]["bottom"] <= seen["dock"]["top"] + 1, (
                f"{where}: the pinned hand lies over your side of the board: {seen}"
            )
            assert len(seen["buttons"]) == 3, seen
            for button in seen["buttons"]:
                assert on_screen(button, seen) and button["onTop"], (
                    f"{where}: Hint, Undo or Resign is cut or covered: {seen}"
                )
            assert_status_in_view(where, seen)
            # the player scrolls to the end: all of the board is above the pinned hand
            page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
            seen = parts(page)
            assert seen["board"]["bottom"] <= seen["dock"]["top"] + 1, (
                f"{where}, at the end: the pinned hand lies over the board: {seen}"
            )
            no_horizontal_scroll(page)
            no_page_errors(page)
        finally:
            page.context.close()


def test_the_opened_guide_follows_the_page(server: Server, browser: Browser) -> None:
    page = guided_game(browser, server, UPRIGHT)
    try:
        wait_for_my_turn(page)
        until(
            page,
            "() => document.querySelector('#guide')?.dataset.topic",
            why="no guide",
            timeout=AI_TIMEOUT_MS,
        )
        if page.evaluate(GUIDE_JS)["folded"]:
            page.locator("#guide-fold").click()
        page.wait_for_timeout(200)
        seen = page.evaluate(GUIDE_JS)
        assert seen["fixed"] and not seen["folded"], f"the guide did not open over the page: {seen}"
        assert seen["bottom"] <= seen["board"] + 1, f"opened: the guide lies over the board: {seen}"
        # the player scrolls down a little: the guide gives the board its room
        page.evaluate("() => window.scrollBy(0, 90)")
        page.wait_for_timeout(200)
        seen = page.evaluate(GUIDE_JS)
        shot(page, "fix55-guide-scrolled.png", full_page=False)
        assert seen["sy"] > 0, seen
        assert seen["bottom"] <= seen["board"] + 1, f"scrolled: the guide stays as tall: {seen}"
        # turned on its side and back
        page.set_viewport_size(ON_ITS_SIDE)
        page.wait_for_timeout(300)
        page.set_viewport_size(UPRIGHT)
        page.wait_for_timeout(300)
        seen = page.evaluate(GUIDE_JS)
        shot(page, "fix55-guide-turned.png", full_page=False)
        assert seen["fixed"] and not seen["folded"], seen
        assert seen["bottom"] <= seen["board"] + 1, f"turned: the guide lies over the board: {seen}"
        assert seen["bottom"] <= seen["vh"], seen
        no_page_errors(page)
    finally:
        page.context.close()


@pytest.mark.parametrize("control", ["none", "10+5"])
def test_turned_the_status_is_never_under_the_pinned_bar(
    server: Server, browser: Browser, control: str
) -> None:
    page = phone_game(browser, server, TALL, control)
    try:
        wait_for_my_turn(page)
        settle(page)
        for turn, size in enumerate((WIDE_SIDE, TALL, WIDE_SIDE)):
            page.set_viewport_size(size)
            page.wait_for_timeout(300)
            where = f"{control}, turned to {size_id(size)} ({turn + 1})"
            shot(page, f"fix55-turned-{control}-{turn + 1}.png", full_page=False)
            seen = parts(page)
            assert_status_in_view(where, seen)
            if size is WIDE_SIDE:
                # on its side the player scrolls down to the hand: the status stays in view
                page.locator("#my-actions").scroll_into_view_if_needed()
                page.wait_for_timeout(100)
                seen = parts(page)
                assert on_screen(seen["actions"], seen), seen
                assert_status_in_view(f"{where}, at the hand", seen)
        no_page_errors(page)
    finally:
        page.context.close()
