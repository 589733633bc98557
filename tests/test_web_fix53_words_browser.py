"""French and Russian at phone width (360x740; 390x844 too): the words fit where they stand
(Playwright, Chromium).

- The table's top bar: the brand's mark never touches the first link ("Regarder"), in every
  language, the links on one row inside the screen.
- No colon (nor ; ? !) stands alone at the start of a line: French puts a no-break space before
  it (the rules page's figure of an offer, the table).
- The tag under the card just drawn is no wider than its card (French "nouvelle" was).
- Russian: each player's standing keeps one line at 360 px ("ходит первым" sent the geisha's
  count to a line of its own); «Игрок 2» on the invitation's page is one piece, never broken
  across lines.

Screenshots: ``test-output/screenshots/fix53-words-*.png``.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
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
TALL: ViewportSize = {"width": 390, "height": 844}
LANGS = sorted(path.stem for path in (STATIC / "i18n").glob("*.json"))

# Every text node's punctuation mark that starts a line (the character before it is on the line
# above): "Un Échange" / ": les paires".
ALONE_JS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const at = (node, i) => {
    const r = document.createRange();
    r.setStart(node, i);
    r.setEnd(node, i + 1);
    return r.getBoundingClientRect();
  };
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!el || !el.getClientRects().length) continue;
    const text = node.textContent;
    for (let i = 1; i < text.length; i++) {
      if (!':;?!'.includes(text[i])) continue;
      const mark = at(node, i);
      if (!mark.width) continue;
      let j = i - 1;
      while (j > 0 && /\\s/.test(text[j])) j--;
      const before = at(node, j);
      const line = text.slice(Math.max(0, i - 30), i + 8);
      if (before.width && before.top < mark.top - 2) out.push(line);
    }
  }
  return out;
}"""

TOP_JS = """() => {
  const brand = document.querySelector('.topbar .brand-mark').getBoundingClientRect();
  const nav = [...document.querySelectorAll('.topnav > *')].map((e) => e.getBoundingClientRect());
  return { brandRight: brand.right, firstLeft: Math.min(...nav.map((r) => r.left)),
           oneRow: Math.max(...nav.map((r) => r.top)) < Math.min(...nav.map((r) => r.bottom)),
           right: Math.max(...nav.map((r) => r.right)), vw: innerWidth };
}"""

TAG_JS = """() => {
  const tag = document.querySelector('#hand .drawn-tag');
  if (!tag) return null;
  const card = tag.closest('.card').getBoundingClientRect();
  const r = tag.getBoundingClientRect();
  return { text: tag.textContent, tag: r.width, card: card.width };
}"""

# Each standing's rows: a part that starts below the foot of the row before starts a new one.
STANDING_JS = """() => [...document.querySelectorAll('#scorebar .standing')].map((s) => {
  let rows = 0, foot = -Infinity;
  for (const c of s.children) {
    if (!c.getClientRects().length) continue;
    const r = c.getBoundingClientRect();
    if (r.top >= foot - 1) { rows += 1; foot = r.bottom; } else foot = Math.max(foot, r.bottom);
  }
  return { text: s.textContent, rows };
})"""


def ai_table(browser: Browser, server: Server, lang: str, size: ViewportSize = UPRIGHT) -> Page:
    context = new_context(browser, viewport=size)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
    page = open_page(context)
    made = page.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3},
    ).json()
    page.goto(f"{server.url}{made['url']}")
    wait_for_game(page)
    until(page, "l => document.documentElement.lang === l", lang, why=f"not in {lang}")
    return page


@pytest.mark.parametrize("lang", LANGS)
def test_the_tables_top_bar_and_tag_fit_a_phone(
    server: Server, browser: Browser, lang: str
) -> None:
    for size in (UPRIGHT, TALL):
        page = ai_table(browser, server, lang, size)
        where = f"{lang} @ {size['width']}x{size['height']}"
        try:
            wait_for_my_turn(page)
            page.evaluate("() => window.scrollTo(0, 0)")
            top: dict[str, Any] = page.evaluate(TOP_JS)
            tag = page.evaluate(TAG_JS)
            standings = page.evaluate(STANDING_JS)
            alone = page.evaluate(ALONE_JS)
            shot(page, f"fix53-words-table-{lang}-{size['width']}.png", full_page=False)
            assert top["firstLeft"] - top["brandRight"] >= 8, f"{where}: the mark touches: {top}"
            assert top["oneRow"] and top["right"] <= top["vw"] + 0.5, (where, top)
            assert tag is not None, f"{where}: no card is marked as drawn"
            assert tag["tag"] <= tag["card"] + 0.5, (
                f"{where}: the tag is wider than its card: {tag}"
            )
            for s in standings:
                assert s["rows"] == 1, f"{where}: a standing takes two lines: {standings}"
            assert not alone, f"{where}: a mark starts a line: {alone}"
            no_horizontal_scroll(page)
            no_page_errors(page)
        finally:
            page.context.close()


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_no_colon_stands_alone_on_the_rules_page(
    server: Server, browser: Browser, lang: str
) -> None:
    context = new_context(browser, viewport=UPRIGHT)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
    page = open_page(context)
    try:
        for path in ("/rules", "/"):
            page.goto(f"{server.url}{path}")
            until(page, "l => document.documentElement.lang === l", lang, why=f"not in {lang}")
            page.wait_for_timeout(300)
            alone = page.evaluate(ALONE_JS)
            assert not alone, f"{lang} {path} @ 360: a mark starts a line: {alone}"
        page.goto(f"{server.url}/rules")
        until(page, "l => document.documentElement.lang === l", lang, why=f"not in {lang}")
        page.locator("figcaption").nth(2).scroll_into_view_if_needed()
        shot(page, f"fix53-words-rules-{lang}.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()


def test_the_default_name_is_one_piece_on_the_russian_invitation(
    server: Server, browser: Browser
) -> None:
    host = new_context(browser)
    made = host.request.post(
        f"{server.url}/api/games",
        data={"mode": "friend", "seat": 0, "max_rounds": 3, "name": "Анна"},
    ).json()
    host.close()
    context = new_context(browser, viewport=UPRIGHT)
    context.add_init_script("localStorage.setItem('hanamikoji.lang', 'ru')")
    page = open_page(context)
    try:
        page.goto(f"{server.url}{made['invite']}")
        until(page, "() => document.documentElement.lang === 'ru'", why="not in Russian")
        until(
            page,
            "() => document.querySelector('#name-help')?.textContent.includes('Игрок')",
            why="no default name in the help",
        )
        lines = page.evaluate(
            """() => {
              const help = document.querySelector('#name-help');
              const node = [...help.childNodes].find((n) => n.textContent.includes('Игрок'));
              const at = node.textContent.indexOf('Игрок');
              const r = document.createRange();
              r.setStart(node, at);
              r.setEnd(node, at + 'Игрок 2'.length);
              return new Set([...r.getClientRects()].filter((x) => x.width > 0)
                .map((x) => Math.round(x.top))).size;
            }"""
        )
        shot(page, "fix53-words-join-ru.png", full_page=False)
        assert lines == 1, f"«Игрок 2» is broken across {lines} lines"
        no_page_errors(page)
    finally:
        context.close()
