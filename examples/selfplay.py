"""Train a Hanamikoji policy by self-play on the batch simulator: PPO in numpy, on the CPU.

Run from the repository root::

    OMP_NUM_THREADS=1 .venv/bin/python examples/selfplay.py              # 20 minutes
    .venv/bin/python examples/selfplay.py --minutes 2 --out /tmp/run

The policy is a two-hidden-layer network over the normalised 98-float observation with a
softmax over the 534 move numbers (illegal moves masked out) and a value head. Each iteration
plays ``--games`` whole games on :class:`~hanamikoji.env.batch.BatchSim`: a share of them
(``--greedy-share``) against the batched greedy agent in a random seat, the rest the policy
against itself, where both seats' decisions are training data. Rewards are +1 / -1 at the end
(plus ``--round-reward`` shaping at each scoring); returns are undiscounted, so each decision
is credited with its own seat's result. PPO (clipped ratio, value loss, entropy bonus) with
Adam; the forward and backward passes are written out below.

Every ``--eval-every`` iterations the argmax policy plays the same ``--eval-deals`` deals (1,000)
against greedy, seat 0 on even deals and seat 1 on odd ones; the score is (wins + draws/2) /
games. ``--out`` (default ``examples/out/selfplay``) receives ``learning_curve.json``,
``learning_curve.svg`` and the weights ``policy.npz``, which
:func:`hanamikoji.env.policy.PolicyAgent` turns into an agent::

    from examples.selfplay import Network   # or load the .npz with your own code
    agent = PolicyAgent(Network.load("examples/out/selfplay/policy.npz").logits, name="ppo")

The same seed gives the same run when the budget is counted in ``--iterations``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.batch import BatchSim
from hanamikoji.env.observation import OBS_SIZE, scale
from hanamikoji.state import Deal

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

EVAL_SEED = 20_220
"""The seed of the evaluation deals: the same 1,000 deals for every run."""

_SCALE = scale(3)


@dataclass
class Config:
    """The run's settings (``--help`` describes each)."""

    minutes: float = 20.0
    iterations: int = 0
    games: int = 256
    hidden: int = 256
    lr: float = 3e-4
    epochs: int = 4
    minibatch: int = 1024
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    greedy_share: float = 0.5
    round_reward: float = 0.5
    eval_every: int = 10
    eval_deals: int = 1000
    seed: int = 1
    out: str = "examples/out/selfplay"
    quiet: bool = False


# -- the network -------------------------------------------------------------------------------
class Network:
    """x -> relu(W1) -> relu(W2) -> (534 logits, 1 value); parameters in ``params``."""

    NAMES = ("W1", "b1", "W2", "b2", "Wp", "bp", "Wv", "bv")

    def __init__(self, params: dict[str, F32]) -> None:
        self.params = params

    @classmethod
    def new(cls, hidden: int, rng: np.random.Generator) -> Network:
        """Fresh weights (He initialisation; a small policy head, so play starts near uniform)."""

        def layer(n_in: int, n_out: int, gain: float) -> F32:
            w: F32 = (rng.standard_normal((n_in, n_out)) * gain / np.sqrt(n_in)).astype(np.float32)
            return w

        return cls(
            {
                "W1": layer(OBS_SIZE, hidden, np.sqrt(2.0)),
                "b1": np.zeros(hidden, np.float32),
                "W2": layer(hidden, hidden, np.sqrt(2.0)),
                "b2": np.zeros(hidden, np.float32),
                "Wp": layer(hidden, NUM_ACTIONS, 0.01),
                "bp": np.zeros(NUM_ACTIONS, np.float32),
                "Wv": layer(hidden, 1, 1.0),
                "bv": np.zeros(1, np.float32),
            }
        )

    @classmethod
    def load(cls, path: str | Path) -> Network:
        """Weights saved by :meth:`save`."""
        with np.load(path) as data:
            return cls({k: data[k].astype(np.float32) for k in cls.NAMES})

    def save(self, path: str | Path) -> None:
        """Write the weights as an .npz file."""
        np.savez(path, **self.params)  # type: ignore[arg-type]

    def forward(self, obs: F32) -> tuple[F32, F32, tuple[F32, F32, F32]]:
        """(logits, values, the activations backward needs) for raw observations (N, 98)."""
        p = self.params
        x = obs / _SCALE
        h1 = np.maximum(x @ p["W1"] + p["b1"], 0.0)
        h2 = np.maximum(h1 @ p["W2"] + p["b2"], 0.0)
        return h2 @ p["Wp"] + p["bp"], (h2 @ p["Wv"] + p["bv"])[:, 0], (x, h1, h2)

    def backward(self, cache: tuple[F32, F32, F32], dlogits: F32, dvalue: F32) -> dict[str, F32]:
        """The gradients of the parameters from those of the logits and values."""
        p = self.params
        x, h1, h2 = cache
        dv = dvalue[:, None]
        dh2 = (dlogits @ p["Wp"].T + dv @ p["Wv"].T) * (h2 > 0)
        dh1 = (dh2 @ p["W2"].T) * (h1 > 0)
        return {
            "Wp": h2.T @ dlogits,
            "bp": dlogits.sum(0),
            "Wv": h2.T @ dv,
            "bv": dv.sum(0),
            "W2": h1.T @ dh2,
            "b2": dh2.sum(0),
            "W1": x.T @ dh1,
            "b1": dh1.sum(0),
        }

    def logits(self, obs: F32) -> F32:
        """The move logits of one observation (98,) or a batch (N, 98): a policy function."""
        batch = np.atleast_2d(obs).astype(np.float32)
        out = self.forward(batch)[0]
        return out[0] if np.ndim(obs) == 1 else out


