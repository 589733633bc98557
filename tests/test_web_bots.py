"""Bots in the lobby (docs/bots.md), over the real sockets of an in-process server: a bot plays a
whole rated game against a person; what its owner lets it accept is enforced, saying why; a
wrong, revoked or doubly used token is refused with a clear error; a hostile bot's garbage is
answered, never obeyed; the lobby marks bots; an AI level accepts a challenge as a house bot."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot_support import bridge, new_bot, signed_up
from hanamikoji.bot import PROTOCOL
from hanamikoji.web.ratings import LADDER
from hanamikoji.web.server import create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from lobby_support import (
    MakeClient,
    Server,
    Time,
    call,
    challenge,
    lobby_socket,
    table,
)
from web_support import over, play_out


async def started(browser: aiohttp.ClientSession, challenge_id: str) -> dict[str, Any]:
    """The game a challenge of ``browser``'s started (the lobby's listing says it)."""
    for _ in range(200):
        listing = await call(browser, "GET", "/api/lobby", 200)
        for s in listing["started"]:
            if s["challenge"] == challenge_id:
                return dict(s)
        await asyncio.sleep(0.05)
    raise AssertionError(f"challenge {challenge_id} started no game")


async def test_a_bot_plays_a_whole_rated_game_against_a_person(site: Server) -> None:
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_a")
        token = await new_bot(owner, "randy_bot", controls=["real-time"], rated=True)
        await signed_up(anna, "anna_b")
        async with bridge(site, token) as bridged:
            made = await challenge(anna, control="3+2", rated=True, to="randy_bot", seat=0)
            game = (await started(anna, made["challenge"]["id"]))["game"]
            seat = await table(anna, game)
            assert seat.state is not None and seat.state["game"]["names"][1] == "randy_bot"
            assert seat.state["game"]["rated"] and seat.state["game"]["opponent_online"]
            await seat.send(type="chat", text="hello bot")  # its bridge would never read it
            refused = await seat.error()
            assert refused["code"] == "not-allowed" and "a bot does not chat" in refused["message"]
            await play_out([seat], random.Random(3))
            assert seat.state is not None and over(seat.state)
            for _ in range(100):
                if bridged.bridge.played:
                    break
                await asyncio.sleep(0.05)
            assert bridged.bridge.played == 1, bridged.lines
        profile = await call(anna, "GET", "/api/players/randy_bot", 200)
        assert profile["ratings"]["real-time"]["games"] == 1  # rated on the people's scale
        assert profile["bot"] == {"owner": "owner_a", "house": False, "level": None}
        mine = await call(anna, "GET", "/api/players/anna_b", 200)
        assert mine["ratings"]["real-time"]["games"] == 1


async def test_what_the_owner_allows_is_enforced_with_a_reason(site: Server) -> None:
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_b")
        token = await new_bot(owner, "picky_bot", controls=["3+2"], rated=False, games=1)
        await signed_up(anna, "anna_c")
        offline = await challenge(anna, None, control="3+2", to="picky_bot")
        assert offline["_status"] == 403 and offline["code"] == "declined"
        assert "not connected" in offline["error"] and offline["field"] == "to"
        async with bridge(site, token):
            wrong = await challenge(anna, None, control="5+3", to="picky_bot")
            assert wrong["code"] == "declined" and "does not play 5+3" in wrong["error"]
            untimed = await challenge(anna, None, control="none", to="picky_bot")
            assert "does not play untimed games: it accepts 3+2" in untimed["error"], untimed
            rated = await challenge(anna, None, control="3+2", rated=True, to="picky_bot")
            assert rated["code"] == "declined" and "casual games only" in rated["error"]
            made = await challenge(anna, control="3+2", to="picky_bot")
            await started(anna, made["challenge"]["id"])
            full = await challenge(anna, None, control="3+2", to="picky_bot")
            assert full["code"] == "declined" and "the most its owner allows" in full["error"]
            # The owner widens it while the bot is connected: the next one is taken.
            changed = await call(
                owner, "POST", "/api/bots/picky_bot/settings", 200, json={"accepts": {"games": 2}}
            )
            assert changed["bot"]["accepts"]["games"] == 2 and changed["bot"]["online"]
            again = await challenge(anna, control="3+2", to="picky_bot")
            await started(anna, again["challenge"]["id"])
        bad = await call(
            owner, "POST", "/api/bots/picky_bot/settings", 400, json={"accepts": {"games": 99}}
        )
        assert bad["field"] == "accepts"
        other = await call(anna, "POST", "/api/bots/picky_bot/token", None, json={})
        assert other["_status"] == 404  # another account's bot is not yours to touch


async def test_a_game_against_ones_own_bot_is_never_rated(site: Server) -> None:
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_o")
        token = await new_bot(owner, "own_bot", controls=["real-time"], rated=True)
        await signed_up(anna, "anna_o")
        offline = await challenge(owner, None, control="3+2", rated=True, to="own_bot")
        assert offline["_status"] == 403 and offline["code"] == "own-bot"
        assert offline["field"] == "rated" and "your own bot" in offline["error"]
        async with bridge(site, token):
            rated = await challenge(owner, None, control="3+2", rated=True, to="OWN_BOT")
            assert rated["code"] == "own-bot" and "cannot be rated" in rated["error"]
            casual = await challenge(owner, control="3+2", to="own_bot")  # testing one's bot
            game = (await started(owner, casual["challenge"]["id"]))["game"]
            seat = await table(owner, game)
            assert seat.state is not None and not seat.state["game"]["rated"]
            await seat.ws.close()
            other = await challenge(anna, control="3+2", rated=True, to="own_bot")
            await started(anna, other["challenge"]["id"])  # anyone else's may be rated


async def test_a_bot_that_would_accept_no_game_is_refused(site: Server) -> None:
    nothing = {"rated": False, "casual": False}
    async with site.browser() as owner:
        await signed_up(owner, "owner_n")
        body = {"username": "idle_bot", "accepts": nothing}
        refused = await call(owner, "POST", "/api/bots", 400, json=body)
        assert refused["field"] == "accepts" and "accept no game" in refused["error"]
        await new_bot(owner, "idle_bot", rated=False)
        body = {"accepts": {"casual": False}}
        refused = await call(owner, "POST", "/api/bots/idle_bot/settings", 400, json=body)
        assert refused["field"] == "accepts" and "accept no game" in refused["error"]
        bots = await call(owner, "GET", "/api/bots", 200)
        assert bots["bots"][0]["accepts"]["casual"] is True  # unchanged


async def hello(site: Server, token: Any) -> tuple[aiohttp.ClientWebSocketResponse, Any]:
    session = aiohttp.ClientSession()
    ws = await session.ws_connect(f"{site.base}/ws/bot")
    ws._test_session = session  # type: ignore[attr-defined]  # closed by bye()
    await ws.send_json({"type": "hello", "protocol": PROTOCOL, "token": token})
    msg = await ws.receive(timeout=10)
    return ws, json.loads(msg.data) if msg.type == aiohttp.WSMsgType.TEXT else msg


async def bye(ws: aiohttp.ClientWebSocketResponse) -> None:
    await ws.close()
    await ws._test_session.close()  # type: ignore[attr-defined]


async def test_wrong_revoked_and_doubly_used_tokens_get_clear_errors(site: Server) -> None:
    async with site.browser() as owner:
        await signed_up(owner, "owner_c")
        token = await new_bot(owner, "tok_bot")
        ws, first = await hello(site, "hkbot_not-a-token")
        assert first["code"] == "bad-token" and "opens no bot" in first["message"]
        assert (await ws.receive(timeout=5)).type == aiohttp.WSMsgType.CLOSE
        await bye(ws)
        ws, welcome = await hello(site, token)
        assert welcome["type"] == "welcome" and welcome["bot"] == "tok_bot"
        second, refused = await hello(site, token)
        assert refused["code"] == "in-use" and "already connected" in refused["message"]
        await bye(second)
        revoked = await call(owner, "POST", "/api/bots/tok_bot/revoke", 200, json={})
        assert revoked["bot"]["token"] is False
        cut = json.loads((await ws.receive(timeout=5)).data)
        assert cut["code"] == "revoked"  # the connected bridge is told, and cut off
        await bye(ws)
        ws, again = await hello(site, token)
        assert again["code"] == "revoked" and "revoked by the bot's owner" in again["message"]
        await bye(ws)
        fresh = await call(owner, "POST", "/api/bots/tok_bot/token", 200, json={})
        ws, welcome = await hello(site, fresh["token"])
        assert welcome["type"] == "welcome"
        await bye(ws)
        for wrong in (None, 42, "", "x" * 5000):
            ws, answer = await hello(site, wrong)
            assert answer["code"] == "bad-token", wrong
            await bye(ws)
        # A hello that is no JSON the server takes says why, not "say hello first"
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"{site.base}/ws/bot") as ws,
        ):
            hello_text = json.dumps({"type": "hello", "protocol": PROTOCOL, "token": token})
            await ws.send_str(hello_text[:-1] + ', "engine": ' + "9" * 5000 + "}")
            said = json.loads((await ws.receive(timeout=10)).data)
            assert said["code"] == "bad-request" and "digits" in said["message"], said
            assert "say hello with" in said["message"]


async def test_a_hostile_bot_gets_errors_and_changes_nothing(site: Server) -> None:
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_d")
        token = await new_bot(owner, "rude_bot", controls=["none"])
        await signed_up(anna, "anna_d")
        ws, welcome = await hello(site, token)
        assert welcome["type"] == "welcome"

        async def answer(raw: str) -> dict[str, Any]:
            await ws.send_str(raw)
            while True:
                data: dict[str, Any] = json.loads((await ws.receive(timeout=5)).data)
                if data["type"] == "error":
                    return data

        assert (await answer("{nope"))["code"] == "bad-request"
        assert (await answer("[1, 2]"))["code"] == "bad-request"
        assert (await answer('{"type": "move", "game": "nope", "move": "S1"}'))["code"] == (
            "not-found"
        )
        assert (await answer('{"type": "accept", "id": ["x"]}'))["code"] == "not-found"
        assert (await answer('{"type": "dance"}'))["code"] == "bad-request"
        # A key given twice is refused, as the players' sockets refuse it (which one was meant?)
        twice = await answer('{"type": "move", "game": "g", "move": "S2", "move": "S9"}')
        assert twice["code"] == "bad-request" and "'move' is given twice" in twice["message"]
        unnamed = await answer('{"type": "move", "move": "S2"}')
        assert unnamed["code"] == "bad-request" and "names its game" in unnamed["message"]
        assert "null" not in unnamed["message"]
        made = await challenge(anna, control="none", to="rude_bot", seat=0)
        offered = json.loads((await ws.receive(timeout=5)).data)
        assert (
            offered["type"] == "challenge" and offered["challenge"]["id"] == made["challenge"]["id"]
        )
        await ws.send_json({"type": "accept", "id": made["challenge"]["id"]})
        game = json.loads((await ws.receive(timeout=5)).data)
        assert game["type"] == "game" and game["seat"] == 1
        # Seat 0 (the person) decides first: a move of the bot now is out of turn.
        out = await answer(json.dumps({"type": "move", "game": game["game"], "move": "S1"}))
        assert out["code"] == "not-your-turn" and out["game"] == game["game"]
        forfeit = await answer(json.dumps({"type": "forfeit", "game": game["game"], "kind": 7}))
        assert forfeit["code"] == "bad-request"
        for _ in range(300):  # a flood: dropped beyond the rate, said once, the socket stays
            await ws.send_str('{"type": "ping"}')
        answers = []
        with contextlib.suppress(TimeoutError):
            while True:
                answers.append(json.loads((await ws.receive(timeout=0.5)).data))
        assert 20 <= sum(a["type"] == "pong" for a in answers) <= 60
        assert [a["code"] for a in answers if a["type"] == "error"] == ["too-many"]
        await asyncio.sleep(0.6)
        await ws.send_str('{"type": "ping"}')
        assert json.loads((await ws.receive(timeout=5)).data)["type"] == "pong"
        seat = await table(anna, game["game"])
        assert seat.state is not None and seat.state["game"]["version"] == 0  # nothing moved
        await bye(ws)


async def test_the_log_names_no_bot_and_a_finished_game_is_over(
    site: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/web.md, "What is logged": no user name and no card, at info level too; a move in
    the game the bot forfeited is answered "over"."""
    caplog.set_level("INFO", logger="hanamikoji.web")
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_l")
        token = await new_bot(owner, "loud_bot", controls=["none"])
        await signed_up(anna, "anna_l")
        ws, _ = await hello(site, token)
        second, refused = await hello(site, token)
        assert refused["code"] == "in-use"
        await bye(second)
        made = await challenge(anna, control="none", to="loud_bot", seat=1)
        while True:
            data = json.loads((await ws.receive(timeout=5)).data)
            if data["type"] == "challenge":
                await ws.send_json({"type": "accept", "id": made["challenge"]["id"]})
            if data["type"] == "game":
                break
        secret = "my hand is 1234567, my Secret a 7"
        await ws.send_json(
            {"type": "forfeit", "game": data["game"], "kind": "crash", "message": secret}
        )
        for _ in range(50):
            if any("forfeits" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.1)
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "forfeits" in logged and "refused a bot connection: in-use" in logged
        assert "loud_bot" not in logged and "1234567" not in logged and "anna_l" not in logged
        # The game it forfeited is over: a move there says so (docs/bots.md's "over").
        await ws.send_json({"type": "move", "game": data["game"], "move": "S1"})
        while (late := json.loads((await ws.receive(timeout=5)).data))["type"] != "error":
            pass
        assert late["code"] == "over" and "is over" in late["message"], late
        await ws.send_json({"type": "move", "game": "no_such_game", "move": "S1"})
        while (late := json.loads((await ws.receive(timeout=5)).data))["type"] != "error":
            pass
        assert late["code"] == "not-found"
        await bye(ws)


