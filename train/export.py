"""Turn a MaskablePPO policy into plain arrays: a saved-agent file or an in-memory agent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from newmarket_env.agents.saved import FORMAT, FORMAT_VERSION, SavedAgent, save_policy
from newmarket_env.game.rules import Rules


def policy_layers(model: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor's linear layers, input to logits: the policy MLP then the action head."""
    import torch  # optional: needs torch (train extra)

    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(policy.action_net)
    return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]


def model_activation(model: Any) -> str:
    """The saved-agent name of the activation between the model's policy layers (``policy.activation_fn``)."""
    import torch  # optional: needs torch (train extra)

    names: dict[Any, str] = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    given = getattr(model.policy, "activation_fn", None)
    if given not in names:
        raise ValueError(
            f"the policy's activation_fn {given!r} has no saved-agent equivalent; "
            f"allowed: {', '.join(cls.__name__ for cls in names)}"
        )
    return names[given]


def export_agent(
    model: Any,
    path: str,
    rules: Rules,
    variant: str,
    activation: str | None = None,
    training: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """Save the model's policy as a saved-agent ``.npz`` (weights and metadata only), named ``name``.

    ``activation`` (``"tanh"`` or ``"relu"``) is read from the model when not given; given, it must be the
    model's (a ``ValueError`` otherwise: the file would hold a different policy).
    """
    found = model_activation(model)
    if activation is not None and activation != found:
        raise ValueError(f"activation={activation!r} but the model's policy uses {found!r}")
    return save_policy(path, policy_layers(model), rules, variant, found, training, name=name)


def memory_agent(model: Any, rules: Rules, variant: str, activation: str, seed: int | None = None) -> SavedAgent:
    """The model's current policy as a greedy numpy agent, without writing a file."""
    layers = policy_layers(model)
    metadata = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "variant": variant,
        "rules": rules.to_dict(),
        "activation": activation,
    }
    return SavedAgent(rules, seed, metadata, layers, name="learner")
