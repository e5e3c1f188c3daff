"""The expert-iteration network in torch: a policy MLP (79 logits) and a value MLP (chips to the end of the deal).

Two separate MLPs, as the project's PPO agents have (``pi`` and ``vf`` nets), so the policy exports
unchanged as a saved agent and the value as a value-network file.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.train.networks import mlp


class PolicyValueNet(torch.nn.Module):
    """``policy(obs)`` -> logits ``(B, 79)``; ``value(obs)`` -> ``(B,)`` reward-scaled chips; ``network_input``: how the
    first layers read the observation (``network.input``)."""

    def __init__(self, net_arch: Sequence[int], activation: str, network_input: str = "dense") -> None:
        super().__init__()
        self.activation = activation
        self.policy = mlp([FLAT_SIZE, *net_arch, NUM_ACTIONS], activation, network_input)
        self.value_net = mlp([FLAT_SIZE, *net_arch, 1], activation, network_input)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_net(obs).squeeze(-1)
