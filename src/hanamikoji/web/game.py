"""One game on the server: its stored row replayed into a state, its seats, its clock's charges.

A :class:`LiveGame` is the row (what the store keeps: the deal's seed, the moves, the seats'
tokens and players, the clock) with the state its moves lead to. The functions here are the
rules the service applies to it: who holds a seat, whether undo or the AI is due, what a move
costs the clock, what the ratings record when it ends.
"""

from __future__ import annotations

import functools
import hmac
import random
import time
from dataclasses import dataclass, replace
from typing import Any

from hanamikoji.clock import Clock
from hanamikoji.glicko2 import Rating
from hanamikoji.moves import IllegalMoveError, Move
from hanamikoji.state import Deal, Phase, Rules, State, Termination
from hanamikoji.web.errors import WebError
from hanamikoji.web.ratings import AI_PLAYER, AI_RATINGS, ai_player, family_of, score_of
from hanamikoji.web.store import GameRow, RatedEnd

__all__ = [
    "DEFAULT_LEVEL",
    "ENGINE_FAILURES",
    "FORFEIT",
    "RESIGN",
    "SCORING_GRACE_MS",
    "LiveGame",
    "ai_due",
    "apply_entries",
    "charge_clock",
    "concede",
    "forfeit_why",
    "invitation_open",
    "invite_link",
    "now_ms",
    "player_seat",
    "rated_end",
    "replay",
    "token_seat",
    "undo_point",
]

DEFAULT_LEVEL = "medium"
RESIGN = "resign:"
FORFEIT = "forfeit:"  # "forfeit:S:time" (seat S ran out of time), "forfeit:S:abandoned" (claimed)


def now_ms() -> int:
    """The wall clock in whole milliseconds since the epoch (what every clock is kept in)."""
    return round(time.time() * 1000)


@dataclass
class LiveGame:
    """A game in memory: its stored row and the state its moves lead to."""

    row: GameRow
    state: State
    thinking: bool = False

    @property
    def id(self) -> str:
        """The game's id."""
        return self.row.id

    @property
    def rules(self) -> Rules:
        """The game's rules."""
        return Rules(max_rounds=self.row.max_rounds)

    def human_seat(self) -> int | None:
        """The person's seat in a game against the AI."""
        return None if self.row.ai_seat is None else 1 - self.row.ai_seat

    @property
    def clock(self) -> Clock | None:
        """The game's clock (None: no time control)."""
        return _clock(self.row.clock)


@functools.lru_cache(maxsize=4096)
def _clock(text: str | None) -> Clock | None:
    """A stored clock, read once (clocks are immutable values)."""
    return None if text is None else Clock.from_json(text)


ENGINE_FAILURES = {
    "crash": "the bot's engine crashed",
    "exit": "the bot's engine exited during the game",
    "garbage": "the bot's engine answered garbage",
    "illegal": "the bot's engine chose an illegal move",
    "timeout": "the bot's engine did not answer in time",
}
"""A bot's forfeit (``forfeit:S:engine-KIND``): the engine protocol's failures, by name."""


def forfeit_why(entry: str, control: str | None) -> str:
    """The record's ``why`` of a stored forfeit entry: the seat and the clock, or the named
    failure of a bot's engine."""
    _, seat, how = entry.split(":")
    if how.startswith("engine-"):
        kind = how[len("engine-") :]
        return f"seat {seat}: {kind}: {ENGINE_FAILURES.get(kind, 'the bot forfeited')}"
    if how == "disabled":
        return f"seat {seat} was disabled by the server's moderators"
    if how == "abandoned":
        if control in (None, "none"):  # an untimed game's bot that stayed away (docs/bots.md)
            return f"seat {seat} left the game and the win was claimed (no clock)"
        return f"seat {seat} left the game and the win was claimed ({control} clock)"
    return f"seat {seat} ran out of time ({control} clock)"


def concede(state: State, entry: str, control: str | None) -> State:
    """``state`` after a stored resignation or forfeit entry."""
    if entry.startswith(RESIGN):
        return state.concede(int(entry[len(RESIGN) :]), Termination.RESIGN)
    seat = int(entry.split(":")[1])
    return state.concede(seat, Termination.FORFEIT, forfeit_why(entry, control))


def replay(row: GameRow) -> State:
    """The state after the stored moves of ``row``."""
    rules = Rules(max_rounds=row.max_rounds)
    if row.deals is None:
        state = State.new(row.seed, rules=rules)
    else:  # an undo dealt afresh: these deals, then later rounds from their own seed
        deals = [Deal(d[0], (d[1], d[2]), d[3]) for d in row.deals["deals"]]
        state = State.from_deals(deals, rules=rules, rng=random.Random(row.deals["seed"]))
    for text in row.moves:
        if text.startswith((RESIGN, FORFEIT)):
            state = concede(state, text, row.control)
        else:
            state = state.apply(text)
    return state


def token_seat(row: GameRow, token: str | None) -> int | None:
    """The seat whose secret ``token`` is (compared in constant time), or None."""
    if not token or not isinstance(token, str):
        return None
    given = token.encode("utf-8", "replace")
    for seat in (0, 1):
        mine = row.tokens[seat]
        if mine and hmac.compare_digest(mine.encode(), given):
            return seat
    return None


