"""Determinizations weighted by the opponent's choices (hanamikoji.ai.opponent)."""

from __future__ import annotations

import random

import pytest

from conftest import EXAMPLE_DEAL, play
from hanamikoji.ai import AgentError, parse_agent
from hanamikoji.ai.belief import determinize
from hanamikoji.ai.fastplay import greedy_scores
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.ai.opponent import WeightedPool, _decisions, opponent_contexts, weigh
from hanamikoji.cards import pack
from hanamikoji.moves import Action
from hanamikoji.state import State

DEAL = EXAMPLE_DEAL  # the VIEW example of interfaces.md


def greedy_game(seed: int) -> State | None:
    """A position part-way through a game between two greedy players, the viewer to move."""
    rng = random.Random(seed)
    greedy = GreedyAgent()
    state = State.new(seed)
    for _ in range(rng.randrange(4, 15)):
        if state.is_over:
            return None
        assert state.to_move is not None
        state = state.apply(greedy.choose(state.view(state.to_move), state.legal_moves, rng))
    return None if state.is_over else state


def test_contexts_follow_the_round() -> None:
    state = play(State.from_deals([DEAL]), "S6 C46-47 P46 G557 P5 D37")
    view = state.view(0)
    contexts = opponent_contexts(view)
    assert [c.move for c in contexts] == ["C46-47", "D"]
    first, second = contexts
    assert (first.turn, first.played, first.actions) == (1, (0, 0), (15 - 1, 15))
    assert first.my_secret == pack("6")
    # Before seat 1's Discard: seat 0 took 46 and kept 57 of its Gift; seat 1 kept 47, took 5.
    assert second.turn == 3
    assert second.played == (pack("4567"), pack("457"))
    assert second.actions == (15 - 1 - 4, 15 - 8)


def test_no_contexts_before_the_opponent_acts() -> None:
    view = State.from_deals([DEAL]).view(0)
    assert opponent_contexts(view) == []


@pytest.mark.parametrize("seed", range(40))
def test_the_true_world_explains_every_opponent_move(seed: int) -> None:
    state = greedy_game(seed)
    if state is None or state.to_move is None:
        return
    view = state.view(state.to_move)
    contexts = opponent_contexts(view)
    decisions = _decisions(view, state, contexts)
    assert len(decisions) == len(contexts)
    for past, move in decisions:
        assert past.to_move == view.opponent
        assert move in greedy_scores(past)
        if move.action is Action.SECRET:
            assert move.cards == state.secret(view.opponent)


def test_the_model_prefers_the_true_world_against_greedy() -> None:
    wins = trials = 0
    for seed in range(60):
        state = greedy_game(seed)
        if state is None or state.to_move is None:
            continue
        view = state.view(state.to_move)
        contexts = opponent_contexts(view)
        if not contexts:
            continue
        rng = random.Random(seed)
        truth = weigh(view, state, contexts, 2.0)
        for _ in range(10):
            wins += truth > weigh(view, determinize(view, rng), contexts, 2.0)
            trials += 1
    assert trials >= 200
    assert wins / trials > 0.7  # measured: about 0.84


def test_pool_weights_and_draws() -> None:
    state = play(State.from_deals([DEAL]), "S6 C46-47 P46 G557 P5 D37")
    view = state.view(0)
    pool = WeightedPool(view, random.Random(1), size=64, beta=2.0)
    assert len(pool.worlds) == len(pool.weights) == 64
    assert all(0.0 < w <= 1.0 for w in pool.weights) and max(pool.weights) == 1.0
    assert 1.0 <= pool.effective_size <= 64.0
    rng = random.Random(2)
    drawn = [pool.draw(rng) for _ in range(500)]
    assert all(any(d is w for w in pool.worlds) for d in drawn)
    for world in pool.worlds:  # every world agrees with the view
        assert world.hand(0) == view.hand and world.played(1) == view.played[1]
    again = WeightedPool(view, random.Random(1), size=64, beta=2.0)
    assert again.weights == pool.weights


def test_pool_is_uniform_before_the_opponent_acts() -> None:
    view = State.from_deals([DEAL]).view(0)
    pool = WeightedPool(view, random.Random(1), size=16, beta=2.0)
    assert pool.weights == [1.0] * 16 and pool.effective_size == pytest.approx(16.0)


def test_search_with_belief_is_deterministic_and_checked() -> None:
    state = play(State.from_deals([DEAL]), "S6 C46-47 P46 G557 P5 D37")
    agent = parse_agent("master:fast=0,iterations=150,belief=2,pool=32")
    assert isinstance(agent, IsmctsAgent)
    view = state.view(0)
    a = agent.search(view, state.legal_moves, random.Random(3))
    b = agent.search(view, state.legal_moves, random.Random(3))
    assert a.moves == b.moves and a.iterations == 150
    with pytest.raises(AgentError, match="belief"):
        parse_agent("ismcts:belief=-1")
    with pytest.raises(AgentError, match="pool"):
        parse_agent("ismcts:belief=1,pool=0")
