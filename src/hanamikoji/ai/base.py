"""The agent interface: the same shape as the engine protocol's ``act`` message.

An agent is given one seat's VIEW, the legal moves, a seeded ``random.Random`` and a time budget,
and returns one of the legal moves. It never sees more than the VIEW. Every agent here checks
what it is given with :func:`check_choice` first, so a wrong argument gets the same clear error
from each of them.
"""

from __future__ import annotations

import math
import numbers
import random
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = ["Agent", "AgentError", "check_choice", "check_legal", "start_game"]


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


def check_choice(
    view: View, legal: Sequence[Move], rng: random.Random, clock_ms: float | None
) -> None:
    """Refuse what no agent can choose with, the same way for every agent (each ``choose``
    calls it first): ``view`` not a :class:`~hanamikoji.view.View` or ``rng`` not a
    ``random.Random`` (TypeError; a bare seed is not taken, so that a game replays from the
    one generator its referee seeded), ``clock_ms`` not a number >= 0 or None, and whatever
    :func:`check_legal` refuses. Some agents use ``rng`` only on ties: it is checked anyway, so
    a wrong one is found at once rather than in the rare game that draws."""
    if not isinstance(view, View):
        raise TypeError(
            f"view must be a View, the seat's view (state.view(seat)), got {_short(view)} "
            f"({type(view).__name__})"
        )
    if not isinstance(rng, random.Random):
        raise TypeError(
            "rng must be a random.Random (e.g. random.Random(seed)), got "
            f"{_short(rng)} ({type(rng).__name__})"
        )
    if clock_ms is not None and not (clock_ms.__class__ is int and clock_ms >= 0):
        _check_clock(clock_ms)
    check_legal(view, legal)


def _check_clock(clock_ms: object) -> None:
    """``clock_ms`` other than None or an int >= 0 (the common cases, checked inline): a finite
    number >= 0, a float or a numpy number too; never a bool."""
    expected = "clock_ms must be a number of milliseconds >= 0, or None (no clock)"
    if isinstance(clock_ms, bool) or not isinstance(clock_ms, numbers.Real):
        raise TypeError(f"{expected}, got {_short(clock_ms)} ({type(clock_ms).__name__})")
    if not (0 <= float(clock_ms) < math.inf):  # (NaN fails this too)
        raise ValueError(f"{expected}, got {clock_ms!r}")


def _short(value: object) -> str:
    """``repr(value)``, cut short for a message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
