"""The OpenSpiel game ``python_hanamikoji``: registration, chance, agreement with the core engine,
hidden information, parameters and OpenSpiel's own algorithms (MCCFR, exact exploitability)."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "pyspiel", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)
pytest.importorskip(
    "open_spiel", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)

import math
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import (
    exploitability,
    external_sampling_mccfr,
    outcome_sampling_mccfr,
)

import hanamikoji.env.openspiel as hos
from hanamikoji.cards import ALL_CARDS, CHARM
from hanamikoji.env.actions import MOVES, NUM_ACTIONS
from hanamikoji.env.observation import FIELDS, OBS_SIZE, observe
from hanamikoji.env.variant import text_of
from hanamikoji.state import Deal, Rules, State

CHANCE = int(pyspiel.PlayerId.CHANCE)

SMALL = {"max_rounds": 1, "charms": "4:5", "actions": "C"}
"""A variant small enough for exact exploitability: 9 cards of two geisha (charm 4 and 5), hands
of 3, one Competition each."""

SMALL_SG = {"max_rounds": 1, "charms": "3:6", "actions": "SG"}
"""A small variant with a hidden action and an offer: hands of 2, a Secret and a Gift each."""


def load(params: dict[str, Any] | None = None) -> Any:
    return pyspiel.load_game("python_hanamikoji", params or {})


def sample_chance(state: Any, rng: random.Random) -> int:
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    return int(rng.choices(outcomes, probs)[0])


# -- registration and the standard game ----------------------------------------------------


def test_registered_with_the_standard_shape() -> None:
    assert "python_hanamikoji" in [t.short_name for t in pyspiel.registered_games()]
    game = load()
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert t.provides_information_state_string and t.provides_information_state_tensor
    assert t.provides_observation_string and t.provides_observation_tensor
    assert game.get_parameters() == {"max_rounds": 3, "charms": "2:2:2:3:3:4:5", "actions": "SDGC"}
    assert game.num_players() == 2
    assert game.num_distinct_actions() == NUM_ACTIONS == 534
    assert game.moves == tuple(str(m) for m in MOVES)
    assert [game.action_id(str(m)) for m in MOVES] == list(range(NUM_ACTIONS))
    assert game.max_chance_outcomes() == 7
    assert game.max_game_length() == 3 * 12
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.observation_tensor_shape() == [OBS_SIZE] == [98]
    assert hos.observation_fields(7) == tuple((name, n) for name, n, _ in FIELDS)
    assert game.information_state_tensor_shape() == [98 + 2 + 3 * 249] == [game.variant.info_size]
    assert load({"max_rounds": 1}).max_game_length() == 12


def test_random_simulations_pass_openspiel_checks() -> None:
    pyspiel.random_sim_test(load(), num_sims=6, serialize=False, verbose=False)
    pyspiel.random_sim_test(load({"max_rounds": 1}), num_sims=6, serialize=False, verbose=False)
    for params in (SMALL, SMALL_SG, {"charms": "2,3,4", "actions": "GS", "max_rounds": 2}):
        pyspiel.random_sim_test(load(params), num_sims=20, serialize=False, verbose=False)
    # Serialisation (the state's attributes pickled) works too.
    pyspiel.random_sim_test(load(SMALL_SG), num_sims=3, serialize=True, verbose=False)


def test_no_round_limit() -> None:
    game = load({"max_rounds": 0})
    assert not game.get_type().provides_information_state_tensor
    assert game.max_game_length() == 100 * 12
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    state = game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        action = sample_chance(state, rng) if state.is_chance_node() else None
        state.apply_action(rng.choice(state.legal_actions()) if action is None else action)
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0])  # no draw without a round limit
    assert state.information_state_string(0).endswith("over")


def test_chance_deals_like_a_shuffle() -> None:
    rng = random.Random(3)
    game = load({"max_rounds": 1})
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(g, CHARM[g] / 21) for g in range(7)]
    # Every complete deal of card types has the probability a shuffle gives it:
    # prod(count!) / 21!, whatever the order of the cards.
    for _ in range(20):
        state = game.new_initial_state()
        p = 1.0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = dict(state.chance_outcomes())
                assert math.isclose(sum(outcomes.values()), 1.0)
                action = sample_chance(state, rng)
                p *= outcomes[action]
                state.apply_action(action)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        want = math.prod(math.factorial(c) for c in CHARM) / math.factorial(21)
        assert math.isclose(p, want, rel_tol=1e-9)


# -- the standard game agrees with the core engine ------------------------------------------


def _deals(history: list[Any], per_round: int) -> list[Deal]:
    """The core deals of a game from its chance outcomes: removed, 6 + 6, then the pile."""
    cards = [str(pa.action + 1) for pa in history if pa.player == CHANCE]
    assert len(cards) % per_round == 0
    deals = []
    for r in range(0, len(cards), per_round):
        c = cards[r : r + per_round]
        deals.append(Deal(c[0], ("".join(c[1:7]), "".join(c[7:13])), "".join(c[13:])))
    return deals


def _moves_seen(info: str) -> list[str]:
    """The moves and reveals of an information-state string."""
    return [t for t in info.split() if ":" in t and not t.startswith(("hand:", "markers:"))]


def _core_seen(core: State, seat: int) -> list[str]:
    """The same, from the core engine's VIEW history (interfaces.md §2)."""
    out = []
    for entry in core.view(seat).history:
        e = entry.to_json()
        out.append(
            f"reveal:{','.join(e['reveal'])}" if "reveal" in e else f"{e['seat']}:{e['move']}"
        )
    return out


