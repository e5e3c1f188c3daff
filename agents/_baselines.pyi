"""Type stub of the compiled baselines as agents (``_baselines.pyx``)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

from newmarket_env.game.rules import Rules

class CompiledPolicy:
    """One baseline deciding in C from a flat observation and its action mask."""

    @property
    def code(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def seed(self) -> Any: ...
    def __init__(self, name: str, rules: Rules, seed: Any = None) -> None: ...
    def restart(self) -> None: ...
    def act(self, observation: NDArray[np.float32], action_mask: NDArray[np.int8]) -> int: ...
