"""The belief's models weighed by the earlier rounds of the game (``carry``): each earlier round
rebuilt from the view as its seat saw it once scored, and each model's evidence from it."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from hanamikoji.ai.config import MASTER
from hanamikoji.ai.fastplay import greedy_move, position_row
from hanamikoji.ai.fastsearch.evidence import opponent_decisions
from hanamikoji.ai.fastsearch.models import earlier_evidence, markers_before, round_end
from hanamikoji.ai.fastsearch.search import FastSearch
from hanamikoji.cards import pack
from hanamikoji.kernel.row import (
    C_DISCARD,
    C_FIRST,
    C_HAND,
    C_MARKERS,
    C_PLAYED,
    C_REMOVED,
    C_ROUND,
    C_SECRET,
)
from hanamikoji.moves import Action
from hanamikoji.state import Rules, State
from hanamikoji.view import Reveal

BETAS = (0.0, 30 / 9, 30 / 3, 30.0)
TAUS = (1 / 9, 1 / 3, 1.0)


def greedy_game(seed: int, noise: float) -> tuple[list[State], dict[int, tuple[State, list[int]]]]:
    """A game of greedy against itself (a share ``noise`` of its moves random): every state, and for
    each round its first state with each seat's Discard and the removed card (packed, and the
    removed card as the kernel row holds it: a digit)."""
    rng = random.Random(seed)
    state = State.new(seed, rules=Rules(max_rounds=3))
    states = [state]
    rounds: dict[int, tuple[State, list[int]]] = {}
    while state.to_move is not None:
        if state.round not in rounds:
            rounds[state.round] = (state, [0, 0, int(position_row(state, None)[C_REMOVED])])
        move = rng.choice(state.legal_moves) if rng.random() < noise else greedy_move(state, rng)
        if move.action is Action.DISCARD:
            rounds[state.round][1][state.to_move] = pack(move.cards)
        state = state.apply(move)
        states.append(state)
    return states, rounds


def in_round(states: list[State], number: int, seat: int) -> State:
    """The first state of round ``number`` where ``seat`` decides."""
    return next(s for s in states if s.round == number and s.to_move == seat)


def games_of_three_rounds(
    count: int, noise: float = 0.1
) -> list[tuple[list[State], dict[int, tuple[State, list[int]]]]]:
    """``count`` games that reach round 3 (greedy's, :func:`greedy_game`)."""
    out: list[tuple[list[State], dict[int, tuple[State, list[int]]]]] = []
    seed = 0
    while len(out) < count:
        states, ends = greedy_game(seed, noise)
        seed += 1
        if any(s.round == 3 and s.to_move is not None for s in states):
            out.append((states, ends))
    return out


def test_an_earlier_round_is_rebuilt_as_the_seat_saw_it() -> None:
    """The row at the round's end: both sides' cards and Secrets, the seat's own Discard, the
    markers as the round began and its first player; the three unseen cards are the
    opponent's Discard and the removed card; the opponent's decisions are all there."""
    for states, ends in games_of_three_rounds(4):
        for seat in (0, 1):
            view = in_round(states, 3, seat).view(seat)
            opp = 1 - seat
            for number in (1, 2):
                found = round_end(view, number)
                assert found is not None
                row, unseen, decisions = found
                start, hidden = ends[number]
                score = states[-1].scorings[number - 1]
                for s in (0, 1):
                    assert row[C_PLAYED + s] == pack(score.played[s]) - pack(score.secrets[s])
                    assert row[C_SECRET + s] == pack(score.secrets[s])
                    assert row[C_HAND + s] == 0
                assert row[C_DISCARD + seat] == hidden[seat]
                assert row[C_DISCARD + opp] == 0  # never seen
                before = [-1 if m is None else m for m in score.markers_before]
                assert list(row[C_MARKERS : C_MARKERS + 7]) == before
                assert row[C_FIRST] == start.first and row[C_ROUND] == number
                truth = sorted(
                    [g + 1 for g in range(7) for _ in range((hidden[opp] >> (4 * g)) & 15)]
                    + [hidden[2]]
                )
                assert sorted(unseen.tolist()) == truth
                moves = [
                    e for e in view.history if getattr(e, "seat", None) == opp and e.round == number
                ]
                assert len(decisions) == len(moves)
                assert np.array_equal(decisions, opponent_decisions(view, number))


def test_a_round_the_history_does_not_hold_whole_is_not_rebuilt() -> None:
    states, _ = games_of_three_rounds(1)[0]
    view = in_round(states, 3, 0).view(0)
    assert round_end(view, 3) is None  # not over yet
    cut = dataclasses.replace(
        view, history=tuple(e for e in view.history if not isinstance(e, Reveal))
    )
    assert round_end(cut, 1) is None  # its scoring is not there


def test_a_game_begun_from_other_markers_gives_no_evidence() -> None:
    """The markers as each round began follow from neutral ones; a game given other markers
    at its start (an experiment's) cannot be rebuilt so, and weighs nothing."""
    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        start = (1, 0, 1, 0, None, None, None)
        state = State.from_deals([], rules=Rules(max_rounds=3), rng=rng, markers=start)
        while state.round == 1 and state.to_move is not None:
            state = state.apply(greedy_move(state, rng))
        if state.to_move is None:
            continue
        view = state.view(state.to_move)
        if markers_before(view.history, 2) == list(view.markers):
            continue  # round 1's majorities happened to give the same markers
        assert np.array_equal(earlier_evidence(view, BETAS, TAUS, 3), np.zeros(7))
        plain = earlier_evidence(
            dataclasses.replace(view, markers=tuple(markers_before(view.history, 2) or ())),
            BETAS,
            TAUS,
            3,
        )
        assert np.all(plain < 0)  # the same history from neutral markers is weighed
        checked += 1
    assert checked >= 3


def test_the_evidence_sums_the_earlier_rounds_and_reads_greedy_as_greedy() -> None:
    for states, _ in games_of_three_rounds(3, noise=0.0):
        for seat in (0, 1):
            first = earlier_evidence(in_round(states, 1, seat).view(seat), BETAS, TAUS, 3)
            assert np.array_equal(first, np.zeros(7))  # nothing before round 1
            two = earlier_evidence(in_round(states, 2, seat).view(seat), BETAS, TAUS, 3)
            three_view = in_round(states, 3, seat).view(seat)
            three = earlier_evidence(three_view, BETAS, TAUS, 3)
            assert np.array_equal(three, earlier_evidence(three_view, BETAS, TAUS, 3))
            assert np.all(three <= two + 1e-9)  # one round more: likelihoods of at most 1
            assert np.all(two < 0)
            # greedy's sharper softnesses explain greedy better than a uniform player does
            assert max(two[1:4]) > two[0] and max(three[1:4]) > three[0]
            assert max(three[1:4]) > max(three[4:])


def test_the_search_weighs_its_models_by_the_earlier_rounds() -> None:
    """Round 1: the very trees of master's; later, the mixture's prior is the earlier rounds'
    evidence, and with the opponent's prior the belief's prediction it leans to greedy's
    models against greedy. A fixed budget stays deterministic."""
    carry = MASTER.replace(carry=True)
    for states, _ in games_of_three_rounds(2, noise=0.0):
        opening = in_round(states, 1, 1)
        plain = FastSearch(opening.view(1), random.Random(2), capacity=1001, config=MASTER)
        plain.run(1000)
        same = FastSearch(opening.view(1), random.Random(2), capacity=1001, config=carry)
        same.run(1000)
        assert np.array_equal(plain.N, same.N) and np.array_equal(plain.oN, same.oN)
        later = next(
            s
            for s in states
            if s.round == 3 and s.to_move == 0 and len(opponent_decisions(s.view(0)))
        )
        view = later.view(0)
        tree = FastSearch(
            view, random.Random(2), capacity=1001, config=carry.replace(oprior="belief")
        )
        tree.run(1000)
        assert np.array_equal(tree.earlier, earlier_evidence(view, BETAS, TAUS, 3))
        assert tree.opost[1:4].sum() > 0.9  # greedy's models, from the earlier rounds
        again = FastSearch(
            view, random.Random(2), capacity=1001, config=carry.replace(oprior="belief")
        )
        again.run(1000)
        assert np.array_equal(tree.N, again.N) and np.array_equal(tree.oN, again.oN)
        plain = FastSearch(view, random.Random(2), capacity=1001, config=MASTER)
        assert plain.logw.shape == tree.logw.shape and not np.allclose(plain.logw, tree.logw)


def test_carry_and_the_beliefs_prior_are_options_master_leaves_off() -> None:
    """Measured: they gained against greedy what they lost against ismcts (docs/ai.md); the
    belief's families each at its sharpest (``oprior=sharp``) gained against greedy alone, and
    with the greedy share read from the whole game (``ocarry``) lost nothing that shows."""
    from hanamikoji.ai import parse_agent

    assert not MASTER.carry and MASTER.oprior == "sharp" and MASTER.ocarry
    agent = parse_agent("master:carry=1,oprior=belief")
    assert agent.config == MASTER.replace(carry=True, oprior="belief")  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="carry must be true or false"):
        MASTER.replace(carry=2)
