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
Game g is row g of one int64 matrix, ``BatchSim.table``, of shape ``(B, NCOL)`` (a read-only
view: writing into it raises; the properties give copies of its parts): the kernel's row
(:mod:`hanamikoji.kernel.row` describes its columns; ``COLUMNS`` maps each name to its slice),
played by the kernel's rules (:mod:`hanamikoji.kernel.rules`).

Randomness: each game slot has its own stream, seeded from ``seed`` through
``numpy.random.SeedSequence``; it draws the deals of new rounds (unless deals are given) and the
moves of :meth:`BatchSim.random_actions` and :meth:`BatchSim.random_steps`, so a run is
deterministic for a seed and a sequence of calls.

Finished games: :meth:`BatchSim.step` returns ``done`` True for a game on the step that ends it,
with the rewards. The finished position stays readable (observations, ``winner``, ``outcome``)
until the next step, which ignores that game's action (any action id 0..533; a number out of
that range is refused as in a running game) and starts a fresh game in the slot:
round 1, seat 0 first, all markers neutral. With ``auto_reset=False`` it stays over instead.
The :class:`Step` that ``step`` returns says which actions were ignored and which slots were
reset. :meth:`BatchSim.legal_mask` has no legal action in a finished game (all False: a masked
softmax over it divides by zero); :meth:`BatchSim.action_mask`, the mask to sample from, has
exactly action 0 there (the placeholder ``step`` ignores), so a masked softmax is one-hot: no
NaN, zero log-probability and zero entropy, hence no gradient from a finished slot.

Opponents: :meth:`BatchSim.greedy_actions` and :meth:`BatchSim.random_actions` choose for every
game at once in numba (greedy is the greedy agent's policy, :mod:`hanamikoji.ai.fastplay`,
which sees only its own seat's information); :meth:`BatchSim.play_opponent` lets one of them
play until the learner's seat is to move in every game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from hanamikoji.ai.fastplay import MAX_MOVES, choose, relative
from hanamikoji.ai.fastplay import tables as greedy_tables
from hanamikoji.cards import CHARM, GUARD, TOTAL_CHARM
from hanamikoji.env._checks import check_flag, check_max_rounds, check_seed, check_weight
from hanamikoji.env.observation import (
    HISTORY_SIZE,
    HISTORY_TURN,
    HISTORY_TURNS,
    OBS_SIZE,
    field_slices,
)
from hanamikoji.kernel.actions import MOVES, NUM_ACTIONS
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
    COLUMNS,
    NCOL,
    REASONS,
)
from hanamikoji.kernel.rules import (
    KERNEL_ROUNDS_MAX,
    apply,
    end_game,
    is_legal,
    kernel_rounds,
    new_game,
    random_action,
    round_result,
    score_round,
    start_round,
)
from hanamikoji.kernel.tables import (
    ALL_CODE,
    CHARMS,
    T_CODE,
    T_NPICKS,
    T_PAIR1,
    T_PAIR2,
    T_PICK,
    T_TYPE,
    H,
    T,
    card_code,
    hand_index,
)
from hanamikoji.state import Deal, Outcome, Rules

__all__ = ["COLUMNS", "NCOL", "OPPONENTS", "REASONS", "VERSION", "BatchSim", "BatchState", "Step"]

VERSION = 1
"""The simulator's version: its rules, action numbering, observation and conventions. A change
that alters what a seeded run produces or what the arrays mean makes a new version."""

OPPONENTS = ("random", "greedy")
"""The batched opponents of :meth:`BatchSim.play_opponent`, by name."""

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Float32Array = npt.NDArray[np.float32]

# The observation's fields, where hanamikoji.env.observation.FIELDS puts them.
_FIELDS = {name: part.start for name, part in field_slices().items()}
_O_HAND, _O_SECRET, _O_DISCARD = _FIELDS["hand"], _FIELDS["secret"], _FIELDS["discard"]
_O_OWN, _O_OPP, _O_UNSEEN = _FIELDS["played_own"], _FIELDS["played_opponent"], _FIELDS["unseen"]
_O_MARK_OWN, _O_MARK_OPP = _FIELDS["markers_own"], _FIELDS["markers_opponent"]
_O_CHARM, _O_GEISHA = _FIELDS["charm"], _FIELDS["geisha"]
_O_ACT_OWN, _O_ACT_OPP = _FIELDS["actions_own"], _FIELDS["actions_opponent"]
_O_GIFT, _O_PAIR1, _O_PAIR2 = (
    _FIELDS["offer_gift"],
    _FIELDS["offer_pair_1"],
    _FIELDS["offer_pair_2"],
)
_O_PHASE, _O_TO_MOVE, _O_FIRST = _FIELDS["phase"], _FIELDS["to_move"], _FIELDS["first"]
_O_ROUND, _O_ROUNDS_LEFT = _FIELDS["round"], _FIELDS["rounds_left"]
_O_DECK, _O_OPP_HAND = _FIELDS["deck"], _FIELDS["opponent_hand"]

# The history block's parts within a turn, where observation.HISTORY_TURN puts them.
_H_AT: dict[str, int] = {}
_at = 0
for _name, _n, _ in HISTORY_TURN:
    _H_AT[_name] = _at
    _at += 7 if _n == 0 else _n
_H_TURN = _at
_H_OWN, _H_OPP, _H_ACTION = _H_AT["by_own"], _H_AT["by_opponent"], _H_AT["action"]
_H_OFFERED, _H_PAIR2, _H_PICKED = _H_AT["offered"], _H_AT["offered_pair_2"], _H_AT["picked"]
assert _H_TURN * HISTORY_TURNS == HISTORY_SIZE


# -- the kernels: one game row at a time ------------------------------------------------------
@jit_inline
def _apply(row: Any, a: int, T: Any, deals: Any, max_rounds: int, auto_reset: bool) -> int:
    """Apply legal action a (a finished game restarts instead); 1 if a was applied.

    A round's end is scored; the game then ends, or the next round is dealt (there is a deal:
    callers check first, with ``_lacks_deal``).
    """
    if row[C_TO_MOVE] < 0:
        if auto_reset:
            new_game(row, deals)
        return 0
    if apply(row, a, T):
        winner, reason = score_round(row, max_rounds)
        if reason == 0:
            row[C_ROUND] += 1
            row[C_FIRST] = 1 - row[C_FIRST]
            start_round(row, deals)
        else:
            end_game(row, winner, reason)  # the last round's record stays readable
    return 1


