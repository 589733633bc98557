"""Stopping background tasks within a bound, so that a server always finishes closing.

A server's close cancels its background tasks (the database listeners' pumps, the bots' links,
the clock's ticker) and waits for them to end before it releases what they use: a pump still
waiting on a connection that is closed under it leaves a stale registration in the event loop
for a file descriptor the system may hand out again. Waiting without a bound is no better: on
Python 3.11 ``asyncio.wait_for`` can swallow a cancellation that arrives as its inner wait
finishes, and a loop around it then runs on, so a plain ``await task`` after ``cancel()`` can
wait for ever. :func:`stop_tasks` cancels, waits up to a bound, cancels again whatever is still
running (the second cancellation lands on the task's next wait), and finally logs, with their
stacks, the tasks that would not stop, so that a server's stop always ends and says why it was
slow.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterable
from typing import Any

__all__ = ["STOP_S", "stop_tasks"]

log = logging.getLogger(__name__)

STOP_S = 5.0
"""How long a close waits for its cancelled tasks, twice over, before it goes on without them."""


async def stop_tasks(
    tasks: Iterable[asyncio.Future[Any]],
    what: str,
    timeout: float = STOP_S,
) -> bool:
    """Cancel ``tasks`` and wait for them to end, at most ``timeout`` seconds, then once more
    after cancelling again those still running; whether all ended (those that did not are
    logged, with ``what`` and their stacks). The current task is never waited for."""
    current = asyncio.current_task()
    pending = {t for t in tasks if t is not current}
    for attempt in range(2):
        for task in pending:
            task.cancel()
        done, pending = await asyncio.wait(pending, timeout=timeout) if pending else (set(), set())
        for task in done:  # their errors are the close's to ignore, not the loop's to report
            if not task.cancelled():
                task.exception()
        if not pending:
            return True
        if attempt == 0:
            log.warning("%s: %d task(s) still running after a cancel", what, len(pending))
    for task in pending:
        stack = io.StringIO()
        if isinstance(task, asyncio.Task):
            task.print_stack(file=stack)
        log.error(
            "%s: a task did not stop within %.0f s: %r\n%s",
            what,
            2 * timeout,
            task,
            stack.getvalue(),
        )
    return False
