"""One game and one duplicate pair of games: the same deals, the seats swapped."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hanamikoji.engine import EngineError
from hanamikoji.match.config import MatchConfig
from hanamikoji.match.players import SIDES, Player, make_player
from hanamikoji.state import State, Termination

__all__ = ["GameResult", "PairResult", "play_game", "play_pair", "players_of"]


@dataclass(frozen=True)
class GameResult:
    """One game of a pair: who sat where, who won and why, and its record."""

    number: int
    seat_of_a: int
    winner: str | None
    reason: str
    why: str | None
    forfeit: str | None
    record: dict[str, Any]
    restarts: tuple[tuple[str, str], ...] = ()
    """(side, what happened) for each engine found dead before this game and restarted for it."""


@dataclass(frozen=True)
class PairResult:
    """Both games of one pair and A's points in it (0 to 2)."""

    index: int
    games: tuple[GameResult, GameResult]

    @property
    def points_a(self) -> float:
        """A's points over the two games."""
        return sum(1.0 if g.winner == "A" else 0.5 if g.winner is None else 0.0 for g in self.games)


def _seed(config: MatchConfig, *parts: object) -> int:
    return random.Random(":".join(str(p) for p in (config.seed, *parts))).getrandbits(63)


def play_game(
    players: tuple[Player, Player],
    state: State,
    clock_ms: int,
    seeds: tuple[int, int],
) -> State:
    """Play one game from ``state`` to its end; a failing player forfeits."""
    rules = state.rules
    for seat in (0, 1):
        try:
            players[seat].start(seat, rules, players[1 - seat].label, seeds[seat])
        except EngineError as e:
            state = state.concede(seat, Termination.FORFEIT, f"seat {seat}: {e.kind}: {e}")
            outcome = state.outcome
            assert outcome is not None
            # A player told that the game started (seat 0, when seat 1 cannot start) is told
            # how it ended, as after any game: never two ``game`` messages without a ``result``.
            for started in range(seat):
                players[started].finish(state.view(started), outcome)
            return state
    while state.to_move is not None:
        seat = state.to_move
        try:
            move = players[seat].act(state.view(seat), state.legal_moves, clock_ms)
        except EngineError as e:
            state = state.concede(seat, Termination.FORFEIT, f"seat {seat}: {e.kind}: {e}")
            break
        state = state.apply(move)
    outcome = state.outcome
    assert outcome is not None
    for seat in (0, 1):
        players[seat].finish(state.view(seat), outcome)
    return state


def play_pair(players: dict[str, Player], config: MatchConfig, index: int) -> PairResult:
    """Pair ``index``: the same deals twice, A in seat 0 then in seat 1."""
    deal_seed = _seed(config, "deal", index)
    results = []
    for game, seat_of_a in ((0, 0), (1, 1)):
        seated = (players["A"], players["B"]) if seat_of_a == 0 else (players["B"], players["A"])
        start = State.new(random.Random(deal_seed), rules=config.rules)
        seeds = (_seed(config, "agent", index, game, 0), _seed(config, "agent", index, game, 1))
        final = play_game(seated, start, config.clock_ms, seeds)
        outcome = final.outcome
        assert outcome is not None
        side_of = {seat_of_a: "A", 1 - seat_of_a: "B"}
        restarts = tuple((side, note) for side in SIDES for note in _take_notes(players[side]))
        forfeit = None
        if outcome.reason is Termination.FORFEIT and outcome.winner is not None:
            forfeit = side_of[1 - outcome.winner]
        results.append(
            GameResult(
                number=index * 2 + game + 1,
                seat_of_a=seat_of_a,
                winner=None if outcome.winner is None else side_of[outcome.winner],
                reason=outcome.reason.value,
                why=outcome.why,
                forfeit=forfeit,
                record=final.record((seated[0].label, seated[1].label)).to_json(),
                restarts=restarts,
            )
        )
    return PairResult(index, (results[0], results[1]))


def _take_notes(player: Player) -> list[str]:
    """What ``player`` noted during the last game (engines only), cleared."""
    notes: list[str] | None = getattr(player, "notes", None)
    if not notes:
        return []
    taken = list(notes)
    notes.clear()
    return taken


def players_of(config: MatchConfig) -> dict[str, Player]:
    """The match's two players, made from their specs."""
    return {
        "A": make_player(config.a, hard_limit_ms=config.hard_limit_ms),
        "B": make_player(config.b, hard_limit_ms=config.hard_limit_ms),
    }
