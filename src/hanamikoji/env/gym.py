"""Hanamikoji as a Gymnasium environment: one seat against a built-in agent.

Importing this module registers ``hanamikoji/Hanamikoji-v0``:

>>> import gymnasium
>>> import hanamikoji.env.gym
>>> env = gymnasium.make("hanamikoji/Hanamikoji-v0", opponent="greedy")
>>> observation, info = env.reset(seed=1)
>>> mask = info["action_mask"]  # 1 for the legal moves

The observation is the learner's 98-float information state (:mod:`hanamikoji.env.observation`),
the action one of the 534 move numbers (:mod:`hanamikoji.env.actions`); the legal ones are in
``info["action_mask"]`` (and ``info["legal"]`` lists their numbers). The opponent's decisions
are made inside ``step``, from its own VIEW only, so every step returns the learner's next
decision. Options: ``opponent`` (an agent spec as for ``hanamikoji match``, e.g. ``"random"``,
``"greedy"``, ``"ismcts:iterations=200"``, ``"level:medium"``, or an agent object), ``seat``
(0, 1 or ``"random"``; ``reset(options={"seat": ...})`` changes it for one game),
``max_rounds`` (3; None for no limit), ``round_reward`` (shaping at each scoring, off by
default) and ``illegal`` (``"lose"``: an illegal action ends the episode with reward -1 and
``info["illegal"]``; ``"raise"``: a ValueError), ``normalise`` (each entry over its largest
value, in [0, 1]; ``rounds_left`` stays -1 without a round limit) and ``history`` (the round's
public history after the 98 floats; ``hanamikoji/Hanamikoji-v1`` is that layout).
``env.unwrapped.action_masks()`` gives the legal moves as bools, for sb3-contrib's MaskablePPO.

Hidden cards: ``render()`` and ``env.unwrapped.game`` (the true state) show the referee's view,
the opponent's hand, Secret and Discard included. They are for debugging and logging; an agent
must see only the observation and ``info``.
"""

from __future__ import annotations

import random
import re
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.env._checks import research_missing

try:  # the research extra's
    import gymnasium
except ModuleNotFoundError as missing:
    raise research_missing(missing) from missing

from hanamikoji.ai import Agent, AgentError, parse_agent
from hanamikoji.ai.base import start_game
from hanamikoji.env._common import RESET_OPTIONS as RESET_OPTIONS
from hanamikoji.env._common import (
    action_space,
    check_flag,
    check_rules,
    check_seat,
    check_seed,
    check_weight,
    observation_layout,
    render,
    reset_options,
    round_rewards,
)
from hanamikoji.env.actions import MOVES, NUM_ACTIONS, legal_ids
from hanamikoji.state import State

__all__ = ["ENV_ID", "ENV_ID_HISTORY", "HanamikojiEnv"]

ENV_ID = "hanamikoji/Hanamikoji-v0"
"""The env with the 98-float observation."""

ENV_ID_HISTORY = "hanamikoji/Hanamikoji-v1"
"""The env whose observation adds the round's public history: 98 + 216 floats."""

Obs = npt.NDArray[np.float32]


