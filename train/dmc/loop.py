"""The Deep Monte-Carlo run: iterations of self-play and fit; checkpoints, logs, evaluation, final files.

Outputs in ``run.out_dir`` (besides ``run.json`` and ``config.yaml``, as for the other methods):
``samples/iter_<i>.npz`` (each iteration's recorded decisions, actions and returns: those the
``dmc.window`` replay still needs after the newest checkpoint are kept, older ones removed),
``checkpoints/dmc_<steps>_steps.pt`` (every ``run.checkpoint_every`` recorded decisions and after the
last iteration), ``progress.csv`` (one row per iteration), ``eval.csv`` and ``learning_curve.png``,
``final.npz`` (the Q network as a saved agent), ``final.json`` and ``final_eval.json``.

Every random draw of iteration ``i`` is seeded from ``(run.seed, i)``, and a checkpoint holds the network
and the optimiser, so a run resumed from any checkpoint computes exactly what an uninterrupted one does.
``run.total_steps`` counts recorded learner decisions: ``ceil(total_steps / dmc.states)`` iterations;
``run.max_minutes`` stops after the iteration that passes it (at least one runs).
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

from newmarket_env.agents.saved import FORMAT, FORMAT_VERSION, Q_VALUE_OUTPUTS, SavedAgent, save_policy
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.game.rules import Rules, make_rules
from newmarket_env.train.callbacks import EVAL_FIELDS, Every
from newmarket_env.train.config import DMCSection, TrainConfig, read_yaml
from newmarket_env.train.dmc.fit import fit_q, q_loss, q_network
from newmarket_env.train.evaluate import evaluation_rows, print_final_evaluation
from newmarket_env.train.expert.checkpoint import find_state, resume_training, save_state, saved_checkpoints
from newmarket_env.train.expert.collect import collect_states
from newmarket_env.train.expert.network import layers_of
from newmarket_env.train.logs import append_rows
from newmarket_env.train.plot import plot_curve
from newmarket_env.train.rundir import CONFIG_FILE, write_arrays_atomic, write_atomic
from newmarket_env.train.stamped import Found, stamp_problem

CHECKPOINT_PREFIX = "dmc"
#: What the saved network's 79 outputs are (kept in final.npz's training metadata).
_INIT_TAG, _COLLECT_TAG, _FIT_TAG, _LEARNER_TAG = 21, 22, 24, 25
#: Who would play the learner's seats before a network exists; DMC's network plays from the first
#: iteration, so this baseline is only named to ``collect_states``, never seated.
_UNSEATED = "random"
_ARRAYS = ("obs", "masks", "actions", "returns")
#: The x axis of the run's learning_curve.png.
XLABEL = "recorded learner decisions (training steps of Deep Monte-Carlo)"
PROGRESS_FIELDS = [
    "iteration",
    "steps",
    "samples",
    "mean_return",
    "loss_before",
    "loss",
    "collect_s",
    "fit_s",
    "wall_s",
]


def find_checkpoint(folder: Path, run_id: str) -> Found:
    """The newest intact DMC checkpoint whose replay window is on disk (``prepare_run`` uses it for ``--resume``).

    The checkpoint of ``steps`` resumes at iteration ``steps // dmc.states``, which fits on the decisions of
    the ``dmc.window - 1`` iterations before it too: their ``samples/iter_*.npz`` must be this run's and
    whole. One that is damaged, or whose samples are gone, is passed over with the reason (the run keeps
    only the samples its newest checkpoint needs, so with ``dmc.window`` above 1 an older checkpoint is
    usable only if its samples were kept); with none left ``prepare_run`` says so in one line.
    ``dmc.states`` and ``dmc.window`` are the run's own, from its ``config.yaml`` (``--resume`` may not
    change them).
    """
    out_dir = folder.parent
    try:
        section = (read_yaml(out_dir / CONFIG_FILE, "the run's config") or {}).get("dmc") or {}
        states, window = int(section.get("states", DMCSection.states)), int(section.get("window", DMCSection.window))
    except (ValueError, TypeError, AttributeError):  # start_resume read it already: this does not happen
        return find_state(folder, run_id, CHECKPOINT_PREFIX)
    found = Found(None)
    for steps, path in reversed(saved_checkpoints(folder, CHECKPOINT_PREFIX)):
        problem = stamp_problem(path, steps, run_id) or _window_problem(
            out_dir, run_id, steps // states, window, states
        )
        if problem is None:
            found.path, found.steps = path, steps
            return found
        found.skipped.append(f"{path.name} {problem}")
    return found


def _window_problem(out_dir: Path, run_id: str, resume_at: int, window: int, states: int) -> str | None:
    """Why a resume at iteration ``resume_at`` could not fit on its window's earlier iterations, or None."""
    for earlier in range(max(0, resume_at - window + 1), resume_at):
        path = _samples_path(out_dir, earlier)
        if _read_samples(path, run_id, states) is None:
            return (
                f"cannot be resumed: its replay window (dmc.window = {window}) needs "
                f"{path.relative_to(out_dir)}, which is missing or damaged"
            )
    return None


