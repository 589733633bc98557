"""Moderation takes effect live (docs/web.md, "Moderation"): the server follows the moderation
log, so ``hanamikoji admin`` run beside it closes a disabled player's open sockets (seat,
spectator, lobby, their bot's link) saying why, and a removed message leaves the open pages, on
SQLite as on PostgreSQL, and once only."""

from __future__ import annotations

import time
from typing import Any

import aiohttp
import pytest

from hanamikoji.bot import PROTOCOL
from hanamikoji.web.moderation import Follower
from hanamikoji.web.store import ModerationRow, open_store
from test_admin import Client, admin, client, db, service, signed_up  # noqa: F401 (fixtures)
from test_web_chat import base, claim_invite_in, new_browser, next_of, quiet
from web_support import Seat

LIVE_S = 6.0
"""The most an act may take to reach the sockets (the server reads the log every 2 s)."""


async def closed_disabled(
    ws: aiohttp.ClientWebSocketResponse, states: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Read ``ws`` until it closes; the ``disabled`` error it got before (within LIVE_S); the
    states that came before it into ``states``."""
    deadline = time.monotonic() + LIVE_S
    error: dict[str, Any] | None = None
    while True:
        msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
        if msg.type == aiohttp.WSMsgType.TEXT:
            data = msg.json()
            if data.get("type") == "error":
                error = data
            elif data.get("type") == "state" and states is not None and error is None:
                states.append(data)
            continue
        assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), msg
        break
    assert ws.close_code == 4403, ws.close_code
    assert error is not None and error["code"] == "disabled", error
    return error


async def test_disable_closes_every_socket_of_the_player_at_once(
    client: Client,  # noqa: F811
    db: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = base(client)
    async with new_browser() as anna_browser, new_browser() as bob_browser:
        await signed_up(anna_browser, url, "anna_k")
        async with anna_browser.post(f"{url}/api/games", json={"mode": "friend", "seat": 0}) as r:
            data = await r.json()
        game = data["game"]
        anna = Seat(await anna_browser.ws_connect(f"{url}/ws/{game}"))
        token = await claim_invite_in(bob_browser, url, data["invite"], "Bob")
        bob = Seat(await bob_browser.ws_connect(f"{url}/ws/{game}?t={token}"))
        for seat in (anna, bob):
            await seat.until(lambda s: True)
        # Anna also watches another game, has the lobby open, and runs a bot.
        async with bob_browser.post(f"{url}/api/games", json={"mode": "friend", "seat": 0}) as r:
            other = (await r.json())["game"]
        spectator = Seat(await anna_browser.ws_connect(f"{url}/ws/{other}/watch"))
        await spectator.until(lambda s: True)
        lobby = await anna_browser.ws_connect(f"{url}/ws/lobby")
        assert (await lobby.receive_json(timeout=10))["type"] == "lobby"
        async with anna_browser.post(f"{url}/api/bots", json={"username": "anna_bot"}) as r:
            assert r.status == 201, await r.text()
            bot_token = (await r.json())["token"]
        bot = await bob_browser.ws_connect(f"{url}/ws/bot")
        await bot.send_json({"type": "hello", "protocol": PROTOCOL, "token": bot_token})
        assert (await bot.receive_json(timeout=10))["type"] == "welcome"

        started = time.monotonic()
        status, out, _ = await admin(capsys, db, "disable", "anna_k", "--reason", "abuse")
        assert status == 0 and "disable" in out
        states: list[dict[str, Any]] = []
        error = await closed_disabled(anna.ws, states)
        assert "disabled by the server's moderators" in error["message"]
        # Her own table is told how the game ended before it is cut off (it kept the position,
        # her hand still in it, and never said the game was lost).
        assert states and states[-1]["game"]["status"] == "over", states[-1:]
        assert states[-1]["result"]["winner"] == 1 and states[-1]["result"]["reason"] == "forfeit"
        await closed_disabled(spectator.ws)
        await closed_disabled(lobby)
        refused = await closed_disabled(bot)
        assert "disabled" in refused["message"]
        assert time.monotonic() - started < LIVE_S + 2
        # Bob's socket stays, and is told his opponent left: the game is his, by forfeit (she
        # cannot come back, and an untimed game between people has no claim).
        end = await bob.until(
            lambda s: s["game"]["status"] == "over" and not s["game"]["opponent_online"]
        )
        assert end["result"]["winner"] == 1 and end["result"]["reason"] == "forfeit"
        assert end["result"]["why"] == "seat 0 was disabled by the server's moderators"
        assert not bob.ws.closed
        await bob.ws.close()


async def test_a_removed_message_leaves_the_pages_once(
    client: Client,  # noqa: F811
    db: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = base(client)
    async with new_browser() as anna_browser, new_browser() as bob_browser:
        async with anna_browser.post(f"{url}/api/games", json={"mode": "friend", "seat": 0}) as r:
            data = await r.json()
        anna = Seat(await anna_browser.ws_connect(f"{url}/ws/{data['game']}?t={data['token']}"))
        token = await claim_invite_in(bob_browser, url, data["invite"], "Bob")
        bob = Seat(await bob_browser.ws_connect(f"{url}/ws/{data['game']}?t={token}"))
        for seat in (anna, bob):
            await seat.until(lambda s: True)
        await anna.send(type="chat", text="rude words")
        rude = (await next_of(bob, "chat"))["line"]["id"]
        await next_of(anna, "chat")
        status, _, _ = await admin(capsys, db, "remove", rude, "--reason", "insult")
        assert status == 0
        for seat in (anna, bob):
            removed = await next_of(seat, "chat-removed", timeout=LIVE_S)
            assert removed == {"type": "chat-removed", "room": "players", "id": rude}
        # Heard on PostgreSQL's channel and read in the log alike: told once only.
        await quiet(bob, "chat-removed", wait=3.0)
        for seat in (anna, bob):
            await seat.ws.close()


async def test_the_follower_applies_each_new_act_once(db: str) -> None:  # noqa: F811
    store = await open_store(db)
    applied: list[str] = []

    async def apply(entry: ModerationRow) -> None:
        applied.append(entry.id)

    def act(n: int, ns: int) -> ModerationRow:
        return ModerationRow(f"{ns:016x}-{n:06x}", "at", "mod", "mute", f"guest p{n}", "why")

    try:
        now = time.time_ns()
        await store.moderate_player("nobody", "muted", True, act(1, now - 10**9))
        follower = Follower(store, apply, every=3600)
        await follower.start()
        assert applied == []  # acts made before the server started are not applied again
        # An act committed late (its id older than one already read) is still applied, once.
        await store.moderate_player("nobody", "muted", True, act(3, now + 10**6))
        assert await follower.poll() == 1
        await store.moderate_player("nobody", "muted", True, act(2, now))
        assert await follower.poll() == 1
        assert await follower.poll() == 0
        assert applied == [act(3, now + 10**6).id, act(2, now).id]
        await follower.close()
    finally:
        await store.close()
