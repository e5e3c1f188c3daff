"""The rules engine (no gymnasium, pettingzoo or torch).

``Game`` is the pure-Python reference; ``choice.FastGame`` is the same state machine
compiled with Cython (``_table.pyx`` with ``_fast.pyx``), used by the env when it is built.
"""

from newmarket_env.engine.game import Game
from newmarket_env.engine.types import Decision, IllegalActionError, Phase

__all__ = ["Game", "Decision", "Phase", "IllegalActionError"]