class Adam:
    """Adam over a dict of arrays, updated in place."""

    def __init__(self, params: dict[str, F32], lr: float) -> None:
        self.lr = lr
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: dict[str, F32], grads: dict[str, F32]) -> None:
        """One descent step along ``grads``."""
        self.t += 1
        b1, b2 = 0.9, 0.999
        fix1, fix2 = 1 - b1**self.t, 1 - b2**self.t
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            step = self.lr * (self.m[k] / fix1) / (np.sqrt(self.v[k] / fix2) + 1e-8)
            params[k] -= step.astype(np.float32)


def log_softmax(logits: F32, mask: Bool) -> F32:
    """Log-probabilities over the legal moves (-inf elsewhere); each row needs one legal move."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    out: F32 = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return out


# -- PPO ---------------------------------------------------------------------------------------
@dataclass
class Batch:
    """Decisions to learn from: observation, mask, action, its log-probability, value, return."""

    obs: F32
    mask: Bool
    action: I64
    logp: F32
    value: F32
    ret: F32

    def __len__(self) -> int:
        return len(self.action)


def ppo_loss(
    net: Network, b: Batch, clip: float, entropy: float, value_coef: float
) -> tuple[float, dict[str, F32]]:
    """The PPO loss on a minibatch and its gradients (advantages normalised in the batch)."""
    n = len(b)
    logits, value, cache = net.forward(b.obs)
    logp_all = log_softmax(logits, b.mask)
    prob = np.exp(logp_all)
    rows = np.arange(n)
    logp = logp_all[rows, b.action]
    adv = b.ret - b.value
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    ratio = np.exp(logp - b.logp)
    clipped = np.clip(ratio, 1 - clip, 1 + clip)
    surrogate = np.minimum(ratio * adv, clipped * adv)
    safe = np.where(b.mask, logp_all, 0.0)
    ent = -(prob * safe).sum(axis=1)
    loss = -surrogate.mean() + value_coef * ((value - b.ret) ** 2).mean() - entropy * ent.mean()
    # d(-surrogate)/d logp: -adv * ratio where the unclipped term is the smaller one.
    active = ratio * adv <= clipped * adv
    dlogp = np.where(active, -adv * ratio, 0.0) / n
    dlogits = -prob * dlogp[:, None]
    dlogits[rows, b.action] += dlogp
    dlogits += entropy / n * prob * (safe + ent[:, None])
    dvalue = 2 * value_coef * (value - b.ret) / n
    grads = net.backward(cache, dlogits.astype(np.float32), dvalue.astype(np.float32))
    return float(loss), grads


def update(net: Network, opt: Adam, batch: Batch, config: Config, rng: np.random.Generator) -> None:
    """``config.epochs`` passes of minibatch PPO over the batch."""
    n = len(batch)
    for _ in range(config.epochs):
        order = rng.permutation(n)
        for at in range(0, n, config.minibatch):
            i = order[at : at + config.minibatch]
            part = Batch(*(getattr(batch, f)[i] for f in Batch.__dataclass_fields__))
            _, grads = ppo_loss(net, part, config.clip, config.entropy, config.value_coef)
            opt.step(net.params, grads)


def sample(logits: F32, mask: Bool, rng: np.random.Generator) -> tuple[I64, F32]:
    """A move per row from the masked softmax (Gumbel-max) and its log-probability."""
    logp = log_softmax(logits, mask)
    u = np.maximum(rng.random(logp.shape, dtype=np.float32), np.float32(1e-30))
    noisy = logp - np.log(-np.log(u))
    action = noisy.argmax(axis=1)
    return action, logp[np.arange(len(action)), action]


def rollout(net: Network, config: Config, seed: int, rng: np.random.Generator) -> Batch:
    """Play ``config.games`` whole games; the policy's decisions with their returns."""
    sim = BatchSim(config.games, seed=seed, auto_reset=False, round_reward=config.round_reward)
    b = config.games
    # Per game, the seat greedy plays, or -1 where the policy plays both seats.
    greedy_seat = np.where(rng.random(b) < config.greedy_share, rng.integers(2, size=b), -1)
    parts: list[tuple[F32, Bool, I64, F32, F32, I64, I64, int]] = []
    rewards: list[F32] = []
    mask = np.empty((b, NUM_ACTIONS), dtype=np.bool_)
    obs = np.empty((b, OBS_SIZE), dtype=np.float32)
    while not sim.over.all():
        mover = sim.to_move
        learner = (mover >= 0) & (mover != greedy_seat)
        actions = np.where((mover >= 0) & ~learner, sim.greedy_actions(), 0)
        idx = np.flatnonzero(learner)
        if len(idx):
            sim.observe_to_move(out=obs)
            sim.legal_mask(out=mask)
            o, m = obs[idx], mask[idx]
            logits, value, _ = net.forward(o)
            a, logp = sample(logits, m, rng)
            actions[idx] = a
            parts.append((o, m, a, logp, value, idx, mover[idx], len(rewards)))
        step_rewards, _ = sim.step(actions)
        rewards.append(step_rewards)
    # Each decision's return: its seat's rewards from its step to the end of the game.
    to_go = np.cumsum(np.stack(rewards)[::-1], axis=0)[::-1]
    rets = [to_go[t, idx, seat] for (_, _, _, _, _, idx, seat, t) in parts]
    return Batch(
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
        np.concatenate([p[3] for p in parts]).astype(np.float32),
        np.concatenate([p[4] for p in parts]).astype(np.float32),
        np.concatenate(rets).astype(np.float32),
    )


