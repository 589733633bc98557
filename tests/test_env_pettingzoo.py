"""The PettingZoo AEC environment."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "pettingzoo", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)
pytest.importorskip(
    "gymnasium", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)

import copy
import pickle
import random
import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import BaseWrapper

from hanamikoji.env.actions import MOVES, NUM_ACTIONS, action_id, legal_ids
from hanamikoji.env.observation import OBS_SIZE, field_slices, observe
from hanamikoji.env.pettingzoo import AGENTS, env, raw_env
from hanamikoji.state import Rules, State

AT = field_slices()


def test_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        # PettingZoo warns about every dict observation (its classic games have the same).
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(), num_cycles=1000, verbose_progress=False)
        api_test(raw_env(max_rounds=1, round_reward=1.0), num_cycles=300, verbose_progress=False)


def test_pettingzoo_seed_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        seed_test(env, num_cycles=300)


def play(e: raw_env, seed: int, pick: random.Random) -> tuple[dict[str, float], int]:
    """Play a whole game with random legal moves; the rewards summed per agent, the steps."""
    e.reset(seed=seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(pick.choice(legal)))
        steps += 1
    return totals, steps


def test_a_game_matches_the_engine_move_for_move() -> None:
    e = raw_env()
    e.reset(seed=7)
    shadow = State.new(random.Random(7))
    pick = random.Random(1)
    while not shadow.is_over:
        agent = e.agent_selection
        seat = AGENTS.index(agent)
        assert shadow.to_move == seat
        obs = e.observe(agent)
        assert np.array_equal(obs["observation"], observe(shadow, seat))
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal_ids(shadow)
        assert not e.observe(AGENTS[1 - seat])["action_mask"].any()
        move = pick.choice(shadow.legal_moves)
        e.step(action_id(move))
        shadow = shadow.apply(move)
    assert e.game.outcome == shadow.outcome
    assert all(e.terminations.values())


def test_rewards_are_plus_minus_one_at_the_end() -> None:
    e = raw_env()
    seen = set()
    for seed in range(30):
        totals, _ = play(e, seed, random.Random(seed))
        outcome = e.game.outcome
        assert outcome is not None
        if outcome.winner is None:
            assert totals == {"player_0": 0.0, "player_1": 0.0}
        else:
            assert totals[AGENTS[outcome.winner]] == 1.0
            assert totals[AGENTS[1 - outcome.winner]] == -1.0
        seen.add(outcome.winner)
    assert {0, 1} <= seen


def test_round_reward_shapes_each_scoring() -> None:
    e = raw_env(max_rounds=3, round_reward=0.5)
    for seed in range(10):
        totals, _ = play(e, seed, random.Random(seed))
        outcome = e.game.outcome
        assert outcome is not None
        final = 0.0 if outcome.winner is None else (1.0 if outcome.winner == 0 else -1.0)
        c0, c1 = outcome.charm
        assert totals["player_0"] == pytest.approx(final + 0.5 * (c0 - c1) / 21)
        assert totals["player_1"] == pytest.approx(-totals["player_0"])


def test_the_same_seed_gives_the_same_game() -> None:
    a, b = raw_env(), raw_env()
    ta, na = play(a, 5, random.Random(2))
    tb, nb = play(b, 5, random.Random(2))
    assert (ta, na) == (tb, nb)
    assert a.game.history == b.game.history


def test_raw_env_refuses_illegal_and_malformed_actions() -> None:
    e = raw_env()
    e.reset(seed=1)
    agent = e.agent_selection
    illegal = next(i for i in range(NUM_ACTIONS) if i not in legal_ids(e.game))
    with pytest.raises(ValueError, match=f"illegal move {MOVES[illegal]}"):
        e.step(illegal)
    for bad in (-1, NUM_ACTIONS, 2.5, "S1", None):
        with pytest.raises(ValueError, match="player_0"):
            e.step(bad)  # type: ignore[arg-type]
    assert e.agent_selection == agent and e.game.history == ()


def test_wrapped_env_makes_an_illegal_move_lose() -> None:
    e = env()
    e.reset(seed=1)
    illegal = next(i for i in range(NUM_ACTIONS) if i not in legal_ids(e.unwrapped.game))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        e.step(illegal)
    assert e.rewards["player_0"] == -1
    assert all(e.terminations.values())


def test_wrapped_env_refuses_what_is_no_action_and_a_finished_game_in_its_own_words() -> None:
    """The wrappers said numpy's "truth value of an array is ambiguous" for True, a bare
    AssertionError for 600, a KeyError from last() after the game and only a warning from
    step(): env() says what raw_env says."""
    e = env()
    e.reset(seed=1)
    for bad in (True, -1, NUM_ACTIONS, 2.0, "3", np.array([3]), None):
        with pytest.raises(ValueError, match=r"player_0: (an action is a move|action must be 0)"):
            e.step(bad)
    assert e.unwrapped.game.history == ()
    for agent in e.agent_iter():
        _, _, done, cut, _ = e.last()
        e.step(None if done or cut else int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
    for call in (lambda: e.step(0), lambda: e.step(None), e.last):
        with pytest.raises(ValueError, match="the game is over and every agent is done"):
            call()
    e.reset(seed=2)
    assert e.last()[1:] == (0.0, False, False, {})


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_goes_on_with_the_same_game(make: object, how: str) -> None:
    """A copy (or an unpickled environment) of a game in progress dealt a new game, which
    could be played on without a reset: it goes on with the same game now, and apart."""
    e = make()  # type: ignore[operator]
    e.reset(seed=3)
    for _ in range(5):
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    c = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    assert c.unwrapped.game == e.unwrapped.game and c.agent_selection == e.agent_selection

    def finish(x: raw_env) -> list[tuple[str, int | None, float]]:
        steps = []
        for agent in x.agent_iter():
            obs, reward, done, cut, _ = x.last()
            action = None if done or cut else int(np.flatnonzero(obs["action_mask"])[-1])
            steps.append((agent, action, reward))
            x.step(action)
        return steps

    assert finish(c) == finish(e)
    assert c.unwrapped.game is not e.unwrapped.game


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        raw_env(max_rounds=0)
    with pytest.raises(ValueError, match="round_reward"):
        raw_env(round_reward=float("nan"))
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="history must be True or False"):
        raw_env(history="yes")  # type: ignore[arg-type]


def test_numpy_scalars_are_taken_for_the_round_limit_and_the_shaping_weight() -> None:
    e = raw_env(max_rounds=np.int64(2), round_reward=np.float32(0.5))  # type: ignore[arg-type]  # (numpy scalars: taken at run time)
    assert e.rules.max_rounds == 2 and type(e.rules.max_rounds) is int and e.round_reward == 0.5
    e.reset(seed=1)
    assert e.game.rules.max_rounds == 2


def test_seeds_are_whole_numbers_numpy_s_too_and_a_finished_game_says_so() -> None:
    e = raw_env()
    e.reset(seed=np.int64(5))
    first = e.observe("player_0")["observation"]
    e.reset(seed=5)
    assert np.array_equal(first, e.observe("player_0")["observation"])
    for bad in (-1, 1.5, "abc", True):
        with pytest.raises(ValueError, match="seed must be None or a whole number >= 0"):
            e.reset(seed=bad)  # type: ignore[arg-type]
    e.reset(seed=2)
    for agent in e.agent_iter():  # to the end, each agent stepping out with None
        _, _, done, cut, _ = e.last()
        e.step(None if done or cut else int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))
    assert e.agents == []
    for call in (lambda: e.step(0), lambda: e.step(None), e.last):
        with pytest.raises(ValueError, match="the game is over and every agent is done"):
            call()


def test_spaces_and_render() -> None:
    e = raw_env(max_rounds=None, render_mode="ansi")
    e.reset(seed=3)
    space = e.observation_space("player_1")
    assert isinstance(space, spaces.Dict) and space["observation"].shape == (OBS_SIZE,)
    actions = e.action_space("player_0")
    assert isinstance(actions, spaces.Discrete) and actions.n == NUM_ACTIONS
    text = e.render()
    assert text is not None and "round 1" in text and "seat 0 to act" in text
    assert e.game.rules == Rules(max_rounds=None)
    assert e.observe("player_0")["observation"][AT["rounds_left"]][0] == -1


def test_human_render_prints_the_table_once_a_step(capsys: pytest.CaptureFixture[str]) -> None:
    e = raw_env(render_mode="human")
    e.reset(seed=2)
    e.step(legal_ids(e.game)[0])
    out = capsys.readouterr().out
    assert out.count("markers") == 1 and "None" not in out


# -- what Stable-Baselines3 and versioned imports need ------------------------------------------


class _ZeroDimActions(BaseWrapper):  # type: ignore[misc]
    """Passes every action on as a 0-d integer array, as SB3's ``predict`` returns one."""

    def step(self, action: object) -> None:
        super().step(None if action is None else np.asarray(action, dtype=np.int64))


