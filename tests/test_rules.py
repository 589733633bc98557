"""Every rule of ../shared/rules.md as an example with explicit deals.

The deals and their hand-worked outcomes are in conftest.py.
"""

from __future__ import annotations

import random

import pytest

from conftest import (
    DEAL_A,
    DEAL_D,
    DEAL_D_SWAPPED,
    EXAMPLE_DEAL,
    MARKERS_A,
    MARKERS_D,
    MOVES_A,
    MOVES_D,
    SIDES_A,
    SIDES_D,
    one_round,
    play,
)
from hanamikoji.moves import IllegalMoveError, InvalidMoveError, Move
from hanamikoji.state import (
    Deal,
    DealError,
    NoDealError,
    Outcome,
    Phase,
    Rules,
    State,
    Termination,
    decide,
    standing,
)

NEUTRAL: tuple[int | None, ...] = (None,) * 7


def random_game(seed: int, rules: Rules | None = None) -> State:
    """A whole game of uniformly random legal moves, deals and moves drawn from ``seed``."""
    rng = random.Random(seed)
    state = State.new(random.Random(seed), rules=rules)
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves))
    return state


# --- deals ----------------------------------------------------------------------------------------


def test_deal_sizes_removed_1_hands_6_pile_8() -> None:
    deal = EXAMPLE_DEAL
    assert len(deal.removed) == 1
    assert [len(h) for h in deal.hands] == [6, 6]
    assert len(deal.deck) == 8


def test_deal_canonicalises_hands_but_keeps_the_pile_order() -> None:
    deal = Deal("4", ("777665", "776441"), "53221635")
    assert deal.hands == ("566777", "144677")
    assert deal.deck == "53221635"
    assert deal == EXAMPLE_DEAL


def test_random_deals_are_the_21_cards() -> None:
    rng = random.Random(3)
    for _ in range(50):
        deal = Deal.random(rng)
        assert len(deal.removed) == 1
        assert [len(h) for h in deal.hands] == [6, 6]
        assert len(deal.deck) == 8
        assert sorted(deal.removed + deal.hands[0] + deal.hands[1] + deal.deck) == sorted(
            "112233444555666677777"
        )


@pytest.mark.parametrize(
    ("removed", "hands", "deck", "words"),
    [
        # Not the 21 cards: one 5 too few and one 6 too many.
        ("4", ("566777", "144677"), "53221636", "missing 5, extra 6"),
        ("4", ("566777", "144677"), "63221635", "missing 5, extra 6"),
        # Wrong sizes.
        ("", ("566777", "144677"), "53221635", "removed card must be 1 card"),
        ("44", ("566777", "144677"), "53221635", "removed card must be 1 card"),
        ("4", ("56677", "1446775"), "53221635", "hand 0 must have 6 cards"),
        ("4", ("566777", "14467"), "532216357", "hand 1 must have 6 cards"),
        ("4", ("566777", "144677"), "5322163", "deck must have 8 cards"),
        ("4", ("566777", "144677"), "532216354", "deck must have 8 cards"),
        # Bad digits.
        ("8", ("566777", "144677"), "53221635", "not a card"),
        ("4", ("566770", "144677"), "53221635", "not a card"),
        ("4", ("566777", "144677"), "5322163x", "not a card"),
    ],
)
def test_bad_deals_raise_deal_error(
    removed: str, hands: tuple[str, str], deck: str, words: str
) -> None:
    with pytest.raises(DealError, match=words):
        Deal(removed, hands, deck)


def test_deal_needs_two_hands() -> None:
    with pytest.raises(DealError, match="two"):
        Deal("4", ("566777",), "53221635")  # type: ignore[arg-type]
    with pytest.raises(DealError):
        Deal("4", (566777, 144677), "53221635")  # type: ignore[arg-type]


def test_deal_error_is_a_value_error() -> None:
    assert issubclass(DealError, ValueError)


# --- turns and draws ------------------------------------------------------------------------------


def test_first_player_draws_before_acting() -> None:
    state = State.from_deals([EXAMPLE_DEAL])
    assert (state.round, state.first, state.to_move, state.phase) == (1, 0, 0, Phase.ACTION)
    assert state.hand(0) == "5566777"  # 566777 and the top card 5
    assert state.hand(1) == "144677"
    assert state.deck_left == 7
    assert state.actions_left(0) == state.actions_left(1) == "SDGC"
    assert state.played(0) == state.played(1) == ""
    assert state.secret(0) is None
    assert state.discard(0) is None
    assert state.markers == NEUTRAL
    assert state.offer is None
    assert state.turn == 0


