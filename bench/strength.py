"""Strength of the AI, measured with the match runner (duplicate pairs, 95% intervals).

Run everything (hours on 2 cores; progress on stderr):
    .venv/bin/python bench/strength.py --games 1000 --clock-ms 200 --jobs 2
or a part of it:
    .venv/bin/python bench/strength.py --only ladder,speed --games 200

Parts:
- ``greedy``: master (or ``--challenger``) vs greedy; ``ismcts``: master (or
  ``--challenger``) vs ismcts at the same time per move;
- ``time``: master (or ``--challenger``) at 5x the time vs itself; ``first``: the first
  player's score in self-play of ``--self-play`` (master); ``exploit``: a best response
  (ismcts with 5x the iterations, its playouts modelling master's own policy) against master;
- ``ladder``: the levels' Elo on one scale (random = 0), from matches between neighbours;
- ``speed``: search iterations per second per agent, master's set-up a decision (the
  belief's pool weighed before the first iteration) and its iterations a decision on the clock
  (``--clock-ms``) over the decisions of greedy games;
- ``master1``: master vs ``master-1`` (master as #12 left it) at the same time per move, or
  ``--challenger`` (e.g. ``master:netvalue=0.5``) in master's place;
- ``net``: the network alone (``net``) vs greedy, random and ismcts (at ``--clock-ms``), and
  its decisions per second.
Writes ``--out`` (JSON) and, for the ladder, ``docs/img/levels_elo_chained.svg`` (the ladder
of docs/ai.md is now one round robin in one fit: ``bench/ladder.py``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: bench.svgplot

from bench.svgplot import bar_chart
from hanamikoji.ai import LEVELS, parse_agent
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.match import MatchConfig, MatchSummary, play_pairs, run_match
from hanamikoji.match.summary import elo_interval, json_elo
from hanamikoji.moves import Move
from hanamikoji.state import State
from hanamikoji.view import View

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("greedy", "ismcts", "time", "first", "exploit", "ladder", "speed", "master1", "net")


def match(a: str, b: str, args: argparse.Namespace, clock_ms: int | None = None) -> MatchSummary:
    """One match, with a progress line on stderr."""
    config = MatchConfig(
        a, b, games=args.games, jobs=args.jobs, clock_ms=clock_ms or args.clock_ms, seed=args.seed
    )

    def progress(s: MatchSummary) -> None:
        print(f"\r  {a} vs {b}: {s.progress()}", end="", file=sys.stderr, flush=True)

    summary = run_match(config, on_pair=progress)
    print(file=sys.stderr)
    return summary


def row(summary: MatchSummary) -> dict[str, Any]:
    """The figures of one match, its Elo and interval as ``hanamikoji match --json`` gives them
    (null for an unbounded end: a sweep is "+141.7 to null", never "inf to inf")."""
    data = summary.to_json()
    return {
        "a": summary.a,
        "b": summary.b,
        "games": summary.games,
        "score": round(summary.score, 4),
        "elo": data["elo"],
        "elo_95": data["elo_95"],
        "wins_draws_losses": [summary.wins[0], summary.draws, summary.wins[1]],
    }


def first_player(args: argparse.Namespace) -> dict[str, Any]:
    """Seat 0's score in master self-play (duplicate pairs cancel deals, not the seat)."""
    agent = args.self_play
    config = MatchConfig(
        agent, agent, games=args.games, jobs=args.jobs, clock_ms=args.clock_ms, seed=args.seed
    )
    seat0 = 0.0
    games = 0

    for pair in play_pairs(config):
        for g in pair.games:
            winner = g.record["result"]["winner"]
            seat0 += 1.0 if winner == 0 else 0.5 if winner is None else 0.0
            games += 1
        print(
            f"\r  first player: {games} games, seat 0 scores {seat0 / games:.3f}",
            end="",
            file=sys.stderr,
            flush=True,
        )
    print(file=sys.stderr)
    p = seat0 / games
    half = 1.96 * (p * (1 - p) / games) ** 0.5
    return {
        "agent": agent,
        "games": games,
        "seat0_score": round(p, 4),
        "ci95": [round(p - half, 4), round(p + half, 4)],
    }


def speed() -> dict[str, int]:
    """Search iterations per second from the opening position, per search agent."""
    out = {}
    state = State.new(3)
    for spec in (
        "ismcts:iterations=3000,playout=random",
        "ismcts:iterations=3000,playout=policy",
        "ismcts:iterations=3000,playout=greedy",
        "master:iterations=40000",
        "master:iterations=40000,guide=0",
        "master-1:iterations=40000",
    ):
        agent = parse_agent(spec)
        assert isinstance(agent, IsmctsAgent)
        agent.search(state.view(0), state.legal_moves[:2], random.Random(1))  # load the kernels
        start = time.perf_counter()
        result = agent.search(state.view(0), state.legal_moves, random.Random(1))
        out[spec] = round(result.iterations / (time.perf_counter() - start))
    return out


def greedy_decisions(games: int, first_seed: int) -> Iterator[tuple[View, tuple[Move, ...]]]:
    """Every decision with a choice in ``games`` greedy games (game ``g`` dealt from seed
    ``first_seed + g``): the VIEW of the seat to move and its legal moves."""
    greedy = parse_agent("greedy")
    for game in range(games):
        rng = random.Random(first_seed + game)
        state = State.new(rng.randrange(10**9))
        while state.to_move is not None:
            view, legal = state.view(state.to_move), state.legal_moves
            if len(legal) > 1:
                yield view, legal
            state = state.apply(greedy.choose(view, legal, rng))


