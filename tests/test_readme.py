"""The examples in the README, the docs and the docstrings run as written; the bench plays games."""

from __future__ import annotations

import doctest
import importlib
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


@pytest.mark.parametrize("page", ["docs/formats.md", "docs/research.md"])
def test_doc_examples_run(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if page == "docs/research.md":
        for extra in ("gymnasium", "pettingzoo", "pyspiel"):
            pytest.importorskip(extra, reason="the research extra is not installed")
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(
        str(ROOT / page), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    "module",
    [
        "hanamikoji",
        "hanamikoji.cards",
        "hanamikoji.moves",
        "hanamikoji.state",
        "hanamikoji.record",
        "hanamikoji.ai",
        "hanamikoji.env.pettingzoo",
        "hanamikoji.env.gym",
        "hanamikoji.env.batch",
        "hanamikoji.web.lookalike",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    if module in ("hanamikoji.env.pettingzoo", "hanamikoji.env.gym"):
        pytest.importorskip(module.rsplit(".", 1)[1].replace("gym", "gymnasium"))
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_research_page_lists_the_observation_fields() -> None:
    from hanamikoji.env.observation import FIELDS, field_slices

    text = (ROOT / "docs/research.md").read_text()
    at = field_slices()
    for name, _, meaning in FIELDS:
        where = at[name]
        span = (
            str(where.start) if where.stop - where.start == 1 else f"{where.start}-{where.stop - 1}"
        )
        assert f"| `{name}` | {span} | {meaning} |" in text


def test_research_page_code_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The plain (non-doctest) Python blocks of docs/research.md run as written.
    monkeypatch.chdir(tmp_path)
    text = (ROOT / "docs/research.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    plain = [b for b in blocks if not b.lstrip().startswith(">>>")]
    assert len(plain) >= 2
    for block in plain:
        exec(compile(block, "docs/research.md", "exec"), {})
