"""What the opponent's decisions in the earlier rounds say about how it chooses (``carry``).

The belief weighs each world by a mixture of models of the opponent (greedy's softnesses and the
network's), equally likely a priori at each round's start. The earlier rounds of the same game
say which models fit this opponent: once a round is scored, the searching seat has seen all of
the opponent's cards of that round but its Discard (two of the three cards it never saw, the
third the removed card), so each model's likelihood of that round's decisions can be weighed
over the three possible Discards and the orders of its draws, as the belief weighs this round's
(:func:`~.evidence.belief_pool`). :func:`earlier_evidence` sums each model's log evidence over
the earlier rounds: the mixture's prior for this round.

It is read from the VIEW alone (its history), so a player shared between games carries nothing
from one to the next, and the same view always gives the same figures.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from hanamikoji.ai.fastplay import tables
from hanamikoji.cards import ALL_CARDS, pack
from hanamikoji.kernel.row import (
    C_DISCARD,
    C_FIRST,
    C_MARKERS,
    C_OFFER,
    C_PLAYED,
    C_ROUND,
    C_SECRET,
    C_TO_MOVE,
    C_TURN,
    C_WINNER,
    NCOL,
)
from hanamikoji.kernel.tables import H, T
from hanamikoji.view import HistoryEntry, Reveal, SeenMove, View

from .evidence import HIDDEN_IDS, belief_pool, kernel_policy, opponent_decisions

__all__ = ["EARLIER_POOL", "earlier_evidence", "markers_before", "round_end"]

EARLIER_POOL = 1024
"""How many worlds weigh an earlier round: the three possible Discards, each with the orders of
the opponent's draws (a few ms a round, once a game: the figures are cached)."""


