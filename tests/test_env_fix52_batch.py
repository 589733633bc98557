"""The batch simulator refuses what would corrupt it: states of other deals or impossible games,
writes into its table, actions that are no action ids; and ``normalise`` refuses a round limit
its observations were not made under."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from hanamikoji.cards import CHARM
from hanamikoji.env.actions import NUM_ACTIONS, legal_ids
from hanamikoji.env.batch import COLUMNS, BatchSim, BatchState
from hanamikoji.env.observation import OBS_SIZE, normalise, observe, scale
from hanamikoji.env.vector import HanamikojiVectorEnv
from hanamikoji.kernel.row import C_HAND, C_NDEALS, C_OFFER, C_TO_MOVE, row_of
from hanamikoji.state import Deal, Rules, State


def deals(seed: int, games: int = 1, rounds: int = 3) -> list[list[Deal]]:
    return [
        [Deal.random(random.Random(seed + 10 * g + r)) for r in range(rounds)] for g in range(games)
    ]


# -- 1: a state of other given deals ----------------------------------------------------------
def test_a_state_of_other_given_deals_is_refused_as_the_simulator_is() -> None:
    a = BatchSim.from_deals(deals(10), auto_reset=False, seed=1)
    b = BatchSim.from_deals(deals(20), auto_reset=False, seed=1)
    for _ in range(3):
        a.step(a.random_actions())
    before = b.get_state()
    for other in (a, a.get_state(), pickle.loads(pickle.dumps(a.get_state()))):
        with pytest.raises(ValueError, match="given other deals"):
            b.set_state(other)
    assert np.array_equal(b.table, before.table)
    # The same deals are taken: another simulator given them, a pickled snapshot.
    twin = BatchSim.from_deals(deals(10), auto_reset=False, seed=7)
    twin.set_state(pickle.loads(pickle.dumps(a.get_state())))
    assert np.array_equal(twin.table, a.table)
    twin.set_state(a)
    # A state that does not say its deals is taken only by a simulator of random deals.
    made = BatchState(*a.get_state()[:5])
    with pytest.raises(ValueError, match="does not say which deals"):
        a.set_state(made)
    random_sim = BatchSim(4, seed=1)
    random_sim.set_state(BatchState(*random_sim.get_state()[:5]))


# -- 2: impossible games are refused, never played --------------------------------------------
def test_a_garbage_table_is_refused_instead_of_crashing_the_interpreter() -> None:
    script = textwrap.dedent(
        """
        import numpy as np
        from hanamikoji.env.batch import BatchSim, C_NDEALS
        sim = BatchSim(4, seed=0)
        st = sim.get_state()
        t = np.random.default_rng(0).integers(0, 2**40, size=st.table.shape)
        t[:, C_NDEALS] = sim.table[:, C_NDEALS]
        try:
            sim.set_state(st._replace(table=t))
        except ValueError as e:
            print("refused:", e)
        sim.legal_mask()
        sim.step(sim.random_actions())
        print("alive")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: state's game 0: to_move (column 21)" in done.stdout
    assert done.stdout.strip().endswith("alive")


def spoiled(sim: BatchSim, g: int, column: int, value: int) -> BatchState:
    state = sim.get_state()
    state.table[g, column] = value
    return state


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        (C_TO_MOVE, 5, r"to_move \(column 21\) is 5: must be -1, 0 or 1"),
        (COLUMNS["markers"].start + 3, 2, r"markers\[3\] \(column 13\) is 2"),
        (COLUMNS["round"].start, 4, r"round \(column 17\) is 4: must be a round number 1\.\.3"),
        (COLUMNS["deck"].start + 7, 9, r"deck\[7\] \(column 30\) is 9: must be a geisha 1\.\.7"),
        (C_OFFER, 3, r"offer \(column 20\) is 3: must be -1 or the action id of a Gift"),
        (C_HAND, -1, r"hand\[0\] \(column 0\) is -1: must be a packed set"),
        (COLUMNS["actions"].start, 99, r"actions\[0\] \(column 8\) is 99: must be 0\.\.15"),
        (COLUMNS["reason"].start, 2, r"reason \(column 32\) is 2: must be 0 while the game"),
        (COLUMNS["deal"].start, 1, r"deal \(column 33\) is 1: must be 0 in a game of random"),
        (C_NDEALS, 3, r"deals \(column 34\) is 3: must be 0"),
    ],
)
def test_a_wrong_column_is_named_with_its_game(column: int, value: int, message: str) -> None:
    sim = BatchSim(4, seed=3)
    sim.step(sim.random_actions())
    before = sim.get_state()
    with pytest.raises(ValueError, match=rf"^state's game 2: {message}"):
        sim.set_state(spoiled(sim, 2, column, value))
    assert np.array_equal(sim.table, before.table)  # nothing changed