@jit_inline
def _note(row: Any, R: Any, g: int, a: int) -> None:
    """Record decision a (before it is applied) in game g's round record ``R[g]`` (8, 3): per
    turn the actor, its action and the pick (-1: none). Only the round's turns so far are valid
    (``turn``, and the turn whose offer is being answered), so nothing is cleared between rounds.
    ``random_steps`` keeps no record: its loop ran a tenth slower with one.
    """
    if row[C_TO_MOVE] < 0:
        return
    turn = row[C_TURN]
    if row[C_OFFER] >= 0:
        R[g, turn, 2] = a
    else:
        R[g, turn, 0] = row[C_TO_MOVE]
        R[g, turn, 1] = a
        R[g, turn, 2] = -1


@jit_inline
def _tally_end(row: Any, tally: Any) -> None:
    """Count the result of a game that has just ended in tally[winner or 2, reason - 1]."""
    winner = row[C_WINNER]
    tally[winner if winner >= 0 else 2, row[C_REASON] - 1] += 1


@jit_inline
def _lacks_deal(row: Any, a: int, T: Any, max_rounds: int) -> bool:
    """Whether legal action a ends the round, not the game, and no given deal is left."""
    if row[C_TURN] != 7 or row[C_NDEALS] == 0 or row[C_DEAL] < row[C_NDEALS]:
        return False
    seat = row[C_TO_MOVE]
    p0 = row[C_PLAYED] + row[C_SECRET]
    p1 = row[C_PLAYED + 1] + row[C_SECRET + 1]
    offer = row[C_OFFER]
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
    return round_result(row, p0, p1, max_rounds)[1] == 0


# -- the kernels: the whole batch -------------------------------------------------------------
@jit
def _check_actions(S: Any, actions: Any, T: Any, max_rounds: int) -> tuple[int, int]:
    """(game, 1) for the first illegal action, (game, 2) for one needing a missing deal,
    (game, 3) for one that is no action id at all, in any game (a finished game's action is
    ignored if it is an action id, any one)."""
    for g in range(S.shape[0]):
        row = S[g]
        a = actions[g]
        # Checked before a finished game is skipped: a number that is no action id is a bug in
        # the caller's policy wherever it lands, and ignoring it there would hide it.
        if a < 0 or a >= T.shape[0]:
            return g, 3
        if row[C_TO_MOVE] < 0:
            continue
        if not is_legal(row, a, T):
            return g, 1
        if _lacks_deal(row, a, T, max_rounds):
            return g, 2
    return -1, 0


@jit_inline
def _charm_lead(row: Any) -> int:
    """Seat 0's charm less seat 1's, from the markers."""
    lead = 0
    for i in range(7):
        m = row[C_MARKERS + i]
        if m == 0:
            lead += CHARMS[i]
        elif m == 1:
            lead -= CHARMS[i]
    return lead


@jit_inline
def _decide(
    row: Any,
    g: int,
    a: int,
    T: Any,
    deals: Any,
    max_rounds: int,
    auto_reset: bool,
    weight: float,
    rewards: Any,
    done: Any,
    tally: Any,
) -> int:
    """``_apply`` with its rewards (the result, and ``weight`` x the change of the charm lead
    over 21 at each scoring) added into rewards[g]; 1 if a was applied."""
    lead = _charm_lead(row) if weight != 0.0 else 0
    applied = _apply(row, a, T, deals, max_rounds, auto_reset)
    if applied:
        if weight != 0.0:
            shaped = weight * (_charm_lead(row) - lead) / TOTAL_CHARM
            rewards[g, 0] += shaped
            rewards[g, 1] -= shaped
        if row[C_TO_MOVE] < 0:
            done[g] = True
            winner = row[C_WINNER]
            if winner >= 0:
                rewards[g, winner] += 1.0
                rewards[g, 1 - winner] -= 1.0
            _tally_end(row, tally)
    return applied


@jit
def _step(
    S: Any,
    R: Any,
    actions: Any,
    T: Any,
    deals: Any,
    max_rounds: int,
    auto_reset: bool,
    weight: float,
    rewards: Any,
    done: Any,
    ignored: Any,
    reset: Any,
    tally: Any,
) -> int:
    """Apply checked actions to every game; returns the number of decisions applied."""
    n = 0
    for g in range(S.shape[0]):
        row = S[g]
        # _decide's body, written out: calling it here made the step half as slow again
        # (numba's nested inlining; measured with bench/env.py's batch rows).
        lead = _charm_lead(row) if weight != 0.0 else 0
        _note(row, R, g, actions[g])
        applied = _apply(row, actions[g], T, deals[g], max_rounds, auto_reset)
        n += applied
        if not applied:
            ignored[g] = True
            reset[g] = row[C_TO_MOVE] >= 0
            continue
        if weight != 0.0:
            shaped = weight * (_charm_lead(row) - lead) / TOTAL_CHARM
            rewards[g, 0] += shaped
            rewards[g, 1] -= shaped
        if row[C_TO_MOVE] < 0:
            done[g] = True
            winner = row[C_WINNER]
            if winner >= 0:
                rewards[g, winner] += 1.0
                rewards[g, 1 - winner] -= 1.0
            _tally_end(row, tally)
    return n


@jit_inline
def _greedy(row: Any, T: Any, H: Any, F: Any, rel: Any, ids: Any) -> int:
    """The greedy agent's move for the seat to move, from what that seat sees."""
    relative(row, row[C_TO_MOVE], rel)
    return choose(row, T, H, F, rel, ids)


@jit
def _greedy_actions(S: Any, T: Any, H: Any, F: Any, out: Any) -> None:
    rel = np.empty(7, dtype=np.int64)
    ids = np.empty(MAX_MOVES, dtype=np.int64)
    for g in range(S.shape[0]):
        row = S[g]
        out[g] = _greedy(row, T, H, F, rel, ids) if row[C_TO_MOVE] >= 0 else 0


