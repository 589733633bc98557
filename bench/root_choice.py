"""How firmly master's search settles its choice early in a round (the case for ``halving``).

Run: ``.venv/bin/python bench/root_choice.py --games 4 --budgets 10000,60000 --seeds 3``.
Collects the early decisions of a round (a seat's first three turns, more than 8 legal moves,
no offer to answer) from ``--games`` games of ``--player`` against itself, then searches each
with master (``--searcher``) at each budget of ``--budgets`` iterations under ``--seeds``
seeds. Prints each position's choices and, for each budget, in how many positions the seeds
chose differently and the mean gap between the means of the two most visited moves: when the
seeds disagree and the leaders' values lie within a point of each other, the most visited move
is noise's choice among near equals, which is what sequential halving at the root is for.
"""

from __future__ import annotations

import argparse
import random

from hanamikoji.ai import parse_agent
from hanamikoji.ai.base import start_game
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.state import State


def early_positions(player: str, games: int, seed: int) -> list[tuple[State, int]]:
    """The early decisions of each round (a seat's first three turns) in self-play games."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = State.new(rng.getrandbits(32))
        agents = [parse_agent(player), parse_agent(player)]
        for seat, agent in enumerate(agents):
            start_game(agent, seat, state.rules)
        while state.to_move is not None:
            seat = state.to_move
            view = state.view(seat)
            if state.turn < 3 and len(view.legal_moves) > 8 and view.offer is None:
                found.append((state, seat))
            state = state.apply(agents[seat].choose(view, view.legal_moves, rng))
    return found


def main() -> None:
    """Collect the positions, search each at each budget and seed, print the summary."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--player", default="master:iterations=1500")
    parser.add_argument("--searcher", default="master")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--positions", type=int, default=14)
    parser.add_argument("--budgets", default="10000,60000")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    positions = early_positions(args.player, args.games, args.seed)[: args.positions]
    differ = dict.fromkeys(budgets, 0)
    gaps: dict[int, list[float]] = {b: [] for b in budgets}
    for state, seat in positions:
        view = state.view(seat)
        legal = view.legal_moves
        print(f"round {state.round} turn {state.turn}, {len(legal)} moves")
        for budget in budgets:
            picks = []
            for k in range(args.seeds):
                agent = parse_agent(f"{args.searcher}:iterations={budget}")
                assert isinstance(agent, IsmctsAgent)
                start_game(agent, seat, state.rules)
                result = agent.search(view, legal, random.Random(100 + k))
                first, second = sorted(result.moves, key=lambda s: -s.visits)[:2]
                gaps[budget].append(first.value - second.value)
                picks.append(f"{result.best.move} ({result.best.visits}, {result.best.value:.3f})")
            differ[budget] += len({p.split()[0] for p in picks}) > 1
            print(f"  {budget:>7}: " + " | ".join(picks))
    for budget in budgets:
        gap = sum(gaps[budget]) / max(1, len(gaps[budget]))
        print(
            f"{budget} iterations: the seeds chose differently in {differ[budget]} of "
            f"{len(positions)} positions; the two most visited moves' means {gap:.4f} apart "
            "on average"
        )


if __name__ == "__main__":
    main()
