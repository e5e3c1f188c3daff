"""Checkpoints of torch methods: the network, the optimiser and the step count in one ``.pt`` file.

``checkpoints/<prefix>_<steps>_steps.pt`` (expert iteration's ``exit_...``, Deep Monte-Carlo's
``dmc_...``, a plugin method's ``<name>_...``) holds ``{"net": ..., "optimizer": ..., "steps": ...}``:
torch tensors and plain numbers only, read back with ``weights_only=True`` (no code runs). The run
loop writes it through a temporary name and stamps it (:mod:`newmarket_env.train.stamped`).
:class:`TorchLearner` is a :class:`~newmarket_env.train.methods.Learner` that checkpoints that way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from newmarket_env.train.methods import Learner
from newmarket_env.train.networks import layers_of


def save_state(path: Path, state: dict[str, Any]) -> None:
    """``torch.save`` of ``state`` (tensors, numbers, lists) at ``path``."""
    torch.save(state, path)


def load_state(path: Path, device: str = "cpu") -> dict[str, Any]:
    """A checkpoint written by :func:`save_state` (tensors only: no code runs), its tensors on ``device``."""
    return torch.load(path, weights_only=True, map_location=device)


class TorchLearner(Learner):
    """A learner whose state is ``self.net`` and ``self.optimizer`` (and :attr:`steps`).

    Its checkpoint is ``{"net", "optimizer", "steps"}``; its policy, for evaluations and ``final.npz``, is
    ``self.policy_net`` (``self.net`` unless a subclass says otherwise), an MLP of
    :func:`newmarket_env.train.networks.mlp` whose outputs are the 79 logits.
    """

    net: torch.nn.Module
    optimizer: torch.optim.Optimizer

    @property
    def device(self) -> str:
        return self.context.device

    @property
    def policy_net(self) -> torch.nn.Module:
        return self.net

    def save(self, path: Path) -> None:
        save_state(path, {"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict(), "steps": self.steps})

    def resume(self, checkpoint: Path, steps: int) -> None:
        state = load_state(checkpoint, self.device)
        self.net.load_state_dict(state["net"])
        if "optimizer" in state:
            self.optimizer.load_state_dict(state["optimizer"])
        self.steps = int(state.get("steps", steps))

    def policy_layers(self):
        return layers_of(self.policy_net)

    def training_info(self) -> dict[str, Any]:
        return {"torch": torch.__version__, "device": self.device}
