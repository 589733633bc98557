"""The fast search's Python face: one decision's tree, grown in chunks of iterations."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.ai.config import SearchConfig
from hanamikoji.ai.fastplay import position_row, tables
from hanamikoji.ai.net import default_net
from hanamikoji.kernel.actions import IDS
from hanamikoji.kernel.rules import kernel_rounds
from hanamikoji.kernel.tables import H, T
from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View

from .evidence import HIDDEN_IDS, belief_pool, kernel_policy, opponent_decisions
from .kernel import regrow_priors, regrow_stats, search
from .models import earlier_evidence
from .tree import C_DONE, C_NODES, NKEYS, rehash, slot
from .worlds import Dealing, deal_many, dealing, pool_draws

__all__ = ["FAST_POOL", "FastSearch", "fast_search"]

FAST_POOL = 65536
"""How many worlds the belief weighs by default (``pool=0``): some 20 ms; a quarter as many with
``mix``, which weighs each four times."""


class FastSearch:
    """One decision's search tree, grown in chunks of iterations (so a clock can stop it).

    The root's moves are ``legal`` (a subset of the view's legal moves; all of them by default);
    ``config`` says how to search (:class:`~hanamikoji.ai.config.SearchConfig`; ``playout`` does
    not apply: the fast search plays greedy). ``dealing`` replaces the view's own
    (:func:`~.worlds.dealing`): experiments give the search more than the view shows.

    With ``belief`` > 0 the worlds are not dealt afresh but drawn from a pool of ``pool`` dealt
    worlds, each in proportion to how likely the opponent's decisions this round are in it if
    it chose as greedy does, softened: a move's chance proportional to exp(beta * score), with
    beta = ``belief``, or with ``mix`` a mixture of beta in (0, belief/9, belief/3, belief) of
    equal prior weights. With ``likelihood=net`` the network's policy judges the decisions in
    place of greedy (its logits scaled by 1, or with ``mix`` by 0, 1/9, 1/3 and 1), and with
    ``likelihood=both`` the mixture holds greedy's softnesses and the network's side by side
    (seven with ``mix``). ``evidence`` is then each softness's log mean likelihood over the pool
    (how well it explains this round's decisions). With ``carry`` the mixture's prior is not
    equal but each model's evidence from the earlier rounds of the game (``earlier``,
    :mod:`.models`); with ``oprior=belief`` the opponent's prior in its own search is the
    mixture's prediction of its move (the posterior over models), with ``oprior=strong`` the
    same with the uniform model's share given to the network's policy. With ``mix`` and ``adapt``
    > 0, when the mixture gives at least ``adapt`` to greedy's two sharpest softnesses (the
    opponent chooses much as greedy does), the opponent's picks are searched as greedy's.
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
        config: SearchConfig | None = None,
        bias: dict[Move, float] | None = None,
        rules: Rules | None = None,
        dealing: Dealing | None = None,
    ) -> None:
        config = config or SearchConfig()
        self.config = config
        self.model_pick = False
        self.guide = config.guide
        self.F, self.horizon = tables()
        if view.to_move != view.seat:
            raise ValueError("the view's seat is not the one to move")
        self.view = view
        self.me = view.seat
        dealt = dealing if dealing is not None else _dealing(view, rng, rules)
        world = dealt.world
        self.max_rounds = kernel_rounds(world.rules.max_rounds)
        self.template = position_row(world, rng)
        self.unseen = np.array([int(c) for c in dealt.cards], dtype=np.int64)
        self.slots = np.array(dealt.slots, dtype=np.int64)
        self.pool = np.zeros((0, len(self.template)), dtype=np.int64)
        # The unseen cards neither the opponent's nor the pile's (the removed card).
        left = len(self.unseen) - int(self.slots.sum())
        self.spare = np.zeros((0, max(0, left)), dtype=np.int64)
        self.cumulative = np.zeros(0, dtype=np.float64)
        self.logw = self.cumulative
        belief = config.belief
        mix = config.mixed
        decisions = opponent_decisions(view)
        # One softness, or a mixture of four from a uniformly random opponent up to ``belief``
        # (greedy's softnesses, then the network's: ``likelihood``).
        soft = (0.0, belief / 9, belief / 3, belief) if mix else (belief,)
        net = (0.0, 1 / 9, 1 / 3, 1.0) if mix else (1.0,)
        both = soft + (net[1:] if mix else net)  # the uniform softness once
        self.betas = {"greedy": soft, "net": net, "both": both}[config.likelihood]
        greedy = len(soft) if config.likelihood != "net" else 0
        self.evidence = np.zeros(0, dtype=np.float64)
        # The mixture's prior: equal, or (``carry``) each model's evidence from the opponent's
        # decisions in the earlier rounds of the game.
        self.earlier = np.zeros(len(self.betas), dtype=np.float64)
        if config.carry and mix and belief > 0 and dealing is None:
            self.earlier = earlier_evidence(
                view, self.betas[:greedy], self.betas[greedy:], self.max_rounds
            )
        if belief > 0 and dealing is None and len(decisions):
            quarter = mix or config.likelihood != "greedy"
            pool = config.pool or (FAST_POOL // 4 if quarter else FAST_POOL)
            self.pool = np.empty((pool, len(self.template)), dtype=np.int64)
            self.spare = np.empty((pool, max(0, left)), dtype=np.int64)
            logs = np.empty((pool, len(self.betas)), dtype=np.float64)
            belief_pool(
                self.template,
                self.unseen.copy(),
                self.slots,
                1 - self.me,
                decisions,
                np.array(self.betas[:greedy], dtype=np.float64),
                np.array(self.betas[greedy:], dtype=np.float64),
                self.max_rounds,
                T,
                H,
                self.F,
                kernel_policy(greedy < len(self.betas)),
                rng.getrandbits(63),
                self.pool,
                self.spare,
                logs,
                HIDDEN_IDS,
            )
            # How well each softness explains the decisions: log mean likelihood over the pool.
            top = logs.max(axis=0)
            self.evidence = top + np.log(np.exp(logs - top).mean(axis=0))
            # Each world weighed by the mixture: sum over softness of prior times likelihood.
            if config.carry:  # (equal priors otherwise: nothing to add)
                logs += self.earlier - self.earlier.max()
            peak = logs.max(axis=1, keepdims=True)
            self.logw = (peak + np.log(np.exp(logs - peak).sum(axis=1, keepdims=True)))[:, 0]
            self.cumulative = np.cumsum(np.exp(self.logw - self.logw.max()))
        # How sure the mixture is that the opponent chooses much as greedy does (greedy's two
        # sharpest softnesses); with ``adapt`` its picks are then searched as greedy's.
        post = self.earlier + (self.evidence if len(self.evidence) else 0.0)
        post = np.exp(post - post.max())
        sharpest = post[greedy - 2 : greedy].sum() if greedy >= 2 else 0.0
        self.greedy_like = float(sharpest / post.sum()) if mix else 0.0
        if mix and config.adapt > 0 and self.greedy_like >= config.adapt:
            self.model_pick = True
        self.limit = max(2, capacity)  # the most nodes the tree may grow to
        self._allocate(min(self.limit, 1 << 16))
        self.counters = np.array((1, rng.getrandbits(63), 0), dtype=np.int64)  # node 0: root
        self.allowed = np.zeros(NKEYS, dtype=np.bool_)
        moves = view.legal_moves if legal is None else legal
        if not moves or not set(moves) <= set(view.legal_moves):
            raise ValueError("the root moves must be some of the view's legal moves")
        self._allow(moves)
        self.bias = np.zeros(NKEYS, dtype=np.float64)
        if bias:
            for move, b in bias.items():
                self.bias[IDS[move]] = b
        self.prior = config.prior if bias else 0.0
        self.exploration = config.exploration
        self.hidden_greedy = config.hidden == "greedy"
        self.netvalue = config.netvalue
        self.whole, self.net = _net_arrays(config.netvalue > 0)
        self.netopp = config.opponent == "net"
        self.infoset = config.opponent == "infoset"
        self.guidenet = config.guideprior == "net" and config.guide > 0
        self.even = False  # the root's moves take turns (sequential halving's phases)
        self.policy = kernel_policy(self.netopp or self.infoset or self.guidenet)
        self.puct = config.puct
        # the belief's prediction as the opponent's prior: each model's posterior (its prior
        # before the opponent has decided anything this round: equal, or with ``carry`` the
        # earlier rounds'), its softnesses
        self.opost = np.zeros(0, dtype=np.float64)
        self.obetas = np.array(self.betas[:greedy], dtype=np.float64)
        self.oscales = np.array(self.betas[greedy:], dtype=np.float64)
        if self.infoset and config.oprior in ("belief", "strong") and mix:
            self.opost = post / post.sum()
            if config.oprior == "strong":
                # The uniform model (first) predicts a noisy player best, but noise is not a
                # way to choose worth searching against: its share goes to the strongest model
                # there is, the network's policy as it is (last; greedy's sharpest without it).
                self.opost[-1] += self.opost[0]
                self.opost[0] = 0.0
        if self.infoset and config.oprior == "sharp" and mix and greedy > 1:
            # Which family the opponent chooses like, each searched at its strongest: greedy's
            # softnesses' share to its sharpest, the rest (uniform play, the network's) to the
            # network's policy as it is, so a softened model never flattens the opponent's
            # search. Under a hundredth the greedy share would change the prior by less; it
            # is left out, and with it the cost of greedy's scores (``oshare``: where). With
            # ``ocarry`` the share is read from the whole game's decisions, so that a round's
            # first decisions, before the opponent has shown anything, follow what it showed
            # earlier; the worlds are weighed by this round's alone all the same.
            shares = post / post.sum()
            if config.ocarry and not config.carry and dealing is None:
                whole = earlier_evidence(
                    view, self.betas[:greedy], self.betas[greedy:], self.max_rounds
                ) + (self.evidence if len(self.evidence) else 0.0)
                shares = np.exp(whole - whole.max())
                shares /= shares.sum()
            share = float(shares[1:greedy].sum())
            if share >= config.oshare:
                self.opost = np.array((share, 1.0 - share), dtype=np.float64)
                self.obetas = np.array(self.betas[greedy - 1 : greedy], dtype=np.float64)
                self.oscales = np.ones(1, dtype=np.float64)
        # the opponent's statistics by its information set: room for some 4 entries a node
        # of the largest tree, grown to it as the search needs (a timed search's room for the
        # fastest case, allocated at once, would be mostly untouched and cost page faults); 4,096
        # at least, since the search stops once it is half full but for a margin of 64, which a
        # table sized by a budget of a few iterations never had
        size = 1 << max(12, (4 * self.limit).bit_length()) if self.infoset else 1
        self.omax = min(size, 1 << 23)
        size = min(self.omax, 1 << 16)
        self.okeys = np.zeros(size, dtype=np.int64)
        self.oN = np.zeros(size, dtype=np.int32)
        self.oW = np.zeros(size, dtype=np.float64)
        # entries used in the opponent's table; keys and floats used in the cache of priors
        self.oused = np.zeros(3, dtype=np.int64)
        # the network's prior at each of the opponent's information sets, kept once: room for
        # as many as the table has entries, some 4 moves each
        self.pkeys = np.zeros(size, dtype=np.int64)
        self.pbase = np.zeros(size, dtype=np.int64)
        self.pflat = np.empty(4 * size, dtype=np.float32)

    def _grow_opponent(self) -> None:
        """The opponent's tables four times as large (up to ``omax``), their entries kept."""
        size = min(self.omax, 4 * len(self.okeys))
        keys = np.zeros(size, dtype=np.int64)
        visits = np.zeros(size, dtype=np.int32)
        totals = np.zeros(size, dtype=np.float64)
        regrow_stats(self.okeys, self.oN, self.oW, keys, visits, totals)
        self.okeys, self.oN, self.oW = keys, visits, totals
        pkeys = np.zeros(size, dtype=np.int64)
        pbase = np.zeros(size, dtype=np.int64)
        regrow_priors(self.pkeys, self.pbase, pkeys, pbase)
        pflat = np.empty(4 * size, dtype=np.float32)
        pflat[: len(self.pflat)] = self.pflat
        self.pkeys, self.pbase, self.pflat = pkeys, pbase, pflat

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
            rehash(self.hkeys, self.hvals, hkeys, hvals, 64 - bits)
        self.N, self.W, self.A, self.hkeys, self.hvals = N, W, A, hkeys, hvals
        self.shift = 64 - bits

    def worlds(self, count: int, seed: int) -> npt.NDArray[np.int64]:
        """``count`` positions dealt as the search deals them (kernel rows)."""
        out = np.empty((count, len(self.template)), dtype=np.int64)
        deal_many(self.template, self.unseen.copy(), self.slots, 1 - self.me, seed, out)
        return out

    def pool_worlds(self, count: int, seed: int) -> npt.NDArray[np.int64]:
        """``count`` positions drawn from the belief's pool as the search draws them (kernel
        rows); the belief must have a pool (opponent decisions to weigh)."""
        if not len(self.pool):
            raise ValueError("no belief pool: the search has no belief or nothing to weigh")
        out = np.empty((count, len(self.template)), dtype=np.int64)
        pool_draws(self.template, self.pool, self.spare, self.cumulative, self.slots, seed, out)
        return out

    def narrow(self, moves: Sequence[Move]) -> None:
        """From now on only ``moves`` at the root, taking turns (``even``): each must have
        been visited already."""
        self._allow(moves)
        self.even = True

    def _allow(self, moves: Sequence[Move]) -> None:
        """Only ``moves`` at the root."""
        self.allowed[:] = False
        for move in moves:
            self.allowed[IDS[move]] = True

    @property
    def iterations(self) -> int:
        """Iterations done so far."""
        return int(self.counters[C_DONE])

    @property
    def full(self) -> bool:
        """Whether the tree (or the opponent's table, at its largest) has grown to its limit."""
        half = 2 * (int(self.oused[0]) + 64) > len(self.okeys)
        if self.infoset and half and len(self.okeys) >= self.omax:
            return True
        return bool(self.counters[C_NODES] + 1 > self.limit)

    def run(self, iterations: int) -> None:
        """Up to ``iterations`` more iterations (fewer once the tree is full)."""
        need = self.counters[C_NODES] + iterations
        while need > len(self.N) and len(self.N) < self.limit:
            self._allocate(min(self.limit, 4 * len(self.N)))
        # An iteration adds an entry at each of the opponent's decisions on its way down: a
        # round has fewer than 16 of them.
        while (
            self.infoset
            and 2 * (int(self.oused[0]) + 64 + 16 * iterations) > len(self.okeys)
            and len(self.okeys) < self.omax
        ):
            self._grow_opponent()
        search(
            self.template,
            self.unseen,
            self.slots,
            self.me,
            T,
            H,
            self.F,
            self.horizon,
            self.max_rounds,
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
            self.model_pick,
            self.guide,
            self.pool,
            self.spare,
            self.cumulative,
            self.netvalue,
            self.whole,
            self.net,
            self.netopp,
            self.policy,
            self.infoset,
            self.puct,
            self.okeys,
            self.oN,
            self.oW,
            self.oused,
            self.pkeys,
            self.pbase,
            self.pflat,
            self.opost,
            self.obetas,
            self.oscales,
            self.guidenet,
            self.even,
        )

    def root(self, legal: Sequence[Move]) -> list[tuple[Move, int, float]]:
        """Each legal move's (move, visits, mean reward for the searching seat)."""
        out = []
        for move in legal:
            hk = IDS[move]  # node 0: the key is the action id itself
            s = int(slot(self.hkeys, self.shift, hk))
            if self.hkeys[s] == 0:
                out.append((move, 0, 0.0))
            else:
                ch = int(self.hvals[s])
                n = int(self.N[ch])
                out.append((move, n, float(self.W[ch]) / n if n else 0.0))
        return out


def _net_arrays(used: bool) -> tuple[bool, tuple[npt.NDArray[np.float32], ...]]:
    """(whether they judge whole positions, the weights of the value for the kernel: w1, b1,
    w2, b2, wv, bv): the critic's if the shipped file has one, else the player's value head;
    placeholders of the same types when the search does not use them (one compiled kernel)."""
    if not used:
        one = np.zeros(1, dtype=np.float32)
        return False, (
            np.zeros((1, 1), np.float32),
            one,
            np.zeros((1, 1), np.float32),
            one,
            one,
            one,
        )
    net = default_net()
    if net.critic is not None:
        return True, net.critic
    return False, (net.w1, net.b1, net.w2, net.b2, net.wv, net.bv)


def _dealing(view: View, rng: random.Random, rules: Rules | None) -> Dealing:
    return dealing(view, rng, rules)


def fast_search(
    view: View,
    legal: Sequence[Move],
    rng: random.Random,
    *,
    iterations: int = 0,
    seconds: float = math.inf,
    config: SearchConfig | None = None,
    bias: dict[Move, float] | None = None,
    rules: Rules | None = None,
    chunk: int = 256,
    dealing: Dealing | None = None,
    **settings: Any,
) -> tuple[list[tuple[Move, int, float]], int, npt.NDArray[np.float64]]:
    """Search a decision: each legal move's (move, visits, value), best first (the most
    visited; with ``halving`` the survivor of sequential halving), the iterations done, and
    the belief's evidence for each softness (empty without a belief; see :class:`FastSearch`).

    Stops after ``iterations`` (if more than 0) or when ``seconds`` have passed, whichever
    comes first (one of them must be set). The settings are ``config`` (the declaration's
    defaults if None) changed by ``settings`` (``belief=30``, ``mix=True`` ...).
    """
    if iterations <= 0 and seconds == math.inf:
        raise ValueError("give the search iterations or seconds")
    start = time.perf_counter()
    config = (config or SearchConfig()).replace(**settings)
    limit = iterations if iterations > 0 else 2**62
    # A node an iteration: room for the fastest searches (late in a round) the clock allows.
    capacity = limit + 1 if iterations > 0 else int(min(seconds, 8.0) * 1_000_000) + 4096
    tree = FastSearch(
        view,
        rng,
        capacity=min(capacity, 1 << 23),
        legal=legal,
        config=config,
        bias=bias,
        rules=rules,
        dealing=dealing,
    )
    if config.halving < 2 or len(legal) < 3:
        _grow(tree, limit, start + seconds, chunk)
        found = tree.root(legal)
        found.sort(key=lambda s: (-s[1], -s[2]))
        return found, tree.iterations, tree.evidence
    found = _halving(tree, legal, config.halving, config.hvisits, limit, start, seconds, chunk)
    return found, tree.iterations, tree.evidence


def _grow(tree: FastSearch, iterations: int, deadline: float, chunk: int) -> None:
    """Iterations until the tree has done ``iterations`` or is full, or ``deadline`` passes."""
    while tree.iterations < iterations and not tree.full:
        tree.run(min(chunk, iterations - tree.iterations))
        if time.perf_counter() >= deadline:
            break


def _halving(
    tree: FastSearch,
    legal: Sequence[Move],
    keep: int,
    visits: int,
    limit: int,
    start: float,
    seconds: float,
    chunk: int,
) -> list[tuple[Move, int, float]]:
    """Half the budget as UCB, then sequential halving (Karnin, Koren and Somekh, 2013) among
    the ``keep`` most visited root moves: in each of the phases left (equal shares of the
    other half) the survivors take turns, and the better half by mean goes on. UCB spends its
    visits to lose little on the way; halving spends them to tell the best move from the next,
    which is what a decision needs. With ``visits`` > 0 the moves kept are fewer where the
    budget is smaller: the most (a power of two, ``keep`` at most) that give each of them that
    many visits in the first phase, if the other half has as many iterations as the first;
    where not even two moves would have them, the rest of the budget goes on as UCB, which is
    then the plain search, visit for visit (a small budget's finalists would be noise's pick).
    The moves, the survivor first, then the rest by visits."""

    def until(share: float) -> None:
        iterations = limit if limit >= 2**62 else max(1, int(limit * share))
        _grow(tree, iterations, start + seconds * share, chunk)

    until(0.5)
    if visits > 0:
        done = tree.iterations
        top = 1
        while 2 * top <= keep and done / math.log2(2 * top) / (2 * top) >= visits:
            top *= 2
        keep = top
        if keep < 2:
            until(1.0)
    found = tree.root(legal)
    found.sort(key=lambda s: (-s[1], -s[2]))
    if keep < 2:
        return found
    alive = [m for m, n, _ in found[:keep] if n > 0]
    phases = max(1, math.ceil(math.log2(max(2, len(alive)))))
    for phase in range(phases):
        if len(alive) < 2:
            break
        tree.narrow(alive)
        until(0.5 + 0.5 * (phase + 1) / phases)
        means = {m: v for m, _, v in tree.root(alive)}
        alive.sort(key=lambda m: -means[m])
        alive = alive[: math.ceil(len(alive) / 2)]
    found = tree.root(legal)
    found.sort(key=lambda s: (s[0] != alive[0], -s[1], -s[2]))
    return found
