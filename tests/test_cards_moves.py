"""The cards and the move notation (rules.md "Components", interfaces.md §1)."""

from __future__ import annotations

import pickle
from collections import Counter
from itertools import combinations

import pytest

from conftest import DEAL_D, EXAMPLE_DEAL, play
from hanamikoji.cards import (
    ACTIONS,
    ALL_CARDS,
    CHARM,
    GEISHA,
    TOTAL_CHARM,
    WIN_CHARM,
    WIN_GEISHA,
    CardError,
    is_full_set,
    missing_and_extra,
    pack,
    parse_cards,
    unpack,
)
from hanamikoji.moves import (
    Action,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    moves_for,
    sort_key,
)
from hanamikoji.state import State

# --- cards ----------------------------------------------------------------------------------------


def test_seven_geisha_with_their_charm() -> None:
    assert GEISHA == (1, 2, 3, 4, 5, 6, 7)
    assert CHARM == (2, 2, 2, 3, 3, 4, 5)
    assert TOTAL_CHARM == 21
    assert (WIN_CHARM, WIN_GEISHA) == (11, 4)


def test_the_21_item_cards_one_per_charm_point() -> None:
    assert len(ALL_CARDS) == 21
    assert ALL_CARDS == "112233444555666677777"
    counts = Counter(ALL_CARDS)
    for g in GEISHA:
        assert counts[str(g)] == CHARM[g - 1]


def test_actions_in_notation_order() -> None:
    assert ACTIONS == "SDGC"


def test_parse_cards_sorts_and_strips() -> None:
    assert parse_cards(" 741 ") == "147"
    assert parse_cards("") == ""


@pytest.mark.parametrize("bad", ["8", "0", "1a", "1 2", "x"])
def test_parse_cards_rejects_non_cards(bad: str) -> None:
    with pytest.raises(CardError, match="1-7"):
        parse_cards(bad)


def test_parse_cards_rejects_non_strings() -> None:
    with pytest.raises(CardError, match="string"):
        parse_cards(147)  # type: ignore[arg-type]


def test_pack_unpack_round_trip() -> None:
    for cards in ("", "1", "447", "77777", ALL_CARDS):
        assert unpack(pack(cards)) == cards
    assert unpack(pack("7411")) == "1147"


def test_full_set_and_missing_extra() -> None:
    assert is_full_set(ALL_CARDS)
    assert is_full_set("".join(reversed(ALL_CARDS)))
    assert not is_full_set(ALL_CARDS[:-1])
    assert missing_and_extra(ALL_CARDS) == ("", "")
    assert missing_and_extra(ALL_CARDS.replace("6", "1", 1)) == ("6", "1")


# --- parsing and formatting -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("S4", "S4"),
        ("s4", "S4"),
        ("  S4  ", "S4"),
        ("\tS4\n", "S4"),
        ("D15", "D15"),
        ("d51", "D15"),
        ("G147", "G147"),
        ("g741", "G147"),
        ("G 7 4 1", "G147"),
        ("G477", "G477"),
        ("g747", "G477"),
        ("C12-47", "C12-47"),
        ("C47-21", "C12-47"),
        ("c74-12", "C12-47"),
        ("C21-74", "C12-47"),
        (" c 47 - 21 ", "C12-47"),
        ("C12-12", "C12-12"),
        ("C21-21", "C12-12"),
        ("C77-66", "C66-77"),
        ("C17-24", "C17-24"),
        ("C24-17", "C17-24"),
        ("P4", "P4"),
        ("p4", "P4"),
        ("P74", "P47"),
        ("p 74", "P47"),
    ],
)
def test_parse_is_liberal_and_returns_the_canonical_form(text: str, canonical: str) -> None:
    move = Move.parse(text)
    assert str(move) == canonical
    assert move is Move.parse(canonical)


def test_move_fields() -> None:
    c = Move.parse("c47-21")
    assert c.action is Action.COMPETITION
    assert c.groups == ("12", "47")
    assert c.cards == "1247"
    g = Move.parse("G741")
    assert (g.action, g.groups, g.cards) == (Action.GIFT, ("147",), "147")
    p = Move.parse("P74")
    assert (p.action, p.cards, p.is_pick) == (Action.PICK, "47", True)
    assert not g.is_pick
    assert [a.value for a in Action] == ["S", "D", "G", "C", "P"]
    assert [Action(a).title for a in "SDGCP"] == [
        "Secret",
        "Discard",
        "Gift",
        "Competition",
        "Pick",
    ]


