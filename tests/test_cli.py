"""The ``hanamikoji`` command: replay, --json, errors, --version, help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import DEAL_A, DEAL_D_SWAPPED, EXAMPLE_DEAL, MOVES_A, one_round, play, run_cli
from hanamikoji import __version__
from hanamikoji.state import Rules, State


def _write(tmp_path: Path, state: State, name: str = "game.json") -> Path:
    path = tmp_path / name
    state.record(("alice", "bob")).write(path)
    return path


def test_replay_tells_the_deal_moves_scoring_and_result(tmp_path: Path) -> None:
    path = _write(tmp_path, one_round(DEAL_A, MOVES_A, max_rounds=1))
    done = run_cli("replay", path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    lines = out.splitlines()
    assert "alice (seat 0) vs bob (seat 1), rules: at most 1 round" in lines[0]
    assert "Round 1: alice plays first" in out
    assert "removed 1" in out
    assert "alice holds 122334" in out and "bob holds 566667" in out
    assert "pile 47475757" in out
    # Every move, in words, with the card drawn, numbered as in the record (from 0, picks counted).
    assert lines[4:16] == [
        "  move  0  alice draws 4. Secret: hides a 1",
        "  move  1  bob draws 7. Secret: hides a 5",
        "  move  2  alice draws 4. Discard: discards 2, 2",
        "  move  3  bob draws 7. Discard: discards 6, 6",
        "  move  4  alice draws 5. Gift: offers 3, 3, 4",
        "  move  5  bob: Pick: takes 4",
        "  move  6  bob draws 7. Gift: offers 6, 6, 7",
        "  move  7  alice: Pick: takes 6",
        "  move  8  alice draws 5. Competition: offers the pairs 44 and 55",
        "  move  9  bob: Pick: takes 5, 5",
        "  move 10  bob draws 7. Competition: offers the pairs 77 and 77",
        "  move 11  alice: Pick: takes 7, 7",
    ]
    # The scoring, geisha by geisha.
    assert "Secrets revealed: alice 1, bob 5" in out
    assert "geisha 1 (charm 2): 1 - 0, marker moves to alice" in out
    assert "geisha 2 (charm 2): 0 - 0, marker stays neutral" in out
    assert "geisha 5 (charm 3): 0 - 3, marker moves to bob" in out
    assert "geisha 6 (charm 4): 1 - 1, marker stays neutral" in out
    assert "geisha 7 (charm 5): 2 - 3, marker moves to bob" in out
    assert "After round 1: charm 7 - 8, geisha 3 - 2" in out
    assert lines[-1].startswith("Result: bob wins")
    assert "charm 7-8" in lines[-1]


def test_replay_of_an_unfinished_game(tmp_path: Path) -> None:
    state = play(State.from_deals([DEAL_A, DEAL_D_SWAPPED], rules=Rules(max_rounds=2)), MOVES_A)
    state = play(state, "S1")
    path = _write(tmp_path, state)
    done = run_cli("replay", path)
    assert done.returncode == 0, done.stderr
    assert "Round 2: bob plays first" in done.stdout
    assert "Unfinished" in done.stdout.splitlines()[-1]
    as_json = run_cli("replay", "--json", path)
    assert as_json.returncode == 0
    assert json.loads(as_json.stdout) is None


def test_replay_json_prints_the_result_object(tmp_path: Path) -> None:
    path = _write(tmp_path, one_round(DEAL_A, MOVES_A, max_rounds=1))
    done = run_cli("replay", "--json", path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "winner": 1,
        "reason": "round-limit",
        "charm": [7, 8],
        "geisha": [3, 2],
        "markers": [0, None, 0, 0, 1, None, 1],
    }


def test_replay_json_of_a_forfeit_keeps_why(tmp_path: Path) -> None:
    from hanamikoji.state import Termination

    state = State.from_deals([EXAMPLE_DEAL]).concede(0, Termination.FORFEIT, why="no answer")
    done = run_cli("replay", "--json", _write(tmp_path, state))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert (got["winner"], got["reason"], got["why"]) == (1, "forfeit", "no answer")


def _one_line_error(done_stderr: str) -> str:
    lines = done_stderr.splitlines()
    assert len(lines) == 1, done_stderr
    assert "Traceback" not in done_stderr
    return lines[0]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.json", b""),
        ("garbage.json", bytes(range(256)) * 4),
        ("utf16ish.json", b"\xff\xfe\x00\x00{"),
        ("list.json", b"[1, 2, 3]"),
        ("string.json", b'"hanamikoji"'),
        ("truncated.json", b'{"format": "hanamikoji-record/1", "rounds": [{"removed": "1"'),
        ("wrong-format.json", b'{"format": "chess-pgn", "rounds": []}'),
    ],
)
def test_replay_of_a_bad_file_exits_2_with_one_line(
    tmp_path: Path, name: str, content: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    done = run_cli("replay", path)
    assert done.returncode == 2
    assert done.stdout == ""
    line = _one_line_error(done.stderr)
    assert name in line


def test_replay_of_an_illegal_move_names_round_and_move(tmp_path: Path) -> None:
    path = _write(tmp_path, one_round(DEAL_A, MOVES_A, max_rounds=1))
    obj = json.loads(path.read_text(encoding="utf-8"))
    obj["rounds"][0]["moves"][3] = "D22"
    path.write_text(json.dumps(obj), encoding="utf-8")
    for args in (("replay", path), ("replay", "--json", path)):
        done = run_cli(*args)
        assert done.returncode == 2
        assert done.stdout == ""
        line = _one_line_error(done.stderr)
        assert "round 1, move 3: D22 is illegal" in line


def test_replay_of_a_missing_file(tmp_path: Path) -> None:
    done = run_cli("replay", tmp_path / "nowhere.json")
    assert done.returncode == 2
    line = _one_line_error(done.stderr)
    assert "nowhere.json" in line


def test_replay_of_a_directory(tmp_path: Path) -> None:
    done = run_cli("replay", tmp_path)
    assert done.returncode == 2
    line = _one_line_error(done.stderr)
    assert str(tmp_path) in line


def test_version() -> None:
    done = run_cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"hanamikoji {__version__}"


def test_no_command_prints_help() -> None:
    done = run_cli()
    assert "usage: hanamikoji" in done.stdout
    assert "replay" in done.stdout
    assert "Traceback" not in done.stderr


def test_replay_without_a_file_is_a_usage_error() -> None:
    done = run_cli("replay")
    assert done.returncode == 2
    assert "usage:" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["play", "--opponent", "random"],
        ["match", "random", "random", "--games", "2"],
        ["tournament", "random", "greedy", "--games-per-pair", "2"],
    ],
)
def test_a_round_limit_of_0_is_refused_as_minus_1_is(tmp_path: Path, command: list[str]) -> None:
    record = tmp_path / "r.json"
    extra = ["--record", str(record)] if command[0] == "play" else []
    for limit in ("0", "-1"):
        done = run_cli(*command, "--max-rounds", limit, *extra)
        assert done.returncode == 2
        assert done.stdout == ""
        assert "Traceback" not in done.stderr
        last = done.stderr.splitlines()[-1]
        assert last.startswith(f"hanamikoji {command[0]}: error: argument --max-rounds: ")
        assert f"'{limit}': the round limit must be 1 or more, or 'none'" in last
    assert not record.exists()


def test_play_refuses_an_engine_as_the_opponent(tmp_path: Path) -> None:
    record = tmp_path / "r.json"
    done = run_cli("play", "--opponent", "cmd:true", "--record", record)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    said = " ".join(done.stderr.split())  # the console may wrap a long line
    assert said.startswith("hanamikoji play: --opponent 'cmd:true' is an engine")
    assert "a built-in agent or level:NAME" in said and "hanamikoji match" in said
    assert "KEY=VALUE" not in said
    assert not record.exists()


def test_engine_refuses_an_engine_and_play_an_empty_name(tmp_path: Path) -> None:
    done = run_cli("engine", "cmd:ls")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "'cmd:ls' is an engine of its own" in done.stderr and "unknown agent" not in done.stderr
    record = tmp_path / "r.json"
    done = run_cli("play", "--name", " ", "--record", record)
    assert done.returncode == 2 and not record.exists()
    assert "argument --name: a name cannot be empty" in done.stderr.splitlines()[-1]
    # an escape sequence in the name would reach the terminal on every line: refused, escaped
    done = run_cli("play", "--name", "x\x1b[2J\u202e", "--record", record)
    assert done.returncode == 2 and not record.exists() and "\x1b" not in done.stderr
    assert "a name is printable text: 'x\\x1b[2J\\u202e'" in done.stderr, done.stderr
    done = run_cli("play", "--name", "n" * 41, "--record", record)
    assert done.returncode == 2 and "at most 40 characters; this one has 41" in done.stderr


class _LeftPipe:
    """Standard output whose reader has gone (``| head`` after its first line)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_stops_reading_ends_the_command_quietly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hanamikoji replay game.json | head -1``: the rest of the output has nowhere to go; the
    command ends with the shell's status for it (141), not an internal error."""
    from hanamikoji.cli import main

    path = tmp_path / "game.json"
    one_round(DEAL_A, MOVES_A).record(("alice", "bob")).write(path)
    monkeypatch.setattr("sys.stdout", _LeftPipe())
    assert main(["replay", str(path)]) == 141
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err


def test_analyze_says_when_there_is_no_decision_to_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game resigned before its first move: a line on stderr, not silence."""
    from hanamikoji.cli import main

    path = tmp_path / "resigned.json"
    State.new(3).concede(0).record(("alice", "bob")).write(path)
    assert main(["analyze", str(path), "--seat", "1", "--iterations", "20"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "no decision of bob (seat 1) to review: the game ended before one was made" in err
