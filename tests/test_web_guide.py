"""The guided first game in a real browser (issue #16, point 10): started from the home page and
the rules page, each explanation at its moment, the hint offered at each decision, the first
scoring walked through geisha by geisha, and a guide that, once closed, stays closed.

The guide box (``#guide``) tells its topic in ``data-topic``: ``welcome``, an action (``S``, ``D``,
``G``, ``C``), ``turn``, ``pick_G``, ``pick_C``, ``pick``, ``round`` or ``over``. The words are
checked against the English translation, and the scoring's against the rules (rules.md: more cards
take a geisha's marker, a tie leaves it where it was). Screenshots: ``guide-*.png`` at 1280x720 and
390x844 in ``test-output/screenshots/``.
"""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, WebSocket

from browser_support import (
    AI_TIMEOUT_MS,
    game_id,
    game_over,
    legal,
    make_move,
    my_decision,
    new_context,
    no_page_errors,
    open_page,
    shot,
    status,
    until,
    wait_for_game,
)
from hanamikoji.web.server import STATIC
from web_support import Server

LAPTOP: ViewportSize = {"width": 1280, "height": 720}
PHONE: ViewportSize = {"width": 390, "height": 844}
EN = json.loads((STATIC / "i18n" / "en.json").read_text("utf-8"))
WORDS = EN["guide"]
CHARM = (2, 2, 2, 3, 3, 4, 5)
ACTIONS = "SDGC"
ACTION_NAMES = {a: EN["actions"][a]["name"] for a in ACTIONS}
AXE = Axe()


def fmt(text: str, **params: Any) -> str:
    """A translation with its {params} filled in, as js/i18n.js does."""
    return re.sub(r"\{(\w+)\}", lambda m: str(params.get(m.group(1), m.group(0))), text)


