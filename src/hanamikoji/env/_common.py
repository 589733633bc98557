"""What the PettingZoo and Gymnasium adapters share: spaces, rewards and a text rendering."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from hanamikoji.env._checks import research_missing

try:  # the research extra's
    from gymnasium import spaces
except ModuleNotFoundError as missing:
    raise research_missing(missing) from missing

from hanamikoji.cards import CHARM, TOTAL_CHARM
from hanamikoji.env._checks import check_flag as check_flag
from hanamikoji.env._checks import check_max_rounds
from hanamikoji.env._checks import check_seed as check_seed
from hanamikoji.env._checks import check_weight as check_weight
from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.observation import (
    FIELDS,
    HISTORY_SIZE,
    OBS_SIZE,
    history_scale,
    observe,
    observe_history,
    scale,
)
from hanamikoji.state import Rules, State

Observer = Callable[[State, int], npt.NDArray[np.float32]]

_HIGH = {
    "charm": float(TOTAL_CHARM),
    "geisha": 7.0,
    "deck": 8.0,
    "opponent_hand": 7.0,
}


def observation_box(rules: Rules) -> spaces.Box:
    """The Box of an observation vector, with the bounds of each field under ``rules``."""
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.zeros(OBS_SIZE, dtype=np.float32)
    limit = rules.max_rounds
    rounds = {
        "round": np.inf if limit is None else float(limit),
        "rounds_left": 0.0 if limit is None else float(max(limit - 1, 1)),
    }
    at = 0
    for name, n, _ in FIELDS:
        if name == "rounds_left" and limit is None:
            low[at] = -1.0
        if name in rounds:
            high[at] = rounds[name]
        elif name in _HIGH:
            high[at : at + n] = _HIGH[name]
        elif n == 7 and not name.startswith("markers"):
            high[at : at + n] = CHARM  # a count of a geisha's cards
        else:
            high[at : at + n] = 1.0
        at += n
    return spaces.Box(low=low, high=high, dtype=np.float32)


def observation_layout(rules: Rules, history: bool, normalise: bool) -> tuple[spaces.Box, Observer]:
    """The Box and the observing function of a layout: the 98 floats, followed by the round's
    history block when ``history`` (98 + 216), each entry divided by its largest value when
    ``normalise`` (:func:`hanamikoji.env.observation.normalise`)."""
    box, divide = layout_space(rules, history, normalise)
    base: Observer = observe_history if history else observe
    if divide is None:
        return box, base
    at_round = field_at("round")
    capped = rules.max_rounds is None

    def normalised(state: State, seat: int) -> npt.NDArray[np.float32]:
        out: npt.NDArray[np.float32] = base(state, seat) / divide
        if capped:
            out[at_round] = min(out[at_round], 1.0)
        return out

    return box, normalised


def layout_space(
    rules: Rules, history: bool, normalise: bool
) -> tuple[spaces.Box, npt.NDArray[np.float32] | None]:
    """The Box of a layout (see :func:`observation_layout`) and, when ``normalise``, what each
    entry is divided by (without a round limit, ``round`` is then capped at 1)."""
    box = observation_box(rules)
    low, high = box.low, box.high
    size = OBS_SIZE + (HISTORY_SIZE if history else 0)
    if history:
        low = np.concatenate([low, np.zeros(HISTORY_SIZE, dtype=np.float32)])
        high = np.concatenate([high, history_scale()])
    if not normalise:
        return spaces.Box(low=low, high=high, dtype=np.float32), None
    divide = np.ones(size, dtype=np.float32)
    divide[:OBS_SIZE] = scale(rules.max_rounds)
    if history:
        divide[OBS_SIZE:] = history_scale()
    box = spaces.Box(low=low / divide, high=np.minimum(high / divide, 1.0), dtype=np.float32)
    return box, divide


def field_at(name: str) -> int:
    """Where a one-entry field lies in the observation."""
    at = 0
    for field, n, _ in FIELDS:
        if field == name:
            return at
        at += n
    raise KeyError(name)


def action_space() -> spaces.Discrete:
    """One Discrete space over every distinct move (``hanamikoji.env.actions``)."""
    return spaces.Discrete(NUM_ACTIONS)


def check_rules(max_rounds: object) -> Rules:
    """The rules for ``max_rounds`` (a numpy integer too; a clear ValueError for anything
    else)."""
    return Rules(max_rounds=check_max_rounds(max_rounds))


RESET_OPTIONS = ("seat",)
"""The keys ``reset(options=...)`` takes, in the Gymnasium env and the vector env."""


def check_seat(seat: object, name: str) -> None:
    """A seat option: 0, 1 (a numpy integer too) or "random". True == 1 and 1.0 == 1, but a
    flag or a float is not a seat number."""
    if seat == "random" and isinstance(seat, str):
        return
    if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or seat not in (0, 1):
        raise ValueError(f"{name} must be 0, 1 or 'random', got {seat!r}")


def reset_options(options: object, seat: int | str) -> int | str:
    """The seat for this reset, from ``reset``'s ``options`` (a dict of :data:`RESET_OPTIONS`),
    else the env's ``seat``. Anything else is refused, not ignored: a typo or an option another
    env takes would otherwise leave the game silently as it was."""
    known = ", ".join(RESET_OPTIONS)
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict (keys: {known}) or None, got {options!r}")
    unknown = [key for key in options if key not in RESET_OPTIONS]
    if unknown:
        hint = ""
        if unknown[0] == "reset_mask":  # Gymnasium's partial reset of a vector env
            hint = (
                " (reset_mask, a partial reset, is not taken: reset() starts every game, and a "
                "finished game starts its next one on the following step)"
            )
        raise ValueError(f"unknown reset option {unknown[0]!r}; the options: {known}{hint}")
    if "seat" in options:
        check_seat(options["seat"], "options['seat']")
        seat = options["seat"]
    return seat


def round_rewards(before: State, after: State, weight: float) -> tuple[float, float]:
    """Per seat, the shaped reward for rounds scored between two states.

    Each scored round pays ``weight`` times the change in the charm difference, over the total
    charm (21): a round that moves 5 charm to one side pays it ``+weight*5/21`` and the other
    side the opposite.
    """
    if weight == 0.0 or len(after.scorings) == len(before.scorings):
        return 0.0, 0.0
    c0, c1 = before.charm
    d0, d1 = after.charm
    gain = weight * ((d0 - c0) - (d1 - c1)) / TOTAL_CHARM
    return gain, -gain


def render(state: State, mode: str | None) -> str | None:
    """Render for a render mode: ``ansi`` returns the text, ``human`` prints it, None neither."""
    if mode is None:
        return None
    text = render_text(state)
    if mode == "human":
        print(text)
        return None
    return text


def render_text(state: State) -> str:
    """The whole table in a few lines of text (both hands shown: this is the referee's view)."""
    owner = {None: ".", 0: "0", 1: "1"}
    lines = [
        f"round {state.round} (first: seat {state.first}), "
        + (
            state.outcome.describe()
            if state.outcome is not None
            else f"seat {state.to_move} to {'pick' if state.offer is not None else 'act'}"
        ),
        "markers  " + " ".join(f"{g + 1}:{owner[m]}" for g, m in enumerate(state.markers)),
    ]
    for seat in (0, 1):
        lines.append(
            f"seat {seat}   hand {state.hand(seat) or '-':8} played {state.played(seat) or '-':10} "
            f"secret {state.secret(seat) or '-'} discard {state.discard(seat) or '-'} "
            f"actions left {state.actions_left(seat) or '-'}"
        )
    if state.offer is not None:
        lines.append(f"offer    {state.offer}")
    lines.append(f"pile     {state.deck_left} cards")
    return "\n".join(lines)
