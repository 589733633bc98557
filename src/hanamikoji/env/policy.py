"""A learned policy as an :class:`~hanamikoji.ai.base.Agent`: an opponent in every adapter, a
player in a match, or an engine.

A policy here is any function from one observation (the 98 floats of
:mod:`hanamikoji.env.observation`) to 534 scores, one per move number (logits, or any values
where larger is better); :class:`PolicyAgent` builds the observation from the seat's VIEW, masks
the illegal moves and plays the best legal one (or samples from the softmax):

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

from hanamikoji.env.actions import NUM_ACTIONS, action_id
from hanamikoji.env.observation import OBS_SIZE, encode_view
from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = ["Policy", "PolicyAgent"]

Policy = Callable[[npt.NDArray[np.float32]], Any]
"""A function from one observation (98,) float32 to 534 move scores (array-like)."""


class PolicyAgent:
    """An agent that plays a policy function (see the module docstring).

    ``sample=False`` (the default) plays the legal move with the highest score, the first of
    equal ones; ``sample=True`` draws from the softmax of the legal moves' scores divided by
    ``temperature``, with the ``rng`` the caller passes, so a seeded game replays.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        name: str = "policy",
        sample: bool = False,
        temperature: float = 1.0,
    ) -> None:
        if not callable(policy):
            raise ValueError(f"policy must be a function of an observation, got {policy!r}")
        if not (isinstance(temperature, int | float) and temperature > 0):
            raise ValueError(f"temperature must be a positive number, got {temperature!r}")
        self.policy = policy
        self.name = name
        self.sample = sample
        self.temperature = float(temperature)
        self.rules = Rules()

    def start(self, seat: int, rules: Rules) -> None:
        """Remember the game's rules (the observation's ``rounds_left`` reads the limit)."""
        self.rules = rules

    def scores(self, view: View) -> npt.NDArray[np.float64]:
        """The policy's 534 scores for ``view``, checked."""
        obs = encode_view(view, self.rules)
        assert obs.shape == (OBS_SIZE,)
        out = np.asarray(self.policy(obs), dtype=np.float64)
        if out.shape != (NUM_ACTIONS,):
            raise ValueError(
                f"{self.name}: the policy must return {NUM_ACTIONS} scores for an observation, "
                f"got shape {out.shape}"
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
        scores = self.scores(view)[[action_id(m) for m in legal]]
        if np.isnan(scores).any():
            raise ValueError(f"{self.name}: the policy returned NaN for a legal move")
        if not self.sample:
            return legal[int(np.argmax(scores))]
        z = (scores - scores.max()) / self.temperature
        weights = np.exp(z)
        return rng.choices(list(legal), weights=weights.tolist())[0]

    def __repr__(self) -> str:
        how = f"sample, temperature {self.temperature}" if self.sample else "argmax"
        return f"PolicyAgent({self.name!r}, {how})"
