"""The Q network (an MLP from the flat observation to 79 action values) and its Monte-Carlo regression.

The loss is the mean squared error between Q(s, a) at the action taken and the return that followed
it; the other 78 outputs get no gradient from that decision. With an owners head (``dmc.aux_weight``),
``aux_weight`` times its cross-entropy against where the hidden cards were is added: the head reads the Q
network's last hidden layer and is not part of the saved network. Deterministic for a seed: the minibatch
order comes from a numpy generator of that seed and torch's generator is seeded too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.train.expert.network import hidden_and_heads, owners_loss
from newmarket_env.train.networks import mlp


def q_network(net_arch: Sequence[int], activation: str, network_input: str = "dense") -> torch.nn.Sequential:
    """``net(obs)`` -> ``(B, 79)`` action values in reward-scaled chips (the saved-agent layout); ``network_input``: how
    the first layer reads the observation (``network.input``)."""
    return mlp([FLAT_SIZE, *net_arch, NUM_ACTIONS], activation, network_input)


def taken_values(net: torch.nn.Module, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """Q(s, a) at each row's action: ``(B,)``."""
    return net(obs).gather(1, actions[:, None]).squeeze(1)


def q_loss(
    net: torch.nn.Module, obs: np.ndarray, actions: np.ndarray, returns: np.ndarray, device: str = "cpu"
) -> float:
    """The mean squared error of Q(s, a_taken) against the returns, without training."""
    with torch.no_grad():
        values = taken_values(
            net, torch.as_tensor(obs, device=device), torch.as_tensor(actions, dtype=torch.int64, device=device)
        )
        return float(torch.nn.functional.mse_loss(values, torch.as_tensor(returns, dtype=torch.float32, device=device)))


def fit_q(
    net: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    obs: np.ndarray,
    actions: np.ndarray,
    returns: np.ndarray,
    epochs: int,
    batch_size: int,
    seed: int,
    device: str = "cpu",
    owners: np.ndarray | None = None,
    owners_head: torch.nn.Module | None = None,
    aux_weight: float = 0.0,
) -> float:
    """Train in place (the data moved to ``device``, the network's); return the last epoch's mean minibatch Q
    loss (the auxiliary loss not counted)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    with_owners = aux_weight > 0 and owners_head is not None
    if with_owners and owners is None:
        raise ValueError("dmc.aux_weight > 0 needs the decisions' owners of the hidden cards")
    data = [
        torch.as_tensor(obs, device=device),
        torch.as_tensor(actions, dtype=torch.int64, device=device),
        torch.as_tensor(returns, dtype=torch.float32, device=device),
    ]
    if with_owners:
        data.append(torch.as_tensor(owners, device=device))
    losses: list[float] = []
    for _ in range(epochs):
        losses = []
        order = rng.permutation(len(returns))
        for start in range(0, len(order), batch_size):
            idx = torch.as_tensor(order[start : start + batch_size], device=device)
            o, a, r = (d[idx] for d in data[:3])
            if with_owners:
                assert owners_head is not None
                q, owner_logits = hidden_and_heads(net, owners_head, o)  # type: ignore[arg-type]
                loss = torch.nn.functional.mse_loss(q.gather(1, a[:, None]).squeeze(1), r)
                total = loss + aux_weight * owners_loss(owner_logits, data[3][idx])
            else:
                loss = total = torch.nn.functional.mse_loss(taken_values(net, o, a), r)
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
            losses.append(loss.item())
    return float(np.mean(losses))
