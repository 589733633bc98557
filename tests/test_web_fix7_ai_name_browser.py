"""The AI's name inside French and Czech sentences (Playwright, Chromium).

French names the AI "IA (Facile)", and said it so inside sentences: "faveur de IA (Facile)",
"une erreur de IA (Facile)"; French says "de l'IA", and "L'IA" to start a sentence. Czech
named it "Počítač (Lehká)", a masculine word with a feminine level (which agrees with
"obtížnost"): now "Počítač (obtížnost Lehká)". The review of a game against the easy AI, whose
analysis is made to hold one mistake of the AI's, shows both: the markers and the mistake.
"""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import Browser, Route

from browser_support import new_context, no_page_errors, open_page
from test_web_review_browser import ANALYSIS, SEAT, finished, open_review, server  # noqa: F401
from web_support import Server

EXPECTED = {
    "fr": {
        "marker": "Marqueur de victoire : faveur de l'IA (Facile)",
        "legend": "une erreur de l'IA (Facile)",
        "note": "Une erreur : l'IA (Facile) a joué ",
        "start": "L'IA (Facile) garde ",
    },
    "cs": {
        "marker": "Žeton vítězství: přízeň – Počítač (obtížnost Lehká)",
        "legend": "chyba – Počítač (obtížnost Lehká)",
        "note": "Chyba – Počítač (obtížnost Lehká): ",
        "start": "Počítač (obtížnost Lehká) dává ",
    },
}


@pytest.mark.parametrize("lang", ["fr", "cs"])
def test_the_ai_is_named_as_the_language_says_it(
    server: Server,  # noqa: F811
    browser: Browser,
    lang: str,
) -> None:
    game, _, _ = finished(server)
    context = new_context(browser)
    try:
        context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
        page = open_page(context)
        deadline = time.monotonic() + 120
        while (real := page.request.get(f"{server.url}/api/games/{game}/analysis").json())[
            "status"
        ] != "ready":
            assert time.monotonic() < deadline, real
            time.sleep(0.5)
        made = json.loads(json.dumps(real))
        theirs = [d for d in made["decisions"] if d["seat"] != SEAT]
        for d in made["decisions"]:
            d["loss"] = 0.0
            d["best"] = d["played"]
        wrong = theirs[3]
        wrong["best"] = next(d["played"] for d in theirs if d["played"] != wrong["played"])
        wrong["loss"] = 0.25
        wrong["played_value"] = max(0.0, wrong["win_probability"] - 0.25)

        def fulfil(route: Route) -> None:
            route.fulfill(json=made)

        page.route(ANALYSIS, fulfil)
        open_review(page, server)
        words = EXPECTED[lang]
        legend = page.locator('#legend li[data-mark="mistake-far"]').inner_text().strip()
        assert legend == words["legend"]
        page.locator("#mistake-lists .mistake-list").nth(1).locator("button").first.click()
        note = page.locator("#analysis-note").inner_text()
        assert note.startswith(words["note"]), note
        page.locator("#last").click()
        markers = page.locator('#board .marker[data-owner="opponent"]')
        assert markers.count() > 0
        assert markers.first.get_attribute("aria-label") == words["marker"]
        # a sentence it starts: the game's first move, the AI's (seat 0), a Secret
        page.locator("#first").click()
        page.locator("#next").click()
        frame = page.locator("#frame-text").inner_text()
        assert frame.startswith(words["start"]), frame
        no_page_errors(page)
    finally:
        context.close()
