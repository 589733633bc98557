"""Train the learned player (``hanamikoji.ai.net``) by self-play on the batch simulator, in numpy.

Run: ``nice -n 10 .venv/bin/python scripts/train_net.py --out runs/net [--minutes 60] [--seed 1]``
(again with the same ``--out`` to resume from its checkpoint). It writes, in ``--out``:
``checkpoint.npz`` (weights, Adam's moments, the iteration, the random state), ``history.json``
(one line of figures per iteration), ``net.npz`` (the weights in the shipped format, the last
evaluated) and ``curve.svg`` (the learning curve: the network alone against greedy and random).
``--ship`` copies ``net.npz`` to ``src/hanamikoji/ai/data/net.npz`` and the curve to
``docs/img/net_curve.svg`` (``--ship-as net-small.npz``: ``net-small.npz`` and
``net_small_curve.svg``). ``--teacher W --hidden N`` distils the weights W into a network of
N units instead of phase 1 and 2 (the search's model of its opponent is such a distilled
network: docs/ai.md).

The method, in two phases, both on whole games of the batch simulator (``BatchSim``, 3 rounds):

1. **Imitation** (``--imitate`` iterations): greedy plays both seats, a tenth of its moves at
   random so the positions vary; the policy learns greedy's move (cross-entropy) and the value
   the game's result for the seat to move (squared error).
2. **Self-play** (PPO, Schulman et al. 2017, with Monte-Carlo returns as in DouZero): each game
   slot pits the learner against itself (half the slots), against a frozen earlier learner
   (``--past``), or against greedy (``--greedy``), so that no single opponent shapes it. The
   learner samples its moves; each of its decisions is credited with the game's result (1, 0,
   -1), the advantage is that less the value's estimate, and the policy takes a clipped step,
   with an entropy bonus, while the value regresses on the result.

``--by-round`` credits a decision with its round's outcome instead: the round value table's score
(``hanamikoji.ai.values``) of the markers the round left, the game's result in the round that ends
it: later rounds' deals are chance no decision chose, and leaving them out halves the variance of
the returns. ``--init W`` starts from the weights W (a ``net.npz``) instead of fresh ones.

Every ``--eval-every`` iterations the network alone (its highest-logit legal move) plays greedy
and random over duplicate pairs of fixed deals: the learning curve. Reproducible from ``--seed``
(one thread of BLAS: the sums are then the same from run to run on one machine).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # a shared 2-core machine, and reproducible sums

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from dataclasses import dataclass, replace  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, NamedTuple  # noqa: E402

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

from hanamikoji.ai.fastplay import choose, relative, table_value, tables  # noqa: E402
from hanamikoji.ai.net import ACTION_FEATURES, NAF, Net  # noqa: E402
from hanamikoji.env.batch import BatchSim  # noqa: E402
from hanamikoji.kernel.actions import NUM_ACTIONS  # noqa: E402
from hanamikoji.kernel.features import NFEAT, NFULL, encode_full_rows, encode_rows  # noqa: E402
from hanamikoji.kernel.jit import jit  # noqa: E402
from hanamikoji.kernel.row import (  # noqa: E402
    C_FIRST,
    C_MARKERS,
    C_RNG,
    C_ROUND,
    C_TO_MOVE,
)
from hanamikoji.kernel.rules import random_action  # noqa: E402
from hanamikoji.kernel.tables import H, T  # noqa: E402

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

MAX_ROUNDS = 3
SHIPPED = ROOT / "src" / "hanamikoji" / "ai" / "data" / "net.npz"
SHIPPED_CURVE = ROOT / "docs" / "img" / "net_curve.svg"
NEG = np.float32(-1e9)

# Who plays a seat: the learner (trained on), a frozen copy, greedy, uniform random.
LEARNER, PAST, GREEDY, RANDOM = 0, 1, 2, 3


# -- the model: the forward pass of hanamikoji.ai.net, and its gradient -------------------------
class Model:
    """The network's weights, their forward pass with what backprop needs, and Adam."""

    def __init__(self, params: dict[str, Floats]) -> None:
        self.p = params
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.steps = 0

    @classmethod
    def init(cls, rng: np.random.Generator, hidden: int) -> Model:
        """He-initialised weights; the policy and value heads start near zero."""

        def he(n_in: int, n_out: int, gain: float = 1.0) -> Floats:
            w: Floats = (rng.standard_normal((n_in, n_out)) * gain * np.sqrt(2.0 / n_in)).astype(
                np.float32
            )
            return w

        return cls(
            {
                "w1": he(NFEAT, hidden),
                "b1": np.zeros(hidden, np.float32),
                "w2": he(hidden, hidden),
                "b2": np.zeros(hidden, np.float32),
                "wp": he(hidden, NUM_ACTIONS, 0.01),
                "bp": np.zeros(NUM_ACTIONS, np.float32),
                "wq": he(hidden, NAF, 0.01),
                "wv": he(hidden, 1, 0.01)[:, 0].copy(),
                "bv": np.zeros(1, np.float32),
            }
        )

    def net(self) -> Net:
        """The weights as the player reads them."""
        p = {k: v.copy() for k, v in self.p.items()}
        return Net(p["w1"], p["b1"], p["w2"], p["b2"], p["wp"], p["bp"], p["wq"], p["wv"], p["bv"])

    def forward(self, x: Floats) -> tuple[Floats, Floats, tuple[Floats, ...]]:
        """(logits, values, cache) for feature rows x."""
        p = self.p
        h1 = np.maximum(x @ p["w1"] + p["b1"], 0.0)
        h2 = np.maximum(h1 @ p["w2"] + p["b2"], 0.0)
        logits = h2 @ p["wp"] + p["bp"] + (h2 @ p["wq"]) @ ACTION_FEATURES.T
        v = np.tanh(h2 @ p["wv"] + p["bv"])
        return logits, v, (x, h1, h2, v)

    def backward(self, cache: tuple[Floats, ...], dlogits: Floats, dv: Floats) -> dict[str, Floats]:
        """The gradients given the loss's gradients at the logits and at the values."""
        x, h1, h2, v = cache
        p = self.p
        du = dv * (1.0 - v * v)
        dq = dlogits @ ACTION_FEATURES
        g: dict[str, Floats] = {
            "wp": h2.T @ dlogits,
            "bp": dlogits.sum(0),
            "wq": h2.T @ dq,
            "wv": h2.T @ du,
            "bv": np.array([du.sum()], np.float32),
        }
        dh2 = dlogits @ p["wp"].T + dq @ p["wq"].T + np.outer(du, p["wv"])
        dh2 *= h2 > 0
        g["w2"] = h1.T @ dh2
        g["b2"] = dh2.sum(0)
        dh1 = (dh2 @ p["w2"].T) * (h1 > 0)
        g["w1"] = x.T @ dh1
        g["b1"] = dh1.sum(0)
        return g

    def adam(self, g: dict[str, Floats], lr: float, clip: float = 1.0) -> float:
        """One Adam step (gradients clipped to a global norm); returns the norm before."""
        norm = float(np.sqrt(sum(float((v * v).sum()) for v in g.values())))
        scale = min(1.0, clip / (norm + 1e-8))
        self.steps += 1
        b1, b2 = 0.9, 0.999
        c1, c2 = 1 - b1**self.steps, 1 - b2**self.steps
        for k, grad in g.items():
            grad = grad * scale
            self.m[k] = b1 * self.m[k] + (1 - b1) * grad
            self.v[k] = b2 * self.v[k] + (1 - b2) * grad * grad
            self.p[k] -= (lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + 1e-8)).astype(
                np.float32
            )
        return norm


