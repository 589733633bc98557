"""A server's close always ends: its background tasks are cancelled, waited for within a bound,
cancelled again if a cancellation was swallowed, and named in the log if they still run; the
database's listeners end before their connections close (PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import pytest

from hanamikoji.web import stopping
from hanamikoji.web.stopping import stop_tasks
from hanamikoji.web.store import PostgresStore, open_store
from web_support import POSTGRES, postgres_database

needs_postgres = pytest.mark.skipif(POSTGRES is None, reason="HANAMIKOJI_TEST_POSTGRES is not set")


async def swallows_one_cancel(entered: asyncio.Event) -> None:
    """What ``asyncio.wait_for`` can do on Python 3.11: a cancellation lost as the wait ends."""
    entered.set()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(60)
    await asyncio.sleep(60)


async def never_stops(entered: asyncio.Event, released: asyncio.Event) -> None:
    """Takes no cancellation until ``released``."""
    entered.set()
    while True:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            if released.is_set():
                raise


async def fails() -> None:
    raise RuntimeError("boom")


async def test_a_swallowed_cancel_is_repeated() -> None:
    entered = asyncio.Event()
    task = asyncio.create_task(swallows_one_cancel(entered))
    await entered.wait()
    started = time.monotonic()
    assert await stop_tasks([task], "test", timeout=0.2)
    assert task.cancelled()
    assert time.monotonic() - started < 5


async def test_a_task_that_never_stops_is_named_and_left(caplog: pytest.LogCaptureFixture) -> None:
    entered, released = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(never_stops(entered, released))
    await entered.wait()
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger=stopping.__name__):
        assert not await stop_tasks([task], "the test's workers", timeout=0.2)
    assert time.monotonic() - started < 5
    assert not task.done()
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert "the test's workers" in errors[0] and "never_stops" in errors[0]  # its stack
    released.set()
    assert await stop_tasks([task], "test")


async def test_ended_failed_and_current_tasks_are_fine() -> None:
    failed = asyncio.create_task(fails())
    await asyncio.sleep(0)
    # The current task is skipped (a close run by a task it would cancel); errors are taken.
    current = asyncio.current_task()
    assert current is not None
    assert await stop_tasks([failed, current], "test")
    assert failed.done() and not current.cancelled()
    assert await stop_tasks([], "nothing")


@needs_postgres
async def test_the_chat_listener_stops_though_its_callback_swallowed_the_cancel() -> None:
    """The chat's pump, cancelled while its callback swallows the cancellation, went back to
    waiting for notifications: the listener's stop (a server's close) waited for ever."""
    with postgres_database() as url:
        listening = await open_store(url)
        other = await open_store(url)
        entered = asyncio.Event()

        async def heard(item: str) -> None:
            await swallows_one_cancel(entered)

        try:
            stop = await listening.listen_chat(heard)
            assert isinstance(other, PostgresStore)
            await other._announce_chat("line1")
            await asyncio.wait_for(entered.wait(), 10)
            started = time.monotonic()
            # (measured: the old stop swallowed even wait_for's own cancellation)
            await asyncio.wait_for(stop(), 30)
            assert time.monotonic() - started < 20
        finally:
            await other.close()
            await listening.close()


@needs_postgres
async def test_the_listener_ends_before_its_connection_closes() -> None:
    """The games' pump is waited for (cancelled, twice if need be) before its connection
    closes under it, even in the middle of a presence callback."""
    with postgres_database() as url:
        listening = await open_store(url)
        other = await open_store(url)
        entered = asyncio.Event()
        assert isinstance(listening, PostgresStore)

        async def nothing(item: str) -> None:
            return None

        async def presence(origin: str, text: str) -> None:
            await swallows_one_cancel(entered)

        try:
            await listening.listen(nothing, presence=presence)
            pump = listening._listen_task
            assert pump is not None
            await other.announce_presence("+gAme1.0")
            await asyncio.wait_for(entered.wait(), 10)
            started = time.monotonic()
            await asyncio.wait_for(listening.close(), 30)
            assert pump.done()
            assert time.monotonic() - started < 20
        finally:
            await other.close()
            await listening.close()
