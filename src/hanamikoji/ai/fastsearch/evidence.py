"""What the opponent's decisions this round say about its hand: the belief's weights.

With ``belief`` > 0 the fast search draws its worlds from a pool of dealt worlds, each in
proportion to how likely the opponent's decisions this round are in it if it chose as greedy
does, softened (a move's chance proportional to exp(beta * score)), or as the network does
(``likelihood=net``: its policy, its logits scaled by a softness). :func:`opponent_decisions`
reads those decisions from a VIEW; :func:`weigh` and :func:`weigh_net` score one world;
:func:`belief_pool` deals and weighs a whole pool for several softnesses of both at once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.ai.fastplay import MAX_MOVES, relative, score
from hanamikoji.ai.net import policy_arrays, row_logits, small_net
from hanamikoji.cards import pack
from hanamikoji.kernel.actions import IDS
from hanamikoji.kernel.jit import jit, jit_inline
from hanamikoji.kernel.row import (
    C_ACTIONS,
    C_DISCARD,
    C_HAND,
    C_OFFER,
    C_PLAYED,
    C_RNG,
    C_SECRET,
    C_TO_MOVE,
    C_TURN,
)
from hanamikoji.kernel.rules import legal, nth_geisha, rand_below
from hanamikoji.kernel.tables import T_CODE, card_code
from hanamikoji.moves import Action, Move
from hanamikoji.view import SeenMove, View

from .worlds import deal

__all__ = [
    "HIDDEN_IDS",
    "NX",
    "belief_pool",
    "kernel_policy",
    "opponent_decisions",
    "weigh",
    "weigh_net",
    "weigh_one",
]


# An opponent decision this round as the searching seat saw it (``belief``): kind (0 Secret,
# 1 Discard, 2 Gift, 3 Competition, 4 a pick of the searcher's offer), turn, both sides played
# and both actions-left masks then, the offer picked from (else -1), the move's action id (-1 for
# a Secret or Discard, whose cards it did not see), whether its Secret was down by then.
X_KIND, X_TURN, X_PLAYED, X_ACTIONS, X_OFFER, X_MOVE, X_SECRET = 0, 1, 2, 4, 6, 7, 8
NX = 9


@jit_inline
def count(code: Any) -> Any:
    """How many cards a packed set holds."""
    n = 0
    for g in range(7):
        n += (code >> (4 * g)) & 15
    return n


@jit_inline
def geisha(card: Any) -> Any:
    """The geisha index (0..6) of a packed single card."""
    g = 0
    while card > 15:
        card >>= 4
        g += 1
    return g


@jit_inline
def decided(world: Any, discard: int, decisions: Any, k: int, opp: int, T: Any, hidden: Any) -> Any:
    """(the move, the cards it took from the hand) of the opponent's decision ``k`` in
    ``world``: its Secret and Discard are the world's (``discard``), the rest as seen."""
    kind = decisions[k, X_KIND]
    move = decisions[k, X_MOVE]
    code = 0
    if kind == 0:
        code = world[C_SECRET + opp]
        move = hidden[geisha(code)]
    elif kind == 1:
        code = discard
        first = geisha(code & -code)  # the lower card's geisha, then the other's
        move = hidden[7 + 7 * first + geisha(code - (1 << (4 * first)))]
    elif kind <= 3:
        code = T[move, T_CODE]
    return move, code


@jit_inline
def slot_of(key: Any, cache: Any, used: Any) -> Any:
    """The slot of ``key`` in an open-addressing ``cache`` (``key + 1`` where held, 0 where
    free): its own, or a free one, the cache emptied first once it is half full."""
    mask = cache.shape[0] - 1
    i = (key * 0x9E3779B1) & mask
    while cache[i] != 0 and cache[i] != key + 1:
        i = (i + 1) & mask
    if cache[i] == 0 and used[0] > mask // 2:  # half full: start it afresh
        cache[:] = 0
        used[0] = 0
        i = (key * 0x9E3779B1) & mask
    return i


@jit_inline
def undrawn(world: Any, hand: Any) -> Any:
    """``hand`` before its turn's draw: one of its cards at random (which card came last is
    hidden, and all are equally likely), from ``world``'s random stream."""
    return hand - (1 << (4 * nth_geisha(hand, rand_below(world, count(hand)))))


