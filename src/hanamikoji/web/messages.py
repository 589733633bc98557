"""The wire messages a seat and the review page receive, built from what each may know.

A seat's ``state`` message is built from its VIEW only (:func:`seat_message`); the scored rounds'
cards were revealed to both. The review's frames (:func:`review_frames`) show everything, and
are given only once a game is over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hanamikoji.clock import claim_allowed_at
from hanamikoji.glicko2 import PROVISIONAL_DEVIATION
from hanamikoji.moves import Action
from hanamikoji.public import PublicView
from hanamikoji.state import Phase, RoundScore, State, Termination
from hanamikoji.view import View
from hanamikoji.web.game import FORFEIT, LiveGame, invite_link, now_ms, undo_point
from hanamikoji.web.store import Store

__all__ = [
    "RatingChanges",
    "SeatAccounts",
    "add_rating_changes",
    "add_usernames",
    "clock_json",
    "drawn_card",
    "lookup_rating_changes",
    "lookup_seat_accounts",
    "public_view",
    "review_frames",
    "scoring_json",
    "seat_accounts",
    "seat_message",
    "seat_view",
]


@dataclass(frozen=True)
class SeatAccounts:
    """What marks each seat's player beside the name they typed (public, as a profile at
    ``/@/NAME``): the account's user name (None for a guest, the AI, a deleted account or a
    seat nobody holds yet), and whether the seat's account was deleted since, which a guest's
    None would otherwise pass for."""

    usernames: tuple[str | None, ...]
    deleted: tuple[bool, ...]


def seat_accounts(found: Mapping[str, str | None], players: Sequence[str | None]) -> SeatAccounts:
    """:class:`SeatAccounts` of ``players`` (by seat, None: nobody or the AI) from ``found``,
    the store's :meth:`~hanamikoji.web.store.PlayerStore.accounts` of them."""
    return SeatAccounts(
        tuple(None if p is None else found.get(p) for p in players),
        tuple(p is not None and p in found and found[p] is None for p in players),
    )


async def lookup_seat_accounts(store: Store, game: LiveGame) -> SeatAccounts:
    """Each seat's account (:class:`SeatAccounts`), in one query: what tells an account from a
    guest who typed the same name, and a deleted account from a guest."""
    players = [p for p in game.row.players if p is not None]
    found = await store.accounts(players) if players else {}
    return seat_accounts(found, game.row.players)


def add_usernames(game: dict[str, Any], accounts: SeatAccounts) -> None:
    """Add ``usernames`` to a message's ``game`` (a seat's or a spectator's ``state``, the
    review's, a game on /watch) when an account holds a seat, and ``deleted`` when a seat's
    account was deleted: optional, each absent when no seat is one."""
    if any(accounts.usernames):
        game["usernames"] = list(accounts.usernames)
    if any(accounts.deleted):
        game["deleted"] = list(accounts.deleted)


RatingChanges = list[dict[str, Any] | None]
"""A finished rated game's ``ratings``, by seat (empty: no rating moved, or not such a game)."""


async def lookup_rating_changes(store: Store, live: LiveGame) -> RatingChanges:
    """What a finished rated game did to its players' ratings, by seat: the rating before the
    game and after it, rounded as the profiles show them, and whether it is still provisional;
    None for a seat whose rating did not move (an AI level's is fixed). Empty while the game is
    on and for a game that moved no rating; read once for all its messages."""
    row = live.row
    if not row.rated or not live.state.is_over:
        return []
    moved = await store.game_ratings(row.id, [p for p in row.players if p is not None])
    if not moved:
        return []
    changes: RatingChanges = []
    for player in row.players:
        if player is None or player not in moved:
            changes.append(None)
            continue
        before, after = moved[player]
        changes.append(
            {
                "before": round(before.rating),
                "after": round(after.rating),
                "provisional": after.deviation >= PROVISIONAL_DEVIATION,
            }
        )
    return changes


def add_rating_changes(game: dict[str, Any], changes: RatingChanges) -> None:
    """Add ``ratings`` (:func:`lookup_rating_changes`) to a seat's or a spectator's ``state``
    ``game``: public, as the profiles' histories are; absent when there are none."""
    if changes:
        game["ratings"] = changes


def scoring_json(score: RoundScore) -> dict[str, Any]:
    return {
        "round": score.round,
        "played": list(score.played),
        "secrets": list(score.secrets),
        "markers_before": list(score.markers_before),
        "markers": list(score.markers),
        "charm": list(score.charm),
        "geisha": list(score.geisha),
    }


def seat_message(
    game: LiveGame, view: View, *, online: bool, rematch: str | None, now: int | None = None
) -> dict[str, Any]:
    """The ``state`` message for one seat: its VIEW, its legal moves and public facts only.

    Everything about the cards comes from ``view`` (what the seat may know; for a resigned or
    forfeited game, its view of the position the game was given up at instead: :func:`seat_view`)
    and from the scored rounds, whose cards were revealed to both. A timed game's
    message has its clocks as seen at ``now`` (the server's time, default the present).
    """
    row = game.row
    seat = view.seat
    state = game.state
    outcome = state.outcome
    if _conceded(state):
        view = seat_view(state, seat)
    return {
        "type": "state",
        "game": {
            "id": row.id,
            "mode": row.mode,
            "level": row.level,
            "seat": seat,
            "names": list(row.names),
            "rules": {"max_rounds": row.max_rounds},
            "status": "over" if outcome is not None else "playing",
            "version": row.version,
            "opponent_joined": row.joined[1 - seat],
            "opponent_online": online,
            "thinking": game.thinking,
            "can_undo": undo_point(game, seat) is not None,
            "rematch": rematch,
            "invite": invite_link(row, seat),
            "control": row.control or "none",
            "rated": row.rated,
        },
        "view": view.to_json(),
        "drawn": drawn_card(state, seat),
        "legal": [str(m) for m in view.legal_moves],
        "scorings": [scoring_json(s) for s in state.scorings],
        "result": outcome.to_json() if outcome is not None else None,
        "clock": clock_json(game, seat, now_ms() if now is None else now, online=online),
    }


