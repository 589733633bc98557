"""The table by keyboard alone, and on a phone in long-worded languages (Playwright, Chromium).

- Each group of the table (the hand, an offer's choices, the actions, the moves to confirm) is ONE
  stop of Tab, with a roving tabindex: the arrow keys (Home, End) move within it, Space or Enter
  does what a click does. A whole game against the beginner AI is played with ``page.keyboard``
  only, from the first decision to the result; axe-core checks the table on the way.
- On a 390x844 and a 360x740 phone, in English, Russian and Czech: the page never scrolls
  sideways, no title or label at the table is cut, the hand keeps one row so the dock (the hand,
  the actions and the move, pinned at the bottom) stays short, the dock never covers a
  control that has the focus, and when an offer comes the whole board is brought into view
  above it.

Screenshots: ``test-output/screenshots/keyboard-*.png``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    AI_TIMEOUT_MS,
    game_over,
    history_length,
    legal,
    make_move,
    my_decision,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from test_web_a11y import Findings
from web_support import Server

GROUPS = ("#hand", "#offer .picks", "#my-actions", "#choices .move-buttons")

FOCUSED = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const group = ["#hand", "#offer .picks", "#my-actions", "#choices .move-buttons"]
    .find((g) => e.closest(g));
  return {
    group: group ?? null,
    card: e.dataset.card ?? null,
    index: e.dataset.index === undefined ? null : Number(e.dataset.index),
    action: e.dataset.action ?? null,
    move: e.dataset.move ?? null,
    pressed: e.getAttribute("aria-pressed"),
    ring: e.matches(":focus-visible") && getComputedStyle(e).outlineStyle !== "none",
    what: e.tagName + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : ""),
  };
}"""

TAB_STOPS = """(selector) => {
  const group = document.querySelector(selector);
  if (!group) return null;
  return [...group.querySelectorAll("button")].filter((b) => !b.disabled && b.tabIndex >= 0).length;
}"""


def focused(page: Page) -> dict[str, Any]:
    found: dict[str, Any] | None = page.evaluate(FOCUSED)
    assert found is not None, "nothing has the focus"
    return found


def press(page: Page, key: str, times: int = 1) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def one_stop_per_group(page: Page) -> None:
    for group in GROUPS:
        stops = page.evaluate(TAB_STOPS, group)
        assert stops in (None, 0, 1), f"{group} has {stops} tab stops, not one"


# -- a whole game by keyboard ----------------------------------------------------------------------


def wait_by_keyboard(page: Page) -> None:
    """Wait for this seat's decision or the result, closing a round's scoring with Enter (its
    Continue button has the focus)."""
    deadline = AI_TIMEOUT_MS // 100
    for _ in range(deadline):
        if page.locator("#scoring").is_visible():
            until(
                page,
                "() => document.activeElement?.id === 'scoring-continue'",
                why="the scoring's Continue button does not have the focus",
            )
            page.keyboard.press("Enter")
            page.wait_for_timeout(50)
            continue
        if game_over(page) or my_decision(page):
            return
        page.wait_for_timeout(100)
    raise AssertionError("no decision and no result")


def go_to(page: Page, want: dict[str, Any], why: str, limit: int = 12) -> None:
    """Move with ArrowRight within the focused group until the focused item matches ``want``."""
    for _ in range(limit):
        now = focused(page)
        if all(now[k] == v for k, v in want.items()):
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"{why}: the arrows never reached {want} (at {focused(page)})")


def select_by_keyboard(page: Page, move: str) -> None:
    """Select the move's cards in the hand with the arrows and Space."""
    cards = move[1:].replace("-", "")
    hand: list[str] = page.locator("#hand button.card").evaluate_all(
        "cards => cards.map(c => c.dataset.card)"
    )
    taken: set[int] = set()
    for card in cards:
        i = next(k for k, c in enumerate(hand) if c == card and k not in taken)
        taken.add(i)
        page.keyboard.press("Home")
        go_to(page, {"group": "#hand", "index": i}, f"card {card}")
        page.keyboard.press("Space")
        until(
            page,
            "i => document.activeElement?.dataset.index === String(i) &&"
            " document.activeElement.getAttribute('aria-pressed') === 'true'",
            i,
            why=f"Space did not select card {card} (or the focus left it)",
        )


