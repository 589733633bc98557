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
the same moves. A position is the kernel's row (:mod:`hanamikoji.kernel.row`), played by the
kernel's rules (:mod:`hanamikoji.kernel.rules`), as the batch simulator and the fast search play.
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
from hanamikoji.kernel.actions import MOVES
from hanamikoji.kernel.jit import jit, jit_inline
from hanamikoji.kernel.row import (
    C_FIRST,
    C_HAND,
    C_MARKERS,
    C_OFFER,
    C_PLAYED,
    C_ROUND,
    C_SECRET,
    C_TO_MOVE,
    C_TURN,
    REASONS,
    row_of,
)
from hanamikoji.kernel.rules import apply, kernel_rounds, legal, rand_below, score_round
from hanamikoji.kernel.tables import CHARMS, T_CODE, T_NPICKS, T_PICK, T_TYPE, H, T
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

# The result of a round played out: the markers after the round's scoring, winner (-1: none or a
# draw), reason (0 the game goes on, else as kernel.row.REASONS), the number of moves played,
# then their action ids (a round has at most 16 decisions).
R_MARKERS, R_WINNER, R_REASON, R_COUNT, R_MOVES = 0, 7, 8, 9, 10
NRESULT = R_MOVES + 16

# The float table F: greedy's outlook, F[21 * (owner + 1) + 2 * diff + 10] for the holder of the
# marker (owner +1 the evaluating seat, -1 the other, 0 nobody) and a card difference diff in
# -5..5 by halves (cards in hand count 1/2); then the value table, by rounds left (its horizon),
# first player and marker code; then its stationary part.
_OUTLOOK = 63
MAX_MOVES = len(MOVES)  # room for any hand's legal moves, however large the hand
_TIE = 1e-9  # greedy's tolerance for equal scores


@cache
def tables() -> tuple[Float64Array, int]:
    """The float table (greedy's outlook and the round-value table) and the value table's
    horizon (its number of rounds-left tables), built once."""
    values = round_values()
    horizon = len(values.by_left)
    look = [outlook(d / 2, owner) for owner in (-1, 0, 1) for d in range(-10, 11)]
    parts = [np.asarray(look, dtype=np.float64)]
    for table in (*values.by_left, values.stationary):
        parts.append(np.asarray(table, dtype=np.float64).ravel())
    flat = np.concatenate(parts)
    assert flat.shape == (_OUTLOOK + 2 * CONFIGS * (horizon + 1),)
    return flat, horizon


# -- greedy's evaluation ----------------------------------------------------------------------
@jit_inline
def evaluate(mine: int, theirs: int, hand: int, rel: Any, F: Any) -> float:
    """greedy.evaluate (hand weight 1/2) of packed sides and hand; rel[g]: marker owner -1/0/1."""
    score = 0.0
    charm = 0.0
    geisha = 0.0
    for g in range(7):
        s = 4 * g
        d = 2 * ((mine >> s) & 15) + ((hand >> s) & 15) - 2 * ((theirs >> s) & 15)
        value = F[21 * (rel[g] + 1) + d + 10]
        cv = CHARMS[g] * value
        score += cv
        if value > 0:
            charm += cv
            geisha += value
    score += 2.0 * max(0.0, min(1.0, charm - WIN_CHARM + 1)) + 2.0 * max(
        0.0, min(1.0, geisha - WIN_GEISHA + 1)
    )
    return score


@jit_inline
def score(a: int, offer: int, hand: int, mine: int, theirs: int, rel: Any, T: Any, F: Any) -> float:
    """greedy's score of legal move a (an offer: the opponent's pick worst for the mover)."""
    code = T[a, T_CODE]
    if offer >= 0:  # a pick
        return evaluate(mine + code, theirs + T[offer, T_CODE] - code, hand, rel, F)
    kind = T[a, T_TYPE]
    left = hand - code
    if kind == 0:
        return evaluate(mine + code, theirs, left, rel, F)
    if kind == 1:
        return evaluate(mine, theirs, left, rel, F)
    worst = math.inf
    for i in range(T[a, T_NPICKS]):
        take = T[T[a, T_PICK + i], T_CODE]
        v = evaluate(mine + code - take, theirs + take, left, rel, F)
        if v < worst:
            worst = v
    return worst


