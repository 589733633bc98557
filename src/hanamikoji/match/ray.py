"""Match pairs on a Ray cluster (the ``ray`` extra): ``hanamikoji match ... --backend ray``.

Ray is joined at ``RAY_ADDRESS`` when that is set, or started locally for the run. Each of the
``jobs`` actors keeps its own players (and engine processes) from pair to pair, exactly as the
local worker processes do, so a seed gives the same games on either backend.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from hanamikoji.match.config import MatchConfig
from hanamikoji.match.games import PairResult, play_pair, players_of
from hanamikoji.match.players import MatchError, Player

__all__ = ["PairRunner", "ray_map", "ray_pairs"]


class PairRunner:
    """Plays pairs with players that live as long as the runner."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.players: dict[str, Player] = players_of(config)

    def play(self, index: int) -> PairResult:
        """Play pair ``index``."""
        return play_pair(self.players, self.config, index)

    def close(self) -> None:
        """Stop the players' processes."""
        for p in self.players.values():
            p.close()


def ray_pairs(config: MatchConfig) -> Iterator[PairResult]:
    """Every pair of the match, played on Ray, as each finishes."""
    return ray_map(PairRunner, (config,), config.jobs, range(config.pairs), config.pairs)


def ray_map(
    actor: type, args: tuple[Any, ...], jobs: int, items: Iterable[Any], count: int
) -> Iterator[Any]:
    """``play(item)`` for each of the ``count`` items on up to ``jobs`` Ray actors
    ``actor(*args)``, as each finishes (the items drawn one at a time, as actors come free);
    each actor keeps its players from item to item and is closed at the end."""
    try:
        import ray
    except ImportError:
        raise MatchError(
            "the ray backend needs Ray: pip install '.[ray]' in the project's folder "
            "(or use --backend local)"
        ) from None
    started = False
    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS") or None
        with _sigterm_kept():
            ray.init(
                address=address,
                num_cpus=None if address else jobs,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
        started = True
    remote: Any = ray.remote(num_cpus=1)(actor)
    actors: list[Any] = [remote.remote(*args) for _ in range(max(1, min(jobs, count)))]
    pending: dict[Any, Any] = {}
    queue = iter(items)

    def feed(actor: Any) -> None:
        item = next(queue, None)
        if item is not None:
            pending[actor.play.remote(item)] = actor

    try:
        for each in actors:
            feed(each)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            owner = pending.pop(done[0])
            result = ray.get(done[0])
            feed(owner)
            yield result
    finally:
        for each in actors:
            # an actor that is already gone has nothing left to close
            with contextlib.suppress(Exception):
                ray.get(each.close.remote(), timeout=5)
            ray.kill(each)
        if started:
            ray.shutdown()


@contextlib.contextmanager
def _sigterm_kept() -> Iterator[None]:
    """Keep this process's SIGTERM handler across ``ray.init``, which replaces it twice: in
    Python (exit at once) and in its C++ core (a stack dump, then abort). Either way a SIGTERM
    ended the match with no result printed and Ray's helpers left running; with the match's own
    handler back, SIGTERM stops it as Ctrl-C does (its actors closed, Ray shut down)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # (signal handlers belong to the main thread; Ray leaves them alone there too)
        return
    handler = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if handler is not None:  # (None: set outside Python, nothing of ours to put back)
            signal.signal(signal.SIGTERM, handler)
