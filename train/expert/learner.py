"""The expert-iteration learner: iterations of collect, label, fit (the run loop does the rest).

Files of its own in ``run.out_dir``: ``labels/iter_<i>.npz`` (each iteration's decisions and labels,
kept for the ``expert.window`` aggregation and for a resume) and, at the end, ``final_value.npz`` (the
value network, which ``guided_search`` uses) beside ``final.npz`` (the policy). Its checkpoints are
``checkpoints/exit_<steps>_steps.pt``, one after every iteration.

Every random draw of iteration ``i`` is seeded from ``(run.seed, i)`` and the network and optimiser
are checkpointed after each iteration, so a resumed run computes exactly what an uninterrupted one does.
``run.total_steps`` counts labelled decisions: ``ceil(total_steps / expert.states)`` iterations.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from newmarket_env.agents.saved import SavedAgent, read_saved
from newmarket_env.agents.value_net import save_value
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.game.rules import Rules
from newmarket_env.train.collect import collect_states
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.expert.fit import fit
from newmarket_env.train.expert.label import Teacher, label_states, policy_targets
from newmarket_env.train.expert.network import PolicyValueNet
from newmarket_env.train.methods import Layers, RunContext, saved_metadata
from newmarket_env.train.networks import layers_of, load_layers
from newmarket_env.train.rundir import write_arrays_atomic
from newmarket_env.train.torch_state import TorchLearner

LABEL_TAG = 13
_INIT_TAG, _COLLECT_TAG, _FIT_TAG, _LEARNER_TAG = 11, 12, 14, 15


def network_metadata(config: TrainConfig, rules: Rules) -> dict[str, Any]:
    """The saved-agent metadata of the run's policy (and, with its reward scale, of its value network)."""
    return saved_metadata(config, rules, config.expert.activation, reward_scale=config.env.reward_scale)


def teacher_of(
    config: TrainConfig, rules: Rules, policy_layers: Layers | None, value_layers: Layers | None = None
) -> Teacher:
    """The labeller of ``config.expert`` with the network of ``policy_layers`` (and its value network for a
    ``guided_search`` teacher with a cut-off); ``policy_layers`` None: plain ``search`` (iteration 0)."""
    exp = config.expert
    if exp.teacher == "search" or policy_layers is None:  # iteration 0 has no network to guide rollouts
        return Teacher(rules, "search", exp.budget, exp.max_candidates)
    meta = network_metadata(config, rules)
    if exp.teacher == "guided_prior":
        return Teacher(
            rules,
            "guided_prior",
            exp.budget,
            exp.max_candidates,
            policy={"metadata": meta, "layers": policy_layers},
            prior_weight=exp.prior_weight,
            racing_worlds=exp.racing_worlds,
            racing_z=exp.racing_z,
        )
    if exp.guided_cutoff and value_layers is None:
        raise ValueError("a guided_search teacher with expert.guided_cutoff > 0 needs the value network")
    value = {"metadata": meta, "layers": value_layers} if exp.guided_cutoff else None
    return Teacher(
        rules,
        "guided_search",
        exp.budget,
        exp.max_candidates,
        exp.guided_cutoff,
        policy={"metadata": meta, "layers": policy_layers},
        value=value,
    )


def labels_path(out_dir: Path, iteration: int) -> Path:
    return out_dir / "labels" / f"iter_{iteration:04d}.npz"


