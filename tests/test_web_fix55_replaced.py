"""A seat opened in more windows than the limit (``sockets_per_seat``, 8) closes its oldest:
each replaced socket is told why (``replaced``) and gets a closing frame with 4409, however many
windows replace others in a row, and whether or not the replaced one reads meanwhile."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
from aiohttp.test_utils import TestClient

from test_web_server import client, create, service  # noqa: F401 (fixtures)

Client = TestClient[Any, Any]
LIMIT = 8


async def closing(ws: aiohttp.ClientWebSocketResponse) -> tuple[Any, list[str]]:
    """Read until the socket closes: its close code, and the error codes it was sent."""
    errors: list[str] = []
    while True:
        msg = await ws.receive(timeout=10)
        if msg.type == aiohttp.WSMsgType.TEXT:
            data = msg.json()
            if data.get("type") == "error":
                errors.append(data["code"])
            continue
        return ws.close_code, errors


async def test_every_replaced_socket_gets_4409(client: Client) -> None:  # noqa: F811
    made = await create(client, mode="friend", seat=0)
    url = f"/ws/{made['game']}?t={made['token']}"
    opened = [await client.ws_connect(url) for _ in range(LIMIT)]
    more = [await client.ws_connect(url) for _ in range(5)]  # each replaces the oldest
    try:
        results = [await closing(ws) for ws in opened[:5]]
        assert results == [(4409, ["replaced"])] * 5, results
        for ws in opened[5:] + more:  # still open: a state, then nothing
            assert not ws.closed
    finally:
        for ws in opened + more:
            await ws.close()


async def test_replaced_sockets_that_read_late_still_get_4409(client: Client) -> None:  # noqa: F811
    """Nobody reads the old sockets while the new ones open (their closing handshake waits
    for a reply that comes late): each still ends with the frame, not a cut (1006)."""
    made = await create(client, mode="friend", seat=0)
    url = f"/ws/{made['game']}?t={made['token']}"
    opened = [await client.ws_connect(url, autoclose=True) for _ in range(LIMIT)]
    more = []
    for _ in range(LIMIT):
        more.append(await client.ws_connect(url))
        await asyncio.sleep(0.05)
    await asyncio.sleep(3)  # past the server's own wait for the closing handshake
    try:
        results = [await closing(ws) for ws in opened]
        assert [code for code, _ in results] == [4409] * LIMIT, results
    finally:
        for ws in opened + more:
            await ws.close()
