"""The sparse input layer: a network's first layer as an index-sum over the nonzero inputs.

A flat observation has about 62 nonzero entries of 936 (cards held and played, a few chip scalars), so
the first layer of every network on it, a dense product in ``torch.nn.Linear``, spends 14 of every 15
multiply-adds on zeros. :class:`SparseInputLinear` is ``torch.nn.Linear`` (the same ``weight`` of shape
``(out, in)``, the same ``bias``, the same ``state_dict``) whose forward pass adds up, for each row, the
weight columns of its nonzero entries times their values (the chip scalars are not 0/1: the values are
the weights of the sum). Its outputs and gradients are the dense layer's to float rounding, so a
network may switch between the two at any time, and what is saved of it (checkpoints, the exported
``.npz`` agents) does not change. The config key ``network.input`` (``sparse``, the default, or
``dense``) chooses it for every torch method (:func:`input_layer`).

On the CPU the index-sum and its weight gradient run in compiled loops (``nn/_sparse.pyx``): torch's
own sparse kernels there (``embedding_bag``'s backward, ``torch.sparse.mm``) cost as much as the dense
product at these sizes (docs/benchmark.md, "Sparse input"). Elsewhere (CUDA), or without the compiled
module, :func:`index_sum_torch` computes the same in torch operations (``embedding_bag`` with the
values as ``per_sample_weights``); it is also the reference the tests compare the compiled loops with.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as np
import torch
import torch.nn.functional as F

try:  # the compiled loops: absent where the package was built without a C compiler
    from newmarket_env.nn import _sparse as kernels
except ImportError:
    kernels = None  # type: ignore[assignment]

#: Values of the config key ``network.input``.
INPUTS = ("sparse", "dense")


def index_sum_torch(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """``F.linear(x, weight, bias)`` as an index-sum over ``x``'s nonzero entries, in torch operations
    (differentiable with respect to ``weight`` and ``bias``; ``x`` is read, not differentiated)."""
    rows, columns = x.nonzero(as_tuple=True)
    counts = torch.bincount(rows, minlength=x.shape[0])
    offsets = torch.cumsum(counts, 0) - counts  # where each row's entries start (rows come in order)
    out = F.embedding_bag(columns, weight.t(), offsets, mode="sum", per_sample_weights=x[rows, columns])
    return out if bias is None else out + bias


class _SharedInput(threading.local):
    """Inside :func:`shared_input`, the nonzero entries of the last input read on this thread, for the next
    layer that reads the same tensor: an actor-critic's policy and value nets read the same observations
    one after the other, and the scan of them costs about as much as one of the two sums. Keyed on the
    tensor itself (held, so its memory is not reused) and its version counter; only inside the block,
    where the caller promises the tensor's memory is not written behind torch's back."""

    depth = 0
    tensor: torch.Tensor | None = None
    version = -1
    entries: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def entries_of(self, x: torch.Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.depth:
            return kernels.nonzero_rows(x.detach().contiguous().numpy())
        if self.tensor is not x or self.version != x._version or self.entries is None:
            self.entries = kernels.nonzero_rows(x.detach().contiguous().numpy())
            self.tensor, self.version = x, x._version
        return self.entries


_SHARED_INPUT = _SharedInput()


@contextlib.contextmanager
def shared_input() -> Iterator[None]:
    """Within the block, sparse layers reading the same input tensor scan it for its nonzero entries once."""
    _SHARED_INPUT.depth += 1
    try:
        yield
    finally:
        _SHARED_INPUT.depth -= 1
        if not _SHARED_INPUT.depth:
            _SHARED_INPUT.tensor = _SHARED_INPUT.entries = None


class _CompiledIndexSum(torch.autograd.Function):
    """The index-sum on CPU float32 tensors through the compiled loops; gradients for weight and bias.
    ``table`` is ``weight`` as ``(in, out)`` (the loops' layout), given by the layer, which keeps it."""

    @staticmethod
    def forward(ctx, x, weight, table, bias):
        entries = _SHARED_INPUT.entries_of(x)
        shift = np.zeros(weight.shape[0], np.float32) if bias is None else bias.detach().numpy()
        out = torch.empty(x.shape[0], weight.shape[0], dtype=torch.float32)
        kernels.index_sum(table.numpy(), *entries, shift, out.numpy())
        ctx.entries, ctx.inputs = entries, weight.shape[1]
        return out

    @staticmethod
    def backward(ctx, grad_out):
        grad_weight = grad_bias = None
        if ctx.needs_input_grad[1]:
            grad_table = np.empty((ctx.inputs, grad_out.shape[1]), dtype=np.float32)
            columns, values, offsets = ctx.entries
            kernels.index_sum_grad(grad_out.detach().contiguous().numpy(), columns, values, offsets, grad_table)
            grad_weight = torch.from_numpy(grad_table).t()
        if ctx.needs_input_grad[3]:
            grad_bias = grad_out.sum(0)
        return None, grad_weight, None, grad_bias


class SparseInputLinear(torch.nn.Linear):
    """``torch.nn.Linear`` computed as an index-sum over the nonzero inputs; see the module docstring.

    >>> dense = torch.nn.Linear(6, 3)
    >>> sparse = SparseInputLinear.like(dense)
    >>> x = torch.tensor([[0.0, 1.0, 0.0, 0.0, 0.25, 0.0], [0.0] * 6])
    >>> torch.allclose(sparse(x), dense(x))
    True
    """

    @classmethod
    def like(cls, dense: torch.nn.Linear) -> SparseInputLinear:
        """A sparse layer holding ``dense``'s very parameters (an optimizer made for them still trains it)."""
        layer = cls(dense.in_features, dense.out_features, bias=dense.bias is not None, device="meta")
        layer.weight = dense.weight
        if dense.bias is not None:
            layer.bias = dense.bias
        return layer

    def _table(self) -> torch.Tensor:
        """The weights as ``(in, out)``, each input's weights in one row: copied again only when they changed
        (every optimizer step and ``load_state_dict`` bumps the parameter's version; a rollout reuses it)."""
        cached = self.__dict__.get("_cached_table")
        if cached is None or cached[0] is not self.weight or cached[1] != self.weight._version:
            cached = (self.weight, self.weight._version, self.weight.detach().t().contiguous())
            self.__dict__["_cached_table"] = cached  # not a buffer: never saved, never moved
        return cached[2]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2:  # a batch of batches (or one row): the same, row by row
            return self.forward(x.reshape(-1, x.shape[-1])).reshape(*x.shape[:-1], self.out_features)
        if x.requires_grad:  # gradients for the inputs too: the index-sum gives none, the dense product does
            return F.linear(x, self.weight, self.bias)
        if kernels is not None and x.device.type == "cpu" and x.dtype == self.weight.dtype == torch.float32:
            return _CompiledIndexSum.apply(x, self.weight, self._table(), self.bias)
        if x.device.type == "cpu":  # no compiled loops: torch's sparse kernels are no faster than this here
            return F.linear(x, self.weight, self.bias)
        return index_sum_torch(x, self.weight, self.bias)


def input_layer(inputs: int, outputs: int, mode: str) -> torch.nn.Linear:
    """The first layer of a network: :class:`SparseInputLinear` for ``mode`` ``"sparse"``, ``torch.nn.Linear``
    for ``"dense"`` (the same initial weights for the same torch seed)."""
    if mode not in INPUTS:
        raise ValueError(f"network.input = {mode!r} is not allowed; allowed: {', '.join(INPUTS)}")
    dense = torch.nn.Linear(inputs, outputs)
    return SparseInputLinear.like(dense) if mode == "sparse" else dense


def sparse_first_layer(sequential: torch.nn.Sequential) -> torch.nn.Sequential:
    """``sequential`` with its first layer, a ``torch.nn.Linear``, made a :class:`SparseInputLinear` holding the
    same parameters (in place; returned for convenience)."""
    first = sequential[0]
    if isinstance(first, torch.nn.Linear) and not isinstance(first, SparseInputLinear):
        sequential[0] = SparseInputLinear.like(first)
    return sequential