def minibatches(n: int, epochs: int, batch: int, rng: np.random.Generator) -> Iterator[Ints]:
    """Index arrays of ``batch`` rows (the last smaller) of a fresh permutation of ``n``, each
    epoch in turn."""
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            yield order[start : start + batch]


def masked_softmax(logits: Floats, mask: Bools) -> tuple[Floats, Floats]:
    """(probabilities, log-probabilities) over the legal actions (0 and -inf-ish elsewhere)."""
    z = np.where(mask, logits, NEG)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z) * mask
    s = e.sum(axis=1, keepdims=True)
    return e / s, np.where(mask, z - np.log(s), 0.0).astype(np.float32)


# -- the other players, in numba ------------------------------------------------------------------
@jit
def greedy_rows(S: Any, idx: Any, T: Any, H: Any, F: Any, out: Any) -> None:
    """greedy's move in rows idx of S (on copies: the simulator's streams stay its own)."""
    rel = np.empty(7, dtype=np.int64)
    ids = np.empty(600, dtype=np.int64)
    for j in range(idx.shape[0]):
        row = S[idx[j]].copy()
        relative(row, row[C_TO_MOVE], rel)
        out[j] = choose(row, T, H, F, rel, ids)


@jit
def random_rows(S: Any, idx: Any, seeds: Any, T: Any, H: Any, out: Any) -> None:
    """A uniformly random legal move in rows idx of S, from the given seeds."""
    for j in range(idx.shape[0]):
        row = S[idx[j]].copy()
        row[C_RNG] = seeds[j]
        out[j] = random_action(row, T, H)


# -- playing whole games --------------------------------------------------------------------
@dataclass
class Decisions:
    """The learner's decisions of a batch of games, and each one's game result."""

    x: Floats
    mask: Bools
    action: Ints
    logp: Floats
    ret: Floats


