"""The PettingZoo environment under its versioned name, as PettingZoo's own games are imported:

>>> from hanamikoji.env import hanamikoji_v0
>>> e = hanamikoji_v0.env()
>>> e.metadata["name"]
'hanamikoji_v0'

The name changes (``hanamikoji_v1``) when the observation, the actions, the rewards or the
rules change; ``v0`` keeps the 98-float observation of :mod:`hanamikoji.env.observation`.
"""

from __future__ import annotations

from hanamikoji.env.pettingzoo import AGENTS, env, raw_env

__all__ = ["AGENTS", "env", "raw_env"]
