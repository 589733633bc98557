"""The suite's watchdog (tests/watchdog.py): a test whose event loop waits for ever fails after
the limit, showing what each task waited on, and the tests after it still run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HUNG = """
import asyncio

async def waits_for_ever() -> None:
    await asyncio.get_running_loop().create_future()

async def test_hangs() -> None:
    await waits_for_ever()

def test_after() -> None:
    assert True
"""


def test_a_hung_async_test_fails_with_its_tasks_stacks(tmp_path: Path) -> None:
    (tmp_path / "test_hung.py").write_text(HUNG)
    env = {
        **os.environ,
        "HANAMIKOJI_TEST_HANG_S": "2",
        "PYTHONPATH": str(Path(__file__).parent),
    }
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "watchdog",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_mode=auto",
            "-rA",
            str(tmp_path / "test_hung.py"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "test_hangs hung for 2 s" in out, out
    assert "test_hung.py:5 in waits_for_ever" in out, out  # where the task waited, inside
