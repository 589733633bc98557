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

__all__ = ["Agent", "AgentError", "check_legal", "start_game"]


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


def check_legal(view: View, legal: Sequence[Move]) -> None:
    """Refuse what no agent can choose from: no moves (ValueError), moves that are not
    :class:`~hanamikoji.moves.Move` objects (TypeError naming the first, e.g. a move's text,
    which ``Move.parse`` reads), a view whose seat has no decision to make, or a move that is
    not legal in the view (ValueError: an agent answers for the view it is given)."""
    if not legal:
        raise ValueError("no legal moves to choose from")
    for move in legal:
        if not isinstance(move, Move):
            hint = f": Move.parse({move!r}) reads it" if isinstance(move, str) else ""
            raise TypeError(
                f"the legal moves must be Move objects (as State.legal_moves gives them), "
                f"got {move!r} ({type(move).__name__}){hint}"
            )
    if view.to_move != view.seat:
        whose = "nobody's" if view.to_move is None else f"seat {view.to_move}'s"
        raise ValueError(
            f"the view is seat {view.seat}'s, which has no decision to make: it is {whose} turn "
            "(give an agent the view of the seat to move, state.view(state.to_move))"
        )
    possible = set(view.legal_moves)
    for move in legal:
        if move not in possible:
            raise ValueError(
                f"{move} is not legal in the view given (seat {view.seat}, hand {view.hand}): "
                "give the legal moves of the same position, state.legal_moves"
            )
