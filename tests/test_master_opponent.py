"""Master's model of its opponent (``opponent``): drawn from the network's policy (``net``) or
searched at the opponent's own information sets with the policy as its prior (``infoset``,
master's default since #21)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from hanamikoji.ai import parse_agent
from hanamikoji.ai.config import MASTER, MASTER_1
from hanamikoji.ai.fastplay import MAX_MOVES, position_row
from hanamikoji.ai.fastsearch.models import earlier_evidence
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


def test_the_opponents_tables_grow_as_the_search_needs_them() -> None:
    """A large search starts with small tables for the opponent and grows them, its entries
    and kept priors moved along: the same tree as with the tables at full size from the start."""
    state = positions(1, seed=8)[0]
    seat = state.to_move
    assert seat is not None
    roots = []
    for grown in (True, False):
        tree = FastSearch(state.view(seat), random.Random(3), capacity=400_001, config=MASTER)
        first = len(tree.okeys)
        assert first < tree.omax
        if not grown:
            while len(tree.okeys) < tree.omax:
                tree._grow_opponent()  # full size before the first iteration
        while tree.iterations < 40_000 and not tree.full:
            tree.run(min(256, 40_000 - tree.iterations))
        assert tree.iterations == 40_000
        assert 2 * int(tree.oused[0]) <= len(tree.okeys)
        if grown:
            assert first < len(tree.okeys) < tree.omax  # grown, only as far as it needed
        roots.append((tree.root(state.legal_moves), int(tree.oused[0]), int(tree.oused[1])))
        assert int(tree.oN.sum()) >= roots[-1][1] > 0
    assert roots[0] == roots[1]


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


def test_the_beliefs_prediction_weighs_each_model_by_its_posterior() -> None:
    """``oprior=belief``: the opponent's prior is each model's prediction weighed by its
    posterior: all weight on the network's own softness leaves its policy as it is, all on a
    greedy softness gives greedy's scores softened by it, and a mixture is the weighted sum."""
    from hanamikoji.ai.fastplay import _scores, tables
    from hanamikoji.ai.fastsearch.kernel import predictive
    from hanamikoji.ai.net import policy_arrays, row_probs, small_net
    from hanamikoji.kernel.tables import H, T

    F, _ = tables()
    policy = policy_arrays(small_net())
    betas = np.array([0.0, 10.0], dtype=np.float64)
    scales = np.array([1 / 3, 1.0], dtype=np.float64)
    for state in positions(6, seed=7):
        row = position_row(state, random.Random(1))
        ids = np.empty(MAX_MOVES, dtype=np.int64)
        marks = np.empty(MAX_MOVES, dtype=np.float64)
        n = _scores(row, T, H, F, ids, marks)
        greedy10 = np.exp(10.0 * (marks[:n] - marks[:n].max()))
        greedy10 /= greedy10.sum()
        net = np.empty(MAX_MOVES, dtype=np.float32)
        x = np.empty(policy[0].shape[0], dtype=np.float32)
        h1 = np.empty(policy[0].shape[1], dtype=np.float32)
        h2 = np.empty(policy[2].shape[1], dtype=np.float32)
        row_probs(row, ids, n, 3, T, policy, x, h1, h2, net)
        third = net[:n].astype(np.float64) ** (1 / 3)
        third /= third.sum()

        def predict(
            post: list[float], row: Any = row, ids: Any = ids, n: int = n, net: Any = net
        ) -> npt.NDArray[np.float32]:
            z = net.copy()
            rel = np.empty(7, dtype=np.int64)
            scratch = np.empty(MAX_MOVES, dtype=np.float64)
            predictive(row, ids, n, T, F, np.array(post), betas, scales, rel, scratch, z)
            out: npt.NDArray[np.float32] = z[:n]
            return out

        assert np.allclose(predict([0, 0, 0, 1]), net[:n], atol=1e-6)
        assert np.allclose(predict([0, 1, 0, 0]), greedy10, atol=1e-6)
        assert np.allclose(predict([1, 0, 0, 0]), 1 / n, atol=1e-6)
        mixed = 0.1 / n + 0.2 * greedy10 + 0.3 * third + 0.4 * net[:n]
        assert np.allclose(predict([0.1, 0.2, 0.3, 0.4]), mixed, atol=1e-6)
        assert predict([0.1, 0.2, 0.3, 0.4]).sum() == pytest.approx(1.0, abs=1e-5)


def test_the_beliefs_prediction_as_the_prior_is_deterministic_and_changes_the_search() -> None:
    for state in positions(3, seed=8):
        seat = state.to_move
        assert seat is not None
        view = state.view(seat)
        config = MASTER.replace(oprior="belief")
        first = FastSearch(view, random.Random(3), capacity=3001, config=config)
        first.run(3000)
        again = FastSearch(view, random.Random(3), capacity=3001, config=config)
        again.run(3000)
        assert np.array_equal(first.oN, again.oN) and np.array_equal(first.N, again.N)
        assert first.opost.sum() == pytest.approx(1.0) and len(first.opost) == 7
        plain = FastSearch(view, random.Random(3), capacity=3001, config=MASTER)
        plain.run(3000)
        assert len(plain.opost) == 0
        assert not np.array_equal(first.oN, plain.oN)