def test_api_test_with_zero_dim_array_actions() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(_ZeroDimActions(env()), num_cycles=500, verbose_progress=False)
        api_test(_ZeroDimActions(raw_env(max_rounds=1)), num_cycles=200, verbose_progress=False)


def test_zero_dim_arrays_play_like_ints() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=4)
    b.reset(seed=4)
    for agent in a.agent_iter():
        _obs, _r, term, trunc, _info = a.last()
        if term or trunc:
            break
        legal = np.flatnonzero(a.observe(agent)["action_mask"])
        choice = int(legal[len(legal) // 2])
        a.step(np.array(choice))
        b.step(choice)
        assert a.game == b.game
    with pytest.raises(ValueError, match="0-d integer array"):
        b.reset(seed=1)
        b.step(np.array(2.0))
    with pytest.raises(ValueError, match="0-d integer array"):
        b.step(np.array([2]))


def test_versioned_module() -> None:
    from hanamikoji.env import hanamikoji_v0

    e = hanamikoji_v0.env()
    assert e.metadata["name"] == "hanamikoji_v0"
    assert isinstance(e.unwrapped, raw_env)
    assert hanamikoji_v0.raw_env is raw_env and hanamikoji_v0.AGENTS == AGENTS


def test_history_and_normalised_observations() -> None:
    from hanamikoji.env.observation import HISTORY_SIZE, observe_history, scale

    e = raw_env(history=True, normalise=True)
    e.reset(seed=2)
    space = e.observation_space("player_0")["observation"]  # type: ignore[index]
    assert space.shape == (OBS_SIZE + HISTORY_SIZE,)
    for agent in e.agent_iter():
        obs, _r, term, trunc, _info = e.last()
        assert space.contains(obs["observation"])
        seat = AGENTS.index(agent)
        raw = observe_history(e.game, seat)
        assert np.allclose(obs["observation"][:OBS_SIZE] * scale(3), raw[:OBS_SIZE])
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
