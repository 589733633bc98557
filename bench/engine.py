"""Random full games per second through the public API (legal moves + apply), on one core.

Run: ``.venv/bin/python bench/engine.py`` (or ``make bench``). Prints the median of several runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from hanamikoji.state import State


def play_random_games(games: int, seed: int) -> int:
    """Play ``games`` seeded random games; returns the number of decisions made."""
    rng = random.Random(seed)
    uniform = rng.random  # cheaper than randrange, and as uniform for lists this short
    decisions = 0
    for _ in range(games):
        state = State.new(rng)
        while state.to_move is not None:
            moves = state.legal_moves
            state = state.apply(moves[int(uniform() * len(moves))])
            decisions += 1
    return decisions


def main() -> None:
    """Measure and print games/s (median of ``--runs`` runs of ``--games`` games)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20_000, help="games per run (default 20000)")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is reported")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    play_random_games(2_000, args.seed)  # warm the legal-move caches
    rates = []
    decisions = 0
    for run in range(args.runs):
        start = time.perf_counter()
        decisions = play_random_games(args.games, args.seed + run)
        elapsed = time.perf_counter() - start
        rates.append(args.games / elapsed)
        print(f"run {run + 1}: {rates[-1]:,.0f} games/s ({decisions / elapsed:,.0f} decisions/s)")
    print(
        f"engine: {statistics.median(rates):,.0f} random games/s (median of {args.runs} runs of "
        f"{args.games:,} games, one core, {decisions / args.games:.1f} decisions a game)"
    )


if __name__ == "__main__":
    main()