def test_agrees_with_the_core_engine() -> None:
    rng = random.Random(2024)
    game = load()
    moves = game.moves
    outcomes = {"win0": 0, "win1": 0, "draw": 0}
    for _ in range(300):
        state = game.new_initial_state()
        decisions: list[tuple[int, list[str], list[Any], list[str], str]] = []
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            legal = state.legal_actions()
            action = rng.choice(legal)
            obs = [np.array(state.observation_tensor(seat)) for seat in (0, 1)]
            info = [state.information_state_string(seat) for seat in (0, 1)]
            decisions.append(
                (state.current_player(), [moves[a] for a in legal], obs, info, moves[action])
            )
            state.apply_action(action)
        final_obs = [np.array(state.observation_tensor(seat)) for seat in (0, 1)]
        core = State.from_deals(_deals(state.full_history(), 21), rules=Rules(max_rounds=3))
        for seat, legal, obs, info, move in decisions:
            assert core.to_move == seat
            assert [str(m) for m in core.legal_moves] == legal
            for s in (0, 1):
                np.testing.assert_array_equal(obs[s], observe(core, s))
                assert _moves_seen(info[s]) == _core_seen(core, s)
            core = core.apply(move)
        assert core.outcome is not None
        for s in (0, 1):
            np.testing.assert_array_equal(final_obs[s], observe(core, s))
        winner = core.outcome.winner
        assert state.returns() == (
            [0.0, 0.0] if winner is None else [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        )
        assert state.winner == winner
        assert state.markers == core.markers
        outcomes["draw" if winner is None else f"win{winner}"] += 1
    assert min(outcomes.values()) > 0, outcomes


# -- hidden information ---------------------------------------------------------------------


def _play(game: Any, removed: str, hands: tuple[str, str], pile: str, moves: str) -> Any:
    """A standard game from an explicit deal (pile top first) and moves, up to where they end."""
    assert sorted(removed + hands[0] + hands[1] + pile) == sorted(ALL_CARDS)
    cards = iter(removed + hands[0] + hands[1] + pile)
    todo = iter(moves.split())
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(next(cards)) - 1)
            continue
        move = next(todo, None)
        if move is None:
            break
        state.apply_action(game.action_id(move))
    return state


def _view(state: Any, seat: int) -> tuple[str, list[float], str, list[float]]:
    return (
        state.information_state_string(seat),
        list(state.information_state_tensor(seat)),
        state.observation_string(seat),
        list(state.observation_tensor(seat)),
    )


