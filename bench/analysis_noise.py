"""How far two searches of the same position may disagree: the noise of hints and reviews.

Run: ``.venv/bin/python bench/analysis_noise.py --positions 400`` (``--iterations`` for the
budget, default the one hints and reviews share; ``--json`` for a machine-readable copy);
``--reviews N`` times instead the review of N whole games of three full rounds, as the web app's
review worker runs it.

Positions come from games of ``beginner`` against itself (greedy with half its moves at random:
openings, middles and ends of rounds, good and bad positions alike); forced moves are left out.
Each position is searched twice, with seeds A and B, as a hint and as a review would search it
(:func:`hanamikoji.ai.analysis.suggest`). Reported, as median, 90th and 95th percentile and
maximum over the positions:

- ``win chance``: ``|p_A - p_B|``, the difference of the two estimates of the decider's chance;
- ``loss``: what search B's review (:func:`hanamikoji.ai.analysis.value_of`) says search A's move
  lost. Both are the same search of the same position, so any loss is noise: a review that called
  a followed hint a mistake of this much would only be measuring its own noise. Beside it,
  the two ways a review could value a move it did not choose: ``quarter`` (a search restricted to
  that move at a quarter of the budget, the review's way before) and ``stats`` (the move's own
  statistics in the review's search, whatever its visits).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from hanamikoji.ai.analysis import ITERATIONS, _searcher, review, search_root, value_of
from hanamikoji.ai.base import start_game
from hanamikoji.ai.levels import LEVELS
from hanamikoji.ai.prepare import prepare_search
from hanamikoji.state import Rules, State
from hanamikoji.view import View


def positions(count: int, seed: int) -> list[View]:
    """``count`` decisions (more than one legal move) from beginner's games, spread over them."""
    rng = random.Random(seed)
    found: list[View] = []
    while len(found) < count:
        state = State.new(rng.getrandbits(62), rules=Rules(max_rounds=3))
        agents = [LEVELS["beginner"](), LEVELS["beginner"]()]
        for side, agent in enumerate(agents):
            start_game(agent, side, Rules(max_rounds=3))
        while not state.is_over and len(found) < count:
            seat = state.to_move
            assert seat is not None
            view = state.view(seat)
            if len(view.legal_moves) > 1 and rng.random() < 0.25:  # a few from each game
                found.append(view)
            state = state.apply(agents[seat].choose(view, view.legal_moves, rng))
    return found


def quantiles(values: list[float]) -> dict[str, float]:
    """Median, 90th and 95th percentile and maximum of ``values``."""
    cuts = statistics.quantiles(values, n=20, method="inclusive")
    return {
        "median": statistics.median(values),
        "p90": cuts[17],
        "p95": cuts[18],
        "max": max(values),
    }


def measure(views: list[View], iterations: int, seeds: tuple[int, int]) -> dict[str, Any]:
    """Both searches of every position, and what search B says search A's move lost."""
    a_seed, b_seed = seeds
    rows = []
    started = time.perf_counter()
    for view in views:
        rules = Rules(max_rounds=3)
        a = search_root(view, iterations=iterations, seed=a_seed, rules=rules)
        b = search_root(view, iterations=iterations, seed=b_seed, rules=rules)
        move = a.best.move
        played = value_of(view, move, b, seed=b_seed, rules=rules)
        loss = max(0.0, b.best.value - played)
        quarter = loss
        stats = loss
        if move != b.best.move:
            budget = max(50, iterations // 4)
            alone = _searcher(budget, rules).search(view, [move], random.Random(b_seed))
            quarter = max(0.0, b.best.value - alone.best.value)
            own = next(s for s in b.moves if s.move == move)
            stats = max(0.0, b.best.value - own.value)
        rows.append(
            {
                "p_a": a.best.value,
                "p_b": b.best.value,
                "same_move": move == b.best.move,
                "loss": loss,
                "loss_quarter": quarter,
                "loss_stats": stats,
            }
        )
    seconds = time.perf_counter() - started
    return {
        "positions": len(rows),
        "iterations": iterations,
        "seconds": round(seconds, 1),
        "same_move": sum(r["same_move"] for r in rows) / len(rows),
        "win_chance": quantiles([abs(r["p_a"] - r["p_b"]) for r in rows]),
        "loss": quantiles([r["loss"] for r in rows]),
        "loss_quarter": quantiles([r["loss_quarter"] for r in rows]),
        "loss_stats": quantiles([r["loss_stats"] for r in rows]),
        "loss_over_5": sum(r["loss"] > 0.05 for r in rows) / len(rows),
        "loss_over_10": sum(r["loss"] > 0.10 for r in rows) / len(rows),
    }


def time_reviews(count: int, iterations: int, seed: int) -> dict[str, Any]:
    """Seconds to review each of ``count`` whole games of three full rounds (36 decisions, the
    longest a 3-round game can be) of random moves."""
    rng = random.Random(seed)
    rows: list[tuple[int, float]] = []
    while len(rows) < count:
        state = State.new(rng.getrandbits(62), rules=Rules(max_rounds=3))
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_moves))
        if len(state.history) < 36:
            continue  # someone won early
        record = state.record(("a", "b"))
        started = time.perf_counter()
        decisions = sum(1 for _ in review(record, iterations=iterations))
        rows.append((decisions, time.perf_counter() - started))
    seconds = [s for _, s in rows]
    return {
        "games": count,
        "iterations": iterations,
        "decisions": [d for d, _ in rows],
        "seconds": [round(s, 2) for s in seconds],
        "median": statistics.median(seconds),
        "max": max(seconds),
        "per_decision": sum(seconds) / sum(d for d, _ in rows),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    parser.add_argument("--seed", type=int, default=1, help="for the games the positions come from")
    parser.add_argument("--reviews", type=int, default=0, metavar="N", help="time N reviews")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    prepare_search()  # the kernels loaded (or compiled) before anything is timed
    if args.reviews:
        timed = time_reviews(args.reviews, args.iterations, args.seed)
        if args.json:
            print(json.dumps(timed, indent=2))
            return 0
        print(
            f"{timed['games']} reviews at {timed['iterations']:,} iterations a decision: "
            f"median {timed['median']:.1f} s, max {timed['max']:.1f} s "
            f"({min(timed['decisions'])} to {max(timed['decisions'])} decisions a game, "
            f"{1000 * timed['per_decision']:.0f} ms a decision)"
        )
        return 0
    views = positions(args.positions, args.seed)
    result = measure(views, args.iterations, (0, 1))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"{result['positions']} positions, {result['iterations']:,} iterations a search, "
        f"{result['seconds']} s; the same move chosen: {100 * result['same_move']:.0f}%"
    )
    print(f"{'':<26}{'median':>8}{'p90':>8}{'p95':>8}{'max':>8}")
    for key, label in (
        ("win_chance", "|p_A - p_B|"),
        ("loss", "loss of A's move (review)"),
        ("loss_quarter", "  valued at a quarter"),
        ("loss_stats", "  valued by its visits"),
    ):
        q = result[key]
        cells = "".join(f"{100 * q[k]:7.1f}%" for k in ("median", "p90", "p95", "max"))
        print(f"{label:<26}{cells}")
    print(
        f"A's move called a loss over 5%: {100 * result['loss_over_5']:.1f}% of positions, "
        f"over 10%: {100 * result['loss_over_10']:.1f}%"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