def _metadata(config: TrainConfig, rules: Rules) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "variant": config.env.variant,
        "rules": rules.to_dict(),
        "activation": config.dmc.activation,
    }


def learner_agent(net: torch.nn.Sequential, config: TrainConfig, rules: Rules, seed: int) -> SavedAgent:
    """The network's greedy policy (argmax of Q over the legal actions) as a numpy agent, as final.npz holds it."""
    return SavedAgent(rules, seed, _metadata(config, rules), layers_of(net), sample=False, name=config.name)


def _samples_path(out_dir: Path, iteration: int) -> Path:
    return out_dir / "samples" / f"iter_{iteration:04d}.npz"


def _read_samples(path: Path, run_id: str, count: int) -> dict[str, np.ndarray] | None:
    """An iteration's decisions if the file is this run's and complete, else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["run_id"]) != run_id or len(data["actions"]) != count:
                return None
            return {key: data[key] for key in _ARRAYS}
    except (OSError, KeyError, ValueError, EOFError):
        return None


def _iteration_samples(
    config: TrainConfig, rules: Rules, net: torch.nn.Sequential, iteration: int, out_dir: Path, run_id: str
) -> tuple[dict[str, np.ndarray], float]:
    """Play iteration ``iteration``'s decisions (or read them back: a resumed run); the seconds it took."""
    dmc, seed = config.dmc, config.run.seed
    path = _samples_path(out_dir, iteration)
    saved = _read_samples(path, run_id, dmc.states) if path.exists() else None
    if saved is not None:
        return saved, 0.0
    began = time.time()
    states = collect_states(
        rules,
        learner_agent(net, config, rules, derive_seed(seed, _LEARNER_TAG, iteration)),
        _UNSEATED,
        list(config.opponents.baselines) if dmc.baseline_fraction > 0 else [],
        dmc.baseline_fraction,
        dmc.tables,
        dmc.states,
        derive_seed(seed, _COLLECT_TAG, iteration),
        config.env.reward_scale,
        epsilon=dmc.epsilon,
    )
    samples = {"obs": states.obs, "masks": states.masks, "actions": states.actions, "returns": states.returns}
    write_arrays_atomic(path, **samples, run_id=np.array(run_id))
    return samples, time.time() - began


def _prune_samples(out_dir: Path, keep_from: int) -> None:
    """Remove the sample files of iterations before ``keep_from`` (no resume from the newest checkpoint reads them)."""
    for path in (out_dir / "samples").glob("iter_*.npz"):
        if int(path.stem.removeprefix("iter_")) < keep_from:
            path.unlink(missing_ok=True)


def _window(config: TrainConfig, samples: dict[str, np.ndarray], iteration: int, out_dir: Path, run_id: str):
    """This iteration's decisions and those of the ``dmc.window - 1`` before it, as one set of arrays."""
    window = [samples]
    for earlier in range(max(0, iteration - config.dmc.window + 1), iteration):
        read = _read_samples(_samples_path(out_dir, earlier), run_id, config.dmc.states)
        if read is None:  # fitting on fewer decisions would silently change the run
            raise RuntimeError(
                f"{_samples_path(out_dir, earlier)} is missing or damaged, and iteration {iteration} fits on it "
                f"(dmc.window = {config.dmc.window}); restore it or start a new run"
            )
        window.append(read)
    return {key: np.concatenate([w[key] for w in window]) for key in _ARRAYS}


def train_dmc(config: TrainConfig, start: Any, command: str = "") -> Path:
    """Run (or continue, ``start.checkpoint``) the Deep Monte-Carlo training of ``config``; return the agent's path.

    numpy's BLAS gets ``run.torch_threads`` threads, as in the other methods: the network's forward
    passes at the tables and in evaluations are small, and more threads only wait on each other.
    """
    from threadpoolctl import threadpool_limits  # optional: needs threadpoolctl (train extra)

    with threadpool_limits(limits=config.run.torch_threads, user_api="blas"):
        return _train(config, start, command)


