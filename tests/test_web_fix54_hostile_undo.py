"""The same undo sent twice (a double click, two windows of the seat, a resend after a lost
answer) takes back one move when it carries the version it was decided on: the second is a
``conflict``, as a move sent twice is."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.web.errors import WebError
from hanamikoji.web.server import create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from web_support import Seat

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    store = await open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    yield GameService(store, ai_workers=0, hint_iterations=60, analysis_iterations=40, seed=5)


@pytest.fixture
async def client(aiohttp_client: MakeClient, service: GameService) -> Client:
    return await aiohttp_client(create_app(service))


async def _two_moves_in(client: Client) -> tuple[Seat, Seat, dict[str, Any]]:
    response = await client.post("/api/games", json={"mode": "ai", "level": "easy", "seat": 0})
    data = await response.json()
    url = f"/ws/{data['game']}?t={data['token']}"
    seat, other = Seat(await client.ws_connect(url)), Seat(await client.ws_connect(url))
    state = await seat.until(lambda s: bool(s["legal"]))
    for _ in range(2):  # two of the seat's moves (and the AI's replies) this round
        version = state["game"]["version"]
        await seat.send(type="move", move=state["legal"][0], version=version)
        state = await seat.until(lambda s, v=version: s["game"]["version"] > v and bool(s["legal"]))
    assert state["game"]["can_undo"] and state["view"]["round"] == 1
    return seat, other, state


async def test_the_same_undo_sent_twice_at_once_takes_back_one_move(client: Client) -> None:
    seat, other, state = await _two_moves_in(client)
    version = state["game"]["version"]
    mine = len([p for p in state["view"]["history"] if p["seat"] == 0])
    await asyncio.gather(
        seat.send(type="undo", version=version), other.send(type="undo", version=version)
    )
    heard: list[dict[str, Any]] = []
    for socket in (seat, other):  # each answered, then a pong: all its answers came before
        await socket.send(type="ping")
        while (answer := await socket.receive(timeout=10))["type"] != "pong":
            heard.append(answer)
    refused = [m for m in heard if m["type"] == "error"]
    assert [m["code"] for m in refused] == ["conflict"], heard
    assert "you sent" in refused[0]["message"]
    now = seat.state
    assert now is not None and now["game"]["version"] == version + 1  # one undo, not two
    assert len([p for p in now["view"]["history"] if p["seat"] == 0]) == mine - 1
    await seat.ws.close()
    await other.ws.close()


async def test_an_undo_without_a_version_still_works(client: Client) -> None:
    seat, other, state = await _two_moves_in(client)
    await seat.send(type="undo")
    after = await seat.until(lambda s: s["game"]["version"] > state["game"]["version"])
    assert len(after["view"]["history"]) < len(state["view"]["history"])
    await seat.ws.close()
    await other.ws.close()


async def test_an_undo_s_version_is_checked_as_a_move_s(service: GameService) -> None:
    game, seat = await service.create(mode="ai", level="easy", seat=0)
    for bad in ("1", -1, 1.5, True, [0]):
        with pytest.raises(WebError) as refused:
            await service.undo(game.id, seat, bad)
        assert refused.value.code == "bad-request"
        assert refused.value.message.startswith("version must be a whole number, 0 or more")