# -- evaluation --------------------------------------------------------------------------------
def eval_deals(n: int) -> list[list[Deal]]:
    """The fixed evaluation deals: ``n`` games of three rounds' deals."""
    rng = random.Random(EVAL_SEED)
    return [[Deal.random(rng) for _ in range(3)] for _ in range(n)]


def score_vs_greedy(net: Network, deals: list[list[Deal]]) -> float:
    """The argmax policy's score against greedy, seat g % 2 on deal g: (wins + draws/2) / games."""
    sim = BatchSim.from_deals(deals, seed=EVAL_SEED, auto_reset=False)
    seats = np.arange(len(deals)) % 2
    mask = np.empty((len(deals), NUM_ACTIONS), dtype=np.bool_)
    while not sim.over.all():
        sim.play_opponent(seats, "greedy")
        live = np.flatnonzero(~sim.over)
        if not len(live):
            break
        sim.action_mask(out=mask)
        logits = net.forward(sim.observe(seats)[live])[0]
        actions = np.zeros(len(deals), dtype=np.int64)
        actions[live] = np.where(mask[live], logits, -np.inf).argmax(axis=1)
        sim.step(actions)
    winner = sim.winner
    return float(((winner == seats) + 0.5 * (winner < 0)).mean())


# -- the run -----------------------------------------------------------------------------------
@dataclass
class Result:
    """The learning curve: (iteration, games played, seconds, score vs greedy) per point."""

    config: Config
    points: list[tuple[int, int, float, float]] = field(default_factory=list)


def train(config: Config, log: bool = True) -> tuple[Network, Result]:
    """Train for ``config.minutes`` (or ``config.iterations`` when set); the net and its curve."""
    rng = np.random.default_rng(config.seed)
    net = Network.new(config.hidden, rng)
    opt = Adam(net.params, config.lr)
    deals = eval_deals(config.eval_deals)
    result = Result(config)
    start = time.perf_counter()
    games = 0
    iteration = 0

    def point() -> None:
        s = score_vs_greedy(net, deals)
        elapsed = time.perf_counter() - start
        result.points.append((iteration, games, round(elapsed, 1), s))
        if log:
            line = (
                f"iteration {iteration:5d}  games {games:8d}  {elapsed:7.0f} s  vs greedy {s:.3f}"
            )
            print(line, flush=True)

    point()
    while True:
        if config.iterations and iteration >= config.iterations:
            break
        if not config.iterations and time.perf_counter() - start >= 60 * config.minutes:
            break
        batch = rollout(net, config, config.seed * 1_000_003 + iteration, rng)
        update(net, opt, batch, config, rng)
        iteration += 1
        games += config.games
        if iteration % config.eval_every == 0:
            point()
    if result.points[-1][0] != iteration:
        point()
    return net, result


