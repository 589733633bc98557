"""Arguments the core refuses at once, with a message that says what is expected: a game's
rules, seed, deals and position, and what every agent's ``choose`` is given (a VIEW, an rng, a
clock), the learned-policy agent's options included. Each was accepted before and failed later
inside (an AttributeError mid-game, a TypeError deep in a search) or silently did something
else (``State.new(-1)`` dealt the game of seed 1)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from hanamikoji.ai import AGENTS, Agent, make_agent, parse_agent
from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.policy import PolicyAgent
from hanamikoji.state import Deal, Rules, State

DEAL = Deal("4", ("566777", "144677"), "53221635")


# -- the game's construction ---------------------------------------------------------------


@pytest.mark.parametrize("rules", [3, "x", {"max_rounds": 1}, 3.0])
def test_rules_other_than_a_rules_object_are_refused_at_construction(rules: Any) -> None:
    # They were taken, and the game failed at its first round's end:
    # AttributeError: 'int' object has no attribute 'max_rounds'.
    with pytest.raises(TypeError, match=r"rules must be a Rules\(\.\.\.\)"):
        State.new(1, rules=rules)
    with pytest.raises(TypeError, match=r"rules must be a Rules\(\.\.\.\)"):
        State.from_deals([DEAL], rng=random.Random(1), rules=rules)
    with pytest.raises(TypeError, match=r"rules must be a Rules\(\.\.\.\)"):
        State.from_position(State.new(1).position(), rules=rules)


def test_a_rules_dict_is_pointed_to_rules_from_json() -> None:
    with pytest.raises(TypeError, match=r"Rules\.from_json"):
        State.new(1, rules={"max_rounds": 1})  # type: ignore[arg-type]


def test_rules_objects_and_none_are_taken() -> None:
    assert State.new(1, rules=Rules(max_rounds=1)).rules == Rules(max_rounds=1)
    assert State.new(1, rules=None).rules == Rules()
    assert State.from_deals([DEAL], rules=Rules(max_rounds=None)).rules.max_rounds is None
    position = State.new(7, rules=Rules(max_rounds=5)).position()
    assert State.from_position(position).rules == Rules(max_rounds=5)


def test_a_negative_seed_is_refused_not_taken_for_its_absolute_value() -> None:
    # random.Random(-1) seeds as random.Random(1): State.new(-1) dealt seed 1's game.
    with pytest.raises(ValueError, match=r"a seed \(a whole number >= 0\)") as e:
        State.new(-1)
    assert "-1" in str(e.value)
    with pytest.raises(TypeError, match=r"random\.Random, a seed"):
        State.new(1.5)  # type: ignore[arg-type]
    assert State.new(0).hand(0) == State.new(random.Random(0)).hand(0)


@pytest.mark.parametrize("deals", ["abc", 5, DEAL, [DEAL, "x"], None])
def test_deals_that_are_not_deal_objects_are_refused(deals: Any) -> None:
    # "abc" was read as three deals: AttributeError: 'str' object has no attribute 'deck_codes'.
    with pytest.raises(TypeError, match="deals must be a sequence of Deal objects"):
        State.from_deals(deals)


def test_from_deals_refuses_an_rng_that_is_not_a_random() -> None:
    # It was used only when a round past the given deals came: an AttributeError then.
    with pytest.raises(TypeError, match=r"rng must be a random\.Random or None"):
        State.from_deals([DEAL], rng=5)  # type: ignore[arg-type]
    assert State.from_deals((DEAL,)).hand(0) == "5566777"  # (a tuple: any sequence)


def test_from_position_says_a_position_is_expected() -> None:
    # It said "after 0 turns the pile holds 7 cards, got ''" for None, and read "abc".turn.
    with pytest.raises(TypeError, match=r"needs a Position .* or its parts as keywords"):
        State.from_position(None)
    with pytest.raises(TypeError, match=r"needs a Position"):
        State.from_position()
    with pytest.raises(TypeError, match=r"position must be a Position .*'abc' \(str\)"):
        State.from_position("abc")  # type: ignore[arg-type]
    state = State.new(3)
    assert State.from_position(state.position()) == state


# -- every agent's choose ------------------------------------------------------------------


def _agents() -> list[Agent]:
    zeros = np.zeros(NUM_ACTIONS)
    return [
        *(make_agent(name) for name in AGENTS),
        parse_agent("level:beginner"),
        PolicyAgent(lambda observation: zeros, name="zeros"),
        PolicyAgent(lambda observation: zeros, name="sampled", sample=True),
    ]


@pytest.fixture(scope="module")
def agents() -> list[Agent]:
    return _agents()


@pytest.mark.parametrize("rng", [None, 5, np.random.default_rng(0), "seed"])
def test_every_agent_refuses_an_rng_that_is_not_a_random(agents: list[Agent], rng: Any) -> None:
    # random, ismcts, master: AttributeError 'randrange' or 'shuffle'; greedy and net took it
    # (and would have failed on the first tie or draw); PolicyAgent(sample=True): 'choices'.
    state = State.new(1)
    for agent in agents:
        with pytest.raises(TypeError, match=r"rng must be a random\.Random") as e:
            agent.choose(state.view(0), state.legal_moves, rng, 50)
        assert type(rng).__name__ in str(e.value), agent.name


def test_every_agent_refuses_a_view_that_is_not_a_view(agents: list[Agent]) -> None:
    state = State.new(1)
    for agent in agents:
        for view in (None, state.view(0).to_json()):
            with pytest.raises(TypeError, match=r"view must be a View") as e:
                agent.choose(view, state.legal_moves, random.Random(0), 50)  # type: ignore[arg-type]
            assert type(view).__name__ in str(e.value), agent.name


@pytest.mark.parametrize(
    ("clock", "error"),
    [("x", TypeError), (True, TypeError), ([50], TypeError), (-5, ValueError),
     (float("nan"), ValueError), (float("inf"), ValueError), (-0.5, ValueError)],
)  # fmt: skip
def test_every_agent_refuses_a_clock_that_is_not_a_time(
    agents: list[Agent], clock: Any, error: type[Exception]
) -> None:
    # ismcts and master failed deep in the search ("x" / 1000: TypeError) or searched for a
    # negative time; the others ignored it.
    state = State.new(1)
    for agent in agents:
        with pytest.raises(error, match=r"clock_ms must be a number of milliseconds >= 0"):
            agent.choose(state.view(0), state.legal_moves, random.Random(0), clock)


@pytest.mark.parametrize("clock", [None, 0, 30, 30.5, np.int64(30), np.float64(30.0)])
def test_every_agent_takes_a_clock_of_none_or_a_number(agents: list[Agent], clock: Any) -> None:
    state = State.new(1)
    for agent in agents:
        if agent.name in ("ismcts", "master", "master-1"):
            agent = make_agent(agent.name, {"iterations": "20"})
        move = agent.choose(state.view(0), state.legal_moves, random.Random(0), clock)
        assert move in state.legal_moves, agent.name


# -- PolicyAgent's options -----------------------------------------------------------------


@pytest.mark.parametrize("sample", ["no", "yes", 1, 0, None])
def test_policy_agent_refuses_a_sample_that_is_not_a_flag(sample: Any) -> None:
    # "no" is truthy: it sampled. history="false" and normalise=1 were refused already.
    with pytest.raises(ValueError, match=f"sample must be True or False, got {sample!r}"):
        PolicyAgent(lambda observation: np.zeros(NUM_ACTIONS), sample=sample)
    assert PolicyAgent(lambda observation: np.zeros(NUM_ACTIONS), sample=np.bool_(True)).sample  # type: ignore[arg-type]


@pytest.mark.parametrize("name", [5, None, b"ppo"])
def test_policy_agent_refuses_a_name_that_is_not_a_string(name: Any) -> None:
    with pytest.raises(ValueError, match=f"name must be a string, got {name!r}"):
        PolicyAgent(lambda observation: np.zeros(NUM_ACTIONS), name=name)


def test_sampling_policy_agent_without_an_rng_says_so() -> None:
    # AttributeError: 'NoneType' object has no attribute 'choices'.
    state = State.new(1)
    agent = PolicyAgent(lambda observation: np.zeros(NUM_ACTIONS), sample=True)
    with pytest.raises(TypeError, match=r"rng must be a random\.Random .*None"):
        agent.choose(state.view(0), state.legal_moves, None)  # type: ignore[arg-type]
    assert agent.choose(state.view(0), state.legal_moves, random.Random(1)) in state.legal_moves