def play_by_keyboard(page: Page, move: str, tabs: list[int]) -> None:
    """Play ``move`` with the keyboard alone, from the focus the page gives the decision."""
    before = history_length(page)
    start = focused(page)
    if move[0] == "P":
        assert start["group"] == "#offer .picks", f"a pick's focus is not on the offer: {start}"
        assert start["ring"], f"the focused choice shows no focus ring: {start}"
        go_to(page, {"move": move}, "the offer's choice")
        page.keyboard.press("Space")
    else:
        assert start["group"] == "#hand", f"the decision's focus is not in the hand: {start}"
        select_by_keyboard(page, move)
        # from the hand to the actions: one group, one Tab
        count = 0
        while focused(page)["group"] != "#my-actions":
            page.keyboard.press("Tab")
            count += 1
            assert count <= 3, f"Tab went {focused(page)} instead of the actions"
        tabs.append(count)
        page.keyboard.press("Home")
        go_to(page, {"action": move[0]}, "the action")
        page.keyboard.press("Enter")
        until(
            page,
            "() => document.activeElement?.closest('#choices .move-buttons') !== null",
            why="choosing the action did not put the focus on the move to confirm",
        )
        go_to(page, {"move": move}, "the move to confirm")
        page.keyboard.press("Enter")
    until(
        page,
        "n => Number(document.querySelector('#game').dataset.history) > n",
        before,
        why=f"{move} was not played by the keyboard",
        timeout=AI_TIMEOUT_MS,
    )


def check_the_hand_by_arrows(page: Page) -> None:
    """The hand is one tab stop; the arrows, Home and End move within it, wrapping around."""
    assert focused(page)["group"] == "#hand"
    n = page.locator("#hand button.card").count()
    assert n >= 6
    one_stop_per_group(page)
    page.keyboard.press("Home")
    assert focused(page)["index"] == 0
    assert focused(page)["ring"], "the focused card shows no focus ring"
    page.keyboard.press("ArrowRight")
    assert focused(page)["index"] == 1, "ArrowRight did not move to the next card"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert focused(page)["index"] == n - 1, "ArrowLeft from the first card did not wrap"
    page.keyboard.press("Home")
    page.keyboard.press("End")
    assert focused(page)["index"] == n - 1
    page.keyboard.press("Home")
    one_stop_per_group(page)
    # the card last focused is where Tab enters the hand again
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Tab")
    assert focused(page)["group"] == "#my-actions"
    page.keyboard.press("Shift+Tab")
    back = focused(page)
    assert (back["group"], back["index"]) == ("#hand", 1), f"Shift+Tab came back to {back}"
    page.keyboard.press("Home")


def open_ai_game(page: Page, server: Server) -> None:
    """A three-round game against the beginner AI, the page's player first."""
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "beginner", "seat": 0, "max_rounds": 3},
    ).json()
    page.goto(f"{server.url}{made['url']}")