def test_hidden_information_is_hidden() -> None:
    game = load({"max_rounds": 1})
    # Seat 0 holds 223344 and draws 7, then 6; seat 1 draws 5 (A) or 6 (B).
    # A and B differ in the removed card, seat 1's hand, the pile after the cards seat 0
    # has drawn, and seat 1's Secret: all hidden from seat 0.
    a = _play(game, "1", ("223344", "455667"), "75616777", "S2 S6")
    b = _play(game, "4", ("223344", "155667"), "76671577", "S2 S5")
    assert a.current_player() == b.current_player() == 0
    assert a.hand(0) == b.hand(0) == "2334467"
    assert _view(a, 0) == _view(b, 0)
    assert _view(a, 1) != _view(b, 1)
    info = a.information_state_string(0)
    assert info == "p0 r1 hand:223344 +7 0:S2 +? 1:S +6"
    assert a.information_state_string(1) == "p1 r1 hand:455667 +? 0:S +5 1:S6 +?"
    # What seat 0 sees makes a difference: another draw, or another visible move.
    c = _play(game, "1", ("223344", "455667"), "75716677", "S2 S6")
    assert c.information_state_string(0) != info
    assert c.information_state_tensor(0) != a.information_state_tensor(0)
    d = _play(game, "1", ("223344", "455667"), "75616777", "S2 D66")
    assert d.information_state_string(0) == "p0 r1 hand:223344 +7 0:S2 +? 1:D +6"
    assert d.information_state_tensor(0) != a.information_state_tensor(0)
    assert d.observation_tensor(0) != a.observation_tensor(0)
    e = _play(game, "1", ("223344", "455667"), "75616777", "S3 S6")
    assert e.information_state_tensor(0) != a.information_state_tensor(0)


Recall = tuple[tuple[str, int], ...]


def _all_states(game: Any) -> Iterator[tuple[Any, tuple[Recall, Recall]]]:
    """Every state, with each player's (information state, action) pairs on the way to it."""
    stack: list[tuple[Any, tuple[Recall, Recall]]] = [(game.new_initial_state(), ((), ()))]
    while stack:
        state, recall = stack.pop()
        yield state, recall
        if state.is_terminal():
            continue
        player = state.current_player()
        for a in state.legal_actions():
            if player == CHANCE:
                stack.append((state.child(a), recall))
            else:
                mine = (*recall[player], (state.information_state_string(player), a))
                both = (mine, recall[1]) if player == 0 else (recall[0], mine)
                stack.append((state.child(a), both))


def _seen_by(game: Any, state: Any, seat: int) -> tuple[Any, ...]:
    """All that ``seat`` has seen of a game, worked out from its history by the rules alone."""
    v = game.variant
    moves = game.moves
    h, turns_per_round = v.hand_size, v.turns
    seen: list[Any] = [("round", 1)]
    k = turns = 0
    round_ = 1
    hand: list[int] = []
    secrets: dict[int, str] = {}
    history = state.full_history()
    for i, pa in enumerate(history):
        player, a = pa.player, pa.action
        if player == CHANCE:
            if 1 + seat * h <= k < 1 + (seat + 1) * h:
                hand.append(a)
            if k == 2 * h:
                seen.append(("hand", tuple(sorted(hand))))
            elif k > 2 * h:
                drawer = ((round_ - 1) % 2) ^ (turns & 1)
                seen.append(("draw", a if drawer == seat else None))
            k += 1
            continue
        move = moves[a]
        if move[0] == "S":
            secrets[player] = move
        seen.append((player, move if player == seat or move[0] not in "SD" else move[0]))
        if move[0] in "SDP":
            turns += 1
        if turns == turns_per_round:  # scoring: both Secrets are shown
            seen.append(("reveal", secrets.get(0), secrets.get(1)))
            if i + 1 < len(history) or not state.is_terminal():
                round_ += 1
                seen.append(("round", round_))
            k = turns = 0
            hand, secrets = [], {}
    return tuple(seen)


