"""Clocks on the lobby's games: every decision charged with its increment, a move at the deadline
counts and one a millisecond after it loses, the server flags a game whose deadline passed, the
abandonment claim, the downtime rule (no time charged while no server ran) in process and across
a SIGKILL and restart, a deadline enforced by the other server, the forfeit in the record, and
schema 5 migrated. On SQLite and, when a server is given, PostgreSQL.

The server's wall clock is the test's (``lobby_support.Time``): moves arrive at chosen instants.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from clock_serve import command
from hanamikoji.clock import RECONNECT_MS, Clock, TimeControl
from hanamikoji.record import Record
from hanamikoji.web.game import SCORING_GRACE_MS
from hanamikoji.web.server import create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import MIGRATIONS, open_store
from lobby_support import MakeServer, Server, call, meet, table, visit
from web_support import POSTGRES, Seat, backend_database, postgres_database
from web_support import Server as Process

BACKENDS = ["sqlite", "postgres"]


def over(state: dict[str, Any]) -> bool:
    return state["result"] is not None


async def move(seat: Seat, pick: int = 0) -> dict[str, Any]:
    """Play the seat's ``pick``-th legal move; the state after it."""
    state = seat.state
    assert state is not None and state["legal"], state
    version = state["game"]["version"]
    await seat.send(type="move", move=state["legal"][pick], version=version)
    return await seat.until(lambda s: s["game"]["version"] > version)


def mover(seats: tuple[Seat, Seat]) -> Seat:
    """The seat whose decision it is."""
    return next(s for s in seats if s.state is not None and s.state["legal"])


async def record_of(site: Server, game: str) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession() as anyone,
        anyone.get(f"{site.base}/api/games/{game}/record") as response,
    ):
        assert response.status == 200
        text = await response.text()
    Record.loads(text)  # a valid record, replayable
    data: dict[str, Any] = json.loads(text)
    return data


async def test_every_decision_is_charged_with_its_increment(site: Server) -> None:
    start = site.now.freeze()
    async with site.browser() as anna, site.browser() as bob:
        seats = await meet(site, anna, bob, "3+2")
        twin = Clock.new(TimeControl.parse("3+2")).start(0, start)
        at = start
        for step in range(8):  # actions and picks alike
            at += 1_000 + 700 * step
            site.now.freeze(at)
            who = mover(seats)
            assert who.state is not None
            seat = who.state["view"]["seat"]
            after = await move(who)
            twin = twin.decision(seat, at, after["view"]["to_move"])
            clock = after["clock"]
            assert clock["remaining"] == list(twin.remaining_at(at) or ())
            assert clock["turn"] == twin.turn and clock["deadline"] == twin.deadline
            assert clock["now"] == at
            for other in seats:
                await other.until(lambda s, v=after["game"]["version"]: s["game"]["version"] >= v)
        assert twin.remaining[0] != twin.remaining[1]  # the picks were charged too


async def test_a_rounds_scoring_is_nobodys_time(site: Server) -> None:
    """The move that ends a round starts the next round's first clock SCORING_GRACE_MS later:
    the time both players spend watching the scoring is charged to nobody."""
    start = site.now.freeze()
    async with site.browser() as anna, site.browser() as bob:
        seats = await meet(site, anna, bob, "3+2")
        at = start
        while True:
            at += 500
            site.now.freeze(at)
            who = mover(seats)
            assert who.state is not None
            before = who.state["view"]["round"]
            after = await move(who)
            for other in seats:
                await other.until(lambda s, v=after["game"]["version"]: s["game"]["version"] >= v)
            if after["view"]["round"] != before or over(after):
                break
        assert not over(after), "the first round ended the game: no next round to time"
        clock = after["clock"]
        assert clock["since"] == at + SCORING_GRACE_MS
        first = clock["turn"]
        left = clock["remaining"][first]
        # during the scoring the clock shows, and charges, nothing
        site.now.freeze(at + SCORING_GRACE_MS)
        who = next(s for s in seats if s.state is not None and s.state["view"]["seat"] == first)
        played = await move(who)
        assert played["clock"]["remaining"][first] == left + 2_000  # only the increment: 0 s used


