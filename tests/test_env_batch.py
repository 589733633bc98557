"""The batch simulator against the core engine, step by step, and its own conventions."""

from __future__ import annotations

import doctest
import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from hanamikoji.cards import ALL_CARDS, CHARM, pack, unpack
from hanamikoji.env import batch
from hanamikoji.env._common import field_at
from hanamikoji.env.actions import MOVES, NUM_ACTIONS, action_id, legal_ids
from hanamikoji.env.batch import COLUMNS, REASONS, BatchSim
from hanamikoji.env.observation import OBS_SIZE, observe
from hanamikoji.state import Deal, Rules, State


def random_deals(seed: int, games: int, rounds: int) -> list[list[Deal]]:
    rng = random.Random(seed)
    return [[Deal.random(rng) for _ in range(rounds)] for _ in range(games)]


def play_both_ways(
    deals: list[list[Deal]], max_rounds: int | None, seed: int, obs_every: int
) -> int:
    """Play every game in the core engine and in a BatchSim with the same random moves.

    Checks at every step the legal actions and the seat to move, on every ``obs_every``-th
    step of a game (and at its end) both seats' observations, and at the end the outcome and
    the rewards. Returns the number of decisions compared.
    """
    rules = Rules(max_rounds=max_rounds)
    states = [State.from_deals(d, rules=rules) for d in deals]
    sim = BatchSim.from_deals(deals, max_rounds=max_rounds, seed=seed, auto_reset=False)
    live = set(range(len(deals)))
    decisions = 0
    step = 0
    while live:
        mask = sim.legal_mask()
        to_move = sim.to_move
        obs = (sim.observe(0), sim.observe(1)) if step % obs_every == 0 else None
        for g in live:
            state = states[g]
            assert to_move[g] == state.to_move, (g, step)
            assert np.flatnonzero(mask[g]).tolist() == legal_ids(state), (g, step, state)
            if obs is not None and (g + step) % 2 == 0:
                for seat in (0, 1):
                    assert np.array_equal(obs[seat][g], observe(state, seat)), (g, seat, state)
        actions = sim.random_actions()
        rewards, done = sim.step(actions)
        step += 1
        obs_end = (sim.observe(0), sim.observe(1))
        ended = []
        for g in live:
            states[g] = state = states[g].apply(MOVES[actions[g]])
            decisions += 1
            outcome = state.outcome
            assert done[g] == (outcome is not None), (g, step)
            if outcome is None:
                assert not rewards[g].any()
                continue
            ended.append(g)
            assert sim.outcome(g) == outcome, (g, sim.outcome(g), outcome)
            assert REASONS[sim.reason[g]] is outcome.reason
            assert sim.winner[g] == (-1 if outcome.winner is None else outcome.winner)
            assert tuple(sim.charm[g]) == outcome.charm and tuple(sim.geisha[g]) == outcome.geisha
            want = [0.0, 0.0] if outcome.winner is None else [-1.0, -1.0]
            if outcome.winner is not None:
                want[outcome.winner] = 1.0
            assert rewards[g].tolist() == want
            assert sim.legal_actions(g) == []
            for seat in (0, 1):
                assert np.array_equal(obs_end[seat][g], observe(state, seat)), (g, seat)
        live.difference_update(ended)
    assert sim.over.all()
    return decisions


@pytest.mark.parametrize(
    ("max_rounds", "games", "rounds", "seed"),
    [(3, 1000, 3, 11), (1, 800, 1, 12), (None, 600, 30, 13)],
)
def test_same_games_as_the_core_engine(
    max_rounds: int | None, games: int, rounds: int, seed: int
) -> None:
    deals = random_deals(seed, games, rounds)
    decisions = play_both_ways(deals, max_rounds, seed, obs_every=4)
    assert decisions >= 12 * games


