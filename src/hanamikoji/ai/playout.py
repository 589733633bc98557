"""Fast playout policies for the searches: cheap moves that are not silly.

The policy plays actions at random but answers every Gift and Competition with the pick that
wins the most charm on the geisha involved, as a real opponent would. Random picks make every
offer look far better than it is; this one costs a few microseconds a pick.
"""

from __future__ import annotations

import random

from hanamikoji.ai.greedy import outlook
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
    mine, theirs = state.packed(me).played, state.packed(1 - me).played
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


# -- a smarter, still cheap, action policy ---------------------------------------------------


# _GAIN[owner][d]: what one more card on one's own side is worth, by the card difference d and
# the marker's holder (owner +1 mine, -1 theirs), on greedy's outlook of a geisha.
_GAIN = {o: {d: outlook(d + 1, o) - outlook(d, o) for d in range(-12, 12)} for o in (-1, 0, 1)}


def _margins(mine: int, theirs: int, markers: tuple[int | None, ...], me: int) -> list[float]:
    out = []
    for g in range(7):
        d = ((mine >> (4 * g)) & 15) - ((theirs >> (4 * g)) & 15)
        m = markers[g]
        owner = 0 if m is None else (1 if m == me else -1)
        out.append(CHARM[g] * _GAIN[owner][d])
    return out


_INDEX: dict[Move, tuple[int, ...]] = {}


def _index(move: Move) -> tuple[int, ...]:
    """The geisha indices (0..6) of a move's cards, cached per (interned) move."""
    idx = _INDEX.get(move)
    if idx is None:
        idx = _INDEX[move] = tuple(ord(c) - 49 for c in move.cards)
    return idx


def smart_move(state: State, rng: random.Random, candidates: int = 6) -> Move:
    """A cheap heuristic move: best picks, valuable Secrets, worthless Discards, offers that
    give the opponent least whatever it takes (among a few sampled candidates)."""
    if state.offer is not None:
        return best_pick(state, rng)
    me = state.to_move
    assert me is not None
    cards = state.packed(me)
    mine = cards.played + cards.secret
    theirs = state.packed(1 - me).played
    markers = state.markers
    own = _margins(mine, theirs, markers, me)
    other = _margins(theirs, mine, markers, 1 - me)
    moves = state.legal_moves
    if len(moves) > candidates * 4:
        moves = tuple(moves[int(rng.random() * len(moves))] for _ in range(candidates * 4))
    mine_of = own.__getitem__
    both_of = [a + b for a, b in zip(own, other, strict=True)].__getitem__
    best, best_value = moves[0], -1e9
    uniform = rng.random
    for m in moves:
        v = sum(map(mine_of, _index(m)))
        bit = m.bit
        if bit == 1:  # Secret
            v += 0.5
        elif bit == 2:  # Discard
            v = -v
        else:  # an offer: we keep the cards, less the pick that costs us most
            v -= max(sum(map(both_of, _index(p))) for p in m.picks)
        v += uniform() * 0.3  # break ties, keep some variety
        if v > best_value:
            best, best_value = m, v
    return best


def play_round_smart(state: State, rng: random.Random) -> State:
    """Play :func:`smart_move` for both sides until the current round has been scored."""
    number = state.round
    while state.to_move is not None and state.round == number:
        state = state.apply(smart_move(state, rng))
    return state
