"""The expert-iteration network in torch: a policy MLP (79 logits) and a value MLP (chips to the end of the deal).

Two separate MLPs, as the project's PPO agents have (``pi`` and ``vf`` nets), so the policy exports
unchanged as a saved agent and the value as a value-network file. With ``owners_head`` the policy's last
hidden layer also feeds a head that predicts where the cards hidden from the deciding seat are
(:mod:`newmarket_env.train.hidden`): an auxiliary loss for training, outside ``policy``, so never saved.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.cards import NUM_CARDS
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.train.hidden import NOT_HIDDEN, OWNER_CLASSES
from newmarket_env.train.networks import mlp


class PolicyValueNet(torch.nn.Module):
    """``policy(obs)`` -> logits ``(B, 79)``; ``value(obs)`` -> ``(B,)`` reward-scaled chips; ``network_input``: how the
    first layers read the observation (``network.input``); with ``owners_head``, ``policy_and_owners(obs)`` -> the
    logits and ``(B, 52, OWNER_CLASSES)`` owner logits."""

    def __init__(
        self, net_arch: Sequence[int], activation: str, network_input: str = "dense", owners_head: bool = False
    ) -> None:
        super().__init__()
        self.activation = activation
        self.policy = mlp([FLAT_SIZE, *net_arch, NUM_ACTIONS], activation, network_input)
        self.value_net = mlp([FLAT_SIZE, *net_arch, 1], activation, network_input)
        self.owners = owners_head_of(net_arch[-1]) if owners_head else None

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_net(obs).squeeze(-1)

    def policy_and_owners(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy's logits and the owner head's, from one pass through the policy's hidden layers."""
        if self.owners is None:
            raise ValueError("this network has no owners head (expert.aux_weight = 0)")
        return hidden_and_heads(self.policy, self.owners, obs)


def owners_head_of(width: int) -> torch.nn.Linear:
    """A linear head from a last hidden layer of ``width`` to ``52 x OWNER_CLASSES`` owner logits."""
    return torch.nn.Linear(width, NUM_CARDS * OWNER_CLASSES)


def hidden_and_heads(
    sequential: torch.nn.Sequential, owners: torch.nn.Module, obs: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``sequential(obs)`` and ``owners`` on its last hidden layer (the input of its last linear layer),
    reshaped to ``(B, 52, OWNER_CLASSES)``."""
    hidden = sequential[:-1](obs)
    return sequential[-1](hidden), owners(hidden).reshape(-1, NUM_CARDS, OWNER_CLASSES)


def owners_loss(owner_logits: torch.Tensor, owners: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the owner logits ``(B, 52, C)`` against the owners ``(B, 52)`` over the hidden cards
    only (NOT_HIDDEN is ignored); 0 when a batch has none."""
    hidden = owners != NOT_HIDDEN
    if not bool(hidden.any()):
        return owner_logits.sum() * 0.0
    return torch.nn.functional.cross_entropy(owner_logits[hidden], owners[hidden].long())
