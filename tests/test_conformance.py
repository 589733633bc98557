"""The shared conformance records (../shared/conformance/): every game replays to its stored
result, every reject is rejected, and the ``hanamikoji replay`` command agrees on a sample.

When ../shared/conformance/ is absent (a checkout on its own), these tests skip and say where they
looked; they never skip otherwise.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import CONFORMANCE, run_cli
from hanamikoji.record import Record, RecordError

GAMES = CONFORMANCE / "games"
REJECTS = CONFORMANCE / "rejects"
RESULT_FIELDS = ("winner", "reason", "charm", "geisha", "markers")

# Reject kinds (the file name after "reject-NN-") whose fault lies in one move: the message names
# the round and the move index. Faults of a deal or of a round name the round only.
MOVE_KINDS = {
    "action-reused",
    "card-not-in-hand",
    "garbage-move",
    "wrong-pick",
    "move-after-end",
    "result-but-unfinished",
    "wrong-charm",
    "wrong-markers",
    "wrong-reason",
    "wrong-winner",
}
ROUND_KINDS = {"deck-long", "hand-short", "wrong-card-type", "round-after-end"}
FILE_KINDS = {"no-format", "wrong-format", "truncated-json"}


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.json")) if folder.is_dir() else []


GAME_FILES = _names(GAMES)
REJECT_FILES = _names(REJECTS)
# When the folder is missing, one placeholder case runs and skips, saying where it looked.
ABSENT = "(folder absent)"


def _folder(folder: Path) -> Path:
    if not folder.is_dir():
        pytest.skip(f"no conformance records: {folder} does not exist")
    return folder


def _kind(name: str) -> str:
    match = re.fullmatch(r"reject-\d+-(.+)\.json", name)
    assert match, f"unexpected reject file name {name}"
    return match.group(1)


def _sample(names: list[str], step: int) -> list[str]:
    return names[::step] if names else [ABSENT]


def _one_per_kind(names: list[str]) -> list[str]:
    chosen: dict[str, str] = {}
    for name in names:
        chosen.setdefault(_kind(name), name)
    return sorted(chosen.values()) or [ABSENT]


def _stored(path: Path) -> dict[str, Any]:
    obj = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(obj, dict)
    return obj


def test_the_folders_hold_records() -> None:
    _folder(CONFORMANCE)
    assert GAME_FILES, f"{GAMES} holds no .json files"
    assert REJECT_FILES, f"{REJECTS} holds no .json files"
    kinds = {_kind(n) for n in REJECT_FILES}
    assert kinds <= MOVE_KINDS | ROUND_KINDS | FILE_KINDS, kinds - (
        MOVE_KINDS | ROUND_KINDS | FILE_KINDS
    )


@pytest.mark.parametrize("name", GAME_FILES or [ABSENT])
def test_game_replays_to_its_stored_result(name: str) -> None:
    path = _folder(GAMES) / name
    stored = _stored(path)
    want = stored["result"]
    # Replay without the stored result, so the outcome is computed from the moves alone.
    bare = dict(stored, result=None)
    state = Record.from_json(bare).replay()
    assert state.outcome is not None, f"{name}: the moves do not finish the game"
    got = state.outcome.to_json()
    for key in RESULT_FIELDS:
        assert got[key] == want[key], f"{name}: {key}"
    # And the record as stored is accepted, with the same outcome.
    full = Record.read(path).replay()
    assert full.outcome == state.outcome
    # Writing it back gives the same rounds, in canonical form.
    written = full.record(tuple(stored["players"])).to_json()
    assert len(written["rounds"]) == len(stored["rounds"])
    assert written["result"] == {k: want[k] for k in RESULT_FIELDS}


@pytest.mark.parametrize("name", REJECT_FILES or [ABSENT])
def test_reject_is_rejected(name: str) -> None:
    path = _folder(REJECTS) / name
    kind = _kind(name)
    with pytest.raises(RecordError) as info:
        Record.read(path).replay()
    message = str(info.value)
    if kind in MOVE_KINDS:
        assert re.match(r"round \d+, move \d+: \S", message), message
    elif kind in ROUND_KINDS:
        assert re.match(r"round \d+: \S", message), message
    else:
        assert kind in FILE_KINDS
        assert message


@pytest.mark.parametrize("name", _sample(GAME_FILES, 25))
def test_cli_replay_json_prints_the_stored_result(name: str) -> None:
    path = _folder(GAMES) / name
    want = _stored(path)["result"]
    done = run_cli("replay", "--json", path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    got = json.loads(done.stdout)
    assert {k: got[k] for k in RESULT_FIELDS} == {k: want[k] for k in RESULT_FIELDS}


@pytest.mark.parametrize("name", _sample(GAME_FILES, 50))
def test_cli_replay_tells_the_game(name: str) -> None:
    path = _folder(GAMES) / name
    stored = _stored(path)
    done = run_cli("replay", path)
    assert done.returncode == 0, done.stderr
    for number in range(1, len(stored["rounds"]) + 1):
        assert f"Round {number}:" in done.stdout
    assert "Result: " in done.stdout


@pytest.mark.parametrize("name", _one_per_kind(REJECT_FILES))
def test_cli_replay_of_a_reject_exits_2_with_one_line(name: str) -> None:
    path = _folder(REJECTS) / name
    kind = _kind(name)
    done = run_cli("replay", path)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert "Traceback" not in done.stderr
    assert name in line
    if kind in MOVE_KINDS:
        assert re.search(r"round \d+, move \d+: \S", line), line
    elif kind in ROUND_KINDS:
        assert re.search(r"round \d+: \S", line), line
