"""Ratings on the web: a rated game moves both players' ratings (a casual or untimed one none),
the stored history replays through the pure Glicko-2 module to the stored ratings, a SIGKILL
never separates a game's end from its rating change, Play someone now pairs by rating with a
window that widens with the wait, profiles and the leaderboard, and schema 6 migrated. On SQLite
and, when a server is given, PostgreSQL.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from clock_serve import command
from hanamikoji.glicko2 import PERIODS_PER_DAY, Rating, update
from hanamikoji.web.identity import username_key
from hanamikoji.web.ratings import AI_RATINGS, DAY_MS, Standing, rate, window
from hanamikoji.web.store import MIGRATIONS, open_store
from lobby_support import Browser, Server, call, challenge, lobby_socket, meet, table, visit
from web_support import Seat, backend_database
from web_support import Server as Process


def over(state: dict[str, Any]) -> bool:
    return state["result"] is not None


async def account(browser: Browser, name: str) -> None:
    await call(
        browser, "POST", "/api/account", 201, json={"username": name, "password": "correct horse 7"}
    )


async def resign(seat: Seat) -> dict[str, Any]:
    await seat.send(type="resign")
    return await seat.until(over)


async def rated_game(site: Server, a: Browser, b: Browser, loser: int = 0, **more: Any) -> str:
    """A rated 3+2 game between ``a`` (seat 0) and ``b`` that seat ``loser`` resigns."""
    seats = await meet(site, a, b, "3+2", rated=True, **more)
    end = await resign(seats[loser])
    await seats[1 - loser].until(over)
    for seat in seats:
        await seat.ws.close()
    assert end["game"]["rated"] is True
    return str(end["game"]["id"])


async def profile(browser: Browser, name: str, expect: int = 200) -> dict[str, Any]:
    return await call(browser, "GET", f"/api/players/{name}", expect)


async def test_a_rated_game_moves_both_ratings(site: Server) -> None:
    async with site.browser() as anna, site.browser() as bob:
        await account(anna, "anna")
        await account(bob, "bob")
        game = await rated_game(site, anna, bob, loser=0)
        a, b = await profile(bob, "anna"), await profile(anna, "BOB")  # any case
        assert b["username"] == "bob"
        ra, rb = a["ratings"]["real-time"], b["ratings"]["real-time"]
        expected_a, expected_b = rate(Standing(Rating()), Standing(Rating()), 0.0, now=0)
        assert ra["rating"] == round(expected_a.after.rating.rating) < 1500
        assert rb["rating"] == round(expected_b.after.rating.rating) > 1500
        assert ra["provisional"] and ra["games"] == 1 and "correspondence" not in a["ratings"]
        assert [h["game"] for h in a["history"]] == [game]
        assert a["games"][0]["result"] == "lost" and a["games"][0]["review"] == f"/review/{game}"
        assert a["games"][0]["opponent"] == "bob" and a["games"][0]["rated"] is True
        # The lobby shows a challenge's creator's rating in its family, as the profile has it.
        async with lobby_socket(bob) as bob_sees:
            made = (await challenge(anna, control="5+3", rated=True))["challenge"]
            assert made["rating"] == ra
            assert (await bob_sees.until("challenge"))["challenge"]["rating"] == ra
            listed = (await call(bob, "GET", "/api/lobby", 200))["challenges"]
            assert [c["rating"] for c in listed] == [ra]
            daily = (await challenge(anna, control="1d"))["challenge"]
            assert daily["rating"]["rating"] == 1500 and daily["rating"]["provisional"]
            assert (await challenge(anna, control="none"))["challenge"]["rating"] is None
        # provisional players are not on the leaderboard yet; the AI levels always are
        board = await call(anna, "GET", "/api/leaders?family=real-time", 200)
        assert board["players"] == []
        assert [x["level"] for x in board["ai"]] == list(AI_RATINGS)


async def test_a_finished_rated_game_says_what_it_did_to_both_ratings(site: Server) -> None:
    """The last state of a rated game gives each seat's rating before and after it, to both
    seats, a spectator and a reload alike; the next game starts from where this one ended."""
    async with site.browser() as anna, site.browser() as bob:
        await account(anna, "anna")
        await account(bob, "bob")
        seats = await meet(site, anna, bob, "3+2", rated=True)
        assert "ratings" not in seats[0].messages[-1]["game"]  # nothing while it is on
        ends = [await resign(seats[0]), await seats[1].until(over)]
        first = rate(Standing(Rating()), Standing(Rating()), 0.0, now=0)
        expected = [
            {"before": 1500, "after": round(c.after.rating.rating), "provisional": True}
            for c in first
        ]
        assert expected[0]["after"] < 1500 < expected[1]["after"]
        for end in ends:
            assert end["game"]["ratings"] == expected
        game = ends[0]["game"]["id"]
        watcher = Seat(await anna.ws_connect(f"/ws/{game}/watch"))
        assert (await watcher.until(over))["game"]["ratings"] == expected
        again = await table(bob, game)
        assert again.messages[-1]["game"]["ratings"] == expected
        for seat in (*seats, watcher, again):
            await seat.ws.close()

        seats = await meet(site, anna, bob, "3+2", rated=True)  # bob resigns this one
        await seats[1].send(type="resign")
        end = await seats[0].until(over)
        changes = end["game"]["ratings"]
        assert [c["before"] for c in changes] == [e["after"] for e in expected]
        assert changes[0]["after"] > changes[0]["before"]
        assert changes[1]["after"] < changes[1]["before"]
        for seat in seats:
            await seat.ws.close()

        seats = await meet(site, anna, bob, "3+2", rated=False)  # casual: nothing to say
        assert "ratings" not in (await resign(seats[0]))["game"]
        for seat in seats:
            await seat.ws.close()


async def test_casual_and_untimed_games_move_no_rating(site: Server) -> None:
    async with site.browser() as anna, site.browser() as bob:
        await account(anna, "anna")
        await account(bob, "bob")
        for control, rated in (("3+2", False), ("none", False)):  # (rated needs a clock)
            seats = await meet(site, anna, bob, control, rated=rated)
            await resign(seats[0])
            for seat in seats:
                await seat.ws.close()
        assert (await profile(anna, "anna"))["ratings"] == {}
        assert len((await profile(anna, "anna"))["games"]) == 2


async def test_the_stored_history_replays_to_the_stored_ratings(site: Server) -> None:
    """Glicko-2 as the server ran it equals the pure module's on the stored history: each
    update from the rating before, the opponent's rating then, the score and the periods."""
    async with site.browser() as anna, site.browser() as bob, site.browser() as cleo:
        await account(anna, "anna")
        players = [anna, bob, cleo]
        for i, (x, y, loser) in enumerate([(0, 1, 0), (1, 2, 1), (2, 0, 1), (0, 1, 1)]):
            site.now.shift((i + 1) * 3 * DAY_MS)  # days apart: the deviations grow between
            await rated_game(site, players[x], players[y], loser)
        store = site.service.store
        player = await store.account(username_key("anna"))
        assert player is not None
        history = await store.rating_history(player.id)
        assert len(history) == 3
        now = Rating()
        last = None
        for h in history:
            periods = 0.0 if last is None else (h.at - last) / DAY_MS * PERIODS_PER_DAY
            assert h.periods == pytest.approx(periods)
            now = update(now, [(h.opponent, h.score)], periods=periods)
            assert now.rating == pytest.approx(h.after.rating, abs=1e-9)
            assert now.deviation == pytest.approx(h.after.deviation, abs=1e-9)
            last = h.at
        stored = (await store.ratings(player.id))["real-time"]
        assert stored.rating == now and stored.games == 3


