"""What one seat may know: the VIEW of interfaces.md §2.

A :class:`View` is built from a state with ``View.of(state, seat)`` (or ``state.view(seat)``) and
holds nothing the seat may not see: not the removed card, the opponent's hand, the opponent's
Secret (until scoring) or Discard, nor the order of the pile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hanamikoji.cards import CHARM, GEISHA, CardError, pack, parse_cards
from hanamikoji.moves import Action, InvalidMoveError, Move, action_moves, actions_mask

if TYPE_CHECKING:
    from hanamikoji.state import State

__all__ = ["Reveal", "SeenMove", "View", "ViewError"]


class ViewError(ValueError):
    """A VIEW object that is not well formed."""


@dataclass(frozen=True)
class SeenMove:
    """A move as one seat saw it: the opponent's Secret and Discard are ``"S"`` and ``"D"``."""

    round: int
    seat: int
    move: str

    def to_json(self) -> dict[str, Any]:
        """The history entry of a VIEW."""
        return {"round": self.round, "seat": self.seat, "move": self.move}


@dataclass(frozen=True)
class Reveal:
    """Both Secrets, revealed at a round's scoring (per seat)."""

    round: int
    secrets: tuple[str, str]

    def to_json(self) -> dict[str, Any]:
        """The history entry of a VIEW."""
        return {"round": self.round, "reveal": list(self.secrets)}


HistoryEntry = SeenMove | Reveal


@dataclass(frozen=True)
class View:
    """All that one seat knows, field for field as the VIEW object of the engine protocol."""

    seat: int
    round: int
    first: int
    to_move: int | None
    phase: str
    markers: tuple[int | None, ...]
    charm: tuple[int, int]
    hand: str
    secret: str | None
    discard: str | None
    played: tuple[str, str]
    actions_left: tuple[str, str]
    offer: str | None
    opponent_hand: int
    deck: int
    history: tuple[HistoryEntry, ...]

    @classmethod
    def of(cls, state: State, seat: int) -> View:
        """The view of ``state`` from ``seat``."""
        if isinstance(seat, bool) or seat not in (0, 1):  # not True, which equals 1
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        other = 1 - seat
        return cls(
            seat=seat,
            round=state.round,
            first=state.first,
            to_move=state.to_move,
            phase=state.phase.value,
            markers=state.markers,
            charm=state.charm,
            hand=state.hand(seat),
            secret=state.secret(seat),
            discard=state.discard(seat),
            played=(state.played(0), state.played(1)),
            actions_left=(state.actions_left(0), state.actions_left(1)),
            offer=str(state.offer) if state.offer is not None else None,
            opponent_hand=len(state.hand(other)),
            deck=state.deck_left,
            history=seen_history(state, seat),
        )

    @property
    def legal_moves(self) -> tuple[Move, ...]:
        """The moves this seat may make now (empty when it is not this seat's decision)."""
        if self.to_move != self.seat:
            return ()
        if self.offer is not None:
            return Move.parse(self.offer).picks
        return action_moves(pack(self.hand), actions_mask(self.actions_left[self.seat]))

    @property
    def opponent(self) -> int:
        """The other seat."""
        return 1 - self.seat

    def to_json(self) -> dict[str, Any]:
        """The VIEW as a JSON-ready dict (every field present)."""
        return {
            "seat": self.seat,
            "round": self.round,
            "first": self.first,
            "to_move": self.to_move,
            "phase": self.phase,
            "markers": list(self.markers),
            "charm": list(self.charm),
            "hand": self.hand,
            "secret": self.secret,
            "discard": self.discard,
            "played": list(self.played),
            "actions_left": list(self.actions_left),
            "offer": self.offer,
            "opponent_hand": self.opponent_hand,
            "deck": self.deck,
            "history": [h.to_json() for h in self.history],
        }

    @classmethod
    def from_json(cls, obj: Any) -> View:
        """Read a VIEW object (as an engine receives it), checking every field."""
        if not isinstance(obj, dict):
            raise ViewError(f"a view must be a JSON object, got {type(obj).__name__}")
        try:
            view = cls(
                seat=_seat(obj, "seat"),
                round=_int(obj, "round", 1),
                first=_seat(obj, "first"),
                to_move=_seat(obj, "to_move", nullable=True),
                phase=_phase(obj),
                markers=_markers(obj),
                charm=_pair(obj, "charm", int),
                hand=_cards(obj.get("hand"), "hand"),
                secret=_opt_cards(obj, "secret"),
                discard=_opt_cards(obj, "discard"),
                played=_pair(obj, "played", str),
                actions_left=_actions(obj),
                offer=_offer(obj),
                opponent_hand=_int(obj, "opponent_hand", 0),
                deck=_int(obj, "deck", 0),
                history=_history(obj),
            )
        except KeyError as e:
            raise ViewError(f"the view lacks the field {e.args[0]!r}") from None
        _possible(view)
        return view


