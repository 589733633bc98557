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
from hanamikoji.cards import pack
from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.batch import _H, _T, T_TYPE, _jit, _jit_inline
from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = ["HIDDEN_POLICIES", "FastSearch", "fast_search"]

HIDDEN_POLICIES = ("random", "greedy")
"""How a world's opponent chooses the cards behind its Secret or Discard edge."""

K_SECRET = NUM_ACTIONS  # the opponent's Secret, as the searcher sees it
K_DISCARD = NUM_ACTIONS + 1  # the opponent's Discard
NKEYS = NUM_ACTIONS + 2

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
    for _ in range(iterations):
        if counters[C_NODES] >= capacity:
            return
        pos[:] = template
        pos[P_RNG] = _next_seed(counters)
        _deal(pos, cards, slots, opp)
        # Down the tree.
        node = 0
        depth = 0
        while True:
            mover = pos[P_TO_MOVE]
            offer = pos[P_OFFER]
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


class FastSearch:
    """One decision's search tree, grown in chunks of iterations (so a clock can stop it).

    The root's moves are ``legal`` (a subset of the view's legal moves; all of them by default).
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
        rules: Rules | None = None,
    ) -> None:
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
        world = determinize(view, rng, rules=rules)
        self.template = _position(world, rng)
        cards = unseen_cards(view)
        self.unseen = np.array([pack(c) for c in cards], dtype=np.int64)
        slots = hidden_slots(view)
        self.slots = np.array((slots.hand, slots.secret, slots.deck), dtype=np.int64)
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

    @property
    def iterations(self) -> int:
        """Iterations done so far."""
        return int(self.counters[C_DONE])

    @property
    def full(self) -> bool:
        """Whether the tree has grown to its limit."""
        return bool(self.counters[C_NODES] >= self.limit)

    def run(self, iterations: int) -> None:
        """Up to ``iterations`` more iterations (fewer once the tree is full)."""
        while self.counters[C_NODES] + iterations > len(self.N) and len(self.N) < self.limit:
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
    rules: Rules | None = None,
    chunk: int = 256,
) -> tuple[list[tuple[Move, int, float]], int]:
    """Search a decision: each legal move's (move, visits, value), and the iterations done.

    Stops after ``iterations`` (if more than 0) or when ``seconds`` have passed, whichever
    comes first (one of them must be set).
    """
    if iterations <= 0 and seconds == math.inf:
        raise ValueError("give the search iterations or seconds")
    start = time.perf_counter()
    limit = iterations if iterations > 0 else 2**62
    # One node an iteration: room for the fastest searches (late in a round) the clock allows.
    capacity = limit + 1 if iterations > 0 else int(min(seconds, 8.0) * 1_000_000) + 4096
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
        rules=rules,
    )
    deadline = start + seconds
    while tree.iterations < limit and not tree.full:
        tree.run(min(chunk, limit - tree.iterations))
        if time.perf_counter() >= deadline:
            break
    return tree.root(legal), tree.iterations