async def test_play_someone_now_pairs_by_rating_widening_with_the_wait(site: Server) -> None:
    start = site.now.freeze()
    store = site.service.store
    async with site.browser() as anna, site.browser() as bob:
        await challenge(bob, control="none")  # casual: only to learn Bob's player id
        bob_id = await _player_of(site, bob)
        await _set_rating(store, bob_id, 1960, 50)  # established
        seek = {"control": "5+3", "rated": True}
        a = await call(anna, "POST", "/api/lobby/play", 202, json=seek)  # a new 1500
        # 460 apart: Bob's window is ±100, Anna's ±100 + her deviation 350: no pair
        b = await call(bob, "POST", "/api/lobby/play", 202, json=seek)
        assert b["challenge"]["id"] != a["challenge"]["id"]
        assert window(Standing(Rating(1960, 50)), 0) == 100
        # 80 s later both seeks have waited: Bob's window is ±500, Anna's wider: paired
        site.now.freeze(start + 80_000)
        anna_id = (await store.challenge(a["challenge"]["id"])).player  # type: ignore[union-attr]
        await store.touch_challenges([anna_id, bob_id], start + 80_000)  # both in the lobby
        paired = await call(anna, "POST", "/api/lobby/play", 201, json=seek)
        assert paired["seat"] in (0, 1)
        mine = await store.challenge(a["challenge"]["id"])
        assert mine is not None and mine.status == "cancelled"  # her own seek went
        theirs = await store.challenge(b["challenge"]["id"])
        assert theirs is not None and theirs.status == "accepted"


