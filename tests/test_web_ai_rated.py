"""Rated, timed games against the AI (docs/web.md, "Ratings"): the person's rating moves against
the level's fixed rating (the level's never), casual and untimed games move nothing, a rated
untimed game is refused, a rated game has neither hints nor undo, and the AI's decisions are
charged on its clock like anyone's (so an overloaded server's AI may lose on time). On SQLite
and, when a server is given, PostgreSQL.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hanamikoji.glicko2 import Rating, update
from hanamikoji.web.ratings import AI_RATINGS, ai_player
from lobby_support import Browser, Server, call, table
from web_support import Seat

PASSWORD = "correct horse 7"


def over(state: dict[str, Any]) -> bool:
    return state["result"] is not None


async def new_game(browser: Browser, expect: int = 201, **body: Any) -> dict[str, Any]:
    """POST /api/games for a game against the AI (``body`` adds to and overrides the defaults)."""
    wanted = {"mode": "ai", "level": "beginner", "seat": 0, **body}
    return await call(browser, "POST", "/api/games", expect, json=wanted)


async def player_of(site: Server, game: str, seat: int) -> str:
    row = await site.service.store.load(game)
    assert row is not None
    player = row.players[seat]
    assert player is not None
    return player


async def test_a_rated_ai_game_rates_the_person_against_the_levels_fixed_rating(
    site: Server,
) -> None:
    store = site.service.store
    async with site.browser() as anna:
        account = {"username": "anna", "password": PASSWORD}
        await call(anna, "POST", "/api/account", 201, json=account)
        made = await new_game(anna, control="3+2", rated=True)
        seat: Seat = await table(anna, made["game"], made["token"])
        first = await seat.until(lambda s: True)
        assert first["game"]["rated"] is True and first["game"]["control"] == "3+2"
        assert first["clock"]["running"] and first["clock"]["turn"] == 0  # started at creation
        await seat.send(type="resign")
        end = await seat.until(over)
        assert end["result"]["winner"] == 1
        me = await player_of(site, made["game"], 0)
        expected = update(Rating(), [(AI_RATINGS["beginner"], 0.0)], periods=0)
        stored = (await store.ratings(me))["real-time"]
        assert stored.rating == expected and stored.games == 1
        (history,) = await store.rating_history(me)
        assert history.opponent_id == ai_player("beginner")
        assert history.opponent == Rating(AI_RATINGS["beginner"].rating, 30.0)
        assert await store.ratings(ai_player("beginner")) == {}  # the level's never moves
        assert await store.rating_history(ai_player("beginner")) == []
        profile = await call(anna, "GET", "/api/players/anna", 200)
        assert profile["ratings"]["real-time"]["rating"] == round(expected.rating)
        game = profile["games"][0]
        assert (game["game"], game["rated"], game["level"]) == (made["game"], True, "beginner")
        # a rematch is rated and timed too, its clock running at once (the AI is always there)
        await seat.send(type="rematch")
        again = await seat.until(lambda s: s["game"]["rematch"] is not None)
        new = await store.load(str(again["game"]["rematch"]).split("/g/")[1].split("?")[0])
        assert new is not None and new.rated and new.control == "3+2" and new.deadline
        await seat.ws.close()


async def test_a_guest_plays_rated_as_the_lobby_lets_guests(site: Server) -> None:
    async with site.browser() as guest:
        made = await new_game(guest, control="1d", rated=True)
        seat = await table(guest, made["game"], made["token"])
        await seat.send(type="resign")
        await seat.until(over)
        await seat.ws.close()
        me = await player_of(site, made["game"], 0)
        assert (await site.service.store.ratings(me))["correspondence"].games == 1


async def test_casual_and_untimed_ai_games_move_nothing(site: Server) -> None:
    async with site.browser() as anna:
        for body in ({"control": "3+2", "rated": False}, {"control": "none"}, {}):
            made = await new_game(anna, **body)
            seat = await table(anna, made["game"], made["token"])
            assert (seat.state or {})["game"]["rated"] is False
            await seat.send(type="resign")
            await seat.until(over)
            await seat.ws.close()
        me = await player_of(site, made["game"], 0)
        assert await site.service.store.ratings(me) == {}
        assert await site.service.store.rating_history(me) == []


async def test_bad_settings_are_refused_as_the_lobby_refuses_them(site: Server) -> None:
    async with site.browser() as anna:
        for body, field in (
            ({"rated": True}, "rated"),
            ({"rated": True, "control": "none"}, "rated"),
            ({"rated": "yes", "control": "3+2"}, "rated"),
            ({"control": "99+0"}, "control"),
            ({"control": "2d"}, "control"),
        ):
            bad = await new_game(anna, 400, **body)
            assert bad["field"] == field, bad
        assert "time control" in (await new_game(anna, 400, rated=True))["error"]
        friend = await new_game(anna, 400, mode="friend", level=None, control="3+2")
        assert "no clock" in friend["error"]
        assert (
            await site.service.store.player_games(await _someone(site, anna), "playing", 10) == []
        )


async def _someone(site: Server, browser: Browser) -> str:
    """The visitor's player id (made by a casual game's creation, then looked up)."""
    made = await new_game(browser)
    player = await player_of(site, made["game"], 0)
    await site.service.resign(made["game"], 0)
    return player


async def test_a_rated_game_has_no_hint_and_no_undo(site: Server) -> None:
    async with site.browser() as anna:
        for rated, refused in ((True, ("hint", "undo")), (False, ("undo",))):
            made = await new_game(anna, control="5+3", rated=rated)
            seat = await table(anna, made["game"], made["token"])
            await seat.send(type="move", move=seat.state["legal"][0])  # type: ignore[index]
            await seat.until(lambda s: s["view"]["to_move"] == 0 and not s["game"]["thinking"])
            assert seat.state is not None and not seat.state["game"]["can_undo"]
            for kind in refused:
                await seat.send(type=kind)
                error = await seat.error()
                assert error["code"] == "not-allowed", error
                assert ("rated game" if kind == "hint" else "undo") in error["message"]
            await seat.ws.close()


async def test_the_ai_is_charged_and_loses_on_time_when_the_server_is_overloaded(
    site: Server,
) -> None:
    """The AI's seat has a clock like anyone's: a reply is charged the time it took (and gains
    the increment); a reply that never comes (the AI's queue stuck) loses on time, rated."""
    service = site.service
    start = site.now.freeze()
    real, stuck = service.ai.run, asyncio.Event()

    async def slow(*args: Any, **kw: Any) -> Any:
        site.now.shift(1_500)  # the AI thinks for 1.5 s
        return await real(*args, **kw)

    service.ai.run = slow  # type: ignore[method-assign]
    async with site.browser() as anna:
        made = await new_game(anna, control="3+2", rated=True, seat=1)  # the AI starts
        seat = await table(anna, made["game"], made["token"])
        state = await seat.until(lambda s: s["view"]["to_move"] == 1)
        assert state["clock"]["remaining"][0] == 180_000 + 2_000 - 1_500
        assert state["clock"]["since"] == start + 1_500 and state["clock"]["turn"] == 1

        async def never(*args: Any, **kw: Any) -> Any:
            await stuck.wait()

        service.ai.run = never  # type: ignore[method-assign]
        while state["view"]["to_move"] == 1:  # (a pick, then an action: two decisions)
            version = state["game"]["version"]
            await seat.send(type="move", move=state["legal"][0], version=version)
            state = await seat.until(lambda s, v=version: s["game"]["version"] > v)
        await seat.until(lambda s: s["game"]["thinking"])  # the AI's reply never comes
        site.now.shift(182_000)  # past the AI's deadline: the sweep flags it
        end = await seat.until(over)
        assert end["result"]["winner"] == 1 and end["clock"]["ended"]["seat"] == 0
        assert "seat 0 ran out of time" in end["result"]["why"]
        me = await player_of(site, made["game"], 1)
        expected = update(Rating(), [(AI_RATINGS["beginner"], 1.0)], periods=0)
        assert (await service.store.ratings(me))["real-time"].rating == expected
        await seat.ws.close()
