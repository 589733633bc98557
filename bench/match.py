"""Match throughput: random vs random in-process, and the same through engine subprocesses.

Run: ``.venv/bin/python bench/match.py [--games N]``. The difference is the protocol's overhead:
JSON views over pipes, one process per player.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

from hanamikoji.match import MatchConfig, run_match


def games_per_second(a: str, b: str, games: int, jobs: int = 1) -> float:
    """Play a seeded match and return games per second."""
    start = time.perf_counter()
    summary = run_match(MatchConfig(a, b, games=games, jobs=jobs, seed=1))
    elapsed = time.perf_counter() - start
    if summary.forfeits:
        raise SystemExit(f"unexpected forfeits: {summary.forfeits[:3]}")
    return summary.games / elapsed


def main() -> None:
    """Print games/s in-process and through engine subprocesses, side by side."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000, help="games per measurement")
    args = parser.parse_args()
    engine = "cmd:" + shlex.join([sys.executable, "-m", "hanamikoji.cli", "engine", "random"])
    rows = [
        ("in-process, 1 job", games_per_second("random", "random", args.games)),
        ("engine subprocesses, 1 job", games_per_second(engine, engine, args.games)),
        ("engine subprocesses, 2 jobs", games_per_second(engine, engine, args.games, jobs=2)),
    ]
    width = max(len(name) for name, _ in rows)
    for name, rate in rows:
        print(f"{name:<{width}}  {rate:10,.0f} games/s")
    print(f"protocol overhead: {rows[0][1] / rows[1][1]:.1f}x slower through subprocesses (1 job)")


if __name__ == "__main__":
    main()
