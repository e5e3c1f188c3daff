"""Observation encodings: the layout (declared once) and the encoders built on it.

Importing the package registers the compiled flat encoder as the observer of the engine's table
batches (:mod:`newmarket_env.engine.observers`), where the compiled modules are built.
"""

from newmarket_env.engine.observers import register_table_observer
from newmarket_env.observation.encode import ENCODINGS, encode_flat, flat_to_planes, static_part
from newmarket_env.observation.layout import FLAT_SIZE, PIECES, Piece

try:
    from newmarket_env.observation._encode import FlatObserver
except ImportError:  # the compiled modules are not built: there is no batch to observe either
    pass
else:
    register_table_observer(FlatObserver)

__all__ = ["ENCODINGS", "FLAT_SIZE", "PIECES", "Piece", "encode_flat", "flat_to_planes", "static_part"]
