"""The OpenSpiel variant rules (hanamikoji.env.variant) without OpenSpiel: the standard variant
plays as the core engine, move for move, dealt card by card from the core's deals."""

from __future__ import annotations

import random

import pytest

from hanamikoji.env.actions import MOVES
from hanamikoji.env.variant import (
    DEAL,
    DEFAULT_ACTIONS,
    DEFAULT_CHARMS,
    DRAW,
    OVER,
    PICK,
    Table,
    Variant,
    chance,
    decide,
    initial,
    variant_of,
)
from hanamikoji.state import Rules, State


def legal(t: Table) -> list[int]:
    actor = t.first ^ (t.turn & 1)
    if t.stage == PICK:
        return list(t.v.picks[t.offer])
    return list(t.v.legal(t.hands[actor], t.actions[actor]))


def next_card(t: Table, core: State) -> int:
    """The card the core's deal gives at this chance node, as a chance outcome (geisha - 1)."""
    deal = core.deal
    if t.stage == DRAW:
        return int(deal.deck[t.turn]) - 1
    order = deal.removed + deal.hands[0] + deal.hands[1]
    return int(order[t.dealt]) - 1


@pytest.mark.parametrize("seed", range(60))
def test_the_standard_variant_plays_as_the_core(seed: int) -> None:
    rng = random.Random(seed)
    core = State.new(random.Random(seed), rules=Rules(max_rounds=3))
    v = variant_of(3, DEFAULT_CHARMS, DEFAULT_ACTIONS)
    t = initial(v)
    while t.stage != OVER:
        if t.stage in (DEAL, DRAW):
            t = chance(v, t, next_card(t, core))
            continue
        ids = legal(t)
        assert [v.moves[a].text for a in ids] == [str(m) for m in core.legal_moves]
        action = rng.choice(ids)
        t = decide(v, t, action)
        core = core.apply(v.moves[action].text)
    outcome = core.outcome
    assert outcome is not None
    assert t.winner == (-1 if outcome.winner is None else outcome.winner)
    assert tuple(None if m < 0 else m for m in t.markers) == outcome.markers


def test_the_standard_variant_numbers_moves_as_the_action_space() -> None:
    v = Variant(3, DEFAULT_CHARMS, DEFAULT_ACTIONS)
    assert tuple(m.text for m in v.moves) == tuple(str(m) for m in MOVES)
    assert v.obs_size == 98


def test_a_bad_variant_says_why() -> None:
    with pytest.raises(ValueError, match="action"):
        Variant(1, "3:6", "SX")
