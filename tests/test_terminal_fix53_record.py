"""``hanamikoji play --record FILE`` at the end of the game: a file made there during the game is
not replaced without ``--force`` (the record goes beside it), and SIGTERM while the record is
written leaves no temporary file behind."""

from __future__ import annotations

import errno
import io
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from rich.console import Console

from hanamikoji.files import write_whole
from hanamikoji.play import play_game
from hanamikoji.record import Record

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


class _Meanwhile(io.StringIO):
    """Standard input that makes ``made`` (holding "someone else's") when the game reads its
    first answer: a file created by another program while the game is played."""

    def __init__(self, answers: str, made: Path) -> None:
        super().__init__(answers)
        self.made = made

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]
        if not self.made.exists():
            self.made.write_text("someone else's")
        return super().readline(size)


def run(stream: io.StringIO, record: Path, *, force: bool = False) -> tuple[int, str]:
    """Play in-process reading ``stream``; the exit status and everything said."""
    out = io.StringIO()
    status = play_game(
        opponent="random",
        seed=3,
        seat=0,
        record=record,
        force=force,
        input=stream,
        console=Console(file=out, force_terminal=False, width=200),
    )
    return status, out.getvalue()


# -- a file made during the game ---------------------------------------------------------------


def test_a_file_made_during_the_game_is_kept_and_the_record_goes_beside_it(
    tmp_path: Path,
) -> None:
    """The check before the game found no file; one made during it was replaced at the end."""
    path = tmp_path / "game.json"
    status, out = run(_Meanwhile("1\nq\n", path), path)
    assert path.read_text() == "someone else's"
    beside = tmp_path / "game-2.json"
    assert len(Record.read(beside).rounds[0].moves) >= 1
    assert status == 1
    said = " ".join(out.split())
    assert (
        f"the record file {path} was created by another program during the game, and is left "
        f"as it is: the record of the unfinished game was saved to {beside} instead"
    ) in said
    assert set(tmp_path.iterdir()) == {path, beside}  # no temporary file


def test_the_record_takes_the_first_free_name(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    (tmp_path / "game-2.json").write_text("taken")
    status, _ = run(_Meanwhile("q\n", path), path)
    assert status == 1
    assert (tmp_path / "game-2.json").read_text() == "taken"
    Record.read(tmp_path / "game-3.json")


def test_force_still_replaces_a_file_made_during_the_game(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    status, out = run(_Meanwhile("q\n", path), path, force=True)
    assert status == 0 and "saved to" in out
    Record.read(path)
    assert set(tmp_path.iterdir()) == {path}


def test_without_hard_links_the_file_made_meanwhile_is_kept_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the file system has no hard links (FAT), the name is taken by an exclusive create."""

    def no_links(src: object, dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "game.json"
    status, _ = run(_Meanwhile("q\n", path), path)
    assert status == 1 and path.read_text() == "someone else's"
    Record.read(tmp_path / "game-2.json")
    fresh = tmp_path / "fresh.json"
    status, _ = run(io.StringIO("q\n"), fresh)
    assert status == 0
    Record.read(fresh)
    assert set(tmp_path.iterdir()) == {path, tmp_path / "game-2.json", fresh}


def test_write_whole_without_replace_refuses_a_file_there(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    write_whole(path, "one", replace=False)
    with pytest.raises(FileExistsError):
        write_whole(path, "two", replace=False)
    assert path.read_text() == "one"
    write_whole(path, "three")
    assert path.read_text() == "three"
    assert list(tmp_path.iterdir()) == [path]


# -- SIGTERM while the record is written -------------------------------------------------------

SLOW_SAVE = textwrap.dedent(
    """\
    # `hanamikoji play` whose record's flush waits: the probe's flush (the first) passes, the
    # record's (the second) says so in READY and sleeps, for the test to send its signal then.
    import os
    import sys
    import time
    from pathlib import Path

    ready = Path(sys.argv[1])
    real = os.fsync
    calls = []


    def slow(fd):
        real(fd)
        calls.append(fd)
        if len(calls) == 2:
            ready.write_text("saving")
            time.sleep(120)


    os.fsync = slow
    from hanamikoji.cli import main

    sys.exit(main(sys.argv[2:]))
    """
)


@POSIX
def test_sigterm_while_the_record_is_written_leaves_no_temporary_file(tmp_path: Path) -> None:
    """SIGTERM during the final save ended the process at once: a hidden ``.game.json.*.tmp``
    stayed beside the record."""
    script = tmp_path / "slow_save.py"
    script.write_text(SLOW_SAVE)
    ready = tmp_path / "ready"
    folder = tmp_path / "records"
    folder.mkdir()
    path = folder / "game.json"
    args = ["play", "--opponent", "random", "--seat", "0", "--seed", "3", "--record", str(path)]
    answers = tmp_path / "answers"
    answers.write_text("1\nq\n")
    with answers.open() as stdin:
        process = subprocess.Popen(
            [sys.executable, str(script), str(ready), *args],
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "COLUMNS": "200", "PYTHONIOENCODING": "utf-8"},
            text=True,
        )
    try:
        deadline = time.monotonic() + 90
        while not ready.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the record was never written"
            time.sleep(0.05)
        # the record's temporary file is there, flushed: the save is under way
        assert [p.name.endswith(".tmp") for p in folder.iterdir()] == [True]
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert list(folder.iterdir()) == []
    assert process.returncode == 128 + signal.SIGTERM, err
    said = " ".join(err.split())
    assert (
        "stopped by SIGTERM while the record was written: the record of the unfinished game "
        f"was not saved, and {path} is as it was"
    ) in said
    assert "Traceback" not in err
