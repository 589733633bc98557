"""The numba ISMCTS: its worlds, determinism, agreement with the Python search, its limits."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from hanamikoji.ai import AgentError, parse_agent
from hanamikoji.ai.belief import hidden_slots, unseen_cards
from hanamikoji.ai.fastsearch import Dealing, FastSearch, fast_search
from hanamikoji.ai.ismcts import IsmctsAgent, search_worlds
from hanamikoji.ai.master import MasterAgent
from hanamikoji.cards import pack
from hanamikoji.kernel.row import C_DECK as P_DECK
from hanamikoji.kernel.row import C_HAND as P_HAND
from hanamikoji.kernel.row import C_RNG as P_RNG
from hanamikoji.kernel.row import C_SECRET as P_SECRET
from hanamikoji.kernel.row import C_TURN as P_TURN
from hanamikoji.state import Rules, State
from hanamikoji.view import View


def position(seed: int, decisions: int) -> State:
    """A random game after ``decisions`` random decisions (still in round 1, a seat to move)."""
    rng = random.Random(seed)
    state = State.new(rng, rules=Rules(max_rounds=3))
    for _ in range(decisions):
        moves = state.legal_moves
        state = state.apply(moves[rng.randrange(len(moves))])
    assert state.to_move is not None
    return state


def counts(code: int) -> Counter[int]:
    """The geisha (0..6) of a packed card set, with multiplicity."""
    return Counter({g: (code >> (4 * g)) & 15 for g in range(7) if (code >> (4 * g)) & 15})


@pytest.mark.parametrize("decisions", [0, 3, 7, 11])
def test_worlds_deal_exactly_the_unseen_cards_uniformly(decisions: int) -> None:
    state = position(4, decisions)
    me = state.to_move
    assert me is not None
    view = View.of(state, me)
    tree = FastSearch(view, random.Random(1), capacity=16)
    slots = hidden_slots(view)
    unseen = Counter(int(c) - 1 for c in unseen_cards(view))
    turn = int(tree.template[P_TURN])
    worlds = tree.worlds(4000, seed=7)
    in_hand: Counter[int] = Counter()
    for row in worlds:
        # What the seat sees is as the template has it; only the hidden places change.
        hidden = (P_HAND + 1 - me, P_SECRET + 1 - me, P_RNG)
        same = [i for i in range(len(row)) if i not in hidden]
        same = [i for i in same if not P_DECK + turn < i <= P_DECK + 7]
        assert all(row[i] == tree.template[i] for i in same)
        hand = counts(int(row[P_HAND + 1 - me]))
        assert sum(hand.values()) == slots.hand
        placed = hand + counts(int(row[P_SECRET + 1 - me])) if slots.secret else Counter(hand)
        deck = [int(row[P_DECK + turn + 1 + j]) for j in range(slots.deck)]
        assert all(1 <= digit <= 7 for digit in deck)  # the pile's cards are digits
        for digit in deck:
            placed += counts(pack(str(digit)))
        assert placed.total() == slots.hand + slots.secret + slots.deck
        assert all(placed[g] <= unseen[g] for g in placed), (placed, unseen)
        in_hand += hand
    total = unseen.total()
    for g, n in unseen.items():  # each unseen card is in the hand with chance hand / total
        expected = len(worlds) * slots.hand * n / total
        assert abs(in_hand[g] - expected) <= 5 * expected**0.5 + 1, (g, in_hand[g], expected)


@pytest.mark.parametrize("decisions", [0, 5, 11])
def test_a_dealing_that_knows_the_true_hand_deals_it_and_shuffles_the_pile(decisions: int) -> None:
    # The hook an experiment (bench/information.py) gives the search more than the view with.
    truth = position(6, decisions)
    me = truth.to_move
    assert me is not None
    view = View.of(truth, me)
    opp, p = 1 - me, truth.position()
    turn = p.turn
    pile = [int(c) for c in p.deck]
    hidden = Counter([*pile, int(p.removed)])  # the pile and the removed card
    oracle = Dealing(truth, p.deck + p.removed, (0, 0, len(p.deck), 0))
    tree = FastSearch(view, random.Random(2), capacity=16, dealing=oracle)
    orders = set()
    for row in tree.worlds(200, seed=3):
        assert row[P_HAND + opp] == pack(truth.hand(opp))
        assert row[P_SECRET + opp] == pack(truth.secret(opp) or "")
        deck = [int(row[P_DECK + turn + 1 + j]) for j in range(7 - turn)]
        assert Counter(deck) <= hidden and len(deck) == len(pile)  # shuffled with the removed
        orders.add(tuple(deck))
    assert len(orders) > 1 or turn == 7  # (nothing left to draw on the last turn)
    clairvoyant = Dealing(truth, "", (0, 0, 0, 0))
    seen = FastSearch(view, random.Random(2), capacity=16, dealing=clairvoyant)
    for row in seen.worlds(20, seed=3):
        assert [int(row[P_DECK + turn + 1 + j]) for j in range(7 - turn)] == pile
    agent = MasterAgent(iterations=500)
    found = search_worlds(agent, view, truth.legal_moves, random.Random(1), clairvoyant)
    assert found.iterations == 500
    with pytest.raises(ValueError, match="function"):
        search_worlds(IsmctsAgent(iterations=10), view, truth.legal_moves, random.Random(1), oracle)


def test_a_fixed_budget_is_deterministic_however_it_is_cut() -> None:
    state = position(5, 2)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    legal = state.legal_moves
    whole, done, _ = fast_search(view, legal, random.Random(3), iterations=3000, chunk=3000)
    pieces, again, _ = fast_search(view, legal, random.Random(3), iterations=3000, chunk=7)
    assert whole == pieces and done == again == 3000
    assert {m for m, _, _ in whole} == set(legal)
    assert sum(n for _, n, _ in whole) == 3000
    assert all(0.0 <= v <= 1.0 for _, _, v in whole)
    other, _, _ = fast_search(view, legal, random.Random(4), iterations=3000)
    assert other != whole


def test_the_tree_stops_growing_at_its_limit() -> None:
    state = position(6, 0)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    tree = FastSearch(view, random.Random(1), capacity=50)
    tree.run(10_000)
    assert tree.full and 40 <= tree.iterations <= 50
    assert sum(n for _, n, _ in tree.root(state.legal_moves)) == tree.iterations


def test_the_tree_grows_past_its_first_arrays() -> None:
    state = position(6, 0)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    found, done, _ = fast_search(view, state.legal_moves, random.Random(2), iterations=150_000)
    assert done == 150_000
    assert sum(n for _, n, _ in found) == done


@pytest.mark.parametrize(("seed", "decisions"), [(9, 5), (3, 8)])
def test_the_python_and_numba_searches_agree(seed: int, decisions: int) -> None:
    # Mid-round (20 moves) and late (3 moves): both searches must see the same values.
    state = position(seed, decisions)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    legal = state.legal_moves
    assert len(legal) >= 3
    slow = IsmctsAgent(iterations=6000, playout="greedy").search(view, legal, random.Random(1))
    fast, _, _ = fast_search(view, legal, random.Random(1), iterations=6000)
    fast_by_move = {m: (n, v) for m, n, v in fast}
    for stats in slow.moves[:3]:
        n, v = fast_by_move[stats.move]
        assert abs(v - stats.value) < 0.03, (stats, n, v)
    assert fast_by_move[slow.best.move][0] >= 0.5 * slow.best.visits


def test_the_agents_use_the_kernel_with_a_clock() -> None:
    state = State.new(9)
    agent = MasterAgent(time_ms=150)
    result = agent.search(state.view(0), state.legal_moves, random.Random(1))
    assert result.seconds < 0.5
    assert result.iterations > 500
    assert sum(m.visits for m in result.moves) == result.iterations


@pytest.mark.parametrize(
    "options",
    [
        "hidden=random",
        "hidden=greedy",
        "guide=0.4",
        "guide=2,hidden=greedy",
        "belief=0",
        "mix=0,belief=10",
        "adapt=0.01",
    ],
)
def test_every_variant_is_deterministic_and_counts_its_visits(options: str) -> None:
    state = position(3, 5)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    agent = parse_agent(f"master:iterations=2000,{options}")
    assert isinstance(agent, IsmctsAgent)
    a = agent.search(view, state.legal_moves, random.Random(3))
    b = agent.search(view, state.legal_moves, random.Random(3))
    assert a.moves == b.moves and a.iterations == 2000
    assert sum(m.visits for m in a.moves) == 2000
    assert {m.move for m in a.moves} == set(state.legal_moves)


def test_bad_options_are_clear_errors() -> None:
    with pytest.raises(AgentError, match="no option 'playout'"):
        parse_agent("master:playout=random")
    with pytest.raises(AgentError, match="retired"):
        parse_agent("master:model=all")
    with pytest.raises(AgentError, match="hidden"):
        parse_agent("master:hidden=psychic")
    with pytest.raises(AgentError, match="guide"):
        parse_agent("master:guide=-1")
    with pytest.raises(AgentError, match="no option 'guide'"):
        parse_agent("ismcts:guide=1")
    for retired in ("noise=0.3", "values=greedy", "draws=1", "histories=2", "fast=0", "ownpuct=1"):
        with pytest.raises(AgentError, match="retired"):
            parse_agent(f"master:{retired}")
    state = position(2, 1)
    opponent = 1 - state.to_move  # type: ignore[operator]
    with pytest.raises(ValueError, match="not the one to move"):
        FastSearch(View.of(state, opponent), random.Random(1), capacity=10)
    with pytest.raises(ValueError, match="iterations or seconds"):
        fast_search(View.of(state, 1 - opponent), state.legal_moves, random.Random(1))


def test_pack_agrees_with_the_kernels_cards() -> None:
    assert counts(pack("1127")) == Counter({0: 2, 1: 1, 6: 1})


def test_a_search_can_be_held_to_some_root_moves() -> None:
    state = position(7, 0)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    some = state.legal_moves[:3]
    found, done, _ = fast_search(view, some, random.Random(1), iterations=900)
    assert [m for m, _, _ in found] == list(some)
    assert sum(n for _, n, _ in found) == done == 900
    with pytest.raises(ValueError, match="legal moves"):
        FastSearch(view, random.Random(1), capacity=10, legal=[])


def test_the_opponent_pick_model_is_deterministic_and_counts_its_visits() -> None:
    # adapt that always fires: the opponent's picks searched as greedy's.
    state = position(3, 4)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    agent = parse_agent("master:iterations=3000,adapt=0.000001")
    assert isinstance(agent, IsmctsAgent)
    a = agent.search(view, state.legal_moves, random.Random(5))
    b = agent.search(view, state.legal_moves, random.Random(5))
    assert a.moves == b.moves and sum(m.visits for m in a.moves) == 3000


def test_the_kernel_gives_greedys_root_bias() -> None:
    from hanamikoji.ai.ismcts import heuristic_bias

    for decisions in (0, 3, 6, 9):
        state = position(11, decisions)
        view = View.of(state, state.to_move)  # type: ignore[arg-type]
        slow = heuristic_bias(view, state.legal_moves)
        fast = heuristic_bias(view, state.legal_moves, fast=True)
        assert slow.keys() == fast.keys()
        assert all(abs(slow[m] - fast[m]) < 1e-9 for m in slow)


@pytest.mark.parametrize(("seed", "decisions"), [(5, 0), (9, 5)])
def test_halving_keeps_the_better_of_ucbs_most_visited(seed: int, decisions: int) -> None:
    state = position(seed, decisions)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    legal = state.legal_moves
    assert len(legal) >= 3
    # The first half of the budget is the plain search's: its two most visited are the finalists.
    half, _, _ = fast_search(view, legal, random.Random(3), iterations=2000)
    finalists = {m for m, _, _ in half[:2]}
    found, done, _ = fast_search(view, legal, random.Random(3), iterations=4000, halving=2)
    again, _, _ = fast_search(view, legal, random.Random(3), iterations=4000, halving=2, chunk=7)
    assert found == again and done == 4000  # deterministic for a seed and budget
    assert {m for m, _, _ in found} == set(legal)
    assert sum(n for _, n, _ in found) == 4000
    (best, _, value), *rest = found
    assert best in finalists
    (other,) = finalists - {best}
    assert value >= {m: v for m, _, v in rest}[other]  # the better mean of the two
    # In the halving's phase the finalists took turns: the less visited caught up first.
    visits = {m: n for m, n, _ in found}
    grown = {m: visits[m] - n for m, n, _ in half if m in finalists}
    assert sum(grown.values()) == 2000
    assert abs(visits[best] - visits[other]) <= max(1, abs(half[0][1] - half[1][1]))


def test_halving_reaches_the_agent_as_an_option() -> None:
    agent = parse_agent("master:iterations=3000,halving=8")
    assert isinstance(agent, MasterAgent) and agent.config.halving == 8
    state = position(4, 3)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    result = agent.search(view, state.legal_moves, random.Random(1))
    assert result.iterations == 3000
    assert result.best.move in state.legal_moves
    with pytest.raises(AgentError, match="halving"):
        parse_agent("master:halving=-1")


def test_halving_keeps_as_many_moves_as_the_budget_gives_visits() -> None:
    state = position(5, 0)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    legal = state.legal_moves

    def search(halving: int, hvisits: int = 0) -> list[tuple[object, int, float]]:
        found, _, _ = fast_search(
            view, legal, random.Random(3), iterations=4000, halving=halving, hvisits=hvisits
        )
        return list(found)

    # 2,000 iterations in the first half: 2 moves get 1,000 visits each in the one phase, 4
    # get 250 each in the first of two, 8 would get 83 in the first of three.
    assert search(halving=4) != search(halving=8)  # (so the equalities below say something)
    assert search(halving=32, hvisits=150) == search(halving=4)
    assert search(halving=32, hvisits=80) == search(halving=8)
    assert search(halving=4, hvisits=1) == search(halving=4)  # never more than halving
    assert search(halving=32, hvisits=1000) == search(halving=2)
    # Where not even two moves would get their visits, the search is the plain one.
    assert search(halving=2) != search(halving=0)
    assert search(halving=32, hvisits=1001) == search(halving=0)


def test_master_halves_where_its_budget_allows_and_below_that_is_the_plain_search() -> None:
    state = position(5, 0)
    view = View.of(state, state.to_move)  # type: ignore[arg-type]
    legal = state.legal_moves

    def moves(spec: str) -> tuple[object, ...]:
        agent = parse_agent(spec)
        assert isinstance(agent, MasterAgent)
        return agent.search(view, legal, random.Random(7)).moves

    # Below 400 iterations the first half cannot give two moves 100 visits each: the plain
    # search, visit for visit (the medium level's 100 iterations, the exploitability's 200).
    for budget in (100, 200, 399):
        plain = moves(f"master:iterations={budget},halving=0")
        assert moves(f"master:iterations={budget}") == plain
    assert moves("master:iterations=4000") == moves("master:iterations=4000,halving=4")
    assert moves("master:iterations=4000") != moves("master:iterations=4000,halving=0")


def test_a_round_limit_beyond_64_bits_is_searched_as_the_same_game() -> None:
    """The rules take any positive round limit; the kernel holds 64 bits, and a limit no game
    can reach plays as its cap there (it crashed before): the same search as at the cap."""
    rng = random.Random(7)
    state = State.new(rng, rules=Rules(max_rounds=2**70))
    capped = State.new(random.Random(7), rules=Rules(max_rounds=2**62))
    found = []
    for s in (state, capped):
        assert s.to_move is not None
        view = View.of(s, s.to_move)
        found.append(fast_search(view, s.legal_moves, random.Random(1), iterations=800))
    assert found[0][:2] == found[1][:2] and found[0][1] == 800
