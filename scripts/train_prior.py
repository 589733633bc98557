"""Fit the search's prior (the distilled network, ``net-small.npz``) to master's own visits.

Run: ``.venv/bin/python scripts/train_prior.py --targets runs/targets --out runs/prior`` (several
folders after ``--targets`` are learned from together; ``--ship`` copies the result to
``src/hanamikoji/ai/data/net-small.npz``). One step of expert iteration (Anthony et al. 2017;
AlphaZero's policy target): the network that guides master's search of its opponent, and whose
policy is one of the belief's models, learns what master's search chose. The targets are
``scripts/search_targets.py``'s: each decision's legal moves and their root visits, sharpened by
``--tau`` (visits to the power 1/tau, normalised: the root's visits are spread wide by its
exploration, and a flat prior for the opponent measured worse), the loss the cross-entropy to them
over the legal moves (the value head is left as it was: master's leaves do not read this network's
value).

It starts from ``--init`` (the shipped prior), holds out one decision in twenty (by ``--seed``),
runs ``--epochs`` passes of Adam and keeps the epoch of least held-out KL divergence, printing
each epoch's divergence and how often the network's favourite is the search's (top-1). Writes
``net.npz`` (the shipped format) and ``history.json`` in ``--out``. Reproducible from
``--seed`` with one thread of BLAS.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # reproducible sums

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_net import Model, masked_softmax, minibatches, save_net  # noqa: E402

from hanamikoji.ai.net import SMALL, Net  # noqa: E402
from hanamikoji.kernel.actions import NUM_ACTIONS  # noqa: E402

Floats = npt.NDArray[np.float32]
Bools = npt.NDArray[np.bool_]


def load_targets(folders: Path | list[Path], tau: float) -> tuple[Floats, Bools, Floats]:
    """(features, legal masks, target probabilities) of every decision in the folders' chunks."""
    xs: list[Floats] = []
    masks: list[Bools] = []
    targets: list[Floats] = []
    files: list[Path] = []
    for folder in [folders] if isinstance(folders, Path) else folders:
        found = folder.glob("w*.npz")
        chunks = sorted(found, key=lambda p: [int(s) for s in p.stem[1:].split("-")])
        if not chunks:
            raise SystemExit(f"no chunks (w*.npz) in {folder}: run scripts/search_targets.py first")
        files += chunks
    for path in files:
        with np.load(path) as d:
            x, offsets, ids, visits = d["x"], d["offsets"], d["ids"], d["visits"]
        n = len(x)
        mask = np.zeros((n, NUM_ACTIONS), bool)
        target = np.zeros((n, NUM_ACTIONS), np.float32)
        for i in range(n):
            a, b = offsets[i], offsets[i + 1]
            legal = ids[a:b].astype(np.int64)
            v = visits[a:b].astype(np.float64) ** (1.0 / tau)
            mask[i, legal] = True
            target[i, legal] = v / v.sum()
        xs.append(x.astype(np.float32))
        masks.append(mask)
        targets.append(target)
    return np.concatenate(xs), np.concatenate(masks), np.concatenate(targets)


def judge(model: Model, x: Floats, mask: Bools, target: Floats) -> dict[str, float]:
    """The KL divergence from the targets to the model's policy, and the top-1 agreement."""
    logits, _, _ = model.forward(x)
    probs, logp = masked_softmax(logits, mask)
    safe = np.where(target > 0, target, 1.0)
    kl = (target * (np.log(safe) - logp)).sum(axis=1).mean()
    top = (probs.argmax(axis=1) == target.argmax(axis=1)).mean()
    return {"kl": round(float(kl), 4), "top1": round(float(top), 4)}


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, fit, write."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--targets", type=Path, nargs="+", required=True,
        help="scripts/search_targets.py's out (one folder or several, their decisions together)",
    )  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--init", type=Path, default=SMALL, help="the weights to start from")
    ap.add_argument("--tau", type=float, default=0.1, help="visits to the power 1/tau")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ship", action="store_true", help="copy net.npz to the package's prior")
    args = ap.parse_args(argv)
    if args.tau <= 0 or args.epochs < 1 or args.lr <= 0 or args.batch < 1:
        ap.error("tau and lr above 0, epochs and batch at least 1")
    x, mask, target = load_targets(args.targets, args.tau)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(x))
    held, train = order[: len(x) // 20], order[len(x) // 20 :]
    start = Net.load(args.init)
    model = Model({k: getattr(start, k).copy() for k in Net.NAMES})
    history = [{"epoch": 0, **judge(model, x[held], mask[held], target[held])}]
    print(f"{len(x)} decisions ({len(train)} to learn from, {len(held)} held out)")
    print(f"epoch 0: KL {history[0]['kl']}, top-1 {history[0]['top1']}", flush=True)
    best = (history[0]["kl"], {k: v.copy() for k, v in model.p.items()})
    for epoch in range(1, args.epochs + 1):
        for i in minibatches(len(train), 1, args.batch, rng):
            rows = train[i]
            logits, _, cache = model.forward(x[rows])
            probs, _ = masked_softmax(logits, mask[rows])
            dlogits = ((probs - target[rows]) * mask[rows] / len(rows)).astype(np.float32)
            model.adam(model.backward(cache, dlogits, np.zeros(len(rows), np.float32)), args.lr)
        history.append({"epoch": epoch, **judge(model, x[held], mask[held], target[held])})
        print(f"epoch {epoch}: KL {history[-1]['kl']}, top-1 {history[-1]['top1']}", flush=True)
        if history[-1]["kl"] < best[0]:
            best = (history[-1]["kl"], {k: v.copy() for k, v in model.p.items()})
    model.p = best[1]
    args.out.mkdir(parents=True, exist_ok=True)
    save_net(args.out / "net.npz", model)
    (args.out / "history.json").write_text(json.dumps(history, indent=1) + "\n")
    print(f"kept the epoch of KL {best[0]}: {args.out / 'net.npz'}")
    if args.ship:
        shutil.copyfile(args.out / "net.npz", SMALL)
        print(f"shipped as {SMALL}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
