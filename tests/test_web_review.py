"""Hints and the review agree: every hint is kept, shown at its move in the review, and a followed
hint is judged by the hint's own search (never a mistake beyond the analysis's noise).

Server level (in-process, real sockets) with a small search budget; the store's hints on SQLite
and PostgreSQL; the schema's migration to the hints.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.ai.analysis import ITERATIONS, MISTAKE, NOISE
from hanamikoji.web import ai_worker
from hanamikoji.web.server import create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import MIGRATIONS, GameRow, HintRow, SQLiteStore, Store, open_store
from web_support import POSTGRES, Seat, backend_database, my_turn, over, postgres_database

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]
BUDGET = 300  # iterations for hints and reviews alike: a whole review in about a second


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    store = await open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    # The search's kernels loaded first: a first hint slowed by loading them would make the
    # queue search the next ones with less than their budget (as under load).
    ai_worker.warm_up()
    yield GameService(
        store, ai_workers=0, hint_iterations=BUDGET, analysis_iterations=BUDGET, seed=3
    )


@pytest.fixture
async def client(aiohttp_client: MakeClient, service: GameService) -> Client:
    return await aiohttp_client(create_app(service))


async def new_game(client: Client, max_rounds: int = 1) -> tuple[str, Seat]:
    response = await client.post(
        "/api/games", json={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": max_rounds}
    )
    data = await response.json()
    seat = Seat(await client.ws_connect(f"/ws/{data['game']}?t={data['token']}"))
    await seat.until(lambda s: True)
    return data["game"], seat


async def ask_hint(seat: Seat) -> dict[str, Any]:
    await seat.send(type="hint")
    while True:
        message = await seat.receive()
        if message["type"] == "hint":
            return message


def plies(state: dict[str, Any]) -> int:
    """How many moves the game has had (the ply of the decision ``state`` shows)."""
    return sum(1 for entry in state["view"]["history"] if "move" in entry)


async def play(seat: Seat, move: str) -> dict[str, Any]:
    assert seat.state is not None
    version = seat.state["game"]["version"]
    await seat.send(type="move", move=move, version=version)
    return await seat.until(lambda s: s["game"]["version"] > version)


async def analysis(client: Client, service: GameService, game: str) -> dict[str, Any]:
    url = f"/api/games/{game}/analysis"
    first = await (await client.get(url)).json()
    if first["status"] == "pending":
        await service._analysing[game]
    ready: dict[str, Any] = await (await client.get(url)).json()
    assert ready["status"] == "ready", ready
    return ready


def test_hints_and_reviews_share_one_budget_and_the_mistake_line_is_above_the_noise() -> None:
    defaults = GameService.__init__.__kwdefaults__ or {}
    assert defaults["hint_iterations"] == defaults["analysis_iterations"] == ITERATIONS
    assert 0 < NOISE <= MISTAKE


async def test_every_hint_is_shown_at_its_move_and_a_followed_one_is_never_a_mistake(
    client: Client, service: GameService
) -> None:
    game, seat = await new_game(client, max_rounds=2)
    rng = random.Random(4)
    given: dict[int, dict[str, Any]] = {}  # ply -> the hint
    followed: set[int] = set()
    turn = 0
    for _ in range(200):
        state = await seat.until(lambda s: my_turn(s) or over(s))
        if over(state):
            break
        ply = plies(state)
        turn += 1
        if turn % 4 == 3:  # no hint asked
            await play(seat, rng.choice(state["legal"]))
            continue
        hint = await ask_hint(seat)
        given[ply] = hint
        others = [m for m in state["legal"] if m != hint["move"]]
        if turn % 4 == 2 and others:  # asked, not followed
            await play(seat, rng.choice(others))
            continue
        followed.add(ply)
        await play(seat, hint["move"])
    assert followed and set(given) - followed, "the game gave too few decisions to test"

    ready = await analysis(client, service, game)
    assert (ready["iterations"], ready["noise"], ready["mistake"]) == (BUDGET, NOISE, MISTAKE)
    by_ply = {d["ply"]: d for d in ready["decisions"]}
    shown = {ply for ply, d in by_ply.items() if "hint" in d}
    assert shown == set(given)
    for ply, hint in given.items():
        decision = by_ply[ply]
        assert decision["seat"] == 0
        assert decision["hint"] == {
            "move": hint["move"],
            "win_probability": hint["win_probability"],
            "iterations": BUDGET,
        }
        if ply in followed:
            assert decision["played"] == hint["move"]
            # the review searched this decision exactly as the hint did
            assert decision["best"] == hint["move"]
            assert decision["win_probability"] == hint["win_probability"]
            assert decision["loss"] <= NOISE
        else:
            assert decision["played"] != hint["move"]
    await seat.ws.close()


async def test_the_hints_of_moves_taken_back_are_forgotten(
    client: Client, service: GameService
) -> None:
    game, seat = await new_game(client)
    asked = []
    for _ in range(3):  # two moves played as hinted, then a hint at the third decision
        state = await seat.until(my_turn)
        hint = await ask_hint(seat)
        assert hint["version"] == state["game"]["version"]
        asked.append((plies(state), hint["move"]))
        if len(asked) < 3:
            await play(seat, hint["move"])
    kept = await service.store.hints(game)
    assert [(h.ply, h.move) for h in kept] == asked

    await seat.send(type="undo")  # back to the second decision
    back = await seat.until(lambda s: s["game"]["version"] > state["game"]["version"])
    assert plies(back) == asked[1][0]
    kept = await service.store.hints(game)
    assert [(h.ply, h.move) for h in kept] == asked[:1]
    await seat.ws.close()


# -- the store ------------------------------------------------------------------------------------


def _row(game_id: str = "g1") -> GameRow:
    return GameRow(
        id=game_id,
        seed=5,
        max_rounds=3,
        mode="ai",
        level="easy",
        ai_seat=1,
        tokens=("t0", "t1"),
        names=("Anna", "easy"),
        joined=(True, True),
    )


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    with backend_database(request.param, tmp_path) as url:
        s = await open_store(url)
        yield s
        await s.close()


async def test_a_hint_is_kept_only_while_the_game_is_where_it_was_asked(store: Store) -> None:
    await store.create(_row())
    hint = HintRow(ply=0, seat=0, move="G147", win_probability=0.5734, iterations=20000)
    assert await store.save_hint("g1", 0, hint)
    assert await store.hints("g1") == [hint]
    assert not await store.save_hint("g1", 1, HintRow(0, 0, "S1", 0.4, 100))  # no such version
    assert not await store.save_hint("nope", 0, hint)
    again = HintRow(ply=0, seat=0, move="S4", win_probability=0.61, iterations=400)
    assert await store.save_hint("g1", 0, again)  # asked again at the same decision
    assert await store.hints("g1") == [again]
    assert await store.hints("nope") == []


async def test_an_undo_forgets_the_hints_of_the_plies_it_takes_back(store: Store) -> None:
    await store.create(_row())
    assert await store.append("g1", 0, [(0, "S1"), (1, "D23"), (0, "G456"), (1, "P4")])
    for ply in (0, 2, 4):
        assert await store.save_hint("g1", 1, HintRow(ply, 0, "S1", 0.5, 100))
    # keep 1 move, rewrite 1 (an undo that dealt afresh): ply 2 and later are taken back
    assert await store.truncate("g1", 1, 1, moves=[(1, "D25")])
    assert [h.ply for h in await store.hints("g1")] == [0]


# -- the migration --------------------------------------------------------------------------------

_GAME_3 = (
    "INSERT INTO games (id, created_at, updated_at, seed, max_rounds, mode, level, ai_seat, "
    "token0, token1, name0, name1, joined0, joined1, version, status, result, rematch, ai_due) "
    "VALUES ('old', 'then', 'then', 7, 3, 'ai', 'easy', 1, 't0', 't1', 'Anna', 'easy', 1, 1, 0, "
    "'over', NULL, NULL, 0)"
)
_ANALYSIS_3 = (
    "INSERT INTO analyses (game_id, data, created_at) "
    """VALUES ('old', '{"iterations": 5000, "decisions": []}', 'then')"""
)


async def _migrated_from_3(store: Store) -> None:
    """A database of schema 3 (a game and its review at the old budget) after opening."""
    assert await store.load("old") is not None
    assert await store.analysis("old") is None  # reviewed again, at the hints' budget
    assert await store.hints("old") == []
    hint = HintRow(3, 0, "D15", 0.25, 20000)
    assert await store.save_hint("old", 0, hint)
    assert await store.hints("old") == [hint]


async def test_a_database_of_schema_3_gets_the_hints_on_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    for statements in MIGRATIONS[:3]:
        for sql in statements:
            db.execute(sql)
    db.execute("INSERT INTO meta VALUES ('schema_version', '3')")
    db.execute(_GAME_3)
    db.execute(_ANALYSIS_3)
    db.commit()
    db.close()
    store = SQLiteStore(path)
    assert store.schema_version == len(MIGRATIONS) >= 4
    await _migrated_from_3(store)
    await store.close()


async def test_a_database_of_schema_3_gets_the_hints_on_postgres() -> None:
    if POSTGRES is None:
        pytest.skip("HANAMIKOJI_TEST_POSTGRES is not set (.ci/run starts a PostgreSQL server)")
    import psycopg

    with postgres_database() as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            for statements in MIGRATIONS[:3]:
                for sql in statements:
                    conn.execute(sql)
            conn.execute("INSERT INTO meta VALUES ('schema_version', '3')")
            conn.execute(_GAME_3)
            conn.execute(_ANALYSIS_3)
        store = await open_store(url)
        try:
            await _migrated_from_3(store)
        finally:
            await store.close()
        with psycopg.connect(url) as conn:
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'")
            assert version.fetchone() == (str(len(MIGRATIONS)),)


@pytest.mark.parametrize("seed", range(40))
def test_a_given_up_game_ends_on_the_table_it_was_given_up_at(seed: int) -> None:
    """A resignation or forfeit (at any point, before the first move too) leaves the review's last
    frame the table as it stood then: the hands, sides, pile and actions left, nobody to move."""
    from hanamikoji.state import State, Termination
    from hanamikoji.web.messages import review_frames

    rng = random.Random(seed)
    state = State.new(random.Random(seed))
    for _ in range(0 if seed < 4 else rng.randrange(1, 40)):
        if state.is_over:
            break
        state = state.apply(rng.choice(state.legal_moves))
    if state.is_over:  # (the game ended by itself first: give up one a move earlier)
        assert state.parent is not None
        state = state.parent
    why = Termination.RESIGN if seed % 2 else Termination.FORFEIT
    ended = state.concede(seed % 4 // 2, why)
    frames = review_frames(ended)
    last = frames[-1]
    assert len(frames) == len(state.history) + 1
    assert last["to_move"] is None and last["round"] == state.round
    if last["scoring"] is None:  # (a round's last move has its own frame: the scored round)
        assert last["hands"] == [state.hand(0), state.hand(1)]
        if seed < 4:  # given up before the first move: the deal, the first player's draw taken
            assert sorted(map(len, last["hands"])) == [6, 7] and len(last["deck"]) == 7
        assert last["actions_left"] == [state.actions_left(0), state.actions_left(1)]
        assert last["offer"] == (str(state.offer) if state.offer else None)
    assert last["played"] == [state.played(0), state.played(1)]
    assert last["markers"] == list(state.markers)


async def test_one_visitor_cannot_take_every_review_for_themselves(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One visitor asking for the reviews of many finished games (their ids are public) filled
    the queue, and everyone else's review said "busy": a visitor starts two at a time."""
    done = asyncio.Event()
    started: list[str] = []

    async def slow(game: Any, client: str = "") -> None:
        started.append(client)
        await done.wait()

    monkeypatch.setattr(service, "_analyse", slow)
    games = []
    for _ in range(4):
        game, _ = await service.create(mode="ai", level="easy", seat=0)
        await service.resign(game.id, 0)
        games.append(game.id)
    answers = [(await service.analysis(g, "10.0.0.1"))["status"] for g in games[:3]]
    assert answers == ["pending", "pending", "busy"]
    refused = await service.analysis(games[2], "10.0.0.1")
    assert "2 reviews asked from your address are being made" in refused["message"]
    assert (await service.analysis(games[3], "10.0.0.2"))["status"] == "pending"  # others' own
    done.set()
    await asyncio.sleep(0)
    await asyncio.gather(*service._analysing.values(), return_exceptions=True)
    await asyncio.sleep(0)
    assert (await service.analysis(games[2], "10.0.0.1"))["status"] == "pending"  # its turn now
    await asyncio.sleep(0)
    assert started == ["10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.1"]
