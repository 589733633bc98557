"""A learned policy as an Agent: it plays legal moves from the VIEW, wherever an agent goes."""

from __future__ import annotations

import doctest
import io
import json
import random
import warnings

import numpy as np
import numpy.typing as npt
import pytest

from hanamikoji.ai.base import Agent
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.env import policy as policy_module
from hanamikoji.env.actions import NUM_ACTIONS, action_id
from hanamikoji.env.observation import OBS_SIZE, observe
from hanamikoji.env.policy import PolicyAgent
from hanamikoji.moves import Move
from hanamikoji.state import Rules, State


def linear(seed: int) -> tuple[npt.NDArray[np.float64], PolicyAgent]:
    w = np.random.default_rng(seed).standard_normal((OBS_SIZE, NUM_ACTIONS))
    return w, PolicyAgent(lambda obs: obs @ w, name=f"linear{seed}")


def play(a: Agent, b: Agent, seed: int, rules: Rules | None = None) -> State:
    rng = random.Random(seed)
    state = State.new(rng, rules=rules)
    for seat, agent in enumerate((a, b)):
        start = getattr(agent, "start", None)
        if start is not None:
            start(seat, state.rules)
    while state.to_move is not None:
        agent = (a, b)[state.to_move]
        move = agent.choose(state.view(state.to_move), state.legal_moves, rng, None)
        assert move in state.legal_moves
        state = state.apply(move)
    return state


def test_docstring_example_runs() -> None:
    assert doctest.testmod(policy_module).failed == 0


def test_it_is_an_agent_and_plays_the_best_legal_move() -> None:
    w, agent = linear(1)
    assert isinstance(agent, Agent)
    rng = random.Random(0)
    state = State.new(3)
    for _ in range(30):
        if state.to_move is None:
            break
        seat = state.to_move
        move = agent.choose(state.view(seat), state.legal_moves, rng)
        scores = observe(state, seat) @ w
        best = max(state.legal_moves, key=lambda m: scores[action_id(m)])
        assert move == best
        state = state.apply(move)


def test_an_illegal_favourite_is_never_played() -> None:
    # The policy loves move 0 (S1) above all; it is played only where legal.
    agent = PolicyAgent(lambda obs: np.where(np.arange(NUM_ACTIONS) == 0, 1e9, 0.0))
    final = play(agent, GreedyAgent(), seed=4)
    assert final.outcome is not None


def test_sampling_is_seeded_by_the_callers_rng() -> None:
    _, agent = linear(2)
    agent.sample = True
    state = State.new(5)
    picks = [agent.choose(state.view(0), state.legal_moves, random.Random(s)) for s in range(40)]
    again = [agent.choose(state.view(0), state.legal_moves, random.Random(s)) for s in range(40)]
    assert picks == again and len(set(picks)) > 1


def test_it_plays_whole_games_against_greedy_and_in_the_gym_env() -> None:
    _, agent = linear(3)
    for seed in range(3):
        assert play(agent, GreedyAgent(), seed, Rules(max_rounds=None)).outcome is not None
    gym = pytest.importorskip("gymnasium")
    import hanamikoji.env.gym  # noqa: F401

    env = gym.make("hanamikoji/Hanamikoji-v0", opponent=agent)
    _obs, info = env.reset(seed=1)
    done = False
    while not done:
        _obs, _r, done, _t, info = env.step(info["legal"][0])


def test_it_serves_as_an_engine() -> None:
    from hanamikoji.engine import serve

    _, agent = linear(4)
    state = State.new(6)
    view = state.view(0).to_json()
    lines = [
        {"type": "hello", "protocol": "hanamikoji-engine/1"},
        {"type": "game", "seat": 0, "rules": {"max_rounds": 3}, "opponent": None},
        {"type": "act", "view": view, "legal": [str(m) for m in state.legal_moves]},
        {"type": "quit"},
    ]
    out = io.StringIO()
    stdin = io.StringIO("".join(json.dumps(x) + "\n" for x in lines))
    assert serve(agent, seed=1, stdin=stdin, stdout=out, stderr=io.StringIO()) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert answers[-1]["type"] == "move"
    assert answers[-1]["move"] in [str(m) for m in state.legal_moves]


