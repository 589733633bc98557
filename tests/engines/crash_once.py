"""An engine that crashes once: ``python crash_once.py MARKER``.

At an ``act`` with MARKER absent, it creates MARKER and exits with status 3 (a crash in the
middle of a game); with MARKER there, it plays the first legal move. So the first game an engine
of this kind is asked to move in is lost by a crash, and a referee that restarts the engine gets
a working one.
"""

from __future__ import annotations

import json
import os
import sys


def main(marker: str) -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            print(json.dumps({"type": "hello", "name": "crash-once", "version": "1"}), flush=True)
        elif kind == "act":
            if not os.path.exists(marker):
                with open(marker, "w") as f:
                    f.write("crashed\n")
                print("crash-once: crashing as asked", file=sys.stderr, flush=True)
                return 3
            print(json.dumps({"type": "move", "move": msg["legal"][0]}), flush=True)
        elif kind == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
