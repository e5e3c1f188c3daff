"""Torch MLPs in the saved-agent layout, which every torch method builds its networks from.

A saved agent (:mod:`newmarket_env.agents.saved`) is a list of ``(weight, bias)`` layers, input first,
with one activation between them: :func:`mlp` builds exactly that shape in torch, :func:`layers_of`
reads it back as numpy arrays (what ``final.npz`` holds) and :func:`load_layers` writes saved arrays
into it. :func:`resolve_device` turns ``run.device`` into the device a run computes on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from newmarket_env.nn.sparse_input import input_layer
from newmarket_env.train.methods import Layers

ACTIVATION_MODULES = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def mlp(sizes: Sequence[int], activation: str, network_input: str = "dense") -> torch.nn.Sequential:
    """Linear layers of ``sizes`` (input first) with ``activation`` between them, none after the last; the
    first reads its input sparsely or densely (``network_input``, the config's ``network.input``: the same
    weights and outputs either way, see :mod:`newmarket_env.nn.sparse_input`)."""
    layers: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        linear = input_layer if i == 0 else lambda inputs, outputs, _mode: torch.nn.Linear(inputs, outputs)
        layers.append(linear(sizes[i], sizes[i + 1], network_input))
        if i < len(sizes) - 2:
            layers.append(ACTIVATION_MODULES[activation]())
    return torch.nn.Sequential(*layers)


def layers_of(sequential: torch.nn.Module) -> Layers:
    """The (weight, bias) arrays of the linear layers, input first (the saved-agent layout), on the CPU."""
    return [
        (m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy())
        for m in sequential.modules()
        if isinstance(m, torch.nn.Linear)
    ]


def load_layers(sequential: torch.nn.Module, layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
    """Copy saved (weight, bias) arrays into the linear layers of ``sequential`` (sizes checked by ``copy_``)."""
    linears = [m for m in sequential.modules() if isinstance(m, torch.nn.Linear)]
    if len(linears) != len(layers):
        raise ValueError(f"the saved network has {len(layers)} layers; the run's network has {len(linears)}")
    with torch.no_grad():
        for linear, (weight, bias) in zip(linears, layers, strict=True):
            linear.weight.copy_(torch.as_tensor(np.asarray(weight, dtype=np.float32)))
            linear.bias.copy_(torch.as_tensor(np.asarray(bias, dtype=np.float32)))


def resolve_device(device: str) -> str:
    """``run.device`` as the device torch computes on: ``auto`` is ``cuda`` when torch finds one, else
    ``cpu``; ``cuda`` where there is none is a one-line ``ValueError`` (before anything is written)."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"run.device = 'cuda' is not allowed here: torch {torch.__version__} finds no CUDA device; "
            "allowed: auto, cpu"
        )
    return device
