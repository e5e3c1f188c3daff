"""The RLlib PPO self-play run: ``algo.train()`` iterations; checkpoints, logs, evaluation, final files.

Outputs in ``run.out_dir`` (besides ``run.json`` and ``config.yaml``, as for the other methods):
``checkpoints/rllib_<steps>_steps/`` (RLlib's own checkpoint folders, every ``run.checkpoint_every``
learner decisions, when ``run.max_minutes`` stops the run and after the last iteration),
``progress.csv`` (one row per iteration), ``eval.csv`` and ``learning_curve.png``, ``final.npz`` (the
learner's policy as a plain saved agent), ``final.json`` and ``final_eval.json``.

``run.total_steps`` counts the learner module's decisions (RLlib's ``num_module_steps_sampled`` of
``"learner"``): one seat per session is the learner, the others the frozen opponent. Iterations run
until that count reaches ``run.total_steps`` or ``run.max_minutes`` passes (after an iteration; at
least one runs).

Every iteration ``i`` starts from seeds derived from ``(run.seed, i)``: each env runner's next deal,
its learner seats and its torch/numpy streams, and this process's (where the learner shuffles its
minibatches). A checkpoint holds the iteration count with the weights and the optimiser, so with
``rllib.num_env_runners: 0`` a resumed run starts its next iteration as an uninterrupted one does
(``tests/ray/test_rllib_ppo_method.py`` checks how far that holds).
"""

from __future__ import annotations

import functools
import json
import platform
import time
from pathlib import Path
from typing import Any

import ray
import torch
from ray.rllib.utils.debug import update_global_seed_if_necessary

from newmarket_env.agents.saved import save_policy
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.game.rules import make_rules
from newmarket_env.integrations.rllib import (
    CHECKED_METRIC,
    ILLEGAL_METRIC,
    LEARNER,
    SelfPlayMapping,
    self_play_config,
)
from newmarket_env.train.callbacks import EVAL_FIELDS, Every
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.evaluate import evaluation_rows, print_final_evaluation
from newmarket_env.train.logs import append_rows, keep_rows_up_to
from newmarket_env.train.plot import plot_curve
from newmarket_env.train.rllib_ppo.checkpoint import save_checkpoint
from newmarket_env.train.rllib_ppo.export import policy_layers, saved_agent
from newmarket_env.train.rundir import write_atomic

_ITERATION_TAG = 31
#: Object store of a Ray this run starts itself: the run ships weights and small batches only.
_OBJECT_STORE_BYTES = 200 * 1024 * 1024
#: The x axis of the run's learning_curve.png.
XLABEL = "learner decisions (training steps of RLlib PPO self-play)"
PROGRESS_FIELDS = [
    "iteration",
    "steps",
    "env_steps",
    "learner_return",
    "policy_loss",
    "vf_loss",
    "entropy",
    "kl",
    "actions_checked",
    "illegal_actions",
    "opponent_frozen_at",
    "iteration_s",
    "wall_s",
]


def algorithm_config(config: TrainConfig) -> Any:
    """The ``PPOConfig`` of the run: :func:`self_play_config` with the config's ``rllib`` section."""
    r, env = config.rllib, config.env
    return self_play_config(
        variant=env.variant,
        num_players=env.num_players,
        rules=env.rules,
        reward_scale=env.reward_scale,
        hidden=tuple(r.hidden),
        activation=r.activation,
        num_env_runners=r.num_env_runners,
        batch_size=r.batch_size,
        minibatch_size=r.minibatch_size,
        num_epochs=r.num_epochs,
        lr=r.lr,
        refresh_every=r.refresh_every,
        seed=config.run.seed,
    )


def seed_iteration(algo: Any, seed: int, iteration: int) -> None:
    """Seed everything iteration ``iteration`` draws from ``(seed, iteration)`` (see the module's notes)."""
    base = derive_seed(seed, _ITERATION_TAG, iteration)
    algo.env_runner_group.foreach_env_runner(functools.partial(_seed_runner, base=base), local_env_runner=True)
    update_global_seed_if_necessary("torch", base)  # the learner, in this process, shuffles its minibatches


def _seed_runner(runner: Any, base: int) -> None:
    seed = derive_seed(base, runner.worker_index or 0)
    runner._seed = seed  # its next reset deals from this seed (SelfPlay forgets it once the episode starts)
    mapping = runner.config.policy_mapping_fn
    if isinstance(mapping, SelfPlayMapping):
        mapping.reseed(seed)
    update_global_seed_if_necessary("torch", seed)  # the actions it samples


def train_rllib_ppo(config: TrainConfig, start: Any, command: str = "") -> Path:
    """Run (or continue, ``start.checkpoint``) the RLlib PPO self-play training of ``config``; return the agent's path.

    Joins the Ray of this process if one is running, else starts a local one (and stops it at the end).
    """
    from threadpoolctl import threadpool_limits  # optional: needs threadpoolctl (train extra)

    started = not ray.is_initialized()
    if started:
        ray.init(
            num_cpus=max(1, config.rllib.num_env_runners),
            include_dashboard=False,
            object_store_memory=_OBJECT_STORE_BYTES,
        )
    try:
        with threadpool_limits(limits=config.run.torch_threads, user_api="blas"):
            algo = algorithm_config(config).build_algo()
            try:
                return _train(config, algo, start, command)
            finally:
                algo.stop()
    finally:
        if started:
            ray.shutdown()


