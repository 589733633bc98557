"""The observation tensor: one seat's information state as a fixed vector of floats.

Everything in it comes from the seat's VIEW (interfaces.md §2) and the rules: its own hand,
Secret and Discard, what lies on each side this round, the markers, the actions left, the offer
being answered, and the counters. It holds nothing the seat may not see; what a VIEW adds
beyond it (the history of earlier rounds and who played which card when) has no bearing on
the rest of the game once the current round's cards and the markers are known.

``FIELDS`` lists the parts in order (name, length, meaning); ``OBS_SIZE`` is their total.
Counts are plain numbers (a geisha has at most 5 cards), flags are 0 or 1, and sides are
relative to the seat: "own" is the observing seat, "opponent" the other one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from hanamikoji.cards import CHARM, counts, pack
from hanamikoji.env._checks import check_max_rounds
from hanamikoji.moves import Action, Move, actions_mask
from hanamikoji.state import Rules, State, standing
from hanamikoji.view import SeenMove, View

__all__ = [
    "FIELDS",
    "HISTORY_SIZE",
    "HISTORY_TURN",
    "HISTORY_TURNS",
    "LAYOUT",
    "OBS_SIZE",
    "N",
    "encode_view",
    "encode_view_history",
    "field_slices",
    "fields",
    "history_block",
    "history_scale",
    "normalise",
    "observe",
    "observe_history",
    "round_plies",
    "scale",
]

N = 0
"""In :data:`LAYOUT`, a part with one entry per geisha."""

LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", N, "cards of each geisha in the seat's hand"),
    ("secret", N, "the seat's own Secret this round (0 or 1 per geisha)"),
    ("discard", N, "the seat's own Discard this round"),
    ("played_own", N, "cards on the seat's side this round"),
    ("played_opponent", N, "cards on the opponent's side this round"),
    ("unseen", N, "cards of each geisha the seat has not seen this round (hidden from it)"),
    ("markers_own", N, "1 where the geisha's marker is on the seat's side"),
    ("markers_opponent", N, "1 where it is on the opponent's side"),
    ("charm", 2, "charm from the markers: own, opponent"),
    ("geisha", 2, "markers held: own, opponent"),
    ("actions_own", 4, "1 for each unused action of the seat, in the order S D G C"),
    ("actions_opponent", 4, "the same for the opponent"),
    ("offer_gift", N, "the three cards of a Gift being answered"),
    ("offer_pair_1", N, "the first pair of a Competition being answered"),
    ("offer_pair_2", N, "its second pair"),
    ("phase", 3, "one-hot: action, pick, over"),
    ("to_move", 1, "1 when the decision is the seat's"),
    ("first", 1, "1 when the seat plays first this round"),
    ("round", 1, "the round number, from 1"),
    ("rounds_left", 1, "rounds the limit still allows after this one; -1 for no limit"),
    ("deck", 1, "cards left in the draw pile"),
    ("opponent_hand", 1, "cards in the opponent's hand"),
)
"""The observation's parts, once for every adapter: (name, length, meaning), where a length of
:data:`N` is one entry per geisha (the batch simulator's kernel and the OpenSpiel observer
place their parts by it too)."""


def fields(geisha: int = 7) -> tuple[tuple[str, int, str], ...]:
    """The observation's parts for a game of ``geisha`` geisha (OpenSpiel's variants)."""
    return tuple((name, geisha if n == N else n, meaning) for name, n, meaning in LAYOUT)


FIELDS = fields()
"""The parts of the standard game's observation, in order (name, length, meaning)."""

OBS_SIZE = sum(n for _, n, _ in FIELDS)
"""The length of an observation (98)."""


def field_slices() -> dict[str, slice]:
    """Where each field lies in an observation, by name."""
    out: dict[str, slice] = {}
    at = 0
    for name, n, _ in FIELDS:
        out[name] = slice(at, at + n)
        at += n
    return out


_AT = field_slices()

_ROUNDS_NO_LIMIT = 10
"""The round a normalised observation counts as 1 without a round limit (later rounds too)."""


