"""The AI's work queue: fair, bounded, moves first, so that no visitor can stall the others.

Every AI job of the web app (a move, a hint, a game review) goes through one :class:`AiScheduler`.
It hands jobs to worker processes one at a time per worker, so the queue is its own to order:

- **moves before hints, hints before reviews** (reviews have a worker of their own as well);
- **fair between clients**: within a kind, each client's jobs take turns with everyone else's
  (start-time fair queuing), so a visitor with a hundred games waits behind their own games, not
  in front of another visitor's one;
- **one job per key**: asking again for a hint that is being searched gets the same answer;
- **bounded**: hints and reviews have a queue limit, past which :class:`Busy` is raised at once;
  a game's own move is never refused (the game would stall): the moves are bounded by refusing
  new games against the searching levels while many moves wait (:meth:`AiScheduler.crowded`);
- **thinking shrinks under load**: a move or hint dispatched behind a long queue searches a share
  of its level's iterations (``scale``), so that a reply comes within about ``target`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from hanamikoji.web import ai_worker
from hanamikoji.web.stopping import STOP_S

__all__ = ["KINDS", "AiScheduler", "Busy"]

KINDS = ("move", "hint", "review")
"""Job kinds, most urgent first."""

log = logging.getLogger(__name__)

_NICE = {"play": 5, "review": 15}  # workers yield the CPU to the server's own event loop


class Busy(Exception):
    """The queue for a kind of job is full: the caller should say so and not wait."""


@dataclass(order=True)
class _Job:
    tag: float
    seq: int
    kind: str = field(compare=False)
    key: Any = field(compare=False)
    client: str = field(compare=False)
    cost: str = field(compare=False)  # what the scale estimate is kept for (a level, "hint")
    fn: Callable[..., Any] = field(compare=False)
    args: tuple[Any, ...] = field(compare=False)
    future: asyncio.Future[Any] = field(compare=False)
    queued: float = field(compare=False, default=0.0)
    retried: bool = field(compare=False, default=False)


@dataclass
class _Queue:
    """The waiting jobs of one kind, and the fair-queuing clock."""

    limit: int
    heap: list[_Job] = field(default_factory=list)
    clock: float = 0.0  # the tag of the job dispatched last
    last: dict[str, float] = field(default_factory=dict)  # each client's latest tag


class AiScheduler:
    """Runs AI jobs on ``workers`` processes (a thread when 0, for tests), fairly and boundedly.

    ``limits`` caps the waiting jobs of each kind; ``target`` is the reply time (seconds) the
    move and hint budgets shrink towards when the queue is long.
    """

    def __init__(
        self,
        workers: int,
        *,
        limits: dict[str, int] | None = None,
        target: float = 1.0,
        min_scale: float = 0.02,
    ) -> None:
        self.workers = max(1, workers)
        self.target = target
        self.min_scale = min_scale
        given = limits or {}
        self._queues = {
            "move": _Queue(given.get("move", 64 * self.workers)),
            "hint": _Queue(given.get("hint", 4 * self.workers)),
            "review": _Queue(given.get("review", 16)),
        }
        self._processes = {"play": workers, "review": 1 if workers > 0 else 0}
        self._pools = {name: _pool(n, _NICE[name]) for name, n in self._processes.items()}
        self._slots = {"play": self.workers, "review": 1}
        self._running: dict[str, int] = {"play": 0, "review": 0}
        self._pending: dict[Any, asyncio.Future[Any]] = {}
        self._seq = itertools.count()
        self._cost: dict[str, float] = {}  # seconds a job of full budget takes, by cost key
        self.done = 0
        self._closed = False

    # -- what callers use ---------------------------------------------------------------------

    def waiting(self, kind: str) -> int:
        """How many jobs of ``kind`` wait for a worker."""
        return len(self._queues[kind].heap)

    def limit(self, kind: str) -> int:
        """How many jobs of ``kind`` may wait."""
        return self._queues[kind].limit

    def crowded(self, moves_due: int) -> bool:
        """Whether ``moves_due`` (the AI moves the server owes, queued or about to be) are so
        many that a new game against a searching level should be refused."""
        return moves_due >= self._queues["move"].limit

    def pending(self, key: Any) -> bool:
        """Whether a job with ``key`` is waiting or running."""
        return key in self._pending

    async def run(
        self,
        kind: str,
        key: Any,
        fn: Callable[..., Any],
        *args: Any,
        client: str = "",
        cost: str = "",
    ) -> Any:
        """Run ``fn(*args, scale=...)`` (moves and hints) or ``fn(*args)`` (reviews) in a worker.

        A job whose ``key`` is already waiting or running is not queued again: the caller gets
        the running one's result. Raises :class:`Busy` when ``kind``'s queue is full.
        """
        existing = self._pending.get(key)
        if existing is not None:
            return await asyncio.shield(existing)
        queue = self._queues[kind]
        if kind != "move" and len(queue.heap) >= queue.limit:
            raise Busy(f"the server is busy: {len(queue.heap)} {kind} jobs are waiting")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        tag = max(queue.clock, queue.last.get(client, 0.0)) + 1.0
        queue.last[client] = tag
        job = _Job(tag, next(self._seq), kind, key, client, cost or kind, fn, args, future)
        job.queued = time.monotonic()
        heapq.heappush(queue.heap, job)
        self._pending[key] = future
        future.add_done_callback(lambda _: self._pending.pop(key, None))
        self._dispatch()
        return await asyncio.shield(future)

    async def close(self, timeout: float = STOP_S) -> None:
        """Stop: waiting jobs are cancelled, running ones end with their workers, and each
        process pool is shut down and waited for (at most ``timeout`` seconds)."""
        self._closed = True
        for queue in self._queues.values():
            for job in queue.heap:
                job.future.cancel()
            queue.heap.clear()
        for pool in self._pools.values():
            if not isinstance(pool, ProcessPoolExecutor):
                # A thread (tests) cannot be ended: its job is not waited for.
                pool.shutdown(wait=False, cancel_futures=True)
                continue
            _end(list((getattr(pool, "_processes", None) or {}).values()))
            # Waited for: a pool's thread still closing at the interpreter's exit races its
            # exit hook, which then writes to the pool's closed wake-up pipe ("Exception
            # ignored ... Bad file descriptor" at a SIGTERM). With the workers ended, it is quick.
            shut = asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
            try:
                await asyncio.wait_for(shut, timeout)
            except TimeoutError:
                log.warning("an AI worker pool did not shut down within %.0f s", timeout)

    def warm_up(self) -> None:
        """Start the workers now (they load the search's compiled kernels)."""
        for pool in self._pools.values():
            pool.submit(ai_worker.warm_up)

    # -- inside -------------------------------------------------------------------------------

    def _replace(self, pool: str) -> None:
        """A new pool in place of a broken one."""
        old = self._pools[pool]
        if isinstance(old, ProcessPoolExecutor) and not getattr(old, "_broken", False):
            return  # already replaced by an earlier job of the same pool
        old.shutdown(wait=False, cancel_futures=True)
        self._pools[pool] = _pool(self._processes[pool], _NICE[pool])

    def _dispatch(self) -> None:
        for pool in ("play", "review"):
            kinds = ("move", "hint") if pool == "play" else ("review",)
            while self._running[pool] < self._slots[pool]:
                job = self._next(kinds)
                if job is None:
                    break
                self._start(pool, job)

    def _next(self, kinds: tuple[str, ...]) -> _Job | None:
        for kind in kinds:
            queue = self._queues[kind]
            while queue.heap:
                job = heapq.heappop(queue.heap)
                queue.clock = max(queue.clock, job.tag)
                if not job.future.cancelled():
                    return job
        return None

    def _scale(self, job: _Job) -> float:
        """The share of its budget a move or hint searches, from the queue behind it."""
        full = self._cost.get(job.cost)
        if full is None or full <= 0:
            return 1.0
        behind = sum(len(self._queues[k].heap) for k in ("move", "hint")) + self._running["play"]
        waited = time.monotonic() - job.queued
        left = max(self.target - waited, self.target / 4)
        share = left * self.workers / ((behind + 1) * full)
        return max(self.min_scale, min(1.0, share))

    def _start(self, pool: str, job: _Job) -> None:
        self._running[pool] += 1
        loop = asyncio.get_running_loop()
        scale = self._scale(job) if pool == "play" else 1.0
        started = time.monotonic()
        if pool == "play":
            inner = loop.run_in_executor(self._pools[pool], _call, job.fn, job.args, scale)
        else:
            inner = loop.run_in_executor(self._pools[pool], job.fn, *job.args)

        def finished(f: asyncio.Future[Any]) -> None:
            self._running[pool] -= 1
            self.done += 1
            if self._closed:  # stopped: its worker was ended, and nothing is started again
                if not f.cancelled():
                    f.exception()  # the ended worker's error is the close's, not the loop's to log
                if not job.future.done():
                    job.future.cancel()
                return
            if not f.cancelled() and isinstance(f.exception(), BrokenExecutor):
                # A worker died (killed, out of memory): the pool is unusable, so it is
                # replaced, and the job tried once more on the new one.
                self._replace(pool)
                if not job.retried:
                    job.retried = True
                    heapq.heappush(self._queues[job.kind].heap, job)
                    self._dispatch()
                    return
            if pool == "play" and not f.cancelled() and f.exception() is None:
                seconds = (time.monotonic() - started) / scale
                old = self._cost.get(job.cost)
                self._cost[job.cost] = seconds if old is None else 0.8 * old + 0.2 * seconds
            if not job.future.done():
                if f.cancelled():
                    job.future.cancel()
                elif f.exception() is not None:
                    job.future.set_exception(f.exception())  # type: ignore[arg-type]
                else:
                    job.future.set_result(f.result())
            self._dispatch()

        inner.add_done_callback(finished)


def _call(fn: Callable[..., Any], args: tuple[Any, ...], scale: float) -> Any:
    """Run in a worker: ``fn(*args, scale=scale)``."""
    return fn(*args, scale=scale)


def _end(workers: list[Any]) -> None:
    """End a process pool's workers now. The interpreter waits at exit for a pool's running jobs,
    so a search or a worker's warm-up still running would hold the server's exit (on SIGTERM)
    until it was done; a job's result is worth nothing once the server stops. (The pool's
    processes are private until Python 3.14's ``terminate_workers``.)"""
    for process in workers:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.terminate()


def _pool(processes: int, nice: int) -> Executor:
    """Worker processes for the AI (a thread when ``processes`` is 0, for tests)."""
    if processes <= 0:
        return ThreadPoolExecutor(max_workers=1)
    return ProcessPoolExecutor(
        max_workers=processes,
        mp_context=get_context("spawn"),
        initializer=ai_worker.start,
        initargs=(os.getpid(), nice),
    )
