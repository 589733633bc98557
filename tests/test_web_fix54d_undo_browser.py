"""The page's undo names the version it was decided on, as its moves do: the same undo sent from
two windows at once takes back one turn, the second a conflict (the server checks it)."""

from __future__ import annotations

import json
import random
from typing import Any

from playwright.sync_api import Page, WebSocket

from browser_support import legal, make_move, start_ai_game, until, wait_for_my_turn
from web_support import Server


def test_the_pages_undo_carries_the_games_version(server: Server, page: Page) -> None:
    sent: list[dict[str, Any]] = []

    def watch(ws: WebSocket) -> None:
        ws.on("framesent", lambda frame: sent.append(json.loads(frame)))

    page.on("websocket", watch)
    start_ai_game(page, server, seat="0")
    wait_for_my_turn(page)
    secrets = [m for m in legal(page) if m[0] == "S"]
    make_move(page, random.Random(4).choice(secrets))
    wait_for_my_turn(page)
    until(page, "() => !document.querySelector('#undo').disabled", why="#undo stays disabled")
    page.locator("#undo").click()
    until(
        page,
        "() => document.querySelector('#status').textContent.includes('taken back')",
        why="the undo was not taken",
    )
    undos = [m for m in sent if m.get("type") == "undo"]
    assert len(undos) == 1, undos
    moves = [m for m in sent if m.get("type") == "move"]
    # the game's version now: past the move the page sent, and the AI's reply after it
    assert isinstance(undos[0].get("version"), int), undos
    assert undos[0]["version"] > moves[-1]["version"], (undos, moves)