def setup_ms(games: int = 6) -> dict[str, float]:
    """Master's set-up a decision before its first iteration (dealing, and weighing the
    belief's pool where the opponent has decided something this round), in ms, over the
    decisions of greedy games: what a timed search spends before it searches."""
    from statistics import mean, median

    agent = parse_agent("master:iterations=1")
    assert isinstance(agent, IsmctsAgent)
    times: list[float] = []
    for view, legal in greedy_decisions(games, 0):
        start = time.perf_counter()
        agent.search(view, legal, random.Random(1))
        times.append(1000 * (time.perf_counter() - start))
    times = times[1:]  # the first loads the kernels
    return {
        "decisions": len(times),
        "median_ms": round(median(times), 1),
        "mean_ms": round(mean(times), 1),
    }


def timed_iterations(clock_ms: int, games: int = 3) -> dict[str, float]:
    """Master's iterations a decision on a clock of ``clock_ms`` a move, over the decisions of
    greedy games: what its set-up and its tables leave of the time for searching."""
    from statistics import mean, median

    agent = parse_agent("master")
    assert isinstance(agent, IsmctsAgent)
    done = [
        agent.search(view, legal, random.Random(1), clock_ms).iterations
        for view, legal in greedy_decisions(games, 100)
    ]
    done = done[1:]  # the first loads the kernels
    return {
        "clock_ms": clock_ms,
        "decisions": len(done),
        "median": round(median(done)),
        "mean": round(mean(done)),
    }


def net_speed(decisions: int = 2000) -> dict[str, float]:
    """The network's decisions per second, from the views of random games' positions."""
    from hanamikoji.ai.net import NetAgent

    agent = NetAgent()
    rng = random.Random(1)
    views: list[tuple[View, tuple[Move, ...]]] = []
    while len(views) < decisions:
        state = State.new(rng.randrange(10**9))
        while state.to_move is not None:
            views.append((state.view(state.to_move), state.legal_moves))
            state = state.apply(rng.choice(state.legal_moves))
    agent.choose(*views[0], rng)  # load the kernels
    start = time.perf_counter()
    for view, legal in views[:decisions]:
        agent.choose(view, legal, rng)
    seconds = time.perf_counter() - start
    return {
        "decisions_per_second": round(decisions / seconds),
        "ms": round(1000 * seconds / decisions, 3),
    }


def ladder(args: argparse.Namespace, results: dict[str, Any]) -> dict[str, Any]:
    """Each level against the one below it (random below beginner), Elo chained from 0."""
    names = ["random", *(f"level:{name}" for name in LEVELS)]
    elo = {"random": (0.0, 0.0, 0.0)}
    steps = []
    for lower, upper in itertools.pairwise(names):
        s = match(upper, lower, args)
        steps.append(row(s))
        low, high = elo_interval(s.pentanomial)  # the match report's interval
        base, blow, bhigh = elo[lower]
        elo[upper] = (base + s.pentanomial.elo, blow + low, bhigh + high)
    results["ladder_steps"] = steps
    svg = bar_chart(
        [(n.removeprefix("level:"), v, lo, hi) for n, (v, lo, hi) in elo.items()],
        title="Levels on one Elo scale (random = 0), 95% intervals chained",
        ylabel="Elo",
    )
    (ROOT / "docs/img").mkdir(parents=True, exist_ok=True)
    (ROOT / "docs/img/levels_elo_chained.svg").write_text(svg)
    return {
        n.removeprefix("level:"): [json_elo(v), json_elo(lo), json_elo(hi)]
        for n, (v, lo, hi) in elo.items()
    }


def main() -> None:
    """Run the chosen parts and print (and save) the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--clock-ms", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default=",".join(PARTS), help="comma-separated parts")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/strength.json")
    parser.add_argument(
        "--challenger",
        default="master",
        help="the agent measured in master's place in the greedy, ismcts, time and master1 parts "
        "(e.g. master:netvalue=0.5)",
    )
    parser.add_argument(
        "--self-play",
        default="master",
        help="the agent of the first-player part (e.g. master:iterations=300 for a fixed budget)",
    )
    args = parser.parse_args()
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}; parts: {', '.join(PARTS)}")
    results: dict[str, Any] = {"games": args.games, "clock_ms": args.clock_ms}
    if "greedy" in parts:
        results["master_vs_greedy"] = row(match(args.challenger, "greedy", args))
    if "ismcts" in parts:
        results["master_vs_ismcts"] = row(match(args.challenger, "ismcts", args))
    if "time" in parts:
        sep = "," if ":" in args.challenger else ":"
        slow = f"{args.challenger}{sep}time_ms={5 * args.clock_ms}"
        results["master_5x_time_vs_master"] = row(match(slow, args.challenger, args))
    if "first" in parts:
        results["first_player"] = first_player(args)
    if "exploit" in parts:
        # The responder searches five times longer and plays out with master's own playouts.
        responder = f"ismcts:time_ms={5 * args.clock_ms},playout=smart,prior=1"
        results["best_response_vs_master"] = row(match(responder, "master", args))
    if "ladder" in parts:
        results["ladder_elo"] = ladder(args, results)
    if "speed" in parts:
        results["iterations_per_second"] = speed()
        results["master_setup"] = setup_ms()
        results["master_timed_iterations"] = timed_iterations(args.clock_ms)
    if "master1" in parts:
        results["challenger_vs_master_1"] = row(match(args.challenger, "master-1", args))
    if "net" in parts:
        results["net_vs_greedy"] = row(match("net", "greedy", args))
        results["net_vs_random"] = row(match("net", "random", args))
        results["net_vs_ismcts"] = row(match("net", "ismcts", args))
        results["net_speed"] = net_speed()
    text = json.dumps(results, indent=1)
    print(text)
    args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
