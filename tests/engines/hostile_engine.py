"""An engine that attacks the referee itself: ``python hostile_engine.py MODE [ARG]``.

Where broken_engine.py breaks the protocol, this one tries to hang the referee, exhaust its
memory or get its faults misnamed. It plays the first legal move except where MODE says:

- ``good [TAG]``: plays normally (TAG only marks the command line, for ``ps``).
- ``detach PIDFILE``: at start, leaves a child in a session of its own that holds standard output
  for 60 s (its pid is appended to PIDFILE, for the test to clean up).
- ``exit-leaving-child PIDFILE``: the same child, started at the first act; then exits (status 0).
- ``endless-line``: at the first act, writes a line that never ends (1 MB every 10 ms).
- ``long-line``: at the first act, answers a move with 2 MB of spaces inside the line.
- ``stderr-flood``: at the first act, writes 50 MB to stderr without a newline, then
  ``\\nlast words\\n``, and exits with status 3.
- ``bigint``, ``deep``, ``bad-utf8``: at the first act, answers a line that Python's JSON parser
  refuses with a ValueError (an integer of 5,000 digits), a RecursionError, or bytes that are
  not UTF-8.
- ``tell-illegal LOG``, ``tell-garbage LOG``, ``tell-silent LOG``: at the first act, answer a
  move not in ``legal``, a line that is not JSON, or nothing (reading on); every message received
  is appended to LOG as a JSON line ``[pid, type, reason, why]``, to see what a forfeited
  engine is told.
- ``hang-saying``: at the first act, writes a line to stderr and never answers (reading on).
- ``die-on-result``: plays normally, but exits with status 5 (saying so on stderr) when it reads
  a ``result``: it dies between games.
- ``die-after-result [MS]``: plays normally, but after a ``result`` it reads on until the next
  game's first ``act`` has arrived (as a reader that reads ahead would, Python's buffered
  ``sys.stdin`` say), then exits with status 3 without answering it: it dies between games, but
  after the referee has found it running and sent it the next game. With MS, each process waits
  MS ms before it answers ``hello`` (a slow start-up).
- ``die-at-later-games FILE``: plays the match's first game (FILE absent), creating FILE when it
  reads the result; at the first act of any game once FILE is there, it exits with status 3, a
  process started afresh included (it crashes at every game's first act from then on).
- ``log LOG``: plays normally, appending every message received to LOG as a JSON line
  ``[type, message]`` (to compare what two matches showed it).
- ``close-input``: at the first act, closes its standard input, answers, and runs on (60 s).
- ``close-input-late``: answers the first act, waits until the next message has arrived, closes
  its standard input unread (the message is lost), and runs on (60 s).
- ``early``: after ``game``, waits until the first ``act`` has arrived, writes a move before
  reading it, then answers the act as asked (the first line is an answer out of turn).

Lines are read a byte at a time, so the engine never reads ahead of the message it handles.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from typing import Any


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def answer(obj: dict[str, Any]) -> None:
    write(json.dumps(obj).encode() + b"\n")


def read_line() -> bytes | None:
    """One line of standard input, read byte by byte; None at its end."""
    out = bytearray()
    while True:
        byte = os.read(0, 1)
        if not byte:
            return None
        if byte == b"\n":
            return bytes(out)
        out += byte


def leave_child(pidfile: str) -> None:
    """A grandchild in a new session, holding our stdin/stdout/stderr, that outlives us."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    with open(pidfile, "a", encoding="ascii") as f:
        f.write(f"{child.pid}\n")


