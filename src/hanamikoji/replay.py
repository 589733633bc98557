"""A game record told in words: each round's deal, every move, the scoring and the result.

Moves are numbered as in the record (and in ``analyze`` and a RecordError): by their index in
the round's moves, from 0, picks counted.

The names and the result's reason come from the record, so they are shown escaped
(:func:`hanamikoji.terminal.printable`): the text is safe to print on a terminal.
"""

from __future__ import annotations

import dataclasses

from hanamikoji.cards import CHARM, GEISHA
from hanamikoji.moves import Action
from hanamikoji.record import Record
from hanamikoji.state import Ply, RoundScore, State
from hanamikoji.terminal import printable, shown_name

__all__ = ["describe_scoring", "render_replay", "seat_names"]


def _owner(marker: int | None, names: tuple[str, str]) -> str:
    return "neutral" if marker is None else names[marker]


def describe_scoring(score: RoundScore, names: tuple[str, str]) -> list[str]:
    """The lines of one round's scoring: Secrets, each geisha's cards and marker, the standing."""
    lines = [
        f"  Scoring: Secrets revealed: {names[0]} {score.secrets[0]}, {names[1]} {score.secrets[1]}"
    ]
    for g in GEISHA:
        a, b = score.played[0].count(str(g)), score.played[1].count(str(g))
        before, after = score.markers_before[g - 1], score.markers[g - 1]
        if before == after:
            move = f"marker stays {_owner(after, names)}"
        else:
            move = f"marker moves to {_owner(after, names)}"
        lines.append(f"    geisha {g} (charm {CHARM[g - 1]}): {a} - {b}, {move}")
    lines.append(
        f"  After round {score.round}: charm {score.charm[0]} - {score.charm[1]},"
        f" geisha {score.geisha[0]} - {score.geisha[1]}"
    )
    return lines


def seat_names(record: Record) -> tuple[str, str]:
    """The players' names as shown (escaped, a long one cut short); two that would be shown
    alike are told apart by their seats (``random [seat 0]``, ``random [seat 1]``)."""
    names = (shown_name(record.players[0]), shown_name(record.players[1]))
    if names[0] == names[1]:  # compared as shown: names that only look the same are told apart
        names = (f"{names[0]} [seat 0]", f"{names[1]} [seat 1]")
    return names


def render_replay(record: Record, state: State) -> str:
    """The whole game of ``record`` (already replayed to ``state``) as readable text."""
    names = seat_names(record)
    limit = record.rules.max_rounds
    rules = (
        "no round limit" if limit is None else f"at most {limit} round{'' if limit == 1 else 's'}"
    )
    # the header names the seats itself: the names as shown, without seat_names' own "[seat N]"
    seat0, seat1 = (shown_name(p) for p in record.players)
    out = [f"{seat0} (seat 0) vs {seat1} (seat 1), rules: {rules}"]
    scored = {s.round: s for s in state.scorings}
    # The plies of each round, gathered in one pass (not a scan of the whole game per round).
    plies: dict[int, list[Ply]] = {}
    for ply in state.history:
        plies.setdefault(ply.round, []).append(ply)
    for number, rnd in enumerate(record.rounds, start=1):
        first = 0 if number % 2 else 1
        deal = rnd.deal
        out.append("")
        out.append(f"Round {number}: {names[first]} plays first")
        out.append(
            f"  Deal: removed {deal.removed}; {names[0]} holds {deal.hands[0]}, "
            f"{names[1]} holds {deal.hands[1]}; pile {deal.deck} (top first)"
        )
        drawn = 0
        for index, ply in enumerate(plies.get(number, ())):
            if ply.move.action is Action.PICK:
                told = f"{names[ply.seat]}: {ply.move.describe()}"
            else:
                card = deal.deck[drawn] if drawn < len(deal.deck) else "?"
                drawn += 1
                told = f"{names[ply.seat]} draws {card}. {ply.move.describe()}"
            out.append(f"  move {index:>2}  {told}")
        if number in scored:
            out.extend(describe_scoring(scored[number], names))
    out.append("")
    outcome = state.outcome
    if outcome is None:
        out.append(
            f"Unfinished: {state.phase.value} of {names[state.to_move or 0]} in round {state.round}"
        )
    else:
        if outcome.why is not None:
            outcome = dataclasses.replace(outcome, why=printable(outcome.why))
        out.append("Result: " + outcome.describe(names))
    return "\n".join(out) + "\n"
