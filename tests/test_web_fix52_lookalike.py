"""A user name that differs from one kept only by ``-`` for ``_`` is refused by the database
itself (schema 10's unique ``username_like``), not only by the check before the insert: of two
sign-ups (or bots) at one instant, one gets the name and the other the ordinary ``409 taken``;
a database that already holds such a pair migrates, both keeping their names (both databases)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hanamikoji.web.identity import username_key
from hanamikoji.web.store import MIGRATIONS, Duplicate, PlayerRow, Store, open_store
from lobby_support import Server, call, make_site, site, site_db  # noqa: F401 (fixtures)
from web_support import backend_database

PASSWORD = "correct horse"


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    with backend_database(request.param, tmp_path) as url:
        s = await open_store(url)
        yield s
        await s.close()


async def guest(store: Store, player_id: str) -> None:
    await store.new_player(player_id, None, f"session-{player_id}", "9999-12-31")


async def test_the_database_refuses_a_name_that_passes_for_one_kept(store: Store) -> None:
    """Straight to the store, as the second of two racing sign-ups gets there: both passed the
    look-alike check before either was written."""
    for pid in ("p1", "p2", "p3"):
        await guest(store, pid)
    assert await store.make_account("p1", "a_b", username_key("a_b"), "hash")
    with pytest.raises(Duplicate):
        await store.make_account("p2", "A-b", username_key("A-b"), "hash")
    with pytest.raises(Duplicate):
        await store.add_bot("b1", "a-B", username_key("a-B"), "p1", "token", "{}")
    with pytest.raises(Duplicate):
        await store.house_bot("h1", "A-B", username_key("A-B"), "A-B", None, "{}")
    second = await store.player("p2")
    assert second is not None and not second.is_account  # nothing written for the loser
    assert await store.bot("b1") is None and await store.player("h1") is None
    # A deleted account keeps its name from everyone, look-alikes included.
    await store.delete_player("p1", "deleted player")
    with pytest.raises(Duplicate):
        await store.make_account("p3", "a-b", username_key("a-b"), "hash")
    # Names that are not look-alikes are not held up.
    assert await store.make_account("p3", "a_bc", username_key("a_bc"), "hash")
    await store.add_bot("b2", "a-bd", username_key("a-bd"), "p3", "token2", "{}")
    await store.house_bot("h2", "AI-x", username_key("AI-x"), "AI-x", None, "{}")
    await store.house_bot("h2", "AI-x", username_key("AI-x"), "AI-x", None, "{}")  # next start


async def test_two_sign_ups_at_one_instant_get_one_account_and_taken(site: Server) -> None:  # noqa: F811
    """The look-alike check sees neither name (as when both requests read before either
    wrote): the database decides, and the loser is told ``taken``, not a server error."""
    store = site.service.store

    async def nobody(separators_folded: str) -> PlayerRow | None:
        return None

    store.account_like = nobody  # type: ignore[method-assign]
    async with site.browser() as first, site.browser() as second:
        body = {"username": "gaston_fr", "password": PASSWORD}
        await call(first, "POST", "/api/account", 201, json=body)
        body = {"username": "Gaston-FR", "password": PASSWORD}
        refused = await call(second, "POST", "/api/account", 409, json=body)
        assert refused["code"] == "taken" and "Gaston-FR" in refused["error"]
        assert (await call(second, "GET", "/api/me", 200)).get("username") is None
        # A bot's name the same way (its owner's check passed as well).
        bot = {"username": "gaston-fr", "accepts": {"rated": False}}
        refused = await call(first, "POST", "/api/bots", 409, json=bot)
        assert refused["code"] == "taken" and refused["field"] == "username"


async def test_a_database_holding_look_alikes_migrates_and_bars_new_ones(
    site_db: str,  # noqa: F811
) -> None:
    """Schema 9 with ``x_y-z`` and, made later, ``x-y_z`` (signed up before the check existed):
    both stay, and neither they nor any other account block the migration."""
    statements = [s for step in MIGRATIONS[:9] for s in step]
    rows = [
        "INSERT INTO players (id, created_at, name, username, username_key, password) VALUES "
        "('later', '2024-02-01T00:00:00.000+00:00', NULL, 'x-y_z', 'x-y_z', 'h')",
        "INSERT INTO players (id, created_at, name, username, username_key, password) VALUES "
        "('first', '2024-01-01T00:00:00.000+00:00', 'X', 'x_y-z', 'x_y-z', 'h')",
        "INSERT INTO players (id, created_at, name, username, username_key, password) VALUES "
        "('other', '2024-03-01T00:00:00.000+00:00', NULL, 'Anna-K', 'anna-k', 'h')",
        "INSERT INTO players (id, created_at) VALUES ('guest', '2024-03-01T00:00:00.000+00:00')",
    ]
    if site_db.startswith("sqlite"):
        conn = sqlite3.connect(site_db[len("sqlite:///") :])
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        for sql in [*statements, *rows]:
            conn.execute(sql)
        conn.execute("INSERT INTO meta VALUES ('schema_version', '9')")
        conn.commit()
        conn.close()
    else:
        import psycopg

        with psycopg.connect(site_db, autocommit=True) as pg:
            pg.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            for sql in [*statements, *rows]:
                pg.execute(sql)
            pg.execute("INSERT INTO meta VALUES ('schema_version', '9')")
    store = await open_store(site_db)
    try:
        for key, pid in (("x_y-z", "first"), ("x-y_z", "later"), ("anna-k", "other")):
            found = await store.account(key)
            assert found is not None and found.id == pid  # every name kept, as it was
        db: Any = store  # (its database's primitives: no part of the Store protocol)
        like = await db._all("SELECT id, username_like FROM players ORDER BY id", ())
        assert like == [
            ("first", "x_y_z"),
            ("guest", None),
            ("later", None),  # made after "first": its key is first's
            ("other", "anna_k"),
        ]
        found = await store.account_like("x_y_z")
        assert found is not None and found.id == "first"
        await guest(store, "new")
        for name in ("x_y_z", "X-Y-Z", "anna_k"):
            with pytest.raises(Duplicate):
                await store.make_account("new", name, username_key(name), "hash")
        assert await store.make_account("new", "x_yz", username_key("x_yz"), "hash")
    finally:
        await store.close()
