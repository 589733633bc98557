"""Random-play decisions per second of the research environments, on one core.

Run: ``.venv/bin/python bench/env.py`` (``--json`` for machine-readable output). Rows:

- ``pettingzoo-aec``: the PettingZoo AEC env ``hanamikoji.env.pettingzoo.env()``, random legal
  moves from ``action_mask``, one decision per ``step``;
- ``batch-random-steps``: ``BatchSim.random_steps`` at B=1024, moves chosen inside numba
  (compile time excluded by a warm-up);
- ``batch-step-api``: the same from Python, ``step(random_actions())`` at B=1024, plus the
  ``legal_mask`` and ``observe`` a learner would read each step;
- ``batch-mlp``: a learner's loop on ``BatchSim`` at B=1024: ``observe_to_move`` and
  ``action_mask``, a numpy MLP 98-64-534 (ReLU, masked softmax, a sampled move per game), then
  ``step``; decisions per second and the share of the time spent in the simulator;
- ``vector-greedy``: the Gymnasium VectorEnv (``gymnasium.make_vec(..., vectorization_mode=
  "vector_entry_point")``, N=1024) against the batched greedy opponent, the first legal move
  each step; learner steps per second (greedy's moves come on top);
- ``texas-holdem-v4``: PettingZoo's classic ``texas_holdem_v4``, random legal moves, for reference;
- ``openspiel-ismcts``: OpenSpiel's Python ISMCTS bot on ``python_hanamikoji`` with the
  resampler (``hanamikoji.env.openspiel.ismcts_bot``, ``--ismcts-simulations`` a move, random
  rollouts) against random and against greedy, ``--ismcts-games`` each, seats alternating:
  seconds per game and the score (wins + draws/2) / games. Measured once, not a median.

Each other row is the median of ``--runs`` runs; a step is one decision of one game.
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


def batch_mlp(batch: int, batch_steps: int, seed: int) -> tuple[int, float, float]:
    """A numpy MLP 98-64-534 choosing every move of B games: (decisions, time, simulator time)."""
    import numpy as np

    from hanamikoji.env.actions import NUM_ACTIONS
    from hanamikoji.env.batch import BatchSim
    from hanamikoji.env.observation import OBS_SIZE

    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((OBS_SIZE, 64)) * 0.1).astype(np.float32)
    b1 = np.zeros(64, np.float32)
    w2 = (rng.standard_normal((64, NUM_ACTIONS)) * 0.1).astype(np.float32)
    b2 = np.zeros(NUM_ACTIONS, np.float32)
    sim = BatchSim(batch, seed=seed)
    mask = sim.action_mask()
    obs = sim.observe_to_move()
    for _ in range(10):  # compile (or load the cache) and warm up
        sim.step(sim.random_actions())
    decisions = 0
    in_sim = 0.0
    start = time.perf_counter()
    for _ in range(batch_steps):
        t = time.perf_counter()
        sim.observe_to_move(out=obs)
        sim.action_mask(out=mask)
        live = int((~sim.over).sum())
        in_sim += time.perf_counter() - t
        hidden = np.maximum(obs @ w1 + b1, 0.0)
        logits = np.where(mask, hidden @ w2 + b2, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        gumbel = -np.log(-np.log(rng.random(logits.shape, dtype=np.float32) + 1e-30))
        actions = (logits + gumbel).argmax(axis=1)
        t = time.perf_counter()
        sim.step(actions)
        in_sim += time.perf_counter() - t
        decisions += live
    return decisions, time.perf_counter() - start, in_sim


def vector_greedy(n: int, steps: int, seed: int) -> tuple[int, float]:
    """The VectorEnv against batched greedy, first legal moves: (learner steps, time)."""
    import gymnasium

    import hanamikoji.env.gym  # noqa: F401 (registers the env)

    envs = gymnasium.make_vec(
        "hanamikoji/Hanamikoji-v0",
        num_envs=n,
        vectorization_mode="vector_entry_point",
        opponent="greedy",
        seat="random",
    )
    _obs, infos = envs.reset(seed=seed)
    for _ in range(10):  # compile (or load the cache) and warm up
        _obs, _r, _t, _tr, infos = envs.step(infos["action_mask"].argmax(axis=1))
    start = time.perf_counter()
    for _ in range(steps):
        _obs, _r, _t, _tr, infos = envs.step(infos["action_mask"].argmax(axis=1))
    return n * steps, time.perf_counter() - start


def ismcts_games(games: int, simulations: int, seed: int) -> Result:
    """OpenSpiel's Python ISMCTS (with the resampler) against random and greedy: a row."""

    import hanamikoji.env.openspiel as hos
    from hanamikoji.ai.greedy import GreedyAgent
    from hanamikoji.ai.random_agent import RandomAgent
    from hanamikoji.env.actions import MOVES, action_id
    from hanamikoji.state import State

    game = hos.load()
    row: Result = {"name": "openspiel-ismcts", "simulations": simulations, "games": games}
    for name, opponent in (("random", RandomAgent()), ("greedy", GreedyAgent())):
        points = 0.0
        start = time.perf_counter()
        for g in range(games):
            rng = random.Random(seed * 1000 + g)
            bot = hos.ismcts_bot(game, simulations=simulations, seed=seed * 1000 + g)
            bot_seat = g % 2
            core = State.new(rng)
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(_card_dealt(state._p, core))
                    continue
                seat = state.current_player()
                if seat == bot_seat:
                    move = MOVES[int(bot.step(state))]
                else:
                    move = opponent.choose(core.view(seat), core.legal_moves, rng, None)
                state.apply_action(action_id(move))
                core = core.apply(move)
            winner = core.outcome.winner if core.outcome is not None else None
            points += 0.5 if winner is None else float(winner == bot_seat)
        elapsed = time.perf_counter() - start
        row[f"score_vs_{name}"] = points / games
        row[f"s_per_game_vs_{name}"] = elapsed / games
    row["note"] = (
        f"OpenSpiel Python ISMCTSBot + resample_from_infostate, {simulations} simulations a "
        f"move, random rollouts; {games} games against each, seats alternating"
    )
    return row


