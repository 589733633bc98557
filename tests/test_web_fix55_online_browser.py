"""What a player of the online site met in the browser: a lobby visit bounced back to a bot game
just started, the table's chat heading cut in the middle of its word in French and Russian, and
the news' highlight on the dark theme, light text on mustard."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Browser, Page, Route

from browser_support import (
    LANG,
    friend_game,
    new_context,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
)
from web_support import Server

SLOW_ANSWER = """
(() => {
  // the answer to a new challenge is slow to come (a slow network): the bot's acceptance, on the
  // lobby's socket, arrives first
  const fetch0 = window.fetch;
  window.fetch = async (url, options) => {
    const answer = await fetch0(url, options);
    if (String(url).endsWith("/api/lobby/challenges") && options?.method === "POST") {
      await new Promise((done) => setTimeout(done, 800));
    }
    return answer;
  };
})();
"""


def test_a_lobby_visit_after_a_bot_game_started_stays_in_the_lobby(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    try:
        context.add_init_script(SLOW_ANSWER)
        page = open_page(context)
        page.goto(f"{server.url}/lobby")
        until(
            page,
            "() => document.querySelector('[data-bot=\"AI-beginner\"] button')",
            why="no house bot in the lobby",
        )
        until(page, "() => document.querySelector('#lobby').dataset.conn === 'open'", why="socket")

        def slow_table(route: Route) -> None:
            time.sleep(2)  # the table loads slowly: the challenge's answer comes meanwhile
            route.continue_()

        page.route(re.compile(r"/g/[^/?#]+"), slow_table)
        page.select_option("#control", "none")
        page.locator('[data-bot="AI-beginner"] button').click()
        page.wait_for_url(re.compile(r"/g/[^/?#]+"), timeout=30_000)
        wait_for_game(page)
        game = page.url
        page.unroute(re.compile(r"/g/[^/?#]+"))
        # the player goes back to the lobby on purpose (from the address bar, a link): it opens
        page.goto(f"{server.url}/lobby")
        page.wait_for_timeout(2_500)  # the lobby's listing came (a bounce would have followed it)
        assert "/lobby" in page.url, f"the lobby sent the player back to {page.url} (from {game})"
        no_page_errors(page)
    finally:
        context.close()


WHOLE_WORDS = """
() => {
  // each word of the chat's title on one line: a word cut in two has two boxes
  const title = document.querySelector('#chat-title');
  const text = title.firstChild;
  const cut = [];
  for (const match of text.textContent.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, match.index);
    range.setEnd(text, match.index + match[0].length);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (tops.size > 1) cut.push(match[0]);
  }
  return cut;
}
"""


def chat_title_cut(page: Page) -> list[str]:
    until(page, "() => document.querySelector('#chat-title')?.firstChild", why="no chat title")
    cut: list[str] = page.evaluate(WHOLE_WORDS)
    return cut


def test_the_chat_heading_keeps_its_word_whole_in_french_and_russian(
    browser: Browser, server: Server
) -> None:
    for lang in ("fr", "ru"):
        script = f"localStorage.setItem('hanamikoji.lang', '{lang}')"
        _, pages = friend_game(browser, server, "Marie", "Иван", init_script=script)
        try:
            for page in pages:
                until(page, LANG, lang, why=f"the page is not in {lang}")
                wait_for_game(page)
                title = page.locator("#chat-title").inner_text()
                cut = chat_title_cut(page)
                if cut:
                    shot(page, f"fix55-chat-title-{lang}.png", full_page=False)
                assert not cut, f"{lang}: the chat's title {title!r} is cut inside {cut}"
                no_page_errors(page)
        finally:
            for page in pages:
                page.context.close()


def _contrast(fg: tuple[float, ...], bg: tuple[float, ...]) -> float:
    """WCAG's contrast ratio of two opaque sRGB colours (0-255)."""

    def lum(c: tuple[float, ...]) -> float:
        def lin(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])

    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


FLASH = """
() => {
  // the news' highlight at its brightest: a move list's fresh line, its flash held at its first
  // frame, painted over the panel it stands on (a canvas composes them, in any colour space)
  const list = document.createElement("ol");
  list.className = "log";
  const line = document.createElement("li");
  line.className = "fresh";
  line.textContent = "You offered a Gift";
  list.append(line);
  document.body.append(list);
  const [flash] = line.getAnimations();
  flash.pause();
  flash.currentTime = 0;
  const panel = document.createElement("div");
  panel.style.background = "var(--paper-2)";
  document.body.append(panel);
  const paint = (...colours) => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext("2d");
    for (const c of colours) { ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1); }
    return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3));
  };
  const under = getComputedStyle(panel).backgroundColor;
  const seen = {
    highlight: paint(under, getComputedStyle(line).backgroundColor),
    ink: paint(getComputedStyle(line).color),
    flash: getComputedStyle(line).backgroundColor,
  };
  list.remove();
  panel.remove();
  return seen;
}
"""


def test_the_news_highlight_keeps_its_text_readable_on_the_dark_theme(
    browser: Browser, server: Server
) -> None:
    for scheme in ("light", "dark"):
        context = new_context(browser, color_scheme=scheme, reduced_motion="no-preference")
        try:
            page = open_page(context)
            page.goto(f"{server.url}/")
            got = page.evaluate(FLASH)
            ratio = _contrast(tuple(got["ink"]), tuple(got["highlight"]))
            # the status's and the move list's text on the highlight (it was 3.4:1 on the dark)
            assert ratio >= 4.5, (scheme, got, round(ratio, 2))
        finally:
            context.close()


SIGN_UP = """
async (name) => {
  const r = await fetch("/api/account", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: name, password: "correct horse battery" }),
  });
  return r.status;
}
"""


def test_the_waiting_line_says_for_whom_and_whether_rated(browser: Browser, server: Server) -> None:
    anna_ctx, bob_ctx = new_context(browser), new_context(browser)
    try:
        anna, bob = open_page(anna_ctx), open_page(bob_ctx)
        bob.goto(f"{server.url}/lobby")
        assert bob.evaluate(SIGN_UP, "bob_waits") == 201
        anna.goto(f"{server.url}/lobby")
        until(anna, "() => document.querySelector('#lobby').dataset.conn === 'open'", why="socket")
        # no challenge yet: no blank count line above "No open challenges"
        assert anna.locator("#challenges-count").bounding_box() is None
        anna.select_option("#control", "3+2")
        anna.locator("#lobby-more summary").click()
        anna.fill("#to", "bob_waits")
        anna.locator("#create").click()
        until(anna, "() => !document.querySelector('#lobby-waiting').hidden", why="not waiting")
        text = anna.locator("#lobby-waiting-text").inner_text()
        # it named nobody ("Waiting for an opponent") and not whether the game is rated
        assert "bob_waits" in text and "3 min + 2 s" in text and "casual" in text, text
        anna.locator("#lobby-waiting-cancel").click()
        until(anna, "() => document.querySelector('#lobby-waiting').hidden", why="still waiting")
        anna.locator("#rated").check()
        anna.locator("#play-now").click()
        until(anna, "() => !document.querySelector('#lobby-waiting').hidden", why="not seeking")
        text = anna.locator("#lobby-waiting-text").inner_text()
        assert "an opponent" in text and "rated" in text, text
        anna.locator("#lobby-waiting-cancel").click()
    finally:
        anna_ctx.close()
        bob_ctx.close()
