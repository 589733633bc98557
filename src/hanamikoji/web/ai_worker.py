"""The AI's work for the web app, run in worker processes so that thinking never stalls the server.

Each function takes and returns plain JSON-able values (they cross a process boundary) and sees only
what its caller passes: a seat's VIEW for a move or a hint, a finished game's record for analysis.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from typing import Any

from hanamikoji.ai.analysis import review, suggest
from hanamikoji.ai.base import Agent, start_game
from hanamikoji.ai.levels import LEVELS
from hanamikoji.moves import Move
from hanamikoji.record import Record
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = ["analyse", "choose", "hint", "start", "warm_up", "watch_parent"]

_agents: dict[tuple[str, int, int | None], Agent] = {}
_budgets: dict[tuple[str, int, int | None], int] = {}  # each agent's full iterations (0: none)


def watch_parent(parent: int, every: float = 1.0) -> None:
    """End this worker when the server that started it is gone (even killed with SIGKILL)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def warm_up() -> None:
    """Load (or compile) the search's numba kernels now, so the first move is not slow."""
    from hanamikoji.ai.fastsearch import fast_search
    from hanamikoji.state import State

    state = State.new(random.Random(0))
    view = state.view(0)
    fast_search(view, view.legal_moves, random.Random(0), iterations=8)
    while state.to_move == state.first or state.offer is not None:  # the other seat has acted
        state = state.apply(state.legal_moves[0])
    assert state.to_move is not None
    view = state.view(state.to_move)  # the belief's kernels, too
    fast_search(view, view.legal_moves, random.Random(0), iterations=8, belief=1, mix=True, pool=8)


def start(parent: int, nice: int = 0) -> None:
    """A worker's start: watch the server (:func:`watch_parent`), lower its priority by ``nice``
    (the server's own answers come before thinking), then :func:`warm_up`."""
    watch_parent(parent)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    warm_up()


def choose(
    level: str, view: dict[str, Any], max_rounds: int | None, seed: int, scale: float = 1.0
) -> str:
    """The move of the AI at ``level`` for the seat whose VIEW is ``view`` (deterministic).

    ``scale`` (at most 1) is the share of the level's iterations to search: the server asks for
    less when many games wait for the AI.
    """
    seen = View.from_json(view)
    key = (level, seen.seat, max_rounds)
    agent = _agents.get(key)
    if agent is None:
        agent = LEVELS[level]()
        start_game(agent, seen.seat, Rules(max_rounds=max_rounds))
        _agents[key] = agent
        _budgets[key] = getattr(agent, "iterations", 0)
    full = _budgets[key]
    if full:
        agent.iterations = max(1, round(full * min(1.0, scale)))  # type: ignore[attr-defined]
    move: Move = agent.choose(seen, seen.legal_moves, random.Random(seed))
    return str(move)


def hint(
    view: dict[str, Any], max_rounds: int | None, iterations: int, scale: float = 1.0
) -> dict[str, Any]:
    """The AI's suggestion for the seat whose VIEW is ``view`` (``scale`` as for :func:`choose`),
    with the ``iterations`` it searched.

    A review at the same budget searches this decision as this hint did (``analysis.review``).
    """
    budget = max(100, round(iterations * min(1.0, scale)))
    found = suggest(View.from_json(view), iterations=budget, rules=Rules(max_rounds=max_rounds))
    return {
        "move": str(found.move),
        "win_probability": round(found.win_probability, 4),
        "alternatives": [[str(m), round(v, 4)] for m, v in found.alternatives],
        "iterations": budget,
    }


def analyse(record: dict[str, Any], iterations: int) -> list[dict[str, Any]]:
    """Every decision of a finished game judged from its decider's VIEW (``analysis.review``),
    each with its ``ply``: its index among the game's moves."""
    game = Record.from_json(record)
    out = []
    for ply, decision in enumerate(review(game, iterations=iterations)):
        out.append(
            {
                "ply": ply,
                "round": decision.round,
                "index": decision.index,
                "seat": decision.seat,
                "played": str(decision.played),
                "best": str(decision.best),
                "win_probability": round(decision.win_probability, 4),
                "played_value": round(decision.played_value, 4),
                "loss": round(decision.loss, 4),
            }
        )
    return out