class HanamikojiEnv(gymnasium.Env[Obs, np.int64]):
    """One seat of Hanamikoji against a built-in agent (see the module docstring)."""

    # A text render has no frames to pace and ``human`` never sleeps; ``render_fps`` is only
    # read by recorders and players that do. 4 is what Gymnasium's own text games (FrozenLake,
    # Taxi, CliffWalking) declare, and declaring it quiets check_env's "No render fps" warning.
    metadata = {"render_modes": ["human", "ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium's)

    def __init__(
        self,
        opponent: str | Agent = "greedy",
        seat: int | str = 0,
        max_rounds: int | None = 3,
        round_reward: float = 0.0,
        illegal: str = "lose",
        render_mode: str | None = None,
        history: bool = False,
        normalise: bool = False,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of human, ansi or None, got {render_mode!r}")
        check_seat(seat, "seat")
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise', got {illegal!r}")
        if isinstance(opponent, str):
            if opponent.strip().startswith("cmd:"):
                raise ValueError(
                    f"opponent {opponent!r}: an engine cannot be the opponent here, only a "
                    "built-in agent (random, greedy, ismcts, master, level:NAME, with options)"
                )
            try:
                opponent = parse_agent(opponent)
            except AgentError as e:
                raise ValueError(f"opponent: {e}") from None
        elif not isinstance(opponent, Agent):
            raise ValueError(f"opponent must be an agent spec or an agent, got {opponent!r}")
        self.opponent = opponent
        self.seat_option = seat
        self.rules = check_rules(max_rounds)
        self.round_reward = check_weight(round_reward)
        self.illegal = illegal
        self.render_mode = render_mode
        box, self._observe = observation_layout(
            self.rules, check_flag(history, "history"), check_flag(normalise, "normalise")
        )
        self.observation_space = box  # type: ignore[assignment]
        self.action_space = action_space()
        self._rng = random.Random()
        self.seat = 0
        self.game = State.new(self._rng, rules=self.rules)
        self._done = True

    def reset(
        self, *, seed: int | np.integer[Any] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """A new game, played up to the learner's first decision. ``options`` may hold
        ``seat`` (0, 1 or ``"random"``): the learner's seat in this game only, in place of the
        env's ``seat``."""
        seed = check_seed(seed)
        option = self.seat_option
        if options is not None:
            option = reset_options(options, option)
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self.seat = self._rng.randrange(2) if option == "random" else int(option)
        self.game = State.new(self._rng, rules=self.rules)
        start_game(self.opponent, 1 - self.seat, self.rules)
        self._done = False
        self._opponent_moves(self.game)  # no round is scored before the learner's first move
        if self.render_mode == "human":  # Gymnasium's convention: reset renders as step does
            self.render()
        return self._observe(self.game, self.seat), self._info()

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Play the learner's move, then the opponent's, up to the learner's next decision."""
        if self._done:
            raise RuntimeError("the episode is over: call reset() first")
        expected = f"an action is a move number 0..{NUM_ACTIONS - 1} (an int, a numpy integer"
        expected += f" or a 0-d integer array), got {action!r}"
        if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
            action = action.reshape(())[()]  # a 0-d or one-element integer array (a policy's)
        # int(True) is 1 and int(3.0) is 3: a bool or a float is refused rather than taken for a
        # move number, as in PettingZoo and the batch simulator.
        if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
            raise ValueError(expected)
        number = int(action)
        if not 0 <= number < NUM_ACTIONS:
            raise ValueError(expected)
        move = MOVES[number]
        before = self.game
        if not before.is_legal(move):
            if self.illegal == "raise":
                legal = " ".join(str(m) for m in before.legal_moves)
                raise ValueError(f"illegal move {move} (action {number}); legal: {legal}")
            self._done = True
            info = self._info()
            info["illegal"] = str(move)
            return self._observe(before, self.seat), -1.0, True, False, info
        after = before.apply(move)
        reward = round_rewards(before, after, self.round_reward)[self.seat]
        self.game = after
        reward += self._opponent_moves(after)
        outcome = self.game.outcome
        if outcome is not None:
            self._done = True
            if outcome.winner is not None:
                reward += 1.0 if outcome.winner == self.seat else -1.0
        if self.render_mode == "human":
            self.render()
        return self._observe(self.game, self.seat), reward, outcome is not None, False, self._info()

    def _opponent_moves(self, state: State) -> float:
        """Let the opponent play until the learner decides or the game ends; shaped reward."""
        reward = 0.0
        other = 1 - self.seat
        while state.to_move == other:
            view = state.view(other)
            legal = state.legal_moves
            move = self.opponent.choose(view, legal, self._rng, None)
            after = state.apply(move)
            reward += round_rewards(state, after, self.round_reward)[self.seat]
            state = after
        self.game = state
        return reward

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(534,) bool, the learner's legal moves now (all False once the episode is over): the
        hook sb3-contrib's MaskablePPO looks for, so it needs no wrapper."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        if not self._done and self.game.to_move == self.seat:
            mask[legal_ids(self.game)] = True
        return mask

    def _info(self) -> dict[str, Any]:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        legal: list[int] = []
        # An episode ended by an illegal action leaves the game where it was, the learner to
        # move: it has no legal moves left all the same, as at any end.
        if not self._done and self.game.to_move == self.seat:
            legal = legal_ids(self.game)
            mask[legal] = 1
        info: dict[str, Any] = {"action_mask": mask, "legal": legal, "seat": self.seat}
        if self.game.outcome is not None:
            info["outcome"] = self.game.outcome.to_json()
        return info

    def render(self) -> str | None:
        """The whole table as text (``ansi`` returns it, ``human`` prints it), the opponent's
        hand, Secret and Discard included: for debugging, never an input to the agent."""
        return render(self.game, self.render_mode)


def _quiet_v0_out_of_date() -> None:
    """Silence Gymnasium's "out of date" warning for v0, and for nothing else.

    ``gymnasium.make`` warns (``logger.deprecation``, a coloured DeprecationWarning) whenever a
    higher version of the same name is registered. v1 is another layout, not v0's successor, and
    v0 stays the default, so that warning would be wrong on every make of v0.
    """
    warnings.filterwarnings(
        "ignore",
        message=rf"(\x1b\[[0-9;]*m)?WARN: The environment {re.escape(ENV_ID)} is out of date\.",
        category=DeprecationWarning,
    )


_quiet_v0_out_of_date()
if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="hanamikoji.env.gym:HanamikojiEnv",
        vector_entry_point="hanamikoji.env.vector:HanamikojiVectorEnv",
    )
if ENV_ID_HISTORY not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID_HISTORY,
        entry_point="hanamikoji.env.gym:HanamikojiEnv",
        vector_entry_point="hanamikoji.env.vector:HanamikojiVectorEnv",
        kwargs={"history": True},
    )
