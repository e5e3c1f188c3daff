"""Deep Monte-Carlo's actors, in DouZero's layout: ``dmc.actors`` actors play, one learner fits.

Each iteration the learner's weights go to every actor (once, through Ray's object store on a cluster),
each actor plays its share of the iteration's ``dmc.states`` decisions on a compiled batch of its own
(:class:`~newmarket_env.train.dmc.actor.Actor`), and the learner fits on what they return, in actor
order. Actor ``k`` of iteration ``i`` plays from the seed ``derive_seed(run.seed, COLLECT_TAG, i, k)``,
so the decisions depend on ``dmc.actors`` but not on where the actors run:

- ``dmc.backend: local``: one actor in this process plays the shares one after another;
- ``dmc.backend: ray``: ``dmc.actors`` Ray actors, spread over the cluster's nodes (``dmc.address``: ''
  starts a local Ray, ``auto`` or ``HOST:PORT`` joins a cluster), play their shares at once, each on
  ``run.threads`` CPUs of its node (0: one); an actor whose process or node dies is restarted and its
  share played again (the same share: its seed is fixed).

The rounds are synchronous (every actor waits for the new weights), unlike DouZero's actors, which
never stop: a seed reproduces a run and a resumed run equals an uninterrupted one, and the learner's fit
is a small part of an iteration (docs/guide/cluster.md has the figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from newmarket_env.execution.backends import connect_ray
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.game.rules import Rules
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.dmc.actor import Actor, States

COLLECT_TAG = 22
#: Times Ray restarts an actor whose process or node died.
ACTOR_RESTARTS = 3


def shares(count: int, actors: int) -> list[int]:
    """``count`` decisions cut into ``actors`` shares as even as can be (the first ones larger).

    >>> shares(10, 3)
    [4, 3, 3]
    """
    return [count * (k + 1) // actors - count * k // actors for k in range(actors)][::-1]


def join(parts: list[States]) -> States:
    """The actors' decisions as one set, in actor order."""
    owners = np.concatenate([p.owners for p in parts]) if all(p.owners is not None for p in parts) else None
    obs, masks, returns, actions = (
        np.concatenate([getattr(p, name) for p in parts]) for name in ("obs", "masks", "returns", "actions")
    )
    return States(obs, masks, returns, actions, owners)


def actor_keywords(config: TrainConfig, rules: Rules) -> dict[str, Any]:
    dmc = config.dmc
    return dict(
        rules=rules,
        tables=dmc.tables,
        baselines=list(config.opponents.baselines) if dmc.baseline_fraction > 0 else [],
        baseline_fraction=dmc.baseline_fraction,
        reward_scale=config.env.reward_scale,
        net_arch=list(dmc.net_arch),
        activation=dmc.activation,
        network_input=config.network.input,
        threads=config.run.threads or None,
        with_owners=dmc.aux_weight > 0,  # the auxiliary head's targets: where the hidden cards are
    )


def numpy_weights(net: torch.nn.Module) -> dict[str, np.ndarray]:
    """The network's ``state_dict`` as numpy arrays (what is sent to the actors)."""
    return {key: value.detach().cpu().numpy() for key, value in net.state_dict().items()}


class LocalActors:
    """Every share played by one actor in this process, one after another."""

    def __init__(self, config: TrainConfig, rules: Rules) -> None:
        self.actor = Actor(**actor_keywords(config, rules))
        self.config = config

    def collect(self, weights: Mapping[str, np.ndarray], iteration: int) -> States:
        dmc, seed = self.config.dmc, self.config.run.seed
        self.actor.set_weights(weights)
        parts = [
            self.actor.collect(share, derive_seed(seed, COLLECT_TAG, iteration, k), dmc.epsilon)
            for k, share in enumerate(shares(dmc.states, dmc.actors))
        ]
        return join(parts)

    def close(self) -> None:
        pass


class RayActors:
    """``dmc.actors`` Ray actors spread over the cluster's nodes, each with its batch and network."""

    def __init__(self, config: TrainConfig, rules: Rules) -> None:
        import ray  # optional: needs Ray (ray extra)

        self.config = config
        self.started_here = connect_ray(config.dmc.address or None, num_cpus=config.dmc.actors)
        threads = config.run.threads or 1  # an actor takes run.threads CPUs of its node (0: one)
        remote: Any = ray.remote(Actor).options(
            num_cpus=threads, scheduling_strategy="SPREAD", max_restarts=ACTOR_RESTARTS, max_task_retries=ACTOR_RESTARTS
        )
        keywords = {**actor_keywords(config, rules), "threads": threads}
        self.actors: list[Any] = [remote.remote(**keywords) for _ in range(config.dmc.actors)]

    def collect(self, weights: Mapping[str, np.ndarray], iteration: int) -> States:
        import ray  # optional: needs Ray (ray extra)

        dmc, seed = self.config.dmc, self.config.run.seed
        shared = ray.put(dict(weights))  # once in the object store; each node fetches it once
        calls = [
            actor.play.remote(shared, share, derive_seed(seed, COLLECT_TAG, iteration, k), dmc.epsilon)
            for k, (actor, share) in enumerate(zip(self.actors, shares(dmc.states, dmc.actors), strict=True))
        ]
        return join(ray.get(calls))

    def close(self) -> None:
        import ray  # optional: needs Ray (ray extra)

        for actor in self.actors:
            ray.kill(actor)
        if self.started_here:
            ray.shutdown()


def actor_pool(config: TrainConfig, rules: Rules) -> LocalActors | RayActors:
    """The actors of ``config`` (``dmc.backend``)."""
    return RayActors(config, rules) if config.dmc.backend == "ray" else LocalActors(config, rules)
