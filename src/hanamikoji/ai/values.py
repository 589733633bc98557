"""A learned value of the position between rounds: P(win) from the markers, who starts, rounds left.

Between two rounds everything about a game is the marker position (3^7 of them), who plays first
next, and how many rounds the limit still allows. The table holds seat 0's expected score (win 1,
draw 1/2) for each, learned by self-play with the playout policy (``scripts/train_values.py``)
and solved backwards over the rounds left. The searches use it to score the end of the current
round instead of playing out the rest of the game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources
from typing import Any

from hanamikoji.state import Deal, Rules, State, Termination, decide

__all__ = [
    "CONFIGS",
    "TABLES",
    "RoundValues",
    "evaluate_round_end",
    "marker_code",
    "markers_of",
    "round_start",
    "round_values",
    "sample_round",
    "solve",
]

CONFIGS = 3**7
"""Marker positions: each geisha's marker is neutral, seat 0's or seat 1's."""
HORIZON = 6
"""Rounds-left values stored; beyond that (and with no limit) the stationary value is used."""


def marker_code(markers: Sequence[int | None]) -> int:
    """The marker position as a number 0..3^7-1 (neutral 0, seat 0 is 1, seat 1 is 2)."""
    code = 0
    for m in reversed(markers):
        code = code * 3 + (0 if m is None else m + 1)
    return code


def markers_of(code: int) -> tuple[int | None, ...]:
    """The inverse of :func:`marker_code`."""
    out: list[int | None] = []
    for _ in range(7):
        code, digit = divmod(code, 3)
        out.append(None if digit == 0 else digit - 1)
    return tuple(out)


Outcomes = list[int]
"""Sampled results of one round: -1 seat 0 won, -2 seat 1 won, else the next marker code."""


def sample_round(code: int, first: int, rng: random.Random, policy: Callable[..., State]) -> int:
    """Play one round from marker position ``code`` with ``first`` to play; its result code."""
    after = policy(round_start(code, first, rng), rng)
    outcome = after.outcome
    if outcome is not None:
        return -1 if outcome.winner == 0 else -2
    return marker_code(after.markers)


def round_start(code: int, first: int, rng: random.Random) -> State:
    """A round's first position, dealt from ``rng``: marker position ``code``, ``first`` to
    play, no round limit."""
    deal = Deal.random(rng)
    hands = list(deal.hands)
    hands[first] = "".join(sorted(hands[first] + deal.deck[0]))
    return State.from_position(
        turn=0,
        hands=(hands[0], hands[1]),
        actions_left=("SDGC", "SDGC"),
        deck=deal.deck[1:],
        removed=deal.removed,
        round=1 if first == 0 else 2,
        markers=markers_of(code),
        rules=_NO_LIMIT,
        rng=rng,
        check=False,
    )


_NO_LIMIT = Rules(max_rounds=None)


def _terminal(code: int) -> float | None:
    """Seat 0's score if the marker position already ends the game (no round limit), else None."""
    ended = decide(markers_of(code), 1, _NO_LIMIT)
    if ended is None:
        return None
    return 1.0 if ended[0] == 0 else 0.0


def _tiebreak(code: int) -> float:
    """Seat 0's score when the round limit ends the game at marker position ``code``."""
    ended = decide(markers_of(code), 1, Rules(max_rounds=1))
    assert ended is not None
    winner, reason = ended
    if reason is Termination.DRAW:
        return 0.5
    return 1.0 if winner == 0 else 0.0


def solve(samples: dict[tuple[int, int], Outcomes], sweeps: int = 200) -> dict[str, Any]:
    """Values by rounds left (1..HORIZON) and the stationary one, from sampled round results.

    ``samples[(code, first)]`` lists the results of rounds played from that position.
    """

    def backup(nxt: list[list[float]]) -> list[list[float]]:
        table = [[0.0] * CONFIGS for _ in range(2)]
        for (code, first), outs in samples.items():
            total = 0.0
            for o in outs:
                total += 1.0 if o == -1 else 0.0 if o == -2 else nxt[1 - first][o]
            table[first][code] = total / len(outs)
        for first in (0, 1):
            for code in range(CONFIGS):
                t = _terminal(code)
                if t is not None:
                    table[first][code] = t
        return table

    last = [[_tiebreak(code) for code in range(CONFIGS)] for _ in range(2)]
    by_left = [backup(last)]
    for _ in range(HORIZON - 1):
        by_left.append(backup(by_left[-1]))
    stationary = by_left[-1]
    residuals = []
    for _ in range(sweeps):
        new = backup(stationary)
        residual = max(
            abs(a - b) for f in (0, 1) for a, b in zip(new[f], stationary[f], strict=True)
        )
        residuals.append(residual)
        stationary = new
        if residual < 1e-6:
            break
    return {"by_rounds_left": by_left, "stationary": stationary, "residuals": residuals}


class RoundValues:
    """Seat 0's expected score between rounds, by marker position, first player and rounds left."""

    def __init__(self, by_left: list[list[list[float]]], stationary: list[list[float]]) -> None:
        self.by_left = by_left
        self.stationary = stationary

    def value(self, markers: Sequence[int | None], first: int, rounds_left: int | None) -> float:
        """Seat 0's expected score when a round is about to start; ``None``: no round limit."""
        code = marker_code(markers)
        if rounds_left is None or rounds_left > len(self.by_left):
            return self.stationary[first][code]
        if rounds_left < 1:
            return _tiebreak(code)
        return self.by_left[rounds_left - 1][first][code]

    def to_json(self) -> dict[str, Any]:
        """The table as JSON (scores in ten-thousandths)."""

        def q(rows: list[list[float]]) -> list[list[int]]:
            return [[round(v * 10000) for v in row] for row in rows]

        return {
            "format": "hanamikoji-round-values/1",
            "by_rounds_left": [q(t) for t in self.by_left],
            "stationary": q(self.stationary),
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RoundValues:
        """Read a table written by :meth:`to_json`."""
        if obj.get("format") != "hanamikoji-round-values/1":
            raise ValueError("not a hanamikoji-round-values/1 table")

        def dq(rows: list[list[int]]) -> list[list[float]]:
            return [[v / 10000 for v in row] for row in rows]

        return cls([dq(t) for t in obj["by_rounds_left"]], dq(obj["stationary"]))


TABLES = {"playout": "round_values.json"}
"""The table shipped with the package, by the policy whose rounds it was learned from: the
playout policy (random actions, charm-greedy picks). (A table learned from greedy's rounds
measured as no gain in the search and was retired: docs/ai.md.)"""


@cache
def round_values(name: str = "playout") -> RoundValues:
    """A table shipped with the package (:data:`TABLES`)."""
    if name not in TABLES:
        raise ValueError(f"unknown value table {name!r}; known: {', '.join(TABLES)}")
    path = f"data/{TABLES[name]}"
    text = resources.files("hanamikoji.ai").joinpath(path).read_text("utf-8")
    return RoundValues.from_json(json.loads(text))


def evaluate_round_end(state: State) -> float:
    """Seat 0's expected score at a finished game or at the start of a round (from the table)."""
    outcome = state.outcome
    if outcome is not None:
        return 0.5 if outcome.winner is None else 1.0 - outcome.winner
    limit = state.rules.max_rounds
    left = None if limit is None else limit - state.round + 1
    return round_values().value(state.markers, state.first, left)
