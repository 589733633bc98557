"""A challenge whose creator is disabled cannot start a game, however late the act lands before
the acceptance: the acceptance's own update refuses it (the lobby then answers with its usual
words for a withdrawn challenge), and the expiry sweep closes it as the servers following the
moderation log do, cancelled (both databases)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hanamikoji.web.lobby import GONE_MS, WITHDRAWN
from hanamikoji.web.store import ChallengeRow, GameRow, ModerationRow, Store, open_store
from lobby_support import (  # noqa: F401 (fixtures)
    Server,
    accept,
    call,
    challenge,
    make_site,
    site,
    site_db,
)
from web_support import backend_database

NOW = 1_700_000_000_000


# (Named apart from the tests' ``store`` arguments: test_web_fix53_lobby_disabled imports it.)
@pytest.fixture(params=["sqlite", "postgres"], name="store")
async def store_fixture(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A new store on each database (PostgreSQL's skipped without one)."""
    with backend_database(request.param, tmp_path) as url:
        s = await open_store(url)
        yield s
        await s.close()


def act(action: str = "disable") -> ModerationRow:
    return ModerationRow(f"{'0' * 16}-{action}", "at", "mod", action, "x", "why")


def offer(
    challenge_id: str, player: str, *, expires: int | None, to_key: str | None = None
) -> ChallengeRow:
    """``player``'s challenge (untimed when it ``expires``, else 3+2), to ``to_key`` if given."""
    return ChallengeRow(
        id=challenge_id,
        player=player,
        name="Bob",
        control="none" if expires else "3+2",
        max_rounds=3,
        rated=False,
        seat="0",
        to_key=to_key,
        to_name=to_key,
        created=NOW,
        updated=NOW,
        expires=expires,
        seen=NOW,
    )


def game(game_id: str, players: tuple[str, str] = ("bob", "carol")) -> GameRow:
    return GameRow(
        id=game_id,
        seed=7,
        max_rounds=3,
        mode="friend",
        level=None,
        ai_seat=None,
        tokens=("t0", "t1"),
        names=("Bob", "Carol"),
        joined=(True, True),
        players=players,
    )


async def disabled_offers(store: Store) -> None:
    """Bob's two live challenges (a day's, a real-time one), and Bob disabled."""
    for pid in ("bob", "carol"):
        await store.new_player(pid, None, f"session-{pid}", "9999-12-31")
    await store.add_challenge(offer("day", "bob", expires=NOW + 86_400_000), 5)
    await store.add_challenge(offer("live", "bob", expires=None), 5)
    await store.moderate_player("bob", "disabled", True, act())


async def test_the_acceptance_refuses_a_disabled_creators_challenge(store: Store) -> None:
    await disabled_offers(store)
    for cid in ("day", "live"):
        assert not await store.accept_challenge(cid, "carol", None, game(f"g-{cid}"), NOW, NOW)
        assert await store.load(f"g-{cid}") is None  # no game made
        found = await store.challenge(cid)
        assert found is not None and found.status == "open"
    # Enabled again, their challenge is accepted as anyone's.
    await store.moderate_player("bob", "disabled", False, act("enable"))
    assert await store.accept_challenge("day", "carol", None, game("g-day"), NOW, NOW)


async def test_the_sweep_cancels_a_disabled_creators_challenges(store: Store) -> None:
    """Both live (neither expired nor left), closed as the servers following the log close
    them: cancelled."""
    await disabled_offers(store)
    assert sorted(await store.expire_challenges(NOW, NOW - GONE_MS)) == ["day", "live"]
    for cid in ("day", "live"):
        found = await store.challenge(cid)
        assert found is not None and found.status == "cancelled"
    assert not await store.accept_challenge("day", "carol", None, game("g-day"), NOW, NOW)
    await store.moderate_player("bob", "disabled", False, act("enable"))
    await store.add_challenge(offer("again", "bob", expires=NOW + 86_400_000), 5)
    assert await store.expire_challenges(NOW, NOW - GONE_MS) == []  # enabled: not swept


async def test_a_creator_disabled_just_before_the_acceptance_starts_no_game(
    site: Server,  # noqa: F811
) -> None:
    """The act commits after the lobby's look at the flag, before its update (another server's
    moderator, in that instant): refused with the lobby's words for it, and no game made."""
    store = site.service.store
    async with site.browser() as bob, site.browser() as carol:
        body = {"username": "bob_q", "password": "correct horse"}
        await call(bob, "POST", "/api/account", 201, json=body)
        made = (await challenge(bob, control="none", seat=0))["challenge"]
        player = await store.account("bob_q")
        assert player is not None
        real = store.accept_challenge

        async def disabled_first(*args: Any, **kw: Any) -> bool:
            await store.moderate_player(player.id, "disabled", True, act())
            return await real(*args, **kw)

        store.accept_challenge = disabled_first  # type: ignore[method-assign]
        try:
            refused = await accept(carol, made["id"], expect=410)
        finally:
            store.accept_challenge = real  # type: ignore[method-assign]
        assert refused["code"] == "cancelled" and refused["error"] == WITHDRAWN
        found = await store.challenge(made["id"])
        assert found is not None and found.status == "cancelled" and found.game is None
        games = await call(carol, "GET", "/api/me/games", 200)
        assert games["on"] == [] and games.get("over", []) == []
        again = await accept(carol, made["id"], expect=410)
        assert again["error"] == WITHDRAWN
