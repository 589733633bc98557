"""Messages about a record's JSON speak JSON: ``null`` not ``None``, ``["b", null]`` with double
quotes, not Python's ``[None, 'b']``; from the library and from ``replay``."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import DEAL_A, MOVES_A, one_round, run_cli
from hanamikoji.record import Record, RecordError
from hanamikoji.state import Rules

GOOD: dict[str, Any] = {
    "format": "hanamikoji-record/1",
    "players": ["a", "b"],
    "rounds": [{"removed": "1", "hands": ["122334", "445556"], "deck": "66677777", "moves": []}],
}


def _rules(value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda record: record.update(rules=value)


def _round(**changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda record: record["rounds"][0].update(changes)


CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    (
        "max_rounds zero",
        _rules({"max_rounds": 0}),
        "bad rules: max_rounds must be a positive whole number or null (no limit), got 0",
    ),
    (
        "max_rounds text",
        _rules({"max_rounds": "3"}),
        'bad rules: max_rounds must be a positive whole number or null (no limit), got "3"',
    ),
    (
        "max_rounds false",
        _rules({"max_rounds": False}),
        "bad rules: max_rounds must be a positive whole number or null (no limit), got false",
    ),
    (
        "rules a list",
        _rules([None, "b"]),
        'bad rules: rules must be an object like {"max_rounds": 3}, got [null, "b"]',
    ),
    (
        "players",
        lambda record: record.update(players=["b", None]),
        'players must be a list of two names, got ["b", null]',
    ),
    (
        "players an object",
        lambda record: record.update(players={"a": True}),
        'players must be a list of two names, got {"a": true}',
    ),
    (
        "hand null",
        _round(hands=[None, "445556"]),
        "round 1: bad deal: hand 0 must be a string of digits 1-7, got null",
    ),
    (
        "deck true",
        _round(deck=True),
        "round 1: bad deal: deck must be a string of digits 1-7, got true",
    ),
    (
        "round lacks",
        lambda record: record["rounds"][0].pop("deck"),
        'round 1: the round lacks "deck"',
    ),
    (
        "format",
        lambda record: record.update(format=["x", 1.5, None]),
        'not a hanamikoji-record/1 record: format ["x", 1.5, null], expected "format": '
        '"hanamikoji-record/1"',
    ),
    (
        "why",
        lambda record: record.update(
            result={"reason": "resign", "winner": 0, "markers": [None] * 7, "why": {"k": ["\x1b"]}}
        ),
        'result why must be text or null, got {"k": ["\\u001b"]}',
    ),
]


@pytest.mark.parametrize(("change", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_record_messages_speak_json(
    change: Callable[[dict[str, Any]], None], message: str, tmp_path: Path
) -> None:
    obj = copy.deepcopy(GOOD)
    change(obj)
    with pytest.raises(RecordError) as caught:
        Record.from_json(obj).replay()
    assert str(caught.value) == message
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj))
    done = run_cli("replay", path)
    assert done.returncode == 2
    assert done.stderr == f"hanamikoji replay: {path}: {message}\n"


def test_a_move_after_the_end_is_quoted_as_json() -> None:
    obj = one_round(DEAL_A, MOVES_A, max_rounds=1).record(("a", "b")).to_json()
    obj["rounds"][0]["moves"].append("S1")
    obj["result"] = None
    with pytest.raises(RecordError, match=r'move "S1" comes after the end of the game$'):
        Record.from_json(obj).replay()


def test_rules_from_json_speaks_json_while_the_python_api_speaks_python() -> None:
    with pytest.raises(ValueError, match=r'or null \(no limit\), got \[null, "b"\]$'):
        Rules.from_json({"max_rounds": [None, "b"]})
    with pytest.raises(ValueError, match=r"or None, got 0$"):
        Rules(max_rounds=0)