async def test_a_move_at_the_deadline_counts_one_after_it_loses(make_site: MakeServer) -> None:
    site = await make_site(tick=None)  # no sweep: the late move itself is judged
    start = site.now.freeze()
    async with site.browser() as anna, site.browser() as bob:
        host, guest = await meet(site, anna, bob, "3+2")
        deadline = start + 180_000
        assert host.state is not None and host.state["clock"]["deadline"] == deadline
        site.now.freeze(deadline)  # the last millisecond: it counts, with 0 ms left
        played = await move(host)
        assert played["result"] is None
        assert played["clock"]["remaining"][0] == 2_000  # nothing left, then the increment
        await guest.until(lambda s: bool(s["legal"]))
        site.now.freeze(deadline + 180_000 + 1)  # seat 1's deadline, and a millisecond
        assert guest.state is not None
        version = guest.state["game"]["version"]
        await guest.send(type="move", move=guest.state["legal"][0], version=version)
        error = await guest.error()
        assert error["code"] == "out-of-time" and "time ran out" in error["message"]
        lost = await guest.until(over)
        assert lost["result"]["winner"] == 0 and lost["result"]["reason"] == "forfeit"
        assert lost["result"]["why"] == "seat 1 ran out of time (3+2 clock)"
        assert lost["clock"]["ended"] == {"seat": 1, "why": "time"}
        assert len(lost["view"]["history"]) == 1  # the late move was not played
        won = await host.until(over)
        assert won["result"] == lost["result"]
        record = await record_of(site, lost["game"]["id"])
        assert record["result"]["reason"] == "forfeit" and record["result"]["winner"] == 0
        assert record["result"]["why"] == "seat 1 ran out of time (3+2 clock)"
        assert record["rounds"][0]["moves"] == [played["view"]["history"][0]["move"]]


async def test_the_server_flags_a_game_whose_deadline_passed(site: Server) -> None:
    start = site.now.freeze()
    async with site.browser() as anna, site.browser() as bob:
        host, guest = await meet(site, anna, bob, "1+0")
        site.now.freeze(start + 60_000)
        await asyncio.sleep(0.3)  # several sweeps: the deadline itself is not past
        assert host.state is not None and host.state["result"] is None
        site.now.freeze(start + 60_001)
        lost = await host.until(over, timeout=5)
        assert lost["result"]["winner"] == 1
        assert lost["result"]["why"] == "seat 0 ran out of time (1+0 clock)"
        assert lost["clock"]["remaining"] == [0, 60_000] and not lost["clock"]["running"]
        assert (await guest.until(over))["result"] == lost["result"]
        game = await site.service.get(lost["game"]["id"])
        assert game is not None and game.row.deadline is None  # out of the sweep's way


async def test_an_absent_players_game_can_be_claimed(site: Server) -> None:
    start = site.now.freeze()
    async with site.browser() as anna, site.browser() as bob:
        host, guest = await meet(site, anna, bob, "3+2")
        here = await host.until(lambda s: s["game"]["opponent_online"])
        assert here["clock"]["claim_at"] is None
        await host.send(type="claim")
        assert (await host.error())["code"] == "not-allowed"  # Bob is here
        site.now.freeze(start + 5_000)
        await guest.ws.close()
        gone = await host.until(lambda s: not s["game"]["opponent_online"])
        # Bob left at 0:05 while Anna decides: his absence costs her nothing, however long (a
        # player sat on their own clock through the other's phone locking, and claimed)
        assert gone["clock"]["claim_at"] is None
        site.now.freeze(start + 100_000)
        await host.send(type="claim")
        refused = await host.error()
        assert refused["code"] == "not-allowed" and "their own clock" in refused["message"]
        await host.send(type="move", move=gone["legal"][0], version=gone["game"]["version"])
        moved = await host.until(lambda s: s["game"]["version"] > gone["game"]["version"])
        # Bob's turn from 1:40, with 3:00 on his clock: a third of it, a minute, from then.
        assert moved["clock"]["claim_at"] == start + 160_000
        start += 95_000  # (the rest as it was when Bob's minute ran from 0:05)
        site.now.freeze(start + 64_999)
        await host.send(type="claim")
        refused = await host.error()
        assert refused["code"] == "not-allowed" and "gone long enough" in refused["message"]
        site.now.freeze(start + 65_000)
        await host.send(type="claim")
        won = await host.until(over)
        assert won["result"]["winner"] == 0 and won["result"]["reason"] == "forfeit"
        assert won["result"]["why"] == "seat 1 left the game and the win was claimed (3+2 clock)"
        assert won["clock"]["ended"] == {"seat": 1, "why": "abandoned"}
        record = await record_of(site, won["game"]["id"])
        assert record["result"]["why"] == won["result"]["why"]


