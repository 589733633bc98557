#!/usr/bin/env python3
"""A minimal Hanamikoji engine (protocol hanamikoji-engine/1, see docs/protocol.md).

It plays a uniformly random move from the referee's list of legal moves. Standard library only.
Try it:  hanamikoji match greedy "cmd:python3 examples/random_engine.py"
"""

import json
import random
import sys


def send(message: dict[str, str]) -> None:
    """Standard output carries answers only, one JSON object per line (flushed at once)."""
    print(json.dumps(message), flush=True)


def main() -> int:
    for raw in sys.stdin.buffer:  # one message per line, UTF-8
        line = raw.decode("utf-8", errors="replace").strip()
        if not line:
            continue  # blank lines are ignored
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):  # logs and complaints go to standard error
            print(
                f"random-py: ignoring a line that is not a JSON object: {line[:80]}",
                file=sys.stderr,
            )
            continue
        # Only "type" matters to us; keys we don't know are simply never looked at.
        if msg.get("type") == "hello":
            send({"type": "hello", "name": "random-py", "version": "1.0"})
        elif msg.get("type") == "act":
            send({"type": "move", "move": random.choice(msg["legal"])})  # never empty
        elif msg.get("type") == "quit":
            break
        # "game" and "result" (and unknown types) need no answer.
    return 0  # at "quit" or at the end of the input


if __name__ == "__main__":
    sys.exit(main())
