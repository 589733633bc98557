"""A bot's games are bounded by its owner's games-at-once setting, not by the per-client limit on
new games a minute (docs/bots.md, "Limits"): a busy bot accepts more games in a minute than that
limit, each within its bound, while a person accepting challenges stays limited."""

from __future__ import annotations

from bot_support import bridge, new_bot, signed_up
from hanamikoji.web.limits import Limits
from lobby_support import Server, accept, call, challenge, site, table  # noqa: F401 (fixture)
from test_web_bots import started


async def test_a_bot_accepts_more_games_a_minute_than_a_client_may(site: Server) -> None:  # noqa: F811
    per_minute = 3
    site.service.limits.limits = Limits(games_per_minute=per_minute)
    async with site.browser() as owner, site.browser() as anna, site.browser() as bob:
        await signed_up(owner, "owner_l")
        token = await new_bot(owner, "busy_bot", controls=["3+2"], rated=False, games=2)
        await signed_up(anna, "anna_l")
        async with bridge(site, token):
            for _ in range(per_minute + 3):
                made = await challenge(anna, control="3+2", to="busy_bot")
                game = (await started(anna, made["challenge"]["id"]))["game"]
                bots = await call(owner, "GET", "/api/bots", 200)
                assert bots["bots"][0]["playing"] <= 2  # within its games at once
                seat = await table(anna, game)
                await seat.send(type="resign")
                await seat.until(lambda s: s["game"]["status"] == "over")
                await seat.ws.close()
        # A person accepting challenges is still limited.
        for n in range(per_minute + 1):
            made = await challenge(anna, control="3+2")
            taken = await accept(bob, made["challenge"]["id"], None)
            if n < per_minute:
                assert taken["_status"] == 201, taken
            else:
                assert taken["_status"] == 429 and taken["code"] == "too-many", taken
