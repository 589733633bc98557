"""Agents: built-in players that choose moves from one seat's VIEW.

>>> agent = make_agent("greedy")
>>> agent.name
'greedy'
"""

from __future__ import annotations

from collections.abc import Callable

from hanamikoji.ai.base import Agent, AgentError
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.random_agent import RandomAgent

__all__ = ["AGENTS", "Agent", "AgentError", "GreedyAgent", "RandomAgent", "make_agent"]

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
}
"""Built-in agents by name."""


def make_agent(name: str) -> Agent:
    """The built-in agent called ``name``; an AgentError lists the known names otherwise."""
    factory = AGENTS.get(name.strip().lower())
    if factory is None:
        known = ", ".join(sorted(AGENTS))
        raise AgentError(f"unknown agent {name!r}; the built-in agents are: {known}")
    return factory()