@pytest.mark.parametrize("params", [SMALL, SMALL_SG])
def test_information_states_over_a_whole_variant(params: dict[str, Any]) -> None:
    """Over every history, for each player: the information-state string says exactly what
    the player has seen (no more, no less), with perfect recall, and the tensors are one to
    one with the strings."""
    game = load(params)
    seen: list[dict[str, tuple[Any, ...]]] = [{}, {}]
    views: list[dict[tuple[Any, ...], str]] = [{}, {}]
    tensors: list[dict[bytes, str]] = [{}, {}]
    observations: list[dict[str, bytes]] = [{}, {}]
    for state, recall in _all_states(game):
        for seat in (0, 1):
            info = state.information_state_string(seat)
            tensor = np.array(state.information_state_tensor(seat), np.float32).tobytes()
            obs = np.array(state.observation_tensor(seat), np.float32).tobytes()
            mine = state.current_player() == seat
            # What one information state determines: what the player has seen, its tensor,
            # whether it is to move, its hand and legal actions then, and its own past.
            view = _seen_by(game, state, seat)
            facts = (
                view,
                tensor,
                mine,
                state.hand(seat) if mine else "",
                tuple(state.legal_actions(seat)) if mine else (),
                recall[seat],
            )
            if seen[seat].setdefault(info, facts) is not facts:
                assert seen[seat][info] == facts, info
            else:
                assert views[seat].setdefault(view, info) == info, info
                assert tensors[seat].setdefault(tensor, info) == info, info
            text = state.observation_string(seat)
            assert observations[seat].setdefault(text, obs) == obs, text
    assert len(seen[0]) > 50 and len(seen[1]) > 50


# -- parameters -------------------------------------------------------------------------------


def test_variant_parameters() -> None:
    game = load({"charms": "2, 3, 4", "actions": "gs", "max_rounds": 1})
    assert game.get_parameters() == {"max_rounds": 1, "charms": "2:3:4", "actions": "SG"}
    assert str(game) == "python_hanamikoji(actions=SG,charms=2:3:4,max_rounds=1)"
    assert pyspiel.load_game(str(game)).moves == game.moves
    assert game.moves == (
        "S1", "S2", "S3", "G112", "G113", "G122", "G123", "G133", "G222", "G223", "G233",
        "G333", "P1", "P2", "P3",
    )  # fmt: skip
    assert game.num_distinct_actions() == 15
    assert game.max_chance_outcomes() == 3
    assert game.max_game_length() == 6  # 4 turns and 2 picks
    v = game.variant
    assert (v.hand_size, v.turns, v.win_charm, v.win_geisha) == (2, 4, 5, 2)
    assert load(SMALL).moves == (
        "C11-11", "C11-12", "C11-22", "C12-12", "C12-22", "C22-22", "P11", "P12", "P22",
    )  # fmt: skip
    assert load({"charms": "2,2,2,3,3,4,5"}).moves == load().moves


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_rounds": -1}, "max_rounds"),
        ({"charms": "2:x:4"}, "whole numbers"),
        ({"charms": "21"}, "2 to 9 geisha"),
        ({"charms": "2:0:7"}, "1 to 9"),
        ({"charms": "2:3:4", "actions": "SX"}, "letters of SDGC"),
        ({"charms": "2:3:4", "actions": "SGS"}, "letters of SDGC"),
        ({"charms": "2:3:4", "actions": ""}, "letters of SDGC"),
        ({"charms": "2:3:4", "actions": "SD"}, "does not add up"),
        ({"charms": "2:2:2:3:3:4:6"}, "does not add up"),
    ],
)
def test_parameters_are_validated(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load(params)
    with pytest.raises(ValueError, match=message):
        hos.HanamikojiGame(params)


def test_unknown_parameters_and_illegal_actions_are_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        load({"rounds": 2})
    with pytest.raises(ValueError, match="unknown parameters"):
        hos.HanamikojiGame({"rounds": 2})
    game = load()
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="not possible"):
        state.apply_action(9)
    state = _play(game, "1", ("223344", "455667"), "75616777", "")
    with pytest.raises(ValueError, match="not legal"):
        state.apply_action(game.action_id("S5"))
    with pytest.raises(ValueError, match="not a move"):
        game.action_id("S8")


# -- OpenSpiel's algorithms ------------------------------------------------------------------