@jit_inline
def weigh(
    world: Any,
    discard: int,
    decisions: Any,
    betas: Any,
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
    out: Any,
) -> None:
    """The log-likelihood of the opponent's decisions in ``world`` if it chose as greedy does,
    softened by each of ``betas`` (a move's chance is proportional to exp(beta * score)), into
    ``out``.

    Its hand at each decision is rebuilt backwards from the world's: the cards it used since
    go back in, and the card it drew at each of its turns comes out (drawn at random among the
    hand then: which card came last is hidden, and all are equally likely). Draws come from
    ``world``'s random stream. Each decision's best score and softmax normalisers depend only on
    the hand (and the opponent's Secret, once down): ``cache`` keeps them by that key, for every
    softness at once (greedy's scores, the costly part, are the same for all).
    """
    nb = betas.shape[0]
    width = nb + 1  # an entry of cvals: the best score, then each softness's log-normaliser
    hand = world[C_HAND + opp]
    out[:] = 0.0
    relative(world, opp, rel)  # the markers: the same all round
    for k in range(decisions.shape[0] - 1, -1, -1):
        move, code = decided(world, discard, decisions, k, opp, T, hidden_ids)
        hand += code
        secret = world[C_SECRET + opp] if decisions[k, X_SECRET] else 0
        mine = decisions[k, X_PLAYED + opp] + secret
        theirs = decisions[k, X_PLAYED + 1 - opp]
        offer = decisions[k, X_OFFER]
        key = ((hand * 8 + (geisha(secret) + 1 if secret else 0)) << 4) + k
        i = slot_of(key, cache, used)
        if cache[i] == 0:
            used[0] += 1
            scratch[:] = world
            scratch[C_HAND + opp] = hand
            scratch[C_ACTIONS] = decisions[k, X_ACTIONS]
            scratch[C_ACTIONS + 1] = decisions[k, X_ACTIONS + 1]
            scratch[C_OFFER] = offer
            scratch[C_TO_MOVE] = opp
            n = legal(scratch, T, H, ids)
            top = -math.inf
            for j in range(n):
                vals[j] = score(ids[j], offer, hand, mine, theirs, rel, T, F)
                top = max(top, vals[j])
            cache[i] = key + 1
            cvals[width * i] = top
            for b in range(nb):
                norm = 0.0
                for j in range(n):
                    norm += math.exp(betas[b] * (vals[j] - top))
                cvals[width * i + 1 + b] = math.log(norm) if n else math.nan
        top = cvals[width * i]
        if not math.isnan(cvals[width * i + 1]):
            chosen = score(move, offer, hand, mine, theirs, rel, T, F)
            for b in range(nb):
                out[b] += betas[b] * (chosen - top) - cvals[width * i + 1 + b]
        if decisions[k, X_KIND] <= 3:  # before the action, the turn's draw
            hand = undrawn(world, hand)


