"""Accessibility of every page and state, checked by axe-core in a browser (issue #16, point 7).

Each page is brought to each of its states through the pages' DOM contract (ids, ``data-*``
attributes, roles); then axe-core (``axe-playwright-python``) runs on it at a 1366x768 laptop, a
1280x720 window and a 390x844 phone, and once more in the dark colour scheme. What axe leaves
undecided is checked too: text over the paper's faint texture (flattened while axe runs), SVG
text such as a card's digit (its fill against the shapes under it) and placeholders, each at
4.5:1. A test collects what it finds in all its states and fails on every violation of impact
"serious" or "critical", naming the state, the viewports, the rule, its help text and the
elements to fix. The home, rules and invitation pages are also walked by keyboard: every control
reached by Tab, with a focus ring. The contexts prefer reduced motion, so that no state is read
in the middle of an animation.
"""

from __future__ import annotations

import re
import time
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
REPORTED_NODES = 12
"""The elements named in a failure's message for each rule and state (the rest are counted)."""
AXE = Axe()

FINISHED: list[str] = []
"""Games this module finished against the AI (the review test looks at one)."""


# -- axe-core -------------------------------------------------------------------------------------


# Colours in the page's JavaScript: parsed from computed styles, laid over one another, compared.
COLOURS_JS = """
const parse = (s) => {
  const m = /rgba?\\(([^)]*)\\)/.exec(s || "");
  if (!m) return null;
  const p = m[1].split(/[\\s,\\/]+/).filter(Boolean)
    .map((v) => (v.endsWith("%") ? parseFloat(v) / 100 : Number(v)));
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
};
const over = (top, under) =>
  top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3])).concat(1);
const luminance = (c) => {
  const f = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
};
const ratio = (a, b) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return Math.floor(((x + 0.05) / (y + 0.05)) * 100) / 100;
};
const hex = (c) =>
  "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility === "visible";
/** The solid colour behind an element: its ancestors' background colours laid over white. */
const backdrop = (e) => {
  const layers = [];
  for (let n = e; n; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c && c[3] > 0) {
      layers.push(c);
      if (c[3] >= 1) break;
    }
  }
  return layers.reverse().reduce((under, c) => over(c, under), [255, 255, 255, 1]);
};
/** A CSS selector that finds the element again, for the report. */
const where = (e) => {
  const parts = [];
  for (let n = e; n && n.nodeType === 1 && parts.length < 5; n = n.parentElement) {
    if (n.id) {
      parts.unshift("#" + n.id);
      break;
    }
    const cls = typeof n.className === "string" && n.className.trim()
      ? "." + n.className.trim().split(/\\s+/).join(".") : "";
    const same = n.parentElement
      ? [...n.parentElement.children].filter((c) => c.tagName === n.tagName) : [];
    const nth = same.length > 1 ? `:nth-of-type(${same.indexOf(n) + 1})` : "";
    parts.unshift(n.tagName.toLowerCase() + cls + nth);
  }
  return parts.join(" > ");
};
"""

FLATTEN_JS = (
    "() => {"
    + COLOURS_JS
    + """
  // A faint texture (gradients whose every stop is at most 15% opaque) hides the background's
  // colour from axe, which then leaves all text over it unchecked: while axe runs, each such
  // texture becomes one flat colour, its strongest stops laid over the background colour.
  const kept = [];
  for (const e of document.querySelectorAll("*")) {
    const style = getComputedStyle(e);
    const image = style.backgroundImage;
    if (!image.includes("gradient") || image.includes("url(")) continue;
    const stops = [...image.matchAll(/rgba?\\([^)]*\\)|transparent/g)]
      .map((m) => (m[0] === "transparent" ? [0, 0, 0, 0] : parse(m[0])));
    if (!stops.length || stops.some((c) => c[3] > 0.15)) continue;
    const layers = image.split(/,\\s*(?=(?:repeating-)?(?:linear|radial|conic)-gradient)/);
    let flat = backdrop(e);
    for (const layer of layers.reverse()) {
      const colours = [...layer.matchAll(/rgba?\\([^)]*\\)/g)].map((m) => parse(m[0]));
      if (colours.length) flat = over(colours.reduce((a, b) => (b[3] > a[3] ? b : a)), flat);
    }
    kept.push([e, e.getAttribute("style")]);
    e.style.setProperty("background-image", "none", "important");
    e.style.setProperty("background-color", hex(flat), "important");
  }
  window.__a11yTextures = kept;
}"""
)

