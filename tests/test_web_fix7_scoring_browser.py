"""Continue in a round's scoring goes one step on from what the player saw (Playwright, Chromium).

The steps go on by themselves (js/scoring.js, every 1.1 s); a click on Continue as one of them
came took the dialog a second step on, past a marker the player never saw. The dialog here is
the game page's own markup, driven by js/scoring.js with a made-up round.
"""

from __future__ import annotations

from playwright.sync_api import Page

from browser_support import no_page_errors, until, wait_for_game
from web_support import Server

SCORING = {
    "round": 1,
    "markers_before": [None] * 7,
    "markers": [0, 1, None, 0, 1, 0, None],
    "played": ["1223456", "2345677"],
    "secrets": ["2", "6"],
}
OPEN = """async scoring => {
    const { ScoringDialog } = await import("/static/js/scoring.js");
    // the table's own dialog (its instance for the table has no round to show yet)
    const dialog = document.querySelector("#scoring");
    window.__dialog = new ScoringDialog(dialog, { names: () => ({}) });
    window.__dialog.show([scoring], 0);
}"""


GRACE_MS = 400
WATCH_TIMES = """() => {
    const dialog = document.querySelector("#scoring");
    new MutationObserver(() => (window.__stepAt = performance.now()))
        .observe(dialog, { attributes: true, attributeFilter: ["data-step"] });
    dialog.addEventListener("keydown", () => (window.__keyAt = performance.now()), true);
}"""


def step(page: Page) -> int:
    return int(page.locator("#scoring").get_attribute("data-step") or "-1")


def came_by_itself(page: Page, after: int) -> None:
    until(
        page,
        "n => Number(document.querySelector('#scoring').dataset.step) > n",
        after,
        why=f"the scoring never went on by itself from step {after}",
        timeout=5_000,
    )


def test_continue_goes_one_step_on_from_what_was_seen(server: Server, page: Page) -> None:
    made = page.request.post(
        f"{server.url}/api/games", data={"mode": "ai", "level": "easy", "seat": 0}
    ).json()
    page.goto(f"{server.url}{made['url']}")  # the table, at its first decision: no scoring
    wait_for_game(page)
    page.evaluate(OPEN, SCORING)
    button = page.locator("#scoring-continue")
    assert step(page) == 0

    # A plain click, with no step coming meanwhile: one step on.
    button.click()
    assert step(page) == 1

    # The pointer goes down on step 1; step 2 comes by itself before it is let go: the click
    # asked for step 2, which is on show, and takes the dialog no further.
    box = button.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    came_by_itself(page, 1)
    page.mouse.up()
    assert step(page) == 2, "the click skipped a step the player had not seen"

    # A key's click a moment after a step came by itself: the same (when the machine was quick
    # enough to press it within the moment: js/scoring.js's GRACE_MS).
    page.evaluate(WATCH_TIMES)
    came_by_itself(page, 2)
    button.press("Enter")
    gap = page.evaluate("() => window.__keyAt - window.__stepAt")
    if gap < GRACE_MS:
        assert step(page) == 3, "the key skipped a step the player had not seen"
    # and once the step has been on show a while, the next key goes one on
    page.wait_for_timeout(500)
    before = step(page)
    button.press("Enter")
    assert step(page) == before + 1
    no_page_errors(page)