def seat_view(state: State, seat: int) -> View:
    """What ``seat``'s table shows of ``state``: its VIEW; for a game ended by a resignation or
    a forfeit (whose ended state keeps no hands, :meth:`State.concede`), its VIEW of the
    position the game was given up at (its own hand, the opponent's hand size, the pile, both
    sides, its own Secret and Discard), with nobody to move and no legal move."""
    if not _conceded(state):
        return state.view(seat)
    return replace(_given_up_at(state).view(seat), to_move=None, phase=Phase.OVER.value)


def public_view(state: State) -> PublicView:
    """What a spectator's table shows of ``state``: its public view; for a game ended by a
    resignation or a forfeit, the public view of the position it was given up at (the hand
    sizes, the pile, both sides), with nobody to move."""
    if not _conceded(state):
        return PublicView.of(state)
    return replace(PublicView.of(_given_up_at(state)), to_move=None, phase=Phase.OVER.value)


def clock_json(game: LiveGame, seat: int, now: int, *, online: bool) -> dict[str, Any] | None:
    """The ``clock`` of a seat's state message: each seat's time at the server's ``now``, whose
    clock runs, the deadline, when this seat may claim an absent opponent's game (``claim_at``)
    and, once the clock ended the game, who lost by it (``ended``)."""
    clock = game.clock
    if clock is None:
        return None
    data = clock.for_client(now)
    other = 1 - seat
    claim_at = None
    if not online and not game.state.is_over:
        claim_at = claim_allowed_at(clock, other, game.row.seen[other] or 0)
    data["claim_at"] = claim_at
    last = game.row.moves[-1] if game.row.moves else ""
    ended = None
    if last.startswith(FORFEIT):
        _, lost, how = last.split(":")
        if how in ("time", "abandoned"):  # (not a bot's engine that failed: the clock ran on)
            ended = {"seat": int(lost), "why": how}
    data["ended"] = ended
    return data


def drawn_card(state: State, seat: int) -> str | None:
    """The card ``seat`` drew at the start of its turn, while that turn's action is awaited.

    The seat's own knowledge (it is in its hand): the table keeps it marked, after a reload too.
    """
    if state.is_over or state.to_move != seat or state.phase is not Phase.ACTION:
        return None
    return state.deal.deck[state.turn]


def review_frames(state: State) -> list[dict[str, Any]]:
    """The whole table after each move of a finished game, for the review page."""
    positions: list[State] = []
    s: State | None = state
    while s is not None:
        positions.append(s)
        s = s.parent
    positions.reverse()
    conceded = _conceded(state)
    if conceded:
        # A resignation or forfeit ends the game where it stood, but the ended state keeps no
        # hands or actions: the last frame shows the table it was given up at instead.
        positions[-1] = _given_up_at(state)
    plies = state.history
    frames = []
    scored = {score.round: score for score in state.scorings}
    for i, pos in enumerate(positions):
        ply = plies[i - 1] if i > 0 and i - 1 < len(plies) else None
        ended = ply is not None and (pos.round != ply.round or pos.is_over)
        scoring = scored.get(ply.round) if ended and ply is not None else None
        deal = pos.deal
        frame = {
            "index": i,
            "round": pos.round,
            "seat": ply.seat if ply else None,
            "move": str(ply.move) if ply else None,
            "text": ply.move.describe() if ply else "",
            "hands": [pos.hand(0), pos.hand(1)],
            "played": [pos.played(0), pos.played(1)],
            "secrets": [pos.secret(0), pos.secret(1)],
            "discards": [pos.discard(0), pos.discard(1)],
            "removed": deal.removed,
            "deck": deal.deck[len(deal.deck) - pos.deck_left :],
            "markers": list(pos.markers),
            "charm": list(pos.charm),
            "geisha": list(pos.geisha),
            "actions_left": [pos.actions_left(0), pos.actions_left(1)],
            "offer": str(pos.offer) if pos.offer else None,
            "to_move": None if conceded and i == len(positions) - 1 else pos.to_move,
            "scoring": scoring_json(scoring) if scoring else None,
        }
        if scoring is not None and pos.round != scoring.round:
            # The move that ended a round: the table is that round's, as scored (the next
            # round is dealt already, but its cards belong to the frames after this one).
            before = positions[i - 1]
            discards = [before.discard(0), before.discard(1)]
            if ply is not None and ply.move.action is Action.DISCARD:  # the round's last move
                discards[ply.seat] = ply.move.cards
            frame |= {
                "hands": ["", ""],
                "secrets": list(scoring.secrets),
                "discards": discards,
                "removed": before.deal.removed,
                "deck": "",
                "actions_left": ["", ""],
                "offer": None,
            }
        frames.append(frame)
    return frames


_CONCEDED = (Termination.RESIGN, Termination.FORFEIT)


def _conceded(state: State) -> bool:
    """Whether ``state`` is a game ended by a resignation or a forfeit."""
    return state.outcome is not None and state.outcome.reason in _CONCEDED


def _given_up_at(state: State) -> State:
    """The position a conceded game stood at when it was given up (``state`` ended by
    :meth:`State.concede`, which keeps the last move but not the hands)."""
    parent, move = state.parent, state.last_move
    if parent is not None and move is not None:
        return parent.apply(move)
    # given up before its first move: the game as dealt
    return State.from_deals(state.deals, rules=state.rules, markers=state.markers)
