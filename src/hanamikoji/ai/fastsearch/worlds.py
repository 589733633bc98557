"""The worlds a search plays in: the unseen cards dealt afresh, or drawn from the belief's
weighted pool with the pile shuffled anew.

A world is a kernel row (:mod:`hanamikoji.kernel.row`). The unseen cards are digits (1..7);
``slots`` says how many go to the opponent's hand, its Secret (0 or 1) and the pile still to be
drawn, and whether the opponent's Discard (two cards) is hidden; the rest is the removed card.
:class:`Dealing` is what a search deals from; :func:`dealing` builds it from a VIEW, and an
experiment may build one that knows more (``bench/information.py``).
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

import numpy as np

from hanamikoji.ai.belief import determinize, hidden_slots, unseen_cards
from hanamikoji.kernel.jit import jit, jit_inline
from hanamikoji.kernel.row import C_DECK, C_HAND, C_RNG, C_SECRET, C_TURN
from hanamikoji.kernel.rules import rand_below
from hanamikoji.kernel.tables import card_code
from hanamikoji.state import Rules, State
from hanamikoji.view import View

from .tree import next_seed

__all__ = ["Dealing", "dealing"]


class Dealing(NamedTuple):
    """What a search deals its worlds from: a world consistent with what the searcher knows,
    the cards it does not know (digits as text), and how many of them go to the opponent's
    hand, its Secret, the pile still to be drawn, and its Discard (2 or 0)."""

    world: State
    cards: str
    slots: tuple[int, int, int, int]


def dealing(view: View, rng: random.Random, rules: Rules | None = None) -> Dealing:
    """The dealing of a VIEW: the unseen cards, shuffled into the places it cannot see."""
    world = determinize(view, rng, rules=rules)
    slots = hidden_slots(view)
    discards = 2 if "D" not in view.actions_left[view.opponent] else 0
    return Dealing(world, unseen_cards(view), (slots.hand, slots.secret, slots.deck, discards))


@jit_inline
def deal(row: Any, cards: Any, slots: Any, opp: int) -> None:
    """A world: shuffle the unseen cards into the opponent's hand and Secret and the pile."""
    for i in range(cards.shape[0] - 1, 0, -1):
        r = rand_below(row, i + 1)
        t = cards[i]
        cards[i] = cards[r]
        cards[r] = t
    k = 0
    hand = 0
    for _ in range(slots[0]):
        hand += card_code(cards[k])
        k += 1
    if slots[0]:  # (none when an oracle gives the true hand)
        row[C_HAND + opp] = hand
    if slots[1]:
        row[C_SECRET + opp] = card_code(cards[k])
        k += 1
    turn = row[C_TURN]
    for j in range(slots[2]):
        row[C_DECK + turn + 1 + j] = cards[k]
        k += 1


@jit
def deal_many(template: Any, cards: Any, slots: Any, opp: int, seed: int, out: Any) -> None:
    """``out.shape[0]`` worlds from ``template``, as the search deals them (for tests)."""
    row = template.copy()
    row[C_RNG] = seed
    for w in range(out.shape[0]):
        deal(row, cards, slots, opp)
        out[w, :] = row


@jit_inline
def pool_draw(
    row: Any, pool: Any, spare: Any, cumulative: Any, slots: Any, counters: Any, buf: Any
) -> None:
    """A world of the belief's pool into ``row`` (its random stream kept), chosen in proportion
    to its weight, with its pile shuffled afresh among the pile's cards and the world's spare
    ones: the weights judge the opponent's cards, and nothing has told the pile's order."""
    u = (next_seed(counters) / 9.223372036854775808e18) * cumulative[-1]
    lo, hi = 0, pool.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    rng = row[C_RNG]
    row[:] = pool[lo]
    row[C_RNG] = rng
    first = C_DECK + row[C_TURN] + 1
    m = slots[2]
    k = m + spare.shape[1]
    for j in range(m):
        buf[j] = row[first + j]
    for j in range(spare.shape[1]):
        buf[m + j] = spare[lo, j]
    for i in range(k - 1, 0, -1):
        r = rand_below(row, i + 1)
        t = buf[i]
        buf[i] = buf[r]
        buf[r] = t
    for j in range(m):
        row[first + j] = buf[j]


@jit
def pool_draws(
    template: Any, pool: Any, spare: Any, cumulative: Any, slots: Any, seed: int, out: Any
) -> None:
    """``out.shape[0]`` worlds drawn from the pool as the search draws them (for tests)."""
    row = template.copy()
    row[C_RNG] = seed
    counters = np.zeros(3, dtype=np.int64)
    counters[1] = seed ^ 0x5DEECE66D
    buf = np.empty(slots[2] + spare.shape[1] + 1, dtype=np.int64)
    for w in range(out.shape[0]):
        pool_draw(row, pool, spare, cumulative, slots, counters, buf)
        out[w, :] = row
