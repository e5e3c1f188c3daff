"""Memory per env instance: tracemalloc of building and resetting N envs, divided by N."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class MemoryFigure:
    """Python heap held per live env after construction and one reset."""

    name: str
    bytes_per_env: float
    envs: int
    note: str = ""


def memory_per_env(name: str, make_env: Callable[[], Any], count: int = 50, note: str = "") -> MemoryFigure:
    """Build and reset ``count`` envs while tracing allocations; report the bytes still held, per env.

    Module imports and caches are warmed by one env built before tracing, so
    the figure is what each further instance costs.
    """
    warm = make_env()
    warm.reset(seed=0)
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        envs = []
        for seed in range(count):
            instance = make_env()
            instance.reset(seed=seed)
            envs.append(instance)
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return MemoryFigure(name, (after - before) / count, count, note)
