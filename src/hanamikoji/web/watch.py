"""Spectators: the message a spectator's socket receives, who may open one, and the games on now.

A spectator's ``state`` message is built from the game's :class:`~hanamikoji.public.PublicView`
and the scored rounds (whose cards both players have seen) only: never from a seat's VIEW.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from hanamikoji.ai.levels import LEVELS
from hanamikoji.web.game import LiveGame, now_ms
from hanamikoji.web.limits import Limits, TooMany
from hanamikoji.web.messages import (
    add_usernames,
    clock_json,
    public_view,
    scoring_json,
    seat_accounts,
)
from hanamikoji.web.ratings import family_of
from hanamikoji.web.service import GameService
from hanamikoji.web.store import GameRow, Store

__all__ = ["GAMES_ON_LIMIT", "ON_WITHIN", "GamesOn", "Watchers", "spectator_message"]

GAMES_ON_LIMIT = 50
"""The most games the "games on now" list shows."""
ON_WITHIN = timedelta(minutes=30)
"""A game is on now if a move (or a seat's coming) changed it this recently."""
REFRESH_S = 5.0
"""How long one "games on now" list is served before it is read again from the database."""

_LEVELS = list(LEVELS)  # weakest first
_PEOPLE = _LEVELS.index("hard") - 0.5  # games between people: after master and hard, before medium


def spectator_message(
    game: LiveGame, *, online: tuple[bool, bool], now: int | None = None
) -> dict[str, Any]:
    """The ``state`` message for a spectator: the public view and public facts only.

    Everything about the cards comes from ``PublicView.of`` (of the position a conceded game
    was given up at: :func:`~hanamikoji.web.messages.public_view`) and the scored rounds; nothing
    that belongs to one seat (its hand, legal moves, drawn card, undo, rematch link, invitation)
    is read.
    """
    row = game.row
    state = game.state
    outcome = state.outcome
    when = now_ms() if now is None else now
    return {
        "type": "state",
        "spectator": True,
        "game": {
            "id": row.id,
            "mode": row.mode,
            "level": row.level,
            "ai_seat": row.ai_seat,
            "names": list(row.names),
            "rules": {"max_rounds": row.max_rounds},
            "status": "over" if outcome is not None else "playing",
            "version": row.version,
            "joined": list(row.joined),
            "online": list(online),
            "thinking": game.thinking,
            "control": row.control or "none",
            "rated": row.rated,
        },
        "public": public_view(state).to_json(),
        "scorings": [scoring_json(s) for s in state.scorings],
        "result": outcome.to_json() if outcome is not None else None,
        # The clocks as both seats see them; "online" is given so that no claim is offered
        # (claiming a game is for its players).
        "clock": clock_json(game, 0, when, online=True),
    }


C = TypeVar("C")


@dataclass
class Watchers(Generic[C]):
    """The spectators' sockets of this process, by game, and how many each client holds."""

    limits: Limits = field(default_factory=Limits)
    games: dict[str, set[C]] = field(default_factory=dict)
    clients: dict[str, int] = field(default_factory=dict)

    def admit(self, game_id: str, client: str) -> None:
        """Raise :class:`TooMany` if ``client`` may not open one more socket on ``game_id``."""
        per_game = self.limits.spectators_per_game
        if per_game and len(self.games.get(game_id, ())) >= per_game:
            raise TooMany(
                f"this game has as many spectators as this server takes ({per_game}); "
                "try again later",
                60,
            )
        per_client = self.limits.spectators_per_client
        if per_client and self.clients.get(client, 0) >= per_client:
            raise TooMany(
                f"your address is watching {per_client} games already (at most "
                f"{per_client} spectators' windows); close one first",
                10,
            )

    def add(self, game_id: str, client: str, conn: C) -> None:
        """Count ``conn``, a spectator of ``game_id`` from ``client``."""
        self.games.setdefault(game_id, set()).add(conn)
        self.clients[client] = self.clients.get(client, 0) + 1

    def discard(self, game_id: str, client: str, conn: C) -> None:
        """Forget ``conn`` (closed)."""
        conns = self.games.get(game_id)
        if conns is None or conn not in conns:
            return
        conns.discard(conn)
        if not conns:
            del self.games[game_id]
        left = self.clients.get(client, 0) - 1
        if left > 0:
            self.clients[client] = left
        else:
            self.clients.pop(client, None)

    def count(self, game_id: str) -> int:
        """Spectators of ``game_id`` connected here."""
        return len(self.games.get(game_id, ()))


def _rank(row: GameRow, rated: dict[str, float]) -> tuple[int, float]:
    """Where a game comes in the list: games between people who both have a rating in its
    family first, the highest mean rating first (``rated``: game -> mean); then the stronger the
    AI the sooner, the other people's games after the top two levels."""
    if row.id in rated:
        return 0, -rated[row.id]
    if row.level is not None and row.ai_seat is not None and row.level in _LEVELS:
        return 1, -_LEVELS.index(row.level)
    return 1, -_PEOPLE


async def _mean_ratings(store: Store, rows: list[GameRow]) -> dict[str, float]:
    """The mean rating of each game between two people who both have one in its family."""
    by_family: dict[str, list[GameRow]] = {}
    for row in rows:
        family = family_of(row.control)
        if row.ai_seat is None and family is not None and None not in row.players:
            by_family.setdefault(family, []).append(row)
    means: dict[str, float] = {}
    for family, games in by_family.items():
        ids = sorted({p for row in games for p in row.players if p is not None})
        standings = await store.standings(ids, family)
        for row in games:
            both = [standings[p] for p in row.players if p in standings]
            if len(both) == 2:
                means[row.id] = (both[0].rating.rating + both[1].rating.rating) / 2
    return means


@dataclass
class GamesOn:
    """The "games on now" list, read from the database at most every ``REFRESH_S`` seconds."""

    service: GameService
    watching: Callable[[str], int] = lambda game_id: 0  # spectators connected here
    clock: Callable[[], float] = time.monotonic
    _cached: list[dict[str, Any]] | None = None
    _read_at: float = float("-inf")

    async def listing(self) -> dict[str, Any]:
        """``{"games": [GAME_ON, ...], "order": ...}`` (docs/web.md, "Watching a game")."""
        now = self.clock()
        if self._cached is None or now - self._read_at >= REFRESH_S:
            self._cached = await self._read()
            self._read_at = now
        games = [g | {"spectators": self.watching(g["game"])} for g in self._cached]
        return {"games": games, "order": "rating-then-level-then-recent"}

    async def _read(self) -> list[dict[str, Any]]:
        since = (datetime.now(UTC) - ON_WITHIN).isoformat(timespec="milliseconds")
        rows = await self.service.store.games_on(since, 4 * GAMES_ON_LIMIT)
        # Sorted by rank, the most recent first within it (the query's order is kept).
        rated = await _mean_ratings(self.service.store, [row for row, _ in rows])
        rows.sort(key=lambda pair: _rank(pair[0], rated))
        shown = rows[:GAMES_ON_LIMIT]
        # Each account seat's user name (public, as on its profile) or that it was deleted, one
        # query for the list.
        ids = sorted({p for row, _ in shown for p in row.players if p is not None})
        accounts = await self.service.store.accounts(ids) if ids else {}
        out = []
        for row, updated in shown:
            game = await self.service.get(row.id)
            if game is None or game.state.is_over:
                continue
            state = game.state
            listed: dict[str, Any] = {
                "game": row.id,
                "url": f"/g/{row.id}",
                "mode": row.mode,
                "level": row.level,
                "ai_seat": row.ai_seat,
                "names": list(row.names),
                "rules": {"max_rounds": row.max_rounds},
                "control": row.control or "none",
                "rated": row.rated,
                "round": state.round,
                "charm": list(state.charm),
                "to_move": state.to_move,
                "updated": updated,
            }
            add_usernames(listed, seat_accounts(accounts, row.players))
            bots = self.service.bot_seats(game)
            if any(bots):  # a bot is marked in the list too (docs/bots.md)
                listed["bots"] = bots
            out.append(listed)
        return out
