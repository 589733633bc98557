"""A finished game's pages asked for during play say why in their own words: the review's chat
said "its cards are still hidden", which is about the record, not the chat."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from test_web_server import client, create, service  # noqa: F401 (fixtures)

Client = TestClient[Any, Any]


async def test_the_reviews_chat_during_play_says_where_the_chat_is(client: Client) -> None:  # noqa: F811
    game = (await create(client, mode="ai", level="easy", seat="0"))["game"]
    response = await client.get(f"/api/games/{game}/chat")
    body = await response.json()
    assert response.status == 403, body
    assert body["code"] == "not-allowed"
    assert "not finished" in body["error"] and "chat" in body["error"]
    assert "cards" not in body["error"]
    record = await client.get(f"/api/games/{game}/record")  # the record's words as before
    assert "cards are still hidden" in (await record.json())["error"]


async def test_a_plain_request_to_a_socket_is_told_it_is_a_websocket(client: Client) -> None:  # noqa: F811
    game = (await create(client, mode="ai", level="easy", seat="0"))["game"]
    for path in ("/ws/lobby", "/ws/bot", f"/ws/{game}", f"/ws/{game}/watch", "/ws/nothing"):
        response = await client.get(path)
        assert response.status == 400, path
        assert response.content_type == "application/json", (path, await response.text())
        body = await response.json()
        assert body["code"] == "bad-request" and "WebSocket client" in body["error"], body
