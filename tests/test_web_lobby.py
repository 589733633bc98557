"""The lobby: challenges seen live by every visitor, accepted once (the database decides a race),
cancelled, expired; "Play someone now"; a challenge to one player; every bad request refused with
nothing changed. On SQLite and, when a server is given, PostgreSQL; two server processes on one
PostgreSQL database see each other's challenges."""

from __future__ import annotations

import asyncio
import json
from contextlib import ExitStack
from typing import Any

import aiohttp
import pytest

from hanamikoji.web.lobby import DAY_MS, GONE_MS, MAX_OPEN
from lobby_support import (
    Server,
    accept,
    call,
    challenge,
    lobby_socket,
    meet,
    table,
    visit,
)
from web_support import POSTGRES, postgres_database
from web_support import Server as Process

PASSWORD = "correct horse battery"


async def sign_up(browser: aiohttp.ClientSession, username: str) -> None:
    body = {"username": username, "password": PASSWORD}
    await call(browser, "POST", "/api/account", 201, json=body)


async def games_on(browser: aiohttp.ClientSession) -> list[str]:
    return [g["game"] for g in (await call(browser, "GET", "/api/me/games", 200))["on"]]


async def test_a_challenge_is_seen_live_and_accepted_once_under_a_race(site: Server) -> None:
    async with (
        site.browser() as anna,
        site.browser() as bob,
        site.browser() as carol,
        lobby_socket(anna) as anna_sees,
        lobby_socket(bob) as bob_sees,
    ):
        await call(anna, "POST", "/api/me", 200, json={"name": "Anna"})
        body: dict[str, Any] = {"control": "3+2", "max_rounds": 3, "rated": True, "seat": 0}
        made = (await challenge(anna, **body))["challenge"]
        assert made | {"control": "3+2", "kind": "real-time", "max_rounds": 3} == made
        assert made["mine"] and made["rated"] and made["seat"] == 0 and made["name"] == "Anna"
        assert made["expires"] is None  # real-time: it lives while Anna is in the lobby
        assert made["rating"] == {"rating": 1500, "deviation": 350, "provisional": True, "games": 0}
        seen = (await bob_sees.until("challenge"))["challenge"]
        assert seen == made | {"mine": False}
        assert (await anna_sees.until("challenge"))["challenge"]["mine"]
        listed = await call(carol, "GET", "/api/lobby", 200)
        assert [c["id"] for c in listed["challenges"]] == [made["id"]]

        # Bob and Carol click at once: one game, one winner, a clear answer for the other.
        answers = await asyncio.gather(
            accept(bob, made["id"], None), accept(carol, made["id"], None)
        )
        assert sorted(a["_status"] for a in answers) == [201, 410]
        won = next(a for a in answers if a["_status"] == 201)
        lost = next(a for a in answers if a["_status"] == 410)
        assert lost["code"] == "accepted" and "already been accepted" in lost["error"]
        assert won["seat"] == 1 and won["url"] == f"/g/{won['game']}?t={won['token']}"
        start = await anna_sees.until("start")
        assert start["game"] == won["game"] and start["url"].startswith(f"/g/{won['game']}?t=")
        assert (await bob_sees.until("gone"))["why"] == "accepted"
        assert (await call(carol, "GET", "/api/lobby", 200))["challenges"] == []

        # The game: Anna's seat 0 by her session, the clock running for her (seat 0 starts).
        winner, loser = (bob, carol) if answers[0]["_status"] == 201 else (carol, bob)
        host = await table(anna, won["game"])
        guest = await table(winner, won["game"])
        assert host.state is not None and guest.state is not None
        game = host.state["game"]
        assert game["mode"] == "lobby" and game["control"] == "3+2" and game["rated"] is True
        assert game["names"][0] == "Anna" and host.state["view"]["seat"] == 0
        clock = host.state["clock"]
        assert clock["control"] == "3+2" and clock["turn"] == 0 and clock["running"]
        assert clock["remaining"][1] == 180_000 and 178_000 < clock["remaining"][0] <= 180_000
        assert clock["deadline"] - clock["now"] == clock["remaining"][0]
        # The loser's second try, a cancel: the same clear answer, no change. The winner's second
        # click (another tab) takes it to its own seat again, not "someone else was first".
        assert (await accept(loser, made["id"], 410))["code"] == "accepted"
        twice = await accept(winner, made["id"], 201)
        assert (twice["game"], twice["seat"], twice["token"]) == (
            won["game"],
            won["seat"],
            won["token"],
        )
        path = f"/api/lobby/challenges/{made['id']}/cancel"
        assert (await call(anna, "POST", path, 410, json={}))["code"] == "accepted"
        assert await games_on(anna) == [won["game"]]
        assert await games_on(loser) == []
        await host.ws.close()
        await guest.ws.close()


