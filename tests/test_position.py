"""State.from_position: a mid-round position built from its parts plays on like the original."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanamikoji.state import State


def rebuild(s: State, *, check: bool = True, dealer: bool = True) -> State:
    """``s`` rebuilt from its parts; later rounds dealt at random, or (no ``dealer``) not at all."""
    return State.from_position(
        turn=s.turn,
        hands=(s.hand(0), s.hand(1)),
        actions_left=(s.actions_left(0), s.actions_left(1)),
        deck=s.deal.deck[s.turn + 1 :],
        removed=s.deal.removed,
        round=s.round,
        markers=s.markers,
        played=(s.played(0), s.played(1)),
        secrets=(s.secret(0), s.secret(1)),
        discards=(s.discard(0), s.discard(1)),
        offer=s.offer,
        rules=s.rules,
        rng=random.Random(0) if dealer else None,
        check=check,
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_rebuilt_positions_play_on_identically(seed: int) -> None:
    rng = random.Random(seed)
    s = State.new(rng)
    while s.round == 1 and not s.is_over:
        p = rebuild(s)
        for seat in (0, 1):
            v, w = s.view(seat), p.view(seat)
            assert (v.hand, v.played, v.actions_left, v.offer, v.deck, v.to_move, v.phase) == (
                w.hand,
                w.played,
                w.actions_left,
                w.offer,
                w.deck,
                w.to_move,
                w.phase,
            )
        assert p.legal_moves == s.legal_moves
        # play the rest of the round on both with the same moves: same scoring
        a, b = s, p
        while a.round == 1 and not a.is_over:
            m = rng.choice(a.legal_moves)
            a, b = a.apply(m), b.apply(m)
        assert a.markers == b.markers
        assert a.scorings[0].played == b.scorings[0].played
        s = s.apply(rng.choice(s.legal_moves))


def test_bad_positions_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="21 cards"):
        State.from_position(
            turn=0,
            hands=("1234567", "123456"),
            actions_left=("SDGC", "SDGC"),
            deck="1234567",
            removed="7",
        )
    with pytest.raises(ValueError, match="actions left"):
        State.from_position(
            turn=0,
            hands=("1234577", "244556"),
            actions_left=("SDGC", "SDG"),
            deck="3366677",
            removed="6",
        )
    with pytest.raises(ValueError, match="pile holds 7 cards"):
        State.from_position(
            turn=0,
            hands=("1234577", "244556"),
            actions_left=("SDGC", "SDGC"),
            deck="336667",
            removed="6",
        )
    with pytest.raises(ValueError, match="turn must be"):
        State.from_position(
            turn=8,
            hands=("", ""),
            actions_left=("", ""),
            deck="",
            removed="6",
        )


def test_a_position_without_a_dealer_for_later_rounds_says_so() -> None:
    rng = random.Random(2)
    s = State.new(rng)
    while True:  # the last decision of round 1, in a game that goes on
        move = rng.choice(s.legal_moves)
        after = s.apply(move)
        if after.round == 2:
            break
        s = after if after.round == 1 and not after.is_over else State.new(rng)
    p = rebuild(s, dealer=False)
    with pytest.raises(ValueError, match="no deal was given for round 2: give the state an rng"):
        p.apply(move)


# -- the public position: State.position() and its round trip -------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from((1, 3, 5, None)))
def test_position_round_trips(seed: int, max_rounds: int | None) -> None:
    """The position carries the rules: ``State.from_position(state.position()) == state``
    whatever the round limit."""
    from hanamikoji.state import Rules

    rng = random.Random(seed)
    state = State.new(random.Random(seed), rules=Rules(max_rounds=max_rounds))
    while not state.is_over:
        p = state.position()
        assert p.rules == state.rules
        back = State.from_position(p)
        assert back == state and back.position() == p and hash(back) == hash(state)
        other = State.from_position(p, rules=Rules(max_rounds=7))  # given rules decide
        assert other.rules == Rules(max_rounds=7) and other != state
        assert p.to_move == state.to_move and p.first == state.first
        assert back.legal_moves == state.legal_moves
        state = state.apply(rng.choice(state.legal_moves))


def test_a_finished_game_has_no_position() -> None:
    state = State.new(3)
    rng = random.Random(3)
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves))
    with pytest.raises(ValueError, match="over"):
        state.position()


def test_the_kernels_row_of_a_position_plays_as_the_state() -> None:
    import numpy as np

    from hanamikoji.kernel.actions import IDS, MOVES
    from hanamikoji.kernel.row import C_TO_MOVE, row_of
    from hanamikoji.kernel.rules import apply, legal, score_round
    from hanamikoji.kernel.tables import H, T

    ids = np.empty(len(MOVES), dtype=np.int64)
    for seed in range(40):
        rng = random.Random(seed)
        state = State.new(seed)
        for _ in range(rng.randrange(0, 20)):
            if not state.is_over:
                state = state.apply(rng.choice(state.legal_moves))
        if state.is_over:
            continue
        row = row_of(state.position())
        while True:  # the rest of the round, through the kernel and the core side by side
            n = legal(row, T, H, ids)
            assert [MOVES[a] for a in ids[:n]] == list(state.legal_moves)
            move = rng.choice(state.legal_moves)
            ended = apply(row, IDS[move], T)
            before = state.round
            state = state.apply(move)
            if ended:
                winner, reason = score_round(row, state.rules.max_rounds or 0)
                assert state.round != before or state.is_over
                assert (winner, reason) != (-1, 0) or not state.is_over
                markers = state.outcome.markers if state.outcome else state.markers
                assert tuple(None if m < 0 else int(m) for m in row[10:17]) == markers
                break
            assert row[C_TO_MOVE] == state.to_move


def test_packed_agrees_with_the_text_accessors() -> None:
    from hanamikoji.cards import pack
    from hanamikoji.moves import actions_mask

    rng = random.Random(5)
    state = State.new(5)
    while True:
        for seat in (0, 1):
            p = state.packed(seat)
            assert p.hand == pack(state.hand(seat)) and p.played == pack(state.played(seat))
            assert p.secret == pack(state.secret(seat) or "")
            assert p.discard == pack(state.discard(seat) or "")
            assert p.actions == actions_mask(state.actions_left(seat))
        if state.is_over:
            break
        state = state.apply(rng.choice(state.legal_moves))
