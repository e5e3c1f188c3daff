"""Speed benchmark: newmarket-env against PettingZoo and OpenSpiel peers, in one process.

>>> from newmarket_env.eval.bench import BenchConfig, run_benchmark
>>> result = run_benchmark(BenchConfig(seconds=0.01, repeats=1, presets=("newmarket",), peers=(), memory_envs=2,
...                                   extras=False, planes=False))
>>> for row in result.rows:
...     print(row.name)
engine newmarket
engine newmarket python
aec newmarket flat
aec newmarket flat unseeded
aec newmarket flat python
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from newmarket_env.eval.bench.suite import BenchConfig, BenchResult, run_benchmark
    from newmarket_env.eval.bench.timing import Measurement, measure

# Loaded on first use: importing the package must not run its modules, or ``python -m
# newmarket_env.eval.bench.guided`` (training, regret, ...) finds its module already imported and warns.
_LAZY = {
    "BenchConfig": "newmarket_env.eval.bench.suite",
    "BenchResult": "newmarket_env.eval.bench.suite",
    "run_benchmark": "newmarket_env.eval.bench.suite",
    "Measurement": "newmarket_env.eval.bench.timing",
    "measure": "newmarket_env.eval.bench.timing",
}

__all__ = ["BenchConfig", "BenchResult", "run_benchmark", "Measurement", "measure"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
