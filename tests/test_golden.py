"""The built-in players and the batch simulator play exactly as they did when the golden record
was made (tests/golden.py): the same moves for the same seeds and budgets on 200 positions."""

from __future__ import annotations

import json
from typing import Any

import pytest

import golden


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(golden.PATH.read_text())
    return data


@pytest.fixture(scope="module")
def states() -> list[Any]:
    return golden.positions()


@pytest.mark.parametrize("name", ["greedy", "medium", "hard", "master", "master-1"])
def test_players_move_as_recorded(name: str, recorded: dict[str, Any], states: list[Any]) -> None:
    got = golden.agent_moves(name, states)
    want = recorded[golden.RECORDED_AS.get(name, name)]
    diff = [(i, r, g) for i, (r, g) in enumerate(zip(want, got, strict=True)) if r != g]
    assert not diff, f"{name} plays differently at {len(diff)} positions, e.g. {diff[:5]}"


def test_greedy_kernel_plays_out_as_recorded(recorded: dict[str, Any], states: list[Any]) -> None:
    assert golden.kernel_playouts(states) == recorded["kernel"]


def test_batch_simulator_steps_as_recorded(recorded: dict[str, Any]) -> None:
    assert golden.batch_digests() == recorded["batch"]
