"""Agents: built-in players that choose moves from one seat's VIEW.

>>> agent = make_agent("greedy")
>>> agent.name
'greedy'
>>> make_agent("greedy", {"hand_weight": "0.4"}).hand_weight
0.4
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from hanamikoji.ai.base import Agent, AgentError
from hanamikoji.ai.config import LIMITS, MASTER, Option, SearchConfig, unknown_option
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.ai.levels import LEVELS
from hanamikoji.ai.master import Master1Agent, MasterAgent
from hanamikoji.ai.random_agent import RandomAgent

__all__ = [
    "AGENTS",
    "LEVELS",
    "MASTER",
    "Agent",
    "AgentError",
    "GreedyAgent",
    "IsmctsAgent",
    "Master1Agent",
    "MasterAgent",
    "RandomAgent",
    "SearchConfig",
    "agent_options",
    "declared_options",
    "make_agent",
    "net_agent",
    "parse_agent",
]


def net_agent(temperature: float = 0.0, weights: str = "") -> Agent:
    """The ``net`` agent (:class:`hanamikoji.ai.net.NetAgent`), imported when first made so
    that ``import hanamikoji.ai`` stays free of numpy and numba."""
    from hanamikoji.ai.net import NetAgent

    return NetAgent(temperature, weights)


AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "ismcts": IsmctsAgent,
    "master": MasterAgent,
    "master-1": Master1Agent,
    "net": net_agent,
}
"""Built-in agents by name (options: their constructor's keywords)."""


def make_agent(name: str, options: Mapping[str, str] | None = None) -> Agent:
    """The built-in agent called ``name``, with options given as text (``{"hand_weight": "0.4"}``).

    An AgentError names the known agents, or the agent's known options, when one is wrong.
    """
    if not isinstance(name, str):
        raise AgentError(f"an agent's name is text, e.g. 'greedy'; got {name!r}")
    key = name.strip().lower()
    if key == "cmd" or key.startswith("cmd:"):
        raise AgentError(engine_command(name))
    if ":" in key:
        raise AgentError(
            f"{name!r} is a spec with options: parse_agent({name!r}) reads it; make_agent takes "
            "a name and its options apart"
        )
    if key in LEVELS and key not in AGENTS:
        if options:
            raise AgentError(f"level {name!r} takes no options; use an agent for options")
        return LEVELS[key]()
    factory = AGENTS.get(key)
    if factory is None:
        known = ", ".join(sorted(AGENTS))
        raise AgentError(
            f"unknown agent {name!r}; the built-in agents are: {known}; "
            f"the levels: {', '.join(LEVELS)}"
        )
    declared = agent_options(factory)
    params = inspect.signature(factory).parameters
    kwargs: dict[str, object] = {}
    for key, text in (options or {}).items():
        option = declared.get(key)
        if option is not None:
            try:
                kwargs[key] = option.parse(text)
            except ValueError as e:
                raise AgentError(f"agent {name!r}: {e}") from None
            continue
        param = params.get(key)
        if declared or param is None or key.startswith("_"):
            allowed = list(declared) or [p for p in params if not p.startswith("_")]
            raise AgentError(f"agent {name!r}: {unknown_option(key, allowed)}")
        kwargs[key] = _convert(name, key, text, param.default)
    try:
        return factory(**kwargs)
    except (TypeError, ValueError) as e:
        raise AgentError(f"agent {name!r}: {e}") from None


def agent_options(factory: Callable[..., Agent]) -> dict[str, Option]:
    """The options a search agent declares (its limits, then its settings with its own
    defaults: :mod:`hanamikoji.ai.config`); empty for an agent that declares none."""
    options = getattr(factory, "options", None)
    if not callable(options):
        return {}
    return {**LIMITS, **options()}


def declared_options(agent: Agent) -> list[dict[str, Any]]:
    """The options of a search agent as the engine's ``hello`` lists them (docs/protocol.md),
    each with the agent's value as its default; empty for other agents and for levels."""
    if not isinstance(agent, IsmctsAgent) or agent.name != type(agent).name:
        return []
    out = []
    for name, option in agent_options(type(agent)).items():
        value = getattr(agent.limits if name in LIMITS else agent.config, name)
        out.append({**option.to_json(), "default": value})
    return out


def parse_agent(spec: str) -> Agent:
    """An agent from ``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE`` (e.g. ``greedy:hand_weight=0.4``),
    or a level as ``level:NAME`` (``level:master`` is the master *level*, a fixed budget)."""
    name, _, rest = spec.partition(":")
    if name.strip().lower() == "cmd":
        raise AgentError(engine_command(spec))
    if name.strip().lower() == "level":
        level = rest.strip().lower()
        if level not in LEVELS:
            raise AgentError(f"unknown level {rest!r}; the levels are: {', '.join(LEVELS)}")
        return LEVELS[level]()
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise AgentError(f"agent option {item!r} must look like KEY=VALUE")
        if key.strip() in options:
            raise AgentError(f"agent option {key.strip()!r} is given twice in {spec!r}")
        options[key.strip()] = value.strip()
    return make_agent(name, options)


def engine_command(spec: str) -> str:
    """Why an engine's command is no agent here: it is a process, played by the match runner."""
    return (
        f"{spec!r} is an engine's command, not a built-in agent: an engine is a process, "
        "played by hanamikoji.match.make_player (or `hanamikoji match`); the agents here are "
        f"{', '.join(sorted(AGENTS))} and level:NAME"
    )


def _convert(agent: str, key: str, text: str, default: object) -> object:
    kind: type[Any] = (
        type(default) if default is not inspect.Parameter.empty and default is not None else str
    )
    try:
        if kind is bool:
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError
        return kind(text)
    except ValueError:
        words = {int: "a whole number", float: "a number"}.get(kind, f"a {kind.__name__}")
        raise AgentError(f"agent {agent!r} option {key!r} must be {words}, got {text!r}") from None
