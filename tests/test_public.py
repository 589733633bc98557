"""The public view: what a spectator may know, and nothing a seat keeps to itself."""

from __future__ import annotations

import json
import random

import pytest

from conftest import DEAL_A, EXAMPLE_DEAL, EXAMPLE_MOVES, MOVES_A, one_round, play
from hanamikoji.public import PublicView, PublicViewError
from hanamikoji.state import Rules, State
from twins import public_twins, states_of


def test_the_example_view_without_a_seat() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), EXAMPLE_MOVES)
    public = PublicView.of(state).to_json()
    assert public == {
        "round": 1,
        "first": 0,
        "to_move": 0,
        "phase": "action",
        "markers": [None] * 7,
        "charm": [0, 0],
        "played": ["4567", "457"],
        "actions_left": ["DC", "SG"],
        "offer": None,
        "hand_sizes": [5, 2],
        "deck": 3,
        "history": [
            {"round": 1, "seat": 0, "move": "S"},  # seat 0's own Secret is hidden too
            {"round": 1, "seat": 1, "move": "C46-47"},
            {"round": 1, "seat": 0, "move": "P46"},
            {"round": 1, "seat": 0, "move": "G557"},
            {"round": 1, "seat": 1, "move": "P5"},
            {"round": 1, "seat": 1, "move": "D"},
        ],
    }
    text = json.dumps(public)
    assert PublicView.from_json(json.loads(text)) == PublicView.of(state)


def test_an_offer_is_public_and_the_secrets_only_once_scored() -> None:
    moves = MOVES_A.split()
    state = one_round(DEAL_A, " ".join(moves[:4]))  # S1 S5 D22 D66
    mid = PublicView.of(one_round(DEAL_A, " ".join(moves[:5])))  # ... G334
    assert mid.offer == "G334" and mid.phase == "pick" and mid.to_move == 1
    assert [e.to_json()["move"] for e in PublicView.of(state).history] == ["S", "S", "D", "D"]
    end = PublicView.of(one_round(DEAL_A, MOVES_A))
    assert end.phase == "over" and end.hand_sizes == (0, 0)
    assert end.history[-1].to_json() == {"round": 1, "reveal": ["1", "5"]}
    assert end.played == ("13344677", "45556777")  # the Secrets joined the sides at scoring


def test_a_resignation_keeps_the_secrets_hidden() -> None:
    state = one_round(DEAL_A, "S1 S5 D22").concede(0)
    public = PublicView.of(state)
    assert public.phase == "over" and public.played == ("", "")
    assert all("reveal" not in e.to_json() for e in public.history)
    assert [e.to_json()["move"] for e in public.history] == ["S", "S", "D"]


def test_twin_games_look_the_same_to_a_spectator() -> None:
    """Games that differ only in cards nobody has seen revealed (the removed card, a Discard, a
    Secret before its scoring, a card in a hand or the pile before it is offered) have the same
    public view at every step, while the seat that held the card could tell them apart."""
    rng = random.Random(3)
    kinds: set[str] = set()
    told = 0
    for _ in range(30):
        state = State.new(rng, rules=Rules(max_rounds=3))
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_moves))
        real = states_of(list(state.deals), [str(p.move) for p in state.history], state.rules)
        for twin in public_twins(state):
            kinds.add(twin.what.split("'s ")[1].split(" ")[0])
            other = states_of(twin.deals, twin.moves, state.rules)
            upto = len(other) if twin.upto is None else twin.upto
            assert upto <= len(other)
            for v in range(upto):
                assert PublicView.of(other[v]) == PublicView.of(real[v]), (twin.what, v)
            seat = int(twin.what.split(" ")[1][0])
            told += any(other[v].view(seat) != real[v].view(seat) for v in range(upto))
    assert kinds == {"Discard", "Secret", "offer"}
    assert told >= 100  # the twins differ where it matters: the seat itself sees it


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("phase", "thinking"),
        ("markers", [0] * 6),
        ("hand_sizes", [1]),
        ("played", ["18", ""]),
        ("history", [{"round": 1, "seat": 0, "move": "S4"}]),  # a hidden card shown
        ("history", [{"round": 1, "seat": 2, "move": "S"}]),
        ("offer", "X1"),
        ("to_move", True),
    ],
)
def test_a_malformed_public_view_says_what_is_wrong(field: str, value: object) -> None:
    good = PublicView.of(State.new(1)).to_json()
    with pytest.raises(PublicViewError):
        PublicView.from_json(good | {field: value})
    with pytest.raises(PublicViewError, match="lacks the field 'deck'"):
        PublicView.from_json({k: v for k, v in good.items() if k != "deck"})
