"""The referee against engines that attack it (tests/engines/hostile_engine.py).

An engine may hang its children on our pipes, write without end, send what Python's JSON parser
refuses, answer before it is asked, or be stopped from outside mid-match: each costs it the game
at most, is named for what it is, and never hangs, floods or aborts the runner.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from hanamikoji.engine import (
    LINE_LIMIT,
    STDERR_TAIL,
    Engine,
    EngineError,
    FailureKind,
    ProcessTransport,
)
from hanamikoji.match import MatchConfig, run_match
from hanamikoji.state import Rules, State

HOSTILE = Path(__file__).resolve().parent / "engines" / "hostile_engine.py"
START = State.new(13)
VIEW = START.view(0)
LEGAL = START.legal_moves

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def hostile(mode: str, arg: str = "") -> list[str]:
    """The command line of the hostile engine in ``mode``."""
    return [sys.executable, str(HOSTILE), mode, *([arg] if arg else [])]


def spec(command: list[str]) -> str:
    """A match player spec for ``command``."""
    return "cmd:" + " ".join(f"'{part}'" for part in command)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def kill_pids(pidfile: Path) -> None:
    """Stop the detached children listed in ``pidfile`` (they are the test's to clean up)."""
    if pidfile.exists():
        for pid in map(int, pidfile.read_text().split()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def first_act(command: list[str], hard_limit_ms: int = 5000) -> tuple[EngineError, float]:
    """Start ``command``, ask for its first move: the error and the seconds the act took."""
    engine = Engine.popen(command)
    try:
        engine.new_game(0, Rules(), "referee")
        start = time.monotonic()
        with pytest.raises(EngineError) as info:
            engine.act(VIEW, LEGAL, clock_ms=100, hard_limit_ms=hard_limit_ms)
        return info.value, time.monotonic() - start
    finally:
        engine.close()


# -- 2. children that hold our pipes -------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_detached_child_holding_stdout_never_hangs_the_match(tmp_path: Path) -> None:
    """Each start leaves a 60 s child in a session of its own on our pipe: close waits for none."""
    pids = tmp_path / "pids"
    command = [sys.executable, "-m", "hanamikoji.cli", "match", "random"]
    command += [spec(hostile("detach", str(pids))), "--games", "2", "--clock-ms", "50"]
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the match waited on an engine's detached child")
    finally:
        kill_pids(pids)
    assert done.returncode == 0, done.stderr
    assert "games 2 of 2" in done.stdout
    assert "forfeits: none" in done.stdout
    assert time.monotonic() - start < 20


def test_close_returns_at_once_with_a_detached_child_on_the_pipes(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    try:
        engine = Engine.popen(hostile("detach", str(pids)))
        transport = engine.transport
        assert isinstance(transport, ProcessTransport)
        start = time.monotonic()
        engine.close()
        assert time.monotonic() - start < 3.0
        assert transport._proc.poll() is not None
    finally:
        kill_pids(pids)


def test_an_engine_that_exits_while_its_child_holds_the_pipe_is_an_exit(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    try:
        error, took = first_act(hostile("exit-leaving-child", str(pids)), hard_limit_ms=8000)
    finally:
        kill_pids(pids)
    assert error.kind == FailureKind.EXIT, error
    assert "status 0" in str(error)
    assert took < 5.0  # well before the hard limit


# -- 3. memory: lines and standard error are bounded ---------------------------------------


def test_a_line_that_never_ends_is_garbage_long_before_the_hard_limit() -> None:
    error, took = first_act(hostile("endless-line"), hard_limit_ms=8000)
    assert error.kind == FailureKind.GARBAGE, error
    assert "longer than" in str(error)
    assert len(str(error)) < 300
    assert took < 5.0


def test_an_answer_over_the_line_limit_is_garbage() -> None:
    assert LINE_LIMIT <= 1_000_000
    error, _ = first_act(hostile("long-line"))
    assert error.kind == FailureKind.GARBAGE, error
    assert "longer than" in str(error)


def test_standard_error_is_kept_as_a_bounded_tail() -> None:
    engine = Engine.popen(hostile("stderr-flood"))
    transport = engine.transport
    assert isinstance(transport, ProcessTransport)
    try:
        engine.new_game(0, Rules(), "referee")
        with pytest.raises(EngineError) as info:
            engine.act(VIEW, LEGAL, clock_ms=100, hard_limit_ms=10_000)
        tail = transport.stderr_tail
    finally:
        engine.close()
    assert info.value.kind == FailureKind.CRASH, info.value
    assert "exit status 3" in str(info.value)
    assert "last words" in str(info.value)
    assert len(str(info.value)) < 1000
    assert tail[-1] == "last words"
    assert sum(len(line) for line in tail) <= STDERR_TAIL


# -- 4. whatever the JSON parser refuses is garbage ----------------------------------------


@pytest.mark.parametrize("mode", ["bigint", "deep", "bad-utf8"])
def test_a_line_the_json_parser_refuses_is_garbage(mode: str) -> None:
    error, _ = first_act(hostile(mode))
    assert error.kind == FailureKind.GARBAGE, error
    assert len(str(error)) < 300


def test_a_huge_integer_costs_the_game_not_the_match() -> None:
    summary = run_match(MatchConfig("random", spec(hostile("bigint")), games=2, clock_ms=50))
    assert summary.games == 2
    assert [(side, why.split(": ")[1]) for _, side, why in summary.forfeits] == [
        ("B", "garbage"),
        ("B", "garbage"),
    ]


# -- 6. faults named for what they are -----------------------------------------------------


def test_an_answer_before_the_question_is_read_is_garbage() -> None:
    error, _ = first_act(hostile("early"))
    assert error.kind == FailureKind.GARBAGE, error
    assert "out of turn" in str(error)


# -- 5. SIGTERM ends a match like Ctrl-C ---------------------------------------------------


def running_with(tag: str) -> list[str]:
    """The processes whose command line holds ``tag`` (``ps``), this test's engines."""
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,stat=,args="], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if tag in line and " Z" not in line]


def engines_with(tag: str) -> list[str]:
    """The engines among :func:`running_with` (not the referee's command that names them)."""
    return [line for line in running_with(tag) if "hanamikoji.cli" not in line]


@pytest.mark.parametrize("mode", ["close-input", "close-input-late"])
def test_an_engine_that_closes_its_input_is_said_to(mode: str) -> None:
    """It was "closed its output" (the next message failing to be sent) or, the next question
    lost in the pipe as it closed, a timeout: the same fault, named two ways, both wrong."""
    engine = Engine.popen(hostile(mode))
    try:
        engine.new_game(0, Rules(), "referee")
        state = START.apply(engine.act(VIEW, LEGAL, clock_ms=100).move)
        state = state.apply(state.legal_moves[0])  # the opponent's answer: seat 0 acts again
        assert state.to_move == 0
        with pytest.raises(EngineError) as info:
            engine.act(state.view(0), state.legal_moves, clock_ms=100, hard_limit_ms=1500)
    finally:
        engine.close()
    assert info.value.kind == FailureKind.EXIT
    assert str(info.value) == "closed its input (standard input) but is still running"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_stops_a_parallel_match_like_ctrl_c() -> None:
    tag = f"tag-{uuid.uuid4().hex}"
    engine = spec(hostile("good", tag))
    command = [sys.executable, "-m", "hanamikoji.cli", "match", engine, engine]
    proc = subprocess.Popen(
        [*command, "--games", "1000000", "--jobs", "2", "--clock-ms", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10.0
        while len(running_with(tag)) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(running_with(tag)) >= 4  # two workers, two engines each
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail("still running 10 s after SIGTERM")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, err  # 128 + SIGTERM
    assert "Traceback" not in err
    assert "stopped: interrupted" in out
    deadline = time.monotonic() + 3.0
    while running_with(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = running_with(tag)
    for line in left:  # clean up after a failure
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(line.split()[0]), signal.SIGKILL)
    assert left == []


def gone(tag: str, seconds: float = 5.0) -> list[str]:
    """Wait for the processes tagged ``tag`` to end; those left (then killed) are returned."""
    deadline = time.monotonic() + seconds
    while running_with(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = running_with(tag)
    for line in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(line.split()[0]), signal.SIGKILL)
    return left


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_an_engine_deaf_to_quit_is_ended_after_a_parallel_run(command: str) -> None:
    tag = f"tag-{uuid.uuid4().hex}"
    games = ["--games", "4"] if command == "match" else ["--games-per-pair", "4"]
    engine = spec(hostile("deaf", tag))
    cli = [sys.executable, "-m", "hanamikoji.cli", command, engine, "random"]
    done = subprocess.run(
        [*cli, *games, "--jobs", "2", "--max-rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert gone(tag) == []


@pytest.mark.parametrize(
    ("command", "rest", "said_on"),
    [
        ("tournament", ["random", "greedy", "--games-per-pair", "2"], "stdout"),
        # (the match's summary: no game played, "stopped: interrupted")
        ("match", ["random", "--games", "2"], "stdout"),
    ],
)
def test_sigterm_while_the_players_start_ends_cleanly_with_143(
    command: str, rest: list[str], said_on: str
) -> None:
    """Stopped while its referee waits for a hello that never comes, a match or a tournament
    says "interrupted" and exits with 143, 128 + SIGTERM (a match said 130, Ctrl-C's status),
    leaving no engine behind."""
    tag = f"tag-{uuid.uuid4().hex}"
    cli = [sys.executable, "-m", "hanamikoji.cli", command, spec(hostile("mute", tag)), *rest]
    proc = subprocess.Popen(
        cli,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10.0
        # The engine itself (the command's own line holds the tag too, from its first instant)
        while not engines_with(tag) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert engines_with(tag), "the engine did not start"
        time.sleep(0.5)  # the referee now waits for a hello that never comes
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, err
    assert "Traceback" not in err and "interrupted" in (out if said_on == "stdout" else err)
    assert gone(tag) == []


# -- what a forfeited engine is told, and a death between games ------------------------------


@pytest.mark.parametrize(
    ("mode", "kind"),
    [("tell-illegal", "illegal"), ("tell-garbage", "garbage"), ("tell-silent", "timeout")],
)
def test_a_forfeited_engine_still_running_is_told_the_result_before_quit(
    tmp_path: Path, mode: str, kind: str
) -> None:
    log = tmp_path / "received.jsonl"
    config = MatchConfig(
        "random", spec(hostile(mode, str(log))), games=2, clock_ms=1, hard_limit_ms=1001
    )
    summary = run_match(config)
    assert [(n, side) for n, side, _ in summary.forfeits] == [(1, "B"), (2, "B")]
    # What each engine process received, in order (docs/protocol.md: "result after every
    # game, however it ended, to an engine that is still running"), the why included.
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    by_pid: dict[int, list[list[Any]]] = {}
    for pid, *seen in lines:
        by_pid.setdefault(pid, []).append(seen)
    played = [seen for seen in by_pid.values() if len(seen) > 2]  # (not the start-up check)
    assert len(played) == 2  # one process a game: stopped after its forfeit
    for (_, _, why), seen in zip(summary.forfeits, played, strict=True):
        assert why.split(": ")[1] == kind
        assert [s[0] for s in seen] == ["hello", "game", "act", "result", "quit"]
        assert seen[3] == ["result", "forfeit", why]


def test_an_engine_that_dies_reading_the_result_plays_the_next_game_afresh() -> None:
    config = MatchConfig("random", spec(hostile("die-on-result")), games=4, clock_ms=100)
    summary = run_match(config)
    # Its deaths came after games 1, 2 and 3 were over: no game is charged with them.
    assert summary.forfeits == []
    assert "forfeit" not in summary.reasons
    assert [(n, side) for n, side, _ in summary.restarts] == [(2, "B"), (3, "B"), (4, "B")]
    for _, _, why in summary.restarts:
        assert why.startswith("its engine ended before its first move in this game (crashed (")
        assert "died reading result" in why and why.endswith(": restarted")
    assert "engines restarted between games: 3" in summary.render()
    assert summary.to_json()["restarts"][0]["game"] == 2


def _seen_and_played(a: str, b: str, tmp_path: Path) -> tuple[Any, list[Any], list[Any]]:
    """A match of A (``log``-ging what it is sent) against B: its summary, what A was sent (the
    opponent's name left out) and the games' deals, moves and results."""
    log, records = tmp_path / f"{b}.jsonl", tmp_path / b
    config = MatchConfig(
        spec(hostile("log", str(log))), spec(hostile(b)), games=4, clock_ms=100, records=records
    )
    summary = run_match(config)
    seen = []
    for line in log.read_text().splitlines():
        kind, msg = json.loads(line)
        seen.append((kind, {k: v for k, v in msg.items() if k != "opponent"}))
    games = []
    for path in sorted(records.iterdir()):
        record = json.loads(path.read_text())
        games.append((record["rounds"], record["result"]))
    return summary, seen, games


def test_an_engine_that_dies_after_the_result_having_read_the_next_act_plays_that_game(
    tmp_path: Path,
) -> None:
    # It is still running when the next game starts, is sent `game` and its first `act`, reads
    # them (ahead, as a buffered reader would) and dies unanswering: in either seat, it has
    # answered nothing in that game, so a fresh process is started and asked the same act.
    summary, seen, games = _seen_and_played("log", "die-after-result", tmp_path)
    assert summary.forfeits == [], summary.forfeits
    assert "forfeit" not in summary.reasons
    assert [(n, side) for n, side, _ in summary.restarts] == [(2, "B"), (3, "B"), (4, "B")]
    for _, _, why in summary.restarts:
        assert why.startswith(
            "its engine ended before its first move in this game (crashed (exit status 3)"
        ), why
        assert "died after result, having read the next act" in why
    # Its opponent was sent exactly what it is sent against an engine that never dies, and the
    # games went exactly the same way.
    _, seen_good, games_good = _seen_and_played("log", "good", tmp_path)
    assert seen == seen_good
    assert games == games_good


def test_an_engine_that_dies_at_every_first_act_is_restarted_once_then_forfeits(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "played"
    config = MatchConfig(
        "random", spec(hostile("die-at-later-games", str(marker))), games=4, clock_ms=100
    )
    summary = run_match(config)
    # Game 2: its process from game 1 dies at its first act and is restarted; the new one dies
    # too, a second death in that game, which it forfeits. Games 3 and 4: a new process (after
    # the forfeit), not one that played a game before, dies at its first act: a forfeit.
    assert [(n, side) for n, side, _ in summary.restarts] == [(2, "B")]
    assert [(n, side) for n, side, _ in summary.forfeits] == [(2, "B"), (3, "B"), (4, "B")]
    for (_, _, why), seat in zip(summary.forfeits, (0, 1, 0), strict=True):
        assert why.startswith(f"seat {seat}: crash: crashed (exit status 3)"), why
        assert "died at the first act" in why


def test_a_restarted_engine_is_not_charged_for_its_start_up() -> None:
    # A new process takes 1500 ms to say hello; the act it is then asked has its hard limit of
    # 1001 ms from when it is sent, as any other.
    config = MatchConfig(
        "random", spec(hostile("die-after-result", "1500")), games=2, clock_ms=1, hard_limit_ms=1001
    )
    summary = run_match(config)
    assert summary.forfeits == [], summary.forfeits
    assert [(n, side) for n, side, _ in summary.restarts] == [(2, "B")]


def test_a_timeout_forfeit_ends_with_the_engines_last_words_on_stderr() -> None:
    config = MatchConfig(
        "random", spec(hostile("hang-saying")), games=2, clock_ms=1, hard_limit_ms=1001
    )
    summary = run_match(config)
    assert [why for _, _, why in summary.forfeits] == [
        f"seat {seat}: timeout: no answer within 1001 ms; stderr: hang-saying: thinking hard "
        "about act 1"
        for seat in (1, 0)
    ]


def test_the_opponent_is_not_told_a_forfeiting_engines_last_words(tmp_path: Path) -> None:
    """A forfeit's why ends with the forfeiting engine's stderr, in the report and the record;
    the result sent to the engines carried it too, and an engine may write its hand there while
    the same deal is played again from the other seat."""
    log = tmp_path / "seen.jsonl"
    config = MatchConfig(
        spec(hostile("log", str(log))),
        spec(hostile("hang-saying")),
        games=2,
        clock_ms=100,
        hard_limit_ms=1100,
    )
    summary = run_match(config)
    assert summary.forfeits and all("; stderr: hang-saying" in w for _, _, w in summary.forfeits)
    told = [
        msg.get("why")
        for kind, msg in map(json.loads, log.read_text().splitlines())
        if kind == "result"
    ]
    assert len(told) == 2 and all(w and w.endswith("no answer within 1100 ms") for w in told), told