RESTORE_JS = """() => {
  for (const [e, style] of window.__a11yTextures || []) {
    if (style === null) e.removeAttribute("style");
    else e.setAttribute("style", style);
  }
  window.__a11yTextures = [];
}"""

SVG_TEXT_JS = (
    "(minimum) => {"
    + COLOURS_JS
    + """
  // axe leaves text of one character (a card's digit) unchecked, and reads an SVG text's colour
  // from CSS color rather than its fill: each SVG text's fill is compared here with the shapes
  // painted under its centre (then the page behind the SVG).
  const opacity = (e, root) => {
    let o = 1;
    for (let n = e; n && n !== root.parentNode; n = n.parentNode) {
      o *= Number(getComputedStyle(n).opacity);
    }
    return o;
  };
  const found = [];
  for (const text of document.querySelectorAll("svg text")) {
    if (!shown(text) || !text.textContent.trim()) continue;
    const svg = text.ownerSVGElement;
    const fill = parse(getComputedStyle(text).fill);
    if (!svg || !fill) continue;
    const box = text.getBBox();
    const centre = new DOMPoint(box.x + box.width / 2, box.y + box.height / 2)
      .matrixTransform(text.getScreenCTM());
    let bg = backdrop(svg);
    for (const shape of svg.querySelectorAll("rect, circle, ellipse, polygon, path")) {
      if (!(text.compareDocumentPosition(shape) & Node.DOCUMENT_POSITION_PRECEDING)) continue;
      const paint = parse(getComputedStyle(shape).fill);
      if (!paint || !shown(shape)) continue;
      if (!shape.isPointInFill(centre.matrixTransform(shape.getScreenCTM().inverse()))) continue;
      paint[3] *= Number(getComputedStyle(shape).fillOpacity) * opacity(shape, svg);
      bg = over(paint, bg);
    }
    fill[3] *= Number(getComputedStyle(text).fillOpacity) * opacity(text, svg);
    const fg = over(fill, bg);
    const r = ratio(fg, bg);
    if (r < minimum) {
      found.push({
        target: where(text),
        message: `"${text.textContent.trim()}" has a contrast of ${r}:1`
          + ` (fill ${hex(fg)} on ${hex(bg)}); expected ${minimum}:1`,
      });
    }
  }
  return found;
}"""
)

PLACEHOLDER_JS = (
    "(minimum) => {"
    + COLOURS_JS
    + """
  // axe does not look at a field's placeholder (here, the name a player gets by default)
  const found = [];
  for (const e of document.querySelectorAll("input[placeholder], textarea[placeholder]")) {
    if (!shown(e) || e.value || !e.placeholder.trim()) continue;
    const style = getComputedStyle(e, "::placeholder");
    const colour = parse(style.color);
    if (!colour) continue;
    colour[3] *= Number(style.opacity);
    const bg = backdrop(e);
    const fg = over(colour, bg);
    const r = ratio(fg, bg);
    if (r < minimum) {
      found.push({
        target: where(e),
        message: `the placeholder "${e.placeholder}" has a contrast of ${r}:1`
          + ` (${hex(fg)} on ${hex(bg)}); expected ${minimum}:1`,
      });
    }
  }
  return found;
}"""
)

PLACEHOLDER_RULE = {
    "id": "placeholder-contrast",
    "impact": "serious",
    "help": "A field's placeholder text must reach 4.5:1 contrast with the field",
    "helpUrl": "https://www.w3.org/WAI/WCAG22/Understanding/contrast-minimum.html",
}

