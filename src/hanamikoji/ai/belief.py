"""What a seat cannot see, and sampling it: determinizations consistent with a VIEW.

A seat cannot see the removed card, the opponent's hand, the opponent's Secret and Discard once
played, and the rest of the pile. All of those come from one multiset, the *unseen* cards: the 21
cards less everything the seat has seen this round. A determinization deals exactly those cards
(with their true multiplicities) into those places, uniformly at random, and returns a full
:class:`~hanamikoji.state.State` that agrees with the view in everything the seat can see.
"""

from __future__ import annotations

import random
from collections import Counter

from hanamikoji.cards import ALL_CARDS
from hanamikoji.state import Rules, State
from hanamikoji.view import View

__all__ = ["Hidden", "determinize", "hidden_slots", "unseen_cards"]


def unseen_cards(view: View) -> str:
    """The multiset of cards ``view``'s seat has not seen this round, ascending."""
    seen = view.hand + (view.secret or "") + (view.discard or "") + view.played[0] + view.played[1]
    if view.offer is not None:
        seen += "".join(c for c in view.offer if c.isdigit())
    left = Counter(ALL_CARDS)
    left.subtract(seen)
    if any(n < 0 for n in left.values()):
        raise ValueError(f"the view shows more cards than exist: {seen!r}")
    return "".join(sorted(left.elements()))


class Hidden:
    """How many unseen cards go where: removed 1, the opponent's hand, Secret, Discard, the pile."""

    __slots__ = ("deck", "discard", "hand", "secret")

    def __init__(self, view: View) -> None:
        opp = view.opponent
        self.hand = view.opponent_hand
        self.secret = 0 if "S" in view.actions_left[opp] else 1
        self.discard = 0 if "D" in view.actions_left[opp] else 2
        self.deck = view.deck

    @property
    def total(self) -> int:
        """All the unseen cards, the removed one included."""
        return 1 + self.hand + self.secret + self.discard + self.deck


def hidden_slots(view: View) -> Hidden:
    """Where the unseen cards of ``view`` are."""
    return Hidden(view)


def determinize(
    view: View,
    rng: random.Random,
    *,
    rules: Rules | None = None,
    unseen: str | None = None,
    future: random.Random | None = None,
) -> State:
    """A state drawn uniformly among those consistent with ``view`` (this round's hidden cards).

    ``unseen`` may pass a precomputed :func:`unseen_cards`; later rounds are dealt from
    ``future`` (default: ``rng``).
    """
    if view.phase == "over" or view.to_move is None:
        raise ValueError("a finished game has nothing left to sample")
    cards = list(unseen if unseen is not None else unseen_cards(view))
    slots = Hidden(view)
    if len(cards) != slots.total:
        raise ValueError(
            f"the view does not add up: {len(cards)} unseen cards for {slots.total} hidden places"
        )
    rng.shuffle(cards)
    opp = view.opponent
    i = 1
    opp_hand = "".join(sorted(cards[i : i + slots.hand]))
    i += slots.hand
    opp_secret = cards[i] if slots.secret else None
    i += slots.secret
    opp_discard = "".join(sorted(cards[i : i + 2])) if slots.discard else None
    i += slots.discard
    deck = "".join(cards[i:])
    hands = [view.hand, view.hand]
    hands[opp] = opp_hand
    secrets: list[str | None] = [view.secret, view.secret]
    secrets[opp] = opp_secret
    discards: list[str | None] = [view.discard, view.discard]
    discards[opp] = opp_discard
    turn = 7 - view.deck
    return State.from_position(
        turn=turn,
        hands=(hands[0], hands[1]),
        actions_left=view.actions_left,
        deck=deck,
        removed=cards[0],
        round=view.round,
        markers=view.markers,
        played=view.played,
        secrets=(secrets[0], secrets[1]),
        discards=(discards[0], discards[1]),
        offer=view.offer,
        rules=rules,
        rng=future if future is not None else rng,
        check=False,
    )
