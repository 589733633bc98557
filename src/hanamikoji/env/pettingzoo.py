"""Hanamikoji as a PettingZoo AEC environment.

>>> from hanamikoji.env.pettingzoo import env
>>> e = env(max_rounds=3)
>>> e.reset(seed=1)
>>> for agent in e.agent_iter():
...     observation, reward, termination, truncation, info = e.last()
...     if termination or truncation:
...         action = None
...     else:
...         action = int(observation["action_mask"].nonzero()[0][0])  # your policy here
...     e.step(action)

Agents ``player_0`` and ``player_1`` are seats 0 and 1 (seat 0 plays first in round 1). The
action space is ``Discrete(534)``, every distinct move in the fixed numbering of
:mod:`hanamikoji.env.actions`; the observation is a dict of ``observation`` (the 98 floats of
:mod:`hanamikoji.env.observation`, the agent's own information state) and ``action_mask``
(int8, 1 for the legal moves; all 0 when the agent is not to move). The agent to move is not
always the other one: after a Gift or Competition the opponent picks, then takes its own turn.
Rewards are +1 / -1 / 0 at the end; ``round_reward=w`` adds a shaped reward at each scoring
(``w`` times the change in charm difference over 21), off by default. ``history=True`` appends
the round's public history to the observation (98 + 216 floats), ``normalise=True`` divides each
entry by its largest value. An action may be an int, a numpy integer or a 0-d integer array.

``env()`` wraps ``raw_env`` as PettingZoo's classic games are wrapped: an illegal action ends
the game with -1 for the agent that made it; ``raw_env`` raises a ValueError instead.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from hanamikoji.env._checks import research_missing

try:  # the research extra's
    from gymnasium import spaces
    from gymnasium.utils import EzPickle
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ModuleNotFoundError as missing:
    raise research_missing(missing) from missing

from hanamikoji.env._common import (
    action_space,
    check_flag,
    check_rules,
    check_seed,
    check_weight,
    observation_layout,
    render,
    round_rewards,
)
from hanamikoji.env.actions import MOVES, NUM_ACTIONS, legal_ids
from hanamikoji.state import State

__all__ = ["AGENTS", "env", "raw_env"]

AGENTS = ("player_0", "player_1")

# What a game in progress is made of, beyond the settings: what a copy must carry.
_PLAY = (
    "_started",
    "_rng",
    "state_",
    "agents",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "agent_selection",
)


_NO_GAME = "no game yet: call reset() first"


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (illegal moves lose the game)."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return _Refereed(wrapped)


class _Refereed(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper, with the raw environment's words before the
    wrappers': an action that is no move number, a done agent's action other than None, a game
    not yet reset, and a finished game asked about again, are refused as ``raw_env`` refuses them
    (the wrappers said numpy's "truth value of an array is ambiguous" for True, a bare
    AssertionError, a KeyError from ``last``, or only a warning)."""

    def step(self, action: Any) -> None:
        if not self._has_reset:  # the wrappers raised a bare AssertionError
            raise RuntimeError(_NO_GAME)
        raw: raw_env = self.unwrapped
        raw._check_not_over()
        agent = raw.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]):
            raw._move_number(agent, action)
        elif action is not None:
            # The raw environment's words (PettingZoo's ``_was_dead_step``): the out-of-bounds
            # wrapper, first to see the action, refused 999 or -1 with a bare AssertionError.
            raise ValueError("when an agent is dead, the only valid action is None")
        super().step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:  # the wrappers raised an AttributeError (agent_selection)
            raise RuntimeError(_NO_GAME)
        self.unwrapped._check_not_over()
        found: tuple[Any, float, bool, bool, dict[str, Any]] = super().last(observe)
        return found


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]
    """The unwrapped AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "hanamikoji_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        max_rounds: int | None = 3,
        round_reward: float = 0.0,
        render_mode: str | None = None,
        history: bool = False,
        normalise: bool = False,
    ) -> None:
        EzPickle.__init__(self, max_rounds, round_reward, render_mode, history, normalise)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of human, ansi or None, got {render_mode!r}")
        self.rules = check_rules(max_rounds)
        self.round_reward = check_weight(round_reward)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        box, self._observe = observation_layout(
            self.rules, check_flag(history, "history"), check_flag(normalise, "normalise")
        )
        mask = spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": mask}) for a in AGENTS
        }
        self.action_spaces = {a: action_space() for a in AGENTS}
        self._rng = random.Random()
        self.state_: State = State.new(self._rng, rules=self.rules)
        self._started = False  # no game is played before reset(): the seed would be skipped
        self._reset_bookkeeping()

    def __getstate__(self) -> dict[str, Any]:
        """Its settings, re-made as PettingZoo's EzPickle re-makes them, and the game in
        progress: a copy or an unpickled environment goes on with the same game (EzPickle alone
        dealt a new one, which could be played on without a reset)."""
        state: dict[str, Any] = EzPickle.__getstate__(self)
        state["_play"] = {name: self.__dict__[name] for name in _PLAY}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        settings = {k: v for k, v in state.items() if k != "_play"}
        EzPickle.__setstate__(self, settings)
        if "_play" in state:  # (a copy made before "_started" was kept had a game on)
            self.__dict__.update({"_started": True, **state["_play"]})

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``."""
        return self.action_spaces[agent]

    @property
    def game(self) -> State:
        """The true state of the game (the referee's view: use it for logging, not for play)."""
        return self.state_

    def reset(
        self, seed: int | np.integer[Any] | None = None, options: dict[str, Any] | None = None
    ) -> None:
        """Start a new game; ``seed`` (None or a whole number >= 0) makes its deals (and so the
        game) reproducible."""
        seed = check_seed(seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self.state_ = State.new(self._rng, rules=self.rules)
        self.agents = list(AGENTS)
        self._started = True
        self._reset_bookkeeping()

    def _reset_bookkeeping(self) -> None:
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        seat = self.state_.to_move
        self.agent_selection = AGENTS[seat] if seat is not None else AGENTS[0]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """``agent``'s observation and action mask."""
        if agent not in AGENTS:  # (tuple.index said only "x not in tuple")
            raise ValueError(f"unknown agent {agent!r}; the agents: {', '.join(AGENTS)}")
        seat = AGENTS.index(agent)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.state_.to_move == seat:
            mask[legal_ids(self.state_)] = 1
        return {"observation": self._observe(self.state_, seat), "action_mask": mask}

    def step(self, action: int | np.integer[Any] | npt.NDArray[np.integer[Any]] | None) -> None:
        """Play ``action`` (a move number) for the agent to move."""
        self._check_started()
        self._check_not_over()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._move_number(agent, action)
        move = MOVES[action]
        before = self.state_
        if not before.is_legal(move):
            legal = " ".join(str(m) for m in before.legal_moves)
            raise ValueError(f"{agent}: illegal move {move} (action {action}); legal: {legal}")
        after = before.apply(move)
        self.state_ = after
        self._cumulative_rewards[agent] = 0.0  # the agent has seen its rewards so far
        self._clear_rewards()
        shaped = round_rewards(before, after, self.round_reward)
        for seat, a in enumerate(AGENTS):
            self.rewards[a] = shaped[seat]
        outcome = after.outcome
        if outcome is not None:
            for seat, a in enumerate(AGENTS):
                won = outcome.winner
                self.rewards[a] += 0.0 if won is None else (1.0 if won == seat else -1.0)
                self.terminations[a] = True
                self.infos[a] = {"outcome": outcome.to_json()}
        self._select()
        if outcome is not None:
            self.agent_selection = agent
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    @staticmethod
    def _move_number(agent: str, action: object) -> int:
        """``action`` as a move number, or a ValueError that says what an action is."""
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action[()]  # a 0-d array, as Stable-Baselines3's predict returns
        if action is None or isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise ValueError(
                f"{agent}: an action is a move number 0..{NUM_ACTIONS - 1} (an int, a numpy "
                f"integer or a 0-d integer array), got {action!r}"
            )
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"{agent}: action must be 0..{NUM_ACTIONS - 1}, got {action}")
        return int(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The agent to act's observation, reward, termination, truncation and info."""
        self._check_started()
        self._check_not_over()
        found: tuple[Any, float, bool, bool, dict[str, Any]] = super().last(observe)
        return found

    def _check_started(self) -> None:
        # Before the first reset() a game is there (the spaces need none), but no seed chose it:
        # playing it would skip the seed, as the Gymnasium and vector envs refuse to.
        if not self._started:
            raise RuntimeError(_NO_GAME)

    def _check_not_over(self) -> None:
        # Every agent has stepped out of a finished game: nothing is left to ask about or play
        # (PettingZoo's own code would fail on the missing agent with a bare KeyError).
        if not self.agents:
            raise ValueError("the game is over and every agent is done: call reset() first")

    def render(self) -> str | None:
        """The table as text (``ansi`` returns it, ``human`` prints it)."""
        return render(self.state_, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""
