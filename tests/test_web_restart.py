"""Nothing is lost: a server killed with SIGKILL resumes every game; two servers share one.

These start real server processes (``python -m hanamikoji.cli serve``).
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from web_support import (
    POSTGRES,
    SERVE,
    Seat,
    Server,
    backend_database,
    claim_invite,
    free_port,
    my_turn,
    over,
    play_out,
    postgres_database,
    seat_socket,
)

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with backend_database(request.param, tmp_path) as url:
        yield url


def _public(state: dict[str, Any]) -> dict[str, Any]:
    """A state without the presence flags (which change with connections, not with the game)."""
    game = {k: v for k, v in state["game"].items() if k not in ("opponent_online", "thinking")}
    return {**state, "game": game}


async def _create(session: aiohttp.ClientSession, base: str, **body: Any) -> dict[str, Any]:
    async with session.post(f"{base}/api/games", json=body) as response:
        assert response.status == 201
        data: dict[str, Any] = await response.json()
        return data


async def test_kill_9_mid_game_loses_nothing(db: str) -> None:
    rng = random.Random(4)
    server = Server(db)
    with ExitStack() as stack:
        stack.callback(server.stop)
        server.start()
        async with aiohttp.ClientSession() as session:
            ai = await _create(session, server.url, mode="ai", level="master", seat=0)
            friend = await _create(session, server.url, mode="friend", seat=0)
            invite = await claim_invite(server.url, friend["invite"])
            async with (
                seat_socket(session, server.url, ai["game"], ai["token"]) as me,
                seat_socket(session, server.url, friend["game"], friend["token"]) as host,
                seat_socket(session, server.url, friend["game"], invite) as guest,
            ):
                # A few moves in each game.
                for _ in range(3):
                    state = await me.until(my_turn)
                    version = state["game"]["version"]
                    await me.send(type="move", move=rng.choice(state["legal"]), version=version)
                    await me.until(lambda s, v=version: s["game"]["version"] > v)
                await _some_moves([host, guest], rng, 7)
                # The last move is acknowledged (stored), then the server dies at once, while
                # the AI is thinking about its reply.
                state = await me.until(my_turn)
                while state["view"]["phase"] == "pick":  # after a pick it is my turn again
                    version = state["game"]["version"]
                    await me.send(type="move", move=state["legal"][0], version=version)
                    state = await me.until(lambda s, v=version: s["game"]["version"] > v)
                    state = await me.until(my_turn)
                version = state["game"]["version"]
                move = rng.choice(state["legal"])
                await me.send(type="move", move=move, version=version)
                acked = await me.until(lambda s, v=version: s["game"]["version"] > v)
                friend_before = {0: _public(await host.until(lambda s: True))}
                friend_before[1] = _public(await guest.until(lambda s: True))
                workers = server.children()
                server.kill()
        assert workers, "the AI ran in a worker process"
        await _gone(workers)  # a killed server leaves no AI worker behind
        assert acked["view"]["history"][-1]["move"] == move
        assert acked["view"]["to_move"] == 1, "the AI was to move when the server died"

        server.start()  # the same port and database
        async with aiohttp.ClientSession() as session:
            async with seat_socket(session, server.url, ai["game"], ai["token"]) as me:
                resumed = me.state
                assert resumed is not None
                assert (
                    resumed["view"]["history"][: len(acked["view"]["history"])]
                    == acked["view"]["history"]
                )
                # The AI's reply is still made after the restart.
                after = await me.until(my_turn, timeout=60)
                assert after["game"]["version"] > acked["game"]["version"]
            async with (
                seat_socket(session, server.url, friend["game"], friend["token"]) as host,
                seat_socket(session, server.url, friend["game"], invite) as guest,
            ):
                assert host.state is not None and guest.state is not None
                assert _public(host.state) == friend_before[0]
                assert _public(guest.state) == friend_before[1]
                await play_out([host, guest], rng)  # and the game plays on to its end
                await host.until(over)


async def _gone(pids: list[int], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        assert time.monotonic() < deadline, f"processes {pids} outlived their server"
        await asyncio.sleep(0.1)


async def _some_moves(seats: list[Seat], rng: random.Random, count: int) -> None:
    for _ in range(count):
        mover = next(s for s in seats if s.state is not None and my_turn(s.state))
        assert mover.state is not None
        version = mover.state["game"]["version"]
        await mover.send(type="move", move=rng.choice(mover.state["legal"]), version=version)
        for seat in seats:
            await seat.until(lambda s, v=version: s["game"]["version"] > v)


@pytest.mark.skipif(POSTGRES is None, reason="HANAMIKOJI_TEST_POSTGRES is not set")
async def test_two_servers_on_one_postgres_database_serve_the_same_games() -> None:
    with postgres_database() as url, ExitStack() as stack:
        one, two = Server(url), Server(url)
        for server in (one, two):
            stack.callback(server.stop)
            server.start()
        async with aiohttp.ClientSession() as session:
            data = await _create(session, one.url, mode="friend", seat=0)
            invite = await claim_invite(two.url, data["invite"])  # claimed through the other
            async with (
                seat_socket(session, one.url, data["game"], data["token"]) as host,
                seat_socket(session, two.url, data["game"], invite) as guest,
            ):
                # Each move is made through one process and reaches the player on the other.
                await play_out([host, guest], random.Random(8))
                host_end = await host.until(over)
                guest_end = await guest.until(over)
                assert host_end["result"] == guest_end["result"]
                assert host_end["game"]["version"] == guest_end["game"]["version"]
                assert len(host_end["view"]["history"]) == len(guest_end["view"]["history"])
            # A game against the AI created on one process, played from the other.
            ai = await _create(session, one.url, mode="ai", level="easy", seat=1)
            async with seat_socket(session, two.url, ai["game"], ai["token"]) as me:
                await play_out([me], random.Random(9))
                assert (await me.until(over))["result"] is not None


def test_a_taken_port_or_a_bad_database_is_one_clear_line(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    server.start()
    try:
        for extra, message in [
            (["--port", str(server.port)], "cannot listen on 127.0.0.1:"),
            (["--db", "mysql://x/y"], "unknown database 'mysql://x/y'"),
            (["--port", "70000"], "a port is 0 to 65535"),
        ]:
            # A free port unless the case names one: the port is tried before the database.
            db = f"sqlite:///{tmp_path / 'b.sqlite3'}"
            args = ["--port", str(free_port()), "--db", db, *extra]
            done = subprocess.run(
                [*SERVE, *args], capture_output=True, text=True, timeout=60, check=False
            )
            assert done.returncode != 0
            assert message in done.stderr
            assert "Traceback" not in done.stderr
    finally:
        server.stop()
