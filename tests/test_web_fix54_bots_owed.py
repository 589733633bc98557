"""What a bot owes (the act it was asked, since when: kept across its connections) is forgotten
once its game ends, however it ends, its bot connected or not: a bot gone for good, its game
resigned or forfeited, left its entry behind for ever."""

from __future__ import annotations

import asyncio

import pytest

from bot_support import signed_up
from hanamikoji.web.bots import BotHub
from hanamikoji.web.server import BOTS
from lobby_support import Server, make_site, site, site_db  # noqa: F401 (fixtures)
from test_web_bots import bye
from test_web_bots_fix_silent import _silent_game


def owed(hub: BotHub, game: str) -> list[tuple[str, str]]:
    """The (bot, game) entries of ``game`` the hub keeps."""
    return [key for key in hub._owed if key[1] == game]


@pytest.mark.parametrize("end", ["resign", "forfeit"])
async def test_a_gone_bots_owed_act_is_forgotten_as_its_game_ends(
    site: Server,  # noqa: F811
    end: str,
) -> None:
    hub = site.app[BOTS]
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_o")
        await signed_up(anna, "anna_o")
        ws, act, seat = await _silent_game(site, owner, anna, "none")
        game = act["game"]
        assert len(owed(hub, game)) == 1
        await bye(ws)  # gone, and never back
        for _ in range(200):
            if all(link.bot.username != "mute_bot" for link in hub.links.values()):
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the bot's link stayed")
        assert len(owed(hub, game)) == 1  # kept for its return (its minute goes on)
        if end == "resign":
            await site.service.resign(game, 1)  # Anna
        else:
            await site.service.forfeit(game, 0, "disabled")  # the bot, as a moderator's act
        over = await seat.until(lambda s: s["game"]["status"] == "over", timeout=10)
        assert over["result"]["reason"] == end
        assert owed(hub, game) == []
        await seat.ws.close()
