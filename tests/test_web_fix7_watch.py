"""The games on now leave out a game nobody has moved in for ``ON_WITHIN`` (30 minutes): a
guest's game against the AI left in a closed tab is not listed for ever."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.web import watch
from hanamikoji.web.server import GAMES_ON, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from web_support import sqlite_url

Client = TestClient[Any, Any]


@pytest.fixture
async def client(
    aiohttp_client: Callable[..., Awaitable[Client]], tmp_path: Path
) -> AsyncIterator[Client]:
    store = await open_store(sqlite_url(tmp_path / "games.sqlite3"))
    yield await aiohttp_client(create_app(GameService(store, ai_workers=0, seed=5)))
    await store.close()


async def test_an_abandoned_ai_game_leaves_the_list(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = {"mode": "ai", "level": "easy", "seat": 0}
    game = (await (await client.post("/api/games", json=body)).json())["game"]
    listing = await (await client.get("/api/watch")).json()
    assert [g["game"] for g in listing["games"]] == [game]

    later = datetime.now(UTC) + watch.ON_WITHIN

    class Later(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Later:
            return cls.fromtimestamp(later.timestamp(), tz)

    monkeypatch.setattr(watch, "datetime", Later)
    client.app[GAMES_ON]._read_at -= 60  # read again from the database
    listing = await (await client.get("/api/watch")).json()
    assert listing["games"] == []
