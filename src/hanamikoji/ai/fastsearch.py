"""ISMCTS compiled with numba: the same search as :class:`~hanamikoji.ai.ismcts.IsmctsAgent`,
with tens of times the iterations a second (docs/ai.md, Speed).

One call of :func:`fast_search` searches a decision from a seat's VIEW. Every iteration deals the
unseen cards afresh (the opponent's hand and Secret, the pile still to be drawn; the removed card
and the opponent's Discard take the rest), walks one shared tree of the current round with UCB1
and availability counts, adds one node, plays greedy for both seats to the round's end
(:mod:`hanamikoji.ai.fastplay`'s kernel) and reads the between-rounds value table. As in the
Python search, the tree is keyed by moves as the searching seat observes them: the opponent's
Secret and Discard are one edge each, and which cards stand behind them in a world is drawn at
random (``hidden="random"``) or is greedy's choice with that world's hand (``hidden="greedy"``).
A progressive bias from greedy's evaluation may favour the root moves (``prior``), and below the
root greedy's evaluation of each edge in the world at hand (``guide``): it orders the new edges
and adds a bias that fades with visits. Options for experiments: random actions in the playouts
(``noise``), another value table (``values``), the opponent's picks as greedy's (``model``).

The positions are :mod:`hanamikoji.ai.fastplay`'s int64 vectors; the tree is arrays (visits,
rewards, availability) with an open-addressing table from (node, edge) to child. Random numbers
come from one splitmix64 stream seeded from the caller's ``random.Random``, so a search with a
fixed number of iterations is deterministic for a seed, however it is cut into chunks.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.ai.belief import determinize, hidden_slots, unseen_cards
from hanamikoji.ai.fastplay import (
    _ID,
    _MAX_MOVES,
    NRESULT,
    P_ACTIONS,
    P_DECK,
    P_HAND,
    P_OFFER,
    P_PLAYED,
    P_RNG,
    P_SECRET,
    P_TO_MOVE,
    P_TURN,
    _choose,
    _legal,
    _position,
    _rand_below,
    _relative,
    _round_end,
    _score,
    _step,
    _tables,
)
from hanamikoji.cards import pack, unpack
from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.batch import _H, _T, T_CODE, T_TYPE, _jit, _jit_inline
from hanamikoji.moves import Action, Move
from hanamikoji.state import Rules, State
from hanamikoji.view import SeenMove, View

__all__ = ["HIDDEN_POLICIES", "FastSearch", "fast_search"]

HIDDEN_POLICIES = ("random", "greedy")
"""How a world's opponent chooses the cards behind its Secret or Discard edge."""

K_SECRET = NUM_ACTIONS  # the opponent's Secret, as the searcher sees it
K_DISCARD = NUM_ACTIONS + 1  # the opponent's Discard
K_DRAW = NUM_ACTIONS + 2  # + geisha index: the card the searching seat draws (``draws``)
NKEYS = NUM_ACTIONS + 9

# counters: nodes in use, the search's random stream, iterations done
C_NODES, C_RNG, C_DONE = 0, 1, 2

_GOLD = np.uint64(0x9E3779B97F4A7C15)


@_jit_inline
def _slot(hkeys: Any, shift: int, hk: int) -> np.int64:
    """The table slot holding key ``hk`` (stored as hk + 1), or the empty (0) slot for it."""
    mask = np.int64(hkeys.shape[0] - 1)
    i = np.int64((np.uint64(hk) * _GOLD) >> np.uint64(shift))
    while hkeys[i] != hk + 1 and hkeys[i] != 0:
        i = (i + 1) & mask
    return i


@_jit
def _rehash(hkeys: Any, hvals: Any, new_keys: Any, new_vals: Any, shift: int) -> None:
    """Move every (node, edge) -> child entry into a larger table."""
    for i in range(hkeys.shape[0]):
        if hkeys[i] != 0:
            s = _slot(new_keys, shift, hkeys[i] - 1)
            new_keys[s] = hkeys[i]
            new_vals[s] = hvals[i]


