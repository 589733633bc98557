"""Accessibility of every page and state, checked by axe-core in a browser (issue #16, point 7).

Each page is brought to each of its states through the pages' DOM contract (ids, ``data-*``
attributes, roles), then axe-core (``axe-playwright-python``) runs on it at a 1366x768 laptop, a
1280x720 window and a 390x844 phone. A test collects what axe finds in all its states and fails on
every violation of impact "serious" or "critical", naming the state, the viewports, the rule, its
help text and the elements to fix. The contexts prefer reduced motion, so that no state is read in
the middle of an animation.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
from playwright.sync_api import Browser, BrowserContext, Page, Route, ViewportSize

from browser_support import (
    AI_TIMEOUT_MS,
    cards_of,
    dismiss_scoring,
    game_id,
    game_over,
    legal,
    make_move,
    my_decision,
    new_context,
    no_page_errors,
    open_page,
    start_ai_game,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from web_support import Server

VIEWPORTS: dict[str, ViewportSize] = {
    "1366x768": {"width": 1366, "height": 768},
    "1280x720": {"width": 1280, "height": 720},
    "390x844": {"width": 390, "height": 844},
}
BLOCKING = ("serious", "critical")
AXE = Axe()

FINISHED: list[str] = []
"""Games this module finished against the AI (the review test looks at one)."""


# -- axe-core -------------------------------------------------------------------------------------


@dataclass
class Findings:
    """What axe-core found, state by state: the serious and critical violations."""

    found: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    checked: list[str] = field(default_factory=list)

    def check(self, page: Page, state: str, viewports: tuple[str, ...] = tuple(VIEWPORTS)) -> None:
        """Run axe-core on ``page`` (showing ``state``) at each of ``viewports``, then restore the
        page's own viewport."""
        own = page.viewport_size
        try:
            for name in viewports:
                page.set_viewport_size(VIEWPORTS[name])
                settle(page)
                self.add(state, name, AXE.run(page).response["violations"])
                self.checked.append(f"{state} @ {name}")
        finally:
            if own is not None:
                page.set_viewport_size(own)
                settle(page)

    def add(self, state: str, viewport: str, violations: list[dict[str, Any]]) -> None:
        for violation in violations:
            if violation.get("impact") not in BLOCKING:
                continue
            key = (state, violation["id"], violation["impact"])
            entry = self.found.setdefault(
                key, {"help": violation["help"], "url": violation["helpUrl"], "nodes": {}}
            )
            for node in violation["nodes"]:
                target = " ".join(str(t) for t in node["target"])
                why = node_message(node)
                entry["nodes"].setdefault((target, why), []).append(viewport)

    def report(self) -> str:
        lines = [f"{len(self.found)} serious or critical accessibility violation(s):"]
        for (state, rule, impact), entry in self.found.items():
            lines.append(f"- [{state}] {rule} ({impact}): {entry['help']} <{entry['url']}>")
            for (target, why), viewports in entry["nodes"].items():
                at = ", ".join(dict.fromkeys(viewports))
                lines.append(f"    {target}  (at {at})" + (f": {why}" if why else ""))
        return "\n".join(lines)

    def assert_clean(self) -> None:
        assert self.checked, "no state was checked"
        if self.found:
            pytest.fail(self.report(), pytrace=False)


def node_message(node: dict[str, Any]) -> str:
    """The first of axe's messages on why ``node`` fails (a contrast ratio, a missing name)."""
    for kind in ("any", "all", "none"):
        for check in node.get(kind) or []:
            if check.get("message"):
                return str(check["message"]).split("\n")[0]
    return ""


def settle(page: Page) -> None:
    """Let the page lay itself out (two animation frames) and its fonts load."""
    page.evaluate(
        "() => document.fonts.ready.then(() => new Promise(done =>"
        " requestAnimationFrame(() => requestAnimationFrame(done))))"
    )


@pytest.fixture
def findings() -> Iterator[Findings]:
    yield Findings()


def a11y_context(browser: Browser) -> BrowserContext:
    return new_context(browser, viewport=VIEWPORTS["1366x768"], reduced_motion="reduce")


# -- page helpers ---------------------------------------------------------------------------------


def visible(page: Page, selector: str, why: str, timeout: int = 20_000) -> None:
    until(
        page,
        "s => { const e = document.querySelector(s);"
        " return e && !e.closest('[hidden]') && e.getClientRects().length > 0; }",
        selector,
        why=why,
        timeout=timeout,
    )


def create_invitation(page: Page, server: Server, name: str) -> str:
    """A friend game (seat 0, at most 3 rounds) from the home page's form; its invitation link."""
    page.goto(f"{server.url}/")
    page.locator("#seat").select_option("0")
    page.locator("#rounds").select_option("3")
    page.locator("#name").fill(name)
    page.locator("#invite").click()
    visible(page, "#invite-link", "the home page shows no #invite-link")
    invite = page.locator("#invite-link").input_value()
    assert re.search(r"/join/[^/?#]+\?i=", invite), invite
    return invite