def seen_history(state: State, seat: int) -> tuple[HistoryEntry, ...]:
    """Every move of ``state``'s game as ``seat`` saw it, with each scored round's Reveal.

    Built on the nearest earlier state whose history is known, and remembered on ``state``, so a
    view at every step of a game costs linear time, not quadratic.
    """
    chain: list[State] = []
    s: State | None = state
    known: tuple[HistoryEntry, ...] = ()
    while s is not None:
        memo = getattr(s, "_seen", None)
        if memo is not None and seat in memo:
            known = memo[seat]
            break
        if s.parent is None:
            break
        chain.append(s)
        s = s.parent
    out = list(known)
    for child in reversed(chain):
        prev = child.parent
        move = child.last_move
        assert prev is not None and move is not None and prev.to_move is not None
        mover = prev.to_move
        text = str(move)
        if mover != seat and move.action in (Action.SECRET, Action.DISCARD):
            text = move.action.value
        out.append(SeenMove(prev.round, mover, text))
        if len(child.scorings) > len(prev.scorings):
            score = child.scorings[-1]
            out.append(Reveal(score.round, score.secrets))
    result = tuple(out)
    memo = getattr(state, "_seen", None)
    if memo is None:
        memo = {}
        state._seen = memo
    memo[seat] = result
    return result


def _possible(view: View) -> None:
    """Refuse a view no game can show: more of a geisha's cards in sight than she has (sixteen
    7s in a hand), or charm beyond the 21 there is."""
    # (once the game is over the Secret has joined its owner's side: counted there)
    secret = (view.secret or "") if view.phase != "over" else ""
    seen = view.hand + view.played[0] + view.played[1] + secret + (view.discard or "")
    for g, copies in zip(GEISHA, CHARM, strict=True):
        if seen.count(str(g)) > copies:
            raise ViewError(
                f"the view shows {seen.count(str(g))} cards of geisha {g}, who has {copies} "
                "(hand, sides, Secret and Discard together)"
            )
    if not all(0 <= c <= sum(CHARM) for c in view.charm):
        raise ViewError(
            f"view field 'charm' must be 0 to {sum(CHARM)} each, got {list(view.charm)}"
        )


def _seat(obj: dict[str, Any], key: str, *, nullable: bool = False) -> Any:
    value = obj[key]
    if value is None and nullable:
        return None
    if type(value) is not int or value not in (0, 1):
        raise ViewError(
            f"view field {key!r} must be 0 or 1{' or null' if nullable else ''}, got {value!r}"
        )
    return value


def _int(obj: dict[str, Any], key: str, low: int) -> int:
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ViewError(f"view field {key!r} must be a whole number >= {low}, got {value!r}")
    return value


def _phase(obj: dict[str, Any]) -> str:
    value = obj["phase"]
    if value not in ("action", "pick", "over"):
        raise ViewError(f"view field 'phase' must be 'action', 'pick' or 'over', got {value!r}")
    return str(value)