async def test_games_against_the_ai_and_friends_have_no_clock(site: Server) -> None:
    async with site.browser() as anna:
        for body in ({"mode": "ai", "level": "beginner"}, {"mode": "friend"}):
            made = await call(anna, "POST", "/api/games", 201, json=body)
            seat = await table(anna, made["game"], made["token"])
            assert seat.state is not None
            assert seat.state["clock"] is None and seat.state["game"]["control"] == "none"
            await seat.ws.close()


async def test_the_downtime_is_nobodys(make_site: MakeServer) -> None:
    """A clock resumes after an outage with the time it had at the last heartbeat."""
    site = await make_site(tick=None)  # this test beats the heartbeat itself
    start = site.now.freeze()
    async with site.browser() as anna, site.browser() as bob:
        host, guest = await meet(site, anna, bob, "3+2")
        assert host.state is not None
        game = host.state["game"]["id"]
        await host.ws.close()
        await guest.ws.close()
        store = site.service.store
        await store.beat(start + 5_000)  # the last heartbeat; then no server for a minute
        site.now.freeze(start + 65_000)
        assert await site.service.resume_clocks() == 1
        assert await site.service.resume_clocks() is None  # the heartbeat is fresh again
        again = await table(anna, game)
        assert again.state is not None
        clock = again.state["clock"]
        assert clock["remaining"] == [175_000, 180_000]  # 5 s charged, not 65 s
        # the clock runs on once the pages have had the time to reconnect
        assert clock["deadline"] == start + 65_000 + RECONNECT_MS + 175_000
        await again.ws.close()


async def test_a_real_time_seek_outlives_the_downtime(make_site: MakeServer) -> None:
    """A guest waiting in the lobby while no server ran found, once the page reconnected, its
    seek closed as if it had left (its last sight was before the downtime)."""
    site = await make_site(tick=None)
    start = site.now.freeze()
    async with site.browser() as carol, site.browser() as dan:
        await visit(carol)
        made = await call(
            carol, "POST", "/api/lobby/challenges", 201, json={"control": "10+5", "seat": 0}
        )
        await site.service.store.beat(start + 1_000)  # the last heartbeat; then a minute down
        site.now.freeze(start + 61_000)
        assert await site.service.resume_clocks() == 0
        site.now.freeze(start + 61_000 + RECONNECT_MS)  # as long as a page takes to come back
        listed = await call(dan, "GET", "/api/lobby", 200)
        assert made["challenge"]["id"] in [c["id"] for c in listed["challenges"]]


@pytest.fixture(params=BACKENDS)
def process_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with backend_database(request.param, tmp_path) as url:
        yield url


SHORT_MS = 6_000
"""Each seat's time in the short 1+0 games of the server processes (tests/clock_serve.py)."""


async def _meet_at(
    base: str,
) -> tuple[aiohttp.ClientSession, aiohttp.ClientSession, dict[str, Any]]:
    """Two visitors of ``base``: the first challenges at 1+0 (seat 0), the second accepts."""
    anna = aiohttp.ClientSession(base_url=base, cookie_jar=aiohttp.CookieJar(unsafe=True))
    bob = aiohttp.ClientSession(base_url=base, cookie_jar=aiohttp.CookieJar(unsafe=True))
    await visit(anna)
    await visit(bob)
    made = await call(
        anna, "POST", "/api/lobby/challenges", 201, json={"control": "1+0", "seat": 0}
    )
    taken = await call(
        bob, "POST", f"/api/lobby/challenges/{made['challenge']['id']}/accept", 201, json={}
    )
    return anna, bob, taken


async def test_a_deadline_holds_across_a_kill_and_restart_without_the_downtime(
    process_db: str,
) -> None:
    server = Process(process_db, command=command(SHORT_MS))
    with ExitStack() as stack:
        stack.callback(server.stop)
        server.start()
        anna, bob, game = await _meet_at(server.url)
        async with anna, bob:
            # Seat 0 thinks for two seconds: at least one of them is charged whatever the
            # heartbeat's phase (the time after the last beat is free), even on a loaded machine
            # whose beats come late.
            await asyncio.sleep(2.0)
            server.kill()
            await asyncio.sleep(3.5)  # no server: more than two heartbeats
            server.start()
            host = await table(anna, game["game"])
            assert host.state is not None and host.state["result"] is None
            left = host.state["clock"]["remaining"][0]
            # 6 s less the two seconds before the kill, at most (the time after the last
            # heartbeat is free); the 3.5 s without a server and its start are not charged.
            assert 2_000 <= left <= SHORT_MS - 1_000, host.state["clock"]
            lost = await host.until(over, timeout=15)  # the restarted server enforces it
            assert lost["result"]["winner"] == 1
            assert lost["result"]["why"] == "seat 0 ran out of time (1+0 clock)"
            await host.ws.close()


