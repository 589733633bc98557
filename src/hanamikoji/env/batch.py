"""A batch simulator: B games of Hanamikoji stepped at once, in numpy arrays and numba.

The rules are exactly those of :class:`hanamikoji.state.State` (the tests play thousands of games
both ways and compare every step); actions are numbered as in :mod:`hanamikoji.env.actions` and
observations are those of :func:`hanamikoji.env.observation.observe`.

>>> sim = BatchSim(4, seed=1)
>>> rewards, done = sim.step(sim.random_actions())  # one decision in each game
>>> rewards.shape, done.shape, sim.legal_mask().shape, sim.observe(0).shape
((4, 2), (4,), (4, 534), (4, 98))

Array layout
------------
Game g is row g of one int64 matrix, ``BatchSim.table``, of shape ``(B, NCOL)`` (read it, don't
write it; the properties give copies of its parts). Card sets are *packed* as in
:mod:`hanamikoji.cards`: four bits of count per geisha, geisha 1 in the lowest bits, so moving
cards is integer arithmetic and ``((hand | GUARD) - cards) & GUARD == GUARD`` tests "the hand
holds these cards" in one subtraction. The columns (``COLUMNS`` maps each name to its slice):

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
rng         1    the slot's random stream (splitmix64 state, as int64 bits)
=========== ==== =================================================================================

Randomness: each game slot has its own stream, seeded from ``seed`` through
``numpy.random.SeedSequence``; it draws the deals of new rounds (unless deals are given) and the
moves of :meth:`BatchSim.random_actions` and :meth:`BatchSim.random_steps`, so a run is
deterministic for a seed and a sequence of calls.

Finished games: :meth:`BatchSim.step` returns ``done`` True for a game on the step that ends it,
with the rewards. The finished position stays readable (observations, ``winner``, ``outcome``)
until the next step, which ignores that game's action and starts a fresh game in the slot:
round 1, seat 0 first, all markers neutral. With ``auto_reset=False`` it stays over instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

from hanamikoji.cards import ALL_CARDS, CHARM, GUARD, WIN_CHARM, WIN_GEISHA, pack
from hanamikoji.env.actions import MOVES, NUM_ACTIONS, action_id
from hanamikoji.env.observation import OBS_SIZE, field_slices
from hanamikoji.moves import Action
from hanamikoji.state import Deal, Outcome, Termination

__all__ = ["COLUMNS", "NCOL", "REASONS", "BatchSim"]

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Float32Array = npt.NDArray[np.float32]

_F = TypeVar("_F", bound=Callable[..., Any])


def _jit(fn: _F) -> _F:
    """``numba.njit(cache=True)``, typed for mypy."""
    return cast(_F, numba.njit(cache=True)(fn))


def _jit_inline(fn: _F) -> _F:
    """``_jit`` for a tiny helper of the hot loop, inlined where it is called."""
    return cast(_F, numba.njit(cache=True, inline="always")(fn))


# -- the state matrix ------------------------------------------------------------------------
C_HAND, C_PLAYED, C_SECRET, C_DISCARD, C_ACTIONS, C_MARKERS = 0, 2, 4, 6, 8, 10
C_ROUND, C_FIRST, C_TURN, C_OFFER, C_TO_MOVE, C_REMOVED, C_DECK = 17, 18, 19, 20, 21, 22, 23
C_WINNER, C_REASON, C_DEAL, C_NDEALS, C_RNG = 31, 32, 33, 34, 35
NCOL = 36
"""The number of columns of the state matrix."""

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
"""Where each part of a game lies in its row of the state matrix."""

REASONS: tuple[Termination | None, ...] = (
    None,
    Termination.CHARM,
    Termination.GEISHA,
    Termination.ROUND_LIMIT,
    Termination.DRAW,
)
"""The ``reason`` codes: 0 (going on), then charm, geisha, round-limit, draw."""

# -- per-action tables -----------------------------------------------------------------------
# _T[a]: the type of action a (0 S, 1 D, 2 G, 3 C, 4 P), its packed cards, a Competition's
# two pairs (packed), and for an offer the number of its distinct picks and their action ids.
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
        raise ImportError("hanamikoji.env.actions no longer groups moves S, D, G, C, P")
    bounds = [int(b) for b in np.searchsorted(types, np.arange(6))]  # where each type starts
    return table, bounds


# Every hand is a sub-multiset of the 21 cards, so there are only prod(charm + 1) = 12960 of
# them, numbered by _RADIX (mixed radix over the seven counts). For hand h (up to _MAX_HAND
# cards; a hand that acts holds at most 7), the action ids of its legal moves of type t lie at
# _H[_H[5h + t] : _H[5h + t + 1]], ascending: the offsets come first, the ids after them.
_MAX_HAND = 10
_RADIX = tuple(int(np.prod([c + 1 for c in CHARM[:i]])) for i in range(7))
_HANDS = _RADIX[6] * (CHARM[6] + 1)


def _hand_table(table: Int64Array, bounds: list[int]) -> Int64Array:
    grid = np.indices([c + 1 for c in CHARM]).reshape(7, -1)  # the counts of every hand
    number = (grid * np.array(_RADIX)[:, None]).sum(axis=0)
    codes = (grid << (4 * np.arange(7))[:, None]).sum(axis=0)
    sizes = grid.sum(axis=0)
    kept = np.argsort(sizes, kind="stable")
    kept = kept[sizes[kept] <= _MAX_HAND]  # small hands first: the ones play touches
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


_T, _BOUNDS = _action_table()
_H = _hand_table(_T, _BOUNDS)
_CHARM = tuple(CHARM)
_GUARD = GUARD
_ALL_CODE = pack(ALL_CARDS)

# The observation's fields (hanamikoji.env.observation.FIELDS), pinned here by their offsets.
_O_HAND, _O_SECRET, _O_DISCARD, _O_OWN, _O_OPP, _O_UNSEEN = 0, 7, 14, 21, 28, 35
_O_MARK_OWN, _O_MARK_OPP, _O_CHARM, _O_GEISHA, _O_ACT_OWN, _O_ACT_OPP = 42, 49, 56, 58, 60, 64
_O_GIFT, _O_PAIR1, _O_PAIR2, _O_PHASE, _O_TO_MOVE, _O_FIRST = 68, 75, 82, 89, 92, 93
_O_ROUND, _O_ROUNDS_LEFT, _O_DECK, _O_OPP_HAND = 94, 95, 96, 97
_OFFSETS = (
    ("hand", _O_HAND),
    ("secret", _O_SECRET),
    ("discard", _O_DISCARD),
    ("played_own", _O_OWN),
    ("played_opponent", _O_OPP),
    ("unseen", _O_UNSEEN),
    ("markers_own", _O_MARK_OWN),
    ("markers_opponent", _O_MARK_OPP),
    ("charm", _O_CHARM),
    ("geisha", _O_GEISHA),
    ("actions_own", _O_ACT_OWN),
    ("actions_opponent", _O_ACT_OPP),
    ("offer_gift", _O_GIFT),
    ("offer_pair_1", _O_PAIR1),
    ("offer_pair_2", _O_PAIR2),
    ("phase", _O_PHASE),
    ("to_move", _O_TO_MOVE),
    ("first", _O_FIRST),
    ("round", _O_ROUND),
    ("rounds_left", _O_ROUNDS_LEFT),
    ("deck", _O_DECK),
    ("opponent_hand", _O_OPP_HAND),
)
if [(k, s.start) for k, s in field_slices().items()] != list(_OFFSETS) or OBS_SIZE != 98:
    raise ImportError("hanamikoji.env.observation.FIELDS changed: update env/batch.py to match")

# -- random numbers: splitmix64, one stream per game, its state in column C_RNG -------------
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31, _S32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)


@_jit_inline
def _rand_below(S: Any, g: int, n: int) -> np.int64:
    """A uniform whole number in [0, n) from game g's stream (0 < n < 2**32)."""
    s = np.uint64(S[g, C_RNG]) + _GOLDEN
    S[g, C_RNG] = np.int64(s)
    z = (s ^ (s >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return np.int64(((z >> _S32) * np.uint64(n)) >> _S32)


# -- the kernels: one game row at a time ------------------------------------------------------
@_jit
def _start_round(S: Any, g: int, deals: Any) -> bool:
    """Deal the round (FIRST already set) and let the first player draw; False if no deal left."""
    n = S[g, C_NDEALS]
    if n > 0:  # given deals
        pos = S[g, C_DEAL]
        if pos >= n:
            return False
        S[g, C_DEAL] = pos + 1
        S[g, C_REMOVED] = deals[g, pos, 0]
        h0 = deals[g, pos, 1]
        h1 = deals[g, pos, 2]
        for i in range(8):
            S[g, C_DECK + i] = deals[g, pos, 3 + i]
    else:
        # Draw 15 cards one by one from the packed set of those left: the removed card, the
        # pile in order, then hand 0; hand 1 is the rest.
        left = _ALL_CODE
        h0 = 0
        for i in range(15):
            k = _rand_below(S, g, 21 - i)
            geisha = 0
            while True:
                c = (left >> (4 * geisha)) & 15
                if k < c:
                    break
                k -= c
                geisha += 1
            card = 1 << (4 * geisha)
            left -= card
            if i == 0:
                S[g, C_REMOVED] = geisha + 1
            elif i <= 8:
                S[g, C_DECK + i - 1] = geisha + 1
            else:
                h0 += card
        h1 = left
    first = S[g, C_FIRST]
    card = 1 << (4 * (S[g, C_DECK] - 1))
    if first == 0:
        h0 += card
    else:
        h1 += card
    S[g, C_HAND] = h0
    S[g, C_HAND + 1] = h1
    for seat in range(2):
        S[g, C_PLAYED + seat] = 0
        S[g, C_SECRET + seat] = 0
        S[g, C_DISCARD + seat] = 0
        S[g, C_ACTIONS + seat] = 15
    S[g, C_TURN] = 0
    S[g, C_OFFER] = -1
    S[g, C_TO_MOVE] = first
    return True


@_jit
def _new_game(S: Any, g: int, deals: Any) -> bool:
    """Start a fresh game in slot g; False (slot untouched) if its given deals are used up."""
    if 0 < S[g, C_NDEALS] <= S[g, C_DEAL]:
        return False
    for i in range(7):
        S[g, C_MARKERS + i] = -1
    S[g, C_ROUND] = 1
    S[g, C_FIRST] = 0
    S[g, C_WINNER] = -1
    S[g, C_REASON] = 0
    return _start_round(S, g, deals)


@_jit
def _end_check(S: Any, g: int, p0: int, p1: int, max_rounds: int) -> tuple[int, int]:
    """(winner, reason) if scoring sides p0, p1 (Secrets included) ends the game, else (-1, 0)."""
    c0 = 0
    c1 = 0
    n0 = 0
    n1 = 0
    for i in range(7):
        a = (p0 >> (4 * i)) & 15
        b = (p1 >> (4 * i)) & 15
        m = S[g, C_MARKERS + i]
        if a > b:
            m = 0
        elif b > a:
            m = 1
        if m == 0:
            c0 += _CHARM[i]
            n0 += 1
        elif m == 1:
            c1 += _CHARM[i]
            n1 += 1
    if c0 >= WIN_CHARM:
        return 0, 1
    if c1 >= WIN_CHARM:
        return 1, 1
    if n0 >= WIN_GEISHA:
        return 0, 2
    if n1 >= WIN_GEISHA:
        return 1, 2
    if max_rounds > 0 and S[g, C_ROUND] >= max_rounds:
        if c0 == c1:
            return -1, 4
        return (0 if c0 > c1 else 1), 3
    return -1, 0


@_jit
def _end_turn(S: Any, g: int, deals: Any, max_rounds: int) -> None:
    """Finish a turn: the next player draws, or the round is scored (and the game may end)."""
    turn = S[g, C_TURN] + 1
    S[g, C_TURN] = turn
    if turn < 8:
        actor = S[g, C_FIRST] ^ (turn & 1)
        S[g, C_HAND + actor] += 1 << (4 * (S[g, C_DECK + turn] - 1))
        S[g, C_TO_MOVE] = actor
        return
    p0 = S[g, C_PLAYED] + S[g, C_SECRET]
    p1 = S[g, C_PLAYED + 1] + S[g, C_SECRET + 1]
    winner, reason = _end_check(S, g, p0, p1, max_rounds)
    for i in range(7):
        a = (p0 >> (4 * i)) & 15
        b = (p1 >> (4 * i)) & 15
        if a > b:
            S[g, C_MARKERS + i] = 0
        elif b > a:
            S[g, C_MARKERS + i] = 1
    S[g, C_PLAYED] = p0
    S[g, C_PLAYED + 1] = p1
    if reason == 0:
        S[g, C_ROUND] += 1
        S[g, C_FIRST] = 1 - S[g, C_FIRST]
        _start_round(S, g, deals)  # there is a deal: callers check first (_lacks_deal)
        return
    S[g, C_WINNER] = winner
    S[g, C_REASON] = reason
    S[g, C_HAND] = 0
    S[g, C_HAND + 1] = 0
    S[g, C_ACTIONS] = 0
    S[g, C_ACTIONS + 1] = 0
    S[g, C_OFFER] = -1
    S[g, C_TO_MOVE] = -1


@_jit
def _apply(S: Any, g: int, a: int, T: Any, deals: Any, max_rounds: int, auto_reset: bool) -> int:
    """Apply legal action a to game g (a finished game restarts instead); 1 if a was applied."""
    seat = S[g, C_TO_MOVE]
    if seat < 0:
        if auto_reset:
            _new_game(S, g, deals)
        return 0
    offer = S[g, C_OFFER]
    if offer < 0:
        kind = T[a, T_TYPE]
        code = T[a, T_CODE]
        S[g, C_HAND + seat] -= code
        S[g, C_ACTIONS + seat] ^= 1 << kind
        if kind >= 2:  # Gift or Competition: the opponent picks before the turn ends
            S[g, C_OFFER] = a
            S[g, C_TO_MOVE] = 1 - seat
            return 1
        if kind == 0:
            S[g, C_SECRET + seat] = code
        else:
            S[g, C_DISCARD + seat] = code
    else:
        take = T[a, T_CODE]
        S[g, C_PLAYED + seat] += take
        S[g, C_PLAYED + 1 - seat] += T[offer, T_CODE] - take
        S[g, C_OFFER] = -1
    _end_turn(S, g, deals, max_rounds)
    return 1


@_jit
def _tally_end(S: Any, g: int, tally: Any) -> None:
    """Count game g's result (it has just ended) in tally[winner or 2, reason - 1]."""
    winner = S[g, C_WINNER]
    tally[winner if winner >= 0 else 2, S[g, C_REASON] - 1] += 1


@_jit
def _is_legal(S: Any, g: int, a: int, T: Any) -> bool:
    """Whether action a is legal in (unfinished) game g."""
    if a < 0 or a >= T.shape[0]:
        return False
    offer = S[g, C_OFFER]
    if offer >= 0:
        found = False
        for i in range(T[offer, T_NPICKS]):
            found |= T[offer, T_PICK + i] == a
        return found
    seat = S[g, C_TO_MOVE]
    kind = T[a, T_TYPE]
    if kind > 3 or not (S[g, C_ACTIONS + seat] >> kind) & 1:
        return False
    return bool(((S[g, C_HAND + seat] | _GUARD) - T[a, T_CODE]) & _GUARD == _GUARD)


@_jit
def _lacks_deal(S: Any, g: int, a: int, T: Any, max_rounds: int) -> bool:
    """Whether legal action a ends game g's round, not the game, and no given deal is left."""
    if S[g, C_TURN] != 7 or S[g, C_NDEALS] == 0 or S[g, C_DEAL] < S[g, C_NDEALS]:
        return False
    seat = S[g, C_TO_MOVE]
    p0 = S[g, C_PLAYED] + S[g, C_SECRET]
    p1 = S[g, C_PLAYED + 1] + S[g, C_SECRET + 1]
    offer = S[g, C_OFFER]
    take = 0
    give = 0
    if offer >= 0:
        take = T[a, T_CODE]
        give = T[offer, T_CODE] - take
    else:
        kind = T[a, T_TYPE]
        if kind >= 2:
            return False
        if kind == 0:
            take = T[a, T_CODE]
    if seat == 0:
        p0 += take
        p1 += give
    else:
        p1 += take
        p0 += give
    return _end_check(S, g, p0, p1, max_rounds)[1] == 0


@_jit
def _hand_index(code: int) -> int:
    """The number of a packed hand among all 12960 (mixed radix over its counts)."""
    h = 0
    for i in range(7):
        h += ((code >> (4 * i)) & 15) * _RADIX[i]
    return h


@_jit
def _choose(S: Any, g: int, T: Any, H: Any) -> int:
    """A uniformly random legal action of unfinished game g, from its stream."""
    offer = S[g, C_OFFER]
    if offer >= 0:
        return int(T[offer, T_PICK + _rand_below(S, g, T[offer, T_NPICKS])])
    seat = S[g, C_TO_MOVE]
    at = 5 * _hand_index(S[g, C_HAND + seat])
    left = S[g, C_ACTIONS + seat]
    n = 0
    for kind in range(4):
        if (left >> kind) & 1:
            n += H[at + kind + 1] - H[at + kind]
    k = _rand_below(S, g, n)
    for kind in range(4):
        if (left >> kind) & 1:
            size = H[at + kind + 1] - H[at + kind]
            if k < size:
                return int(H[H[at + kind] + k])
            k -= size
    return -1  # unreachable: a hand always holds a move for each action left


# -- the kernels: the whole batch -------------------------------------------------------------
@_jit
def _check_actions(S: Any, actions: Any, T: Any, max_rounds: int) -> tuple[int, int]:
    """(game, 1) for the first illegal action, (game, 2) for one needing a missing deal."""
    for g in range(S.shape[0]):
        if S[g, C_TO_MOVE] < 0:
            continue
        a = actions[g]
        if not _is_legal(S, g, a, T):
            return g, 1
        if _lacks_deal(S, g, a, T, max_rounds):
            return g, 2
    return -1, 0


@_jit
def _step(
    S: Any,
    actions: Any,
    T: Any,
    deals: Any,
    max_rounds: int,
    auto_reset: bool,
    rewards: Any,
    done: Any,
    tally: Any,
) -> int:
    """Apply checked actions to every game; returns the number of decisions applied."""
    n = 0
    for g in range(S.shape[0]):
        applied = _apply(S, g, actions[g], T, deals, max_rounds, auto_reset)
        n += applied
        if applied and S[g, C_TO_MOVE] < 0:
            done[g] = True
            winner = S[g, C_WINNER]
            if winner >= 0:
                rewards[g, winner] = 1.0
                rewards[g, 1 - winner] = -1.0
            _tally_end(S, g, tally)
    return n


@_jit
def _random_actions(S: Any, T: Any, H: Any, out: Any) -> None:
    for g in range(S.shape[0]):
        out[g] = _choose(S, g, T, H) if S[g, C_TO_MOVE] >= 0 else 0


@_jit
def _random_steps(
    S: Any,
    n_steps: int,
    T: Any,
    H: Any,
    deals: Any,
    max_rounds: int,
    auto_reset: bool,
    tally: Any,
) -> tuple[int, int, int]:
    """n_steps batch steps of random legal moves: (decisions, failing game or -1, its step)."""
    B = S.shape[0]
    given = False
    for g in range(B):
        given |= S[g, C_NDEALS] > 0
    chosen = np.zeros(B, dtype=np.int64)
    n = 0
    for step in range(n_steps):
        if given:  # choose all, check that the deals suffice, then apply
            for g in range(B):
                if S[g, C_TO_MOVE] >= 0:
                    chosen[g] = _choose(S, g, T, H)
                    if _lacks_deal(S, g, chosen[g], T, max_rounds):
                        return n, g, step
        for g in range(B):
            a = 0
            if given:
                a = chosen[g]
            elif S[g, C_TO_MOVE] >= 0:
                a = _choose(S, g, T, H)
            applied = _apply(S, g, a, T, deals, max_rounds, auto_reset)
            n += applied
            if applied and S[g, C_TO_MOVE] < 0:
                _tally_end(S, g, tally)
    return n, -1, n_steps


@_jit
def _legal_mask(S: Any, T: Any, H: Any, out: Any) -> None:
    for g in range(S.shape[0]):
        row = out[g]
        row[:] = False
        seat = S[g, C_TO_MOVE]
        if seat < 0:
            continue
        offer = S[g, C_OFFER]
        if offer >= 0:
            for i in range(T[offer, T_NPICKS]):
                row[T[offer, T_PICK + i]] = True
            continue
        at = 5 * _hand_index(S[g, C_HAND + seat])
        left = S[g, C_ACTIONS + seat]
        for kind in range(4):
            if (left >> kind) & 1:
                for i in range(H[at + kind], H[at + kind + 1]):
                    row[H[i]] = True


@_jit
def _counts_into(row: Any, at: int, code: int) -> None:
    """Write the 7 counts of a packed set at row[at : at + 7]."""
    for i in range(7):
        row[at + i] = (code >> (4 * i)) & 15


@_jit
def _observe(S: Any, seat: int, T: Any, max_rounds: int, out: Any) -> None:
    other = 1 - seat
    for g in range(S.shape[0]):
        row = out[g]
        row[:] = 0.0
        to_move = S[g, C_TO_MOVE]
        offer = S[g, C_OFFER]
        _counts_into(row, _O_HAND, S[g, C_HAND + seat])
        _counts_into(row, _O_SECRET, S[g, C_SECRET + seat])
        _counts_into(row, _O_DISCARD, S[g, C_DISCARD + seat])
        _counts_into(row, _O_OWN, S[g, C_PLAYED + seat])
        _counts_into(row, _O_OPP, S[g, C_PLAYED + other])
        # Seen: hand, Secret (until scoring puts it among the played), Discard, both sides and
        # the offer being answered; the rest of the 21 cards is unseen.
        seen = S[g, C_HAND + seat] + S[g, C_DISCARD + seat]
        seen += S[g, C_PLAYED] + S[g, C_PLAYED + 1]
        if to_move >= 0:
            seen += S[g, C_SECRET + seat]
        if offer >= 0:
            seen += T[offer, T_CODE]
        _counts_into(row, _O_UNSEEN, _ALL_CODE - seen)
        charm_own = 0
        charm_opp = 0
        opp_hand = 0
        for i in range(7):
            m = S[g, C_MARKERS + i]
            if m == seat:
                row[_O_MARK_OWN + i] = 1.0
                row[_O_GEISHA] += 1.0
                charm_own += _CHARM[i]
            elif m == other:
                row[_O_MARK_OPP + i] = 1.0
                row[_O_GEISHA + 1] += 1.0
                charm_opp += _CHARM[i]
            opp_hand += (S[g, C_HAND + other] >> (4 * i)) & 15
        row[_O_CHARM] = charm_own
        row[_O_CHARM + 1] = charm_opp
        for k in range(4):
            row[_O_ACT_OWN + k] = (S[g, C_ACTIONS + seat] >> k) & 1
            row[_O_ACT_OPP + k] = (S[g, C_ACTIONS + other] >> k) & 1
        if to_move < 0:
            row[_O_PHASE + 2] = 1.0
        elif offer >= 0:
            row[_O_PHASE + 1] = 1.0
            if T[offer, T_TYPE] == 2:
                _counts_into(row, _O_GIFT, T[offer, T_CODE])
            else:
                _counts_into(row, _O_PAIR1, T[offer, T_PAIR1])
                _counts_into(row, _O_PAIR2, T[offer, T_PAIR2])
        else:
            row[_O_PHASE] = 1.0
        row[_O_TO_MOVE] = 1.0 if to_move == seat else 0.0
        row[_O_FIRST] = 1.0 if S[g, C_FIRST] == seat else 0.0
        rnd = S[g, C_ROUND]
        row[_O_ROUND] = rnd
        row[_O_ROUNDS_LEFT] = -1 if max_rounds == 0 else max(0, max_rounds - rnd)
        row[_O_DECK] = 7 - S[g, C_TURN] if to_move >= 0 else 0
        row[_O_OPP_HAND] = opp_hand


@_jit
def _reset_all(S: Any, deals: Any) -> None:
    for g in range(S.shape[0]):
        S[g, C_DEAL] = 0
        _new_game(S, g, deals)


# -- the Python face -------------------------------------------------------------------------
def _check_max_rounds(max_rounds: int | None) -> int:
    m = max_rounds
    if m is not None and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
        raise ValueError(f"max_rounds must be a positive whole number or None, got {m!r}")
    return 0 if m is None else m


def _check_count(value: object, what: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
        raise ValueError(f"{what} must be a whole number >= {least}, got {value!r}")
    return int(value)


class BatchSim:
    """B games of Hanamikoji played in lockstep, each game a row of one numpy matrix.

    ``BatchSim(B, seed=..., max_rounds=3)`` deals B random games; :meth:`from_deals` plays given
    deals. Each :meth:`step` takes one action id per game (the game's seat to move decides).
    """

    def __init__(
        self,
        batch_size: int,
        *,
        seed: int | None = None,
        max_rounds: int | None = 3,
        auto_reset: bool = True,
    ) -> None:
        """``batch_size`` games, their deals drawn from the streams of ``seed``."""
        batch_size = _check_count(batch_size, "batch_size", 1)
        no_deals = np.zeros((1, 0, 11), dtype=np.int64), np.zeros(batch_size, dtype=np.int64)
        self._setup(seed, max_rounds, auto_reset, *no_deals)

    @classmethod
    def from_deals(
        cls,
        deals: Sequence[Sequence[Deal]],
        *,
        max_rounds: int | None = 3,
        seed: int | None = None,
        auto_reset: bool = True,
    ) -> BatchSim:
        """Games from given deals: ``deals[g]`` are game slot g's deals, one a round, in order.

        A slot takes its deals in turn, on into the next game if ``auto_reset`` restarts it.
        A step that needs a deal its slot has not got raises ValueError; a finished game whose
        slot has no deal left stays over. ``seed`` seeds :meth:`random_actions`.
        """
        if isinstance(deals, Deal) or not isinstance(deals, Sequence) or not deals:
            raise ValueError("deals must be a non-empty sequence, per game, of sequences of Deal")
        for g, game in enumerate(deals):
            if isinstance(game, Deal) or not isinstance(game, Sequence) or not game:
                raise ValueError(f"deals[{g}] must be a non-empty sequence of Deal, got {game!r}")
            for r, deal in enumerate(game):
                if not isinstance(deal, Deal):
                    raise ValueError(f"deals[{g}][{r}] is not a Deal: {deal!r}")
        given = np.zeros((len(deals), max(len(game) for game in deals), 11), dtype=np.int64)
        for g, game in enumerate(deals):
            for r, deal in enumerate(game):
                given[g, r] = [int(deal.removed), *deal.hand_codes, *(int(c) for c in deal.deck)]
        counts = np.array([len(game) for game in deals], dtype=np.int64)
        sim = cls.__new__(cls)
        sim._setup(seed, max_rounds, auto_reset, given, counts)
        return sim

    def _setup(
        self,
        seed: int | None,
        max_rounds: int | None,
        auto_reset: bool,
        deals: Int64Array,
        counts: Int64Array,
    ) -> None:
        """Set up ``len(counts)`` games; slot g has ``counts[g]`` deals in ``deals[g]``."""
        self._max_rounds = _check_max_rounds(max_rounds)
        self._auto_reset = bool(auto_reset)
        self._deals = deals
        self.table: Int64Array = np.zeros((len(counts), NCOL), dtype=np.int64)
        """The state matrix, one row per game (see the module docstring). Read only."""
        self.table[:, C_NDEALS] = counts
        self._tally = np.zeros((3, 4), dtype=np.int64)
        self._seed(seed)
        _reset_all(self.table, self._deals)

    def _seed(self, seed: int | None) -> None:
        streams = np.random.SeedSequence(seed).generate_state(self.batch_size, np.uint64)
        self.table[:, C_RNG] = streams.view(np.int64)

    # -- playing ----------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> None:
        """Start a fresh game in every slot; given deals start again from each slot's first.

        ``seed`` seeds the random streams anew; without it they go on. Clears ``tally``.
        """
        if seed is not None:
            self._seed(seed)
        self._tally[:] = 0
        _reset_all(self.table, self._deals)

    def legal_mask(self, out: BoolArray | None = None) -> BoolArray:
        """(B, NUM_ACTIONS) bool, True where an action is legal; all False in a finished game."""
        shape = (self.batch_size, NUM_ACTIONS)
        if out is None:
            out = np.empty(shape, dtype=np.bool_)
        elif out.shape != shape or out.dtype != np.bool_:
            raise ValueError(f"out must be a bool array of shape {shape}")
        _legal_mask(self.table, _T, _H, out)
        return out

    def legal_actions(self, g: int) -> list[int]:
        """The legal action ids of game g, ascending (empty for a finished game)."""
        g = self._game(g)
        mask = np.empty((1, NUM_ACTIONS), dtype=np.bool_)
        _legal_mask(self.table[g : g + 1], _T, _H, mask)
        return [int(a) for a in np.flatnonzero(mask[0])]

    def step(self, actions: npt.ArrayLike) -> tuple[Float32Array, BoolArray]:
        """Make one decision in every game: ``actions[g]`` for game g's seat to move.

        Returns ``(rewards, done)``: rewards (B, 2) float32, one column per seat, +1 to the
        winner and -1 to the loser (0 both on a draw) on the step that ends a game, where
        ``done`` (B,) is True. A finished game ignores its action and starts afresh (see the
        module docstring). Raises ValueError naming the game, changing nothing, for an illegal
        action or a round for which a game from given deals has no deal.
        """
        acts = np.asarray(actions)
        if acts.shape != (self.batch_size,):
            raise ValueError(f"actions must have shape ({self.batch_size},), got {acts.shape}")
        if acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be whole numbers (action ids), got dtype {acts.dtype}")
        acts = acts.astype(np.int64, copy=False)
        g, why = _check_actions(self.table, acts, _T, self._max_rounds)
        if g >= 0:
            a = int(acts[g])
            if why == 2:
                raise ValueError(self._no_deal(g, a))
            name = f" ({MOVES[a]})" if 0 <= a < NUM_ACTIONS else ""
            raise ValueError(
                f"game {g}: action {a}{name} is illegal for seat {self.table[g, C_TO_MOVE]}; "
                f"the legal actions are {self.legal_actions(g)}"
            )
        rewards = np.zeros((self.batch_size, 2), dtype=np.float32)
        done = np.zeros(self.batch_size, dtype=np.bool_)
        _step(
            self.table,
            acts,
            _T,
            self._deals,
            self._max_rounds,
            self._auto_reset,
            rewards,
            done,
            self._tally,
        )
        return rewards, done

    def random_actions(self) -> Int64Array:
        """(B,) a uniformly random legal action per game (0 for a finished game)."""
        out = np.empty(self.batch_size, dtype=np.int64)
        _random_actions(self.table, _T, _H, out)
        return out

    def random_steps(self, n_steps: int) -> int:
        """Run ``n_steps`` batch steps of uniformly random legal moves, all inside numba.

        The same as ``n_steps`` times ``step(random_actions())`` (finished games start afresh
        as there), far faster. Returns the number of decisions made (restarts are none).
        """
        n_steps = _check_count(n_steps, "n_steps", 0)
        n, g, step = _random_steps(
            self.table,
            n_steps,
            _T,
            _H,
            self._deals,
            self._max_rounds,
            self._auto_reset,
            self._tally,
        )
        if g >= 0:
            raise ValueError(f"batch step {step} (no game moved in it): {self._no_deal(g, None)}")
        return int(n)

    def _no_deal(self, g: int, a: int | None) -> str:
        after = f" after {MOVES[a]}" if a is not None else ""
        return (
            f"game {g} ran out of deals: it needs one for round {self.table[g, C_ROUND] + 1}"
            f"{after}, and its slot was given {self.table[g, C_NDEALS]}, all played"
        )

    # -- reading ----------------------------------------------------------------------------

    def observe(self, seat: int, out: Float32Array | None = None) -> Float32Array:
        """(B, OBS_SIZE) float32: each game as ``hanamikoji.env.observation.observe`` gives it."""
        if isinstance(seat, bool) or seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        shape = (self.batch_size, OBS_SIZE)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif out.shape != shape or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape {shape}")
        _observe(self.table, seat, _T, self._max_rounds, out)
        return out

    def _game(self, g: int) -> int:
        if (
            isinstance(g, bool)
            or not isinstance(g, int | np.integer)
            or not 0 <= g < len(self.table)
        ):
            raise ValueError(f"game must be 0..{len(self.table) - 1}, got {g!r}")
        return int(g)

    @property
    def batch_size(self) -> int:
        """The number of games, B."""
        return int(self.table.shape[0])

    @property
    def max_rounds(self) -> int | None:
        """The round limit; None for none."""
        return self._max_rounds or None

    @property
    def auto_reset(self) -> bool:
        """Whether a finished game starts afresh on the next step."""
        return self._auto_reset

    def column(self, name: str) -> Int64Array:
        """A copy of one part of every game's state: (B,) or (B, width); see ``COLUMNS``."""
        part = self.table[:, COLUMNS[name]].copy()
        return part[:, 0] if part.shape[1] == 1 else part

    @property
    def to_move(self) -> Int64Array:
        """(B,) the seat whose decision is due in each game; -1 in a finished one."""
        return self.column("to_move")

    @property
    def over(self) -> BoolArray:
        """(B,) whether each game is finished."""
        return self.table[:, C_TO_MOVE] < 0

    @property
    def winner(self) -> Int64Array:
        """(B,) the winner of each finished game; -1 for a draw or a game going on."""
        return self.column("winner")

    @property
    def reason(self) -> Int64Array:
        """(B,) why each game ended, an index of ``REASONS``; 0 while it goes on."""
        return self.column("reason")

    @property
    def markers(self) -> Int64Array:
        """(B, 7) the owner of each geisha's marker: 0, 1, or -1 for neutral."""
        return self.column("markers")

    @property
    def charm(self) -> Int64Array:
        """(B, 2) charm per seat from the markers."""
        return self._standing(np.asarray(CHARM, dtype=np.int64))

    @property
    def geisha(self) -> Int64Array:
        """(B, 2) markers held per seat."""
        return self._standing(np.ones(7, dtype=np.int64))

    def _standing(self, weight: Int64Array) -> Int64Array:
        m = self.table[:, C_MARKERS : C_MARKERS + 7]
        return np.stack([((m == seat) * weight).sum(axis=1) for seat in (0, 1)], axis=1)

    @property
    def round(self) -> Int64Array:
        """(B,) each game's round, from 1."""
        return self.column("round")

    @property
    def tally(self) -> Int64Array:
        """(3, 4) games ended since the last reset: rows winner seat 0, seat 1, none (draw);
        columns reason charm, geisha, round-limit, draw."""
        return self._tally.copy()

    def outcome(self, g: int) -> Outcome | None:
        """How game g ended, while it is over (until its slot starts afresh); else None."""
        row = self.table[self._game(g)]
        reason = REASONS[int(row[C_REASON])]
        if row[C_TO_MOVE] >= 0 or reason is None:
            return None
        winner = int(row[C_WINNER])
        charm = self.charm[g]
        geisha = self.geisha[g]
        return Outcome(
            None if winner < 0 else winner,
            reason,
            (int(charm[0]), int(charm[1])),
            (int(geisha[0]), int(geisha[1])),
            tuple(None if m < 0 else int(m) for m in row[C_MARKERS : C_MARKERS + 7]),
        )

    def __repr__(self) -> str:
        return (
            f"<BatchSim {self.batch_size} games, {int(self.over.sum())} over, "
            f"max_rounds {self.max_rounds}>"
        )
