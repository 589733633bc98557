"""The fixed numbering of every distinct move: the one action space of every adapter.

It lives in :mod:`hanamikoji.kernel.actions` (the kernel and the AI number moves the same way);
this module is its name for the research adapters.
"""

from __future__ import annotations

from hanamikoji.kernel.actions import MOVES, NUM_ACTIONS, action_id, legal_ids, legal_mask, move_of

__all__ = ["MOVES", "NUM_ACTIONS", "action_id", "legal_ids", "legal_mask", "move_of"]