def _read_labels(path: Path, run_id: str, count: int) -> dict[str, np.ndarray] | None:
    """An iteration's labels if the file is this run's and complete, else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["run_id"]) != run_id or len(data["actions"]) != count:
                return None
            return {key: data[key] for key in data.files}
    except (OSError, KeyError, ValueError, EOFError):
        return None


class ExpertLearner(TorchLearner):
    """Expert iteration's loop body: collect the network's states, label them with the teacher, fit."""

    net: PolicyValueNet

    def __init__(self, config: TrainConfig, context: RunContext) -> None:
        super().__init__(config, context)
        exp = config.expert
        self.activation = exp.activation
        torch.manual_seed(derive_seed(config.run.seed, _INIT_TAG))
        self.net = PolicyValueNet(exp.net_arch, exp.activation, config.network.input, owners_head=exp.aux_weight > 0)
        if exp.init:  # the starting network (a resumed run's checkpoint replaces it)
            load_layers(self.net.policy, read_saved(exp.init)[1])
        self.net.to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=exp.learning_rate)
        self.began = time.time()

    @property
    def policy_net(self) -> torch.nn.Module:
        return self.net.policy

    def metadata(self) -> dict[str, Any]:
        return network_metadata(self.config, self.context.rules)

    def _labels(self, iteration: int) -> tuple[dict[str, np.ndarray], float, float]:
        """Collect and label iteration ``iteration``'s decisions (or read them back: a resumed run); seconds of each."""
        config, out_dir, run_id, rules = self.config, self.context.out_dir, self.context.run_id, self.context.rules
        exp, seed = config.expert, config.run.seed
        path = labels_path(out_dir, iteration)
        saved = _read_labels(path, run_id, exp.states) if path.exists() else None
        if saved is not None:
            return saved, 0.0, 0.0
        began = time.time()
        trained = iteration > 0 or bool(exp.init)  # a network worth playing and teaching with
        learner: SavedAgent | None = None
        if trained:
            learner = SavedAgent(
                rules,
                derive_seed(seed, _LEARNER_TAG, iteration),
                self.metadata(),
                self.policy_layers(),
                sample=exp.sample,
                name=config.name,
            )
        baselines = list(config.opponents.baselines) if exp.baseline_fraction > 0 else []
        states = collect_states(
            rules,
            learner,
            exp.first_states,
            baselines,
            exp.baseline_fraction,
            exp.tables,
            exp.states,
            derive_seed(seed, _COLLECT_TAG, iteration),
            config.env.reward_scale,
        )
        collected = time.time()
        seeds = [derive_seed(seed, LABEL_TAG, iteration, k) for k in range(exp.states)]
        teacher = teacher_of(config, rules, self.policy_layers() if trained else None, layers_of(self.net.value_net))
        actions, means = label_states(
            teacher, states.obs, states.masks, seeds, exp.workers, exp.backend, exp.address or None
        )
        labels = {
            "obs": states.obs,
            "masks": states.masks,
            "returns": states.returns,
            "actions": actions,
            "means": means,
            "owners": states.owners,  # where the hidden cards were: a training-time target, never an input
            "run_id": np.array(run_id),
        }
        write_arrays_atomic(path, **labels)
        return labels, collected - began, time.time() - collected

    def _prior_agreement(self, labels: dict[str, np.ndarray]) -> float:
        """Share of the new decisions where the network, before this iteration's fit, already chose as the teacher."""
        with torch.no_grad():
            logits = self.net.policy(torch.as_tensor(labels["obs"], device=self.device)).cpu().numpy()
        chosen = np.where(labels["masks"], logits, -np.inf).argmax(axis=1)
        return float(np.mean(chosen == labels["actions"]))

    def iterate(self) -> dict[str, Any]:
        config, out_dir, run_id = self.config, self.context.out_dir, self.context.run_id
        exp = config.expert
        iteration = self.steps // exp.states
        labels, collect_s, label_s = self._labels(iteration)
        prior = self._prior_agreement(labels) if iteration or exp.init else float("nan")
        fitted = time.time()
        window = [labels]
        for earlier in range(max(0, iteration - exp.window + 1), iteration):
            read = _read_labels(labels_path(out_dir, earlier), run_id, exp.states)
            if read is None:  # fitting on fewer labels would silently change the run
                raise RuntimeError(
                    f"{labels_path(out_dir, earlier)} is missing or damaged, and iteration {iteration} fits on it "
                    f"(expert.window = {exp.window}); restore it or start a new run"
                )
            window.append(read)
        keys = ("obs", "masks", "returns", "actions", "means") + (("owners",) if exp.aux_weight > 0 else ())
        missing = [i for i, w in enumerate(window) if any(key not in w for key in keys)]
        if missing:
            raise RuntimeError(
                f"expert.aux_weight > 0 needs where the hidden cards were, and the labels of {len(missing)} "
                "iteration(s) of the window do not hold it (written before they were kept); start a new run"
            )
        data = {key: np.concatenate([w[key] for w in window]) for key in keys}
        targets = policy_targets(data["actions"], data["means"], exp.target, exp.temperature)
        losses = fit(
            self.net,
            self.optimizer,
            data["obs"],
            data["masks"],
            targets,
            data["returns"],
            exp.epochs,
            exp.batch_size,
            exp.value_weight,
            derive_seed(config.run.seed, _FIT_TAG, iteration),
            self.device,
            owners=data.get("owners"),
            aux_weight=exp.aux_weight,
        )
        self.steps += exp.states
        self.context.say(
            f"iteration {iteration}: {self.steps} labelled decisions, agreement before fit {prior:.3f} after "
            f"{losses['agreement']:.3f}, value loss {losses['value_loss']:.3f} "
            f"(collect {collect_s:.0f} s, label {label_s:.0f} s)"
        )
        return {
            "iteration": iteration,
            "steps": self.steps,
            "labels": len(data["actions"]),
            "mean_return": float(labels["returns"].mean()),
            "prior_agreement": prior,
            "aux_loss": float("nan"),  # without an owners head (expert.aux_weight = 0)
            **losses,
            "collect_s": round(collect_s, 1),
            "label_s": round(label_s, 1),
            "fit_s": round(time.time() - fitted, 1),
            "wall_s": round(time.time() - self.began, 1),
        }

    def export(self, out_dir: Path, training: dict[str, Any]) -> dict[str, Any]:
        """final.npz (the policy) and final_value.npz (the value network, for ``guided_search``)."""
        metadata = super().export(out_dir, training)
        config = self.config
        save_value(
            out_dir / "final_value.npz",
            layers_of(self.net.value_net),
            self.context.rules,
            config.env.variant,
            self.activation,
            config.env.reward_scale,
            training,
        )
        return metadata
