"""The research environments' checks: a done agent's out-of-range action in the wrapped
PettingZoo env is refused in the raw env's words, and a seed may be any whole number type."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from hanamikoji.env._checks import check_max_rounds, check_seed

pytest.importorskip(
    "pettingzoo", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)

from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.pettingzoo import env, raw_env

DEAD = "when an agent is dead, the only valid action is None"


def to_the_end(e: Any) -> None:
    """Play the first legal move until the game is over (both agents then done, not gone)."""
    while not any(e.terminations.values()):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
def test_a_done_agent_s_action_is_refused_in_the_raw_env_s_words(
    make: Callable[..., Any],
) -> None:
    """The wrapped env said a bare AssertionError ("action is not in action space") for an
    action out of range, the raw env's ValueError only for one in range."""
    e = make(max_rounds=1)
    e.reset(seed=4)
    to_the_end(e)
    for bad in (NUM_ACTIONS, -1, 999, 5, np.int64(NUM_ACTIONS)):
        with pytest.raises(ValueError, match=DEAD):
            e.step(bad)
    # nothing was changed by the refusals: each agent steps out with None, as before
    for _ in range(2):
        assert e.terminations[e.agent_selection]
        e.step(None)
    assert e.agents == []


class Whole:
    """A whole number that is neither an int nor a numpy integer (as sympy's and gmpy2's are),
    registered as a ``numbers.Integral``: only what a seed check needs."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __int__(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"Whole({self.value})"


numbers.Integral.register(Whole)


def test_a_seed_may_be_any_whole_number_type() -> None:
    assert check_seed(Whole(7)) == 7 and type(check_seed(Whole(7))) is int
    assert check_seed(np.uint8(3)) == 3 and check_seed(5) == 5 and check_seed(None) is None
    e = raw_env()
    e.reset(seed=Whole(9))  # type: ignore[arg-type]  # (any Integral: taken at run time)
    first = e.observe("player_0")["observation"]
    e.reset(seed=9)
    assert np.array_equal(first, e.observe("player_0")["observation"])


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), -1, Whole(-2), 1.0, 1.5, "3", 2j])
def test_what_is_no_seed_is_refused_with_the_same_words(bad: object) -> None:
    with pytest.raises(ValueError, match=r"seed must be None or a whole number >= 0, got "):
        check_seed(bad)


def test_a_round_limit_may_be_any_whole_number_type_as_a_seed_may() -> None:
    assert check_max_rounds(Whole(3)) == 3 and type(check_max_rounds(Whole(3))) is int
    assert check_max_rounds(np.int16(2)) == 2 and check_max_rounds(None) is None
    e = raw_env(max_rounds=Whole(2))  # type: ignore[arg-type]  # (any Integral: at run time)
    e.reset(seed=1)
    assert e.unwrapped.game.rules.max_rounds == 2
    for bad in (True, np.bool_(True), 0, Whole(0), -1, 2.0, "3"):
        with pytest.raises(ValueError, match=r"max_rounds must be a positive whole number or None"):
            check_max_rounds(bad)
    with pytest.raises(ValueError, match=r"max_rounds must be at most 4 "):
        check_max_rounds(Whole(5), most=4)
