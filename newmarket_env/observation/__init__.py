"""Observation encodings: the layout (declared once) and the encoders built on it; and the privileged state.

Importing the package registers the compiled encoders as the observers of the engine's table batches
(:mod:`newmarket_env.engine.observers`), where the compiled modules are built: the flat observation
(``FlatObserver``) and the privileged state (``StateObserver``, for training only).
"""

from newmarket_env.engine.observers import register_table_observer
from newmarket_env.observation.encode import ENCODINGS, encode_flat, flat_to_planes, static_part
from newmarket_env.observation.layout import FLAT_SIZE, PIECES, Piece
from newmarket_env.observation.state import encode_state, state_static_part
from newmarket_env.observation.state_layout import STATE_PIECES, STATE_SIZE

try:
    from newmarket_env.observation._encode import FlatObserver
    from newmarket_env.observation._state import StateObserver
except ImportError:  # the compiled modules are not built: there is no batch to observe either
    pass
else:
    register_table_observer(FlatObserver)
    register_table_observer(StateObserver, kind="state")

__all__ = [
    "ENCODINGS",
    "FLAT_SIZE",
    "PIECES",
    "STATE_PIECES",
    "STATE_SIZE",
    "Piece",
    "encode_flat",
    "encode_state",
    "flat_to_planes",
    "state_static_part",
    "static_part",
]