def round_end(
    view: View, number: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """The earlier round ``number`` of ``view``'s game as its seat saw it once it was over:
    (the kernel row at its end before the scoring, the opponent's Discard left out; the three
    cards the seat never saw, as digits; the opponent's decisions in it, :data:`~.evidence.NX`
    rows), or None where the history does not hold the whole round."""
    me = view.seat
    markers = markers_before(view.history, number)
    reveal = next((e for e in view.history if isinstance(e, Reveal) and e.round == number), None)
    if markers is None or reveal is None:
        return None
    played, offered, discard, _ = _replay(view.history, number, me)
    secret = [pack(reveal.secrets[0]), pack(reveal.secrets[1])]
    left = Counter(ALL_CARDS)  # less every card the seat saw leave a hand this round
    for code in (*offered, *secret, discard):
        for g in range(7):
            left[str(g + 1)] -= (code >> (4 * g)) & 15
    if any(n < 0 for n in left.values()) or sum(left.values()) != 3:
        return None
    row = np.zeros(NCOL, dtype=np.int64)  # hands empty, no actions left
    row[C_PLAYED], row[C_PLAYED + 1] = played
    row[C_SECRET], row[C_SECRET + 1] = secret
    row[C_DISCARD + me] = discard
    row[C_MARKERS : C_MARKERS + 7] = [-1 if m is None else m for m in markers]
    row[C_ROUND] = number
    row[C_FIRST] = view.first ^ ((view.round - number) & 1)  # the first player alternates
    row[C_TURN] = 8
    row[C_OFFER] = -1
    row[C_TO_MOVE] = view.opponent
    row[C_WINNER] = -1
    unseen = np.array([int(c) for c in sorted(left.elements())], dtype=np.int64)
    return row, unseen, opponent_decisions(view, number)


def markers_before(history: tuple[HistoryEntry, ...], number: int) -> list[int | None] | None:
    """The markers as round ``number`` began, from the scorings before it in ``history`` (a
    game from neutral markers), or None if one of those rounds is not whole there."""
    markers: list[int | None] = [None] * 7
    for entry in history:
        if isinstance(entry, Reveal) and entry.round < number:
            played, _, _, picks = _replay(history, entry.round, 0)
            if picks != 4:
                return None
            for g in range(7):
                a = ((played[0] + pack(entry.secrets[0])) >> (4 * g)) & 15
                b = ((played[1] + pack(entry.secrets[1])) >> (4 * g)) & 15
                if a != b:
                    markers[g] = 0 if a > b else 1
    return markers


def _replay(
    history: tuple[HistoryEntry, ...], number: int, seat: int
) -> tuple[tuple[int, int], tuple[int, int], int, int]:
    """Round ``number`` as ``seat`` saw it, packed: each side's cards (no Secret), the cards
    each seat offered, ``seat``'s own Discard, and how many offers were picked."""
    played, offered = [0, 0], [0, 0]
    discard, pending, offerer, picks = 0, 0, 0, 0
    for entry in history:
        if not isinstance(entry, SeenMove) or entry.round != number:
            continue
        letter, cards, mover = entry.move[0], entry.move[1:], entry.seat
        if letter == "P":
            take = pack(cards)
            played[mover] += take
            played[offerer] += pending - take
            picks += 1
        elif letter in "GC":
            pending, offerer = pack(cards.replace("-", "")), mover
            offered[mover] += pending
        elif letter == "D" and mover == seat:
            discard = pack(cards)
    return (played[0], played[1]), (offered[0], offered[1]), discard, picks


def earlier_evidence(
    view: View, betas: tuple[float, ...], taus: tuple[float, ...], max_rounds: int
) -> npt.NDArray[np.float64]:
    """Each model's log evidence from the opponent's decisions in the rounds before this one
    (greedy's softnesses ``betas``, then the network's ``taus``; zeros in round 1): the sum
    over those rounds of the log mean likelihood of the round's decisions over
    :data:`EARLIER_POOL` of its possible worlds."""
    total = np.zeros(len(betas) + len(taus), dtype=np.float64)
    if markers_before(view.history, view.round) != list(view.markers):
        return total  # a game begun from other markers, or a history cut short: no evidence
    for number in range(1, view.round):
        past = tuple(e for e in view.history if e.round <= number)
        total += _round_evidence(
            past, view.seat, view.round, view.first, number, betas, taus, max_rounds
        )
    return total


@lru_cache(maxsize=256)
def _round_evidence(
    past: tuple[HistoryEntry, ...],
    seat: int,
    now: int,
    first: int,
    number: int,
    betas: tuple[float, ...],
    taus: tuple[float, ...],
    max_rounds: int,
) -> npt.NDArray[np.float64]:
    """One earlier round's evidence for each model (cached: a game asks for it at every
    decision of the rounds after it)."""
    sketch = View(
        seat=seat,
        round=now,
        first=first,
        to_move=None,
        phase="",
        markers=(None,) * 7,
        charm=(0, 0),
        hand="",
        secret=None,
        discard=None,
        played=("", ""),
        actions_left=("", ""),
        offer=None,
        opponent_hand=0,
        deck=0,
        history=past,
    )
    found = round_end(sketch, number)
    n = len(betas) + len(taus)
    if found is None:
        return np.zeros(n, dtype=np.float64)
    row, unseen, decisions = found
    if not len(decisions):
        return np.zeros(n, dtype=np.float64)
    pool = np.empty((EARLIER_POOL, NCOL), dtype=np.int64)
    spare = np.empty((EARLIER_POOL, 1), dtype=np.int64)
    logs = np.empty((EARLIER_POOL, n), dtype=np.float64)
    slots = np.array((0, 0, 0, 2), dtype=np.int64)  # only the Discard: two of the three
    belief_pool(
        row,
        unseen,
        slots,
        1 - seat,
        decisions,
        np.array(betas, dtype=np.float64),
        np.array(taus, dtype=np.float64),
        max_rounds,
        T,
        H,
        tables()[0],
        kernel_policy(bool(taus)),
        0x5EED + number,  # the same worlds whenever the round is weighed
        pool,
        spare,
        logs,
        HIDDEN_IDS,
    )
    top = logs.max(axis=0)
    evidence: npt.NDArray[np.float64] = top + np.log(np.exp(logs - top).mean(axis=0))
    evidence.setflags(write=False)
    return evidence
