"""``play --record FILE``: Ctrl-C while the record is written says that the record was not
saved and where it would have gone, and leaves no half or temporary file."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from rich.console import Console

import hanamikoji.files as files
from hanamikoji.play import EXIT_INTERRUPTED, play_game


def run(answers: str, record: Path, *, force: bool = False) -> tuple[int, str]:
    """Play in-process (the human in seat 0, seed 3); the exit status and all the output."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=400)
    status = play_game(
        opponent="random",
        seed=3,
        seat=0,
        record=record,
        force=force,
        input=io.StringIO(answers),
        console=console,
    )
    return status, out.getvalue()


def interrupt(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt


def test_ctrl_c_while_a_new_record_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the last step of a new record: the whole temporary file, written, takes the record's name
    monkeypatch.setattr(files, "_link_new", interrupt)
    path = tmp_path / "g.json"
    status, out = run("q\n", path)
    assert status == EXIT_INTERRUPTED
    assert (
        "interrupted while the record was written: the record of the unfinished game was not "
        f"saved to {path}, which is as it was" in out
    )
    assert "saved to" not in out.replace(f"not saved to {path}", "")  # no success said
    assert list(tmp_path.iterdir()) == []  # no record, no temporary file


def test_ctrl_c_while_a_record_is_replaced_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.json"
    path.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(os, "replace", interrupt)
    status, out = run("q\n", path, force=True)
    assert status == EXIT_INTERRUPTED
    assert f"was not saved to {path}, which is as it was" in out
    assert list(tmp_path.iterdir()) == [path]
    assert path.read_text(encoding="utf-8") == "old\n"


def test_ctrl_c_in_the_write_function_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hanamikoji.play.write_whole", interrupt)
    path = tmp_path / "g.json"
    status, out = run("q\n", path)
    assert status == EXIT_INTERRUPTED
    assert f"the record of the unfinished game was not saved to {path}" in out
    assert list(tmp_path.iterdir()) == []