class Step(NamedTuple):
    """One minibatch's forward pass and the policy terms both PPO updates read: the value,
    the cache for the backward pass, the probabilities and log-probabilities over the legal
    actions, the actions taken (one-hot) and each row's entropy."""

    v: Floats
    cache: Any
    probs: Floats
    logp: Floats
    action: Ints
    rows: Ints
    onehot: Floats
    ent: Floats


def step_terms(model: Model, d: Decisions, i: Ints) -> Step:
    """The :class:`Step` of decisions ``i``."""
    logits, v, cache = model.forward(d.x[i])
    probs, logp = masked_softmax(logits, d.mask[i])
    a = d.action[i]
    rows = np.arange(len(i))
    onehot = np.zeros_like(probs)
    onehot[rows, a] = 1.0
    ent = -(probs * logp).sum(axis=1)
    return Step(v, cache, probs, logp, a, rows, onehot, ent)


def play(
    nets: dict[int, Model],
    who: Ints,
    seed: int,
    rng: np.random.Generator,
    *,
    sample: bool,
    explore: float = 0.0,
    teacher: bool = False,
    whole: list[tuple[Floats, Ints, Ints]] | None = None,
    by_round: bool = False,
) -> tuple[Decisions, Ints]:
    """Play one game in each slot of a fresh simulator to its end.

    ``who[g, seat]`` says who plays each seat (LEARNER, PAST, GREEDY, RANDOM); the networks
    are ``nets[LEARNER]`` and ``nets[PAST]``. ``sample``: networks sample their moves, else
    play their highest-logit legal move. ``explore``: greedy's share of random moves.
    ``teacher``: record greedy's decisions (as the learner's) with greedy's move as the action.
    ``whole``: gets every decision's full input (``encode_full``), slot and seat, whoever plays.
    ``by_round``: credit a decision with its round's outcome rather than the game's: the round
    value table's score of the markers the round left (:func:`round_returns`), the game's result
    in the round that ends it.
    Returns the recorded decisions and each game's winner (-1 a draw).
    """
    B = who.shape[0]
    sim = BatchSim(B, seed=seed, max_rounds=MAX_ROUNDS, auto_reset=False)
    F, horizon = tables()
    X = np.zeros((B, NFEAT), np.float32)
    mask = np.zeros((B, NUM_ACTIONS), np.bool_)
    rec: dict[str, list[Any]] = {
        k: [] for k in ("x", "mask", "action", "logp", "slot", "seat", "round")
    }
    rows = np.arange(B)
    # seat 0's expected score after each round that did not end its game (by_round)
    after = np.full((B, MAX_ROUNDS + 1), np.nan)
    while True:
        S = sim.table
        seat = S[:, C_TO_MOVE]
        live = seat >= 0
        if not live.any():
            break
        encode_rows(S, MAX_ROUNDS, T, X)
        if whole is not None:
            at = np.flatnonzero(live)
            XF = np.zeros((len(at), NFULL), np.float32)
            encode_full_rows(S[at], MAX_ROUNDS, T, XF)
            whole.append((XF, at, seat[at]))
        sim.legal_mask(mask)
        actor = np.where(live, who[rows, np.maximum(seat, 0)], -1)
        actions = np.zeros(B, np.int64)
        for kind in (LEARNER, PAST):
            idx = np.flatnonzero(actor == kind)
            if not len(idx) or kind not in nets:
                continue
            logits, _, _ = nets[kind].forward(X[idx])
            probs, logp = masked_softmax(logits, mask[idx])
            if sample:
                u = rng.random(len(idx))[:, None]
                a = np.minimum((probs.cumsum(axis=1) < u).sum(axis=1), NUM_ACTIONS - 1)
                # float rounding may land past the last legal action: take the likeliest then
                bad = ~mask[idx, a]
                a[bad] = probs[bad].argmax(axis=1)
            else:
                a = np.where(mask[idx], logits, NEG).argmax(axis=1)
            actions[idx] = a
            if kind == LEARNER:
                rec["x"].append(X[idx].copy())
                rec["mask"].append(mask[idx].copy())
                rec["action"].append(a)
                rec["logp"].append(logp[np.arange(len(idx)), a])
                rec["slot"].append(idx)
                rec["seat"].append(seat[idx])
                rec["round"].append(S[idx, C_ROUND].copy())
        idx = np.flatnonzero(actor == GREEDY)
        if len(idx):
            out = np.zeros(len(idx), np.int64)
            greedy_rows(S, idx, T, H, F, out)
            if teacher:
                rec["x"].append(X[idx].copy())
                rec["mask"].append(mask[idx].copy())
                rec["action"].append(out.copy())
                rec["logp"].append(np.zeros(len(idx), np.float32))
                rec["slot"].append(idx)
                rec["seat"].append(seat[idx])
                rec["round"].append(S[idx, C_ROUND].copy())
            if explore > 0:
                wild = rng.random(len(idx)) < explore
                seeds = rng.integers(0, 2**62, size=int(wild.sum()))
                pick = np.zeros(int(wild.sum()), np.int64)
                random_rows(S, idx[wild], seeds, T, H, pick)
                out[wild] = pick
            actions[idx] = out
        idx = np.flatnonzero(actor == RANDOM)
        if len(idx):
            out = np.zeros(len(idx), np.int64)
            random_rows(S, idx, rng.integers(0, 2**62, size=len(idx)), T, H, out)
            actions[idx] = out
        before = S[:, C_ROUND].copy()
        sim.step(actions)
        if by_round:
            S = sim.table
            # a new round was dealt: the game goes on from the markers the last one left
            for g in np.flatnonzero((S[:, C_ROUND] != before) & (S[:, C_TO_MOVE] >= 0)):
                after[g, before[g]] = round_value(S[g], F, horizon)
    winner = sim.winner.astype(np.int64)
    if not rec["x"]:
        empty = np.zeros(0, np.float32)
        return Decisions(np.zeros((0, NFEAT), np.float32), np.zeros((0, NUM_ACTIONS), bool),
                         np.zeros(0, np.int64), empty, empty), winner  # fmt: skip
    slot = np.concatenate(rec["slot"])
    seat = np.concatenate(rec["seat"])
    ret = results(winner, slot, seat)
    if by_round:
        ret = round_returns(ret, after, slot, seat, np.concatenate(rec["round"]))
    return (
        Decisions(
            np.concatenate(rec["x"]),
            np.concatenate(rec["mask"]),
            np.concatenate(rec["action"]).astype(np.int64),
            np.concatenate(rec["logp"]).astype(np.float32),
            ret,
        ),
        winner,
    )


