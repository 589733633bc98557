"""A disabled player leaves the lobby (docs/web.md, "Moderation"): their open challenges and
seeks, and those addressed to them, are cancelled on every page; a challenge of theirs accepted
before the servers read the act is refused, saying why; a new one to them is refused; their games
in progress are lost by forfeit (both databases)."""

from __future__ import annotations

from typing import Any

import pytest

from hanamikoji.web.store import ModerationRow
from lobby_support import (  # noqa: F401 (fixtures)
    Browser,
    MakeServer,
    Server,
    accept,
    call,
    challenge,
    lobby_socket,
    make_site,
    site,
    site_db,
    table,
)
from test_admin import admin

WITHDRAWN = (
    "this challenge was cancelled: its creator's account has been disabled by the server's "
    "moderators"
)
LIVE_S = 8.0
"""The most an act may take to reach the lobby (the servers read the log every 2 s)."""


async def account(browser: Browser, username: str) -> None:
    body = {"username": username, "password": "correct horse"}
    await call(browser, "POST", "/api/account", 201, json=body)


async def listed(browser: Browser) -> set[str]:
    return {c["id"] for c in (await call(browser, "GET", "/api/lobby", 200))["challenges"]}


async def test_disabling_cancels_the_players_challenges_everywhere(
    site: Server,  # noqa: F811
    site_db: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with site.browser() as bob, site.browser() as alice, site.browser() as carol:
        await account(bob, "bob_q")
        await account(alice, "alice_k")
        untimed = (await challenge(bob, control="none"))["challenge"]["id"]
        seek = await call(bob, "POST", "/api/lobby/play", 202, json={"control": "3d"})
        to_alice = (await challenge(bob, control="1d", to="alice_k"))["challenge"]["id"]
        to_bob = (await challenge(alice, control="none", to="bob_q"))["challenge"]["id"]
        bobs = {untimed, seek["challenge"]["id"], to_alice}
        # A game of Bob's in progress, made in the lobby.
        made = await challenge(carol, control="none", seat=0)
        taken = await accept(bob, made["challenge"]["id"])
        carol_seat = await table(carol, taken["game"])
        assert bobs | {to_bob} <= await listed(alice)

        async with lobby_socket(alice) as watching:
            status, _, _ = await admin(capsys, site_db, "disable", "bob_q", "--reason", "cheats")
            assert status == 0
            gone: dict[str, Any] = {}
            while set(gone) != bobs | {to_bob}:
                msg = await watching.until("gone", timeout=LIVE_S)
                gone[msg["id"]] = msg["why"]
            assert set(gone.values()) == {"cancelled"}

        assert not (bobs | {to_bob}) & (await listed(alice) | await listed(carol))
        refused = await accept(carol, untimed, expect=410)
        assert refused["code"] == "cancelled" and refused["error"] == WITHDRAWN
        refused = await challenge(carol, expect=None, control="none", to="bob_q")
        assert refused["code"] == "unavailable" and refused["field"] == "to"
        assert "disabled by the server's moderators" in refused["error"]
        # His game in progress is his opponent's, by forfeit (as before).
        end = await carol_seat.until(lambda s: s["game"]["status"] == "over")
        assert end["result"]["winner"] == 0 and end["result"]["reason"] == "forfeit"
        await carol_seat.ws.close()


async def test_a_challenge_accepted_before_the_servers_read_the_act_is_refused(
    make_site: MakeServer,  # noqa: F811
    site_db: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No heartbeat here: the servers have not read the log; the flag alone refuses it, and
    the challenge is cancelled then."""
    server = await make_site(tick=None)
    async with server.browser() as bob, server.browser() as carol:
        await account(bob, "bob_q")
        untimed = (await challenge(bob, control="none"))["challenge"]["id"]
        status, _, _ = await admin(capsys, site_db, "disable", "bob_q", "--reason", "cheats")
        assert status == 0
        refused = await accept(carol, untimed, expect=410)
        assert refused["code"] == "cancelled" and refused["error"] == WITHDRAWN
        assert untimed not in await listed(carol)
        again = await accept(carol, untimed, expect=410)
        assert again["error"] == WITHDRAWN  # (not "cancelled by its creator")


async def test_a_creator_disabled_during_the_acceptance_forfeits_the_new_game(
    site: Server,  # noqa: F811
) -> None:
    """The act commits between the acceptance's check and its update: the new game is
    forfeited at once (a server that applied the act before the game existed would never
    end it)."""
    store = site.service.store
    async with site.browser() as bob, site.browser() as carol:
        await account(bob, "bob_q")
        made = (await challenge(bob, control="none", seat=0))["challenge"]
        player = await store.account("bob_q")
        assert player is not None
        real = store.accept_challenge

        async def then_disabled(*args: Any, **kw: Any) -> bool:
            taken = await real(*args, **kw)
            act = ModerationRow("0" * 16 + "-000001", "at", "mod", "disable", "x", "why")
            await store.moderate_player(player.id, "disabled", True, act)
            return taken

        store.accept_challenge = then_disabled  # type: ignore[method-assign]
        try:
            taken = await accept(carol, made["id"])
        finally:
            store.accept_challenge = real  # type: ignore[method-assign]
        seat = await table(carol, taken["game"], taken["token"])
        end = await seat.until(lambda s: s["game"]["status"] == "over", timeout=5)
        assert end["result"]["winner"] == 1 and end["result"]["reason"] == "forfeit"
        assert end["result"]["why"] == "seat 0 was disabled by the server's moderators"
        await seat.ws.close()
