"""REINFORCE with a learned baseline on newmarket-env's vector env: a training method as a plug-in.

``method: reinforce`` in a config trains with it, through newmarket-env's own run loop: the run folder
and its lock, ``--resume``, ``run.max_minutes``, evaluations, checkpoints, ``final.npz`` and the learning
curve come from there. This module gives what is the method's own (docs/tutorials/own_method.md):

- ``ReinforceSection``, the config section ``reinforce`` (validated, and listed by ``--describe``);
- ``ReinforceLearner.iterate``, one iteration: every table plays ``reinforce.steps`` learner decisions
  from fresh sessions, each decision of a finished session is credited with the chips won from it to
  the session's end, and one gradient step moves the policy towards the decisions that won more than
  the value network expected;
- ``METHOD``, what the entry point ``newmarket_env.methods: reinforce`` names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch

from newmarket_env import vector_env
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.train.config import ACTIVATIONS, spec
from newmarket_env.train.methods import Method
from newmarket_env.train.networks import mlp
from newmarket_env.train.torch_state import TorchLearner


@dataclass
class ReinforceSection:
    """REINFORCE with a learned baseline (method: reinforce): run.total_steps counts learner decisions."""

    tables: int = spec(64, "tables played at once (one learner seat each)", int, low=1, high=4096)
    steps: int = spec(32, "learner decisions per table per iteration", int, low=1, high=10_000)
    hidden: list = spec([128], "hidden layer sizes (policy and value alike)", list, items=int, item_range=(1, 4096))
    activation: str = spec("tanh", "hidden activation", str, choices=ACTIVATIONS)
    learning_rate: float = spec(1e-3, "Adam step size", float, low=1e-8, high=1.0)
    value_weight: float = spec(0.5, "weight of the value regression", float, low=0.0, high=100.0)


class ReinforceLearner(TorchLearner):
    """The loop body. Each iteration starts new sessions seeded from ``(run.seed, iteration)``, so a
    resumed run (network, optimiser and step count from the checkpoint) repeats the uninterrupted one."""

    def __init__(self, config, context) -> None:
        super().__init__(config, context)
        section = config.reinforce
        self.activation = section.activation
        torch.manual_seed(config.run.seed)
        self.policy = mlp([FLAT_SIZE, *section.hidden, NUM_ACTIONS], section.activation).to(self.device)
        self.value = mlp([FLAT_SIZE, *section.hidden, 1], section.activation).to(self.device)
        self.net = torch.nn.ModuleDict({"policy": self.policy, "value": self.value})  # what a checkpoint holds
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=section.learning_rate)
        self.envs = vector_env(num_envs=section.tables, **config.table_keywords())

    @property
    def policy_net(self) -> torch.nn.Module:
        return self.policy  # what evaluations play and final.npz holds: 79 logits

    def iterate(self) -> dict[str, Any]:
        section, seed = self.config.reinforce, self.config.run.seed
        iteration = self.steps // (section.tables * section.steps)
        torch.manual_seed(derive_seed(seed, 1, iteration))
        obs, _ = self.envs.reset(seed=derive_seed(seed, 2, iteration))
        pending: list[list[tuple[torch.Tensor, torch.Tensor, float]]] = [[] for _ in range(section.tables)]
        log_probs, values, returns = [], [], []
        for _ in range(section.steps):
            x = torch.as_tensor(obs, device=self.device)
            mask = torch.as_tensor(self.envs.action_masks(), device=self.device)
            logits = self.policy(x).masked_fill(~mask, -1e9)  # illegal actions: no probability
            dist = torch.distributions.Categorical(logits=logits)
            actions = dist.sample()
            value = self.value(x).squeeze(-1)
            obs, rewards, terminated, truncated, _ = self.envs.step(actions.cpu().numpy())
            chosen = dist.log_prob(actions)
            for table in range(section.tables):
                pending[table].append((chosen[table], value[table], float(rewards[table])))
                if terminated[table] or truncated[table]:  # credit each decision with the chips still to come
                    to_go = np.cumsum([r for _, _, r in pending[table]][::-1])[::-1]
                    for (log_p, v, _), g in zip(pending[table], to_go, strict=True):
                        log_probs.append(log_p)
                        values.append(v)
                        returns.append(g)
                    pending[table] = []
        self.steps += section.tables * section.steps
        if not returns:  # no session finished: nothing to learn from this time
            return {"steps": self.steps, "credited": 0, "mean_return": float("nan"), "loss": float("nan")}
        target = torch.as_tensor(np.array(returns, dtype=np.float32), device=self.device)
        value = torch.stack(values)
        advantage = (target - value).detach()
        loss = -(torch.stack(log_probs) * advantage).mean()
        loss = loss + section.value_weight * torch.nn.functional.mse_loss(value, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"steps": self.steps, "credited": len(returns), "mean_return": float(target.mean()), "loss": loss.item()}

    def close(self) -> None:
        self.envs.close()


class Reinforce(Method):
    name = "reinforce"
    summary = "REINFORCE with a learned baseline on the vector env (a plug-in: docs/tutorials/own_method.md)"
    sections: ClassVar[dict[str, type]] = {"reinforce": ReinforceSection}
    progress_fields = ("steps", "credited", "mean_return", "loss")  # progress.csv's columns
    shown = ("mean_return", "loss")  # the progress line's figures

    def learner(self, config, context) -> ReinforceLearner:
        return ReinforceLearner(config, context)


METHOD = Reinforce()
