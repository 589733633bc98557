"""The web app's storage, on SQLite and (when a server is given) PostgreSQL: schema, versions."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from hanamikoji.web.store import (
    MIGRATIONS,
    GameRow,
    SQLiteStore,
    Store,
    StoreError,
    open_store,
)
from web_support import backend_database

BACKENDS = ["sqlite", "postgres"]


def _row(game_id: str = "g1", ai_due: bool = True) -> GameRow:
    return GameRow(
        id=game_id,
        seed=123456789012345,
        max_rounds=3,
        mode="ai",
        level="easy",
        ai_seat=1,
        tokens=("tok0", "tok1"),
        names=("Anna", "easy"),
        joined=(True, True),
        ai_due=ai_due,
    )


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    with backend_database(request.param, tmp_path) as url:
        s = await open_store(url)
        yield s
        await s.close()


async def test_a_game_round_trips(store: Store) -> None:
    await store.create(_row())
    loaded = await store.load("g1")
    assert loaded is not None
    assert loaded.seed == 123456789012345
    assert (loaded.tokens, loaded.names, loaded.joined) == (
        ("tok0", "tok1"),
        ("Anna", "easy"),
        (True, True),
    )
    assert (loaded.version, loaded.status, loaded.moves, loaded.rematch) == (0, "playing", (), None)
    assert await store.load("nope") is None
    assert loaded.ai_due
    assert await store.ai_due() == ["g1"]


async def test_moves_need_the_current_version(store: Store) -> None:
    await store.create(_row())
    assert await store.append("g1", 0, [(0, "S1"), (1, "D23")])
    assert not await store.append("g1", 0, [(0, "S4")])  # stale: someone else wrote version 1
    assert await store.append("g1", 1, [(0, "G456")])
    loaded = await store.load("g1")
    assert loaded is not None
    assert (loaded.moves, loaded.version) == (("S1", "D23", "G456"), 2)


async def test_the_games_waiting_for_the_ai(store: Store) -> None:
    await store.create(_row("a", ai_due=False))
    await store.create(_row("b", ai_due=True))
    await store.create(replace(_row("c", ai_due=False), mode="friend", ai_seat=None))
    assert await store.ai_due() == ["b"]
    assert await store.append("a", 0, [(0, "S1")], ai_due=True)
    assert await store.append("b", 0, [(1, "S2")], ai_due=False)
    assert await store.ai_due() == ["a"]
    assert await store.truncate("b", 1, 0, ai_due=True)
    assert sorted(await store.ai_due()) == ["a", "b"]


async def test_truncate_is_an_undo(store: Store) -> None:
    await store.create(_row())
    assert await store.append("g1", 0, [(0, "S1"), (1, "D23"), (0, "G456")])
    assert not await store.truncate("g1", 0, 1)
    assert await store.truncate("g1", 1, 1)
    loaded = await store.load("g1")
    assert loaded is not None
    assert (loaded.moves, loaded.version) == (("S1",), 2)
    assert await store.append("g1", 2, [(1, "S7")])
    loaded = await store.load("g1")
    assert loaded is not None and loaded.moves == ("S1", "S7")


async def test_a_finished_game_leaves_the_playing_list(store: Store) -> None:
    await store.create(_row("a"))
    await store.create(_row("b"))
    result = {"winner": 0, "reason": "resign", "charm": [0, 0], "geisha": [0, 0]}
    assert await store.append("a", 0, [(1, "resign:1")], status="over", result=result)
    assert await store.ai_due() == ["b"]
    loaded = await store.load("a")
    assert loaded is not None and (loaded.status, loaded.result) == ("over", result)


async def test_joined_rematch_and_analysis(store: Store) -> None:
    await store.create(_row())
    await store.update("g1", joined1=False, rematch="g2")
    loaded = await store.load("g1")
    assert loaded is not None and (loaded.joined, loaded.rematch, loaded.version) == (
        (True, False),
        "g2",
        0,
    )
    with pytest.raises(ValueError, match="only joined0, joined1, rematch"):
        await store.update("g1", version=5)
    assert await store.analysis("g1") is None
    await store.save_analysis("g1", {"decisions": [1, 2]})
    await store.save_analysis("g1", {"decisions": [3]})
    assert await store.analysis("g1") == {"decisions": [3]}


async def test_sqlite_schema_is_created_once_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "games.sqlite3"
    first = SQLiteStore(path)
    await first.create(_row())
    assert first.schema_version == len(MIGRATIONS)
    await first.close()
    again = SQLiteStore(path)  # reopening migrates nothing and keeps the games
    assert await again.load("g1") is not None
    await again.close()


async def test_a_database_of_schema_1_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    for sql in MIGRATIONS[0]:
        db.execute(sql)
    db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    db.execute(
        "INSERT INTO games VALUES ('old', 'then', 'then', 7, 3, 'ai', 'easy', 1, 't0', 't1', "
        "'Anna', 'easy', 1, 1, 0, 'playing', NULL, NULL)"
    )
    # Friend games of the permanent links: one waiting for its friend, one the friend joined.
    db.execute(
        "INSERT INTO games VALUES ('waits', 'then', 'then', 8, 3, 'friend', NULL, NULL, 'h0', "
        "'f1', 'Anna', 'Player 2', 1, 0, 0, 'playing', NULL, NULL)"
    )
    db.execute(
        "INSERT INTO games VALUES ('joined', 'then', 'then', 9, 3, 'friend', NULL, NULL, 'f0', "
        "'h1', 'Bob', 'Anna', 1, 1, 0, 'playing', NULL, NULL)"
    )
    db.commit()
    db.close()
    store = SQLiteStore(path)
    assert store.schema_version == len(MIGRATIONS)
    old = await store.load("old")
    assert old is not None and old.names == ("Anna", "easy")
    assert old.ai_due  # not known for a game stored before: a starting server looks at it
    assert await store.ai_due() == ["old"]
    waits = await store.load("waits")
    assert waits is not None and waits.tokens == ("h0", "") and waits.invite == "f1"
    joined = await store.load("joined")
    assert joined is not None and joined.tokens == ("f0", "h1") and joined.invite is None
    await store.close()


async def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    (await open_store(str(path))).__class__  # noqa: B018 - creates the schema
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="schema version 99, newer than this program's"):
        SQLiteStore(path)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://x/y", "unknown database 'mysql://x/y'; expected sqlite:///PATH"),
        ("sqlite:///", "no file in 'sqlite:///'"),
        ("sqlite://relative", "no file in"),
    ],
)
async def test_bad_urls_say_what_is_expected(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
        await open_store(url)


async def test_an_unreachable_postgres_is_a_clear_error() -> None:
    with pytest.raises(StoreError, match="PostgreSQL"):
        await open_store("postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=1")


async def test_the_default_database_lives_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    store = await open_store(None)
    assert (tmp_path / "hanamikoji" / "games.sqlite3").is_file()
    assert store.url == f"sqlite:///{tmp_path / 'hanamikoji' / 'games.sqlite3'}"
    await store.close()


async def test_accounts_and_user_names_are_looked_up_in_one_call(store: Store) -> None:
    """``accounts``: an account by its user name, a deleted account by None; ``usernames``:
    accounts' user names alone. Guests and unknown ids are left out of both."""
    for pid in ("p-guest", "p-anna", "p-gone"):
        await store.new_player(pid, "Anna", f"s-{pid}", "2999-01-01T00:00:00")
    assert await store.make_account("p-anna", "anna_k", "anna_k", "hash")
    assert await store.make_account("p-gone", "gone_g", "gone_g", "hash")
    await store.delete_player("p-gone", "deleted player")
    asked = ["p-guest", "p-anna", "p-gone", "p-nobody", "p-anna"]
    assert await store.accounts(asked) == {"p-anna": "anna_k", "p-gone": None}
    assert await store.usernames(asked) == {"p-anna": "anna_k"}
    assert await store.accounts([]) == {}
    assert await store.usernames([]) == {}