def test_external_sampling_mccfr_beats_uniform_exactly() -> None:
    """MCCFR trains a policy whose exact exploitability is far below the uniform policy's."""
    np.random.seed(7)
    game = load(SMALL_SG)
    uniform = exploitability.exploitability(game, os_policy.UniformRandomPolicy(game))
    solver = external_sampling_mccfr.ExternalSamplingSolver(game)
    for _ in range(300):
        solver.iteration()
    trained = exploitability.exploitability(game, solver.average_policy())
    assert math.isclose(uniform, 5 / 12)
    assert trained < uniform / 4


def test_mccfr_runs_on_bigger_games() -> None:
    np.random.seed(8)
    game = load({"max_rounds": 1, "charms": "2:3:4", "actions": "SG"})
    solver = external_sampling_mccfr.ExternalSamplingSolver(game)
    for _ in range(20):
        solver.iteration()
    standard = load({"max_rounds": 1})
    outcome = outcome_sampling_mccfr.OutcomeSamplingSolver(standard)
    for _ in range(30):
        outcome.iteration()
    state = standard.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = outcome.average_policy().action_probabilities(state)
    assert set(probs) == set(state.legal_actions())
    assert math.isclose(sum(probs.values()), 1.0)


# -- resampling and OpenSpiel's ISMCTS -------------------------------------------------------


def _random_state(game: Any, rng: random.Random, stop: int) -> Any:
    """The state after ``stop`` random actions (chance as dealt), or the game's end."""
    state = game.new_initial_state()
    for _ in range(stop):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("params", [{}, {"max_rounds": 2}, SMALL_SG, SMALL])
def test_a_resampled_state_has_the_same_information_state(params: dict[str, Any]) -> None:
    game = load(params)
    rng = random.Random(5)
    length = game.max_game_length() + game.max_chance_nodes_in_history()
    for trial in range(120):
        state = _random_state(game, rng, rng.randrange(length + 1))
        for seat in (0, 1):
            sampler = pyspiel.UniformProbabilitySampler(trial, 0.0, 1.0)
            twin = state.resample_from_infostate(seat, sampler)
            assert twin.information_state_string(seat) == state.information_state_string(seat)
            assert twin.information_state_tensor(seat) == state.information_state_tensor(seat)
            assert twin.observation_string(seat) == state.observation_string(seat)
            assert twin.observation_tensor(seat) == state.observation_tensor(seat)
            assert twin.current_player() == state.current_player()
            assert len(twin.history()) == len(state.history())
            if state.current_player() == seat:
                assert twin.legal_actions() == state.legal_actions()
    # Seeded samplers replay; fresh ones differ.
    state = _random_state(game, random.Random(1), 30)
    a, b = (
        state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(9, 0.0, 1.0))
        for _ in range(2)
    )
    assert a.history() == b.history()


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), "x", None, True])
def test_a_sampler_that_gives_no_probability_is_refused(bad: Any) -> None:
    state = _random_state(load({}), random.Random(1), 30)
    with pytest.raises(ValueError, match=r"must give a float in \[0, 1\), it gave"):
        state.resample_from_infostate(0, lambda: bad)
    with pytest.raises(ValueError, match="probability_sampler must be callable"):
        state.resample_from_infostate(0, 0.5)


