"""The expert-iteration run: iterations of collect, label, fit; checkpoints, logs, evaluation, final files.

Outputs in ``run.out_dir`` (besides ``run.json`` and ``config.yaml``, as for PPO runs):
``labels/iter_<i>.npz`` (each iteration's decisions and labels, kept for the ``expert.window``
aggregation and for a resume), ``checkpoints/exit_<steps>_steps.pt``, ``progress.csv`` (one row per
iteration), ``eval.csv`` and ``learning_curve.png``, ``final.npz`` (the policy: a saved agent),
``final_value.npz`` (the value network), ``final.json`` and ``final_eval.json``.

Every random draw of iteration ``i`` is seeded from ``(run.seed, i)`` and the network and optimiser
are checkpointed after each iteration, so a resumed run computes exactly what an uninterrupted one does.
``run.total_steps`` counts labelled decisions: ``ceil(total_steps / expert.states)`` iterations.
"""

from __future__ import annotations

import json
import math
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from newmarket_env.agents.saved import FORMAT, FORMAT_VERSION, SavedAgent, read_saved, save_policy
from newmarket_env.agents.value_net import save_value
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.game.rules import Rules, make_rules
from newmarket_env.train.callbacks import EVAL_FIELDS, Every
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.evaluate import evaluation_rows, print_final_evaluation
from newmarket_env.train.expert.checkpoint import find_state, resume_training, save_state
from newmarket_env.train.expert.collect import collect_states
from newmarket_env.train.expert.fit import fit
from newmarket_env.train.expert.label import Teacher, label_states, policy_targets
from newmarket_env.train.expert.network import PolicyValueNet, layers_of, load_policy_layers
from newmarket_env.train.logs import append_rows
from newmarket_env.train.plot import plot_curve
from newmarket_env.train.rundir import write_arrays_atomic, write_atomic

_INIT_TAG, _COLLECT_TAG, _LABEL_TAG, _FIT_TAG, _LEARNER_TAG = 11, 12, 13, 14, 15
PROGRESS_FIELDS = [
    "iteration",
    "steps",
    "labels",
    "mean_return",
    "prior_agreement",
    "policy_loss",
    "value_loss",
    "agreement",
    "collect_s",
    "label_s",
    "fit_s",
    "wall_s",
]


def find_checkpoint(folder: Path, run_id: str):
    """The newest intact expert-iteration checkpoint (``prepare_run`` uses it for ``--resume``)."""
    return find_state(folder, run_id)


def _metadata(config: TrainConfig, rules: Rules) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "variant": config.env.variant,
        "rules": rules.to_dict(),
        "activation": config.expert.activation,
        "reward_scale": config.env.reward_scale,
    }


def learner_agent(net: PolicyValueNet, config: TrainConfig, rules: Rules, seed: int, sample: bool) -> SavedAgent:
    """The network's policy as a numpy agent (what the saved file will hold)."""
    return SavedAgent(rules, seed, _metadata(config, rules), layers_of(net.policy), sample=sample, name=config.name)


def teacher_of(
    config: TrainConfig,
    rules: Rules,
    policy_layers: list[tuple[np.ndarray, np.ndarray]] | None,
    value_layers: list[tuple[np.ndarray, np.ndarray]] | None = None,
) -> Teacher:
    """The labeller of ``config.expert`` with the network of ``policy_layers`` (and its value network for a
    ``guided_search`` teacher with a cut-off); ``policy_layers`` None: plain ``search`` (iteration 0)."""
    exp = config.expert
    if exp.teacher == "search" or policy_layers is None:  # iteration 0 has no network to guide rollouts
        return Teacher(rules, "search", exp.budget, exp.max_candidates)
    meta = _metadata(config, rules)
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


def _labels_path(out_dir: Path, iteration: int) -> Path:
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


