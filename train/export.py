"""Turn a MaskablePPO policy into plain arrays (a saved-agent file or an in-memory agent), and save a model
with the record of its rules."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from newmarket_env.agents.saved import FORMAT, FORMAT_VERSION, SavedAgent, save_policy
from newmarket_env.agents.sb3_rules import write_rules_record
from newmarket_env.game.rules import Rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.state_layout import STATE_SIZE


def policy_layers(model: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor's linear layers, input to logits: the policy MLP then the action head (on a
    :class:`~newmarket_env.train.features.PlanesExtractor`, the whole actor as one ReLU MLP); a first layer
    that also reads the privileged state (oracle guiding, train/ppo/privileged.py) keeps only the observation's
    columns."""
    import torch  # optional: needs torch (train extra)

    from newmarket_env.train.features import PlanesExtractor, actor_layers  # optional: needs SB3 (train extra)

    policy = model.policy
    if isinstance(getattr(policy, "pi_features_extractor", None), PlanesExtractor):
        return actor_layers(policy)
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(policy.action_net)
    layers = [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in linears]
    return observation_only(layers)


def observation_only(layers: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """``layers`` with the first layer cut to the observation's columns: a saved agent reads the observation
    only. A first layer that reads the observation followed by the privileged state loses the state's
    columns (after oracle guiding's fade their weight in the policy is 0); any other width is refused.

    >>> w = np.ones((2, FLAT_SIZE + STATE_SIZE)); observation_only([(w, np.zeros(2))])[0][0].shape == (2, FLAT_SIZE)
    True
    """
    (weight, bias), rest = layers[0], layers[1:]
    if weight.shape[1] == FLAT_SIZE:
        return layers
    if weight.shape[1] != FLAT_SIZE + STATE_SIZE:
        raise ValueError(
            f"the policy's first layer reads {weight.shape[1]} inputs; allowed: the observation's {FLAT_SIZE}, "
            f"or those and the privileged state's {STATE_SIZE}"
        )
    return [(np.ascontiguousarray(weight[:, :FLAT_SIZE]), bias), *rest]


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


def env_rules(model: Any) -> tuple[str, Rules]:
    """The variant and rules of the env a model trains on (``model.get_env()``: this package's envs, through
    SB3's ``VecEnv``); a one-line ``ValueError`` when the model has no such env."""
    vec = model.get_env()
    try:
        rules, variant = (vec.get_attr(name, indices=[0])[0] for name in ("rules", "variant"))
    except (AttributeError, IndexError):
        rules = variant = None
    if not isinstance(rules, Rules) or not isinstance(variant, str):
        raise ValueError(
            "the model has no newmarket_env env to read its rules from (model.get_env()); "
            "give them: save_model(model, path, rules=make_rules(...), variant=...)"
        )
    return variant, rules


def save_model(model: Any, path: str | os.PathLike, rules: Rules | None = None, variant: str | None = None) -> Path:
    """``model.save(path)`` (SB3's ``.zip``), and beside it the record of the rules it trains on
    (``PATH.rules.json``, :mod:`newmarket_env.agents.sb3_rules`), read from its env unless given; returns the
    record's path. ``newmarket export`` and ``load_agent`` then check the model against them.
    """
    if rules is None or variant is None:
        found_variant, found_rules = env_rules(model)
        rules, variant = rules or found_rules, variant or found_variant
    path = Path(path)
    model.save(path)
    return write_rules_record(path if path.suffix == ".zip" else path.with_name(path.name + ".zip"), rules, variant)


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
