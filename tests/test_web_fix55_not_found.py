"""A not-found answer names what the client sent: the path still %-encoded as it came (aiohttp's
``request.path`` is decoded, ``%2e%2e`` read as ``..``), without its query (which may hold a
seat's token), and an unknown game's id shortened (as every other echoed value is)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp.test_utils import TestClient

from test_web_server import client, service  # noqa: F401 (fixtures)

Client = TestClient[Any, Any]


async def raw(client: Client, line: str) -> tuple[int, dict[str, Any]]:  # noqa: F811
    """Send ``line`` (``METHOD TARGET``) byte for byte (aiohttp's own client would normalise the
    target first: ``/api/players/%2e%2e`` leaves it as ``/api/``)."""
    reader, writer = await asyncio.open_connection(client.host, client.port)
    try:
        head = f"{line} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        writer.write(head.encode())
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    status_line, _, rest = data.partition(b"\r\n")
    body = rest.partition(b"\r\n\r\n")[2]
    return int(status_line.split()[1]), json.loads(body)


async def test_an_unknown_api_is_named_as_it_was_sent(client: Client) -> None:  # noqa: F811
    for target in ("/api/nothing/%2e%2e", "/api/nothing/%2E%2E/x", "/api/%2fgames"):
        status, body = await raw(client, f"GET {target}")
        assert status == 404, body
        assert body == {"error": f"there is no API {target!r}", "code": "not-found"}
    status, body = await raw(client, "GET /api/nothing/%2e%2e?t=SECRET-TOKEN")
    assert body["error"] == "there is no API '/api/nothing/%2e%2e'", body
    status, body = await raw(client, "GET /api/" + "%41" * 200)
    assert status == 404 and body["error"].endswith("%41...") and len(body["error"]) < 90, body


async def test_a_method_not_allowed_names_the_path_as_it_was_sent(client: Client) -> None:  # noqa: F811
    status, body = await raw(client, "PUT /api/game%73?t=SECRET")
    assert status == 405, body
    assert body["error"] == "PUT is not allowed on '/api/game%73'; allowed: POST", body


async def test_an_unknown_game_is_named_and_a_malformed_one_is_not_echoed(client: Client) -> None:  # noqa: F811
    response = await client.get("/api/games/nosuchgame12/seat")
    assert (await response.json())["error"] == "there is no game 'nosuchgame12'"
    for path in ("seat", "seat-link", "record", "review"):
        response = await client.get(f"/api/games/{'g' * 3000}/{path}")
        body = await response.json()
        assert response.status == 404, (path, body)
        assert body == {"error": "there is no such game", "code": "not-found"}, (path, body)
