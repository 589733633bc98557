"""Dealing afresh what one seat cannot see: a new game it cannot tell from the one it plays.

:func:`redeal` takes a position and a seat and returns the deals and moves of a game that the seat
has seen move for move, but whose hidden cards this round (the opponent's hand, Secret and Discard,
the removed card and the undrawn pile) are drawn anew, uniformly among the games consistent with
what the seat has seen. The web app uses it for undo against the AI: a player who takes a move back
then meets cards nobody has looked at, so an undo never tells them a card.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from hanamikoji.cards import ALL_CARDS
from hanamikoji.moves import Action, Move
from hanamikoji.state import Deal, Ply, State

__all__ = ["RedealError", "Redealt", "redeal"]

_HIDDEN = (Action.SECRET, Action.DISCARD)


class RedealError(ValueError):
    """No new deal could be found (a position that is over, or not reached by play)."""


@dataclass(frozen=True)
class Redealt:
    """A game indistinguishable for one seat: its deals, every move, and the state they lead to."""

    deals: tuple[Deal, ...]
    moves: tuple[str, ...]
    state: State
    seed: int  # later rounds are dealt from random.Random(seed)


@dataclass(frozen=True)
class _Action:
    """One of the opponent's actions this round: at which turn, what, the cards shown."""

    turn: int
    move: Move
    shown: str  # the cards everyone saw (an offer's), "" for a Secret or Discard


def redeal(state: State, seat: int, rng: random.Random, *, tries: int = 10_000) -> Redealt:
    """A game with ``state``'s history as ``seat`` saw it and this round's hidden cards dealt anew.

    Earlier rounds stay as they were (their deals and moves); in this round ``seat``'s own hand
    and draws stay, the opponent's public cards (its offers) stay, and everything else is drawn
    from ``rng``: the opponent's hand and draws, the cards of its Secret and Discard, the removed
    card and the rest of the pile. Later rounds are dealt from ``rng`` too. The new game's VIEW for
    ``seat`` equals ``state``'s after every move.
    """
    if state.is_over:
        raise RedealError("the game is over: there is nothing hidden left to deal")
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    deals = state.deals
    number = state.round
    deal = deals[number - 1]
    plies = [p for p in state.history if p.round == number]
    earlier = [str(p.move) for p in state.history if p.round != number]
    first = state.first
    other = 1 - seat
    turns = state.turn + 1  # turns begun this round: each began with its actor's draw
    mine = [t for t in range(turns) if first ^ (t & 1) == seat]
    theirs = [t for t in range(turns) if first ^ (t & 1) == other]
    known = Counter(deal.hands[seat]) + Counter(deal.deck[t] for t in mine)
    pool = Counter(ALL_CARDS) - known
    actions = _opponent_actions(plies, other)
    shown = Counter("".join(a.shown for a in actions))
    free = list((pool - shown).elements())
    stream_size = 6 + len(theirs)
    later_seed = rng.getrandbits(62)
    for _ in range(tries):
        stream = list(shown.elements()) + rng.sample(free, stream_size - sum(shown.values()))
        rng.shuffle(stream)
        hand, draws = stream[:6], stream[6:]
        hidden = _hidden_cards(hand, draws, actions, theirs, rng)
        if hidden is None:
            continue
        rest = list((pool - Counter(stream)).elements())
        rng.shuffle(rest)
        deck = list(deal.deck)
        for t, card in zip(theirs, draws, strict=True):
            deck[t] = card
        for t in range(turns, 8):
            deck[t] = rest.pop()
        hands = [deal.hands[0], deal.hands[1]]
        hands[other] = "".join(sorted(hand))
        new = Deal(rest.pop(), (hands[0], hands[1]), "".join(deck))
        moves = [_rewrite(p.move, hidden) if p.seat == other else str(p.move) for p in plies]
        all_deals = (*deals[: number - 1], new)
        all_moves = (*earlier, *moves)
        replayed = _replay(all_deals, all_moves, state, later_seed)
        if replayed is not None and replayed.view(seat) == state.view(seat):
            return Redealt(all_deals, all_moves, replayed, later_seed)
    raise RedealError(f"no deal consistent with seat {seat}'s view was found in {tries} tries")


def _opponent_actions(plies: list[Ply], other: int) -> list[_Action]:
    """The opponent's actions this round in order (its picks are of the seat's cards)."""
    out = []
    turn = 0
    for ply in plies:
        move: Move = ply.move
        if move.is_pick:
            continue
        if ply.seat == other:
            out.append(_Action(turn, move, "" if move.action in _HIDDEN else move.cards))
        turn += 1
    return out


def _hidden_cards(
    hand: list[str],
    draws: list[str],
    actions: list[_Action],
    turns: list[int],
    rng: random.Random,
) -> dict[Action, str] | None:
    """The cards of the opponent's Secret and Discard, or None if this stream cannot be played.

    Walks the opponent's hand through its actions: each draws first, each offer must be in hand,
    and a hidden action takes cards at random among those no later offer needs.
    """
    held = Counter(hand)
    drawn = dict(zip(turns, draws, strict=True))
    chosen: dict[Action, str] = {}
    for i, action in enumerate(actions):
        for t, card in drawn.items():
            if t <= action.turn:
                held[card] += 1
        drawn = {t: c for t, c in drawn.items() if t > action.turn}
        if action.shown:
            need = Counter(action.shown)
            if need - held:
                return None
            held -= need
            continue
        later = Counter("".join(a.shown for a in actions[i + 1 :]))
        spare = list((held - later).elements())
        size = len(action.move.cards)
        if len(spare) < size:
            return None
        cards = rng.sample(spare, size)
        held -= Counter(cards)
        chosen[action.move.action] = "".join(sorted(cards))
    return chosen


def _rewrite(move: Move, hidden: dict[Action, str]) -> str:
    """The opponent's move with its hidden cards replaced (offers and picks unchanged)."""
    if move.action not in _HIDDEN:
        return str(move)
    return f"{move.action.value}{hidden[move.action]}"


def _replay(
    deals: tuple[Deal, ...], moves: tuple[str, ...], state: State, seed: int
) -> State | None:
    """The state the new game reaches, or None if a move is not legal in it."""
    new = State.from_deals(deals, rules=state.rules, rng=random.Random(seed))
    try:
        for text in moves:
            new = new.apply(text)
    except ValueError:
        return None
    return new
