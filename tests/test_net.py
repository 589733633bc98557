"""The learned player: its input reads only what the seat may know, the same from a View as from
the kernel's row; its inference is the training code's forward pass; the training code's
gradient is the true one; the ``net`` agent plays legal moves, deterministically."""

from __future__ import annotations

import random
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from hanamikoji.ai import make_agent, parse_agent
from hanamikoji.ai.net import WEIGHTS, Net, NetAgent, default_net, features, forward
from hanamikoji.kernel.actions import NUM_ACTIONS
from hanamikoji.kernel.features import (
    HIDDEN,
    LAYOUT,
    NFEAT,
    NFULL,
    encode,
    encode_full,
    field_slices,
)
from hanamikoji.kernel.row import C_DECK, C_DISCARD, C_HAND, C_REMOVED, C_SECRET, row_of
from hanamikoji.kernel.tables import T
from hanamikoji.state import Rules, State
from script_support import load_script


@pytest.fixture(scope="module")
def train() -> ModuleType:
    """scripts/train_net.py as a module (the training code's own forward and backward)."""
    return load_script("train_net")


def decisions(n: int, seed: int = 0) -> list[State]:
    """``n`` positions with a decision due, from random games of 3 rounds."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < n:
        state = State.new(rng.randrange(10**9), rules=Rules(max_rounds=3))
        while state.to_move is not None and len(out) < n:
            if rng.random() < 0.3:
                out.append(state)
            state = state.apply(rng.choice(state.legal_moves))
    return out


def inputs(states: list[State]) -> np.ndarray:
    """The network's input for each position's seat to move."""
    rows = []
    for s in states:
        seat = s.to_move
        assert seat is not None
        rows.append(features(s.view(seat), s.rules))
    return np.stack(rows)


def encoded(row: np.ndarray, max_rounds: int = 3) -> np.ndarray:
    out = np.zeros(NFEAT, dtype=np.float32)
    encode(row, max_rounds, T, out)
    return out


def test_the_layout_is_declared_once() -> None:
    parts = field_slices()
    assert list(parts) == [name for name, _ in LAYOUT + HIDDEN]
    assert max(p.stop for p in parts.values()) == NFULL
    assert parts[LAYOUT[-1][0]].stop == NFEAT


def test_the_view_gives_the_rows_features() -> None:
    for state in decisions(400):
        seat = state.to_move
        assert seat is not None
        got = features(state.view(seat), state.rules)
        assert np.array_equal(got, encoded(row_of(state.position()))), state


def test_the_input_ignores_what_the_seat_cannot_see() -> None:
    rng = np.random.default_rng(0)
    for state in decisions(200, seed=1):
        seat = state.to_move
        assert seat is not None
        row = row_of(state.position())
        other = row.copy()
        for col in (C_HAND + 1 - seat, C_SECRET + 1 - seat, C_DISCARD + 1 - seat, C_REMOVED):
            other[col] = rng.integers(0, 2**20)
        other[C_DECK : C_DECK + 8] = rng.integers(1, 8, size=8)
        assert np.array_equal(encoded(row), encoded(other))


def test_the_unseen_cards_are_what_the_seat_has_not_seen() -> None:
    state = State.new(5, rules=Rules(max_rounds=3))
    x = features(state.view(0), state.rules)
    unseen = x[field_slices()["unseen"]] * 2
    # seat 0 holds 7 cards (its draw included): the other 14 are unseen
    assert unseen.sum() == 14 and (unseen >= 0).all()


def test_inference_is_the_training_forward_pass(train: ModuleType) -> None:
    rng = np.random.default_rng(3)
    model = train.Model.init(rng, 32)
    for k in model.p:  # heads away from zero, so the test sees them
        model.p[k] += rng.standard_normal(model.p[k].shape).astype(np.float32) * 0.05
    x = inputs(decisions(64, seed=2))
    logits, values, _ = model.forward(x)
    got_logits, got_values = forward(model.net(), x)
    assert got_logits.shape == (64, NUM_ACTIONS) and got_values.shape == (64,)
    np.testing.assert_allclose(got_logits, logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_values, values, rtol=1e-5, atol=1e-6)


def test_the_shipped_weights_load_as_the_training_code_reads_them(train: ModuleType) -> None:
    net = default_net()
    model = train.Model({k: v.copy() for k, v in net.arrays().items()})
    x = inputs(decisions(32, seed=4))
    np.testing.assert_allclose(forward(net, x)[0], model.forward(x)[0], rtol=1e-5, atol=1e-4)
    assert WEIGHTS.stat().st_size < 4_000_000


def test_the_training_gradient_is_the_true_one(train: ModuleType) -> None:
    rng = np.random.default_rng(5)
    model = train.Model.init(rng, 8)
    for k in model.p:
        model.p[k] = (model.p[k] + rng.standard_normal(model.p[k].shape) * 0.1).astype(np.float64)
    x = rng.standard_normal((6, NFEAT))
    a = rng.standard_normal((6, NUM_ACTIONS))
    b = rng.standard_normal(6)

    def loss() -> float:
        logits, v, _ = model.forward(x)
        return float((logits * a).sum() + (v * b).sum())

    _, _, cache = model.forward(x)
    grads = model.backward(cache, a, b)
    for name in ("w1", "b2", "wp", "wq", "wv", "bv"):
        w = model.p[name]
        for _ in range(3):
            i = tuple(int(rng.integers(0, n)) for n in w.shape)
            keep = w[i]
            w[i] = keep + 1e-6
            up = loss()
            w[i] = keep - 1e-6
            down = loss()
            w[i] = keep
            assert grads[name][i] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-6), name


def test_the_net_agent_plays_legal_moves_deterministically() -> None:
    agent = make_agent("net")
    assert isinstance(agent, NetAgent) and agent.name == "net"
    for i, state in enumerate(decisions(100, seed=6)):
        seat = state.to_move
        assert seat is not None
        view = state.view(seat)
        move = agent.choose(view, state.legal_moves, random.Random(i))
        assert move in state.legal_moves
        assert agent.choose(view, state.legal_moves, random.Random(i + 1)) == move
        logits = agent.logits(view, state.legal_moves)
        assert move == state.legal_moves[int(np.argmax(logits))]
    hot = parse_agent("net:temperature=1.5")
    assert isinstance(hot, NetAgent) and hot.temperature == 1.5
    state = decisions(1, seed=7)[0]
    seat = state.to_move
    assert seat is not None
    view = state.view(seat)
    picks = [hot.choose(view, state.legal_moves, random.Random(s)) for s in range(30)]
    assert picks == [hot.choose(view, state.legal_moves, random.Random(s)) for s in range(30)]
    assert all(m in state.legal_moves for m in picks)


def test_a_whole_game_of_net_against_itself_is_fast() -> None:
    agent = NetAgent()
    state = State.new(11, rules=Rules(max_rounds=3))
    agent.start(0, state.rules)
    rng = random.Random(0)
    start = time.perf_counter()
    n = 0
    while state.to_move is not None:
        state = state.apply(agent.choose(state.view(state.to_move), state.legal_moves, rng))
        n += 1
    assert state.outcome is not None
    assert (time.perf_counter() - start) / n < 0.05  # one forward pass a decision


def test_other_weights_are_read_or_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.npz"
    arrays: dict[str, Any] = dict(default_net().arrays())
    np.savez(path, **arrays)
    assert isinstance(NetAgent(weights=str(path)).net, Net)
    np.savez(tmp_path / "bad.npz", w1=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="not the network's weights"):
        NetAgent(weights=str(tmp_path / "bad.npz"))


def test_the_searchs_value_is_the_value_head() -> None:
    from hanamikoji.ai.net import row_value

    net = default_net()
    x = np.empty(NFEAT, np.float32)
    h1 = np.empty(net.w1.shape[1], np.float32)
    h2 = np.empty(net.w2.shape[1], np.float32)
    states = decisions(100, seed=8)
    want = forward(net, inputs(states))[1]
    for state, value in zip(states, want, strict=True):
        row = row_of(state.position())
        got = row_value(row, False, 3, T, net.w1, net.b1, net.w2, net.b2, net.wv, net.bv, x, h1, h2)
        assert got == pytest.approx(float(value), abs=1e-5)


def test_master_with_the_learned_value_is_deterministic() -> None:
    state = decisions(1, seed=9)[0]
    seat = state.to_move
    assert seat is not None
    view = state.view(seat)
    for share in (0.5, 1.0):
        agent = parse_agent(f"master:iterations=2000,netvalue={share}")
        first = agent.search(view, state.legal_moves, random.Random(4))  # type: ignore[attr-defined]
        again = agent.search(view, state.legal_moves, random.Random(4))  # type: ignore[attr-defined]
        assert first.moves == again.moves and first.iterations == 2000
        assert all(0.0 <= m.value <= 1.0 for m in first.moves)


def test_the_roots_learned_bias_is_the_searchs_prior_scaled_to_its_favourite() -> None:
    """``rootprior=net``: each root move's bias is the prior's probability (as the kernel's
    row_probs gives it to the opponent's search) over its likeliest move's."""
    from hanamikoji.ai.net import policy_arrays, prior_bias, row_probs, small_net
    from hanamikoji.kernel.actions import IDS

    net = small_net()
    policy = policy_arrays(net)
    x = np.empty(NFEAT, np.float32)
    h1 = np.empty(net.w1.shape[1], np.float32)
    h2 = np.empty(net.w2.shape[1], np.float32)
    z = np.empty(600, np.float32)
    for state in decisions(40, seed=14):
        seat = state.to_move
        assert seat is not None
        legal = state.legal_moves
        bias = prior_bias(state.view(seat), legal, Rules())
        ids = np.array([IDS[m] for m in legal], dtype=np.int64)
        row_probs(row_of(state.position()), ids, len(ids), 3, T, policy, x, h1, h2, z)
        want = z[: len(ids)] / z[: len(ids)].max()
        assert [bias[m] for m in legal] == pytest.approx(want.tolist(), rel=1e-3, abs=1e-6)
        assert max(bias.values()) == 1.0


def test_master_with_the_learned_root_bias_is_deterministic_and_follows_it() -> None:
    from hanamikoji.ai.ismcts import heuristic_bias
    from hanamikoji.ai.net import prior_bias

    def favourite(bias: dict[Any, float]) -> Any:
        return max(bias.items(), key=lambda kv: kv[1])[0]

    # a decision where the learned prior and greedy favour different moves
    for state in decisions(40, seed=9):
        seat = state.to_move
        assert seat is not None
        view = state.view(seat)
        net = prior_bias(view, state.legal_moves)
        greedy = heuristic_bias(view, state.legal_moves, fast=True)
        if favourite(net) != favourite(greedy):
            break
    else:
        raise AssertionError("the prior and greedy agree on every decision")
    for source, bias in (("net", net), ("greedy", greedy)):
        agent = parse_agent(f"master:iterations=300,rootprior={source}")
        first = agent.search(view, state.legal_moves, random.Random(4))  # type: ignore[attr-defined]
        again = agent.search(view, state.legal_moves, random.Random(4))  # type: ignore[attr-defined]
        assert first.moves == again.moves and first.iterations == 300
        # the root tries its moves in the bias's order: one iteration visits the favourite
        agent = parse_agent(f"master:iterations=1,rootprior={source}")
        found = agent.search(view, state.legal_moves, random.Random(4))  # type: ignore[attr-defined]
        visited = [m.move for m in found.moves if m.visits]
        assert visited == [favourite(bias)], (source, visited)


def test_master_guided_by_the_learned_prior_below_the_root_is_deterministic() -> None:
    """``guideprior=net``: the same tree for the same seed, and another tree than greedy's
    guide grows (the bias below the root is the prior's)."""
    state = decisions(1, seed=16)[0]
    seat = state.to_move
    assert seat is not None
    view = state.view(seat)
    trees = {}
    for source in ("greedy", "net"):
        agent = parse_agent(f"master:iterations=2000,guideprior={source}")
        first = agent.search(view, state.legal_moves, random.Random(5))  # type: ignore[attr-defined]
        again = agent.search(view, state.legal_moves, random.Random(5))  # type: ignore[attr-defined]
        assert first.moves == again.moves and first.iterations == 2000
        trees[source] = first.moves
    assert trees["greedy"] != trees["net"]


def test_master_does_every_iteration_of_a_small_budget() -> None:
    """The opponent's table has room from the first iteration (it once stopped a search of a
    few dozen iterations before it began)."""
    for state in decisions(5, seed=15):
        seat = state.to_move
        assert seat is not None
        for budget in (1, 7, 40, 200):
            agent = parse_agent(f"master:iterations={budget}")
            found = agent.search(state.view(seat), state.legal_moves, random.Random(2))  # type: ignore[attr-defined]
            assert found.iterations == budget
            assert sum(m.visits for m in found.moves) == budget


def test_the_full_input_adds_the_opponents_hidden_cards() -> None:
    for state in decisions(100, seed=10):
        seat = state.to_move
        assert seat is not None
        row = row_of(state.position())
        full = np.zeros(NFULL, np.float32)
        encode_full(row, 3, T, full)
        assert np.array_equal(full[:NFEAT], encoded(row))
        parts = field_slices()
        other = 1 - seat
        hidden = (state.hand(other), state.secret(other) or "", state.discard(other) or "")
        for name, cards in zip(("opp_hand", "opp_secret", "opp_discard"), hidden, strict=True):
            want = [0.5 * cards.count(str(g)) for g in range(1, 8)]
            assert full[parts[name]].tolist() == want


def test_the_critic_in_numba_is_its_numpy_forward_pass() -> None:
    from hanamikoji.ai.net import row_value

    rng = np.random.default_rng(11)
    shapes = ((NFULL, 16), (16,), (16, 16), (16,), (16,), (1,))
    w1, b1, w2, b2, wv, bv = (rng.standard_normal(s).astype(np.float32) * 0.3 for s in shapes)
    x = np.empty(NFULL, np.float32)
    h1 = np.empty(16, np.float32)
    h2 = np.empty(16, np.float32)
    for state in decisions(50, seed=12):
        row = row_of(state.position())
        full = np.zeros(NFULL, np.float32)
        encode_full(row, 3, T, full)
        hidden = np.maximum(np.maximum(full @ w1 + b1, 0) @ w2 + b2, 0)
        want = float(np.tanh(hidden @ wv + bv[0]))
        got = row_value(row, True, 3, T, w1, b1, w2, b2, wv, bv, x, h1, h2)
        assert got == pytest.approx(want, abs=1e-5)


def test_the_searchs_opponent_draws_from_the_policy() -> None:
    """row_pick (numba) draws move k exactly when u falls in k's share of the numpy forward
    pass's legal-move probabilities."""
    from hanamikoji.ai.net import policy_arrays, row_pick
    from hanamikoji.kernel.rules import legal
    from hanamikoji.kernel.tables import H

    net = default_net()
    policy = policy_arrays(net)
    x = np.empty(NFEAT, np.float32)
    h1 = np.empty(net.w1.shape[1], np.float32)
    h2 = np.empty(net.w2.shape[1], np.float32)
    z = np.empty(600, np.float32)
    ids = np.empty(600, np.int64)
    states = decisions(60, seed=13)
    logits = forward(net, inputs(states))[0].astype(np.float64)
    many = 0
    for state, row_logits in zip(states, logits, strict=True):
        row = row_of(state.position())
        n = legal(row, T, H, ids)
        p = np.exp(row_logits[ids[:n]] - row_logits[ids[:n]].max())
        edges = np.cumsum(p / p.sum())
        many += n > 1
        for k in range(n):
            low = edges[k - 1] if k else 0.0
            if edges[k] - low < 1e-4:
                continue  # too thin a share to hit from inside at float32's precision
            for u in (low + 1e-5, 0.5 * (low + edges[k]), edges[k] - 1e-5):
                got = row_pick(row, ids, n, 3, T, policy, x, h1, h2, z, u)
                assert got == ids[k], (state, k, u)
    assert many > 30


def test_a_round_is_credited_with_the_table_value_of_the_markers_it_left(
    train: ModuleType,
) -> None:
    """``--by-round``: the value a round's decisions are credited with is the round value table's
    (``hanamikoji.ai.values``) at the next round's start, read from the kernel's row."""
    from hanamikoji.ai.fastplay import tables
    from hanamikoji.ai.values import round_values

    F, horizon = tables()
    table = round_values()
    rng = random.Random(4)
    seen = 0
    while seen < 30:
        state = State.new(rng.randrange(10**9), rules=Rules(max_rounds=3))
        round_ = 1
        while state.to_move is not None:
            state = state.apply(rng.choice(state.legal_moves))
            if state.to_move is not None and state.round != round_:  # a round was just dealt
                round_ = state.round
                row = row_of(state.position(), 0)
                want = table.value(state.markers, state.first, 3 - state.round + 1)
                assert train.round_value(row, F, horizon) == pytest.approx(want)
                seen += 1


def test_round_returns_replace_the_result_only_where_the_round_did_not_end_the_game(
    train: ModuleType,
) -> None:
    after = np.full((2, 4), np.nan)
    after[0, 1] = 0.7  # game 0 went on after round 1, seat 0 expecting 0.7
    ret = np.array([1, -1, 1, -1, 0], np.float32)  # each decision's game result for its seat
    slot = np.array([0, 0, 0, 0, 1])
    seat = np.array([0, 1, 0, 1, 0])
    rnd = np.array([1, 1, 2, 2, 1])
    out = train.round_returns(ret, after, slot, seat, rnd)
    assert out.tolist() == pytest.approx([0.4, -0.4, 1, -1, 0])


def test_playing_by_round_changes_the_credit_only(train: ModuleType) -> None:
    """The same games, moves and results; the returns of rounds that did not end their game are
    the table's (strictly between a loss and a win), the others the game's."""
    who = np.full((48, 2), train.GREEDY, np.int64)
    games = train.play({}, who, 3, np.random.default_rng(1), sample=True, teacher=True)
    rounds = train.play(
        {}, who, 3, np.random.default_rng(1), sample=True, teacher=True, by_round=True
    )
    (d, winner), (r, winner2) = games, rounds
    assert (winner == winner2).all() and (d.action == r.action).all() and (d.x == r.x).all()
    changed = d.ret != r.ret
    assert 0.2 < changed.mean() < 0.9
    assert (np.abs(r.ret[changed]) < 1).all() and (np.abs(d.ret[changed]) == 1).all()
    assert r.ret.var() < d.ret.var()