def scale(max_rounds: int | None = 3) -> npt.NDArray[np.float32]:
    """Each entry's largest value under the rules: what :func:`normalise` divides by.

    Counts of a geisha's cards by her charm (2 to 5), charm by 21, geisha by 7, the pile by 8,
    the opponent's hand by 7, the round by the limit (10 without one), rounds left by the
    limit less one (at least 1); flags by 1. ``max_rounds``: a whole number >= 1, or None for
    no limit (anything else is a ValueError, as in the adapters).
    """
    max_rounds = check_max_rounds(max_rounds)
    out = np.ones(OBS_SIZE, dtype=np.float32)
    by_name = {
        "charm": float(sum(CHARM)),
        "geisha": 7.0,
        "deck": 8.0,
        "opponent_hand": 7.0,
        "round": float(max_rounds or _ROUNDS_NO_LIMIT),
        "rounds_left": float(max((max_rounds or 2) - 1, 1)),
    }
    for name, n, _ in FIELDS:
        where = _AT[name]
        if name in by_name:
            out[where] = by_name[name]
        elif n == 7 and not name.startswith("markers"):
            out[where] = CHARM
    return out


def normalise(
    observation: npt.NDArray[np.float32], max_rounds: int | None = 3
) -> npt.NDArray[np.float32]:
    """The observation (or a batch of them, the last axis the 98 floats) in [0, 1]: each entry
    over :func:`scale`; ``round`` capped at 1 without a round limit, where ``rounds_left`` stays
    -1.

    ``max_rounds`` must be the round limit the observations were made under (3 by default):
    each one says its own in ``round`` and ``rounds_left``, and one of another limit raises a
    ValueError naming it, as it would be scaled by the wrong one (out of [0, 1], or in it and
    wrong). An all-zero row (no round) is no observation, and is left as zeros.
    """
    scaled = scale(max_rounds)
    raw = np.asarray(observation, dtype=np.float32)
    _check_round_limit(raw, max_rounds)
    out = (raw / scaled).astype(np.float32)
    if max_rounds is None:
        at = _AT["round"].start
        np.minimum(out[..., at], 1.0, out=out[..., at])
    return out


def _check_round_limit(observation: npt.NDArray[np.float32], max_rounds: int | None) -> None:
    """Refuse observations whose ``round`` and ``rounds_left`` say another round limit than
    ``max_rounds`` (with limit L, ``rounds_left`` is L - round; without one, -1)."""
    if observation.shape[-1:] != (OBS_SIZE,):
        raise ValueError(
            f"observation's last axis must be the {OBS_SIZE} floats, got shape {observation.shape}"
        )
    rnd = observation[..., _AT["round"].start].astype(np.float64)
    left = observation[..., _AT["rounds_left"].start].astype(np.float64)
    if max_rounds is None:
        wrong = (rnd != 0) & (left != -1)
    else:
        # Exact for any limit float32 holds exactly (2**24); beyond, within its rounding.
        expected = float(max_rounds) - rnd
        wrong = (rnd != 0) & (np.abs(left - expected) > np.maximum(1e-6 * expected, 0.5))
    if wrong.any():
        at = tuple(int(i) for i in np.argwhere(np.atleast_1d(wrong))[0])
        r, k = float(np.atleast_1d(rnd)[at]), float(np.atleast_1d(left)[at])
        if k == -1:
            said = "under no round limit: pass max_rounds=None"
        elif r >= 1 and k >= 0 and r.is_integer() and k.is_integer():
            said = f"under max_rounds={r + k:.0f}: pass that"
        else:
            said = "under no round limit at all: is it normalised already?"
        where = f" {at[0] if len(at) == 1 else list(at)}" if observation.ndim > 1 else ""
        raise ValueError(
            f"observation{where} (round {r:g}, rounds_left {k:g}) was made {said} "
            f"(normalise was given max_rounds={max_rounds})"
        )


_PHASES = {"action": (1.0, 0.0, 0.0), "pick": (0.0, 1.0, 0.0), "over": (0.0, 0.0, 1.0)}
_NO_OFFER = (0,) * 21
_COUNTS: dict[int, tuple[int, ...]] = {}
_OFFERS: dict[Move, tuple[tuple[int, ...], tuple[int, ...]]] = {}
_FLAGS = tuple(tuple(float(m >> i & 1) for i in range(4)) for m in range(16))


