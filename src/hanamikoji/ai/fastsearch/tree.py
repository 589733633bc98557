"""The search tree as arrays: per node its visits ``N``, total reward ``W`` and availability
``A``; an open-addressing table from (node, edge) to child; and the search's counters.

An edge is an action id (:mod:`hanamikoji.kernel.actions`), or for the opponent's hidden moves
as the searching seat observes them ``K_SECRET`` and ``K_DISCARD``; node ``n``'s edge ``e`` is
the key ``n * NKEYS + e``, stored as key + 1 (0 marks an empty slot).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hanamikoji.kernel.actions import NUM_ACTIONS
from hanamikoji.kernel.jit import jit, jit_inline
from hanamikoji.kernel.rules import GOLDEN, mix
from hanamikoji.kernel.tables import T_TYPE

__all__ = [
    "C_DONE",
    "C_NODES",
    "C_RNG",
    "K_DISCARD",
    "K_SECRET",
    "NKEYS",
    "child",
    "next_seed",
    "seen",
]

K_SECRET = NUM_ACTIONS  # the opponent's Secret, as the searcher sees it
K_DISCARD = NUM_ACTIONS + 1  # the opponent's Discard
NKEYS = NUM_ACTIONS + 2

# counters: nodes in use, the search's random stream, iterations done
C_NODES, C_RNG, C_DONE = 0, 1, 2


@jit_inline
def slot(hkeys: Any, shift: int, hk: int) -> np.int64:
    """The table slot holding key ``hk`` (stored as hk + 1), or the empty (0) slot for it."""
    mask = np.int64(hkeys.shape[0] - 1)
    i = np.int64((np.uint64(hk) * GOLDEN) >> np.uint64(shift))
    while hkeys[i] != hk + 1 and hkeys[i] != 0:
        i = (i + 1) & mask
    return i


@jit
def rehash(hkeys: Any, hvals: Any, new_keys: Any, new_vals: Any, shift: int) -> None:
    """Move every (node, edge) -> child entry into a larger table."""
    for i in range(hkeys.shape[0]):
        if hkeys[i] != 0:
            s = slot(new_keys, shift, hkeys[i] - 1)
            new_keys[s] = hkeys[i]
            new_vals[s] = hvals[i]


@jit_inline
def next_seed(counters: Any) -> np.int64:
    """The next 63-bit number of the search's own stream (the kernel's splitmix64)."""
    s = np.uint64(counters[C_RNG]) + GOLDEN
    counters[C_RNG] = np.int64(s)
    return np.int64(mix(s) >> np.uint64(1))


@jit_inline
def seen(a: int, offer: int, T: Any) -> int:
    """The edge of the opponent's action ``a`` as the searching seat sees it: a Secret or
    Discard (not a pick: ``offer`` is -1) is ``K_SECRET`` or ``K_DISCARD``, the rest itself."""
    if offer < 0 and T[a, T_TYPE] <= 1:
        return K_SECRET if T[a, T_TYPE] == 0 else K_DISCARD
    return a


@jit_inline
def child(
    hkeys: Any, hvals: Any, shift: int, hk: int, counters: Any, N: Any, W: Any, A: Any
) -> tuple[int, bool]:
    """(the child at key ``hk`` (node * NKEYS + edge), whether it was made now): an existing
    child's availability counts one more; a new one starts with no visits."""
    s = slot(hkeys, shift, hk)
    if hkeys[s] != 0:
        ch = int(hvals[s])
        A[ch] += 1
        return ch, False
    ch = int(counters[C_NODES])
    counters[C_NODES] = ch + 1
    N[ch] = 0
    W[ch] = 0.0
    A[ch] = 1
    hkeys[s] = hk + 1
    hvals[s] = ch
    return ch, True
