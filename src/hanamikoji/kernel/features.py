"""A seat's information state as numbers, read from a kernel row: the input of the learned
player (:mod:`hanamikoji.ai.net`), in numba so the fast search can read it in its worlds.

The seat is the one to move. Only what that seat may know is read: its own hand, Secret and
Discard, both sides' played cards, the markers, the actions left, the offer it answers, the
round, who went first and how many turns are done; never the opponent's hand, Secret or
Discard, the removed card or the pile (tests/test_net.py swaps those and compares). Counts are
halved so every input is about 0 to 2.5. The layout, declared once (``LAYOUT``):

=============== ===== ===========================================================================
hand            7     the seat's cards per geisha
played_own      7     the cards on its side this round
played_opp      7     the cards on the opponent's side
secret          7     its Secret (0 before it is played)
discard         7     its Discard
unseen          7     the cards it has not seen: the opponent's hand, Secret, Discard, the
                      removed card and the pile
markers_own     7     1 where the marker is on its side
markers_opp     7     1 where the marker is on the opponent's side
standing        4     its charm / 11, the opponent's, its geisha / 4, the opponent's (markers)
actions_own     4     1 for each action it still has (S, D, G, C)
actions_opp     4     the same for the opponent
offer           2     1 if it answers a Gift, 1 if a Competition
offer_cards     7     the offered cards (a Gift's three, a Competition's four)
offer_pair      7     a Competition's first pair (its second is offer_cards less this)
turn            8     one-hot, the turns done this round (0 to 7)
round           3     one-hot, round 1, 2, 3 or later
first           1     1 if it played first this round
last            1     1 if this is the last round the limit allows
=============== ===== ===========================================================================

The **full** input (``encode_full``, ``NFULL``) adds what the seat cannot see, for a value that
judges a whole position (the search's leaves are whole positions, its worlds): the opponent's
hand, Secret and Discard (7 each, halved), so the rest of ``unseen`` is the removed card and the
pile. Only the search and training read it; a player's own decisions never do.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.kernel.jit import jit
from hanamikoji.kernel.row import (
    C_ACTIONS,
    C_DISCARD,
    C_FIRST,
    C_HAND,
    C_MARKERS,
    C_OFFER,
    C_PLAYED,
    C_ROUND,
    C_SECRET,
    C_TO_MOVE,
    C_TURN,
)
from hanamikoji.kernel.tables import CHARMS, T_CODE, T_PAIR1, T_TYPE

__all__ = [
    "HIDDEN",
    "LAYOUT",
    "NFEAT",
    "NFULL",
    "empty",
    "encode",
    "encode_full",
    "encode_full_rows",
    "encode_rows",
    "field_slices",
]

LAYOUT: tuple[tuple[str, int], ...] = (
    ("hand", 7),
    ("played_own", 7),
    ("played_opp", 7),
    ("secret", 7),
    ("discard", 7),
    ("unseen", 7),
    ("markers_own", 7),
    ("markers_opp", 7),
    ("standing", 4),
    ("actions_own", 4),
    ("actions_opp", 4),
    ("offer", 2),
    ("offer_cards", 7),
    ("offer_pair", 7),
    ("turn", 8),
    ("round", 3),
    ("first", 1),
    ("last", 1),
)
"""Each field's name and width, in order."""

NFEAT = sum(width for _, width in LAYOUT)
"""The number of features."""


HIDDEN: tuple[tuple[str, int], ...] = (("opp_hand", 7), ("opp_secret", 7), ("opp_discard", 7))
"""The fields the full input adds after ``LAYOUT``."""

NFULL = NFEAT + sum(width for _, width in HIDDEN)
"""The number of features of the full input."""


def field_slices() -> dict[str, slice]:
    """Where each field of ``LAYOUT`` (then ``HIDDEN``) lies in the feature vector."""
    out = {}
    at = 0
    for name, width in LAYOUT + HIDDEN:
        out[name] = slice(at, at + width)
        at += width
    return out


_F = {name: part.start for name, part in field_slices().items()}
F_HAND, F_OWN, F_OPP, F_SECRET = _F["hand"], _F["played_own"], _F["played_opp"], _F["secret"]
F_DISCARD, F_UNSEEN, F_MOWN, F_MOPP = (
    _F["discard"],
    _F["unseen"],
    _F["markers_own"],
    _F["markers_opp"],
)
F_STANDING, F_AOWN, F_AOPP, F_OFFER = (
    _F["standing"],
    _F["actions_own"],
    _F["actions_opp"],
    _F["offer"],
)
F_OCARDS, F_OPAIR, F_TURN, F_ROUND = _F["offer_cards"], _F["offer_pair"], _F["turn"], _F["round"]
F_FIRST, F_LAST = _F["first"], _F["last"]


