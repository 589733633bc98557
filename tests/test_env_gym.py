"""The Gymnasium environment: one seat against a built-in agent."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "gymnasium", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)

import random
import subprocess
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import hanamikoji.env.gym
from hanamikoji.env.actions import MOVES, NUM_ACTIONS
from hanamikoji.env.gym import ENV_ID, ENV_ID_HISTORY, HanamikojiEnv
from hanamikoji.env.observation import HISTORY_SIZE, OBS_SIZE, observe
from hanamikoji.moves import Move
from hanamikoji.view import View


def test_registered_and_passes_check_env() -> None:
    assert hanamikoji.env.gym.ENV_ID in gymnasium.registry
    env = gymnasium.make(ENV_ID)
    assert isinstance(env.unwrapped, HanamikojiEnv)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(
        HanamikojiEnv(opponent="random", seat="random", max_rounds=None), skip_render_check=True
    )


def test_check_env_with_rendering_gives_no_warning() -> None:
    """It warned "No render fps was declared" for both render modes."""
    for mode in ("ansi", "human"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(gymnasium.make(ENV_ID, opponent="random", render_mode=mode).unwrapped)
        assert not [str(w.message) for w in caught if "render" in str(w.message)]
    assert HanamikojiEnv.metadata["render_fps"] == 4


def test_making_v0_does_not_say_it_is_out_of_date() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # pytest puts its own filters first for each test; put back what importing the module did.
        hanamikoji.env.gym._quiet_v0_out_of_date()
        env = gymnasium.make(ENV_ID, opponent="random")
        _obs, info = env.reset(seed=0)
        env.step(info["legal"][0])
        vec = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point")
        assert vec.reset(seed=0)[0].shape == (2, OBS_SIZE)
        history = gymnasium.make(ENV_ID_HISTORY)
        assert history.reset(seed=0)[0].shape == (OBS_SIZE + HISTORY_SIZE,)
        # Only v0's warning is silenced: the same warning for another id still comes through.
        gymnasium.logger.deprecation("The environment other/Game-v0 is out of date. Upgrade.")
    out_of_date = [str(w.message) for w in caught if "out of date" in str(w.message)]
    assert len(out_of_date) == 1 and "other/Game-v0" in out_of_date[0], out_of_date


def test_importing_the_module_silences_it_in_a_fresh_interpreter() -> None:
    code = (
        "import gymnasium, hanamikoji.env.gym\n"
        f"env = gymnasium.make({ENV_ID!r})\n"
        "_, info = env.reset(seed=0)\n"
        "env.step(info['legal'][0])\n"
        f"gymnasium.make_vec({ENV_ID!r}, num_envs=2, vectorization_mode='vector_entry_point')\n"
        "print('made')\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "made", done.stderr
    assert "out of date" not in done.stderr


def run(env: HanamikojiEnv, seed: int, rng: random.Random) -> tuple[float, int]:
    """One episode of random legal moves; the return and the number of steps."""
    _, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        action = rng.choice(info["legal"])
        _obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        total += reward
        steps += 1
    return total, steps


@pytest.mark.parametrize("seat", [0, 1])
def test_episodes_end_with_the_outcome(seat: int) -> None:
    env = HanamikojiEnv(opponent="random", seat=seat)
    results = []
    for seed in range(20):
        total, _ = run(env, seed, random.Random(seed))
        outcome = env.game.outcome
        assert outcome is not None
        expected = 0.0 if outcome.winner is None else (1.0 if outcome.winner == seat else -1.0)
        assert total == expected
        results.append(total)
    assert set(results) >= {1.0, -1.0}


def test_each_step_is_the_learners_decision() -> None:
    env = HanamikojiEnv(opponent="greedy", seat=1)
    obs, info = env.reset(seed=4)
    rng = random.Random(0)
    done = False
    while not done:
        state = env.game
        assert state.to_move == 1
        assert np.array_equal(obs, observe(state, 1))
        assert [MOVES[i] for i in info["legal"]] == list(state.legal_moves)
        assert np.flatnonzero(info["action_mask"]).tolist() == info["legal"]
        obs, _, done, _, info = env.step(rng.choice(info["legal"]))
    assert info["outcome"]["winner"] in (0, 1, None)
    assert not info["action_mask"].any()


class Spy:
    """An opponent that records what it was shown."""

    name = "spy"

    def __init__(self) -> None:
        self.views: list[View] = []

    def choose(
        self, view: View, legal: Sequence[Move], rng: random.Random, clock_ms: int | None = None
    ) -> Move:
        self.views.append(view)
        return legal[0]


def test_the_opponent_sees_only_its_view() -> None:
    spy = Spy()
    env = HanamikojiEnv(opponent=spy, seat=0)
    run(env, 2, random.Random(2))
    assert spy.views and all(v.seat == 1 for v in spy.views)


def test_seeds_reproduce_episodes() -> None:
    a = HanamikojiEnv(opponent="greedy", seat="random")
    b = HanamikojiEnv(opponent="greedy", seat="random")
    assert run(a, 9, random.Random(1)) == run(b, 9, random.Random(1))
    assert a.game.history == b.game.history and a.seat == b.seat


def test_illegal_actions_lose_or_raise() -> None:
    env = HanamikojiEnv(opponent="random")
    _, info = env.reset(seed=1)
    illegal = next(i for i in range(NUM_ACTIONS) if i not in info["legal"])
    _obs, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal"]) == (-1.0, True, str(MOVES[illegal]))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = HanamikojiEnv(opponent="random", illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(ValueError, match="illegal move"):
        strict.step(illegal)
    for bad in (-1, NUM_ACTIONS, 2.5, "x", None):
        with pytest.raises(ValueError, match="move number"):
            strict.step(bad)


@pytest.mark.parametrize("illegal", ["lose", "raise"])
def test_bool_and_float_actions_are_refused_not_taken_for_1(illegal: str) -> None:
    env = HanamikojiEnv(opponent="random", illegal=illegal)
    _, info = env.reset(seed=3)
    assert 1 in info["legal"]  # so True would have been played as move 1
    before = env.game
    for bad in (True, False, np.bool_(True), np.array(True), 1.0, np.float32(1), np.array(1.0)):
        with pytest.raises(ValueError, match=rf"move number 0\.\.{NUM_ACTIONS - 1} .*got "):
            env.step(bad)
        assert env.game is before  # nothing was played
    for good in (1, np.int64(1), np.array(1), np.array([1])):
        env.reset(seed=3)
        _obs, _reward, _done, _, info = env.step(good)
        assert "illegal" not in info and env.game.history[0].move == MOVES[1]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponent": "nobody"}, "opponent"),
        ({"opponent": 42}, "opponent"),
        ({"seat": 2}, "seat"),
        ({"seat": True}, "seat must be 0, 1 or 'random'"),
        ({"max_rounds": -1}, "max_rounds"),
        ({"illegal": "ignore"}, "illegal"),
        ({"round_reward": "big"}, "round_reward"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"history": "yes"}, "history must be True or False"),
        ({"normalise": 2}, "normalise must be True or False"),
        ({"opponent": "cmd:ls"}, "an engine cannot be the opponent"),
    ],
)
def test_bad_options_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HanamikojiEnv(**kwargs)  # type: ignore[arg-type]


def test_numpy_scalars_are_taken_for_the_round_limit_and_the_shaping_weight() -> None:
    """Sweeps built with np.arange or np.linspace pass numpy scalars; they were refused."""
    env = HanamikojiEnv(opponent="random", max_rounds=np.int64(2), round_reward=np.float32(0.5))  # type: ignore[arg-type]  # (numpy scalars: taken at run time)
    assert env.rules.max_rounds == 2 and type(env.rules.max_rounds) is int
    assert env.round_reward == 0.5 and type(env.round_reward) is float
    env.reset(seed=1)
    assert env.game.rules.max_rounds == 2


def test_a_seed_is_a_whole_number_numpy_s_too() -> None:
    env = HanamikojiEnv(opponent="random")
    first, _ = env.reset(seed=np.int64(5))
    again, _ = env.reset(seed=5)
    assert np.array_equal(first, again)
    for bad in (-1, 1.5, "abc", True):
        with pytest.raises(ValueError, match="seed must be None or a whole number >= 0"):
            env.reset(seed=bad)  # type: ignore[arg-type]


def test_levels_and_options_as_opponents() -> None:
    env = gymnasium.make(ENV_ID, opponent="ismcts:iterations=20", max_rounds=1)
    obs, _info = env.reset(seed=0)
    assert obs.shape == (OBS_SIZE,)
    env2 = HanamikojiEnv(opponent="level:beginner", render_mode="ansi")
    env2.reset(seed=0)
    text = env2.render()
    assert text is not None and "markers" in text


def test_render_and_game_are_the_referees_view() -> None:
    # Documented (module docstring, docs/research.md): render() and unwrapped.game show hidden
    # cards, for debugging; the learner's observation is the only input meant for the agent.
    env = gymnasium.make(ENV_ID, opponent="random", seat=0, render_mode="ansi")
    obs, _info = env.reset(seed=0)
    game = env.unwrapped.game  # type: ignore[attr-defined]
    text = env.render()
    assert isinstance(text, str) and f"seat 1   hand {game.hand(1)}" in text
    assert np.array_equal(obs, observe(game, 0))


def test_human_render_prints_the_table_at_reset_and_each_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Gymnasium's convention: "human" renders in reset as in step (it printed after steps only).
    env = HanamikojiEnv(opponent="random", render_mode="human")
    _, info = env.reset(seed=2)
    assert capsys.readouterr().out.count("markers") == 1
    env.step(info["legal"][0])
    out = capsys.readouterr().out
    assert out.count("markers") == 1 and "None" not in out


# -- masks where libraries look for them, layouts, normalisation -------------------------------


def get_action_masks(env: gymnasium.Env[Any, Any]) -> np.ndarray:
    """What sb3-contrib's ``MaskablePPO`` does for a single env
    (``sb3_contrib.common.maskable.utils.get_action_masks``): call ``action_masks`` through the
    wrappers."""
    return np.asarray(env.get_wrapper_attr("action_masks")())


def test_action_masks_is_the_hook_maskable_ppo_calls() -> None:
    env = gymnasium.make(ENV_ID, opponent="random", seat="random")
    _obs, info = env.reset(seed=3)
    done = False
    while not done:
        masks = get_action_masks(env)
        assert masks.dtype == np.bool_ and masks.shape == (NUM_ACTIONS,)
        assert np.array_equal(masks, info["action_mask"].astype(bool))
        action = int(np.flatnonzero(masks)[-1])
        _obs, _reward, done, _truncated, info = env.step(action)
    assert not get_action_masks(env).any()


def test_the_history_layout_has_its_own_id_and_passes_check_env() -> None:
    from hanamikoji.env.observation import HISTORY_SIZE, observe_history

    env = gymnasium.make(hanamikoji.env.gym.ENV_ID_HISTORY, opponent="random")
    assert env.observation_space.shape == (OBS_SIZE + HISTORY_SIZE,)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=1)
    inner = env.unwrapped
    assert isinstance(inner, HanamikojiEnv)
    assert np.array_equal(obs, observe_history(inner.game, inner.seat))
    # The default id keeps the 98 floats.
    assert gymnasium.make(ENV_ID).observation_space.shape == (OBS_SIZE,)


@pytest.mark.parametrize("history", [False, True])
@pytest.mark.parametrize("limit", [3, None])
def test_normalised_observations_lie_in_their_box(history: bool, limit: int | None) -> None:
    env = HanamikojiEnv(opponent="random", history=history, normalise=True, max_rounds=limit)
    check_env(env, skip_render_check=True)
    box = env.observation_space
    assert isinstance(box, gymnasium.spaces.Box) and float(box.high.max()) <= 1.0
    rng = random.Random(2)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            assert box.contains(obs), obs
            obs, _r, done, _t, info = env.step(rng.choice(info["legal"]))
