"""The lobby's connection goes silent without closing, in Chromium (Playwright).

The lobby's socket has the table's heartbeat (js/api.js: a ping, then some message within a
deadline): a page whose network went quiet says that the connection was lost, connects again, and
the listing that opens every connection shows the challenges made meanwhile, without a reload. The
socket passes through the test (test_web_stall_browser.py's ``Network``), which cuts it silently;
the heartbeat is shortened with ``window.__hanamikojiTimings``.
"""

from __future__ import annotations

import time

from playwright.sync_api import Browser, Page

from browser_support import new_context, no_page_errors, open_page, until
from test_web_stall_browser import MARGIN_MS, PING_MS, PONG_MS, TIMINGS, Network
from web_support import Server

LOST = "The lobby's connection was lost: reconnecting…"


def open_lobby(page: Page, server: Server) -> None:
    page.goto(f"{server.url}/lobby")
    until(page, "() => document.querySelector('#lobby').dataset.conn === 'open'", why="no lobby")


def count(page: Page) -> int:
    return int(page.locator("#lobby").get_attribute("data-count") or -1)


def test_a_silent_lobby_connection_is_noticed_and_shows_what_it_missed(
    browser: Browser, server: Server
) -> None:
    anna_ctx, bob_ctx = new_context(browser), new_context(browser)
    try:
        anna, bob = open_page(anna_ctx), open_page(bob_ctx)
        anna_ctx.add_init_script(TIMINGS)
        net = Network(anna)
        open_lobby(anna, server)
        open_lobby(bob, server)
        before = count(anna)
        anna.evaluate("() => { window.__sameDocument = true; }")

        # Waiting quietly on a healthy connection: the pongs keep it, however long the wait.
        anna.wait_for_timeout(PING_MS + 2 * PONG_MS)
        assert anna.locator("#lobby").get_attribute("data-conn") == "open"
        assert len(net.links) == 1

        # Anna's connection goes silent without closing; Bob makes a challenge meanwhile.
        net.cut()
        cut = time.monotonic()
        made = bob.evaluate(
            """body => fetch('/api/lobby/challenges', {method: 'POST', body,
                 headers: {'Content-Type': 'application/json'}}).then(r => r.status)""",
            '{"control": "5+3", "seat": 0}',
        )
        assert made == 201
        until(
            anna,
            "text => document.querySelector('#lobby-conn')?.textContent === text",
            LOST,
            why="the lobby never noticed that the server went silent",
            timeout=PING_MS + PONG_MS + MARGIN_MS,
        )
        waited = time.monotonic() - cut
        assert waited > PONG_MS / 1000 - 0.5, f"said after {waited:.1f} s only"
        assert anna.locator("#lobby-conn").is_visible()
        assert count(anna) == before  # the challenge never came on the silent socket

        net.restore()
        until(
            anna,
            "n => document.querySelector('#lobby').dataset.conn === 'open'"
            " && Number(document.querySelector('#lobby').dataset.count) === n",
            before + 1,
            why="the challenge made meanwhile never showed after reconnecting",
        )
        assert anna.locator("#lobby-conn").is_hidden()
        assert anna.locator("#challenges li.challenge").last.get_attribute("data-mine") == "false"
        assert len(net.links) >= 2  # on a new connection
        assert anna.evaluate("() => window.__sameDocument === true")  # not reloaded
        for page in (anna, bob):
            no_page_errors(page)
    finally:
        anna_ctx.close()
        bob_ctx.close()
