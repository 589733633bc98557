"""An untimed game whose bot stays away (docs/bots.md, "A bot that leaves"): once its bridge has
been gone ``BOT_GONE_MS``, its opponent may claim the win, as in a real-time game; before, and
while the bot is connected, the claim is refused saying why, and an untimed game between people
cannot be claimed at all."""

from __future__ import annotations

import asyncio

from bot_support import PASSWORD, bridge, new_bot, signed_up
from hanamikoji.web.bots import IDLE_MS
from hanamikoji.web.service import BOT_GONE_MS
from lobby_support import Server, call, challenge, meet, site, table  # noqa: F401 (fixture)
from test_web_bots import started


async def test_an_untimed_game_whose_bot_left_may_be_claimed(site: Server) -> None:  # noqa: F811
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_g")
        token = await new_bot(owner, "gone_bot", controls=["none"], rated=False)
        await signed_up(anna, "anna_g")
        async with bridge(site, token):
            made = await challenge(anna, control="none", to="gone_bot", seat=0)
            game = (await started(anna, made["challenge"]["id"]))["game"]
            seat = await table(anna, game)
            assert seat.state is not None
            assert seat.state["game"]["opponent_online"] and seat.state["game"]["claim_at"] is None
            await seat.send(type="claim")
            refused = await seat.error()
            assert refused["code"] == "not-allowed" and "still here" in refused["message"]
        # The bridge went: the page learns it, and when the claim opens.
        left = await seat.until(lambda s: not s["game"]["opponent_online"])
        claim_at = left["game"]["claim_at"]
        assert claim_at is not None and claim_at - left["game"]["now"] > BOT_GONE_MS - 5_000
        await seat.send(type="claim")
        early = await seat.error()
        assert early["code"] == "not-allowed" and "gone long enough" in early["message"]
        site.now.shift(BOT_GONE_MS + 1_000)
        await seat.send(type="claim")
        end = await seat.until(lambda s: s["game"]["status"] == "over")
        assert end["result"]["winner"] == 0 and end["result"]["reason"] == "forfeit"
        assert "left the game and the win was claimed (no clock)" in end["result"]["why"]
        await seat.ws.close()
        record = await call(anna, "GET", f"/api/games/{game}/record", 200)
        assert record["result"]["winner"] == 0


async def test_an_untimed_game_between_people_cannot_be_claimed(site: Server) -> None:  # noqa: F811
    async with site.browser() as anna, site.browser() as bob:
        host, guest = await meet(site, anna, bob, control="none")
        await guest.ws.close()
        state = await host.until(lambda s: not s["game"]["opponent_online"])
        assert "claim_at" not in state["game"]  # no bot: nothing to claim
        site.now.shift(BOT_GONE_MS * 10)
        await host.send(type="claim")
        refused = await host.error()
        assert refused["code"] == "not-allowed" and "against a bot" in refused["message"]
        await host.ws.close()


async def test_an_account_deleted_takes_its_bots_with_it(site: Server) -> None:  # noqa: F811
    """A deleted account's bots go too: their games on are resigned (the opponent wins, not left
    waiting), their bridges are cut, their profiles answer 404 and their names stay taken."""
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_d")
        token = await new_bot(owner, "doomed_bot", controls=["none"], rated=False)
        await signed_up(anna, "anna_d")
        assert (await call(anna, "GET", "/api/players/doomed_bot", 200))["bot"]["owner"]
        async with bridge(site, token) as held:
            made = await challenge(anna, control="none", to="doomed_bot", seat=0)
            game = (await started(anna, made["challenge"]["id"]))["game"]
            seat = await table(anna, game)
            await call(owner, "POST", "/api/account/delete", 200, json={"password": PASSWORD})
            end = await seat.until(lambda s: s["game"]["names"][1] == "deleted player")
            assert end["game"]["status"] == "over" and end["result"]["winner"] == 0
            assert end["result"]["reason"] == "resign"
            await asyncio.wait_for(held.task, 10)  # the bridge was told, and stopped
            assert any("deleted their account" in line for line in held.lines), held.lines
            await seat.ws.close()
        missing = await call(anna, "GET", "/api/players/doomed_bot", 404)
        assert missing["code"] == "not-found"
        async with site.browser() as other:
            await call(other, "GET", "/api/me", 200)
            body = {"username": "Doomed_Bot", "password": PASSWORD}
            assert (await call(other, "POST", "/api/account", 409, json=body))["code"] == "taken"


