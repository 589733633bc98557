"""The agent interface: the same shape as the engine protocol's ``act`` message.

An agent is given one seat's VIEW, the legal moves, a seeded ``random.Random`` and a time budget,
and returns one of the legal moves. It never sees more than the VIEW.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = ["Agent", "AgentError", "start_game"]


class AgentError(ValueError):
    """An agent name or option that is not known or not valid."""


@runtime_checkable
class Agent(Protocol):
    """Anything that chooses moves from a VIEW."""

    name: str

    def choose(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
    ) -> Move:
        """Return one of ``legal`` for the seat of ``view``; ``clock_ms`` is the time to aim for."""
        ...


AgentFactory = Callable[..., Agent]


def start_game(agent: Agent, seat: int, rules: Rules) -> None:
    """Tell ``agent`` a game starts, if it wants to know (an optional ``start(seat, rules)``)."""
    hook = getattr(agent, "start", None)
    if callable(hook):
        hook(seat, rules)
