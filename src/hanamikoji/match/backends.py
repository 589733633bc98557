"""Where pairs are played: in this process, in worker processes, or on Ray (:mod:`~.ray`)."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from hanamikoji.engine import kill_all_engines
from hanamikoji.match.config import MatchConfig
from hanamikoji.match.games import PairResult, play_pair, players_of

__all__ = ["in_pool", "play_pairs", "worker_started"]


def play_pairs(config: MatchConfig) -> Iterator[PairResult]:
    """Every pair of the match, as each finishes, on the configured backend."""
    if config.backend == "ray":
        from hanamikoji.match.ray import ray_pairs

        return ray_pairs(config)
    if config.jobs == 1:
        return _serial(config)
    return _parallel(config)


def _serial(config: MatchConfig) -> Iterator[PairResult]:
    players = players_of(config)
    try:
        for index in range(config.pairs):
            yield play_pair(players, config, index)
    finally:
        for p in players.values():
            p.close()


# Worker processes keep their players (and so their engine processes) from pair to pair.
_WORKER: dict[str, Any] = {}


def worker_started(close: Callable[[], None]) -> None:
    """Set up a pool worker that plays engines: the parent decides when to stop (SIGINT is
    ignored); SIGTERM (the pool terminated) kills its engines at once; ending normally (the pool
    closed) calls ``close``, so that an engine that ignores ``quit`` never outlives the run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def stop(signum: int, frame: object) -> None:
        # No I/O here: the signal may land in the middle of a write to an engine.
        try:
            kill_all_engines()
        finally:
            os._exit(0)

    # The parent's handler (SIGTERM as Ctrl-C) came with the fork and must not run here.
    signal.signal(signal.SIGTERM, stop)
    multiprocessing.util.Finalize(None, close, exitpriority=10)


def in_pool(
    jobs: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    work: Callable[[Any], Any],
    items: Iterable[Any],
) -> Iterator[Any]:
    """``work(item)`` for each item in ``jobs`` worker processes (no more than there are items),
    as each finishes; the pool is closed when all are done, terminated when the caller stops
    early, its workers stopped when it is stopped while they are being started."""
    items = list(items)
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    try:
        pool = ctx.Pool(max(1, min(jobs, len(items))), initializer=initializer, initargs=initargs)
    except BaseException:
        # Ctrl-C or SIGTERM while the workers start: the pool cleans up after an Exception only,
        # and the workers already started would outlive the run.
        for child in multiprocessing.active_children():
            child.terminate()
        for child in multiprocessing.active_children():
            child.join()
        raise
    finished = False
    try:
        yield from pool.imap_unordered(work, items)
        finished = True
    except RuntimeError as e:
        # Ctrl-C landing inside the results' Condition.wait can leave its lock released, and
        # leaving the wait then raises "release unlocked lock" in the interrupt's place.
        if isinstance(e.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()


def _init_worker(config: MatchConfig) -> None:
    worker_started(_close_worker_players)
    _WORKER["config"] = config
    _WORKER["players"] = players_of(config)


def _close_worker_players() -> None:
    for player in _WORKER.get("players", {}).values():
        with contextlib.suppress(Exception):
            player.close()


def _worker_pair(index: int) -> PairResult:
    return play_pair(_WORKER["players"], _WORKER["config"], index)


def _parallel(config: MatchConfig) -> Iterator[PairResult]:
    return in_pool(config.jobs, _init_worker, (config,), _worker_pair, range(config.pairs))