def results(winner: Ints, slot: Ints, seat: Ints) -> Floats:
    """Each decision's game result for its seat: 1 win, 0 draw, -1 loss."""
    w = winner[slot]
    out: Floats = np.where(w < 0, 0.0, np.where(w == seat, 1.0, -1.0)).astype(np.float32)
    return out


def round_value(row: Ints, F: Any, horizon: int) -> float:
    """Seat 0's expected score (0..1) at the start of the round just dealt in ``row``: the round
    value table's (``hanamikoji.ai.values``) for its markers, first player and rounds left."""
    code = sum(int(row[C_MARKERS + g] + 1) * 3**g for g in range(7))
    left = MAX_ROUNDS - int(row[C_ROUND]) + 1
    return float(table_value(F, horizon, code, int(row[C_FIRST]), left))


def round_returns(ret: Floats, after: npt.NDArray[np.float64], slot: Ints, seat: Ints,
                  rnd: Ints) -> Floats:  # fmt: skip
    """Each decision's return by its round: where its round did not end the game (``after``
    holds seat 0's expected score then), that score for its seat on the game's scale (-1..1);
    else ``ret``, the game's result. The deals of later rounds are chance the decision did not
    choose: leaving them out of its credit cuts the return's variance (a bias the size of the
    table's error)."""
    p = after[slot, rnd]
    known = ~np.isnan(p)
    mine = np.where(seat == 0, p, 1.0 - p)
    out: Floats = np.where(known, 2.0 * mine - 1.0, ret).astype(np.float32)
    return out


class Critic:
    """A value over whole positions (``encode_full``), for the search's leaves: the same two
    ReLU layers and tanh value as the player's, no policy; trained by regression on results."""

    NAMES = ("w1", "b1", "w2", "b2", "wv", "bv")

    def __init__(self, params: dict[str, Floats]) -> None:
        self.model = Model(params)

    @classmethod
    def init(cls, rng: np.random.Generator, hidden: int) -> Critic:
        """He-initialised weights, the value head near zero."""
        w1 = (rng.standard_normal((NFULL, hidden)) * np.sqrt(2.0 / NFULL)).astype(np.float32)
        w2 = (rng.standard_normal((hidden, hidden)) * np.sqrt(2.0 / hidden)).astype(np.float32)
        wv = (rng.standard_normal(hidden) * 0.01 * np.sqrt(2.0 / hidden)).astype(np.float32)
        zero = np.zeros(hidden, np.float32)
        return cls({"w1": w1, "b1": zero, "w2": w2, "b2": zero.copy(), "wv": wv,
                    "bv": np.zeros(1, np.float32)})  # fmt: skip

    def forward(self, x: Floats) -> tuple[Floats, tuple[Floats, ...]]:
        """(values, cache)."""
        p = self.model.p
        h1 = np.maximum(x @ p["w1"] + p["b1"], 0.0)
        h2 = np.maximum(h1 @ p["w2"] + p["b2"], 0.0)
        v = np.tanh(h2 @ p["wv"] + p["bv"])
        return v, (x, h1, h2, v)

    def fit(self, x: Floats, ret: Floats, rng: np.random.Generator, lr: float, batch: int) -> float:
        """One pass of minibatch regression on the results; the mean squared error."""
        p = self.model.p
        total = 0.0
        order = rng.permutation(len(ret))
        for start in range(0, len(ret), batch):
            i = order[start : start + batch]
            v, (xb, h1, h2, _) = self.forward(x[i])
            dv = (2.0 * (v - ret[i]) / len(i)).astype(np.float32)
            du = dv * (1.0 - v * v)
            g = {"wv": h2.T @ du, "bv": np.array([du.sum()], np.float32)}
            dh2 = np.outer(du, p["wv"]) * (h2 > 0)
            g["w2"] = h1.T @ dh2
            g["b2"] = dh2.sum(0)
            dh1 = (dh2 @ p["w2"].T) * (h1 > 0)
            g["w1"] = xb.T @ dh1
            g["b1"] = dh1.sum(0)
            self.model.adam(g, lr)
            total += float(((v - ret[i]) ** 2).sum())
        return total / max(len(ret), 1)


