"""The numba greedy policy against GreedyAgent and the core engine."""

from __future__ import annotations

import doctest
import random

import pytest

from hanamikoji.ai import fastplay
from hanamikoji.ai.belief import determinize
from hanamikoji.ai.fastplay import (
    greedy_move,
    greedy_playout,
    greedy_playout_moves,
    greedy_round_value,
    greedy_scores,
)
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.values import CONFIGS, evaluate_round_end, markers_of, round_values
from hanamikoji.moves import Move
from hanamikoji.state import Phase, Rules, State

TOL = 1e-9
GREEDY = GreedyAgent()


def random_positions(seed: int, count: int, rules: Rules) -> list[State]:
    """Positions of random games, taken at random decisions (actions and picks, any round)."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        state = State.new(rng, rules=rules)
        while state.to_move is not None and len(out) < count:
            if rng.random() < 0.3:
                out.append(state)
            moves = state.legal_moves
            state = state.apply(moves[rng.randrange(len(moves))])
    return out


def greedy_best(state: State) -> tuple[dict[Move, float], set[Move]]:
    """GreedyAgent's score of every legal move and its tied best moves (as greedy gathers them)."""
    assert state.to_move is not None
    view = state.view(state.to_move)
    scores = {m: GREEDY.score(view, m) for m in state.legal_moves}
    best: list[Move] = []
    top = -float("inf")
    for move, score in scores.items():
        if score > top + TOL:
            best, top = [move], score
        elif abs(score - top) <= TOL:
            best.append(move)
    return scores, set(best)


def check_decision(state: State, rng: random.Random) -> set[Move]:
    """The kernel scores every legal move as greedy does and picks one of greedy's best."""
    expected, best = greedy_best(state)
    got = greedy_scores(state)
    assert list(got) == list(state.legal_moves)
    for move, score in expected.items():
        assert abs(got[move] - score) <= TOL, (state, move, got[move], score)
    move = greedy_move(state, rng)
    assert move in best, (state, move, best)
    return best


def check_playout(state: State, rng: random.Random, decisions: bool) -> None:
    """A whole-round playout replays legally in the core and ends where the kernel says."""
    number = state.round
    result = greedy_playout(state, rng)
    assert 1 <= len(result.moves) <= 16
    core = state
    for i, move in enumerate(result.moves):
        assert core.to_move is not None and core.round == number, (state, i)
        assert core.is_legal(move), (core, move)
        if decisions:
            assert move in greedy_best(core)[1], (core, move)
        core = core.apply(move)
    assert core.is_over or core.round == number + 1
    assert core.markers == result.markers
    outcome = core.outcome
    if outcome is None:
        assert result.winner is None and result.reason is None
    else:
        assert (result.winner, result.reason) == (outcome.winner, outcome.reason)
    assert result.value == evaluate_round_end(core)


def test_docstring_examples() -> None:
    assert doctest.testmod(fastplay).failed == 0


def test_decisions_match_greedy() -> None:
    rng = random.Random(11)
    positions = random_positions(1, 5000, Rules(max_rounds=None))
    phases = {p.phase for p in positions}
    assert phases == {Phase.ACTION, Phase.PICK}
    assert len({p.round for p in positions}) >= 3  # markers of earlier rounds in play
    tied = 0
    for state in positions:
        tied += len(check_decision(state, rng)) > 1
    assert tied > 100  # ties are common (equal cards): the draw between them is exercised


def test_ties_are_drawn_at_random() -> None:
    varied = 0
    for state in random_positions(2, 300, Rules()):
        best = greedy_best(state)[1]
        if len(best) > 1:
            chosen = {greedy_move(state, random.Random(seed)) for seed in range(12)}
            assert chosen <= best
            varied += len(chosen) > 1
    assert varied > 5


@pytest.mark.parametrize("max_rounds", [1, 3, 7, None])  # 7: rounds left = the table's horizon
def test_playouts_replay_in_the_core(max_rounds: int | None) -> None:
    rng = random.Random(max_rounds or 0)
    rules = Rules(max_rounds=max_rounds)
    ended = 0
    for i, state in enumerate(random_positions(max_rounds or 7, 500, rules)):
        check_playout(state, rng, decisions=i % 2 == 0)
        ended += greedy_playout(state, random.Random(i)).reason is not None
        assert greedy_round_value(state, random.Random(i)) == evaluate_round_end(
            _replay(state, greedy_playout_moves(state, random.Random(i)))
        )
    assert ended > 0