@jit
def weigh_one(
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
    """:func:`weigh` of one world for one softness (for tests)."""
    out = np.zeros(1, dtype=np.float64)
    weigh(
        world.copy(),
        discard,
        decisions,
        np.array([beta]),
        opp,
        T,
        H,
        F,
        hidden_ids,
        np.empty_like(world),
        np.empty(MAX_MOVES, dtype=np.int64),
        np.empty(MAX_MOVES, dtype=np.float64),
        np.zeros(1 << 10, dtype=np.int64),
        np.empty(2 << 10, dtype=np.float64),
        np.zeros(1, dtype=np.int64),
        np.empty(7, dtype=np.int64),
        out,
    )
    return float(out[0])


@jit
def weigh_net(
    world: Any,
    discard: int,
    decisions: Any,
    taus: Any,
    opp: int,
    max_rounds: int,
    T: Any,
    H: Any,
    policy: Any,
    hidden_ids: Any,
    work: Any,
    cache: Any,
    cvals: Any,
    used: Any,
    out: Any,
) -> None:
    """The log-likelihood of the opponent's decisions in ``world`` if it chose as the network
    does, its logits scaled by each softness in ``taus`` (1: the policy itself, 0: uniform),
    into ``out``.

    The hand at each decision is rebuilt as :func:`weigh` rebuilds it; the network reads what
    the opponent knew then (its hand, its Secret and Discard once down, both sides' played
    cards, the actions left, the offer, the turn). A decision's likelihoods depend on the
    world only through the hand, the Secret, the Discard and the move behind a hidden one:
    ``cache`` keeps them by that key. ``work``: (scratch row, ids, logits, x, h1, h2)."""
    scratch, ids, z, x, h1, h2 = work
    nt = taus.shape[0]
    hand = world[C_HAND + opp]
    out[:] = 0.0
    for k in range(decisions.shape[0] - 1, -1, -1):
        move, code = decided(world, discard, decisions, k, opp, T, hidden_ids)
        hand += code
        secret = world[C_SECRET + opp] if decisions[k, X_SECRET] else 0
        dropped = discard if (decisions[k, X_ACTIONS + opp] & 2) == 0 else 0
        # exact: hand 28 bits, move 10, Secret's geisha 3, Discard's two 6, decision 4
        key = hand
        key = (key << 10) + move
        key = (key << 3) + (geisha(secret) + 1 if secret else 0)
        if dropped:
            low = geisha(dropped & -dropped)
            key = (key << 6) + 1 + 7 * low + geisha(dropped - (1 << (4 * low)))
        else:
            key = key << 6
        key = (key << 4) + k
        i = slot_of(key, cache, used)
        if cache[i] == 0:
            used[0] += 1
            scratch[:] = world
            scratch[C_HAND + opp] = hand
            scratch[C_PLAYED] = decisions[k, X_PLAYED]
            scratch[C_PLAYED + 1] = decisions[k, X_PLAYED + 1]
            scratch[C_SECRET + opp] = secret
            scratch[C_DISCARD + opp] = dropped
            scratch[C_ACTIONS] = decisions[k, X_ACTIONS]
            scratch[C_ACTIONS + 1] = decisions[k, X_ACTIONS + 1]
            scratch[C_OFFER] = decisions[k, X_OFFER]
            scratch[C_TURN] = decisions[k, X_TURN]
            scratch[C_TO_MOVE] = opp
            n = legal(scratch, T, H, ids)
            chosen = -1
            for j in range(n):
                if ids[j] == move:
                    chosen = j
            cache[i] = key + 1
            if n <= 1 or chosen < 0:  # no choice (or a move the world does not allow)
                for t in range(nt):
                    cvals[nt * i + t] = 0.0 if n == 1 else -30.0
            else:
                row_logits(scratch, ids, n, max_rounds, T, policy, x, h1, h2, z)
                top = z[0]
                for j in range(n):
                    top = max(top, z[j])
                for t in range(nt):
                    norm = 0.0
                    for j in range(n):
                        norm += math.exp(taus[t] * (z[j] - top))
                    cvals[nt * i + t] = taus[t] * (z[chosen] - top) - math.log(norm)
        for t in range(nt):
            out[t] += cvals[nt * i + t]
        if decisions[k, X_KIND] <= 3:  # before the action, the turn's draw
            hand = undrawn(world, hand)


@jit
def belief_pool(
    template: Any,
    cards: Any,
    slots: Any,
    opp: int,
    decisions: Any,
    betas: Any,
    taus: Any,
    max_rounds: int,
    T: Any,
    H: Any,
    F: Any,
    policy: Any,
    seed: int,
    pool: Any,
    spare: Any,
    logw: Any,
    hidden_ids: Any,
) -> None:
    """``pool.shape[0]`` worlds dealt as :func:`~.worlds.deal` deals them, and the
    log-likelihood of the opponent's decisions in each: for each softness of greedy's in
    ``betas`` (``logw[w, b]``, :func:`weigh`), then for each softness of the network's in
    ``taus`` (``logw[w, len(betas) + t]``, :func:`weigh_net`; ``policy``:
    :func:`~hanamikoji.ai.net.policy_arrays`), with one random order of its draws for all.
    ``spare[w]`` keeps the world's cards that are neither the opponent's nor in the pile (the
    removed card), which the search shuffles back into the pile world after world: the
    decisions weigh the opponent's cards, not the pile's order."""
    pos = template.copy()
    pos[C_RNG] = seed
    scratch = np.empty_like(template)
    ids = np.empty(MAX_MOVES, dtype=np.int64)
    vals = np.empty(MAX_MOVES, dtype=np.float64)
    rel = np.empty(7, dtype=np.int64)
    nb = betas.shape[0]
    cache = np.zeros(1 << 16, dtype=np.int64)  # (decision, hand, Secret) + 1, or 0
    cvals = np.empty((nb + 1) << 16, dtype=np.float64)  # best score, each log-normaliser
    used = np.zeros(1, dtype=np.int64)
    nt = taus.shape[0]
    work = (
        scratch,
        ids,
        np.empty(MAX_MOVES, dtype=np.float32),
        np.empty(policy[0].shape[0], dtype=np.float32),
        np.empty(policy[0].shape[1], dtype=np.float32),
        np.empty(policy[2].shape[1], dtype=np.float32),
    )
    ncache = np.zeros(1 << 16 if nt else 1, dtype=np.int64)  # the key + 1, or 0
    nvals = np.empty(nt << 16, dtype=np.float64)  # its log-likelihood for each softness
    nused = np.zeros(1, dtype=np.int64)
    placed = slots[0] + slots[1] + slots[2]
    for w in range(pool.shape[0]):
        deal(pos, cards, slots, opp)
        discard = card_code(cards[placed]) + card_code(cards[placed + 1]) if slots[3] else 0
        pool[w, :] = pos
        rest = placed + (2 if slots[3] else 0)
        for j in range(spare.shape[1]):
            spare[w, j] = cards[rest + j]
        rng = pos[C_RNG]  # the same draws for every model
        if nb:
            weigh(
                pos,
                discard,
                decisions,
                betas,
                opp,
                T,
                H,
                F,
                hidden_ids,
                scratch,
                ids,
                vals,
                cache,
                cvals,
                used,
                rel,
                logw[w, :nb],
            )
        if nt:
            pos[C_RNG] = rng
            weigh_net(
                pos,
                discard,
                decisions,
                taus,
                opp,
                max_rounds,
                T,
                H,
                policy,
                hidden_ids,
                work,
                ncache,
                nvals,
                nused,
                logw[w, nb:],
            )


def _hidden_ids() -> npt.NDArray[np.int64]:
    """The action ids of each Secret (by geisha index), then of each Discard (7 * lower + upper)."""
    out = np.full(7 + 49, -1, dtype=np.int64)
    for g in range(7):
        out[g] = IDS[Move(Action.SECRET, str(g + 1))]
        for h in range(g, 7):
            out[7 + 7 * g + h] = IDS[Move(Action.DISCARD, f"{g + 1}{h + 1}")]
    return out


HIDDEN_IDS = _hidden_ids()


def kernel_policy(used: bool) -> tuple[npt.NDArray[np.float32], ...]:
    """The network's policy for the kernels (:func:`~hanamikoji.ai.net.policy_arrays`), or
    placeholders of the same types where none is used (one compiled kernel)."""
    if used:
        return policy_arrays(small_net())
    one = np.zeros(1, dtype=np.float32)
    two = np.zeros((1, 1), dtype=np.float32)
    return (two, one, two, one, two, one, two, two)


def opponent_decisions(view: View, number: int | None = None) -> npt.NDArray[np.int64]:
    """The opponent's decisions this round (or in round ``number``) as ``view``'s seat saw
    them (rows of ``NX``)."""
    opp = view.opponent
    number = view.round if number is None else number
    played = [0, 0]
    actions = [15, 15]
    turn = 0
    pending, pending_code, offerer = -1, 0, 0
    secret = 0
    rows: list[tuple[int, ...]] = []
    for entry in view.history:
        if not isinstance(entry, SeenMove) or entry.round != number:
            continue
        text, seat = entry.move, entry.seat
        letter = text[0]
        if letter == "P":
            if seat == opp:
                move = IDS[Move.parse(text)]
                rows.append((4, turn, *played, *actions, pending, move, secret))
            take = pack(text[1:])
            played[seat] += take
            played[offerer] += pending_code - take
            pending = -1
            turn += 1
            continue
        kind = "SDGC".index(letter)
        if seat == opp:
            move = IDS[Move.parse(text)] if kind >= 2 else -1
            rows.append((kind, turn, *played, *actions, -1, move, secret))
        actions[seat] &= ~(1 << kind)
        if kind >= 2:
            offered = Move.parse(text)
            pending, pending_code, offerer = IDS[offered], offered.code, seat
        else:
            if seat == opp and kind == 0:
                secret = 1
            turn += 1
    return np.array(rows, dtype=np.int64).reshape(len(rows), NX)
