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
greedy-like (``adapt``) the opponent's picks are searched as greedy's. It uses its time budget
(``clock_ms``), or a fixed number of iterations, with which it is deterministic for a seed.
``fast=0`` runs the search in Python (the earlier master, with
``playout=smart,exploration=0.7,hidden=random``), where ``guide``, the belief's mixture and
``adapt`` do not apply.
"""

from __future__ import annotations

from hanamikoji.ai.ismcts import IsmctsAgent

__all__ = ["MasterAgent"]


class MasterAgent(IsmctsAgent):
    """ISMCTS tuned: the numba search, greedy playouts, the round-value table, greedy's bias, the
    belief over the opponent's hand."""

    name = "master"

    def __init__(
        self,
        iterations: int = 0,
        time_ms: int = 0,
        exploration: float = 0.5,
        playout: str = "greedy",
        prior: float = 1.0,
        belief: float = 30.0,
        pool: int = 0,
        model: str = "none",
        hidden: str = "greedy",
        fast: bool = True,
        noise: float = 0.0,
        values: str = "playout",
        guide: float = 0.4,
        draws: bool = False,
        histories: int = 1,
        mix: bool = True,
        adapt: float = 0.6,
    ) -> None:
        mixed = fast and mix and belief > 0  # (no mixture, nor adapting, without a belief)
        super().__init__(
            iterations=iterations,
            time_ms=time_ms,
            exploration=exploration,
            playout=playout,
            prior=prior,
            belief=belief if fast else 0.0,
            pool=pool,
            model=model,
            hidden=hidden,
            fast=fast,
            noise=noise,
            values=values,
            guide=guide if fast else 0.0,
            draws=draws if fast else False,
            histories=histories if fast else 1,
            mix=mixed,
            adapt=adapt if mixed else 0.0,
        )
