"""The flagship agent: ISMCTS compiled with numba, greedy playouts, the learned round values,
and a belief over the opponent's hand from its decisions.

What made it into ``master`` is what won matches (docs/ai.md has the figures): the search in numba
(:mod:`hanamikoji.ai.fastsearch`, some 25 times the iterations of the Python search), scoring
the end of the current round with the self-play value table rather than playing out the rest of
the game, greedy for both sides in the playouts (offers answered as a real opponent would), a
progressive bias from greedy's judgement at the root, and below it greedy's judgement of each
move in each sampled world (``guide``), with a UCB constant of 0.5 (0.7 until it measured
better against ismcts). The cards behind the opponent's Secret and Discard in the tree are the
ones greedy would choose with the hand each world gives it (``hidden=greedy``). Its worlds are
weighed by how likely the opponent's decisions this round are in each (``belief``, a mixture of
softnesses from random play to greedy's own, ``mix``), and when that mixture finds the opponent
greedy-like (``adapt``) the opponent's picks are searched as greedy's. Its settings are the
preset :data:`~hanamikoji.ai.config.MASTER`. It uses its time budget (``clock_ms``), or a fixed
number of iterations, with which it is deterministic for a seed; from 1,000 ms a decision up it
searches with :data:`~hanamikoji.ai.config.LONG`'s settings, which turn the longer time into
strength (``long``).
"""

from __future__ import annotations

from typing import ClassVar

from hanamikoji.ai.config import MASTER, MASTER_1, SearchConfig
from hanamikoji.ai.ismcts import IsmctsAgent

__all__ = ["Master1Agent", "MasterAgent"]


class MasterAgent(IsmctsAgent):
    """The compiled search with the :data:`~hanamikoji.ai.config.MASTER` settings; takes the
    same limits and keywords as :class:`~hanamikoji.ai.ismcts.IsmctsAgent`
    (``MasterAgent(iterations=1000, guide=0)``)."""

    name = "master"
    fast: ClassVar[bool] = True
    preset: ClassVar[SearchConfig] = MASTER


class Master1Agent(MasterAgent):
    """``master-1``: the compiled search with the :data:`~hanamikoji.ai.config.MASTER_1`
    settings, master as #12 left it, kept as the yardstick of every later master."""

    name = "master-1"
    preset: ClassVar[SearchConfig] = MASTER_1
