"""``hanamikoji engine master`` on a fresh install: no numba cache anywhere, a 50 ms clock.

The package is copied, without any ``__pycache__``, into a temporary folder that the engine
imports it from (what installing a wheel leaves), with the user's cache folder empty too. The
engine compiles its kernels before it answers ``hello``, so it must forfeit no game: nothing is
timed here but the referee's own hard limit; the test counts forfeits. A read-only package folder
(the cache then goes to the user's cache folder) is tried too; run as root (CI), the engine is
started without the capability to override file permissions, so that read-only binds it.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
import sys
from pathlib import Path

import pytest

import hanamikoji
from hanamikoji.ai import make_agent
from hanamikoji.engine import Engine, EngineError
from hanamikoji.state import State

CLOCK_MS = 50
GAMES = 2
HANDSHAKE_S = 600.0  # hello may take a first run's compilation; the test times nothing itself


def _fresh_install(root: Path, *, read_only: bool) -> Path:
    """A copy of the package in ``root``/site without compiled files; returns that folder."""
    site = root / "site"
    source = Path(hanamikoji.__file__).resolve().parent
    shutil.copytree(source, site / "hanamikoji", ignore=shutil.ignore_patterns("__pycache__"))
    if read_only:
        for path in [site, *site.rglob("*")]:
            mode = path.stat().st_mode
            path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return site


SETPRIV = shutil.which("setpriv")
BOUND = [SETPRIV or "setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
"""Root, less the power to write where permissions forbid it (util-linux's setpriv)."""


def _play(
    engine_seat: int, seed: int, engine: Engine | None, bound: bool = False
) -> tuple[Engine | None, str | None]:
    """One game, the engine against random; the engine (None once stopped) and any forfeit."""
    command = [
        *(BOUND if bound else []),
        sys.executable,
        "-m",
        "hanamikoji.cli",
        "engine",
        "master",
    ]
    if engine is None:  # started (or restarted after a failure) as the match runner does
        engine = Engine.popen(command, handshake_timeout=HANDSHAKE_S)
    rng = random.Random(seed)
    opponent = make_agent("random")
    state = State.new(random.Random(seed))
    engine.new_game(engine_seat, state.rules, "random")
    while state.to_move is not None:
        seat = state.to_move
        if seat != engine_seat:
            state = state.apply(opponent.choose(state.view(seat), state.legal_moves, rng))
            continue
        try:
            answer = engine.act(state.view(seat), state.legal_moves, clock_ms=CLOCK_MS)
        except EngineError as e:  # a forfeit: the engine is stopped, the game lost
            engine.close()
            return None, f"game {seed}: {e.kind}: {e}"
        state = state.apply(answer.move)
    outcome = state.outcome
    assert outcome is not None
    engine.result(state.view(engine_seat), outcome.winner, outcome.reason.value)
    return engine, None


@pytest.mark.slow
@pytest.mark.parametrize("read_only", [False, True], ids=["writable", "read-only"])
def test_master_on_a_fresh_install_forfeits_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_only: bool
) -> None:
    bound = read_only and os.geteuid() == 0
    assert not bound or SETPRIV is not None, "setpriv (util-linux) is needed to run this as root"
    site = _fresh_install(tmp_path, read_only=read_only)
    cache = tmp_path / "cache"
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    forfeits: list[str] = []
    engine: Engine | None = None
    try:
        for game in range(GAMES):
            engine, forfeit = _play(game % 2, seed=game, engine=engine, bound=bound)
            if forfeit is not None:
                forfeits.append(forfeit)
        if engine is not None:
            engine.quit()
    finally:
        if engine is not None:
            engine.close()
        if read_only:  # so that pytest can remove the folder
            for path in [site, *site.rglob("*")]:
                path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert forfeits == [], forfeits
    # The compiled kernels were kept: beside the package, or in the user's cache when it is
    # read-only.
    in_tree = list(site.rglob("__pycache__/*.nbi"))
    user_wide = list(cache.rglob("*.nbi"))
    if read_only:
        assert in_tree == [] and user_wide
    else:
        assert in_tree and user_wide == []