def train_critic(args: argparse.Namespace, model: Model, out: Path) -> None:
    """Learn the whole-position value from the player's own games (``--critic`` iterations;
    resumable from ``critic.npz``): the player samples its moves against itself or greedy."""
    path = out / "critic.npz"
    rng = np.random.default_rng(args.seed + 17)
    start = 0
    if path.exists():
        with np.load(path) as data:
            critic = Critic({k: data[f"c_{k}"] for k in Critic.NAMES})
            critic.model.m = {k: data[f"m_{k}"] for k in Critic.NAMES}
            critic.model.v = {k: data[f"v_{k}"] for k in Critic.NAMES}
            meta = json.loads(str(data["meta"]))
        critic.model.steps, start = meta["steps"], meta["iteration"]
        rng.bit_generator.state = meta["rng"]
    else:
        critic = Critic.init(rng, args.critic_hidden)
    history: list[dict[str, Any]] = []
    hist_path = out / "critic_history.json"
    if hist_path.exists() and start:
        history = json.loads(hist_path.read_text())
    started = time.time()
    for it in range(start, args.critic):
        B = args.games
        opp = np.where(rng.random(B) < args.greedy, GREEDY, LEARNER)
        who = np.stack([np.full(B, LEARNER), opp], axis=1).astype(np.int64)
        flip = rng.random(B) < 0.5
        who[flip] = who[flip][:, ::-1]
        seen: list[tuple[Floats, Ints, Ints]] = []
        seed = int(args.seed) * 1_000_033 + it
        _, winner = play({LEARNER: model}, who, seed, rng, sample=True, whole=seen)
        x = np.concatenate([s[0] for s in seen])
        ret = results(
            winner, np.concatenate([s[1] for s in seen]), np.concatenate([s[2] for s in seen])
        )
        # held out: the first tenth of this iteration's games, before fitting on the rest
        test = np.isin(np.concatenate([s[1] for s in seen]), np.arange(B // 10))
        v, _ = critic.forward(x[test])
        held = float(((v - ret[test]) ** 2).mean())
        mse = critic.fit(x[~test], ret[~test], rng, args.critic_lr, args.batch)
        history.append({"iteration": it + 1, "positions": len(ret), "mse": round(mse, 4),
                        "held_out_mse": round(held, 4)})  # fmt: skip
        arrays: dict[str, Any] = {f"c_{k}": v for k, v in critic.model.p.items()}
        arrays.update({f"m_{k}": v for k, v in critic.model.m.items()})
        arrays.update({f"v_{k}": v for k, v in critic.model.v.items()})
        arrays["meta"] = np.array(json.dumps({"iteration": it + 1, "steps": critic.model.steps,
                                              "rng": rng.bit_generator.state}))  # fmt: skip
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)
        hist_path.write_text(json.dumps(history, indent=0) + "\n")
        bar(it + 1, args.critic, started, f"critic: held-out squared error {held:.3f}", start)
    sys.stderr.write("\n")
    # the shipped file holds the player and the critic: one set of weights to read
    arrays = dict(model.net().arrays())
    arrays.update({f"critic_{k}": v for k, v in critic.model.p.items()})
    tmp = (out / "net.npz").with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    tmp.replace(out / "net.npz")


def evaluate(model: Model, opponent: int, pairs: int, seed: int) -> float:
    """The network's score (win 1, draw 1/2) against ``opponent`` over duplicate pairs: the same
    deals with the seats swapped."""
    nets = {LEARNER: model}
    rng = np.random.default_rng(seed)
    total = 0.0
    for me in (0, 1):
        who = np.full((pairs, 2), opponent, np.int64)
        who[:, me] = LEARNER
        _, winner = play(nets, who, seed, rng, sample=False)
        total += float(np.where(winner < 0, 0.5, winner == me).sum())
    return total / (2 * pairs)


# -- the two phases' updates --------------------------------------------------------------------
def update(
    model: Model,
    d: Decisions,
    rng: np.random.Generator,
    *,
    imitate: bool,
    lr: float,
    epochs: int,
    batch: int,
    clip: float = 0.2,
    entropy: float = 0.01,
    value_weight: float = 0.5,
) -> dict[str, float]:
    """Minibatch steps over the decisions; returns the mean losses."""
    n = len(d.ret)
    sums = {"policy": 0.0, "value": 0.0, "entropy": 0.0}
    count = 0
    adv_all = np.zeros(n, np.float32)
    if not imitate:
        _, v_old, _ = model.forward(d.x)
        adv_all = d.ret - v_old
        adv_all = ((adv_all - adv_all.mean()) / (adv_all.std() + 1e-6)).astype(np.float32)
    for i in minibatches(n, epochs, batch, rng):
        m = len(i)
        v, cache, probs, logp, a, rows, onehot, ent = step_terms(model, d, i)
        if imitate:
            loss_p = -logp[rows, a]
            dlogits = probs - onehot
        else:
            adv = adv_all[i]
            ratio = np.exp(logp[rows, a] - d.logp[i])
            clipped = np.clip(ratio, 1 - clip, 1 + clip)
            loss_p = -np.minimum(ratio * adv, clipped * adv)
            # the gradient flows where the unclipped term is the smaller one
            active = (ratio * adv) <= (clipped * adv)
            coef = np.where(active, -ratio * adv, 0.0).astype(np.float32)
            dlogits = coef[:, None] * (onehot - probs)
            # the entropy bonus: d(-H)/dz_j = p_j (log p_j + H)
            dlogits += entropy * probs * (logp + ent[:, None])
        dlogits = (dlogits * d.mask[i] / m).astype(np.float32)
        dv = (value_weight * 2.0 * (v - d.ret[i]) / m).astype(np.float32)
        model.adam(model.backward(cache, dlogits, dv), lr)
        sums["policy"] += float(loss_p.mean())
        sums["value"] += float(((v - d.ret[i]) ** 2).mean())
        sums["entropy"] += float(ent.mean())
        count += 1
    return {k: s / max(count, 1) for k, s in sums.items()}


def distil(
    model: Model,
    teacher: Model,
    d: Decisions,
    rng: np.random.Generator,
    *,
    lr: float,
    epochs: int,
    batch: int,
) -> dict[str, float]:
    """Minibatch steps pulling the model's legal-move probabilities and value towards the
    teacher's on the decisions ``d`` (cross-entropy to the teacher's probabilities, squared
    error to its value); returns the mean losses (the policy's is the KL divergence)."""
    t_logits, t_value, _ = teacher.forward(d.x)
    t_probs, t_logp = masked_softmax(t_logits, d.mask)
    n = len(d.ret)
    sums = {"policy": 0.0, "value": 0.0, "entropy": 0.0}
    count = 0
    for i in minibatches(n, epochs, batch, rng):
        m = len(i)
        logits, v, cache = model.forward(d.x[i])
        probs, logp = masked_softmax(logits, d.mask[i])
        target = t_probs[i]
        dlogits = ((probs - target) * d.mask[i] / m).astype(np.float32)
        dv = (2.0 * (v - t_value[i]) / m).astype(np.float32)
        model.adam(model.backward(cache, dlogits, dv), lr)
        sums["policy"] += float((target * (t_logp[i] - logp)).sum(axis=1).mean())
        sums["value"] += float(((v - t_value[i]) ** 2).mean())
        sums["entropy"] += float(-(probs * logp).sum(axis=1).mean())
        count += 1
    return {k: s / max(count, 1) for k, s in sums.items()}


# -- checkpoints, the curve, the progress line ----------------------------------------------
def save(path: Path, model: Model, it: int, rng: np.random.Generator, past: Model | None) -> None:
    """Everything needed to resume, written atomically."""
    arrays: dict[str, Any] = {f"p_{k}": v for k, v in model.p.items()}
    arrays.update({f"m_{k}": v for k, v in model.m.items()})
    arrays.update({f"v_{k}": v for k, v in model.v.items()})
    if past is not None:
        arrays.update({f"past_{k}": v for k, v in past.p.items()})
    arrays["meta"] = np.array(
        json.dumps({"iteration": it, "steps": model.steps, "rng": rng.bit_generator.state})
    )
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def load(path: Path) -> tuple[Model, int, np.random.Generator, Model | None]:
    """A checkpoint written by ``save``."""
    with np.load(path) as data:
        names = Net.NAMES
        model = Model({k: data[f"p_{k}"] for k in names})
        model.m = {k: data[f"m_{k}"] for k in names}
        model.v = {k: data[f"v_{k}"] for k in names}
        past = Model({k: data[f"past_{k}"] for k in names}) if "past_w1" in data else None
        meta = json.loads(str(data["meta"]))
    model.steps = meta["steps"]
    rng = np.random.default_rng()
    rng.bit_generator.state = meta["rng"]
    return model, meta["iteration"], rng, past


def save_net(path: Path, model: Model, critic: tuple[Floats, ...] | None = None) -> None:
    """The weights in the shipped format (``Net.load`` reads it), with ``critic`` if given."""
    tmp = path.with_suffix(".tmp.npz")
    arrays: dict[str, Any] = dict(replace(model.net(), critic=critic).arrays())
    np.savez_compressed(tmp, **arrays)
    tmp.replace(path)


def curve(history: list[dict[str, Any]]) -> str:
    """The learning curve as SVG: the score against greedy and random by games played."""
    # Drawn here: bench/svgplot's line chart has one series, this curve two.
    pts = [(h["games"] / 1000, h) for h in history if "vs_greedy" in h]
    W, Hh, P = 640, 400, 60
    xs = [x for x, _ in pts] or [0.0]
    x0, x1 = min(xs), max(max(xs), min(xs) + 1e-9)

    def sx(x: float) -> float:
        return float(P + (W - 1.5 * P) * (x - x0) / (x1 - x0))

    def sy(y: float) -> float:
        return Hh - P - (Hh - 2 * P) * y

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{Hh}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{Hh}" fill="white"/>',
        f'<text x="{W / 2}" y="24" text-anchor="middle" font-size="15">'
        "the network alone: its score by self-play games</text>",
        f'<text x="{W / 2}" y="{Hh - 12}" text-anchor="middle">training games (thousands)</text>',
        f'<text x="16" y="{Hh / 2}" text-anchor="middle" transform="rotate(-90 16 {Hh / 2})">'
        "score (duplicate pairs)</text>",
    ]
    for y in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(
            f'<line x1="{P}" y1="{sy(y):.1f}" x2="{W - P / 2}" y2="{sy(y):.1f}" '
            f'stroke="{"black" if y == 0 else "#ddd"}"/>'
        )
        out.append(f'<text x="{P - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:.2f}</text>')
    for frac in (0.0, 0.5, 1.0):
        x = x0 + frac * (x1 - x0)
        out.append(f'<text x="{sx(x):.1f}" y="{Hh - P + 16}" text-anchor="middle">{x:.0f}</text>')
    for key, colour, label in (
        ("vs_random", "#2a7", "vs random"),
        ("vs_greedy", "#c33", "vs greedy"),
    ):
        line = " ".join(f"{sx(x):.1f},{sy(h[key]):.1f}" for x, h in pts if key in h)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{line}"/>')
        at = 50 if key == "vs_random" else 68
        out.append(f'<text x="{P + 10}" y="{at}" fill="{colour}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def bar(done: int, total: int, started: float, note: str, first: int = 0) -> None:
    """One progress line on stderr (``first``: where this run resumed, for the time left)."""
    width = 30
    fill = int(width * done / max(total, 1))
    spent = time.time() - started
    eta = spent / max(done - first, 1) * (total - done)
    sys.stderr.write(
        f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} "
        f"{spent / 60:5.1f} min, ~{eta / 60:4.1f} left  {note}\x1b[K"
    )
    sys.stderr.flush()