@jit
def encode(row: Any, max_rounds: int, T: Any, out: Any) -> None:
    """The features of the seat to move in ``row`` into ``out`` (NFEAT floats); ``max_rounds``
    0 for no limit. ``T``: the action table (:data:`hanamikoji.kernel.tables.T`)."""
    out[:] = 0.0
    seat = row[C_TO_MOVE]
    other = 1 - seat
    hand = row[C_HAND + seat]
    own = row[C_PLAYED + seat]
    opp = row[C_PLAYED + other]
    secret = row[C_SECRET + seat]
    discard = row[C_DISCARD + seat]
    offer = row[C_OFFER]
    ocode = 0
    pair = 0
    if offer >= 0:
        kind = T[offer, T_TYPE]
        out[F_OFFER + kind - 2] = 1.0
        ocode = T[offer, T_CODE]
        if kind == 3:
            pair = T[offer, T_PAIR1]
    charm_own = 0
    charm_opp = 0
    n_own = 0
    n_opp = 0
    for g in range(7):
        s = 4 * g
        h = (hand >> s) & 15
        a = (own >> s) & 15
        b = (opp >> s) & 15
        c = (secret >> s) & 15
        d = (discard >> s) & 15
        # The offered cards already left the offerer's hand and are not yet on a side.
        o = (ocode >> s) & 15
        out[F_HAND + g] = 0.5 * h
        out[F_OWN + g] = 0.5 * a
        out[F_OPP + g] = 0.5 * b
        out[F_SECRET + g] = 0.5 * c
        out[F_DISCARD + g] = 0.5 * d
        out[F_UNSEEN + g] = 0.5 * (CHARMS[g] - h - a - b - c - d - o)
        out[F_OCARDS + g] = 0.5 * o
        out[F_OPAIR + g] = 0.5 * ((pair >> s) & 15)
        m = row[C_MARKERS + g]
        if m == seat:
            out[F_MOWN + g] = 1.0
            charm_own += CHARMS[g]
            n_own += 1
        elif m == other:
            out[F_MOPP + g] = 1.0
            charm_opp += CHARMS[g]
            n_opp += 1
    out[F_STANDING] = charm_own / 11.0
    out[F_STANDING + 1] = charm_opp / 11.0
    out[F_STANDING + 2] = n_own / 4.0
    out[F_STANDING + 3] = n_opp / 4.0
    for k in range(4):
        out[F_AOWN + k] = (row[C_ACTIONS + seat] >> k) & 1
        out[F_AOPP + k] = (row[C_ACTIONS + other] >> k) & 1
    out[F_TURN + min(row[C_TURN], 7)] = 1.0
    rnd = row[C_ROUND]
    out[F_ROUND + min(rnd, 3) - 1] = 1.0
    out[F_FIRST] = 1.0 if row[C_FIRST] == seat else 0.0
    out[F_LAST] = 1.0 if max_rounds > 0 and rnd >= max_rounds else 0.0


@jit
def encode_full(row: Any, max_rounds: int, T: Any, out: Any) -> None:
    """``encode`` and then the opponent's hidden cards (NFULL floats): a whole position."""
    encode(row, max_rounds, T, out)
    other = 1 - row[C_TO_MOVE]
    hand = row[C_HAND + other]
    secret = row[C_SECRET + other]
    discard = row[C_DISCARD + other]
    for g in range(7):
        s = 4 * g
        out[NFEAT + g] = 0.5 * ((hand >> s) & 15)
        out[NFEAT + 7 + g] = 0.5 * ((secret >> s) & 15)
        out[NFEAT + 14 + g] = 0.5 * ((discard >> s) & 15)


@jit
def encode_full_rows(S: Any, max_rounds: int, T: Any, out: Any) -> None:
    """``encode_full`` of each row of ``S`` (a game over gives zeros) into the rows of ``out``."""
    for i in range(S.shape[0]):
        if S[i, C_TO_MOVE] < 0:
            out[i, :] = 0.0
        else:
            encode_full(S[i], max_rounds, T, out[i])


@jit
def encode_rows(S: Any, max_rounds: int, T: Any, out: Any) -> None:
    """``encode`` of each row of ``S`` (a game over gives zeros) into the rows of ``out``."""
    for i in range(S.shape[0]):
        if S[i, C_TO_MOVE] < 0:
            out[i, :] = 0.0
        else:
            encode(S[i], max_rounds, T, out[i])


def empty(n: int) -> npt.NDArray[np.float32]:
    """A zeroed (n, NFEAT) float32 array for ``encode_rows``."""
    return np.zeros((n, NFEAT), dtype=np.float32)
