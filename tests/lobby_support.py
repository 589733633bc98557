"""The lobby's and the clocks' tests: an in-process server on each database, browsers (cookie
jars) on it, the lobby's socket, and a time the tests move by hand.

The server's wall clock (``GameService.now_ms``) is a :class:`Time` here: a test sets the moment
a move arrives to the millisecond instead of sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from hanamikoji.clock import Clock, TimeControl
from hanamikoji.web.server import ACCOUNTS, LOBBY, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from web_support import Seat, backend_database

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]
Browser = aiohttp.ClientSession


@pytest.fixture(params=["sqlite", "postgres"])
async def site_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh database's URL, on each backend."""
    with backend_database(request.param, tmp_path) as url:
        yield url


class Time:
    """A wall clock in ms that runs, and that a test may move forward (``shift``) or stop
    (``freeze``) to place a move exactly."""

    def __init__(self) -> None:
        self.offset = 0
        self.frozen: int | None = None

    def __call__(self) -> int:
        if self.frozen is not None:
            return self.frozen
        return round(time.time() * 1000) + self.offset

    def shift(self, ms: int) -> None:
        self.offset += ms
        if self.frozen is not None:
            self.frozen += ms

    def freeze(self, at: int | None = None) -> int:
        self.frozen = self() if at is None else at
        return self.frozen


class Server:
    """The app under test, its service and lobby, and a way to open browsers on it."""

    def __init__(self, client: Client, app: web.Application, now: Time) -> None:
        self.client = client
        self.app = app
        self.base = str(client.make_url("/")).rstrip("/")
        self.service: GameService = app[ACCOUNTS].games
        self.lobby = app[LOBBY].lobby
        self.now = now

    @asynccontextmanager
    async def browser(self) -> AsyncIterator[Browser]:
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(base_url=self.base, cookie_jar=jar) as session:
            await visit(session)  # a guest, as a first page makes one
            yield session


MakeServer = Callable[..., Awaitable[Server]]


@pytest.fixture
async def make_site(aiohttp_client: MakeClient, site_db: str) -> MakeServer:
    """A server on ``db``; ``tick`` None turns the deadline sweep off."""

    async def start(
        clock_for: Callable[[TimeControl], Clock] = Clock.new, tick: float | None = 0.05
    ) -> Server:
        store = await open_store(site_db)
        service = GameService(store, ai_workers=0, seed=5, clock_for=clock_for, tick=tick)
        now = Time()
        service.now_ms = now
        app = create_app(service)
        return Server(await aiohttp_client(app), app, now)

    return start


@pytest.fixture
async def site(make_site: MakeServer) -> Server:
    """The app on each database (``site``, not ``server``: the browser tests' process)."""
    return await make_site()


async def call(
    browser: Browser, method: str, path: str, expect: int | None = None, **kw: Any
) -> dict[str, Any]:
    """A request's JSON answer (its status checked when ``expect`` is given)."""
    async with browser.request(method, path, **kw) as response:
        data: dict[str, Any] = await response.json()
        assert expect is None or response.status == expect, (response.status, data)
        data["_status"] = response.status
        return data


async def visit(browser: Browser, path: str = "/lobby") -> None:
    async with browser.get(path) as page:
        assert page.status == 200


class LobbySocket:
    """A visitor's lobby socket: the challenges it was shown, and every message."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.challenges: dict[str, dict[str, Any]] = {}

    async def next(self, timeout: float = 10.0) -> dict[str, Any]:
        msg = await self.ws.receive(timeout=timeout)
        assert msg.type == aiohttp.WSMsgType.TEXT, (msg.type, msg.data)
        data: dict[str, Any] = json.loads(msg.data)
        self.messages.append(data)
        if data["type"] == "lobby":
            self.challenges = {c["id"]: c for c in data["challenges"]}
        elif data["type"] == "challenge":
            self.challenges[data["challenge"]["id"]] = data["challenge"]
        elif data["type"] == "gone":
            self.challenges.pop(data["id"], None)
        return data

    async def until(self, kind: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
        """The next message of type ``kind`` whose keys equal ``match``."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind} {match}; got {self.messages[-5:]}"
            data = await self.next(left)
            if data["type"] == kind and all(data.get(k) == v for k, v in match.items()):
                return data

    async def quiet(self, seconds: float = 0.3) -> list[dict[str, Any]]:
        """Whatever arrives within ``seconds`` (nothing, when nothing concerns this visitor)."""
        got = []
        while True:
            try:
                got.append(await self.next(seconds))
            except TimeoutError:
                return got


@asynccontextmanager
async def lobby_socket(browser: Browser) -> AsyncIterator[LobbySocket]:
    async with browser.ws_connect("/ws/lobby") as ws:
        sock = LobbySocket(ws)
        await sock.until("lobby")
        yield sock


async def challenge(browser: Browser, expect: int | None = 201, **body: Any) -> dict[str, Any]:
    """Create a challenge (``control``, ``max_rounds``, ``rated``, ``seat``, ``to``)."""
    return await call(browser, "POST", "/api/lobby/challenges", expect, json=body)


async def accept(browser: Browser, challenge_id: str, expect: int | None = 201) -> dict[str, Any]:
    return await call(
        browser, "POST", f"/api/lobby/challenges/{challenge_id}/accept", expect, json={}
    )


async def table(browser: Browser, game: str, token: str | None = None) -> Seat:
    """A seat's socket at a game, its first state arrived (the session opens it without a
    token)."""
    ws = await browser.ws_connect(f"/ws/{game}" + (f"?t={token}" if token else ""))
    seat = Seat(ws)
    await seat.until(lambda s: True)
    return seat


async def meet(
    server: Server, host: Browser, guest: Browser, control: str = "3+2", **more: Any
) -> tuple[Seat, Seat]:
    """``host`` challenges (seat 0), ``guest`` accepts: both seats at the table, seat 0 first."""
    made = await challenge(host, control=control, seat=0, **more)
    taken = await accept(guest, made["challenge"]["id"])
    assert taken["seat"] == 1
    return await table(host, taken["game"]), await table(guest, taken["game"], taken["token"])


CLOSE_S = 30.0
"""The most a test waits for an in-process server to close."""


async def close_server(server: Server) -> None:
    """Close ``server``, waiting at most ``CLOSE_S``: a close that hung (two servers on one
    PostgreSQL database, once in a CI run) must not stall the whole suite; what it held goes with
    the test's throwaway database."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(server.client.close(), CLOSE_S)
