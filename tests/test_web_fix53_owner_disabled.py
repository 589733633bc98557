"""A player disabled by the moderators loses their games in progress by forfeit, and so do the
bots they own: cut off and refused at their next hello, a bot could never come back to its
games, and a person playing it waited on its clock (or for ever, untimed). Both databases."""

from __future__ import annotations

import pytest

from bot_support import bridge, new_bot, signed_up
from lobby_support import (  # noqa: F401 (fixtures)
    Server,
    challenge,
    site,
    site_db,
    table,
)
from test_admin import admin
from test_web_bots import started

LIVE_S = 8.0
"""The most an act may take to reach the games (the servers read the log every 2 s)."""


@pytest.mark.parametrize("control", ["3+2", "none"])
async def test_the_games_of_a_disabled_owners_bot_are_lost_by_forfeit(
    site: Server,  # noqa: F811
    site_db: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    control: str,
) -> None:
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_d")
        kind = "real-time" if control != "none" else "none"
        token = await new_bot(owner, "randy_bot", controls=[kind])
        await signed_up(anna, "anna_d")
        async with bridge(site, token):
            made = await challenge(anna, control=control, to="randy_bot", seat=0)
            game = (await started(anna, made["challenge"]["id"]))["game"]
            seat = await table(anna, game)
            assert seat.state is not None and seat.state["game"]["status"] == "playing"
            status, _, _ = await admin(capsys, site_db, "disable", "owner_d", "--reason", "bots")
            assert status == 0
            end = await seat.until(lambda s: s["game"]["status"] == "over", timeout=LIVE_S)
        assert end["result"]["winner"] == 0 and end["result"]["reason"] == "forfeit"
        assert end["result"]["why"] == "seat 1 was disabled by the server's moderators"
        await seat.ws.close()
