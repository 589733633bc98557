"""Hanamikoji as a Gymnasium VectorEnv on the batch simulator: N games against a batched opponent.

``gymnasium.make_vec("hanamikoji/Hanamikoji-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` builds it (importing :mod:`hanamikoji.env.gym`
registers the id); so does ``HanamikojiVectorEnv(N)``:

>>> import gymnasium
>>> import hanamikoji.env.gym
>>> envs = gymnasium.make_vec(
...     "hanamikoji/Hanamikoji-v0", num_envs=8, vectorization_mode="vector_entry_point"
... )
>>> observations, infos = envs.reset(seed=1)
>>> observations.shape, envs.single_observation_space.shape, int(envs.single_action_space.n)
((8, 98), (98,), 534)
>>> actions = infos["action_mask"].argmax(axis=1)  # the first legal move of each game
>>> observations, rewards, terminations, truncations, infos = envs.step(actions)

Each sub-environment is the Gymnasium env ``Hanamikoji-v0`` of one learner seat (``seat``: 0, 1
or ``"random"``, drawn for each game) against ``opponent``, here ``"random"`` or ``"greedy"``
played inside numba by :meth:`~hanamikoji.env.batch.BatchSim.play_opponent` (the Gymnasium env
takes any agent, one game at a time). Every step is one learner decision in every game. It
resets as Gymnasium's vector envs do by default (``autoreset_mode`` next-step): the step after a
game ends ignores that game's action (an action id; a number out of 0..533 is refused there as
anywhere) and returns the first observation of a new game, with reward 0. ``infos`` holds
``action_mask`` (N, 534) int8 (a finished game's row has action 0 alone, the placeholder that
is ignored, see :meth:`~hanamikoji.env.batch.BatchSim.action_mask`) and ``seat`` (N,).
``reset(options={"seat": ...})`` sets the learner's seat in every game that reset starts, as
``options`` reaches every sub-environment of Gymnasium's vector envs; the games started after
one ends take ``seat`` again. Any other key is refused. An illegal action raises a ValueError
naming the game and its legal actions (a number that is no action id, as out of range 0..533;
actions that are no integer array of shape (N,), as :meth:`~hanamikoji.env.batch.BatchSim.step`
says).
``history`` and ``normalise`` give the layouts of the Gymnasium env (``make_vec`` on
``hanamikoji/Hanamikoji-v1`` gives the history).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.env._checks import research_missing

try:  # the research extra's
    import gymnasium
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ModuleNotFoundError as missing:
    raise research_missing(missing) from missing

from hanamikoji.env._common import (
    action_space,
    check_flag,
    check_rules,
    check_seat,
    check_weight,
    field_at,
    layout_space,
    reset_options,
)
from hanamikoji.env.batch import OPPONENTS, BatchSim

__all__ = ["HanamikojiVectorEnv"]

Obs = npt.NDArray[np.float32]
Actions = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]


class HanamikojiVectorEnv(gymnasium.vector.VectorEnv[Obs, Actions, npt.NDArray[Any]]):
    """``num_envs`` games of one learner seat against a batched opponent (see the module)."""

    metadata = {  # noqa: RUF012 (Gymnasium's attribute)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 1,
        opponent: str = "greedy",
        seat: int | str = 0,
        max_rounds: int | None = 3,
        round_reward: float = 0.0,
        illegal: str = "raise",
        render_mode: str | None = None,
        history: bool = False,
        normalise: bool = False,
    ) -> None:
        if not isinstance(opponent, str) or opponent not in OPPONENTS:
            raise ValueError(
                f"the vector env's opponent must be one of {', '.join(OPPONENTS)} (played in "
                f"numba), got {opponent!r}; the Gymnasium env takes any agent"
            )
        check_seat(seat, "seat")  # as the Gymnasium env checks it: not True, not 1.0
        if illegal != "raise":
            raise ValueError(
                f"the vector env raises on an illegal action (illegal='raise'), got {illegal!r}"
            )
        if render_mode is not None:
            raise ValueError(f"the vector env does not render, got render_mode={render_mode!r}")
        # Checked here, not left to BatchSim, so that the message names the caller's argument.
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        self.num_envs = int(num_envs)
        self.opponent = opponent
        self.seat_option = seat
        self.rules = check_rules(max_rounds)
        self.round_reward = check_weight(round_reward)
        self.render_mode = None
        self.history = check_flag(history, "history")
        box, self._divide = layout_space(
            self.rules, self.history, check_flag(normalise, "normalise")
        )
        self.single_observation_space = box
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.sim = BatchSim(
            self.num_envs, max_rounds=self.rules.max_rounds, round_reward=self.round_reward
        )
        """The batch simulator the games live in (read it; step through this env)."""
        self.seats = np.zeros(self.num_envs, dtype=np.int64)
        """(N,) the learner's seat in each game."""
        self._rng = np.random.default_rng()
        self._mask = np.zeros((self.num_envs, self.single_action_space.n), dtype=np.bool_)
        # Before the first reset the seats are not drawn and no opponent has moved: a step then
        # would play the learner's action for whichever seat is to move.
        self._reset_done = False

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """New games in every slot, played up to the learner's first decision. ``options`` may
        hold ``seat`` (0, 1 or ``"random"``, drawn for each game): the learner's seat in every
        game this reset starts, in place of the env's ``seat``; the games that start later, on
        the step after one ends, take the env's ``seat`` again (as a SyncVectorEnv of the
        Gymnasium env, whose autoreset passes no options). Other keys are refused."""
        # Checked before anything changes: a refused reset leaves the games as they were.
        option = self.seat_option
        if options is not None:
            option = reset_options(options, option)
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0
        ):
            raise ValueError(
                f"seed must be None or one whole number >= 0 (it seeds every game), got {seed!r}"
            )
        if seed is not None:
            seed = int(seed)  # Gymnasium's seeding takes a Python int only
            self._rng, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
            self._np_random = self._rng
            self.sim.reset(seed=seed)
        else:
            self.sim.reset(seed=int(self._rng.integers(2**63)))
        self._draw_seats(np.ones(self.num_envs, dtype=np.bool_), option)
        self.sim.play_opponent(self.seats, self.opponent)
        self._reset_done = True
        return self._observe(), self._info()

    def step(self, actions: npt.ArrayLike) -> tuple[Obs, Floats, Bools, Bools, dict[str, Any]]:
        """The learner's move in every game, then the opponent's up to its next decision."""
        if not self._reset_done:
            raise RuntimeError("no games yet: call reset() first")
        mine = self.sim.step(actions)
        self._draw_seats(mine.reset, self.seat_option)
        theirs = self.sim.play_opponent(self.seats, self.opponent)
        rows = np.arange(self.num_envs)
        rewards = (mine.rewards + theirs.rewards)[rows, self.seats].astype(np.float64)
        terminated = mine.done | theirs.done
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return self._observe(), rewards, terminated, truncated, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(N, 534) bool, the legal actions of each game (action 0 alone in a finished one):
        the hook sb3-contrib's MaskablePPO calls."""
        return self.sim.action_mask().copy()

    def _observe(self) -> Obs:
        sim = self.sim
        obs = sim.observe_history(self.seats) if self.history else sim.observe(self.seats)
        if self._divide is not None:
            obs /= self._divide
            if self.rules.max_rounds is None:
                at = field_at("round")
                np.minimum(obs[:, at], 1.0, out=obs[:, at])
        return obs

    def _draw_seats(self, which: npt.NDArray[np.bool_], option: int | str) -> None:
        """The learner's seat in the games ``which`` (starting now), by a seat ``option``."""
        if option == "random":
            drawn = self._rng.integers(2, size=self.num_envs)
        else:
            drawn = np.full(self.num_envs, int(option), dtype=np.int64)
        self.seats = np.where(which, drawn, self.seats).astype(np.int64)

    def _info(self) -> dict[str, Any]:
        self.sim.action_mask(out=self._mask)
        return {"action_mask": self._mask.astype(np.int8), "seat": self.seats.copy()}

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""