def _count_cards(code: int) -> int:
    return sum(_counts(code))


def _counts(code: int) -> tuple[int, ...]:
    """The 7 per-geisha counts of a packed card set (cached: few sets occur)."""
    c = _COUNTS.get(code)
    if c is None:
        c = _COUNTS[code] = counts(code)
    return c


def _offer(move: Move) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the offer's 21 fields, its cards' counts) for a Gift or Competition being answered."""
    cached = _OFFERS.get(move)
    if cached is None:
        cards = counts(pack(move.cards))
        if move.action is Action.GIFT:
            fields = cards + (0,) * 14
        else:
            fields = (0,) * 7 + counts(pack(move.groups[0])) + counts(pack(move.groups[1]))
        cached = _OFFERS[move] = (fields, cards)
    return cached


def _encode(
    out: npt.NDArray[np.float32],
    seat: int,
    rules: Rules,
    round_: int,
    first: int,
    to_move: int | None,
    phase: str,
    markers: tuple[int | None, ...],
    hand: int,
    secret: int,
    discard: int,
    played: tuple[int, int],
    actions_left: tuple[int, int],
    offer: Move | None,
    opponent_hand: int,
    deck: int,
) -> None:
    """Fill ``out`` from packed card sets and action bit masks (S=1, D=2, G=4, C=8)."""
    other = 1 - seat
    h, sc, dc = _counts(hand), _counts(secret), _counts(discard)
    po, pt = _counts(played[seat]), _counts(played[other])
    # Once the round is scored the Secret is among the played cards: count it once.
    seen = hand + discard + played[0] + played[1] + (0 if phase == "over" else secret)
    offer_fields: tuple[int, ...] = _NO_OFFER
    if offer is not None:  # the offered cards are out of the hand and not yet on a side
        offer_fields, offered = _offer(offer)
        seen_counts = [a + b for a, b in zip(_counts(seen), offered, strict=True)]
    else:
        seen_counts = list(_counts(seen))
    charm, geisha = standing(markers)
    limit = rules.max_rounds
    values: list[float] = [
        *h,
        *sc,
        *dc,
        *po,
        *pt,
        *(n - k for n, k in zip(CHARM, seen_counts, strict=True)),
        *(m == seat for m in markers),
        *(m == other for m in markers),
        charm[seat],
        charm[other],
        geisha[seat],
        geisha[other],
        *_FLAGS[actions_left[seat]],
        *_FLAGS[actions_left[other]],
        *offer_fields,
        *_PHASES[phase],
        to_move == seat,
        first == seat,
        round_,
        -1 if limit is None else max(0, limit - round_),
        deck,
        opponent_hand,
    ]
    out[:] = values


def observe(
    state: State, seat: int, out: npt.NDArray[np.float32] | None = None
) -> npt.NDArray[np.float32]:
    """The observation of ``state`` from ``seat`` (written into ``out`` when given)."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    if out is None:
        out = np.empty(OBS_SIZE, dtype=np.float32)
    own = state.packed(seat)
    other = state.packed(1 - seat)
    _encode(
        out,
        seat,
        state.rules,
        state.round,
        state.first,
        state.to_move,
        state.phase.value,
        state.markers,
        own.hand,
        own.secret,
        own.discard,
        (own.played, other.played) if seat == 0 else (other.played, own.played),
        (own.actions, other.actions) if seat == 0 else (other.actions, own.actions),
        state.offer,
        _count_cards(other.hand),
        state.deck_left,
    )
    return out


