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

from newmarket_env.agents.saved import FORMAT, FORMAT_VERSION, SavedAgent
from newmarket_env.game.rules import Rules
from newmarket_env.integrations.rllib import policy_layers

__all__ = ["policy_layers", "saved_agent"]


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
