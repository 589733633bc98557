"""The rules over one row (:mod:`~hanamikoji.kernel.row`), compiled with numba: the legal
actions, a move, the end of a turn, a round's scoring, a new round and game, and the row's
random stream. The batch simulator, the greedy kernel and the fast search all play through
these; the tests compare them with :class:`~hanamikoji.state.State` step by step.

A move is ``apply(row, a, T)``: it plays legal action ``a`` for the seat to move and ends the
turn if the move ends it (the next actor draws); it returns True when that was the round's last
turn, which the caller then scores with ``score_round`` (the batch simulator goes on to the
next round or ends the game; a search reads its value table).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hanamikoji.cards import GUARD, WIN_CHARM, WIN_GEISHA
from hanamikoji.kernel.jit import jit, jit_inline
from hanamikoji.kernel.row import (
    C_ACTIONS,
    C_DEAL,
    C_DECK,
    C_DISCARD,
    C_FIRST,
    C_HAND,
    C_MARKERS,
    C_NDEALS,
    C_OFFER,
    C_PLAYED,
    C_REASON,
    C_REMOVED,
    C_RNG,
    C_ROUND,
    C_SECRET,
    C_TO_MOVE,
    C_TURN,
    C_WINNER,
)
from hanamikoji.kernel.tables import (
    ALL_CODE,
    CHARMS,
    T_CODE,
    T_NPICKS,
    T_PICK,
    T_TYPE,
    card_code,
    hand_index,
)

__all__ = [
    "KERNEL_ROUNDS_MAX",
    "apply",
    "end_game",
    "end_turn",
    "is_legal",
    "kernel_rounds",
    "legal",
    "mix",
    "new_game",
    "nth_geisha",
    "rand_below",
    "random_action",
    "round_result",
    "score_round",
    "start_round",
]

KERNEL_ROUNDS_MAX = 2**62
"""The largest round limit the kernel holds (its rows and arguments are 64-bit): a larger one is
the same game, as no game lasts 2**62 rounds."""


def kernel_rounds(max_rounds: int | None) -> int:
    """A rules' round limit as the kernel takes it: 0 for no limit; any positive whole number the
    rules allow, capped at :data:`KERNEL_ROUNDS_MAX`."""
    return 0 if max_rounds is None else min(max_rounds, KERNEL_ROUNDS_MAX)


# -- the random stream: splitmix64 -------------------------------------------------------------
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31, _S32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)


@jit_inline
def mix(s: Any) -> Any:
    """splitmix64's output for state ``s`` (uint64): every random number of the package."""
    z = (s ^ (s >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@jit_inline
def rand_below(row: Any, n: int) -> np.int64:
    """A uniform whole number in [0, n) from the row's stream (0 < n < 2**32)."""
    s = np.uint64(row[C_RNG]) + GOLDEN
    row[C_RNG] = np.int64(s)
    return np.int64(((mix(s) >> _S32) * np.uint64(n)) >> _S32)


@jit_inline
def nth_geisha(packed: Any, k: Any) -> Any:
    """The geisha index (0..6) of the ``k``-th card (from 0) of a packed set, its cards counted
    geisha by geisha: a uniform ``k`` picks a uniform card of the set."""
    geisha = 0
    while True:
        c = (packed >> (4 * geisha)) & 15
        if k < c:
            return geisha
        k -= c
        geisha += 1


# -- reading -------------------------------------------------------------------------------
@jit
def legal(row: Any, T: Any, H: Any, ids: Any) -> int:
    """The legal action ids of the seat to move into ids, ascending; returns how many."""
    offer = row[C_OFFER]
    n = 0
    if offer >= 0:
        for i in range(T[offer, T_NPICKS]):
            ids[n] = T[offer, T_PICK + i]
            n += 1
        return n
    seat = row[C_TO_MOVE]
    at = 5 * hand_index(row[C_HAND + seat])
    left = row[C_ACTIONS + seat]
    for kind in range(4):
        if (left >> kind) & 1:
            for i in range(H[at + kind], H[at + kind + 1]):
                ids[n] = H[i]
                n += 1
    return n


@jit_inline
def is_legal(row: Any, a: int, T: Any) -> bool:
    """Whether action a is legal in the (unfinished) game."""
    if a < 0 or a >= T.shape[0]:
        return False
    offer = row[C_OFFER]
    if offer >= 0:
        found = False
        for i in range(T[offer, T_NPICKS]):
            found |= T[offer, T_PICK + i] == a
        return found
    seat = row[C_TO_MOVE]
    kind = T[a, T_TYPE]
    if kind > 3 or not (row[C_ACTIONS + seat] >> kind) & 1:
        return False
    return bool(((row[C_HAND + seat] | GUARD) - T[a, T_CODE]) & GUARD == GUARD)


@jit_inline
def random_action(row: Any, T: Any, H: Any) -> int:
    """A uniformly random legal action of the (unfinished) game, from its stream."""
    offer = row[C_OFFER]
    if offer >= 0:
        return int(T[offer, T_PICK + rand_below(row, T[offer, T_NPICKS])])
    seat = row[C_TO_MOVE]
    at = 5 * hand_index(row[C_HAND + seat])
    left = row[C_ACTIONS + seat]
    n = 0
    for kind in range(4):
        if (left >> kind) & 1:
            n += H[at + kind + 1] - H[at + kind]
    k = rand_below(row, n)
    for kind in range(4):
        if (left >> kind) & 1:
            size = H[at + kind + 1] - H[at + kind]
            if k < size:
                return int(H[H[at + kind] + k])
            k -= size
    return -1  # unreachable: a hand always holds a move for each action left


# -- playing -------------------------------------------------------------------------------
@jit_inline
def end_turn(row: Any) -> bool:
    """Finish a turn: the next player draws; True if it was the round's last (turn 8)."""
    turn = row[C_TURN] + 1
    row[C_TURN] = turn
    if turn < 8:
        actor = row[C_FIRST] ^ (turn & 1)
        row[C_HAND + actor] += card_code(row[C_DECK + turn])
        row[C_TO_MOVE] = actor
        return False
    return True


@jit_inline
def apply(row: Any, a: int, T: Any) -> bool:
    """Play legal action ``a`` for the seat to move; True if the round's last turn has ended
    (then score it with :func:`score_round`)."""
    seat = row[C_TO_MOVE]
    offer = row[C_OFFER]
    code = T[a, T_CODE]
    if offer >= 0:  # a pick ends the turn
        row[C_PLAYED + seat] += code
        row[C_PLAYED + 1 - seat] += T[offer, T_CODE] - code
        row[C_OFFER] = -1
    else:
        kind = T[a, T_TYPE]
        row[C_HAND + seat] -= code
        row[C_ACTIONS + seat] ^= 1 << kind
        if kind >= 2:  # Gift or Competition: the opponent picks before the turn ends
            row[C_OFFER] = a
            row[C_TO_MOVE] = 1 - seat
            return False
        if kind == 0:
            row[C_SECRET + seat] = code
        else:
            row[C_DISCARD + seat] = code
    return end_turn(row)


@jit_inline
def round_result(row: Any, p0: int, p1: int, max_rounds: int) -> tuple[int, int]:
    """(winner, reason) if scoring sides p0, p1 (Secrets included) ends the game, else (-1, 0);
    ``max_rounds`` 0 for no limit."""
    c0 = 0
    c1 = 0
    n0 = 0
    n1 = 0
    for i in range(7):
        a = (p0 >> (4 * i)) & 15
        b = (p1 >> (4 * i)) & 15
        m = row[C_MARKERS + i]
        if a > b:
            m = 0
        elif b > a:
            m = 1
        if m == 0:
            c0 += CHARMS[i]
            n0 += 1
        elif m == 1:
            c1 += CHARMS[i]
            n1 += 1
    if c0 >= WIN_CHARM:
        return 0, 1
    if c1 >= WIN_CHARM:
        return 1, 1
    if n0 >= WIN_GEISHA:
        return 0, 2
    if n1 >= WIN_GEISHA:
        return 1, 2
    if max_rounds > 0 and row[C_ROUND] >= max_rounds:
        if c0 == c1:
            return -1, 4
        return (0 if c0 > c1 else 1), 3
    return -1, 0


@jit_inline
def score_round(row: Any, max_rounds: int) -> tuple[int, int]:
    """Score the finished round: the Secrets join the sides, the markers move; returns
    (winner, reason) as :func:`round_result` (reason 0: the game goes on)."""
    p0 = row[C_PLAYED] + row[C_SECRET]
    p1 = row[C_PLAYED + 1] + row[C_SECRET + 1]
    winner, reason = round_result(row, p0, p1, max_rounds)
    for i in range(7):
        a = (p0 >> (4 * i)) & 15
        b = (p1 >> (4 * i)) & 15
        if a > b:
            row[C_MARKERS + i] = 0
        elif b > a:
            row[C_MARKERS + i] = 1
    row[C_PLAYED] = p0
    row[C_PLAYED + 1] = p1
    return winner, reason


@jit_inline
def end_game(row: Any, winner: int, reason: int) -> None:
    """Mark the game over: its result, no hands, no actions, nobody to move."""
    row[C_WINNER] = winner
    row[C_REASON] = reason
    row[C_HAND] = 0
    row[C_HAND + 1] = 0
    row[C_ACTIONS] = 0
    row[C_ACTIONS + 1] = 0
    row[C_OFFER] = -1
    row[C_TO_MOVE] = -1


@jit_inline
def start_round(row: Any, deals: Any) -> bool:
    """Deal the round (``first`` already set) and let the first player draw; from the row's
    next given deal (``deals``: one row of 11 digits a deal, removed, hand codes, pile) if it
    was given some, else at random from its stream. False if its given deals are used up."""
    n = row[C_NDEALS]
    if n > 0:  # given deals
        at = row[C_DEAL]
        if at >= n:
            return False
        row[C_DEAL] = at + 1
        row[C_REMOVED] = deals[at, 0]
        h0 = deals[at, 1]
        h1 = deals[at, 2]
        for i in range(8):
            row[C_DECK + i] = deals[at, 3 + i]
    else:
        # Draw 15 cards one by one from the packed set of those left: the removed card, the
        # pile in order, then hand 0; hand 1 is the rest.
        left = ALL_CODE
        h0 = 0
        for i in range(15):
            geisha = nth_geisha(left, rand_below(row, 21 - i))
            card = 1 << (4 * geisha)
            left -= card
            if i == 0:
                row[C_REMOVED] = geisha + 1
            elif i <= 8:
                row[C_DECK + i - 1] = geisha + 1
            else:
                h0 += card
        h1 = left
    first = row[C_FIRST]
    card = card_code(row[C_DECK])
    if first == 0:
        h0 += card
    else:
        h1 += card
    row[C_HAND] = h0
    row[C_HAND + 1] = h1
    for seat in range(2):
        row[C_PLAYED + seat] = 0
        row[C_SECRET + seat] = 0
        row[C_DISCARD + seat] = 0
        row[C_ACTIONS + seat] = 15
    row[C_TURN] = 0
    row[C_OFFER] = -1
    row[C_TO_MOVE] = first
    return True


@jit_inline
def new_game(row: Any, deals: Any) -> bool:
    """Start a fresh game in the row; False (row untouched) if its given deals are used up."""
    if 0 < row[C_NDEALS] <= row[C_DEAL]:
        return False
    for i in range(7):
        row[C_MARKERS + i] = -1
    row[C_ROUND] = 1
    row[C_FIRST] = 0
    row[C_WINNER] = -1
    row[C_REASON] = 0
    return start_round(row, deals)
