"""The vector env takes ``reset(options={"seat": ...})`` as the Gymnasium env does (the seat of
every game that reset starts) and refuses other options; it ignored ``options`` altogether."""

from __future__ import annotations

import re
from typing import Any

import gymnasium
import numpy as np
import pytest

import hanamikoji.env.gym  # noqa: F401 (registers the ids)
from hanamikoji.env.gym import ENV_ID
from hanamikoji.env.vector import HanamikojiVectorEnv


@pytest.mark.parametrize("seat", [1, np.int64(1)])
def test_a_seat_option_sets_the_seat_of_every_game_of_that_reset(seat: Any) -> None:
    envs = HanamikojiVectorEnv(8, opponent="greedy", seat=0)
    observations, infos = envs.reset(seed=5, options={"seat": seat})
    assert infos["seat"].tolist() == [1] * 8
    twin = HanamikojiVectorEnv(8, opponent="greedy", seat=1)
    expected, twin_infos = twin.reset(seed=5)
    assert np.array_equal(observations, expected)  # the same games, seen from seat 1
    assert np.array_equal(infos["action_mask"], twin_infos["action_mask"])
    # The next reset without options goes back to the env's seat.
    assert envs.reset(seed=5)[1]["seat"].tolist() == [0] * 8


def test_a_random_seat_option_draws_a_seat_for_each_game() -> None:
    envs = HanamikojiVectorEnv(64, opponent="random", seat=1)
    _, infos = envs.reset(seed=1, options={"seat": "random"})
    assert set(infos["seat"].tolist()) == {0, 1}
    _, again = HanamikojiVectorEnv(64, opponent="random", seat=0).reset(
        seed=1, options={"seat": "random"}
    )
    assert np.array_equal(infos["seat"], again["seat"])  # seeded: the same draw


def test_games_started_after_one_ends_take_the_envs_seat_again() -> None:
    # As in a SyncVectorEnv of the Gymnasium env, whose autoreset passes no options.
    envs = HanamikojiVectorEnv(4, opponent="random", seat=0)
    _, infos = envs.reset(seed=3, options={"seat": 1})
    restarted = np.zeros(4, dtype=np.bool_)
    ended = np.zeros(4, dtype=np.bool_)
    for _ in range(10_000):
        _, _, terminated, _, infos = envs.step(infos["action_mask"].argmax(axis=1))
        restarted |= ended  # a game that ended last step started afresh in this one
        seats = infos["seat"]
        assert (seats[restarted] == 0).all() and (seats[~restarted] == 1).all()
        ended = terminated
        if restarted.all():
            break
    assert restarted.any()


def test_make_vec_passes_the_seat_option_on() -> None:
    envs = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point")
    assert envs.reset(seed=0, options={"seat": 1})[1]["seat"].tolist() == [1, 1, 1]


@pytest.mark.parametrize(
    ("options", "message"),
    [({"bogus": 1}, r"^unknown reset option 'bogus'; the options: seat$"),
     ({"seat": 1, "opponent": "greedy"}, r"^unknown reset option 'opponent'; the options: seat$"),
     ({"reset_mask": np.ones(4, dtype=np.bool_)},
      r"^unknown reset option 'reset_mask'; the options: seat \(reset_mask, a partial reset, is "
      r"not taken: reset\(\) starts every game"),
     ("seat", r"^options must be a dict \(keys: seat\) or None, got 'seat'$"),
     (5, r"^options must be a dict \(keys: seat\) or None, got 5$"),
     ({"seat": True}, r"^options\['seat'\] must be 0, 1 or 'random', got True$"),
     ({"seat": 2}, r"^options\['seat'\] must be 0, 1 or 'random', got 2$"),
     ({"seat": 1.0}, r"^options\['seat'\] must be 0, 1 or 'random', got 1.0$")],
)  # fmt: skip
def test_options_it_does_not_take_are_refused_changing_nothing(options: Any, message: str) -> None:
    envs = HanamikojiVectorEnv(4, opponent="random")
    envs.reset(seed=2)
    table, seats = envs.sim.table.copy(), envs.seats.copy()
    with pytest.raises(ValueError, match=message):
        envs.reset(seed=9, options=options)
    assert np.array_equal(envs.sim.table, table) and np.array_equal(envs.seats, seats)


@pytest.mark.parametrize("seat", [1.0, np.float64(0.0)])
def test_a_float_seat_is_refused_as_the_gymnasium_env_refuses_it(seat: Any) -> None:
    with pytest.raises(
        ValueError, match=rf"^seat must be 0, 1 or 'random', got {re.escape(repr(seat))}$"
    ):
        HanamikojiVectorEnv(2, seat=seat)
