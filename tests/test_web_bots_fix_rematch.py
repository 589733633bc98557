"""A rematch with a bot reaches the bot whatever the server remembers: after a restart the
server had not followed the finished game for the bot, and the rematch it made was never sent to
it (untimed: its opponent offered the win against a bot that never saw the game; timed: waiting
for it to join for ever). A timed rematch in which the bot moves first reaches it too."""

from __future__ import annotations

from typing import Any

from bot_support import PASSWORD, bridge, new_bot, signed_up
from lobby_support import (  # noqa: F401 (fixtures)
    Browser,
    MakeServer,
    Server,
    call,
    challenge,
    make_site,
    site,
    site_db,
    table,
)
from test_web_bots import started
from web_support import Seat

CONTROLS = ("none", "3+2")


async def _finished(server: Server, anna: Browser, bot: str, control: str) -> str:
    """A game of ``anna`` (seat 0) against ``bot``, resigned at once: its id."""
    made = await challenge(anna, control=control, to=bot, seat=0)
    game: str = (await started(anna, made["challenge"]["id"]))["game"]
    seat = await table(anna, game)
    await seat.send(type="resign")
    await seat.until(lambda s: s["game"]["status"] == "over")
    await seat.ws.close()
    return game


async def _rematch_played(anna: Browser, game: str) -> dict[str, Any]:
    """``anna`` asks for a rematch of ``game``: the new game's state once the bot (to move
    first there, its seats swapped) has moved."""
    seat = await table(anna, game)
    await seat.send(type="rematch")
    done = await seat.until(lambda s: s["game"].get("rematch") is not None)
    await seat.ws.close()
    new = await anna.ws_connect(done["game"]["rematch"].replace("/g/", "/ws/"))
    try:
        again = Seat(new)
        state = await again.until(lambda s: s["game"]["version"] > 0, timeout=20)
        assert state["game"]["opponent_online"], state["game"]
        return state
    finally:
        await new.close()


async def test_a_rematch_after_a_restart_reaches_the_bot(make_site: MakeServer) -> None:  # noqa: F811
    first = await make_site()
    async with first.browser() as owner, first.browser() as anna:
        await signed_up(owner, "owner_x")
        token = await new_bot(owner, "again_bot", controls=["none", "3+2"], rated=False, games=4)
        await signed_up(anna, "anna_x")
        async with bridge(first, token):
            games = [await _finished(first, anna, "again_bot", c) for c in CONTROLS]
    await first.client.close()  # the server stops; another starts on its database

    second = await make_site()
    async with second.browser() as anna, bridge(second, token) as bridged:
        body = {"username": "anna_x", "password": PASSWORD}
        await call(anna, "POST", "/api/account/signin", 200, json=body)
        for game, control in zip(games, CONTROLS, strict=True):
            state = await _rematch_played(anna, game)
            assert state["game"]["names"][0] == "again_bot", state["game"]
            assert state["game"]["control"] == control
        played = [line for line in bridged.lines if "playing seat 0" in line]
        assert len(played) == 2, bridged.lines
        # A challenge after the restart starts a game the bot plays too.
        made = await challenge(anna, control="none", to="again_bot", seat=1)
        fresh = (await started(anna, made["challenge"]["id"]))["game"]
        seat = await table(anna, fresh)
        await seat.until(lambda s: s["game"]["version"] > 0, timeout=20)
        await seat.ws.close()


async def test_a_timed_rematch_whose_bot_moves_first_reaches_it(site: Server) -> None:  # noqa: F811
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_y")
        token = await new_bot(owner, "first_bot", controls=["3+2"], rated=False)
        await signed_up(anna, "anna_y")
        async with bridge(site, token):
            game = await _finished(site, anna, "first_bot", "3+2")
            state = await _rematch_played(anna, game)
            assert state["game"]["names"][0] == "first_bot"
