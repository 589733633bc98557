"""One game as one int64 row: the layout that the batch simulator, the greedy kernel and the
fast search all play on.

Card sets are *packed* as in :mod:`hanamikoji.cards`: four bits of count per geisha, geisha 1 in
the lowest bits, so moving cards is integer arithmetic and ``((hand | GUARD) - cards) & GUARD ==
GUARD`` tests "the hand holds these cards" in one subtraction. The columns (``COLUMNS`` maps
each name to its slice):

=========== ==== =================================================================================
hand        2    packed hand per seat (the acting seat's after this turn's draw; 0 once over)
played      2    packed cards on each side this round (Secrets join at scoring)
secret      2    packed Secret per seat this round, 0 before it is played
discard     2    packed Discard per seat this round, 0 before it is played
actions     2    actions left per seat, a bit mask S=1 D=2 G=4 C=8 (0 once over)
markers     7    owner of each geisha's marker (geisha 1 first): 0, 1, or -1 for neutral
round       1    the round, from 1
first       1    the round's first player
turn        1    turns completed this round, 0..8 (a turn ends after its pick, if any)
offer       1    action id of the Gift or Competition being answered, -1 if none
to_move     1    the seat whose decision is due, -1 once the game is over
removed     1    the round's removed card (a digit 1..7)
deck        8    the round's whole draw pile as digits, top first; turn t draws ``deck[t]``
winner      1    winner of a finished game; -1 for a draw or while it goes on
reason      1    0 while it goes on, else the index in ``REASONS``: charm, geisha, round-limit, draw
deal        1    the index of the slot's next given deal (games from given deals)
deals       1    how many deals the slot was given; 0: deals are drawn at random
rng         1    the row's random stream (splitmix64 state, as int64 bits)
=========== ==== =================================================================================
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hanamikoji.cards import pack
from hanamikoji.kernel.actions import IDS
from hanamikoji.state import Position, Termination

__all__ = ["COLUMNS", "NCOL", "REASONS", "row_of"]

C_HAND, C_PLAYED, C_SECRET, C_DISCARD, C_ACTIONS, C_MARKERS = 0, 2, 4, 6, 8, 10
C_ROUND, C_FIRST, C_TURN, C_OFFER, C_TO_MOVE, C_REMOVED, C_DECK = 17, 18, 19, 20, 21, 22, 23
C_WINNER, C_REASON, C_DEAL, C_NDEALS, C_RNG = 31, 32, 33, 34, 35
NCOL = 36
"""The number of columns of a row."""

COLUMNS: dict[str, slice] = {
    name: slice(start, start + width)
    for name, start, width in (
        ("hand", C_HAND, 2),
        ("played", C_PLAYED, 2),
        ("secret", C_SECRET, 2),
        ("discard", C_DISCARD, 2),
        ("actions", C_ACTIONS, 2),
        ("markers", C_MARKERS, 7),
        ("round", C_ROUND, 1),
        ("first", C_FIRST, 1),
        ("turn", C_TURN, 1),
        ("offer", C_OFFER, 1),
        ("to_move", C_TO_MOVE, 1),
        ("removed", C_REMOVED, 1),
        ("deck", C_DECK, 8),
        ("winner", C_WINNER, 1),
        ("reason", C_REASON, 1),
        ("deal", C_DEAL, 1),
        ("deals", C_NDEALS, 1),
        ("rng", C_RNG, 1),
    )
}
"""Where each part of a game lies in its row."""

REASONS: tuple[Termination | None, ...] = (
    None,
    Termination.CHARM,
    Termination.GEISHA,
    Termination.ROUND_LIMIT,
    Termination.DRAW,
)
"""The ``reason`` codes: 0 (going on), then charm, geisha, round-limit, draw."""

_ACTIONS = {"S": 1, "D": 2, "G": 4, "C": 8}


def row_of(position: Position, seed: int = 0) -> npt.NDArray[np.int64]:
    """The row of a game going on at ``position``, its random stream seeded with ``seed``.

    The pile's cards already drawn this round are not part of a position: their columns hold 0.
    """
    row = np.zeros(NCOL, dtype=np.int64)
    p = position
    for seat in (0, 1):
        row[C_HAND + seat] = pack(p.hands[seat])
        row[C_PLAYED + seat] = pack(p.played[seat])
        row[C_SECRET + seat] = pack(p.secrets[seat] or "")
        row[C_DISCARD + seat] = pack(p.discards[seat] or "")
        row[C_ACTIONS + seat] = sum(_ACTIONS[a] for a in p.actions_left[seat])
    row[C_MARKERS : C_MARKERS + 7] = [-1 if m is None else m for m in p.markers]
    row[C_ROUND] = p.round
    row[C_FIRST] = p.first
    row[C_TURN] = p.turn
    row[C_OFFER] = -1 if p.offer is None else IDS[p.offer]
    row[C_TO_MOVE] = p.to_move
    row[C_REMOVED] = int(p.removed)
    for i, card in enumerate(p.deck):
        row[C_DECK + p.turn + 1 + i] = int(card)
    row[C_WINNER] = -1
    row[C_RNG] = seed
    return row
