"""Hanamikoji: the exact rules engine, move notation, per-seat views, game records and agents.

>>> import hanamikoji as hk
>>> state = hk.State.new(42)
>>> state = state.apply(state.legal_moves[0])
>>> state.view(1).to_move
1
"""

from hanamikoji.moves import Action, IllegalMoveError, InvalidMoveError, Move
from hanamikoji.record import Record, RecordError
from hanamikoji.state import Deal, DealError, Outcome, Phase, Rules, State, Termination
from hanamikoji.view import View

__version__ = "0.1.0"

__all__ = [
    "Action",
    "Deal",
    "DealError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "Outcome",
    "Phase",
    "Record",
    "RecordError",
    "Rules",
    "State",
    "Termination",
    "View",
    "__version__",
]