def test_draws_alternate() -> None:
    # Pile 5 3 2 2 1 6 3 5: seat 0 draws 5, 2, 1, 3 and seat 1 draws 3, 2, 6, 5.
    state = State.from_deals([EXAMPLE_DEAL])
    state = state.apply("S6")
    assert (state.to_move, state.hand(1), state.deck_left) == (1, "1344677", 6)
    assert state.hand(0) == "556777"
    assert state.secret(0) == "6"
    state = state.apply("D14")
    assert (state.to_move, state.hand(0), state.deck_left) == (0, "2556777", 5)
    assert state.hand(1) == "34677"
    assert state.discard(1) == "14"
    state = state.apply("D55")
    assert (state.to_move, state.hand(1), state.deck_left) == (1, "234677", 4)
    state = state.apply("S2")
    assert (state.to_move, state.hand(0), state.deck_left) == (0, "126777", 3)


def test_each_action_once_per_round() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 D14")
    assert state.actions_left(0) == "DGC"
    assert state.actions_left(1) == "SGC"
    assert all(str(m)[0] != "S" for m in state.legal_moves)
    with pytest.raises(IllegalMoveError, match="Secret") as info:
        state.apply("S5")
    assert "already used" in str(info.value)
    state = play(state, "D55 S2")
    with pytest.raises(IllegalMoveError, match="Discard"):
        state.apply("D67")


def test_cards_must_be_in_hand() -> None:
    state = State.from_deals([EXAMPLE_DEAL])
    for text in ("S1", "D44", "G666", "C55-55", "C11-56"):
        with pytest.raises(IllegalMoveError, match=r"the hand 5566777 (does not hold|holds)"):
            state.apply(text)
    # 5566777 holds two 5s but not three.
    with pytest.raises(IllegalMoveError, match="the hand 5566777 holds two 5s; G555 needs three"):
        state.apply("G555")


def test_no_pick_without_an_offer() -> None:
    state = State.from_deals([EXAMPLE_DEAL])
    with pytest.raises(IllegalMoveError, match="no offer"):
        state.apply("P5")


def test_competition_makes_the_opponent_decide_then_the_turn_passes_on() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6")
    # Seat 1 holds 144677 and drew 3.
    state = state.apply("C46-47")
    assert (state.phase, state.to_move, state.actor) == (Phase.PICK, 0, 1)
    assert state.offer is Move.parse("C46-47")
    assert state.actions_left(1) == "SDG"
    assert state.hand(1) == "137"
    # The picker does not draw before picking.
    assert state.hand(0) == "556777"
    assert state.deck_left == 6
    assert [str(m) for m in state.legal_moves] == ["P46", "P47"]
    # Only a pick of the offer is allowed now.
    with pytest.raises(IllegalMoveError, match="pick"):
        state.apply("D55")
    with pytest.raises(IllegalMoveError, match="P46, P47"):
        state.apply("P67")
    with pytest.raises(IllegalMoveError):
        state.apply("P4")
    state = state.apply("P46")
    assert state.played(0) == "46"
    assert state.played(1) == "47"
    assert state.offer is None
    # Seat 0 took the pick, and it is also seat 0's turn: now it draws (the 2).
    assert (state.phase, state.to_move) == (Phase.ACTION, 0)
    assert state.hand(0) == "2556777"
    assert state.deck_left == 5


def test_gift_makes_the_opponent_decide_then_the_turn_passes_on() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 C46-47 P46")
    state = state.apply("G557")
    assert (state.phase, state.to_move) == (Phase.PICK, 1)
    assert state.offer is Move.parse("G557")
    assert state.actions_left(0) == "DC"
    assert state.hand(0) == "2677"  # 2556777 less 557
    assert state.hand(1) == "137"  # unchanged: no draw before picking
    assert [str(m) for m in state.legal_moves] == ["P5", "P7"]
    state = state.apply("P5")
    assert state.played(0) == "4567"  # 46 and the rest of the Gift, 57
    assert state.played(1) == "457"  # 47 and the 5 taken
    # Seat 1 picked, and the next turn is seat 1's: it draws now (the 2).
    assert (state.phase, state.to_move) == (Phase.ACTION, 1)
    assert state.hand(1) == "1237"


