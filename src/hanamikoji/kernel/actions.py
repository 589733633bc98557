"""The fixed numbering of every distinct move: the one action space of every adapter.

Action ``i`` is ``MOVES[i]``. The moves are numbered in the order of legal-move lists
(interfaces.md §1): Secrets, Discards, Gifts, Competitions, then picks, each ascending as
strings, so the legal moves of any position, in the order the engine lists them, have
ascending numbers. The numbering never changes: ``NUM_ACTIONS`` is 534 (7 S, 28 D, 81 G,
383 C, 35 P) and ``tests/test_env_encoding.py`` pins a digest of the whole table.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.cards import ALL_CARDS, GEISHA
from hanamikoji.moves import Action, InvalidMoveError, Move, sort_key
from hanamikoji.state import State

__all__ = ["IDS", "MOVES", "NUM_ACTIONS", "action_id", "legal_ids", "legal_mask", "move_of"]


def _all_moves() -> tuple[Move, ...]:
    found: set[Move] = set()
    for size, action in ((1, Action.SECRET), (2, Action.DISCARD), (3, Action.GIFT)):
        found.update(Move(action, "".join(c)) for c in combinations(ALL_CARDS, size))
    for four in {"".join(c) for c in combinations(ALL_CARDS, 4)}:
        w, x, y, z = four[0], four[1], four[2], four[3]
        for p, q in ((w + x, y + z), (w + y, x + z), (w + z, x + y)):
            found.add(Move(Action.COMPETITION, p, q))
    found.update(Move(Action.PICK, str(g)) for g in GEISHA)
    found.update(Move(Action.PICK, "".join(c)) for c in combinations(ALL_CARDS, 2))
    return tuple(sorted(found, key=sort_key))


MOVES: tuple[Move, ...] = _all_moves()
"""Every distinct move, in action-number order."""

NUM_ACTIONS = len(MOVES)
"""The size of the action space."""

IDS: dict[Move, int] = {m: i for i, m in enumerate(MOVES)}
"""Each move's action id (the inverse of ``MOVES``)."""


def action_id(move: Move | str) -> int:
    """The number of a move (a :class:`Move` or its notation, read liberally)."""
    if isinstance(move, str):
        move = Move.parse(move)
    try:
        return IDS[move]
    except (KeyError, TypeError):
        raise InvalidMoveError(f"not a move of this game: {move!r}") from None


def move_of(action: int | np.integer[Any]) -> Move:
    """The move numbered ``action`` (``0 <= action < NUM_ACTIONS``)."""
    if isinstance(action, bool) or not isinstance(action, int | np.integer):
        raise TypeError(f"an action is a whole number, got {action!r}")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be between 0 and {NUM_ACTIONS - 1}, got {action}")
    return MOVES[int(action)]


def legal_ids(state: State) -> list[int]:
    """The numbers of the legal moves of ``state``, ascending."""
    ids = IDS
    return [ids[m] for m in state.legal_moves]


def legal_mask(state: State) -> npt.NDArray[np.int8]:
    """A 0/1 vector over all actions, 1 where the move is legal in ``state``."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_ids(state)] = 1
    return mask
