"""What `hanamikoji analyze` says when there is nothing to review."""

from __future__ import annotations

from pathlib import Path

import pytest

import hanamikoji.ai.prepare as prepare_module
from hanamikoji.cli import main
from hanamikoji.state import State


@pytest.fixture(autouse=True)
def _no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prepare_module, "prepare_search", lambda say=None: None)


def test_an_abandoned_record_stops_it_did_not_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "abandoned.json"
    State.new(3).apply("S" + State.new(3).hand(0)[0]).record().write(path)
    assert main(["analyze", str(path), "--seat", "1"]) == 0
    err = capsys.readouterr().err
    assert "no decision of seat 1 (seat 1) to review: the record stops before one was made" in err
    assert "ended" not in err


def test_a_game_that_ended_before_a_seat_decided_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "resigned.json"
    State.new(3).concede(0).record().write(path)
    assert main(["analyze", str(path)]) == 0
    assert "to review: the game ended before one was made" in capsys.readouterr().err


def test_unknown_rules_keys_are_named_once_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    obj = State.new(3).concede(0).record().to_json()
    obj["rules"].update(win_charm=12, variant="hanamikoji-deluxe")
    path = tmp_path / "variant.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    for command in (["replay"], ["replay", "--json"], ["analyze"]):
        assert main([*command, str(path)]) == 0
        out, err = capsys.readouterr()
        assert err.count("note:") == 1, err
        assert 'rules this program does not know are ignored ("win_charm", "variant")' in err
        assert "note" not in out
    path.write_text(json.dumps(State.new(3).concede(0).record().to_json()), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().err == ""
