"""The rules engine: pure Python, no gymnasium, pettingzoo or torch."""

from newmarket_env.engine.game import Game
from newmarket_env.engine.types import Decision, IllegalActionError, Phase

__all__ = ["Game", "Decision", "Phase", "IllegalActionError"]