@jit
def relative(row: Any, seat: int, rel: Any) -> None:
    """The markers as ``seat`` sees them: 1 its own, -1 the other's, 0 neutral."""
    for g in range(7):
        m = row[C_MARKERS + g]
        rel[g] = 0 if m < 0 else (1 if m == seat else -1)


@jit
def _scores(row: Any, T: Any, H: Any, F: Any, ids: Any, out: Any) -> int:
    """Every legal move's score for the seat to move: ids[:n], out[:n]; returns n."""
    seat = row[C_TO_MOVE]
    rel = np.empty(7, dtype=np.int64)
    relative(row, seat, rel)
    n = legal(row, T, H, ids)
    hand = row[C_HAND + seat]
    mine = row[C_PLAYED + seat] + row[C_SECRET + seat]
    theirs = row[C_PLAYED + 1 - seat]
    offer = row[C_OFFER]
    for i in range(n):
        out[i] = score(ids[i], offer, hand, mine, theirs, rel, T, F)
    return n


@jit
def choose(row: Any, T: Any, H: Any, F: Any, rel: Any, ids: Any) -> int:
    """greedy's move for the seat to move (rel: the markers as it sees them)."""
    seat = row[C_TO_MOVE]
    n = legal(row, T, H, ids)
    hand = row[C_HAND + seat]
    mine = row[C_PLAYED + seat] + row[C_SECRET + seat]
    theirs = row[C_PLAYED + 1 - seat]
    offer = row[C_OFFER]
    best = -math.inf
    ties = 0  # the tied best moves are gathered at the front of ids
    for i in range(n):
        a = ids[i]
        s = score(a, offer, hand, mine, theirs, rel, T, F)
        if s > best + _TIE:
            best = s
            ids[0] = a
            ties = 1
        elif abs(s - best) <= _TIE:
            ids[ties] = a
            ties += 1
    if ties == 1:
        return int(ids[0])
    return int(ids[rand_below(row, ties)])


@jit
def _greedy_move(row: Any, T: Any, H: Any, F: Any) -> int:
    """One greedy decision in the position."""
    rel = np.empty(7, dtype=np.int64)
    relative(row, row[C_TO_MOVE], rel)
    ids = np.empty(MAX_MOVES, dtype=np.int64)
    return choose(row, T, H, F, rel, ids)


@jit
def _play_round(row: Any, T: Any, H: Any, F: Any, horizon: int, max_rounds: int, out: Any) -> float:
    """Greedy for both seats to the end of the round; seat 0's expected score after it.

    Plays on ``row``; writes the result (markers, winner, reason, moves) into ``out``.
    """
    rel = np.empty((2, 7), dtype=np.int64)
    relative(row, 0, rel[0])
    relative(row, 1, rel[1])
    ids = np.empty(MAX_MOVES, dtype=np.int64)
    count = 0
    while row[C_TURN] < 8:
        a = choose(row, T, H, F, rel[row[C_TO_MOVE]], ids)
        out[R_MOVES + count] = a
        count += 1
        apply(row, a, T)
    out[R_COUNT] = count
    return round_end(row, F, horizon, max_rounds, out)


@jit_inline
def row_marker_code(row: Any) -> int:
    """The row's marker position as :func:`~hanamikoji.ai.values.marker_code` numbers it."""
    code = 0
    unit = 1
    for g in range(7):
        code += (row[C_MARKERS + g] + 1) * unit
        unit *= 3
    return code


