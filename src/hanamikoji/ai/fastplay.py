"""The greedy agent's policy in numba: one decision, or the rest of a round for both seats.

:class:`~hanamikoji.ai.greedy.GreedyAgent` costs some 150 us a decision in Python; the kernels
here make the same decisions in a few microseconds (a whole round, from its first decision and
with the conversion from a ``State``, in some 12 us), so a search can finish a round with
greedy's judgement instead of random or "smart" moves and read the between-rounds value table:

>>> import random
>>> from hanamikoji.state import State
>>> state = State.new(random.Random(3))
>>> move = greedy_move(state, random.Random(1))
>>> move in state.legal_moves
True
>>> 0.0 <= greedy_round_value(state, random.Random(1)) <= 1.0
True

Same judgement as greedy's, move for move: every legal move gets the evaluation
``GreedyAgent().score(view, move)`` gives it (bit for bit: the per-geisha outlook is tabulated
with :func:`~hanamikoji.ai.greedy.outlook` itself and summed in greedy's order), and the choice
is among the moves within 1e-9 of the best, exactly as greedy collects its ties; only the random
draw between tied moves comes from the kernel's own stream (splitmix64, seeded from the caller's
``random.Random``), so a seeded ``rng`` gives a deterministic result. Like greedy, a seat sees
only its own hand and Secret, both sides' played cards and the markers.

The rules, the round's scoring and the end of the game (11+ charm, 4+ geisha, the round limit)
are the core's (:mod:`hanamikoji.state`); :func:`greedy_round_value` returns what
:func:`~hanamikoji.ai.values.evaluate_round_end` gives on the core state reached by playing
the same moves. Moves are numbered as in :mod:`hanamikoji.env.actions`, and the legal-move
tables are :mod:`hanamikoji.env.batch`'s.
"""

from __future__ import annotations

import math
import random
from functools import cache
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from hanamikoji.ai.greedy import outlook
from hanamikoji.ai.values import CONFIGS, evaluate_round_end, round_values
from hanamikoji.cards import WIN_CHARM, WIN_GEISHA
from hanamikoji.env.actions import MOVES
from hanamikoji.env.batch import (
    _CHARM,
    _H,
    _T,
    T_CODE,
    T_NPICKS,
    T_PICK,
    T_TYPE,
    _hand_index,
    _jit,
    _jit_inline,
)
from hanamikoji.moves import Move
from hanamikoji.state import State, Termination

__all__ = [
    "GreedyPlayout",
    "greedy_move",
    "greedy_playout",
    "greedy_playout_moves",
    "greedy_round_value",
    "greedy_scores",
]

Int64Array = npt.NDArray[np.int64]
Float64Array = npt.NDArray[np.float64]

# -- a position: one int64 vector ---------------------------------------------------------------
# Packed card sets as in hanamikoji.cards; markers 0, 1 or -1 (neutral); the offer being answered
# as an action id, -1 if none; the round's whole pile (turn t draws deck[t]); the round limit,
# 0 for none; HORIZON the value table's number of rounds-left tables. The kernels play on it.
# (Discards are left out: they play no part in the rest of the round nor in greedy's judgement.)
P_HAND, P_PLAYED, P_SECRET, P_ACTIONS, P_MARKERS = 0, 2, 4, 6, 8
P_TURN, P_FIRST, P_TO_MOVE, P_OFFER, P_DECK = 15, 16, 17, 18, 19
P_RNG, P_ROUND, P_MAX_ROUNDS, P_HORIZON = 27, 28, 29, 30
NPOS = 31

# The result: the markers after the round's scoring, winner (-1: none or a draw), reason (0 the
# game goes on, else 1 charm, 2 geisha, 3 round-limit, 4 draw, as env.batch.REASONS), the number
# of moves played, then their action ids (a round has at most 16 decisions).
R_MARKERS, R_WINNER, R_REASON, R_COUNT, R_MOVES = 0, 7, 8, 9, 10
NRESULT = R_MOVES + 16
_REASONS: tuple[Termination | None, ...] = (
    None,
    Termination.CHARM,
    Termination.GEISHA,
    Termination.ROUND_LIMIT,
    Termination.DRAW,
)

# The float table F: greedy's outlook, F[21 * (owner + 1) + 2 * diff + 10] for the holder of the
# marker (owner +1 the evaluating seat, -1 the other, 0 nobody) and a card difference diff in
# -5..5 by halves (cards in hand count 1/2); then the value table, by rounds left (HORIZON of
# them), first player and marker code; then its stationary part.
_OUTLOOK = 63
_MAX_MOVES = len(MOVES)  # room for any hand's legal moves, however large the hand
_TIE = 1e-9  # greedy's tolerance for equal scores


