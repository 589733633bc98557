"""replay numbers moves as analyze and the record do: a line of one names a line of the other.

Both number a move by its index in its round's moves, from 0, picks counted (docs/formats.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import DEAL_A, DEAL_D_SWAPPED, MOVES_A, play
from hanamikoji.cli import main
from hanamikoji.moves import Move
from hanamikoji.state import Rules, State


def _replayed(out: str) -> dict[tuple[int, int], str]:
    """(round, move number) -> the rest of replay's line."""
    found: dict[tuple[int, int], str] = {}
    number = 0
    for line in out.splitlines():
        if m := re.match(r"Round (\d+):", line):
            number = int(m.group(1))
        elif m := re.match(r"  move +(\d+)  (.*)$", line):
            found[(number, int(m.group(1)))] = m.group(2)
    return found


def test_replay_and_analyze_give_a_move_the_same_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = play(State.from_deals([DEAL_A, DEAL_D_SWAPPED], rules=Rules(max_rounds=2)), MOVES_A)
    state = play(state, "S1 G245 P4 D77")
    record = state.record(("alice", "bob"))
    path = tmp_path / "game.json"
    record.write(path)

    assert main(["replay", str(path)]) == 0
    replayed = _replayed(capsys.readouterr().out)
    # Every move of the record, under the number the record gives it.
    expected = {
        (r, i): move
        for r, rnd in enumerate(record.rounds, start=1)
        for i, move in enumerate(rnd.moves)
    }
    assert replayed.keys() == expected.keys()
    for key, move in expected.items():
        assert replayed[key].endswith(Move.parse(move).describe()), (key, replayed[key])

    assert main(["analyze", str(path), "--iterations", "20"]) == 0
    analyzed = re.findall(
        r"^round (\d+) move +(\d+)  (\S+) +(\S+)", capsys.readouterr().out, re.MULTILINE
    )
    assert len(analyzed) == len(expected)
    for round_, index, name, played in analyzed:
        line = replayed[(int(round_), int(index))]
        assert line.startswith(name), (round_, index, line)
        assert line.endswith(Move.parse(played).describe()), (round_, index, line)
