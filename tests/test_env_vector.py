"""The Gymnasium VectorEnv on the batch simulator: make_vec, spaces, autoreset, determinism, and
the checks of ``gymnasium.utils.env_checker`` as far as they apply to a vector env."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "gymnasium", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)

from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

import hanamikoji.env.gym  # noqa: F401 (registers the ids)
from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.gym import ENV_ID
from hanamikoji.env.observation import OBS_SIZE
from hanamikoji.env.vector import HanamikojiVectorEnv


def make(n: int = 16, **kwargs: Any) -> Any:
    return gymnasium.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def first_legal(infos: dict[str, Any]) -> np.ndarray:
    return np.asarray(infos["action_mask"].argmax(axis=1))


def test_make_vec_builds_it_with_the_single_spaces() -> None:
    envs = make(8, opponent="random", seat="random")
    assert isinstance(envs.unwrapped, HanamikojiVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.single_observation_space.shape == (OBS_SIZE,)
    assert isinstance(envs.single_action_space, gymnasium.spaces.Discrete)
    assert int(envs.single_action_space.n) == NUM_ACTIONS
    assert envs.observation_space.shape == (8, OBS_SIZE)
    assert envs.action_space.shape == (8,)
    single = gymnasium.make(ENV_ID)
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space


def test_observations_and_actions_stay_in_their_spaces() -> None:
    envs = make(32, opponent="greedy", seat="random", round_reward=0.5)
    obs, infos = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(80):
        assert envs.observation_space.contains(obs)
        for o in obs:
            assert envs.single_observation_space.contains(o)
        mask = infos["action_mask"].astype(bool)
        assert mask.any(axis=1).all()
        noise = rng.random(mask.shape)
        actions = np.where(mask, noise, -1.0).argmax(axis=1)
        assert envs.action_space.contains(actions)
        obs, rewards, _terminated, truncated, infos = envs.step(actions)
        assert rewards.dtype == np.float64 and not truncated.any()


def test_reset_and_step_are_deterministic_for_a_seed() -> None:
    # env_checker's check_reset_seed_determinism and check_step_determinism, for all N games.
    a, b = make(16, seat="random"), make(16, seat="random")
    oa, ia = a.reset(seed=7)
    ob, ib = b.reset(seed=7)
    assert data_equivalence(oa, ob) and data_equivalence(ia, ib)
    for _ in range(60):
        ra = a.step(first_legal(ia))
        rb = b.step(first_legal(ib))
        assert data_equivalence(ra, rb, exact=True)
        ia, ib = ra[4], rb[4]
    oc, _ = a.reset(seed=8)
    assert not np.array_equal(oa, oc)


def test_returned_data_is_not_reused() -> None:
    # env_checker's check_returned_data_not_reused.
    envs = make(4)
    obs1, _ = envs.reset(seed=1)
    obs2, _ = envs.reset(seed=2)
    assert obs1 is not obs2 and not np.shares_memory(obs1, obs2)


def test_the_step_after_a_game_ends_starts_a_new_one_ignoring_its_action() -> None:
    envs = make(16, opponent="random", seat=1)
    obs, infos = envs.reset(seed=3)
    seen_end = False
    for _ in range(200):
        obs, rewards, terminated, _truncated, infos = envs.step(first_legal(infos))
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
        if terminated.any():
            g = int(np.flatnonzero(terminated)[0])
            # The finished game's mask is the placeholder: action 0, ignored next step.
            assert np.flatnonzero(infos["action_mask"][g]).tolist() == [0]
            assert obs[g, 91] == 1.0  # phase "over", seen from the learner's seat
            actions = first_legal(infos)
            actions[g] = 0
            obs, rewards, terminated, _truncated, infos = envs.step(actions)
            assert rewards[g] == 0.0 and not terminated[g]
            assert obs[g, 94] == 1.0 and obs[g, 92] == 1.0  # round 1, the learner to move
            seen_end = True
            break
    assert seen_end


def test_a_learner_in_seat_one_starts_after_the_opponents_move() -> None:
    envs = HanamikojiVectorEnv(8, opponent="greedy", seat=1)
    obs, infos = envs.reset(seed=5)
    assert (infos["seat"] == 1).all()
    assert (envs.sim.to_move == 1).all() and (obs[:, 92] == 1.0).all()


def test_rewards_against_greedy_and_random() -> None:
    scores = {}
    for opponent in ("random", "greedy"):
        envs = make(200, opponent=opponent, seat="random")
        _obs, infos = envs.reset(seed=11)
        total = np.zeros(200)
        finished = np.zeros(200, dtype=bool)
        while not finished.all():
            _obs, rewards, terminated, _t, infos = envs.step(first_legal(infos))
            total += np.where(finished, 0.0, rewards)
            finished |= terminated
        scores[opponent] = float((total + 1).mean() / 2)
    assert scores["greedy"] < scores["random"]


def test_action_masks_and_illegal_actions() -> None:
    envs = HanamikojiVectorEnv(4, opponent="random")
    _obs, infos = envs.reset(seed=2)
    masks = envs.action_masks()
    assert masks.dtype == np.bool_ and np.array_equal(masks, infos["action_mask"].astype(bool))
    actions = first_legal(infos)
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(ValueError, match=r"game 2: action \d+ .* is illegal .* legal actions"):
        envs.step(actions)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponent": "level:hard"}, "opponent must be one of random, greedy"),
        ({"seat": 2}, "seat must be 0, 1 or 'random'"),
        ({"illegal": "lose"}, "raises on an illegal action"),
        ({"render_mode": "ansi"}, "does not render"),
        ({"round_reward": float("inf")}, "round_reward must be finite"),
        ({"seat": True}, "seat must be 0, 1 or 'random'"),
        # bool("false") is True: the flags were once read that way, turning the history on.
        ({"history": "false"}, "history must be True or False"),
        ({"history": "yes"}, "history must be True or False"),
        ({"normalise": 1}, "normalise must be True or False"),
        ({"max_rounds": 2**70}, r"max_rounds must be at most 4611686018427387904 "),
    ],
)
def test_bad_options_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HanamikojiVectorEnv(2, **kwargs)


def test_numpy_scalars_are_taken_for_the_round_limit_and_the_shaping_weight() -> None:
    # (numpy scalars, as RL configurations carry them: typed Any, taken at run time)
    numbers: dict[str, Any] = {
        "max_rounds": np.int64(2),
        "round_reward": np.float32(0.5),
        "history": np.bool_(True),
    }
    envs = HanamikojiVectorEnv(2, **numbers)
    assert envs.rules.max_rounds == 2 and type(envs.rules.max_rounds) is int
    assert envs.round_reward == 0.5 and envs.sim.max_rounds == 2 and envs.history is True


def test_a_step_before_the_first_reset_is_refused() -> None:
    """It used to play: with seat=1, the learner's action was played for seat 0, whose turn it
    was before any reset had let the opponent move."""
    envs = HanamikojiVectorEnv(4, seat=1)
    before = envs.sim.table.copy()
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        envs.step(envs.action_masks().argmax(axis=1))
    assert np.array_equal(envs.sim.table, before)
    _obs, infos = envs.reset(seed=1)
    envs.step(first_legal(infos))


@pytest.mark.parametrize("n", [0, -2, True, 2.5, "3"])
def test_bad_num_envs_is_refused_by_its_own_name(n: Any) -> None:
    with pytest.raises(ValueError, match=r"^num_envs must be a whole number >= 1, got "):
        make(n)
    with pytest.raises(ValueError, match=r"^num_envs must be a whole number >= 1, got "):
        HanamikojiVectorEnv(n)


@pytest.mark.parametrize("seed", [-1, True, 2.5, "7", [1, 2]])
def test_bad_reset_seeds_are_refused_by_name(seed: Any) -> None:
    envs = make(2)
    with pytest.raises(ValueError, match=r"^seed must be None or one whole number >= 0"):
        envs.reset(seed=seed)


def test_a_numpy_integer_seed_is_the_same_seed() -> None:
    a, _ = make(4).reset(seed=np.int64(5))
    b, _ = make(4).reset(seed=5)
    assert np.array_equal(a, b)


def test_bool_actions_are_refused() -> None:
    envs = make(2)
    envs.reset(seed=1)
    with pytest.raises(ValueError, match="actions must be an array of whole numbers"):
        envs.step(np.array([True, False]))
    with pytest.raises(ValueError, match="actions must be an array of whole numbers"):
        envs.step([True, True])


def test_docstring_examples_run() -> None:
    import doctest

    from hanamikoji.env import hanamikoji_v0, vector

    for module in (vector, hanamikoji_v0):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("limit", [3, None])
def test_the_history_and_normalised_layouts(limit: int | None) -> None:
    from hanamikoji.env.gym import ENV_ID_HISTORY
    from hanamikoji.env.observation import HISTORY_SIZE

    envs = gymnasium.make_vec(
        ENV_ID_HISTORY, num_envs=16, vectorization_mode="vector_entry_point", max_rounds=limit
    )
    unit = make(16, history=True, normalise=True, max_rounds=limit)
    assert envs.single_observation_space.shape == (OBS_SIZE + HISTORY_SIZE,)
    assert unit.single_observation_space.shape == (OBS_SIZE + HISTORY_SIZE,)
    single = gymnasium.make(ENV_ID_HISTORY, max_rounds=limit)
    assert envs.single_observation_space == single.observation_space
    obs, infos = envs.reset(seed=4)
    scaled, _ = unit.reset(seed=4)
    for _ in range(40):
        assert envs.observation_space.contains(obs) and unit.observation_space.contains(scaled)
        inner = envs.unwrapped
        assert isinstance(inner, HanamikojiVectorEnv)
        assert np.array_equal(obs[:, :OBS_SIZE], inner.sim.observe(inner.seats))
        assert float(scaled.max()) <= 1.0
        actions = first_legal(infos)
        obs, _r, _t, _tr, infos = envs.step(actions)
        scaled, *_ = unit.step(actions)
