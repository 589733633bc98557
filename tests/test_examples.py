"""The example engines in examples/ and the transcript in docs/protocol.md.

A tiny referee, written here with the public library only (State, views, legal moves,
Move.parse), drives each example engine as a subprocess through whole games against the
built-in random agent: every answer must be a legal move and every game must finish. Then the
things the protocol asks of every engine: a complaint on standard error for a line that is not
JSON (and carrying on), blank lines and unknown keys ignored, exit with status 0 at ``quit`` and
at the end of the input. Last, the transcript in docs/protocol.md must be exactly what
docs/make_transcript.py prints, so the page can't go stale.
"""

from __future__ import annotations

import json
import queue
import random
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from hanamikoji.ai import make_agent
from hanamikoji.moves import Move
from hanamikoji.state import Rules, State
from hanamikoji.view import View

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
DOCS = REPO / "docs"
TIMEOUT = 20.0
"""Seconds to wait for any one answer or exit (generous: a slow CI machine starting Node)."""


class Engine:
    """An engine subprocess with reader threads, so that no read can hang the test."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(
            command,
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        assert self.proc.stderr is not None
        self.stdin = self.proc.stdin
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.errors: list[bytes] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.proc.stdout, self.lines.put)),
            threading.Thread(target=self._read, args=(self.proc.stderr, self.errors.append)),
        ]
        for reader in self._readers:
            reader.daemon = True
            reader.start()

    @staticmethod
    def _read(stream: IO[bytes], put: Any) -> None:
        for line in stream:
            put(line)
        put(b"")  # end of output

    def send_line(self, text: str) -> None:
        """Write one line (a newline is added) to the engine's standard input."""
        self.stdin.write(text.encode("utf-8") + b"\n")
        self.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        """Write one message."""
        self.send_line(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        """The engine's next line of output, which must be one JSON object."""
        try:
            line = self.lines.get(timeout=TIMEOUT)
        except queue.Empty:
            pytest.fail(f"the engine gave no answer within {TIMEOUT} s; stderr: {self.stderr()}")
        assert line, f"the engine closed its output; stderr: {self.stderr()}"
        message = json.loads(line.decode("utf-8"))
        assert isinstance(message, dict), f"not a JSON object: {line!r}"
        return message

    def hello(self) -> None:
        """The handshake."""
        self.send({"type": "hello", "protocol": "hanamikoji-engine/1"})
        answer = self.receive()
        assert answer["type"] == "hello"
        assert isinstance(answer["name"], str) and answer["name"]
        assert isinstance(answer["version"], str) and answer["version"]

    def finish(self, *, close: bool = True) -> int:
        """Wait for the engine to exit (closing its input first unless told not to).

        Returns the exit status, and checks it wrote nothing more to standard output.
        """
        if close:
            self.stdin.close()
        status = self.proc.wait(timeout=TIMEOUT)
        for reader in self._readers:
            reader.join(timeout=TIMEOUT)
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get())
        assert rest == [b""], f"unexpected output: {rest!r}"
        return status

    def stderr(self) -> str:
        """What the engine has written to standard error so far."""
        return b"".join(self.errors).decode("utf-8", errors="replace")

    def kill(self) -> None:
        """Make sure the process is gone."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def _command(kind: str) -> list[str]:
    if kind == "python":
        return [sys.executable, str(EXAMPLES / "random_engine.py")]
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is missing (install Node.js to test examples/random_engine.js)")
    return [node, str(EXAMPLES / "random_engine.js")]


@pytest.fixture(params=["python", "node"])
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """Each example engine, started; killed afterwards whatever happened."""
    started = Engine(_command(request.param))
    try:
        yield started
    finally:
        started.kill()


def referee_game(engine: Engine, seed: int, seat: int, rules: Rules) -> tuple[State, int]:
    """One whole game: the engine plays ``seat``, the random agent the other seat.

    Returns the finished state and how many decisions the engine made.
    """
    state = State.new(seed, rules=rules)
    opponent = make_agent("random")
    rng = random.Random(seed)
    engine.send({"type": "game", "seat": seat, "rules": rules.to_json(), "opponent": "random"})
    asked = 0
    while not state.is_over:
        legal = state.legal_moves
        if state.to_move == seat:
            engine.send(
                {
                    "type": "act",
                    "view": state.view(seat).to_json(),
                    "legal": [str(m) for m in legal],
                    "clock_ms": 1000,
                }
            )
            answer = engine.receive()
            assert answer["type"] == "move", answer
            move = Move.parse(answer["move"])
            assert move in legal, f"{move} is not legal here: {[str(m) for m in legal]}"
            assert answer["move"] == str(move), "engines write the canonical form"
            asked += 1
        else:
            move = opponent.choose(state.view(1 - seat), legal, rng, None)
        state = state.apply(move)
    outcome = state.outcome
    assert outcome is not None
    engine.send(
        {
            "type": "result",
            "view": state.view(seat).to_json(),
            "winner": outcome.winner,
            "reason": outcome.reason.value,
        }
    )
    return state, asked


def test_example_engine_plays_whole_games_in_one_process(engine: Engine) -> None:
    engine.hello()
    games = [(1, 0, Rules()), (2, 1, Rules()), (3, 0, Rules(max_rounds=1)), (4, 1, Rules())]
    for seed, seat, rules in games:
        state, asked = referee_game(engine, seed, seat, rules)
        assert state.is_over
        # 4 actions a round, plus a pick for each of the opponent's 2 offers.
        assert asked == 6 * state.round
    engine.send({"type": "quit"})
    assert engine.finish(close=False) == 0, "the engine exits at quit, its input still open"
    assert engine.stderr() == ""


def test_a_line_that_is_not_json_gets_a_complaint_and_the_engine_carries_on(
    engine: Engine,
) -> None:
    engine.send_line("this is not JSON {")
    engine.hello()
    engine.send_line('["an array", "is not an object"]')
    state, _ = referee_game(engine, 5, 0, Rules(max_rounds=1))
    assert state.is_over
    assert engine.finish() == 0
    complaints = engine.stderr().splitlines()
    assert len(complaints) == 2, complaints
    assert "this is not JSON" in complaints[0]


def test_blank_lines_and_unknown_keys_are_ignored(engine: Engine) -> None:
    for blank in ("", "   ", "\t", " \r"):
        engine.send_line(blank)
    engine.send({"type": "hello", "protocol": "hanamikoji-engine/1", "colour": "red"})
    assert engine.receive()["type"] == "hello"
    engine.send({"type": "a-message-from-the-future", "payload": [1, 2, 3]})
    state = State.new(6)
    engine.send({"type": "game", "seat": 0, "rules": {"max_rounds": 3, "x": 1}, "opponent": None})
    engine.send_line("")
    engine.send(
        {
            "type": "act",
            "view": {**state.view(0).to_json(), "mood": "calm"},
            "legal": [str(m) for m in state.legal_moves],
            "clock_ms": 1000,
            "hint": "ignore me",
        }
    )
    assert Move.parse(engine.receive()["move"]) in state.legal_moves
    engine.send({"type": "quit", "why": "done"})
    assert engine.finish(close=False) == 0
    assert engine.stderr() == "", "blank lines and unknown keys are not complained about"


def test_end_of_input_makes_the_engine_exit_with_status_0(engine: Engine) -> None:
    engine.hello()
    engine.send({"type": "game", "seat": 1, "rules": {"max_rounds": 3}, "opponent": "random"})
    assert engine.finish() == 0  # mid-game: the referee went away


@pytest.mark.parametrize("kind", ["python", "node"])
def test_empty_input_makes_the_engine_exit_with_status_0(kind: str) -> None:
    engine = Engine(_command(kind))
    try:
        assert engine.finish() == 0
        assert engine.stderr() == ""
    finally:
        engine.kill()


# --- docs/protocol.md -------------------------------------------------------------------------

BEGIN = "<!-- transcript:begin"
END = "<!-- transcript:end -->"


def _embedded_transcript() -> str:
    text = (DOCS / "protocol.md").read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    start = text.index("\n", text.index(BEGIN)) + 1
    return text[start : text.index(END)]


def test_the_transcript_in_protocol_md_is_what_make_transcript_prints() -> None:
    made = subprocess.run(
        [sys.executable, str(DOCS / "make_transcript.py")],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert made.stdout.decode("utf-8") == _embedded_transcript(), (
        "docs/protocol.md is stale: run `.venv/bin/python docs/make_transcript.py --write`"
    )


def test_the_transcript_follows_the_protocol() -> None:
    lines = _embedded_transcript().splitlines()
    assert lines[0] == "```text" and lines[-1] == "```"
    messages = [
        (line[0], json.loads(line[2:])) for line in lines[1:-1] if not line.startswith("# ")
    ]
    assert all(arrow in "→←" for arrow, _ in messages)
    kinds = [(arrow, m["type"]) for arrow, m in messages]
    assert kinds[:3] == [("→", "hello"), ("←", "hello"), ("→", "game")]
    assert kinds[-2:] == [("→", "result"), ("→", "quit")]
    seat = messages[2][1]["seat"]
    body = messages[3:-2]
    assert body and len(body) % 2 == 0
    for (ask, act), (answer, move) in zip(body[::2], body[1::2], strict=True):
        assert (ask, act["type"], answer, move["type"]) == ("→", "act", "←", "move")
        view = View.from_json(act["view"])
        assert view.seat == view.to_move == seat
        assert act["legal"] == [str(m) for m in view.legal_moves]
        assert move["move"] in act["legal"]
    result = messages[-2][1]
    assert View.from_json(result["view"]).phase == "over"
    assert result["reason"] in ("charm", "geisha", "round-limit", "draw")


@pytest.mark.parametrize("kind", ["python", "node"])
def test_the_match_runner_plays_the_example_engine(kind: str) -> None:
    import shlex

    from hanamikoji.match import MatchConfig, run_match

    command = "cmd:" + shlex.join(_command(kind))
    summary = run_match(MatchConfig("greedy", command, games=6, seed=2, clock_ms=500))
    assert summary.games == 6
    assert summary.forfeits == []
    assert summary.wins[0] + summary.wins[1] + summary.draws == 6
