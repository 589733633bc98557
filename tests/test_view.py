"""The VIEW of interfaces.md §2: what one seat knows."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import numpy as np
import pytest

from conftest import (
    DEAL_A,
    DEAL_A_SWAPPED,
    EXAMPLE_DEAL,
    EXAMPLE_MOVES,
    MARKERS_A,
    MOVES_A,
    SIDES_A,
    one_round,
    play,
)
from hanamikoji.state import Rules, State
from hanamikoji.view import Reveal, SeenMove, View, ViewError

FIELDS = [
    "seat",
    "round",
    "first",
    "to_move",
    "phase",
    "markers",
    "charm",
    "hand",
    "secret",
    "discard",
    "played",
    "actions_left",
    "offer",
    "opponent_hand",
    "deck",
    "history",
]

# interfaces.md §2, the example VIEW, field for field.
EXAMPLE_VIEW: dict[str, Any] = {
    "seat": 0,
    "round": 1,
    "first": 0,
    "to_move": 0,
    "phase": "action",
    "markers": [None, None, None, None, None, None, None],
    "charm": [0, 0],
    "hand": "12677",
    "secret": "6",
    "discard": None,
    "played": ["4567", "457"],
    "actions_left": ["DC", "SG"],
    "offer": None,
    "opponent_hand": 2,
    "deck": 3,
    "history": [
        {"round": 1, "seat": 0, "move": "S6"},
        {"round": 1, "seat": 1, "move": "C46-47"},
        {"round": 1, "seat": 0, "move": "P46"},
        {"round": 1, "seat": 0, "move": "G557"},
        {"round": 1, "seat": 1, "move": "P5"},
        {"round": 1, "seat": 1, "move": "D"},
    ],
}


def example_state() -> State:
    return play(State.from_deals([EXAMPLE_DEAL]), EXAMPLE_MOVES)


def test_the_example_view_of_interfaces_md() -> None:
    view = example_state().view(0)
    got = view.to_json()
    assert list(got) == FIELDS
    for key in FIELDS:
        assert got[key] == EXAMPLE_VIEW[key], key
    assert got == EXAMPLE_VIEW
    # It is JSON as it stands.
    assert json.loads(json.dumps(got)) == EXAMPLE_VIEW


def test_view_of_is_state_view() -> None:
    state = example_state()
    assert View.of(state, 0) == state.view(0)
    assert View.of(state, 1) == state.view(1)
    with pytest.raises(ValueError, match="seat"):
        View.of(state, 2)


def test_the_other_seat_sees_the_secret_as_s_and_its_own_discard() -> None:
    got = example_state().view(1).to_json()
    assert got == {
        "seat": 1,
        "round": 1,
        "first": 0,
        "to_move": 0,
        "phase": "action",
        "markers": [None] * 7,
        "charm": [0, 0],
        "hand": "12",
        "secret": None,
        "discard": "37",
        "played": ["4567", "457"],
        "actions_left": ["DC", "SG"],
        "offer": None,
        "opponent_hand": 5,
        "deck": 3,
        "history": [
            {"round": 1, "seat": 0, "move": "S"},
            {"round": 1, "seat": 1, "move": "C46-47"},
            {"round": 1, "seat": 0, "move": "P46"},
            {"round": 1, "seat": 0, "move": "G557"},
            {"round": 1, "seat": 1, "move": "P5"},
            {"round": 1, "seat": 1, "move": "D37"},
        ],
    }


def test_nothing_hidden_leaks_into_a_view() -> None:
    # Seat 1 must not learn seat 0's hand or Secret, the removed card or the pile's order.
    text = json.dumps(example_state().view(1).to_json())
    assert "12677" not in text
    assert '"6"' not in text
    assert "53221635" not in text


def test_pick_phase_after_a_competition() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 C46-47")
    picker = state.view(0).to_json()
    assert picker == {
        "seat": 0,
        "round": 1,
        "first": 0,
        "to_move": 0,
        "phase": "pick",
        "markers": [None] * 7,
        "charm": [0, 0],
        "hand": "556777",  # as it was: the picker has not drawn
        "secret": "6",
        "discard": None,
        "played": ["", ""],  # the offered cards are in offer only
        "actions_left": ["DGC", "SDG"],  # the offerer already lacks C
        "offer": "C46-47",
        "opponent_hand": 3,
        "deck": 6,
        "history": [
            {"round": 1, "seat": 0, "move": "S6"},
            {"round": 1, "seat": 1, "move": "C46-47"},
        ],
    }
    offerer = state.view(1).to_json()
    assert offerer["hand"] == "137"  # 1344677 less the four offered cards
    assert offerer["offer"] == "C46-47"
    assert offerer["phase"] == "pick"
    assert offerer["to_move"] == 0
    assert offerer["opponent_hand"] == 6
    assert offerer["history"][0] == {"round": 1, "seat": 0, "move": "S"}


def test_pick_phase_after_a_gift() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 C46-47 P46 G557")
    picker = state.view(1)
    assert (picker.phase, picker.to_move, picker.offer) == ("pick", 1, "G557")
    assert picker.hand == "137"  # unchanged since its Competition
    assert picker.played == ("46", "47")
    assert picker.actions_left == ("DC", "SDG")
    assert picker.opponent_hand == 4
    assert picker.deck == 5
    offerer = state.view(0)
    assert offerer.hand == "2677"
    assert "5" not in offerer.hand
    assert offerer.offer == "G557"


def test_reveal_entry_at_scoring() -> None:
    state = State.from_deals([DEAL_A, DEAL_A_SWAPPED])
    state = play(state, MOVES_A)
    assert state.round == 2
    for seat in (0, 1):
        history = state.view(seat).to_json()["history"]
        assert len(history) == 13
        assert history[-1] == {"round": 1, "reveal": ["1", "5"]}
    seen0 = [h["move"] for h in state.view(0).to_json()["history"][:-1]]
    seen1 = [h["move"] for h in state.view(1).to_json()["history"][:-1]]
    assert seen0 == [
        "S1",
        "S",
        "D22",
        "D",
        "G334",
        "P4",
        "G667",
        "P6",
        "C44-55",
        "P55",
        "C77-77",
        "P77",
    ]
    assert seen1 == [
        "S",
        "S5",
        "D",
        "D66",
        "G334",
        "P4",
        "G667",
        "P6",
        "C44-55",
        "P55",
        "C77-77",
        "P77",
    ]
    # The new round's view starts afresh, with the markers kept.
    view = state.view(1)
    assert (view.round, view.first, view.to_move, view.phase) == (2, 1, 1, "action")
    assert view.markers == MARKERS_A
    assert view.charm == (7, 8)
    assert view.played == ("", "")
    assert view.secret is None and view.discard is None
    assert view.actions_left == ("SDGC", "SDGC")
    assert view.hand == "1223344"
    assert (view.opponent_hand, view.deck) == (6, 7)
    # The reveal is followed by round 2's moves.
    state = state.apply("S1")
    history = state.view(0).to_json()["history"]
    assert history[12] == {"round": 1, "reveal": ["1", "5"]}
    assert history[13] == {"round": 2, "seat": 1, "move": "S"}


def test_view_of_a_finished_game() -> None:
    state = one_round(DEAL_A, MOVES_A, max_rounds=1)
    for seat in (0, 1):
        got = state.view(seat).to_json()
        assert got["phase"] == "over"
        assert got["to_move"] is None
        assert got["offer"] is None
        assert got["hand"] == ""
        assert got["actions_left"] == ["", ""]
        assert got["played"] == list(SIDES_A)  # Secrets included
        assert got["markers"] == list(MARKERS_A)
        assert got["charm"] == [7, 8]
        assert got["round"] == 1
        assert got["deck"] == 0
        assert got["opponent_hand"] == 0
        assert got["history"][-1] == {"round": 1, "reveal": ["1", "5"]}
        assert len(got["history"]) == 13
        assert state.view(seat).legal_moves == ()


def test_view_of_a_resigned_game() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 C46-47").concede(0)
    got = state.view(1).to_json()
    assert (got["phase"], got["to_move"], got["offer"]) == ("over", None, None)
    assert got["hand"] == ""
    assert got["actions_left"] == ["", ""]


def test_view_json_round_trip_along_a_game() -> None:
    rng = random.Random(5)
    state = State.new(5, rules=Rules(max_rounds=None))
    seen = 0
    while True:
        for seat in (0, 1):
            view = state.view(seat)
            text = json.dumps(view.to_json())
            back = View.from_json(json.loads(text))
            assert back == view
            assert back.to_json() == view.to_json()
            seen += 1
        if state.is_over:
            break
        state = state.apply(rng.choice(state.legal_moves))
    assert seen > 40


def test_view_history_entries() -> None:
    view = example_state().view(1)
    assert view.history[0] == SeenMove(1, 0, "S")
    assert view.history[-1] == SeenMove(1, 1, "D37")
    assert Reveal(1, ("1", "5")).to_json() == {"round": 1, "reveal": ["1", "5"]}


def test_view_legal_moves_equal_the_states() -> None:
    rng = random.Random(9)
    state = State.new(9)
    checked = 0
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        assert state.view(seat).legal_moves == state.legal_moves
        assert state.view(1 - seat).legal_moves == ()
        back = View.from_json(state.view(seat).to_json())
        assert back.legal_moves == state.legal_moves
        checked += 1
        state = state.apply(rng.choice(state.legal_moves))
    assert checked >= 24
    assert state.view(0).legal_moves == () and state.view(1).legal_moves == ()


def test_from_json_ignores_unknown_keys_and_reads_liberal_cards() -> None:
    obj = copy.deepcopy(EXAMPLE_VIEW)
    obj["engine_hint"] = {"anything": 1}
    obj["hand"] = "77621"
    obj["played"] = ["7654", "754"]
    obj["actions_left"] = ["CD", "GS"]
    view = View.from_json(obj)
    assert view.to_json() == EXAMPLE_VIEW
    assert view == example_state().view(0)


def _broken(key: str, value: Any) -> dict[str, Any]:
    obj = copy.deepcopy(EXAMPLE_VIEW)
    obj[key] = value
    return obj


def _without(key: str) -> dict[str, Any]:
    obj = copy.deepcopy(EXAMPLE_VIEW)
    del obj[key]
    return obj


def _label(obj: Any) -> str:
    """A readable test id: what differs from the example VIEW."""
    if not isinstance(obj, dict):
        return repr(obj)
    for key in FIELDS:
        if key not in obj:
            return f"no-{key}"
        if obj[key] != EXAMPLE_VIEW[key]:
            return f"{key}={json.dumps(obj[key])}"
    return "same"


MALFORMED: list[Any] = [
    None,
    [],
    "view",
    3,
    _without("seat"),
    _without("phase"),
    _without("history"),
    _without("markers"),
    _without("offer"),
    _without("deck"),
    _broken("seat", 2),
    _broken("seat", None),
    _broken("seat", True),
    _broken("seat", "0"),
    _broken("round", 0),
    _broken("round", "1"),
    _broken("first", 3),
    _broken("to_move", -1),
    _broken("phase", "play"),
    _broken("phase", None),
    _broken("markers", [None] * 6),
    _broken("markers", [2] + [None] * 6),
    _broken("markers", [False] + [None] * 6),
    _broken("markers", "0000000"),
    _broken("charm", [0]),
    _broken("charm", ["0", 0]),
    _broken("charm", [True, 0]),
    _broken("hand", "12678x"),
    _broken("hand", "18"),
    _broken("hand", 12677),
    _broken("hand", None),
    _broken("secret", "9"),
    _broken("discard", 37),
    _broken("played", ["4567"]),
    _broken("played", ["4567", 457]),
    _broken("played", ["4567", "459"]),
    _broken("actions_left", ["DC"]),
    _broken("actions_left", ["DX", "SG"]),
    _broken("actions_left", "DC SG"),
    _broken("offer", "S4"),
    _broken("offer", "P46"),
    _broken("offer", "G99"),
    _broken("offer", 557),
    _broken("opponent_hand", -1),
    _broken("opponent_hand", "2"),
    _broken("deck", 3.5),
    _broken("history", {}),
    _broken("history", [1]),
    _broken("history", [{"seat": 0, "move": "S6"}]),
    _broken("history", [{"round": 1, "seat": 2, "move": "S6"}]),
    _broken("history", [{"round": 1, "seat": 0}]),
    _broken("history", [{"round": 1, "seat": 0, "move": 6}]),
    _broken("history", [{"round": 1, "reveal": ["4"]}]),
    _broken("history", [{"round": 1, "reveal": ["4", "x"]}]),
    _broken("history", [{"round": 1, "seat": 0, "move": "X9"}]),
    _broken("history", [{"round": 1, "seat": 0, "move": "S66"}]),
    _broken("hand", "7777777777777777"),  # sixteen 7s: she has five
    _broken("charm", [-1, 0]),
    _broken("charm", [10**30, 0]),
]


@pytest.mark.parametrize("obj", MALFORMED, ids=[_label(o) for o in MALFORMED])
def test_from_json_rejects_malformed_views(obj: Any) -> None:
    with pytest.raises(ViewError) as info:
        View.from_json(obj)
    assert str(info.value)


def test_view_error_is_a_value_error() -> None:
    assert issubclass(ViewError, ValueError)


@pytest.mark.parametrize("seat", [-1, 2, 5, True, False, 0.0, "0", None])
def test_a_seat_that_is_not_0_or_1_is_refused_everywhere(seat: Any) -> None:
    """-1 indexed the other seat's hand (Python's last item), True passed for 1: every
    accessor by seat refuses them, saying what it got."""
    state = State.new(3)
    for read in (
        state.hand,
        state.played,
        state.secret,
        state.discard,
        state.actions_left,
        state.packed,
        state.view,
        state.concede,
    ):
        with pytest.raises(ValueError, match="seat must be 0 or 1"):
            read(seat)


def test_numpys_whole_numbers_are_seats() -> None:
    state = State.new(3)
    one: Any = np.int64(1)  # as the research API's arrays give them
    zero: Any = np.int8(0)
    assert state.hand(one) == state.hand(1)
    assert state.view(zero).hand == state.hand(0)