@_jit_inline
def _next_seed(counters: Any) -> np.int64:
    """The next 63-bit number of the search's own stream (splitmix64)."""
    s = np.uint64(counters[C_RNG]) + _GOLD
    counters[C_RNG] = np.int64(s)
    z = (s ^ (s >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z >> np.uint64(1))


@_jit_inline
def _deal(pos: Any, cards: Any, slots: Any, opp: int) -> None:
    """A world: shuffle the unseen cards into the opponent's hand and Secret and the pile."""
    for i in range(cards.shape[0] - 1, 0, -1):
        r = _rand_below(pos, i + 1)
        t = cards[i]
        cards[i] = cards[r]
        cards[r] = t
    k = 0
    hand = 0
    for _ in range(slots[0]):
        hand += cards[k]
        k += 1
    if slots[0]:  # (none when an oracle gives the true hand)
        pos[P_HAND + opp] = hand
    if slots[1]:
        pos[P_SECRET + opp] = cards[k]
        k += 1
    turn = pos[P_TURN]
    for j in range(slots[2]):
        pos[P_DECK + turn + 1 + j] = cards[k]
        k += 1


@_jit
def _deal_many(template: Any, cards: Any, slots: Any, opp: int, seed: int, out: Any) -> None:
    """``out.shape[0]`` worlds from ``template``, as :func:`_search` deals them (for tests)."""
    pos = template.copy()
    pos[P_RNG] = seed
    for w in range(out.shape[0]):
        _deal(pos, cards, slots, opp)
        out[w, :] = pos


@_jit_inline
def _pool_draw(
    pos: Any, pool: Any, spare: Any, cumulative: Any, slots: Any, counters: Any, buf: Any
) -> None:
    """A world of the belief's pool into ``pos`` (its random stream kept), chosen in proportion
    to its weight, with its pile shuffled afresh among the pile's cards and the world's spare
    ones: the weights judge the opponent's cards, and nothing has told the pile's order."""
    u = (_next_seed(counters) / 9.223372036854775808e18) * cumulative[-1]
    lo, hi = 0, pool.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    rng = pos[P_RNG]
    pos[:] = pool[lo]
    pos[P_RNG] = rng
    first = P_DECK + pos[P_TURN] + 1
    m = slots[2]
    k = m + spare.shape[1]
    for j in range(m):
        buf[j] = pos[first + j]
    for j in range(spare.shape[1]):
        buf[m + j] = spare[lo, j]
    for i in range(k - 1, 0, -1):
        r = _rand_below(pos, i + 1)
        t = buf[i]
        buf[i] = buf[r]
        buf[r] = t
    for j in range(m):
        pos[first + j] = buf[j]


@_jit
def _pool_draws(
    template: Any, pool: Any, spare: Any, cumulative: Any, slots: Any, seed: int, out: Any
) -> None:
    """``out.shape[0]`` worlds drawn from the pool as :func:`_search` draws them (for tests)."""
    pos = template.copy()
    pos[P_RNG] = seed
    counters = np.zeros(3, dtype=np.int64)
    counters[C_RNG] = seed ^ 0x5DEECE66D
    buf = np.empty(slots[2] + spare.shape[1] + 1, dtype=np.int64)
    for w in range(out.shape[0]):
        _pool_draw(pos, pool, spare, cumulative, slots, counters, buf)
        out[w, :] = pos


# An opponent decision this round as the searching seat saw it (``belief``): kind (0 Secret,
# 1 Discard, 2 Gift, 3 Competition, 4 a pick of the searcher's offer), turn, both sides played
# and both actions-left masks then, the offer picked from (else -1), the move's action id (-1 for
# a Secret or Discard, whose cards it did not see), whether its Secret was down by then.
X_KIND, X_TURN, X_PLAYED, X_ACTIONS, X_OFFER, X_MOVE, X_SECRET = 0, 1, 2, 4, 6, 7, 8
NX = 9


@_jit_inline
def _count(code: Any) -> Any:
    """How many cards a packed set holds."""
    n = 0
    for g in range(7):
        n += (code >> (4 * g)) & 15
    return n


@_jit_inline
def _geisha(card: Any) -> Any:
    """The geisha index (0..6) of a packed single card."""
    g = 0
    while card > 15:
        card >>= 4
        g += 1
    return g


@_jit_inline
def _weigh(
    world: Any,
    discard: int,
    decisions: Any,
    beta: float,
    opp: int,
    T: Any,
    H: Any,
    F: Any,
    hidden_ids: Any,
    scratch: Any,
    ids: Any,
    vals: Any,
    cache: Any,
    cvals: Any,
    used: Any,
    rel: Any,
) -> float:
    """The log-likelihood of the opponent's decisions in ``world`` if it chose as greedy does,
    softened (a move's chance is proportional to exp(beta * score)).

    Its hand at each decision is rebuilt backwards from the world's: the cards it used since
    go back in, and the card it drew at each of its turns comes out (drawn at random among the
    hand then: which card came last is hidden, and all are equally likely). Draws come from
    ``world``'s random stream. Each decision's best score and softmax normaliser depend only on
    the hand (and the opponent's Secret, once down): ``cache`` keeps them by that key.
    """
    hand = world[P_HAND + opp]
    total = 0.0
    mask = cache.shape[0] - 1
    _relative(world, opp, rel)  # the markers: the same all round
    for k in range(decisions.shape[0] - 1, -1, -1):
        kind = decisions[k, X_KIND]
        move = decisions[k, X_MOVE]
        if kind == 0:
            code = world[P_SECRET + opp]
            move = hidden_ids[_geisha(code)]
        elif kind == 1:
            code = discard
            first = _geisha(code & -code)  # the lower card's geisha, then the other's
            move = hidden_ids[7 + 7 * first + _geisha(code - (1 << (4 * first)))]
        elif kind <= 3:
            code = T[move, T_CODE]
        else:
            code = 0
        hand += code
        secret = world[P_SECRET + opp] if decisions[k, X_SECRET] else 0
        mine = decisions[k, X_PLAYED + opp] + secret
        theirs = decisions[k, X_PLAYED + 1 - opp]
        offer = decisions[k, X_OFFER]
        key = ((hand * 8 + (_geisha(secret) + 1 if secret else 0)) << 4) + k
        i = (key * 0x9E3779B1) & mask
        while cache[i] != 0 and cache[i] != key + 1:
            i = (i + 1) & mask
        if cache[i] == 0 and used[0] > mask // 2:  # half full: start it afresh
            cache[:] = 0
            used[0] = 0
            i = (key * 0x9E3779B1) & mask
        if cache[i] == 0:
            used[0] += 1
            scratch[:] = world
            scratch[P_HAND + opp] = hand
            scratch[P_ACTIONS] = decisions[k, X_ACTIONS]
            scratch[P_ACTIONS + 1] = decisions[k, X_ACTIONS + 1]
            scratch[P_OFFER] = offer
            scratch[P_TO_MOVE] = opp
            n = _legal(scratch, T, H, ids)
            top = -math.inf
            for j in range(n):
                vals[j] = _score(ids[j], offer, hand, mine, theirs, rel, T, F)
                top = max(top, vals[j])
            norm = 0.0
            for j in range(n):
                norm += math.exp(beta * (vals[j] - top))
            cache[i] = key + 1
            cvals[2 * i] = top
            cvals[2 * i + 1] = math.log(norm) if n else math.nan
        top = cvals[2 * i]
        lognorm = cvals[2 * i + 1]
        if not math.isnan(lognorm):
            chosen = _score(move, offer, hand, mine, theirs, rel, T, F)
            total += beta * (chosen - top) - lognorm
        if kind <= 3:  # before the action, the turn's draw: one of the hand's cards at random
            r = _rand_below(world, _count(hand))
            g = 0
            while True:
                c = (hand >> (4 * g)) & 15
                if r < c:
                    break
                r -= c
                g += 1
            hand -= 1 << (4 * g)
    return total


@_jit
def _weigh_one(
    world: Any,
    discard: int,
    decisions: Any,
    beta: float,
    opp: int,
    T: Any,
    H: Any,
    F: Any,
    hidden_ids: Any,
) -> float:
    """:func:`_weigh` of one world (for tests)."""
    return _weigh(
        world.copy(),
        discard,
        decisions,
        beta,
        opp,
        T,
        H,
        F,
        hidden_ids,
        np.empty_like(world),
        np.empty(_MAX_MOVES, dtype=np.int64),
        np.empty(_MAX_MOVES, dtype=np.float64),
        np.zeros(1 << 10, dtype=np.int64),
        np.empty(2 << 10, dtype=np.float64),
        np.zeros(1, dtype=np.int64),
        np.empty(7, dtype=np.int64),
    )


@_jit
def _belief_pool(
    template: Any,
    cards: Any,
    slots: Any,
    opp: int,
    decisions: Any,
    betas: Any,
    T: Any,
    H: Any,
    F: Any,
    seed: int,
    pool: Any,
    spare: Any,
    logw: Any,
    histories: int,
    hidden_ids: Any,
) -> None:
    """``pool.shape[0]`` worlds dealt as :func:`_deal` deals them, and for each softness in
    ``betas`` the log-likelihood of the opponent's decisions in each (``logw[w, b]``), averaged
    over ``histories`` random orders of its draws. ``spare[w]`` keeps the world's cards that are
    neither the opponent's nor in the pile (the removed card), which the search shuffles back
    into the pile world after world: the decisions weigh the opponent's cards, not the pile's
    order."""
    pos = template.copy()
    pos[P_RNG] = seed
    scratch = np.empty_like(template)
    ids = np.empty(_MAX_MOVES, dtype=np.int64)
    vals = np.empty(_MAX_MOVES, dtype=np.float64)
    rel = np.empty(7, dtype=np.int64)
    nb = betas.shape[0]
    logs = np.empty(histories, dtype=np.float64)
    cache = np.zeros((nb, 1 << 16), dtype=np.int64)  # (decision, hand, Secret) + 1, or 0
    cvals = np.empty((nb, 2 << 16), dtype=np.float64)  # its best score and log-normaliser
    used = np.zeros(nb, dtype=np.int64)
    placed = slots[0] + slots[1] + slots[2]
    for w in range(pool.shape[0]):
        _deal(pos, cards, slots, opp)
        discard = cards[placed] + cards[placed + 1] if slots[3] else 0
        pool[w, :] = pos
        rest = placed + (2 if slots[3] else 0)
        for j in range(spare.shape[1]):
            spare[w, j] = cards[rest + j]
        rng = pos[P_RNG]  # the same draws for every softness
        for b in range(nb):
            pos[P_RNG] = rng
            top = -math.inf
            for h in range(histories):
                x = _weigh(
                    pos,
                    discard,
                    decisions,
                    betas[b],
                    opp,
                    T,
                    H,
                    F,
                    hidden_ids,
                    scratch,
                    ids,
                    vals,
                    cache[b],
                    cvals[b],
                    used[b : b + 1],
                    rel,
                )
                logs[h] = x
                top = max(top, x)
            mean = 0.0
            for h in range(histories):
                mean += math.exp(logs[h] - top)
            logw[w, b] = top + math.log(mean / histories)


@_jit_inline
def _rollout(pos: Any, T: Any, H: Any, F: Any, out: Any, noise: float, rel: Any, ids: Any) -> float:
    """Greedy for both seats to the round's end, but a share ``noise`` of the actions (not the
    picks) at random; then the round's scoring and the value table: seat 0's expected score."""
    _relative(pos, 0, rel[0])
    _relative(pos, 1, rel[1])
    threshold = np.int64(noise * (1 << 30))
    while pos[P_TURN] < 8:
        if threshold > 0 and pos[P_OFFER] < 0 and _rand_below(pos, 1 << 30) < threshold:
            n = _legal(pos, T, H, ids)
            a = ids[_rand_below(pos, n)]
        else:
            a = _choose(pos, T, H, F, rel[pos[P_TO_MOVE]], ids)
        _step(pos, a, T)
    return _round_end(pos, F, out)


@_jit
def _search(
    template: Any,
    unseen: Any,
    slots: Any,
    me: int,
    T: Any,
    H: Any,
    F: Any,
    N: Any,
    W: Any,
    A: Any,
    hkeys: Any,
    hvals: Any,
    shift: int,
    counters: Any,
    bias: Any,
    allowed: Any,
    prior: float,
    c: float,
    iterations: int,
    hidden_greedy: bool,
    noise: float,
    model_pick: bool,
    guide: float,
    draws: bool,
    pool: Any,
    spare: Any,
    cumulative: Any,
) -> None:
    """Run up to ``iterations`` more iterations on the tree (node 0 is the root).

    ``slots``: how many unseen cards go to the opponent's hand, its Secret (0 or 1) and the pile
    still to be drawn; the rest of ``unseen`` (packed single cards, shuffled in place) is the
    removed card and the opponent's Discard. Stops early when the node arrays are full.
    """
    opp = 1 - me
    cards = unseen  # shuffled in place, iteration after iteration
    pos = template.copy()
    ids = np.empty(_MAX_MOVES, dtype=np.int64)
    keys = np.empty(_MAX_MOVES, dtype=np.int64)
    kids = np.empty(_MAX_MOVES, dtype=np.int64)
    untried = np.empty(_MAX_MOVES, dtype=np.int64)
    marks = np.empty(_MAX_MOVES, dtype=np.float64)
    path = np.empty(64, dtype=np.int64)
    movers = np.empty(64, dtype=np.int64)
    rel = np.empty(7, dtype=np.int64)
    rels = np.empty((2, 7), dtype=np.int64)
    more = np.empty(_MAX_MOVES, dtype=np.int64)
    out = np.empty(NRESULT, dtype=np.int64)
    capacity = N.shape[0]
    per = 5 if draws else 1  # the most nodes one iteration adds
    for _ in range(iterations):
        if counters[C_NODES] + per > capacity:
            return
        pos[:] = template
        pos[P_RNG] = _next_seed(counters)
        if pool.shape[0] > 0:  # a world of the weighted pool, in proportion to its weight
            _pool_draw(pos, pool, spare, cumulative, slots, counters, more)
        else:
            _deal(pos, cards, slots, opp)
        # Down the tree.
        node = 0
        depth = 0
        while True:
            mover = pos[P_TO_MOVE]
            offer = pos[P_OFFER]
            if draws and node != 0 and mover == me and offer < 0:
                # A new turn of the searching seat: its draw, which it sees, is a chance edge.
                hk = node * NKEYS + K_DRAW + _geisha(pos[P_DECK + pos[P_TURN]])
                s = _slot(hkeys, shift, hk)
                if hkeys[s] == 0:
                    ch = counters[C_NODES]
                    counters[C_NODES] = ch + 1
                    N[ch] = 0
                    W[ch] = 0.0
                    A[ch] = 1
                    hkeys[s] = hk + 1
                    hvals[s] = ch
                    node = ch
                else:
                    node = hvals[s]
            if model_pick and mover != me and offer >= 0:
                # The opponent picks as greedy would with the hand this world gives it.
                _relative(pos, mover, rel)
                ids[0] = _choose(pos, T, H, F, rel, ids)
                n = 1
            else:
                n = _legal(pos, T, H, ids)
                if node == 0:  # only the root moves the caller allows
                    m = 0
                    for i in range(n):
                        if allowed[ids[i]]:
                            ids[m] = ids[i]
                            m += 1
                    n = m
            nk = 0
            for i in range(n):
                key = ids[i]
                if mover != me and offer < 0:
                    kind = T[key, T_TYPE]
                    if kind == 0:
                        key = K_SECRET
                    elif kind == 1:
                        key = K_DISCARD
                if nk > 0 and keys[nk - 1] == key:
                    continue
                keys[nk] = key
                nk += 1
            nu = 0
            base = node * NKEYS
            for i in range(nk):
                s = _slot(hkeys, shift, base + keys[i])
                if hkeys[s] == 0:
                    kids[i] = -1
                    untried[nu] = i
                    nu += 1
                else:
                    ch = hvals[s]
                    kids[i] = ch
                    A[ch] += 1
            at_root = node == 0 and prior > 0.0
            guided = node != 0 and guide > 0.0
            if guided:  # greedy's judgement of each edge in this world, scaled to 0..1
                _relative(pos, mover, rel)
                hand = pos[P_HAND + mover]
                mine = pos[P_PLAYED + mover] + pos[P_SECRET + mover]
                theirs = pos[P_PLAYED + 1 - mover]
                k = -1
                for i in range(n):
                    v = _score(ids[i], offer, hand, mine, theirs, rel, T, F)
                    key = ids[i]
                    if mover != me and offer < 0 and T[key, T_TYPE] <= 1:
                        key = K_SECRET if T[key, T_TYPE] == 0 else K_DISCARD
                    if k < 0 or keys[k] != key:
                        k += 1
                        marks[k] = v
                    elif v > marks[k]:
                        marks[k] = v
                low = marks[0]
                high = marks[0]
                for i in range(1, nk):
                    low = min(low, marks[i])
                    high = max(high, marks[i])
                span = high - low if high > low else 1.0
                for i in range(nk):
                    marks[i] = (marks[i] - low) / span
            if nu > 0:
                if at_root:  # the heuristic's favourite first
                    pick = untried[0]
                    for u in range(1, nu):
                        if bias[keys[untried[u]]] > bias[keys[pick]]:
                            pick = untried[u]
                elif guided:
                    pick = untried[0]
                    for u in range(1, nu):
                        if marks[untried[u]] > marks[pick]:
                            pick = untried[u]
                else:
                    pick = untried[_rand_below(pos, nu)]
                ch = counters[C_NODES]
                counters[C_NODES] = ch + 1
                N[ch] = 0
                W[ch] = 0.0
                A[ch] = 1
                s = _slot(hkeys, shift, base + keys[pick])
                hkeys[s] = base + keys[pick] + 1
                hvals[s] = ch
                kids[pick] = ch
            else:
                best = -math.inf
                pick = 0
                for i in range(nk):
                    ch = kids[i]
                    score = W[ch] / N[ch] + c * math.sqrt(math.log(A[ch]) / N[ch])
                    if at_root:  # progressive bias, fading with visits
                        score += prior * bias[keys[i]] / (N[ch] + 1)
                    elif guided:  # greedy's judgement of the edge in this world
                        score += guide * marks[i] / (N[ch] + 1)
                    if score > best:
                        best = score
                        pick = i
            key = keys[pick]
            if key >= NUM_ACTIONS:  # the opponent's hidden cards in this world
                kind = 0 if key == K_SECRET else 1
                a = -1
                if hidden_greedy:
                    _relative(pos, mover, rel)
                    hand = pos[P_HAND + mover]
                    mine = pos[P_PLAYED + mover] + pos[P_SECRET + mover]
                    theirs = pos[P_PLAYED + 1 - mover]
                    top = -math.inf
                    for i in range(n):
                        if T[ids[i], T_TYPE] == kind:
                            v = _score(ids[i], -1, hand, mine, theirs, rel, T, F)
                            if v > top:
                                top = v
                                a = ids[i]
                else:
                    m = 0
                    for i in range(n):
                        if T[ids[i], T_TYPE] == kind:
                            m += 1
                    r = _rand_below(pos, m)
                    for i in range(n):
                        if T[ids[i], T_TYPE] == kind:
                            if r == 0:
                                a = ids[i]
                                break
                            r -= 1
            else:
                a = key
            path[depth] = kids[pick]
            movers[depth] = mover
            depth += 1
            _step(pos, a, T)
            node = kids[pick]
            if nu > 0 or pos[P_TURN] >= 8:
                break
        value0 = _rollout(pos, T, H, F, out, noise, rels, more)
        for d in range(depth):
            ch = path[d]
            N[ch] += 1
            W[ch] += value0 if movers[d] == 0 else 1.0 - value0
        counters[C_DONE] += 1


def _hidden_ids() -> npt.NDArray[np.int64]:
    """The action ids of each Secret (by geisha index), then of each Discard (7 * lower + upper)."""
    out = np.full(7 + 49, -1, dtype=np.int64)
    for g in range(7):
        out[g] = _ID[Move(Action.SECRET, str(g + 1))]
        for h in range(g, 7):
            out[7 + 7 * g + h] = _ID[Move(Action.DISCARD, f"{g + 1}{h + 1}")]
    return out


_HIDDEN_IDS = _hidden_ids()


def opponent_decisions(view: View) -> npt.NDArray[np.int64]:
    """The opponent's decisions this round as ``view``'s seat saw them (rows of ``NX``)."""
    opp = view.opponent
    played = [0, 0]
    actions = [15, 15]
    turn = 0
    pending, pending_code, offerer = -1, 0, 0
    secret = 0
    rows: list[tuple[int, ...]] = []
    for entry in view.history:
        if not isinstance(entry, SeenMove) or entry.round != view.round:
            continue
        text, seat = entry.move, entry.seat
        letter = text[0]
        if letter == "P":
            if seat == opp:
                move = _ID[Move.parse(text)]
                rows.append((4, turn, *played, *actions, pending, move, secret))
            take = pack(text[1:])
            played[seat] += take
            played[offerer] += pending_code - take
            pending = -1
            turn += 1
            continue
        kind = "SDGC".index(letter)
        if seat == opp:
            move = _ID[Move.parse(text)] if kind >= 2 else -1
            rows.append((kind, turn, *played, *actions, -1, move, secret))
        actions[seat] &= ~(1 << kind)
        if kind >= 2:
            offered = Move.parse(text)
            pending, pending_code, offerer = _ID[offered], offered.code, seat
        else:
            if seat == opp and kind == 0:
                secret = 1
            turn += 1
    return np.array(rows, dtype=np.int64).reshape(len(rows), NX)


class FastSearch:
    """One decision's search tree, grown in chunks of iterations (so a clock can stop it).

    The root's moves are ``legal`` (a subset of the view's legal moves; all of them by default);
    ``truth`` and ``pile`` are :func:`fast_search`'s oracle.

    With ``belief`` > 0 the worlds are not dealt afresh but drawn from a pool of ``pool`` dealt
    worlds, each in proportion to how likely the opponent's decisions this round are in it if
    it chose as greedy does, softened: a move's chance proportional to exp(beta * score), with
    beta = ``belief``, or with ``mix`` a mixture of beta in (0, belief/9, belief/3, belief),
    whose log prior weights are ``odds`` (equal by default). ``evidence`` is then each beta's log
    mean likelihood over the pool (how well it explains this round's decisions), which a player
    can carry into the next round's ``odds``. With ``mix`` and ``adapt`` > 0, when the mixture
    gives at least ``adapt`` to the two sharpest softnesses (the opponent chooses much as greedy
    does), the opponent's picks are searched as greedy's (``model="pick"``).
    """

    N: npt.NDArray[np.int32]
    W: npt.NDArray[np.float64]
    A: npt.NDArray[np.int32]
    hkeys: npt.NDArray[np.int64]
    hvals: npt.NDArray[np.int32]

    def __init__(
        self,
        view: View,
        rng: random.Random,
        *,
        capacity: int,
        legal: Sequence[Move] | None = None,
        exploration: float = 0.7,
        prior: float = 0.0,
        bias: dict[Move, float] | None = None,
        hidden: str = "random",
        noise: float = 0.0,
        values: str = "playout",
        model: str = "none",
        guide: float = 0.0,
        draws: bool = False,
        rules: Rules | None = None,
        truth: State | None = None,
        pile: bool = False,
        belief: float = 0.0,
        pool: int = 2048,
        histories: int = 1,
        mix: bool = False,
        odds: Sequence[float] | None = None,
        adapt: float = 0.0,
    ) -> None:
        self.draws = bool(draws)
        self.per = 5 if draws else 1  # the most nodes one iteration adds (as _search's)
        if guide < 0:
            raise ValueError(f"guide must be 0 or more, got {guide}")
        self.guide = float(guide)
        if model not in ("none", "pick"):
            raise ValueError(f"the fast search models the opponent's picks or nothing: {model!r}")
        self.model_pick = model == "pick"
        self.F = _tables(values)[0]
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be between 0 and 1, got {noise}")
        self.noise = float(noise)
        if hidden not in HIDDEN_POLICIES:
            known = ", ".join(HIDDEN_POLICIES)
            raise ValueError(f"unknown hidden-move policy {hidden!r}; known: {known}")
        if view.to_move != view.seat:
            raise ValueError("the view's seat is not the one to move")
        self.view = view
        self.me = view.seat
        if truth is None:
            world = determinize(view, rng, rules=rules)
            cards = unseen_cards(view)
            slots = hidden_slots(view)
            counts = (slots.hand, slots.secret, slots.deck)
        else:  # an oracle, for experiments: the opponent's cards (and the pile) are the true ones
            world = truth
            turn = truth._turn
            rest = "".join(unpack(c) for c in truth._r.deck_codes[turn + 1 : 8])
            cards = "" if pile else rest + truth._r.deal.removed
            counts = (0, 0, 0 if pile else len(rest))
        self.template = _position(world, rng)
        self.unseen = np.array([pack(c) for c in cards], dtype=np.int64)
        discards = 2 if truth is None and "D" not in view.actions_left[1 - self.me] else 0
        self.slots = np.array((*counts, discards), dtype=np.int64)
        if belief < 0 or pool < 1 or histories < 1:
            raise ValueError(
                f"belief must be 0 or more, pool and histories 1 or more: {belief}, {pool}, "
                f"{histories}"
            )
        self.pool = np.zeros((0, len(self.template)), dtype=np.int64)
        # The unseen cards neither the opponent's nor the pile's (the removed card).
        left = len(self.unseen) - int(self.slots.sum())
        self.spare = np.zeros((0, max(0, left)), dtype=np.int64)
        self.cumulative = np.zeros(0, dtype=np.float64)
        self.logw = self.cumulative
        decisions = opponent_decisions(view)
        # One softness, or a mixture of four from a uniformly random opponent up to ``belief``.
        self.betas = (0.0, belief / 9, belief / 3, belief) if mix else (belief,)
        self.evidence = np.zeros(0, dtype=np.float64)
        lean = np.zeros(len(self.betas)) if odds is None else np.asarray(odds, dtype=float)
        if lean.shape != (len(self.betas),):
            raise ValueError(f"odds needs one log-weight per softness: {len(self.betas)}")
        if belief > 0 and truth is None and len(decisions):
            self.pool = np.empty((pool, len(self.template)), dtype=np.int64)
            self.spare = np.empty((pool, max(0, left)), dtype=np.int64)
            logs = np.empty((pool, len(self.betas)), dtype=np.float64)
            _belief_pool(
                self.template,
                self.unseen.copy(),
                self.slots,
                1 - self.me,
                decisions,
                np.array(self.betas, dtype=np.float64),
                _T,
                _H,
                self.F,
                rng.getrandbits(63),
                self.pool,
                self.spare,
                logs,
                histories,
                _HIDDEN_IDS,
            )
            # How well each softness explains the decisions: log mean likelihood over the pool.
            top = logs.max(axis=0)
            self.evidence = top + np.log(np.exp(logs - top).mean(axis=0))
            # Each world weighed by the mixture: sum over softness of prior * likelihood.
            mixed = logs + (lean - lean.max())
            peak = mixed.max(axis=1, keepdims=True)
            self.logw = (peak + np.log(np.exp(mixed - peak).sum(axis=1, keepdims=True)))[:, 0]
            self.cumulative = np.cumsum(np.exp(self.logw - self.logw.max()))
        # How sure the mixture is that the opponent chooses much as greedy does (the two
        # sharpest softnesses); with ``adapt`` its picks are then searched as greedy's.
        post = lean + (self.evidence if len(self.evidence) else 0.0)
        post = np.exp(post - post.max())
        self.greedy_like = float(post[-2:].sum() / post.sum()) if mix else 0.0
        if not 0.0 <= adapt <= 1.0:
            raise ValueError(f"adapt must be between 0 and 1, got {adapt}")
        if mix and adapt > 0 and self.greedy_like >= adapt:
            self.model_pick = True
        self.limit = max(2, capacity)  # the most nodes the tree may grow to
        self._allocate(min(self.limit, 1 << 16))
        self.counters = np.array((1, rng.getrandbits(63), 0), dtype=np.int64)  # node 0: root
        self.allowed = np.zeros(NKEYS, dtype=np.bool_)
        moves = view.legal_moves if legal is None else legal
        if not moves or not set(moves) <= set(view.legal_moves):
            raise ValueError("the root moves must be some of the view's legal moves")
        for move in moves:
            self.allowed[_ID[move]] = True
        self.bias = np.zeros(NKEYS, dtype=np.float64)
        if bias:
            for move, b in bias.items():
                self.bias[_ID[move]] = b
        self.prior = float(prior) if bias else 0.0
        self.exploration = float(exploration)
        self.hidden_greedy = hidden == "greedy"

    def _allocate(self, capacity: int) -> None:
        """Node arrays for ``capacity`` nodes, the edge table twice that or more; keeps the tree."""
        bits = max(4, (2 * capacity - 1).bit_length())
        hkeys = np.zeros(1 << bits, dtype=np.int64)
        hvals = np.zeros(1 << bits, dtype=np.int32)
        N = np.zeros(capacity, dtype=np.int32)
        W = np.zeros(capacity, dtype=np.float64)
        A = np.zeros(capacity, dtype=np.int32)
        if hasattr(self, "N"):
            used = len(self.N)
            N[:used], W[:used], A[:used] = self.N, self.W, self.A
            _rehash(self.hkeys, self.hvals, hkeys, hvals, 64 - bits)
        self.N, self.W, self.A, self.hkeys, self.hvals = N, W, A, hkeys, hvals
        self.shift = 64 - bits

    def worlds(self, count: int, seed: int) -> npt.NDArray[np.int64]:
        """``count`` positions dealt as the search deals them (rows of fastplay's vectors)."""
        out = np.empty((count, len(self.template)), dtype=np.int64)
        _deal_many(self.template, self.unseen.copy(), self.slots, 1 - self.me, seed, out)
        return out

    def pool_worlds(self, count: int, seed: int) -> npt.NDArray[np.int64]:
        """``count`` positions drawn from the belief's pool as the search draws them (rows of
        fastplay's vectors); the belief must have a pool (opponent decisions to weigh)."""
        if not len(self.pool):
            raise ValueError("no belief pool: the search has no belief or nothing to weigh")
        out = np.empty((count, len(self.template)), dtype=np.int64)
        _pool_draws(self.template, self.pool, self.spare, self.cumulative, self.slots, seed, out)
        return out

    @property
    def iterations(self) -> int:
        """Iterations done so far."""
        return int(self.counters[C_DONE])

    @property
    def full(self) -> bool:
        """Whether the tree has grown to its limit."""
        return bool(self.counters[C_NODES] + self.per > self.limit)

    def run(self, iterations: int) -> None:
        """Up to ``iterations`` more iterations (fewer once the tree is full)."""
        need = self.counters[C_NODES] + iterations * self.per
        while need > len(self.N) and len(self.N) < self.limit:
            self._allocate(min(self.limit, 4 * len(self.N)))
        _search(
            self.template,
            self.unseen,
            self.slots,
            self.me,
            _T,
            _H,
            self.F,
            self.N,
            self.W,
            self.A,
            self.hkeys,
            self.hvals,
            self.shift,
            self.counters,
            self.bias,
            self.allowed,
            self.prior,
            self.exploration,
            iterations,
            self.hidden_greedy,
            self.noise,
            self.model_pick,
            self.guide,
            self.draws,
            self.pool,
            self.spare,
            self.cumulative,
        )

    def root(self, legal: Sequence[Move]) -> list[tuple[Move, int, float]]:
        """Each legal move's (move, visits, mean reward for the searching seat)."""
        out = []
        for move in legal:
            hk = _ID[move]  # node 0: the key is the action id itself
            s = int(_slot(self.hkeys, self.shift, hk))
            if self.hkeys[s] == 0:
                out.append((move, 0, 0.0))
            else:
                ch = int(self.hvals[s])
                n = int(self.N[ch])
                out.append((move, n, float(self.W[ch]) / n if n else 0.0))
        return out


def fast_search(
    view: View,
    legal: Sequence[Move],
    rng: random.Random,
    *,
    iterations: int = 0,
    seconds: float = math.inf,
    exploration: float = 0.7,
    prior: float = 0.0,
    bias: dict[Move, float] | None = None,
    hidden: str = "random",
    noise: float = 0.0,
    values: str = "playout",
    model: str = "none",
    guide: float = 0.0,
    draws: bool = False,
    rules: Rules | None = None,
    chunk: int = 256,
    truth: State | None = None,
    pile: bool = False,
    belief: float = 0.0,
    pool: int = 2048,
    histories: int = 1,
    mix: bool = False,
    odds: Sequence[float] | None = None,
    adapt: float = 0.0,
) -> tuple[list[tuple[Move, int, float]], int, npt.NDArray[np.float64]]:
    """Search a decision: each legal move's (move, visits, value), the iterations done, and
    the belief's evidence for each softness (empty without a belief; see :class:`FastSearch`).

    Stops after ``iterations`` (if more than 0) or when ``seconds`` have passed, whichever
    comes first (one of them must be set). ``truth``, for experiments (``bench/information.py``),
    is the true state: every world holds the opponent's true hand, Secret and Discard, and with
    ``pile`` the true order of the pile too (else the pile is shuffled).
    """
    if iterations <= 0 and seconds == math.inf:
        raise ValueError("give the search iterations or seconds")
    start = time.perf_counter()
    limit = iterations if iterations > 0 else 2**62
    # A node an iteration (or up to five with ``draws``): room for the fastest searches (late in
    # a round) the clock allows.
    per = 5 if draws else 1
    rate = 1_000_000 * (2 if draws else 1)
    capacity = per * limit + 1 if iterations > 0 else int(min(seconds, 8.0) * rate) + 4096
    tree = FastSearch(
        view,
        rng,
        capacity=min(capacity, 1 << 23),
        legal=legal,
        exploration=exploration,
        prior=prior,
        bias=bias,
        hidden=hidden,
        noise=noise,
        values=values,
        model=model,
        guide=guide,
        draws=draws,
        rules=rules,
        truth=truth,
        pile=pile,
        belief=belief,
        pool=pool,
        histories=histories,
        mix=mix,
        odds=odds,
        adapt=adapt,
    )
    deadline = start + seconds
    while tree.iterations < limit and not tree.full:
        tree.run(min(chunk, limit - tree.iterations))
        if time.perf_counter() >= deadline:
            break
    return tree.root(legal), tree.iterations, tree.evidence
