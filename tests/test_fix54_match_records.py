"""``match --records DIR``: a record that cannot be written mid-match stops the match with the
results of the games played so far, as Ctrl-C does, then the error, and a non-zero status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hanamikoji.files as files
import hanamikoji.match.runner as runner
from hanamikoji.cli import main
from hanamikoji.match import MatchConfig, MatchError, run_match

GAMES = ["match", "random", "random", "--games", "6", "--seed", "5"]


def block_record(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Just before ``name`` is written, a folder takes its place (a file in the way, made by
    someone else mid-match): the record cannot take that name."""
    write = files.write_whole

    def write_whole(path: Path, data: str | bytes, **kwargs: bool) -> None:
        if path.name == name:
            path.mkdir()
        write(path, data, **kwargs)

    monkeypatch.setattr(runner, "write_whole", write_whole)


def test_the_games_played_are_shown_with_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "records"
    block_record(monkeypatch, "game-00003.json")
    status = main([*GAMES, "--records", str(folder)])
    out, err = capsys.readouterr()
    assert status == 2
    # the second pair (games 3 and 4) was played: counted, though its record failed
    stopped = "stopped: a game record could not be written"
    assert f"games 4 of 6 (2 pairs on shared deals), {stopped}" in out
    assert "A: " in out and "score of A" in out
    record = folder / "game-00003.json"
    assert f"hanamikoji match: cannot write the game record {record}: Is a directory" in err
    assert "internal error" not in err
    # what was written is whole; no temporary file is left behind
    assert sorted(p.name for p in folder.iterdir()) == [
        "game-00001.json",
        "game-00002.json",
        "game-00003.json",
    ]
    assert (folder / "game-00003.json").is_dir()


def test_the_summary_so_far_as_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "records"
    block_record(monkeypatch, "game-00001.json")
    status = main([*GAMES, "--records", str(folder), "--json"])
    out, err = capsys.readouterr()
    assert status == 2
    summary = json.loads(out)
    assert summary["games"] == 2 and summary["pairs"] == 1
    assert summary["stopped"] == "a game record could not be written"
    assert "cannot write the game record" in err


def test_the_library_raises_a_match_error_holding_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hanamikoji.match import RecordsError  # (here: the other tests run on any version)

    block_record(monkeypatch, "game-00005.json")
    config = MatchConfig("random", "random", games=6, seed=5, records=tmp_path / "records")
    with pytest.raises(RecordsError) as caught:
        run_match(config)
    assert isinstance(caught.value, MatchError)  # what callers caught before
    summary = caught.value.summary
    assert summary.games == 6 and summary.stopped == "a game record could not be written"
    assert "game-00005.json" in str(caught.value)
