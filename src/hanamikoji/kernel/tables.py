"""The rules' lookup tables: what each action does, and which actions each hand allows.

``T[a]`` (one row per action id of :mod:`~hanamikoji.kernel.actions`): the action's type
(0 S, 1 D, 2 G, 3 C, 4 P), its packed cards, a Competition's two pairs (packed), and for an offer
the number of its distinct picks and their action ids.

Every hand is a sub-multiset of the 21 cards, so there are only prod(charm + 1) = 12960 of them,
numbered by :func:`hand_index` (mixed radix over the seven counts). For hand h (up to
``MAX_HAND`` cards; a hand that acts holds at most 7), the action ids of its legal moves of type
t lie at ``H[H[5h + t] : H[5h + t + 1]]``, ascending: the offsets come first, the ids after them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hanamikoji.cards import ALL_CARDS, CHARM, GUARD, pack
from hanamikoji.kernel.actions import MOVES, NUM_ACTIONS, action_id
from hanamikoji.kernel.jit import jit, jit_inline
from hanamikoji.moves import Action

__all__ = [
    "ALL_CODE",
    "CHARMS",
    "MAX_HAND",
    "T_CODE",
    "T_NPICKS",
    "T_PAIR1",
    "T_PAIR2",
    "T_PICK",
    "T_TYPE",
    "H",
    "T",
    "card_code",
    "hand_index",
]

Int64Array = npt.NDArray[np.int64]

T_TYPE, T_CODE, T_PAIR1, T_PAIR2, T_NPICKS, T_PICK = 0, 1, 2, 3, 4, 5
_TYPES = "SDGCP"


def _action_table() -> tuple[Int64Array, list[int]]:
    table = np.full((NUM_ACTIONS, T_PICK + 3), -1, dtype=np.int64)
    for a, move in enumerate(MOVES):
        table[a, T_TYPE] = _TYPES.index(move.action.value)
        table[a, T_CODE] = move.code
        table[a, T_NPICKS] = len(move.picks)
        for i, pick in enumerate(move.picks):
            table[a, T_PICK + i] = action_id(pick)
        if move.action is Action.COMPETITION:
            table[a, T_PAIR1] = pack(move.groups[0])
            table[a, T_PAIR2] = pack(move.groups[1])
    types = table[:, T_TYPE]
    if np.any(np.diff(types) < 0):
        raise ImportError("hanamikoji.kernel.actions no longer groups moves S, D, G, C, P")
    bounds = [int(b) for b in np.searchsorted(types, np.arange(6))]  # where each type starts
    return table, bounds


MAX_HAND = 10
_RADIX = tuple(int(np.prod([c + 1 for c in CHARM[:i]])) for i in range(7))
_HANDS = _RADIX[6] * (CHARM[6] + 1)


def _hand_table(table: Int64Array, bounds: list[int]) -> Int64Array:
    grid = np.indices([c + 1 for c in CHARM]).reshape(7, -1)  # the counts of every hand
    number = (grid * np.array(_RADIX)[:, None]).sum(axis=0)
    codes = (grid << (4 * np.arange(7))[:, None]).sum(axis=0)
    sizes = grid.sum(axis=0)
    kept = np.argsort(sizes, kind="stable")
    kept = kept[sizes[kept] <= MAX_HAND]  # small hands first: the ones play touches
    moves = table[: bounds[4], T_CODE].astype(np.int32)
    guard = np.int32(GUARD)
    legal = (((codes[kept].astype(np.int32)[:, None] | guard) - moves) & guard) == guard
    per_type = np.stack([legal[:, bounds[t] : bounds[t + 1]].sum(axis=1) for t in range(4)], 1)
    ends = 5 * _HANDS + np.cumsum(per_type.ravel()).reshape(per_type.shape)
    offsets = np.zeros((_HANDS, 5), dtype=np.int64)
    offsets[number[kept], 0] = ends[:, 3] - per_type.sum(axis=1)
    offsets[number[kept], 1:] = ends
    ids = np.nonzero(legal)[1]  # hand after hand, each hand's ids ascending
    return np.concatenate([offsets.ravel(), ids]).astype(np.int64)


T, BOUNDS = _action_table()
"""The per-action table, and where each action type starts in the numbering."""
H = _hand_table(T, BOUNDS)
"""The per-hand table of legal action ids."""
CHARMS = tuple(CHARM)
"""Each geisha's charm, as a tuple numba reads as a constant."""
ALL_CODE = pack(ALL_CARDS)
"""The 21 cards, packed."""


@jit
def hand_index(code: int) -> int:
    """The number of a packed hand among all 12960 (mixed radix over its counts)."""
    h = 0
    for i in range(7):
        h += ((code >> (4 * i)) & 15) * _RADIX[i]
    return h


@jit_inline
def card_code(digit: int) -> int:
    """The packed single card of a geisha digit 1..7."""
    return 1 << (4 * (digit - 1))
