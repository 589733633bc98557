"""``hanamikoji admin reset-name`` clears the name and logs it in one transaction (both
databases): a log that cannot be written leaves the name as it was, and a name changed since it
was read is neither cleared nor logged under the old one."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from hanamikoji.web.moderation import ModerationError, reset_name
from hanamikoji.web.store import Store, open_store
from web_support import backend_database


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    with backend_database(request.param, tmp_path) as url:
        s = await open_store(url)
        yield s
        await s.close()


async def named(store: Store) -> None:
    await store.new_player("p1", "Rude Name", "session", "9999-12-31")


async def name_of(store: Store) -> str | None:
    player = await store.player("p1")
    assert player is not None
    return player.name


async def test_a_reset_whose_log_fails_resets_nothing(store: Store) -> None:
    await named(store)
    player = await store.player("p1")
    assert player is not None
    # The log's table out of the way: writing the entry fails, after the name's update.
    db: Any = store  # (its database's primitives: no part of the Store protocol)
    await db._tx([("ALTER TABLE moderation RENAME TO moderation_away", ())])
    with pytest.raises((sqlite3.Error, psycopg.Error)):
        await reset_name(store, player, "mod", "rude")
    assert await name_of(store) == "Rude Name"  # no reset without its log
    await db._tx([("ALTER TABLE moderation_away RENAME TO moderation", ())])
    entry = await reset_name(store, player, "mod", "rude")
    assert await name_of(store) is None
    assert await store.moderation_log() == [entry]
    assert entry.action == "reset-name" and entry.target.endswith('named "Rude Name"')


async def test_a_name_changed_meanwhile_is_not_reset_under_the_old_one(store: Store) -> None:
    await named(store)
    read = await store.player("p1")
    assert read is not None
    await store.set_player_name("p1", "Another Name")  # after the moderator's read
    with pytest.raises(ModerationError, match="changed their display name meanwhile"):
        await reset_name(store, read, "mod", "rude")
    assert await name_of(store) == "Another Name"
    assert await store.moderation_log() == []
