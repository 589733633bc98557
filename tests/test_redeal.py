"""Dealing afresh what a seat cannot see (undo against the AI): the seat can tell nothing apart."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanamikoji.cards import ALL_CARDS
from hanamikoji.moves import Action
from hanamikoji.redeal import RedealError, redeal
from hanamikoji.state import State


def _played(seed: int, plies: int, choices: random.Random) -> State:
    state = State.new(seed)
    for _ in range(plies):
        if state.is_over:
            break
        state = state.apply(choices.choice(state.legal_moves))
    return state


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 70),
    seat=st.sampled_from([0, 1]),
    choices=st.randoms(use_true_random=False),
)
def test_the_seat_sees_the_same_game_move_for_move(
    seed: int, plies: int, seat: int, choices: random.Random
) -> None:
    state = _played(seed, plies, choices)
    if state.is_over:
        with pytest.raises(RedealError):
            redeal(state, seat, choices)
        return
    new = redeal(state, seat, choices)
    assert new.state.view(seat) == state.view(seat)
    assert len(new.moves) == len(state.history)
    # Every position on the way looked the same to the seat, and the rules held throughout.
    old_path = [state]
    while old_path[-1].parent is not None:
        old_path.append(old_path[-1].parent)
    new_path = [new.state]
    while new_path[-1].parent is not None:
        new_path.append(new_path[-1].parent)
    assert len(old_path) == len(new_path)
    for old, redealt in zip(old_path, new_path, strict=True):
        assert redealt.view(seat) == old.view(seat)
    # Earlier rounds are kept exactly; this round, the seat's own cards and moves.
    number = state.round
    assert new.deals[: number - 1] == state.deals[: number - 1]
    assert new.deals[number - 1].hands[seat] == state.deal.hands[seat]
    for old_ply, new_move in zip(state.history, new.moves, strict=True):
        if old_ply.round != number or old_ply.seat == seat:
            assert new_move == str(old_ply.move)
        elif old_ply.move.action not in (Action.SECRET, Action.DISCARD):
            assert new_move == str(old_ply.move)  # offers and picks were seen by both
    assert sorted("".join(new.deals[-1].hands) + new.deals[-1].deck + new.deals[-1].removed) == (
        sorted(ALL_CARDS)
    )


def test_the_hidden_cards_are_drawn_uniformly() -> None:
    """At a round's start the opponent's six cards are any six of the fifteen the seat has not
    seen: each of those cards lands in its hand 6/15 of the time."""
    state = State.new(11)
    seat = state.to_move
    assert seat is not None
    rng = random.Random(3)
    seen = Counter(state.hand(seat))
    unseen = Counter(ALL_CARDS) - seen
    counts: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    trials = 3000
    for _ in range(trials):
        new = redeal(state, seat, rng)
        counts.update(new.state.hand(1 - seat))
        removed[new.deals[0].removed] += 1
    for card, copies in unseen.items():
        expected = trials * 6 * copies / sum(unseen.values())
        assert abs(counts[card] - expected) < 0.1 * expected, (card, counts[card], expected)
        expected_removed = trials * copies / sum(unseen.values())
        assert abs(removed[card] - expected_removed) < 0.25 * expected_removed
    assert not (set(removed) - set(unseen))


def test_a_redeal_mid_round_keeps_the_opponents_offers_and_changes_its_secrets() -> None:
    choices = random.Random(8)
    state = State.new(21)
    seat = 0
    # Play until the opponent has made a Secret and an offer this round, with seat 0 to act.
    for _ in range(200):
        mine = [p for p in state.history if p.round == state.round and p.seat == 1]
        kinds = {p.move.action for p in mine}
        offered = kinds & {Action.GIFT, Action.COMPETITION}
        if Action.SECRET in kinds and offered and state.to_move == seat:
            break
        if state.is_over:
            state = State.new(choices.getrandbits(32))
        state = state.apply(choices.choice(state.legal_moves))
    else:
        pytest.fail("no such position reached")
    secrets_seen = {redeal(state, seat, choices).state.secret(1) for _ in range(60)}
    assert len(secrets_seen) > 1  # what the opponent hid is not the same card every time
