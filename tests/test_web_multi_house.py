"""Two servers on one PostgreSQL database each have every house bot (docs/bots.md, "Limits"):
one server starting, or connecting its house bots again, never shuts the other's out."""

from __future__ import annotations

import asyncio
import logging

import pytest

from hanamikoji.web.identity import username_key
from hanamikoji.web.server import BOTS, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from lobby_support import MakeClient, Server, Time, call, close_server
from web_support import POSTGRES, postgres_database

LEVELS = {"AI-beginner", "AI-easy", "AI-medium", "AI-hard", "AI-master"}


async def house_bots(server: Server, want: set[str] = LEVELS) -> set[str]:
    """The house bots the server's lobby lists, once it lists ``want`` (or after 5 s)."""
    names: set[str] = set()
    async with server.browser() as browser:
        for _ in range(100):
            async with browser.get("/api/lobby") as response:
                listing = await response.json()
            names = {b["username"] for b in listing["bots"] if b["house"]}
            if names == want:
                break
            await asyncio.sleep(0.05)
    return names


@pytest.mark.skipif(POSTGRES is None, reason="HANAMIKOJI_TEST_POSTGRES is not set")
async def test_each_server_keeps_its_house_bots(
    aiohttp_client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="hanamikoji.web.bots")
    with postgres_database() as url:
        servers = []
        for _ in range(2):  # the second starts after the first made its house bots
            service = GameService(await open_store(url), ai_workers=0, seed=5)
            app = create_app(service, house_bots=True)
            servers.append(Server(await aiohttp_client(app), app, Time()))
        one, two = servers
        try:
            assert await house_bots(two) == LEVELS
            # Server one's house bots connect again (their connections lost): still let in.
            links = list(one.app[BOTS].links.values())
            await asyncio.gather(*(link.wire.close(1001, "lost") for link in links))
            await asyncio.sleep(0.2)
            assert await house_bots(one, set()) == set()
            assert await house_bots(one) == LEVELS
            assert await house_bots(two) == LEVELS
            assert "refused" not in caplog.text and "account page" not in caplog.text
        finally:
            for server in servers:
                await close_server(server)


@pytest.mark.skipif(POSTGRES is None, reason="HANAMIKOJI_TEST_POSTGRES is not set")
async def test_a_bot_made_through_another_server_is_known_as_one(
    aiohttp_client: MakeClient,
) -> None:
    """Each server read its bots at its start only: a bot made through another server was not
    marked at its tables, nor its untimed games claimable there."""
    with postgres_database() as url:
        servers = []
        for _ in range(2):
            service = GameService(await open_store(url), ai_workers=0, seed=5, tick=0.05)
            app = create_app(service)
            servers.append(Server(await aiohttp_client(app), app, Time()))
        one, two = servers
        try:
            async with one.browser() as owner:
                await call(owner, "GET", "/api/me", 200)
                body = {"username": "owner_k", "password": "correct horse"}
                await call(owner, "POST", "/api/account", 201, json=body)
                await call(owner, "POST", "/api/bots", 201, json={"username": "made_bot"})
            account = await one.app[BOTS].store.account(username_key("made_bot"))
            assert account is not None
            bot = account.id
            for _ in range(200):  # within a few heartbeats
                if bot in two.app[BOTS].known:
                    break
                await asyncio.sleep(0.05)
            assert bot in two.app[BOTS].known
        finally:
            for server in servers:
                await close_server(server)