def test_a_worked_example_game() -> None:
    # The VIEW example of interfaces.md: removed 4, hands 566777 / 144677, pile 53221635.
    deal = Deal("4", ("566777", "144677"), "53221635")
    sim = BatchSim.from_deals([[deal]], max_rounds=1)
    state = State.from_deals([deal], rules=Rules(max_rounds=1))
    for text in ["S6", "C46-47", "P46", "G557", "P5", "D37"]:
        sim.step(np.array([action_id(text)]))
        state = state.apply(text)
        assert np.array_equal(sim.observe(0)[0], observe(state, 0))
    assert sim.column("removed")[0] == 4
    assert "".join(str(d) for d in sim.column("deck")[0]) == "53221635"
    assert unpack(int(sim.column("hand")[0, 0])) == state.hand(0) == "12677"
    assert sim.column("turn")[0] == 4 and sim.to_move[0] == 0  # seat 0's third turn


def test_random_deals_are_whole_and_uniform() -> None:
    sim = BatchSim(4000, seed=3)
    table = sim.table
    removed = sim.column("removed")
    for g in range(50):  # each fresh game is the 21 cards, seat 0 having drawn deck[0]
        deck = "".join(str(d) for d in table[g, COLUMNS["deck"]])
        hand0 = int(table[g, COLUMNS["hand"]][0]) - pack(deck[0])
        hands = (unpack(hand0), unpack(int(table[g, COLUMNS["hand"]][1])))
        Deal(str(removed[g]), hands, deck)  # raises unless it is a valid deal
    assert (sim.to_move == 0).all() and (sim.round == 1).all() and (sim.markers == -1).all()
    freq = np.bincount(removed, minlength=8)[1:] / len(removed)
    assert np.allclose(freq, np.array(CHARM) / len(ALL_CARDS), atol=0.02)


def test_random_actions_are_uniform_over_the_legal_moves() -> None:
    deal = Deal("4", ("566777", "144677"), "53221635")
    games = 8000
    sim = BatchSim.from_deals([[deal]] * games, seed=9)
    legal = legal_ids(State.from_deals([deal]))
    counts = np.bincount(sim.random_actions(), minlength=NUM_ACTIONS)
    assert np.flatnonzero(counts).tolist() == legal
    mean = games / len(legal)
    assert np.abs(counts[legal] - mean).max() < 5 * np.sqrt(mean)


def test_random_steps_equals_stepping_random_actions() -> None:
    a = BatchSim(64, seed=5, max_rounds=2)
    b = BatchSim(64, seed=5, max_rounds=2)
    assert np.array_equal(a.table, b.table)
    n = a.random_steps(150)
    count = 0
    for _ in range(150):
        count += int((~b.over).sum())
        b.step(b.random_actions())
    assert n == count
    assert np.array_equal(a.table, b.table)
    assert np.array_equal(a.tally, b.tally)


def test_random_steps_plays_sane_games() -> None:
    sim = BatchSim(256, seed=8)
    steps = 3000
    n = sim.random_steps(steps)
    tally = sim.tally
    games = int(tally.sum())
    assert 0.9 * 256 * steps < n <= 256 * steps
    assert 12 < n / games < 36  # a round is 12 decisions; at most 3 rounds
    assert tally[2, :3].sum() == 0 and tally[:2, 3].sum() == 0  # only draws are drawn
    assert (tally > 0).sum() == 7  # every (winner, reason) pair occurs
    for seat in (0, 1):
        assert 0.4 < tally[seat].sum() / games < 0.6
    # Mid-play positions hold exactly the 21 cards.
    t = sim.table
    live = np.flatnonzero(~sim.over)
    assert len(live) > 200
    for g in live[:50]:
        turn = int(t[g, COLUMNS["turn"]][0])
        deck = "".join(str(d) for d in t[g, COLUMNS["deck"]][turn + 1 :])
        cards = str(t[g, COLUMNS["removed"]][0]) + deck
        for part in ("hand", "played", "secret", "discard"):
            cards += "".join(unpack(int(c)) for c in t[g, COLUMNS[part]])
        offer = int(t[g, COLUMNS["offer"]][0])
        if offer >= 0:
            cards += MOVES[offer].cards
        assert "".join(sorted(cards)) == ALL_CARDS, (g, cards)


def test_random_steps_with_given_deals() -> None:
    deals = random_deals(21, 100, 1)
    sim = BatchSim.from_deals(deals, max_rounds=1, seed=1)
    assert sim.random_steps(20) == 12 * 100  # one round each, then no deals left: over
    assert sim.over.all() and sim.tally.sum() == 100
    sim.reset()
    assert not sim.over.any() and sim.tally.sum() == 0
    more = BatchSim.from_deals(random_deals(22, 100, 1), max_rounds=None, seed=1)
    with pytest.raises(ValueError, match=r"batch step 11 .*game \d+ ran out of deals"):
        more.random_steps(20)


