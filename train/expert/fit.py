"""Fit the network to labels: cross-entropy of the masked policy against the teacher's targets,
plus ``value_weight`` times the squared error of the value against the chips won (reward-scaled),
plus ``aux_weight`` times the cross-entropy of the owners head against where the hidden cards were
(when the network has one and ``owners`` are given).

Deterministic for a seed: the minibatch order comes from a numpy generator of that seed and torch's
generator is seeded too (nothing in the network draws at random today; dropout would).
"""

from __future__ import annotations

import numpy as np
import torch

from newmarket_env.train.expert.network import PolicyValueNet, owners_loss

#: Logit given to illegal actions (not -inf: 0 * -inf would turn the loss into NaN).
ILLEGAL_LOGIT = -1e9


def fit(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    obs: np.ndarray,
    masks: np.ndarray,
    targets: np.ndarray,
    returns: np.ndarray,
    epochs: int,
    batch_size: int,
    value_weight: float,
    seed: int,
    device: str = "cpu",
    owners: np.ndarray | None = None,
    aux_weight: float = 0.0,
) -> dict[str, float]:
    """Train in place; return the last epoch's mean policy loss, value loss, auxiliary (owners) loss (NaN
    without one), and the share of decisions where the greedy policy picks the target's most likely action."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    with_owners = aux_weight > 0 and net.owners is not None
    if with_owners and owners is None:
        raise ValueError("expert.aux_weight > 0 needs the labels' owners (labels written before they were kept?)")
    arrays = (obs, masks.astype(bool), targets, returns.astype(np.float32))
    data = (
        [torch.as_tensor(a, device=device) for a in (*arrays, owners)]
        if with_owners
        else [torch.as_tensor(a, device=device) for a in arrays]
    )  # on the network's device
    policy_losses: list[float] = []
    value_losses: list[float] = []
    aux_losses: list[float] = []
    for _ in range(epochs):
        policy_losses, value_losses, aux_losses = [], [], []
        order = rng.permutation(len(returns))
        for start in range(0, len(order), batch_size):
            idx = torch.as_tensor(order[start : start + batch_size], device=device)
            o, m, t, r = (d[idx] for d in data[:4])
            if with_owners:
                logits, owner_logits = net.policy_and_owners(o)
                aux_loss = owners_loss(owner_logits, data[4][idx])
            else:
                logits, aux_loss = net.policy(o), torch.zeros((), device=device)
            logits = logits.masked_fill(~m, ILLEGAL_LOGIT)
            policy_loss = -(t * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            value_loss = torch.nn.functional.mse_loss(net.value(o), r)
            optimizer.zero_grad()
            (policy_loss + value_weight * value_loss + aux_weight * aux_loss).backward()
            optimizer.step()
            policy_losses.append(policy_loss.item())
            value_losses.append(value_loss.item())
            aux_losses.append(aux_loss.item())
    with torch.no_grad():
        logits = net.policy(data[0]).masked_fill(~data[1], ILLEGAL_LOGIT)
        agreement = float((logits.argmax(dim=1) == data[2].argmax(dim=1)).float().mean())
    return {
        "policy_loss": float(np.mean(policy_losses)),
        "value_loss": float(np.mean(value_losses)),
        "aux_loss": float(np.mean(aux_losses)) if with_owners else float("nan"),
        "agreement": agreement,
    }
