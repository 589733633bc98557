"""Library pitfalls around records and legal moves."""

from __future__ import annotations

import pytest

from hanamikoji.moves import Move
from hanamikoji.record import Record, RecordError
from hanamikoji.state import State


def test_one_string_of_players_is_refused_not_split_into_letters() -> None:
    state = State.new(7)
    with pytest.raises(TypeError, match=r"players must be two names, .* not one string 'ab'"):
        state.record(players="ab")
    assert state.record(players=("ab", "cd")).players == ("ab", "cd")


def test_loads_of_a_parsed_object_is_a_record_error_that_says_what_it_takes() -> None:
    obj = State.new(7).record().to_json()
    with pytest.raises(RecordError, match=r"JSON text \(a str or bytes\), got a dict: .*from_json"):
        Record.loads(obj)  # type: ignore[arg-type]
    with pytest.raises(RecordError, match="got an int"):
        Record.loads(3)  # type: ignore[arg-type]
    assert Record.from_json(obj) == Record.loads(Record.from_json(obj).dumps())


def test_legal_moves_hold_moves_so_ask_with_a_parsed_move() -> None:
    state = State.new(7)
    assert "S2" not in state.legal_moves  # type: ignore[comparison-overlap]  # documented in the README: Moves, not strings
    assert Move.parse("S2") in state.legal_moves