def test_cards_that_do_not_add_up_are_refused() -> None:
    sim = BatchSim(2, seed=4)
    state = sim.get_state()
    hand = int(state.table[1, C_HAND + 1])
    counts = [(hand >> (4 * i)) & 15 for i in range(7)]
    # One of the seat's cards made another geisha's: as many cards, one of them twice.
    have = next(i for i in range(7) if counts[i])
    room = next(i for i in range(7) if i != have and counts[i] < CHARM[i])
    state.table[1, C_HAND + 1] = hand - (1 << (4 * have)) + (1 << (4 * room))
    with pytest.raises(ValueError, match=r"^state's game 1: its cards do not add up: geisha"):
        sim.set_state(state)
    # A card too many in a hand, a Secret not played, a record entry that is no action.
    hand = int(sim.table[0, C_HAND])
    room = next(i for i in range(7) if (hand >> (4 * i)) & 15 < CHARM[i])
    for column, value, message in (
        (C_HAND, hand + (1 << (4 * room)), r"hand\[0\] \(column 0\) is \d+: must hold 7 cards"),
        (COLUMNS["secret"].start, 1, r"secret\[0\] \(column 4\) is 1: must hold 0 card"),
    ):
        with pytest.raises(ValueError, match=rf"^state's game 0: {message}"):
            sim.set_state(spoiled(sim, 0, column, value))
    state = sim.get_state()
    state.record[1, 5, 1] = NUM_ACTIONS
    with pytest.raises(ValueError, match=r"^state's record of game 1, turn 5: its action is 534"):
        sim.set_state(state)


def all_states(sim: BatchSim, steps: int) -> int:
    """Play ``sim`` every way it plays, taking back each state reached; returns the steps."""
    learner = np.arange(sim.batch_size) % 2
    for step in range(steps):
        try:
            if step % 3 == 0:
                sim.step(sim.greedy_actions())
            elif step % 3 == 1:
                sim.play_opponent(learner, "random")
            else:
                sim.random_steps(1)
        except ValueError as e:  # a slot of given deals has played them all
            assert "ran out of deals" in str(e)
            return step
        sim.set_state(sim.get_state())
    return steps


@pytest.mark.parametrize(
    "make",
    [
        lambda: BatchSim(64, seed=1),
        lambda: BatchSim(64, seed=2, max_rounds=None),
        lambda: BatchSim(64, seed=3, max_rounds=1, auto_reset=False),
        lambda: BatchSim.from_deals(deals(5, 32, 4), seed=4, max_rounds=None),
    ],
)
def test_every_state_of_play_is_taken_back(make: Any) -> None:
    sim = make()
    assert all_states(sim, 150) > 20
    assert sim.tally.sum() > 0 or sim.over.any()


def test_rows_of_core_positions_are_taken() -> None:
    sim = BatchSim(1, seed=0)
    game = State.new(11)
    while game.outcome is None:
        state = sim.get_state()
        state.table[0] = row_of(game.position(), 5)
        sim.set_state(state)
        assert sim.legal_actions(0) == legal_ids(game)
        assert np.array_equal(sim.observe(0)[0], observe(game, 0))
        game = game.apply(game.legal_moves[len(game.legal_moves) // 2])


def test_the_table_is_read_only_and_live() -> None:
    sim = BatchSim(4, seed=0)
    table = sim.table
    with pytest.raises(ValueError, match="read-only"):
        table[0, C_TO_MOVE] = 7
    with pytest.raises(ValueError, match="read-only"):
        sim.clone().table[:] = 0
    sim.step(sim.random_actions())
    assert np.array_equal(table, sim.table)  # a view: it follows the games
    again = pickle.loads(pickle.dumps(sim))
    assert np.array_equal(again.table, sim.table) and not again.table.flags.writeable
    again.step(again.random_actions())
    sim.step(sim.random_actions())
    assert np.array_equal(again.table, sim.table)


# -- 3: what differs, in short ----------------------------------------------------------------
def test_set_state_says_what_differs_in_short() -> None:
    sim = BatchSim(4, seed=0)
    with pytest.raises(ValueError, match=r"^state holds 5 games, this simulator 4"):
        sim.set_state(BatchSim(5))
    with pytest.raises(ValueError, match=r"^state holds 5 games, this simulator 4"):
        sim.set_state(BatchSim.from_deals(deals(1, 5)))
    with pytest.raises(ValueError, match=r"BatchState \(from get_state\(\)\) or a BatchSim") as e:
        sim.set_state(tuple(sim.get_state()))  # type: ignore[arg-type]
    assert len(str(e.value)) < 160 and "(tuple)" in str(e.value)
    state = sim.get_state()
    with pytest.raises(ValueError, match=r"table must be an int64 matrix of shape \(4, 36\)"):
        sim.set_state(state._replace(table=state.table[:, :5]))
    with pytest.raises(ValueError, match=r"record must be an int64 array of shape \(4, 8, 3\)"):
        sim.set_state(state._replace(record=state.record.astype(np.float64)))


# -- 4: actions that are no action ids --------------------------------------------------------
@pytest.mark.parametrize("wrong", [NUM_ACTIONS, -1, 2**40, 2**63 - 1])
def test_an_action_out_of_range_is_named_so(wrong: int) -> None:
    sim = BatchSim(4, seed=0)
    actions = sim.random_actions()
    actions[2] = wrong
    with pytest.raises(ValueError, match=rf"^game 2: action {wrong} is out of range 0\.\.533$"):
        sim.step(actions)


def test_uint64_actions_are_not_wrapped() -> None:
    sim = BatchSim(4, seed=0)
    with pytest.raises(ValueError, match=rf"^game 0: action {2**63 + 25} is out of range"):
        sim.step(np.full(4, 2**63 + 25, np.uint64))
    sim.step(sim.random_actions().astype(np.uint64))  # in range: taken as they are


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("abc", r"'abc' \(str\)"),
        (None, r"None \(NoneType\)"),
        ([[1], [1, 2]], r"\[\[1\], \[1, 2\]\] \(list\)"),
    ],
)
def test_actions_of_no_array_say_what_is_expected(given: Any, shown: str) -> None:
    expected = r"^actions must be an array of whole numbers \(action ids 0\.\.533\) of shape \(4,\)"
    with pytest.raises(ValueError, match=rf"{expected}, got {shown}$"):
        BatchSim(4).step(given)
    with pytest.raises(ValueError, match=rf"{expected}, got a float64 array of shape \(4,\)$"):
        BatchSim(4).step(np.zeros(4))