def test_resampling_deals_the_unseen_cards_uniformly() -> None:
    from scipy.stats import chisquare  # type: ignore[import-untyped]

    # Seat 0, in the Secret-and-Gift variant, once seat 1 has played its Secret: it has not
    # seen the removed card, that Secret nor seat 1's hand (nor the pile).
    game = load(SMALL_SG)
    rng = random.Random(8)
    for _ in range(500):
        state = _random_state(game, rng, rng.randrange(8, 16))
        obs = state.observation_tensor(0)
        # actions_opponent's S flag is off, the phase is action or pick, seat 1 holds cards.
        if obs[24] == 0 and (obs[34] or obs[35]) and obs[-1] > 0:
            break
    else:
        raise AssertionError("no such position found")
    unseen = [int(x) for x in state.observation_tensor(0)[10:12]]  # "unseen", 2 geisha
    counts: dict[tuple[int, str, str], int] = {}
    n = 4000
    for trial in range(n):
        twin = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(trial, 0.0, 1.0))
        p = twin._p
        key = (p.removed, text_of(p.secrets[1]), text_of(p.hands[1]))
        counts[key] = counts.get(key, 0) + 1
    # The exact law: the unseen cards dealt one by one to the removed card, the Secret, the hand.
    exact: dict[tuple[int, str, str], float] = {}

    def deal(left: list[int], slots: list[str], parts: list[list[int]], pr: float) -> None:
        if not slots:
            hand = "".join(str(g + 1) for g in sorted(parts[2]))
            key = (parts[0][0], str(parts[1][0] + 1), hand)
            exact[key] = exact.get(key, 0.0) + pr
            return
        total = sum(left)
        for g, k in enumerate(left):
            if k:
                rest = left.copy()
                rest[g] -= 1
                where = {"removed": 0, "secret": 1, "hand": 2}[slots[0]]
                grown = [part.copy() for part in parts]
                grown[where].append(g)
                deal(rest, slots[1:], grown, pr * k / total)

    hand_size = int(state.observation_tensor(0)[-1])  # opponent_hand
    deal(unseen, ["removed", "secret"] + ["hand"] * hand_size, [[], [], []], 1.0)
    keys = sorted(exact)
    assert set(counts) <= set(keys)
    observed = [counts.get(k, 0) for k in keys]
    expected = [exact[k] * n for k in keys]
    assert len(keys) >= 4
    assert chisquare(observed, expected).pvalue > 1e-3


def test_the_opponents_route_is_uniform_among_legal_orders() -> None:
    from scipy.stats import chisquare

    # Seat 0 has seen seat 1 give G122 on its first turn: seat 1 held exactly those cards (its
    # hand of 2 and one draw). Cards are chance outcomes 0 (geisha 1) and 1 (geisha 2).
    game = load(SMALL_SG)
    state = game.new_initial_state()
    for card in (1, 0, 1, 0, 1, 1):  # removed 2; hands 12 and 12; seat 0 draws a 2
        state.apply_action(card)
    state.apply_action(game.action_id("S2"))
    state.apply_action(1)  # seat 1 draws a 2
    state.apply_action(game.action_id("G122"))
    routes: dict[tuple[int, ...], int] = {}
    n = 3000
    for trial in range(n):
        twin = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(trial, 0.0, 1.0))
        dealt = twin.history()[3:5]  # the removed card, seat 0's hand of 2, seat 1's
        routes[tuple(sorted(dealt))] = routes.get(tuple(sorted(dealt)), 0) + 1
    # Seat 1 held 1,2,2 after its hand of 2 and one draw; every assignment of those physical
    # cards to the hand (2 of 3) and the draw is a legal order, equally likely.
    assert set(routes) <= {(0, 1), (1, 1)}
    observed = [routes.get((0, 1), 0), routes.get((1, 1), 0)]
    assert chisquare(observed, [n * 2 / 3, n / 3]).pvalue > 1e-3


def test_openspiel_ismcts_plays_whole_games() -> None:
    game = load({"max_rounds": 1})
    for seed in range(2):
        bot = hos.ismcts_bot(game, simulations=30, seed=seed)
        rng = np.random.RandomState(seed)
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            elif state.current_player() == seed % 2:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(int(action))
                decisions += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert decisions >= 4 and sum(state.returns()) == 0.0


def test_ismcts_bot_is_seeded() -> None:
    game = load({"max_rounds": 1})
    state = _random_state(game, random.Random(2), 13)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    first = hos.ismcts_bot(game, simulations=40, seed=4).get_policy(state)
    again = hos.ismcts_bot(game, simulations=40, seed=4).get_policy(state)
    assert first == again


def test_illegal_actions_name_the_player_and_the_legal_actions() -> None:
    game = load()
    state = _play(game, "1", ("223344", "455667"), "75616777", "")
    legal = state.legal_actions()
    with pytest.raises(ValueError, match=r"player 0: action 4 \(S5\) is not legal here") as e:
        state.apply_action(game.action_id("S5"))
    assert f"{legal[0]} ({game.moves[legal[0]]})" in str(e.value)


def test_versions() -> None:
    assert load().version == hos.VERSION == 1
