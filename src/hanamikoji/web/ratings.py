"""Ratings on the web: which games count, how one rated game moves both players, where the AI
levels stand, and the pairing window of "Play someone now" (docs/web.md, "Ratings").

Pure functions over :mod:`hanamikoji.glicko2`; the store calls :func:`rate` inside the
transaction that ends the game, so a result and both rating changes are written together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hanamikoji.clock import Kind, TimeControl
from hanamikoji.glicko2 import (
    PERIODS_PER_DAY,
    PROVISIONAL_DEVIATION,
    Rating,
    fixed_rating,
    update,
)

__all__ = [
    "AI_OFFSET",
    "AI_PLAYER",
    "AI_RATINGS",
    "FAMILIES",
    "LADDER",
    "Change",
    "Standing",
    "ai_player",
    "family_of",
    "rate",
    "score_of",
    "window",
]

FAMILIES = (Kind.REAL_TIME.value, Kind.CORRESPONDENCE.value)
"""The families a player has a rating in (untimed games are never rated)."""

LADDER = {"beginner": 144, "easy": 287, "medium": 502, "hard": 653, "master": 746}
"""The AI levels' Elo relative to random play = 0, measured in docs/ai.md ("The levels on one
scale")."""

AI_OFFSET = 1500 - LADDER["medium"]
"""Maps the ladder onto the Glicko scale: a new player's 1500 is the medium level (the home
page's default), so random play is 998 and the master 1744. Elo and Glicko share the logistic
curve (400 points for a tenfold odds ratio), so one offset is all it takes."""

AI_RATINGS = {level: fixed_rating(elo + AI_OFFSET) for level, elo in LADDER.items()}
"""Each AI level's fixed rating (deviation ``FIXED_DEVIATION``)."""

DAY_MS = 86_400_000
AI_PLAYER = "ai:"
"""An AI level's player id in the rating history (``ai:beginner``); people's ids have no colon."""


def ai_player(level: str) -> str:
    """The player id an AI level is rated as (its rating is :data:`AI_RATINGS`' and fixed)."""
    return f"{AI_PLAYER}{level}"


def family_of(control: str | None) -> str | None:
    """The rating family of a time control (None: untimed, never rated)."""
    if control is None:
        return None
    kind = TimeControl.parse(control).kind
    return kind.value if kind is not Kind.NONE else None


def score_of(result: dict[str, Any], seat: int) -> float:
    """``seat``'s score in a finished game's ``result``: 1, 0.5 (a draw) or 0."""
    winner = result.get("winner")
    if winner is None:
        return 0.5
    return 1.0 if winner == seat else 0.0


@dataclass(frozen=True)
class Standing:
    """A player's rating in one family, the rated games behind it and when the last ended (ms)."""

    rating: Rating
    games: int = 0
    rated_at: int | None = None

    @property
    def provisional(self) -> bool:
        return self.rating.deviation >= PROVISIONAL_DEVIATION


@dataclass(frozen=True)
class Change:
    """One player's side of a rated game: what went in (the opponent's rating before the game,
    the score, the periods since the player's last rated game) and what came out."""

    before: Standing
    opponent: Rating
    score: float
    periods: float
    after: Standing


def periods_since(standing: Standing, now: int) -> float:
    """Rating periods since ``standing``'s last rated game (0 for a first game)."""
    if standing.rated_at is None:
        return 0.0
    return max(0, now - standing.rated_at) / DAY_MS * PERIODS_PER_DAY


def rate(first: Standing, second: Standing, score: float, now: int) -> tuple[Change, Change]:
    """Both players' changes after a game ending at ``now`` in which ``first`` scored
    ``score``; each is updated against the other's rating from before the game.

    >>> a, b = rate(Standing(Rating()), Standing(Rating()), 1.0, now=0)
    >>> round(a.after.rating.rating), round(b.after.rating.rating), a.after.games
    (1662, 1338, 1)
    """
    changes = []
    for me, other, mine in ((first, second, score), (second, first, 1.0 - score)):
        periods = periods_since(me, now)
        new = update(me.rating, [(other.rating, mine)], periods=periods)
        after = Standing(new, me.games + 1, now)
        changes.append(Change(me, other.rating, mine, periods, after))
    return changes[0], changes[1]


WINDOW = 100.0
"""Play someone now's rating window at first (± points)."""
WIDEN = 50.0
"""Points the window grows for every ``WIDEN_EVERY_MS`` waited."""
WIDEN_EVERY_MS = 10_000
MAX_WINDOW = 500.0


def window(standing: Standing, waited_ms: int) -> float:
    """The half-width of a rated seeker's window after ``waited_ms`` of waiting: ±100 points,
    50 more every 10 s up to ±500, plus the deviation while provisional.

    >>> window(Standing(Rating(1500, 60)), 25_000), window(Standing(Rating()), 0)
    (200.0, 450.0)
    """
    steps = max(0, waited_ms) // WIDEN_EVERY_MS
    width = min(WINDOW + WIDEN * steps, MAX_WINDOW)
    if standing.provisional:
        width += standing.rating.deviation
    return width
