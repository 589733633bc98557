"""The learned player: a small network over a seat's information state, trained by self-play
(``scripts/train_net.py``, docs/ai.md "The network"), read here with numpy alone.

The input is :mod:`hanamikoji.kernel.features` of the seat to move (the same encoder the fast
search can call on a kernel row). Two hidden layers with ReLU, then two heads:

- the **policy**: a logit for each of the 534 action ids, the sum of a per-action output and a
  shared judgement of the action's cards (``ACTION_FEATURES``: its type, its cards, and how a
  Competition splits them; a pick's offer is among the inputs), so that actions with like cards
  are judged alike; the legal moves' logits give the move's probabilities;
- the **value**: the expected result for the seat to move (1 win, 0 draw, -1 loss), tanh.

The ``net`` agent plays the legal move of highest logit (one forward pass a decision, some
0.1 ms), or samples at a ``temperature``.

>>> import random
>>> from hanamikoji.state import State
>>> state = State.new(3)
>>> move = NetAgent().choose(state.view(0), state.legal_moves, random.Random(0))
>>> move in state.legal_moves
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.ai.base import check_choice
from hanamikoji.cards import pack
from hanamikoji.kernel.actions import IDS, NUM_ACTIONS
from hanamikoji.kernel.features import NFEAT, encode, encode_full
from hanamikoji.kernel.jit import jit, jit_fast, jit_inline
from hanamikoji.kernel.row import (
    C_ACTIONS,
    C_DISCARD,
    C_FIRST,
    C_HAND,
    C_MARKERS,
    C_OFFER,
    C_PLAYED,
    C_ROUND,
    C_SECRET,
    C_TO_MOVE,
    C_TURN,
    C_WINNER,
    NCOL,
)
from hanamikoji.kernel.rules import kernel_rounds
from hanamikoji.kernel.tables import T_CODE, T_PAIR1, T_PAIR2, T_TYPE, T
from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = [
    "ACTION_FEATURES",
    "NAF",
    "WEIGHTS",
    "Net",
    "NetAgent",
    "default_net",
    "features",
    "forward",
    "policy_arrays",
    "row_logits",
    "row_of_view",
    "row_pick",
    "row_probs",
    "row_value",
    "small_net",
]

Floats = npt.NDArray[np.float32]

WEIGHTS = Path(__file__).resolve().parent / "data" / "net.npz"
"""The shipped weights."""

SMALL = WEIGHTS.with_name("net-small.npz")
"""The shipped network distilled into fewer units: the fast search's model of its opponent."""

NAF = 19
"""The number of action features: type (5), cards (7), second part (7)."""


def _action_features() -> Floats:
    out = np.zeros((NUM_ACTIONS, NAF), dtype=np.float32)
    for a in range(NUM_ACTIONS):
        kind = int(T[a, T_TYPE])
        out[a, kind] = 1.0
        code = int(T[a, T_CODE])
        second = 0
        if kind == 3:  # a Competition: how unevenly its pairs split each geisha's cards
            p, q = int(T[a, T_PAIR1]), int(T[a, T_PAIR2])
            second = sum(abs((p >> 4 * g & 15) - (q >> 4 * g & 15)) << 4 * g for g in range(7))
        for g in range(7):
            out[a, 5 + g] = 0.5 * (code >> 4 * g & 15)
            out[a, 12 + g] = 0.5 * (second >> 4 * g & 15)
    return out


ACTION_FEATURES: Floats = _action_features()
"""(534, NAF): each action's features, which the policy head judges through the state."""


@dataclass(frozen=True)
class Net:
    """The network's weights (float32); ``forward`` plays them."""

    w1: Floats
    b1: Floats
    w2: Floats
    b2: Floats
    wp: Floats
    bp: Floats
    wq: Floats
    wv: Floats
    bv: Floats
    critic: tuple[Floats, ...] | None = None
    """The whole-position value's weights (w1, b1, w2, b2, wv, bv over ``encode_full``), for
    the search's leaves; None if the file has none."""

    NAMES = ("w1", "b1", "w2", "b2", "wp", "bp", "wq", "wv", "bv")
    CRITIC = ("w1", "b1", "w2", "b2", "wv", "bv")

    @classmethod
    def load(cls, path: Path | str) -> Net:
        """Weights saved by ``scripts/train_net.py`` (an ``.npz`` with one array per name)."""
        with np.load(path) as data:
            missing = [n for n in cls.NAMES if n not in data]
            if missing:
                raise ValueError(f"{path}: not the network's weights (lacks {missing})")
            arrays = {n: np.ascontiguousarray(data[n], dtype=np.float32) for n in cls.NAMES}
            critic = None
            if "critic_w1" in data:
                critic = tuple(
                    np.ascontiguousarray(data[f"critic_{n}"], dtype=np.float32) for n in cls.CRITIC
                )
        net = cls(**arrays, critic=critic)
        if net.w1.shape[0] != NFEAT or net.wp.shape[1] != NUM_ACTIONS:
            raise ValueError(
                f"{path}: weights for {net.w1.shape[0]} features and {net.wp.shape[1]} actions; "
                f"this version has {NFEAT} and {NUM_ACTIONS}: retrain (scripts/train_net.py)"
            )
        return net

    def arrays(self) -> dict[str, Floats]:
        """The weights by name (as saved)."""
        out = {n: getattr(self, n) for n in self.NAMES}
        if self.critic is not None:
            out.update({f"critic_{n}": w for n, w in zip(self.CRITIC, self.critic, strict=True)})
        return out


