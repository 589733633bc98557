"""ISMCTS compiled with numba: the search of the ``master`` agent, tens of times the iterations
a second of the Python search (docs/ai.md, Speed).

One call of :func:`fast_search` searches a decision from a seat's VIEW. Every iteration deals the
unseen cards afresh (the opponent's hand and Secret, the pile still to be drawn; the removed card
and the opponent's Discard take the rest), walks one shared tree of the current round with UCB1
and availability counts, adds one node, plays greedy for both seats to the round's end
(:mod:`hanamikoji.ai.fastplay`'s kernel) and reads the between-rounds value table. As in the
Python search, the tree is keyed by moves as the searching seat observes them: the opponent's
Secret and Discard are one edge each, and which cards stand behind them in a world is drawn at
random (``hidden="random"``) or is greedy's choice with that world's hand (``hidden="greedy"``).
A progressive bias from greedy's evaluation may favour the root moves (``prior``), and below the
root greedy's evaluation of each edge in the world at hand (``guide``): it orders the new edges
and adds a bias that fades with visits. With a ``belief``, the worlds are drawn from a pool
weighed by the opponent's decisions (:mod:`~.evidence`).

Its parts: :mod:`~.tree` (the tree as arrays), :mod:`~.worlds` (dealing worlds),
:mod:`~.evidence` (the belief's weights), :mod:`~.kernel` (the iterations, compiled) and
:mod:`~.search` (:class:`FastSearch`, :func:`fast_search`). Positions are the kernel's rows
(:mod:`hanamikoji.kernel.row`); random numbers come from one splitmix64 stream seeded from the
caller's ``random.Random``, so a search with a fixed number of iterations is deterministic for a
seed, however it is cut into chunks.
"""

from hanamikoji.ai.fastsearch.search import FAST_POOL, FastSearch, fast_search
from hanamikoji.ai.fastsearch.worlds import Dealing, dealing

__all__ = ["FAST_POOL", "Dealing", "FastSearch", "dealing", "fast_search"]
