"""The fast search's iterations, compiled: down the tree with UCB1 and availability counts in a
world dealt afresh (or drawn from the belief's pool), one node added, greedy for both seats to
the round's end, the value table, and the reward backed up (:class:`~.search.FastSearch`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hanamikoji.ai.fastplay import MAX_MOVES, NRESULT, choose, relative, round_end
from hanamikoji.ai.fastplay import score as greedy_score
from hanamikoji.ai.net import row_pick, row_probs, row_value
from hanamikoji.kernel.actions import NUM_ACTIONS
from hanamikoji.kernel.jit import jit, jit_inline
from hanamikoji.kernel.row import (
    C_DISCARD,
    C_HAND,
    C_OFFER,
    C_PLAYED,
    C_RNG,
    C_SECRET,
    C_TO_MOVE,
    C_TURN,
)
from hanamikoji.kernel.rules import GOLDEN, apply, legal, mix, rand_below
from hanamikoji.kernel.tables import T_TYPE

from .tree import C_DONE, C_NODES, K_SECRET, NKEYS, child, next_seed, seen, slot
from .worlds import deal, pool_draw

__all__ = ["regrow_priors", "regrow_stats", "search"]


@jit
def regrow_stats(okeys: Any, oN: Any, oW: Any, keys: Any, visits: Any, totals: Any) -> None:
    """Move the opponent's statistics (``okeys``/``oN``/``oW``) into larger empty tables, each
    entry to the slot :func:`search` probes from for its key."""
    mask = np.int64(keys.shape[0] - 1)
    for i in range(okeys.shape[0]):
        ok = okeys[i]
        if ok != 0:
            j = np.int64(np.uint64(ok) * GOLDEN >> np.uint64(40)) & mask
            while keys[j] != 0:
                j = (j + 1) & mask
            keys[j] = ok
            visits[j] = oN[i]
            totals[j] = oW[i]


@jit
def regrow_priors(pkeys: Any, pbase: Any, keys: Any, bases: Any) -> None:
    """Move the kept priors' index (``pkeys``/``pbase``) into larger empty tables; a key is
    the information set's hash shifted right by one, so the hash's bits that :func:`search`
    probes from (24 up) are the key's from 23 up."""
    mask = np.int64(keys.shape[0] - 1)
    for i in range(pkeys.shape[0]):
        pk = pkeys[i]
        if pk != 0:
            j = (pk >> 23) & mask
            while keys[j] != 0:
                j = (j + 1) & mask
            keys[j] = pk
            bases[j] = pbase[i]


@jit_inline
def rollout(
    row: Any, T: Any, H: Any, F: Any, horizon: int, max_rounds: int, out: Any, rel: Any, ids: Any
) -> float:
    """Greedy for both seats to the round's end, then the round's scoring and the value table:
    seat 0's expected score."""
    relative(row, 0, rel[0])
    relative(row, 1, rel[1])
    while row[C_TURN] < 8:
        apply(row, choose(row, T, H, F, rel[row[C_TO_MOVE]], ids), T)
    return round_end(row, F, horizon, max_rounds, out)