SVG_TEXT_RULE = {
    "id": "svg-text-contrast",
    "impact": "serious",
    "help": "SVG text (a card's digit, a charm) must reach 4.5:1 contrast with what is under it",
    "helpUrl": "https://www.w3.org/WAI/WCAG22/Understanding/contrast-minimum.html",
}


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is, its faint textures flattened while axe runs."""
    page.evaluate(FLATTEN_JS)
    try:
        return list(AXE.run(page).response["violations"])
    finally:
        page.evaluate(RESTORE_JS)


def own_violations(page: Page) -> list[dict[str, Any]]:
    """The SVG texts and placeholders under 4.5:1, in axe's form (none if all reach it)."""
    found = []
    for rule, js in ((SVG_TEXT_RULE, SVG_TEXT_JS), (PLACEHOLDER_RULE, PLACEHOLDER_JS)):
        nodes = page.evaluate(js, 4.5)
        if nodes:
            found.append(
                {
                    **rule,
                    "nodes": [
                        {"target": [n["target"]], "any": [{"message": n["message"]}]} for n in nodes
                    ],
                }
            )
    return found


@dataclass
class Findings:
    """What the checks found, state by state: the serious and critical violations."""

    found: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    checked: list[str] = field(default_factory=list)

    def check(self, page: Page, state: str, viewports: tuple[str, ...] = tuple(VIEWPORTS)) -> None:
        """Run axe-core and our own checks on ``page``, showing ``state``, at each of
        ``viewports``, then in the dark colour scheme at the first of them; then give the page
        its own viewport back."""
        own = page.viewport_size
        try:
            for name in viewports:
                page.set_viewport_size(VIEWPORTS[name])
                self.run(page, state, name)
            page.set_viewport_size(VIEWPORTS[viewports[0]])
            page.emulate_media(color_scheme="dark")
            self.run(page, state, f"{viewports[0]} dark")
        finally:
            page.emulate_media(color_scheme="light")
            if own is not None:
                page.set_viewport_size(own)
            settle(page)

    def run(self, page: Page, state: str, viewport: str) -> None:
        settle(page)
        self.add(state, viewport, axe_violations(page) + own_violations(page))
        self.checked.append(f"{state} @ {viewport}")

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
            nodes = list(entry["nodes"].items())
            for (target, why), viewports in nodes[:REPORTED_NODES]:
                at = ", ".join(dict.fromkeys(viewports))
                lines.append(f"    {target}  (at {at})" + (f": {why}" if why else ""))
            if len(nodes) > REPORTED_NODES:
                lines.append(f"    ... and {len(nodes) - REPORTED_NODES} more elements")
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
def findings() -> Findings:
    return Findings()


CONTROLS_JS = (
    "() => {"
    + COLOURS_JS
    + """
  const controls = document.querySelectorAll(
    "a[href], button, input, select, textarea, summary, [tabindex]");
  return [...controls]
    .filter((e) => !e.disabled && e.tabIndex >= 0 && shown(e) && !e.closest("[hidden], [inert]"))
    .map(where);
}"""
)

FOCUSED_JS = (
    "() => {"
    + COLOURS_JS
    + """
  const e = document.activeElement;
  if (!e || e === document.body || e === document.documentElement) return null;
  const style = getComputedStyle(e);
  const width = parseFloat(style.outlineWidth) || 0;
  const colour = style.outlineStyle === "none" ? null : parse(style.outlineColor);
  // an outline drawn outside the element is seen against what is around it, else against it
  const against = backdrop(parseFloat(style.outlineOffset) >= 0 ? e.parentElement || e : e);
  return {
    target: where(e),
    visible: e.matches(":focus-visible"),
    width,
    contrast: colour && colour[3] > 0 ? ratio(over(colour, against), against) : 0,
  };
}"""
)


