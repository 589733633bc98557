"""The match runner: two players, games in duplicate pairs, Elo with error bars, SPRT.

Each pair plays the same deals twice with the seats swapped, so most of the luck of the deal
cancels inside the pair. Pairs run in parallel (local processes or a Ray cluster) and every game
is reproducible from the match seed. A player that crashes, hangs, or cheats loses that game by
forfeit and is restarted for the next.

>>> summary = run_match(MatchConfig("greedy", "random", games=4, seed=1))
>>> summary.games, sum(summary.wins) + summary.draws
(4, 4)

Its parts: :mod:`~.players` (agents and engines), :mod:`~.config`, :mod:`~.games` (a game, a
pair), :mod:`~.summary` (W/D/L, Elo, SPRT), :mod:`~.runner` (:func:`run_match`), :mod:`~.backends`
(processes) and :mod:`~.ray` (a Ray cluster).
"""

from hanamikoji.match.backends import in_pool, play_pairs, worker_started
from hanamikoji.match.config import MatchConfig
from hanamikoji.match.games import GameResult, PairResult, play_game, play_pair, players_of
from hanamikoji.match.players import AgentPlayer, EnginePlayer, MatchError, Player, make_player
from hanamikoji.match.runner import RecordsError, Terminated, run_match
from hanamikoji.match.summary import MatchSummary

__all__ = [
    "AgentPlayer",
    "EnginePlayer",
    "GameResult",
    "MatchConfig",
    "MatchError",
    "MatchSummary",
    "PairResult",
    "Player",
    "RecordsError",
    "Terminated",
    "in_pool",
    "make_player",
    "play_game",
    "play_pair",
    "play_pairs",
    "players_of",
    "run_match",
    "worker_started",
]
