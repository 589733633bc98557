"""A rated game played as a guest who then signs in to an existing account: the account's rating
does not move (docs/web.md, "Guests"), and its profile says the game did not count (it listed it
"rated", without a number, beside a header counting one game fewer). Both databases."""

from __future__ import annotations

from typing import Any

from lobby_support import Browser, Server, call, table

PASSWORD = "correct horse 7"


def over(state: dict[str, Any]) -> bool:
    return state["result"] is not None


async def lost_rated_ai_game(browser: Browser) -> str:
    made = await call(
        browser,
        "POST",
        "/api/games",
        201,
        json={"mode": "ai", "level": "beginner", "seat": 0, "control": "3+2", "rated": True},
    )
    seat = await table(browser, made["game"], made["token"])
    await seat.until(lambda s: True)
    await seat.send(type="resign")
    await seat.until(over)
    await seat.ws.close()
    return str(made["game"])


async def test_a_guests_rated_game_merged_into_an_account_is_not_counted(site: Server) -> None:
    async with site.browser() as alice, site.browser() as guest:
        await call(
            alice, "POST", "/api/account", 201, json={"username": "alice_r", "password": PASSWORD}
        )
        own = await lost_rated_ai_game(alice)
        as_guest = await lost_rated_ai_game(guest)
        await call(
            guest,
            "POST",
            "/api/account/signin",
            200,
            json={"username": "alice_r", "password": PASSWORD},
        )
        profile = await call(guest, "GET", "/api/players/alice_r", 200)
        games = {g["game"]: g for g in profile["games"]}
        assert set(games) == {own, as_guest}
        assert games[own]["rated"] is True and games[own]["counted"] is True
        assert games[as_guest]["rated"] is True and games[as_guest]["counted"] is False
        counted = [g for g in profile["games"] if g["rated"] and g["counted"]]
        assert profile["ratings"]["real-time"]["games"] == len(counted) == 1
        assert [h["game"] for h in profile["history"]] == [own]