@jit
def _play_opponent(
    S: Any,
    R: Any,
    seats: Any,
    greedy: bool,
    T: Any,
    H: Any,
    F: Any,
    deals: Any,
    max_rounds: int,
    weight: float,
    rewards: Any,
    done: Any,
    tally: Any,
) -> tuple[int, int]:
    """Play the opponent of seats[g] in every game until seats[g] is to move or the game ends:
    (decisions made, the first game needing a missing deal or -1)."""
    rel = np.empty(7, dtype=np.int64)
    ids = np.empty(MAX_MOVES, dtype=np.int64)
    n = 0
    for g in range(S.shape[0]):
        row = S[g]
        while row[C_TO_MOVE] >= 0 and row[C_TO_MOVE] != seats[g]:
            a = _greedy(row, T, H, F, rel, ids) if greedy else random_action(row, T, H)
            if _lacks_deal(row, a, T, max_rounds):
                return n, g
            _note(row, R, g, a)
            n += _decide(row, g, a, T, deals[g], max_rounds, False, weight, rewards, done, tally)
    return n, -1


@jit
def _random_actions(S: Any, T: Any, H: Any, out: Any) -> None:
    for g in range(S.shape[0]):
        row = S[g]
        out[g] = random_action(row, T, H) if row[C_TO_MOVE] >= 0 else 0


@jit
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
                row = S[g]
                if row[C_TO_MOVE] >= 0:
                    chosen[g] = random_action(row, T, H)
                    if _lacks_deal(row, chosen[g], T, max_rounds):
                        return n, g, step
        for g in range(B):
            row = S[g]
            a = 0
            if given:
                a = chosen[g]
            elif row[C_TO_MOVE] >= 0:
                a = random_action(row, T, H)
            applied = _apply(row, a, T, deals[g], max_rounds, auto_reset)
            n += applied
            if applied and row[C_TO_MOVE] < 0:
                _tally_end(row, tally)
    return n, -1, n_steps


@jit
def _legal_mask(S: Any, T: Any, H: Any, noop: bool, out: Any) -> None:
    for g in range(S.shape[0]):
        row = out[g]
        row[:] = False
        seat = S[g, C_TO_MOVE]
        if seat < 0:
            row[0] = noop
            continue
        offer = S[g, C_OFFER]
        if offer >= 0:
            for i in range(T[offer, T_NPICKS]):
                row[T[offer, T_PICK + i]] = True
            continue
        at = 5 * hand_index(S[g, C_HAND + seat])
        left = S[g, C_ACTIONS + seat]
        for kind in range(4):
            if (left >> kind) & 1:
                for i in range(H[at + kind], H[at + kind + 1]):
                    row[H[i]] = True


@jit
def _counts_into(row: Any, at: int, code: int) -> None:
    """Write the 7 counts of a packed set at row[at : at + 7]."""
    for i in range(7):
        row[at + i] = (code >> (4 * i)) & 15


@jit
def _observe(S: Any, seats: Any, T: Any, max_rounds: int, out: Any) -> None:
    for g in range(S.shape[0]):
        seat = seats[g]
        other = 1 - seat
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
        _counts_into(row, _O_UNSEEN, ALL_CODE - seen)
        charm_own = 0
        charm_opp = 0
        opp_hand = 0
        for i in range(7):
            m = S[g, C_MARKERS + i]
            if m == seat:
                row[_O_MARK_OWN + i] = 1.0
                row[_O_GEISHA] += 1.0
                charm_own += CHARMS[i]
            elif m == other:
                row[_O_MARK_OPP + i] = 1.0
                row[_O_GEISHA + 1] += 1.0
                charm_opp += CHARMS[i]
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


@jit
def _reset_all(S: Any, deals: Any) -> None:
    for g in range(S.shape[0]):
        S[g, C_DEAL] = 0
        new_game(S[g], deals[g])


@jit
def _observe_history(S: Any, R: Any, seats: Any, T: Any, out: Any) -> None:
    """The round's public history block (observation.history_block) of each game."""
    for g in range(S.shape[0]):
        seat = seats[g]
        row = out[g]
        row[:] = 0.0
        played = S[g, C_TURN] + (1 if S[g, C_OFFER] >= 0 else 0)
        for t in range(played):
            actor = R[g, t, 0]
            at = t * _H_TURN
            row[at + (_H_OWN if actor == seat else _H_OPP)] = 1.0
            a = R[g, t, 1]
            kind = T[a, T_TYPE]
            row[at + _H_ACTION + kind] = 1.0
            if kind == 2:
                _counts_into(row, at + _H_OFFERED, T[a, T_CODE])
            elif kind == 3:
                _counts_into(row, at + _H_OFFERED, T[a, T_PAIR1])
                _counts_into(row, at + _H_PAIR2, T[a, T_PAIR2])
            pick = R[g, t, 2]
            if pick >= 0:
                _counts_into(row, at + _H_PICKED, T[pick, T_CODE])


# -- checking a state before set_state takes it ------------------------------------------------
# Why _check_row refuses a row, by code: each message goes after "<column> is <value>"; {a}
# and {b} are the numbers the kernel returns with it.
_WRONG = (
    "",
    "must be -1, 0 or 1",
    "must be a round number from 1",
    "must be a round number 1..{a} (max_rounds)",
    "must be {a}: seat 0 is first in round 1, and the first player alternates",
    "must be 1..4 in a finished game (charm, geisha, round-limit, draw)",
    "must be 0 while the game goes on",
    "must be 0 or 1 in a finished game, -1 only for a draw (reason 4)",
    "must be -1 while the game goes on",
    "must be 0 in a game of random deals",
    "must be 1..{a}: the index of the slot's next deal, of the {a} it was given",
    "must be a geisha 1..7",
    "must be 0..7 (a card already drawn this round)",
    "must be 0..7 while the game goes on, 8 once it is over",
    "must be a packed set of the 21 cards: 4 bits a geisha, at most her charm",
    "must be 0..15: a bit mask of the actions left (S=1 D=2 G=4 C=8)",
    "must be 0 in a finished game",
    "must be -1 in a finished game",
    "must be -1 or the action id of a Gift or a Competition",
    "must be {a}: the seat due at turn {b}, from first and the offer being answered",
    "must have {a} actions used: the seat's turns so far (and its offer being answered)",
    "must have used the action of the offer being answered",
    "must hold {a} card(s): 1 once the seat has played its Secret, else 0",
    "must hold {a} cards: 2 once the seat has played its Discard, else 0",
    "must hold {a} cards at turn {b}: the 6 dealt and the draws, less what its actions used",
    "must hold {a} cards with the other side: what the answered Gifts and Competitions gave",
    "must hold the seat's Secret once the round is scored",
)
(
    _W_SEAT,
    _W_ROUND,
    _W_ROUND_LIMIT,
    _W_FIRST,
    _W_REASON_OVER,
    _W_ZERO_ON,
    _W_WINNER_OVER,
    _W_WINNER_ON,
    _W_NO_DEALS,
    _W_DEAL,
    _W_GEISHA,
    _W_DRAWN,
    _W_TURN,
    _W_PACKED,
    _W_MASK,
    _W_ZERO_OVER,
    _W_NONE_OVER,
    _W_OFFER,
    _W_DUE,
    _W_USED,
    _W_OFFERED,
    _W_SECRET,
    _W_DISCARD,
    _W_HAND,
    _W_PLAYED,
    _W_SIDE_SECRET,
) = range(1, len(_WRONG))
_W_CARDS = len(_WRONG)
"""The cards do not add up (no one column is wrong): geisha {a} is counted {b} times."""