def test_the_vector_env_says_the_same() -> None:
    envs = HanamikojiVectorEnv(4, opponent="random")
    _obs, infos = envs.reset(seed=0)
    actions = infos["action_mask"].argmax(axis=1)
    actions[1] = NUM_ACTIONS
    with pytest.raises(ValueError, match=r"^game 1: action 534 is out of range 0\.\.533$"):
        envs.step(actions)
    with pytest.raises(ValueError, match=r"array of whole numbers .* shape \(4,\), got 'abc'"):
        envs.step("abc")


def test_an_unknown_column_lists_the_names() -> None:
    with pytest.raises(
        ValueError, match=r"^column must be one of hand, played, .*, rng, got 'nope'"
    ):
        BatchSim(2).column("nope")


# -- 5: normalise and scale -------------------------------------------------------------------
@pytest.mark.parametrize("limit", [0, -3, 2.5, True, "3"])
def test_scale_and_normalise_refuse_a_bad_round_limit(limit: Any) -> None:
    with pytest.raises(ValueError, match="max_rounds must be a positive whole number or None"):
        scale(limit)
    with pytest.raises(ValueError, match="max_rounds must be a positive whole number or None"):
        normalise(np.zeros(OBS_SIZE, dtype=np.float32), limit)


def played(max_rounds: int | None) -> npt.NDArray[np.float32]:
    sim = BatchSim(256, seed=5, max_rounds=max_rounds)
    sim.random_steps(60)  # into later rounds
    return np.concatenate([sim.observe(0), sim.observe(1)])


def test_normalise_refuses_another_round_limit_and_is_right_with_its_own() -> None:
    endless = played(None)
    with pytest.raises(ValueError, match=r"made under no round limit: pass max_rounds=None"):
        normalise(endless)  # the default, 3, is not theirs: it gave round 1.33, rounds_left -0.5
    unit = normalise(endless, None)
    rnd, left = unit[:, 94], unit[:, 95]
    assert (rnd > 0).all() and (rnd <= 1).all() and (left == -1).all()
    five = played(5)
    with pytest.raises(ValueError, match=r"made under max_rounds=5: pass that"):
        normalise(five)
    with pytest.raises(ValueError, match=r"made under max_rounds=5"):
        normalise(five, None)
    unit = normalise(five, 5)
    assert (unit >= 0).all() and (unit <= 1).all()
    assert np.allclose(unit * scale(5), five)
    fresh = normalise(BatchSim(2, max_rounds=5).observe(0), 5)
    with pytest.raises(ValueError, match="is it normalised already"):
        normalise(fresh, 5)
    # One observation, a core game's, and zeros (no observation) pass as before.
    game = State.new(3, rules=Rules(max_rounds=2))
    assert normalise(observe(game, 1), 2).max() <= 1
    assert not normalise(np.zeros((2, OBS_SIZE), dtype=np.float32)).any()