@jit_inline
def predictive(
    pos: Any,
    ids: Any,
    n: int,
    T: Any,
    F: Any,
    post: Any,
    betas: Any,
    scales: Any,
    rel: Any,
    marks: Any,
    z: Any,
) -> None:
    """The belief's prediction of the opponent's move into ``z[:n]``, which holds the network's
    probabilities on entry: each model of the belief's mixture (greedy's scores softened by
    each of ``betas``, then the network's policy sharpened by each of ``scales``) weighed by
    its posterior ``post`` (how well it explained this round's decisions, and with ``carry``
    the earlier rounds')."""
    mover = pos[C_TO_MOVE]
    offer = pos[C_OFFER]
    relative(pos, mover, rel)
    hand = pos[C_HAND + mover]
    mine = pos[C_PLAYED + mover] + pos[C_SECRET + mover]
    theirs = pos[C_PLAYED + 1 - mover]
    top = -math.inf
    for i in range(n):
        marks[i] = greedy_score(ids[i], offer, hand, mine, theirs, rel, T, F)
        top = max(top, marks[i])
    mixed = np.zeros(n, dtype=np.float64)
    g = betas.shape[0]
    for k in range(g):
        total = 0.0
        for i in range(n):
            total += math.exp(betas[k] * (marks[i] - top))
        for i in range(n):
            mixed[i] += post[k] * math.exp(betas[k] * (marks[i] - top)) / total
    for k in range(scales.shape[0]):
        total = 0.0
        for i in range(n):
            total += float(z[i]) ** scales[k]
        for i in range(n):
            mixed[i] += post[g + k] * float(z[i]) ** scales[k] / total
    for i in range(n):
        z[i] = mixed[i]


@jit_inline
def infoset_hash(pos: Any, node: int, mover: int) -> Any:
    """The hash of ``mover``'s information set at ``node`` in this world: what both seats have
    seen this round (the node) and the hand, Secret and Discard the world gives it."""
    return mix(
        np.uint64(node) * GOLDEN
        ^ np.uint64(pos[C_HAND + mover]) * np.uint64(0xBF58476D1CE4E5B9)
        ^ np.uint64(pos[C_SECRET + mover]) * np.uint64(0x94D049BB133111EB)
        ^ np.uint64(pos[C_DISCARD + mover])
    )


@jit_inline
def kept_probs(
    pos: Any,
    info: Any,
    ids: Any,
    n: int,
    max_rounds: int,
    T: Any,
    F: Any,
    policy: Any,
    px: Any,
    ph1: Any,
    ph2: Any,
    pz: Any,
    pkeys: Any,
    pbase: Any,
    pflat: Any,
    oused: Any,
    opost: Any,
    obetas: Any,
    oscales: Any,
    rel: Any,
    marks: Any,
) -> None:
    """The prior's probability of each of the ``n`` legal ``ids`` at the information set
    ``info`` into ``pz[:n]``: the network's (:func:`row_probs`), or with ``opost`` the belief's
    prediction (:func:`predictive`). It depends on the information set only, so it is computed
    once for each (the same legal moves in the same order) and looked up on every later visit,
    while the cache (``pkeys``/``pbase``/``pflat``, ``oused[1]`` keys and ``oused[2]`` floats
    used) has room."""
    pmask = np.int64(pkeys.shape[0] - 1)
    pk = np.int64(info >> np.uint64(1)) | 1
    pj = np.int64(info >> np.uint64(24)) & pmask
    while pkeys[pj] != pk and pkeys[pj] != 0:
        pj = (pj + 1) & pmask
    if pkeys[pj] == pk:
        base = pbase[pj]
        for i in range(n):
            pz[i] = pflat[base + i]
        return
    row_probs(pos, ids, n, max_rounds, T, policy, px, ph1, ph2, pz)
    if opost.shape[0] > 0 and n > 1:
        predictive(pos, ids, n, T, F, opost, obetas, oscales, rel, marks, pz)
    base = oused[2]
    if 2 * (oused[1] + 1) <= pkeys.shape[0] and base + n <= pflat.shape[0]:
        pkeys[pj] = pk
        pbase[pj] = base
        for i in range(n):
            pflat[base + i] = pz[i]
        oused[1] += 1
        oused[2] = base + n


