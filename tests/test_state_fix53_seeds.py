"""``State.new`` takes any integer seed, numpy's too (``np.int64(3)`` was refused as no seed),
and still refuses bools, floats and negative numbers."""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pytest

from hanamikoji.state import State

EXPECTED = r"^rng must be a random\.Random, a seed \(a whole number >= 0\) or None, got "


@pytest.mark.parametrize("kind", [np.int64, np.int32, np.int8, np.uint8, np.uint64])
def test_a_numpy_integer_seed_deals_the_game_of_that_seed(kind: Any) -> None:
    game = State.new(kind(3))
    assert game == State.new(3)
    assert game.hand(0) == State.new(random.Random(3)).hand(0)
    if np.issubdtype(kind, np.signedinteger):  # a negative one stays refused, as -1 is
        with pytest.raises(ValueError, match=EXPECTED + re.escape(repr(kind(-1))) + "$"):
            State.new(kind(-1))


def test_numbers_that_are_no_whole_numbers_stay_refused_beside_numpy_integers() -> None:
    assert State.new(np.uint64(2**64 - 1)) == State.new(2**64 - 1)
    for seed in (True, np.True_, 3.0, np.float64(3.0), "3", [3]):
        with pytest.raises(TypeError, match=EXPECTED + re.escape(repr(seed)) + "$"):
            State.new(seed)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=EXPECTED + "-1$"):
        State.new(-1)
