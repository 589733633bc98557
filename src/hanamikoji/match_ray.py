"""Match pairs on a Ray cluster (the ``ray`` extra): ``hanamikoji match ... --backend ray``.

Ray is joined at ``RAY_ADDRESS`` when that is set, or started locally for the run. Each of the
``jobs`` actors keeps its own players (and engine processes) from pair to pair, exactly as the
local worker processes do, so a seed gives the same games on either backend.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from hanamikoji.match import MatchConfig, MatchError, PairResult, Player, _players, play_pair

__all__ = ["PairRunner", "ray_pairs"]


class PairRunner:
    """Plays pairs with players that live as long as the runner."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.players: dict[str, Player] = _players(config)

    def play(self, index: int) -> PairResult:
        """Play pair ``index``."""
        return play_pair(self.players, self.config, index)

    def close(self) -> None:
        """Stop the players' processes."""
        for p in self.players.values():
            p.close()


def ray_pairs(config: MatchConfig) -> Iterator[PairResult]:
    """Every pair of the match, played on Ray, as each finishes."""
    try:
        import ray
    except ImportError:
        raise MatchError(
            "the ray backend needs Ray: pip install 'hanamikoji[ray]' (or use --backend local)"
        ) from None
    started = False
    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS") or None
        ray.init(
            address=address,
            num_cpus=None if address else config.jobs,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
        started = True
    runner: Any = ray.remote(num_cpus=1)(PairRunner)
    actors: list[Any] = [runner.remote(config) for _ in range(min(config.jobs, config.pairs))]
    pending: dict[Any, Any] = {}
    queue = iter(range(config.pairs))

    def feed(actor: Any) -> None:
        index = next(queue, None)
        if index is not None:
            pending[actor.play.remote(index)] = actor

    try:
        for actor in actors:
            feed(actor)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            actor = pending.pop(done[0])
            result: PairResult = ray.get(done[0])
            feed(actor)
            yield result
    finally:
        for actor in actors:
            # an actor that is already gone has nothing left to close
            with contextlib.suppress(Exception):
                ray.get(actor.close.remote(), timeout=5)
            ray.kill(actor)
        if started:
            ray.shutdown()