async def test_a_cancelled_challenge_goes_from_every_lobby(site: Server) -> None:
    async with (
        site.browser() as anna,
        site.browser() as bob,
        lobby_socket(anna),
        lobby_socket(bob) as bob_sees,
    ):
        made = (await challenge(anna, control="3d", max_rounds=None))["challenge"]
        assert made["kind"] == "correspondence" and made["seat"] == "random"
        assert made["expires"] == made["created"] + DAY_MS
        await bob_sees.until("challenge")
        path = f"/api/lobby/challenges/{made['id']}/cancel"
        refused = await call(bob, "POST", path, 403, json={})  # not Bob's to cancel
        assert refused["code"] == "not-allowed"
        assert made["id"] in bob_sees.challenges
        cancelled = await call(anna, "POST", path, 200, json={})
        assert cancelled["challenge"]["status"] == "cancelled"
        assert (await bob_sees.until("gone"))["why"] == "cancelled"
        late = await accept(bob, made["id"], 410)
        assert late["code"] == "cancelled" and "cancelled" in late["error"]
        assert (await call(anna, "POST", path, 410, json={}))["code"] == "cancelled"
        assert await games_on(bob) == []


async def test_challenges_expire(site: Server) -> None:
    """A real-time challenge dies with its creator's last lobby connection (a few seconds
    later: a reload keeps it); a correspondence one after a day."""
    async with site.browser() as anna, site.browser() as bob, lobby_socket(bob) as bob_sees:
        async with lobby_socket(anna):
            quick = (await challenge(anna, control="5+3"))["challenge"]
            slow = (await challenge(anna, control="1d"))["challenge"]
            while set(bob_sees.challenges) != {quick["id"], slow["id"]}:
                await bob_sees.next()
            # While Anna is here, the heartbeat keeps her real-time challenge alive.
            site.now.shift(GONE_MS + 1_000)
            await site.lobby.beat(site.now())
            listed = (await call(bob, "GET", "/api/lobby"))["challenges"]
            assert quick["id"] in {c["id"] for c in listed}
        # Anna left the lobby: some seconds later her real-time challenge is gone.
        site.now.shift(GONE_MS + 1_000)
        await site.lobby.beat(site.now())
        gone = await bob_sees.until("gone", id=quick["id"])
        assert gone["why"] == "expired"
        assert (await accept(bob, quick["id"], 410))["code"] == "expired"
        assert set(bob_sees.challenges) == {slow["id"]}
        # The correspondence challenge waits a day, then goes too.
        site.now.shift(DAY_MS)
        await site.lobby.beat(site.now())
        assert (await bob_sees.until("gone", id=slow["id"]))["why"] == "expired"
        assert (await accept(bob, slow["id"], 410))["code"] == "expired"
        assert await games_on(bob) == []


