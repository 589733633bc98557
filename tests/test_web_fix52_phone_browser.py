"""The table on a phone held upright (360x740) and on its side (740x360) (Playwright, Chromium).

- Upright, the dock (the hand and the actions, pinned at the bottom) never lies over the geisha:
  with the page at its top the whole board is above it at the first decision, in English and
  French, timed or not; as each later decision comes (the status above has grown with the
  opponent's news) the page shows the board's foot above the dock, and even at the top the
  geisha themselves stay clear of it.
- A timed game's clock is on screen, drawn on top, at every decision, upright and on its side
  (on its side the page scrolls to the hand: the score bar stays pinned at the top).
- The "new" tag under the card just drawn stays inside the hand's box: it never lies over the
  row under the hand (the actions, or your Secret and Discard).
- Hint, Undo and Resign (and the resignation's two answers) each on one line, on one row,
  inside 360 px, in every language of static/i18n; the four actions' names too.
- The guide of a first game starts folded on a phone, a one-line strip with the step's headline
  (open, it pushed the geisha under the pinned hand); opened or folded by the player, it stays
  so for that game after a reload.

Screenshots: ``test-output/screenshots/fix52-*.png``.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    AI_TIMEOUT_MS,
    game_id,
    game_over,
    legal,
    make_move,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from hanamikoji.web.server import STATIC
from web_support import Server

UPRIGHT: ViewportSize = {"width": 360, "height": 740}
ON_ITS_SIDE: ViewportSize = {"width": 740, "height": 360}
LANGS = sorted(path.stem for path in (STATIC / "i18n").glob("*.json"))

# Where the table's parts are on screen (viewport coordinates).
TABLE_JS = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const dock = document.querySelector('.my-area');
  const geisha = [...document.querySelectorAll('#board .geisha-card')].map(box);
  const clock = document.querySelector('#my-standing .clock');
  let mine = null;
  if (clock) {
    const r = box(clock);
    const at = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    mine = { ...r, onTop: Boolean(at && (at === clock || clock.contains(at))) };
  }
  return {
    vw: innerWidth, vh: innerHeight, sy: scrollY,
    pinned: getComputedStyle(dock).position === 'sticky',
    board: box(document.querySelector('#board')), dock: box(dock),
    geishaBottom: Math.max(...geisha.map((g) => g.bottom)),
    clock: mine,
  };
}"""

# The "new" tag: inside the hand's box, over none of the rows that follow it.
TAG_JS = """() => {
  const tag = document.querySelector('#hand .drawn-tag');
  if (!tag) return null;
  const t = tag.getBoundingClientRect();
  const hand = document.querySelector('#hand').getBoundingClientRect();
  const over = [];
  const rows = '#my-actions .btn, .hand-row .holder.mine .pile-box, #choices > *, #offer';
  for (const e of document.querySelectorAll(rows)) {
    if (!e.getClientRects().length) continue;
    const r = e.getBoundingClientRect();
    const w = Math.min(t.right, r.right) - Math.max(t.left, r.left);
    const h = Math.min(t.bottom, r.bottom) - Math.max(t.top, r.top);
    if (w > 0.5 && h > 0.5) over.push(`${e.tagName}.${e.className} "${e.textContent.trim()}"`);
  }
  return { over, below: t.bottom - hand.bottom, text: tag.textContent };
}"""

# Each visible button of a row: its box and the lines its words take.
BUTTONS_JS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((b) => b.getClientRects().length)
  .map((b) => {
    const r = b.getBoundingClientRect();
    const words = document.createRange();
    words.selectNodeContents(b);
    const lines = new Set([...words.getClientRects()].filter((x) => x.width > 0)
      .map((x) => Math.round(x.top))).size;
    return { id: b.id, text: b.textContent.trim(), left: r.left, right: r.right, top: r.top,
             lines, spills: b.scrollWidth > b.clientWidth + 1 };
  })"""


def ai_game(browser: Browser, server: Server, size: ViewportSize, lang: str, control: str) -> Page:
    """A three-round game against the easy AI, this page's player first, in ``lang``."""
    context = new_context(browser, viewport=size)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "control": control},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    until(page, "l => document.documentElement.lang === l", lang, why=f"not in {lang}")
    return page