async def test_the_lobby_marks_bots_and_follows_them(site: Server) -> None:
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_e")
        token = await new_bot(owner, "shown_bot")
        async with lobby_socket(anna) as lobby:
            async with bridge(site, token):
                update = await lobby.until("bots")
                (bot,) = update["bots"]
                assert bot["username"] == "shown_bot" and bot["owner"] == "owner_e"
                assert bot["house"] is False and bot["accepts"]["games"] == 2
                listing = await call(anna, "GET", "/api/lobby", 200)
                assert [b["username"] for b in listing["bots"]] == ["shown_bot"]
            gone = await lobby.until("bots")
            assert gone["bots"] == []
        mine = await call(owner, "GET", "/api/bots", 200)
        assert [b["username"] for b in mine["bots"]] == ["shown_bot"]
        leaders = await call(anna, "GET", "/api/leaders?family=real-time", 200)
        assert all(entry["bot"] for entry in leaders["ai"])


@pytest.fixture
async def house(aiohttp_client: MakeClient, tmp_path: Any) -> AsyncIterator[Server]:
    """A server whose AI levels play in the lobby as house bots (SQLite)."""
    store = await open_store(f"sqlite:///{tmp_path}/house.sqlite3")
    service = GameService(store, ai_workers=0, seed=5)
    service.now_ms = now = Time()
    app = create_app(service, house_bots=True)
    yield Server(await aiohttp_client(app), app, now)


