"""Layout and right-to-left names in real browsers (Playwright, Chromium).

- After a game ends on a laptop (1280x800, 1024x700) the side panel holds the result, the links and
  the chat together: the chat keeps its height, its quick phrases and field are the elements a
  click reaches, and nothing in the panel is drawn over the move list.
- A name with right-to-left letters ("בוב Bob مرحبا") is isolated from the sentence around it
  (Unicode bidi isolation, U+2068 … U+2069): the score after it stays out of its run, in the
  status, the score bar, the result and a spectator's table.
- The games on now (/watch) on a 390 px phone: a 40-letter name wraps, the page never scrolls
  sideways.
- Every site page's top bar links to the others (the account page had no Leaderboard), and on a
  phone the links stay inside the screen.
- The lobby's bots are listed under the open challenges in the wide column on a laptop (their terms
  on three lines at most), one column on a phone; its "Rated" box is off without a clock; a
  challenge by a 40-letter name keeps its terms on two lines, clear of its button.

Screenshots: ``test-output/screenshots/layout-*.png``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    PHONE,
    friend_game,
    game_over,
    legal,
    make_move,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    play_by_clicks,
    shot,
    start_ai_game,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from web_support import Server

FSI, PDI = "\u2068", "\u2069"
RTL_NAME = "בוב Bob مرحبا"
LONG_RTL_NAME = "ملكة الزهور الجميلة جداً Bob"
LONG_NAME = "Wolfeschlegelsteinhausenbergerdorffvoral"  # 40 letters, no space
ENDED = "() => document.querySelector('#game').dataset.status === 'over'"


def resign(page: Page, *others: Page) -> None:
    page.locator("#resign").click()
    page.locator("#resign-yes").click()
    for p in (page, *others):
        until(p, ENDED, why="the game ended")
        until(p, "() => !document.querySelector('#result').hidden", why="the result shows")


def close(*pages: Page) -> None:
    for page in pages:
        no_page_errors(page)
        page.context.close()


# -- the chat after the end ----------------------------------------------------------------------

PANEL = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const parts = [...document.querySelectorAll('.panel > *')]
    .filter((el) => el.getClientRects().length);
  const name = (el) => el.id || el.className;
  const overlaps = [];
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j < parts.length; j++) {
      const [a, b] = [box(parts[i]), box(parts[j])];
      const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
      const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
      if (w > 0.5 && h > 0.5) overlaps.push([name(parts[i]), name(parts[j])]);
    }
  }
  const chat = document.querySelector('#chat');
  return {
    overlaps,
    chatHeight: chat.getBoundingClientRect().height,
    spills: chat.scrollHeight - chat.clientHeight,
    chatBottom: chat.getBoundingClientRect().bottom,
    logTitleTop: document.querySelector('#log-title').getBoundingClientRect().top,
  };
}"""

HIT = """(sel) => {
  const el = document.querySelector(sel);
  el.scrollIntoView({ block: 'nearest' });
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const at = document.elementFromPoint(x, y);
  return {
    rect: [r.left, r.top, r.right, r.bottom], vh: innerHeight, sy: scrollY,
    inside: r.height > 0 && r.top >= -1 && r.left >= -1
      && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1,
    hit: at === el || el.contains(at),
    at: at ? (at.id || at.className || at.tagName) : null,
  };
}"""


def assert_chat_usable(page: Page, size: ViewportSize) -> None:
    page.set_viewport_size(size)
    page.wait_for_timeout(200)
    where = f"{size['width']}x{size['height']}"
    panel: dict[str, Any] = page.evaluate(PANEL)
    assert panel["overlaps"] == [], f"{where}: parts of the side panel overlap: {panel}"
    assert panel["spills"] <= 1, f"{where}: the chat's content spills out of its box: {panel}"
    assert panel["chatHeight"] > 100, f"{where}: the chat is squashed: {panel}"
    assert panel["chatBottom"] <= panel["logTitleTop"] + 0.5, f"{where}: the chat is over the moves"
    for sel in ("#chat-input", '#chat button[data-phrase="thanks"]', "#log"):
        found = page.evaluate(HIT, sel)
        assert found["inside"], f"{where}: {sel} cannot be brought on screen: {found}"
        assert found["hit"], f"{where}: a click on {sel} lands on {found['at']}"


