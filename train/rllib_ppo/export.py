"""The learner RLModule's policy as the plain saved-agent layers (``final.npz``: numpy, no Ray, no torch).

RLlib's default PPO module (``vf_share_layers=False``) computes the action logits as
``pi(actor_encoder(obs))``: the actor encoder is an MLP whose every hidden layer is followed by the
activation (``fcnet_activation``), and ``pi`` is one linear layer (no ``head_fcnet_hiddens``). That is
the saved-agent network exactly (hidden layers with ``activation``, then a linear layer of 79 logits),
so the export copies the linear layers in order. Anything else in the module (a layer norm, a hidden
head layer, another activation) is refused rather than exported wrongly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from newmarket_env.agents.saved import FORMAT, FORMAT_VERSION, SavedAgent
from newmarket_env.game.rules import Rules

#: The activation modules RLlib builds for each ``fcnet_activation`` the config allows.
_ACTIVATION_MODULES = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def policy_layers(module: Any, activation: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) arrays of ``module``'s actor encoder and ``pi`` head, input first.

    ``ValueError`` if the module is not ``Linear``/``activation`` pairs then one ``Linear``.
    """
    encoder = list(module.encoder.actor_encoder.net.mlp)
    head = list(module.pi.net.mlp)
    kind = _ACTIVATION_MODULES[activation]
    hidden = [encoder[i : i + 2] for i in range(0, len(encoder), 2)]
    shapes_ok = all(
        len(pair) == 2 and isinstance(pair[0], torch.nn.Linear) and type(pair[1]) is kind for pair in hidden
    )
    if not shapes_ok or len(head) != 1 or not isinstance(head[0], torch.nn.Linear):
        raise ValueError(
            f"the RLModule's policy is not an MLP of {activation} hidden layers and one linear head "
            f"(encoder {[type(m).__name__ for m in encoder]}, head {[type(m).__name__ for m in head]})"
        )
    linears = [pair[0] for pair in hidden] + head
    return [
        (m.weight.detach().cpu().numpy().astype(np.float32), m.bias.detach().cpu().numpy().astype(np.float32))
        for m in linears
    ]


def saved_agent(module: Any, activation: str, rules: Rules, variant: str, seed: int | None, name: str) -> SavedAgent:
    """The module's masked greedy policy as a numpy agent, as ``final.npz`` holds it."""
    metadata = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "variant": variant,
        "rules": rules.to_dict(),
        "activation": activation,
    }
    return SavedAgent(rules, seed, metadata, policy_layers(module, activation), sample=False, name=name)
