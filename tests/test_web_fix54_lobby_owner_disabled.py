"""A challenge to a bot whose owner is disabled is refused saying so: the bot is disabled as its
owner's account is (its own account is not); a disabled account, a bot's own included, is still
refused as "their account has been disabled"."""

from __future__ import annotations

from hanamikoji.web.store import ModerationRow
from lobby_support import Server, challenge, make_site, site, site_db  # noqa: F401 (fixtures)
from test_web_fix52_lobby_disabled import act
from test_web_fix53_lobby_disabled import owned_bot, signed_up

MODERATORS = "by the server's moderators"


async def test_a_bot_whose_owner_is_disabled_is_unavailable_as_a_bot(site: Server) -> None:  # noqa: F811
    store = site.service.store
    await owned_bot(store)
    await store.moderate_player("olga", "disabled", True, act())
    async with site.browser() as carol:
        await signed_up(carol, "carol_q")
        refused = await challenge(carol, expect=None, control="none", to="botty")
        assert refused["_status"] == 400 and refused["code"] == "unavailable"
        assert refused["field"] == "to"
        assert refused["error"] == (
            "botty cannot be challenged: this bot is disabled, as its owner's account has been "
            f"disabled {MODERATORS}"
        )


async def test_a_disabled_account_is_unavailable_as_before(site: Server) -> None:  # noqa: F811
    """A person, and a bot disabled itself (its owner not): their own account."""
    store = site.service.store
    await owned_bot(store)
    async with site.browser() as carol, site.browser() as dan:
        await signed_up(carol, "carol_q")
        await signed_up(dan, "dan_q")
        dan_row = await store.account("dan_q")
        assert dan_row is not None
        await store.moderate_player(dan_row.id, "disabled", True, act())
        bot_act = ModerationRow(f"{'0' * 16}-bot", "at", "mod", "disable", "botty", "why")
        await store.moderate_player("botty", "disabled", True, bot_act)
        for name in ("dan_q", "botty"):
            refused = await challenge(carol, expect=400, control="none", to=name)
            assert refused["code"] == "unavailable" and refused["field"] == "to"
            assert refused["error"] == (
                f"{name} cannot be challenged: their account has been disabled {MODERATORS}"
            )
