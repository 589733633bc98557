"""What seeing the hidden cards is worth: a search agent against greedy, fair and with an oracle.

Run: ``.venv/bin/python bench/information.py --games 200 --jobs 2`` (``--agent SPEC`` for the
searcher, default the Python search
``ismcts:iterations=1000,playout=greedy,exploration=0.5,prior=1``; ``--json`` for a
machine-readable copy). The searcher plays greedy in duplicate pairs (the same deal from
both seats) three ways:

- ``fair``: it searches worlds drawn from what its VIEW allows, as in a real game;
- ``hand``: its worlds hold the opponent's true hand, Secret and Discard; the removed card and the
  order of the pile are still shuffled;
- ``all``: its world is the true state, pile order included (a clairvoyant).

The gap between ``fair`` and ``hand`` is what better inference about the opponent's hand could
win at most; the gap between ``hand`` and ``all`` is the pile's luck, which no player can know.
Both searches take the oracle through their hook for experiments,
:func:`hanamikoji.ai.ismcts.search_worlds`: the Python search a function giving each
iteration's world, the compiled one (``master``) a :class:`~hanamikoji.ai.fastsearch.Dealing`
that deals only what the oracle leaves unknown, e.g. ``--agent master:iterations=20000``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from hanamikoji.ai import parse_agent
from hanamikoji.ai.fastsearch import Dealing
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.ismcts import IsmctsAgent, Worlds, search_worlds
from hanamikoji.state import State

MODES = ("fair", "hand", "all")


def _hand_world(truth: State) -> Callable[[random.Random], State]:
    """Worlds with the opponent's true cards, the removed card and the pile shuffled."""
    position = truth.position()
    hidden = list(position.deck + position.removed)

    def world(rng: random.Random) -> State:
        cards = hidden[:]
        rng.shuffle(cards)
        shuffled = dataclasses.replace(position, deck="".join(cards[1:]), removed=cards[0])
        return State.from_position(shuffled, rules=truth.rules, rng=rng, check=False)

    return world


def _oracle(truth: State, pile: bool) -> Dealing:
    """The compiled search's oracle: the opponent's true cards; with ``pile`` the pile's true
    order too, else the pile and the removed card shuffled."""
    position = truth.position()
    cards = "" if pile else position.deck + position.removed
    return Dealing(truth, cards, (0, 0, 0 if pile else len(position.deck), 0))


def play_pair(spec: str, mode: str, deal_seed: int) -> tuple[float, float]:
    """The searcher's score from each seat of one deal against greedy."""
    agent = parse_agent(spec)
    assert isinstance(agent, IsmctsAgent)
    greedy = GreedyAgent()
    out = []
    for seat in (0, 1):
        rng = random.Random(deal_seed * 2 + seat)
        state = State.new(random.Random(deal_seed))
        while state.to_move is not None:
            legal = state.legal_moves
            if state.to_move != seat:
                move = greedy.choose(state.view(state.to_move), legal, rng)
            elif len(legal) == 1:
                move = legal[0]
            else:
                truth = state
                view = state.view(seat)
                if mode == "fair":
                    move = agent.search(view, legal, rng).best.move
                else:
                    worlds: Worlds | Dealing
                    if agent.fast:
                        worlds = _oracle(truth, pile=mode == "all")
                    elif mode == "all":
                        worlds = lambda _rng, truth=truth: truth  # noqa: E731
                    else:
                        worlds = _hand_world(truth)
                    move = search_worlds(agent, view, legal, rng, worlds).best.move
            state = state.apply(move)
        outcome = state.outcome
        assert outcome is not None
        out.append(0.5 if outcome.winner is None else float(outcome.winner == seat))
    return out[0], out[1]


def measure(spec: str, mode: str, games: int, jobs: int, seed: int) -> dict[str, Any]:
    """``games`` games (``games // 2`` pairs) in one mode; the score and its 95% interval."""
    pairs = games // 2
    seeds = [seed * 100_000 + i for i in range(pairs)]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(play_pair, [spec] * pairs, [mode] * pairs, seeds))
    per_pair = [a + b for a, b in results]
    score = sum(per_pair) / (2 * pairs)
    spread = math.sqrt(sum((p / 2 - score) ** 2 for p in per_pair) / max(1, pairs - 1))
    half = 1.96 * spread / math.sqrt(pairs)
    counts = [sum(1 for p in per_pair if p == k / 2) for k in range(5)]
    return {
        "mode": mode,
        "games": 2 * pairs,
        "score": round(score, 4),
        "ci95": [round(max(0.0, score - half), 4), round(min(1.0, score + half), 4)],
        "pairs_0_05_1_15_2": counts,
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    """Measure the chosen modes and print the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--agent", default="ismcts:iterations=1000,playout=greedy,exploration=0.5,prior=1"
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or args.games < 2 or args.jobs < 1:
        parser.error(f"modes must be among {', '.join(MODES)}; games >= 2; jobs >= 1")
    try:
        agent = parse_agent(args.agent)
    except ValueError as e:
        parser.error(str(e))
    if not isinstance(agent, IsmctsAgent):
        parser.error(f"{args.agent!r} is not a search agent (ismcts or master)")
    rows = []
    for mode in modes:
        print(f"{mode}: playing {args.games} games ...", file=sys.stderr, flush=True)
        rows.append(measure(args.agent, mode, args.games, args.jobs, args.seed))
    if args.json:
        print(json.dumps({"agent": args.agent, "rows": rows}, indent=1))
        return
    print(f"{args.agent} against greedy, duplicate pairs")
    print(f"{'mode':6} {'games':>6} {'score':>7}  95% interval     pairs 0/.5/1/1.5/2")
    for r in rows:
        low, high = r["ci95"]
        pairs = " ".join(map(str, r["pairs_0_05_1_15_2"]))
        print(
            f"{r['mode']:6} {r['games']:>6} {r['score']:>7.3f}  {low:.3f} to {high:.3f}   {pairs}"
        )


if __name__ == "__main__":
    main()