def test_value_table_lookup() -> None:
    table, horizon = fastplay.tables()
    values = round_values()
    for code in range(CONFIGS):
        markers = markers_of(code)
        for first in (0, 1):
            for left in (*range(1, horizon + 3), None):
                got = fastplay.table_value(table, horizon, code, first, left or 0)
                assert got == values.value(markers, first, left), (code, first, left)


def _replay(state: State, moves: list[Move]) -> State:
    for move in moves:
        state = state.apply(move)
    return state


def test_round_value_matches_the_core_from_a_round_start() -> None:
    rng = random.Random(5)
    for seed in range(100):
        state = State.new(random.Random(seed), rules=Rules(max_rounds=3))
        fixed = random.Random(seed)
        value = greedy_round_value(state, fixed)
        moves = greedy_playout_moves(state, random.Random(seed))
        assert value == evaluate_round_end(_replay(state, moves))
        check_playout(state, rng, decisions=True)


def test_seeded_rng_is_deterministic() -> None:
    for state in random_positions(3, 200, Rules()):
        a = greedy_playout(state, random.Random(42))
        b = greedy_playout(state, random.Random(42))
        assert a == b
        assert greedy_move(state, random.Random(9)) == greedy_move(state, random.Random(9))
        assert greedy_round_value(state, random.Random(4)) == greedy_round_value(
            state, random.Random(4)
        )


def test_determinized_positions() -> None:
    rng = random.Random(8)
    for i, real in enumerate(random_positions(4, 400, Rules(max_rounds=3))):
        assert real.to_move is not None
        view = real.view(real.to_move if i % 2 else 1 - real.to_move)
        state = determinize(view, rng, rules=Rules(max_rounds=3))
        check_decision(state, rng)
        check_playout(state, rng, decisions=True)


def test_hand_built_position() -> None:
    # Round 2, the last turn: seat 1 answers seat 0's Competition, and the round is scored.
    state = State.from_position(
        turn=7,
        hands=("", ""),
        actions_left=("", ""),
        deck="",
        removed="1",
        round=2,
        markers=(0, None, 1, None, None, 1, 0),
        played=("23677", "12367"),
        secrets=("5", "6"),
        discards=("44", "55"),
        offer="C46-77",
        rules=Rules(max_rounds=None),
        rng=random.Random(1),
    )
    assert state.phase is Phase.PICK
    check_decision(state, random.Random(2))
    check_playout(state, random.Random(3), decisions=True)
    assert len(greedy_playout_moves(state, random.Random(3))) == 1


def test_finished_game() -> None:
    state = State.new(random.Random(1), rules=Rules(max_rounds=1))
    while state.to_move is not None:
        state = state.apply(state.legal_moves[0])
    assert greedy_round_value(state, random.Random(1)) == evaluate_round_end(state)
    with pytest.raises(ValueError, match="over"):
        greedy_move(state, random.Random(1))
    with pytest.raises(ValueError, match="over"):
        greedy_playout(state, random.Random(1))


def test_ismcts_greedy_playout_is_deterministic_for_a_seed() -> None:
    from hanamikoji.ai import parse_agent
    from hanamikoji.ai.ismcts import IsmctsAgent

    state = State.new(5)
    agent = parse_agent("ismcts:iterations=200,playout=greedy")
    assert isinstance(agent, IsmctsAgent)
    first = agent.search(state.view(0), state.legal_moves, random.Random(2))
    again = agent.search(state.view(0), state.legal_moves, random.Random(2))
    assert first.moves == again.moves and first.iterations == again.iterations == 200
    assert first.best.move in state.legal_moves


def test_greedy_playout_without_numba_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from hanamikoji.ai import AgentError, parse_agent

    monkeypatch.setitem(sys.modules, "hanamikoji.ai.fastplay", None)
    with pytest.raises(AgentError, match="pip install numpy numba"):
        parse_agent("ismcts:playout=greedy")