def test_determinism_and_reset() -> None:
    a = BatchSim(32, seed=7)
    start = a.table.copy()
    a.random_steps(100)
    b = BatchSim(32, seed=7)
    b.random_steps(100)
    assert np.array_equal(a.table, b.table)
    assert not np.array_equal(BatchSim(32, seed=8).table, start)
    a.reset(seed=7)
    assert np.array_equal(a.table, start) and a.tally.sum() == 0
    a.reset()  # no seed: the streams go on
    assert not np.array_equal(a.table, start)


def _play_until_done(
    sim: BatchSim,
) -> tuple[int, npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    for _ in range(200):
        rewards, done = sim.step(sim.random_actions())
        if done.any():
            return int(np.flatnonzero(done)[0]), rewards, done
    raise AssertionError("no game ended")


@pytest.mark.parametrize("auto_reset", [True, False])
def test_finished_games(auto_reset: bool) -> None:
    sim = BatchSim(8, seed=4, auto_reset=auto_reset)
    g, rewards, done = _play_until_done(sim)
    outcome = sim.outcome(g)
    assert outcome is not None and sim.over[g] and sim.to_move[g] == -1
    if outcome.winner is None:
        assert rewards[g].tolist() == [0.0, 0.0]
    else:
        assert rewards[g, outcome.winner] == 1.0 and rewards[g, 1 - outcome.winner] == -1.0
    assert sim.legal_actions(g) == [] and not sim.legal_mask()[g].any()
    assert sim.observe(0)[g, 91] == 1.0  # phase "over"
    actions = sim.random_actions()
    assert actions[g] == 0
    actions[g] = 5  # ignored, an illegal move as it is: the game is over
    rewards, done = sim.step(actions)
    assert not done[g] and not rewards[g].any()
    if auto_reset:
        assert sim.outcome(g) is None and sim.to_move[g] == 0 and sim.round[g] == 1
        assert (sim.markers[g] == -1).all() and sim.column("turn")[g] == 0
    else:
        assert sim.outcome(g) == outcome and sim.over[g]


def test_given_deals_go_on_into_the_next_game() -> None:
    first, second = random_deals(31, 2, 1)[0][0], random_deals(32, 1, 1)[0][0]
    sim = BatchSim.from_deals([[first, second]], max_rounds=1)
    assert sim.column("removed")[0] == int(first.removed)
    decisions = 0
    while not sim.over[0]:
        sim.step(sim.random_actions())
        decisions += 1
    assert decisions == 12
    sim.step(np.zeros(1, dtype=np.int64))
    assert not sim.over[0] and sim.column("removed")[0] == int(second.removed)
    assert "".join(str(d) for d in sim.column("deck")[0]) == second.deck
    for _ in range(12):
        sim.step(sim.random_actions())
    assert sim.over[0]
    sim.step(np.zeros(1, dtype=np.int64))  # no deal left: it stays over
    assert sim.over[0] and sim.outcome(0) is not None


def test_illegal_actions_are_refused_and_change_nothing() -> None:
    sim = BatchSim(3, seed=2)
    actions = sim.random_actions()
    before = sim.table.copy()
    bad = next(a for a in range(NUM_ACTIONS) if a not in sim.legal_actions(1))
    actions[1] = bad
    with pytest.raises(ValueError, match=rf"game 1: action {bad} \({MOVES[bad]}\) is illegal"):
        sim.step(actions)
    for wrong in (-1, NUM_ACTIONS, 10**6):
        actions[1] = wrong
        with pytest.raises(ValueError, match=rf"game 1: action {wrong} is out of range 0\.\.533"):
            sim.step(actions)
    assert np.array_equal(sim.table, before)
    with pytest.raises(ValueError, match="shape"):
        sim.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="whole numbers"):
        sim.step(np.zeros(3))
    # A pick that is not a choice of the offer.
    while sim.column("offer")[0] < 0:
        sim.step(sim.random_actions())
    offer = MOVES[int(sim.column("offer")[0])]
    wrong_pick = next(m for m in MOVES if m.is_pick and m not in offer.picks)
    actions = sim.random_actions()
    actions[0] = action_id(wrong_pick)
    with pytest.raises(ValueError, match="game 0"):
        sim.step(actions)


