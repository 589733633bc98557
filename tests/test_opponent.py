"""Determinizations weighted by the opponent's choices (hanamikoji.ai.opponent)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from conftest import EXAMPLE_DEAL, play
from hanamikoji.ai import AgentError, parse_agent
from hanamikoji.ai.belief import determinize
from hanamikoji.ai.config import SearchConfig
from hanamikoji.ai.fastplay import greedy_scores, position_row
from hanamikoji.ai.fastsearch import FastSearch
from hanamikoji.ai.fastsearch.evidence import HIDDEN_IDS, opponent_decisions, weigh_one
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.ai.opponent import WeightedPool, _decisions, opponent_contexts, weigh
from hanamikoji.cards import pack
from hanamikoji.kernel.actions import IDS as _ID
from hanamikoji.kernel.row import C_DECK as P_DECK
from hanamikoji.kernel.row import C_HAND as P_HAND
from hanamikoji.kernel.row import C_RNG as P_RNG
from hanamikoji.kernel.row import C_TURN as P_TURN
from hanamikoji.kernel.tables import H, T
from hanamikoji.moves import Action, Move
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
    agent = parse_agent("ismcts:iterations=150,belief=2,pool=32,playout=greedy,prior=1")
    assert isinstance(agent, IsmctsAgent)
    view = state.view(0)
    a = agent.search(view, state.legal_moves, random.Random(3))
    b = agent.search(view, state.legal_moves, random.Random(3))
    assert a.moves == b.moves and a.iterations == 150
    with pytest.raises(AgentError, match="belief"):
        parse_agent("ismcts:belief=-1")
    with pytest.raises(AgentError, match="pool"):
        parse_agent("ismcts:belief=1,pool=-1")


def test_the_kernel_reads_the_opponents_decisions() -> None:
    state = play(State.from_deals([DEAL]), "S6 C46-47 P46 G557 P5 D37")
    rows = opponent_decisions(state.view(0)).tolist()
    competition, gift = _ID[Move.parse("C46-47")], _ID[Move.parse("G557")]
    assert rows == [
        [3, 1, 0, 0, 15 - 1, 15, -1, competition, 0],
        [4, 2, pack("46"), pack("47"), 15 - 1 - 4, 15 - 8, gift, _ID[Move.parse("P5")], 0],
        [1, 3, pack("4567"), pack("457"), 15 - 1 - 4, 15 - 8, -1, -1, 0],
    ]
    assert opponent_decisions(State.from_deals([DEAL]).view(0)).shape == (0, 9)


def test_the_kernel_ranks_the_true_world_high_against_greedy() -> None:
    ranks = []
    for seed in range(40):
        state = greedy_game(seed)
        if state is None or state.to_move is None:
            continue
        view = state.view(state.to_move)
        tree = FastSearch(
            view, random.Random(seed), capacity=16, config=SearchConfig(belief=2.0, pool=1024)
        )
        if not len(tree.logw):
            continue
        opp = view.opponent
        for row in tree.pool[:50]:  # the pool's worlds hold the opponent's hand size
            assert sum((int(row[P_HAND + opp]) >> (4 * g)) & 15 for g in range(7)) == len(
                state.hand(opp)
            )
        truth = position_row(state, random.Random(1))
        discard = pack(state.discard(opp) or "")
        decisions = opponent_decisions(view)
        weigh_truth = weigh_one(truth, discard, decisions, 2.0, opp, T, H, tree.F, HIDDEN_IDS)
        ranks.append(float(np.mean(tree.logw < weigh_truth)))
    assert len(ranks) >= 20
    # The true world outweighs most uniformly dealt ones (measured: 0.86 of them on average).
    assert float(np.mean(ranks)) > 0.75


def test_the_kernel_with_belief_is_deterministic_and_checked() -> None:
    state = play(State.from_deals([DEAL]), "S6 C46-47 P46 G557 P5 D37")
    agent = parse_agent("master:iterations=2000,belief=2,pool=256")
    assert isinstance(agent, IsmctsAgent)
    view = state.view(0)
    a = agent.search(view, state.legal_moves, random.Random(3))
    b = agent.search(view, state.legal_moves, random.Random(3))
    assert a.moves == b.moves and a.iterations == 2000
    assert sum(m.visits for m in a.moves) == 2000
    with pytest.raises(ValueError, match="belief"):
        SearchConfig(belief=-1.0)
    with pytest.raises(ValueError, match="pool"):
        SearchConfig(belief=1.0, pool=-1)


def test_pool_worlds_keep_the_opponents_cards_and_shuffle_the_pile_afresh() -> None:
    state = play(State.from_deals([DEAL]), "S6 C46-47 P46 G557 P5 D37")
    view = state.view(0)
    tree = FastSearch(view, random.Random(1), capacity=16, config=SearchConfig(belief=30.0, pool=1))
    turn = int(tree.template[P_TURN])
    first, m = P_DECK + turn + 1, int(tree.slots[2])
    assert m == 3 and tree.spare.shape == (1, 1)  # three cards still to draw, one removed
    kept = [i for i in range(len(tree.template)) if i != P_RNG and not first <= i < first + m]
    cards = Counter([*(int(c) for c in tree.pool[0, first : first + m]), int(tree.spare[0, 0])])
    leads: Counter[int] = Counter()
    orders = set()
    worlds = tree.pool_worlds(4000, seed=5)
    for row in worlds:
        assert (row[kept] == tree.pool[0, kept]).all()  # the opponent's cards stay the world's
        pile = [int(c) for c in row[first : first + m]]
        assert not Counter(pile) - cards  # drawn from the world's pile and its removed card
        leads[pile[0]] += 1
        orders.add(tuple(pile))
    # Each of the four cards comes next as often as the others: the pile is shuffled afresh.
    for card, n in cards.items():
        assert abs(leads[card] / len(worlds) - n / 4) < 0.04
    assert len(orders) >= 12
    assert (tree.pool_worlds(50, seed=5) == worlds[:50]).all()  # the same for a seed
    with pytest.raises(ValueError, match="pool"):
        FastSearch(view, random.Random(1), capacity=16).pool_worlds(10, seed=1)


def test_the_mixture_finds_greedy_more_likely_than_chance_against_greedy() -> None:
    favoured = positions = 0
    sure = 0.0
    for seed in range(30):
        state = greedy_game(seed)
        if state is None or state.to_move is None:
            continue
        view = state.view(state.to_move)
        tree = FastSearch(
            view,
            random.Random(seed),
            capacity=16,
            config=SearchConfig(belief=30.0, pool=512, mix=True),
        )
        if not len(tree.evidence):
            continue
        assert tree.betas == (0.0, 30.0 / 9, 10.0, 30.0)
        assert tree.evidence.shape == (4,) and np.isfinite(tree.evidence).all()
        positions += 1
        favoured += int(tree.evidence[1:].max() > tree.evidence[0])
        sure += tree.greedy_like
        adapted = FastSearch(
            view,
            random.Random(seed),
            capacity=16,
            config=SearchConfig(belief=30.0, pool=512, mix=True, adapt=0.5),
        )
        assert adapted.greedy_like == tree.greedy_like and not tree.model_pick
        assert adapted.model_pick == (tree.greedy_like >= 0.5)
    assert positions >= 15
    assert favoured / positions > 0.8  # a greedy opponent is no random one
    assert sure / positions > 0.5  # and the sharp softnesses carry most of the mixture


def test_the_mixture_weighs_the_same_worlds_otherwise() -> None:
    state = play(State.from_deals([DEAL]), "S6 C46-47 P46 G557 P5 D37")
    view = state.view(0)
    even = FastSearch(
        view, random.Random(1), capacity=16, config=SearchConfig(belief=30.0, pool=256, mix=True)
    )
    alone = FastSearch(
        view, random.Random(1), capacity=16, config=SearchConfig(belief=30.0, pool=256)
    )
    assert (even.pool == alone.pool).all()  # the same worlds, weighed differently
    assert not np.allclose(even.logw - even.logw.max(), alone.logw - alone.logw.max())


def test_the_mixture_options_are_checked() -> None:
    agent = parse_agent("master:iterations=300,belief=30,mix=1,adapt=0.6,pool=256")
    assert isinstance(agent, IsmctsAgent) and agent.config.mix and agent.config.adapt == 0.6
    with pytest.raises(AgentError, match="no option 'mix'"):
        parse_agent("ismcts:belief=2,mix=1")
    with pytest.raises(AgentError, match="retired"):
        parse_agent("master:belief=0,histories=2")
    with pytest.raises(AgentError, match="no option 'adapt'"):
        parse_agent("ismcts:playout=greedy,belief=3,adapt=0.5")
    with pytest.raises(AgentError, match="adapt"):
        parse_agent("master:adapt=2")
    plain = parse_agent("master:belief=0")  # the master before the belief
    assert isinstance(plain, IsmctsAgent) and not plain.config.mixed
