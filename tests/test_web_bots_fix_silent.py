"""A bot that stays connected and never answers (one written against the bot API, not the bridge,
which forfeits a hung engine itself) no longer holds a game for ever: past ``ANSWER_MS`` after an
``act`` it loses by forfeit (``timeout``), untimed games included; its clock, when it falls
sooner, ends the game on time as a person's does."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from bot_support import new_bot, signed_up
from hanamikoji.web.bots import ANSWER_MS
from lobby_support import Browser, Server, call, challenge, site, site_db, table  # noqa: F401
from test_web_bots import bye, hello, started
from web_support import Seat

Socket = aiohttp.ClientWebSocketResponse


async def _next(ws: Socket, kind: str) -> dict[str, Any]:
    """The bot's next message of type ``kind`` (the others skipped)."""
    while True:
        data: dict[str, Any] = json.loads((await ws.receive(timeout=10)).data)
        if data["type"] == kind:
            return data


async def _silent_game(
    server: Server, owner: Browser, anna: Browser, control: str
) -> tuple[Socket, dict[str, Any], Seat]:
    """A bot connected over the API itself, playing ``anna`` (seat 1: the bot decides first),
    asked its first decision: its socket, that act, and ``anna``'s seat."""
    token = await new_bot(owner, "mute_bot", controls=["none", "real-time"], rated=False)
    ws, welcome = await hello(server, token)
    assert welcome["type"] == "welcome"
    made = await challenge(anna, control=control, to="mute_bot", seat=1)
    offered = await _next(ws, "challenge")
    await ws.send_json({"type": "accept", "id": offered["challenge"]["id"]})
    game = (await started(anna, made["challenge"]["id"]))["game"]
    act = await _next(ws, "act")
    assert act["game"] == game and act["view"]["to_move"] == 0
    return ws, act, await table(anna, game)


async def _still_on(seat: Seat) -> None:
    """A few heartbeats go by, and the game is still on."""
    await asyncio.sleep(1.5)
    await seat.send(type="ping")
    while (await seat.receive())["type"] != "pong":
        pass
    assert seat.state is not None and seat.state["game"]["status"] == "playing", seat.state


async def test_a_bot_that_never_answers_forfeits_an_untimed_game(site: Server) -> None:  # noqa: F811
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_s")
        await signed_up(anna, "anna_s")
        ws, act, seat = await _silent_game(site, owner, anna, "none")
        game = act["game"]
        # It answers its first act within the limit: the game goes on.
        site.now.shift(ANSWER_MS - 5_000)
        await _still_on(seat)
        move = {"type": "move", "game": game, "move": act["legal"][0], "version": act["version"]}
        await ws.send_json(move)
        mine = await seat.until(lambda s: s["view"]["to_move"] == 1)
        await seat.send(type="move", move=mine["legal"][0], version=mine["game"]["version"])
        # Its next act has a limit of its own; a bad move does not stop it.
        again = await _next(ws, "act")
        assert again["version"] > act["version"]
        await ws.send_json({"type": "move", "game": game, "move": "S9"})
        assert (await _next(ws, "error"))["code"] in ("bad-request", "illegal")
        site.now.shift(ANSWER_MS - 5_000)
        await _still_on(seat)
        site.now.shift(6_000)
        end = await seat.until(lambda s: s["game"]["status"] == "over", timeout=10)
        assert end["result"]["winner"] == 1 and end["result"]["reason"] == "forfeit"
        assert "timeout: the bot's engine did not answer in time" in end["result"]["why"]
        told = await _next(ws, "result")  # the bot is told why
        assert told["game"] == game and told["winner"] == 1 and "timeout" in told["why"]
        record = await call(anna, "GET", f"/api/games/{game}/record", 200)
        assert record["result"]["winner"] == 1 and "timeout" in record["result"]["why"]
        bots = await call(owner, "GET", "/api/bots", 200)
        assert bots["bots"][0]["online"] and bots["bots"][0]["playing"] == 0
        await seat.ws.close()
        await bye(ws)


async def test_a_silent_bot_forfeits_a_timed_game_before_its_clock_falls(site: Server) -> None:  # noqa: F811
    """3+2: silent past the limit, long before its clock would fall, it forfeits."""
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_t")
        await signed_up(anna, "anna_t")
        ws, _, seat = await _silent_game(site, owner, anna, "3+2")
        assert seat.state is not None and seat.state["clock"]["running"]
        site.now.shift(ANSWER_MS - 5_000)
        await _still_on(seat)
        site.now.shift(6_000)
        end = await seat.until(lambda s: s["game"]["status"] == "over", timeout=10)
        assert end["result"]["winner"] == 1 and "timeout" in end["result"]["why"]
        assert end["clock"]["ended"] is None  # not on time: its clock had two minutes left
        await seat.ws.close()
        await bye(ws)


async def test_a_silent_bots_clock_runs_and_falls_as_a_persons_does(site: Server) -> None:  # noqa: F811
    """1+0: its minute runs out before the limit, and it loses on time, as a person does."""
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_u")
        await signed_up(anna, "anna_u")
        ws, act, seat = await _silent_game(site, owner, anna, "1+0")
        assert seat.state is not None and seat.state["clock"]["running"]
        assert seat.state["clock"]["turn"] == 0
        site.now.shift(30_000)
        await _still_on(seat)
        await seat.ws.close()
        seat = await table(anna, act["game"])  # the clocks as they are now
        assert seat.state is not None and seat.state["clock"]["remaining"][0] <= 30_000
        site.now.shift(31_000)
        end = await seat.until(lambda s: s["game"]["status"] == "over", timeout=10)
        assert end["result"]["winner"] == 1 and "ran out of time" in end["result"]["why"]
        assert end["clock"]["ended"] == {"seat": 0, "why": "time"}
        await seat.ws.close()
        await bye(ws)
