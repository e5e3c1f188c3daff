"""Type stub of the sparse input layer's compiled loops (``_sparse.pyx``)."""

import numpy as np
from numpy.typing import NDArray

def nonzero_rows(x: NDArray[np.float32]) -> tuple[NDArray[np.int64], NDArray[np.float32], NDArray[np.int64]]: ...
def index_sum(
    table: NDArray[np.float32],
    columns: NDArray[np.int64],
    values: NDArray[np.float32],
    offsets: NDArray[np.int64],
    bias: NDArray[np.float32],
    out: NDArray[np.float32],
) -> None: ...
def index_sum_grad(
    grad_out: NDArray[np.float32],
    columns: NDArray[np.int64],
    values: NDArray[np.float32],
    offsets: NDArray[np.int64],
    grad_table: NDArray[np.float32],
) -> None: ...