async def test_games_left_by_their_people_stop_counting_towards_a_bots_limit(
    site: Server,  # noqa: F811
) -> None:
    """Untimed games never end by themselves: two left open used to shut a bot (a house level
    too) out of the lobby for ever. A game whose person has had the move for ``IDLE_MS`` stops
    counting, their page open or not; the bot takes the next challenge."""
    async with site.browser() as owner, site.browser() as anna, site.browser() as bob:
        await signed_up(owner, "owner_i")
        token = await new_bot(owner, "idle_bot", controls=["none"], rated=False, games=1)
        await signed_up(anna, "anna_i")
        await signed_up(bob, "bob_i")
        async with bridge(site, token):
            made = await challenge(anna, control="none", to="idle_bot", seat=0)
            game = (await started(anna, made["challenge"]["id"]))["game"]
            seat = await table(anna, game)
            state = await seat.until(lambda s: s["view"]["to_move"] == 0)
            site.now.shift(IDLE_MS - 5_000)  # anna thinks: the game counts
            full = await challenge(bob, None, control="none", to="idle_bot")
            assert full["code"] == "declined" and "the most its owner allows" in full["error"]
            site.now.shift(6_000)  # two minutes, her page still open (a page held open for ever)
            taken = await challenge(bob, control="none", to="idle_bot")
            second = (await started(bob, taken["challenge"]["id"]))["game"]
            assert second != game
            # She moves: hers counts again, and the bot is full.
            await seat.send(type="move", move=state["legal"][0], version=state["game"]["version"])
            await seat.until(lambda s: s["game"]["version"] > state["game"]["version"])
            again = await challenge(bob, None, control="none", to="idle_bot")
            assert again["code"] == "declined" and "already has 2 games" in again["error"]
            await seat.ws.close()


async def test_a_rematch_with_a_bot_is_screened_as_a_challenge(site: Server) -> None:  # noqa: F811
    """A rematch is a challenge to the bot too: refused, saying why, when its owner no longer
    lets it play that clock, or when it is not connected; taken when it would accept it."""
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_r")
        token = await new_bot(owner, "again_bot", controls=["none"], rated=False, games=1)
        await signed_up(anna, "anna_r")
        async with bridge(site, token):
            made = await challenge(anna, control="none", to="again_bot", seat=0)
            game = (await started(anna, made["challenge"]["id"]))["game"]
            seat = await table(anna, game)
            await seat.send(type="resign")
            await seat.until(lambda s: s["game"]["status"] == "over")
            settings = {"accepts": {"controls": ["3+2"]}}
            await call(owner, "POST", "/api/bots/again_bot/settings", 200, json=settings)
            await seat.send(type="rematch")
            refused = await seat.error()
            assert refused["code"] == "declined" and "does not play untimed" in refused["message"]
            settings = {"accepts": {"controls": ["none"]}}
            await call(owner, "POST", "/api/bots/again_bot/settings", 200, json=settings)
        await seat.send(type="rematch")  # the bridge has gone
        refused = await seat.error()
        assert refused["code"] == "declined" and "not connected" in refused["message"]
        assert (await site.service.get(game)).row.rematch is None  # type: ignore[union-attr]
        async with bridge(site, token):
            await seat.send(type="rematch")
            await seat.until(lambda s: s["game"].get("rematch") is not None)
        await seat.ws.close()


async def test_a_bot_is_marked_for_spectators_in_the_list_and_in_the_review(
    site: Server,  # noqa: F811
) -> None:
    """Marked as a bot everywhere it is named (docs/bots.md): the spectators' table, the games on
    now and the review said only its name."""
    async with site.browser() as owner, site.browser() as anna, site.browser() as eve:
        await signed_up(owner, "owner_m")
        token = await new_bot(owner, "marked_bot", controls=["none"], rated=False)
        await signed_up(anna, "anna_m")
        async with bridge(site, token):
            made = await challenge(anna, control="none", to="marked_bot", seat=0)
            game = (await started(anna, made["challenge"]["id"]))["game"]
            await call(eve, "GET", "/api/me", 200)
            async with eve.ws_connect(f"/ws/{game}/watch") as ws:
                first = await ws.receive_json(timeout=10)
                assert first["type"] == "state" and first["game"]["bots"] == [False, True]
            listed = await call(eve, "GET", "/api/watch", 200)
            mine = [g for g in listed["games"] if g["game"] == game]
            assert mine and mine[0]["bots"] == [False, True], listed
            seat = await table(anna, game)
            await seat.send(type="resign")
            await seat.until(lambda s: s["game"]["status"] == "over")
            await seat.ws.close()
        review = await call(anna, "GET", f"/api/games/{game}/review", 200)
        assert review["game"]["bots"] == [False, True]
