"""The Deep Monte-Carlo learner: iterations of self-play and fit (the run loop does the rest).

Files of its own in ``run.out_dir``: ``samples/iter_<i>.npz`` (each iteration's recorded decisions,
actions and returns: those the ``dmc.window`` replay still needs after the newest checkpoint are kept,
older ones removed). Its checkpoints are ``checkpoints/dmc_<steps>_steps.pt``; ``final.npz`` is the Q
network as a saved agent (its 79 outputs are the Q-values: a greedy ``SavedAgent`` plays argmax Q).

Each iteration's decisions are played by ``dmc.actors`` actors (:mod:`.actors`: here, or Ray actors on a
cluster with ``dmc.backend: ray``), each its share on a compiled batch of its own, with the learner's
weights of that moment; the learner fits on what they return. Every random draw of iteration ``i`` is
seeded from ``(run.seed, i)`` (and the actor's index), and a checkpoint holds the network and the
optimiser, so a run resumed from any checkpoint computes exactly what an uninterrupted one does, on
whichever backend.
``run.total_steps`` counts recorded learner decisions: ``ceil(total_steps / dmc.states)`` iterations.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from newmarket_env.agents.saved import Q_VALUE_OUTPUTS
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.dmc.actors import actor_pool, numpy_weights
from newmarket_env.train.dmc.fit import fit_q, q_loss, q_network
from newmarket_env.train.dmc.samples import ARRAYS, read_samples, samples_path, write_samples
from newmarket_env.train.expert.network import owners_head_of
from newmarket_env.train.methods import RunContext
from newmarket_env.train.torch_state import TorchLearner, load_state, save_state

_INIT_TAG, _FIT_TAG = 21, 24  # (22 is the actors' COLLECT_TAG, train/dmc/actors.py)


class DMCLearner(TorchLearner):
    """Deep Monte-Carlo's loop body: play ``dmc.states`` decisions, fit Q on the window, repeat."""

    def __init__(self, config: TrainConfig, context: RunContext) -> None:
        super().__init__(config, context)
        dmc = config.dmc
        self.activation = dmc.activation
        torch.manual_seed(derive_seed(config.run.seed, _INIT_TAG))
        self.net = q_network(dmc.net_arch, dmc.activation, config.network.input).to(self.device)
        # the auxiliary head (dmc.aux_weight): trained with the network, checkpointed beside it, never exported
        self.owners_head = owners_head_of(dmc.net_arch[-1]).to(self.device) if dmc.aux_weight > 0 else None
        heads = [] if self.owners_head is None else list(self.owners_head.parameters())
        self.optimizer = torch.optim.Adam([*self.net.parameters(), *heads], lr=dmc.learning_rate)
        self.actors: Any = None  # made when an iteration first plays (a curve's point only reads a checkpoint)
        self.began = time.time()

    def _samples(self, iteration: int) -> tuple[dict[str, np.ndarray], float]:
        """Play iteration ``iteration``'s decisions (or read them back: a resumed run); the seconds it took."""
        out_dir, run_id, states = self.context.out_dir, self.context.run_id, self.config.dmc.states
        path = samples_path(out_dir, iteration)
        saved = read_samples(path, run_id, states) if path.exists() else None
        if saved is not None:
            return saved, 0.0
        began = time.time()
        if self.actors is None:
            self.actors = actor_pool(self.config, self.context.rules)
        played = self.actors.collect(numpy_weights(self.net), iteration)
        samples = {"obs": played.obs, "masks": played.masks, "actions": played.actions, "returns": played.returns}
        if played.owners is not None:  # where the hidden cards were: the auxiliary head's target, never an input
            samples["owners"] = played.owners
        write_samples(path, samples, run_id)
        return samples, time.time() - began

    def _window(self, samples: dict[str, np.ndarray], iteration: int) -> dict[str, np.ndarray]:
        """This iteration's decisions and those of the ``dmc.window - 1`` before it, as one set of arrays."""
        dmc, out_dir = self.config.dmc, self.context.out_dir
        window = [samples]
        for earlier in range(max(0, iteration - dmc.window + 1), iteration):
            read = read_samples(samples_path(out_dir, earlier), self.context.run_id, dmc.states)
            if read is None:  # fitting on fewer decisions would silently change the run
                raise RuntimeError(
                    f"{samples_path(out_dir, earlier)} is missing or damaged, and iteration {iteration} fits on it "
                    f"(dmc.window = {dmc.window}); restore it or start a new run"
                )
            window.append(read)
        keys = (*ARRAYS, "owners") if dmc.aux_weight > 0 else ARRAYS
        if any(key not in w for w in window for key in keys):
            raise RuntimeError(
                "dmc.aux_weight > 0 needs where the hidden cards were, and a sample file of the window does not hold "
                "it (written before they were kept); start a new run"
            )
        return {key: np.concatenate([w[key] for w in window]) for key in keys}

    def iterate(self) -> dict[str, Any]:
        dmc, seed = self.config.dmc, self.config.run.seed
        iteration = self.steps // dmc.states
        samples, collect_s = self._samples(iteration)
        fitted = time.time()
        data = self._window(samples, iteration)
        # how well the network foresaw returns it has not been fitted on yet
        before = q_loss(self.net, samples["obs"], samples["actions"], samples["returns"], self.device)
        loss = fit_q(
            self.net,
            self.optimizer,
            data["obs"],
            data["actions"],
            data["returns"],
            dmc.epochs,
            dmc.batch_size,
            derive_seed(seed, _FIT_TAG, iteration),
            self.device,
            owners=data.get("owners"),
            owners_head=self.owners_head,
            aux_weight=dmc.aux_weight,
        )
        self.steps += dmc.states
        row = {
            "iteration": iteration,
            "steps": self.steps,
            "samples": len(data["actions"]),
            "mean_return": float(samples["returns"].mean()),
            "loss_before": before,
            "loss": loss,
            "collect_s": round(collect_s, 1),
            "fit_s": round(time.time() - fitted, 1),
            "wall_s": round(time.time() - self.began, 1),
        }
        self.context.say(
            f"iteration {iteration}: {self.steps} recorded decisions, mean return {row['mean_return']:+.3f}, "
            f"Q loss before fit {before:.4f} after {loss:.4f} (collect {collect_s:.0f} s)"
        )
        return row

    def save(self, path: Path) -> None:
        if self.owners_head is None:
            super().save(path)
            return
        # the head beside the network, so a resumed run goes on with it (final.npz is the Q network alone)
        state = {"net": self.net.state_dict(), "owners": self.owners_head.state_dict()}
        save_state(path, {**state, "optimizer": self.optimizer.state_dict(), "steps": self.steps})

    def resume(self, checkpoint: Path, steps: int) -> None:
        super().resume(checkpoint, steps)
        if self.owners_head is not None:
            state = load_state(checkpoint, self.device)
            if "owners" not in state:
                raise ValueError(f"{checkpoint.name} holds no owners head, and dmc.aux_weight > 0 trains one")
            self.owners_head.load_state_dict(state["owners"])

    def on_checkpoint(self) -> None:
        """Remove the sample files no resume from this checkpoint reads (it starts at the next iteration)."""
        keep_from = self.steps // self.config.dmc.states + 1 - self.config.dmc.window
        for path in (self.context.out_dir / "samples").glob("iter_*.npz"):
            if int(path.stem.removeprefix("iter_")) < keep_from:
                path.unlink(missing_ok=True)

    def training_info(self) -> dict[str, Any]:
        # the 79 outputs are Q(s, a): chips to the end of the deal x reward_scale
        return {"outputs": Q_VALUE_OUTPUTS, "reward_scale": self.config.env.reward_scale, **super().training_info()}

    def close(self) -> None:
        if self.actors is not None:
            self.actors.close()