async def test_a_house_level_accepts_a_challenge_and_plays(house: Server) -> None:
    async with house.browser() as anna:
        await signed_up(anna, "anna_h")
        listing: dict[str, Any] = {}
        for _ in range(100):
            listing = await call(anna, "GET", "/api/lobby", 200)
            if len(listing["bots"]) == 5:
                break
            await asyncio.sleep(0.05)
        names = [b["username"] for b in listing["bots"]]
        assert set(names) == {"AI-beginner", "AI-easy", "AI-medium", "AI-hard", "AI-master"}
        beginner = next(b for b in listing["bots"] if b["level"] == "beginner")
        # The measured ladder mapped so that medium is a new player's 1500.
        fixed = LADDER["beginner"] + 1500 - LADDER["medium"]
        assert beginner["house"] and beginner["ratings"]["real-time"] == fixed
        made = await challenge(anna, control="3+2", rated=True, to="AI-beginner", max_rounds=3)
        game = (await started(anna, made["challenge"]["id"]))["game"]
        seat = await table(anna, game)
        await play_out([seat], random.Random(5))
        assert seat.state is not None and over(seat.state)
        profile = await call(anna, "GET", "/api/players/anna_h", 200)
        assert profile["ratings"]["real-time"]["games"] == 1  # rated against the fixed rating
        house_profile = await call(anna, "GET", "/api/players/AI-beginner", 200)
        assert house_profile["bot"]["house"]  # its fixed rating, as the lobby shows it
        for family in ("real-time", "correspondence"):
            shown = house_profile["ratings"][family]
            assert shown["rating"] == fixed and shown["fixed"] and not shown["provisional"]
