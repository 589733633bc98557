"""A misbehaving engine for the referee's tests: ``python broken_engine.py MODE``.

It speaks ``hanamikoji-engine/1`` (interfaces.md §2) with nothing but the standard library and
breaks the protocol in the way MODE says, at its first ``act`` unless said otherwise:

- ``good``: plays the first legal move (the control).
- ``crash``: writes a line to stderr, then exits with status 3.
- ``exit``: exits with status 0.
- ``garbage``: answers with a line that is not JSON.
- ``wrongtype``: answers ``{"type": "hello"}`` instead of a move.
- ``illegal``: answers a well-formed move that is not in ``legal``.
- ``sleep``: never answers (sleeps 60 s).
- ``chatty``: writes a line after ``game``, when no answer is due; otherwise plays like ``good``.
- ``noisy-stderr``: plays like ``good`` but writes a lot to stderr.
- ``flaky``: crashes (status 3) at its second act of every third game it plays (mid-game, the
  first answered), else ``good``.
- ``nohello``: exits (status 0) before answering ``hello``.
- ``chaos [SEED]``: plays legal moves, but at each act, one time in ten, crashes, writes garbage,
  plays an illegal move or sleeps (chosen at random; each new process draws anew from SEED).
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

MODES = (
    "good",
    "crash",
    "exit",
    "garbage",
    "wrongtype",
    "illegal",
    "sleep",
    "chatty",
    "noisy-stderr",
    "flaky",
    "nohello",
    "chaos",
)
MISCHIEF = ("crash", "garbage", "illegal", "sleep")


def answer(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def log(text: str) -> None:
    sys.stderr.write(f"broken_engine: {text}\n")
    sys.stderr.flush()


def not_legal(legal: list[str]) -> str:
    """A well-formed move that is not in ``legal``: a pick while acting, a Secret while picking."""
    if all(m.startswith("P") for m in legal):
        return "S1"
    return "P1"


def main(argv: list[str]) -> int:
    mode = argv[1] if len(argv) > 1 else "good"
    if mode not in MODES:
        log(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")
        return 2
    seed = argv[2] if len(argv) > 2 else None
    rng = random.Random(f"{seed}:{time.time_ns()}" if seed is None else seed)
    games = 0
    acts = 0  # answered in this game
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            if mode == "nohello":
                return 0
            answer({"type": "hello", "name": f"broken-{mode}", "version": "1"})
        elif kind == "game":
            games += 1
            acts = 0
            if mode == "chatty":
                answer({"type": "note", "text": "good luck"})
        elif kind == "act":
            legal: list[str] = msg["legal"]
            if mode == "chaos":
                mode = rng.choice(MISCHIEF) if rng.random() < 0.1 else "chaos"
            if mode == "noisy-stderr":
                for i in range(50):
                    log(f"thinking hard, step {i}")
            if mode == "crash" or (mode == "flaky" and acts == 1 and games % 3 == 0):
                log("something went terribly wrong")
                return 3
            if mode == "exit":
                return 0
            if mode == "garbage":
                sys.stdout.write("this is not JSON\n")
                sys.stdout.flush()
            elif mode == "wrongtype":
                answer({"type": "hello"})
            elif mode == "illegal":
                answer({"type": "move", "move": not_legal(legal)})
            elif mode == "sleep":
                time.sleep(60)
            else:
                answer({"type": "move", "move": legal[0]})
            acts += 1
        elif kind == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