def _iteration_labels(
    config: TrainConfig, rules: Rules, net: PolicyValueNet, iteration: int, out_dir: Path, run_id: str
) -> tuple[dict[str, np.ndarray], float, float]:
    """Collect and label iteration ``iteration``'s decisions (or read them back: a resumed run); seconds of each."""
    exp, seed = config.expert, config.run.seed
    path = _labels_path(out_dir, iteration)
    saved = _read_labels(path, run_id, exp.states) if path.exists() else None
    if saved is not None:
        return saved, 0.0, 0.0
    began = time.time()
    trained = iteration > 0 or bool(exp.init)  # a network worth playing and teaching with
    learner = (
        learner_agent(net, config, rules, derive_seed(seed, _LEARNER_TAG, iteration), exp.sample) if trained else None
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
    seeds = [derive_seed(seed, _LABEL_TAG, iteration, k) for k in range(exp.states)]
    teacher = teacher_of(config, rules, layers_of(net.policy) if trained else None, layers_of(net.value_net))
    actions, means = label_states(
        teacher,
        states.obs,
        states.masks,
        seeds,
        exp.workers,
        exp.backend,
        exp.address or None,
    )
    labels = {
        "obs": states.obs,
        "masks": states.masks,
        "returns": states.returns,
        "actions": actions,
        "means": means,
        "run_id": np.array(run_id),
    }
    write_arrays_atomic(path, **labels)
    return labels, collected - began, time.time() - collected


def _prior_agreement(net: PolicyValueNet, labels: dict[str, np.ndarray]) -> float:
    """Share of the new decisions where the network, before this iteration's fit, already chose as the teacher."""
    with torch.no_grad():
        logits = net.policy(torch.as_tensor(labels["obs"])).numpy()
    chosen = np.where(labels["masks"], logits, -np.inf).argmax(axis=1)
    return float(np.mean(chosen == labels["actions"]))


def evaluate_network(
    config: TrainConfig, rules: Rules, net: PolicyValueNet, boards: int, steps: int, started: float
) -> list[dict[str, Any]]:
    """Duplicate evaluation of the greedy network against each ``eval.opponents`` (rows of eval.csv)."""
    return evaluation_rows(config, learner_agent(net, config, rules, 0, sample=False), boards, steps, started)


def train_expert(config: TrainConfig, start: Any, command: str = "") -> Path:
    """Run (or continue, ``start.checkpoint``) the expert iteration of ``config``; return the final agent's path.

    numpy's BLAS gets ``run.torch_threads`` threads, as in PPO runs: the network's forward passes at the
    collection tables and in evaluations are small, and more threads only wait on each other.
    """
    from threadpoolctl import threadpool_limits  # optional: needs threadpoolctl (train extra)

    with threadpool_limits(limits=config.run.torch_threads, user_api="blas"):
        return _train(config, start, command)


def _train(config: TrainConfig, start: Any, command: str) -> Path:
    exp, out_dir, run_id = config.expert, start.out_dir, start.run["run_id"]
    torch.set_num_threads(config.run.torch_threads)
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    torch.manual_seed(derive_seed(config.run.seed, _INIT_TAG))
    net = PolicyValueNet(exp.net_arch, exp.activation)
    optimizer = torch.optim.Adam(net.parameters(), lr=exp.learning_rate)
    if exp.init:  # the starting network (a resumed run's checkpoint replaces it below)
        load_policy_layers(net, read_saved(exp.init)[1])
    steps = resume_training(start, net, optimizer, "labelled decisions")
    iterations = math.ceil(config.run.total_steps / exp.states)
    deadline = time.time() + 60 * config.run.max_minutes if config.run.max_minutes else None
    evaluations = Every(config.eval.every, steps)
    began = time.time()
    for iteration in range(steps // exp.states, iterations):
        if deadline is not None and time.time() >= deadline:
            print(
                f"stopped by run.max_minutes = {config.run.max_minutes:g} after {iteration} of {iterations} "
                "iterations; saving the agent and evaluating it",
                flush=True,
            )
            break
        labels, collect_s, label_s = _iteration_labels(config, rules, net, iteration, out_dir, run_id)
        prior = _prior_agreement(net, labels) if iteration or exp.init else float("nan")
        fitted = time.time()
        window = [labels]
        for earlier in range(max(0, iteration - exp.window + 1), iteration):
            read = _read_labels(_labels_path(out_dir, earlier), run_id, exp.states)
            if read is None:  # fitting on fewer labels would silently change the run
                raise RuntimeError(
                    f"{_labels_path(out_dir, earlier)} is missing or damaged, and iteration {iteration} fits on it "
                    f"(expert.window = {exp.window}); restore it or start a new run"
                )
            window.append(read)
        data = {
            key: np.concatenate([w[key] for w in window]) for key in ("obs", "masks", "returns", "actions", "means")
        }
        targets = policy_targets(data["actions"], data["means"], exp.target, exp.temperature)
        losses = fit(
            net,
            optimizer,
            data["obs"],
            data["masks"],
            targets,
            data["returns"],
            exp.epochs,
            exp.batch_size,
            exp.value_weight,
            derive_seed(config.run.seed, _FIT_TAG, iteration),
        )
        steps += exp.states
        save_state(
            out_dir / "checkpoints",
            run_id,
            steps,
            {"net": net.state_dict(), "optimizer": optimizer.state_dict(), "steps": steps},
        )
        row = {
            "iteration": iteration,
            "steps": steps,
            "labels": len(data["actions"]),
            "mean_return": float(labels["returns"].mean()),
            "prior_agreement": prior,
            **losses,
            "collect_s": round(collect_s, 1),
            "label_s": round(label_s, 1),
            "fit_s": round(time.time() - fitted, 1),
            "wall_s": round(time.time() - began, 1),
        }
        append_rows(out_dir / "progress.csv", PROGRESS_FIELDS, [row])
        print(
            f"iteration {iteration}: {steps} labelled decisions, agreement before fit {prior:.3f} after "
            f"{losses['agreement']:.3f}, value loss {losses['value_loss']:.3f} "
            f"(collect {collect_s:.0f} s, label {label_s:.0f} s)",
            flush=True,
        )
        if config.eval.opponents and evaluations.due(steps):
            append_rows(
                out_dir / "eval.csv",
                EVAL_FIELDS,
                evaluate_network(config, rules, net, config.eval.sessions, steps, began),
            )
            plot_curve(out_dir / "eval.csv", out_dir / "learning_curve.png", title=config.name)
    training = {
        "config": config.to_dict(),
        "method": "expert_iteration",
        "steps": steps,
        "train_seconds": round(time.time() - began, 1),
        "command": command,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "run_id": run_id,
    }
    path = out_dir / "final.npz"
    metadata = save_policy(
        path, layers_of(net.policy), rules, config.env.variant, exp.activation, training, name=config.name
    )
    save_value(
        out_dir / "final_value.npz",
        layers_of(net.value_net),
        rules,
        config.env.variant,
        exp.activation,
        config.env.reward_scale,
        training,
    )
    write_atomic(out_dir / "final.json", json.dumps(metadata, indent=2, sort_keys=True))
    if config.eval.opponents:
        rows = evaluate_network(config, rules, net, config.eval.final_sessions, steps, began)
        write_atomic(out_dir / "final_eval.json", json.dumps(rows, indent=2))
        if (out_dir / "eval.csv").exists():
            plot_curve(out_dir / "eval.csv", out_dir / "learning_curve.png", title=config.name, final=rows)
        print_final_evaluation(config.name, rows)
    return path