def keyboard_walk(page: Page, state: str) -> list[str]:
    """Tab through the whole page, in the light then the dark colour scheme: what is wrong with
    its keyboard access (nothing: [])."""
    controls: list[str] = page.evaluate(CONTROLS_JS)
    assert controls, f"{state}: no control to reach"
    problems = []
    try:
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            reached: dict[str, dict[str, Any]] = {}
            for _ in range(2 * len(controls) + 6):
                page.keyboard.press("Tab")
                focused = page.evaluate(FOCUSED_JS)
                if focused is not None:
                    reached.setdefault(focused["target"], focused)
                if set(controls) <= set(reached):
                    break
            where = f"{state} ({scheme})"
            problems += [f"{where}: Tab never reaches {c}" for c in controls if c not in reached]
            for target, focus in reached.items():
                if not focus["visible"] or focus["width"] < 2 or focus["contrast"] < 3:
                    problems.append(
                        f"{where}: {target} shows no focus ring of 2px at 3:1 (:focus-visible "
                        f"{focus['visible']}, outline {focus['width']}px at {focus['contrast']}:1)"
                    )
    finally:
        page.emulate_media(color_scheme="light")
    return problems


def a11y_context(browser: Browser) -> BrowserContext:
    return new_context(browser, viewport=VIEWPORTS["1366x768"], reduced_motion="reduce")


# -- page helpers ---------------------------------------------------------------------------------


