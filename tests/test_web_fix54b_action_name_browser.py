"""A chosen action's name stays whole on a phone (Playwright, Chromium).

- At 360x740 "Competition" fills its quarter of the row to within two pixels of each side: the
  frame that marks the chosen action must not be drawn over it. Each action, chosen, keeps its
  name clear of the button's border and of any ring drawn inside it.

Screenshots: ``test-output/screenshots/fix54b-action-*.png``.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, ViewportSize

from browser_support import new_context, no_page_errors, open_page, shot, start_ai_game
from web_support import Server

PHONES: list[ViewportSize] = [{"width": 360, "height": 740}, {"width": 375, "height": 667}]

# How far the name lies from the button's edges, and how much of that the border and an inset
# ring (box-shadow ... inset, its spread) cover, on each side.
CLEARANCE = """
action => {
  const button = document.querySelector(`#my-actions button[data-action="${action}"]`);
  const name = button.querySelector('.action-name');
  const b = button.getBoundingClientRect();
  const n = name.getBoundingClientRect();
  const style = getComputedStyle(button);
  let ring = 0;
  for (const shadow of style.boxShadow.split(/,(?![^(]*\\))/)) {
    if (!shadow.includes('inset')) continue;
    const lengths = shadow.replace(/rgba?\\([^)]*\\)/, '').match(/-?[\\d.]+px/g) || [];
    ring = Math.max(ring, parseFloat(lengths[3] || '0'));
  }
  return {
    pressed: button.getAttribute('aria-pressed'),
    left: n.left - b.left,
    right: b.right - n.right,
    covered: parseFloat(style.borderLeftWidth) + ring,
  };
}
"""


@pytest.mark.parametrize("viewport", PHONES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_a_chosen_actions_name_is_not_covered_by_its_frame(
    server: Server, browser: Browser, viewport: ViewportSize
) -> None:
    context = new_context(browser, viewport=viewport, has_touch=True, is_mobile=True)
    try:
        page = open_page(context)
        start_ai_game(page, server, seat="0")
        page.wait_for_function(
            "() => document.querySelectorAll('#hand button.card:not(:disabled)').length >= 7"
        )
        for index in range(4):
            page.locator("#hand button.card").nth(index).click()
        for action in ("S", "D", "G", "C"):
            page.locator(f'#my-actions button[data-action="{action}"]').click()
            room = page.evaluate(CLEARANCE, action)
            assert room["pressed"] == "true", (action, room)
            for side in ("left", "right"):
                assert room[side] >= room["covered"] - 0.01, (
                    f"at {viewport['width']}px the chosen {action}'s name runs under its frame: "
                    f"{room}"
                )
        shot(page, f"fix54b-action-{viewport['width']}.png", full_page=False)
        no_page_errors(page)
    finally:
        context.close()
