"""What the earlier rounds of a game say about how the opponent chooses (master's ``carry``).

Run: ``.venv/bin/python bench/opponent_type.py --opponent greedy --games 4`` (any agent spec for
``--opponent``, e.g. ``master:iterations=300``). Plays ``--games`` games of ``--player`` (seat 0)
against the opponent and prints, at the start of each round after the first, the posterior of
the belief's seven models (uniform play, greedy's softnesses, the network's) that the
opponent's decisions in the earlier rounds give, and how long weighing them took
(:func:`hanamikoji.ai.fastsearch.models.earlier_evidence`).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from hanamikoji.ai import parse_agent
from hanamikoji.ai.config import MASTER
from hanamikoji.ai.fastsearch.models import earlier_evidence
from hanamikoji.state import Rules, State

NAMES = ("uniform", "greedy/9", "greedy/3", "greedy", "net/9", "net/3", "net")


def main() -> None:
    """Play the games and print each round's posterior."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--player", default="master:iterations=300")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    belief = MASTER.belief
    betas = (0.0, belief / 9, belief / 3, belief)
    taus = (1 / 9, 1 / 3, 1.0)
    agents = [parse_agent(args.player), parse_agent(args.opponent)]
    print("game round  ms  " + "  ".join(f"{n:>8}" for n in NAMES))
    for game in range(args.games):
        rules = Rules(max_rounds=3)
        state = State.new(random.Random(args.seed + game), rules=rules)
        shown: set[int] = set()
        while state.to_move is not None:
            seat = state.to_move
            view = state.view(seat)
            if seat == 0 and view.round > 1 and view.round not in shown:
                shown.add(view.round)
                start = time.perf_counter()
                evidence = earlier_evidence(view, betas, taus, 3)
                ms = 1000 * (time.perf_counter() - start)
                post = np.exp(evidence - evidence.max())
                post /= post.sum()
                cells = "  ".join(f"{p:8.3f}" for p in post)
                print(f"{game:4d} {view.round:5d} {ms:3.0f}  {cells}")
            move = agents[seat].choose(view, state.legal_moves, random.Random(seat))
            state = state.apply(move)


if __name__ == "__main__":
    main()
