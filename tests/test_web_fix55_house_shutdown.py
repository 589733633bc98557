"""A server stopping closed its house bots' connections with the others', and each house bot's
bridge, in the same process, logged "the connection closed; connecting again in 1 s" as the
server went: five misleading lines at every shutdown. The house bots stop first now."""

from __future__ import annotations

import asyncio
import logging

import pytest

from hanamikoji.web.server import BOTS
from lobby_support import Server, call
from test_web_bots import house

__all__ = ["house"]  # the fixture, used by name


async def test_a_stopping_server_stops_its_house_bots_without_reconnect_lines(
    house: Server, caplog: pytest.LogCaptureFixture
) -> None:
    async with house.browser() as anna:
        for _ in range(100):
            listing = await call(anna, "GET", "/api/lobby", 200)
            if len(listing["bots"]) == 5:
                break
            await asyncio.sleep(0.05)
        assert len(listing["bots"]) == 5
    caplog.set_level(logging.INFO, logger="hanamikoji")
    bots = house.app[BOTS]
    await bots.going_away()
    await asyncio.sleep(1.5)  # a bridge told to connect again would have done so by now
    said = [r.getMessage() for r in caplog.records if "house bot" in r.getMessage()]
    assert not any("connecting again" in line for line in said), said
    assert not bots.links  # nobody connected again
