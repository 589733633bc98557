"""Learn a between-rounds value table by self-play with the playout policy.

Run: ``.venv/bin/python scripts/train_values.py [--samples 200] [--seed 1]``.
It writes ``src/hanamikoji/ai/data/round_values.json`` and ``docs/img/round_values_curve.svg``:
how much the table still moves as samples are added, the learning curve. Reproducible from
``--seed``. (``--policy greedy`` learns from greedy's rounds instead, an experiment whose table
measured as no gain: it is written only where ``--out`` says; ``--policy net`` learns from
the rounds of the shipped network's policy, both seats sampling it: an experiment, written only
where ``--out`` says too.)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: bench.svgplot

import numpy as np
from bench.svgplot import line_chart
from rich.progress import Progress

from hanamikoji.ai.fastplay import (
    MAX_MOVES,
    greedy_playout_moves,
    position_row,
    row_marker_code,
)
from hanamikoji.ai.net import default_net, policy_arrays, row_pick
from hanamikoji.ai.playout import play_round
from hanamikoji.ai.values import (
    CONFIGS,
    TABLES,
    RoundValues,
    _terminal,
    round_start,
    sample_round,
    solve,
)
from hanamikoji.kernel.jit import jit
from hanamikoji.kernel.row import C_TURN
from hanamikoji.kernel.rules import apply, legal, rand_below, score_round
from hanamikoji.kernel.tables import H, T
from hanamikoji.state import State

ROOT = Path(__file__).resolve().parents[1]


def play_round_greedy(state: State, rng: random.Random) -> State:
    """Greedy for both seats (the numba kernel) to the end of the round, in the core."""
    for move in greedy_playout_moves(state, rng):
        state = state.apply(move)
    return state


@jit
def net_round(row: Any, T: Any, H: Any, policy: Any, moves: Any) -> int:
    """The network's policy for both seats to the end of the round in the kernel row, its
    action ids written into ``moves`` (-1 after the last); the round's result code (as
    :func:`~hanamikoji.ai.values.sample_round`'s)."""
    moves[:] = -1
    count = 0
    ids = np.empty(MAX_MOVES, dtype=np.int64)
    x = np.empty(policy[0].shape[0], dtype=np.float32)
    h1 = np.empty(policy[0].shape[1], dtype=np.float32)
    h2 = np.empty(policy[2].shape[1], dtype=np.float32)
    z = np.empty(MAX_MOVES, dtype=np.float32)
    while row[C_TURN] < 8:
        n = legal(row, T, H, ids)
        u = rand_below(row, 1 << 30) / float(1 << 30)
        a = int(row_pick(row, ids, n, 0, T, policy, x, h1, h2, z, u))
        moves[count] = a
        count += 1
        apply(row, a, T)
    winner, reason = score_round(row, 0)
    if reason > 0:
        return -1 if winner == 0 else -2
    return row_marker_code(row)


def sampler(name: str, rng: random.Random) -> Callable[[int, int], int]:
    """One round's result code from (marker code, first) under the policy ``name``."""
    if name == "net":
        policy = policy_arrays(default_net())
        moves = np.empty(32, dtype=np.int64)
        return lambda code, first: int(
            net_round(position_row(round_start(code, first, rng), rng), T, H, policy, moves)
        )
    play = play_round if name == "playout" else play_round_greedy
    return lambda code, first: sample_round(code, first, rng, play)


def main() -> None:
    """Sample rounds from every marker position, solve, write the table and the curve."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=200, help="rounds per position (200)")
    parser.add_argument("--stages", type=int, default=4, help="learning-curve points (4)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--policy",
        choices=("playout", "greedy", "net"),
        default="playout",
        help="who plays the rounds: the playout policy, greedy or the network for both seats "
        "(playout)",
    )
    parser.add_argument("--out", type=Path, help="the table (default: the package's for --policy)")
    parser.add_argument("--curve", type=Path, help="the learning curve (default: docs/img/...)")
    args = parser.parse_args()
    suffix = "" if args.policy == "playout" else f"_{args.policy}"
    if args.out is None and args.policy != "playout":
        parser.error(
            f"--policy {args.policy} writes only where --out says (its table is not shipped)"
        )
    args.out = args.out or ROOT / "src/hanamikoji/ai/data" / TABLES["playout"]
    args.curve = args.curve or ROOT / f"docs/img/round_values{suffix}_curve.svg"
    rng = random.Random(args.seed)
    sample = sampler(args.policy, rng)
    positions = [(c, f) for c in range(CONFIGS) for f in (0, 1) if _terminal(c) is None]
    samples: dict[tuple[int, int], list[int]] = {p: [] for p in positions}
    stages = [max(1, args.samples * (i + 1) // args.stages) for i in range(args.stages)]
    curve: list[tuple[float, float]] = []
    previous: list[list[float]] | None = None
    result = None
    with Progress() as progress:
        task = progress.add_task("self-play rounds", total=len(positions) * stages[-1])
        for target in stages:
            for (code, first), outs in samples.items():
                while len(outs) < target:
                    outs.append(sample(code, first))
                    progress.advance(task)
            result = solve(samples, sweeps=60)
            table = result["stationary"]
            if previous is not None:
                change = sum(
                    abs(a - b) for f in (0, 1) for a, b in zip(table[f], previous[f], strict=True)
                ) / (2 * CONFIGS)
                curve.append((float(target), change))
                progress.console.print(f"{target} rounds/position: mean change {change:.4f}")
            previous = table
    assert result is not None
    values = RoundValues(result["by_rounds_left"], result["stationary"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(values.to_json(), separators=(",", ":")) + "\n")
    args.curve.parent.mkdir(parents=True, exist_ok=True)
    args.curve.write_text(
        line_chart(
            curve,
            title="Round-value table: mean change as self-play rounds are added",
            xlabel="rounds sampled per marker position",
            ylabel="mean |change| of P(win)",
        )
    )
    print(f"wrote {args.out} and {args.curve}")


if __name__ == "__main__":
    main()
