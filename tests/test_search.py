"""The search agents: determinism, statistics, levels, the value table, and no blunders."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from hanamikoji.ai import LEVELS, make_agent, parse_agent
from hanamikoji.ai.base import start_game
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.ai.master import MasterAgent
from hanamikoji.ai.values import CONFIGS, marker_code, markers_of, round_values
from hanamikoji.moves import Move
from hanamikoji.state import Rules, State

# The last decisions of a one-round game (and of round 3 of three), built by hand. Seat 1 has
# just offered the Competition 11-77: taking 77 wins seat 0 the game, taking 11 loses it (or
# draws, depending on the Secret seat 0 cannot see). Before that, seat 1 had 1177 in hand and
# one action left: C17-17 wins it the game, C11-77 loses it.
COMMON = {
    "turn": 7,
    "deck": "",
    "removed": "6",
    "played": ("23457", "34577"),
    "secrets": ("5", "4"),
    "discards": ("66", "26"),
}


def pick_position(round_: int, max_rounds: int) -> State:
    return State.from_position(
        hands=("", ""),
        actions_left=("", ""),
        offer="C11-77",
        round=round_,
        rules=Rules(max_rounds),
        **COMMON,  # type: ignore[arg-type]
    )


def offer_position(round_: int, max_rounds: int) -> State:
    return State.from_position(
        hands=("", "1177"),
        actions_left=("", "C"),
        round=round_,
        rules=Rules(max_rounds),
        **COMMON,  # type: ignore[arg-type]
    )


def test_the_constructed_positions_are_what_they_claim() -> None:
    state = pick_position(1, 1)
    assert state.to_move == 0
    assert state.apply("P77").outcome.winner == 0  # type: ignore[union-attr]
    assert state.apply("P11").outcome.winner == 1  # type: ignore[union-attr]
    state = offer_position(1, 1)
    assert state.to_move == 1
    assert set(state.legal_moves) == {Move.parse("C11-77"), Move.parse("C17-17")}
    after = state.apply("C17-17").apply("P17")
    assert after.outcome is not None and after.outcome.winner == 1


SEARCHERS: dict[str, Callable[[], IsmctsAgent]] = {
    "ismcts": lambda: IsmctsAgent(iterations=300, playout="policy"),
    "ismcts-greedy": lambda: IsmctsAgent(iterations=300, playout="greedy"),
    "ismcts-smart": lambda: IsmctsAgent(iterations=300, playout="smart", prior=1.0),
    "ismcts-hidden-greedy": lambda: IsmctsAgent(iterations=300, playout="smart", hidden="greedy"),
    "master": lambda: MasterAgent(iterations=300),
    "master-adapt": lambda: MasterAgent(iterations=300, adapt=0.000001),
    "master-hidden-random": lambda: MasterAgent(iterations=300, hidden="random"),
}


@pytest.mark.parametrize("who", sorted(SEARCHERS))
@pytest.mark.parametrize(("round_", "limit"), [(1, 1), (3, 3)])
def test_no_blunder_in_the_last_decisions(who: str, round_: int, limit: int) -> None:
    for seed in range(5):
        agent = SEARCHERS[who]()
        start_game(agent, 0, Rules(limit))
        state = pick_position(round_, limit)
        move = agent.choose(state.view(0), state.legal_moves, random.Random(seed))
        assert move == Move.parse("P77"), (who, seed)
        agent = SEARCHERS[who]()
        start_game(agent, 1, Rules(limit))
        state = offer_position(round_, limit)
        move = agent.choose(state.view(1), state.legal_moves, random.Random(seed))
        assert move == Move.parse("C17-17"), (who, seed)


def test_a_search_with_a_fixed_budget_is_deterministic_and_counts_its_visits() -> None:
    state = State.new(8)
    view = state.view(0)
    agent = IsmctsAgent(iterations=400)
    a = agent.search(view, state.legal_moves, random.Random(3))
    b = agent.search(view, state.legal_moves, random.Random(3))
    assert a.moves == b.moves
    assert a.iterations == 400
    assert sum(m.visits for m in a.moves) == 400
    assert {m.move for m in a.moves} == set(state.legal_moves)
    assert a.moves[0].visits == max(m.visits for m in a.moves)
    assert all(0.0 <= m.value <= 1.0 for m in a.moves)


@pytest.mark.parametrize("adapt", [0.0, 0.000001])
def test_the_opponent_model_keeps_the_search_deterministic(adapt: float) -> None:
    state = State.new(8)
    for _ in range(5):  # into the round, past an offer or two
        state = state.apply(state.legal_moves[0])
    view = state.view(state.to_move)  # type: ignore[arg-type]
    agent = MasterAgent(iterations=300, adapt=adapt)
    a = agent.search(view, state.legal_moves, random.Random(3))
    b = agent.search(view, state.legal_moves, random.Random(3))
    assert a.moves == b.moves and a.iterations == 300
    assert sum(m.visits for m in a.moves) == 300


def test_a_time_budget_is_respected() -> None:
    state = State.new(9)
    result = IsmctsAgent(time_ms=150).search(state.view(0), state.legal_moves, random.Random(1))
    # the budget stops the search (a loaded CI machine once took 0.56 s for these 150 ms)
    assert result.seconds < 1.5
    assert result.iterations > 10


def test_bad_search_options_are_refused() -> None:
    for spec in (
        "ismcts:playout=magic",
        "ismcts:iterations=-1",
        "master:exploration=-2",
        "master:model=psychic",
    ):
        with pytest.raises(ValueError):
            parse_agent(spec)


def test_every_level_is_an_agent_with_its_name() -> None:
    for name in LEVELS:
        agent = make_agent(name)
        assert agent.name == name
    assert list(LEVELS) == ["beginner", "easy", "medium", "hard", "master"]


def test_the_value_table_is_a_probability_and_knows_finished_positions() -> None:
    values = round_values()
    for code in range(0, CONFIGS, 7):
        markers = markers_of(code)
        assert marker_code(markers) == code
        for first in (0, 1):
            for left in (1, 2, 3, None):
                assert 0.0 <= values.value(markers, first, left) <= 1.0
    # seat 0 holds geisha 5, 6, 7: 12 charm, the game is won whatever comes
    won = (None, None, None, None, 0, 0, 0)
    assert values.value(won, 1, 2) == 1.0
    # the last round's limit: equal charm and no round left is a draw
    assert values.value((None,) * 7, 0, 0) == 0.5


def test_the_value_table_is_nearly_symmetric_between_the_seats() -> None:
    values = round_values()
    swap = {None: None, 0: 1, 1: 0}
    total = 0.0
    for code in range(CONFIGS):
        markers = markers_of(code)
        mirrored = tuple(swap[m] for m in markers)
        total += abs(values.value(markers, 0, 2) - (1.0 - values.value(mirrored, 1, 2)))
    assert total / CONFIGS < 0.03
