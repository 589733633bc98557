"""The engine protocol ``hanamikoji-engine/1`` (interfaces.md §2), both ways.

- :func:`serve` runs an agent as an engine on standard input/output.
- :class:`Engine` drives an external engine: start a command, handshake, send views, read moves,
  and name every failure (:class:`EngineError` with a ``kind``). It talks through a
  :class:`Transport`, so tests can script the conversation without a process.

>>> from hanamikoji.ai import make_agent
>>> import io
>>> out = io.StringIO()
>>> hello = '{"type": "hello", "protocol": "hanamikoji-engine/1"}\\n'
>>> serve(make_agent("random"), stdin=io.StringIO(hello), stdout=out, stderr=io.StringIO())
0
>>> out.getvalue()
'{"type": "hello", "name": "random", "version": "0.1.0"}\\n'
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import random
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from hanamikoji import __version__
from hanamikoji.ai.base import Agent, start_game
from hanamikoji.ai.prepare import prepare
from hanamikoji.moves import InvalidMoveError, Move
from hanamikoji.state import Rules
from hanamikoji.terminal import printable
from hanamikoji.view import View

PROTOCOL = "hanamikoji-engine/1"
_LIVE: weakref.WeakSet[ProcessTransport] = weakref.WeakSet()
GRACE_MS = 1000
"""Time an engine may take beyond ``clock_ms`` before it is forfeited (the protocol's minimum)."""

__all__ = [
    "GRACE_MS",
    "PROTOCOL",
    "Engine",
    "EngineError",
    "EngineMove",
    "FailureKind",
    "ProcessTransport",
    "Transport",
    "serve",
]


# -- serving an agent -----------------------------------------------------------------------


def serve(
    agent: Agent,
    *,
    seed: int | None = None,
    name: str | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Serve ``agent`` as an engine until ``quit`` or end of input; returns the exit status.

    Each game's random numbers come from ``seed`` and the game's number, so a seeded engine plays
    the same moves for the same views. An agent that searches with numba kernels gets them ready
    first (:func:`~hanamikoji.ai.prepare.prepare`), so ``hello`` is answered when the engine can
    keep to its clock. A malformed line (not UTF-8, not JSON, a number past Python's limits, a
    bad message) gets a one-line complaint on ``stderr`` and is otherwise ignored.
    """
    # Standard input is read as UTF-8 (the protocol's), whatever the locale; a byte that is not
    # UTF-8 survives as a lone surrogate, so its line can be refused alone.
    inp = stdin if stdin is not None else _utf8(sys.stdin)
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    base = seed if seed is not None else random.SystemRandom().randrange(2**63)
    games = 0
    rng = random.Random(f"{base}:{games}")

    def answer(obj: dict[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    def complain(number: int, why: str) -> None:
        # ``why`` may quote the referee's input: escaped, so a log read on a terminal is safe.
        err.write(f"{agent.name}: line {number}: {printable(why)}\n")
        err.flush()

    def say(notice: str) -> None:
        err.write(f"{agent.name}: {notice}\n")
        err.flush()

    prepare(agent, say)
    for number, raw in enumerate(inp, start=1):
        line = raw.strip()
        if not line:
            continue
        if not _is_utf8(line):
            complain(number, f"not UTF-8 text, ignored: {line[:80]!r}")
            continue
        try:
            msg = json.loads(line, parse_constant=_not_json)
        except RecursionError:
            complain(number, "JSON nested too deeply, ignored")
            continue
        except ValueError as e:  # a JSONDecodeError, or an integer past int's digit limit
            complain(number, f"not JSON ({e}), ignored: {line[:80]!r}")
            continue
        if not isinstance(msg, dict):
            complain(number, "not a JSON object, ignored")
            continue
        kind = msg.get("type")
        if kind == "hello":
            answer({"type": "hello", "name": name or agent.name, "version": __version__})
        elif kind == "game":
            games += 1
            rng = random.Random(f"{base}:{games}")
            seat = msg.get("seat")
            try:
                rules = Rules.from_json(msg.get("rules"))
            except ValueError as e:
                complain(number, f"bad rules, the defaults apply: {e}")
                rules = Rules()
            start_game(agent, seat if seat in (0, 1) else 0, rules)
        elif kind == "act":
            try:
                move = _act(agent, msg, rng)
            except ValueError as e:
                complain(number, f"bad act message, ignored: {e}")
                continue
            answer({"type": "move", "move": str(move)})
        elif kind == "result":
            pass
        elif kind == "quit":
            return 0
        else:
            complain(number, f"unknown message type {kind!r}, ignored")
    return 0


def _act(agent: Agent, msg: dict[str, Any], rng: random.Random) -> Move:
    view = View.from_json(msg.get("view"))
    legal_text = msg.get("legal")
    if not isinstance(legal_text, list) or not legal_text:
        raise ValueError("'legal' must be a non-empty list of moves")
    legal = [Move.parse(m) if isinstance(m, str) else _not_a_move(m) for m in legal_text]
    clock = msg.get("clock_ms")
    clock_ms = clock if isinstance(clock, int) and not isinstance(clock, bool) else None
    try:
        move = agent.choose(view, legal, rng, clock_ms)
    except Exception as e:  # e.g. a legal list that does not fit the view
        raise ValueError(f"the agent could not choose: {type(e).__name__}: {e}") from None
    if move not in legal:
        raise ValueError(f"the agent chose {move}, which is not in 'legal'")
    return move


def _not_a_move(value: object) -> Move:
    raise InvalidMoveError(f"a move must be a string, got {value!r}")


def _not_json(constant: str) -> Any:
    # Python's json reads NaN and Infinity; JSON has no such numbers.
    raise ValueError(f"{constant} is not a JSON number")


def _utf8(stream: TextIO) -> TextIO:
    """``stream`` re-read as UTF-8, undecodable bytes kept as lone surrogates."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # not a file (a test's StringIO): already text
        return stream
    return io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape")


def _is_utf8(line: str) -> bool:
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: a byte that was not UTF-8
        return False
    return True


# -- driving an external engine -------------------------------------------------------------


class FailureKind:
    """The ways an engine can fail (the ``kind`` of an EngineError)."""

    CRASH = "crash"
    """The process died with an error status or a signal."""
    EXIT = "exit"
    """The process ended normally, or closed its output, when an answer was due."""
    GARBAGE = "garbage"
    """A line that is not a JSON object, not the expected message, or not a move."""
    ILLEGAL = "illegal"
    """A well-formed move that is not among the legal ones."""
    TIMEOUT = "timeout"
    """No answer within the hard limit."""
    START = "start"
    """The command could not be started, or did not complete the handshake."""


class EngineError(Exception):
    """An external engine failed; ``kind`` is one of :class:`FailureKind`'s names."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Transport(Protocol):
    """A line-oriented, two-way channel to an engine."""

    def send(self, line: str) -> None:
        """Send one line (without its newline); raises EngineError if the engine is gone."""
        ...

    def receive(self, timeout: float | None) -> str | None:
        """The next line (without newline), None at end of output; TimeoutError past ``timeout``."""
        ...

    def failure(self) -> EngineError:
        """Why the engine's output ended (crash or exit), once it has."""
        ...

    def close(self) -> None:
        """Stop the engine and release everything."""
        ...


def kill_all_engines() -> None:
    """Stop every engine process this process has started (for signal handlers)."""
    for transport in list(_LIVE):
        transport.kill()


class ProcessTransport:
    """An engine as a subprocess: lines over its stdin/stdout, stderr kept for diagnostics."""

    def __init__(self, command: str | Sequence[str], *, cwd: str | None = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise EngineError(FailureKind.START, "empty engine command")
        self.command = " ".join(argv)
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                cwd=cwd,
                start_new_session=True,  # its own process group: we can stop all it started
            )
        except OSError as e:
            raise EngineError(FailureKind.START, f"cannot start {self.command!r}: {e}") from None
        _LIVE.add(self)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        threading.Thread(target=self._pump_out, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()

    def _pump_out(self) -> None:
        assert self._proc.stdout is not None
        try:
            for line in self._proc.stdout:
                self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _pump_err(self) -> None:
        assert self._proc.stderr is not None
        try:
            for line in self._proc.stderr:
                self._stderr.append(line.rstrip())
        except (OSError, ValueError):
            pass

    def send(self, line: str) -> None:
        """Write one line to the engine's standard input."""
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self.failure() from None

    def receive(self, timeout: float | None) -> str | None:
        """The next line of the engine's standard output."""
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None

    def failure(self) -> EngineError:
        """Crash or exit, with the status and the last lines of standard error."""
        try:
            code = self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return EngineError(FailureKind.EXIT, "closed its output but is still running")
        tail = " | ".join(list(self._stderr)[-3:])
        said = f"; stderr: {tail[-300:]}" if tail else ""
        if code == 0:
            return EngineError(FailureKind.EXIT, f"exited (status 0){said}")
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return EngineError(FailureKind.CRASH, f"crashed ({name}){said}")
        return EngineError(FailureKind.CRASH, f"crashed (exit status {code}){said}")

    def kill(self) -> None:
        """Stop the engine's process group at once, with no I/O (safe in a signal handler)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines the engine wrote to standard error."""
        return list(self._stderr)

    def close(self) -> None:
        """Ask it to quit, then stop its whole process group."""
        proc = self._proc
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps({"type": "quit"}) + "\n")
                proc.stdin.flush()
                proc.wait(timeout=0.5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
            proc.wait()
        else:
            # anything it left running in its group goes too
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


@dataclass(frozen=True)
class EngineMove:
    """An engine's answer: the move, its optional ``info`` object and the time it took."""

    move: Move
    info: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0


class Engine:
    """A synchronous client for one external engine (one process, many games).

    >>> # with Engine.popen("hanamikoji engine greedy") as engine:
    >>> #     engine.new_game(0, Rules(), "me")
    >>> #     answer = engine.act(state.view(0), state.legal_moves, clock_ms=500)
    """

    def __init__(self, transport: Transport, *, handshake_timeout: float = 10.0) -> None:
        self.transport = transport
        self.name = "?"
        self.version = "?"
        self._hello(handshake_timeout)

    @classmethod
    def popen(cls, command: str | Sequence[str], *, handshake_timeout: float = 10.0) -> Engine:
        """Start ``command`` and complete the handshake."""
        transport = ProcessTransport(command)
        try:
            return cls(transport, handshake_timeout=handshake_timeout)
        except BaseException:
            transport.close()
            raise

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _hello(self, timeout: float) -> None:
        try:
            self.transport.send(json.dumps({"type": "hello", "protocol": PROTOCOL}))
            msg = self._read(timeout, expect="hello")
        except EngineError as e:
            raise EngineError(FailureKind.START, f"no hello from the engine: {e}") from None
        name, version = msg.get("name"), msg.get("version")
        self.name = name if isinstance(name, str) and name else "?"
        self.version = version if isinstance(version, str) else "?"

    def new_game(self, seat: int, rules: Rules, opponent: str | None) -> None:
        """Tell the engine a game starts and which seat it plays."""
        self._send({"type": "game", "seat": seat, "rules": rules.to_json(), "opponent": opponent})

    def act(
        self,
        view: View,
        legal: Sequence[Move],
        clock_ms: int,
        *,
        hard_limit_ms: int | None = None,
    ) -> EngineMove:
        """Ask for a move; an EngineError names the failure (timeout past the hard limit, ...)."""
        limit = hard_limit_ms if hard_limit_ms is not None else clock_ms + GRACE_MS
        self._check_silent()
        start = time.monotonic()
        self._send(
            {
                "type": "act",
                "view": view.to_json(),
                "legal": [str(m) for m in legal],
                "clock_ms": clock_ms,
            }
        )
        msg = self._read(limit / 1000.0, expect="move")
        elapsed = (time.monotonic() - start) * 1000.0
        text = msg.get("move")
        if not isinstance(text, str):
            raise EngineError(FailureKind.GARBAGE, f"a move message without a move: {msg!r:.100}")
        try:
            move = Move.parse(text)
        except InvalidMoveError:
            raise EngineError(FailureKind.GARBAGE, f"not a move: {text!r:.40}") from None
        if move not in legal:
            raise EngineError(FailureKind.ILLEGAL, f"illegal move {move}")
        info = msg.get("info")
        return EngineMove(move, info if isinstance(info, dict) else {}, elapsed)

    def result(self, view: View, winner: int | None, reason: str) -> None:
        """Tell the engine how the game ended."""
        self._send({"type": "result", "view": view.to_json(), "winner": winner, "reason": reason})

    def quit(self) -> None:
        """Ask the engine to exit (it may already have)."""
        with contextlib.suppress(EngineError):
            self._send({"type": "quit"})

    def close(self) -> None:
        """Stop the engine."""
        self.transport.close()

    def _check_silent(self) -> None:
        """An engine writes nothing unasked: a line waiting now came after game or result."""
        while True:
            try:
                line = self.transport.receive(0)
            except TimeoutError:
                return
            if line is None:
                raise self.transport.failure()
            if line.strip():
                raise EngineError(
                    FailureKind.GARBAGE, f"wrote {line[:60]!r} when no answer was due"
                )

    def _send(self, obj: dict[str, Any]) -> None:
        self.transport.send(json.dumps(obj))

    def _read(self, timeout: float, *, expect: str) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineError(FailureKind.TIMEOUT, f"no answer within {timeout * 1000:.0f} ms")
            try:
                line = self.transport.receive(left)
            except TimeoutError:
                raise EngineError(
                    FailureKind.TIMEOUT, f"no answer within {timeout * 1000:.0f} ms"
                ) from None
            if line is None:
                raise self.transport.failure()
            if not line.strip():
                continue  # referees ignore blank lines
            try:
                msg = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                raise EngineError(FailureKind.GARBAGE, f"not JSON: {line[:60]!r}") from None
            if not isinstance(msg, dict):
                raise EngineError(FailureKind.GARBAGE, f"not a JSON object: {line[:60]!r}")
            if msg.get("type") != expect:
                raise EngineError(
                    FailureKind.GARBAGE, f"expected a {expect!r} message, got {line[:60]!r}"
                )
            return msg
