"""``hanamikoji serve`` as a process, at its start and at its stop: a port that is taken is one
line of error and leaves no new database behind (one that was there stays as it was); a SIGTERM
ends the server with status 0 and nothing said at the interpreter's exit (the AI's process pools
are shut down and waited for, so their exit hook has nothing left to do)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from hanamikoji.web.store import open_store
from web_support import SERVE, Server, sqlite_url


def _serve_on_taken_port(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``hanamikoji serve ARGS`` on a port another socket listens on: (status, stderr)."""
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        done = subprocess.run(
            [*SERVE, "--port", str(port), *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=env,
        )
    said = f"hanamikoji serve: cannot listen on 127.0.0.1:{port}: "
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(said), done.stderr
    return done.returncode, done.stderr


def test_a_taken_port_makes_no_database_file(tmp_path: Path) -> None:
    status, _ = _serve_on_taken_port("--db", sqlite_url(tmp_path / "games.sqlite3"))
    assert status == 1
    assert list(tmp_path.iterdir()) == []


def test_a_taken_port_makes_no_default_database_nor_its_folder(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    status, _ = _serve_on_taken_port(env=env)
    assert status == 1
    assert not (tmp_path / "data").exists()


def test_a_taken_port_leaves_a_database_that_was_there(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"

    async def make() -> None:
        store = await open_store(sqlite_url(path))
        await store.close()

    asyncio.run(make())
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    status, _ = _serve_on_taken_port("--db", sqlite_url(path))
    assert status == 1
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_sigterm_ends_the_server_cleanly(tmp_path: Path) -> None:
    server = Server(sqlite_url(tmp_path / "games.sqlite3"), args=["--ai-workers", "1"])
    server.start()
    try:
        assert server.proc is not None
        deadline = time.monotonic() + 30
        while len(server.children()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # the AI's workers (moves, reviews) are started
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(30) == 0
    finally:
        server.stop()
    log = server.log.read_text()
    assert "Exception ignored" not in log and "Traceback" not in log, log