def test_the_chat_is_usable_after_the_end_on_a_laptop(server: Server, browser: Browser) -> None:
    """A whole game played by clicks: the status has its news, the result its long reason (a long
    right-to-left name wraps), the move list its lines; the chat below them all still works."""
    _, (anna, bob) = friend_game(browser, server, "Anna", LONG_RTL_NAME)
    anna.set_viewport_size({"width": 1280, "height": 800})
    until(anna, "() => !document.querySelector('#chat').hidden", why="the chat box shows")
    play_by_clicks([anna, bob], random.Random(5))
    sizes: list[ViewportSize] = [{"width": 1280, "height": 800}, {"width": 1024, "height": 700}]
    for size in sizes:
        assert_chat_usable(anna, size)
        anna.evaluate(
            "() => document.querySelector('#result').scrollIntoView({ block: 'nearest' })"
        )
        shot(anna, f"layout-end-{size['width']}x{size['height']}.png", full_page=False)
    # The phrase and the field are used, not only seen: a real click, a real message.
    anna.locator('#chat button[data-phrase="thanks"]').click(timeout=5_000)
    until(
        bob,
        "() => [...document.querySelectorAll('#chat-lines .chat-line')]"
        ".some((li) => li.textContent.includes('Thanks'))",
        why="Bob sees Anna's phrase",
    )
    anna.locator("#chat-input").fill("good game")
    anna.locator("#chat-input").press("Enter")
    until(
        bob,
        "() => document.querySelector('#chat-lines').textContent.includes('good game')",
        why="Bob sees Anna's words",
    )
    # Bob's name in the chat is isolated as everywhere else.
    bob.locator("#chat-input").fill("gg")
    bob.locator("#chat-input").press("Enter")
    until(
        anna,
        "() => document.querySelector('#chat-lines').textContent.includes('gg')",
        why="Anna sees Bob's words",
    )
    assert f"{FSI}{LONG_RTL_NAME}{PDI} guest: gg" in anna.locator("#chat-lines").inner_text()
    close(anna, bob)


# -- right-to-left names --------------------------------------------------------------------------


def isolated(text: str, name: str) -> bool:
    return f"{FSI}{name}{PDI}" in text


def test_a_right_to_left_name_is_isolated(server: Server, browser: Browser) -> None:
    other = "אנה Anna"
    game, (anna, bob) = friend_game(browser, server, other, RTL_NAME)
    watcher = open_page(new_context(browser))
    watcher.goto(f"{server.url}/g/{game}")
    wait_for_game(watcher)
    # The seat that waits reads "<the other's name>'s turn."
    waiting = [
        (page, name)
        for page, name in ((anna, RTL_NAME), (bob, other))
        if "turn" in page.locator("#status .now").inner_text()
        and "Your" not in page.locator("#status .now").inner_text()
    ]
    assert waiting, [p.locator("#status").inner_text() for p in (anna, bob)]
    page, name = waiting[0]
    status = page.locator("#status .now").inner_text()
    assert status == f"{FSI}{name}{PDI}'s turn.", status
    assert isolated(page.locator("#opp-name").inner_text(), name)
    watching = watcher.locator("#status .now").inner_text()
    assert isolated(watching, name) and watching.endswith("'s turn."), watching
    assert isolated(watcher.locator("#watching-names").inner_text(), RTL_NAME)
    shot(page, "layout-rtl-status.png", full_page=False)

    resign(anna, bob, watcher)
    title = anna.locator("#result-title").inner_text()
    assert title == f"{FSI}{RTL_NAME}{PDI} won", title
    # Resigned in round 1, no round scored: no score line ("Charm: you 0, … 0" read as if one
    # had been counted); the name's run is the title's.
    assert anna.locator("#result-score").inner_text() == ""
    assert isolated(watcher.locator("#result").inner_text(), RTL_NAME)
    anna.locator("#result").scroll_into_view_if_needed()
    shot(anna, "layout-rtl-result.png", full_page=False)

    # The review: its players' line and its summary ("⁨בוב Bob مرحبا⁩ won: …"; resigned in round
    # 1, no round scored: no score line).
    anna.goto(f"{server.url}/review/{game}")
    until(anna, "() => document.querySelector('#summary').textContent", why="the summary")
    assert isolated(anna.locator("#players").inner_text(), RTL_NAME)
    summary = anna.locator("#summary").inner_text()
    assert summary.startswith(f"{FSI}{RTL_NAME}{PDI} won: "), summary
    shot(anna, "layout-rtl-review.png", full_page=False)
    close(anna, bob, watcher)


# -- the games on now on a phone -----------------------------------------------------------------

