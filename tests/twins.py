"""Twin games for the hidden-card tests: games that a spectator cannot tell apart.

A twin of a game swaps the removed card of round 1 with a card X that a seat held: the twin's deal
sets X aside and gives that seat the removed card where X was (dealt, or drawn from the pile), and
its moves use the removed card where they used X. Each twin says until which version nobody but
that seat has seen X: a Discard never shows it, a Secret until its round is scored, a card in a
hand or the pile until it is offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hanamikoji.moves import Move
from hanamikoji.state import Deal, State


@dataclass(frozen=True)
class Twin:
    """A game a spectator cannot tell from another one, up to (not including) version ``upto``."""

    deals: list[Deal]
    moves: list[str]
    upto: int | None  # None: the whole game
    what: str  # where the two games differ, in words


def states_of(deals: list[Deal], moves: list[str], rules: Any) -> list[State]:
    """The state after each number of moves (index = moves made)."""
    state = State.from_deals(deals, rules=rules)
    out = [state]
    for move in moves:
        state = state.apply(move)
        out.append(state)
    return out


def _swap(move: str, card: str, removed: str) -> str:
    """``move`` with one ``card`` replaced by ``removed``, in canonical notation."""
    return str(Move.parse(move.replace(card, removed, 1)))


def public_twins(state: State) -> list[Twin]:
    """One twin for each seat and each of: its round-1 Discard, its Secret, its first offer."""
    deals = list(state.deals)
    moves = [str(p.move) for p in state.history]
    plies = state.history
    deal = deals[0]
    removed = deal.removed
    round1 = [i for i, p in enumerate(plies) if p.round == 1]
    scored = bool(state.scorings) and state.scorings[0].round == 1
    end1 = len(round1) if scored else None  # the version at which round 1 was scored
    out = []
    for seat in (0, 1):
        for kind, actions in (("Discard", "D"), ("Secret", "S"), ("offer", "GC")):
            i = next((i for i in round1 if plies[i].seat == seat and moves[i][0] in actions), None)
            if i is None:
                continue
            if kind == "Discard":
                upto, mine = None, moves[:]
            elif kind == "Secret":
                upto, mine = end1, moves[: end1 - 1] if end1 is not None else moves[:]
            else:
                upto, mine = i + 1, moves[:i]
            for card in sorted(set(moves[i][1:].replace("-", "")) - {removed}):
                twin_moves = mine[:]
                if i < len(twin_moves):
                    twin_moves[i] = _swap(twin_moves[i], card, removed)
                built = _place(deals, twin_moves, state, seat, card)
                if built is not None:
                    what = f"seat {seat}'s {kind} ({moves[i]}: {card} for {removed})"
                    out.append(Twin(built, twin_moves, upto, what))
                    break
    return out


def _place(
    deals: list[Deal], moves: list[str], state: State, seat: int, card: str
) -> list[Deal] | None:
    """The deals with ``card`` set aside and the removed card where ``seat`` had ``card`` (the
    first place whose game still replays), or None."""
    deal = deals[0]
    first_draw = 0 if seat == 0 else 1  # round 1: seat 0 plays first and draws deck[0], [2], ...
    places = [-1] + [j for j in range(first_draw, 8, 2) if deal.deck[j] == card]
    for j in places:
        hands = list(deal.hands)
        deck = list(deal.deck)
        if j < 0:
            if card not in hands[seat]:
                continue
            hands[seat] = "".join(sorted(hands[seat].replace(card, deal.removed, 1)))
        else:
            deck[j] = deal.removed
        built = [Deal(card, (hands[0], hands[1]), "".join(deck)), *deals[1:]]
        try:
            states_of(built, moves, state.rules)
        except ValueError:
            continue
        return built
    return None
