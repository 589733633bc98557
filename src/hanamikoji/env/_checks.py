"""The argument checks every adapter shares (Gymnasium, PettingZoo, the vector env, BatchSim).

Kept apart from ``_common`` so that the batch simulator, which needs no Gymnasium, checks its
arguments with the same functions and the same messages. Numpy scalars are taken wherever a
number is (RL configurations built with ``np.arange`` or ``np.linspace`` carry them); bools are
not numbers here, and a number is not a flag.
"""

from __future__ import annotations

import contextlib
import numbers
import operator

import numpy as np


def check_flag(value: object, name: str) -> bool:
    """An on/off option: True or False (a numpy bool too); "yes" or 2 is a ValueError, not on."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _whole(value: object) -> int | None:
    """``value`` as a Python int if it is a whole number (any ``numbers.Integral``: a numpy
    integer, as RL code draws them, gmpy2's or sympy's), else None (a bool too)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_):
        # A registered Integral's own __index__ may fail: refused as anything else is.
        with contextlib.suppress(TypeError, ValueError, ArithmeticError):
            return operator.index(value)
    return None


def check_seed(seed: object) -> int | None:
    """A reset's seed: None, or a whole number >= 0 (any ``numbers.Integral``), as a Python int;
    anything else, a bool too, a ValueError that names it."""
    if seed is None:
        return None
    value = _whole(seed)
    if value is None or value < 0:
        raise ValueError(f"seed must be None or a whole number >= 0, got {seed!r}")
    return value


def check_weight(round_reward: object) -> float:
    """The per-round shaping weight: a finite number, a numpy one too (0 turns shaping off)."""
    if isinstance(round_reward, bool) or not isinstance(
        round_reward, int | float | np.integer | np.floating
    ):
        raise ValueError(f"round_reward must be a number, got {round_reward!r}")
    if not np.isfinite(round_reward):
        raise ValueError(f"round_reward must be finite, got {round_reward!r}")
    return float(round_reward)


def check_max_rounds(max_rounds: object, most: int | None = None) -> int | None:
    """A round limit: a whole number >= 1 (any ``numbers.Integral``), or None for no limit, as a
    Python int. ``most``: the largest one taken (a larger one is refused, not cut down)."""
    if max_rounds is None:
        return None
    m = _whole(max_rounds)
    if m is None or m < 1:
        raise ValueError(f"max_rounds must be a positive whole number or None, got {max_rounds!r}")
    if most is not None and m > most:
        raise ValueError(
            f"max_rounds must be at most {most} (or None for no limit), got {max_rounds!r}: the "
            "batch simulator's rows hold 64-bit numbers"
        )
    return m


def research_missing(error: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error to raise when a package of the ``research`` extra is missing: what is missing,
    and how to install it (the package comes from its repository, with the extra)."""
    return ModuleNotFoundError(
        f"hanamikoji's research adapters need {error.name!r}, from the research extra: "
        "pip install '.[research]' in the project's folder (make test installs it); "
        "hanamikoji.env.batch, hanamikoji.env.policy and the encodings need only numpy and numba",
        name=error.name,
    )
