"""The table on a phone, second pass (Playwright, Chromium).

- On its side (740x360), a timed game: the pinned score bar is one line, and every geisha is in
  view below it at the first decision and when an offer is shown (the page's own scrolls stop
  below the bar).
- A round's scoring on a short screen (740x360) and upright (360x740): the step's sentence and
  Continue are inside the dialog's visible area and the viewport at each step.
- A guided first game upright (360x740): the guide starts as a one-line strip with the step's
  headline, and the geisha and the hand are both in view at the first decision. A reload at
  the same decision shows the same step of the guide (the introduction did not stay).
- The focus ring of a card that merely has the focus (the card just drawn) is not a selection's.
- A friend's rematch (390x844): the one who asked is told the table waits for the friend to
  join, not that they are offline; the friend's way to it is a button-sized target.

Screenshots: ``test-output/screenshots/fix52b-*.png``.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    AI_TIMEOUT_MS,
    friend_game,
    game_over,
    legal,
    make_move,
    my_decision,
    new_context,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from web_support import Server

UPRIGHT: ViewportSize = {"width": 360, "height": 740}
ON_ITS_SIDE: ViewportSize = {"width": 740, "height": 360}

# Every geisha's box, the pinned bar's foot (0 when nothing is pinned at the top), the dock's top
# (the viewport's foot when it is not pinned) and the hand's box.
GEISHA_JS = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const bar = document.querySelector('#scorebar');
  const pinned = bar && getComputedStyle(bar).position === 'sticky';
  const dock = document.querySelector('.my-area');
  const docked = getComputedStyle(dock).position === 'sticky';
  return {
    vw: innerWidth, vh: innerHeight, sy: scrollY,
    barBottom: pinned ? bar.getBoundingClientRect().bottom : 0,
    barHeight: pinned ? bar.getBoundingClientRect().height : 0,
    dockTop: docked ? dock.getBoundingClientRect().top : innerHeight,
    geisha: [...document.querySelectorAll('#board .geisha-card')].map(box),
    hand: box(document.querySelector('#hand')),
  };
}"""

# The scoring dialog's visible area, the step's sentence and Continue.
SCORING_JS = """() => {
  const d = document.querySelector('#scoring');
  if (!d || !d.open) return null;
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const area = d.getBoundingClientRect();
  const cs = getComputedStyle(d);
  const w = (side) => parseFloat(cs[`border${side}Width`]);
  const inner = {
    left: area.left + w('Left'), right: area.right - w('Right'),
    top: area.top + w('Top'), bottom: area.bottom - w('Bottom'),
  };
  const text = document.querySelector('#scoring-text');
  const button = document.querySelector('#scoring-continue');
  const mid = (r) => document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  const b = box(button);
  const at = mid(b);
  return {
    vw: innerWidth, vh: innerHeight, area: inner, scrollTop: d.scrollTop,
    text: box(text), words: text.textContent, button: b,
    buttonOnTop: Boolean(at && (at === button || button.contains(at))),
  };
}"""


def settle(page: Page) -> None:
    """The page's own scrolls (js/game.js, smooth ones too) are over: the scroll stands still."""
    page.evaluate(
        """() => new Promise((done) => {
          let last = -1, still = 0;
          const look = () => {
            still = scrollY === last ? still + 1 : 0;
            last = scrollY;
            if (still >= 6) done(); else setTimeout(look, 50);
          };
          requestAnimationFrame(() => setTimeout(look, 50));
        })"""
    )


def inside(r: dict[str, float], top: float, bottom: float, left: float, right: float) -> bool:
    return (
        r["top"] >= top - 0.5
        and r["bottom"] <= bottom + 0.5
        and r["left"] >= left - 0.5
        and r["right"] <= right + 0.5
    )


def assert_geisha_in_view(where: str, seen: dict[str, Any]) -> None:
    for k, g in enumerate(seen["geisha"]):
        assert inside(g, seen["barBottom"], seen["dockTop"], 0, seen["vw"]), (
            f"{where}: geisha {k} is not in view below the pinned bar (and above the dock): "
            f"{g}; {seen}"
        )


def ai_game(browser: Browser, server: Server, size: ViewportSize, control: str) -> Page:
    """A three-round game against the easy AI, this page's player first, in English."""
    context = new_context(browser, viewport=size)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "control": control},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    return page


