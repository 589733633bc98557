"""Long records: a bound on rounds, and replaying whose work grows with the record, no faster.

A game without a round limit whose rounds never move a marker goes on as long as its record
does; these are built from two such rounds (seat 0 first, then seat 1 first), repeated.
"""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import hanamikoji.replay as replay_module
from hanamikoji.record import FORMAT, MAX_RECORD_ROUNDS, Record, RecordError
from hanamikoji.replay import render_replay

# Two legal rounds that leave every marker where it was (found by a random search).
_ROUNDS = [
    {
        "removed": "3",
        "hands": ["345677", "124567"],
        "deck": "42767165",
        "moves": [
            "C36-47",
            "P47",
            "S7",
            "D47",
            "C26-26",
            "P26",
            "S7",
            "G145",
            "P4",
            "G567",
            "P6",
            "D15",
        ],
    },
    {
        "removed": "3",
        "hands": ["155667", "144467"],
        "deck": "72275367",
        "moves": [
            "G147",
            "P1",
            "C56-57",
            "P57",
            "C26-47",
            "P47",
            "S2",
            "D45",
            "D37",
            "S6",
            "G167",
            "P1",
        ],
    },
]


def _long(rounds: int) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "rules": {"max_rounds": None},
        "players": ["a", "b"],
        "rounds": [_ROUNDS[i % 2] for i in range(rounds)],
        "result": None,
    }


def test_a_record_of_more_rounds_than_the_limit_is_refused_before_replaying() -> None:
    with pytest.raises(RecordError, match=r"too many rounds for a record: 1,001, over the limit"):
        Record.from_json(_long(MAX_RECORD_ROUNDS + 1))
    record = Record.from_json(_long(MAX_RECORD_ROUNDS))
    with pytest.raises(RecordError, match="too many rounds"):
        Record(record.rules, record.players, record.rounds * 2).replay()


def test_a_record_at_the_limit_replays_within_the_promised_memory() -> None:
    tracemalloc.start()
    try:
        record = Record.from_json(_long(MAX_RECORD_ROUNDS))
        state = record.replay()
        text = render_replay(record, state)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert state.round == MAX_RECORD_ROUNDS + 1 and state.outcome is None
    assert text.count("Round ") == MAX_RECORD_ROUNDS
    assert peak < 100 * 1024 * 1024  # docs/formats.md: about 100 MB at worst


def _lines_run(fn: Any, *args: Any) -> int:
    """How many lines of replay.py run during ``fn(*args)``: its work, counted exactly."""
    source = replay_module.__file__
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == source else None

    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
    return count


def test_telling_a_game_takes_work_in_proportion_to_its_moves() -> None:
    work = []
    for rounds in (40, 80):
        record = Record.from_json(_long(rounds))
        work.append(_lines_run(render_replay, record, record.replay()))
    # Twice the rounds, twice the work (give or take the header and the end); a scan of the
    # whole game for each round would be four times.
    assert work[1] < 2.2 * work[0]


def test_the_reader_refuses_a_long_file_without_replaying_it(tmp_path: Path) -> None:
    import json

    path = tmp_path / "long.json"
    path.write_text(json.dumps(_long(MAX_RECORD_ROUNDS * 3)), encoding="utf-8")
    with pytest.raises(RecordError, match="3,000, over the limit of 1,000"):
        Record.read(path)