def svg_curve(points: Sequence[tuple[float, float]], title: str) -> str:
    """A minimal line chart (x: games, y: score 0..1) as SVG text."""
    w, h, pad = 640, 360, 50
    xmax = max(x for x, _ in points) or 1.0

    def at(x: float, y: float) -> str:
        return f"{pad + (w - 2 * pad) * x / xmax:.1f},{h - pad - (h - 2 * pad) * y:.1f}"

    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{w / 2}" y="20" text-anchor="middle">{title}</text>',
    ]
    for y in (0.0, 0.25, 0.5, 0.6, 0.75, 1.0):
        dash = ' stroke-dasharray="4 3"' if y in (0.5, 0.6) else ""
        lines.append(
            f'<line x1="{pad}" x2="{w - pad}" y1="{at(0, y).split(",")[1]}" '
            f'y2="{at(0, y).split(",")[1]}" stroke="#ccc"{dash}/>'
        )
        lines.append(
            f'<text x="{pad - 6}" y="{at(0, y).split(",")[1]}" text-anchor="end">{y}</text>'
        )
    lines.append(f'<text x="{w / 2}" y="{h - 12}" text-anchor="middle">games played</text>')
    lines.append(f'<text x="{w - pad}" y="{h - pad + 16}" text-anchor="end">{xmax:,.0f}</text>')
    path = " ".join(at(x, y) for x, y in points)
    lines.append(f'<polyline points="{path}" fill="none" stroke="#c0392b" stroke-width="2"/>')
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def parse(argv: Sequence[str] | None) -> Config:
    """The settings from the command line."""
    d = Config()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=d.minutes, help="the time budget")
    ap.add_argument("--iterations", type=int, default=d.iterations, help="if set: the budget")
    ap.add_argument("--games", type=int, default=d.games, help="games per iteration")
    ap.add_argument("--hidden", type=int, default=d.hidden, help="units per hidden layer")
    ap.add_argument("--lr", type=float, default=d.lr, help="Adam's learning rate")
    ap.add_argument("--epochs", type=int, default=d.epochs, help="PPO passes per iteration")
    ap.add_argument("--minibatch", type=int, default=d.minibatch, help="decisions per step")
    ap.add_argument("--clip", type=float, default=d.clip, help="PPO's ratio clip")
    ap.add_argument("--entropy", type=float, default=d.entropy, help="entropy bonus")
    ap.add_argument("--value-coef", type=float, default=d.value_coef, help="value loss weight")
    ap.add_argument("--greedy-share", type=float, default=d.greedy_share, help="games vs greedy")
    ap.add_argument("--round-reward", type=float, default=d.round_reward, help="shaping weight")
    ap.add_argument("--eval-every", type=int, default=d.eval_every, help="iterations per point")
    ap.add_argument("--eval-deals", type=int, default=d.eval_deals, help="evaluation games")
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--out", default=d.out, help="where the curve and weights go")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    return Config(**{k: getattr(args, k) for k in asdict(d)})


def main(argv: Sequence[str] | None = None) -> Result:
    """Train, then write the learning curve (JSON, SVG) and the weights into ``--out``."""
    config = parse(argv)
    net, result = train(config, log=not config.quiet)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    curve = {"config": asdict(config), "points": result.points}
    (out / "learning_curve.json").write_text(json.dumps(curve, indent=1) + "\n", encoding="utf-8")
    title = f"PPO self-play: score vs greedy on {config.eval_deals} fixed deals"
    plot = [(float(games), s) for _, games, _, s in result.points]
    (out / "learning_curve.svg").write_text(svg_curve(plot, title), encoding="utf-8")
    net.save(out / "policy.npz")
    if not config.quiet:
        first, last = result.points[0], result.points[-1]
        print(f"score vs greedy: {first[3]:.3f} untrained, {last[3]:.3f} after {last[1]} games")
        print(f"wrote {out}/learning_curve.json, learning_curve.svg, policy.npz")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