@cache
def default_net() -> Net:
    """The shipped network (read once)."""
    return Net.load(WEIGHTS)


@cache
def small_net() -> Net:
    """The shipped network distilled into fewer units (read once; ``scripts/train_net.py
    --teacher``): as good a guess at a move, some four times faster."""
    return Net.load(SMALL)


def forward(net: Net, x: Floats) -> tuple[Floats, Floats]:
    """(logits (n, 534), values (n,)) of feature rows ``x`` (n, NFEAT); float32."""
    h = np.maximum(x @ net.w1 + net.b1, 0.0)
    h = np.maximum(h @ net.w2 + net.b2, 0.0)
    logits = h @ net.wp + net.bp + (h @ net.wq) @ ACTION_FEATURES.T
    value = np.tanh(h @ net.wv + net.bv)
    return logits, value


@jit_inline
def hidden(x: Any, w1: Any, b1: Any, w2: Any, b2: Any, h1: Any, h2: Any) -> None:
    """The two ReLU layers of input ``x`` into ``h1`` and ``h2`` (in numba, for one row)."""
    n1 = h1.shape[0]
    n2 = h2.shape[0]
    h1[:] = b1
    for i in range(x.shape[0]):  # the input is mostly zeros: skip them
        xi = x[i]
        if xi != 0.0:
            for j in range(n1):
                h1[j] += xi * w1[i, j]
    h2[:] = b2
    for i in range(n1):
        hi = h1[i]
        if hi > 0.0:  # ReLU: the negative ones are zeros
            for j in range(n2):
                h2[j] += hi * w2[i, j]
    for j in range(n2):
        if h2[j] < 0.0:
            h2[j] = 0.0


@jit
def row_value(
    row: Any,
    full: bool,
    max_rounds: int,
    T: Any,
    w1: Any,
    b1: Any,
    w2: Any,
    b2: Any,
    wv: Any,
    bv: Any,
    x: Any,
    h1: Any,
    h2: Any,
) -> float:
    """A value for the seat to move in a kernel row, in numba (for the search's leaves): 1 win,
    -1 loss. ``full``: the critic's, over the whole position (``encode_full``), else the value
    head of ``forward``. ``x``, ``h1``, ``h2``: work arrays of the layers' sizes."""
    if full:
        encode_full(row, max_rounds, T, x)
    else:
        encode(row, max_rounds, T, x)
    hidden(x, w1, b1, w2, b2, h1, h2)
    u = bv[0]
    for j in range(h2.shape[0]):
        if h2[j] > 0.0:
            u += h2[j] * wv[j]
    return float(np.tanh(u))


def policy_arrays(net: Net) -> tuple[Floats, ...]:
    """The policy's weights laid out for :func:`row_pick`: w1, b1, w2, b2, the per-action
    weights one row an action (534, hidden), bp, wq and :data:`ACTION_FEATURES`."""
    return (
        net.w1,
        net.b1,
        net.w2,
        net.b2,
        np.ascontiguousarray(net.wp.T),
        net.bp,
        np.ascontiguousarray(net.wq),
        ACTION_FEATURES,
    )


@jit_fast
def row_logits(
    row: Any,
    ids: Any,
    n: int,
    max_rounds: int,
    T: Any,
    policy: Any,
    x: Any,
    h1: Any,
    h2: Any,
    z: Any,
) -> None:
    """The network's logit of each of the ``n`` legal action ids in ``ids`` for the seat to
    move in a kernel row, into ``z[:n]``, in numba. ``policy``: :func:`policy_arrays`; ``x``,
    ``h1``, ``h2``: work arrays of the layers' sizes."""
    w1, b1, w2, b2, wpt, bp, wq, af = policy
    encode(row, max_rounds, T, x)
    hidden(x, w1, b1, w2, b2, h1, h2)
    n2 = h2.shape[0]
    nf = af.shape[1]
    g = np.zeros(nf, dtype=np.float32)  # the state's judgement of each action feature
    for j in range(n2):
        hj = h2[j]
        if hj > 0.0:
            for f in range(nf):
                g[f] += hj * wq[j, f]
    for k in range(n):
        a = ids[k]
        v = bp[a]
        for j in range(n2):
            v += h2[j] * wpt[a, j]
        for f in range(nf):
            v += g[f] * af[a, f]
        z[k] = v