@jit_inline
def round_end(row: Any, F: Any, horizon: int, max_rounds: int, out: Any) -> float:
    """Score the finished round (the kernel's ``score_round``); seat 0's expected score: the
    result if the game ends, else the value table's for the next round (``horizon``: its
    number of rounds-left tables; ``max_rounds`` 0 for no limit). Writes the markers, winner
    and reason into ``out``."""
    winner, reason = score_round(row, max_rounds)
    for g in range(7):
        out[R_MARKERS + g] = row[C_MARKERS + g]
    code = row_marker_code(row)
    out[R_WINNER] = winner
    out[R_REASON] = reason
    if reason == 4:
        return 0.5
    if reason > 0:
        return 1.0 - winner
    # The next round: the other seat first, max_rounds - round rounds left (1 or more here).
    left = 0 if max_rounds == 0 else max_rounds - row[C_ROUND]
    return table_value(F, horizon, code, 1 - row[C_FIRST], left)


@jit
def table_value(F: Any, horizon: int, code: int, first: int, left: int) -> float:
    """RoundValues.value at marker code ``code``, ``left`` rounds left (1 or more; 0: no limit)."""
    table = horizon if left == 0 or left > horizon else left - 1
    return float(F[_OUTLOOK + (2 * table + first) * CONFIGS + code])


# -- the Python face -----------------------------------------------------------------------------
def position_row(state: State, rng: random.Random | None) -> Int64Array:
    """The kernel's row of ``state`` (a game going on), its stream seeded from ``rng``."""
    return row_of(state.position(), 0 if rng is None else rng.getrandbits(63))


def _max_rounds(state: State) -> int:
    return kernel_rounds(state.rules.max_rounds)


def _going_on(state: State) -> None:
    if state.to_move is None:
        raise ValueError("the game is over: there is no decision to make")


def greedy_move(state: State, rng: random.Random) -> Move:
    """GreedyAgent's move for the seat to move in ``state`` (ties broken by a draw from ``rng``)."""
    _going_on(state)
    return MOVES[_greedy_move(position_row(state, rng), T, H, tables()[0])]


def greedy_scores(state: State) -> dict[Move, float]:
    """Every legal move with its greedy score (``GreedyAgent().score``), in legal-move order."""
    _going_on(state)
    ids = np.empty(MAX_MOVES, dtype=np.int64)
    out = np.empty(MAX_MOVES, dtype=np.float64)
    n = _scores(position_row(state, None), T, H, tables()[0], ids, out)
    return {MOVES[int(a)]: float(s) for a, s in zip(ids[:n], out[:n], strict=True)}


def greedy_round_value(state: State, rng: random.Random) -> float:
    """Seat 0's expected score after greedy plays both seats to the end of the current round.

    1, 1/2 or 0 if the game ends at the round's scoring, else the value table's value for the
    next round: ``evaluate_round_end`` of the state the same moves reach. A finished game is
    worth its result. The same contract as ``ismcts.smart_playout``.
    """
    if state.to_move is None:
        return evaluate_round_end(state)
    out = np.empty(NRESULT, dtype=np.int64)
    F, horizon = tables()
    return float(_play_round(position_row(state, rng), T, H, F, horizon, _max_rounds(state), out))


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
    F, horizon = tables()
    value = float(_play_round(position_row(state, rng), T, H, F, horizon, _max_rounds(state), out))
    res = [int(x) for x in out]
    return GreedyPlayout(
        tuple(MOVES[a] for a in res[R_MOVES : R_MOVES + res[R_COUNT]]),
        tuple(None if m < 0 else m for m in res[R_MARKERS : R_MARKERS + 7]),
        None if res[R_WINNER] < 0 else res[R_WINNER],
        REASONS[res[R_REASON]],
        value,
    )


def greedy_playout_moves(state: State, rng: random.Random) -> list[Move]:
    """The moves greedy plays for both seats to the end of the current round."""
    return list(greedy_playout(state, rng).moves)