def test_the_strong_prediction_gives_the_uniform_models_share_to_the_network() -> None:
    """``oprior=strong``: the belief's posterior over its models, with the uniform model's
    share moved to the network's policy as it is (the last model); the rest unchanged."""
    for state in positions(3, seed=9):
        seat = state.to_move
        assert seat is not None
        view = state.view(seat)
        weighed = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oprior="belief")
        )
        strong = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oprior="strong")
        )
        assert strong.opost[0] == 0.0 and strong.opost.sum() == pytest.approx(1.0)
        assert np.allclose(strong.opost[1:-1], weighed.opost[1:-1])
        assert strong.opost[-1] == pytest.approx(weighed.opost[-1] + weighed.opost[0])
        strong.run(100)
        again = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oprior="strong")
        )
        again.run(100)
        assert np.array_equal(strong.oN, again.oN) and np.array_equal(strong.N, again.N)


def test_the_sharp_prediction_searches_each_family_at_its_sharpest() -> None:
    """``oprior=sharp``: greedy's softnesses' share of the posterior goes to greedy's sharpest
    softness, the rest (uniform play and the network's softnesses) to the network's policy as
    it is; a greedy share under ``oshare`` leaves the network's prior alone."""
    seen_both = False
    for state in positions(4, seed=9):
        seat = state.to_move
        assert seat is not None
        view = state.view(seat)
        weighed = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oprior="belief")
        )
        sharp = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oprior="sharp")
        )
        share = weighed.opost[1:4].sum()  # greedy's softnesses, after the uniform model
        if share < MASTER.oshare:
            assert len(sharp.opost) == 0
            continue
        seen_both = True
        assert sharp.opost.tolist() == pytest.approx([share, 1 - share])
        assert sharp.obetas.tolist() == [MASTER.belief]
        assert sharp.oscales.tolist() == [1.0]
        sharp.run(100)
        again = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oprior="sharp")
        )
        again.run(100)
        assert np.array_equal(sharp.oN, again.oN) and np.array_equal(sharp.N, again.N)
    assert seen_both


def test_a_greedy_share_under_oshare_searches_with_the_networks_prior_alone() -> None:
    """``oshare`` is where the sharp prior starts: at or above it the greedy share is
    searched as greedy's, under it the search is the network's prior's (``oprior=net``), tree
    for tree, whatever the share."""
    shares = []
    for state in positions(6, seed=9):
        seat = state.to_move
        assert seat is not None
        view = state.view(seat)
        share = (
            FastSearch(view, random.Random(4), capacity=101, config=MASTER.replace(oprior="belief"))
            .opost[1:4]
            .sum()
        )
        if not 0.0 < share < 0.999:  # room above it for an oshare it is under
            continue
        shares.append(share)
        above = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oshare=share)
        )
        assert above.opost.tolist() == pytest.approx([share, 1 - share])
        under = FastSearch(
            view,
            random.Random(4),
            capacity=101,
            config=MASTER.replace(oshare=share * 1.001),
        )
        assert len(under.opost) == 0
        net = FastSearch(view, random.Random(4), capacity=101, config=MASTER.replace(oprior="net"))
        under.run(100)
        net.run(100)
        assert np.array_equal(under.oN, net.oN) and np.array_equal(under.N, net.N)
        assert np.array_equal(under.W, net.W)
    assert shares


def test_oshare_is_a_share() -> None:
    """An ``oshare`` outside 0 to 1 is refused, saying what is allowed."""
    with pytest.raises(ValueError, match="oshare"):
        MASTER.replace(oshare=1.5)


def test_ocarry_reads_the_greedy_share_from_the_whole_game() -> None:
    """``ocarry``: the sharp prior's greedy share weighs the earlier rounds' decisions with
    this round's, while the worlds stay weighed by this round's alone (not ``carry``)."""
    greedy = parse_agent("greedy")
    rng = random.Random(3)
    differs = checked = 0
    while checked < 4:
        state = State.new(rng.randrange(10**9), rules=Rules(max_rounds=3))
        while state.to_move is not None and state.round < 2:
            state = state.apply(greedy.choose(state.view(state.to_move), state.legal_moves, rng))
        for _ in range(rng.randrange(0, 4)):
            if state.to_move is None:
                break
            state = state.apply(rng.choice(state.legal_moves))
        if state.to_move is None or len(state.legal_moves) < 2:
            continue
        checked += 1
        view = state.view(state.to_move)
        plain = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oshare=0.0, ocarry=False)
        )
        carried = FastSearch(
            view, random.Random(4), capacity=101, config=MASTER.replace(oshare=0.0, ocarry=True)
        )
        assert np.array_equal(carried.logw, plain.logw)  # the worlds weighed alike
        whole = earlier_evidence(view, plain.betas[:4], plain.betas[4:], 3)
        if len(plain.evidence):
            whole = whole + plain.evidence
        shares = np.exp(whole - whole.max())
        assert carried.opost[0] == pytest.approx(shares[1:4].sum() / shares.sum())
        differs += abs(carried.opost[0] - plain.opost[0]) > 1e-6
    assert differs  # greedy's earlier rounds moved the share somewhere
