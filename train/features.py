"""A features extractor for the ``planes`` layout of the observation, for SB3's MaskablePPO and PPO.

:class:`PlanesExtractor` reads the observation as the planes encoding lays it out
(docs/observation.md): the 16 card pieces as (suit x rank) planes, and the scalars. A convolution along
the ranks of each suit (``kernel=(1, 3)`` by default: a card and its neighbours, which is what a run in
a stops game is made of) turns the card planes into ``channels`` feature planes, with a ReLU; the
scalars pass through unchanged (broadcast over planes, as ``observation="planes"`` gives them, they
would only repeat each number 52 times). It takes either encoding of the same observation: the flat
vector (``(936,)``, what the vector env and the fast path give) or the planes (``(120, 4, 13)``,
``observation="planes"``), and gives the same features for both.

From a script::

    model = MaskablePPO("MlpPolicy", vec, policy_kwargs=planes_policy_kwargs(net_arch=[128]))

From a config: ``ppo.features: planes`` (with ``ppo.activation: relu``).

Exported exactly: a convolution is a linear map, and with ReLU activations the whole actor (the
extractor, the policy net, the action head) is a ReLU MLP on the flat observation (:func:`actor_layers`:
the convolution as its dense matrix, the scalars carried through a ReLU as ``relu(s) - relu(-s)``), so
``export_agent`` writes it as a saved ``.npz`` that plays without torch, as every shipped agent does.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from newmarket_env.observation.encode import PLANES_SHAPE
from newmarket_env.observation.layout import FLAT_SIZE, NUM_CARD_PLANES, NUM_SCALARS

CARDS = 52
SUITS_RANKS = (4, 13)


class PlanesExtractor(BaseFeaturesExtractor):
    """Card planes through a convolution along the ranks (ReLU), then the scalars; see the module docstring.

    ``channels``: feature planes of the convolution; ``kernel``: its (suits, ranks) size, both odd (the
    planes keep their 4 x 13 shape). ``features_dim`` is ``channels * 52 + NUM_SCALARS``.
    """

    def __init__(self, observation_space: gym.Space, channels: int = 16, kernel: tuple[int, int] = (1, 3)) -> None:
        shape = getattr(observation_space, "shape", None)
        if shape not in ((FLAT_SIZE,), PLANES_SHAPE):
            raise ValueError(
                f"PlanesExtractor reads this package's observation; got a space of shape {shape}; "
                f"allowed: {(FLAT_SIZE,)} (flat) or {PLANES_SHAPE} (planes)"
            )
        sizes = tuple(kernel)
        if len(sizes) != 2 or any(not isinstance(k, int) or k < 1 or k % 2 == 0 for k in sizes):
            raise ValueError(f"kernel={kernel!r} is not allowed; allowed: two odd sizes, (suits, ranks), e.g. (1, 3)")
        if isinstance(channels, bool) or not isinstance(channels, int) or not 1 <= channels <= 256:
            raise ValueError(f"channels={channels!r} is out of range; allowed: an int 1..256")
        super().__init__(observation_space, channels * CARDS + NUM_SCALARS)
        self.planes_input = shape == PLANES_SHAPE
        self.conv = torch.nn.Conv2d(NUM_CARD_PLANES, channels, sizes, padding=(sizes[0] // 2, sizes[1] // 2))

    def split(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The card planes ``(batch, 16, 4, 13)`` and the scalars ``(batch, NUM_SCALARS)`` of either encoding."""
        if self.planes_input:
            return observations[:, :NUM_CARD_PLANES], observations[:, NUM_CARD_PLANES:, 0, 0]
        cards = observations[:, : NUM_CARD_PLANES * CARDS].reshape(-1, NUM_CARD_PLANES, *SUITS_RANKS)
        return cards, observations[:, NUM_CARD_PLANES * CARDS :]

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        cards, scalars = self.split(observations)
        return torch.cat([torch.relu(self.conv(cards)).flatten(1), scalars], dim=1)

    def dense(self) -> tuple[np.ndarray, np.ndarray]:
        """The convolution as one matrix on the flat card part: ``(channels * 52, 16 * 52)`` and its bias."""
        with torch.no_grad():
            basis = torch.eye(NUM_CARD_PLANES * CARDS).reshape(-1, NUM_CARD_PLANES, *SUITS_RANKS)
            images = torch.nn.functional.conv2d(basis, self.conv.weight, None, padding=self.conv.padding)
            weight = images.flatten(1).T.cpu().numpy()
            assert self.conv.bias is not None  # Conv2d's default: a bias per channel
            bias = self.conv.bias.repeat_interleave(CARDS).cpu().numpy()
        return weight.astype(np.float32), bias.astype(np.float32)


def planes_policy_kwargs(
    net_arch: list[int] | None = None, channels: int = 16, kernel: tuple[int, int] = (1, 3)
) -> dict[str, Any]:
    """``policy_kwargs`` of a MaskablePPO or PPO ``MlpPolicy`` on :class:`PlanesExtractor`, with the ReLU
    activation that lets :func:`actor_layers` export it exactly (``net_arch``: the policy and value nets'
    hidden sizes after the extractor, default ``[128]``)."""
    hidden = [128] if net_arch is None else list(net_arch)
    return {
        "features_extractor_class": PlanesExtractor,
        "features_extractor_kwargs": {"channels": channels, "kernel": tuple(kernel)},
        "net_arch": {"pi": hidden, "vf": hidden},
        "activation_fn": torch.nn.ReLU,
    }


def actor_layers(policy: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor of a policy on :class:`PlanesExtractor` as a ReLU MLP on the flat observation: the layers,
    input to logits, that a saved agent plays (a one-line ``ValueError`` unless its activation is ReLU)."""
    extractor = policy.pi_features_extractor
    if not isinstance(extractor, PlanesExtractor):
        raise ValueError(f"the policy's features extractor is {type(extractor).__name__}, not a PlanesExtractor")
    if policy.activation_fn is not torch.nn.ReLU:
        raise ValueError(
            f"a PlanesExtractor policy exports exactly only with activation_fn=ReLU (the extractor's own); "
            f"this one uses {getattr(policy.activation_fn, '__name__', policy.activation_fn)}"
        )
    conv_weight, conv_bias = extractor.dense()
    cards, scalars = NUM_CARD_PLANES * CARDS, NUM_SCALARS
    rows = conv_weight.shape[0]
    # Layer 0: the convolution on the card part; each scalar twice, as s and -s (both through the ReLU).
    first = np.zeros((rows + 2 * scalars, FLAT_SIZE), dtype=np.float32)
    first[:rows, :cards] = conv_weight
    first[rows : rows + scalars, cards:] = np.eye(scalars, dtype=np.float32)
    first[rows + scalars :, cards:] = -np.eye(scalars, dtype=np.float32)
    layers = [(first, np.concatenate([conv_bias, np.zeros(2 * scalars, dtype=np.float32)]))]
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(policy.action_net)
    for i, linear in enumerate(linears):
        weight = linear.weight.detach().cpu().numpy().astype(np.float32)
        bias = linear.bias.detach().cpu().numpy().astype(np.float32)
        if i == 0:  # it reads [cards, s]: give it [cards, relu(s), relu(-s)] as cards, s and -s
            weight = np.concatenate([weight, -weight[:, rows:]], axis=1)
        layers.append((weight, bias))
    return layers


__all__ = ["PlanesExtractor", "actor_layers", "planes_policy_kwargs"]