def wait_join(page: Page, state: str) -> None:
    until(
        page,
        "s => document.querySelector('#join')?.dataset.state === s",
        state,
        why=f"the invitation page never showed {state!r}",
    )


def select_for(page: Page, move: str) -> None:
    """Select the cards of ``move`` and press its action: the move's buttons show in #choices."""
    pressed = page.locator('#hand button.card[aria-pressed="true"]')
    for _ in range(10):
        if not pressed.count():
            break
        pressed.first.click()
    assert not pressed.count(), "the hand's selection could not be emptied"
    for card in cards_of(move):
        page.locator(f'#hand button.card[data-card="{card}"][aria-pressed="false"]').first.click()
    page.locator(f'button[data-action="{move[0]}"]').click()
    visible(page, f'#choices [data-move="{move}"]', f"#choices shows no button for {move}")


def play_until_scoring(page: Page) -> bool:
    """Play the first legal move at each decision until a round's scoring shows (True) or the
    game is over (False)."""
    scoring = page.locator("#scoring-continue")
    for _ in range(40):
        deadline = time.monotonic() + AI_TIMEOUT_MS / 1000
        while not (scoring.is_visible() or my_decision(page) or game_over(page)):
            assert time.monotonic() < deadline, "neither a decision nor a scoring came"
            page.wait_for_timeout(50)
        if scoring.is_visible():
            return True
        if game_over(page):
            return False
        make_move(page, legal(page)[0])
    raise AssertionError("no round ended in 40 decisions")


# -- the pages ------------------------------------------------------------------------------------


def test_the_home_page_is_accessible(server: Server, browser: Browser, findings: Findings) -> None:
    context = a11y_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        until(page, "() => document.querySelector('#lang')?.options.length >= 4", why="no #lang")
        findings.check(page, "home")

        refused = [True]

        def busy(route: Route) -> None:
            if route.request.method == "POST" and refused:
                refused.pop()
                route.fulfill(status=503, json={"code": "busy", "error": "the server is busy"})
            else:
                route.continue_()

        page.route(re.compile(r"/api/games$"), busy)
        page.locator("#invite").click()
        visible(page, "#error", "a refused game shows no #error on the home page")
        findings.check(page, "home: a game could not be created")

        page.locator("#invite").click()  # now the server answers
        visible(page, "#invite-link", "the home page shows no invitation link")
        findings.check(page, "home: the invitation link after 'Play with a friend'")
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()


def test_the_rules_page_is_accessible(server: Server, browser: Browser, findings: Findings) -> None:
    context = a11y_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/rules")
        until(
            page,
            "() => document.querySelectorAll('#rules-body section').length > 3",
            why="the rules page shows no sections",
        )
        findings.check(page, "rules")
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()


def test_the_invitation_page_is_accessible_in_each_state(
    server: Server, browser: Browser, findings: Findings
) -> None:
    host_context, friend_context = a11y_context(browser), a11y_context(browser)
    try:
        host, friend = open_page(host_context), open_page(friend_context)
        invite = create_invitation(host, server, "Anna")
        game, code = re.findall(r"/join/([^/?#]+)\?i=(.+)$", invite)[0]

        failures = [True]

        def busy(route: Route) -> None:
            if failures:
                failures.pop()
                route.fulfill(status=503, json={"code": "busy", "error": "the server is busy"})
            else:
                route.continue_()

        friend.route(re.compile(r"/invitation\?"), busy)
        friend.goto(invite)
        wait_join(friend, "error")
        findings.check(friend, "invitation: could not be read (Try again)")
        friend.locator("#retry").click()
        wait_join(friend, "open")
        findings.check(friend, "invitation: open")

        host.goto(invite)
        wait_join(host, "own")
        findings.check(host, "invitation: the creator's own")

        taken = friend.request.post(
            f"{server.url}/api/games/{game}/join", data={"invite": code, "name": "Bob"}
        )
        assert taken.status == 201, taken.text()
        friend.goto(invite)
        wait_join(friend, "used")
        visible(friend, "#table-link", "the guest's used invitation has no link to their table")
        findings.check(friend, "invitation: used, by this guest")
        host.reload()
        wait_join(host, "used")
        findings.check(host, "invitation: used, by someone else", ("390x844",))

        friend.goto(f"{server.url}/join/{game}?i=WRONG")
        wait_join(friend, "invalid")
        findings.check(friend, "invitation: a wrong code")
        no_page_errors(host)
        no_page_errors(friend)
    finally:
        host_context.close()
        friend_context.close()
    findings.assert_clean()


