"""What a player of the online site met in the browser: a lobby visit bounced back to a bot game
just started, and the table's chat heading cut in the middle of its word in French and Russian."""

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
