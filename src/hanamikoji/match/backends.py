"""Where pairs are played: in this process, in worker processes, or on Ray (:mod:`~.ray`)."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.pool
import multiprocessing.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sized
from typing import Any

from hanamikoji import processes
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
        if _SENDING["depth"]:  # sending a result: it stops as the send ends (_SendLock)
            _SENDING["stop"] = True
            return
        _stop_now()

    # The parent's handler (SIGTERM as Ctrl-C) came with the fork and must not run here.
    signal.signal(signal.SIGTERM, stop)
    # A process group of its own: a signal to the match's group (a terminal's Ctrl-C, `timeout`'s
    # SIGTERM) reaches the parent alone, which stops the pool in order. A worker killed by it
    # while waiting for work held the pool's task lock, and terminating the pool then waited
    # for that lock for ever.
    if hasattr(os, "setpgid"):
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
    _exit_with_parent()
    # The pool was started with these held (in_pool): from here on they do what is set above.
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
    multiprocessing.util.Finalize(None, close, exitpriority=10)


_STOPS = {signal.SIGINT, signal.SIGTERM}

_SENDING = {"depth": 0, "stop": False}
"""In a worker's main thread (where Python runs signal handlers): whether it is sending on a
pool's queue (:class:`_SendLock`), and whether a SIGTERM came meanwhile."""


def _stop_now() -> None:
    """A worker's SIGTERM: its engines killed, then out at once."""
    try:
        kill_all_engines()
    finally:
        os._exit(0)


