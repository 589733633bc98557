"""A disabled player's challenge that was on its way as the moderator disabled them (the request
set out before the act ended their sessions) is never posted: it was shown in the lobby until
the next sweep cancelled it, and others tried to accept it. As the acceptance refuses a disabled
acceptor, the posting refuses a disabled creator, looked at again after the insert (both
databases)."""

from __future__ import annotations

from typing import Any

import pytest

from hanamikoji.web.errors import WebError
from hanamikoji.web.identity import DISABLED, username_key
from hanamikoji.web.store import ChallengeRow, PlayerRow
from lobby_support import Server, call, site, site_db  # noqa: F401 (fixtures)
from test_web_fix52_lobby_disabled import act
from test_web_fix53_lobby_disabled import signed_up


def _shown(server: Server) -> list[ChallengeRow]:
    """Every challenge the lobby tells its pages of from now on (a list kept up)."""
    told: list[ChallengeRow] = []
    real = server.lobby.publish

    async def recording(c: ChallengeRow) -> None:
        told.append(c)
        await real(c)

    server.lobby.publish = recording
    return told


async def _open(server: Server) -> list[ChallengeRow]:
    return await server.service.store.open_challenges(100)


@pytest.mark.parametrize("how", ["create", "play_now"])
async def test_a_challenge_on_its_way_as_its_creator_is_disabled_is_refused(
    site: Server,  # noqa: F811
    how: str,
) -> None:
    store = site.service.store
    async with site.browser() as bob, site.browser() as dan:
        await signed_up(bob, "bob_i")
        player = await store.account(username_key("bob_i"))
        assert isinstance(player, PlayerRow)
        told = _shown(site)
        await store.moderate_player(player.id, "disabled", True, act())
        # Their request, authenticated before the act, reaches the lobby now.
        post = site.lobby.create if how == "create" else site.lobby.play_now
        with pytest.raises(WebError) as refused:
            await post(player, {"control": "none"})
        assert refused.value.code == "disabled" and refused.value.message == DISABLED
        assert await _open(site) == [] and told == []
        listing = await call(dan, "GET", "/api/lobby", 200)
        assert listing["challenges"] == []


async def test_a_creator_disabled_as_the_challenge_is_stored_is_refused_unseen(
    site: Server,  # noqa: F811
) -> None:
    """The act commits after the lobby's look at the creator, before the insert: the challenge
    is stored, then cancelled before the lobby is told of it; its creator is told why."""
    store = site.service.store
    async with site.browser() as bob, site.browser() as dan:
        await signed_up(bob, "bob_j")
        player = await store.account(username_key("bob_j"))
        assert player is not None
        told = _shown(site)
        real = store.add_challenge

        async def disabled_first(*args: Any, **kw: Any) -> bool:
            await store.moderate_player(player.id, "disabled", True, act())
            return await real(*args, **kw)

        store.add_challenge = disabled_first  # type: ignore[method-assign]
        try:
            refused = await call(
                bob, "POST", "/api/lobby/challenges", 403, json={"control": "none"}
            )
        finally:
            store.add_challenge = real  # type: ignore[method-assign]
        assert refused["code"] == "disabled" and refused["error"] == DISABLED
        assert await _open(site) == []
        assert all(c.status == "cancelled" for c in told)  # never shown open
        listing = await call(dan, "GET", "/api/lobby", 200)
        assert listing["challenges"] == []