@jit_fast
def row_probs(
    row: Any,
    ids: Any,
    n: int,
    max_rounds: int,
    T: Any,
    policy: Any,
    x: Any,
    h1: Any,
    h2: Any,
    z: Any,
) -> None:
    """The network's probability of each of the ``n`` legal action ids in ``ids`` for the seat
    to move in a kernel row, into ``z[:n]``, in numba (the search's model of its opponent):
    the softmax of :func:`row_logits`."""
    if n == 1:
        z[0] = 1.0
        return
    row_logits(row, ids, n, max_rounds, T, policy, x, h1, h2, z)
    top = np.float32(-np.inf)
    for k in range(n):
        if z[k] > top:
            top = z[k]
    total = np.float32(0.0)
    for k in range(n):
        z[k] = np.exp(z[k] - top)
        total += z[k]
    for k in range(n):
        z[k] /= total


@jit
def row_pick(
    row: Any,
    ids: Any,
    n: int,
    max_rounds: int,
    T: Any,
    policy: Any,
    x: Any,
    h1: Any,
    h2: Any,
    z: Any,
    u: float,
) -> np.int64:
    """One of the ``n`` legal action ids in ``ids``, drawn from :func:`row_probs` with the
    uniform number ``u`` in [0, 1)."""
    row_probs(row, ids, n, max_rounds, T, policy, x, h1, h2, z)
    r = u
    for k in range(n):
        r -= z[k]
        if r < 0.0:
            return np.int64(ids[k])
    return np.int64(ids[n - 1])


_ACTIONS = {"S": 1, "D": 2, "G": 4, "C": 8}


def row_of_view(view: View) -> npt.NDArray[np.int64]:
    """A kernel row holding what ``view``'s seat knows, for the encoder (the opponent's hand,
    Secret, Discard, the removed card and the pile are zeros: the encoder never reads them)."""
    if view.to_move != view.seat:
        raise ValueError("the view's seat has no decision to make")
    row = np.zeros(NCOL, dtype=np.int64)
    seat = view.seat
    row[C_HAND + seat] = pack(view.hand)
    row[C_SECRET + seat] = pack(view.secret or "")
    row[C_DISCARD + seat] = pack(view.discard or "")
    for s in (0, 1):
        row[C_PLAYED + s] = pack(view.played[s])
        row[C_ACTIONS + s] = sum(_ACTIONS[a] for a in view.actions_left[s])
    row[C_MARKERS : C_MARKERS + 7] = [-1 if m is None else m for m in view.markers]
    row[C_ROUND] = view.round
    row[C_FIRST] = view.first
    left = len(view.actions_left[0]) + len(view.actions_left[1])
    # An offer's action is spent but its turn ends only with the pick.
    row[C_TURN] = 8 - left - (view.offer is not None)
    row[C_OFFER] = -1 if view.offer is None else IDS[Move.parse(view.offer)]
    row[C_TO_MOVE] = seat
    row[C_WINNER] = -1
    return row


def features(view: View, rules: Rules | None = None) -> Floats:
    """The network's input for ``view``'s seat (to move), under ``rules`` (their round limit)."""
    out = np.zeros(NFEAT, dtype=np.float32)
    encode(row_of_view(view), kernel_rounds((rules or Rules()).max_rounds), T, out)
    return out


def prior_bias(view: View, legal: Sequence[Move], rules: Rules | None = None) -> dict[Move, float]:
    """The search's prior (:func:`small_net`) on each of ``legal`` for ``view``'s seat, as a
    share of the likeliest move's probability (that move 1): the root's progressive bias with
    ``rootprior=net``."""
    logits, _ = forward(small_net(), features(view, rules)[None, :])
    z = logits[0, [IDS[m] for m in legal]].astype(np.float64)
    return dict(zip(legal, np.exp(z - z.max()).tolist(), strict=True))


class NetAgent:
    """The network alone: the legal move of highest logit (``temperature`` 0), or one drawn
    with probability proportional to exp(logit / temperature) from the ``rng`` given.
    ``weights``: a path to other weights than the shipped ones."""

    name = "net"

    def __init__(self, temperature: float = 0.0, weights: str = "") -> None:
        if not (temperature >= 0.0 and math.isfinite(temperature)):
            raise ValueError(f"temperature must be 0 or more, got {temperature!r}")
        self.temperature = temperature
        self.net = Net.load(weights) if weights else default_net()
        self.rules = Rules()

    def start(self, seat: int, rules: Rules) -> None:
        """A game starts under ``rules`` (the last round is one of the inputs)."""
        self.rules = rules

    def logits(self, view: View, legal: Sequence[Move]) -> Floats:
        """The network's logit of each of ``legal``, in order."""
        x = features(view, self.rules)[None, :]
        logits, _ = forward(self.net, x)
        return logits[0, [IDS[m] for m in legal]]

    def value(self, view: View) -> float:
        """The network's expected result for ``view``'s seat (to move): 1 win, -1 loss."""
        _, value = forward(self.net, features(view, self.rules)[None, :])
        return float(value[0])

    def choose(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
    ) -> Move:
        """The network's move (see the class)."""
        check_choice(view, legal, rng, clock_ms)
        if len(legal) == 1:
            return legal[0]
        z = self.logits(view, legal).astype(np.float64)
        if self.temperature == 0.0:
            return legal[int(np.argmax(z))]
        p = np.exp((z - z.max()) / self.temperature)
        r = rng.random() * float(p.sum())
        return legal[min(int(np.searchsorted(np.cumsum(p), r, side="right")), len(legal) - 1)]
