"""Shared helpers and hand-built deals for the example-based tests.

The deals below are worked out by hand (see the comments): each test states the outcome the rules
of ../shared/rules.md give, never what the engine happens to compute.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hanamikoji.state import Deal, Rules, State

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
"""The project's shared folder (rules, contracts, conformance records), next to the repository."""

CONFORMANCE = SHARED / "conformance"

pytest_plugins = ["watchdog"]  # a hung test fails with its tasks' stacks (tests/watchdog.py)


def play(state: State, moves: str) -> State:
    """Apply space-separated moves in order: ``play(state, "S6 C46-47 P46")``."""
    for text in moves.split():
        state = state.apply(text)
    return state


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``hanamikoji ARGS`` as a separate process (``python -m hanamikoji.cli``)."""
    return subprocess.run(
        [sys.executable, "-m", "hanamikoji.cli", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        check=False,
    )


# --- The VIEW example of interfaces.md §2 ----------------------------------------------------
EXAMPLE_DEAL = Deal("4", ("566777", "144677"), "53221635")
EXAMPLE_MOVES = "S6 C46-47 P46 G557 P5 D37"

# --- Deal A (seat 0 first) ---------------------------------------------------------------------
# Removed 1. Seat 0 holds 122334 and draws 4, 4, 5, 5; seat 1 holds 566667 and draws 7, 7, 7, 7.
#   seat 0: S1, D22, G334 (seat 1 takes 4), C44-55 (seat 1 takes 55)
#   seat 1: S5, D66, G667 (seat 0 takes 6), C77-77 (seat 0 takes 77, the only choice)
# Sides at scoring (Secrets included, Discards not):
#   seat 0: 1 33 6 44 77   -> "13344677"
#   seat 1: 5 4 67 55 77   -> "45556777"
# Geisha 1: 1-0 seat 0 (by the Secret alone); 2: 0-0 tie (seat 0's discarded 22 do not count);
# 3: 2-0 seat 0; 4: 2-1 seat 0; 5: 0-3 seat 1; 6: 1-1 tie (seat 1's discarded 66 do not count);
# 7: 2-3 seat 1.  From all-neutral markers: [0, None, 0, 0, 1, None, 1], charm 7-8, geisha 3-2.
DEAL_A = Deal("1", ("122334", "566667"), "47475757")
MOVES_A = "S1 S5 D22 D66 G334 P4 G667 P6 C44-55 P55 C77-77 P77"
MARKERS_A = (0, None, 0, 0, 1, None, 1)
SIDES_A = ("13344677", "45556777")

# --- Deal D (seat 0 first): a draw on charm --------------------------------------------------
# Removed 6. Seat 0 holds 113777 and draws 7, 3, 2, 4; seat 1 holds 245566 and draws 4, 7, 5, 6.
#   seat 0: S1, D77, G377 (seat 1 takes 3), C14-23 (seat 1 takes 23)
#   seat 1: S2, D56, G447 (seat 0 takes 7), C56-56 (seat 0 takes 56, the only choice)
# Sides: seat 0: 1 77 14 7 56 -> "11456777"; seat 1: 2 3 23 44 56 -> "22334456".
# Geisha 1: 2-0 seat 0; 2: 0-2 seat 1; 3: 0-2 seat 1; 4: 1-2 seat 1; 5: 1-1 tie; 6: 1-1 tie;
# 7: 3-0 seat 0.  From all-neutral: [0, 1, 1, 1, None, None, 0], charm 7-7, geisha 2-3.
DEAL_D = Deal("6", ("113777", "245566"), "74372546")
MOVES_D = "S1 S2 D77 D56 G377 P3 G447 P7 C14-23 P23 C56-56 P56"
MARKERS_D = (0, 1, 1, 1, None, None, 0)
SIDES_D = ("11456777", "22334456")

# The same deals with the hands swapped, for even rounds (seat 1 first): the same move list then
# gives the mirror image, seat 1 playing what seat 0 played above.
DEAL_A_SWAPPED = Deal("1", ("566667", "122334"), "47475757")
DEAL_D_SWAPPED = Deal("6", ("245566", "113777"), "74372546")


def one_round(
    deal: Deal,
    moves: str,
    *,
    max_rounds: int | None = 1,
    markers: tuple[int | None, ...] | None = None,
) -> State:
    """A game of one given deal, played through ``moves``."""
    state = State.from_deals([deal], rules=Rules(max_rounds=max_rounds), markers=markers)
    return play(state, moves)


# The browser tests' fixtures (a server and a chromium per module), for every browser test module.
from browser_support import browser, context, page, server  # noqa: E402, F401

# The lobby's and the clocks' in-process server on each database (tests/lobby_support.py).
from lobby_support import make_site, site, site_db  # noqa: E402, F401