def test_a_whole_game_by_keyboard_only(
    server: Server, browser: Browser, findings: Findings
) -> None:
    context = new_context(browser, viewport={"width": 1366, "height": 768})
    try:
        page = open_page(context)
        open_ai_game(page, server)
        wait_for_game(page)
        rng = random.Random(7)
        tabs: list[int] = []
        moves = picks = 0
        checked: set[str] = set()
        for _ in range(80):
            wait_by_keyboard(page)
            if game_over(page):
                break
            until(
                page,
                "() => document.activeElement?.closest('#hand, #offer .picks') != null",
                why="the decision did not take the focus",
            )
            if moves == 0:
                check_the_hand_by_arrows(page)
            move = rng.choice(legal(page))
            if move[0] == "P" and "pick" not in checked:
                one_stop_per_group(page)
                findings.check(page, "keyboard: an offer to choose from")
                checked.add("pick")
            play_by_keyboard(page, move, tabs)
            moves += 1
            picks += move[0] == "P"
        else:
            raise AssertionError("the game did not end in 80 decisions")
        assert game_over(page)
        print(f"by keyboard: {moves} moves, {picks} picks, Tab presses {tabs}")
        assert moves >= 6 and picks >= 2, (moves, picks)
        assert tabs and max(tabs) <= 3, f"Tab presses from the hand to the actions: {tabs}"
        assert tabs.count(1) == len(tabs), f"the hand is not one tab stop: {tabs}"
        findings.check(page, "keyboard: the result")
        # what a screen reader says of the markers: "in your favour", never "You's favour"
        labels = page.eval_on_selector_all(
            "#board .marker", "ms => ms.map(m => [m.dataset.owner, m.getAttribute('aria-label')])"
        )
        assert labels and all("You's" not in label for _, label in labels), labels
        mine = {label for owner, label in labels if owner == "me"}
        assert mine <= {"Victory marker: in your favour"}, mine
        shot(page, "keyboard-result.png")
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()


def test_the_move_to_confirm_is_one_stop_and_accessible(
    server: Server, browser: Browser, findings: Findings
) -> None:
    """A Competition's ways to split are one group: the arrows choose, the axe checks it."""
    context = new_context(browser, viewport={"width": 1366, "height": 768})
    try:
        page = open_page(context)
        open_ai_game(page, server)
        wait_for_my_turn(page)
        # Some four cards split only one way (three of a geisha and one other), so the test
        # takes the four cards with the most ways: a deal gives two ways or more almost always.
        ways_of: dict[str, int] = {}
        for move in legal(page):
            if move[0] == "C":
                key = "".join(sorted(move[1:].replace("-", "")))
                ways_of[key] = ways_of.get(key, 0) + 1
        assert ways_of, "no Competition is legal on the first turn"
        cards = max(ways_of, key=lambda key: ways_of[key])
        assert ways_of[cards] >= 2, f"this deal has no four cards that split two ways: {ways_of}"
        select_by_keyboard(page, "C" + cards)
        page.keyboard.press("Tab")
        page.keyboard.press("End")
        assert focused(page)["action"] == "C"
        page.keyboard.press("Enter")
        until(
            page,
            "() => document.activeElement?.closest('#choices .move-buttons') !== null",
            why="the Competition's ways to split do not have the focus",
        )
        ways = page.locator("#choices button[data-move]").count()
        assert ways >= 2, ways
        one_stop_per_group(page)
        first = focused(page)["move"]
        page.keyboard.press("ArrowRight")
        assert focused(page)["move"] != first, "ArrowRight did not move to the next way"
        assert focused(page)["ring"]
        one_stop_per_group(page)
        findings.check(page, "keyboard: a Competition's ways to split")
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()


@pytest.fixture
def findings() -> Findings:
    return Findings()


# -- a phone, in long-worded languages ------------------------------------------------------------

PHONES: dict[str, ViewportSize] = {
    "390x844": {"width": 390, "height": 844},
    "360x740": {"width": 360, "height": 740},
}

