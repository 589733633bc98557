"""Illegal-move messages for cards a hand lacks: how many it holds and how many the move needs,
in words that fit both a player reading about their own hand and a referee or a record reader."""

from __future__ import annotations

import pytest

from hanamikoji.moves import IllegalMoveError
from hanamikoji.record import Record, RecordError
from hanamikoji.state import Deal, State

# Seat 0 draws the 7 on top of the pile: it holds 2345677 (one 2, two 7s, no 1).
_DEAL = Deal("1", ("234567", "123456"), "74566777")


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("D22", "D22 is illegal: the hand 2345677 holds one 2; D22 needs two"),
        ("G777", "G777 is illegal: the hand 2345677 holds two 7s; G777 needs three"),
        ("S1", "S1 is illegal: the hand 2345677 does not hold 1"),
        ("C11-45", "C11-45 is illegal: the hand 2345677 does not hold 1"),
        (
            "C12-12",
            "C12-12 is illegal: the hand 2345677 holds no 1s and one 2; "
            "C12-12 needs two 1s and two 2s",
        ),
    ],
)
def test_a_move_short_of_cards_says_how_many_the_hand_holds(move: str, message: str) -> None:
    state = State.from_deals([_DEAL])
    assert state.hand(0) == "2345677"
    with pytest.raises(IllegalMoveError) as info:
        state.apply(move)
    assert str(info.value) == message
    assert "seat" not in str(info.value)  # a player reads it as their own hand


def test_a_record_names_the_round_and_move_where_the_hand_fell_short() -> None:
    record = State.from_deals([_DEAL]).record()
    obj = record.to_json()
    obj["rounds"][0]["moves"] = ["D22"]
    with pytest.raises(RecordError) as info:
        Record.from_json(obj).replay()
    assert (
        str(info.value)
        == "round 1, move 0: D22 is illegal: the hand 2345677 holds one 2; D22 needs two"
    )
