"""Master with another network as its opponent's prior: a match at a fixed budget.

Run: ``.venv/bin/python bench/opponent_prior.py WEIGHTS --games 1000 --seed 31 --jobs 2``
(``WEIGHTS``: a ``net.npz`` of the distilled shape, e.g. ``runs/small-round/net.npz`` from
``scripts/train_net.py --teacher``; the shipped ``src/hanamikoji/ai/data/net-small.npz`` gives the
figure to compare with). Plays ``--a`` (master at ``--iterations`` a move) against ``--b``
(``master-1`` at the same budget, or e.g. ``--b greedy``) over duplicate pairs, the opponent's
prior in master's search (``opponent=infoset``) and the belief's network models read from
``WEIGHTS`` instead of the shipped file, prints the summary and writes it as JSON to ``--out`` if
given.

A fixed number of iterations, not a clock, so that what else the machine runs cannot tilt it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import hanamikoji.ai.net as net
from hanamikoji.ai import AgentError, parse_agent
from hanamikoji.ai.net import Net
from hanamikoji.match.config import MatchConfig
from hanamikoji.match.runner import run_match
from hanamikoji.match.summary import MatchSummary


def with_budget(spec: str, iterations: int) -> str:
    """The agent ``spec`` (``master``, ``master:carry=1``) at ``iterations`` a move; one that
    takes no budget (``greedy``) as it is."""
    budgeted = f"{spec}{',' if ':' in spec else ':'}iterations={iterations}"
    try:
        parse_agent(budgeted)
    except AgentError:
        return spec
    return budgeted


def main() -> None:
    """Play the match and print its summary."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("weights", type=Path, help="the prior's weights (a distilled net.npz)")
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--a", default="master", help="the player with these weights")
    parser.add_argument("--b", default="master-1", help="its opponent (same budget)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    Net.load(args.weights)  # a clear error now for a file that is not weights
    # The prior is read once, from the package's file, by whichever process searches first; the
    # match's workers are forked from this one, so pointing the path here reaches all of them.
    net.SMALL = args.weights
    net.small_net.cache_clear()
    config = MatchConfig(
        a=with_budget(args.a, args.iterations),
        b=with_budget(args.b, args.iterations),
        games=args.games,
        seed=args.seed,
        jobs=args.jobs,
        clock_ms=600_000,  # (the budget is the iterations: no clock to run out)
    )
    started = time.time()

    def progress(s: MatchSummary) -> None:
        if s.games % 100 == 0:
            print(s.progress(), flush=True)

    summary = run_match(config, on_pair=progress)
    print(summary.render())
    if args.out:
        minutes = round((time.time() - started) / 60, 1)
        data = {"weights": str(args.weights), **summary.to_json(), "minutes": minutes}
        args.out.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
