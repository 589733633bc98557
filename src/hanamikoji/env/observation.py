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

import numpy as np
import numpy.typing as npt

from hanamikoji.cards import CHARM, counts, pack
from hanamikoji.moves import Action, Move
from hanamikoji.state import Rules, State, standing
from hanamikoji.view import View

__all__ = ["FIELDS", "OBS_SIZE", "encode_view", "field_slices", "observe"]

FIELDS: tuple[tuple[str, int, str], ...] = (
    ("hand", 7, "cards of each geisha in the seat's hand"),
    ("secret", 7, "the seat's own Secret this round (0 or 1 per geisha)"),
    ("discard", 7, "the seat's own Discard this round"),
    ("played_own", 7, "cards on the seat's side this round"),
    ("played_opponent", 7, "cards on the opponent's side this round"),
    ("unseen", 7, "cards of each geisha the seat has not seen this round (hidden from it)"),
    ("markers_own", 7, "1 where the geisha's marker is on the seat's side"),
    ("markers_opponent", 7, "1 where it is on the opponent's side"),
    ("charm", 2, "charm from the markers: own, opponent"),
    ("geisha", 2, "markers held: own, opponent"),
    ("actions_own", 4, "1 for each unused action of the seat, in the order S D G C"),
    ("actions_opponent", 4, "the same for the opponent"),
    ("offer_gift", 7, "the three cards of a Gift being answered"),
    ("offer_pair_1", 7, "the first pair of a Competition being answered"),
    ("offer_pair_2", 7, "its second pair"),
    ("phase", 3, "one-hot: action, pick, over"),
    ("to_move", 1, "1 when the decision is the seat's"),
    ("first", 1, "1 when the seat plays first this round"),
    ("round", 1, "the round number, from 1"),
    ("rounds_left", 1, "rounds the limit still allows after this one; -1 for no limit"),
    ("deck", 1, "cards left in the draw pile"),
    ("opponent_hand", 1, "cards in the opponent's hand"),
)

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
_PHASES = {"action": 0, "pick": 1, "over": 2}
_ACTION_LETTERS = "SDGC"


def _encode(
    out: npt.NDArray[np.float32],
    seat: int,
    rules: Rules,
    round_: int,
    first: int,
    to_move: int | None,
    phase: str,
    markers: tuple[int | None, ...],
    hand: str,
    secret: str | None,
    discard: str | None,
    played: tuple[str, str],
    actions_left: tuple[str, str],
    offer: str | None,
    opponent_hand: int,
    deck: int,
) -> None:
    other = 1 - seat
    at = _AT
    seen = [0] * 7
    for name, cards in (
        ("hand", hand),
        ("secret", secret or ""),
        ("discard", discard or ""),
        ("played_own", played[seat]),
        ("played_opponent", played[other]),
    ):
        c = counts(pack(cards))
        out[at[name]] = c
        if name != "secret" or phase != "over":  # once scored, the Secret is among the played
            seen = [a + b for a, b in zip(seen, c, strict=True)]

    out[at["markers_own"]] = [m == seat for m in markers]
    out[at["markers_opponent"]] = [m == other for m in markers]
    charm, geisha = standing(markers)
    out[at["charm"]] = (charm[seat], charm[other])
    out[at["geisha"]] = (geisha[seat], geisha[other])
    out[at["actions_own"]] = [a in actions_left[seat] for a in _ACTION_LETTERS]
    out[at["actions_opponent"]] = [a in actions_left[other] for a in _ACTION_LETTERS]
    if offer is not None:  # the offered cards are out of the hand and not yet on a side
        move = Move.parse(offer)
        offered = counts(pack(move.cards))
        seen = [a + b for a, b in zip(seen, offered, strict=True)]
        if move.action is Action.GIFT:
            out[at["offer_gift"]] = offered
        else:
            out[at["offer_pair_1"]] = counts(pack(move.groups[0]))
            out[at["offer_pair_2"]] = counts(pack(move.groups[1]))
    out[at["unseen"]] = [n - s for n, s in zip(CHARM, seen, strict=True)]
    out[at["phase"].start + _PHASES[phase]] = 1.0
    out[at["to_move"]] = float(to_move == seat)
    out[at["first"]] = float(first == seat)
    out[at["round"]] = round_
    limit = rules.max_rounds
    out[at["rounds_left"]] = -1 if limit is None else max(0, limit - round_)
    out[at["deck"]] = deck
    out[at["opponent_hand"]] = opponent_hand


def observe(
    state: State, seat: int, out: npt.NDArray[np.float32] | None = None
) -> npt.NDArray[np.float32]:
    """The observation of ``state`` from ``seat`` (written into ``out`` when given)."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    offer = state.offer
    _encode(
        out,
        seat,
        state.rules,
        state.round,
        state.first,
        state.to_move,
        state.phase.value,
        state.markers,
        state.hand(seat),
        state.secret(seat),
        state.discard(seat),
        (state.played(0), state.played(1)),
        (state.actions_left(0), state.actions_left(1)),
        None if offer is None else str(offer),
        len(state.hand(1 - seat)),
        state.deck_left,
    )
    return out


def encode_view(view: View, rules: Rules | None = None) -> npt.NDArray[np.float32]:
    """The observation of a VIEW; ``rules`` (default: 3 rounds) gives ``rounds_left``."""
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    _encode(
        out,
        view.seat,
        rules or Rules(),
        view.round,
        view.first,
        view.to_move,
        view.phase,
        view.markers,
        view.hand,
        view.secret,
        view.discard,
        view.played,
        view.actions_left,
        view.offer,
        view.opponent_hand,
        view.deck,
    )
    return out