async def test_a_real_time_challenge_whose_creator_left_cannot_be_accepted_before_the_sweep(
    make_site: Any,
) -> None:
    site = await make_site(tick=None)  # no sweep: the acceptance itself checks
    async with site.browser() as anna, site.browser() as bob:
        made = (await challenge(anna, control="3+2"))["challenge"]  # no lobby socket open
        site.now.shift(GONE_MS + 1)
        assert (await accept(bob, made["id"], 410))["code"] == "expired"
        assert (await call(bob, "GET", "/api/lobby"))["challenges"] == []


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"control": "3+2", "max_rounds": 5}, "max_rounds", "at most 3 rounds"),
        ({"control": "3+2", "max_rounds": "3"}, "max_rounds", "no limit (null)"),
        ({"control": "3+99"}, "control", "0 to 60 seconds"),
        ({"control": "61+0"}, "control", "1 to 60 minutes"),
        ({"control": "0+5"}, "control", "1 to 60 minutes"),
        ({"control": "2d"}, "control", "1, 3 or 7 days"),
        ({"control": "blitz"}, "control", "minutes+seconds such as '3+2'"),
        ({"control": 3}, "control", "got 3"),
        ({"control": None}, "control", "such as '3+2', or days such as '3d'; got null"),
        ({"control": "3+2", "rated": "yes"}, "rated", "true or false"),
        ({"control": "none", "rated": True}, "rated", "untimed games are never rated"),
        ({"rated": True}, "rated", "a rated game needs a time control"),
        ({"control": "3+2", "seat": 2}, "seat", "0, 1 or 'random'"),
        ({"control": "3+2", "to": "nobody_here"}, "to", "no player with the user name"),
        ({"control": "3+2", "to": "a b"}, "to", "a user name is"),
    ],
)
async def test_a_bad_challenge_is_a_clear_error_and_changes_nothing(
    site: Server, body: dict[str, Any], field: str, words: str
) -> None:
    async with site.browser() as anna:
        refused = await challenge(anna, None, **body)
        assert refused["_status"] in (400, 404), refused
        assert refused["field"] == field and words in refused["error"], refused
        assert (await call(anna, "GET", "/api/lobby", 200))["challenges"] == []


async def test_bad_requests_to_the_lobby(site: Server) -> None:
    async with site.browser() as anna, site.browser() as bob:
        unknown = await challenge(anna, 400, control="3+2", colour="red")
        assert "unknown keys" in unknown["error"]
        assert (await call(anna, "POST", "/api/lobby/challenges", 400, data="[]"))["code"] == (
            "bad-request"
        )
        made = (await challenge(anna, control="3+2"))["challenge"]
        own = await accept(anna, made["id"], 403)
        assert own["code"] == "own-challenge" and "your own challenge" in own["error"]
        path = f"/api/lobby/challenges/{made['id']}"
        for verb in ("accept", "cancel"):  # no keys to give: any is refused, nothing done
            extra = await call(bob, "POST", f"{path}/{verb}", 400, json={"x": 1})
            assert 'unknown keys ["x"]; expected none: send {}' in extra["error"], extra
        assert [c["id"] for c in (await call(bob, "GET", "/api/lobby", 200))["challenges"]] == [
            made["id"]
        ]
        assert (await accept(bob, "no-such-challenge", 404))["code"] == "not-found"
        assert (await accept(bob, "bad%20id", 404))["code"] == "not-found"
        await sign_up(bob, "bob_b")
        with_self = await challenge(bob, 400, control="3+2", to="BOB_B")
        assert with_self["field"] == "to" and "yourself" in with_self["error"]
        assert with_self["code"] == "to-self"  # the page's own words for it, not "no user name"
        # Five open challenges at most; the sixth is refused until one goes.
        for _ in range(MAX_OPEN - 1):
            await challenge(anna, control="10+5")
        full = await challenge(anna, 429, control="10+5")
        assert full["code"] == "too-many"
        listed = (await call(bob, "GET", "/api/lobby", 200))["challenges"]
        assert len(listed) == MAX_OPEN and all(not c["mine"] for c in listed)
        await call(anna, "POST", f"/api/lobby/challenges/{made['id']}/cancel", 200, json={})
        await challenge(anna, control="10+5")
        # Another site's page can do nothing.
        other = {"Origin": "https://evil.example"}
        path = f"/api/lobby/challenges/{listed[1]['id']}/accept"
        async with bob.post(path, json={}, headers=other) as response:
            assert response.status == 403
        assert await games_on(bob) == []


async def test_a_challenge_to_one_player(site: Server) -> None:
    async with (
        site.browser() as anna,
        site.browser() as bob,
        site.browser() as carol,
        lobby_socket(carol) as carol_sees,
    ):
        await sign_up(bob, "Bob_B")
        async with lobby_socket(bob) as bob_sees:
            made = (await challenge(anna, control="10+5", to="bob_b"))["challenge"]
            assert made["to"] == "Bob_B" and made["mine"] and not made["for_me"]
            for_bob = (await bob_sees.until("challenge"))["challenge"]
            assert for_bob["for_me"] and for_bob["to"] == "Bob_B"
            assert await carol_sees.quiet() == []  # not Carol's to see
            assert (await call(carol, "GET", "/api/lobby"))["challenges"] == []
            refused = await accept(carol, made["id"], 403)
            assert refused["code"] == "not-yours" and "Bob_B" in refused["error"]
            taken = await accept(bob, made["id"])
            assert (await bob_sees.until("start"))["game"] == taken["game"]
            assert await carol_sees.quiet() == []