@pytest.mark.parametrize("size", [0, -3, True, 2.5, "4"])
def test_bad_batch_size(size: object) -> None:
    with pytest.raises(ValueError, match="batch_size"):
        BatchSim(size)  # type: ignore[arg-type]


@pytest.mark.parametrize("limit", [0, -1, True, 2.0, "3", np.int64(0)])
def test_bad_max_rounds(limit: object) -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        BatchSim(2, max_rounds=limit)  # type: ignore[arg-type]


def test_a_round_limit_above_the_largest_is_refused_not_cut_down() -> None:
    """2**70 used to be taken and reported as 2**62."""
    assert BatchSim(2, max_rounds=2**62).max_rounds == 2**62
    with pytest.raises(ValueError, match=r"max_rounds must be at most 4611686018427387904 "):
        BatchSim(2, max_rounds=2**62 + 1)
    with pytest.raises(ValueError, match=r"at most 4611686018427387904 "):
        BatchSim.from_deals(random_deals(1, 2, 1), max_rounds=2**70)


def test_numpy_scalars_are_taken_wherever_a_number_is() -> None:
    # (numpy scalars, as RL configurations carry them: typed Any, taken at run time)
    size: Any = np.int64(3)
    numbers: dict[str, Any] = {
        "seed": np.uint32(2),
        "max_rounds": np.int64(2),
        "round_reward": np.float32(0.5),
    }
    sim = BatchSim(size, **numbers)
    assert sim.max_rounds == 2 and type(sim.max_rounds) is int and sim.round_reward == 0.5
    weight: Any = np.int64(2)
    assert BatchSim(3, round_reward=weight).round_reward == 2.0
    assert np.array_equal(sim.table, BatchSim(3, seed=2, max_rounds=2).table)


@pytest.mark.parametrize("flag", ["no", 0, 1, None])
def test_auto_reset_is_true_or_false(flag: object) -> None:
    """'no' used to be taken, as true."""
    with pytest.raises(ValueError, match="auto_reset must be True or False"):
        BatchSim(3, auto_reset=flag)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="auto_reset must be True or False"):
        BatchSim.from_deals(random_deals(1, 2, 1), auto_reset=flag)  # type: ignore[arg-type]
    off: Any = np.bool_(False)
    assert BatchSim(3, auto_reset=off).auto_reset is False


@pytest.mark.parametrize("seed", [-1, np.int64(-5), True, 2.5, "7", [1, 2]])
def test_bad_seeds_are_refused_by_name(seed: object) -> None:
    expected = r"seed must be None or a whole number >= 0, got "
    with pytest.raises(ValueError, match=expected):
        BatchSim(4, seed=seed)  # type: ignore[arg-type]
    deals = random_deals(1, 2, 1)
    with pytest.raises(ValueError, match=expected):
        BatchSim.from_deals(deals, seed=seed)  # type: ignore[arg-type]
    sim = BatchSim(2, seed=3)
    before = sim.table.copy()
    with pytest.raises(ValueError, match=expected):
        sim.reset(seed=seed)  # type: ignore[arg-type]
    assert np.array_equal(sim.table, before)  # a refused seed changes nothing


def test_good_seeds_are_taken() -> None:
    for seed in (0, 2**70, np.uint64(3)):
        assert np.array_equal(BatchSim(2, seed=seed).table, BatchSim(2, seed=int(seed)).table)  # type: ignore[arg-type]


