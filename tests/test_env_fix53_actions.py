"""An action number outside 0..533 is refused as out of range in every state, a finished game's
too: the batch simulator and the vector env ignored it there (the action of a finished game is
ignored only when it is an action id)."""

from __future__ import annotations

import numpy as np
import pytest

from hanamikoji.env.batch import BatchSim
from hanamikoji.env.vector import HanamikojiVectorEnv


def _finished(auto_reset: bool) -> tuple[BatchSim, int]:
    """A simulator with game 0 or 1 just finished (the other maybe not), and that game."""
    sim = BatchSim(2, seed=3, auto_reset=auto_reset)
    for _ in range(10_000):
        if sim.over.any():
            return sim, int(np.flatnonzero(sim.over)[0])
        sim.step(sim.random_actions())
    raise AssertionError("no game ended")


@pytest.mark.parametrize("auto_reset", [True, False])
@pytest.mark.parametrize("wrong", [-1, 534, 600, 2**40])
def test_batch_refuses_an_out_of_range_action_of_a_finished_game(
    auto_reset: bool, wrong: int
) -> None:
    sim, g = _finished(auto_reset)
    before = sim.get_state()
    actions = sim.random_actions()
    actions[g] = wrong
    with pytest.raises(ValueError, match=rf"^game {g}: action {wrong} is out of range 0\.\.533$"):
        sim.step(actions)
    twin = BatchSim(2, seed=3, auto_reset=auto_reset)
    twin.set_state(before)
    assert np.array_equal(sim.table, twin.table)  # refused before anything changed
    actions[g] = 5  # any action id is ignored there, as before
    assert sim.step(actions).ignored[g]


def test_batch_refuses_a_large_unsigned_action_of_a_finished_game() -> None:
    sim, g = _finished(False)
    actions = sim.random_actions().astype(np.uint64)
    actions[g] = 2**64 - 1  # its int64 cast would be -1
    with pytest.raises(ValueError, match=rf"^game {g}: action {2**64 - 1} is out of range"):
        sim.step(actions)


def test_vector_env_refuses_an_out_of_range_action_of_a_finished_game() -> None:
    envs = HanamikojiVectorEnv(4, opponent="random")
    _, infos = envs.reset(seed=2)
    for _ in range(10_000):
        _, _, terminated, _, infos = envs.step(infos["action_mask"].argmax(axis=1))
        if terminated.any():
            break
    else:
        raise AssertionError("no game ended")
    g = int(np.flatnonzero(terminated)[0])
    actions = infos["action_mask"].argmax(axis=1)
    actions[g] = 534
    with pytest.raises(ValueError, match=rf"^game {g}: action 534 is out of range 0\.\.533$"):
        envs.step(actions)
    actions[g] = 7  # any action id is ignored there, as before
    envs.step(actions)