def _markers(obj: dict[str, Any]) -> tuple[int | None, ...]:
    value = obj["markers"]
    if (
        not isinstance(value, list)
        or len(value) != 7
        or any(m not in (None, 0, 1) or isinstance(m, bool) for m in value)
    ):
        raise ViewError(f"view field 'markers' must be 7 entries of 0, 1 or null, got {value!r}")
    return tuple(value)


def _pair(obj: dict[str, Any], key: str, kind: type) -> Any:
    value = obj[key]
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, kind) and not isinstance(v, bool) for v in value)
    ):
        raise ViewError(f"view field {key!r} must be a list of two {kind.__name__}s, got {value!r}")
    if kind is str:
        return (_cards(value[0], key), _cards(value[1], key))
    return (value[0], value[1])


def _cards(value: Any, key: str) -> str:
    try:
        return parse_cards(value, what=f"view field {key!r}")
    except CardError as e:
        raise ViewError(str(e)) from None


def _opt_cards(obj: dict[str, Any], key: str) -> str | None:
    value = obj[key]
    return None if value is None else _cards(value, key)


def _actions(obj: dict[str, Any]) -> tuple[str, str]:
    value = obj["actions_left"]
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, str) and set(v) <= set("SDGC") for v in value)
    ):
        raise ViewError(
            f"view field 'actions_left' must be two strings of S, D, G, C, got {value!r}"
        )
    return (
        "".join(a for a in "SDGC" if a in value[0]),
        "".join(a for a in "SDGC" if a in value[1]),
    )


def _offer(obj: dict[str, Any]) -> str | None:
    value = obj["offer"]
    if value is None:
        return None
    try:
        move = Move.parse(value)
    except InvalidMoveError as e:
        raise ViewError(f"view field 'offer': {e}") from None
    if move.action not in (Action.GIFT, Action.COMPETITION):
        raise ViewError(f"view field 'offer' must be a Gift or Competition, got {value!r}")
    return str(move)


def _history(obj: dict[str, Any]) -> tuple[HistoryEntry, ...]:
    value = obj["history"]
    if not isinstance(value, list):
        raise ViewError("view field 'history' must be a list")
    out: list[HistoryEntry] = []
    for i, entry in enumerate(value):
        if not isinstance(entry, dict) or not isinstance(entry.get("round"), int):
            raise ViewError(f"view history entry {i} must be an object with a round, got {entry!r}")
        if "reveal" in entry:
            rev = entry["reveal"]
            if not isinstance(rev, list) or len(rev) != 2:
                raise ViewError(f"view history entry {i}: 'reveal' must be two cards, got {rev!r}")
            out.append(Reveal(entry["round"], (_cards(rev[0], "reveal"), _cards(rev[1], "reveal"))))
        else:
            move = entry.get("move")
            seat = entry.get("seat")
            if not isinstance(move, str) or seat not in (0, 1):
                raise ViewError(
                    f"view history entry {i} must have a seat and a move, got {entry!r}"
                )
            if move not in ("S", "D"):
                try:
                    move = str(Move.parse(move))
                except InvalidMoveError as e:
                    raise ViewError(f"view history entry {i}: {e}") from None
            out.append(SeenMove(entry["round"], seat, move))
    return tuple(out)


def describe_seen(entry: HistoryEntry, names: Sequence[str] = ("seat 0", "seat 1")) -> str:
    """A history entry in words."""
    if isinstance(entry, Reveal):
        return f"Secrets revealed: {names[0]} {entry.secrets[0]}, {names[1]} {entry.secrets[1]}"
    who = names[entry.seat]
    if entry.move == "S":
        return f"{who} plays a Secret (hidden)"
    if entry.move == "D":
        return f"{who} discards 2 cards (hidden)"
    return f"{who}: {Move.parse(entry.move).describe()}"
