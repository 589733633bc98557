"""Files that ``match --records DIR`` and ``tournament --state FILE`` write are written whole,
by the helper ``play --record`` uses too: a write that fails partway leaves no half file, and
a file replaced keeps its mode and its symbolic link."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hanamikoji.tournament import TournamentConfig, load_state, save_state

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file limits, modes and links")


def limit_files(limit: int) -> None:
    """In the child: no file may grow past ``limit`` bytes (a disk that fills up)."""
    import resource
    import signal

    # SIG_IGN: a write past the limit fails with EFBIG instead of killing the process
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@POSIX
def test_a_game_record_that_fails_partway_leaves_no_half_record(tmp_path: Path) -> None:
    """Each game's record was written in place: a disk that filled up left the first 500
    bytes of ``game-00001.json``, which no reader takes, and an "internal error"."""
    folder = tmp_path / "records"
    command = [sys.executable, "-m", "hanamikoji.cli", "match", "random", "random"]
    done = subprocess.run(
        [*command, "--games", "2", "--records", str(folder)],
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: limit_files(500),
    )
    assert list(folder.iterdir()) == []  # no half record, no temporary file
    assert done.returncode == 2, done.stderr
    record = folder / "game-00001.json"
    assert f"hanamikoji match: cannot write the game record {record}: File too large" in (
        done.stderr
    )
    assert "internal error" not in done.stderr


@POSIX
def test_a_saved_tournament_state_keeps_its_mode_and_its_link(tmp_path: Path) -> None:
    """The state file was replaced by a file of the usual mode, and a symbolic link to it by
    a plain file, as ``play --record`` no longer does."""
    kept = tmp_path / "kept.json"
    link = tmp_path / "state.json"
    config = TournamentConfig(("random", "greedy"), games_per_pair=2, state=link)
    kept.write_text("")
    kept.chmod(0o640)
    link.symlink_to(kept)
    save_state(config, [], {"random": "x"})
    assert link.is_symlink()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert load_state(config) == ([], {"random": "x"})
    assert sorted(tmp_path.iterdir()) == [kept, link]  # no temporary file
