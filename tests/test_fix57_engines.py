"""No process an engine started outlives its match: not a child that called ``setsid``, not a
daemon whose parent exited, not one that keeps forking, whether the match ends normally, by a
forfeit, a timeout, the engine's exit, or a SIGTERM (tests/engines/daemon_engine.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hanamikoji import engine as engine_module
from hanamikoji import processes
from hanamikoji.engine import Engine, EngineError, FailureKind, ProcessTransport, kill_all_engines
from hanamikoji.state import State

DAEMON = Path(__file__).resolve().parent / "engines" / "daemon_engine.py"
HOSTILE = Path(__file__).resolve().parent / "engines" / "hostile_engine.py"
CLI = [sys.executable, "-m", "hanamikoji.cli"]

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="finds processes in /proc"
)


def daemon(how: str, pidfile: Path, mode: str = "good") -> list[str]:
    return [sys.executable, str(DAEMON), how, str(pidfile), mode]


def spec(command: list[str]) -> str:
    return "cmd:" + " ".join(f"'{part}'" for part in command)


def state(pid: int) -> str | None:
    """``pid``'s state letter, None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()[0].decode()


def running(pid: int) -> bool:
    return state(pid) not in (None, "Z")


def helpers(pidfile: Path) -> list[int]:
    return [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []


def tagged() -> list[int]:
    """Running processes whose environment bears a tag of this test process's engines."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and running(int(name)):
            with contextlib.suppress(OSError):
                environ = Path(f"/proc/{name}/environ").read_bytes()
                if f"{processes.TAG_VARIABLE}={processes.OWNER}".encode() in environ:
                    found.append(int(name))
    return found


def left_over(pids: list[int], within: float = 3.0) -> list[int]:
    """Those of ``pids`` still running ``within`` seconds from now (a kill takes a moment)."""
    deadline = time.monotonic() + within
    while (alive := [p for p in pids if running(p)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive


@pytest.fixture
def pidfile(tmp_path: Path) -> object:
    path = tmp_path / "pids"
    yield path
    for pid in helpers(path):  # the test's to clean up, where the referee failed
        with contextlib.suppress(ProcessLookupError):
            group = os.getpgid(pid)
            if group != os.getpgid(0):
                os.killpg(group, signal.SIGKILL)  # a spawner's children too
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(
    ("how", "mode", "extra", "said"),
    [
        ("setsid", "good", [], "forfeits: none"),
        ("double-fork", "good", ["--jobs", "2"], "forfeits: none"),
        ("setsid", "garbage", [], "not JSON"),
        ("double-fork", "exit", [], "exit status 4"),
        ("setsid", "silent", ["--clock-ms", "50", "--hard-limit-ms", "1050"], "timeout"),
    ],
)
def test_a_match_leaves_no_process_its_engine_started(
    pidfile: Path, how: str, mode: str, extra: list[str], said: str
) -> None:
    done = run("match", spec(daemon(how, pidfile, mode)), "random", "--games", "2", *extra)
    assert done.returncode == 0, done.stderr
    assert said in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert helpers(pidfile), "the engine left no helper (the test proves nothing)"
    assert left_over(helpers(pidfile)) == []


def test_a_tournament_leaves_no_process_its_engine_started(pidfile: Path) -> None:
    args = ["tournament", spec(daemon("double-fork", pidfile)), "random", "--games-per-pair", "2"]
    done = run(*args)
    assert done.returncode == 0, done.stderr
    assert helpers(pidfile)
    assert left_over(helpers(pidfile)) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_match_stopped_by_sigterm_leaves_no_process_its_engine_started(
    pidfile: Path, jobs: str
) -> None:
    """The engine ignores SIGTERM and hangs at its first act; the match is stopped meanwhile."""
    command = [*CLI, "match", spec(daemon("setsid", pidfile, "deaf")), "random"]
    command += ["--games", "2", "--jobs", jobs, "--clock-ms", "20000"]
    match = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while not helpers(pidfile) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert helpers(pidfile), "the engine never started"
        time.sleep(0.3)  # at its first act
        match.send_signal(signal.SIGTERM)
        _, err = match.communicate(timeout=20)
    finally:
        match.kill()
        match.wait()
    assert "Traceback" not in err
    assert left_over(helpers(pidfile)) == []


def test_closing_an_engine_stops_a_helper_that_keeps_forking(pidfile: Path) -> None:
    engine = Engine.popen(daemon("spawner", pidfile))
    deadline = time.monotonic() + 10
    while len(tagged()) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)  # the engine, its spawner and a few of the spawner's children
    assert len(tagged()) >= 4
    engine.close()
    assert left_over(tagged()) == []


def test_kill_all_engines_stops_what_the_engines_started(pidfile: Path) -> None:
    engines = [Engine.popen(daemon("double-fork", pidfile)) for _ in range(2)]
    try:
        assert len(helpers(pidfile)) == 2
        kill_all_engines()
        assert left_over(helpers(pidfile)) == []
    finally:
        for engine in engines:
            engine.close()


def test_an_engine_keeps_the_tag_of_the_referee_above_it() -> None:
    env = processes.environment("b", {"PATH": "/bin", processes.TAG_VARIABLE: "a"})
    assert env == {"PATH": "/bin", processes.TAG_VARIABLE: "a,b"}
    assert processes.environment("a", {})[processes.TAG_VARIABLE] == "a"


def test_stop_never_touches_this_process_nor_a_stranger() -> None:
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        processes.stop([os.getpid()], [processes.new_tag()], prefix=processes.OWNER)
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()


def test_stop_leaves_a_root_that_is_not_a_child_of_ours() -> None:
    """A root's pid, once waited for, may be another process's: only our children are roots."""
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & echo $!; wait"], stdout=subprocess.PIPE)
    assert shell.stdout is not None
    grandchild = int(shell.stdout.readline())
    try:
        processes.stop([grandchild])
        assert running(grandchild)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(grandchild, signal.SIGKILL)
        shell.kill()
        shell.wait()


def test_an_interrupt_while_close_waits_for_quit_still_stops_the_engine() -> None:
    """A Ctrl-C (or the match's SIGTERM, raised as one) landing while close waits for an engine
    deaf to ``quit`` left the engine running: the kill came after the wait."""
    engine = Engine.popen([sys.executable, str(HOSTILE), "deaf"])
    transport = engine.transport
    assert isinstance(transport, ProcessTransport)

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)  # inside close's half a second for quit
    try:
        with pytest.raises(KeyboardInterrupt):
            engine.close()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    survivor = running(transport._proc.pid)
    if survivor:
        transport.kill()
    assert not survivor


class OneAnswer:
    """A transport whose engine says hello, then answers ``line`` to the act."""

    def __init__(self, line: str) -> None:
        self.lines = ['{"type": "hello", "name": "x", "version": "1"}']
        self.line = line

    def send(self, line: str) -> None:
        if '"act"' in line:
            self.lines.append(self.line)

    def receive(self, timeout: float | None) -> str | None:
        if not self.lines:
            raise TimeoutError
        return self.lines.pop(0)

    def failure(self) -> EngineError:
        return EngineError(FailureKind.EXIT, "exited (status 0)")

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("move", "says"),
    [
        ("", 'no "move"'),
        (', "move": ["P1"]', '"move" is a JSON array'),
        (', "move": {"card": 1}', '"move" is a JSON object'),
        (', "move": 17', '"move" is 17'),
        (', "move": null', '"move" is null'),
    ],
)
def test_a_move_message_without_a_move_says_what_was_expected(move: str, says: str) -> None:
    """A list or an object was reported as '…', with no word of what a move should be."""
    engine = Engine(OneAnswer('{"type": "move"' + move + "}"))
    start = State.new(3)
    with pytest.raises(EngineError) as info:
        engine.act(start.view(0), start.legal_moves, clock_ms=100)
    assert info.value.kind == FailureKind.GARBAGE
    assert says in str(info.value)
    assert 'the move\'s notation as a string, e.g. "P1"' in str(info.value)


class Interrupting:
    """Stands for the set of live engines: a Ctrl-C lands as the new engine is added to it."""

    def add(self, transport: object) -> None:
        raise KeyboardInterrupt

    def discard(self, transport: object) -> None:
        pass

    def __iter__(self) -> Iterator[object]:
        return iter(())


REAL_POPEN = subprocess.Popen


def interrupted_popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
    """Popen, a Ctrl-C landing as it returns (the engine started, its Popen lost); the engine
    (daemon_engine.py) is let run until it has started its helper."""
    REAL_POPEN(*args, **kwargs)
    pidfile = Path(args[0][2])
    deadline = time.monotonic() + 10
    while not helpers(pidfile) and time.monotonic() < deadline:
        time.sleep(0.02)
    raise KeyboardInterrupt


def by_command(word: str) -> list[int]:
    """Running processes with ``word`` in their command line."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and running(int(name)):
            with contextlib.suppress(OSError):
                if word.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    found.append(int(name))
    return found


@pytest.mark.parametrize("where", ["in Popen", "after Popen"])
def test_an_interrupt_as_an_engine_starts_leaves_it_not_running(
    monkeypatch: pytest.MonkeyPatch, pidfile: Path, where: str
) -> None:
    """A Ctrl-C (or the match's SIGTERM) landing while an engine was being started left it
    running: nothing held it yet to close it."""
    if where == "in Popen":
        monkeypatch.setattr("hanamikoji.engine.subprocess.Popen", interrupted_popen)
    else:
        monkeypatch.setattr(engine_module, "_LIVE", Interrupting())
    try:
        with pytest.raises(KeyboardInterrupt):
            Engine.popen(daemon("setsid", pidfile, "silent"))
    finally:
        monkeypatch.undo()
    left: set[int] = set()
    deadline = time.monotonic() + 0.5  # (a process just started may not show at once)
    while time.monotonic() < deadline:
        left.update(by_command(str(pidfile)))
        time.sleep(0.02)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert left == set()
    if where == "in Popen":
        assert helpers(pidfile)  # (it had started, and was stopped)


def test_kill_all_engines_stops_an_engine_whose_start_it_interrupted(
    monkeypatch: pytest.MonkeyPatch, pidfile: Path
) -> None:
    """A worker's SIGTERM (its pool stopped) runs kill_all_engines and exits at once; landing
    inside an engine's Popen, it left that engine and its helper running: it knew only the
    engines already started."""
    seen: list[int] = []

    def popen_then_stopped(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        REAL_POPEN(*args, **kwargs)
        deadline = time.monotonic() + 10
        while not helpers(pidfile) and time.monotonic() < deadline:
            time.sleep(0.02)
        kill_all_engines()  # as the worker's handler does, before os._exit
        seen.extend(left_over(by_command(str(pidfile))))
        raise KeyboardInterrupt

    monkeypatch.setattr("hanamikoji.engine.subprocess.Popen", popen_then_stopped)
    try:
        with pytest.raises(KeyboardInterrupt):
            Engine.popen(daemon("setsid", pidfile))
    finally:
        monkeypatch.undo()
        for pid in by_command(str(pidfile)):
            os.kill(pid, signal.SIGKILL)
    assert helpers(pidfile)
    assert seen == []


TWICE = """
import json, sys, time
for raw in sys.stdin:
    msg = json.loads(raw)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "twice", "version": "1"}), flush=True)
    elif msg["type"] == "act":
        for _ in range(2):
            print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
        time.sleep(1)  # the next act unread meanwhile: its second line cannot pass for an answer
"""


def test_a_second_answer_is_named_as_one() -> None:
    """A line out of turn said when it came ('when no answer was due', 'before reading the
    question'), but not what an engine may write; one written after the answer to the question
    before was said to come 'before reading the question' even when the engine had read it."""
    engine = Engine.popen([sys.executable, "-c", TWICE])
    start = State.new(13)
    try:
        engine.new_game(0, start.rules, "referee")
        engine.act(start.view(0), start.legal_moves, clock_ms=1000)
        with pytest.raises(EngineError) as info:  # (its second line came before or after)
            engine.act(start.view(0), start.legal_moves, clock_ms=1000)
    finally:
        engine.close()
    assert info.value.kind == FailureKind.GARBAGE
    assert "an engine writes one answer to each act" in str(info.value)


def test_a_banner_before_hello_says_where_it_belongs() -> None:
    with pytest.raises(EngineError) as info:
        Engine.popen(["sh", "-c", "echo 'My Engine 1.0'; sleep 10"])  # (hello left unread)
    assert "'My Engine 1.0'" in str(info.value)
    assert "a banner or a log to standard error" in str(info.value)
