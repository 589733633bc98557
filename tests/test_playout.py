"""Playout policies, the value-table trainer and the SVG charts."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from bench.svgplot import bar_chart, line_chart
from hypothesis import given, settings
from hypothesis import strategies as st

from hanamikoji.ai.playout import best_pick, play_round, play_round_smart, smart_move
from hanamikoji.ai.values import RoundValues
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


def test_the_trainer_writes_a_table_and_a_curve(tmp_path: Path) -> None:
    out, curve = tmp_path / "values.json", tmp_path / "curve.svg"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts/train_values.py"),
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


def test_charts_are_well_formed_svg() -> None:
    svg = line_chart([(1, 0.5), (2, 0.25), (4, 0.1)], title="t", xlabel="x", ylabel="y")
    assert ET.fromstring(svg).tag.endswith("svg")
    svg = bar_chart([("a", 0, 0, 0), ("b <c>", 120, 80, 160)], title="t", ylabel="Elo")
    root = ET.fromstring(svg)
    assert "b &lt;c&gt;" in svg and root.tag.endswith("svg")
