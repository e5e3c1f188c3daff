"""TorchRL: the PettingZoo AEC env through ``torchrl.envs.libs.pettingzoo.PettingZooWrapper``.

>>> from newmarket_env.integrations.torchrl import masked_random_policy, torchrl_env
>>> from torchrl.collectors import Collector
>>> table = torchrl_env(variant="michigan", num_players=4, seed=0)
>>> table.group_map
{'agents': ['player_0', 'player_1', 'player_2', 'player_3']}
>>> batch = next(iter(Collector(table, masked_random_policy(table), frames_per_batch=32, total_frames=32)))
>>> batch.batch_size
torch.Size([32])

The seats are one group, ``agents`` (their tensors stacked: self-play shares one network). In the AEC
env one seat acts at a time: TorchRL's ``("agents", "mask")`` marks it, and
``("agents", "action_mask")`` holds each seat's legal actions (the env's ``action_mask``). TorchRL's
default random policy draws from the whole action space, which the env refuses: a policy must draw
from the legal actions, as :func:`masked_random_policy` does (a masked distribution does the same for a
learned policy). Needs the ``torchrl`` extra.
"""

from __future__ import annotations

from typing import Any

import torch

from newmarket_env import env


def torchrl_env(seed: int | None = None, **env_kwargs: Any) -> Any:
    """``PettingZooWrapper`` around ``newmarket_env.env(**env_kwargs)``: the seats in one group, categorical
    actions, the acting seat masked."""
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # optional: needs TorchRL (torchrl extra)
    from torchrl.envs.utils import MarlGroupMapType  # optional: needs TorchRL (torchrl extra)

    return PettingZooWrapper(
        env(**env_kwargs),
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
        use_mask=True,
        categorical_actions=True,
        seed=seed,
    )


def masked_random_policy(table: Any, seed: int = 0) -> Any:
    """A policy for :func:`torchrl_env` that plays a uniformly random legal action for every seat."""
    generator = torch.Generator().manual_seed(seed)
    groups = list(table.group_map)

    def policy(tensordict: Any) -> Any:
        for group in groups:
            legal = tensordict.get((group, "action_mask")).float()
            legal[legal.sum(-1) == 0] = 1.0  # a seat that does not act: any action, never played
            tensordict.set((group, "action"), torch.multinomial(legal, 1, generator=generator).squeeze(-1))
        return tensordict

    return policy


__all__ = ["torchrl_env", "masked_random_policy"]
