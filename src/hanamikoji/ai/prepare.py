"""Getting an agent's numba kernels ready before it is asked to move.

The fast search and greedy's numba policy are compiled on their first call (some 10 to 20 s)
and cached on disk (``cache=True``), after which loading them takes a fraction of a second.
An engine, a terminal game or an analysis calls :func:`prepare` first, so that the first
decision keeps to its clock instead of paying for the compilation.

Where the cache goes is numba's choice: ``NUMBA_CACHE_DIR`` when it is set, else a
``__pycache__`` folder beside the package's modules, else (a read-only install) the user's cache
folder, ``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hanamikoji.ai.base import Agent, start_game
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.state import Rules, State

__all__ = ["COMPILE_SECONDS", "NOTICE", "needs_kernels", "prepare", "prepare_search"]

COMPILE_SECONDS = 15
"""About how long the first compilation takes, for the notice (11 to 12 s measured, two cores)."""
NOTICE = f"preparing the search (first run: compiling, about {COMPILE_SECONDS} s)…"

_REHEARSAL_ITERATIONS = 16
_REHEARSAL_POOL = 128


def needs_kernels(agent: Agent) -> bool:
    """Whether ``agent`` calls numba kernels (the same test as IsmctsAgent's import of them)."""
    inner = getattr(agent, "base", agent)  # a level's NoisyAgent wraps its agent
    if not isinstance(inner, IsmctsAgent):
        return False
    return inner.needs_kernels


def prepare(agent: Agent, say: Callable[[str], None] | None = None) -> bool:
    """Compile or load the kernels ``agent`` uses, by rehearsing a one-round game with a copy of
    it on a tiny budget; returns whether there was anything to do (cheap agents: nothing).

    ``say`` gets :data:`NOTICE` once if numba compiles (a first run: its cache holds no compiled
    copy); loading a cached copy says nothing, however slow the machine.
    """
    if not needs_kernels(agent):
        return False
    with _notice(say):
        _rehearse(agent)
    return True


def prepare_search(say: Callable[[str], None] | None = None) -> None:
    """Compile or load the kernels of the master search behind hints and analysis."""
    from hanamikoji.ai.analysis import _searcher

    with _notice(say):
        _rehearse(_searcher(_REHEARSAL_ITERATIONS, None))


@contextmanager
def _notice(say: Callable[[str], None] | None) -> Iterator[None]:
    """Calls ``say(NOTICE)`` once when numba starts compiling inside the block.

    numba fires its "numba:compile" event only where it compiles, after looking in its cache
    and finding no copy; a time limit could not tell a first run from a slow load (a busy
    machine can take seconds to load the cache).
    """
    if say is None:
        yield
        return
    from numba.core import event

    tell: Callable[[str], None] = say

    class Compiling(event.Listener):
        said = False

        def on_start(self, ev: event.Event) -> None:
            if not self.said:
                self.said = True
                tell(NOTICE)

        def on_end(self, ev: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", Compiling()):
        yield


def _rehearse(agent: Agent) -> None:
    # Copies, so the real agent's state (its game, its belief) is untouched; one per seat, as
    # an agent may keep its seat. Every kernel is compiled whole at its first call, so a tiny
    # budget compiles what a long search runs; a round has both decisions and, once the other
    # seat has acted, the belief's kernels.
    rules = Rules(max_rounds=1)
    players = [copy.deepcopy(agent) for _ in range(2)]
    for seat, player in enumerate(players):
        inner = getattr(player, "base", player)
        if isinstance(inner, IsmctsAgent):
            if inner.iterations:
                inner.iterations = min(inner.iterations, _REHEARSAL_ITERATIONS)
            # A small pool of worlds runs the belief's kernels as a full one does, and keeps
            # a rehearsal with cached kernels quick on a slow machine too.
            inner.config = inner.config.replace(pool=_REHEARSAL_POOL)
        start_game(player, seat, rules)
    rng = random.Random(0)
    state = State.new(random.Random(0), rules=rules)
    while state.to_move is not None:
        seat = state.to_move
        move = players[seat].choose(state.view(seat), state.legal_moves, rng, 20)
        state = state.apply(move)
