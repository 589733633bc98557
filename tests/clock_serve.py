"""``hanamikoji serve`` whose 1+0 games have short clocks, for tests that wait for a clock to run
out: ``python tests/clock_serve.py MS [serve options]`` gives each seat MS milliseconds.

The clock is built as docs/ratings-and-clocks.md allows (``dataclasses.replace`` of a new clock);
the real command has no way to do this.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import hanamikoji.web.server as web_server
from hanamikoji.cli import main
from hanamikoji.clock import Clock, TimeControl

SHORT = "1+0"
"""The time control whose clocks are short (the others keep their time)."""


def short_clocks(ms: int) -> Callable[[TimeControl], Clock]:
    """New clocks: ``ms`` for each seat of a 1+0 game, the usual time for the others."""

    def clock_for(control: TimeControl) -> Clock:
        clock = Clock.new(control)
        return replace(clock, remaining=(ms, ms)) if str(control) == SHORT else clock

    return clock_for


def command(ms: int) -> list[str]:
    """The command line that starts such a server (serve's options follow it)."""
    return [sys.executable, str(Path(__file__).resolve()), str(ms)]


if __name__ == "__main__":
    serve = web_server.serve
    clocks = short_clocks(int(sys.argv[1]))

    def with_short_clocks(*args: Any, **kw: Any) -> None:
        serve(*args, clock_for=clocks, **kw)

    web_server.serve = with_short_clocks  # read by the command when it starts the server
    sys.exit(main(["serve", *sys.argv[2:]]))