# Each title and label at the table: its text inside its box, the box inside every box that
# clips it and inside the screen.
CUT_JS = """() => {
  const selectors = ["#round", ".standing .who", ".standing .meter-text", ".first-tag",
    ".pile-box .label", ".btn.action", ".btn.action .action-name", ".btn.action .action-size",
    "#offer-title", ".btn.pick", ".btn.pick .pick-label", ".choices .prompt", ".btn.move",
    ".status .now", ".status .news", ".topnav > a", "#lang", ".prefs > summary",
    ".game-controls .btn"];
  const cut = [];
  for (const selector of selectors) {
    for (const e of document.querySelectorAll(selector)) {
      if (!e.getClientRects().length || e.closest("[hidden]")) continue;
      const r = e.getBoundingClientRect();
      const name = `${selector} "${e.textContent.trim().slice(0, 30)}"`;
      if (r.left < -1 || r.right > innerWidth + 1) cut.push(`${name}: outside the screen`);
      const style = getComputedStyle(e);
      if (style.display !== "inline" && e.scrollWidth > e.clientWidth + 1)
        cut.push(`${name}: ${e.scrollWidth}px of text in ${e.clientWidth}px`);
      if (style.textOverflow === "ellipsis" && e.scrollWidth > e.clientWidth)
        cut.push(`${name}: ellipsised`);
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
        const clip = getComputedStyle(a);
        if (clip.overflowX === "visible" || clip.display === "contents") continue;
        const box = a.getBoundingClientRect();
        if (r.left < box.left - 1 || r.right > box.right + 1)
          cut.push(`${name}: clipped by ${a.tagName}.${a.className}`);
        break;
      }
    }
  }
  return cut;
}"""

DOCK_JS = """() => {
  const dock = document.querySelector(".my-area").getBoundingClientRect();
  const tops = [...document.querySelectorAll("#hand button.card")]
    .map((c) => c.offsetTop); // the layout's rows: a selected card's lift is not a row
  return { height: dock.height, top: dock.top, rows: new Set(tops).size, cards: tops.length };
}"""

# Is the whole board on screen, above the dock?
BOARD_IN_VIEW_JS = """() => {
  const board = document.querySelector("#board").getBoundingClientRect();
  const dock = document.querySelector(".my-area").getBoundingClientRect();
  return board.top >= -1 && board.bottom <= dock.top + 1;
}"""

