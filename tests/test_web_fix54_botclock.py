"""A bot's 60 s to answer an act count only while it is connected: one that dropped just after
being asked in a correspondence game (untimed or days long) was forfeited at its first heartbeat
back, never connected long enough to answer. Coming back, it is asked again and has the rest of
its 60 s (what it used before counts: reconnecting is still no way to hold a game)."""

from __future__ import annotations

import asyncio

import pytest

from bot_support import new_bot, signed_up
from hanamikoji.web.bots import ANSWER_MS, REASK_MS
from hanamikoji.web.server import BOTS
from lobby_support import Server, call, challenge, site, site_db, table  # noqa: F401 (fixtures)
from test_web_bots import bye, hello, started
from test_web_bots_fix_silent import _next, _silent_game, _still_on

AWAY_MS = 10 * 60_000  # far past the 60 s, far short of a day's clock


async def _gone(server: Server, username: str) -> None:
    """Until the server has seen ``username``'s bot leave."""
    hub = server.app[BOTS]
    for _ in range(200):
        if all(link.bot.username != username for link in hub.links.values()):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{username}'s link stayed")


@pytest.mark.parametrize("control", ["none", "1d"])
async def test_a_bot_back_after_an_absence_has_the_rest_of_its_minute(
    site: Server,  # noqa: F811
    control: str,
) -> None:
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_k")
        await signed_up(anna, "anna_k")
        token = await new_bot(owner, "away_bot", controls=["none", "correspondence"], rated=False)
        ws, welcome = await hello(site, token)
        assert welcome["type"] == "welcome"
        made = await challenge(anna, control=control, to="away_bot", seat=1)
        offered = await _next(ws, "challenge")
        await ws.send_json({"type": "accept", "id": offered["challenge"]["id"]})
        game = (await started(anna, made["challenge"]["id"]))["game"]
        act = await _next(ws, "act")
        assert act["game"] == game and act["view"]["to_move"] == 0
        seat = await table(anna, game)
        site.now.shift(20_000)  # 20 s of its minute used, connected
        await ws.close()
        await _gone(site, "away_bot")
        site.now.shift(AWAY_MS)  # away: this does not count
        await bye(ws)
        ws, welcome = await hello(site, token)
        assert welcome["type"] == "welcome"
        again = await _next(ws, "act")  # the same act, asked again
        assert again["game"] == game and again["version"] == act["version"]
        await _still_on(seat)  # not forfeited as it came back
        site.now.shift(ANSWER_MS - 20_000 - 5_000)
        await _still_on(seat)  # 55 s of its minute used, in all
        site.now.shift(6_000)
        end = await seat.until(lambda s: s["game"]["status"] == "over", timeout=10)
        assert end["result"]["winner"] == 1 and "timeout" in end["result"]["why"]
        await seat.ws.close()
        await bye(ws)


async def test_a_bot_cut_off_keeps_what_it_used_of_its_minute(site: Server) -> None:  # noqa: F811
    """Cut off by its owner's new token after 55 s connected, it comes back with 5 s left:
    reconnecting still gives no new minute (the time away alone does not count)."""
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_m")
        await signed_up(anna, "anna_m")
        ws, act, seat = await _silent_game(site, owner, anna, "none")
        site.now.shift(ANSWER_MS - 5_000)  # connected
        token = await call(owner, "POST", "/api/bots/mute_bot/token", 200, json={})
        await _gone(site, "mute_bot")  # the new token cut it off
        await bye(ws)
        site.now.shift(AWAY_MS)
        ws, welcome = await hello(site, str(token["token"]))
        assert welcome["type"] == "welcome"
        again = await _next(ws, "act")
        assert again["game"] == act["game"] and again["version"] == act["version"]
        await _still_on(seat)
        site.now.shift(6_000)
        end = await seat.until(lambda s: s["game"]["status"] == "over", timeout=10)
        assert end["result"]["winner"] == 1 and "timeout" in end["result"]["why"]
        await seat.ws.close()
        await bye(ws)


async def test_a_bot_reconnecting_over_and_over_is_forfeited_all_the_same(
    site: Server,  # noqa: F811
) -> None:
    """Each connection that is asked the act costs at least REASK_MS of the minute: a bot that
    drops as soon as it is asked, and is back before its opponent could claim the untimed game,
    cannot hold it for ever; the seventh asking of the act finds the minute spent."""
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_l")
        await signed_up(anna, "anna_l")
        ws, act, seat = await _silent_game(site, owner, anna, "none")
        token = await call(owner, "POST", "/api/bots/mute_bot/token", 200, json={})
        await _gone(site, "mute_bot")  # the new token cut it off (asked once, at once)
        await bye(ws)
        for _ in range(ANSWER_MS // REASK_MS - 1):
            site.now.shift(59_000)  # away, under the minute an opponent's claim needs
            ws, welcome = await hello(site, str(token["token"]))
            assert welcome["type"] == "welcome"
            again = await _next(ws, "act")
            assert again["game"] == act["game"] and again["version"] == act["version"]
            await ws.close()
            await _gone(site, "mute_bot")
            await bye(ws)
        await _still_on(seat)  # six askings, each charged 10 s: not yet
        site.now.shift(59_000)
        ws, welcome = await hello(site, str(token["token"]))
        assert welcome["type"] == "welcome"
        end = await seat.until(lambda s: s["game"]["status"] == "over", timeout=10)
        assert end["result"]["winner"] == 1 and "timeout" in end["result"]["why"]
        await seat.ws.close()
        await bye(ws)
