"""A test that hangs fails after ``HANG_S`` with a diagnosis, instead of stalling the suite.

pytest's ``faulthandler_timeout`` (pyproject.toml) prints every thread's stack when a test runs
too long, which shows a blocked thread but not an event loop waiting for ever on a future: the
main thread merely sits in ``select``. This plugin, at the same moment, asks the event loop
running in the main thread (if any) to print each of its tasks' stacks and cancel them all, so
the hung test fails where it waited and its report shows what every task was waiting on.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
import threading
from collections.abc import Iterator

import pytest

HANG_S = float(os.environ.get("HANAMIKOJI_TEST_HANG_S", "600"))
"""No test comes near this; the slowest take about a minute on a loaded machine."""


def _main_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in the main thread, found on its stack (it is thread-local)."""
    ident = threading.main_thread().ident
    frame = sys._current_frames().get(ident) if ident is not None else None
    while frame is not None:
        owner = frame.f_locals.get("self")
        if isinstance(owner, asyncio.AbstractEventLoop) and owner.is_running():
            return owner
        frame = frame.f_back
    return None


def _cancel_everything(nodeid: str) -> None:
    """In the loop's thread: the tasks' stacks to stderr (the test's report shows it), then
    every task cancelled."""
    out = io.StringIO()
    tasks = asyncio.all_tasks()
    out.write(f"\n{nodeid} hung for {HANG_S:.0f} s; its {len(tasks)} tasks:\n")
    for task in tasks:
        out.write(f"--- {task!r}\n")
        out.writelines(f"  {line}\n" for line in _awaiting(task))
    sys.stderr.write(out.getvalue())
    for task in tasks:
        task.cancel()


def _awaiting(task: asyncio.Task[object]) -> list[str]:
    """Where ``task`` waits: each coroutine down the chain it awaits, innermost last (a task's
    own stack shows only its outermost coroutine)."""
    lines = []
    step: object = task.get_coro()
    while step is not None:
        frame = next(
            (getattr(step, a) for a in ("cr_frame", "gi_frame", "ag_frame") if hasattr(step, a)),
            None,
        )
        if frame is not None:
            code = frame.f_code
            lines.append(f"{code.co_filename}:{frame.f_lineno} in {code.co_name}")
        step = next(
            (
                getattr(step, a)
                for a in ("cr_await", "gi_yieldfrom", "ag_await")
                if hasattr(step, a)
            ),
            None,
        )
    return lines


def _hung(nodeid: str) -> None:
    loop = _main_loop()
    if loop is not None:
        loop.call_soon_threadsafe(_cancel_everything, nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    timer = threading.Timer(HANG_S, _hung, args=(item.nodeid,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
