"""Spectators over real WebSockets (in-process, both databases): refusals, limits, the list."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.web.limits import Limits
from hanamikoji.web.server import ACCOUNTS, GAMES_ON, Settings, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from lobby_support import Server, call, meet
from test_web_accounts import CHEAP, sign_up
from web_support import (
    Seat,
    backend_database,
    claim_invite,
    over,
    play_out,
)

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]


@pytest.fixture(params=["sqlite", "postgres"])
async def service(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[GameService]:
    """A service on a fresh database, on each backend."""
    with backend_database(request.param, tmp_path) as url:
        store = await open_store(url)
        yield GameService(store, ai_workers=0, hint_iterations=60, seed=5)
        await store.close()


@pytest.fixture
async def client(aiohttp_client: MakeClient, service: GameService) -> Client:
    return await aiohttp_client(create_app(service))


async def friend_game(client: Client) -> tuple[str, list[Seat]]:
    """A friend game with both seats connected and their first states read."""
    data = await (await client.post("/api/games", json={"mode": "friend", "seat": 0})).json()
    host = Seat(await client.ws_connect(f"/ws/{data['game']}?t={data['token']}"))
    token = await claim_invite(str(client.make_url("/")).rstrip("/"), data["invite"])
    guest = Seat(await client.ws_connect(f"/ws/{data['game']}?t={token}"))
    for seat in (host, guest):
        await seat.until(lambda s: True)
    return data["game"], [host, guest]


async def watch(client: Client, game: str) -> Seat:
    spectator = Seat(await client.ws_connect(f"/ws/{game}/watch"))
    await spectator.until(lambda s: True)
    return spectator


async def test_a_spectator_sees_each_move_and_the_end(client: Client) -> None:
    game, seats = await friend_game(client)
    spectator = await watch(client, game)
    first = spectator.state
    assert first is not None and first["spectator"] is True
    assert set(first) == {"type", "spectator", "game", "public", "scorings", "result", "clock"}
    assert first["game"]["names"] == ["Player 1", "Player 2"]
    assert first["game"]["online"] == [True, True] and first["game"]["joined"] == [True, True]
    assert first["public"]["hand_sizes"] == [7, 6] and first["public"]["deck"] == 7
    assert not {"invite", "rematch", "can_undo", "seat"} & set(first["game"])
    await play_out(seats, random.Random(2))
    final = await spectator.until(over)
    versions = [m["game"]["version"] for m in spectator.messages if m["type"] == "state"]
    assert versions == sorted(versions) and versions[-1] == final["game"]["version"]
    assert set(range(versions[0], versions[-1] + 1)) == set(versions)  # every move, in order
    player = await seats[0].until(over)
    assert final["result"] == player["result"] and final["scorings"] == player["scorings"]
    assert final["public"]["played"] == player["view"]["played"]
    await seats[1].ws.close()
    gone = await spectator.until(lambda s: s["game"]["online"] == [True, False])
    assert gone["game"]["version"] == final["game"]["version"]


async def test_a_spectator_can_change_nothing(client: Client, service: GameService) -> None:
    data = await (
        await client.post("/api/games", json={"mode": "ai", "level": "easy", "seat": 0})
    ).json()
    player = Seat(await client.ws_connect(f"/ws/{data['game']}?t={data['token']}"))
    state = await player.until(lambda s: bool(s["legal"]))
    spectator = await watch(client, data["game"])
    for message in (
        {"type": "move", "move": state["legal"][0], "version": state["game"]["version"]},
        {"type": "undo"},
        {"type": "hint"},
        {"type": "resign"},
        {"type": "claim"},
        {"type": "rematch"},
        {"type": "chat", "text": "hello"},
    ):
        await spectator.send(**message)
        error = await spectator.error()
        assert error["code"] == "spectator", error
        assert error["message"].startswith("you are watching this game: a spectator cannot")
    await spectator.send(type="ping")
    assert (await spectator.receive())["type"] == "pong"
    await spectator.ws.send_str("{not json")
    assert (await spectator.error())["code"] == "bad-request"
    await spectator.send(type="dance")
    assert "may only ping" in (await spectator.error())["message"]
    game = await service.get(data["game"])
    assert game is not None and game.row.version == state["game"]["version"]
    assert game.row.moves == () and not game.state.is_over
    assert [m["type"] for m in player.messages[1:]] in ([], ["state"])  # the spectator's coming
    await spectator.ws.close()
    await player.ws.close()


async def test_no_such_game_to_watch(client: Client) -> None:
    for game in ("nosuchgame", "bad%20id"):
        ws = await client.ws_connect(f"/ws/{game}/watch")
        error = await ws.receive_json()
        assert error["code"] == "not-found"
        closing = await ws.receive()
        assert closing.type == aiohttp.WSMsgType.CLOSE and closing.data == 4404


async def test_spectators_from_another_sites_page_are_refused(client: Client) -> None:
    game, _ = await friend_game(client)
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(f"/ws/{game}/watch", headers={"Origin": "https://evil.example"})
    assert refused.value.status == 403


async def test_spectators_are_limited_per_game_and_per_client(
    aiohttp_client: MakeClient, service: GameService
) -> None:
    limits = Limits(spectators_per_game=2, spectators_per_client=3)
    client = await aiohttp_client(create_app(service, Settings(limits=limits)))
    one, _ = await friend_game(client)
    two, _ = await friend_game(client)
    watching = [await watch(client, one), await watch(client, one)]

    async def refused(game: str) -> str:
        ws = await client.ws_connect(f"/ws/{game}/watch")
        error = await ws.receive_json()
        assert error["code"] == "too-many"
        closing = await ws.receive()
        assert closing.type == aiohttp.WSMsgType.CLOSE and closing.data == 4429
        return str(error["message"])

    assert "as many spectators" in await refused(one)  # the game is full
    watching.append(await watch(client, two))
    assert "your address is watching 3 games" in await refused(two)  # this client is
    await watching.pop(0).ws.close()
    for _ in range(50):  # the closed socket is counted off once its handler has ended
        try:
            watching.append(await watch(client, one))
            break
        except AssertionError:
            await asyncio.sleep(0.05)
    assert len(watching) == 3


async def test_the_games_on_now(client: Client, service: GameService) -> None:
    games: dict[str, str] = {}
    for level in ("beginner", "master", "medium", "hard"):
        body = {"mode": "ai", "level": level, "seat": 0}
        games[level] = (await (await client.post("/api/games", json=body)).json())["game"]
    waiting = await (await client.post("/api/games", json={"mode": "friend"})).json()
    people, seats = await friend_game(client)
    ended = await (
        await client.post("/api/games", json={"mode": "ai", "level": "master", "seat": 0})
    ).json()
    loser = Seat(await client.ws_connect(f"/ws/{ended['game']}?t={ended['token']}"))
    await loser.until(lambda s: True)
    await loser.send(type="resign")
    await loser.until(over)
    spectator = await watch(client, people)

    listing = await (await client.get("/api/watch")).json()
    assert listing["order"] == "rating-then-level-then-recent"
    order = [g["game"] for g in listing["games"]]
    assert order == [games["master"], games["hard"], people, games["medium"], games["beginner"]]
    assert waiting["game"] not in order and ended["game"] not in order
    shown = next(g for g in listing["games"] if g["game"] == people)
    assert shown["url"] == f"/g/{people}" and shown["spectators"] == 1
    assert shown["names"] == ["Player 1", "Player 2"] and shown["round"] == 1
    assert shown["mode"] == "friend" and shown["to_move"] == 0 and shown["charm"] == [0, 0]
    assert not {"token", "tokens", "invite", "players"} & set(shown)
    assert "usernames" not in shown  # no seat is an account's: as the spectator's state

    # read again from the database only every few seconds
    await play_out(seats, random.Random(4))
    again = await (await client.get("/api/watch")).json()
    assert [g["game"] for g in again["games"]] == order
    client.app[GAMES_ON]._read_at -= 60
    fresh = await (await client.get("/api/watch")).json()
    assert people not in [g["game"] for g in fresh["games"]]
    await spectator.ws.close()


async def test_the_watch_page_is_served(client: Client) -> None:
    response = await client.get("/watch")
    assert response.status == 200
    assert "games on now" in (await response.text()).lower()


async def test_the_highest_rated_games_between_people_come_first(site: Server) -> None:
    store: Any = site.service.store  # (its _tx sets the ratings)
    async with contextlib.AsyncExitStack() as stack:
        a, b, c, d, e = [await stack.enter_async_context(site.browser()) for _ in range(5)]
        high = await meet(site, a, b)
        low = await meet(site, c, d)
        unrated = await meet(site, e, a)  # e has no rating yet
        master = await call(a, "POST", "/api/games", 201, json={"mode": "ai", "level": "master"})
        games = [
            str(seats[0].state["game"]["id"]) for seats in (high, low, unrated) if seats[0].state
        ]
        for game, ratings in zip(games, [(1900, 1800), (1600, 1400)], strict=False):
            row = await store.load(game)
            assert row is not None
            for player, rating in zip(row.players, ratings, strict=True):
                await store._tx(
                    [
                        (
                            "INSERT INTO ratings (player_id, family, rating, deviation, "
                            "volatility, games, rated_at) VALUES (?, 'real-time', ?, 60, 0.06, "
                            "30, 0)",
                            (player, rating),
                        )
                    ]
                )
        listing = await call(a, "GET", "/api/watch", 200)
        assert listing["order"] == "rating-then-level-then-recent"
        # the mean ratings 1850 and 1500, then the AI's master, then a game with a new player
        assert [g["game"] for g in listing["games"]] == [*games[:2], master["game"], games[2]]
        for seat in (*high, *low, *unrated):
            await seat.ws.close()


async def test_the_list_tells_an_account_from_a_guest_of_the_same_name(site: Server) -> None:
    """GAME_ON's ``usernames``: an account seat's user name, null for a guest (absent when no
    seat is an account's), read in one query for the whole list; never a player id."""
    site.app[ACCOUNTS].hasher = CHEAP
    store: Any = site.service.store  # (its accounts counted: usernames reads them too)
    asked: list[list[str]] = []
    accounts = store.accounts

    async def counted(ids: Any) -> dict[str, str | None]:
        asked.append(list(ids))
        found: dict[str, str | None] = await accounts(ids)
        return found

    async with contextlib.AsyncExitStack() as stack:
        a, b, c, d = [await stack.enter_async_context(site.browser()) for _ in range(4)]
        await sign_up(a, "alice")
        await call(b, "POST", "/api/me", 200, json={"name": "alice"})
        mixed = await meet(site, a, b)
        guests = await meet(site, c, d)
        ids = [str(seats[0].state["game"]["id"]) for seats in (mixed, guests) if seats[0].state]
        store.accounts = counted
        try:
            listing = await call(c, "GET", "/api/watch", 200)
        finally:
            del store.accounts
        assert len(asked) == 1  # one query for the list, not one a game
        shown = {g["game"]: g for g in listing["games"]}
        assert shown[ids[0]]["names"] == ["alice", "alice"]  # the same name, typed by each
        assert shown[ids[0]]["usernames"] == ["alice", None]
        assert "usernames" not in shown[ids[1]]
        text = json.dumps(listing)
        for game in ids:
            row = await store.load(game)
            assert row is not None
            for secret in (*row.players, *row.tokens):
                assert secret is None or secret not in text
        for seat in (*mixed, *guests):
            await seat.ws.close()