def test_the_geisha_stay_in_view_under_the_pinned_bar_on_its_side(
    server: Server, browser: Browser
) -> None:
    page = ai_game(browser, server, ON_ITS_SIDE, "10+5")
    try:
        wait_for_my_turn(page)
        settle(page)
        seen = page.evaluate(GEISHA_JS)
        shot(page, "fix52b-side-first.png", full_page=False)
        assert 0 < seen["barHeight"] <= 34, f"the pinned bar is not one short line: {seen}"
        assert_geisha_in_view("740x360, the first decision", seen)
        assert inside(seen["hand"], seen["barBottom"], seen["vh"], 0, seen["vw"]), seen
        rng = random.Random(3)
        offers = 0
        for turn in range(12):
            moves = legal(page)
            if moves[0][0] == "P":
                offers += 1
                seen = page.evaluate(GEISHA_JS)
                if offers == 1:
                    shot(page, "fix52b-side-offer.png", full_page=False)
                assert_geisha_in_view(f"740x360, decision {turn + 1}, an offer", seen)
                if offers >= 2:
                    break
            make_move(page, rng.choice(moves))
            wait_for_my_turn(page)
            if game_over(page):
                break
            settle(page)
        assert offers, "no offer came in twelve decisions"
        no_page_errors(page)
    finally:
        page.context.close()


def scoring_shown(page: Page) -> bool:
    return bool(page.evaluate("() => Boolean(document.querySelector('#scoring')?.open)"))


def play_to_the_scoring(page: Page, rng: random.Random) -> None:
    for _ in range(400):
        if scoring_shown(page):
            return
        if my_decision(page):
            make_move(page, rng.choice(legal(page)))
        page.wait_for_timeout(100)
    raise AssertionError("no scoring came")


def guided_game(browser: Browser, server: Server, size: ViewportSize) -> Page:
    """A first game with the guide, started from the home page, in English."""
    context = new_context(browser, viewport=size)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'en')")
    page = open_page(context)
    page.goto(f"{server.url}/")
    page.locator("#start-guided").click()
    page.wait_for_url(re.compile(r"/g/[^/?#]+"))
    wait_for_game(page)
    return page


@pytest.mark.parametrize(
    ("size", "guided"),
    [(ON_ITS_SIDE, False), (UPRIGHT, True)],
    ids=["740x360", "360x740-guided"],
)
def test_the_scorings_sentence_and_continue_stay_in_view(
    server: Server, browser: Browser, size: ViewportSize, guided: bool
) -> None:
    page = guided_game(browser, server, size) if guided else ai_game(browser, server, size, "none")
    try:
        tag = f"{size['width']}x{size['height']}{'-guided' if guided else ''}"
        play_to_the_scoring(page, random.Random(5))
        for step in range(12):
            page.wait_for_timeout(150)
            seen = page.evaluate(SCORING_JS)
            if seen is None:
                break
            where = f"{tag}, the scoring's step {step + 1}"
            if step == 0:
                shot(page, f"fix52b-scoring-{tag}.png", full_page=False)
            area = seen["area"]
            top, bottom = max(area["top"], 0), min(area["bottom"], seen["vh"])
            for part in ("text", "button"):
                assert inside(seen[part], top, bottom, 0, seen["vw"]), (
                    f"{where}: the {part} is not in the dialog's visible area: {seen}"
                )
            assert seen["buttonOnTop"], f"{where}: something lies over Continue: {seen}"
            page.locator("#scoring-continue").click()
        else:
            raise AssertionError("the scoring does not close")
        no_page_errors(page)
    finally:
        page.context.close()


def test_the_guide_leaves_the_geisha_and_the_hand_in_view_upright(
    server: Server, browser: Browser
) -> None:
    page = guided_game(browser, server, UPRIGHT)
    try:
        wait_for_my_turn(page)
        until(
            page,
            "() => document.querySelector('#guide')?.dataset.topic",
            why="no guide",
            timeout=AI_TIMEOUT_MS,
        )
        settle(page)
        shot(page, "fix52b-guide-first.png", full_page=False)
        box = page.locator("#guide")
        assert box.is_visible(), "the guide is not shown"
        headline = page.locator("#guide .guide-heading")
        assert headline.is_visible() and headline.inner_text().strip(), "no headline in view"
        seen = page.evaluate(GEISHA_JS)
        assert_geisha_in_view("360x740, guided, the first decision", seen)
        assert inside(seen["hand"], 0, seen["vh"], 0, seen["vw"]), f"the hand: {seen}"
        no_page_errors(page)
    finally:
        page.context.close()


