"""bench/information.py: the oracle worlds it gives the search, and whole pairs of games."""

from __future__ import annotations

import random

import pytest
from bench.information import _hand_world, measure, play_pair

from hanamikoji.ai import parse_agent
from hanamikoji.ai.ismcts import IsmctsAgent, search_worlds
from hanamikoji.state import State


def midgame(seed: int) -> State:
    rng = random.Random(seed)
    state = State.new(seed)
    for _ in range(rng.randrange(3, 12)):
        state = state.apply(rng.choice(state.legal_moves))
    assert not state.is_over
    return state


@pytest.mark.parametrize("seed", range(20))
def test_hand_worlds_keep_the_cards_in_hands_and_shuffle_the_rest(seed: int) -> None:
    truth = midgame(seed)
    worlds = _hand_world(truth)
    rng = random.Random(seed)
    for _ in range(5):
        world = worlds(rng)
        for seat in (0, 1):
            assert world.hand(seat) == truth.hand(seat)
            assert world.secret(seat) == truth.secret(seat)
            assert world.discard(seat) == truth.discard(seat)
            assert world.played(seat) == truth.played(seat)
        assert world.legal_moves == truth.legal_moves
        turn = truth.position().turn
        hidden = sorted(world.deal.removed + world.deal.deck[turn + 1 :])
        assert hidden == sorted(truth.deal.removed + truth.deal.deck[turn + 1 :])


def test_search_uses_the_worlds_it_is_given() -> None:
    truth = midgame(3)
    agent = parse_agent("ismcts:iterations=50")
    assert isinstance(agent, IsmctsAgent)
    seen: list[State] = []

    def worlds(rng: random.Random) -> State:
        seen.append(truth)
        return truth

    view = truth.view(truth.to_move or 0)
    result = search_worlds(agent, view, truth.legal_moves, random.Random(1), worlds)
    assert len(seen) == result.iterations == 50


@pytest.mark.parametrize("mode", ["fair", "hand", "all"])
def test_a_pair_is_two_results(mode: str) -> None:
    a, b = play_pair("ismcts:iterations=20,playout=greedy", mode, 7)
    assert a in (0.0, 0.5, 1.0) and b in (0.0, 0.5, 1.0)


def test_measure_reports_a_score_in_its_interval() -> None:
    row = measure("ismcts:iterations=10,playout=greedy", "all", 4, 1, 3)
    assert row["games"] == 4 and sum(row["pairs_0_05_1_15_2"]) == 2
    low, high = row["ci95"]
    assert 0.0 <= low <= row["score"] <= high <= 1.0


@pytest.mark.parametrize("mode", ["hand", "all"])
def test_the_compiled_search_takes_the_oracle_too(mode: str) -> None:
    a, b = play_pair("master:iterations=30", mode, 5)
    assert a in (0.0, 0.5, 1.0) and b in (0.0, 0.5, 1.0)