async def test_a_guest_cannot_pose_as_an_account_in_the_lobby(site: Server) -> None:
    """A display name is free text that anyone may type: each challenge also carries its
    creator's user name (null for a guest), in the listing and in what is published live, and
    never a player id."""
    async with (
        site.browser() as alice,
        site.browser() as bob,
        site.browser() as mallory,
        lobby_socket(alice) as alice_sees,
    ):
        await sign_up(bob, "bob_q")
        await call(bob, "POST", "/api/me", 200, json={"name": "Bob Quill"})
        await call(mallory, "POST", "/api/me", 200, json={"name": "bob_q"})  # bob's user name
        fake = (await challenge(mallory, control="1d", rated=True))["challenge"]
        real = (await challenge(bob, control="1d", rated=True))["challenge"]
        untimed = (await challenge(bob, control="none"))["challenge"]
        assert fake["name"] == "bob_q" and fake["username"] is None and fake["mine"]
        assert real["name"] == "Bob Quill" and real["username"] == "bob_q"
        assert untimed["rating"] is None and untimed["username"] == "bob_q"
        live = {}
        for _ in range(3):
            c = (await alice_sees.until("challenge"))["challenge"]
            live[c["id"]] = c
        listed = {c["id"]: c for c in (await call(alice, "GET", "/api/lobby", 200))["challenges"]}
        assert live == listed
        assert listed[fake["id"]]["username"] is None
        assert listed[real["id"]]["username"] == "bob_q"
        assert listed[untimed["id"]]["username"] == "bob_q"
        async with lobby_socket(alice) as again:  # the opening listing of a new socket too
            assert again.challenges == listed
        store = site.service.store
        ids = {(await store.challenge(c)).player for c in listed}  # type: ignore[union-attr]
        text = json.dumps(listed)
        assert all(pid not in text for pid in ids)  # no creator's player id, anywhere


async def test_play_someone_now_pairs_the_longest_waiting_of_the_same_time_control(
    site: Server,
) -> None:
    async with (
        site.browser() as anna,
        site.browser() as bob,
        site.browser() as carol,
        site.browser() as dan,
        lobby_socket(anna) as anna_sees,
        lobby_socket(carol),
    ):
        now = {"control": "5+3", "max_rounds": 3, "rated": False}
        waiting = await call(anna, "POST", "/api/lobby/play", 202, json=now)
        first = waiting["challenge"]
        assert first["seat"] == "random" and first["mine"]
        again = await call(anna, "POST", "/api/lobby/play", 202, json=now)
        assert again["challenge"]["id"] == first["id"]  # already waiting: not twice
        await asyncio.sleep(0.01)
        later = await challenge(carol, control="5+3", seat=0)  # the same game, made later
        rated = await call(dan, "POST", "/api/lobby/play", 202, json=now | {"rated": True})
        other = await call(dan, "POST", "/api/lobby/play", 202, json=now | {"control": "10+5"})
        paired = await call(bob, "POST", "/api/lobby/play", 201, json=now)
        start = await anna_sees.until("start")
        assert start["game"] == paired["game"]  # Anna waited longest
        bob_seat = await table(bob, paired["game"], paired["token"])
        assert bob_seat.state is not None and bob_seat.state["game"]["control"] == "5+3"
        lobby = {c["id"] for c in (await call(bob, "GET", "/api/lobby"))["challenges"]}
        waiting_ids = {later["challenge"]["id"], rated["challenge"]["id"]}
        assert lobby == waiting_ids | {other["challenge"]["id"]}
        await bob_seat.ws.close()


async def test_a_reload_mid_acceptance_finds_the_game(site: Server) -> None:
    async with site.browser() as anna, site.browser() as bob:
        made = (await challenge(anna, control="1d"))["challenge"]
        taken = await accept(bob, made["id"])
        async with lobby_socket(anna) as back:
            started = back.messages[0]["started"]
            assert [s["game"] for s in started] == [taken["game"]]
            assert started[0]["url"].startswith(f"/g/{taken['game']}?t=")


