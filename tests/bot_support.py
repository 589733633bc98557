"""The bots' tests' shared parts: an account and its bot (the token), a bridge in this process
or as ``hanamikoji bot`` in another, and a server whose AI levels play as house bots."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from hanamikoji.bot import Bridge, Channel, PlayerEngine, WebSocketChannel, bot_url, serve_bot
from hanamikoji.match.players import make_player
from lobby_support import Browser, Server, call

PASSWORD = "correct horse 7"
ENGINES = Path(__file__).resolve().parent / "engines"


async def signed_up(browser: Browser, username: str) -> None:
    await call(
        browser, "POST", "/api/account", 201, json={"username": username, "password": PASSWORD}
    )


async def new_bot(browser: Browser, username: str, **accepts: Any) -> str:
    """A bot of the signed-in ``browser``; its token."""
    body: dict[str, Any] = {"username": username}
    if accepts:
        body["accepts"] = accepts
    made = await call(browser, "POST", "/api/bots", 201, json=body)
    token: str = made["token"]
    return token


class Bridged:
    """A bridge running in this process: what it said, and how many games it finished."""

    def __init__(self, bridge: Bridge, task: asyncio.Task[int]) -> None:
        self.bridge = bridge
        self.task = task
        self.lines: list[str] = []


@asynccontextmanager
async def bridge(server: Server, token: str, spec: str = "random") -> AsyncIterator[Bridged]:
    """``spec`` behind a bridge connected to ``server`` as the bot of ``token`` (welcomed)."""
    lines: list[str] = []
    welcomed = asyncio.Event()

    def say(line: str) -> None:
        lines.append(line)
        if line.startswith("connected as"):
            welcomed.set()

    def engines() -> PlayerEngine:
        return PlayerEngine(make_player(spec))

    async def connect() -> Channel:
        return await WebSocketChannel.connect(bot_url(server.base))

    b = Bridge(engines, say)
    task = asyncio.create_task(serve_bot(connect, token, b, engine=spec, retry=False))
    held = Bridged(b, task)
    held.lines = lines
    try:
        waiting = asyncio.create_task(welcomed.wait())
        await asyncio.wait([waiting, task], timeout=10, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        assert welcomed.is_set(), lines
        yield held
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await asyncio.sleep(0.05)  # the server sees the socket close


class BotProcess:
    """``hanamikoji bot`` running: the process, and once it ended, what it said on stderr."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.said = ""

    def poll(self) -> int | None:
        return self.proc.poll()

    def wait(self, timeout: float) -> int:
        code = self.proc.wait(timeout)
        self._read()
        return code

    def _read(self) -> None:
        if self.proc.stderr is not None and not self.proc.stderr.closed:
            self.said += self.proc.stderr.read()
            self.proc.stderr.close()


@contextmanager
def bot_process(base: str, token: str, engine: str) -> Iterator[BotProcess]:
    """``hanamikoji bot`` in a process of its own (its stderr read once it ends)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "hanamikoji.cli", "bot", "--server", base, "--token", token, engine],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    held = BotProcess(proc)
    try:
        yield held
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        held._read()