def test_the_game_page_is_accessible_in_a_friend_game(
    server: Server, browser: Browser, findings: Findings
) -> None:
    contexts = [a11y_context(browser) for _ in range(3)]
    try:
        host, guest, stranger = (open_page(c) for c in contexts)
        invite = create_invitation(host, server, "Hostess")
        host.locator("#go").click()
        wait_for_game(host)
        game = game_id(host)
        visible(host, "#invite-box", "the host's table shows no #invite-box before the friend")
        findings.check(host, "game: waiting for the friend to come")

        guest.goto(invite)
        wait_join(guest, "open")
        guest.locator("#name").fill("Guesto")
        guest.locator("#take").click()
        guest.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(guest)
        until(host, "() => document.querySelector('#game').dataset.toMove === 'me'", why="no turn")
        until(guest, "() => document.querySelector('#opp-name').textContent", why="no opponent")
        findings.check(guest, "game: the opponent's turn (waiting for the friend's move)")

        moves = legal(host)
        gift = next(m for m in moves if m[0] == "G")
        competition = next(m for m in moves if m[0] == "C")
        select_for(host, gift)
        findings.check(host, "game: cards selected and an action pressed (the move's button)")
        select_for(host, competition)
        findings.check(host, "game: a Competition's pair buttons")

        make_move(host, gift)
        visible(guest, "#offer [data-move]", "the guest is never offered the Gift")
        findings.check(host, "game: the player's own offer, waiting for the pick")
        findings.check(guest, "game: a pick from the opponent's offer")

        stranger.goto(f"{server.url}/g/{game}?t=WRONG")
        visible(stranger, "#error", "a wrong seat link shows no #error")
        findings.check(stranger, "game: an error (a wrong seat link)")
        for page in (host, guest):
            no_page_errors(page)
    finally:
        for context in contexts:
            context.close()
    findings.assert_clean()


def test_the_game_page_is_accessible_against_the_ai(
    server: Server, browser: Browser, findings: Findings
) -> None:
    context = a11y_context(browser)
    try:
        page = open_page(context)
        start_ai_game(page, server, seat="0")
        wait_for_my_turn(page)
        page.locator("#hint").click()
        until(
            page,
            "() => /\\d/.test(document.querySelector('#hint-text')?.textContent)",
            why="#hint-text never showed a suggestion",
            timeout=AI_TIMEOUT_MS,
        )
        findings.check(page, "game: the hint shown")

        page.locator("#resign").click()
        visible(page, "#resign-yes", "#resign shows no confirmation")
        findings.check(page, "game: the resign confirmation")
        page.locator("#resign-no").click()

        assert play_until_scoring(page), "round 1 ended without its scoring dialog"
        findings.check(page, "game: the round's scoring dialog")
        dismiss_scoring(page)
        wait_for_my_turn(page)
        if not game_over(page):
            page.locator("#resign").click()
            page.locator("#resign-yes").click()
        visible(page, "#result", "the game over shows no #result")
        findings.check(page, "game: the result panel")
        FINISHED.append(game_id(page))
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()


def finished_game(page: Page, server: Server) -> str:
    """A game against the AI that this module finished (one is played and resigned if none)."""
    if FINISHED:
        return FINISHED[0]
    start_ai_game(page, server, seat="0")
    for _ in range(2):
        wait_for_my_turn(page)
        make_move(page, legal(page)[0])
    page.locator("#resign").click()
    page.locator("#resign-yes").click()
    visible(page, "#result", "the resigned game shows no #result")
    FINISHED.append(game_id(page))
    return FINISHED[0]


def test_the_review_page_is_accessible(
    server: Server, browser: Browser, findings: Findings
) -> None:
    context = a11y_context(browser)
    try:
        page = open_page(context)
        game = finished_game(page, server)

        def pending(route: Route) -> None:
            route.fulfill(json={"status": "pending"})

        page.route(re.compile(r"/api/games/[^/]+/analysis"), pending)
        page.goto(f"{server.url}/review/{game}")
        visible(page, "#step", "the review shows no #step")
        until(
            page,
            "() => document.querySelector('#analysis-status').textContent.trim()",
            why="#analysis-status says nothing while the analysis is pending",
        )
        findings.check(page, "review: the analysis pending")

        page.unroute(re.compile(r"/api/games/[^/]+/analysis"))
        page.reload()
        until(
            page,
            "() => document.querySelector('svg#winprob')?.querySelector('path, circle, line')",
            why="svg#winprob was never drawn",
            timeout=120_000,
        )
        findings.check(page, "review: the analysis ready, first step")
        page.locator("#last").click()
        findings.check(page, "review: the analysis ready, last step")
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()