def test_bad_policies_and_options_say_what_was_wrong() -> None:
    state = State.new(1)
    rng = random.Random(0)
    with pytest.raises(ValueError, match="must return 534 scores"):
        PolicyAgent(lambda obs: np.zeros(3)).choose(state.view(0), state.legal_moves, rng)
    with pytest.raises(ValueError, match="NaN"):
        PolicyAgent(lambda obs: np.full(NUM_ACTIONS, np.nan)).choose(
            state.view(0), state.legal_moves, rng
        )
    with pytest.raises(ValueError, match="function of an observation"):
        PolicyAgent(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="temperature"):
        PolicyAgent(lambda obs: obs, temperature=0)
    with pytest.raises(ValueError, match="no legal move"):
        PolicyAgent(lambda obs: obs).choose(state.view(0), [], rng)


def test_infinite_scores_are_the_softmax_limits() -> None:
    """Sampling with an infinite score failed inside random.choices ("Total of weights must be
    finite"), with a RuntimeWarning."""
    state = State.new(1)
    view, legal = state.view(0), state.legal_moves
    ids = [action_id(m) for m in legal]
    certain = np.zeros(NUM_ACTIONS)
    certain[ids[3]] = certain[ids[5]] = np.inf
    certain[ids[0]] = -np.inf
    for sample in (False, True):
        agent = PolicyAgent(lambda obs: certain, sample=sample)
        picks = {agent.choose(view, legal, random.Random(s)) for s in range(40)}
        assert picks == ({legal[3], legal[5]} if sample else {legal[3]})
    ruled_out = np.where(np.isin(np.arange(NUM_ACTIONS), ids[1:]), -np.inf, 0.0)
    agent = PolicyAgent(lambda obs: ruled_out, sample=True)
    assert {agent.choose(view, legal, random.Random(s)) for s in range(20)} == {legal[0]}
    far = np.where(np.isin(np.arange(NUM_ACTIONS), ids[0]), 1e308, -1e308)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent = PolicyAgent(lambda obs: far, sample=True, temperature=1e-300)
        assert agent.choose(view, legal, random.Random(0)) == legal[0]
    for sample in (False, True):
        agent = PolicyAgent(lambda obs: np.full(NUM_ACTIONS, -np.inf), sample=sample)
        with pytest.raises(ValueError, match="every legal move -inf"):
            agent.choose(view, legal, random.Random(0))


@pytest.mark.parametrize("history", [False, True])
@pytest.mark.parametrize("normalise", [False, True])
@pytest.mark.parametrize("limit", [3, None])
def test_it_gives_the_policy_the_layout_of_the_env_it_was_trained_on(
    history: bool, normalise: bool, limit: int | None
) -> None:
    gym = pytest.importorskip("gymnasium")
    import hanamikoji.env.gym  # noqa: F401

    seen: list[npt.NDArray[np.float32]] = []

    def policy(obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        seen.append(obs.copy())
        return np.zeros(NUM_ACTIONS)

    agent = PolicyAgent(policy, history=history, normalise=normalise)
    env = gym.make(
        "hanamikoji/Hanamikoji-v0",
        opponent="random",
        max_rounds=limit,
        history=history,
        normalise=normalise,
    )
    agent.start(0, Rules(max_rounds=limit))
    obs, _info = env.reset(seed=2)
    for _ in range(25):
        game = env.unwrapped.game
        if game.to_move is None:
            break
        move = agent.choose(game.view(env.unwrapped.seat), game.legal_moves, random.Random(0))
        assert seen[-1].dtype == np.float32 and np.array_equal(seen[-1], obs)
        obs, _r, done, _t, _info = env.step(action_id(move))
        if done:
            break
    assert len(seen) > 5


def test_its_layout_flags_are_true_or_false() -> None:
    for bad in ("yes", 1):
        with pytest.raises(ValueError, match="history must be True or False"):
            PolicyAgent(lambda obs: obs, history=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="normalise must be True or False"):
            PolicyAgent(lambda obs: obs, normalise=bad)  # type: ignore[arg-type]


def test_a_batch_of_one_is_refused_with_the_fix() -> None:
    state = State.new(1)
    agent = PolicyAgent(lambda obs: np.zeros((1, NUM_ACTIONS)))
    with pytest.raises(ValueError, match=r"shape \(1, 534\) \(a batch of one: return its row"):
        agent.choose(state.view(0), state.legal_moves, random.Random(0))


def test_a_view_and_moves_of_different_positions_are_refused_as_every_agent_does() -> None:
    """It played a move its view could not make: the same words as the other agents now."""
    _, agent = linear(3)
    state = State.new(7)
    with pytest.raises(ValueError, match=r"P77 is not legal in the view given"):
        agent.choose(state.view(0), [Move.parse("P77")], random.Random(0))
    with pytest.raises(ValueError, match="seat 1's, which has no decision to make"):
        agent.choose(state.view(1), state.legal_moves, random.Random(0))
