"""The search's options are declared once (hanamikoji.ai.config): the agents, parse_agent, the
CLI's help, the engine's hello and the docs' table all follow the declaration."""

from __future__ import annotations

import argparse
import io
import json
import random
import re
from pathlib import Path

import pytest

from hanamikoji.ai import IsmctsAgent, MasterAgent, declared_options, make_agent, parse_agent
from hanamikoji.ai.config import (
    ISMCTS,
    LIMITS,
    LONG,
    MASTER,
    OPTIONS,
    RETIRED,
    Limits,
    SearchConfig,
)
from hanamikoji.engine import serve

ROOT = Path(__file__).resolve().parents[1]


def options_table() -> str:
    """docs/ai.md's options table, as the declaration gives it."""
    rows = [
        "| option | type | `ismcts` | `master` | allowed | what it does |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    python, fast = IsmctsAgent.options(), MasterAgent.options()
    for name, option in {**LIMITS, **OPTIONS}.items():
        a = f"`{python[name].default}`" if name in python else "—"
        b = f"`{fast[name].default}`" if name in fast else "—"
        if name in LIMITS:
            a = b = f"`{option.default}`"
        rows.append(
            f"| `{name}` | {option.type.__name__} | {a} | {b} | {option.range_text()} "
            f"| {option.help} |"
        )
    return "\n".join(rows)


def test_the_docs_table_is_the_declaration() -> None:
    text = (ROOT / "docs/ai.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- options-table[^>]*-->\n(.*?)\n<!-- /options-table -->", text, re.S)
    assert found is not None
    assert found.group(1) == options_table()


def test_master_is_a_preset_of_the_one_configuration() -> None:
    assert MasterAgent(iterations=5).config == MASTER
    assert IsmctsAgent().config == ISMCTS == SearchConfig()
    assert MasterAgent(guide=0).config == MASTER.replace(guide=0)
    agent = IsmctsAgent(iterations=7, config=MASTER.replace(belief=0))
    assert agent.config.exploration == 0.5 and agent.limits == Limits(7, 0)
    assert make_agent("master", {"guide": "0", "mix": "off"}).config == MASTER.replace(  # type: ignore[attr-defined]
        guide=0.0, mix=False
    )


def test_a_long_time_budget_searches_with_the_long_settings() -> None:
    long = MASTER.replace(**LONG)
    assert MASTER.long == 1000 and long != MASTER
    assert MasterAgent(time_ms=3000).settings(None) == long
    assert MasterAgent().settings(1000) == long  # the clock given
    assert MasterAgent().settings(None) == long  # no clock: 1,000 ms
    assert MasterAgent().settings(999) == MASTER
    assert MasterAgent(time_ms=200).settings(5000) == MASTER  # time_ms before the clock
    # A fixed number of iterations keeps the settings, however many (levels, hints, reviews).
    assert MasterAgent(iterations=10**7).settings(5000) == MASTER
    # What the agent was given stays as given; long=0 turns it off, another threshold moves it.
    assert MasterAgent(time_ms=1000, puct=2.0).settings(None) == long.replace(puct=2.0)
    assert MasterAgent(time_ms=1000, long=0).settings(None) == MASTER.replace(long=0)
    later = make_agent("master", {"long": "2000", "time_ms": "1500"})
    assert later.settings(None) == MASTER.replace(long=2000)  # type: ignore[attr-defined]
    assert Limits(0, 0).time_budget_ms(None) == 1000 and Limits(5, 0).time_budget_ms(300) is None


def test_the_search_is_given_the_long_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    import hanamikoji.ai.fastsearch as fastsearch
    from hanamikoji.state import State

    seen: list[SearchConfig] = []

    def spy(view, legal, rng, **kw):  # type: ignore[no-untyped-def]
        seen.append(kw["config"])
        return [(m, 1, 0.5) for m in legal], 1, 0.0

    monkeypatch.setattr(fastsearch, "fast_search", spy)
    view = State.new(3).view(0)
    rng = random.Random(1)
    MasterAgent(time_ms=1000).search(view, view.legal_moves, rng)
    MasterAgent().search(view, view.legal_moves, rng, clock_ms=200)
    MasterAgent(iterations=50).search(view, view.legal_moves, rng, clock_ms=5000)
    assert seen == [MASTER.replace(**LONG), MASTER, MASTER]


@pytest.mark.parametrize("name", sorted(RETIRED))
def test_a_retired_option_is_refused_with_its_reason(name: str) -> None:
    with pytest.raises(ValueError, match="retired"):
        parse_agent(f"master:{name}=1")
    with pytest.raises(ValueError, match="retired"):
        retired: dict[str, object] = {name: 1}
        MasterAgent(**retired)  # type: ignore[arg-type]


def test_values_are_checked_against_the_declaration() -> None:
    for bad in ("exploration=-1", "adapt=1.5", "hidden=psychic", "mix=maybe", "pool=2.5"):
        with pytest.raises(ValueError):
            parse_agent(f"master:{bad}")
    # Not a finite number, or past any sensible budget: refused before a game starts (a
    # match would otherwise run for ever or run out of memory), saying what is allowed.
    for bad, words in (
        ("exploration=nan", "finite number"),
        ("exploration=inf", "finite number"),
        ("time_ms=99999999999999999999", "time_ms must be 0 to 3,600,000"),
        ("iterations=1000000000000", "iterations must be 0 to 100,000,000"),
        ("pool=1000000000000", "pool must be 0 to 1,048,576"),
        ("iterations=1.5", "iterations must be a whole number"),
        ("iterations=many", "iterations must be a whole number, got 'many'"),
        ("exploration=high", "exploration must be a number, got 'high'"),
        ("iterations=1,iterations=2", "'iterations' is given twice"),
    ):
        with pytest.raises(ValueError, match=re.escape(words)):
            parse_agent(f"master:{bad}")
    with pytest.raises(ValueError, match="iterations"):
        Limits(iterations=-1)


def test_the_engines_hello_lists_the_options() -> None:
    out = io.StringIO()
    hello = '{"type": "hello", "protocol": "hanamikoji-engine/1"}\n'
    serve(parse_agent("master:guide=0"), stdin=io.StringIO(hello), stdout=out, stderr=io.StringIO())
    answer = json.loads(out.getvalue().splitlines()[0])
    listed = {o["name"]: o for o in answer["options"]}
    assert list(listed) == [*LIMITS, *MasterAgent.options()]
    assert listed["guide"]["default"] == 0.0 and listed["belief"]["default"] == 30.0
    assert listed["hidden"]["choices"] == ["random", "greedy"]
    assert listed["adapt"]["min"] == 0.0 and listed["adapt"]["max"] == 1.0
    assert declared_options(make_agent("greedy")) == []
    assert declared_options(make_agent("hard")) == []  # a level takes no options


def test_the_engine_help_lists_the_options() -> None:
    from hanamikoji.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(sub, argparse._SubParsersAction)
    text = sub.choices["engine"].format_help()
    for name in OPTIONS:
        assert f"  {name}=" in text


def test_master_1_keeps_todays_master() -> None:
    from hanamikoji.ai import Master1Agent
    from hanamikoji.ai.config import MASTER_1

    agent = parse_agent("master-1:iterations=300")
    assert isinstance(agent, Master1Agent) and agent.name == "master-1"
    assert agent.config == MASTER_1 and agent.limits == Limits(300, 0)
    today = SearchConfig(
        exploration=0.5, playout="greedy", prior=1.0, belief=30.0, hidden="greedy",
        guide=0.4, mix=True, adapt=0.6,
    )  # fmt: skip
    assert today == MASTER_1
    assert declared_options(agent)[0]["name"] == "iterations"
