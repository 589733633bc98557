"""``IsmctsAgent.search`` (and master's, the same method) checks its arguments as ``choose``
does: a bad view, legal list, rng or clock_ms given to it directly failed inside the search, or
searched a position that is not the view's, instead of raising check_choice's clear error."""

from __future__ import annotations

import random
from typing import Any

import pytest

from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.ai.master import MasterAgent
from hanamikoji.moves import Move
from hanamikoji.state import State

GAME = State.new(1)
VIEW = GAME.view(0)
LEGAL = GAME.legal_moves
RNG = random.Random(1)

CASES = [
    ((VIEW, LEGAL, 5, None), TypeError, r"^rng must be a random\.Random \(e\.g\. random\.Random"),
    (("view", LEGAL, RNG, None), TypeError, r"^view must be a View, the seat's view"),
    ((VIEW, ["S4"], RNG, None), TypeError, r"^the legal moves must be Move objects"),
    ((VIEW, [], RNG, None), ValueError, r"^no legal moves to choose from$"),
    ((GAME.view(1), LEGAL, RNG, None), ValueError, r"^the view is seat 1's, which has no decision"),
    ((VIEW, [Move.parse("S1")], RNG, None), ValueError, r"^S1 is not legal in the view given"),
    ((VIEW, LEGAL, RNG, -5), ValueError, r"^clock_ms must be a number of milliseconds >= 0"),
    ((VIEW, LEGAL, RNG, "100"), TypeError, r"^clock_ms must be a number of milliseconds >= 0"),
]


@pytest.mark.parametrize("kind", [IsmctsAgent, MasterAgent])
@pytest.mark.parametrize(("args", "error", "message"), CASES)
def test_search_refuses_what_choose_refuses(
    kind: type[IsmctsAgent], args: tuple[Any, ...], error: type[Exception], message: str
) -> None:
    assert "S1" not in {str(m) for m in LEGAL}  # (the hand holds no 1: S1 is not legal)
    agent = kind(iterations=8)
    with pytest.raises(error, match=message):
        agent.choose(*args)
    with pytest.raises(error, match=message):
        agent.search(*args)