# -- the run ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "net")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=400, help="iterations in all")
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this long (0: none)")
    ap.add_argument("--imitate", type=int, default=20, help="iterations of imitating greedy")
    ap.add_argument("--games", type=int, default=1024, help="games an iteration")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--entropy", type=float, default=0.01)
    ap.add_argument("--greedy", type=float, default=0.25, help="share of slots against greedy")
    ap.add_argument("--past", type=float, default=0.25, help="share against a frozen learner")
    ap.add_argument("--past-every", type=int, default=25, help="iterations between freezes")
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--eval-pairs", type=int, default=500)
    ap.add_argument("--critic", type=int, default=0, help="then iterations of learning the "
                    "whole-position value (resumable)")  # fmt: skip
    ap.add_argument("--critic-hidden", type=int, default=256)
    ap.add_argument("--critic-lr", type=float, default=1e-3)
    ap.add_argument("--ship", action="store_true", help="copy net.npz and the curve into place")
    ap.add_argument("--teacher", type=Path, help="distil these weights (a net.npz) into a "
                    "network of --hidden units instead of learning by self-play: the student "
                    "plays the teacher or itself and learns the teacher's probabilities and "
                    "values at its own decisions")  # fmt: skip
    ap.add_argument("--ship-as", default="net.npz", help="the shipped file's name (--ship)")
    ap.add_argument("--init", type=Path, help="start from these weights (a net.npz; its critic "
                    "kept in the saved net.npz), not fresh ones; no imitation then")  # fmt: skip
    ap.add_argument("--by-round", action="store_true", help="credit each decision with its "
                    "round's outcome (the round value table's score of the markers it left) "
                    "rather than the game's result")  # fmt: skip
    args = ap.parse_args(argv)
    critic: tuple[Floats, ...] | None = None
    if args.init:
        if args.teacher:
            ap.error("--init and --teacher: give one")
        critic = Net.load(args.init).critic
    teacher = None
    if args.teacher:
        t = Net.load(args.teacher)
        teacher = Model({k: getattr(t, k) for k in Net.NAMES})

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    ckpt, hist_path = out / "checkpoint.npz", out / "history.json"
    past: Model | None = None
    if ckpt.exists():
        model, start, rng, past = load(ckpt)
        history = json.loads(hist_path.read_text()) if hist_path.exists() else []
        print(f"resuming {ckpt} at iteration {start}", file=sys.stderr)
    else:
        rng = np.random.default_rng(args.seed)
        model = Model.init(rng, args.hidden)
        if args.init:
            init = Net.load(args.init)
            model = Model({k: getattr(init, k).copy() for k in Net.NAMES})
            args.imitate = 0
        start, history = 0, []
    games = history[-1]["games"] if history else 0
    started = time.time()
    deadline = started + 60 * args.minutes if args.minutes else float("inf")
    it = start
    while it < args.iterations and time.time() < deadline:
        t0 = time.time()
        seed = int(args.seed) * 1_000_003 + it
        imitate = it < args.imitate and teacher is None and not args.init
        B = args.games
        if teacher is not None:
            # half the games against the teacher, half against itself: its own positions
            opp = np.where(rng.random(B) < 0.5, PAST, LEARNER)
            who = np.stack([np.full(B, LEARNER), opp], axis=1).astype(np.int64)
            flip = rng.random(B) < 0.5
            who[flip] = who[flip][:, ::-1]
            d, _ = play({LEARNER: model, PAST: teacher}, who, seed, rng, sample=True)
        elif imitate:
            who = np.full((B, 2), GREEDY, np.int64)
            d, _ = play({}, who, seed, rng, sample=True, explore=0.1, teacher=True)
        else:
            if past is None or (it - args.imitate) % args.past_every == 0:
                past = Model({k: v.copy() for k, v in model.p.items()})
            kind = rng.random(B)
            opp = np.where(kind < args.greedy, GREEDY,
                           np.where(kind < args.greedy + args.past, PAST, LEARNER))  # fmt: skip
            who = np.stack([np.full(B, LEARNER), opp], axis=1).astype(np.int64)
            flip = rng.random(B) < 0.5
            who[flip] = who[flip][:, ::-1]
            d, _ = play({LEARNER: model, PAST: past}, who, seed, rng, sample=True,
                        by_round=args.by_round)  # fmt: skip
        if teacher is not None:
            losses = distil(model, teacher, d, rng, lr=args.lr, epochs=args.epochs,
                            batch=args.batch)  # fmt: skip
        else:
            losses = update(
                model, d, rng, imitate=imitate, lr=args.lr * (3 if imitate else 1),
                epochs=args.epochs, batch=args.batch, entropy=args.entropy,
            )  # fmt: skip
        games += B
        it += 1
        row: dict[str, Any] = {"iteration": it, "games": games, "decisions": len(d.ret),
                               "seconds": round(time.time() - t0, 2), **losses}  # fmt: skip
        if it % args.eval_every == 0 or it == args.iterations:
            row["vs_greedy"] = evaluate(model, GREEDY, args.eval_pairs, 777)
            row["vs_random"] = evaluate(model, RANDOM, args.eval_pairs // 2, 778)
            save_net(out / "net.npz", model, critic)
        history.append({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()})
        save(ckpt, model, it, rng, past)
        hist_path.write_text(json.dumps(history, indent=0) + "\n")
        if "vs_greedy" in row:
            (out / "curve.svg").write_text(curve(history))
        last = next((h for h in reversed(history) if "vs_greedy" in h), None)
        phase = "distil" if teacher is not None else "imitate" if imitate else "self-play"
        note = f"{phase} value {losses['value']:.3f}"
        if last:
            note += f" | vs greedy {last['vs_greedy']:.3f} vs random {last['vs_random']:.3f}"
        bar(it, args.iterations, started, note, start)
    sys.stderr.write("\n")
    if args.critic:
        train_critic(args, model, out)
    if args.ship:
        weights = SHIPPED.with_name(args.ship_as)
        stem = Path(args.ship_as).stem
        plot = SHIPPED_CURVE.with_name(f"{stem.replace('-', '_')}_curve.svg")
        shutil.copyfile(out / "net.npz", weights)
        plot.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / "curve.svg", plot)
        print(f"shipped {weights} and {plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
