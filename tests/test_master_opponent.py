"""Master's model of its opponent (``opponent``): drawn from the network's policy (``net``) or
searched at the opponent's own information sets with the policy as its prior (``infoset``,
master's default since #21)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hanamikoji.ai import parse_agent
from hanamikoji.ai.config import MASTER, MASTER_1
from hanamikoji.ai.fastsearch.search import FastSearch
from hanamikoji.state import Rules, State


def positions(count: int, seed: int) -> list[State]:
    """Positions early in a round, where the opponent still has moves to make in the tree."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        state = State.new(rng.randrange(10**9), rules=Rules(max_rounds=3))
        for _ in range(rng.randrange(0, 4)):
            state = state.apply(rng.choice(state.legal_moves))
        if state.to_move is not None and len(state.legal_moves) > 1:
            out.append(state)
    return out


def test_master_searches_the_opponent_at_its_information_sets() -> None:
    assert MASTER.opponent == "infoset"
    assert MASTER_1.opponent == "search"
    assert parse_agent("master").config == MASTER  # type: ignore[attr-defined]


@pytest.mark.parametrize("opponent", ["net", "infoset"])
def test_a_fixed_budget_is_deterministic(opponent: str) -> None:
    for state in positions(3, seed=1):
        seat = state.to_move
        assert seat is not None
        agent = parse_agent(f"master:iterations=3000,opponent={opponent}")
        first = agent.search(state.view(seat), state.legal_moves, random.Random(5))  # type: ignore[attr-defined]
        again = agent.search(state.view(seat), state.legal_moves, random.Random(5))  # type: ignore[attr-defined]
        assert first.moves == again.moves
        assert first.iterations == 3000
        assert sum(m.visits for m in first.moves) == 3000
        assert all(0.0 <= m.value <= 1.0 for m in first.moves)


def test_the_opponents_statistics_are_kept_by_its_information_set() -> None:
    """Each entry is one (node, hand, Secret, Discard, move) of the opponent's: with more
    than one world its entries outnumber the opponent's nodes of the shared tree, and the
    visits they hold are the opponent's steps down the tree."""
    for state in positions(4, seed=2):
        seat = state.to_move
        assert seat is not None
        tree = FastSearch(state.view(seat), random.Random(3), capacity=4001, config=MASTER)
        tree.run(4000)
        used = int(tree.oused[0])
        assert used > 0 and 2 * used <= len(tree.okeys)
        assert int(np.count_nonzero(tree.okeys)) == used
        assert int(tree.oN.sum()) >= used  # every entry was visited at least once
        searched = FastSearch(state.view(seat), random.Random(3), capacity=4001, config=MASTER_1)
        searched.run(4000)
        assert int(searched.oused[0]) == 0


def test_a_full_table_stops_the_search() -> None:
    state = positions(1, seed=4)[0]
    seat = state.to_move
    assert seat is not None
    tree = FastSearch(state.view(seat), random.Random(3), capacity=40, config=MASTER)
    tree.run(100_000)
    assert tree.full
    assert tree.iterations < 100_000
    assert 2 * (int(tree.oused[0]) + 64) > len(tree.okeys) or tree.counters[0] + 1 > tree.limit


def test_the_opponents_prior_is_computed_once_for_each_information_set() -> None:
    """The cache of the network's priors changes no statistic: a search that may not keep any
    (no room for their probabilities) grows the same tree, and one that may keeps fewer priors
    than the opponent made decisions (its information sets recur)."""
    for state in positions(3, seed=6):
        seat = state.to_move
        assert seat is not None
        cached = FastSearch(state.view(seat), random.Random(3), capacity=3001, config=MASTER)
        cached.run(3000)
        fresh = FastSearch(state.view(seat), random.Random(3), capacity=3001, config=MASTER)
        fresh.pflat = np.empty(0, dtype=np.float32)
        fresh.run(3000)
        assert int(fresh.oused[1]) == 0
        kept = int(cached.oused[1])
        assert 0 < kept < int(cached.oN.sum())
        assert int(cached.oused[2]) > kept  # each holds its legal moves' probabilities
        assert np.array_equal(cached.oN, fresh.oN) and np.array_equal(cached.oW, fresh.oW)
        assert np.array_equal(cached.N, fresh.N) and np.array_equal(cached.W, fresh.W)