def test_the_picker_draws_once_when_its_own_turn_starts() -> None:
    # Seat 1 answers seat 0's Gift and then takes its own turn: one draw, after the pick.
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 C46-47 P46 G557")
    before = state.hand(1)
    state = state.apply("P7")
    assert state.to_move == 1
    assert len(state.hand(1)) == len(before) + 1


# --- scoring --------------------------------------------------------------------------------------


def test_scoring_majority_takes_the_marker_and_ties_stay_neutral() -> None:
    state = one_round(DEAL_A, MOVES_A, max_rounds=1)
    (score,) = state.scorings
    assert score.round == 1
    assert score.played == SIDES_A
    assert score.secrets == ("1", "5")
    assert score.markers_before == NEUTRAL
    assert score.markers == MARKERS_A
    assert state.markers == MARKERS_A
    # Geisha 1 is won by seat 0's Secret alone; geisha 2 (0-0) and 6 (1-1) stay neutral, although
    # seat 0 discarded 22 and seat 1 discarded 66.
    assert MARKERS_A[0] == 0
    assert MARKERS_A[1] is None and MARKERS_A[5] is None
    assert (score.charm, score.geisha) == ((7, 8), (3, 2))


def test_secrets_count_at_scoring_and_join_played_then() -> None:
    state = play(State.from_deals([DEAL_A], rules=Rules(max_rounds=1)), MOVES_A.rsplit(" ", 1)[0])
    # Before the last pick: seat 0's Secret 1 is not on its side yet.
    assert "1" not in state.played(0)
    assert state.secret(0) == "1"
    state = state.apply("P77")
    assert state.played(0) == SIDES_A[0]
    assert state.played(1) == SIDES_A[1]


def test_discards_never_count() -> None:
    state = one_round(DEAL_D, MOVES_D, max_rounds=1)
    (score,) = state.scorings
    assert score.played == SIDES_D
    # Seat 1 discarded 56: geisha 5 and 6 are 1-1 ties, not 1-2.
    assert score.markers == MARKERS_D
    assert state.discard(0) == "77"
    assert state.discard(1) == "56"
    assert "77777" not in score.played[0]


def test_ties_leave_owned_markers_with_their_owner() -> None:
    # Seat 0 owns geisha 2 and seat 1 owns geisha 6 before the round; both are ties in deal A.
    start = (None, 0, None, None, None, 1, None)
    state = one_round(DEAL_A, MOVES_A, max_rounds=1, markers=start)
    assert state.scorings[0].markers_before == start
    assert state.markers == (0, 0, 0, 0, 1, 1, 1)


def test_majority_moves_a_marker_from_the_other_side() -> None:
    start = (1, 1, 1, 1, 0, 1, 0)
    state = one_round(DEAL_A, MOVES_A, max_rounds=1, markers=start)
    # 1, 3, 4 move to seat 0; 5, 7 move to seat 1; 2 and 6 are ties and stay with seat 1.
    assert state.markers == (0, 1, 0, 0, 1, 1, 1)


def test_charm_and_geisha_counts() -> None:
    assert standing(NEUTRAL) == ((0, 0), (0, 0))
    assert standing(MARKERS_A) == ((7, 8), (3, 2))
    assert standing(MARKERS_D) == ((7, 7), (2, 3))
    assert standing((0,) * 7) == ((21, 0), (7, 0))
    assert standing((None, None, None, None, None, 1, 1)) == ((0, 9), (0, 2))
    state = one_round(DEAL_A, MOVES_A, max_rounds=1)
    assert (state.charm, state.geisha) == ((7, 8), (3, 2))


# --- the end of the game --------------------------------------------------------------------------


def test_win_by_charm() -> None:
    # Seat 1 owns geisha 6 beforehand: with 5 and 7 that is 12 charm on 3 geisha.
    state = one_round(DEAL_A, MOVES_A, max_rounds=3, markers=(None,) * 5 + (1, None))
    assert state.is_over
    assert state.outcome == Outcome(1, Termination.CHARM, (7, 12), (3, 3), (0, None, 0, 0, 1, 1, 1))


def test_win_by_exactly_11_charm() -> None:
    # Seat 0 owns geisha 6 beforehand: 1, 3, 4, 6 make 2 + 2 + 3 + 4 = 11 (and 4 geisha).
    state = one_round(DEAL_A, MOVES_A, max_rounds=3, markers=(None,) * 5 + (0, None))
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.reason) == (0, Termination.CHARM)
    assert state.outcome.charm == (11, 8)