def settle(page: Page) -> None:
    """The decision's own scroll (js/game.js, the next frame) has been made."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)))")


def table(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(TABLE_JS)
    return result


def assert_clock_in_sight(where: str, seen: dict[str, Any]) -> None:
    clock = seen["clock"]
    assert clock is not None, f"{where}: no clock"
    inside = (
        clock["top"] >= -0.5
        and clock["left"] >= -0.5
        and clock["bottom"] <= seen["vh"] + 0.5
        and clock["right"] <= seen["vw"] + 0.5
    )
    assert inside, f"{where}: the clock is off screen: {seen}"
    assert clock["onTop"], f"{where}: something is drawn over the clock: {seen}"


def assert_board_above_dock(where: str, seen: dict[str, Any]) -> None:
    assert seen["board"]["bottom"] <= seen["dock"]["top"] + 1, (
        f"{where}: the dock lies over the board's foot (your side of the geisha): {seen}"
    )


def assert_tag_clear(page: Page, where: str) -> None:
    tag = page.evaluate(TAG_JS)
    assert tag is not None, f"{where}: no card is marked new"
    assert tag["below"] <= 0.5, f"{where}: the tag hangs {tag['below']:.1f}px below the hand"
    assert not tag["over"], f"{where}: the tag {tag['text']!r} lies over {tag['over']}"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_dock_leaves_the_geisha_in_sight_on_an_upright_phone(
    server: Server, browser: Browser, lang: str
) -> None:
    for control in ("none", "10+5"):
        page = ai_game(browser, server, UPRIGHT, lang, control)
        try:
            where = f"{lang}, {control} @ 360x740"
            wait_for_my_turn(page)
            settle(page)
            page.evaluate("() => window.scrollTo(0, 0)")
            seen = table(page)
            shot(page, f"fix52-upright-{lang}-{control}-first.png", full_page=False)
            assert seen["pinned"], f"{where}: the dock is not pinned at the bottom"
            assert_board_above_dock(f"{where}, the first decision at the top", seen)
            if control != "none":
                assert_clock_in_sight(f"{where}, the first decision", seen)
            assert_tag_clear(page, f"{where}, the first decision")
            no_horizontal_scroll(page)
            rng = random.Random(52)
            for turn in range(1, 5):
                make_move(page, rng.choice(legal(page)))
                wait_for_my_turn(page)
                if game_over(page):
                    break
                settle(page)
                state = f"{where}, decision {turn + 1} ({legal(page)[0][0]})"
                seen = table(page)
                assert_board_above_dock(f"{state}, as it came", seen)
                if control != "none":
                    assert_clock_in_sight(f"{state}, as it came", seen)
                if turn == 1:
                    shot(page, f"fix52-upright-{lang}-{control}-later.png", full_page=False)
                if page.locator("#hand .drawn-tag").count():
                    assert_tag_clear(page, state)
                if legal(page)[0][0] == "P":
                    continue  # an offer in the dock: the page brought the board above it
                # scrolled back to the top by the player: the geisha stay clear of the dock
                page.evaluate("() => window.scrollTo(0, 0)")
                seen = table(page)
                assert seen["geishaBottom"] <= seen["dock"]["top"] + 1, (
                    f"{state}, at the top: the dock lies over the geisha: {seen}"
                )
            no_page_errors(page)
        finally:
            page.context.close()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_clock_stays_in_sight_on_a_phone_on_its_side(
    server: Server, browser: Browser, lang: str
) -> None:
    page = ai_game(browser, server, ON_ITS_SIDE, lang, "10+5")
    try:
        where = f"{lang} @ 740x360"
        rng = random.Random(7)
        for turn in range(3):
            wait_for_my_turn(page)
            settle(page)
            state = f"{where}, decision {turn + 1}"
            seen = table(page)
            assert not seen["pinned"], f"{where}: the dock is pinned on a short screen: {seen}"
            assert_clock_in_sight(f"{state}, as it came (sy={seen['sy']})", seen)
            if turn == 0:
                shot(page, f"fix52-side-{lang}-first.png", full_page=False)
            if page.locator("#hand .drawn-tag").count():
                assert_tag_clear(page, state)
            # where the player looks: the hand and actions, the whole board, the top
            for part, block in (("#my-actions", "end"), ("#board", "end"), ("#board", "start")):
                page.evaluate(
                    "([s, b]) => document.querySelector(s).scrollIntoView({ block: b })",
                    [part, block],
                )
                assert_clock_in_sight(f"{state}, {part} in view ({block})", table(page))
            page.evaluate("() => window.scrollTo(0, 0)")
            assert_clock_in_sight(f"{state}, at the top", table(page))
            no_horizontal_scroll(page)
            make_move(page, rng.choice(legal(page)))
        no_page_errors(page)
    finally:
        page.context.close()


def test_the_games_buttons_fit_one_row_in_every_language(server: Server, browser: Browser) -> None:
    assert {"en", "fr"} <= set(LANGS), LANGS
    page = ai_game(browser, server, UPRIGHT, "en", "none")
    try:
        wait_for_my_turn(page)
        for lang in LANGS:
            page.locator("#lang").select_option(lang)
            until(page, "l => document.documentElement.lang === l", lang, why=f"not in {lang}")
            where = f"{lang} @ 360x740"
            page.locator(".game-controls").scroll_into_view_if_needed()
            shot(page, f"fix52-buttons-{lang}.png", full_page=False)
            buttons = page.evaluate(BUTTONS_JS, ".game-controls .btn")
            assert [b["id"] for b in buttons] == ["hint", "undo", "resign"], (where, buttons)
            for b in buttons:
                assert b["lines"] == 1 and not b["spills"], f"{where}: {b['text']!r} wraps: {b}"
                assert b["left"] >= -0.5 and b["right"] <= 360.5, f"{where}: {b} off screen"
            assert len({round(b["top"]) for b in buttons}) == 1, f"{where}: two rows: {buttons}"
            actions = page.evaluate(BUTTONS_JS, "#my-actions .btn.action .action-name")
            assert len(actions) == 4, (where, actions)
            for a in actions:
                assert a["lines"] == 1 and not a["spills"], f"{where}: {a['text']!r} wraps: {a}"
                assert a["left"] >= -0.5 and a["right"] <= 360.5, f"{where}: {a} off screen"
            # the resignation's question and its two answers
            page.locator("#resign").click()
            page.locator("#resign-no").wait_for()
            answers = page.evaluate(BUTTONS_JS, "#resign-confirm .btn")
            assert len(answers) == 2, (where, answers)
            for b in answers:
                assert b["lines"] == 1 and not b["spills"], f"{where}: {b['text']!r} wraps: {b}"
                assert b["left"] >= -0.5 and b["right"] <= 360.5, f"{where}: {b} off screen"
            page.locator("#resign-no").click()
            no_horizontal_scroll(page)
        no_page_errors(page)
    finally:
        page.context.close()


GUIDE_OPEN = """() => {
  const g = document.querySelector('#guide');
  return g && !g.hidden && g.dataset.topic && document.querySelector('#guide-text');
}"""


def test_the_guide_starts_folded_on_a_phone(server: Server, browser: Browser) -> None:
    context = new_context(browser, viewport=UPRIGHT)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        page.locator("#start-guided").click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_my_turn(page)
        until(page, "() => document.querySelector('#guide')?.dataset.topic", why="no guide")
        box = page.locator("#guide")
        fold = page.locator("#guide-fold")
        assert "folded" in (box.get_attribute("class") or ""), "the guide starts open"
        assert fold.get_attribute("aria-expanded") == "false"
        strip = box.bounding_box()
        assert strip is not None and strip["height"] <= 60, f"not a one-line strip: {strip}"
        assert page.locator("#guide .guide-heading").inner_text().strip(), "no headline"
        shot(page, "fix52-guide-folded.png", full_page=False)
        for part in ("#hand", "#my-actions"):
            seen = page.locator(part).bounding_box()
            assert seen is not None and seen["y"] >= 0 and seen["y"] + seen["height"] <= 741, (
                f"{part} is off screen with the guide folded: {seen}"
            )
        # opened by the player: it says it all, and stays open for this game after a reload
        fold.click()
        until(page, GUIDE_OPEN, why="the guide shows no explanation", timeout=AI_TIMEOUT_MS)
        assert fold.get_attribute("aria-expanded") == "true"
        key = f"hanamikoji.guide.{game_id(page)}"
        kept = page.evaluate("k => JSON.parse(localStorage.getItem(k))", key)
        assert kept["folded"] is False, kept
        page.reload()
        wait_for_game(page)
        until(page, "() => document.querySelector('#guide')?.dataset.topic", why="no guide")
        assert "folded" not in (box.get_attribute("class") or ""), "the opening was forgotten"
        # folded again: kept too
        fold.click()
        assert "folded" in (box.get_attribute("class") or "")
        page.reload()
        wait_for_game(page)
        until(page, "() => document.querySelector('#guide')?.dataset.topic", why="no guide")
        assert "folded" in (box.get_attribute("class") or ""), "the fold was forgotten"
        assert fold.get_attribute("aria-expanded") == "false"
        no_page_errors(page)
    finally:
        context.close()
