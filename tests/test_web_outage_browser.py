"""A server killed in a timed game, seen from the player's browser (Playwright, Chromium): while
the connection is lost the clocks stand still, marked (they counted on to a red 0:00.0, time the
server would not charge); started again, the server gives the page the time to come back, and
the player's clock says what it said before the kill (within the second between the last
heartbeat and the kill).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from browser_support import (
    new_context,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from web_support import Server, sqlite_url

CLOCKS = "() => document.querySelectorAll('#scorebar .clock[data-clock-seat]').length === 2"
HELD = "() => document.querySelectorAll('#scorebar .clock.held').length === 2"


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of this test's own, to kill and start again on the same port and database."""
    srv = Server(sqlite_url(tmp_path_factory.mktemp("web-outage") / "games.sqlite3"))
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


def my_clock(page: Page) -> int:
    return int(page.locator("#my-standing .clock").get_attribute("data-ms") or -1)


def test_a_killed_server_costs_the_player_no_time(server: Server, browser: Browser) -> None:
    context = new_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/rules")
        made = page.request.post(
            f"{server.url}/api/games",
            data={"mode": "ai", "level": "beginner", "seat": 0, "control": "3+2"},
            headers={"Origin": server.url},
        ).json()
        page.goto(f"{server.url}{made['url']}")
        wait_for_game(page)
        until(page, CLOCKS, why="no clocks")
        wait_for_my_turn(page)
        server.kill()
        until(page, HELD, why="the clocks were not held when the connection went")
        held = my_clock(page)
        time.sleep(1.5)
        assert my_clock(page) == held  # standing still, not counting down to 0:00.0
        shot(page, "outage-held.png", full_page=False)
        time.sleep(1.5)  # more than two heartbeats: the restarted server sees the downtime
        server.start()
        until(page, f"() => !({HELD[6:]})", why="the page did not come back", timeout=30_000)
        back = my_clock(page)
        # the outage and the reconnection are not charged: the time is what it was, within the
        # second between the last heartbeat and the kill (which the server does not charge)
        assert held - 1_500 <= back <= held + 1_100, (held, back)
        no_page_errors(page)
    finally:
        context.close()