def test_win_by_geisha() -> None:
    # Seat 0 owns geisha 2 beforehand: 1, 2, 3, 4 are 4 geisha but only 9 charm.
    state = one_round(DEAL_A, MOVES_A, max_rounds=3, markers=(None, 0) + (None,) * 5)
    assert state.outcome == Outcome(0, Termination.GEISHA, (9, 8), (4, 2), (0, 0, 0, 0, 1, None, 1))


def test_charm_beats_geisha() -> None:
    # Seat 0 owns geisha 2, seat 1 geisha 6: seat 0 has 4 geisha (9 charm), seat 1 has 12 charm.
    state = one_round(DEAL_A, MOVES_A, max_rounds=3, markers=(None, 0, None, None, None, 1, None))
    assert state.outcome == Outcome(1, Termination.CHARM, (9, 12), (4, 3), (0, 0, 0, 0, 1, 1, 1))


def test_decide_charm_before_geisha_whichever_seat() -> None:
    rules = Rules()
    assert decide((0, 0, 0, 0, 1, 1, 1), 1, rules) == (1, Termination.CHARM)
    assert decide((1, 1, 1, 1, 0, 0, 0), 1, rules) == (0, Termination.CHARM)
    assert decide((0, 0, 0, 0, 1, None, 1), 1, rules) == (0, Termination.GEISHA)
    assert decide((1, 1, 1, 1, 0, None, 0), 1, rules) == (1, Termination.GEISHA)
    assert decide(MARKERS_A, 1, rules) is None
    assert decide(MARKERS_A, 3, rules) == (1, Termination.ROUND_LIMIT)
    assert decide(MARKERS_D, 3, rules) == (None, Termination.DRAW)
    assert decide(MARKERS_A, 99, Rules(max_rounds=None)) is None


def test_round_limit_more_charm_wins() -> None:
    state = one_round(DEAL_A, MOVES_A, max_rounds=1)
    assert state.is_over
    assert state.phase is Phase.OVER
    assert state.to_move is None
    assert state.legal_moves == ()
    assert state.outcome == Outcome(1, Termination.ROUND_LIMIT, (7, 8), (3, 2), MARKERS_A)


def test_round_limit_equal_charm_is_a_draw() -> None:
    state = one_round(DEAL_D, MOVES_D, max_rounds=1)
    assert state.outcome == Outcome(None, Termination.DRAW, (7, 7), (2, 3), MARKERS_D)
    assert state.outcome.winner is None


def test_default_is_three_rounds() -> None:
    assert Rules().max_rounds == 3
    assert State.new(1).rules == Rules(max_rounds=3)
    # Deal D, then its mirror, then deal D: 7-7 every time, a draw after round 3.
    state = State.from_deals([DEAL_D, DEAL_D_SWAPPED, DEAL_D])
    state = play(state, MOVES_D)
    assert (state.round, state.is_over) == (2, False)
    assert state.markers == MARKERS_D
    state = play(state, MOVES_D)
    assert (state.round, state.is_over) == (3, False)
    assert state.markers == (1, 0, 0, 0, None, None, 1)
    assert (state.charm, state.geisha) == ((7, 7), (3, 2))
    state = play(state, MOVES_D)
    assert state.outcome == Outcome(None, Termination.DRAW, (7, 7), (2, 3), MARKERS_D)


def test_no_round_limit_goes_on_past_round_three() -> None:
    deals = [DEAL_D, DEAL_D_SWAPPED, DEAL_D, DEAL_D_SWAPPED, DEAL_D]
    state = State.from_deals(deals, rules=Rules(max_rounds=None))
    state = play(state, " ".join([MOVES_D] * 3))
    assert not state.is_over
    assert (state.round, state.first, state.to_move) == (4, 1, 1)
    state = play(state, MOVES_D)
    assert (state.round, state.first, state.is_over) == (5, 0, False)
    assert state.markers == (1, 0, 0, 0, None, None, 1)


def test_max_rounds_one_ends_after_the_first_round() -> None:
    state = one_round(DEAL_D, MOVES_D, max_rounds=1)
    assert state.is_over
    assert state.round == 1
    same = State.from_deals([DEAL_D, DEAL_D_SWAPPED], rules=Rules(max_rounds=2))
    same = play(same, MOVES_D)
    assert not same.is_over and same.round == 2


