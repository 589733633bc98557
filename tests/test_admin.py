"""``hanamikoji admin`` on a running server's database (both databases): mute, disable, list and
remove messages, and the log of every act."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.cli import main
from hanamikoji.web.identity import username_key
from hanamikoji.web.server import create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from test_web_chat import (
    base,
    claim_invite_in,
    friend_game,
    new_browser,
    next_of,
    spectators_cheer,
    stranger,
    watcher,
)
from web_support import Seat, backend_database

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]


@pytest.fixture(params=["sqlite", "postgres"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    with backend_database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
async def service(db: str) -> AsyncIterator[GameService]:
    store = await open_store(db)
    yield GameService(store, ai_workers=0, seed=5)
    await store.close()


@pytest.fixture
async def client(aiohttp_client: MakeClient, service: GameService) -> Client:
    return await aiohttp_client(create_app(service))


async def admin(capsys: pytest.CaptureFixture[str], db: str, *words: str) -> tuple[int, str, str]:
    """Run ``hanamikoji admin WORDS --db DB --by mod`` as the operator would (its own event
    loop, in a thread: the server's runs here); its status, output and errors."""
    capsys.readouterr()
    status = await asyncio.to_thread(main, ["admin", *words, "--db", db, "--by", "mod"])
    out, err = capsys.readouterr()
    return status, out, err


async def signed_up(browser: aiohttp.ClientSession, url: str, username: str) -> None:
    body = {"username": username, "password": "correct horse"}
    async with browser.post(f"{url}/api/account", json=body) as r:
        assert r.status == 201, await r.text()


async def test_mute_disable_remove_and_the_log(
    client: Client, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = base(client)
    async with new_browser() as anna_browser, new_browser() as bob_browser:
        await signed_up(anna_browser, url, "anna_k")
        async with anna_browser.post(f"{url}/api/games", json={"mode": "friend", "seat": 0}) as r:
            data = await r.json()
        game = data["game"]
        anna = Seat(await anna_browser.ws_connect(f"{url}/ws/{game}"))  # by her session
        token = await claim_invite_in(bob_browser, url, data["invite"], "Bob")
        bob = Seat(await bob_browser.ws_connect(f"{url}/ws/{game}?t={token}"))
        for seat in (anna, bob):
            await seat.until(lambda s: True)
        await anna.send(type="chat", text="you are hopeless")
        rude = (await next_of(bob, "chat"))["line"]["id"]

        status, out, _ = await admin(capsys, db, "messages", "--game", game)
        assert status == 0 and rude in out and "you are hopeless" in out and "@" not in out
        assert f"game {game}  players  player " in out
        assert 'shown  seat 0 "anna_k": "you are hopeless"' in out
        status, out, _ = await admin(capsys, db, "messages", "--player", "ANNA_K")
        assert status == 0 and rude in out

        # Remove: gone from the room, for good.
        status, out, _ = await admin(capsys, db, "remove", rude, "--reason", "insult")
        assert status == 0 and "remove" in out and rude in out
        if db.startswith("postgresql"):  # the server hears of it at once, and tells the pages
            for seat in (anna, bob):
                assert (await next_of(seat, "chat-removed"))["id"] == rude
        await bob.send(type="chat-history")
        assert (await next_of(bob, "chat-history"))["lines"] == []
        status, _, err = await admin(capsys, db, "remove", rude, "--reason", "again")
        assert status == 1 and "removed already" in err
        status, out, _ = await admin(capsys, db, "messages", "--game", game)
        assert "  removed  seat 0 " in out

        # Mute: her messages are refused, saying so; Bob still talks.
        status, out, _ = await admin(capsys, db, "mute", "anna_k", "--reason", "insults")
        assert status == 0 and "mute" in out and "@anna_k" in out
        await anna.send(type="chat", text="sorry")
        error = await anna.error()
        assert error["code"] == "muted" and "moderator has muted you" in error["message"]
        await bob.send(type="chat", text="ok")
        assert (await next_of(anna, "chat"))["line"]["text"] == "ok"
        await next_of(bob, "chat")  # (his own)
        status, _, _ = await admin(capsys, db, "unmute", "anna_k", "--reason", "apologised")
        await anna.send(type="chat", text="sorry")
        assert (await next_of(bob, "chat"))["line"]["text"] == "sorry"

        # Disable: her session ends, her seat no longer opens, she cannot sign in.
        status, out, _ = await admin(capsys, db, "disable", "anna_k", "--reason", "repeat")
        assert status == 0 and "disable" in out
        async with anna_browser.get(f"{url}/api/me") as r:
            assert (await r.json())["account"] is False  # no longer signed in
        async with anna_browser.ws_connect(f"{url}/ws/{game}?t={data['token']}") as ws:
            first = await ws.receive_json()
            assert first["code"] == "disabled", first
            await ws.receive()
            assert ws.close_code == 4403
        body = {"username": "anna_k", "password": "correct horse"}
        async with anna_browser.post(f"{url}/api/account/signin", json=body) as r:
            assert r.status == 403 and (await r.json())["code"] == "disabled"
        body["password"] = "wrong password"  # a wrong password says nothing of the account
        async with anna_browser.post(f"{url}/api/account/signin", json=body) as r:
            assert r.status == 401
        status, _, _ = await admin(capsys, db, "enable", "anna_k", "--reason", "appeal granted")
        body["password"] = "correct horse"
        async with anna_browser.post(f"{url}/api/account/signin", json=body) as r:
            assert r.status == 200

        # A guest is named by its player id (as `messages` shows it).
        status, out, _ = await admin(capsys, db, "messages", "--game", game)
        bob_id = re.search(r'player ([\w-]+)  shown  seat 1 "Bob"', out)
        assert bob_id is not None
        status, out, _ = await admin(capsys, db, "mute", bob_id[1], "--reason", "test")
        assert status == 0 and f"guest {bob_id[1]}" in out
        await bob.send(type="chat", text="hello?")
        assert (await bob.error())["code"] == "muted"
        status, out, _ = await admin(capsys, db, "log")
        rows = out.strip().splitlines()
        assert [row.split("  ")[2] for row in rows] == [
            "mute",
            "enable",
            "disable",
            "unmute",
            "mute",
            "remove",
        ]
        assert all("  mod  " in row for row in rows)
        assert "(why: insult)" in rows[-1] and f"message {rude}" in rows[-1]
        assert "@anna_k" in rows[1] and "(why: appeal granted)" in rows[1]
        for seat in (anna, bob):
            await seat.ws.close()


async def test_a_deleted_accounts_spectator_lines_are_not_called_a_guests(
    client: Client, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``messages`` names an unnamed spectator's line by what its author is: a guest, or an
    account deleted since it spoke (its user name gone with it)."""
    game, (anna, bob), browser = await friend_game(client)
    url = base(client)
    async with browser, await stranger(client) as eve_browser, await stranger(client) as ivan_b:
        await signed_up(eve_browser, url, "eve_w")
        eve, ivan = await watcher(eve_browser, url, game), await watcher(ivan_b, url, game)
        await spectators_cheer(eve, ivan)
        status, out, _ = await admin(capsys, db, "messages", "--game", game)
        assert status == 0 and 'shown  "eve_w": ' in out
        await eve.ws.close()
        body = {"password": "correct horse"}
        async with eve_browser.post(f"{url}/api/account/delete", json=body) as r:
            assert r.status == 200
        status, out, _ = await admin(capsys, db, "messages", "--game", game)
        said = {json.loads(line.rsplit(": ", 1)[1]): line for line in out.strip().splitlines()}
        assert status == 0 and "eve_w" not in out
        assert "  shown  deleted account: " in said["go Bob"]
        assert "  shown  guest: " in said["go Anna"]
        for ws in (anna, bob, ivan):
            await ws.ws.close()


async def test_refusals(
    client: Client, db: str, capsys: pytest.CaptureFixture[str], service: GameService
) -> None:
    # a house level, as a server with its house bots has it
    await service.store.house_bot(
        "ai:master", "AI-master", username_key("AI-master"), "AI-master", "x" * 64, "{}"
    )
    status, out, _ = await admin(capsys, db, "log")
    assert status == 0 and out.strip() == "nothing logged yet"
    status, _, err = await admin(capsys, db, "mute", "nobody_here", "--reason", "x")
    assert status == 1 and err.startswith("hanamikoji admin: no player")
    status, _, err = await admin(capsys, db, "remove", "nosuchmessage", "--reason", "x")
    assert status == 1 and "no chat message" in err
    async with new_browser() as browser:
        await signed_up(browser, base(client), "carol")
    status, _, err = await admin(capsys, db, "mute", "carol", "--reason", "   ")
    assert status == 1 and "--reason" in err
    for action, state in (("unmute", "not muted"), ("enable", "not disabled")):
        status, _, err = await admin(capsys, db, action, "carol", "--reason", "x")
        assert status == 1 and f"(@carol) is {state}: nothing to {action}" in err, err
    status, _, _ = await admin(capsys, db, "mute", "@carol", "--reason", "x")  # as pages show it
    assert status == 0
    status, _, err = await admin(capsys, db, "disable", "AI-master", "--reason", "x")
    assert status == 1 and "one of the server's own AI levels" in err, err
    assert "--no-house-bots" in err
    status, _, err = await admin(capsys, db, "disable", "ai:master", "--reason", "x")
    assert status == 1 and "one of the server's own AI levels" in err, err
    status, _, err = await admin(capsys, db, "mute", "carol", "--reason", "again")
    assert status == 1 and "is muted already" in err
    status, _, _ = await admin(capsys, db, "unmute", "carol", "--reason", "x")
    assert status == 0
    with pytest.raises(SystemExit) as exit_:
        main(["admin", "mute", "carol"])  # no reason: a usage error
    assert exit_.value.code == 2
    status, out, _ = await admin(capsys, db, "log")
    rows = out.strip().splitlines()  # nothing refused was logged: the mute and unmute alone
    assert [row.split("  ")[2] for row in rows] == ["unmute", "mute"], rows


def test_a_database_that_is_not_there_is_said_not_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped --db names the missing file (never 'no player' from a new, empty database)."""
    missing = tmp_path / "typo" / "games.sqlite3"
    for db in (f"sqlite:///{missing}", str(missing)):
        assert main(["admin", "mute", "carol", "--reason", "x", "--db", db]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"hanamikoji admin: no SQLite database at '{missing}'"), err
    assert not missing.parent.exists()


@pytest.mark.parametrize("limit", ["0", "-5", "abc"])
def test_a_limit_below_one_is_a_usage_error(
    limit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for action in ("log", "messages"):
        with pytest.raises(SystemExit) as exit_:
            main(["admin", action, "--limit", limit, "--db", str(tmp_path / "x.sqlite3")])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "argument --limit: " in err and ("not a whole number" in err or "1 or more" in err)
