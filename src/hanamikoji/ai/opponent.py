"""Weighting determinizations by what the opponent's choices reveal.

A uniform determinization ignores that the opponent chose its actions this round knowing its
hand: a player who offered ``G147`` probably held nothing it liked better to offer. This module
scores each of a pool of determinizations by how likely the opponent's actions this round are
under a model of it (greedy's evaluation, softened: the probability of a move is proportional
to ``exp(beta * score)``), so a search can sample its worlds in proportion.

The opponent's hand at each of its past decisions is rebuilt from the determinization: the
cards it holds now plus every card it has used since (its offers, and the Secret and Discard the
determinization gave it). The cards it drew after that decision cannot be told apart, so that
hand holds a card too many for each later draw; the model is approximate, the weighting only
tilts the sampling. Needs numpy and numba (greedy's evaluation in :mod:`~.fastplay`).
"""

from __future__ import annotations

import math
import random
from bisect import bisect
from itertools import accumulate

from hanamikoji.ai.belief import determinize, unseen_cards
from hanamikoji.cards import pack, unpack
from hanamikoji.moves import Action, Move, mask_actions
from hanamikoji.state import Rules, State
from hanamikoji.view import SeenMove, View

__all__ = ["Context", "WeightedPool", "opponent_contexts", "weigh"]


class Context:
    """The public side of one of the opponent's action decisions this round."""

    __slots__ = ("actions", "index", "move", "my_secret", "played", "turn")

    def __init__(
        self,
        index: int,
        turn: int,
        played: tuple[int, int],
        actions: tuple[int, int],
        my_secret: int,
        move: str,
    ) -> None:
        self.index = index  # the opponent's k-th action this round (0-based)
        self.turn = turn  # turns completed before it
        self.played = played  # packed sides then, per seat
        self.actions = actions  # actions-left masks then, per seat
        self.my_secret = my_secret  # the viewer's Secret then (packed, 0 if none yet)
        self.move = move  # as the viewer saw it: "S", "D", or the offer


def opponent_contexts(view: View) -> list[Context]:
    """The opponent's action decisions this round, with the public position at each."""
    me, opp = view.seat, view.opponent
    played = [0, 0]
    actions = [15, 15]
    secret = 0
    turn = 0
    pending: Move | None = None
    offerer = 0
    out: list[Context] = []
    for entry in view.history:
        if not isinstance(entry, SeenMove) or entry.round != view.round:
            continue
        text = entry.move
        seat = entry.seat
        if text.startswith("P"):
            assert pending is not None
            take = pack(text[1:])
            played[seat] += take
            played[offerer] += pending.code - take
            pending = None
            turn += 1
            continue
        if seat == opp:
            out.append(
                Context(
                    len(out), turn, (played[0], played[1]), (actions[0], actions[1]), secret, text
                )
            )
        letter = text[0]
        actions[seat] &= ~Action(letter).bit
        if letter in "GC":
            pending, offerer = Move.parse(text), seat
        else:
            if seat == me and letter == "S":
                secret = pack(text[1:])
            turn += 1
    return out


def _decisions(view: View, world: State, contexts: list[Context]) -> list[tuple[State, Move]]:
    """Each opponent decision as a state in ``world`` (rebuilt as the module says) and its move."""
    me, opp = view.seat, view.opponent
    opp_secret = pack(world.secret(opp) or "")
    opp_discard = pack(world.discard(opp) or "")
    used = []
    for c in contexts:
        if c.move == "S":
            used.append((Move(Action.SECRET, unpack(opp_secret)), opp_secret))
        elif c.move == "D":
            used.append((Move(Action.DISCARD, unpack(opp_discard)), opp_discard))
        else:
            m = Move.parse(c.move)
            used.append((m, m.code))
    later = pack(world.hand(opp))
    out: list[tuple[State, Move]] = []
    for c, (move, code) in zip(reversed(contexts), reversed(used), strict=True):
        later += code
        hands = ["", ""]
        hands[opp] = unpack(later)
        secrets: list[str | None] = [None, None]
        if c.my_secret:
            secrets[me] = unpack(c.my_secret)
        if not c.actions[opp] & Action.SECRET.bit:
            secrets[opp] = unpack(opp_secret)
        state = State.from_position(
            turn=c.turn,
            hands=(hands[0], hands[1]),
            actions_left=(mask_actions(c.actions[0]), mask_actions(c.actions[1])),
            deck="1" * (7 - c.turn),  # unread: the pile plays no part in greedy's judgement
            removed="1",
            round=view.round,
            markers=view.markers,
            played=(unpack(c.played[0]), unpack(c.played[1])),
            secrets=(secrets[0], secrets[1]),
            rules=world.rules,
            check=False,
        )
        out.append((state, move))
    return out


def weigh(view: View, world: State, contexts: list[Context], beta: float) -> float:
    """The log-likelihood of the opponent's actions this round in ``world`` under the model."""
    from hanamikoji.ai.fastplay import greedy_scores  # needs numpy and numba

    total = 0.0
    for state, move in _decisions(view, world, contexts):
        scores = greedy_scores(state)
        chosen = scores.get(move)
        if chosen is None:  # cannot happen with a consistent world; ignore rather than fail
            continue
        top = max(scores.values())
        norm = sum(math.exp(beta * (s - top)) for s in scores.values())
        total += beta * (chosen - top) - math.log(norm)
    return total


class WeightedPool:
    """``size`` determinizations of ``view``, drawn in proportion to the opponent model."""

    def __init__(
        self,
        view: View,
        rng: random.Random,
        *,
        size: int,
        beta: float,
        rules: Rules | None = None,
    ) -> None:
        unseen = unseen_cards(view)
        contexts = opponent_contexts(view)
        self.worlds = [determinize(view, rng, rules=rules, unseen=unseen) for _ in range(size)]
        logs = [weigh(view, w, contexts, beta) for w in self.worlds] if contexts else [0.0] * size
        top = max(logs)
        self.weights = [math.exp(x - top) for x in logs]
        self._cumulative = list(accumulate(self.weights))

    @property
    def effective_size(self) -> float:
        """How many equally weighted worlds the pool is worth (Kish's effective sample size)."""
        total = self._cumulative[-1]
        return total * total / sum(w * w for w in self.weights)

    def draw(self, rng: random.Random) -> State:
        """A world drawn in proportion to its weight."""
        cum = self._cumulative
        return self.worlds[min(bisect(cum, rng.random() * cum[-1]), len(cum) - 1)]