def test_two_round_game_keeps_markers_and_the_other_player_starts() -> None:
    state = State.from_deals([DEAL_A, DEAL_D_SWAPPED], rules=Rules(max_rounds=2))
    state = play(state, MOVES_A)
    # Round 2: markers kept, seat 1 first and has drawn, tokens face up again, a new deal.
    assert state.round == 2
    assert state.markers == MARKERS_A
    assert (state.first, state.to_move, state.actor, state.phase) == (1, 1, 1, Phase.ACTION)
    assert state.deal == DEAL_D_SWAPPED
    assert state.deals == (DEAL_A, DEAL_D_SWAPPED)
    assert state.hand(0) == "245566"
    assert state.hand(1) == "1137777"
    assert state.actions_left(0) == state.actions_left(1) == "SDGC"
    assert state.played(0) == state.played(1) == ""
    assert state.secret(0) is None and state.discard(1) is None
    assert state.deck_left == 7
    with pytest.raises(IllegalMoveError):
        state.apply("S5")  # seat 1 holds no 5, and it is seat 1's decision
    state = play(state, MOVES_D)
    # Round 2 mirrors deal D: seat 1 wins 1 and 7, seat 0 wins 2, 3 and 4; geisha 5 is a tie and
    # stays with seat 1 (owned in round 1), geisha 6 is a tie and stays neutral.
    second = state.scorings[1]
    assert second.markers_before == MARKERS_A
    assert second.played == (SIDES_D[1], SIDES_D[0])
    assert state.outcome == Outcome(
        1, Termination.ROUND_LIMIT, (7, 10), (3, 3), (1, 0, 0, 0, 1, None, 1)
    )


def test_each_round_begins_with_a_fresh_deal_from_the_seed() -> None:
    for seed in range(50):
        state = State.new(seed, rules=Rules(max_rounds=None))
        rng = random.Random(seed)
        while state.round == 1 and not state.is_over:
            state = state.apply(rng.choice(state.legal_moves))
        if not state.is_over:
            break
    else:
        pytest.fail("every seed in 0..49 ended the game in round 1")
    first, second = state.deals
    assert first != second
    assert state.deal is second
    assert sorted(second.removed + "".join(second.hands) + second.deck) == sorted(
        "112233444555666677777"
    )
    assert state.first == 1


def test_no_deal_for_a_round_raises() -> None:
    state = State.from_deals([DEAL_A], rules=Rules(max_rounds=3))
    with pytest.raises(NoDealError, match="round 2"):
        play(state, MOVES_A)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3", True, False])
def test_bad_round_limits_raise(bad: object) -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        Rules(max_rounds=bad)  # type: ignore[arg-type]


def test_good_round_limits() -> None:
    for good in (1, 2, 3, 5, 100, None):
        assert Rules(max_rounds=good).max_rounds == good
    assert Rules.from_json({}) == Rules()
    assert Rules.from_json(None) == Rules()
    assert Rules.from_json({"max_rounds": None, "other": 1}) == Rules(max_rounds=None)
    assert Rules(max_rounds=None).to_json() == {"max_rounds": None}
    with pytest.raises(ValueError):
        Rules.from_json([3])


@pytest.mark.parametrize("markers", [[0] * 6, [0] * 8, [2, 0, 0, 0, 0, 0, 0], ["0"] * 7])
def test_bad_start_markers_raise(markers: list[object]) -> None:
    with pytest.raises(ValueError, match="markers"):
        State.from_deals([DEAL_A], markers=markers)  # type: ignore[arg-type]


def test_seeded_random_games_without_limit_reach_round_four() -> None:
    for seed in range(300):
        unlimited = random_game(seed, Rules(max_rounds=None))
        if unlimited.round >= 4:
            break
    else:
        pytest.fail("no seed in 0..299 gave a game reaching round 4")
    assert unlimited.outcome is not None
    assert unlimited.outcome.reason in (Termination.CHARM, Termination.GEISHA)
    assert unlimited.outcome.winner in (0, 1)
    # The same deals and moves under the default rules stop after round 3.
    limited = random_game(seed, Rules())
    assert limited.round == 3
    assert limited.outcome is not None
    assert limited.outcome.reason in (Termination.ROUND_LIMIT, Termination.DRAW)
    assert limited.history == tuple(p for p in unlimited.history if p.round <= 3)


