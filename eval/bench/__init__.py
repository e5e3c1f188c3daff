"""Speed benchmark: newmarket-env against PettingZoo and OpenSpiel peers, in one process.

>>> from newmarket_env.eval.bench import BenchConfig, run_benchmark
>>> result = run_benchmark(BenchConfig(seconds=0.01, repeats=1, presets=("newmarket",), peers=(), memory_envs=2,
...                                   extras=False, planes=False))
>>> [row.name for row in result.rows]
['engine newmarket', 'engine newmarket python', 'aec newmarket flat', 'aec newmarket flat python']
"""

from newmarket_env.eval.bench.suite import BenchConfig, BenchResult, run_benchmark
from newmarket_env.eval.bench.timing import Measurement, measure

__all__ = ["BenchConfig", "BenchResult", "run_benchmark", "Measurement", "measure"]
