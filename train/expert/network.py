"""The expert-iteration network in torch: a policy MLP (79 logits) and a value MLP (chips to the end of the deal).

Two separate MLPs, as the project's PPO agents have (``pi`` and ``vf`` nets), so the policy exports
unchanged as a saved agent and the value as a value-network file.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE

_ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def mlp(sizes: Sequence[int], activation: str) -> torch.nn.Sequential:
    """Linear layers of ``sizes`` (input first) with ``activation`` between them, none after the last."""
    layers: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(_ACTIVATIONS[activation]())
    return torch.nn.Sequential(*layers)


class PolicyValueNet(torch.nn.Module):
    """``policy(obs)`` -> logits ``(B, 79)``; ``value(obs)`` -> ``(B,)`` reward-scaled chips."""

    def __init__(self, net_arch: Sequence[int], activation: str) -> None:
        super().__init__()
        self.activation = activation
        self.policy = mlp([FLAT_SIZE, *net_arch, NUM_ACTIONS], activation)
        self.value_net = mlp([FLAT_SIZE, *net_arch, 1], activation)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_net(obs).squeeze(-1)


def layers_of(sequential: torch.nn.Sequential) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) arrays of the linear layers, input first (the saved-agent layout)."""
    return [
        (m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy())
        for m in sequential
        if isinstance(m, torch.nn.Linear)
    ]


def load_policy_layers(net: PolicyValueNet, layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
    """Copy a saved agent's (weight, bias) arrays into ``net.policy`` (sizes checked by torch's ``copy_``)."""
    linears = [m for m in net.policy if isinstance(m, torch.nn.Linear)]
    if len(linears) != len(layers):
        raise ValueError(f"the saved network has {len(layers)} layers; the run's policy has {len(linears)}")
    with torch.no_grad():
        for linear, (weight, bias) in zip(linears, layers, strict=True):
            linear.weight.copy_(torch.as_tensor(np.asarray(weight, dtype=np.float32)))
            linear.bias.copy_(torch.as_tensor(np.asarray(bias, dtype=np.float32)))