PARENT_POLL_S = 0.25
"""How often a worker that cannot ask the kernel to be told of its parent's death looks."""
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _exit_with_parent() -> None:
    """Make this worker stop, its engines killed, as soon as the process that started the pool
    dies: killed (SIGKILL, the OOM killer), the parent cannot stop its pool, and its workers
    played their pairs on, keeping engines and cores busy for nobody. On Linux the kernel sends
    SIGTERM (the handler set in :func:`worker_started`); elsewhere a thread watches."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.pid is None:
        return  # not a pool's worker (a test running the initializer): nobody to outlive
    if not _parent_death_signal(signal.SIGTERM):
        watch = threading.Thread(
            target=_watch_parent, args=(parent.pid,), name="parent-watch", daemon=True
        )
        watch.start()
    if os.getppid() != parent.pid:  # it died before the watch began: no engine started yet
        os._exit(0)


def _parent_death_signal(signum: int) -> bool:
    """Ask Linux to send ``signum`` when the parent dies; whether it agreed.

    (The kernel sends it when the thread that forked us ends: the pool's workers are forked by
    the thread that drives the pool, or by the pool's own thread, which both outlive the work.)
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    except (OSError, AttributeError):  # no libc to ask, or no prctl in it
        return False


def _watch_parent(parent: int) -> None:
    """Poll until ``parent`` is no longer this process's parent, then stop as SIGTERM would."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    try:
        kill_all_engines()
    finally:
        os._exit(0)


@contextlib.contextmanager
def _stops_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back while the pool's workers are forked (they come after):
    raised inside the fork's own bookkeeping, the interrupt was lost ("Exception ignored"),
    logging's lock stayed taken, and the pool hung, new workers waiting on it for ever. The
    workers start with them held too, and take them once their own handlers are set."""
    if not hasattr(signal, "pthread_sigmask"):  # (not POSIX: nothing to hold)
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


class _SendLock:
    """A queue's write lock under which a worker's SIGTERM waits: a worker stopped while it
    holds the lock (sending its result as the pool is terminated) would leave it held for ever.
    The stop comes as the lock is released. (Blocking the signal in the sending thread was not
    enough: a worker's engine threads took it, and Python ran the handler in the main thread
    all the same, in the middle of the send.)"""

    def __init__(self, lock: Any) -> None:
        self._lock = lock

    def __enter__(self) -> bool:
        main = threading.current_thread() is threading.main_thread()
        if main:
            _SENDING["depth"] += 1  # before the lock is taken: a stop from here on waits
        try:
            return bool(self._lock.__enter__())
        except BaseException:
            if main:
                self._left()
            raise

    def __exit__(self, *exc: object) -> None:
        try:
            self._lock.__exit__(*exc)
        finally:
            if threading.current_thread() is threading.main_thread():
                self._left()

    @staticmethod
    def _left() -> None:
        _SENDING["depth"] -= 1
        if not _SENDING["depth"] and _SENDING["stop"]:
            _stop_now()


def sends_whole(queue: Any) -> Any:
    """``queue`` (a multiprocessing ``SimpleQueue``), its writers made unable to die in the
    middle of a send (:class:`_SendLock`)."""
    if queue._wlock is not None:
        queue._wlock = _SendLock(queue._wlock)
    return queue


class _Pool(multiprocessing.pool.Pool):
    """The standard pool, its results' queue made by :func:`sends_whole`. Its workers all
    send their results under one write lock; one terminated in the middle of a send died
    holding it, and the pool's own last write (its task thread's sentinel, after the workers
    are stopped) waited for it for ever: a parallel match's Ctrl-C then took the whole kill
    deadline instead of a blink (about one stop in sixteen under load)."""

    def _setup_queues(self) -> None:
        super()._setup_queues()  # type: ignore[misc]
        sends_whole(self._outqueue)  # type: ignore[attr-defined]


AHEAD_PER_JOB = 2
"""Items handed to the pool ahead of the results taken, per worker: the rest are drawn only as
results come back, so a match of billions of games is never planned in memory."""


def in_pool(
    jobs: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    work: Callable[[Any], Any],
    items: Iterable[Any],
    count: int | None = None,
) -> Generator[Any, None, None]:
    """``work(item)`` for each item in ``jobs`` worker processes (no more than ``count``, the
    items' number, or their ``len``), as each finishes; the items are drawn lazily, a few ahead
    of the results. The pool is closed when all are done, terminated when the caller stops
    early, its workers stopped when it is stopped while they are being started."""
    if count is None:
        count = len(items) if isinstance(items, Sized) else jobs
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    pool = None
    finished = False
    workers = max(1, min(jobs, count))
    slots = threading.Semaphore(AHEAD_PER_JOB * workers)
    stop = threading.Event()

    def fed() -> Iterator[Any]:
        # Drawn by the pool's task thread: it waits here for a free slot, and gives up once
        # the caller has stopped (terminating the pool waits for that thread).
        for item in items:
            while not slots.acquire(timeout=0.1):
                if stop.is_set():
                    return
            if stop.is_set():
                return
            yield item

    try:
        with _stops_held():  # an interrupt waiting is raised as this ends, the pool made
            pool = _Pool(workers, initializer=initializer, initargs=initargs, context=ctx)
        for result in pool.imap_unordered(work, fed()):
            slots.release()
            yield result
        finished = True
    except RuntimeError as e:
        # Ctrl-C landing inside the results' Condition.wait can leave its lock released, and
        # leaving the wait then raises "release unlocked lock" in the interrupt's place.
        if isinstance(e.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise
    finally:
        stop.set()
        if pool is not None:
            if finished:
                pool.close()
                pool.join()
            else:
                _terminate(pool)


STOP_GRACE_S = 5.0
"""How long the workers have to stop (their engines with them) before they are killed."""


def _terminate(pool: Any) -> None:
    """``pool.terminate()``, which SIGTERMs the workers and waits for each, with a deadline. A
    worker forked while another thread of ours held a lock of the standard streams can hang on
    it for ever, never running its SIGTERM handler (rare, seen when the pool was stopped as it
    started): past the deadline, each worker left is killed, with what is in its group."""
    done = threading.Event()

    def stop() -> None:
        pool.terminate()
        pool.join()
        done.set()

    threading.Thread(target=stop, name="pool-stop", daemon=True).start()
    if done.wait(STOP_GRACE_S):
        return
    for child in multiprocessing.active_children():
        if child.pid is not None:
            with contextlib.suppress(OSError):
                os.killpg(child.pid, signal.SIGKILL)  # its own group (worker_started)
        child.kill()
    # Their engines are in sessions of their own: found by their tags, which workers share.
    processes.stop([], prefix=processes.OWNER)
    done.wait(STOP_GRACE_S)


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
