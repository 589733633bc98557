"""``write_whole`` leaves no temporary file behind when Ctrl-C lands as the temporary file is
made: as ``temporary_beside`` returns (before the caller held its name), or as ``os.open`` made
the file (before its descriptor was held)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import pytest

import hanamikoji.files as files
from hanamikoji.files import temporary_beside, write_whole


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("replace", [True, False])
def test_ctrl_c_as_the_temporary_file_is_returned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replace: bool
) -> None:
    real = files.temporary_beside

    def interrupted(*args: Any, **kw: Any) -> Path:
        real(*args, **kw)
        raise KeyboardInterrupt  # as it returns: the caller never held the name

    monkeypatch.setattr(files, "temporary_beside", interrupted)
    target = tmp_path / "record.json"
    with pytest.raises(KeyboardInterrupt):
        write_whole(target, "{}\n", replace=replace)
    assert leftovers(tmp_path) == [] and not target.exists()


def test_ctrl_c_as_os_open_makes_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.open

    def interrupted(path: Any, flags: int, mode: int = 0o777) -> int:
        fd = real(path, flags, mode)
        os.close(fd)
        raise KeyboardInterrupt  # the file made, its descriptor never handed back

    monkeypatch.setattr(os, "open", interrupted)
    target = tmp_path / "record.json"
    with pytest.raises(KeyboardInterrupt):
        write_whole(target, "{}\n")
    with pytest.raises(KeyboardInterrupt):
        temporary_beside(target, b"{}\n")
    assert leftovers(tmp_path) == [] and not target.exists()


def test_a_name_drawn_twice_is_not_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Someone else's file of the drawn name (the draw repeated) is left alone."""
    draws = iter(["aaaaaaaa", "aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(draws))
    target = tmp_path / "record.json"
    other = tmp_path / ".record.json.aaaaaaaa.tmp"
    other.write_text("someone else's")
    write_whole(target, "{}\n")
    assert target.read_text() == "{}\n" and other.read_text() == "someone else's"
    assert leftovers(tmp_path) == [other.name]