def _card_dealt(p: Any, core: Any) -> int:
    """The chance outcome that deals the core game's next card to the OpenSpiel state."""
    deal = core.deal
    if p.stage == 0:  # the deal: the removed card, hand 0, hand 1 (card by card)
        k = p.dealt
        size = len(deal.hands[0])
        cards = str(deal.removed) + deal.hands[0] + deal.hands[1]
        assert len(cards) == 1 + 2 * size
        return int(cards[k]) - 1
    return int(deal.deck[p.turn]) - 1


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


def measure_mlp(batch: int, batch_steps: int, seed: int, runs: int) -> Result:
    """The ``batch-mlp`` row: the median of ``runs`` runs, with the simulator's share."""
    rates: list[float] = []
    shares: list[float] = []
    for run in range(runs):
        n, elapsed, in_sim = batch_mlp(batch, batch_steps, seed + run)
        rates.append(n / elapsed)
        shares.append(in_sim / elapsed)
    return {
        "name": "batch-mlp",
        "steps_per_s": statistics.median(rates),
        "sim_share": statistics.median(shares),
        "runs": [round(r) for r in rates],
        "note": f"BatchSim + numpy MLP 98-64-534 choosing every move, B={batch}",
    }


def main() -> None:
    """Measure every row and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per row; the median is shown")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per AEC env run")
    parser.add_argument("--batch", type=int, default=1024, help="BatchSim games (default 1024)")
    parser.add_argument("--batch-steps", type=int, default=2000, help="batch steps per run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ismcts-games", type=int, default=10, help="ISMCTS games per opponent")
    parser.add_argument("--ismcts-simulations", type=int, default=100, help="ISMCTS per move")
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
        measure_mlp(b, api_steps, seed, args.runs),
        measure(
            "vector-greedy",
            args.runs,
            lambda run: vector_greedy(b, api_steps, seed + run),
            f"gymnasium.make_vec(..., vector_entry_point), N={b}, against batched greedy",
        ),
        measure(
            "texas-holdem-v4",
            args.runs,
            lambda run: aec_random(texas_holdem, seconds, seed + 1000 * run),
            "pettingzoo.classic.texas_holdem_v4, random legal moves (reference)",
        ),
    ]
    if args.ismcts_games > 0:
        try:
            rows.append(ismcts_games(args.ismcts_games, args.ismcts_simulations, seed))
        except ImportError as e:
            rows.append({"name": "openspiel-ismcts", "note": f"unavailable: {e!r}"})
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
        rate = row.get("steps_per_s")
        shown = f"{rate:,.0f}" if rate is not None else "-"
        extra = ""
        if "sim_share" in row:
            extra = f" (simulator {row['sim_share']:.0%} of the time)"
        if "score_vs_random" in row:
            extra = (
                f" vs random {row['score_vs_random']:.2f} ({row['s_per_game_vs_random']:.1f} s a "
                f"game), vs greedy {row['score_vs_greedy']:.2f} "
                f"({row['s_per_game_vs_greedy']:.1f} s a game)"
            )
        print(f"{row['name']:<20} {shown:>14}  {row['note']}{extra}")


if __name__ == "__main__":
    main()
