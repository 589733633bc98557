"""The built-in agents: the shared interface, legality, determinism, and greedy's judgement."""

from __future__ import annotations

import random

import pytest

from hanamikoji.ai import (
    AGENTS,
    LEVELS,
    Agent,
    AgentError,
    GreedyAgent,
    RandomAgent,
    make_agent,
    parse_agent,
)
from hanamikoji.moves import Move
from hanamikoji.state import Deal, State


def play(agents: tuple[Agent, Agent], seed: int) -> State:
    rng = random.Random(seed)
    state = State.new(random.Random(seed))
    while state.to_move is not None:
        seat = state.to_move
        move = agents[seat].choose(state.view(seat), state.legal_moves, rng, 100)
        assert move in state.legal_moves
        state = state.apply(move)
    return state


# Search agents get a small fixed budget: fast, and deterministic for a seed.
BUDGET = {
    "ismcts": {"iterations": "60"},
    "master": {"iterations": "60"},
    "master-1": {"iterations": "60"},
}


def quick(name: str) -> Agent:
    return make_agent(name, BUDGET.get(name))


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_agent_plays_legal_whole_games(name: str) -> None:
    agent = quick(name)
    assert isinstance(agent, Agent)
    assert agent.name == name
    for seed in range(3):
        assert play((agent, make_agent("random")), seed).is_over


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_agents_are_deterministic_for_a_seed(name: str) -> None:
    a, b = (
        play((quick(name), quick(name)), 11),
        play((quick(name), quick(name)), 11),
    )
    assert a.history == b.history


def test_unknown_agent_names_the_known_ones() -> None:
    with pytest.raises(AgentError, match=r"built-in agents are: .*greedy.*random"):
        make_agent("deep-blue")


def test_greedys_option_is_a_number_from_0_to_1() -> None:
    for bad in ("nan", "inf", "-1", "1.5"):
        with pytest.raises(
            AgentError, match=f"hand_weight must be a number from 0 to 1, got {bad}"
        ):
            make_agent("greedy", {"hand_weight": bad})
    with pytest.raises(AgentError, match="option 'hand_weight' must be a number, got 'heavy'"):
        make_agent("greedy", {"hand_weight": "heavy"})
    assert make_agent("greedy", {"hand_weight": "1"}).hand_weight == 1.0  # type: ignore[attr-defined]


def test_make_agent_points_a_spec_to_parse_agent() -> None:
    with pytest.raises(AgentError, match=r"parse_agent\('master:iterations=10'\) reads it"):
        make_agent("master:iterations=10")
    with pytest.raises(AgentError, match="an agent's name is text"):
        make_agent(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["random", "greedy", "net", "ismcts:iterations=5", *LEVELS])
def test_agents_refuse_an_empty_move_list_and_moves_as_text(name: str) -> None:
    state = State.new(1)
    view = state.view(0)
    agent = parse_agent(name)
    with pytest.raises(ValueError, match="no legal moves"):
        agent.choose(view, (), random.Random(0))
    text = [str(m) for m in state.legal_moves]
    with pytest.raises(TypeError, match=r"Move objects .* got 'S4' \(str\): Move.parse\('S4'\)"):
        agent.choose(view, text, random.Random(0))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"got 7 \(int\)$"):
        agent.choose(view, [*state.legal_moves, 7], random.Random(0))  # type: ignore[list-item]
    assert agent.choose(view, state.legal_moves, random.Random(0)) in state.legal_moves


@pytest.mark.parametrize(
    "name", ["random", "greedy", "net", "ismcts:iterations=5", "master:iterations=5", *LEVELS]
)
def test_agents_refuse_a_view_and_moves_of_different_positions(name: str) -> None:
    """Greedy said a bare AssertionError, ismcts an IllegalMoveError, master a KeyError, and
    random chose a move its view could not make: every agent says what does not match."""
    state = State.new(7)
    agent = parse_agent(name)
    with pytest.raises(ValueError, match=r"P77 is not legal in the view given \(seat 0, hand"):
        agent.choose(state.view(0), [Move.parse("P77")], random.Random(0))
    with pytest.raises(ValueError, match="seat 1's, which has no decision to make: it is seat 0's"):
        agent.choose(state.view(1), state.legal_moves, random.Random(0))
    over = State.new(7)
    while not over.is_over:
        over = over.apply(over.legal_moves[0])
    with pytest.raises(ValueError, match="no decision to make: it is nobody's turn"):
        agent.choose(over.view(0), state.legal_moves, random.Random(0))


def test_an_engine_command_is_no_agent() -> None:
    said = r"engine's command, not a built-in agent.*make_player"
    with pytest.raises(AgentError, match=said):
        make_agent("cmd:./my_engine")
    with pytest.raises(AgentError, match=said):
        parse_agent("cmd:./my_engine")


def test_greedy_beats_random_clearly() -> None:
    greedy, rand = GreedyAgent(), RandomAgent()
    score = 0.0
    games = 0
    for seed in range(60):
        for seats, me in (((greedy, rand), 0), ((rand, greedy), 1)):
            winner = play(seats, seed).outcome.winner  # type: ignore[union-attr]
            score += 1.0 if winner == me else 0.5 if winner is None else 0.0
            games += 1
    assert score / games > 0.7


def test_greedy_picks_the_card_that_takes_the_geisha() -> None:
    # Seat 0 offers 1, 2, 7 by Gift: seat 1 chooses among P1, P2, P7, and the 7 (charm 5) is
    # worth most to it.
    deal = Deal("3", ("112277", "344556"), "67775646")
    state = State.from_deals([deal]).apply("G127")
    view = state.view(1)
    move = GreedyAgent().choose(view, state.legal_moves, random.Random(0))
    assert move == Move.parse("P7")


def test_greedy_offers_so_that_the_worst_pick_still_helps_it() -> None:
    # With 7777 + 12 in hand and the Competition available, the pairs 77-77 give away nothing
    # whatever the pick, while 12-77 lets the opponent take the 7s.
    deal = Deal("3", ("127777", "344556"), "16562647")
    state = State.from_deals([deal])
    greedy = GreedyAgent()

    def worst_case(move: Move) -> float:
        return greedy._score(state.view(0), move, [0.0] * 7, [0.0] * 7)

    assert worst_case(Move.parse("C77-77")) > worst_case(Move.parse("C12-77"))
