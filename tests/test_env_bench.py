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


def test_the_readme_cites_the_speed_table_of_docs_research() -> None:
    """The README's research speed figures are those of docs/research.md's Speed table (they
    once disagreed: 12 million and 15,600 in the README, 9,959,332 and 22,219 in the table)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    docs = (root / "docs/research.md").read_text()
    table = docs.split("\n## Speed\n", 1)[1].split("\n## ", 1)[0]
    figures = set(re.findall(r"\| ([\d,]{5,}) ", table))
    assert len(figures) >= 5
    readme = (root / "README.md").read_text()
    research = readme.split("\n## Research", 1)[1].split("\n## ", 1)[0]
    paragraph = next(p for p in readme.split("\n\n") if "bench/env.py" in p)
    assert "OMP_NUM_THREADS=1 .venv/bin/python bench/env.py" in paragraph
    assert "OMP_NUM_THREADS=1 .venv/bin/python bench/env.py" in docs
    for text in (research, paragraph):
        speeds = re.findall(r"\b\d{1,3}(?:,\d{3})+\b", text)  # 22,219 and the like
        assert speeds and set(speeds) <= figures, (speeds, figures)
        assert not re.search(r"\d million", text), "cite the table's figures"
