"""The README's Python example runs as written, and the bench's loop plays whole games."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README has a Python example"
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert (tmp_path / "game.json").exists()


def test_engine_bench_plays_whole_games() -> None:
    from bench.engine import play_random_games

    assert play_random_games(20, seed=3) >= 20 * 12  # at least one round of 12 decisions a game
    assert play_random_games(5, seed=3) == play_random_games(5, seed=3)
