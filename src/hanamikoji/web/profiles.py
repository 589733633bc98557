"""Players' public pages: a profile (ratings, their history, the finished games) and the
leaderboard of established players per family (docs/web.md, "Profiles and the leaderboard").

Only accounts have a profile: a guest has no name that could be looked up, and a player's id is
never shown. Each player is named by their user name, which no look-alike can copy (identity.py
folds case and confusable characters), beside the display name they chose.
"""

from __future__ import annotations

from typing import Any

from hanamikoji.web.errors import WebError
from hanamikoji.web.identity import FieldError, check_username, opponent_mark, username_key
from hanamikoji.web.ratings import AI_PLAYER, AI_RATINGS, FAMILIES, Standing
from hanamikoji.web.store import PlayerRow, Store

__all__ = [
    "GAMES_SHOWN",
    "LEADERS_SHOWN",
    "find_account",
    "leaderboard",
    "profile",
    "standing_json",
]

GAMES_SHOWN = 50
"""The most recent finished games a profile lists."""
LEADERS_SHOWN = 100
"""Players per family on the leaderboard."""


def standing_json(s: Standing) -> dict[str, Any]:
    """A rating as the pages show it: rounded, with its deviation and the provisional mark."""
    return {
        "rating": round(s.rating.rating),
        "deviation": round(s.rating.deviation),
        "provisional": s.provisional,
        "games": s.games,
    }


async def find_account(store: Store, name: Any) -> PlayerRow:
    """The account with a profile at user name ``name`` (any case): ``not-found`` for a name
    no account has, a guest's, or a deleted account's."""
    try:
        wanted = check_username(name)
    except FieldError:
        raise WebError("not-found", "there is no player with that user name") from None
    account = await store.account(username_key(wanted))
    if account is None or account.deleted or account.username is None:
        raise WebError("not-found", f"there is no player with the user name {wanted}")
    return account


async def profile(store: Store, name: Any) -> dict[str, Any]:
    """The public profile of the account with user name ``name`` (any case)."""
    account = await find_account(store, name)
    ratings = await store.ratings(account.id)
    history = [
        {
            "game": h.game_id,
            "family": h.family,
            "at": h.at,
            "rating": round(h.after.rating, 1),
            "deviation": round(h.after.deviation, 1),
            "score": h.score,
        }
        for h in await store.rating_history(account.id)
    ]
    counted = {h["game"] for h in history}
    games = []
    rows = await store.player_games(account.id, "over", GAMES_SHOWN)
    # The opponents' user names (public, as their profiles), one query for the list: what tells
    # an account from a guest who typed the same name, and a deleted account from a guest.
    ids = sorted({p for row, _ in rows for p in row.players if p is not None})
    accounts = await store.accounts(ids) if ids else {}
    for row, updated in rows:
        seat = 0 if row.players[0] == account.id else 1
        opponent = row.players[1 - seat]
        winner = (row.result or {}).get("winner")
        games.append(
            {
                "game": row.id,
                "mode": row.mode,
                "level": row.level,
                "seat": seat,
                "opponent": row.names[1 - seat],
                **opponent_mark(accounts, opponent),
                "control": row.control or "none",
                "rated": row.rated,
                # False for a rated game that did not move this account's rating: one played as a
                # guest who then signed in to the account (its games come, its ratings do not)
                "counted": row.id in counted,
                "result": "draw" if winner is None else "won" if winner == seat else "lost",
                "reason": (row.result or {}).get("reason"),
                "review": f"/review/{row.id}",
                "updated": updated,
            }
        )
    bot = await store.bot(account.id)
    level = bot.player_id[len(AI_PLAYER) :] if bot and bot.player_id.startswith(AI_PLAYER) else None
    return {
        "username": account.username,
        "name": account.name,
        # A bot (docs/bots.md): its owner's user name, or a house bot: the AI level it is.
        "bot": None
        if bot is None
        else {"owner": bot.owner, "house": level is not None, "level": level},
        "ratings": _fixed(level)
        if level in AI_RATINGS
        else {f: standing_json(s) for f, s in ratings.items()},
        "history": history,
        "games": games,
    }


def _fixed(level: str) -> dict[str, Any]:
    """A house bot's ratings: its level's fixed one in each family (the lobby and the
    leaderboard show the same), which its games never move."""
    r = AI_RATINGS[level]
    fixed = {"rating": round(r.rating), "deviation": round(r.deviation), "provisional": False,
             "games": None, "fixed": True}  # fmt: skip
    return {f: dict(fixed) for f in FAMILIES}


async def leaderboard(store: Store, family: Any) -> dict[str, Any]:
    """The established accounts of ``family`` (real-time or correspondence), best first, and
    the AI levels' fixed ratings on the same scale."""
    if family not in FAMILIES:
        raise FieldError("family", f"family must be one of {', '.join(FAMILIES)}")
    rows = await store.leaders(family, LEADERS_SHOWN)
    bots = await store.bot_names()
    return {
        "family": family,
        "players": [
            {"rank": i, "username": u, "name": n, "bot": u in bots, **standing_json(s)}
            for i, (u, n, s) in enumerate(rows, 1)
        ],
        "ai": [
            {"level": level, "rating": round(r.rating), "bot": True, "username": f"AI-{level}"}
            for level, r in AI_RATINGS.items()
        ],
    }
