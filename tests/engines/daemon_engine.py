"""An engine that leaves helper processes behind: ``python daemon_engine.py HOW PIDFILE [MODE]``.

At start it leaves a helper that sleeps 60 s, outside its process group, its pid appended to
PIDFILE (for the test to look for, and to clean up if the referee did not):

- ``setsid``: a forked child that calls ``os.setsid()`` (it keeps the engine's pipes).
- ``double-fork``: a daemon: a child forks a grandchild in a session of its own, with its
  standard streams on /dev/null, and exits at once (the daemon's parent is then init).
- ``spawner``: a child in a session of its own that starts a child every 20 ms
  (each sleeps 10 s).

Then it plays the first legal move, except at the first act where MODE says:
``good`` (the default) plays on; ``garbage`` answers a line that is not JSON; ``silent`` never
answers; ``exit`` exits (status 4); ``deaf`` never answers and ignores SIGTERM and ``quit``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time


def leave(how: str, pidfile: str) -> None:
    if how == "double-fork":
        before = len(noted(pidfile))
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                note(pidfile, os.getpid())
                time.sleep(60)
            os._exit(0)
        os.wait()  # the daemon's parent has exited: its parent is init now
        while len(noted(pidfile)) == before:  # the daemon is running
            time.sleep(0.01)
        return
    child = os.fork()
    if child == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if how == "spawner":
            while True:
                if os.fork() == 0:
                    time.sleep(10)
                    os._exit(0)
                time.sleep(0.02)
        time.sleep(60)
        os._exit(0)
    note(pidfile, child)


def note(pidfile: str, pid: int) -> None:
    with open(pidfile, "a", encoding="ascii") as f:
        f.write(f"{pid}\n")


def noted(pidfile: str) -> list[str]:
    if not os.path.exists(pidfile):
        return []
    with open(pidfile, encoding="ascii") as f:
        return f.read().split()


def answer(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    how, pidfile = argv[1], argv[2]
    mode = argv[3] if len(argv) > 3 else "good"
    leave(how, pidfile)
    if mode == "deaf":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    first = True
    for raw in sys.stdin:
        if not raw.strip():
            continue
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind == "hello":
            answer({"type": "hello", "name": f"daemon-{how}-{mode}", "version": "1"})
        elif kind == "act":
            if first and mode != "good":
                first = False
                if mode == "garbage":
                    sys.stdout.write("this is not JSON\n")
                    sys.stdout.flush()
                    continue
                if mode == "exit":
                    return 4
                while True:  # silent, deaf
                    time.sleep(1)
            first = False
            answer({"type": "move", "move": msg["legal"][0]})
        elif kind == "quit" and mode != "deaf":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
