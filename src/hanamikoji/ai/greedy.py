"""The greedy agent: one ply of lookahead over a charm-weighted evaluation of the majorities.

It scores each legal move by the position it leads to, from its own side: for every geisha the
card difference (its side minus the opponent's, own Secret included, cards still in hand at half
weight), squashed so that a safe lead is worth little more than a narrow one, times her charm.
When it offers cards (Gift, Competition) it assumes the opponent picks whatever is worst for it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from hanamikoji.ai.base import check_choice
from hanamikoji.cards import CHARM, WIN_CHARM, WIN_GEISHA
from hanamikoji.moves import Action, Move
from hanamikoji.view import View

__all__ = ["GreedyAgent", "evaluate", "outlook"]

Counts = list[float]


def _counts(cards: str, weight: float = 1.0, into: Counts | None = None) -> Counts:
    out = into if into is not None else [0.0] * 7
    for c in cards:
        out[ord(c) - 49] += weight
    return out


def outlook(diff: float, owner: int) -> float:
    """How good a geisha looks (-1..1) at a card difference ``diff`` (own minus the opponent's):
    squashed, so a safe lead is worth little more than a narrow one; on a tie the marker's
    holder (``owner``: 1 us, -1 them, 0 nobody) keeps her, which tilts it."""
    t = math.tanh(diff)
    return t + 0.35 * owner * (1.0 - abs(t))


def evaluate(
    mine: Counts,
    theirs: Counts,
    markers: Sequence[int | None],
    seat: int,
    *,
    hand_weight: float = 0.5,
    hand: str = "",
) -> float:
    """How good the majorities look for ``seat``: positive is good, about -21..21 charm units."""
    score = 0.0
    charm = 0.0
    geisha = 0.0
    held = _counts(hand, hand_weight)
    for g in range(7):
        diff = mine[g] + held[g] - theirs[g]
        owner = markers[g]
        value = outlook(diff, 0 if owner is None else (1 if owner == seat else -1))
        score += CHARM[g] * value
        if value > 0:
            charm += CHARM[g] * value
            geisha += value
    # Reaching a winning threshold is worth more than the charm that gets there.
    score += 2.0 * max(0.0, min(1.0, charm - WIN_CHARM + 1)) + 2.0 * max(
        0.0, min(1.0, geisha - WIN_GEISHA + 1)
    )
    return score


class GreedyAgent:
    """A sensible one-ply heuristic player (see the module docstring)."""

    name = "greedy"

    def __init__(self, hand_weight: float = 0.5) -> None:
        if isinstance(hand_weight, bool) or not isinstance(hand_weight, int | float):
            raise ValueError(f"hand_weight must be a number from 0 to 1, got {hand_weight!r}")
        if not 0 <= hand_weight <= 1:  # (NaN fails this too)
            raise ValueError(f"hand_weight must be a number from 0 to 1, got {hand_weight!r}")
        self.hand_weight = float(hand_weight)

    def choose(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
    ) -> Move:
        """The legal move with the best evaluation (ties broken by ``rng``)."""
        check_choice(view, legal, rng, clock_ms)
        seat, other = view.seat, view.opponent
        mine = _counts(view.played[seat])
        if view.secret:
            _counts(view.secret, into=mine)
        theirs = _counts(view.played[other])
        best: list[Move] = []
        best_score = -math.inf
        for move in legal:
            score = self._score(view, move, mine, theirs)
            if score > best_score + 1e-9:
                best, best_score = [move], score
            elif abs(score - best_score) <= 1e-9:
                best.append(move)
        return best[0] if len(best) == 1 else best[rng.randrange(len(best))]

    def score(self, view: View, move: Move) -> float:
        """The evaluation of the position after ``move`` (the opponent picking its worst)."""
        seat, other = view.seat, view.opponent
        mine = _counts(view.played[seat])
        if view.secret:
            _counts(view.secret, into=mine)
        return self._score(view, move, mine, _counts(view.played[other]))

    def _score(self, view: View, move: Move, mine: Counts, theirs: Counts) -> float:
        hand = view.hand
        if move.action is Action.PICK:
            assert view.offer is not None
            offer = Move.parse(view.offer)
            rest = _minus(offer.cards, move.cards)
            return self._eval(
                view, _counts(move.cards, into=mine[:]), _counts(rest, into=theirs[:]), hand
            )
        left = _minus(hand, move.cards)
        if move.action in (Action.SECRET, Action.DISCARD):
            gained = move.cards if move.action is Action.SECRET else ""
            return self._eval(view, _counts(gained, into=mine[:]), theirs, left)
        # An offer: the opponent takes the choice that is worst for us.
        return min(
            self._eval(
                view,
                _counts(_minus(move.cards, pick.cards), into=mine[:]),
                _counts(pick.cards, into=theirs[:]),
                left,
            )
            for pick in move.picks
        )

    def _eval(self, view: View, mine: Counts, theirs: Counts, hand: str) -> float:
        return evaluate(
            mine, theirs, view.markers, view.seat, hand_weight=self.hand_weight, hand=hand
        )


def _minus(cards: str, taken: str) -> str:
    rest = list(cards)
    for c in taken:
        rest.remove(c)
    return "".join(rest)