def test_bad_deals_and_arguments() -> None:
    deal = random_deals(1, 1, 1)[0][0]
    bad: list[object] = [[], [[]], [[deal], []], [deal], [["x"]]]
    for deals in bad:
        with pytest.raises(ValueError, match="deals"):
            BatchSim.from_deals(deals)  # type: ignore[arg-type]
    sim = BatchSim(2, seed=1)
    with pytest.raises(ValueError, match="seat"):
        sim.observe(2)
    with pytest.raises(ValueError, match="n_steps"):
        sim.random_steps(-1)
    for g in (2, -1):
        with pytest.raises(ValueError, match=r"game must be 0\.\.1"):
            sim.legal_actions(g)
        with pytest.raises(ValueError, match=r"game must be 0\.\.1"):
            sim.outcome(g)
    with pytest.raises(ValueError, match="out"):
        sim.observe(0, out=np.zeros((2, OBS_SIZE)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="out"):
        sim.legal_mask(out=np.zeros((1, NUM_ACTIONS), dtype=np.bool_))


def test_running_out_of_given_deals() -> None:
    sim = BatchSim.from_deals(random_deals(41, 40, 1), max_rounds=None, seed=3)
    with pytest.raises(ValueError, match=r"game \d+ ran out of deals: it needs one for round 2"):
        for _ in range(12):
            actions = sim.random_actions()
            before = sim.table.copy()
            sim.step(actions)
    assert np.array_equal(sim.table, before)  # the refused step changed nothing


def test_docstring_examples_run() -> None:
    result = doctest.testmod(batch)
    assert result.attempted > 0 and result.failed == 0


# -- what a learner needs: masks, steps, seats, branching, shaping, opponents ----------------


def test_a_finished_games_action_mask_is_one_hot_so_softmax_never_nans() -> None:
    sim = BatchSim(8, seed=4, auto_reset=False)
    g, _, _ = _play_until_done(sim)
    legal, sample = sim.legal_mask(), sim.action_mask()
    assert not legal[g].any()
    assert np.flatnonzero(sample[g]).tolist() == [0]
    live = ~sim.over
    assert np.array_equal(legal[live], sample[live])
    logits = np.where(sample, np.zeros(sample.shape), -np.inf)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    assert np.isfinite(probs).all() and probs[g, 0] == 1.0


@pytest.mark.parametrize("auto_reset", [True, False])
def test_step_says_which_actions_were_ignored_and_which_slots_reset(auto_reset: bool) -> None:
    sim = BatchSim(16, seed=9, auto_reset=auto_reset)
    for _ in range(200):
        over = sim.over.copy()
        step = sim.step(sim.random_actions())
        rewards, done = step  # still unpacks as a pair
        assert step.rewards is rewards and step.done is done
        assert np.array_equal(step.ignored, over)
        assert np.array_equal(step.reset, over if auto_reset else np.zeros_like(over))
        assert not (done & step.ignored).any()
        if over.any():
            g = int(np.flatnonzero(over)[0])
            assert not rewards[g].any() and not done[g]
            assert sim.over[g] != auto_reset
            return
    raise AssertionError("no game was over at a step")


def test_observe_for_an_array_of_seats_and_for_the_seat_to_move() -> None:
    sim = BatchSim(32, seed=5)
    sim.random_steps(7)
    both = sim.observe(0), sim.observe(1)
    seats = np.arange(32) % 2
    mixed = sim.observe(seats)
    for g in range(32):
        assert np.array_equal(mixed[g], both[seats[g]][g])
    to_move = sim.observe_to_move()
    for g in range(32):
        seat = max(int(sim.to_move[g]), 0)
        assert np.array_equal(to_move[g], both[seat][g])
        assert to_move[g, 92] == (1.0 if sim.to_move[g] >= 0 else 0.0)
    for bad in (2, -1, np.full(31, 0), np.full(32, 2), np.full(32, 0.0), True):
        with pytest.raises(ValueError, match="seat must be 0, 1"):
            sim.observe(bad)


def test_clone_and_set_state_branch_the_batch() -> None:
    sim = BatchSim(64, seed=6, round_reward=0.5)
    sim.random_steps(10)
    saved = sim.get_state()
    twin = sim.clone()
    assert twin.version == sim.version == batch.VERSION
    assert twin.round_reward == 0.5 and twin.batch_size == 64
    first = [sim.step(sim.random_actions()) for _ in range(30)]
    second = [twin.step(twin.random_actions()) for _ in range(30)]
    assert np.array_equal(sim.table, twin.table)  # the same streams: the same games
    for a, b in zip(first, second, strict=True):
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.done, b.done)
    twin.step(twin.random_actions())
    assert not np.array_equal(sim.table, twin.table)  # independent copies
    sim.set_state(saved)
    assert np.array_equal(sim.table, saved.table) and np.array_equal(sim.tally, saved.tally)
    sim.set_state(twin)
    assert np.array_equal(sim.table, twin.table)
    with pytest.raises(ValueError, match="state holds 3 games, this simulator 64"):
        sim.set_state(BatchSim(3).get_state())
    with pytest.raises(ValueError, match=r"BatchState \(from get_state\(\)\) or a BatchSim"):
        sim.set_state(sim.table)  # type: ignore[arg-type]


