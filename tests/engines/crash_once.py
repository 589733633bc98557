"""An engine that crashes once: ``python crash_once.py MARKER``.

The first process started with MARKER absent creates it and exits with status 3 at its first
``act`` (a crash in the middle of a game); every later process finds MARKER and plays the first
legal move. So a referee that restarts an engine after a failure gets a working one again.
"""

from __future__ import annotations

import json
import os
import sys


def main(marker: str) -> int:
    crash = not os.path.exists(marker)
    if crash:
        with open(marker, "w") as f:
            f.write("crashed\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            print(json.dumps({"type": "hello", "name": "crash-once", "version": "1"}), flush=True)
        elif kind == "act":
            if crash:
                print("crash-once: crashing as asked", file=sys.stderr, flush=True)
                return 3
            print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
        elif kind == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
