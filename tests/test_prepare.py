"""Getting the numba kernels ready before the first move (:mod:`hanamikoji.ai.prepare`).

Which agents need it, that the cheap ones skip it, and that the engine, ``play`` and ``analyze``
say what they are doing on a first run (a compilation, here announced on purpose).
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from rich.console import Console

import hanamikoji.ai.prepare as prepare_module
from hanamikoji.ai import parse_agent
from hanamikoji.ai.base import Agent
from hanamikoji.ai.prepare import NOTICE, needs_kernels, prepare
from hanamikoji.cli import main
from hanamikoji.engine import serve
from hanamikoji.play import play_game
from hanamikoji.state import State

SEARCHING = [
    "master",
    "level:medium",
    "level:hard",
    "level:master",
    "ismcts:playout=greedy",
    "ismcts:belief=5",
]
CHEAP = ["random", "greedy", "ismcts", "level:beginner", "level:easy"]


@pytest.mark.parametrize("spec", SEARCHING)
def test_searching_agents_need_the_kernels(spec: str) -> None:
    assert needs_kernels(parse_agent(spec))


@pytest.mark.parametrize("spec", CHEAP)
def test_cheap_agents_skip_the_preparation(spec: str) -> None:
    said: list[str] = []
    agent = parse_agent(spec)
    assert not needs_kernels(agent)
    assert prepare(agent, said.append) is False
    assert said == []


def test_preparing_leaves_the_agent_as_it_was() -> None:
    agent = parse_agent("level:hard")
    before = vars(agent).copy()
    assert prepare(agent) is True
    assert vars(agent) == before


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run, as far as the notice can tell: numba announces a compilation."""
    from numba.core import event

    def rehearse(agent: Agent) -> None:
        with event.trigger_event("numba:compile", data={}):
            pass

    monkeypatch.setattr(prepare_module, "_rehearse", rehearse)


def test_a_slow_preparation_is_announced_once(slow: None) -> None:
    said: list[str] = []
    assert prepare(parse_agent("master"), said.append)
    assert said == [NOTICE]
    assert NOTICE.startswith("preparing the search (first run: compiling, about ")


def test_a_quick_preparation_says_nothing() -> None:
    said: list[str] = []
    prepare(parse_agent("level:hard"), said.append)  # the kernels are cached by now
    prepare(parse_agent("level:hard"), said.append)
    assert said == []


def test_the_engine_announces_it_on_stderr_before_hello(slow: None) -> None:
    out, err = io.StringIO(), io.StringIO()
    hello = '{"type": "hello", "protocol": "hanamikoji-engine/1"}\n'
    serve(parse_agent("master"), stdin=io.StringIO(hello), stdout=out, stderr=err)
    assert err.getvalue() == f"master: {NOTICE}\n"
    assert json.loads(out.getvalue())["type"] == "hello"


def test_play_announces_it(slow: None) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, width=120)
    play_game(opponent="level:master", seed=1, seat=0, input=io.StringIO("quit\n"), console=console)
    assert NOTICE in buffer.getvalue()


def test_analyze_announces_it(
    slow: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(2)
    state = State.new(rng)
    for _ in range(3):
        state = state.apply(rng.choice(state.legal_moves))
    path = tmp_path / "game.json"
    state.record(("a", "b")).write(path)
    assert main(["analyze", str(path), "--iterations", "20"]) == 0
    assert f"hanamikoji analyze: {NOTICE}\n" in capsys.readouterr().err
