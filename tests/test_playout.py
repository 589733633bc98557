"""Playout policies, the value-table trainer and the SVG charts."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from bench.svgplot import bar_chart, line_chart
from hypothesis import given, settings
from hypothesis import strategies as st

from hanamikoji.ai.fastplay import position_row
from hanamikoji.ai.net import default_net, policy_arrays
from hanamikoji.ai.playout import best_pick, play_round, play_round_smart, smart_move
from hanamikoji.ai.values import RoundValues, marker_code, round_start
from hanamikoji.kernel.actions import MOVES
from hanamikoji.kernel.tables import H, T
from hanamikoji.moves import Move
from hanamikoji.state import Deal, State

ROOT = Path(__file__).resolve().parents[1]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32))
def test_the_policies_play_legal_moves_and_finish_the_round(seed: int) -> None:
    rng = random.Random(seed)
    state = State.new(rng)
    while state.round == 1 and not state.is_over:
        assert smart_move(state, rng) in state.legal_moves
        state = state.apply(rng.choice(state.legal_moves))
    for policy in (play_round, play_round_smart):
        after = policy(State.new(random.Random(seed)), rng)
        assert after.is_over or after.round == 2


def test_best_pick_takes_the_geisha_that_decides() -> None:
    # Seat 0 offers 1, 2, 7 with nothing played yet: each card would win its geisha, and the
    # 7 (charm 5) is worth most.
    deal = Deal("3", ("112277", "344556"), "67775646")
    state = State.from_deals([deal]).apply("G127")
    assert best_pick(state, random.Random(0)) == Move.parse("P7")


@pytest.mark.parametrize("policy", ["playout", "net"])
def test_the_trainer_writes_a_table_and_a_curve(tmp_path: Path, policy: str) -> None:
    out, curve = tmp_path / "values.json", tmp_path / "curve.svg"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts/train_values.py"),
            "--policy",
            policy,
            "--samples",
            "2",
            "--stages",
            "2",
            "--out",
            str(out),
            "--curve",
            str(curve),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    table = RoundValues.from_json(json.loads(out.read_text()))
    assert 0.0 <= table.value((None,) * 7, 0, 3) <= 1.0
    ET.fromstring(curve.read_text())  # well-formed SVG


@cache
def _trainer() -> ModuleType:
    """``scripts/train_values.py`` as a module (loaded once: its kernel compiles once)."""
    spec = importlib.util.spec_from_file_location("train_values", ROOT / "scripts/train_values.py")
    assert spec is not None and spec.loader is not None
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    return trainer


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 3**7 - 1), st.integers(0, 1), st.integers(0, 2**32))
def test_the_networks_rounds_in_the_kernel_are_the_cores(code: int, first: int, seed: int) -> None:
    """``--policy net`` plays its rounds in the kernel: each move is legal in the core, and the
    core, given the same moves, ends the round with the same result."""
    trainer = _trainer()
    state = round_start(code, first, random.Random(seed))
    if state.is_over:  # a decided marker position: no round to play
        return
    moves = np.empty(32, dtype=np.int64)
    policy = policy_arrays(default_net())
    result = trainer.net_round(position_row(state, random.Random(seed)), T, H, policy, moves)
    number = state.round
    for a in moves[moves >= 0]:
        assert state.to_move is not None and state.round == number
        state = state.apply(MOVES[int(a)])
    assert state.is_over or state.round == number + 1
    outcome = state.outcome
    expected = marker_code(state.markers) if outcome is None else -1 - (outcome.winner or 0)
    assert result == expected


def test_charts_are_well_formed_svg() -> None:
    svg = line_chart([(1, 0.5), (2, 0.25), (4, 0.1)], title="t", xlabel="x", ylabel="y")
    assert ET.fromstring(svg).tag.endswith("svg")
    svg = bar_chart([("a", 0, 0, 0), ("b <c>", 120, 80, 160)], title="t", ylabel="Elo")
    root = ET.fromstring(svg)
    assert "b &lt;c&gt;" in svg and root.tag.endswith("svg")