def test_a_reload_keeps_the_guides_step(server: Server, browser: Browser) -> None:
    """At the same decision a reload shows the same explanation: the introduction stays until
    Next (it went on to the first action, as if Next had been pressed); Next's step stays too."""
    page = guided_game(browser, server, ON_ITS_SIDE)
    topic = "() => document.querySelector('#guide')?.dataset.topic || null"
    try:
        wait_for_my_turn(page)
        until(page, topic, why="no guide", timeout=AI_TIMEOUT_MS)
        assert page.evaluate(topic) == "welcome"
        for step in ("welcome", "next"):
            if step == "next":
                if "folded" in (page.locator("#guide").get_attribute("class") or ""):
                    page.locator("#guide-fold").click()
                page.locator("#guide-next").click()
                until(
                    page,
                    "() => document.querySelector('#guide')?.dataset.topic !== 'welcome'",
                    why="Next did not move on",
                )
            before = page.evaluate(topic)
            page.reload()
            wait_for_game(page)
            wait_for_my_turn(page)
            until(page, topic, why="no guide after the reload")
            page.wait_for_timeout(300)
            shot(page, f"fix52b-guide-reload-{step}.png", full_page=False)
            assert page.evaluate(topic) == before, f"the guide jumped on a reload ({step})"
        no_page_errors(page)
    finally:
        page.context.close()


FOCUS_JS = """() => {
  const c = document.activeElement;
  if (!c || !c.matches('#hand .card')) return null;
  const cs = getComputedStyle(c);
  return { pressed: c.getAttribute('aria-pressed'), visible: c.matches(':focus-visible'),
           style: cs.outlineStyle, width: parseFloat(cs.outlineWidth) };
}"""


def test_a_focused_card_does_not_look_selected(server: Server, browser: Browser) -> None:
    page = ai_game(browser, server, UPRIGHT, "none")
    try:
        wait_for_my_turn(page)
        settle(page)
        seen = page.evaluate(FOCUS_JS)
        shot(page, "fix52b-focus-new.png", full_page=False)
        assert seen is not None, "no card of the hand has the focus at the first decision"
        assert seen["pressed"] != "true", seen
        if seen["visible"]:
            assert seen["style"] == "dashed" and seen["width"] <= 2, (
                f"the focused card's ring is a selection's solid edge: {seen}"
            )
        # by the keyboard: the ring shows, and it is still not the selection's
        page.keyboard.press("ArrowRight")
        seen = page.evaluate(FOCUS_JS)
        assert seen is not None and seen["visible"], seen
        assert seen["style"] == "dashed" and seen["width"] <= 2, seen
        no_page_errors(page)
    finally:
        page.context.close()


def test_a_friends_rematch_waits_for_them_to_join(server: Server, browser: Browser) -> None:
    _, (anna, boris) = friend_game(browser, server, "Anna", "Boris")
    try:
        for page in (anna, boris):
            page.set_viewport_size({"width": 390, "height": 844})
        wait_for_my_turn(anna)
        anna.locator("#resign").click()
        anna.locator("#resign-yes").click()
        until(anna, "() => !document.querySelector('#rematch')?.hidden", why="no rematch")
        until(boris, "() => !document.querySelector('#rematch')?.hidden", why="no rematch")
        anna.locator("#rematch").click()
        anna.wait_for_url(re.compile(r"/g/[^/?#]+"), timeout=AI_TIMEOUT_MS)
        until(
            anna,
            "() => document.querySelector('#status')?.textContent.includes('Boris')",
            why="the new game's status does not name Boris",
        )
        anna.wait_for_timeout(500)
        words = anna.locator("#status").inner_text()
        shot(anna, "fix52b-rematch-anna.png", full_page=False)
        assert "Waiting for Boris to join the game" in words, words
        assert "offline" not in words, words
        link = boris.locator("#rematch-link")
        link.wait_for(state="visible", timeout=AI_TIMEOUT_MS)
        shot(boris, "fix52b-rematch-boris.png", full_page=False)
        seen = link.bounding_box()
        assert seen is not None and seen["height"] >= 44, f"the rematch link is small: {seen}"
        link.click()
        boris.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(boris)
        until(
            anna,
            "() => !document.querySelector('#status')?.textContent.includes('to join')",
            why="Anna still waits for Boris to join once he came",
        )
        for page in (anna, boris):
            no_page_errors(page)
    finally:
        anna.context.close()
        boris.context.close()