def test_constructors_give_the_same_moves_as_parse() -> None:
    assert Move.secret("4") is Move.parse("S4")
    assert Move.discard("51") is Move.parse("D15")
    assert Move.gift("741") is Move.parse("G147")
    assert Move.competition("47", "21") is Move.parse("C12-47")
    assert Move.pick("4") is Move.parse("P4")
    assert Move.pick("74") is Move.parse("P47")
    assert Move(Action.COMPETITION, "74", "21") is Move.parse("C12-47")
    assert Move(Action.GIFT, "741") is Move.parse("G147")


@pytest.mark.parametrize("text", ["S4", "D15", "G147", "C12-47", "C12-12", "P4", "P47"])
def test_repr_pastes_back(text: str) -> None:
    move = Move.parse(text)
    assert repr(move) == f"Move.parse({text!r})"
    assert eval(repr(move), {"Move": Move}) is move


def test_moves_are_interned_equal_and_hashable() -> None:
    a, b = Move.parse("g741"), Move.parse(" G147 ")
    assert a is b
    assert a == b
    assert hash(a) == hash(b)
    assert len({Move.parse("C47-21"), Move.parse("c12-47"), Move.parse("C12-47")}) == 1
    assert Move.parse("S4") != Move.parse("S5")
    assert Move.parse("P4") != Move.parse("P44")
    text: object = "S4"
    assert Move.parse("S4") != text  # a move is not its string
    assert pickle.loads(pickle.dumps(a)) is a


def test_moves_are_immutable() -> None:
    move = Move.parse("S4")
    with pytest.raises(AttributeError):
        move.cards = "5"
    assert str(move) == "S4"


def test_picks_of_an_offer() -> None:
    assert [str(p) for p in Move.parse("G147").picks] == ["P1", "P4", "P7"]
    # Cards of the same type are the same choice.
    assert [str(p) for p in Move.parse("G477").picks] == ["P4", "P7"]
    assert [str(p) for p in Move.parse("G777").picks] == ["P7"]
    assert [str(p) for p in Move.parse("C47-12").picks] == ["P12", "P47"]
    # Two equal pairs leave one pick.
    assert [str(p) for p in Move.parse("C12-12").picks] == ["P12"]
    assert Move.parse("S4").picks == ()
    assert Move.parse("D15").picks == ()
    assert Move.parse("P4").picks == ()


def test_describe_in_words() -> None:
    assert Move.parse("S4").describe() == "Secret: hides a 4"
    assert Move.parse("D15").describe() == "Discard: discards 1, 5"
    assert Move.parse("G147").describe() == "Gift: offers 1, 4, 7"
    assert Move.parse("C12-47").describe() == "Competition: offers the pairs 12 and 47"
    assert Move.parse("P47").describe() == "Pick: takes 4, 7"


# --- syntax errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "X4",
        "4S",
        "S",
        "S44",
        "S8",
        "S0",
        "Sa",
        "S-4",
        "D1",
        "D123",
        "D18",
        "G12",
        "G1234",
        "G148",
        "C",
        "C1247",
        "C12-4",
        "C1-247",
        "C123-4",
        "C12-47-5",
        "C12-48",
        "C12_47",
        "P",
        "P123",
        "P1-2",
        "P8",
        "S4;",
        "Secret 4",
    ],
)
def test_syntax_errors_say_what_was_expected(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert isinstance(info.value, ValueError)
    assert "expected" in str(info.value)


@pytest.mark.parametrize("value", [None, 4, b"S4", ["S4"]])
def test_non_strings_are_syntax_errors(value: object) -> None:
    with pytest.raises(InvalidMoveError, match="string"):
        Move.parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("action", "groups"),
    [
        (Action.SECRET, ("8",)),
        (Action.SECRET, ("44",)),
        (Action.GIFT, ("14",)),
        (Action.COMPETITION, ("1247",)),
        (Action.COMPETITION, ("12", "4")),
        (Action.PICK, ("123",)),
    ],
)
def test_constructor_syntax_errors_are_invalid_move_errors(
    action: Action, groups: tuple[str, ...]
) -> None:
    with pytest.raises(InvalidMoveError):
        Move(action, *groups)


def test_invalid_and_illegal_are_different_value_errors() -> None:
    assert issubclass(InvalidMoveError, ValueError)
    assert issubclass(IllegalMoveError, ValueError)
    assert not issubclass(InvalidMoveError, IllegalMoveError)
    assert not issubclass(IllegalMoveError, InvalidMoveError)


