"""Helpers for the web app's tests: databases, WebSocket seats, whole games over the wire."""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

POSTGRES = os.environ.get("HANAMIKOJI_TEST_POSTGRES")
"""A PostgreSQL server's URL (its maintenance database); `.ci/run` starts one and sets it."""


@contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test; dropped afterwards."""
    import psycopg

    assert POSTGRES is not None
    name = "hk_test_" + secrets.token_hex(6)
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    base, _, _ = POSTGRES.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(POSTGRES, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def backend_database(backend: str, folder: Path) -> Iterator[str]:
    """A fresh database's URL on ``backend`` ("sqlite": a file in ``folder``; "postgres": a
    throwaway database, the test skipped when no server is given)."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'games.sqlite3'}"
        return
    if POSTGRES is None:
        pytest.skip("HANAMIKOJI_TEST_POSTGRES is not set (.ci/run starts a PostgreSQL server)")
    with postgres_database() as url:
        yield url


class Seat:
    """One player's WebSocket: the latest state, and every message received."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None

    async def receive(self, timeout: float = 20.0) -> dict[str, Any]:
        """The next message."""
        msg = await self.ws.receive(timeout=timeout)
        if msg.type != aiohttp.WSMsgType.TEXT:
            raise AssertionError(f"expected a text message, got {msg.type} {msg.data!r}")
        data: dict[str, Any] = json.loads(msg.data)
        self.messages.append(data)
        if data["type"] == "state":
            self.state = data
        return data

    async def until(self, predicate: Any, timeout: float = 30.0) -> dict[str, Any]:
        """Read messages until a state satisfies ``predicate`` (the current one counts)."""
        if self.state is not None and predicate(self.state):
            return self.state
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no state satisfied the condition; last: {self.state}")
            data = await self.receive(timeout=left)
            if data["type"] == "state" and predicate(data):
                return data

    async def error(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next error message (states in between are kept)."""
        while True:
            data = await self.receive(timeout=timeout)
            if data["type"] == "error":
                return data

    async def send(self, **message: Any) -> None:
        await self.ws.send_json(message)


def my_turn(state: dict[str, Any]) -> bool:
    return bool(state["legal"]) and state["result"] is None


def over(state: dict[str, Any]) -> bool:
    return state["result"] is not None


async def play_out(seats: list[Seat], rng: random.Random, *, max_moves: int = 400) -> None:
    """Play random legal moves for every seat given until the game is over."""
    for _ in range(max_moves):
        for seat in seats:
            state = seat.state
            if state is not None and over(state):
                return
        mover = None
        for seat in seats:
            if seat.state is not None and my_turn(seat.state):
                mover = seat
        if mover is None:
            # Wait for whichever seat hears next (the AI's move or the other seat's).
            _, pending = await asyncio.wait(
                [asyncio.ensure_future(s.receive()) for s in seats],
                return_when=asyncio.FIRST_COMPLETED,
            )
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            continue
        assert mover.state is not None
        version = mover.state["game"]["version"]
        await mover.send(type="move", move=rng.choice(mover.state["legal"]), version=version)
        await mover.until(lambda s, v=version: s["game"]["version"] > v)
    raise AssertionError("the game did not end")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SERVE = [sys.executable, "-m", "hanamikoji.cli", "serve"]


class Server:
    """``hanamikoji serve`` as a separate process (killable with SIGKILL)."""

    def __init__(
        self,
        db: str,
        port: int | None = None,
        args: Sequence[str] = (),
        command: Sequence[str] = SERVE,
    ) -> None:
        self.db = db
        self.port = port or free_port()
        self.args = list(args)
        self.command = list(command)  # e.g. tests/clock_serve.py: short clocks
        self.proc: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the server and wait until it listens (its output goes to ``self.log``)."""
        self.log = Path(tempfile.mkstemp(prefix="hanamikoji-serve-", suffix=".log")[1])
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [*self.command, "--port", str(self.port), "--db", self.db, *self.args],
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        deadline = time.monotonic() + 60
        while "serving on" not in self.log.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start: {self.log.read_text()}")
            time.sleep(0.05)

    def children(self) -> list[int]:
        """The server's child processes (its AI workers)."""
        assert self.proc is not None
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        return [int(p) for p in path.read_text().split()] if path.exists() else []

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # SIGKILL: no cleanup of any kind
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        text = self.log.read_text()
        if "Traceback" in text:
            print(f"server log ({self.url}):\n{text}")


@asynccontextmanager
async def seat_socket(
    session: aiohttp.ClientSession, base: str, game: str, token: str
) -> AsyncIterator[Seat]:
    """A connected seat whose first state has arrived."""
    async with session.ws_connect(f"{base}/ws/{game}?t={token}") as ws:
        seat = Seat(ws)
        await seat.until(lambda s: True)
        yield seat


def invite_parts(invite: str) -> tuple[str, str]:
    """``(game, code)`` of an invitation link ``/join/GAME?i=CODE``."""
    url = urlsplit(invite)
    game = url.path.rsplit("/", 1)[-1]
    assert url.path == f"/join/{game}", invite
    return game, parse_qs(url.query)["i"][0]


async def claim_invite(base: str, invite: str, name: str | None = None) -> str:
    """Open ``invite`` as the friend would, from a browser of their own; the seat's token."""
    game, code = invite_parts(invite)
    body: dict[str, Any] = {"invite": code}
    if name is not None:
        body["name"] = name
    async with (
        aiohttp.ClientSession() as friend,
        friend.post(f"{base}/api/games/{game}/join", json=body) as response,
    ):
        data = await response.json()
        assert response.status == 201, data
        assert data["url"] == f"/g/{game}?t={data['token']}"
        return str(data["token"])


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"
