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

import array
import contextlib
import errno
import io
import json
import math
import os
import queue
import random
import select
import selectors
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from hanamikoji import __version__, processes
from hanamikoji.ai import declared_options
from hanamikoji.ai.base import Agent, start_game
from hanamikoji.ai.prepare import prepare
from hanamikoji.moves import InvalidMoveError, Move
from hanamikoji.state import Rules
from hanamikoji.terminal import printable
from hanamikoji.view import View

try:  # POSIX: how many bytes a pipe holds, to tell an answer from a line out of turn
    import fcntl
    import termios

    _FIONREAD: int | None = termios.FIONREAD
except ImportError:
    _FIONREAD = None

PROTOCOL = "hanamikoji-engine/1"
_LIVE: weakref.WeakSet[ProcessTransport] = weakref.WeakSet()
GRACE_MS = 1000
"""Time an engine may take beyond ``clock_ms`` before it is forfeited (the protocol's minimum)."""

__all__ = [
    "GRACE_MS",
    "HELLO_TIMEOUT_S",
    "LINE_LIMIT",
    "PROTOCOL",
    "STDERR_TAIL",
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
    err: TextIO | None = stderr if stderr is not None else sys.stderr  # None: closed
    base = seed if seed is not None else random.SystemRandom().randrange(2**63)
    games = 0
    rng = random.Random(f"{base}:{games}")

    def answer(obj: dict[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    def log(text: str) -> None:
        # Standard error is for logs only: one that is closed or full (a referee that gave the
        # engine none, a full disk) must not end the games, which go on without the log.
        if err is None:
            return
        with contextlib.suppress(OSError, ValueError):
            err.write(text + "\n")
            err.flush()

    def complain(number: int, why: str) -> None:
        # ``why`` may quote the referee's input: escaped, so a log read on a terminal is safe.
        log(f"{agent.name}: line {number}: {printable(why)}")

    def say(notice: str) -> None:
        log(f"{agent.name}: {notice}")

    prepare(agent, say)
    options = declared_options(agent)
    for number, raw in enumerate(_bounded_lines(inp, LINE_LIMIT), start=1):
        if raw is None:
            complain(number, f"a line over {LINE_LIMIT} characters, ignored")
            continue
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
            if msg.get("protocol") != PROTOCOL:  # answered all the same: the referee decides
                complain(number, f"hello for protocol {msg.get('protocol')!r}; this is {PROTOCOL}")
            hello: dict[str, Any] = {
                "type": "hello",
                "name": name or agent.name,
                "version": __version__,
            }
            if options:  # an optional field: what the agent can be set with (docs/protocol.md)
                hello["options"] = options
            answer(hello)
        elif kind == "game":
            games += 1
            rng = random.Random(f"{base}:{games}")
            seat = msg.get("seat")
            if seat not in (0, 1) or isinstance(seat, bool):
                complain(number, f"game seat must be 0 or 1, got {seat!r}; seat 0 is assumed")
                seat = 0
            try:
                rules = Rules.from_json(msg.get("rules"))
            except ValueError as e:
                complain(number, f"bad rules, the defaults apply: {e}")
                rules = Rules()
            start_game(agent, seat, rules)
        elif kind == "act":
            clock_ms, problem = _clock(msg.get("clock_ms"))
            if problem:
                complain(number, problem)
            try:
                move = _act(agent, msg, rng, clock_ms)
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


def _bounded_lines(inp: TextIO, limit: int) -> Iterator[str | None]:
    """The lines of ``inp``; None for a line over ``limit`` characters, read and dropped in
    pieces, so that an endless line never fills memory."""
    while True:
        line = inp.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith("\n"):
            while True:
                rest = inp.readline(limit)
                if not rest or rest.endswith("\n"):
                    break
            yield None
            continue
        yield line


CLOCK_MAX_MS = 3_600_000
"""The longest a served agent aims to think over one decision, whatever ``clock_ms`` says (an
hour: a referee's slip such as microseconds for milliseconds must not hold it for days)."""


def _clock(value: object) -> tuple[int | None, str | None]:
    """An act's ``clock_ms`` as whole milliseconds (None: none given, the agent's default), and
    what was wrong with it, if anything: the act is still played, with the default or the cap."""
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        shown = "a JSON " + ("array" if isinstance(value, list) else "object")
        if not isinstance(value, list | dict):
            shown = json.dumps(value)[:40]
        return None, (
            f"clock_ms must be a number of milliseconds, 0 or more, got {shown}; "
            "the agent's default is used"
        )
    if value > CLOCK_MAX_MS:  # (a float past 1e308 is read as inf, and lands here too)
        shown = json.dumps(value)[:40]  # (not a float's format: a 400-digit integer is no float)
        return CLOCK_MAX_MS, (
            f"clock_ms {shown} is over an hour; the agent aims at {CLOCK_MAX_MS:,} ms"
        )
    return round(value), None


def _act(agent: Agent, msg: dict[str, Any], rng: random.Random, clock_ms: int | None) -> Move:
    view = View.from_json(msg.get("view"))
    if view.phase == "over":  # its hand and offer may still allow moves: no game to play them in
        raise ValueError("the view says the game is over (phase 'over'): there is no decision")
    legal_text = msg.get("legal")
    if not isinstance(legal_text, list) or not legal_text:
        raise ValueError("'legal' must be a non-empty list of moves")
    legal = [Move.parse(m) if isinstance(m, str) else _not_a_move(m) for m in legal_text]
    # A referee's mistake is named as one, not left to fail inside the agent.
    possible = set(view.legal_moves)
    unfit = [str(m) for m in legal if m not in possible]
    if unfit:
        if view.to_move != view.seat:
            raise ValueError(f"the view says it is not seat {view.seat}'s decision")
        shown = ", ".join(unfit[:3]) + (" ..." if len(unfit) > 3 else "")
        raise ValueError(
            f"'legal' does not fit the view: {shown} cannot be played with hand "
            f"{view.hand or '(none)'} and actions left {view.actions_left[view.seat] or '(none)'}"
        )
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
    """The process ended normally, or closed its output or its input, when an answer was due."""
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
        self.unasked = False
        """Set by :meth:`Engine.act` for a crash or exit before the engine had read the ``act``:
        it died before it was asked (after the previous game's ``result``, or reading ``game``)."""


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
    """Stop every engine process this process has started, and all they started (for signal
    handlers): one being started too, its Popen not yet returned, found by its tag."""
    transports = list(_LIVE)
    processes.stop(  # first: while the engines live, their children are found below them
        [t._proc.pid for t in transports if t._proc.returncode is None],
        prefix=processes.own_prefix(),
    )
    for transport in transports:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(transport._proc.pid, signal.SIGKILL)


HELLO_TIMEOUT_S = 60.0
"""How long a referee waits for ``hello``: a first run of a numba engine compiles (15 s here)."""
LINE_LIMIT = 1_000_000
"""The longest line (bytes, without its newline) an engine may write; a longer one is garbage."""
STDERR_TAIL = 65_536
"""How much of an engine's standard error is kept (its last bytes), for failure reports."""
_EXIT_GRACE = 0.5
"""Seconds to wait for the end of output once the engine has exited (a child may hold it)."""
_CHUNK = 65_536
_LOOK_S = 1.0
"""How often a referee waiting for an answer looks for one written without its newline."""
_UNENDED = "it wrote {!r} without ending the line: end each message with a newline (\\n) and flush"
_PENDING = 16
"""Lines kept unread at most: a flood of short lines is garbage too, and is not stored."""


@dataclass(frozen=True)
class _Line:
    """A line of the engine's output, as read: its text, or the reason it cannot be one."""

    text: str
    sent: int
    """Messages sent to the engine when the line was read (a line from before ours is no answer)."""
    early: bool
    """Read while part of our last message was still unread by the engine."""
    problem: str | None = None


BOM = "\ufeff"
"""The byte order mark, which no JSON line may start with (RFC 8259)."""

INPUT_CLOSED = "closed its input (standard input) but is still running"
"""Why an engine that stopped reading for good forfeits, whether a message to it failed or,
sent just before it closed its input, was lost and so never answered."""


class ProcessTransport:
    """An engine as a subprocess: lines over its stdin/stdout, the tail of stderr kept.

    The engine runs in a session (and process group) of its own, which is killed as a whole at
    close, with every process it started that left it (:mod:`~hanamikoji.processes`). Our ends
    of its pipes are raw descriptors read by one thread with ``select``, so that nothing here
    ever blocks on them: not a line that never ends (cut at :data:`LINE_LIMIT`), not standard
    error (read all along, only its last :data:`STDERR_TAIL` bytes kept), not a grandchild that
    left the session and still holds the pipes (it is killed at close; we stop reading anyway).
    """

    def __init__(self, command: str | Sequence[str], *, cwd: str | None = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise EngineError(FailureKind.START, "empty engine command")
        self.command = " ".join(argv)
        self.tag = processes.new_tag()
        """Marks the engine's processes, those that leave its process group included."""
        in_r, self._in = os.pipe()
        self._out, out_w = os.pipe()
        self._err, err_w = os.pipe()
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=in_r,
                stdout=out_w,
                stderr=err_w,
                cwd=cwd,
                env=processes.environment(self.tag),
                start_new_session=True,  # its own group and session: we can stop all it starts
            )
        except OSError as e:
            for fd in (self._in, self._out, self._err):
                os.close(fd)
            raise EngineError(
                FailureKind.START, f"cannot start {self.command!r}: {_start_problem(argv[0], e)}"
            ) from None
        except BaseException:  # a Ctrl-C inside Popen, the engine maybe started all the same
            for fd in (self._in, self._out, self._err):
                os.close(fd)
            processes.stop([], [self.tag])
            raise
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        try:
            self._set_up()
        except BaseException:  # a Ctrl-C before the caller holds us: nobody else would stop it
            self.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
            for fd in (self._in, self._out, self._err):
                with contextlib.suppress(OSError):
                    os.close(fd)
            raise

    def _set_up(self) -> None:
        _LIVE.add(self)
        os.set_blocking(self._out, False)
        os.set_blocking(self._err, False)
        self._wake_r, self._wake_w = os.pipe()
        # The lock orders reading stdout against sending: each line knows what was sent before.
        self._lock = threading.Lock()
        # A SimpleQueue: a Ctrl-C landing in Queue.get's Condition can leave the queue's mutex
        # held, and the reading thread, putting the end of output with our lock held, then
        # blocked for ever, and close() with it (a serial match's Ctrl-C hung: 1 in 60 stops
        # under load). SimpleQueue's put never waits.
        self._lines: queue.SimpleQueue[_Line | None] = queue.SimpleQueue()
        self._partial = bytearray()
        self._skipping = False  # inside a line over the limit, already reported
        self._sent = 0
        self._out_open = True
        self._in_open = True
        self._ended = False  # the end of output was queued
        self._done = False  # ... and read: the end of output stays the end
        self._closed = False
        self._eof = threading.Event()
        self._err_tail = bytearray()
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._watch, daemon=True).start()

    # -- the reading thread (it owns the descriptors it reads) --

    def _pump(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._out, selectors.EVENT_READ, "out")
        sel.register(self._err, selectors.EVENT_READ, "err")
        sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        reading = {"out", "err"}
        try:
            while reading:
                for key, _ in sel.select():
                    if key.data == "wake":
                        return
                    if key.data == "out":
                        with self._lock:
                            ended = self._read_out(reads=1)
                    else:
                        ended = self._read_err()
                    if ended:
                        sel.unregister(key.fd)  # before the descriptor is closed
                        reading.discard(key.data)
                        if key.data == "out":
                            with self._lock:
                                self._close_out()
        except (OSError, ValueError):
            pass
        finally:
            sel.close()
            with self._lock:
                self._close_out()
            for fd in (self._err, self._wake_r):
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _read_out(self, reads: int = 16) -> bool:
        """Read what stdout holds now, in ``reads`` reads at most (with the lock held).

        True at its end. The bound keeps an engine that writes without pause from holding us.
        """
        if not self._out_open or self._eof.is_set():
            return True
        for _ in range(reads):
            try:
                data = os.read(self._out, _CHUNK)
            except BlockingIOError:
                return False
            except OSError:
                data = b""
            if not data:
                if self._partial and not self._skipping:
                    self._emit(bytes(self._partial))  # a last line without its newline
                self._partial.clear()
                self._eof.set()
                self._end_output()
                return True
            self._take(data)
        return False

    def _take(self, data: bytes) -> None:
        """Cut ``data`` into lines, never holding more than LINE_LIMIT bytes of one."""
        while data:
            cut = data.find(b"\n")
            piece, data = (data, b"") if cut < 0 else (data[:cut], data[cut + 1 :])
            if self._skipping:
                self._skipping = cut < 0
                continue
            self._partial += piece
            if len(self._partial) > LINE_LIMIT:
                self._partial.clear()
                self._skipping = cut < 0
                self._put(_Line("", self._sent, False, f"a line longer than {LINE_LIMIT} bytes"))
            elif cut >= 0:
                self._emit(bytes(self._partial))
                self._partial.clear()

    def _emit(self, raw: bytes) -> None:
        if not raw.strip():
            return  # blank lines are skipped by both sides
        early = self._unread_input() > 0
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            self._put(_Line("", self._sent, early, f"not UTF-8: {raw[:60]!r}"))
            return
        self._put(_Line(text.rstrip("\r"), self._sent, early))

    def _put(self, line: _Line) -> None:
        if self._ended:
            return  # after the end (a child writing on): nobody reads it
        pending = self._lines.qsize()
        if pending == _PENDING:
            self._lines.put(_Line("", self._sent, False, f"over {_PENDING} lines, unasked"))
        elif pending < _PENDING:
            self._lines.put(line)

    def _unread_input(self) -> int:
        """Bytes we sent that the engine has not read yet (0 where the system cannot tell)."""
        if not self._in_open or _FIONREAD is None:
            return 0
        count = array.array("i", [0])
        try:
            fcntl.ioctl(self._in, _FIONREAD, count)
        except OSError:
            return 0
        return count[0]

    def _close_out(self) -> None:
        """Close our end of stdout (only the reading thread does, with the lock held)."""
        if self._out_open:
            self._out_open = False
            with contextlib.suppress(OSError):
                os.close(self._out)

    def _end_output(self) -> None:
        if not self._ended:
            self._ended = True
            self._lines.put(None)

    def _read_err(self) -> bool:
        try:
            data = os.read(self._err, _CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            return True
        tail = self._err_tail
        tail += data
        if len(tail) > STDERR_TAIL:
            del tail[: len(tail) - STDERR_TAIL]
        return False

    def _watch(self) -> None:
        """Once the engine has exited, its output ends, even if a child of it still holds it."""
        self._proc.wait()
        if not self._eof.wait(_EXIT_GRACE):
            with self._lock:
                self._read_out()  # whatever it wrote before it went
                self._end_output()

    # -- the caller's side --

    def send(self, line: str) -> None:
        """Write one line to the engine's standard input."""
        data = memoryview((line + "\n").encode("utf-8"))
        with self._lock:
            if not self._in_open:
                raise EngineError(FailureKind.EXIT, "the engine is closed")
            # What the engine wrote before this message cannot answer it: read it now.
            self._read_out()
            self._sent += 1
        try:
            while data:
                data = data[os.write(self._in, data) :]
        except BlockingIOError:  # (only after never_block) a full pipe: it does not read
            raise EngineError(FailureKind.TIMEOUT, "does not read its input") from None
        except OSError:  # BrokenPipeError: it is gone, or it closed its input and runs on
            raise self.input_failure() from None

    def input_closed(self) -> bool:
        """Whether the engine closed its standard input (nothing sent now reaches it): a pipe
        whose reading end is closed polls as an error (or a hang-up) on its writing end."""
        with self._lock:
            if not self._in_open:
                return False
            poller = select.poll()
            poller.register(self._in, select.POLLOUT)
            try:
                events = poller.poll(0)
            except OSError:
                return False
        return any(e & (select.POLLERR | select.POLLHUP) for _, e in events)

    def input_failure(self) -> EngineError:
        """Why a message could not be written: the engine died (:meth:`failure`) or, still
        running, closed its standard input (not its output: that is :meth:`failure`'s)."""
        try:
            self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return EngineError(FailureKind.EXIT, INPUT_CLOSED)
        return self.failure()

    def unfinished(self) -> str:
        """The start (80 bytes at most, as text) of a line the engine has written but not
        ended with a newline; empty when there is none."""
        with self._lock:
            if self._skipping or not self._partial:
                return ""
            return bytes(self._partial[:80]).decode("utf-8", errors="replace")

    def unread(self) -> int:
        """Bytes sent that the engine has not read yet (0 where the system cannot tell)."""
        with self._lock:
            return self._unread_input()

    def running(self) -> bool:
        """Whether the engine's process is still running."""
        return self._proc.poll() is None

    def never_block(self) -> None:
        """From now on a send that would block fails instead (for the last words to an engine
        that may have stopped reading: a full pipe must not hold the referee)."""
        with contextlib.suppress(OSError):
            os.set_blocking(self._in, False)

    def receive(self, timeout: float | None) -> str | None:
        """The next line of the engine's standard output.

        An EngineError (garbage) for a line that cannot be an answer: over the limit, not UTF-8,
        or written before the engine had read our last message.
        """
        if self._done:
            return None
        try:
            item = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None
        if item is None:
            self._done = True
            return None
        if item.problem is not None:
            raise EngineError(FailureKind.GARBAGE, item.problem)
        if item.sent < self._sent:
            raise EngineError(FailureKind.GARBAGE, _unasked(item))
        if item.early:
            raise EngineError(
                FailureKind.GARBAGE,
                f"an answer out of turn: wrote {item.text[:60]!r} before reading the question"
                f" ({_ONE_ANSWER})",
            )
        return item.text

    def failure(self) -> EngineError:
        """Crash or exit, with the status and the last lines of standard error."""
        try:
            code = self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return EngineError(FailureKind.EXIT, "closed its output but is still running")
        tail = " | ".join(self.stderr_tail[-3:])
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
        """Stop the engine's process group, and all it started, at once, with no I/O on its
        pipes (safe in a signal handler)."""
        self._stop_family()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)

    def _stop_family(self) -> None:
        """Every process the engine started, those that left its group and outlived it too."""
        running = self._proc.returncode is None  # not waited for: its pid is still its own
        processes.stop([self._proc.pid] if running else [], [self.tag])

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines (at most 20) the engine wrote to standard error."""
        text = bytes(self._err_tail).decode("utf-8", errors="replace")
        return [line.rstrip() for line in text.splitlines() if line.strip()][-20:]

    def close(self) -> None:
        """Ask it to quit, then stop its whole process group; never waits on the pipes."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        proc = self._proc
        try:
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    os.set_blocking(self._in, False)  # a full pipe must not stop us
                    os.write(self._in, (json.dumps({"type": "quit"}) + "\n").encode())
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=0.5)
        finally:  # a Ctrl-C in that wait (an engine deaf to quit) must not leave it running
            self._stop(proc)

    def _stop(self, proc: subprocess.Popen[bytes]) -> None:
        # Everything left in its group goes too, and what it started elsewhere (a child in a
        # session of its own, a daemon): found before the engine dies, while it is their parent.
        self._stop_family()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        with self._lock:
            self._in_open = False
            with contextlib.suppress(OSError):
                os.close(self._in)
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")  # the reading thread closes its ends and stops
        with contextlib.suppress(OSError):
            os.close(self._wake_w)
        _LIVE.discard(self)


_ONE_ANSWER = (
    "an engine writes one answer to each act and to hello, none to game or result, and a banner"
    " or a log to standard error"
)


def _unasked(line: _Line) -> str:
    """Why ``line``, written before our last message was sent, answers nothing."""
    said = f"an answer out of turn: wrote {line.text[:60]!r}"
    if line.sent == 0:
        return f"{said} before it was sent anything ({_ONE_ANSWER})"
    return f"{said} before this question was sent ({_ONE_ANSWER})"


def _no_move(msg: dict[str, Any]) -> str:
    """Why a move message has no move, and what was expected."""
    expected = 'expected "move": the move\'s notation as a string, e.g. "P1"'
    if "move" not in msg:
        return f'a move message without a move: no "move" ({expected})'
    text = msg["move"]
    if isinstance(text, list | dict):  # (not its repr: it could be huge, or nested past the limit)
        said = f"a JSON {'array' if isinstance(text, list) else 'object'}"
    else:
        said = json.dumps(text)[:60]
    return f'a move message without a move: "move" is {said} ({expected})'


def _start_problem(program: str, error: OSError) -> str:
    """Why ``program`` could not be started, in words that say what to do about it."""
    why = error.strerror or str(error)
    if isinstance(error, PermissionError) or error.errno == errno.EACCES:
        if os.path.isdir(program):
            return f"{program} is a folder, not a program"
        if os.path.isfile(program) and not os.access(program, os.X_OK):
            return (
                f"{program} is not executable: make it so (chmod +x {shlex.quote(program)}), "
                f"or name its interpreter first (e.g. python3 {shlex.quote(program)})"
            )
    elif error.errno == errno.ENOEXEC:
        return (
            f"{program} is not a program this system can run ({why}): a script needs a first "
            "line naming its interpreter (e.g. #!/usr/bin/env python3), or name the "
            "interpreter first"
        )
    elif isinstance(error, FileNotFoundError) and os.sep not in program:
        return f"no program {program!r} found on the PATH (give its path, e.g. ./{program})"
    elif isinstance(error, FileNotFoundError) and not os.path.exists(program):
        return f"no such file: {program}"
    return f"{program}: {why}"


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

    def __init__(self, transport: Transport, *, handshake_timeout: float = HELLO_TIMEOUT_S) -> None:
        self.transport = transport
        self.name = "?"
        self.version = "?"
        self._hello(handshake_timeout)

    @classmethod
    def popen(
        cls, command: str | Sequence[str], *, handshake_timeout: float = HELLO_TIMEOUT_S
    ) -> Engine:
        """Start ``command`` and complete the handshake."""
        transport = None
        try:  # (the start inside: a Ctrl-C between it and the try would leave the engine running)
            transport = ProcessTransport(command)
            return cls(transport, handshake_timeout=handshake_timeout)
        except BaseException:
            if transport is not None:
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
        line = json.dumps(
            {
                "type": "act",
                "view": view.to_json(),
                "legal": [str(m) for m in legal],
                "clock_ms": clock_ms,
            }
        )
        sent = False
        try:
            self._check_silent()
            start = time.monotonic()
            self.transport.send(line)
            sent = True
            msg = self._read(limit / 1000.0, expect="move")
        except EngineError as e:
            if e.kind in (FailureKind.CRASH, FailureKind.EXIT):
                # Dead with the act unread: it died before it was asked, not over this decision.
                unread = getattr(self.transport, "unread", None)
                e.unasked = not sent or (unread is not None and unread() > len(line))
            raise
        elapsed = (time.monotonic() - start) * 1000.0
        text = msg.get("move")
        if not isinstance(text, str):
            raise EngineError(FailureKind.GARBAGE, _no_move(msg))
        if any(c.isspace() for c in text.strip()):
            # The notation allows spaces around a move, not inside it (interfaces.md §1).
            raise EngineError(
                FailureKind.GARBAGE, f"not a move: {text!r:.40} (no spaces inside a move)"
            )
        try:
            move = Move.parse(text)
        except InvalidMoveError:
            raise EngineError(FailureKind.GARBAGE, f"not a move: {text!r:.40}") from None
        if move not in legal:
            raise EngineError(FailureKind.ILLEGAL, f"illegal move {move}")
        info = msg.get("info")
        return EngineMove(move, info if isinstance(info, dict) else {}, elapsed)

    def result(
        self, view: View, winner: int | None, reason: str, *, why: str | None = None
    ) -> None:
        """Tell the engine how the game ended (``why``, an optional key: what ended a forfeit)."""
        msg: dict[str, Any] = {
            "type": "result",
            "view": view.to_json(),
            "winner": winner,
            "reason": reason,
        }
        if why is not None:
            msg["why"] = why
        self._send(msg)

    def running(self) -> bool:
        """Whether the engine's process is still running (True where the transport cannot tell)."""
        running = getattr(self.transport, "running", None)
        return True if running is None else bool(running())

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
                    FailureKind.GARBAGE,
                    f"wrote {line[:60]!r} when no answer was due ({_ONE_ANSWER})",
                )

    def _send(self, obj: dict[str, Any]) -> None:
        self.transport.send(json.dumps(obj))

    def _no_answer(self, timeout: float) -> EngineError:
        """A timeout; or, if the engine has closed its input, that: the question sent as it
        closed was lost, not left unanswered (and the next would fail to be sent). A line it
        began and never ended is quoted: the newline forgotten is a usual first mistake."""
        closed = getattr(self.transport, "input_closed", None)
        if closed is not None and closed():
            return EngineError(FailureKind.EXIT, INPUT_CLOSED)
        said = f"no answer within {timeout * 1000:.0f} ms"
        unended = self._unended()
        if unended:
            said += f": {_UNENDED.format(unended[:60])}"
        return EngineError(FailureKind.TIMEOUT, said)

    def _unended(self) -> str:
        """The start of a line the engine wrote without its newline ('' if none, or unknown)."""
        unfinished = getattr(self.transport, "unfinished", None)
        return unfinished() if unfinished is not None else ""

    def _unended_message(self, expect: str) -> str | None:
        """The whole ``expect`` message the engine wrote without the newline that ends it, if
        that is what it has written (no newline can come of waiting on: it is said at once)."""
        text = self._unended()
        if not text.rstrip().endswith("}"):
            return None
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError):
            return None
        return text if isinstance(msg, dict) and msg.get("type") == expect else None

    def _read(self, timeout: float, *, expect: str) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        stuck: str | None = None  # a whole message without its newline, seen at the last look
        # (A transport that cannot show an unended line is simply waited on to the deadline.)
        look = _LOOK_S if hasattr(self.transport, "unfinished") else math.inf
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._no_answer(timeout)
            try:
                line = self.transport.receive(min(left, look))
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise self._no_answer(timeout) from None
                seen = self._unended_message(expect)
                if seen is not None and seen == stuck:  # unchanged for a look: no newline comes
                    raise EngineError(FailureKind.GARBAGE, _UNENDED.format(seen[:60])) from None
                stuck = seen
                continue
            if line is None:
                raise self.transport.failure()
            if not line.strip():
                continue  # referees ignore blank lines
            try:
                msg = json.loads(line)
            except RecursionError:
                raise EngineError(FailureKind.GARBAGE, "JSON nested too deeply") from None
            except ValueError:  # any: a JSONDecodeError, an integer past int's digit limit
                if line.startswith(BOM):  # what .NET's Console may write first: name it
                    raise EngineError(
                        FailureKind.GARBAGE,
                        "not JSON: the output starts with a byte order mark (U+FEFF): write "
                        f"UTF-8 without one: {line[:60]!r}",
                    ) from None
                raise EngineError(FailureKind.GARBAGE, f"not JSON: {line[:60]!r}") from None
            if not isinstance(msg, dict):
                raise EngineError(FailureKind.GARBAGE, f"not a JSON object: {line[:60]!r}")
            if msg.get("type") != expect:
                raise EngineError(
                    FailureKind.GARBAGE, f"expected a {expect!r} message, got {line[:60]!r}"
                )
            return msg
