"""A disabled player's challenge is never stored: the insert's own transaction reads the
creator's flags (and a bot's owner's), locking the rows on PostgreSQL, so a moderator's act that
commits on another server is either seen there or comes after the insert; no instant in which
another server's listing shows the challenge (both databases)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hanamikoji.web.identity import DISABLED, username_key
from hanamikoji.web.store import Disabled, Store, open_store
from lobby_support import Server, call, make_site, site, site_db  # noqa: F401 (fixtures)
from test_web_fix52_lobby_disabled import NOW, act, offer, store_fixture  # noqa: F401
from test_web_fix53_lobby_disabled import owned_bot, people, signed_up
from web_support import backend_database

DAY = 86_400_000


async def test_the_insert_refuses_a_disabled_creator(store: Store) -> None:
    await people(store, "bob")
    await store.moderate_player("bob", "disabled", True, act())
    with pytest.raises(Disabled):
        await store.add_challenge(offer("day", "bob", expires=NOW + DAY), 5)
    with pytest.raises(Disabled):
        await store.add_challenge(offer("live", "bob", expires=None), 5)
    assert await store.challenge("day") is None and await store.challenge("live") is None
    await store.moderate_player("bob", "disabled", False, act("enable"))
    assert await store.add_challenge(offer("day", "bob", expires=NOW + DAY), 5)


async def test_the_insert_refuses_a_bot_whose_owner_is_disabled(store: Store) -> None:
    await owned_bot(store)
    await store.moderate_player("olga", "disabled", True, act())
    with pytest.raises(Disabled):
        await store.add_challenge(offer("bots", "botty", expires=NOW + DAY), 5)
    assert await store.challenge("bots") is None
    await store.moderate_player("olga", "disabled", False, act("enable"))
    assert await store.add_challenge(offer("bots", "botty", expires=NOW + DAY), 5)
    assert not await store.add_challenge(offer("more", "botty", expires=NOW + DAY), 1)  # most


async def test_a_creator_disabled_after_the_lobbys_look_is_never_stored(
    site: Server,  # noqa: F811
) -> None:
    """The act commits after the lobby's look at the creator, before the insert: refused with
    the lobby's words, and no challenge written at all (before, it was stored open and then
    withdrawn: another server could list it in between)."""
    store = site.service.store
    async with site.browser() as bob:
        await signed_up(bob, "bob_j")
        player = await store.account(username_key("bob_j"))
        assert player is not None
        real = store.add_challenge
        stored: list[Any] = []

        async def disabled_first(challenge: Any, most: int) -> bool:
            await store.moderate_player(player.id, "disabled", True, act())
            try:
                return await real(challenge, most)
            finally:
                stored.append(await store.challenge(challenge.id))

        store.add_challenge = disabled_first  # type: ignore[method-assign]
        try:
            refused = await call(
                bob, "POST", "/api/lobby/challenges", 403, json={"control": "none"}
            )
        finally:
            store.add_challenge = real  # type: ignore[method-assign]
        assert refused["code"] == "disabled" and refused["error"] == DISABLED
        assert stored == [None]


async def test_an_act_in_flight_on_another_server_is_waited_for(tmp_path: Path) -> None:
    """PostgreSQL: a moderator's update not yet committed (another server's) holds the
    creator's row; the insert waits for it, then sees the flag and stores nothing."""
    import psycopg

    with backend_database("postgres", tmp_path) as url:
        store = await open_store(url)
        try:
            await people(store, "bob")
            other = await psycopg.AsyncConnection.connect(url)
            try:
                await other.execute(
                    "UPDATE players SET disabled_at = %s WHERE id = %s", ("at", "bob")
                )
                adding = asyncio.create_task(
                    store.add_challenge(offer("live", "bob", expires=None), 5)
                )
                await asyncio.sleep(0.5)
                assert not adding.done()  # held by the act's lock
                await other.commit()
                with pytest.raises(Disabled):
                    await asyncio.wait_for(adding, 10)
            finally:
                await other.close()
            assert await store.challenge("live") is None
        finally:
            await store.close()