@jit
def search(
    template: Any,
    unseen: Any,
    slots: Any,
    me: int,
    T: Any,
    H: Any,
    F: Any,
    horizon: int,
    max_rounds: int,
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
    model_pick: bool,
    guide: float,
    pool: Any,
    spare: Any,
    cumulative: Any,
    netvalue: float,
    full: bool,
    net: Any,
    netopp: bool,
    policy: Any,
    infoset: bool,
    puct: float,
    okeys: Any,
    oN: Any,
    oW: Any,
    oused: Any,
    pkeys: Any,
    pbase: Any,
    pflat: Any,
    opost: Any,
    obetas: Any,
    oscales: Any,
    guidenet: bool,
    even: bool,
) -> None:
    """Run up to ``iterations`` more iterations on the tree (node 0 is the root).

    ``slots``: how many unseen cards go to the opponent's hand, its Secret (0 or 1) and the pile
    still to be drawn; the rest of ``unseen`` (packed single cards, shuffled in place) is the
    removed card and the opponent's Discard. Stops early when the node arrays are full.
    ``netvalue`` > 0: a leaf within the round is valued that much by the network's value head
    (``net``: w1, b1, w2, b2, wv, bv; ``full``: a critic over the whole position, the world's
    hidden cards included), the rest by the playout. ``netopp``: the opponent's moves in the
    tree are drawn from the network's policy (``policy``: :func:`~hanamikoji.ai.net.
    policy_arrays`) with the hand each world gives it, instead of searched. ``infoset``: the
    opponent's moves are searched per information set of its own (this node and the hand,
    Secret and Discard the world gives it), PUCT with the network's probabilities as the prior
    (``puct`` its constant), its statistics in the table ``okeys``/``oN``/``oW`` (``oused[0]``
    entries used; the search stops when it is half full), the network's probabilities at each
    information set kept once in ``pkeys``/``pbase``/``pflat`` (``oused[1]`` keys and
    ``oused[2]`` floats used; once either is half full or full, the rest are computed anew).
    ``opost`` (empty: the network alone): the prior is instead the belief's prediction
    (:func:`predictive`, with ``obetas`` and ``oscales``). ``guidenet``: ``guide``'s bias at
    our own decisions below the root is the network's prior (with the hand each world gives
    us), not greedy's judgement. ``even``: the root's moves (once each has a child) take turns,
    the least visited first, instead of UCB (the phases of sequential halving).
    """
    w1, b1, w2, b2, wv, bv = net
    x = np.empty(w1.shape[0], dtype=np.float32)
    h1 = np.empty(w1.shape[1], dtype=np.float32)
    h2 = np.empty(w2.shape[1], dtype=np.float32)
    opp = 1 - me
    cards = unseen  # shuffled in place, iteration after iteration
    pos = template.copy()
    ids = np.empty(MAX_MOVES, dtype=np.int64)
    keys = np.empty(MAX_MOVES, dtype=np.int64)
    kids = np.empty(MAX_MOVES, dtype=np.int64)
    untried = np.empty(MAX_MOVES, dtype=np.int64)
    marks = np.empty(MAX_MOVES, dtype=np.float64)
    path = np.empty(64, dtype=np.int64)
    movers = np.empty(64, dtype=np.int64)
    rel = np.empty(7, dtype=np.int64)
    rels = np.empty((2, 7), dtype=np.int64)
    more = np.empty(MAX_MOVES, dtype=np.int64)
    out = np.empty(NRESULT, dtype=np.int64)
    px = np.empty(policy[0].shape[0], dtype=np.float32)
    ph1 = np.empty(policy[0].shape[1], dtype=np.float32)
    ph2 = np.empty(policy[2].shape[1], dtype=np.float32)
    pz = np.empty(MAX_MOVES, dtype=np.float32)
    oslots = np.empty(MAX_MOVES, dtype=np.int64)
    opath = np.empty(64, dtype=np.int64)
    omask = np.int64(okeys.shape[0] - 1)
    nopost = opost[:0]  # our own prior: the network's alone
    capacity = N.shape[0]
    for _ in range(iterations):
        if counters[C_NODES] + 1 > capacity:  # an iteration adds one node at most
            return
        if infoset and 2 * (oused[0] + 64) > okeys.shape[0]:  # keep the table half empty
            return
        pos[:] = template
        pos[C_RNG] = next_seed(counters)
        if pool.shape[0] > 0:  # a world of the weighted pool, in proportion to its weight
            pool_draw(pos, pool, spare, cumulative, slots, counters, more)
        else:
            deal(pos, cards, slots, opp)
        # Down the tree.
        node = 0
        depth = 0
        while True:
            mover = pos[C_TO_MOVE]
            offer = pos[C_OFFER]
            # The opponent's move from its own search or the network (greedy's picks instead
            # when adapt finds it greedy-like), else below, searched from our side.
            own = (infoset or netopp) and mover != me and not (model_pick and offer >= 0)
            if own and infoset:
                # The opponent's own bandit at its information set in this world: PUCT over
                # its legal moves, the network's probabilities (from its hand) the prior.
                n = legal(pos, T, H, ids)
                info = infoset_hash(pos, node, mover)
                kept_probs(
                    pos, info, ids, n, max_rounds, T, F, policy, px, ph1, ph2, pz,
                    pkeys, pbase, pflat, oused, opost, obetas, oscales, rel, marks,
                )  # fmt: skip
                visits = 0
                for i in range(n):
                    ok = np.int64(mix(info + np.uint64(ids[i] + 1)) >> np.uint64(1)) | 1
                    j = np.int64(np.uint64(ok) * GOLDEN >> np.uint64(40)) & omask
                    while okeys[j] != ok and okeys[j] != 0:
                        j = (j + 1) & omask
                    oslots[i] = j
                    if okeys[j] != 0:
                        visits += oN[j]
                # an untried move is valued as this node's mean for the mover
                fpu = 0.5
                if node != 0 and N[node] > 0:
                    fpu = W[node] / N[node]
                    if mover != movers[depth - 1]:
                        fpu = 1.0 - fpu
                root = math.sqrt(visits + 1.0)
                best = -math.inf
                pick = 0
                for i in range(n):
                    j = oslots[i]
                    q = fpu
                    m = 0
                    if okeys[j] != 0:
                        m = oN[j]
                        if m > 0:
                            q = oW[j] / m
                    score = q + puct * pz[i] * root / (1.0 + m)
                    if score > best:
                        best = score
                        pick = i
                j = oslots[pick]
                if okeys[j] == 0:
                    okeys[j] = np.int64(mix(info + np.uint64(ids[pick] + 1)) >> np.uint64(1)) | 1
                    oN[j] = 0
                    oW[j] = 0.0
                    oused[0] += 1
                a = int(ids[pick])
                opath[depth] = j
            if own and netopp:
                # The opponent as the network would play with the hand this world gives it.
                n = legal(pos, T, H, ids)
                draw = rand_below(pos, 1 << 30) / float(1 << 30)
                a = int(row_pick(pos, ids, n, max_rounds, T, policy, px, ph1, ph2, pz, draw))
                opath[depth] = -1
            if own:
                ch, fresh = child(
                    hkeys, hvals, shift, node * NKEYS + seen(a, offer, T), counters, N, W, A
                )
                path[depth] = ch
                movers[depth] = mover
                depth += 1
                apply(pos, a, T)
                node = ch
                if fresh or pos[C_TURN] >= 8:
                    break
                continue
            if model_pick and mover != me and offer >= 0:
                # The opponent picks as greedy would with the hand this world gives it.
                relative(pos, mover, rel)
                ids[0] = choose(pos, T, H, F, rel, ids)
                n = 1
            else:
                n = legal(pos, T, H, ids)
                if node == 0:  # only the root moves the caller allows
                    m = 0
                    for i in range(n):
                        if allowed[ids[i]]:
                            ids[m] = ids[i]
                            m += 1
                    n = m
            nk = 0
            for i in range(n):
                key = int(ids[i])
                if mover != me:
                    key = seen(key, offer, T)
                if nk > 0 and keys[nk - 1] == key:
                    continue
                keys[nk] = key
                nk += 1
            nu = 0
            base = node * NKEYS
            for i in range(nk):
                s = slot(hkeys, shift, base + keys[i])
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
            if guided and guidenet and mover == me:
                # The learned prior's judgement of each of our moves, with the hand this world
                # gives us (our draws differ between worlds), the likeliest 1.
                kept_probs(
                    pos, infoset_hash(pos, node, mover), ids, n, max_rounds, T, F, policy, px,
                    ph1, ph2, pz, pkeys, pbase, pflat, oused, nopost, obetas, oscales, rel,
                    marks,
                )  # fmt: skip
                top = 0.0
                for i in range(n):
                    top = max(top, float(pz[i]))
                for i in range(n):  # (our own moves: one key each, in the order of ids)
                    marks[i] = pz[i] / top
            elif guided:  # greedy's judgement of each edge in this world, scaled to 0..1
                relative(pos, mover, rel)
                hand = pos[C_HAND + mover]
                mine = pos[C_PLAYED + mover] + pos[C_SECRET + mover]
                theirs = pos[C_PLAYED + 1 - mover]
                k = -1
                for i in range(n):
                    v = greedy_score(ids[i], offer, hand, mine, theirs, rel, T, F)
                    key = int(ids[i])
                    if mover != me:
                        key = seen(key, offer, T)
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
                    pick = untried[rand_below(pos, nu)]
                ch = counters[C_NODES]
                counters[C_NODES] = ch + 1
                N[ch] = 0
                W[ch] = 0.0
                A[ch] = 1
                s = slot(hkeys, shift, base + keys[pick])
                hkeys[s] = base + keys[pick] + 1
                hvals[s] = ch
                kids[pick] = ch
            else:
                best = -math.inf
                pick = 0
                for i in range(nk):
                    ch = kids[i]
                    if even and node == 0:  # the least visited, the better mean on a tie
                        score = W[ch] / N[ch] - N[ch]
                        if score > best:
                            best = score
                            pick = i
                        continue
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
                    relative(pos, mover, rel)
                    hand = pos[C_HAND + mover]
                    mine = pos[C_PLAYED + mover] + pos[C_SECRET + mover]
                    theirs = pos[C_PLAYED + 1 - mover]
                    top = -math.inf
                    for i in range(n):
                        if T[ids[i], T_TYPE] == kind:
                            v = greedy_score(ids[i], -1, hand, mine, theirs, rel, T, F)
                            if v > top:
                                top = v
                                a = ids[i]
                else:
                    m = 0
                    for i in range(n):
                        if T[ids[i], T_TYPE] == kind:
                            m += 1
                    r = rand_below(pos, m)
                    for i in range(n):
                        if T[ids[i], T_TYPE] == kind:
                            if r == 0:
                                a = ids[i]
                                break
                            r -= 1
            else:
                a = key
            path[depth] = kids[pick]
            opath[depth] = -1
            movers[depth] = mover
            depth += 1
            apply(pos, a, T)
            node = kids[pick]
            if nu > 0 or pos[C_TURN] >= 8:
                break
        if netvalue > 0.0 and pos[C_TURN] < 8:
            # The network judges the leaf for the seat to move in this world.
            v = row_value(pos, full, max_rounds, T, w1, b1, w2, b2, wv, bv, x, h1, h2)
            learned = 0.5 * (v + 1.0)
            if pos[C_TO_MOVE] != 0:
                learned = 1.0 - learned
            if netvalue >= 1.0:
                value0 = learned
            else:
                played = rollout(pos, T, H, F, horizon, max_rounds, out, rels, more)
                value0 = netvalue * learned + (1.0 - netvalue) * played
        else:
            value0 = rollout(pos, T, H, F, horizon, max_rounds, out, rels, more)
        for d in range(depth):
            ch = path[d]
            mine = value0 if movers[d] == 0 else 1.0 - value0
            N[ch] += 1
            W[ch] += mine
            if opath[d] >= 0:
                oN[opath[d]] += 1
                oW[opath[d]] += mine
        counters[C_DONE] += 1
