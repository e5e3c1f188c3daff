"""Bootstrap intervals over deal blocks.

All figures of one run resample the *same* blocks (one index matrix), so a
pairwise difference is a paired bootstrap: both agents' block means move
together, and what is shared by the deals cancels out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean with a percentile-bootstrap interval; ``low``/``high`` are None with fewer than 2 blocks."""

    mean: float
    low: float | None
    high: float | None

    def to_dict(self) -> dict[str, float | None]:
        return {"mean": self.mean, "low": self.low, "high": self.high}


def resample_indices(blocks: int, resamples: int, seed: int) -> np.ndarray:
    """``resamples`` rows of ``blocks`` block indices drawn with replacement."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, blocks, size=(resamples, blocks))


def bootstrap_interval(values: np.ndarray, indices: np.ndarray, confidence: float = CONFIDENCE) -> Interval:
    """Mean of per-block ``values`` with its bootstrap interval over the resampled ``indices``.

    >>> idx = resample_indices(5, 200, seed=0)
    >>> bootstrap_interval(np.full(5, 2.0), idx)
    Interval(mean=2.0, low=2.0, high=2.0)
    """
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if len(values) < 2:
        return Interval(mean, None, None)
    means = values[indices].mean(axis=1)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return Interval(mean, float(low), float(high))
