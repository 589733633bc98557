"""Analysis: hints for a position and a review of a whole game, from each decider's VIEW only.

>>> from hanamikoji.state import State
>>> hint = suggest(State.new(3).view(0), iterations=200, seed=1)
>>> 0.0 <= hint.win_probability <= 1.0
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from hanamikoji.ai.master import MasterAgent
from hanamikoji.moves import Move
from hanamikoji.record import Record
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = ["DecisionReview", "Hint", "review", "suggest"]

DEFAULT_ITERATIONS = 20000


@dataclass(frozen=True)
class Hint:
    """The AI's suggestion: the move, its estimated win probability, the runners-up."""

    move: Move
    win_probability: float
    alternatives: tuple[tuple[Move, float], ...]


def _searcher(iterations: int, rules: Rules | None) -> MasterAgent:
    agent = MasterAgent(iterations=iterations)
    agent.rules = rules or Rules()
    return agent


def suggest(
    view: View,
    *,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    rules: Rules | None = None,
) -> Hint:
    """The best move for ``view``'s seat, by a master search with a fixed budget (deterministic)."""
    legal = view.legal_moves
    if not legal:
        raise ValueError("it is not this seat's decision")
    if len(legal) == 1:
        only = legal[0]
        value = _value_of(view, only, iterations, seed, rules)
        return Hint(only, value, ())
    result = _searcher(iterations, rules).search(view, legal, random.Random(seed))
    best = result.best
    others = tuple((s.move, s.value) for s in result.moves[1:4] if s.visits)
    return Hint(best.move, best.value, others)


def _value_of(view: View, move: Move, iterations: int, seed: int, rules: Rules | None) -> float:
    """The estimated score of one given move (a search restricted to it)."""
    budget = max(50, iterations // 4)
    result = _searcher(budget, rules).search(view, [move], random.Random(seed))
    return result.best.value


@dataclass(frozen=True)
class DecisionReview:
    """One decision of a game, judged from the decider's view."""

    round: int
    index: int
    seat: int
    played: Move
    best: Move
    win_probability: float
    played_value: float

    @property
    def loss(self) -> float:
        """How much estimated score the move played gave away (0 when it was the best)."""
        return max(0.0, self.win_probability - self.played_value)


def review(
    record: Record,
    *,
    seat: int | None = None,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
) -> Iterator[DecisionReview]:
    """Judge every decision of ``record`` (or only ``seat``'s), in order, from its VIEW."""
    state = record.replay()
    plies = state.history
    position = state
    positions = []
    while position.parent is not None:  # walk back to every position that led to a decision
        positions.append(position.parent)
        position = position.parent
    positions.reverse()
    counts: dict[int, int] = {}
    for before, ply in zip(positions, plies, strict=True):
        index = counts.get(ply.round, 0)
        counts[ply.round] = index + 1
        if seat is not None and ply.seat != seat:
            continue
        view = before.view(ply.seat)
        hint = suggest(view, iterations=iterations, seed=seed, rules=record.rules)
        if hint.move is ply.move:
            played_value = hint.win_probability
        else:
            played_value = _value_of(view, ply.move, iterations, seed, record.rules)
        yield DecisionReview(
            ply.round, index, ply.seat, ply.move, hint.move, hint.win_probability, played_value
        )
