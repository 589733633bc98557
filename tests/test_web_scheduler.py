"""The AI's work queue: moves before hints, fair between clients, one job per key, bounded."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor, process
from pathlib import Path
from typing import Any, cast

import pytest

from hanamikoji.web.scheduler import AiScheduler, Busy

order: list[str] = []
gate = threading.Event()
calls: list[tuple[str, float]] = []


def blocker(name: str, scale: float = 1.0) -> str:
    """Hold the worker until the test opens the gate."""
    gate.wait(10)
    order.append(name)
    return name


def job(name: str, scale: float = 1.0) -> str:
    order.append(name)
    calls.append((name, scale))
    return name


def review(name: str) -> str:
    order.append(name)
    return name


@pytest.fixture
async def scheduler() -> AsyncIterator[AiScheduler]:
    order.clear()
    calls.clear()
    gate.clear()
    ai = AiScheduler(0, limits={"move": 20, "hint": 3, "review": 2})
    yield ai
    gate.set()
    await ai.close()


async def _queued(ai: AiScheduler, kind: str, name: str, client: str = "") -> asyncio.Task[Any]:
    task = asyncio.create_task(ai.run(kind, name, job, name, client=client))
    await asyncio.sleep(0)
    return task


async def test_moves_go_before_hints(scheduler: AiScheduler) -> None:
    held = asyncio.create_task(scheduler.run("move", "held", blocker, "held"))
    await asyncio.sleep(0.05)
    tasks = [
        await _queued(scheduler, "hint", "hint-1"),
        await _queued(scheduler, "move", "move-1"),
        await _queued(scheduler, "hint", "hint-2"),
        await _queued(scheduler, "move", "move-2"),
    ]
    gate.set()
    await asyncio.gather(held, *tasks)
    assert order == ["held", "move-1", "move-2", "hint-1", "hint-2"]


async def test_a_client_with_many_jobs_does_not_go_before_another(scheduler: AiScheduler) -> None:
    held = asyncio.create_task(scheduler.run("move", "held", blocker, "held"))
    await asyncio.sleep(0.05)
    flood = [await _queued(scheduler, "move", f"a{i}", client="A") for i in range(6)]
    other = await _queued(scheduler, "move", "b0", client="B")
    gate.set()
    await asyncio.gather(held, other, *flood)
    assert order.index("b0") <= 2  # behind at most one of A's, not all six


async def test_the_same_key_is_searched_once(scheduler: AiScheduler) -> None:
    held = asyncio.create_task(scheduler.run("move", "held", blocker, "held"))
    await asyncio.sleep(0.05)
    twins = [await _queued(scheduler, "hint", "same") for _ in range(5)]
    assert scheduler.waiting("hint") == 1
    gate.set()
    assert await asyncio.gather(*twins) == ["same"] * 5
    await held
    assert order.count("same") == 1


async def test_a_full_queue_is_busy_at_once(scheduler: AiScheduler) -> None:
    held = asyncio.create_task(scheduler.run("move", "held", blocker, "held"))
    await asyncio.sleep(0.05)
    waiting = [await _queued(scheduler, "hint", f"h{i}") for i in range(3)]
    with pytest.raises(Busy, match="busy"):
        await scheduler.run("hint", "one too many", job, "x")
    gate.set()
    await asyncio.gather(held, *waiting)
    assert await scheduler.run("hint", "room again", job, "room again") == "room again"


async def test_reviews_have_a_worker_of_their_own(scheduler: AiScheduler) -> None:
    held = asyncio.create_task(scheduler.run("move", "held", blocker, "held"))
    await asyncio.sleep(0.05)
    done = await asyncio.wait_for(scheduler.run("review", "r", review, "r"), 5)
    assert done == "r" and order == ["r"]  # while every move worker is busy
    gate.set()
    await held


async def test_the_search_shrinks_behind_a_long_queue(scheduler: AiScheduler) -> None:
    assert await scheduler.run("move", "first", job, "first", cost="master") == "first"
    assert calls[-1][1] == 1.0  # an empty queue: the whole budget
    scheduler._cost["master"] = 0.5  # a full search takes half a second
    held = asyncio.create_task(scheduler.run("move", "held", blocker, "held"))
    await asyncio.sleep(0.05)
    tasks = [
        asyncio.create_task(scheduler.run("move", f"m{i}", job, f"m{i}", cost="master"))
        for i in range(10)
    ]
    await asyncio.sleep(0.05)
    gate.set()
    await asyncio.gather(held, *tasks)
    scales = [scale for name, scale in calls if name.startswith("m")]
    assert scales[0] < 0.5  # ten waiting behind it: a share of the budget
    assert all(scheduler.min_scale <= s <= 1.0 for s in scales)
    assert scales[-1] > scales[0]  # the queue drained: more for the last


async def test_a_move_is_never_refused_however_long_the_queue(scheduler: AiScheduler) -> None:
    held = asyncio.create_task(scheduler.run("move", "held", blocker, "held"))
    await asyncio.sleep(0.05)
    moves = [await _queued(scheduler, "move", f"m{i}") for i in range(30)]  # limit 20
    assert scheduler.waiting("move") == 30
    assert scheduler.crowded(30) and not scheduler.crowded(19)
    gate.set()
    assert len(await asyncio.gather(held, *moves)) == 31


def pid(scale: float = 1.0) -> int:
    return os.getpid()


def die(scale: float = 1.0) -> int:
    os._exit(3)  # a worker killed mid-search (out of memory, by hand)


async def test_a_killed_worker_is_replaced() -> None:
    ai = AiScheduler(1)
    try:
        first = await ai.run("move", "a", pid)
        with pytest.raises(BrokenExecutor):
            await ai.run("move", "b", die)  # tried twice: on the pool it broke and on a new one
        after = await ai.run("move", "c", pid)
        assert after != first  # the game after it still gets its move, from a new worker
    finally:
        await ai.close()


def sleeper(seconds: float, scale: float = 1.0) -> int:
    """A search that takes ``seconds`` (a worker busy when the server stops)."""
    time.sleep(seconds)
    return os.getpid()


def running(pid: int) -> bool:
    """Whether process ``pid`` is still running (not gone, not a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
async def test_closing_ends_a_busy_worker_at_once() -> None:
    """The server's exit (SIGTERM) closes the scheduler: a worker in the middle of a long job
    is ended, not waited for (the interpreter joins a pool's running jobs at exit), and no new
    worker is started for the job it held."""
    ai = AiScheduler(1)
    try:
        worker = await ai.run("move", "pid", pid)
        busy = asyncio.create_task(ai.run("move", "long", sleeper, 60.0))
        await asyncio.sleep(0.5)
        assert not busy.done() and running(worker)
    finally:
        await ai.close()
    deadline = time.monotonic() + 10
    while running(worker) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not running(worker), "the busy worker outlived the scheduler's close"
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(busy, 10)
    await asyncio.sleep(0.5)
    assert ai._running == {"play": 0, "review": 0}


async def test_closing_shuts_the_pools_down_before_the_interpreter_exits() -> None:
    """The close waits for each process pool's own thread to end: one still closing at the
    interpreter's exit races the exit hook of ``concurrent.futures``, which then writes to the
    pool's closed wake-up pipe ("Exception ignored ... Bad file descriptor" at a SIGTERM)."""
    ai = AiScheduler(1)
    try:
        await ai.run("move", "pid", pid)
        busy = asyncio.create_task(ai.run("move", "long", sleeper, 60.0))
        await asyncio.sleep(0.2)
        pools = [p for p in ai._pools.values() if isinstance(p, ProcessPoolExecutor)]
        # Each pool's own thread (typeshed has it as a _ThreadWakeup); None until its first job.
        threads = [cast("threading.Thread", t) for p in pools if (t := p._executor_manager_thread)]
        assert threads
    finally:
        await ai.close()
    assert not any(t.is_alive() for t in threads)
    # What the exit hook would wake: nothing of these pools, or only pipes already closed.
    wakeups = [process._threads_wakeups.get(t) for t in threads]
    assert all(w is None or w._closed for w in wakeups)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(busy, 10)
