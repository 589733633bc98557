"""``replay -`` (and ``analyze -``) read the record from standard input, as a file is read:
the same 4 MiB limit, the same errors; ``./-`` is still a file named ``-``."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEAL_A, MOVES_A, one_round, run_cli
from hanamikoji.record import MAX_RECORD_BYTES, Record, RecordError


def _cli_stdin(
    *args: str, stdin: bytes | Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "hanamikoji.cli", *args]
    if isinstance(stdin, Path):
        with stdin.open("rb") as file:  # a redirect: `hanamikoji replay - < FILE`
            return subprocess.run(command, stdin=file, capture_output=True, timeout=60, cwd=cwd)
    return subprocess.run(command, input=stdin, capture_output=True, timeout=60, cwd=cwd)


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    one_round(DEAL_A, MOVES_A, max_rounds=1).record(("alice", "bob")).write(path)
    return path


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_replay_dash_reads_the_record_from_standard_input(game: Path, json_flag: list[str]) -> None:
    from_file = run_cli("replay", *json_flag, game)
    piped = _cli_stdin("replay", *json_flag, "-", stdin=game.read_bytes())
    assert from_file.returncode == piped.returncode == 0
    assert piped.stdout.decode() == from_file.stdout and piped.stderr == b""


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b'{"format": "hanamikoji-record/1", "rounds": [',
        b"\xff\xfe{}",
        b" " * (MAX_RECORD_BYTES + 1),
    ],
    ids=["empty", "truncated", "not-utf8", "too-big"],
)
def test_standard_input_gets_the_errors_a_file_gets(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    from_file = run_cli("replay", path)
    for stdin in (path, data):  # redirected from the file, and piped
        got = _cli_stdin("replay", "-", stdin=stdin)
        assert got.returncode == from_file.returncode == 2
        assert got.stdout == b""
        error = got.stderr.decode()
        assert error.startswith("hanamikoji replay: standard input: ")
        want = from_file.stderr.removeprefix(f"hanamikoji replay: {path}: ")
        if stdin is data and data.startswith(b" "):  # a pipe's size is not known before reading
            want = want.replace(f"{len(data):,} bytes, over", "over")
        assert error.removeprefix("hanamikoji replay: standard input: ") == want


def test_analyze_dash_reads_standard_input_too() -> None:
    got = _cli_stdin("analyze", "-", stdin=b"[1, 2]")
    assert got.returncode == 2
    assert got.stderr.decode() == (
        "hanamikoji analyze: standard input: a record must be a JSON object, got [1, 2]\n"
    )


def test_a_file_named_dash_is_still_read_as_dot_slash_dash(game: Path) -> None:
    (game.parent / "-").write_bytes(game.read_bytes())
    done = subprocess.run(
        [sys.executable, "-m", "hanamikoji.cli", "replay", "--json", "./-"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=game.parent,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == run_cli("replay", "--json", game).stdout


def test_the_help_says_so() -> None:
    for command in ("replay", "analyze"):
        out = run_cli(command, "--help").stdout
        assert "or - for standard input" in " ".join(out.split()), command


def test_record_read_takes_a_binary_stream(game: Path) -> None:
    record = Record.read(io.BytesIO(game.read_bytes()))
    assert record == Record.read(game)
    with pytest.raises(RecordError, match=r"too large for a record: over the limit"):
        Record.read(io.BytesIO(b" " * (MAX_RECORD_BYTES + 1)))