def misbehave(mode: str, arg: str, legal: list[str]) -> bool:
    """Do MODE's mischief at the first act; True when the act is answered (or never will be)."""
    if mode == "exit-leaving-child":
        leave_child(arg)
        sys.exit(0)
    if mode == "endless-line":
        while True:
            write(b"x" * 1_000_000)
            time.sleep(0.01)
    if mode == "long-line":
        move = json.dumps({"type": "move", "move": legal[0]})
        write(move[:-1].encode() + b" " * 2_000_000 + b"}\n")
        return True
    if mode == "stderr-flood":
        chunk = b"e" * 1_000_000
        for _ in range(50):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.write(b"\nlast words\n")
        sys.stderr.buffer.flush()
        sys.exit(3)
    if mode == "bigint":
        head = b'{"type": "move", "move": "' + legal[0].encode() + b'", '
        write(head + b'"n": ' + b"9" * 5000 + b"}\n")
        return True
    if mode == "deep":
        write(b'{"type": "move", "info": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
        return True
    if mode == "tell-illegal":
        answer({"type": "move", "move": "S1" if legal[0].startswith("P") else "P1"})
        return True
    if mode == "tell-garbage":
        write(b"this is not JSON\n")
        return True
    if mode == "tell-silent":
        return True
    if mode == "hang-saying":
        sys.stderr.write("hang-saying: thinking hard about act 1\n")
        sys.stderr.flush()
        return True
    if mode == "close-input":
        os.close(0)
        answer({"type": "move", "move": legal[0]})
        time.sleep(60)
        sys.exit(0)
    if mode == "close-input-late":
        answer({"type": "move", "move": legal[0]})
        select.select([0], [], [])
        os.close(0)
        time.sleep(60)
        sys.exit(0)
    if mode == "bad-utf8":
        write(b'{"type": "move", "move": "' + legal[0].encode() + b'\xff\xfe"}\n')
        return True
    return False


def main(argv: list[str]) -> int:
    mode = argv[1] if len(argv) > 1 else "good"
    arg = argv[2] if len(argv) > 2 else ""
    if mode == "detach":
        leave_child(arg)
    first_act = True
    while (raw := read_line()) is not None:
        if not raw.strip():
            continue
        msg = json.loads(raw)
        kind = msg.get("type")
        if mode.startswith("tell-"):
            with open(arg, "a", encoding="utf-8") as log:
                seen = [os.getpid(), kind, msg.get("reason"), msg.get("why")]
                log.write(json.dumps(seen) + "\n")
        if mode == "log":
            with open(arg, "a", encoding="utf-8") as log:
                log.write(json.dumps([kind, msg]) + "\n")
        if kind == "result" and mode == "die-after-result":
            while (ahead := read_line()) is not None:  # reading ahead: game, then act
                if ahead.strip() and json.loads(ahead).get("type") == "act":
                    break
            sys.stderr.write("died after result, having read the next act\n")
            sys.stderr.flush()
            return 3
        if kind == "result" and mode == "die-at-later-games":
            with open(arg, "a", encoding="ascii"):
                pass
        if kind == "result" and mode == "die-on-result":
            sys.stderr.write("died reading result\n")
            sys.stderr.flush()
            return 5
        if kind == "hello":
            if mode == "mute":  # never says hello: the referee waits until it gives up
                continue
            if mode == "die-after-result" and arg:
                time.sleep(int(arg) / 1000)
            answer({"type": "hello", "name": f"hostile-{mode}", "version": "1"})
        elif kind == "game":
            first_act = True
            if mode == "early":
                select.select([0], [], [])  # the act is in the pipe, not read yet
                answer({"type": "move", "move": "P1"})
                time.sleep(0.3)
        elif kind == "act":
            legal: list[str] = msg["legal"]
            if mode == "die-at-later-games" and first_act and os.path.exists(arg):
                sys.stderr.write("died at the first act\n")
                sys.stderr.flush()
                return 3
            if first_act and misbehave(mode, arg, legal):
                first_act = False
                continue
            first_act = False
            answer({"type": "move", "move": legal[0]})
        elif kind == "quit" and mode != "deaf":
            return 0
    if mode == "deaf":  # ignores quit and the end of its input: only a kill ends it
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