@pytest.mark.skipif(POSTGRES is None, reason="HANAMIKOJI_TEST_POSTGRES is not set")
async def test_two_servers_on_one_postgres_database_share_the_lobby() -> None:
    with postgres_database() as url, ExitStack() as stack:
        one, two = Process(url), Process(url)
        for process in (one, two):
            stack.callback(process.stop)
            process.start()
        async with (
            aiohttp.ClientSession(
                base_url=one.url, cookie_jar=aiohttp.CookieJar(unsafe=True)
            ) as anna,
            aiohttp.ClientSession(
                base_url=two.url, cookie_jar=aiohttp.CookieJar(unsafe=True)
            ) as bob,
        ):
            await visit(anna)
            await visit(bob)
            async with lobby_socket(anna) as anna_sees, lobby_socket(bob) as bob_sees:
                made = (await challenge(anna, control="3+2", seat=1))["challenge"]
                seen = await bob_sees.until("challenge", timeout=20)  # made on one, seen on two
                assert seen["challenge"]["id"] == made["id"]
                taken = await accept(bob, made["id"])  # accepted through two
                assert taken["seat"] == 0
                start = await anna_sees.until("start", timeout=20)
                assert start["game"] == taken["game"]
                # Both seats play the game, each through its own server.
                host = await table(anna, taken["game"])
                assert host.state is not None and host.state["clock"]["turn"] == 0
                guest = await table(bob, taken["game"], taken["token"])
                assert guest.state is not None
                move = guest.state["legal"][0]
                await guest.send(type="move", move=move, version=guest.state["game"]["version"])
                after = await host.until(lambda s: s["game"]["version"] > 0)
                assert after["view"]["history"][0]["move"][0] == move[0]  # a Secret: hidden
                assert after["clock"]["turn"] == (after["view"]["to_move"])
                await host.ws.close()
                await guest.ws.close()


async def test_a_deleted_or_forgotten_players_challenges_go(site: Server) -> None:
    async with site.browser() as anna, site.browser() as bob, site.browser() as idle:
        await sign_up(anna, "anna_k")
        made = (await challenge(anna, control="3d"))["challenge"]
        body = {"password": PASSWORD}
        await call(anna, "POST", "/api/account/delete", 200, json=body)
        await site.lobby.beat(site.now())
        assert (await accept(bob, made["id"], 410))["code"] == "expired"
        # A guest who made a challenge and no game is forgotten when idle, as any guest.
        left = (await challenge(idle, control="1d"))["challenge"]
        path = f"/api/lobby/challenges/{left['id']}/cancel"
        await call(idle, "POST", path, 200, json={})
        store = site.service.store
        far = "9999-01-01T00:00:00.000+00:00"
        await store.forget_guests(far, far)  # every session expired, every guest idle
        assert await store.challenge(left["id"]) is not None  # the history stays


async def test_your_games_show_the_time_control_and_the_time_left(site: Server) -> None:
    start = site.now.freeze()
    async with site.browser() as anna, site.browser() as bob:
        host, guest = await meet(site, anna, bob, "5+3")
        site.now.freeze(start + 20_000)
        mine = (await call(anna, "GET", "/api/me/games", 200))["on"]
        assert [(g["turn"], g["control"], g["left"], g["mode"]) for g in mine] == [
            ("you", "5+3", 280_000, "lobby")
        ]
        theirs = (await call(bob, "GET", "/api/me/games", 200))["on"]
        assert theirs[0]["turn"] == "opponent" and theirs[0]["left"] == 280_000
        await host.ws.close()
        await guest.ws.close()


async def test_a_lobby_socket_gets_its_listing_before_any_change() -> None:
    """What is published while a new socket's opening listing is read waits for the listing."""
    from hanamikoji.web.server import LobbyConnection

    sent: list[dict[str, Any]] = []

    class Recorder:
        async def send(self, message: dict[str, Any]) -> None:
            sent.append(message)

    here = LobbyConnection(Recorder(), None, None)  # type: ignore[arg-type]
    await here.send({"type": "challenge", "challenge": {"id": "c1"}})
    await here.send({"type": "gone", "id": "c0", "why": "cancelled"})
    assert sent == []
    await here.open({"type": "lobby", "challenges": []})
    await here.send({"type": "gone", "id": "c1", "why": "accepted"})
    assert [m["type"] for m in sent] == ["lobby", "challenge", "gone", "gone"]
    assert sent[1]["challenge"]["id"] == "c1" and sent[3]["id"] == "c1"
