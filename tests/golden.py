"""The golden record: the moves of the built-in players and the batch simulator's steps, recorded
once from the code as it stood before the AI and research code were reshaped, so that a change
that should change nothing for users is checked against it (tests/test_golden.py).

Regenerate only when a change of play is intended: ``.venv/bin/python tests/golden.py``.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from hanamikoji.state import Rules, State

PATH = Path(__file__).resolve().parent / "data" / "golden.json"
POSITIONS = 200
MASTER_ITERATIONS = 3000
BATCH_SIZE = 64
BATCH_STEPS = 300
BATCH_SEED = 20


def positions(count: int = POSITIONS) -> list[State]:
    """``count`` positions of games played at random, at every stage of rounds 1 to 3."""
    out: list[State] = []
    seed = 0
    while len(out) < count:
        rng = random.Random(1000 + seed)
        state = State.new(random.Random(seed), rules=Rules(max_rounds=3))
        stop = rng.randrange(1, 60)
        for _ in range(stop):
            if state.to_move is None:
                break
            state = state.apply(rng.choice(state.legal_moves))
        seed += 1
        if state.to_move is not None and len(state.legal_moves) > 1:
            out.append(state)
    return out


def players() -> dict[str, Any]:
    """The players the record covers: levels by name, master and ``master-1`` at a fixed
    budget."""
    from hanamikoji.ai import LEVELS, GreedyAgent, Master1Agent, MasterAgent

    return {
        "greedy": GreedyAgent(),
        "medium": LEVELS["medium"](),
        "hard": LEVELS["hard"](),
        "master": MasterAgent(iterations=MASTER_ITERATIONS),
        "master-1": Master1Agent(iterations=MASTER_ITERATIONS),
    }


RECORDED_AS: dict[str, str] = {}
"""Players checked against another player's record (none now: ``master-1`` has its own, the
moves master made when the record was first made; master and hard were recorded again when
master's opponent became the searched information sets of #21, and again when master took
sequential halving at the root; medium's 100 iterations are too few to halve: it did not
change)."""


def agent_moves(name: str, states: list[State]) -> list[str]:
    """The move ``name`` chooses in each position, seeded by the position's index."""
    from hanamikoji.ai.base import start_game

    agent = players()[name]
    moves = []
    for i, state in enumerate(states):
        seat = state.to_move
        assert seat is not None
        start_game(agent, seat, state.rules)
        view = state.view(seat)
        moves.append(str(agent.choose(view, state.legal_moves, random.Random(i))))
    return moves


def kernel_playouts(states: list[State]) -> list[str]:
    """The greedy kernel's playout of the rest of each position's round, with its value."""
    from hanamikoji.ai.fastplay import greedy_playout

    out = []
    for i, state in enumerate(states):
        p = greedy_playout(state, random.Random(i))
        out.append(" ".join(str(m) for m in p.moves) + f" = {p.value!r}")
    return out


_COLUMNS = [
    "hand",
    "played",
    "secret",
    "discard",
    "actions",
    "markers",
    "round",
    "first",
    "turn",
    "offer",
    "to_move",
    "removed",
    "deck",
    "winner",
    "reason",
    "deal",
    "deals",
    "rng",
]


def batch_digests() -> list[str]:
    """After each of BATCH_STEPS random steps: a digest of every game's state (the columns as
    named before the change, in that order), the rewards, the mask and both observations."""
    from hanamikoji.env.batch import BatchSim

    sim = BatchSim(BATCH_SIZE, seed=BATCH_SEED, max_rounds=3)
    out = []
    for _ in range(BATCH_STEPS):
        rewards, done = sim.step(sim.random_actions())
        h = hashlib.sha256()
        for name in _COLUMNS:
            h.update(np.ascontiguousarray(sim.column(name), dtype=np.int64).tobytes())
        h.update(rewards.tobytes())
        h.update(done.tobytes())
        h.update(sim.legal_mask().tobytes())
        h.update(sim.observe(0).tobytes())
        h.update(sim.observe(1).tobytes())
        out.append(h.hexdigest()[:16])
    n = sim.random_steps(200)
    out.append(f"{n} {sim.tally.tolist()}")
    return out


def record() -> dict[str, Any]:
    """Everything the golden file holds."""
    states = positions()
    data: dict[str, Any] = {
        name: agent_moves(name, states) for name in players() if name not in RECORDED_AS
    }
    data["kernel"] = kernel_playouts(states)
    data["batch"] = batch_digests()
    return data


if __name__ == "__main__":
    data = record()
    # one player a line, as the record has always been laid out
    lines = ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data.items())
    PATH.write_text("{\n" + lines + "\n}\n")
    print(f"wrote {PATH}")