async def _player_of(site: Server, browser: Browser) -> str:
    # the visitor's player id is never sent: read it from their open challenge
    store = site.service.store
    me = await call(browser, "GET", "/api/lobby", 200)
    (mine,) = [c for c in me["challenges"] if c["mine"]]
    row = await store.challenge(mine["id"])
    assert row is not None
    return row.player


async def _set_rating(store: Any, player: str, rating: float, deviation: float) -> None:
    await store._tx(
        [
            (
                "INSERT INTO ratings (player_id, family, rating, deviation, volatility, games, "
                "rated_at) VALUES (?, 'real-time', ?, ?, 0.06, 30, 0)",
                (player, rating, deviation),
            )
        ]
    )


async def test_a_profile_page_answers_404_where_no_account_has_the_name(site: Server) -> None:
    """The page at /@/NAME is served with 200 for an account's name (any case) and with 404,
    the page all the same (it says so), for a name nobody has, a malformed one and a deleted
    account's."""
    async with site.browser() as anna, site.browser() as bob:
        await account(anna, "anna")
        await account(bob, "bob")
        async with bob.post("/api/account/delete", json={"password": "correct horse 7"}) as done:
            assert done.status == 200
        for path, status in (
            ("/@/anna", 200),
            ("/@/ANNA", 200),
            ("/@/nobody_here", 404),
            ("/@/%E0%A4", 404),
            ("/@/" + "x" * 300, 404),
            ("/@/bob", 404),
        ):
            async with anna.get(path) as page:
                assert page.status == status, path
                assert page.content_type == "text/html" and "<html" in await page.text()


async def test_the_leaderboard_lists_established_accounts(site: Server) -> None:
    store = site.service.store
    async with site.browser() as anna, site.browser() as bob:
        await account(anna, "anna")
        await account(bob, "bob")
        await challenge(anna, control="3+2")
        await challenge(bob, control="3+2")
        await _set_rating(store, await _player_of(site, anna), 1700, 60)
        await _set_rating(store, await _player_of(site, bob), 1800, 200)  # provisional
        board = await call(anna, "GET", "/api/leaders?family=real-time", 200)
        assert [(p["rank"], p["username"], p["rating"]) for p in board["players"]] == [
            (1, "anna", 1700)
        ]
        bad = await call(anna, "GET", "/api/leaders?family=blitz", 400)
        assert "family" in bad["error"]
        assert (await profile(anna, "nobody", 404))["code"] == "not-found"
        assert (await profile(anna, "x" * 400, 404))["code"] == "not-found"
        # a look-alike name finds the real account, shown by its own user name
        assert (await profile(anna, "АNNA"))["username"] == "anna"  # Cyrillic А


