"""bench/env.py's measurements run at a tiny size (the figures are in docs/research.md)."""

from __future__ import annotations

import pytest
from bench.env import batch_mlp


def test_the_mlp_loop_counts_decisions_and_simulator_time() -> None:
    decisions, elapsed, in_sim = batch_mlp(16, 5, seed=1)
    assert 16 * 4 <= decisions <= 16 * 5  # a game may have ended (its slot idle for a step)
    assert 0.0 < in_sim < elapsed


def test_the_vector_and_ismcts_rows_run() -> None:
    pytest.importorskip("gymnasium", reason="the research extra is not installed")
    pytest.importorskip("pyspiel", reason="the research extra is not installed")
    from bench.env import ismcts_games, vector_greedy

    steps, elapsed = vector_greedy(8, 5, seed=1)
    assert steps == 40 and elapsed > 0
    row = ismcts_games(1, 5, seed=1)
    assert 0.0 <= row["score_vs_random"] <= 1.0 and 0.0 <= row["score_vs_greedy"] <= 1.0
    assert row["s_per_game_vs_greedy"] > 0