# The packed counts of geisha 1, 3, 5, 7 and of geisha 2, 4, 6, each in 8 bits: sums of the
# row's card sets that way cannot carry from one geisha into the next.
_EVEN = 0x0F0F0F0F
_ODD = 0x000F0F0F
_ALL_EVEN = ALL_CODE & _EVEN
_ALL_ODD = (ALL_CODE >> 4) & _ODD


@jit_inline
def _size(code: int) -> int:
    """The number of cards of a packed set (checked: 4 bits a geisha, each below 8): the
    counts added in 8-bit lanes, then the lanes in the top byte of one product."""
    lanes = (code & _EVEN) + ((code >> 4) & _ODD)
    return (lanes * 0x01010101 >> 24) & 255


@jit_inline
def _check_row(row: Any, T: Any, max_rounds: int) -> tuple[int, int, int, int]:
    """(column, code in ``_WRONG``, a, b) for the first thing wrong in a row that the rules
    cannot reach; code 0 if none. Each value is checked before anything indexes by it, as the
    kernels index by all of them unchecked (a wrong one read out of bounds and crashed)."""
    seat = row[C_TO_MOVE]
    if seat < -1 or seat > 1:
        return C_TO_MOVE, _W_SEAT, 0, 0
    over = seat < 0
    for c in range(C_MARKERS, C_MARKERS + 7):
        if row[c] < -1 or row[c] > 1:
            return c, _W_SEAT, 0, 0
    rnd = row[C_ROUND]
    if rnd < 1:
        return C_ROUND, _W_ROUND_LIMIT if max_rounds > 0 else _W_ROUND, max_rounds, 0
    if max_rounds > 0 and rnd > max_rounds:
        return C_ROUND, _W_ROUND_LIMIT, max_rounds, 0
    first = row[C_FIRST]
    if first != (rnd - 1) & 1:
        return C_FIRST, _W_FIRST, (rnd - 1) & 1, 0
    winner = row[C_WINNER]
    reason = row[C_REASON]
    if over:
        if reason < 1 or reason > 4:
            return C_REASON, _W_REASON_OVER, 0, 0
        if winner < -1 or winner > 1 or (winner < 0) != (reason == 4):
            return C_WINNER, _W_WINNER_OVER, 0, 0
    else:
        if reason != 0:
            return C_REASON, _W_ZERO_ON, 0, 0
        if winner != -1:
            return C_WINNER, _W_WINNER_ON, 0, 0
    given = row[C_NDEALS]  # checked against the simulator's before
    deal = row[C_DEAL]
    if given == 0 and deal != 0:
        return C_DEAL, _W_NO_DEALS, 0, 0
    if given > 0 and (deal < 1 or deal > given):
        return C_DEAL, _W_DEAL, given, 0
    removed = row[C_REMOVED]
    if removed < 1 or removed > 7:
        return C_REMOVED, _W_GEISHA, 0, 0
    turn = row[C_TURN]
    if (over and turn != 8) or (not over and not 0 <= turn <= 7):
        return C_TURN, _W_TURN, 0, 0
    # The cards not in the sets below: the removed card, the pile still to draw, the offer.
    rest = card_code(removed)
    for i in range(8):
        d = row[C_DECK + i]
        if i > turn:
            if d < 1 or d > 7:
                return C_DECK + i, _W_GEISHA, 0, 0
            rest += card_code(d)
        elif d < 0 or d > 7:  # drawn: no longer read (0 in a row made from a position)
            return C_DECK + i, _W_DRAWN, 0, 0
    for c in range(C_HAND, C_DISCARD + 2):
        x = row[c]
        if x < 0 or x >> 28 or x & GUARD or ((ALL_CODE | GUARD) - x) & GUARD != GUARD:
            return c, _W_PACKED, 0, 0
    for c in range(C_ACTIONS, C_ACTIONS + 2):
        if row[c] < 0 or row[c] > 15:
            return c, _W_MASK, 0, 0
    offer = row[C_OFFER]
    if over:
        for c in (C_HAND, C_HAND + 1, C_ACTIONS, C_ACTIONS + 1):
            if row[c] != 0:
                return c, _W_ZERO_OVER, 0, 0
        if offer != -1:
            return C_OFFER, _W_NONE_OVER, 0, 0
        for s in range(2):
            if _size(row[C_SECRET + s]) != 1:
                return C_SECRET + s, _W_SECRET, 1, 0
            if _size(row[C_DISCARD + s]) != 2:
                return C_DISCARD + s, _W_DISCARD, 2, 0
            if ((row[C_PLAYED + s] | GUARD) - row[C_SECRET + s]) & GUARD != GUARD:
                return C_PLAYED + s, _W_SIDE_SECRET, 0, 0
    else:
        if offer < -1 or offer >= T.shape[0] or (offer >= 0 and not 2 <= T[offer, T_TYPE] <= 3):
            return C_OFFER, _W_OFFER, 0, 0
        actor = first ^ (turn & 1)
        due = actor if offer < 0 else 1 - actor
        if seat != due:
            return C_TO_MOVE, _W_DUE, due, turn
        picked = 0
        for s in range(2):
            used = 15 ^ row[C_ACTIONS + s]
            mine = 1 if s == first else 0  # the first player takes turns 0, 2, 4, 6
            offering = offer >= 0 and s == actor
            turns = (turn + mine) // 2 + (1 if offering else 0)
            n_used = 0
            spent = 0
            for kind in range(4):
                if (used >> kind) & 1:
                    n_used += 1
                    spent += kind + 1  # S 1 card, D 2, G 3, C 4
            if n_used != turns:
                return C_ACTIONS + s, _W_USED, turns, 0
            if offering and not (used >> T[offer, T_TYPE]) & 1:
                return C_ACTIONS + s, _W_OFFERED, 0, 0
            if _size(row[C_SECRET + s]) != used & 1:
                return C_SECRET + s, _W_SECRET, used & 1, 0
            if _size(row[C_DISCARD + s]) != used & 2:
                return C_DISCARD + s, _W_DISCARD, used & 2, 0
            hand = 6 + (turn + 1 + mine) // 2 - spent  # it drew deck[i] for its turns i <= turn
            if _size(row[C_HAND + s]) != hand:
                return C_HAND + s, _W_HAND, hand, turn
            picked += 3 * ((used >> 2) & 1) + 4 * ((used >> 3) & 1)
        if offer >= 0:
            picked -= T[offer, T_TYPE] + 1  # the offer on the table: a Gift's 3, a Competition's 4
            rest += T[offer, T_CODE]
        if _size(row[C_PLAYED]) + _size(row[C_PLAYED + 1]) != picked:
            return C_PLAYED, _W_PLAYED, picked, 0
    # Every card once: the sets (a Secret among its side's cards once scored) and the rest.
    even = rest & _EVEN
    odd = (rest >> 4) & _ODD
    for c in range(C_HAND, C_DISCARD + 2):
        if not (over and C_SECRET <= c < C_SECRET + 2):
            even += row[c] & _EVEN
            odd += (row[c] >> 4) & _ODD
    if even != _ALL_EVEN or odd != _ALL_ODD:
        for i in range(7):
            lanes = even if i % 2 == 0 else odd
            k = (lanes >> (8 * (i // 2))) & 255
            if k != CHARMS[i]:
                return -1, _W_CARDS, i + 1, k
    return 0, 0, 0, 0


@jit
def _check_rows(S: Any, R: Any, T: Any, max_rounds: int) -> tuple[int, int, int, int, int]:
    """The first wrong row of S: (game, column, code, a, b) as ``_check_row``; else game -1.
    Then the rounds' records R (B, 8, 3): (game, turn, -1 - part, 0, 0) for the first entry
    that is no actor (0, 1), action id, or pick (an action id, -1 for none)."""
    for g in range(S.shape[0]):
        column, code, a, b = _check_row(S[g], T, max_rounds)
        if code:
            return g, column, code, a, b
    n = np.uint64(T.shape[0])
    for g in range(R.shape[0]):
        for t in range(R.shape[1]):
            # Unsigned, a negative is huge: one range test a part.
            if np.uint64(R[g, t, 0]) > 1:
                return g, t, -1, 0, 0
            if np.uint64(R[g, t, 1]) >= n:
                return g, t, -2, 0, 0
            if np.uint64(R[g, t, 2] + 1) > n:
                return g, t, -3, 0, 0
    return -1, 0, 0, 0, 0


# -- the Python face -------------------------------------------------------------------------
_COLUMN_NAMES = tuple(
    name if part.stop - part.start == 1 else f"{name}[{i}]"
    for name, part in COLUMNS.items()
    for i in range(part.stop - part.start)
)
assert len(_COLUMN_NAMES) == NCOL
_RECORD_PARTS = (
    ("actor", "0 or 1"),
    ("action", f"an action id 0..{NUM_ACTIONS - 1}"),
    ("pick", f"-1 (none) or an action id 0..{NUM_ACTIONS - 1}"),
)


def _wrong(
    table: Int64Array, record: Int64Array, g: int, at: int, code: int, a: int, b: int
) -> str:
    """The message for what ``_check_rows`` found wrong in a state."""
    if code < 0:
        part, meaning = _RECORD_PARTS[-1 - code]
        value = record[g, at, -1 - code]
        return f"state's record of game {g}, turn {at}: its {part} is {value}, not {meaning}"
    if code == _W_CARDS:
        return (
            f"state's game {g}: its cards do not add up: geisha {a} (of {CHARM[a - 1]} cards) is "
            f"counted {b} times over the hands, sides, Secrets, Discards, removed card, pile "
            "and offer"
        )
    return f"state's game {g}: {_COLUMN_NAMES[at]} (column {at}) is {table[g, at]}: " + _WRONG[
        code
    ].format(a=a, b=b)


def _described(value: object) -> str:
    """A short account of an argument for a message: its type, shape and a clipped repr."""
    if isinstance(value, np.ndarray):
        article = "an" if str(value.dtype)[0] in "aeiou" else "a"
        return f"{article} {value.dtype} array of shape {value.shape}"
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{text} ({type(value).__name__})"


def _check_count(value: object, what: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
        raise ValueError(f"{what} must be a whole number >= {least}, got {value!r}")
    return int(value)


class Step(tuple[Float32Array, BoolArray]):
    """What :meth:`BatchSim.step` returns: ``(rewards, done)``, which unpacks as a pair, with
    ``ignored`` and ``reset`` as attributes.

    - ``rewards`` (B, 2) float32, one column per seat: +1 / -1 (0 both on a draw) on the step
      that ends a game, plus the ``round_reward`` shaping at each scoring;
    - ``done`` (B,) bool: the game ended on this step;
    - ``ignored`` (B,) bool: the game was already over, so its action was ignored;
    - ``reset`` (B,) bool: a fresh game started in the slot (its action ignored).
    """

    ignored: BoolArray
    reset: BoolArray

    def __new__(
        cls, rewards: Float32Array, done: BoolArray, ignored: BoolArray, reset: BoolArray
    ) -> Step:
        self = super().__new__(cls, (rewards, done))
        self.ignored = ignored
        self.reset = reset
        return self

    @property
    def rewards(self) -> Float32Array:
        """(B, 2) float32 rewards, one column per seat."""
        return self[0]

    @property
    def done(self) -> BoolArray:
        """(B,) whether each game ended on this step."""
        return self[1]


class BatchState(NamedTuple):
    """A snapshot of a :class:`BatchSim` (:meth:`BatchSim.get_state`): its matrix, tally, the
    rounds' records (the public history), the rules it was played under and which given deals
    (a digest of the simulator's ``from_deals`` deals); None: not said."""

    table: Int64Array
    tally: Int64Array
    record: Int64Array
    history_kept: bool = True
    rules: Rules | None = None
    deals: bytes | None = None


def _deals_id(deals: Int64Array, counts: Int64Array) -> bytes:
    """A digest of a simulator's given deals (every slot's, and how many): a state carries it,
    so that set_state knows the deals its games were dealt without carrying them."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (np.array(deals.shape, dtype=np.int64), deals, counts):
        digest.update(np.ascontiguousarray(part, dtype=np.int64).tobytes())
    return digest.digest()


class BatchSim:
    """B games of Hanamikoji played in lockstep, each game a row of one numpy matrix.

    ``BatchSim(B, seed=..., max_rounds=3)`` deals B random games; :meth:`from_deals` plays given
    deals. Each :meth:`step` takes one action id per game (the game's seat to move decides).
    ``round_reward=w`` adds, at each scoring, ``w`` times the change in seat 0's charm lead over
    21 to seat 0's reward (the opposite to seat 1's), as the other adapters do; 0 by default.
    """

    version = VERSION
    """The simulator's version (:data:`VERSION`)."""

    def __init__(
        self,
        batch_size: int,
        *,
        seed: int | None = None,
        max_rounds: int | None = 3,
        auto_reset: bool = True,
        round_reward: float = 0.0,
    ) -> None:
        """``batch_size`` games, their deals drawn from the streams of ``seed``."""
        batch_size = _check_count(batch_size, "batch_size", 1)
        no_deals = (
            np.zeros((batch_size, 0, 11), dtype=np.int64),
            np.zeros(batch_size, dtype=np.int64),
        )
        self._setup(seed, max_rounds, auto_reset, round_reward, *no_deals)

    @classmethod
    def from_deals(
        cls,
        deals: Sequence[Sequence[Deal]],
        *,
        max_rounds: int | None = 3,
        seed: int | None = None,
        auto_reset: bool = True,
        round_reward: float = 0.0,
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
        sim._setup(seed, max_rounds, auto_reset, round_reward, given, counts)
        return sim

    def _setup(
        self,
        seed: int | None,
        max_rounds: int | None,
        auto_reset: bool,
        round_reward: float,
        deals: Int64Array,
        counts: Int64Array,
    ) -> None:
        """Set up ``len(counts)`` games; slot g has ``counts[g]`` deals in ``deals[g]``."""
        # Refused above the kernel's largest limit rather than silently cut down to it.
        self._max_rounds = kernel_rounds(check_max_rounds(max_rounds, KERNEL_ROUNDS_MAX))
        self._auto_reset = check_flag(auto_reset, "auto_reset")
        self._weight = check_weight(round_reward)
        # The seat arrays observe(0) and observe(1) pass to the kernel, made once.
        self._seat_arrays = tuple(np.full(len(counts), k, dtype=np.int64) for k in (0, 1))
        self._deals = deals
        # A state names the deals its games were dealt by this (see set_state).
        self._deals_id = _deals_id(deals, counts)
        # The state matrix, which the kernels write; ``table`` shows it read-only.
        self._table: Int64Array = np.zeros((len(counts), NCOL), dtype=np.int64)
        self._table[:, C_NDEALS] = counts
        self._tally = np.zeros((3, 4), dtype=np.int64)
        # Per game and turn of the round: actor, action, pick (-1: none); see _apply.
        self._record = np.zeros((len(counts), HISTORY_TURNS, 3), dtype=np.int64)
        self._history_kept = True
        self._seed(seed)
        _reset_all(self._table, self._deals)

    def _seed(self, seed: int | None) -> None:
        streams = np.random.SeedSequence(check_seed(seed)).generate_state(
            self.batch_size, np.uint64
        )
        self._table[:, C_RNG] = streams.view(np.int64)

    # -- playing ----------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> None:
        """Start a fresh game in every slot; given deals start again from each slot's first.

        ``seed`` seeds the random streams anew; without it they go on. Clears ``tally``.
        """
        if seed is not None:
            self._seed(seed)
        self._tally[:] = 0
        self._history_kept = True
        _reset_all(self._table, self._deals)

    def legal_mask(self, out: BoolArray | None = None) -> BoolArray:
        """(B, NUM_ACTIONS) bool, True where an action is legal; all False in a finished game
        (to sample from, use :meth:`action_mask`)."""
        return self._mask(False, out)

    def action_mask(self, out: BoolArray | None = None) -> BoolArray:
        """The mask to sample from: :meth:`legal_mask`, but a finished game has action 0 alone
        (which ``step`` ignores), so a masked softmax never divides by zero."""
        return self._mask(True, out)

    def _mask(self, noop: bool, out: BoolArray | None) -> BoolArray:
        shape = (self.batch_size, NUM_ACTIONS)
        if out is None:
            out = np.empty(shape, dtype=np.bool_)
        elif out.shape != shape or out.dtype != np.bool_:
            raise ValueError(f"out must be a bool array of shape {shape}")
        _legal_mask(self._table, T, H, noop, out)
        return out

    def legal_actions(self, g: int) -> list[int]:
        """The legal action ids of game g, ascending (empty for a finished game)."""
        g = self._game(g)
        mask = np.empty((1, NUM_ACTIONS), dtype=np.bool_)
        _legal_mask(self._table[g : g + 1], T, H, False, mask)
        return [int(a) for a in np.flatnonzero(mask[0])]

    def step(self, actions: npt.ArrayLike) -> Step:
        """Make one decision in every game: ``actions[g]`` for game g's seat to move.

        Returns a :class:`Step`, which unpacks as ``rewards, done``: rewards (B, 2) float32,
        one column per seat, +1 to the winner and -1 to the loser (0 both on a draw) on the step
        that ends a game, where ``done`` (B,) is True; ``step.ignored`` and ``step.reset`` say
        which games were already over (their action ignored) and which slots started afresh
        (see the module docstring). Raises ValueError naming the game, changing nothing, for
        an illegal action, a number out of 0..533 in any game (a finished one's too), or a
        round for which a game from given deals has no deal.
        """
        given, acts = self._actions(actions)
        g, why = _check_actions(self._table, acts, T, self._max_rounds)
        if g >= 0:
            a = int(acts[g])
            if why == 2:
                raise ValueError(self._no_deal(g, a))
            if why == 3:  # the number passed, not its int64 cast (a uint64 above 2**63 wraps)
                raise ValueError(
                    f"game {g}: action {int(given[g])} is out of range 0..{NUM_ACTIONS - 1}"
                )
            raise ValueError(
                f"game {g}: action {a} ({MOVES[a]}) is illegal for seat "
                f"{self._table[g, C_TO_MOVE]}; the legal actions are {self.legal_actions(g)}"
            )
        rewards = np.zeros((self.batch_size, 2), dtype=np.float32)
        done = np.zeros(self.batch_size, dtype=np.bool_)
        ignored = np.zeros(self.batch_size, dtype=np.bool_)
        reset = np.zeros(self.batch_size, dtype=np.bool_)
        _step(
            self._table,
            self._record,
            acts,
            T,
            self._deals,
            self._max_rounds,
            self._auto_reset,
            self._weight,
            rewards,
            done,
            ignored,
            reset,
            self._tally,
        )
        return Step(rewards, done, ignored, reset)

    def _actions(self, actions: npt.ArrayLike) -> tuple[npt.NDArray[Any], Int64Array]:
        """(the actions as given, as an array; as int64 ids for the kernel, where any number
        beyond the ids stays beyond them)."""
        try:
            given = np.asarray(actions)
        except (ValueError, TypeError):  # a ragged nesting of lists, an odd object
            given = np.empty(0, dtype=object)
        if given.shape != (self.batch_size,) or given.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an array of whole numbers (action ids 0..{NUM_ACTIONS - 1}) "
                f"of shape ({self.batch_size},), got {_described(actions)}"
            )
        if given.dtype == np.uint64:  # its cast to int64 would wrap the largest to negatives
            return given, np.minimum(given, NUM_ACTIONS).astype(np.int64)
        return given, given.astype(np.int64, copy=False)

    def random_actions(self) -> Int64Array:
        """(B,) a uniformly random legal action per game (0 for a finished game)."""
        out = np.empty(self.batch_size, dtype=np.int64)
        _random_actions(self._table, T, H, out)
        return out

    def greedy_actions(self) -> Int64Array:
        """(B,) the greedy agent's action per game for its seat to move (0 for a finished game).

        The same choice as :class:`~hanamikoji.ai.greedy.GreedyAgent` from that seat's VIEW
        (its ties drawn from the game's stream), a few microseconds a game.
        """
        out = np.empty(self.batch_size, dtype=np.int64)
        _greedy_actions(self._table, T, H, greedy_tables()[0], out)
        return out

    def play_opponent(self, seats: int | npt.ArrayLike, opponent: str = "greedy") -> Step:
        """Let ``opponent`` (``"random"`` or ``"greedy"``) play the other seat of ``seats`` in
        every game until ``seats[g]`` is to move in game g or the game ends.

        ``seats`` is 0, 1, or an array of B seats (the learner's seat in each game). Returns a
        :class:`Step` with the rewards earned on the way (the result of a game the opponent
        ended, shaping at its scorings) and ``done`` where a game ended; nothing is ignored or
        reset (a finished game is left for the next :meth:`step`). A game from given deals that
        runs out of deals raises ValueError and the batch is left as it was.
        """
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {', '.join(OPPONENTS)}, got {opponent!r}")
        who = self._seats(seats)
        given = bool(self._table[:, C_NDEALS].any())
        before = self.get_state() if given else None
        rewards = np.zeros((self.batch_size, 2), dtype=np.float32)
        done = np.zeros(self.batch_size, dtype=np.bool_)
        _n, g = _play_opponent(
            self._table,
            self._record,
            who,
            opponent == "greedy",
            T,
            H,
            greedy_tables()[0],
            self._deals,
            self._max_rounds,
            self._weight,
            rewards,
            done,
            self._tally,
        )
        if g >= 0:
            message = self._no_deal(g, None)
            assert before is not None
            self.set_state(before)
            raise ValueError(message)
        none = np.zeros(self.batch_size, dtype=np.bool_)
        return Step(rewards, done, none, none.copy())

    # -- branching --------------------------------------------------------------------------

    def clone(self) -> BatchSim:
        """An independent copy: the same games, streams, settings and tally (for search)."""
        twin = BatchSim.__new__(BatchSim)
        twin.__dict__ = self.__dict__.copy()  # the settings and given deals are never written
        twin._table = self._table.copy()
        twin._tally = self._tally.copy()
        twin._record = self._record.copy()
        return twin

    def get_state(self) -> BatchState:
        """A copy of every game's state and the tally, for :meth:`set_state`."""
        return BatchState(
            self._table.copy(),
            self._tally.copy(),
            self._record.copy(),
            self._history_kept,
            Rules(max_rounds=self.max_rounds),
            self._deals_id,
        )

    def set_state(self, state: BatchState | BatchSim) -> None:
        """Put every game back as in ``state`` (from :meth:`get_state`, or another simulator of
        the same size, rules and given deals); another one raises ValueError, and so does a
        game the rules cannot reach (naming the game and its column), changing nothing."""
        if isinstance(state, BatchSim):
            state = state.get_state()
        if not isinstance(state, BatchState):
            raise ValueError(
                "state must be a BatchState (from get_state()) or a BatchSim, got "
                f"{_described(state)}"
            )
        table, tally, record, kept, rules, deals = state
        size = self.batch_size
        if not (isinstance(table, np.ndarray) and table.ndim == 2 and table.shape[1] == NCOL):
            raise ValueError(
                f"state's table must be an int64 matrix of shape {self._table.shape}, got "
                f"{_described(table)}"
            )
        if len(table) != size:
            raise ValueError(
                f"state holds {len(table)} games, this simulator {size}: set_state takes "
                "games of the same batch size"
            )
        if table.dtype != np.int64:
            raise ValueError(f"state's table must be int64, got {table.dtype}")
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"state's rules must be Rules or None, got {_described(rules)}")
        if rules is not None and rules.max_rounds != self.max_rounds:
            raise ValueError(
                f"state was played under other rules (max_rounds={rules.max_rounds}; this "
                f"simulator's max_rounds={self.max_rounds}): it would go on under the wrong ones"
            )
        given = bool(self._table[:, C_NDEALS].any())
        if deals is None and given:
            raise ValueError(
                "state does not say which deals its games were given (its deals is None): "
                "this simulator plays given deals (from_deals) and takes back only its own "
                "games, from its get_state()"
            )
        # A row's deal counter indexes this simulator's given deals: games given others, or
        # another number of them, would go on with deals they were not dealt, or read past
        # the end of the slot's (the kernel does not check).
        if deals is not None and deals != self._deals_id:
            raise ValueError(
                "state's games were given other deals (from_deals) than this simulator's: "
                "set_state takes back only games dealt as this simulator deals them"
            )
        if not np.array_equal(table[:, C_NDEALS], self._table[:, C_NDEALS]):
            g = int(np.flatnonzero(table[:, C_NDEALS] != self._table[:, C_NDEALS])[0])
            raise ValueError(
                f"state's game {g}: deals (column {C_NDEALS}) is {table[g, C_NDEALS]}: must be "
                f"{self._table[g, C_NDEALS]}, the deals this simulator's slot was given "
                "(from_deals; 0 for random deals)"
            )
        for name, array, shape in (
            ("record", record, self._record.shape),
            ("tally", tally, self._tally.shape),
        ):
            if not (
                isinstance(array, np.ndarray) and array.dtype == np.int64 and array.shape == shape
            ):
                raise ValueError(
                    f"state's {name} must be an int64 array of shape {shape}, got "
                    f"{_described(array)}"
                )
        if tally.min() < 0:
            raise ValueError("state's tally must count games: no entry below 0")
        kept = check_flag(kept, "state's history_kept")
        g, column, code, a, b = _check_rows(table, record, T, self._max_rounds)
        if g >= 0:
            raise ValueError(_wrong(table, record, g, column, code, a, b))
        self._table[:] = table
        self._tally[:] = tally
        self._record[:] = record
        self._history_kept = kept

    def random_steps(self, n_steps: int) -> int:
        """Run ``n_steps`` batch steps of uniformly random legal moves, all inside numba.

        The same as ``n_steps`` times ``step(random_actions())`` (finished games start afresh
        as there), far faster. Returns the number of decisions made (restarts are none).
        """
        n_steps = _check_count(n_steps, "n_steps", 0)
        self._history_kept = False
        n, g, step = _random_steps(
            self._table,
            n_steps,
            T,
            H,
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
            f"game {g} ran out of deals: it needs one for round {self._table[g, C_ROUND] + 1}"
            f"{after}, and its slot was given {self._table[g, C_NDEALS]}, all played"
        )

    # -- reading ----------------------------------------------------------------------------

    def observe(self, seat: int | npt.ArrayLike, out: Float32Array | None = None) -> Float32Array:
        """(B, OBS_SIZE) float32: each game as ``hanamikoji.env.observation.observe`` gives it,
        from ``seat`` (0 or 1) or, for an array of B seats, from game g's ``seat[g]``."""
        seats = self._seats(seat)
        shape = (self.batch_size, OBS_SIZE)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif out.shape != shape or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape {shape}")
        _observe(self._table, seats, T, self._max_rounds, out)
        return out

    def observe_history(
        self, seat: int | npt.ArrayLike, out: Float32Array | None = None
    ) -> Float32Array:
        """(B, OBS_SIZE + HISTORY_SIZE) float32: :meth:`observe` followed by the round's public
        history, as ``hanamikoji.env.observation.observe_history`` gives it (for games played by
        :meth:`step` and :meth:`play_opponent`; after :meth:`random_steps`, :meth:`reset`
        first)."""
        if not self._history_kept:
            raise ValueError(
                "random_steps keeps no round history (for its speed): observe_history needs "
                "the games played by step and play_opponent since the last reset()"
            )
        seats = self._seats(seat)
        shape = (self.batch_size, OBS_SIZE + HISTORY_SIZE)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif out.shape != shape or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape {shape}")
        _observe(self._table, seats, T, self._max_rounds, out[:, :OBS_SIZE])
        _observe_history(self._table, self._record, seats, T, out[:, OBS_SIZE:])
        return out

    def observe_to_move(self, out: Float32Array | None = None) -> Float32Array:
        """(B, OBS_SIZE): each game from the seat to move (seat 0's view of a finished game)."""
        return self.observe(np.maximum(self._table[:, C_TO_MOVE], 0), out)

    def _seats(self, seat: int | npt.ArrayLike) -> Int64Array:
        """Seats 0 or 1: one for all games, or one per game, as an int64 array of B."""
        if isinstance(seat, int | np.integer) and not isinstance(seat, bool) and seat in (0, 1):
            return self._seat_arrays[int(seat)]
        seats = np.asarray(seat)
        if (
            isinstance(seat, bool)
            or seats.shape != (self.batch_size,)
            or seats.dtype.kind not in "iu"
            or not np.isin(seats, (0, 1)).all()
        ):
            raise ValueError(
                f"seat must be 0, 1 or an integer array of shape ({self.batch_size},) of 0s and "
                f"1s, got {seat!r}"
            )
        return seats.astype(np.int64, copy=False)

    def _game(self, g: int) -> int:
        if (
            isinstance(g, bool)
            or not isinstance(g, int | np.integer)
            or not 0 <= g < len(self._table)
        ):
            raise ValueError(f"game must be 0..{len(self._table) - 1}, got {g!r}")
        return int(g)

    @property
    def table(self) -> Int64Array:
        """The state matrix, one row per game (see the module docstring), as a read-only view:
        writing into it raises, as the kernels would play on whatever was written."""
        view = self._table.view()
        view.flags.writeable = False
        return view

    @property
    def batch_size(self) -> int:
        """The number of games, B."""
        return int(self._table.shape[0])

    @property
    def max_rounds(self) -> int | None:
        """The round limit; None for none."""
        return self._max_rounds or None

    @property
    def auto_reset(self) -> bool:
        """Whether a finished game starts afresh on the next step."""
        return self._auto_reset

    @property
    def round_reward(self) -> float:
        """The shaping weight at each scoring (0: rewards only at the end)."""
        return self._weight

    def column(self, name: str) -> Int64Array:
        """A copy of one part of every game's state: (B,) or (B, width); see ``COLUMNS``."""
        if not isinstance(name, str) or name not in COLUMNS:
            raise ValueError(f"column must be one of {', '.join(COLUMNS)}, got {name!r}")
        part = self._table[:, COLUMNS[name]].copy()
        return part[:, 0] if part.shape[1] == 1 else part

    @property
    def to_move(self) -> Int64Array:
        """(B,) the seat whose decision is due in each game; -1 in a finished one."""
        return self.column("to_move")

    @property
    def over(self) -> BoolArray:
        """(B,) whether each game is finished."""
        return self._table[:, C_TO_MOVE] < 0

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
        m = self._table[:, C_MARKERS : C_MARKERS + 7]
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
        row = self._table[self._game(g)]
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
