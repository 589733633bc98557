"""A mute cannot be evaded through the display name, and ``hanamikoji admin reset-name`` clears an
offending one (docs/web.md, "Moderation"; both databases): a muted player's new name is refused,
saying why; a reset name is logged with the name it was, the player's open challenges (which
show it) are cancelled, and their new ones show the user name."""

from __future__ import annotations

import pytest

from lobby_support import (  # noqa: F401 (fixtures)
    Browser,
    Server,
    call,
    challenge,
    lobby_socket,
    site,
    site_db,
)
from test_admin import admin

LIVE_S = 8.0
"""The most an act may take to reach the lobby (the servers read the log every 2 s)."""


async def named(browser: Browser, name: str | None, expect: int = 200) -> dict[str, object]:
    return await call(browser, "POST", "/api/me", expect, json={"name": name})


async def test_a_muted_player_keeps_their_name_and_a_moderator_resets_it(
    site: Server,  # noqa: F811
    site_db: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with site.browser() as alice, site.browser() as bob:
        body = {"username": "alice_k", "password": "correct horse"}
        await call(alice, "POST", "/api/account", 201, json=body)
        await named(alice, "Alice the Rude")
        status, _, _ = await admin(capsys, site_db, "mute", "alice_k", "--reason", "insults")
        assert status == 0

        refused = await named(alice, "moderators are idiots lol", 400)
        assert refused["code"] == "muted" and refused["field"] == "name"
        assert "a moderator has muted you: your name cannot be changed" in str(refused["error"])
        await named(alice, "Alice the Rude")  # the name she has: nothing changes
        # Nor through a new game's form: refused before the game is made with it.
        games = await call(alice, "GET", "/api/me/games", 200)
        for body in ({"mode": "friend", "name": "mods are idiots"}, {"mode": "ai", "name": "x y"}):
            refused = await call(alice, "POST", "/api/games", 400, json=body)
            assert refused["code"] == "muted", refused
        assert await call(alice, "GET", "/api/me/games", 200) == games
        async with site.browser() as carol:
            friend = await call(carol, "POST", "/api/games", 201, json={"mode": "friend"})
        game, _, code = friend["invite"].removeprefix("/join/").partition("?i=")
        join = {"invite": code, "name": "mods are idiots"}
        refused = await call(alice, "POST", f"/api/games/{game}/join", 400, json=join)
        assert refused["code"] == "muted", refused
        join["name"] = "Alice the Rude"  # her own name: she takes the seat
        await call(alice, "POST", f"/api/games/{game}/join", 201, json=join)
        assert (await call(alice, "GET", "/api/me", 200))["name"] == "Alice the Rude"

        made = (await challenge(alice, control="none"))["challenge"]
        assert made["name"] == "Alice the Rude"
        async with lobby_socket(bob) as watching:
            assert made["id"] in watching.challenges
            status, out, _ = await admin(
                capsys, site_db, "reset-name", "@alice_k", "--reason", "rude name"
            )
            assert status == 0
            assert "  reset-name  player " in out and '(@alice_k) named "Alice the Rude"' in out
            gone = await watching.until("gone", timeout=LIVE_S, id=made["id"])
            assert gone["why"] == "cancelled"
        assert (await call(alice, "GET", "/api/me", 200))["name"] is None
        again = (await challenge(alice, control="none"))["challenge"]
        assert again["name"] == "alice_k" and again["username"] == "alice_k"

        status, _, err = await admin(capsys, site_db, "reset-name", "alice_k", "--reason", "x")
        assert status == 1 and "has no display name: nothing to reset" in err
        status, out, _ = await admin(capsys, site_db, "log")
        assert [row.split("  ")[2] for row in out.strip().splitlines()] == ["reset-name", "mute"]
        status, _, _ = await admin(capsys, site_db, "unmute", "alice_k", "--reason", "sorry")
        await named(alice, "Alice")  # unmuted: a name of her choice again