def accessible(page: Page, selector: str, state: str) -> None:
    """axe-core finds no serious or critical fault in ``selector`` (the guide's own parts)."""
    found = [
        v
        for v in AXE.run(page, context=selector).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not found, f"{state}: " + "; ".join(
        f"{v['id']} ({v['help']}): {[n['target'] for n in v['nodes']]}" for v in found
    )


# -- reading the guide ----------------------------------------------------------------------------


def topic(page: Page) -> str | None:
    box = page.locator("#guide")
    return box.get_attribute("data-topic") if box.is_visible() else None


def wait_topic(page: Page, expected: str) -> None:
    until(
        page,
        "t => { const g = document.querySelector('#guide');"
        " return g && !g.hidden && g.dataset.topic === t; }",
        expected,
        why=f"the guide never showed {expected!r} (it shows {topic(page)!r})",
    )


def guide_text(page: Page) -> str:
    return page.locator("#guide-text").text_content() or ""


def guide_title(page: Page) -> str:
    return page.locator("#guide-title").text_content() or ""


def scoring_shown(page: Page) -> bool:
    return page.locator("#scoring-continue").is_visible()


def settled(page: Page) -> bool:
    """No move waits to be shown (the table shows the opponent's moves one at a time)."""
    return page.locator("#game").get_attribute("data-busy") != "true"


def wait_for_decision(page: Page) -> str:
    """Wait until this seat decides, a round's scoring shows, or the game is over; which one."""
    deadline = time.monotonic() + AI_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        if scoring_shown(page):
            return "scoring"
        if game_over(page):
            return "over"
        if my_decision(page) and settled(page):
            return "decision"
        page.wait_for_timeout(100)
    raise AssertionError(f"no decision, scoring or end within {AI_TIMEOUT_MS} ms on {page.url}")


def guided_state(page: Page) -> Any:
    """What this browser keeps about the guide of the page's game."""
    key = f"hanamikoji.guide.{game_id(page)}"
    return page.evaluate("k => JSON.parse(localStorage.getItem(k) || 'null')", key)


def in_viewport(page: Page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None, selector
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"] + 1
        and box["y"] + box["height"] <= size["height"] + 1
    )


def start_guided_from_home(page: Page, server: Server) -> None:
    page.goto(f"{server.url}/")
    page.locator("#start-guided").click()
    page.wait_for_url(re.compile(r"/g/[^/?#]+"))
    wait_for_game(page)


class StateFrames:
    """The latest ``state`` message the page's WebSocket received (the scorings come from it)."""

    def __init__(self, page: Page) -> None:
        self.latest: dict[str, Any] | None = None
        page.on("websocket", self.watch)

    def watch(self, ws: WebSocket) -> None:
        ws.on("framereceived", self.frame)

    def frame(self, payload: str | bytes) -> None:
        try:
            msg = json.loads(payload)
        except ValueError:
            return
        if isinstance(msg, dict) and msg.get("type") == "state":
            self.latest = msg


def expected_scoring_note(scoring: dict[str, Any], step: int, seat: int) -> str:
    """The guide's line under a scoring step, from the rules (checking the server agrees)."""
    words = WORDS["scoring"]
    other = 1 - seat
    if step == 0:
        return str(words["secrets"])
    if step <= 7:
        g = step
        near = scoring["played"][seat].count(str(g))
        far = scoring["played"][other].count(str(g))
        before = scoring["markers_before"][g - 1]
        after = scoring["markers"][g - 1]
        if near > far:
            assert after == seat, (g, scoring)
            key = "kept_me" if before == seat else "won_me"
        elif far > near:
            assert after == other, (g, scoring)
            key = "kept_opp" if before == other else "won_opp"
        else:
            assert after == before, (g, scoring)  # a tie leaves the marker where it was
            key = "tie_none" if near == 0 else "tie"
        return fmt(words[key], near=near, far=far, charm=CHARM[g - 1])
    for what, limit in (("charm", 11), ("geisha", 4)):
        if scoring[what][seat] >= limit:
            return fmt(words[f"win_me_{what}"], n=scoring[what][seat])
        if scoring[what][other] >= limit:
            return fmt(words[f"win_opp_{what}"], n=scoring[what][other])
    return str(words["next"])


def walk_through_first_scoring(page: Page, frames: StateFrames) -> list[str]:
    """Step through the first scoring; each step's note, checked against the rules."""
    assert frames.latest is not None
    scoring = frames.latest["scorings"][0]
    seat = frames.latest["view"]["seat"]
    assert scoring["round"] == 1
    note = page.locator("#scoring-guide")
    notes: list[str] = []
    for step in range(9):
        expected = expected_scoring_note(scoring, step, seat)
        until(
            page,
            "([s, t]) => { const n = document.querySelector('#scoring-guide');"
            " return document.querySelector('#scoring').dataset.step === s"
            " && n && !n.hidden && n.textContent === t; }",
            [str(step), expected],
            why=f"scoring step {step} never explained as {expected!r} "
            f"(shown: {note.text_content()!r})",
        )
        notes.append(expected)
        if step == 0:
            shot(page, "guide-scoring-secrets-desktop.png", full_page=False)
            accessible(page, "#scoring-guide", "the first scoring's note")
        elif step == 1:
            shot(page, "guide-scoring-geisha-desktop.png", full_page=False)
        elif step == 8:
            shot(page, "guide-scoring-totals-desktop.png", full_page=False)
        # an explained step waits for the player: it is still there a moment later
        page.wait_for_timeout(1300 if step in (1, 8) else 50)
        assert note.text_content() == expected, f"step {step} went on before the click"
        page.locator("#scoring-continue").click()
    until(page, "() => !document.querySelector('#scoring').open", why="the scoring stays open")
    return notes


# -- the tests ------------------------------------------------------------------------------------


def test_a_guided_game_from_the_home_page_explains_each_step(
    server: Server, browser: Browser
) -> None:
    context = new_context(browser, viewport=LAPTOP, reduced_motion="reduce")
    try:
        page = open_page(context)
        frames = StateFrames(page)
        page.goto(f"{server.url}/")
        page.locator("#start-guided").wait_for()
        shot(page, "guide-home-desktop.png", full_page=False)
        accessible(page, ".hero", "the home page's guided entry")
        start_guided_from_home(page, server)
        game = game_id(page)
        assert guided_state(page)["on"] is True
        assert wait_for_decision(page) == "decision"

        # the first decision: what the game is about, then each action, one at a time
        wait_topic(page, "welcome")
        assert guide_text(page) == WORDS["topics"]["welcome"]["text"]
        assert page.locator("#guide-hint").is_visible()
        assert page.locator("#guide-close").is_visible()
        shot(page, "guide-welcome-desktop.png", full_page=False)
        accessible(page, "#guide", "the guide at the first decision")
        page.locator("#guide-next").click()
        wait_topic(page, "S")
        assert guide_title(page) == f"{ACTION_NAMES['S']}: 1 card"
        assert guide_text(page) == WORDS["topics"]["S"]["text"]
        assert page.locator("#guide-next").text_content() == f"Next: {ACTION_NAMES['D']}"
        # pressing an action explains it; letting it go comes back
        page.locator('button[data-action="C"]').click()
        wait_topic(page, "C")
        assert guide_title(page) == f"{ACTION_NAMES['C']}: 4 cards"
        assert guide_text(page) == WORDS["topics"]["C"]["text"]
        assert not page.locator("#guide-next").is_visible()
        shot(page, "guide-action-desktop.png", full_page=False)
        page.keyboard.press("Escape")
        wait_topic(page, "S")

        # "Show me a hint": the page's hint box answers, the suggestion is highlighted
        page.locator("#guide-hint").click()
        hint = page.locator("#hint-text")
        until(
            page,
            "() => /suggests/.test(document.querySelector('#hint-text')?.textContent || '')",
            why="the hint never came",
            timeout=AI_TIMEOUT_MS,
        )
        assert hint.is_visible()
        page.locator("#guide-hinted").wait_for()
        assert page.locator("#guide-hinted").text_content() == WORDS["hinted"]
        assert not page.locator("#guide-hint").is_visible()  # the hint is there: not offered again
        hinted = topic(page)
        assert hinted in tuple(ACTIONS), hinted  # the hint pressed its action, which is explained
        shot(page, "guide-hint-desktop.png", full_page=False)
        explained = {"welcome", "S", "C", hinted}

        # round 1, by clicks: each decision opens with what is new, and offers the hint
        rng = random.Random(16)
        picks: dict[str, str] = {}
        decisions = 0
        while (where := wait_for_decision(page)) == "decision":
            moves = legal(page)
            decisions += 1
            if decisions > 1:
                assert page.locator("#guide-hint").is_visible(), "the hint is not offered"
                assert page.locator("#guide-hint").is_enabled()
            if moves[0][0] == "P":
                kind = "G" if len(moves[0]) == 2 else "C"
                expected = f"pick_{kind}" if kind not in picks else "pick"
                wait_topic(page, expected)
                assert guide_text(page) == WORDS["topics"][expected]["text"]
                if kind not in picks:
                    picks[kind] = expected
                    name = "gift" if kind == "G" else "competition"
                    shot(page, f"guide-pick-{name}-desktop.png", full_page=False)
            elif decisions > 1:
                left = [a for a in ACTIONS if any(m[0] == a for m in moves)]
                new = [a for a in left if a not in explained]
                expected = new[0] if new else "turn"
                wait_topic(page, expected)
                explained.add(expected)
                if expected == "turn":
                    assert guide_text(page) == WORDS["topics"]["turn"]["text"]
                else:
                    assert guide_text(page) == WORDS["topics"][expected]["text"]
                    assert guide_title(page).startswith(ACTION_NAMES[expected])
            move = rng.choice(moves)
            make_move(page, move)
            if move[0] != "P":
                explained.add(move[0])  # pressing its action explained it
        assert where == "scoring", where
        # the beginner played its Gift and its Competition in round 1: the player chose from each
        assert picks == {"G": "pick_G", "C": "pick_C"}, picks

        # the first scoring, geisha by geisha, each step waiting for the player
        notes = walk_through_first_scoring(page, frames)
        assert len(notes) == 9

        # round 2: what carries over, when the player first acts in it (or the end, if round 1
        # gave someone 11 charm or 4 geisha)
        if wait_for_decision(page) == "over":
            wait_topic(page, "over")
            assert guide_text(page) == WORDS["topics"]["over"]["text"]
            shot(page, "guide-over-desktop.png", full_page=False)
        else:
            wait_topic(page, "pick" if legal(page)[0][0] == "P" else "round")
            if topic(page) == "round":
                assert guide_title(page) == "Round 2"
                assert guide_text(page) == WORDS["topics"]["round"]["text"]
            shot(page, "guide-round-desktop.png", full_page=False)

        # close the guide: gone, after a reload too, and the game goes on without it
        page.locator("#guide-close").click()
        assert page.locator("#guide").is_hidden()
        assert guided_state(page)["on"] is False
        page.reload()
        wait_for_game(page)
        assert wait_for_decision(page) in ("decision", "over")
        page.wait_for_timeout(500)
        assert page.locator("#guide").is_hidden()
        assert page.locator("#guide").get_attribute("data-topic") is None
        assert game_id(page) == game
        shot(page, "guide-closed-desktop.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()


def test_a_guided_game_from_the_rules_page_on_a_phone(server: Server, browser: Browser) -> None:
    context = new_context(browser, viewport=PHONE, reduced_motion="reduce")
    try:
        page = open_page(context)
        page.goto(f"{server.url}/rules")
        link = page.locator("#guided-link")
        link.wait_for()
        shot(page, "guide-rules-phone.png", full_page=False)
        accessible(page, ".guided-link", "the rules page's link")
        link.click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(page)
        assert guided_state(page)["on"] is True
        assert wait_for_decision(page) == "decision"
        assert page.locator("#game").get_attribute("data-mode") == "ai"

        # a strip of one line: the hand and the actions stay on screen
        wait_topic(page, "welcome")
        box = page.locator("#guide")
        assert "folded" in (box.get_attribute("class") or "")
        assert page.locator("#guide-fold").get_attribute("aria-expanded") == "false"
        strip = box.bounding_box()
        assert strip is not None and strip["height"] <= 60, strip
        for part in ("#hand", "#my-actions"):
            assert in_viewport(page, part), f"{part} is off screen with the guide folded"
        shot(page, "guide-welcome-phone.png", full_page=False)
        accessible(page, "#guide", "the folded strip")

        # opened, it says it all; the hand and actions are still on screen
        page.locator("#guide-fold").click()
        page.locator("#guide-text").wait_for()
        assert page.locator("#guide-fold").get_attribute("aria-expanded") == "true"
        assert guide_text(page) == WORDS["topics"]["welcome"]["text"]
        for part in ("#hand", "#my-actions"):
            assert in_viewport(page, part), f"{part} is off screen with the guide open"
        shot(page, "guide-open-phone.png", full_page=False)
        accessible(page, "#guide", "the open strip")
        # opened, the title is whole in every language ("Votre premiè…" beside the hint)
        for lang in ("fr", "ru", "cs", "en"):
            page.locator("#lang").select_option(lang)
            until(page, "l => document.documentElement.lang === l", lang, why="not translated")
            title = page.locator(".guide-title")
            cut = title.evaluate("n => n.scrollWidth > n.clientWidth + 1")
            assert not cut, (lang, title.inner_text())

        page.locator("#guide-hint").click()
        until(
            page,
            "() => /suggests/.test(document.querySelector('#hint-text')?.textContent || '')",
            why="the hint never came",
            timeout=AI_TIMEOUT_MS,
        )
        page.locator("#guide-hinted").wait_for()
        shot(page, "guide-hint-phone.png", full_page=False)

        # in another language the guide speaks it
        page.locator("#lang").select_option("ru")
        until(page, "() => document.documentElement.lang === 'ru'", why="no Russian")
        ru = json.loads((STATIC / "i18n" / "ru.json").read_text("utf-8"))["guide"]
        until(
            page,
            "t => document.querySelector('#guide-close')?.textContent.includes(t)",
            ru["close"],
            why="the guide's words did not change language",
        )
        page.locator("#lang").select_option("en")

        # Back from the table: the home page, with no second game started
        page.go_back()
        page.wait_for_url(f"{server.url}/")
        page.locator("#start-guided").wait_for()
        page.wait_for_timeout(500)
        assert page.url == f"{server.url}/"
        no_page_errors(page)
    finally:
        context.close()


def test_the_guide_closes_from_the_first_scoring_on_a_phone(
    server: Server, browser: Browser
) -> None:
    context = new_context(browser, viewport=PHONE, reduced_motion="reduce")
    try:
        page = open_page(context)
        frames = StateFrames(page)
        start_guided_from_home(page, server)
        rng = random.Random(10)
        while (where := wait_for_decision(page)) == "decision":
            assert page.locator("#guide-hint").is_visible(), "the hint is not offered"
            make_move(page, rng.choice(legal(page)))
        assert where == "scoring", where
        assert frames.latest is not None
        scoring, seat = frames.latest["scorings"][0], frames.latest["view"]["seat"]

        # the Secrets, then geisha 1 explained; the guide closes from inside the dialog
        note = page.locator("#scoring-guide")
        for step in (0, 1):
            expected = expected_scoring_note(scoring, step, seat)
            until(
                page,
                "t => document.querySelector('#scoring-guide')?.textContent === t",
                expected,
                why=f"scoring step {step} not explained",
            )
            assert note.is_visible()
            if step == 0:
                page.locator("#scoring-continue").click()
        close = page.locator("#scoring-guide-close")
        assert close.is_visible() and close.text_content() == WORDS["close"]
        shot(page, "guide-scoring-phone.png", full_page=False)
        accessible(page, "#scoring", "the first scoring on a phone")
        close.click()
        assert note.is_hidden() and close.count() == 0
        focused = page.evaluate("() => document.activeElement?.id")
        assert focused == "scoring-continue", focused
        # the rest of the scoring goes on by itself, unexplained, up to its totals
        page.locator("#scoring-continue").click()
        button = page.locator("#scoring-continue")
        deadline = time.monotonic() + 15
        while button.text_content() != EN["scoring"]["close"]:
            assert time.monotonic() < deadline, "the scoring did not go on by itself"
            assert note.is_hidden()
            page.wait_for_timeout(100)
        # a click within 0.4 s of a step that came by itself counts as made on the step before
        # (js/scoring.js: no step skipped unseen): the player reads the totals first
        page.wait_for_timeout(600)
        button.click()
        assert not page.locator("#scoring").evaluate("d => d.open")
        assert page.locator("#guide").is_hidden()
        assert guided_state(page)["on"] is False
        page.reload()
        wait_for_game(page)
        assert wait_for_decision(page) in ("decision", "over")
        assert page.locator("#guide").is_hidden()
        no_page_errors(page)
    finally:
        context.close()


def test_a_closed_guide_never_comes_back_and_an_ordinary_game_has_none(
    server: Server, browser: Browser
) -> None:
    context: BrowserContext = new_context(browser, viewport=LAPTOP, reduced_motion="reduce")
    try:
        page = open_page(context)
        start_guided_from_home(page, server)
        guided = page.url
        wait_topic(page, "welcome")
        page.locator("#guide-close").click()
        assert page.locator("#guide").is_hidden()
        for reload in (True, False):  # a reload, then the link again
            if reload:
                page.reload()
            else:
                page.goto(guided)
            wait_for_game(page)
            assert wait_for_decision(page) == "decision"
            page.locator("#hand button.card").first.click()  # renders the table again
            page.wait_for_timeout(300)
            assert page.locator("#guide").is_hidden()
        kept = guided_state(page)
        assert kept["on"] is False and "welcome" in kept["seen"], kept
        # ... by itself: its button, kept after the reload, opens it again where the game is
        reopen = page.locator("#guide-reopen")
        assert reopen.is_visible() and reopen.inner_text() == WORDS["reopen"]
        reopen.click()
        assert page.locator("#guide").is_visible() and reopen.is_hidden()
        assert page.locator("#guide").get_attribute("data-topic"), "the guide came back empty"
        assert page.evaluate("() => document.activeElement?.id") == "guide-fold"
        assert guided_state(page)["on"] is True
        page.reload()
        wait_for_game(page)
        wait_for_decision(page)
        until(page, "() => !document.querySelector('#guide').hidden", why="not kept open")
        page.locator("#guide-close").click()
        assert page.locator("#guide").is_hidden() and reopen.is_visible()

        # a game from the form, even against the beginner, is not guided
        page.goto(f"{server.url}/")
        page.locator("#level").select_option("beginner")
        page.locator("#seat").select_option("0")
        page.locator("#start-ai").click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(page)
        assert status(page) == "playing"
        assert guided_state(page) is None
        assert wait_for_decision(page) == "decision"
        page.locator("#hand button.card").first.click()
        page.wait_for_timeout(300)
        assert page.locator("#guide").is_hidden()
        assert page.locator("#guide").inner_html() == ""
        assert page.locator("#guide-reopen").count() == 0
        shot(page, "guide-none-desktop.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()


def test_the_guide_tells_the_end_only_after_the_last_scoring(
    server: Server, browser: Browser
) -> None:
    """The guide's "Game over" waits, as the result does, until the last scoring has been
    watched: shown (and read out: the box is a live region) at its first step, it told the end
    before the first geisha was scored."""
    context = new_context(browser, viewport=LAPTOP, reduced_motion="reduce")
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        url = page.evaluate(
            """async () => {
              const body = {mode: "ai", level: "beginner", seat: 0, max_rounds: 1};
              const answer = await fetch("/api/games", {method: "POST", body: JSON.stringify(body),
                headers: {"Content-Type": "application/json"}});
              const game = await answer.json();
              const guide = JSON.stringify({on: true, seen: []});
              localStorage.setItem(`hanamikoji.guide.${game.game}`, guide);
              return game.url;
            }"""
        )
        page.goto(f"{server.url}{url}")
        wait_for_game(page)
        rng = random.Random(3)
        while (where := wait_for_decision(page)) == "decision":
            make_move(page, rng.choice(legal(page)))
        assert where == "scoring", where  # the one round's scoring ends the game
        steps = 0
        while page.locator("#scoring").evaluate("d => d.open"):
            assert page.locator("#guide").get_attribute("data-topic") != "over", steps
            assert (guide_title(page), guide_text(page)) != (
                WORDS["topics"]["over"]["title"],
                WORDS["topics"]["over"]["text"],
            )
            assert page.locator("#result").is_hidden()
            page.locator("#scoring-continue").click()
            page.wait_for_timeout(50)
            steps += 1
            assert steps < 40, "the scoring never closed"
        wait_topic(page, "over")
        assert guide_text(page) == WORDS["topics"]["over"]["text"]
        assert page.locator("#result").is_visible()
        no_page_errors(page)
    finally:
        context.close()