WATCH_ROWS = """() => {
  const out = [];
  for (const li of document.querySelectorAll('#games-on .mine-game')) {
    const row = li.getBoundingClientRect();
    const status = li.querySelector('.mine-status').getBoundingClientRect();
    const button = li.querySelector('.btn').getBoundingClientRect();
    const overlap = Math.min(status.right, button.right) - Math.max(status.left, button.left) > 0.5
      && Math.min(status.bottom, button.bottom) - Math.max(status.top, button.top) > 0.5;
    const statusScroll = li.querySelector('.mine-status').scrollWidth - status.width;
    out.push({ text: li.textContent, rowRight: row.right, statusRight: status.right,
               statusScroll, overlap });
  }
  return { rows: out, scrollWidth: document.documentElement.scrollWidth, width: innerWidth };
}"""


def test_the_watch_list_wraps_a_long_name_on_a_phone(server: Server, browser: Browser) -> None:
    _, players = friend_game(browser, server, LONG_NAME, "ملكة الزهور الجميلة جداً")
    context = new_context(browser, viewport=PHONE)
    page = open_page(context)
    page.goto(f"{server.url}/watch")
    until(
        page,
        "n => [...document.querySelectorAll('#games-on .mine-game')]"
        ".some((li) => li.textContent.includes(n))",
        LONG_NAME,
        why="the game is listed",
    )
    found: dict[str, Any] = page.evaluate(WATCH_ROWS)
    assert found["scrollWidth"] <= found["width"], f"the page scrolls sideways: {found}"
    for row in found["rows"]:
        assert row["statusRight"] <= row["rowRight"] + 0.5, row
        assert row["statusScroll"] <= 1, row
        assert not row["overlap"], f"the players run under the Watch button: {row}"
    shot(page, "layout-watch-390x844.png")
    close(page, *players)


# -- the top bars ---------------------------------------------------------------------------------

SITE = ["/", "/lobby", "/watch", "/leaders", "/rules"]
PAGES = ["/", "/lobby", "/watch", "/leaders", "/rules", "/account", "/@/nobody-here"]

TOPBAR = """() => {
  const brand = document.querySelector('.topbar .brand img').getBoundingClientRect();
  const links = [...document.querySelectorAll('.topnav a, .topnav select')]
    .filter((a) => a.getBoundingClientRect().width > 0);
  return {
    hrefs: links.filter((a) => a.tagName === 'A').map((a) => a.getAttribute('href')),
    boxes: links.map((a) => {
      const r = a.getBoundingClientRect();
      return [a.getAttribute('href') || a.id, r.left, r.right];
    }),
    brandRight: brand.right,
    scrollWidth: document.documentElement.scrollWidth,
  };
}"""


def test_every_site_page_links_to_the_others(server: Server, browser: Browser) -> None:
    for size in ({"width": 1280, "height": 800}, PHONE):
        context = new_context(browser, viewport=size)
        page = open_page(context)
        for path in PAGES:
            page.goto(f"{server.url}{path}")
            page.wait_for_load_state("networkidle")
            bar: dict[str, Any] = page.evaluate(TOPBAR)
            missing = [href for href in SITE if href != path and href not in bar["hrefs"]]
            assert not missing, f"{path}: the top bar lacks {missing}: {bar['hrefs']}"
            assert bar["scrollWidth"] <= size["width"], f"{path} at {size}: {bar}"
            for what, left, right in bar["boxes"]:
                assert left >= bar["brandRight"] and right <= size["width"], (
                    f"{path} at {size}: {what} is off the bar ({left}..{right}): {bar}"
                )
            if size is PHONE and path == "/account":
                shot(page, "layout-topbar-account-390.png", full_page=False)
        close(page)


# -- the lobby ------------------------------------------------------------------------------------

