"""Any input to the record reader gives a game or a RecordError, never another exception."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hanamikoji.record import Record, RecordError
from hanamikoji.state import State

JUNK: list[Any] = [
    None,
    True,
    0,
    -1,
    7,
    1.5,
    "",
    "x",
    "S4",
    [],
    {},
    [1, 2],
    "1234567",
    "G147",
    10**30,
    {"a": 1},
    ["1", "2"],
    "C12-12",
    "P",
    "\u0663",
    "S\x00",
]


def _mutate(obj: Any, rng: random.Random) -> None:
    if isinstance(obj, dict) and obj:
        key = rng.choice(sorted(obj))
        r = rng.random()
        if r < 0.2:
            del obj[key]
        elif r < 0.5:
            obj[key] = rng.choice(JUNK)
        else:
            _mutate(obj[key], rng)
    elif isinstance(obj, list) and obj:
        i = rng.randrange(len(obj))
        r = rng.random()
        if r < 0.2:
            del obj[i]
        elif r < 0.5:
            obj[i] = rng.choice(JUNK)
        else:
            _mutate(obj[i], rng)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 4))
def test_mutated_records_are_read_or_rejected_cleanly(seed: int, mutations: int) -> None:
    rng = random.Random(seed)
    state = State.new(rng)
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves))
    obj = state.record(("a", "b")).to_json()
    for _ in range(mutations):
        _mutate(obj, rng)
    try:
        Record.from_json(obj).replay()
    except RecordError as e:
        assert str(e)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_arbitrary_text_is_rejected_cleanly(text: str | bytes) -> None:
    try:
        Record.loads(text)
    except RecordError as e:
        assert str(e)


def test_deeply_nested_json_is_rejected_cleanly() -> None:
    for text in (
        "[" * 100_000,
        json.dumps({"format": "hanamikoji-record/1"})[:-1]
        + ', "rounds": '
        + "[" * 5000
        + "]" * 5000
        + "}",
    ):
        try:
            Record.loads(text).replay()
        except RecordError as e:
            assert "JSON" in str(e) or "round" in str(e)
