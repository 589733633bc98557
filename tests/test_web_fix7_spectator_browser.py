"""A spectator's page opens without an error (Playwright, Chromium).

The game page of a visitor without a seat used to open a seat's socket first, which the server
refused with ``bad-token``, the page's cue to watch instead: every spectator's first frame was
an error. The page now asks ``GET /api/games/{game}/seat`` first and watches from the start.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Browser

from browser_support import new_context, no_page_errors, open_page, until, wait_for_game
from web_support import Server


def test_a_spectators_page_receives_no_error(server: Server, browser: Browser) -> None:
    host = new_context(browser)
    watcher = new_context(browser)
    try:
        made = host.request.post(
            f"{server.url}/api/games", data={"mode": "ai", "level": "easy", "seat": 0}
        ).json()
        game = made["game"]
        player = open_page(host)
        player.goto(f"{server.url}{made['url']}")  # the seat's link: its cookie from now
        wait_for_game(player)
        assert player.locator("#game").get_attribute("data-role") == "player"
        seat = host.request.get(f"{server.url}/api/games/{game}/seat")
        assert seat.json() == {"game": game, "seat": 0}
        assert seat.headers["cache-control"] == "no-store"

        spectator = open_page(watcher)
        frames: list[dict[str, Any]] = []
        urls: list[str] = []

        def socket(ws: Any) -> None:
            urls.append(ws.url)
            ws.on("framereceived", lambda f: frames.append(json.loads(f) if f[:1] == "{" else {}))

        spectator.on("websocket", socket)
        spectator.goto(f"{server.url}/g/{game}")
        until(
            spectator,
            "() => document.querySelector('#game').dataset.role === 'spectator'"
            " && document.querySelector('#game').dataset.status === 'playing'",
            why="the page of a visitor without a seat is not the spectator's table",
        )
        assert spectator.locator("#watching").is_visible()
        assert spectator.locator("#error").is_hidden()
        errors = [f for f in frames if f.get("type") == "error"]
        assert errors == [], errors
        assert any(f.get("type") == "state" and f.get("spectator") for f in frames), frames
        assert urls == [f"{server.url.replace('http', 'ws')}/ws/{game}/watch"], urls
        answer = watcher.request.get(f"{server.url}/api/games/{game}/seat")
        assert answer.json() == {"game": game, "seat": None}
        # a link that opens no seat decides alone, as at the socket: none here
        linked = host.request.get(f"{server.url}/api/games/{game}/seat?t=nothing")
        assert linked.json() == {"game": game, "seat": None}
        assert host.request.get(f"{server.url}/api/games/nosuchgame/seat").status == 404
        no_page_errors(player)
        no_page_errors(spectator)
    finally:
        host.close()
        watcher.close()