def _train(config: TrainConfig, start: Any, command: str) -> Path:
    dmc, out_dir, run_id = config.dmc, start.out_dir, start.run["run_id"]
    torch.set_num_threads(config.run.torch_threads)
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    torch.manual_seed(derive_seed(config.run.seed, _INIT_TAG))
    net = q_network(dmc.net_arch, dmc.activation)
    optimizer = torch.optim.Adam(net.parameters(), lr=dmc.learning_rate)
    steps = resume_training(start, net, optimizer, "recorded decisions")
    iterations = math.ceil(config.run.total_steps / dmc.states)
    deadline = time.time() + 60 * config.run.max_minutes if config.run.max_minutes else None
    evaluations = Every(config.eval.every, steps)
    checkpoints = Every(config.run.checkpoint_every, steps)
    began = time.time()
    for iteration in range(steps // dmc.states, iterations):
        samples, collect_s = _iteration_samples(config, rules, net, iteration, out_dir, run_id)
        fitted = time.time()
        data = _window(config, samples, iteration, out_dir, run_id)
        # how well the network foresaw returns it has not been fitted on yet
        before = q_loss(net, samples["obs"], samples["actions"], samples["returns"])
        loss = fit_q(
            net,
            optimizer,
            data["obs"],
            data["actions"],
            data["returns"],
            dmc.epochs,
            dmc.batch_size,
            derive_seed(config.run.seed, _FIT_TAG, iteration),
        )
        steps += dmc.states
        stop = deadline is not None and time.time() >= deadline and iteration < iterations - 1
        if checkpoints.due(steps) or stop or iteration == iterations - 1:
            save_state(
                out_dir / "checkpoints",
                run_id,
                steps,
                {"net": net.state_dict(), "optimizer": optimizer.state_dict(), "steps": steps},
                CHECKPOINT_PREFIX,
            )
            _prune_samples(out_dir, iteration + 2 - dmc.window)  # a resume from here starts at iteration + 1
        row = {
            "iteration": iteration,
            "steps": steps,
            "samples": len(data["actions"]),
            "mean_return": float(samples["returns"].mean()),
            "loss_before": before,
            "loss": loss,
            "collect_s": round(collect_s, 1),
            "fit_s": round(time.time() - fitted, 1),
            "wall_s": round(time.time() - began, 1),
        }
        append_rows(out_dir / "progress.csv", PROGRESS_FIELDS, [row])
        print(
            f"iteration {iteration}: {steps} recorded decisions, mean return {row['mean_return']:+.3f}, "
            f"Q loss before fit {before:.4f} after {loss:.4f} (collect {collect_s:.0f} s)",
            flush=True,
        )
        if config.eval.opponents and evaluations.due(steps):
            agent = learner_agent(net, config, rules, 0)
            append_rows(
                out_dir / "eval.csv", EVAL_FIELDS, evaluation_rows(config, agent, config.eval.sessions, steps, began)
            )
            plot_curve(out_dir / "eval.csv", out_dir / "learning_curve.png", title=config.name, xlabel=XLABEL)
        if stop:
            print(
                f"stopped by run.max_minutes = {config.run.max_minutes:g} after {iteration + 1} of {iterations} "
                "iterations; saving the agent and evaluating it",
                flush=True,
            )
            break
    training = {
        "config": config.to_dict(),
        "method": "dmc",
        "outputs": Q_VALUE_OUTPUTS,  # the 79 outputs are Q(s, a): chips to the end of the deal x reward_scale
        "reward_scale": config.env.reward_scale,
        "steps": steps,
        "train_seconds": round(time.time() - began, 1),
        "command": command,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "run_id": run_id,
    }
    path = out_dir / "final.npz"
    metadata = save_policy(path, layers_of(net), rules, config.env.variant, dmc.activation, training, name=config.name)
    write_atomic(out_dir / "final.json", json.dumps(metadata, indent=2, sort_keys=True))
    if config.eval.opponents:
        rows = evaluation_rows(config, learner_agent(net, config, rules, 0), config.eval.final_sessions, steps, began)
        write_atomic(out_dir / "final_eval.json", json.dumps(rows, indent=2))
        if (out_dir / "eval.csv").exists():
            plot_curve(
                out_dir / "eval.csv", out_dir / "learning_curve.png", title=config.name, final=rows, xlabel=XLABEL
            )
        print_final_evaluation(config.name, rows)
    return path