def _train(config: TrainConfig, algo: Any, start: Any, command: str) -> Path:
    out_dir, run_id = start.out_dir, start.run["run_id"]
    torch.set_num_threads(config.run.torch_threads)
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    steps = 0
    for line in start.skipped:
        print(f"--resume: skipped {line}", flush=True)
    if start.checkpoint is not None:
        algo.restore_from_path(str(start.checkpoint.resolve()))
        steps = start.steps
        print(f"resuming from {start.checkpoint.name} ({steps} learner decisions)", flush=True)
    for name in ("progress.csv", "eval.csv"):  # rows a killed process logged after the checkpoint go
        keep_rows_up_to(out_dir / name, "steps", steps)
    deadline = time.time() + 60 * config.run.max_minutes if config.run.max_minutes else None
    evaluations = Every(config.eval.every, steps)
    checkpoints = Every(config.run.checkpoint_every, steps)
    began = time.time()
    while steps < config.run.total_steps:
        iteration = algo.iteration  # iterations done so far (a checkpoint restores it)
        seed_iteration(algo, config.run.seed, iteration)
        ran = time.time()
        result = algo.train()
        runners = result["env_runners"]
        steps += int(runners.get("num_module_steps_sampled", {}).get(LEARNER, 0))
        done = steps >= config.run.total_steps
        stop = deadline is not None and time.time() >= deadline and not done
        if checkpoints.due(steps) or stop or done:
            save_checkpoint(
                algo, out_dir / "checkpoints", run_id, steps, functools.partial(_save_agent, config, algo, rules, steps)
            )
        learner = result.get("learners", {}).get(LEARNER, {})
        row = {
            "iteration": iteration + 1,
            "steps": steps,
            "env_steps": int(runners.get("num_env_steps_sampled", 0)),
            "learner_return": runners.get("module_episode_returns_mean", {}).get(LEARNER, ""),
            "policy_loss": learner.get("policy_loss", ""),
            "vf_loss": learner.get("vf_loss", ""),
            "entropy": learner.get("entropy", ""),
            "kl": learner.get("mean_kl_loss", ""),
            "actions_checked": runners.get(CHECKED_METRIC, ""),
            "illegal_actions": runners.get(ILLEGAL_METRIC, ""),
            "opponent_frozen_at": result.get("opponent_frozen_at", ""),
            "iteration_s": round(time.time() - ran, 1),
            "wall_s": round(time.time() - began, 1),
        }
        append_rows(out_dir / "progress.csv", PROGRESS_FIELDS, [row])
        print(
            f"iteration {row['iteration']}: {steps} learner decisions ({row['env_steps']} env steps this "
            f"iteration), learner return {row['learner_return']}, {row['iteration_s']} s",
            flush=True,
        )
        if config.eval.opponents and evaluations.due(steps):
            append_rows(
                out_dir / "eval.csv",
                EVAL_FIELDS,
                evaluation_rows(config, _agent(config, algo, rules), config.eval.sessions, steps, began),
            )
            plot_curve(out_dir / "eval.csv", out_dir / "learning_curve.png", title=config.name, xlabel=XLABEL)
        if stop:
            print(
                f"stopped by run.max_minutes = {config.run.max_minutes:g} after {steps} of "
                f"{config.run.total_steps} learner decisions; saving the agent and evaluating it",
                flush=True,
            )
            break
    return _finish(config, algo, rules, steps, time.time() - began, command, run_id, out_dir)


def _save_agent(
    config: TrainConfig, algo: Any, rules: Any, steps: int, path: Path, training: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The learner's policy as a plain saved agent at ``path`` (final.npz, or a checkpoint's policy.npz)."""
    layers = policy_layers(algo.get_module(LEARNER), config.rllib.activation)
    training = training or {"config": config.to_dict(), "method": "rllib_ppo", "steps": steps}
    return save_policy(path, layers, rules, config.env.variant, config.rllib.activation, training, name=config.name)


def _agent(config: TrainConfig, algo: Any, rules: Any):
    return saved_agent(algo.get_module(LEARNER), config.rllib.activation, rules, config.env.variant, 0, config.name)


def _finish(
    config: TrainConfig, algo: Any, rules: Any, steps: int, seconds: float, command: str, run_id: str, out_dir: Path
) -> Path:
    """final.npz (the learner's policy as a plain saved agent), final.json, the final evaluation."""
    training = {
        "config": config.to_dict(),
        "method": "rllib_ppo",
        "steps": steps,
        "iterations": algo.iteration,
        "train_seconds": round(seconds, 1),
        "command": command,
        "ray": ray.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "run_id": run_id,
    }
    path = out_dir / "final.npz"
    metadata = _save_agent(config, algo, rules, steps, path, training)
    write_atomic(out_dir / "final.json", json.dumps(metadata, indent=2, sort_keys=True))
    if config.eval.opponents:
        rows = evaluation_rows(
            config, _agent(config, algo, rules), config.eval.final_sessions, steps, time.time() - seconds
        )
        write_atomic(out_dir / "final_eval.json", json.dumps(rows, indent=2))
        if (out_dir / "eval.csv").exists():
            plot_curve(
                out_dir / "eval.csv", out_dir / "learning_curve.png", title=config.name, final=rows, xlabel=XLABEL
            )
        print_final_evaluation(config.name, rows)
    return path
