"""A learned policy as an :class:`~hanamikoji.ai.base.Agent`: an opponent in every adapter, a
player in a match, or an engine.

A policy here is any function from one observation (the 98 floats of
:mod:`hanamikoji.env.observation`) to 534 scores, one per move number (logits, or any values
where larger is better); :class:`PolicyAgent` builds the observation from the seat's VIEW, masks
the illegal moves and plays the best legal one (or samples from the softmax). ``history=True``
and ``normalise=True`` give the policy the layout of the environment it was trained on, as the
Gymnasium and PettingZoo options of those names do (``Hanamikoji-v1`` is ``history=True``):

>>> import random
>>> import numpy as np
>>> from hanamikoji.state import State
>>> gifts = np.zeros(534)
>>> gifts[35:116] = 1.0  # actions 35-115 are the Gifts
>>> agent = PolicyAgent(lambda observation: gifts, name="gifts")
>>> game = State.new(1)
>>> str(agent.choose(game.view(0), game.legal_moves, random.Random(0)))
'G445'

It only ever reads what the VIEW holds, so it can sit in any seat: ``gymnasium.make(...,
opponent=agent)``, ``hanamikoji.engine.serve(agent)``, or an agent list of your own.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.ai.base import check_choice
from hanamikoji.env._checks import check_flag
from hanamikoji.env.actions import NUM_ACTIONS, action_id
from hanamikoji.env.observation import (
    HISTORY_SIZE,
    OBS_SIZE,
    encode_view,
    encode_view_history,
    history_scale,
    normalise,
)
from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = ["Policy", "PolicyAgent"]

Policy = Callable[[npt.NDArray[np.float32]], Any]
"""A function from one observation, (98,) float32 (98 + 216 with the history), to 534 move
scores (array-like)."""


class PolicyAgent:
    """An agent that plays a policy function (see the module docstring).

    ``sample=False`` (the default) plays the legal move with the highest score, the first of
    equal ones; ``sample=True`` draws from the softmax of the legal moves' scores divided by
    ``temperature``, with the ``rng`` the caller passes, so a seeded game replays. Infinite
    scores are the softmax's limits: a legal move scored +inf is certain (several share the
    draw equally; argmax plays the first), one scored -inf is never drawn, and a policy that
    scores every legal move -inf, or any NaN, raises ValueError in either mode.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        name: str = "policy",
        sample: bool = False,
        temperature: float = 1.0,
        history: bool = False,
        normalise: bool = False,
    ) -> None:
        if not callable(policy):
            raise ValueError(f"policy must be a function of an observation, got {policy!r}")
        if not (isinstance(temperature, int | float) and temperature > 0):
            raise ValueError(f"temperature must be a positive number, got {temperature!r}")
        if not isinstance(name, str):  # it names the agent in matches, records and messages
            raise ValueError(f"name must be a string, got {name!r}")
        self.policy = policy
        self.name = name
        self.sample = check_flag(sample, "sample")
        self.temperature = float(temperature)
        self.history = check_flag(history, "history")
        self.normalise = check_flag(normalise, "normalise")
        self.rules = Rules()

    def start(self, seat: int, rules: Rules) -> None:
        """Remember the game's rules (the observation's ``rounds_left`` reads the limit)."""
        self.rules = rules

    def observation(self, view: View) -> npt.NDArray[np.float32]:
        """What the policy is given for ``view``: the observation of the environments with the
        same ``history`` and ``normalise`` options, from the seat's VIEW."""
        if self.history:
            obs = encode_view_history(view, self.rules)
        else:
            obs = encode_view(view, self.rules)
        if self.normalise:
            # As the environments divide: the 98 floats by their scale (round capped at 1
            # without a limit), the history by its own.
            obs[:OBS_SIZE] = normalise(obs[:OBS_SIZE], self.rules.max_rounds)
            if self.history:
                obs[OBS_SIZE:] /= history_scale()
        assert obs.shape == (OBS_SIZE + (HISTORY_SIZE if self.history else 0),)
        return obs

    def scores(self, view: View) -> npt.NDArray[np.float64]:
        """The policy's 534 scores for ``view``, checked."""
        out = np.asarray(self.policy(self.observation(view)), dtype=np.float64)
        if out.shape != (NUM_ACTIONS,):
            raise ValueError(
                f"{self.name}: the policy must return {NUM_ACTIONS} scores for an observation, "
                f"got shape {out.shape}"
                + (" (a batch of one: return its row [0])" if out.shape == (1, NUM_ACTIONS) else "")
            )
        return out

    def choose(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
    ) -> Move:
        """The policy's move among ``legal`` for the seat of ``view``."""
        if not legal:
            raise ValueError(f"{self.name}: no legal move to choose from")
        check_choice(view, legal, rng, clock_ms)  # as every agent: one position, an rng
        scores = self.scores(view)[[action_id(m) for m in legal]]
        if np.isnan(scores).any():
            raise ValueError(f"{self.name}: the policy returned NaN for a legal move")
        top = scores.max()
        if top == -np.inf:
            raise ValueError(
                f"{self.name}: the policy scores every legal move -inf (it rules them all out)"
            )
        if not self.sample:
            return legal[int(np.argmax(scores))]
        if top == np.inf:
            # The softmax's limit as those scores grow: they share all the probability.
            sure = [m for m, s in zip(legal, scores, strict=True) if s == np.inf]
            return rng.choices(sure)[0]
        # Far apart finite scores may overflow to -inf here: a weight of 0, as it should be.
        with np.errstate(over="ignore", under="ignore"):
            weights = np.exp((scores - top) / self.temperature)
        return rng.choices(list(legal), weights=weights.tolist())[0]

    def __repr__(self) -> str:
        how = f"sample, temperature {self.temperature}" if self.sample else "argmax"
        return f"PolicyAgent({self.name!r}, {how})"
