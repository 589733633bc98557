"""Words for what a finished game's pages and the sockets refuse: the review's chat asked during
play said "its cards are still hidden" (the record's words); a plain request to a socket got
aiohttp's plain text; a socket ending logged an error."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient

from hanamikoji.web.server import _Socket
from test_web_server import client, create, service  # noqa: F401 (fixtures)

Client = TestClient[Any, Any]


async def test_the_reviews_chat_during_play_says_where_the_chat_is(client: Client) -> None:  # noqa: F811
    game = (await create(client, mode="ai", level="easy", seat=0))["game"]
    response = await client.get(f"/api/games/{game}/chat")
    body = await response.json()
    assert response.status == 403, body
    assert body["code"] == "not-allowed"
    assert "not finished" in body["error"] and "chat" in body["error"]
    assert "cards" not in body["error"]
    record = await client.get(f"/api/games/{game}/record")  # the record's words as before
    assert "cards are still hidden" in (await record.json())["error"]


async def test_a_plain_request_to_a_socket_is_told_it_is_a_websocket(client: Client) -> None:  # noqa: F811
    game = (await create(client, mode="ai", level="easy", seat=0))["game"]
    for path in ("/ws/lobby", "/ws/bot", f"/ws/{game}", f"/ws/{game}/watch", "/ws/nothing"):
        response = await client.get(path)
        assert response.status == 400, path
        assert response.content_type == "application/json", (path, await response.text())
        body = await response.json()
        assert body["code"] == "bad-request" and "WebSocket client" in body["error"], body


async def test_an_open_socket_prepared_again_is_let_through(
    aiohttp_client: Callable[..., Awaitable[Client]],
) -> None:
    """aiohttp prepares a handler's response again once the handler returns: the check that is
    only for a socket not yet open must let an open one through (each socket that ended logged
    "Unhandled exception ... Already started")."""
    seen: list[str] = []

    async def handler(request: web.Request) -> web.StreamResponse:
        ws = _Socket()
        await ws.prepare(request)
        await ws.send_json({"type": "hello"})
        try:
            await ws.prepare(request)  # as aiohttp does after the handler
            seen.append("let through")
        except RuntimeError as e:
            seen.append(str(e))
        await ws.close()
        return ws

    app = web.Application()
    app.router.add_get("/ws", handler)
    test = await aiohttp_client(app)
    ws = await test.ws_connect("/ws")
    assert (await ws.receive_json(timeout=10)) == {"type": "hello"}
    await ws.receive(timeout=10)  # the close
    assert seen == ["let through"]
