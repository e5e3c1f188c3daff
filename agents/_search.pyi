"""Type stub of the compiled search (``_search.pyx``): world sampling, rollouts and the race."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from newmarket_env.engine._batch import TableBatch
from newmarket_env.engine.position import Position
from newmarket_env.game.rules import Rules

class CompiledSearch:
    """The search agent's world sampling and rollouts in C."""

    @property
    def rollout(self) -> str: ...
    @property
    def rollout_code(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def seed(self) -> Any: ...
    def __init__(self, rules: Rules, seed: Any, rollout: str) -> None: ...
    def restart(self) -> None: ...
    def evaluate(
        self,
        position: Position,
        hand: int,
        unseen: int,
        dead_known: int,
        card_counts: Sequence[int],
        candidates: Sequence[int],
        budget: int,
    ) -> NDArray[np.float64]: ...
    def race(
        self,
        position: Position,
        hand: int,
        unseen: int,
        dead_known: int,
        card_counts: Sequence[int],
        candidates: Sequence[int],
        bonus: Sequence[float] | NDArray[np.float64],
        budget: int,
        round_worlds: int,
        z: float,
    ) -> int: ...
    def evaluate_worlds(
        self,
        position: Position,
        hand: int,
        unseen: int,
        dead_known: int,
        card_counts: Sequence[int],
        candidates: Sequence[int],
        budget: int,
    ) -> NDArray[np.float64]: ...
    def put_worlds(
        self,
        batch: TableBatch,
        position: Position,
        hand: int,
        unseen: int,
        dead_known: int,
        card_counts: Sequence[int],
        budget: int,
        width: int,
    ) -> None: ...
