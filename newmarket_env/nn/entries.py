"""A float32 matrix as its nonzero entries, row after row, and back: how Deep Monte-Carlo keeps its recorded
observations on disk (about 62 nonzero entries of 936 a row). numpy only (with the compiled scan of
``nn/_sparse.pyx`` where it is built), so a module that only reads such files does not import torch.
"""

from __future__ import annotations

import numpy as np

try:  # the compiled loops: absent where the package was built without a C compiler
    from newmarket_env.nn import _sparse as kernels
except ImportError:
    kernels = None  # type: ignore[assignment]


def nonzero_entries(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(columns, values, offsets)`` of a float32 matrix's nonzero entries, row after row (row ``b``'s are
    ``columns[offsets[b]:offsets[b + 1]]``): the compiled scan, or numpy's without it."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if kernels is not None:
        return kernels.nonzero_rows(x)
    rows, columns = np.nonzero(x)
    return columns.astype(np.int64), x[rows, columns], np.searchsorted(rows, np.arange(len(x) + 1)).astype(np.int64)


def dense_rows(columns: np.ndarray, values: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """The float32 matrix of ``width`` columns whose nonzero entries :func:`nonzero_entries` gave."""
    out = np.zeros((len(offsets) - 1, width), dtype=np.float32)
    out[np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)), columns.astype(np.int64)] = values
    return out
