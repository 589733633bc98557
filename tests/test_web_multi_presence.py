"""Presence across servers (docs/web.md, "Several servers"): a seat connected to another server
process is online at this one's table, in every kind of game and against a bot; it is offline
soon after it leaves there, or its server dies (SIGKILL) without a word; and a presence change
there is sent to this server's sockets."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import aiohttp
import pytest

from bot_support import signed_up
from hanamikoji.web.presence import MAX_TEXT, Presence, decode, encode
from hanamikoji.web.server import create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from lobby_support import MakeClient, Server, Time, accept, call, challenge, close_server, table
from web_support import POSTGRES, Seat, postgres_database
from web_support import Server as Process

needs_postgres = pytest.mark.skipif(POSTGRES is None, reason="HANAMIKOJI_TEST_POSTGRES is not set")


def online(state: dict[str, Any]) -> bool:
    return bool(state["game"]["opponent_online"])


def claim_at(state: dict[str, Any]) -> int | None:
    """When the page would offer to claim the win (a clock's, or an untimed bot game's)."""
    clock = state.get("clock")
    at = clock["claim_at"] if clock else state["game"].get("claim_at")
    return None if at is None else int(at)


@asynccontextmanager
async def two_servers(
    aiohttp_client: MakeClient, url: str, *, house_bots: tuple[bool, bool] = (False, False)
) -> AsyncIterator[tuple[Server, Server]]:
    """Two in-process servers on one PostgreSQL database."""
    servers = []
    for house in house_bots:
        store = await open_store(url)
        service = GameService(store, ai_workers=0, seed=5, tick=0.05)
        app = create_app(service, house_bots=house)
        servers.append(Server(await aiohttp_client(app), app, Time()))
    try:
        yield servers[0], servers[1]
    finally:
        for server in servers:
            await close_server(server)


def test_announcements_round_trip_and_expire() -> None:
    seats = [(f"game{i:06d}", i % 2) for i in range(1000)]
    texts = encode("+", seats)
    assert len(texts) > 1 and all(len(t) <= MAX_TEXT + 1 for t in texts)
    assert sorted(s for t in texts for s in decode(t)[1]) == sorted(seats)
    presence = Presence(expire_s=10)
    assert presence.heard("a", "+g1.0,g2.1", 0.0) == {"g1", "g2"}
    assert presence.heard("b", "+g1.0", 1.0) == set()  # already online (on a)
    assert presence.heard("a", "-g1.0", 2.0) == set()  # still on b
    assert presence.elsewhere("g1", 0) and not presence.elsewhere("g1", 1)
    assert presence.expire(10.5) == {"g2"}  # a's last word was at 0: gone silent
    assert presence.expire(11.5) == {"g1"}
    assert not presence.seats


@needs_postgres
@pytest.mark.parametrize("control", ["none", "3d", "3+2"])
async def test_a_seat_on_another_server_is_online(aiohttp_client: MakeClient, control: str) -> None:
    with postgres_database() as url:
        async with (
            two_servers(aiohttp_client, url) as (one, two),
            one.browser() as host,
            two.browser() as guest,
            one.browser() as watcher,
        ):
            made = await challenge(host, control=control, seat=0)
            taken = await accept(guest, made["challenge"]["id"])
            game = taken["game"]
            anna = await table(host, game)  # on server one
            bob = await table(guest, game, taken["token"])  # on server two
            spectator = Seat(await watcher.ws_connect(f"/ws/{game}/watch"))  # on server one
            # Each is told the other is here, at once, and no claim is offered.
            first = await anna.until(online, timeout=5)
            assert claim_at(first) is None
            assert online(bob.state or {}) and claim_at(bob.state or {}) is None
            await spectator.until(lambda s: s["game"]["online"] == [True, True], timeout=5)
            # Anna leaves server one: Bob, on server two, is told.
            await anna.ws.close()
            gone = await bob.until(lambda s: not online(s), timeout=5)
            assert gone["game"]["version"] == first["game"]["version"]
            if control == "3+2":  # real-time, her turn: the claim counts from her last sight
                assert claim_at(gone) is not None
            await spectator.until(lambda s: s["game"]["online"] == [False, True], timeout=5)
            # And back.
            again = await table(host, game)
            assert online(again.state or {})
            await bob.until(online, timeout=5)
            await spectator.until(lambda s: s["game"]["online"] == [True, True], timeout=5)
            for ws in (bob.ws, again.ws, spectator.ws):
                await ws.close()


@needs_postgres
async def test_a_bot_on_another_server_is_online(aiohttp_client: MakeClient) -> None:
    """An untimed game against a house bot of server two, played from server one: the bot is
    there, so no claim is offered."""
    with postgres_database() as url:
        # (server one starts second: it knows the house bots two made as players that are bots)
        async with two_servers(aiohttp_client, url, house_bots=(True, False)) as (two, one):
            async with two.browser() as anna:
                await signed_up(anna, "anna_multi")
                for _ in range(200):
                    listing = await call(anna, "GET", "/api/lobby", 200)
                    if any(b["username"] == "AI-beginner" for b in listing["bots"]):
                        break
                    await asyncio.sleep(0.05)
                made = await challenge(anna, control="none", to="AI-beginner", seat=0)
                game = None
                for _ in range(200):
                    listing = await call(anna, "GET", "/api/lobby", 200)
                    game = next(
                        (
                            s["game"]
                            for s in listing["started"]
                            if s["challenge"] == made["challenge"]["id"]
                        ),
                        None,
                    )
                    if game:
                        break
                    await asyncio.sleep(0.05)
                assert game is not None
                link = await call(anna, "GET", f"/api/games/{game}/seat-link", 200)
            token = link["url"].split("t=")[1]
            async with aiohttp.ClientSession() as browser:
                ws = await browser.ws_connect(f"{one.base}/ws/{game}?t={token}")
                seat = Seat(ws)
                state = await seat.until(online, timeout=5)
                assert state["game"]["bots"] == [False, True] and claim_at(state) is None
                await ws.close()


@needs_postgres
async def test_a_seat_is_offline_soon_after_its_server_is_killed(
    aiohttp_client: MakeClient,
) -> None:
    with postgres_database() as url:
        async with AsyncExitStack() as stack:
            process = Process(url, args=["--ai-workers", "1", "--no-house-bots"])
            stack.callback(process.stop)
            process.start()
            store = await open_store(url)
            service = GameService(store, ai_workers=0, seed=5, tick=0.05)
            service.presence.expire_s = 8.0  # (15 s by default) beyond its 5 s announcements
            app = create_app(service)
            one = Server(await aiohttp_client(app), app, Time())
            stack.push_async_callback(close_server, one)
            host = await stack.enter_async_context(one.browser())
            made = await challenge(host, control="3+2", seat=1)  # Bob, seat 0, is to move
            guest = await stack.enter_async_context(aiohttp.ClientSession())
            async with guest.get(f"{process.url}/lobby") as page:
                assert page.status == 200
            async with guest.post(
                f"{process.url}/api/lobby/challenges/{made['challenge']['id']}/accept", json={}
            ) as r:
                taken = await r.json()
                assert r.status == 201, taken
            anna = await table(host, taken["game"])
            bob = Seat(
                await guest.ws_connect(f"{process.url}/ws/{taken['game']}?t={taken['token']}")
            )
            await bob.until(lambda s: True)
            await anna.until(online, timeout=5)
            await asyncio.sleep(6)  # announced again meanwhile: still here
            assert online(anna.state or {})
            process.kill()  # no goodbye
            killed = time.monotonic()
            gone = await anna.until(lambda s: not online(s), timeout=15)
            assert time.monotonic() - killed < 8.0 + 2
            assert claim_at(gone) is not None
            await anna.ws.close()


def states(seat: Seat) -> list[tuple[int, bool]]:
    """The states a seat received (version, opponent online), emptied."""
    got = [(m["game"]["version"], online(m)) for m in seat.messages if m["type"] == "state"]
    seat.messages.clear()
    return got


async def quiet(seat: Seat, seconds: float = 0.5, *, states: int = 1) -> None:
    """Read until ``states`` states have come (within 20 s: a loaded machine is slow), then
    whatever else arrives within ``seconds``."""
    async with asyncio.timeout(20):
        while sum(m["type"] == "state" for m in seat.messages) < states:
            await seat.receive()
    with contextlib.suppress(TimeoutError):
        while True:
            await seat.receive(timeout=seconds)


@needs_postgres
async def test_each_state_of_a_seat_carries_a_change(aiohttp_client: MakeClient) -> None:
    """A seat connecting on another server is one change to its opponent: one state (the last
    sight it records there is read when it goes, not announced as a change of the game)."""
    with postgres_database() as url:
        async with (
            two_servers(aiohttp_client, url) as (one, two),
            one.browser() as host,
            two.browser() as guest,
        ):
            made = await challenge(host, control="3+2", seat=0)
            taken = await accept(guest, made["challenge"]["id"])
            anna = Seat(await host.ws_connect(f"/ws/{taken['game']}"))
            await quiet(anna)
            assert states(anna) == [(0, False)]
            bob = Seat(await guest.ws_connect(f"/ws/{taken['game']}?t={taken['token']}"))
            await quiet(bob)
            await quiet(anna)
            assert states(bob) == [(0, True)]
            assert states(anna) == [(0, True)]
            await bob.ws.close()
            await quiet(anna)
            assert states(anna) == [(0, False)]
            await anna.ws.close()
