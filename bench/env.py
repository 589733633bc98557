"""Random-play decisions per second of the research environments, on one core.

Run: ``.venv/bin/python bench/env.py`` (``--json`` for machine-readable output). Rows:

- ``pettingzoo-aec``: the PettingZoo AEC env ``hanamikoji.env.pettingzoo.env()``, random legal
  moves from ``action_mask``, one decision per ``step``;
- ``batch-random-steps``: ``BatchSim.random_steps`` at B=1024, moves chosen inside numba
  (compile time excluded by a warm-up);
- ``batch-step-api``: the same from Python, ``step(random_actions())`` at B=1024, plus the
  ``legal_mask`` and ``observe`` a learner would read each step;
- ``texas-holdem-v4``: PettingZoo's classic ``texas_holdem_v4``, random legal moves, for reference.

Each row is the median of ``--runs`` runs; a step is one decision of one game.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

Result = dict[str, Any]


def aec_random(make_env: Callable[[], Any], seconds: float, seed: int) -> tuple[int, float]:
    """Play random legal moves in a PettingZoo AEC env for about ``seconds``: (steps, time)."""
    rng = random.Random(seed)
    env = make_env()
    steps = 0
    game = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed if game == 0 else None)  # seeded once, as a training loop would
        game += 1
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
    elapsed = time.perf_counter() - start
    env.close()
    return steps, elapsed


def batch_random_steps(batch: int, batch_steps: int, seed: int) -> tuple[int, float]:
    """``BatchSim.random_steps``: (single-game steps, time)."""
    from hanamikoji.env.batch import BatchSim

    sim = BatchSim(batch, seed=seed)
    sim.random_steps(10)  # compile (or load the cache) and warm up
    start = time.perf_counter()
    steps = sim.random_steps(batch_steps)
    return steps, time.perf_counter() - start


def batch_step_api(batch: int, batch_steps: int, seed: int) -> tuple[int, float]:
    """``BatchSim.step(random_actions())`` with ``legal_mask`` and ``observe``: (steps, time)."""
    from hanamikoji.env.batch import BatchSim

    sim = BatchSim(batch, seed=seed)
    mask = sim.legal_mask()
    obs = sim.observe(0)
    for _ in range(10):  # compile (or load the cache) and warm up
        sim.step(sim.random_actions())
    steps = 0
    start = time.perf_counter()
    for _ in range(batch_steps):
        sim.legal_mask(out=mask)
        sim.observe(0, out=obs)
        steps += int((~sim.over).sum())
        sim.step(sim.random_actions())
    return steps, time.perf_counter() - start


def measure(name: str, runs: int, once: Callable[[int], tuple[int, float]], note: str) -> Result:
    """The median steps/s of ``runs`` calls of ``once(run)``; an error becomes the row's note."""
    rates: list[float] = []
    steps = 0
    try:
        for run in range(runs):
            steps, elapsed = once(run)
            rates.append(steps / elapsed)
    except Exception as e:  # a missing or broken environment: say so, measure the rest
        return {"name": name, "steps_per_s": None, "note": f"unavailable: {e!r}"}
    return {
        "name": name,
        "steps_per_s": statistics.median(rates),
        "runs": [round(r) for r in rates],
        "steps_per_run": steps,
        "note": note,
    }


def main() -> None:
    """Measure every row and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per row; the median is shown")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per AEC env run")
    parser.add_argument("--batch", type=int, default=1024, help="BatchSim games (default 1024)")
    parser.add_argument("--batch-steps", type=int, default=2000, help="batch steps per run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="write JSON to PATH (- or none: stdout)",
    )
    args = parser.parse_args()
    cpu = None
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})  # one core

    def hanamikoji_aec() -> Any:
        from hanamikoji.env.pettingzoo import env

        return env()

    def texas_holdem() -> Any:
        from pettingzoo.classic import texas_holdem_v4

        return texas_holdem_v4.env()

    b, seconds, seed = args.batch, args.seconds, args.seed
    api_steps = max(1, args.batch_steps // 10)
    rows = [
        measure(
            "pettingzoo-aec",
            args.runs,
            lambda run: aec_random(hanamikoji_aec, seconds, seed + 1000 * run),
            "hanamikoji.env.pettingzoo.env(), random legal moves",
        ),
        measure(
            "batch-random-steps",
            args.runs,
            lambda run: batch_random_steps(b, args.batch_steps, seed + run),
            f"BatchSim.random_steps, B={b}, {args.batch_steps} batch steps a run",
        ),
        measure(
            "batch-step-api",
            args.runs,
            lambda run: batch_step_api(b, api_steps, seed + run),
            f"BatchSim step(random_actions()) + legal_mask + observe, B={b}",
        ),
        measure(
            "texas-holdem-v4",
            args.runs,
            lambda run: aec_random(texas_holdem, seconds, seed + 1000 * run),
            "pettingzoo.classic.texas_holdem_v4, random legal moves (reference)",
        ),
    ]
    report = {"cpu": cpu, "python": sys.version.split()[0], "rows": rows}
    if args.json is not None:
        text = json.dumps(report, indent=1)
        if args.json == "-":
            print(text)
            return
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(f"{'environment':<20} {'steps/s':>14}  notes (median of {args.runs} runs, one core)")
    for row in rows:
        rate = row["steps_per_s"]
        shown = f"{rate:,.0f}" if rate is not None else "-"
        print(f"{row['name']:<20} {shown:>14}  {row['note']}")


if __name__ == "__main__":
    main()