def encode_view(view: View, rules: Rules | None = None) -> npt.NDArray[np.float32]:
    """The observation of a VIEW; ``rules`` (default: 3 rounds) gives ``rounds_left``."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    _encode(
        out,
        view.seat,
        rules or Rules(),
        view.round,
        view.first,
        view.to_move,
        view.phase,
        view.markers,
        pack(view.hand),
        pack(view.secret or ""),
        pack(view.discard or ""),
        (pack(view.played[0]), pack(view.played[1])),
        (actions_mask(view.actions_left[0]), actions_mask(view.actions_left[1])),
        None if view.offer is None else Move.parse(view.offer),
        view.opponent_hand,
        view.deck,
    )
    return out


# -- the round's public history: an optional block after the 98 floats ------------------------
HISTORY_TURN: tuple[tuple[str, int, str], ...] = (
    ("by_own", 1, "1 when the seat itself took this turn"),
    ("by_opponent", 1, "1 when the opponent took it"),
    ("action", 4, "one-hot: S D G C (a Secret's and a Discard's cards are never shown here)"),
    ("offered", N, "the Gift's three cards, or the Competition's first pair"),
    ("offered_pair_2", N, "the Competition's second pair"),
    ("picked", N, "the cards the other seat took from the offer"),
)
"""One turn of the history block: (name, length, meaning); a length of :data:`N` is one entry
per geisha."""

HISTORY_TURNS = 8
"""Turns in a round: the block has one slot per turn, in order, zero until played."""

_TURN_SIZE = sum(7 if n == N else n for _, n, _ in HISTORY_TURN)
HISTORY_SIZE = HISTORY_TURNS * _TURN_SIZE
"""The length of the history block (216)."""

_KIND = {"S": 0, "D": 1, "G": 2, "C": 3}


def history_block(
    plies: Sequence[tuple[int, str]], seat: int, out: npt.NDArray[np.float32] | None = None
) -> npt.NDArray[np.float32]:
    """The round's public history for ``seat``: ``plies`` are this round's decisions in order,
    (seat, move in notation; the opponent's Secret and Discard may be bare ``S`` and ``D``).

    Public information only: who took each turn, its action, the cards offered and picked;
    never a Secret's or Discard's cards. Shape (HISTORY_SIZE,), float32.
    """
    if out is None:
        out = np.zeros(HISTORY_SIZE, dtype=np.float32)
    else:
        out[:] = 0.0
    turn = -1
    for who, text in plies:
        letter = text[0]
        if letter == "P":
            if turn < 0:
                raise ValueError(f"a pick with no offer before it: {text!r}")
            at = turn * _TURN_SIZE + 6 + 14
            out[at : at + 7] += _digit_counts(text[1:])
            continue
        turn += 1
        if turn >= HISTORY_TURNS or letter not in _KIND:
            raise ValueError(f"not a round's decisions: {plies!r}")
        at = turn * _TURN_SIZE
        out[at + (0 if who == seat else 1)] = 1.0
        out[at + 2 + _KIND[letter]] = 1.0
        if letter in "GC":
            groups = text[1:].split("-")
            out[at + 6 : at + 13] = _digit_counts(groups[0])
            if letter == "C":
                out[at + 13 : at + 20] = _digit_counts(groups[1])
    return out


def _digit_counts(cards: str) -> list[int]:
    row = [0] * 7
    for c in cards:
        row[int(c) - 1] += 1
    return row


def round_plies(state: State) -> list[tuple[int, str]]:
    """The decisions of the state's current round, in order: (seat, move)."""
    out: list[tuple[int, str]] = []
    s = state
    while (prev := s.parent) is not None and prev.round == state.round:
        move = s.last_move
        assert move is not None and prev.to_move is not None
        out.append((prev.to_move, str(move)))
        s = prev
    out.reverse()
    return out


def observe_history(state: State, seat: int) -> npt.NDArray[np.float32]:
    """The 98-float observation followed by the round's public history: (98 + 216,) float32."""
    out = np.empty(OBS_SIZE + HISTORY_SIZE, dtype=np.float32)
    observe(state, seat, out[:OBS_SIZE])
    history_block(round_plies(state), seat, out[OBS_SIZE:])
    return out


def encode_view_history(view: View, rules: Rules | None = None) -> npt.NDArray[np.float32]:
    """:func:`observe_history` of a VIEW: the same vector, from what the seat knows."""
    plies = [
        (h.seat, h.move) for h in view.history if isinstance(h, SeenMove) and h.round == view.round
    ]
    return np.concatenate([encode_view(view, rules), history_block(plies, view.seat)])


def history_scale() -> npt.NDArray[np.float32]:
    """Each history entry's largest value (flags 1, a Gift's cards 3, a pair's 2)."""
    turn = np.ones(_TURN_SIZE, dtype=np.float32)
    turn[6:13] = 3.0
    turn[13:27] = 2.0
    return np.tile(turn, HISTORY_TURNS)