def visible(page: Page, selector: str, why: str, timeout: int = 20_000) -> None:
    """Wait until an element matching ``selector`` is on show."""
    until(
        page,
        "s => [...document.querySelectorAll(s)]"
        ".some(e => !e.closest('[hidden]') && e.getClientRects().length > 0)",
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


def test_the_games_on_now_are_accessible(
    server: Server, browser: Browser, findings: Findings
) -> None:
    context = a11y_context(browser)
    try:
        page = open_page(context)
        page.request.post(f"{server.url}/api/games", data={"mode": "ai", "level": "easy"})
        page.goto(f"{server.url}/watch")
        visible(page, "#games-on li", "the games on now list no game")
        findings.check(page, "watch: the games on now")
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
        findings.check(host, "game: waiting for the friend to come")

        guest.goto(invite)
        wait_join(guest, "open")
        guest.locator("#name").fill("Guesto")
        guest.locator("#take").click()
        guest.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_game(guest)
        until(host, "() => document.querySelector('#game').dataset.toMove === 'me'", why="no turn")
        until(
            guest,
            "() => document.querySelector('#game').dataset.toMove === 'opponent'",
            why="the guest does not wait for the host's first move",
        )
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
        visible(stranger, "#watching", "a wrong seat link does not watch the game")
        visible(stranger, "#offer .offer-cards", "the spectator is not shown the Gift")
        findings.check(stranger, "game: a spectator's table, an offer pending (a wrong seat link)")
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

        page.locator("#prefs summary").click()
        visible(page, "#pref-theme", "the table's settings do not open")
        findings.check(page, "game: the settings open")
        page.keyboard.press("Escape")  # closes them, as a dialog, back on their button
        assert page.locator("#prefs").evaluate("d => !d.open")
        assert page.evaluate("document.activeElement === document.querySelector('#prefs summary')")

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


def test_the_game_page_is_accessible_in_a_guided_game(
    server: Server, browser: Browser, findings: Findings
) -> None:
    context = a11y_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        page.locator("#start-guided").click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"))
        wait_for_my_turn(page)
        visible(page, "#guide", "a guided game shows no #guide at its first decision")
        findings.check(page, "game: a guided game, the guide at the first decision")
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()


def finished_game(page: Page, server: Server) -> str:
    """A game against the AI that this module finished after a round's scoring (one is played
    through round 1 and resigned if none)."""
    if FINISHED:
        return FINISHED[0]
    start_ai_game(page, server, seat="0")
    assert play_until_scoring(page), "round 1 ended without its scoring dialog"
    dismiss_scoring(page)
    wait_for_my_turn(page)
    if not game_over(page):
        page.locator("#resign").click()
        page.locator("#resign-yes").click()
    visible(page, "#result", "the game shows no #result")
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
        for _ in range(60):  # round 1's 12 decisions and picks come before its scoring
            if page.locator("#frame-scoring").is_visible():
                break
            page.locator("#next").click()
        visible(page, "#frame-scoring", "the review never shows round 1's scoring")
        findings.check(page, "review: a round's scoring")
        if page.locator("#last").is_enabled():  # disabled: the scoring is the last step
            page.locator("#last").click()
        findings.check(page, "review: the analysis ready, last step")
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()


def test_the_home_rules_and_invitation_pages_by_keyboard(server: Server, browser: Browser) -> None:
    """Each control is reached by Tab and shows a focus ring (2px at least, 3:1 against what is
    around it); axe checks their names and the text's contrast."""
    host_context, friend_context = a11y_context(browser), a11y_context(browser)
    problems: list[str] = []
    try:
        host, friend = open_page(host_context), open_page(friend_context)
        invite = create_invitation(host, server, "Anna")
        for viewport in ("1366x768", "390x844"):
            host.set_viewport_size(VIEWPORTS[viewport])
            problems += keyboard_walk(host, f"home with its invitation link @ {viewport}")
        host.set_viewport_size(VIEWPORTS["1366x768"])
        host.goto(f"{server.url}/rules")
        until(host, "() => document.querySelector('#toc a')", why="the rules have no contents")
        problems += keyboard_walk(host, "rules")
        host.goto(invite)
        wait_join(host, "own")
        problems += keyboard_walk(host, "invitation: the creator's own")
        friend.goto(invite)
        wait_join(friend, "open")
        problems += keyboard_walk(friend, "invitation: open")
        friend.goto(invite.replace("?i=", "?i=WRONG"))
        wait_join(friend, "invalid")
        problems += keyboard_walk(friend, "invitation: a wrong code")
    finally:
        host_context.close()
        friend_context.close()
    assert not problems, "\n".join(problems)


def test_the_theme_chosen_at_the_table_holds_on_the_home_rules_and_invitation_pages(
    server: Server, browser: Browser
) -> None:
    context = new_context(browser, color_scheme="dark")
    try:
        page = open_page(context)
        background = (
            "() => getComputedStyle(document.body).backgroundColor.match(/\\d+/g)"
            ".slice(0, 3).map(Number).reduce((a, b) => a + b)"
        )
        for theme, dark in (("light", False), ("dark", True), ("system", True)):
            page.goto(f"{server.url}/")
            page.evaluate(
                "theme => localStorage.setItem('hanamikoji.prefs', JSON.stringify({theme}))", theme
            )
            for path in ("/", "/rules", "/join/nosuchgame?i=WRONG"):
                page.goto(f"{server.url}{path}")
                until(page, "() => document.querySelector('#lang')?.options.length", why="no #lang")
                shown = page.evaluate("() => document.documentElement.dataset.theme || 'system'")
                assert shown == theme, (path, theme, shown)
                total = page.evaluate(background)
                assert (total < 3 * 128) == dark, f"{path} with theme {theme}: background {total}"
        no_page_errors(page)
    finally:
        context.close()


def test_a_status_that_scrolls_takes_the_keyboard(
    server: Server, browser: Browser, findings: Findings
) -> None:
    """On a phone the status scrolls once it tells many moves: it is then a tab stop (axe's
    scrollable-region-focusable), and no tab stop while it fits."""
    context = a11y_context(browser)
    try:
        page = open_page(context)
        page.set_viewport_size(VIEWPORTS["390x844"])
        start_ai_game(page, server, seat="0")
        wait_for_my_turn(page)
        assert page.locator("#status").get_attribute("tabindex") is None
        page.evaluate(
            """() => {
              const status = document.querySelector('#status');
              for (let i = 0; i < 12; i++) {
                const p = document.createElement('p');
                p.textContent = 'a move told at length, one of many';
                status.append(p);
              }
              window.dispatchEvent(new Event('resize'));
            }"""
        )
        assert page.locator("#status").get_attribute("tabindex") == "0"
        findings.check(page, "game: a status that scrolls", ("390x844",))
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()