def test_state_apply_separates_syntax_from_legality() -> None:
    state = State.from_deals([EXAMPLE_DEAL])
    with pytest.raises(InvalidMoveError):
        state.apply("Z9")
    with pytest.raises(IllegalMoveError):
        state.apply("S1")  # well formed, but seat 0 holds no 1
    with pytest.raises(InvalidMoveError):
        state.apply(42)  # type: ignore[arg-type]


# --- legal-move lists -----------------------------------------------------------------------------


def _strs(moves: tuple[Move, ...]) -> list[str]:
    return [str(m) for m in moves]


def test_gifts_of_1157_once_each() -> None:
    assert _strs(moves_for("1157", "G")) == ["G115", "G117", "G157"]
    assert _strs(moves_for("7511", "G")) == ["G115", "G117", "G157"]


def test_every_distinct_move_of_a_small_hand_in_order() -> None:
    assert _strs(moves_for("1157", "SDGC")) == [
        "S1",
        "S5",
        "S7",
        "D11",
        "D15",
        "D17",
        "D57",
        "G115",
        "G117",
        "G157",
        "C11-57",
        "C15-17",
    ]


def test_moves_for_respects_the_actions_left() -> None:
    assert _strs(moves_for("1157", "")) == []
    assert _strs(moves_for("1157", "S")) == ["S1", "S5", "S7"]
    assert _strs(moves_for("1157", "CS")) == ["S1", "S5", "S7", "C11-57", "C15-17"]
    assert _strs(moves_for("1122", "C")) == ["C11-22", "C12-12"]
    assert _strs(moves_for("12", "G")) == []


def _brute_force(hand: str, actions: str) -> list[str]:
    """Every distinct action for a hand, by enumerating physical cards, then de-duplicating."""
    found: set[str] = set()
    for a in actions:
        k = {"S": 1, "D": 2, "G": 3, "C": 4}[a]
        for combo in combinations(hand, k):
            cards = "".join(sorted(combo))
            if a != "C":
                found.add(a + cards)
                continue
            w, x, y, z = cards[0], cards[1], cards[2], cards[3]
            for p, q in ((w + x, y + z), (w + y, x + z), (w + z, x + y)):
                found.add("C" + "-".join(sorted(("".join(sorted(p)), "".join(sorted(q))))))
    order = {"S": 0, "D": 1, "G": 2, "C": 3}
    return sorted(found, key=lambda m: (order[m[0]], m))


@pytest.mark.parametrize("hand", ["5566777", "1122334", "4445557", "77777", "1234567"])
def test_moves_for_matches_brute_force(hand: str) -> None:
    moves = moves_for(hand, "SDGC")
    assert _strs(moves) == _brute_force(hand, "SDGC")
    assert len(set(moves)) == len(moves)


def test_legal_moves_order_s_d_g_c_p_each_ascending() -> None:
    moves = moves_for("1234567", "SDGC")
    keys = [sort_key(m) for m in moves]
    assert keys == sorted(keys)
    letters = "".join(dict.fromkeys(str(m)[0] for m in moves))
    assert letters == "SDGC"
    for letter in "SDGC":
        texts = [str(m) for m in moves if str(m)[0] == letter]
        assert texts == sorted(texts)
    assert sorted(moves, key=sort_key) == list(moves)
    assert Move.parse("S7") < Move.parse("D11") < Move.parse("G111") < Move.parse("C11-11")
    assert Move.parse("C11-11") < Move.parse("P1")


def test_state_legal_moves_at_the_start() -> None:
    state = State.from_deals([EXAMPLE_DEAL])
    # Seat 0 holds 566777 and has drawn the 5.
    assert state.hand(0) == "5566777"
    assert _strs(state.legal_moves) == _brute_force("5566777", "SDGC")
    assert len(state.legal_moves) == len(set(state.legal_moves))
    for move in state.legal_moves:
        assert state.is_legal(move)
    assert not state.is_legal(Move.parse("S1"))
    assert not state.is_legal(Move.parse("P5"))


def test_state_equal_pairs_leave_one_pick() -> None:
    # In deal D, seat 1's eighth turn is C56-56 (see conftest).
    state = play(
        State.from_deals([DEAL_D]),
        "S1 S2 D77 D56 G377 P3 G447 P7 C14-23 P23 C56-56",
    )
    assert state.to_move == 0
    assert _strs(state.legal_moves) == ["P56"]


def test_state_pick_list_after_a_gift_with_a_pair() -> None:
    # Deal D: seat 0's Gift G377 offers two kinds of card, so two picks.
    state = play(State.from_deals([DEAL_D]), "S1 S2 D77 D56 G377")
    assert state.to_move == 1
    assert _strs(state.legal_moves) == ["P3", "P7"]
