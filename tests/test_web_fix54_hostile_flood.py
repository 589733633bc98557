"""Hostile clients on the sockets: a burst of requests from a client that reads its answers is
answered in full (slowed to its pace, never cut), a burst of hints is one search and one answer,
and the lobby's socket says what was wrong with a binary frame or text that is not JSON."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.web.server import SEND_QUEUE, Connection, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from web_support import Seat

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]

BURST = 4 * SEND_QUEUE  # far more requests at once than answers may wait for one socket


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    store = await open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    yield GameService(store, ai_workers=0, hint_iterations=60, analysis_iterations=40, seed=5)


@pytest.fixture
async def client(aiohttp_client: MakeClient, service: GameService) -> Client:
    return await aiohttp_client(create_app(service))


async def _seat(client: Client, **body: Any) -> Seat:
    response = await client.post("/api/games", json=body)
    data = await response.json()
    assert response.status == 201, data
    seat = Seat(await client.ws_connect(f"/ws/{data['game']}?t={data['token']}"))
    await seat.until(lambda s: True)
    return seat


async def _text(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    msg = await ws.receive(timeout=10)
    assert msg.type == aiohttp.WSMsgType.TEXT, (msg.type, msg.data, msg.extra)
    data: dict[str, Any] = json.loads(msg.data)
    return data


async def test_a_burst_of_pings_from_a_client_that_reads_is_answered_in_full(
    client: Client,
) -> None:
    seat = await _seat(client, mode="friend", seat=0)
    for _ in range(BURST):  # all in the socket's buffer before the server reads one
        await seat.ws.send_str('{"type": "ping"}')
    answers = [await _text(seat.ws) for _ in range(BURST)]
    assert [a["type"] for a in answers] == ["pong"] * BURST
    await seat.send(type="ping")  # still open
    assert (await _text(seat.ws))["type"] == "pong"
    await seat.ws.close()


async def test_a_burst_of_bad_messages_gets_every_error_and_keeps_the_socket(
    client: Client,
) -> None:
    seat = await _seat(client, mode="friend", seat=0)
    for _ in range(BURST):
        await seat.ws.send_str("not json")
    answers = [await _text(seat.ws) for _ in range(BURST)]
    assert {(a["type"], a["code"]) for a in answers} == {("error", "bad-request")}
    assert "not valid JSON" in answers[-1]["message"]
    await seat.send(type="ping")
    assert (await _text(seat.ws))["type"] == "pong"
    await seat.ws.close()


async def test_a_spectator_s_burst_is_answered_in_full(client: Client) -> None:
    response = await client.post("/api/games", json={"mode": "friend", "seat": 0})
    game = (await response.json())["game"]
    async with client.ws_connect(f"/ws/{game}/watch") as ws:
        assert (await _text(ws))["type"] == "state"
        for _ in range(BURST):
            await ws.send_str('{"type": "ping"}')
        answers = [await _text(ws) for _ in range(BURST)]
        assert [a["type"] for a in answers] == ["pong"] * BURST


async def test_a_burst_of_hints_is_one_search_and_one_answer(client: Client) -> None:
    seat = await _seat(client, mode="ai", level="easy", seat=0)
    for _ in range(BURST):
        await seat.ws.send_str('{"type": "hint"}')
    await seat.send(type="ping")
    answers = []
    while True:
        answer = await _text(seat.ws)
        answers.append(answer)
        if answer["type"] == "hint":
            break
    assert [a["type"] for a in answers] == ["pong", "hint"]
    await seat.send(type="ping")  # the socket stays open, and no more answers are owed
    assert (await _text(seat.ws))["type"] == "pong"
    await seat.send(type="hint")  # asked again once answered: searched again
    assert (await _text(seat.ws))["type"] == "hint"
    await seat.ws.close()


async def test_the_lobby_socket_says_what_was_wrong(client: Client) -> None:
    async with client.ws_connect("/ws/lobby") as ws:
        assert (await _text(ws))["type"] == "lobby"
        await ws.send_bytes(b'{"type": "ping"}')
        error = await _text(ws)
        assert error["code"] == "bad-request"
        assert error["message"] == "send JSON text messages, not binary"
        await ws.send_str("{not json")
        error = await _text(ws)
        assert error["code"] == "bad-request" and "not valid JSON" in error["message"]
        await ws.send_str("[1]")
        assert "this one is a list" in (await _text(ws))["message"]
        await ws.send_str('{"type": "challenge"}')
        assert "unknown message type 'challenge'" in (await _text(ws))["message"]
        await ws.send_str('{"type": "ping"}')
        assert (await _text(ws))["type"] == "pong"
        for _ in range(BURST):
            await ws.send_str('{"type": "ping"}')
        answers = [await _text(ws) for _ in range(BURST)]
        assert [a["type"] for a in answers] == ["pong"] * BURST


async def test_a_hint_asked_again_after_a_move_is_answered_for_the_new_position(
    client: Client, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    seat = await _seat(client, mode="ai", level="easy", seat=0)
    gate = asyncio.Event()
    calls: list[int] = []

    async def hint(game_id: str, who: int) -> dict[str, Any]:
        calls.append(who)
        if len(calls) == 1:
            await gate.wait()  # searched while the player moves on
            return {"type": "hint", "version": -1, "move": "S1"}  # a position gone since
        game = await service.get(game_id)
        assert game is not None
        return {"type": "hint", "version": game.row.version, "move": "S2"}

    monkeypatch.setattr(service, "hint", hint)
    await seat.send(type="hint")
    await seat.send(type="ping")
    assert (await _text(seat.ws))["type"] == "pong"  # the first is being searched
    await seat.send(type="hint")  # asked again (the page's position moved on)
    await seat.send(type="ping")
    assert (await _text(seat.ws))["type"] == "pong"
    gate.set()
    first, second = await _text(seat.ws), await _text(seat.ws)
    assert (first["version"], second["move"]) == (-1, "S2") and len(calls) == 2
    await seat.send(type="ping")
    assert (await _text(seat.ws))["type"] == "pong"  # nothing more owed
    await seat.ws.close()


class _StuckWs:
    """A socket's sending side that never finishes a message (a client that stopped reading)."""

    closed = False

    async def send_str(self, text: str) -> None:
        await asyncio.Event().wait()


class _Transport:
    aborted = 0

    def abort(self) -> None:
        self.aborted += 1


async def test_a_socket_cut_for_falling_behind_is_cut_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    transport = _Transport()
    conn = Connection(_StuckWs(), 0, transport=transport)  # type: ignore[arg-type]
    conn.start()
    with caplog.at_level(logging.INFO, logger="hanamikoji.web.server"):
        for _ in range(SEND_QUEUE + 200):  # a publish storm to a socket that reads nothing
            await conn.send({"type": "pong"})
    behind = [r for r in caplog.records if "messages behind" in r.getMessage()]
    assert len(behind) == 1 and transport.aborted == 1
    conn.stop()
