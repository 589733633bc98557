"""The random agent: a uniformly random legal move."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hanamikoji.ai.base import check_choice
from hanamikoji.moves import Move
from hanamikoji.view import View


class RandomAgent:
    """Plays a uniformly random legal move (each distinct outcome equally likely)."""

    name = "random"

    def choose(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
    ) -> Move:
        """A random element of ``legal``."""
        check_choice(view, legal, rng, clock_ms)
        return legal[rng.randrange(len(legal))]
