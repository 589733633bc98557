"""The "first run: compiling" notice shows when numba really compiles, never for a slow load.

The mechanism is tried on a tiny numba function (a full cold compile of the search takes
minutes): a fresh numba cache compiles and says so once; the same cache again loads and is
silent, as is a warm preparation however long it takes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import hanamikoji.ai.prepare as prepare_module
from hanamikoji.ai import parse_agent
from hanamikoji.ai.base import Agent
from hanamikoji.ai.prepare import NOTICE, prepare

TINY = """
from numba import njit


@njit(cache=True)
def double(x):
    return 2 * x


@njit(cache=True)
def triple(x):
    return 3 * x
"""

RUN = """
import sys
sys.path.insert(0, sys.argv[1])
from hanamikoji.ai.prepare import _notice
import tiny

with _notice(lambda text: print("said:", text)):
    assert tiny.double(2) + tiny.triple(2) == 10
print("done")
"""


def _run(tmp_path: Path, cache: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout


def test_the_notice_shows_when_numba_compiles_and_not_when_it_loads_its_cache(
    tmp_path: Path,
) -> None:
    (tmp_path / "tiny.py").write_text(textwrap.dedent(TINY))
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache)
    assert first == f"said: {NOTICE}\ndone\n"  # two functions compiled, one notice
    assert any(cache.rglob("*.nbi"))  # numba kept what it compiled
    assert _run(tmp_path, cache) == "done\n"


def test_a_slow_preparation_from_the_cache_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine's slow load is no first run: no notice, however long it takes."""
    real = prepare_module._rehearse

    def slow_rehearse(agent: Agent) -> None:
        real(agent)  # the kernels are in the cache by now (the test suite prepared them)
        time.sleep(0.3)

    monkeypatch.setattr(prepare_module, "_rehearse", slow_rehearse)
    # The old notice was a timer: its threshold made short stands for a slow machine.
    monkeypatch.setattr(prepare_module, "SAY_AFTER", 0.01, raising=False)
    prepare(parse_agent("level:hard"))  # loads (or, in a fresh checkout, compiles) silently
    said: list[str] = []
    assert prepare(parse_agent("level:hard"), said.append)
    assert said == []
