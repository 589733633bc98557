"""The flagship agent: ISMCTS with the charm-greedy playout policy and the learned round values.

What made it into ``master`` is what won matches (docs/ai.md has the figures): scoring the end of
the current round with the self-play value table rather than playing out the rest of the game,
playing the rest of the round with a cheap heuristic for both sides (offers answered as a real
opponent would), and a progressive bias from greedy's judgement at the root. It uses its time budget
(``clock_ms``), or a fixed number of iterations, with which it is deterministic for a seed.
"""

from __future__ import annotations

from hanamikoji.ai.ismcts import IsmctsAgent

__all__ = ["MasterAgent"]


class MasterAgent(IsmctsAgent):
    """ISMCTS tuned: heuristic playouts to the round's end, the value table, a greedy prior."""

    name = "master"

    def __init__(
        self,
        iterations: int = 0,
        time_ms: int = 0,
        exploration: float = 0.7,
        playout: str = "smart",
        prior: float = 1.0,
        belief: float = 0.0,
        pool: int = 128,
        model: str = "none",
        hidden: str = "random",
        fast: bool = False,
        noise: float = 0.0,
    ) -> None:
        super().__init__(
            iterations=iterations,
            time_ms=time_ms,
            exploration=exploration,
            playout=playout,
            prior=prior,
            belief=belief,
            pool=pool,
            model=model,
            hidden=hidden,
            fast=fast,
            noise=noise,
        )
