"""``hanamikoji play --record FILE``: the record is written whole or not at all, and a file that
exists (a game saved before) is not overwritten unless ``--force`` says so."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from hanamikoji.cli import main
from hanamikoji.play import play_game
from hanamikoji.record import Record

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file limits and modes")


def run(answers: str, record: Path, *, force: bool = False) -> tuple[int, str]:
    """Play in-process with ``answers`` as standard input; the exit status and the output."""
    out = io.StringIO()
    status = play_game(
        opponent="random",
        seed=3,
        seat=0,
        record=record,
        force=force,
        input=io.StringIO(answers),
        console=Console(file=out, force_terminal=False, width=120),
    )
    return status, out.getvalue()


def play_limited(args: list[str], limit: int) -> subprocess.CompletedProcess[str]:
    """``hanamikoji play ARGS``, answering ``q``, where no file may grow past ``limit`` bytes (as
    on a disk that fills up while the record is written)."""

    def limit_files() -> None:
        import resource
        import signal

        # SIG_IGN: a write past the limit fails with EFBIG instead of killing the process
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [sys.executable, "-m", "hanamikoji.cli", "play", "--opponent", "random"]
    return subprocess.run(
        [*command, "--seat", "0", "--seed", "3", *args],
        input="q\n",
        env={**os.environ, "COLUMNS": "100", "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=limit_files,
    )


# -- written whole or not at all ------------------------------------------------------------------


@POSIX
def test_a_record_that_fails_partway_leaves_no_half_record(tmp_path: Path) -> None:
    """The record was written in place: a disk that filled up partway left the first bytes of
    the record, a file that no reader takes. The probe's few bytes fit; the record does not."""
    path = tmp_path / "game.json"
    done = play_limited(["--record", str(path)], limit=100)
    assert done.returncode == 1, done.stderr
    assert "cannot write the record to" in done.stderr and "File too large" in done.stderr
    assert list(tmp_path.iterdir()) == []  # no half record, no temporary file


@POSIX
def test_a_record_that_fails_partway_leaves_the_old_record_whole(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    run("q\n", path)
    before = path.read_bytes()
    assert len(before) > 100
    done = play_limited(["--record", str(path), "--force"], limit=100)
    assert done.returncode == 1, done.stderr
    assert "File too large" in done.stderr
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]


def test_a_write_stopped_by_a_signal_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the record is flushed: the game ends (130) with the old record in place,
    saying it was not saved."""
    path = tmp_path / "game.json"
    path.write_text("an older game")
    real = os.fsync
    calls = []

    def stopped(fd: int) -> None:
        calls.append(fd)
        if len(calls) > 1:  # the probe's flush passes; the record's is interrupted
            raise KeyboardInterrupt
        real(fd)

    monkeypatch.setattr(os, "fsync", stopped)
    assert run("", path, force=True)[0] == 130
    assert path.read_text() == "an older game"
    assert list(tmp_path.iterdir()) == [path]


@POSIX
def test_an_overwritten_record_keeps_its_permissions_and_its_link(tmp_path: Path) -> None:
    """The temporary file takes the place of the record: it takes its mode too, and a symbolic
    link to the record stays a link."""
    kept = tmp_path / "kept.json"
    kept.write_text("old")
    kept.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(kept)
    assert run("q\n", link, force=True)[0] == 0
    assert link.is_symlink() and Record.read(kept).result is None
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    # a new record gets the mode any new file gets (0o666 less the umask), not 0o600
    new = tmp_path / "new.json"
    assert run("q\n", new)[0] == 0
    plain = tmp_path / "plain"
    plain.write_text("")
    assert stat.S_IMODE(new.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_a_device_is_written_directly(tmp_path: Path) -> None:
    """``--record /dev/null`` exists but is no saved game: not refused, and not replaced."""
    if not Path("/dev/null").exists():
        pytest.skip("no /dev/null here")
    status, out = run("q\n", Path("/dev/null"))
    assert status == 0 and "saved to /dev/null" in out
    assert Path("/dev/null").is_char_device()


# -- an existing record ------------------------------------------------------------------------


def test_an_existing_record_is_refused_before_the_game(tmp_path: Path) -> None:
    """``--record game.json`` replaced the game saved there yesterday without a word."""
    path = tmp_path / "game.json"
    path.write_text("yesterday's game")
    status, out = run("1\nq\n", path)
    assert status == 2
    said = " ".join(out.split())  # the console may wrap a long line
    assert f"the record file {path} already exists: give --force to overwrite it" in said
    assert "Your move" not in out
    assert path.read_text() == "yesterday's game"


def test_force_overwrites_an_existing_record(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("yesterday's game")
    status, out = run("1\nq\n", path, force=True)
    assert status == 0 and "saved to" in out
    assert len(Record.read(path).rounds[0].moves) >= 1


def test_the_command_refuses_an_existing_record_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    path.write_text("yesterday's game")
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    args = ["play", "--opponent", "random", "--seed", "3", "--record", str(path)]
    assert main(args) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "already exists: give --force to overwrite it, or another --record FILE" in err
    assert path.read_text() == "yesterday's game"
    assert main([*args, "--force"]) == 0
    Record.read(path)
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    assert "--force" in capsys.readouterr().out
