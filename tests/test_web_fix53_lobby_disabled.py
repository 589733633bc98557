"""A disabled player cannot accept a challenge, however late the act lands before the
acceptance: the acceptance's own update refuses them (the lobby answers ``disabled``, and the
challenge stays open for the others). A bot whose owner is disabled is disabled for the lobby, as
creator and as acceptor: its challenges are refused and swept (cancelled), those addressed to it
withdrawn, and it accepts none (both databases)."""

from __future__ import annotations

from typing import Any

import pytest

from hanamikoji.web.errors import WebError
from hanamikoji.web.identity import DISABLED, username_key
from hanamikoji.web.lobby import BOT_DISABLED, GONE_MS, WITHDRAWN
from hanamikoji.web.store import PlayerRow, Store
from lobby_support import (  # noqa: F401 (fixtures)
    Server,
    accept,
    call,
    challenge,
    make_site,
    site,
    site_db,
)
from test_web_fix52_lobby_disabled import (  # noqa: F401 (the store fixture)
    NOW,
    act,
    game,
    offer,
    store_fixture,
)

DAY = 86_400_000


async def people(store: Store, *ids: str) -> None:
    for pid in ids:
        await store.new_player(pid, None, f"session-{pid}", "9999-12-31")


async def owned_bot(store: Store, bot: str = "botty", owner: str = "olga") -> None:
    """``owner``, an account, and her bot ``bot`` (its user name its id)."""
    await people(store, owner)
    assert await store.make_account(owner, owner, username_key(owner), "hash")
    await store.add_bot(bot, bot, username_key(bot), owner, f"token-{bot}", "{}")


async def test_the_acceptance_refuses_a_disabled_acceptor(store: Store) -> None:
    await people(store, "bob", "carol")
    await store.add_challenge(offer("day", "bob", expires=NOW + DAY), 5)
    await store.add_challenge(offer("live", "bob", expires=None), 5)
    await store.moderate_player("carol", "disabled", True, act())
    for cid in ("day", "live"):
        assert not await store.accept_challenge(cid, "carol", None, game(f"g-{cid}"), NOW, NOW)
        assert await store.load(f"g-{cid}") is None  # no game made
        found = await store.challenge(cid)
        assert found is not None and found.status == "open"  # still there for the others
    assert await store.expire_challenges(NOW, NOW - GONE_MS) == []  # Bob's are not swept
    await store.moderate_player("carol", "disabled", False, act("enable"))
    assert await store.accept_challenge("day", "carol", None, game("g-day"), NOW, NOW)


async def test_a_bot_whose_owner_is_disabled_is_disabled_for_the_lobby(store: Store) -> None:
    """Only the owner's flag is set: the bot's challenge is refused and swept as a disabled
    creator's (cancelled), and the bot accepts nothing, until the owner is enabled again."""
    await people(store, "carol")
    await owned_bot(store)
    await store.add_challenge(offer("bots", "botty", expires=NOW + DAY), 5)
    await store.add_challenge(offer("carols", "carol", expires=NOW + DAY), 5)
    await store.moderate_player("olga", "disabled", True, act())
    bots_game = game("g-bots", ("botty", "carol"))
    assert not await store.accept_challenge("bots", "carol", None, bots_game, NOW, NOW)
    carols_game = game("g-carols", ("carol", "botty"))
    assert not await store.accept_challenge("carols", "botty", "botty", carols_game, NOW, NOW)
    assert await store.load("g-bots") is None and await store.load("g-carols") is None
    assert await store.expire_challenges(NOW, NOW - GONE_MS) == ["bots"]
    swept = await store.challenge("bots")
    assert swept is not None and swept.status == "cancelled"
    left = await store.challenge("carols")
    assert left is not None and left.status == "open"
    assert await store.disabled_players(["botty", "carol", "olga"]) == {"botty", "olga"}
    await store.moderate_player("olga", "disabled", False, act("enable"))
    assert await store.disabled_players(["botty", "olga"]) == set()
    assert await store.accept_challenge("carols", "botty", "botty", carols_game, NOW, NOW)