LOBBY_BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.width]; };
  return {
    form: box(document.querySelector('#lobby-form')),
    challenges: box(document.querySelector('#challenges-title').closest('section')),
    bots: box(document.querySelector('#bots-title').closest('section')),
    terms: [...document.querySelectorAll('#bots .challenge-what')].map((w) => {
      const line = parseFloat(getComputedStyle(w).lineHeight);
      return Math.round(w.getBoundingClientRect().height / line);
    }),
  };
}"""


CHALLENGE_ROW = """() => {
  const li = document.querySelector('#challenges li');
  const what = li.querySelector('.challenge-what'), go = li.querySelector('.btn');
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right]; };
  const lines = what.getBoundingClientRect().height / parseFloat(getComputedStyle(what).lineHeight);
  return { what: box(what), go: box(go), lines: Math.round(lines) };
}"""


def test_the_lobbys_bots_sit_under_the_open_challenges(server: Server, browser: Browser) -> None:
    """On a laptop the bots' list is under the open challenges, in the wide column, each bot's
    terms on two lines or three at most (in the narrow column they took six); on a phone every
    section is one column, the form first."""
    # a guest by a 40-letter name without a space challenges: the name wraps, the terms keep
    # their room (they took a word a line, under the button)
    origin = {"Origin": server.url}
    creator = new_context(browser)
    maker = open_page(creator)
    maker.goto(f"{server.url}/rules")
    maker.request.post(f"{server.url}/api/me", data={"name": LONG_NAME}, headers=origin)
    made = maker.request.post(
        f"{server.url}/api/lobby/challenges", data={"control": "1d"}, headers=origin
    ).json()["challenge"]
    for size, name in (({"width": 1280, "height": 800}, "1280"), (PHONE, "390")):
        context = new_context(browser, viewport=size)
        page = open_page(context)
        page.goto(f"{server.url}/lobby")
        until(page, "() => document.querySelectorAll('#bots li').length >= 5", why="no bots")
        until(page, "() => document.querySelectorAll('#challenges li').length === 1", why="none")
        boxes: dict[str, Any] = page.evaluate(LOBBY_BOXES)
        form, challenges, bots = boxes["form"], boxes["challenges"], boxes["bots"]
        assert bots[0] == challenges[0] and bots[1] > challenges[1], boxes
        assert bots[2] == challenges[2], boxes
        if size is PHONE:
            assert form[0] == challenges[0] and challenges[1] > form[1], boxes
        else:
            assert bots[0] > form[0] + form[2] and bots[1] < form[1] + 600, boxes
            assert all(0 < n <= 3 for n in boxes["terms"]), boxes
            row = page.evaluate(CHALLENGE_ROW)
            assert row["lines"] <= 2 and row["what"][2] <= row["go"][0], row
        shot(page, f"layout-lobby-{name}.png")
        # "Rated" only with a clock (untimed games are never rated: the server refuses it)
        page.locator("#rated").check()
        page.locator("#control").select_option("none")
        assert page.locator("#rated").is_disabled() and not page.locator("#rated").is_checked()
        page.locator("#control").select_option("1d")
        assert page.locator("#rated").is_enabled()
        no_page_errors(page)
        close(page)
    maker.request.post(
        f"{server.url}/api/lobby/challenges/{made['id']}/cancel", data={}, headers=origin
    )
    close(maker)


def test_a_long_name_keeps_a_phones_profile_in_shape(browser: Browser, server: Server) -> None:
    """A 20-letter user name and a 40-letter name with no space to break at: on a phone the
    profile scrolled sideways; the name wraps. (At the table such a name wraps too, whole:
    tests/test_web_browser.py, the longest name.)"""
    context = new_context(browser, viewport={"width": 360, "height": 740})
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        user, name = "W" * 20, "W" * 40
        made = page.evaluate(
            """async ([user, name]) => {
              const post = (path, body) => fetch(path, {method: "POST", body: JSON.stringify(body),
                headers: {"Content-Type": "application/json"}}).then((r) => r.status);
              return [await post("/api/account", {username: user, password: "correct horse 7"}),
                      await post("/api/me", {name})];
            }""",
            [user, name],
        )
        assert made == [201, 200], made
        page.goto(f"{server.url}/@/{user}")
        until(page, "() => document.querySelector('#profile-name').textContent", why="no name")
        no_horizontal_scroll(page)
        shot(page, "long-name-profile-360.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()


@pytest.mark.parametrize(
    "viewport", [{"width": 640, "height": 400}, {"width": 683, "height": 384}], ids=str
)
def test_at_200_percent_zoom_the_geisha_and_the_actions_show(
    browser: Browser, server: Server, viewport: ViewportSize
) -> None:
    """A laptop at 200% zoom (640x400 CSS pixels): the pinned hand covered every geisha and cut
    "Competition" to "Competitio". A window this short scrolls instead, and each action's name
    fits its button, in every language."""
    context = new_context(browser, viewport=viewport)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/")
        page.locator("#level").select_option("beginner")
        page.locator("#seat").select_option("0")
        page.locator("#start-ai").click()
        wait_for_game(page)
        board, dock = (page.locator(s).bounding_box() for s in ("#board", ".my-area"))
        assert board and dock and board["y"] + board["height"] <= dock["y"] + 1, (board, dock)
        for lang in ("en", "fr", "cs", "ru"):
            page.locator("#lang").select_option(lang)
            until(page, "l => document.documentElement.lang === l", lang, why="not translated")
            cut = page.evaluate(
                "() => [...document.querySelectorAll('.btn.action .action-name')]"
                ".filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent)"
            )
            assert not cut, (lang, cut)
        shot(page, f"layout-zoom200-{viewport['width']}.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()


def test_a_phones_status_shows_its_newest_line(server: Server, browser: Browser) -> None:
    """On a phone the status box is short: with the opponent's moves told above it, the bold
    line of what to do now ("Your opponent made an offer: choose what you take") was cut in
    half. The box shows its last lines whenever its words change."""
    context = new_context(browser, viewport=PHONE)
    try:
        page = open_page(context)
        start_ai_game(page, server)
        # shorter still than a phone's, so that any news at all overflows it
        page.add_style_tag(content="#status { max-height: 64px !important; }")
        rng, overflowed = random.Random(5), 0
        for _ in range(14):
            wait_for_my_turn(page)
            if game_over(page):
                break
            box = page.evaluate(
                """() => {
                  const s = document.querySelector('#status');
                  const now = s.querySelector('.now').getBoundingClientRect();
                  const r = s.getBoundingClientRect();
                  return { over: s.scrollHeight > s.clientHeight + 1,
                           inside: now.top >= r.top - 1 && now.bottom <= r.bottom + 1 };
                }"""
            )
            overflowed += box["over"]
            said = page.locator("#status").inner_text()
            assert box["inside"], f"the status's last line is cut: {said!r}"
            make_move(page, rng.choice(legal(page)))
        assert overflowed >= 3, "the test never had a status too long for its box"
        no_page_errors(page)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["ru", "cs", "fr"])
def test_the_chats_send_button_keeps_its_word_whole(
    server: Server, browser: Browser, lang: str
) -> None:
    """The Russian button read "Отправит / ь", its word broken over two lines."""
    script = f"localStorage.setItem('hanamikoji.lang', '{lang}')"
    _, (anna, bob) = friend_game(browser, server, init_script=script)
    sizes: list[ViewportSize] = [{"width": 1280, "height": 800}, {"width": 1024, "height": 700}]
    for size in [*sizes, PHONE]:
        anna.set_viewport_size(size)
        until(anna, "() => !document.querySelector('#chat').hidden", why="no chat box")
        button = anna.evaluate(
            """() => { const b = document.querySelector('#chat-send');
                 const line = parseFloat(getComputedStyle(b).lineHeight) || 20;
                 return { h: b.getBoundingClientRect().height, line, text: b.textContent,
                          w: b.scrollWidth, cw: b.clientWidth }; }"""
        )
        assert button["h"] < 2 * button["line"], f"{size}: {button}"
        assert button["w"] <= button["cw"] + 1, f"{size}: the word spills: {button}"
    close(anna, bob)


def test_on_a_phone_the_hint_is_said_beside_its_move(server: Server, browser: Browser) -> None:
    """On a phone the hint's sentence ("The AI suggests … – your chance of winning: 51%") was at
    the top of the page, out of sight of the hand and the move it highlighted."""
    for size, beside in ((PHONE, True), ({"width": 1280, "height": 800}, False)):
        context = new_context(browser, viewport=size)
        try:
            page = open_page(context)
            start_ai_game(page, server)
            wait_for_my_turn(page)
            page.locator("#hint").click()
            until(page, "() => !document.querySelector('#hint-text').hidden", why="no hint")
            until(page, "() => !!document.querySelector('#choices .hint-echo')", why="no echo")
            echo = page.locator("#choices .hint-echo")
            assert echo.is_visible() == beside, size
            if beside:
                echo.scroll_into_view_if_needed()
                box = page.evaluate(
                    """() => { const e = document.querySelector('#choices .hint-echo')
                                   .getBoundingClientRect();
                               const b = (document.querySelector('#choices .move-buttons')
                                   ?? document.querySelector('#offer')).getBoundingClientRect();
                               return { gap: Math.abs(b.top - e.bottom), vh: innerHeight,
                                        top: e.top, bottom: e.bottom }; }"""
                )
                assert box["top"] >= 0 and box["bottom"] <= box["vh"], box
                assert box["gap"] < 120, f"the words are far from the move: {box}"
                assert "your chance to win" in echo.inner_text()
            no_page_errors(page)
        finally:
            context.close()