# Is the focused control drawn on top where it is (not under the dock, or anything else)?
COVERED_JS = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const r = e.getBoundingClientRect();
  if (!r.width || !r.height) return null;
  const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
  const y = Math.min(Math.max(r.top + Math.min(r.height / 2, 10), 0), innerHeight - 1);
  const top = document.elementFromPoint(x, y);
  if (!top || e.contains(top) || top.contains(e)) return null;
  return `${e.tagName}#${e.id}.${e.className} is under ${top.tagName}.${top.className}`;
}"""


def phone_game(browser: Browser, server: Server, lang: str, size: ViewportSize) -> Page:
    context = new_context(browser, viewport=size)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
    page = open_page(context)
    open_ai_game(page, server)
    until(page, "code => document.documentElement.lang === code", lang, why=f"not in {lang}")
    wait_for_my_turn(page)
    return page


def assert_nothing_cut(page: Page, state: str) -> None:
    no_horizontal_scroll(page)
    cut = page.evaluate(CUT_JS)
    assert not cut, f"{state}: cut at the table:\n" + "\n".join(cut)


def assert_the_dock_is_short(page: Page, state: str, height: int) -> None:
    dock = page.evaluate(DOCK_JS)
    assert dock["rows"] == 1, f"{state}: the hand takes {dock['rows']} rows ({dock})"
    assert dock["height"] <= 0.36 * height, f"{state}: the dock is {dock['height']}px of {height}"


def assert_focus_never_covered(page: Page, state: str) -> None:
    """Tab through the whole page: every control reached is drawn on top where it is."""
    page.evaluate("() => { document.activeElement?.blur(); window.scrollTo(0, 0); }")
    covered = []
    for _ in range(40):
        page.keyboard.press("Tab")
        problem = page.evaluate(COVERED_JS)
        if problem:
            covered.append(problem)
    assert not covered, f"{state}: " + "; ".join(dict.fromkeys(covered))
    # the last control of the page (the move list) comes out from under the dock
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    page.locator("#log").focus()
    assert page.evaluate(COVERED_JS) is None, f"{state}: the move list is under the dock"


@pytest.mark.parametrize("lang", ["en", "ru", "cs"])
def test_the_table_on_a_phone(server: Server, browser: Browser, lang: str) -> None:
    for name, size in PHONES.items():
        page = phone_game(browser, server, lang, size)
        try:
            state = f"{lang} @ {name}"
            shot(page, f"keyboard-phone-{lang}-{name}.png", full_page=False)
            assert_nothing_cut(page, f"{state}, the first decision")
            assert_the_dock_is_short(page, f"{state}, the first decision", size["height"])
            # the move to confirm: three cards and the Gift
            gift = next(m for m in legal(page) if m[0] == "G")
            for card in gift[1:]:
                page.locator(
                    f'#hand button.card[data-card="{card}"][aria-pressed="false"]'
                ).first.click()
            page.locator('button[data-action="G"]').click()
            page.locator("#choices button[data-move]").first.wait_for()
            shot(page, f"keyboard-phone-{lang}-{name}-confirm.png", full_page=False)
            assert_nothing_cut(page, f"{state}, a Gift to confirm")
            assert_the_dock_is_short(page, f"{state}, a Gift to confirm", size["height"])
            move = page.locator("#choices button[data-move]").first
            box = move.bounding_box()
            assert box is not None and box["y"] + box["height"] <= size["height"], (
                f"{state}: the move to confirm is below the screen: {box}"
            )
            page.keyboard.press("Escape")
            assert_focus_never_covered(page, state)
            # an offer to choose from (the AI offers a Gift and a Competition every round)
            rng = random.Random(3)
            for _ in range(8):
                wait_for_my_turn(page)
                if any(m[0] == "P" for m in legal(page)):
                    break
                page.keyboard.press("Escape")
                page.evaluate("() => window.scrollTo(0, 0)")  # the dock pinned at the bottom
                make_move(page, rng.choice(legal(page)))
            if any(m[0] == "P" for m in legal(page)):
                # the whole board comes into view above the dock as the offer arrives
                until(page, BOARD_IN_VIEW_JS, why=f"{state}: the dock covers the board at a pick")
                shot(page, f"keyboard-phone-{lang}-{name}-offer-board.png", full_page=False)
                page.evaluate("() => window.scrollTo(0, 0)")
                shot(page, f"keyboard-phone-{lang}-{name}-offer.png", full_page=False)
                assert_nothing_cut(page, f"{state}, an offer")
                offer = page.locator("#offer").bounding_box()
                assert offer is not None and offer["y"] + offer["height"] <= size["height"] + 1, (
                    f"{state}: the offer goes below the screen: {offer}"
                )
            no_page_errors(page)
        finally:
            page.context.close()


def test_a_hint_asked_by_keyboard_brings_the_focus_to_its_move(
    server: Server, browser: Browser
) -> None:
    """The Hint button, off while the AI thought, let the focus fall to the page: a keyboard
    player had to find the suggested move again. It has the focus now, to confirm with Enter."""
    context = new_context(browser, viewport={"width": 1366, "height": 768})
    try:
        page = open_page(context)
        open_ai_game(page, server)
        wait_for_my_turn(page)
        page.locator("#hint").focus()
        page.keyboard.press("Enter")
        until(
            page,
            "() => document.activeElement?.classList.contains('suggested')",
            why="the focus is not on the suggested move",
            timeout=60_000,
        )
        move = page.evaluate("() => document.activeElement.dataset.move")
        assert move in legal(page), move
        before = page.locator("#game").get_attribute("data-history")
        page.keyboard.press("Enter")  # confirmed as it is
        until(
            page,
            "h => document.querySelector('#game').dataset.history !== h",
            before,
            why="Enter did not play the suggested move",
        )
        no_page_errors(page)
    finally:
        context.close()