def player_seat(row: GameRow, player: str | None) -> int | None:
    """The seat of ``row`` that belongs to ``player`` (never the AI's), or None."""
    if player is None:
        return None
    for seat in (0, 1):
        if row.players[seat] == player and seat != row.ai_seat:
            return seat
    return None


def invitation_open(row: GameRow) -> int | None:
    """The seat a friend game's invitation still offers (its token not yet made, the game not
    over), or None."""
    if row.mode != "friend" or row.invite is None or row.status != "playing":
        return None
    for seat in (0, 1):
        if not row.tokens[seat]:
            return seat
    return None


def invite_link(row: GameRow, seat: int) -> str | None:
    """The invitation link, for the seat that created a friend game, until it is claimed."""
    if invitation_open(row) != 1 - seat:
        return None
    return f"/join/{row.id}?i={row.invite}"


def ai_due(row: GameRow, state: State) -> bool:
    """Whether the AI of ``row`` is to move in ``state``."""
    return row.ai_seat is not None and state.to_move == row.ai_seat


def undo_point(game: LiveGame, seat: int) -> int | None:
    """How many moves to keep to take back ``seat``'s last move and the AI's replies (or None).

    Undo stops at the start of the current round: a scored round's cards have been revealed.
    A timed game has none (its clock cannot be taken back), nor a rated one.
    """
    row = game.row
    if row.mode != "ai" or row.control is not None or row.rated:
        return None
    if seat != game.human_seat() or game.state.is_over:
        return None
    history = game.state.history
    for ply in range(len(history) - 1, -1, -1):
        if history[ply].round != game.state.round:
            return None
        if history[ply].seat == seat:
            return ply
    return None


SCORING_GRACE_MS = 10_000
"""After a round's last move, the next round's first clock starts this much later: both players
watch the round's scoring (about 10 s, step by step) and nobody's time runs meanwhile."""


def charge_clock(
    clock: Clock | None, seat: int, entries: list[str], state: State, now: int, round_before: int
) -> Clock | None:
    """The clock after ``seat``'s ``entries`` (leading to ``state``) at ``now``: each decision
    charged and given its increment; a resignation stops it. A clock not started yet (a
    rematch waiting for its second player) charges nothing. A move that ends a round starts
    the next decision's clock after :data:`SCORING_GRACE_MS` (the clock charges nothing for a
    time before its start). A decision made within such a grace, before its clock started (the
    AI's, while the scoring is shown or the pages come back after a restart), hands the rest of
    the grace on: the next clock starts when it ends, not at once."""
    if clock is None or clock.turn is None:
        return clock
    if any(e.startswith((RESIGN, FORFEIT)) for e in entries):  # (a bot's engine that failed)
        return clock.stop(now)
    after = clock.decision(seat, now, None if state.is_over else state.to_move)
    if after.since is not None and clock.since is not None and clock.since > now:
        after = replace(after, since=clock.since)
    if not state.is_over and state.round != round_before and after.since is not None:
        after = replace(after, since=after.since + SCORING_GRACE_MS)
    return after


def rated_end(row: GameRow, result: dict[str, Any] | None, now: int) -> RatedEnd | None:
    """What the store rates when ``row`` ends with ``result``: a rated, timed game between two
    players, or a person and an AI level at its fixed rating (None otherwise: casual, untimed,
    unfinished, or a seat without a player)."""
    family = family_of(row.control)
    if result is None or not row.rated or family is None:
        return None
    players = list(row.players)
    fixed: list[Rating | None] = [None, None]
    if row.ai_seat is not None:
        level = row.level or DEFAULT_LEVEL
        players[row.ai_seat] = ai_player(level)
        fixed[row.ai_seat] = AI_RATINGS[level]
    for seat, player in enumerate(players):  # a house bot (an AI level in the lobby): anchored
        house = player[len(AI_PLAYER) :] if player and player.startswith(AI_PLAYER) else ""
        if house in AI_RATINGS:
            fixed[seat] = AI_RATINGS[house]
    first, second = players
    if not first or not second:
        return None
    return RatedEnd((first, second), family, score_of(result, 0), now, (fixed[0], fixed[1]))


def apply_entries(game: LiveGame, seat: int, entries: list[str]) -> State:
    state = game.state
    if state.is_over:
        raise WebError("over", "the game is over")
    for text in entries:
        if text.startswith((RESIGN, FORFEIT)):
            state = concede(state, text, game.row.control)
            continue
        if state.to_move != seat:
            raise WebError("not-your-turn", "it is not your turn: wait for your opponent's move")
        move = Move.parse(text)
        if move not in state.legal_moves:
            legal = " ".join(str(m) for m in state.legal_moves)
            what = "a pick from the offer" if state.phase is Phase.PICK else "an action"
            raise WebError("illegal", f"{text} is not legal now ({what}); legal: {legal}")
        try:
            state = state.apply(move)
        except IllegalMoveError as e:  # pragma: no cover - legal_moves said it was legal
            raise WebError("illegal", str(e)) from None
    return state