@cache
def _tables(name: str = "playout") -> tuple[Float64Array, int]:
    """The float table (outlook and value table ``name``) and the horizon, built once each."""
    values = round_values(name)
    horizon = len(values.by_left)
    look = [outlook(d / 2, owner) for owner in (-1, 0, 1) for d in range(-10, 11)]
    parts = [np.asarray(look, dtype=np.float64)]
    for table in (*values.by_left, values.stationary):
        parts.append(np.asarray(table, dtype=np.float64).ravel())
    flat = np.concatenate(parts)
    assert flat.shape == (_OUTLOOK + 2 * CONFIGS * (horizon + 1),)
    return flat, horizon


# -- random numbers: splitmix64, its state in pos[P_RNG] -----------------------------------------
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31, _S32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)


@_jit_inline
def _rand_below(pos: Any, n: int) -> np.int64:
    """A uniform whole number in [0, n) from the position's stream (0 < n < 2**32)."""
    s = np.uint64(pos[P_RNG]) + _GOLDEN
    pos[P_RNG] = np.int64(s)
    z = (s ^ (s >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return np.int64(((z >> _S32) * np.uint64(n)) >> _S32)


# -- greedy's evaluation ----------------------------------------------------------------------
@_jit_inline
def _evaluate(mine: int, theirs: int, hand: int, rel: Any, F: Any) -> float:
    """greedy.evaluate (hand weight 1/2) of packed sides and hand; rel[g]: marker owner -1/0/1."""
    score = 0.0
    charm = 0.0
    geisha = 0.0
    for g in range(7):
        s = 4 * g
        d = 2 * ((mine >> s) & 15) + ((hand >> s) & 15) - 2 * ((theirs >> s) & 15)
        value = F[21 * (rel[g] + 1) + d + 10]
        cv = _CHARM[g] * value
        score += cv
        if value > 0:
            charm += cv
            geisha += value
    score += 2.0 * max(0.0, min(1.0, charm - WIN_CHARM + 1)) + 2.0 * max(
        0.0, min(1.0, geisha - WIN_GEISHA + 1)
    )
    return score


@_jit_inline
def _score(
    a: int, offer: int, hand: int, mine: int, theirs: int, rel: Any, T: Any, F: Any
) -> float:
    """greedy's score of legal move a (an offer: the opponent's pick worst for the mover)."""
    code = T[a, T_CODE]
    if offer >= 0:  # a pick
        return _evaluate(mine + code, theirs + T[offer, T_CODE] - code, hand, rel, F)
    kind = T[a, T_TYPE]
    left = hand - code
    if kind == 0:
        return _evaluate(mine + code, theirs, left, rel, F)
    if kind == 1:
        return _evaluate(mine, theirs, left, rel, F)
    worst = math.inf
    for i in range(T[a, T_NPICKS]):
        take = T[T[a, T_PICK + i], T_CODE]
        v = _evaluate(mine + code - take, theirs + take, left, rel, F)
        if v < worst:
            worst = v
    return worst


@_jit
def _legal(pos: Any, T: Any, H: Any, ids: Any) -> int:
    """The legal action ids of the seat to move into ids, ascending; returns how many."""
    offer = pos[P_OFFER]
    n = 0
    if offer >= 0:
        for i in range(T[offer, T_NPICKS]):
            ids[n] = T[offer, T_PICK + i]
            n += 1
        return n
    seat = pos[P_TO_MOVE]
    at = 5 * _hand_index(pos[P_HAND + seat])
    left = pos[P_ACTIONS + seat]
    for kind in range(4):
        if (left >> kind) & 1:
            for i in range(H[at + kind], H[at + kind + 1]):
                ids[n] = H[i]
                n += 1
    return n


@_jit
def _relative(pos: Any, seat: int, rel: Any) -> None:
    """The markers as ``seat`` sees them: 1 its own, -1 the other's, 0 neutral."""
    for g in range(7):
        m = pos[P_MARKERS + g]
        rel[g] = 0 if m < 0 else (1 if m == seat else -1)


@_jit
def _scores(pos: Any, T: Any, H: Any, F: Any, ids: Any, out: Any) -> int:
    """Every legal move's score for the seat to move: ids[:n], out[:n]; returns n."""
    seat = pos[P_TO_MOVE]
    rel = np.empty(7, dtype=np.int64)
    _relative(pos, seat, rel)
    n = _legal(pos, T, H, ids)
    hand = pos[P_HAND + seat]
    mine = pos[P_PLAYED + seat] + pos[P_SECRET + seat]
    theirs = pos[P_PLAYED + 1 - seat]
    offer = pos[P_OFFER]
    for i in range(n):
        out[i] = _score(ids[i], offer, hand, mine, theirs, rel, T, F)
    return n


@_jit
def _choose(pos: Any, T: Any, H: Any, F: Any, rel: Any, ids: Any) -> int:
    """greedy's move for the seat to move (rel: the markers as it sees them)."""
    seat = pos[P_TO_MOVE]
    n = _legal(pos, T, H, ids)
    hand = pos[P_HAND + seat]
    mine = pos[P_PLAYED + seat] + pos[P_SECRET + seat]
    theirs = pos[P_PLAYED + 1 - seat]
    offer = pos[P_OFFER]
    best = -math.inf
    ties = 0  # the tied best moves are gathered at the front of ids
    for i in range(n):
        a = ids[i]
        s = _score(a, offer, hand, mine, theirs, rel, T, F)
        if s > best + _TIE:
            best = s
            ids[0] = a
            ties = 1
        elif abs(s - best) <= _TIE:
            ids[ties] = a
            ties += 1
    if ties == 1:
        return int(ids[0])
    return int(ids[_rand_below(pos, ties)])


@_jit
def _greedy_move(pos: Any, T: Any, H: Any, F: Any) -> int:
    """One greedy decision in the position."""
    rel = np.empty(7, dtype=np.int64)
    _relative(pos, pos[P_TO_MOVE], rel)
    ids = np.empty(_MAX_MOVES, dtype=np.int64)
    return _choose(pos, T, H, F, rel, ids)


@_jit_inline
def _step(pos: Any, a: int, T: Any) -> None:
    """Play legal action ``a`` for the seat to move (a turn ends with its draw for the next)."""
    seat = pos[P_TO_MOVE]
    offer = pos[P_OFFER]
    code = T[a, T_CODE]
    if offer >= 0:  # a pick ends the turn
        pos[P_PLAYED + seat] += code
        pos[P_PLAYED + 1 - seat] += T[offer, T_CODE] - code
        pos[P_OFFER] = -1
    else:
        kind = T[a, T_TYPE]
        pos[P_HAND + seat] -= code
        pos[P_ACTIONS + seat] ^= 1 << kind
        if kind >= 2:  # Gift or Competition: the opponent picks before the turn ends
            pos[P_OFFER] = a
            pos[P_TO_MOVE] = 1 - seat
            return
        if kind == 0:
            pos[P_SECRET + seat] = code
    turn = pos[P_TURN] + 1
    pos[P_TURN] = turn
    if turn < 8:
        actor = pos[P_FIRST] ^ (turn & 1)
        pos[P_HAND + actor] += pos[P_DECK + turn]
        pos[P_TO_MOVE] = actor


@_jit
def _play_round(pos: Any, T: Any, H: Any, F: Any, out: Any) -> float:
    """Greedy for both seats to the end of the round; seat 0's expected score after it.

    Plays on ``pos``; writes the result (markers, winner, reason, moves) into ``out``.
    """
    rel = np.empty((2, 7), dtype=np.int64)
    _relative(pos, 0, rel[0])
    _relative(pos, 1, rel[1])
    ids = np.empty(_MAX_MOVES, dtype=np.int64)
    count = 0
    turn = pos[P_TURN]
    while turn < 8:
        seat = pos[P_TO_MOVE]
        a = _choose(pos, T, H, F, rel[seat], ids)
        out[R_MOVES + count] = a
        count += 1
        _step(pos, a, T)
        turn = pos[P_TURN]
    out[R_COUNT] = count
    return _round_end(pos, F, out)


@_jit_inline
def _round_end(pos: Any, F: Any, out: Any) -> float:
    """Score the finished round (as State._score and state.decide); seat 0's expected score.

    Writes the markers, winner and reason into ``out``.
    """
    first = pos[P_FIRST]
    p0 = pos[P_PLAYED] + pos[P_SECRET]
    p1 = pos[P_PLAYED + 1] + pos[P_SECRET + 1]
    c0 = 0
    c1 = 0
    n0 = 0
    n1 = 0
    code = 0
    unit = 1
    for g in range(7):
        x = (p0 >> (4 * g)) & 15
        y = (p1 >> (4 * g)) & 15
        m = pos[P_MARKERS + g]
        if x > y:
            m = 0
        elif y > x:
            m = 1
        out[R_MARKERS + g] = m
        if m == 0:
            c0 += _CHARM[g]
            n0 += 1
        elif m == 1:
            c1 += _CHARM[g]
            n1 += 1
        code += (m + 1) * unit
        unit *= 3
    winner = -1
    reason = 0
    limit = pos[P_MAX_ROUNDS]
    rnd = pos[P_ROUND]
    if c0 >= WIN_CHARM or c1 >= WIN_CHARM:
        winner = 0 if c0 >= WIN_CHARM else 1
        reason = 1
    elif n0 >= WIN_GEISHA or n1 >= WIN_GEISHA:
        winner = 0 if n0 >= WIN_GEISHA else 1
        reason = 2
    elif limit > 0 and rnd >= limit:
        if c0 == c1:
            reason = 4
        else:
            winner = 0 if c0 > c1 else 1
            reason = 3
    out[R_WINNER] = winner
    out[R_REASON] = reason
    if reason == 4:
        return 0.5
    if reason > 0:
        return 1.0 - winner
    # The next round: the other seat first, limit - rnd rounds left (at least 1 here).
    return _table_value(F, pos[P_HORIZON], code, 1 - first, 0 if limit == 0 else limit - rnd)


@_jit
def _table_value(F: Any, horizon: int, code: int, first: int, left: int) -> float:
    """RoundValues.value at marker code ``code``, ``left`` rounds left (1 or more; 0: no limit)."""
    table = horizon if left == 0 or left > horizon else left - 1
    return float(F[_OUTLOOK + (2 * table + first) * CONFIGS + code])


# -- the Python face -----------------------------------------------------------------------------
_ID: dict[Move, int] = {m: i for i, m in enumerate(MOVES)}


def _position(state: State, rng: random.Random | None) -> Int64Array:
    """The kernels' position vector of ``state`` (a game going on)."""
    r = state._r
    offer = state._offer
    hands = state._hands
    played = state._played
    secrets = state._secrets
    actions = state._actions
    m0, m1, m2, m3, m4, m5, m6 = state._markers
    d0, d1, d2, d3, d4, d5, d6, d7 = r.deck_codes
    return np.array(
        (
            hands[0],
            hands[1],
            played[0],
            played[1],
            secrets[0],
            secrets[1],
            actions[0],
            actions[1],
            -1 if m0 is None else m0,
            -1 if m1 is None else m1,
            -1 if m2 is None else m2,
            -1 if m3 is None else m3,
            -1 if m4 is None else m4,
            -1 if m5 is None else m5,
            -1 if m6 is None else m6,
            state._turn,
            r.first,
            state._to_move,
            -1 if offer is None else _ID[offer],
            d0,
            d1,
            d2,
            d3,
            d4,
            d5,
            d6,
            d7,
            0 if rng is None else rng.getrandbits(63),
            r.number,
            r.rules.max_rounds or 0,
            _tables()[1],
        ),
        dtype=np.int64,
    )


def _going_on(state: State) -> None:
    if state._to_move is None:
        raise ValueError("the game is over: there is no decision to make")


def greedy_move(state: State, rng: random.Random) -> Move:
    """GreedyAgent's move for the seat to move in ``state`` (ties broken by a draw from ``rng``)."""
    _going_on(state)
    return MOVES[_greedy_move(_position(state, rng), _T, _H, _tables()[0])]


def greedy_scores(state: State) -> dict[Move, float]:
    """Every legal move with its greedy score (``GreedyAgent().score``), in legal-move order."""
    _going_on(state)
    ids = np.empty(_MAX_MOVES, dtype=np.int64)
    out = np.empty(_MAX_MOVES, dtype=np.float64)
    n = _scores(_position(state, None), _T, _H, _tables()[0], ids, out)
    return {MOVES[int(a)]: float(s) for a, s in zip(ids[:n], out[:n], strict=True)}


def greedy_round_value(state: State, rng: random.Random) -> float:
    """Seat 0's expected score after greedy plays both seats to the end of the current round.

    1, 1/2 or 0 if the game ends at the round's scoring, else the value table's value for the
    next round: ``evaluate_round_end`` of the state the same moves reach. A finished game is
    worth its result. The same contract as ``ismcts.smart_playout``.
    """
    if state._to_move is None:
        return evaluate_round_end(state)
    out = np.empty(NRESULT, dtype=np.int64)
    return float(_play_round(_position(state, rng), _T, _H, _tables()[0], out))


class GreedyPlayout(NamedTuple):
    """A round played out by greedy: the moves, the standing after scoring, seat 0's value."""

    moves: tuple[Move, ...]
    markers: tuple[int | None, ...]
    winner: int | None
    reason: Termination | None
    """Why the game ended at the round's scoring; None if it goes on."""
    value: float


def greedy_playout(state: State, rng: random.Random) -> GreedyPlayout:
    """Greedy for both seats to the end of the current round (a game going on), in full."""
    _going_on(state)
    out = np.empty(NRESULT, dtype=np.int64)
    value = float(_play_round(_position(state, rng), _T, _H, _tables()[0], out))
    res = [int(x) for x in out]
    return GreedyPlayout(
        tuple(MOVES[a] for a in res[R_MOVES : R_MOVES + res[R_COUNT]]),
        tuple(None if m < 0 else m for m in res[R_MARKERS : R_MARKERS + 7]),
        None if res[R_WINNER] < 0 else res[R_WINNER],
        _REASONS[res[R_REASON]],
        value,
    )


def greedy_playout_moves(state: State, rng: random.Random) -> list[Move]:
    """The moves greedy plays for both seats to the end of the current round."""
    return list(greedy_playout(state, rng).moves)