def test_set_state_refuses_games_of_other_rules_or_deals() -> None:
    sim = BatchSim(4, seed=1)  # three rounds
    before = sim.table.copy()
    endless = BatchSim(4, seed=1, max_rounds=None)
    for other in (endless, endless.get_state()):
        with pytest.raises(ValueError, match=r"other rules \(max_rounds=None; this .*=3\)"):
            sim.set_state(other)
    # A row given deals counts them in this simulator's deal array: games from one with given
    # deals, stepped on here, would read past its end (it crashed the interpreter).
    dealt = BatchSim.from_deals(random_deals(2, 4, 3), seed=1)
    for other in (dealt, dealt.get_state()):
        with pytest.raises(ValueError, match=r"other given deals|given other deals"):
            sim.set_state(other)
    with pytest.raises(ValueError, match="given other deals"):
        dealt.set_state(BatchSim.from_deals(random_deals(3, 4, 3), seed=1))
    assert np.array_equal(sim.table, before)
    # The same rules and deals: a clone, a snapshot, one made by hand without its rules.
    dealt.set_state(dealt.clone())
    state = sim.get_state()
    sim.set_state(batch.BatchState(state.table, state.tally, state.record))
    sim.set_state(BatchSim(4, seed=9))


@pytest.mark.parametrize("weight", [0.0, 0.5, 2.0])
def test_round_reward_matches_the_other_adapters(weight: float) -> None:
    deals = random_deals(41, 40, 3)
    states = [State.from_deals(d) for d in deals]
    sim = BatchSim.from_deals(deals, seed=3, auto_reset=False, round_reward=weight)
    totals = np.zeros((40, 2))
    while not sim.over.all():
        actions = sim.random_actions()
        rewards, _ = sim.step(actions)
        for g in np.flatnonzero(actions >= 0):
            state = states[g]
            if state.outcome is not None:
                continue
            after = state.apply(MOVES[actions[g]])
            gain = 0.0
            if len(after.scorings) > len(state.scorings):
                (c0, c1), (d0, d1) = state.charm, after.charm
                gain = weight * ((d0 - c0) - (d1 - c1)) / 21
            expected = [gain, -gain]
            if after.outcome is not None and after.outcome.winner is not None:
                expected[after.outcome.winner] += 1.0
                expected[1 - after.outcome.winner] -= 1.0
            assert rewards[g].tolist() == pytest.approx(expected, abs=1e-6)
            states[g] = after
            totals[g] += rewards[g]
    assert np.allclose(totals.sum(axis=1), 0.0, atol=1e-6)  # zero-sum
    with pytest.raises(ValueError, match="round_reward must be"):
        BatchSim(2, round_reward=float("nan"))


def test_greedy_actions_are_greedys_choices() -> None:
    from hanamikoji.ai.fastplay import greedy_scores

    deals = random_deals(43, 60, 3)
    states = [State.from_deals(d) for d in deals]
    sim = BatchSim.from_deals(deals, seed=8, auto_reset=False)
    checked = 0
    while not sim.over.all():
        actions = sim.greedy_actions()
        for g in np.flatnonzero(~sim.over):
            scores = greedy_scores(states[g])
            best = max(scores.values())
            assert scores[MOVES[actions[g]]] >= best - 1e-9, (g, states[g])
            checked += 1
        sim.step(actions)
        for g in np.flatnonzero(actions >= 0):
            if states[g].outcome is None:
                states[g] = states[g].apply(MOVES[actions[g]])
    assert checked > 60 * 12
    assert sim.greedy_actions().tolist() == [0] * 60  # finished games: the placeholder


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_play_opponent_stops_at_the_learners_decisions(opponent: str) -> None:
    sim = BatchSim(64, seed=12, round_reward=0.25)
    seats = np.arange(64) % 2
    ended = 0
    for _ in range(60):
        result = sim.play_opponent(seats, opponent)
        assert not result.ignored.any() and not result.reset.any()
        assert ((sim.to_move == seats) | sim.over).all()
        assert np.array_equal(result.done & ~sim.over, np.zeros(64, dtype=np.bool_))
        ended += int(result.done.sum())
        mask = sim.action_mask()
        sim.step(np.array([np.flatnonzero(m)[0] for m in mask]))
    assert ended > 0
    assert sim.tally.sum() >= ended
    with pytest.raises(ValueError, match="opponent must be one of random, greedy"):
        sim.play_opponent(0, "master")


