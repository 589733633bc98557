"""While the device is offline, the table's buttons that need the server are off, and say why
(Playwright, Chromium).

Chromium keeps an open WebSocket open while offline (tests/test_web_stall_browser.py): what the
page sends waits, and may be dropped with the socket. A resignation, an undo, a hint or a
rematch asked then did nothing the player could see; a move has its answer watched instead.
"""

from __future__ import annotations

from playwright.sync_api import Page

from browser_support import no_page_errors, start_ai_game, until, wait_for_my_turn
from web_support import Server

WHY = "Needs the connection to the server: wait until it is back"
BUTTONS = ("#resign", "#hint", "#undo")


def state(page: Page, selector: str) -> tuple[bool, str | None]:
    """Whether the button is off, and its title."""
    button = page.locator(selector)
    return button.is_disabled(), button.get_attribute("title")


def test_what_needs_the_server_is_off_while_offline(server: Server, page: Page) -> None:
    start_ai_game(page, server)
    wait_for_my_turn(page)
    # an undo needs a move of the player's to take back
    page.locator("#hand button.card").first.click()
    page.locator('button[data-action="S"]').click()
    page.locator("#choices button[data-move]").first.click()
    wait_for_my_turn(page)
    online = {selector: state(page, selector) for selector in BUTTONS}
    assert online == {s: (False, None) for s in BUTTONS}, online

    page.context.set_offline(True)
    until(
        page,
        "() => document.querySelector('#resign').disabled",
        why="Resign stays on while the device is offline",
    )
    offline = {selector: state(page, selector) for selector in BUTTONS}
    assert offline == {s: (True, WHY) for s in BUTTONS}, offline
    assert page.locator("#resign").get_attribute("aria-describedby") == "conn"
    assert "offline" in page.locator("#conn").inner_text()

    page.context.set_offline(False)
    until(
        page,
        "() => !document.querySelector('#resign').disabled",
        why="Resign stays off once the device is back online",
    )
    back = {selector: state(page, selector) for selector in BUTTONS}
    assert back == {s: (False, None) for s in BUTTONS}, back

    # asked to confirm, then offline: the confirmation cannot be sent either
    page.locator("#resign").click()
    assert page.locator("#resign-yes").is_enabled()
    page.context.set_offline(True)
    until(
        page,
        "() => document.querySelector('#resign-yes').disabled",
        why="Yes, resign stays on while the device is offline",
    )
    assert page.locator("#resign-yes").get_attribute("title") == WHY
    page.context.set_offline(False)
    until(
        page,
        "() => !document.querySelector('#resign-yes').disabled",
        why="Yes, resign stays off once the device is back online",
    )
    page.locator("#resign-yes").click()
    until(
        page,
        "() => document.querySelector('#game').dataset.status === 'over'",
        why="the resignation asked once back online was not played",
    )
    no_page_errors(page)