@pytest.mark.skipif(POSTGRES is None, reason="HANAMIKOJI_TEST_POSTGRES is not set")
async def test_the_other_server_enforces_a_deadline() -> None:
    with postgres_database() as url, ExitStack() as stack:
        one = Process(url, command=command(SHORT_MS))
        two = Process(url, command=command(SHORT_MS))
        for server in (one, two):
            stack.callback(server.stop)
            server.start()
        anna, bob, game = await _meet_at(one.url)
        async with anna, bob:
            one.kill()  # the game's server is gone; the other keeps the time (no downtime)
            async with aiohttp.ClientSession(base_url=two.url, cookie_jar=anna.cookie_jar) as there:
                host = await table(there, game["game"])
                assert host.state is not None
                assert host.state["clock"]["remaining"][0] < SHORT_MS
                lost = await host.until(over, timeout=15)
                assert lost["result"]["why"] == "seat 0 ran out of time (1+0 clock)"
                await host.ws.close()


async def test_schema_5_is_migrated_its_games_untimed(site_db: str, aiohttp_client: Any) -> None:
    old = (
        "INSERT INTO games (id, created_at, updated_at, seed, max_rounds, mode, level, ai_seat, "
        "token0, token1, name0, name1, joined0, joined1, version, status, ai_due) VALUES "
        "('old', 'then', 'then', 7, 3, 'ai', 'beginner', 1, 'tok0', 'tok1', 'Anna', 'beginner', "
        "1, 1, 0, 'playing', 0)"
    )
    statements = [s for step in MIGRATIONS[:5] for s in step]
    version = "INSERT INTO meta VALUES ('schema_version', '5')"
    if site_db.startswith("sqlite"):
        conn = sqlite3.connect(site_db[len("sqlite:///") :])
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        for sql in [*statements, old, version]:
            conn.execute(sql)
        conn.commit()
        conn.close()
    else:
        import psycopg

        with psycopg.connect(site_db, autocommit=True) as pg:
            pg.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            for sql in [*statements, old, version]:
                pg.execute(sql)
    store = await open_store(site_db)
    row = await store.load("old")
    assert row is not None and row.control is None and row.clock is None and row.deadline is None
    assert await store.alive_at() == 0 and await store.open_challenges(10) == []
    service = GameService(store, ai_workers=0, seed=3)
    client: TestClient[Any, Any] = await aiohttp_client(create_app(service))
    ws = await client.ws_connect("/ws/old?t=tok0")
    seat = Seat(ws)
    state = await seat.until(lambda s: True)
    assert state["clock"] is None and state["game"]["control"] == "none"
    assert await store.alive_at() > 0  # the server's heartbeat
    await ws.close()


async def test_a_rematch_keeps_the_time_control_its_clock_starting_with_the_second_player(
    site: Server,
) -> None:
    start = site.now.freeze()
    async with site.browser() as anna, site.browser() as bob:
        host, guest = await meet(site, anna, bob, "10+5")
        await host.send(type="resign")
        await host.until(over)
        await host.send(type="rematch")
        asked = await host.until(lambda s: s["game"]["rematch"] is not None)
        link = asked["game"]["rematch"]
        new_game, token = link.split("/g/")[1].split("?t=")
        site.now.freeze(start + 30_000)
        again = await table(anna, new_game, token)
        assert again.state is not None
        clock = again.state["clock"]
        assert again.state["game"]["control"] == "10+5"
        assert clock["running"] is False and clock["remaining"] == [600_000, 600_000]
        offered = await guest.until(lambda s: s["game"]["rematch"] is not None)
        # the home page's lists: Bob's says the rematch waits for him (it said "Anna to play"),
        # Anna's that she waits for Bob
        for who, turn in ((bob, "join"), (anna, "joining")):
            listed = (await call(who, "GET", "/api/me/games", 200))["on"]
            assert [g["turn"] for g in listed if g["game"] == new_game] == [turn], listed
        site.now.freeze(start + 90_000)  # Bob comes a minute later: the clock starts then
        theirs = offered["game"]["rematch"].split("/g/")[1].split("?t=")
        back = await table(bob, theirs[0], theirs[1])
        assert back.state is not None and back.state["clock"]["running"]
        assert back.state["clock"]["deadline"] == start + 90_000 + 600_000
        assert back.state["clock"]["turn"] == 0  # Bob has seat 0 now: seats swap
