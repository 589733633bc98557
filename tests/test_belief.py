"""Determinizations: exactly the unseen cards, dealt uniformly, consistent with the view."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanamikoji.ai.belief import determinize, hidden_slots, unseen_cards
from hanamikoji.cards import ALL_CARDS
from hanamikoji.state import State
from hanamikoji.view import View

# Every VIEW field but the seat and the history (a determinization has no past).
VISIBLE = tuple(f.name for f in fields(View) if f.name not in ("seat", "history"))


def random_position(seed: int) -> State:
    rng = random.Random(seed)
    while True:
        state = State.new(rng)
        for _ in range(rng.randrange(40)):
            if state.is_over:
                break
            state = state.apply(rng.choice(state.legal_moves))
        if not state.is_over:
            return state


def hidden_of(state: State, seat: int) -> str:
    """The cards ``seat`` cannot see in ``state``, read off the true state."""
    opp = 1 - seat
    pile = state.deal.deck[state.turn + 1 :] if state.turn < 8 else ""
    return "".join(
        sorted(
            state.deal.removed
            + state.hand(opp)
            + (state.secret(opp) or "")
            + (state.discard(opp) or "")
            + pile
        )
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_determinization_agrees_with_everything_the_seat_sees(seed: int, sample: int) -> None:
    state = random_position(seed)
    seat = state.to_move
    assert seat is not None
    view = state.view(seat)
    assert unseen_cards(view) == hidden_of(state, seat)
    assert hidden_slots(view).total == len(unseen_cards(view))
    det = determinize(view, random.Random(sample), rules=state.rules)
    seen = det.view(seat)
    for field in VISIBLE:
        assert getattr(seen, field) == getattr(view, field), field
    assert det.legal_moves == state.legal_moves
    assert hidden_of(det, seat) == unseen_cards(view)
    # the 21 cards, exactly, in the determinized state as well
    every = (
        det.deal.removed
        + det.hand(0)
        + det.hand(1)
        + det.played(0)
        + det.played(1)
        + (det.secret(0) or "")
        + (det.secret(1) or "")
        + (det.discard(0) or "")
        + (det.discard(1) or "")
        + det.deal.deck[det.turn + 1 :]
        + (det.offer.cards if det.offer is not None else "")
    )
    assert sorted(every) == sorted(ALL_CARDS)


def test_determinizations_deal_the_unseen_cards_uniformly() -> None:
    state = random_position(11)
    seat = state.to_move
    assert seat is not None
    view = state.view(seat)
    unseen = unseen_cards(view)
    rng = random.Random(5)
    samples = 4000
    in_hand: Counter[str] = Counter()
    for _ in range(samples):
        det = determinize(view, rng, rules=state.rules, unseen=unseen)
        in_hand.update(det.hand(1 - seat))
    share = view.opponent_hand / len(unseen)
    for card, copies in Counter(unseen).items():
        expected = samples * copies * share
        assert abs(in_hand[card] - expected) < 5 * expected**0.5 + 5, (
            card,
            in_hand[card],
            expected,
        )


def test_a_finished_game_cannot_be_sampled() -> None:
    state = State.new(1)
    while not state.is_over:
        state = state.apply(state.legal_moves[-1])
    with pytest.raises(ValueError, match="finished"):
        determinize(state.view(0), random.Random(0))