def test_random_games_alternate_first_players_and_end_with_a_reason() -> None:
    for seed in range(20):
        state = random_game(seed)
        assert state.outcome is not None
        assert state.round <= 3
        for ply in state.history:
            assert ply.round in (1, 2, 3)
        # The first action of each round is the first player's: seat 0 in odd rounds.
        for rnd in {p.round for p in state.history}:
            opener = next(p for p in state.history if p.round == rnd)
            assert opener.seat == (0 if rnd % 2 else 1)


# --- concede, finished games, immutability, seeds -------------------------------------------------


def test_resign() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 C46-47")
    over = state.concede(0)
    assert over.outcome == Outcome(1, Termination.RESIGN, (0, 0), (0, 0), NEUTRAL)
    assert over.is_over and over.phase is Phase.OVER and over.to_move is None
    assert over.legal_moves == ()
    assert over.history == state.history
    assert not state.is_over


def test_forfeit_with_why() -> None:
    start = (0, None, None, None, None, None, 1)
    state = State.from_deals([EXAMPLE_DEAL], markers=start)
    over = state.concede(1, Termination.FORFEIT, why="seat 1: illegal move G999")
    assert over.outcome == Outcome(
        0, Termination.FORFEIT, (2, 5), (1, 1), start, "seat 1: illegal move G999"
    )


def test_concede_rejects_other_reasons_and_seats() -> None:
    state = State.from_deals([EXAMPLE_DEAL])
    with pytest.raises(ValueError, match="resign or forfeit"):
        state.concede(0, Termination.CHARM)
    with pytest.raises(ValueError, match="seat"):
        state.concede(2)


def test_a_finished_game_takes_no_more_moves() -> None:
    over = one_round(DEAL_A, MOVES_A, max_rounds=1)
    for text in ("S1", "P4", "C12-47"):
        with pytest.raises(IllegalMoveError, match="over"):
            over.apply(text)
    with pytest.raises(IllegalMoveError):
        over.concede(0)
    resigned = State.from_deals([DEAL_A]).concede(1)
    with pytest.raises(IllegalMoveError):
        resigned.apply("S1")
    with pytest.raises(IllegalMoveError):
        resigned.concede(0)


def test_apply_returns_a_new_state_and_leaves_the_old_one() -> None:
    start = State.from_deals([EXAMPLE_DEAL])
    snapshot = (
        start.hand(0),
        start.hand(1),
        start.to_move,
        start.phase,
        start.actions_left(0),
        start.history,
        start.deck_left,
    )
    after = start.apply("S6")
    assert after is not start
    assert after.parent is start
    assert after.last_move is Move.parse("S6")
    assert start.parent is None and start.last_move is None
    assert snapshot == (
        start.hand(0),
        start.hand(1),
        start.to_move,
        start.phase,
        start.actions_left(0),
        start.history,
        start.deck_left,
    )
    # The same state can be continued in two ways.
    a = start.apply("D55")
    b = start.apply("G777")
    assert a.hand(0) == "66777"
    assert b.hand(0) == "5566"
    with pytest.raises(TypeError):
        State()


def test_history_records_every_decision() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 C46-47 P46 G557 P5 D37")
    assert [(p.round, p.seat, str(p.move)) for p in state.history] == [
        (1, 0, "S6"),
        (1, 1, "C46-47"),
        (1, 0, "P46"),
        (1, 0, "G557"),
        (1, 1, "P5"),
        (1, 1, "D37"),
    ]


def test_same_seed_same_game() -> None:
    a, b = random_game(42), random_game(42)
    assert a.deals == b.deals
    assert a.history == b.history
    assert a.outcome == b.outcome
    c = random_game(43)
    assert (c.deals, c.history) != (a.deals, a.history)


def test_new_accepts_an_int_seed_or_a_random() -> None:
    assert State.new(7).deal == State.new(random.Random(7)).deal
    assert State.new(7).deal != State.new(8).deal
    state = State.new(7)
    assert (state.round, state.to_move, state.phase) == (1, 0, Phase.ACTION)
    assert len(state.hand(0)) == 7 and len(state.hand(1)) == 6
    assert State.new().deck_left == 7
    for bad in ("7", 7.0, True):
        with pytest.raises(TypeError):
            State.new(bad)  # type: ignore[arg-type]


def test_apply_accepts_moves_and_text() -> None:
    start = State.from_deals([EXAMPLE_DEAL])
    by_text = start.apply(" s6 ")
    by_move = start.apply(Move.parse("S6"))
    assert by_text.history == by_move.history
    with pytest.raises(InvalidMoveError):
        start.apply("")