def test_greedy_beats_random_at_simulator_speed() -> None:
    sim = BatchSim(400, seed=13, auto_reset=False)
    seats = np.arange(400) % 2
    while not sim.over.all():
        sim.play_opponent(seats, "greedy")
        sim.step(np.where(sim.over, 0, sim.random_actions()))
    winner = sim.winner
    random_score = float(((winner == seats) + 0.5 * (winner < 0)).mean())
    assert random_score < 0.25  # greedy wins about 9 games in 10


def test_play_opponent_running_out_of_deals_changes_nothing() -> None:
    sim = BatchSim.from_deals([random_deals(47, 1, 1)[0]], seed=1)  # round 1 ends no game
    while sim.column("turn")[0] < 7:
        sim.step(sim.random_actions())
    # The opponent plays the round's last turn (or its pick), which needs a deal for round 2.
    with pytest.raises(ValueError, match="ran out of deals"):
        for _ in range(2):
            before = sim.get_state()
            sim.play_opponent(1 - int(sim.to_move[0]), "random")
    assert np.array_equal(sim.table, before.table)


def test_the_rounds_history_block_is_the_core_engines() -> None:
    from hanamikoji.env.observation import observe_history

    deals = random_deals(45, 60, 3)
    states = [State.from_deals(d) for d in deals]
    sim = BatchSim.from_deals(deals, seed=2, auto_reset=False)
    seats = np.arange(60) % 2
    compared = 0
    while True:
        block = sim.observe_history(seats)
        assert block.shape == (60, OBS_SIZE + 216)
        assert np.array_equal(block[:, :OBS_SIZE], sim.observe(seats))
        for g in range(60):
            assert np.array_equal(block[g], observe_history(states[g], int(seats[g]))), g
            compared += 1
        if sim.over.all():
            break
        actions = sim.random_actions()
        sim.step(actions)
        for k in np.flatnonzero(actions >= 0):
            if states[k].outcome is None:
                states[k] = states[k].apply(MOVES[actions[k]])
    assert compared > 60 * 12
    # Branching keeps the records: a clone and a restored state see the same history.
    twin = sim.clone()
    assert np.array_equal(twin.observe_history(0), sim.observe_history(0))
    saved = sim.get_state()
    sim.reset(seed=1)
    sim.set_state(saved)
    assert np.array_equal(twin.observe_history(1), sim.observe_history(1))


def test_random_steps_keeps_no_history_until_a_reset() -> None:
    sim = BatchSim(8, seed=3)
    sim.observe_history(0)
    sim.random_steps(5)
    with pytest.raises(ValueError, match="random_steps keeps no round history"):
        sim.observe_history(0)
    twin = sim.clone()
    sim.reset()
    assert not sim.observe_history(1)[:, OBS_SIZE:].any()  # no turn played yet
    with pytest.raises(ValueError, match="random_steps keeps no round history"):
        twin.observe_history(0)
    twin.set_state(sim)
    twin.observe_history(0)


def test_the_largest_round_limit_plays() -> None:
    """2**62, the largest limit the kernel holds, plays (it overflowed the kernel once); a
    larger one is refused (test_a_round_limit_above_the_largest_is_refused_not_cut_down), as
    cutting it down would make ``rounds_left`` differ from the core's observation."""
    sim = BatchSim(8, seed=3, max_rounds=2**62)
    assert sim.random_steps(400) > 8 * 300  # decisions made, across whole games
    assert (sim.observe(0)[:, field_at("rounds_left")] > 1e18).all()
