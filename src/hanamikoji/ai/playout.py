"""Fast playout policies for the searches: cheap moves that are not silly.

The policy plays actions at random but answers every Gift and Competition with the pick that
wins the most charm on the geisha involved, as a real opponent would. Random picks make every
offer look far better than it is; this one costs a few microseconds a pick.
"""

from __future__ import annotations

import random

from hanamikoji.cards import CHARM
from hanamikoji.moves import Move
from hanamikoji.state import State

__all__ = ["best_pick", "play_round", "playout_policy_move"]


def _count(code: int, g: int) -> int:
    return (code >> (4 * g)) & 15


def best_pick(state: State, rng: random.Random) -> Move:
    """The pick from the pending offer that gains the picker most charm on the geisha offered."""
    offer = state.offer
    assert offer is not None and state.to_move is not None
    picks = offer.picks
    if len(picks) == 1:
        return picks[0]
    me = state.to_move
    mine, theirs = state._played[me], state._played[1 - me]
    geisha = {ord(c) - 49 for c in offer.cards}
    best: list[Move] = []
    best_value = -1e9
    for pick in picks:
        take = pick.code
        give = offer.code - take
        value = 0.0
        for g in geisha:
            a = _count(mine + take, g)
            b = _count(theirs + give, g)
            value += CHARM[g] * ((a > b) - (a < b))
        if value > best_value:
            best, best_value = [pick], value
        elif value == best_value:
            best.append(pick)
    return best[0] if len(best) == 1 else best[int(rng.random() * len(best))]


def playout_policy_move(state: State, rng: random.Random) -> Move:
    """One move of the playout policy: random actions, charm-greedy picks."""
    if state.offer is not None:
        return best_pick(state, rng)
    moves = state.legal_moves
    return moves[int(rng.random() * len(moves))]


def play_round(state: State, rng: random.Random) -> State:
    """Play the policy until the current round has been scored (or the game is over)."""
    number = state.round
    while state.to_move is not None and state.round == number:
        state = state.apply(playout_policy_move(state, rng))
    return state
