"""What anyone may know of a game: the public view, for spectators.

A :class:`PublicView` is built with ``PublicView.of(state)`` and holds what both players have shown:
both sides' played cards, the markers, the actions used, the offer being answered, the picks, how
many cards each hand and the pile hold, and the history with every Secret and Discard as a bare
``"S"`` or ``"D"``. A Secret is known once it is revealed at its round's scoring (a ``reveal``
entry of the history); a hand, a Discard, the removed card and the pile are never known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hanamikoji.cards import CardError, parse_cards
from hanamikoji.moves import Action, InvalidMoveError, Move
from hanamikoji.view import HistoryEntry, Reveal, SeenMove

if TYPE_CHECKING:
    from hanamikoji.state import State

__all__ = ["PublicView", "PublicViewError", "public_history"]

_PHASES = ("action", "pick", "over")
_HIDDEN = (Action.SECRET, Action.DISCARD)


class PublicViewError(ValueError):
    """A public view object that is not well formed."""


@dataclass(frozen=True)
class PublicView:
    """All that a spectator knows: the VIEW of interfaces.md §2 without a seat's own cards.

    ``hand_sizes`` stands for the VIEW's ``hand`` and ``opponent_hand``; there is no ``seat``,
    ``secret`` or ``discard``.
    """

    round: int
    first: int
    to_move: int | None
    phase: str
    markers: tuple[int | None, ...]
    charm: tuple[int, int]
    played: tuple[str, str]
    actions_left: tuple[str, str]
    offer: str | None
    hand_sizes: tuple[int, int]
    deck: int
    history: tuple[HistoryEntry, ...]

    @classmethod
    def of(cls, state: State) -> PublicView:
        """The public view of ``state``."""
        return cls(
            round=state.round,
            first=state.first,
            to_move=state.to_move,
            phase=state.phase.value,
            markers=state.markers,
            charm=state.charm,
            # Once the game ends at a scoring these include the revealed Secrets; after a
            # resignation mid-round they do not, and the Secrets stay hidden.
            played=(state.played(0), state.played(1)),
            actions_left=(state.actions_left(0), state.actions_left(1)),
            offer=str(state.offer) if state.offer is not None else None,
            hand_sizes=(len(state.hand(0)), len(state.hand(1))),
            deck=state.deck_left,
            history=public_history(state),
        )

    def to_json(self) -> dict[str, Any]:
        """The public view as a JSON-ready dict (every field present)."""
        return {
            "round": self.round,
            "first": self.first,
            "to_move": self.to_move,
            "phase": self.phase,
            "markers": list(self.markers),
            "charm": list(self.charm),
            "played": list(self.played),
            "actions_left": list(self.actions_left),
            "offer": self.offer,
            "hand_sizes": list(self.hand_sizes),
            "deck": self.deck,
            "history": [h.to_json() for h in self.history],
        }

    @classmethod
    def from_json(cls, obj: Any) -> PublicView:
        """Read a public view (as a spectator's program receives it), checking every field."""
        if not isinstance(obj, dict):
            raise PublicViewError(f"a public view must be a JSON object, got {type(obj).__name__}")
        try:
            to_move = obj["to_move"]
            if to_move is not None:
                to_move = _seat(to_move, "to_move")
            phase = obj["phase"]
            if phase not in _PHASES:
                raise PublicViewError(f"'phase' must be one of {', '.join(_PHASES)}, got {phase!r}")
            markers = obj["markers"]
            if not (
                isinstance(markers, list)
                and len(markers) == 7
                and all(m is None or _is_seat(m) for m in markers)
            ):
                raise PublicViewError(f"'markers' must be 7 of 0, 1 or null, got {markers!r}")
            offer = obj["offer"]
            return cls(
                round=_count(obj["round"], "round", 1),
                first=_seat(obj["first"], "first"),
                to_move=to_move,
                phase=phase,
                markers=tuple(markers),
                charm=_pair(obj["charm"], "charm", lambda v: _count(v, "charm", 0)),
                played=_pair(obj["played"], "played", lambda v: _cards(v, "played")),
                actions_left=_pair(obj["actions_left"], "actions_left", _actions),
                offer=None if offer is None else _move(offer, "offer"),
                hand_sizes=_pair(obj["hand_sizes"], "hand_sizes", lambda v: _count(v, "hand", 0)),
                deck=_count(obj["deck"], "deck", 0),
                history=_history(obj["history"]),
            )
        except KeyError as e:
            raise PublicViewError(f"the public view lacks the field {e.args[0]!r}") from None


def public_history(state: State) -> tuple[HistoryEntry, ...]:
    """Every move of ``state``'s game as a spectator saw it: each seat's history with its own
    Secrets and Discards hidden too (seat 0's VIEW already hides seat 1's)."""
    out: list[HistoryEntry] = []
    for entry in state.view(0).history:
        if isinstance(entry, SeenMove) and entry.seat == 0 and entry.move[0] in "SD":
            entry = SeenMove(entry.round, 0, entry.move[0])
        out.append(entry)
    return tuple(out)


def _is_seat(value: Any) -> bool:
    return type(value) is int and value in (0, 1)


def _seat(value: Any, key: str) -> int:
    if not _is_seat(value):
        raise PublicViewError(f"{key!r} must be 0 or 1, got {value!r}")
    return int(value)


def _count(value: Any, key: str, low: int) -> int:
    if type(value) is not int or value < low:
        raise PublicViewError(f"{key!r} must be a whole number >= {low}, got {value!r}")
    return value


def _pair(value: Any, key: str, read: Any) -> Any:
    if not isinstance(value, list) or len(value) != 2:
        raise PublicViewError(f"{key!r} must be a list of two, got {value!r}")
    return (read(value[0]), read(value[1]))


def _cards(value: Any, key: str) -> str:
    try:
        return parse_cards(value, what=f"public view field {key!r}")
    except CardError as e:
        raise PublicViewError(str(e)) from None


def _actions(value: Any) -> str:
    if not isinstance(value, str) or not set(value) <= set("SDGC"):
        raise PublicViewError(f"'actions_left' must be strings of S, D, G, C, got {value!r}")
    return "".join(a for a in "SDGC" if a in value)


def _move(value: Any, key: str) -> str:
    try:
        return str(Move.parse(value))
    except InvalidMoveError as e:
        raise PublicViewError(f"{key!r}: {e}") from None


def _history(value: Any) -> tuple[HistoryEntry, ...]:
    if not isinstance(value, list):
        raise PublicViewError("'history' must be a list")
    out: list[HistoryEntry] = []
    for i, entry in enumerate(value):
        if not isinstance(entry, dict) or type(entry.get("round")) is not int:
            raise PublicViewError(f"history entry {i} must be an object with a round: {entry!r}")
        if "reveal" in entry:
            rev = _pair(entry["reveal"], f"history entry {i}", lambda v: _cards(v, "reveal"))
            out.append(Reveal(entry["round"], rev))
            continue
        move = entry.get("move")
        seat = _seat(entry.get("seat"), f"history entry {i}'s seat")
        if move not in ("S", "D"):
            move = _move(move, f"history entry {i}")
            if Move.parse(move).action in _HIDDEN:
                raise PublicViewError(f"history entry {i} shows a hidden card: {move!r}")
        out.append(SeenMove(entry["round"], seat, move))
    return tuple(out)
