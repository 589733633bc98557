"""Levels for people, from a gentle beginner to the flagship: each a documented agent setting.

| level | agent | plays like |
| --- | --- | --- |
| beginner | greedy, but half its moves at random | someone learning the rules |
| easy | greedy (one ply, majorities by charm) | a casual player |
| medium | master's search, 100 iterations | a club player |
| hard | master's search, 1000 iterations | a strong player |
| master | master, 30000 iterations | the strongest this project has |

Every level has a fixed budget, so it plays the same on any machine (and is deterministic for a
seed); the ``master`` *agent* (as opposed to the level) uses the time it is given instead.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from hanamikoji.ai.base import Agent, check_choice, start_game
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.ai.master import MasterAgent
from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = ["LEVELS", "NoisyAgent"]


class NoisyAgent:
    """Another agent that plays a random legal move a share ``noise`` of the time."""

    def __init__(self, base: Agent, noise: float, name: str) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be between 0 and 1, got {noise}")
        self.base = base
        self.noise = noise
        self.name = name

    def start(self, seat: int, rules: Rules) -> None:
        """Pass the game's start on to the base agent."""
        start_game(self.base, seat, rules)

    def choose(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
    ) -> Move:
        """A random move with probability ``noise``, else the base agent's."""
        check_choice(view, legal, rng, clock_ms)
        if rng.random() < self.noise:
            return legal[rng.randrange(len(legal))]
        return self.base.choose(view, legal, rng, clock_ms)


def _named(agent: IsmctsAgent | GreedyAgent, name: str) -> Agent:
    agent.name = name
    return agent


LEVELS: dict[str, Callable[[], Agent]] = {
    "beginner": lambda: NoisyAgent(GreedyAgent(), 0.5, "beginner"),
    "easy": lambda: _named(GreedyAgent(), "easy"),
    "medium": lambda: _named(MasterAgent(iterations=100), "medium"),
    "hard": lambda: _named(MasterAgent(iterations=1000), "hard"),
    "master": lambda: MasterAgent(iterations=30000),
}
"""The levels, weakest first."""