async def signed_up(browser: Any, username: str) -> None:
    body = {"username": username, "password": "correct horse"}
    await call(browser, "POST", "/api/account", 201, json=body)


async def test_an_acceptor_disabled_just_before_the_acceptance_starts_no_game(
    site: Server,  # noqa: F811
) -> None:
    """The act commits after the lobby's look at the acceptor's flag, before its update (their
    request was on its way as the act ended their sessions): refused, saying why, no game made,
    and the challenge still open for the others."""
    store = site.service.store
    async with site.browser() as bob, site.browser() as carol, site.browser() as dan:
        await signed_up(bob, "bob_q")
        await signed_up(carol, "carol_q")
        made = (await challenge(bob, control="none", seat=0))["challenge"]
        player = await store.account("carol_q")
        assert player is not None
        real = store.accept_challenge

        async def disabled_first(*args: Any, **kw: Any) -> bool:
            await store.moderate_player(player.id, "disabled", True, act())
            return await real(*args, **kw)

        store.accept_challenge = disabled_first  # type: ignore[method-assign]
        try:
            refused = await call(
                carol, "POST", f"/api/lobby/challenges/{made['id']}/accept", 403, json={}
            )
        finally:
            store.accept_challenge = real  # type: ignore[method-assign]
        assert refused["code"] == "disabled" and refused["error"] == DISABLED
        found = await store.challenge(made["id"])
        assert found is not None and found.status == "open" and found.game is None
        games = await call(bob, "GET", "/api/me/games", 200)
        assert games["on"] == [] and games.get("over", []) == []
        assert (await accept(dan, made["id"]))["game"]  # another player takes it


async def test_a_bot_whose_owner_is_disabled_accepts_nothing(site: Server) -> None:  # noqa: F811
    """The owner is disabled after the bot's own look at its account (its link not cut yet):
    the lobby refuses the bot, as its hello would be, and the challenge stays open."""
    store = site.service.store
    await owned_bot(store)
    async with site.browser() as carol:
        await signed_up(carol, "carol_q")
        me = await store.account("carol_q")
        assert me is not None
        now = site.service.now_ms()
        made = offer("to-bot", me.id, expires=now + DAY, to_key="botty")
        assert await store.add_challenge(made, 5)
        await store.moderate_player("olga", "disabled", True, act())
        bot = PlayerRow("botty", None, "botty")
        with pytest.raises(WebError) as refused:
            await site.lobby.accept(bot, "to-bot", "bot:botty", bot=True)
        assert refused.value.code == "disabled" and refused.value.message == BOT_DISABLED
        found = await store.challenge("to-bot")
        assert found is not None and found.status == "open" and found.game is None
        # The moderation log's follower withdraws it: its addressee could never play it (the
        # server's own heartbeat may be first).
        await site.lobby.withdraw_disabled()
        found = await store.challenge("to-bot")
        assert found is not None and found.status == "cancelled"


async def test_a_challenge_of_a_bot_whose_owner_is_disabled_is_withdrawn(
    site: Server,  # noqa: F811
) -> None:
    """Accepted, it is refused with the lobby's words for a disabled creator's challenge, and
    cancelled; the follower's sweep cancels the bot's others."""
    store = site.service.store
    await owned_bot(store)
    now = site.service.now_ms()
    for cid in ("first", "second"):
        assert await store.add_challenge(offer(cid, "botty", expires=now + DAY), 5)
    await store.moderate_player("olga", "disabled", True, act())
    async with site.browser() as carol:
        await signed_up(carol, "carol_q")
        refused = await accept(carol, "first", expect=410)
        assert refused["code"] == "cancelled" and refused["error"] == WITHDRAWN
        found = await store.challenge("first")
        assert found is not None and found.status == "cancelled" and found.game is None
        games = await call(carol, "GET", "/api/me/games", 200)
        assert games["on"] == [] and games.get("over", []) == []
    await site.lobby.withdraw_disabled()  # (or the server's heartbeat's sweep, first)
    found = await store.challenge("second")
    assert found is not None and found.status == "cancelled"