# -- across a SIGKILL ----------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def process_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with backend_database(request.param, tmp_path) as url:
        yield url


SHORT_MS = 1_500


async def test_a_kill_never_separates_a_games_end_from_its_ratings(process_db: str) -> None:
    """Rated 1+0 games run out of time on the server (its sweep ends them) while it is killed
    again and again: every game that ended has both players' rating changes, none that is on
    has any, and each rating counts exactly its history rows."""
    server = Process(process_db, command=command(SHORT_MS))
    with ExitStack() as stack:
        stack.callback(server.stop)
        server.start()
        sessions = []
        for _ in range(6):
            jar = aiohttp.CookieJar(unsafe=True)
            sessions.append(aiohttp.ClientSession(base_url=server.url, cookie_jar=jar))
        try:
            for s in sessions:
                await visit(s)
            for i in range(0, 6, 2):
                made = await call(
                    sessions[i],
                    "POST",
                    "/api/lobby/challenges",
                    201,
                    json={"control": "1+0", "seat": 0, "rated": True},
                )
                await call(
                    sessions[i + 1],
                    "POST",
                    f"/api/lobby/challenges/{made['challenge']['id']}/accept",
                    201,
                    json={},
                )
                await asyncio.sleep(0.25)  # the deadlines spread out
            for pause in (1.3, 0.35, 0.4, 0.45):
                await asyncio.sleep(pause)
                server.kill()
                server.start()
            await asyncio.sleep(3.0)  # the last deadlines pass; the restarted server ends them
        finally:
            for s in sessions:
                await s.close()
        server.stop()
        store: Any = await open_store(process_db)
        try:
            ended = await store._all("SELECT id FROM games WHERE status = 'over'", ())
            on = await store._all("SELECT id FROM games WHERE status = 'playing'", ())
            assert len(ended) == 3 and not on
            for (game_id,) in ended:
                rows = await store._all(
                    "SELECT player_id FROM rating_history WHERE game_id = ?", (game_id,)
                )
                assert len(rows) == 2
            counts = await store._all(
                "SELECT r.games, (SELECT COUNT(*) FROM rating_history h "
                "WHERE h.player_id = r.player_id) FROM ratings r",
                (),
            )
            assert len(counts) == 6 and all(int(g) == int(n) == 1 for g, n in counts)
        finally:
            await store.close()


# -- the migration --------------------------------------------------------------------------------


async def test_schema_6_is_migrated_to_7(site_db: str) -> None:
    statements = [s for step in MIGRATIONS[:6] for s in step]
    old = (
        "INSERT INTO games (id, created_at, updated_at, seed, max_rounds, mode, level, ai_seat, "
        "token0, token1, name0, name1, joined0, joined1, version, status, ai_due, control, rated) "
        "VALUES ('old', 'then', 'then', 7, 3, 'lobby', NULL, NULL, 'tok0', 'tok1', 'Anna', 'Bob', "
        "1, 1, 0, 'playing', 0, '3+2', 1)"
    )
    version = "INSERT INTO meta VALUES ('schema_version', '6')"
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
    store: Any = await open_store(site_db)
    try:
        row = await store.load("old")
        assert row is not None and row.rated and row.control == "3+2"
        assert await store.ratings("nobody") == {}
        assert await store.leaders("real-time", 10) == []
        version_now = await store._all("SELECT value FROM meta WHERE key = 'schema_version'", ())
        assert version_now == [(str(len(MIGRATIONS)),)] and len(MIGRATIONS) >= 7
    finally:
        await store.close()
