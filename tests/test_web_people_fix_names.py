"""User names: a new name that differs from a kept one only by ``_`` for ``-`` is refused as a
look-alike, a deleted account's too (both databases)."""

from __future__ import annotations

from lobby_support import Browser, Server, call

PASSWORD = "correct horse 7"


async def account(browser: Browser, name: str, expect: int = 201) -> dict[str, object]:
    return await call(
        browser, "POST", "/api/account", expect, json={"username": name, "password": PASSWORD}
    )


async def test_a_name_differing_by_underscore_for_hyphen_is_taken(site: Server) -> None:
    async with site.browser() as gaston, site.browser() as other, site.browser() as third:
        await account(gaston, "Gaston_fr")
        async with gaston.post("/api/account/delete", json={"password": PASSWORD}) as done:
            assert done.status == 200
        # the deleted account's name, with "-" for "_" and another case: refused
        refused = await account(other, "gaston-fr", 409)
        assert refused["code"] == "taken"
        await account(other, "a-b_c")
        assert (await account(third, "A_B-C", 409))["code"] == "taken"
        assert (await account(third, "a_b_c", 409))["code"] == "taken"
        await account(third, "a_b_cd")  # a name of its own still is one
    async with site.browser() as fourth:  # signing in takes the name as it folds, "-" as "-"
        signed = await call(
            fourth,
            "POST",
            "/api/account/signin",
            200,
            json={"username": "A-B_C", "password": PASSWORD},
        )
        assert signed["username"] == "a-b_c"


async def test_a_bots_name_differing_by_underscore_for_hyphen_is_taken(site: Server) -> None:
    """A bot is an account too: its name passed for another's as a person's did."""
    async with site.browser() as owner:
        await account(owner, "owner_b")
        refused = await call(owner, "POST", "/api/bots", 409, json={"username": "owner-b"})
        assert refused["code"] == "taken", refused
        await call(owner, "POST", "/api/bots", 201, json={"username": "b_bot"})
        refused = await call(owner, "POST", "/api/bots", 409, json={"username": "B-Bot"})
        assert refused["code"] == "taken", refused
    async with site.browser() as other:  # nor a person's name, a bot's
        assert (await account(other, "b-bot", 409))["code"] == "taken"
