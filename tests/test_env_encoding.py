"""The fixed action numbering and the observation tensor shared by the research adapters."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanamikoji.ai.belief import determinize, hidden_slots, unseen_cards
from hanamikoji.cards import CHARM, counts, pack
from hanamikoji.env.actions import MOVES, NUM_ACTIONS, action_id, legal_ids, legal_mask, move_of
from hanamikoji.env.observation import (
    FIELDS,
    HISTORY_SIZE,
    HISTORY_TURNS,
    OBS_SIZE,
    encode_view,
    encode_view_history,
    field_slices,
    history_block,
    normalise,
    observe,
    observe_history,
    scale,
)
from hanamikoji.moves import InvalidMoveError, Move, moves_for, sort_key
from hanamikoji.state import Deal, Rules, State
from hanamikoji.view import View

AT = field_slices()


def positions(seed: int, rules: Rules | None = None) -> list[State]:
    """Every state of one random game."""
    rng = random.Random(seed)
    state = State.new(rng, rules=rules)
    out = [state]
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves))
        out.append(state)
    return out


# -- actions -----------------------------------------------------------------------------------


def test_the_numbering_is_fixed() -> None:
    # Programs store action numbers: the table must never change.
    assert NUM_ACTIONS == 534
    kinds = Counter(m.action.value for m in MOVES)
    assert kinds == {"S": 7, "D": 28, "G": 81, "C": 383, "P": 35}
    digest = hashlib.sha256(" ".join(map(str, MOVES)).encode()).hexdigest()
    assert digest == "b416189645adab3d15409161ffd4ad3d0b7aba19fd7bf8f57d651e6419411e0e"
    assert str(MOVES[0]) == "S1" and str(MOVES[-1]) == "P77"


def test_moves_are_in_notation_order_and_distinct() -> None:
    assert list(MOVES) == sorted(MOVES, key=sort_key)
    assert len(set(map(str, MOVES))) == NUM_ACTIONS


def test_every_hand_move_is_numbered() -> None:
    full = moves_for("112233444555666677777", "SDGC")
    assert {str(m) for m in full} == {str(m) for m in MOVES if not m.is_pick}


def test_action_id_and_move_of_round_trip() -> None:
    for i, move in enumerate(MOVES):
        assert action_id(move) == i
        assert action_id(str(move)) == i
        assert move_of(i) is move
    assert move_of(np.int64(5)) is MOVES[5]
    assert action_id("g741") == action_id("G147")


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 10**6])
def test_move_of_rejects_numbers_out_of_range(bad: int) -> None:
    with pytest.raises(ValueError, match="between 0 and 533"):
        move_of(bad)


@pytest.mark.parametrize("bad", [1.5, "3", True, None])
def test_move_of_rejects_non_numbers(bad: object) -> None:
    with pytest.raises(TypeError, match="whole number"):
        move_of(bad)  # type: ignore[arg-type]


def test_action_id_rejects_nonsense() -> None:
    with pytest.raises(InvalidMoveError):
        action_id("X9")
    with pytest.raises(InvalidMoveError, match="not a move"):
        action_id(42)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9))
def test_legal_ids_are_the_legal_moves_ascending(seed: int) -> None:
    for state in positions(seed):
        ids = legal_ids(state)
        assert ids == sorted(ids)
        assert [MOVES[i] for i in ids] == list(state.legal_moves)
        mask = legal_mask(state)
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        assert np.flatnonzero(mask).tolist() == ids


# -- observations ------------------------------------------------------------------------------


def test_fields_tile_the_vector() -> None:
    assert OBS_SIZE == sum(n for _, n, _ in FIELDS) == 98
    covered = [i for s in AT.values() for i in range(s.start, s.stop)]
    assert covered == list(range(OBS_SIZE))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([1, 3, None]))
def test_observation_is_the_view(seed: int, limit: int | None) -> None:
    rules = Rules(max_rounds=limit)
    for state in positions(seed, rules):
        for seat in (0, 1):
            obs = observe(state, seat)
            assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
            view = View.of(state, seat)
            assert np.array_equal(obs, encode_view(view, rules))
            assert obs[AT["hand"]].tolist() == list(counts(pack(view.hand)))
            other = 1 - seat
            assert obs[AT["played_opponent"]].tolist() == list(counts(pack(view.played[other])))
            assert obs[AT["actions_own"]].sum() == len(view.actions_left[seat])
            assert obs[AT["to_move"]][0] == (state.to_move == seat)
            assert obs[AT["phase"]].sum() == 1
            if not state.is_over:
                unseen = counts(pack(unseen_cards(view)))
                assert obs[AT["unseen"]].tolist() == list(unseen)
                assert obs[AT["unseen"]].sum() == hidden_slots(view).total
            assert (obs[AT["unseen"]] >= 0).all()
            assert (obs[AT["unseen"]] <= np.array(CHARM)).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9), st.integers(0, 10**9))
def test_observation_hides_what_the_seat_cannot_see(seed: int, other_seed: int) -> None:
    # Any state consistent with the seat's VIEW (other opponent hand, Secret, Discard, removed
    # card and pile) gives the seat the same observation.
    rng = random.Random(seed)
    states = [s for s in positions(seed) if not s.is_over]
    state = rng.choice(states)
    seat = rng.randrange(2)
    twin = determinize(View.of(state, seat), random.Random(other_seed))
    assert np.array_equal(observe(state, seat), observe(twin, seat))


def test_observation_changes_with_what_the_seat_sees() -> None:
    state = State.new(3)
    after = state.apply(state.legal_moves[0])
    assert not np.array_equal(observe(state, 1), observe(after, 1))
    assert not np.array_equal(observe(state, 0), observe(state, 1))


def test_observe_writes_into_a_buffer_and_checks_the_seat() -> None:
    state = State.new(4)
    buf = np.full(OBS_SIZE, 7.0, dtype=np.float32)
    assert observe(state, 0, out=buf) is buf
    assert np.array_equal(buf, observe(state, 0))
    with pytest.raises(ValueError, match="seat must be 0 or 1"):
        observe(state, 2)


def test_rounds_left_follows_the_rules() -> None:
    assert observe(State.new(1), 0)[AT["rounds_left"]][0] == 2
    assert observe(State.new(1, rules=Rules(max_rounds=None)), 0)[AT["rounds_left"]][0] == -1
    assert observe(State.new(1, rules=Rules(max_rounds=1)), 0)[AT["rounds_left"]][0] == 0


def test_an_offer_is_shown_to_both_seats() -> None:
    state = State.from_position(
        turn=0,
        hands=("1234567", "123445"),
        actions_left=("SDGC", "SDGC"),
        deck="5666777",
        removed="7",
        offer=None,
    )
    gift = state.apply(Move.parse("G147"))
    for seat in (0, 1):
        obs = observe(gift, seat)
        assert obs[AT["offer_gift"]].tolist() == [1, 0, 0, 1, 0, 0, 1]
        assert obs[AT["phase"]].tolist() == [0, 1, 0]
    contest = state.apply(Move.parse("C12-47"))
    obs = observe(contest, 1)
    assert obs[AT["offer_pair_1"]].tolist() == [1, 1, 0, 0, 0, 0, 0]
    assert obs[AT["offer_pair_2"]].tolist() == [0, 0, 0, 1, 0, 0, 1]
    assert obs[AT["offer_gift"]].sum() == 0


# -- the round's public history and the normalised observation ---------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([1, 3, None]))
def test_the_history_block_is_the_views(seed: int, limit: int | None) -> None:
    # Built from the state or from the seat's VIEW, it is the same: it holds only what the seat
    # knows. The first 98 floats are the plain observation.
    rules = Rules(max_rounds=limit)
    for state in positions(seed, rules):
        for seat in (0, 1):
            full = observe_history(state, seat)
            assert full.shape == (OBS_SIZE + HISTORY_SIZE,) == (314,)
            assert np.array_equal(full[:OBS_SIZE], observe(state, seat))
            assert np.array_equal(full, encode_view_history(View.of(state, seat), rules))


def test_a_worked_history_block() -> None:
    game = State.from_deals([Deal("4", ("566777", "144677"), "53221635")])
    for move in ("S6", "C46-47", "P46", "G557", "P5", "D37"):
        game = game.apply(move)
    turn = HISTORY_SIZE // HISTORY_TURNS
    block = observe_history(game, 0)[OBS_SIZE:].reshape(HISTORY_TURNS, turn)

    def cards(row: np.ndarray) -> str:
        return "".join(str(g + 1) * int(k) for g, k in enumerate(row))

    # Turn 1: seat 0's Secret (its card is never in the block); turn 2: seat 1's Competition
    # 46-47, seat 0 took 46; turn 3: seat 0's Gift 557, seat 1 took a 5; turn 4: seat 1's Discard.
    assert block[0, :6].tolist() == [1, 0, 1, 0, 0, 0] and not block[0, 6:].any()
    assert block[1, :6].tolist() == [0, 1, 0, 0, 0, 1]
    assert (cards(block[1, 6:13]), cards(block[1, 13:20]), cards(block[1, 20:27])) == (
        "46",
        "47",
        "46",
    )
    assert block[2, :6].tolist() == [1, 0, 0, 0, 1, 0]
    assert (cards(block[2, 6:13]), cards(block[2, 20:27])) == ("557", "5")
    assert block[3, :6].tolist() == [0, 1, 0, 1, 0, 0] and not block[3, 6:].any()
    assert not block[4:].any()
    # Seat 1 sees the same turns from its side: "own" and "opponent" swap.
    other = observe_history(game, 1)[OBS_SIZE:].reshape(HISTORY_TURNS, turn)
    assert np.array_equal(other[:, :2], block[:, 1::-1])
    assert np.array_equal(other[:, 2:], block[:, 2:])


def test_history_block_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="a pick with no offer"):
        history_block([(0, "P4")], 0)
    with pytest.raises(ValueError, match="not a round's decisions"):
        history_block([(0, "S1")] * 9, 0)


@pytest.mark.parametrize("limit", [1, 3, None])
def test_normalised_observations_are_in_the_unit_interval(limit: int | None) -> None:
    rules = Rules(max_rounds=limit)
    top = scale(limit)
    for state in positions(7, rules):
        for seat in (0, 1):
            obs = observe(state, seat)
            unit = normalise(obs, limit)
            assert unit.dtype == np.float32
            low = -1.0 if limit is None else 0.0  # rounds_left stays -1 without a limit
            assert (unit >= low).all() and (unit <= 1.0).all()
            if limit is not None:
                assert np.allclose(unit * top, obs)
    batch = np.stack([observe(s, 0) for s in positions(8)])
    assert np.array_equal(normalise(batch), np.stack([normalise(o) for o in batch]))
