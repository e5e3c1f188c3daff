"""One training run: vectorised envs, MaskablePPO, callbacks, checkpoints, the final saved agent.

Outputs in ``run.out_dir``: ``run.json`` (whose run the folder is) and ``config.yaml`` (as validated),
``progress.csv`` and TensorBoard files (SB3 logger), ``eval.csv`` and ``learning_curve.png``,
``checkpoints/`` (for ``--resume``), ``snapshots/`` (self-play pool),
``final.npz`` + ``final.json`` (the saved agent) and ``final_eval.json``.

:func:`prepare_run` checks everything about the folder (ownership, a config that continues the run,
a usable checkpoint) before anything is written; :func:`train` then runs.
"""

from __future__ import annotations

import functools
import json
import platform
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from threadpoolctl import threadpool_limits

from newmarket_env.envs import vector as vectors
from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.game.rules import make_rules
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.evaluate import print_final_evaluation
from newmarket_env.train.export import export_agent
from newmarket_env.train.imitate import collect, pretrain, teacher_agreement
from newmarket_env.train.rllib_ppo.checkpoint import find_checkpoint as find_rllib_checkpoint
from newmarket_env.train.rundir import RUN_FILE, check_writable, record_resume, start_fresh, start_resume, write_atomic
from newmarket_env.train.runlock import RunLock


def table_keywords(config: TrainConfig) -> dict[str, Any]:
    """The keywords every training table is built with, by ``SingleAgentEnv`` and ``VectorEnv`` alike:
    the game (variant, players, rules overrides) and the learner's seat."""
    env = config.env
    return dict(variant=env.variant, num_players=env.num_players, learner_seat=config.learner_seat(), **env.rules)


def make_env(config: TrainConfig, rank: int) -> SingleAgentEnv:
    """One training env; module level so SubprocVecEnv can pickle it."""
    env = SingleAgentEnv(**table_keywords(config))
    env.reset(seed=config.run.seed * 1000 + rank)
    return env


def build_vec_env(config: TrainConfig):
    """``run.n_envs`` envs with episode stats (``VecMonitor``): compiled tables in one batch (``batch``,
    the default), ``SingleAgentEnv`` objects in this process (``dummy``) or one process each (``subproc``).

    ``batch`` needs the compiled engine; where it is not built, training warns and uses ``dummy``.
    """
    # optional: needs stable-baselines3 (train extra)
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if config.run.vec_env == "batch":
        vec = _batch_vec_env(config)
        if vec is not None:
            return VecMonitor(vec)
    makers: list[Callable[[], gym.Env]] = [
        functools.partial(make_env, config, rank) for rank in range(config.run.n_envs)
    ]
    vec = SubprocVecEnv(makers) if config.run.vec_env == "subproc" else DummyVecEnv(makers)
    return VecMonitor(vec)


def _batch_vec_env(config: TrainConfig):
    """The batch of compiled tables as an SB3 VecEnv, or None (with a warning) without the compiled engine."""
    from newmarket_env.train.vec import SB3VecEnv  # optional: needs torch (train extra)

    try:
        vectors.compiled_batch()
    except RuntimeError as err:
        warnings.warn(f"run.vec_env = batch: {err}; training on vec_env = dummy instead", stacklevel=3)
        return None
    vector = vectors.VectorEnv(num_envs=config.run.n_envs, seed=config.run.seed, **table_keywords(config))
    vec = SB3VecEnv(vector)
    vec.seed(config.run.seed)
    return vec


def build_model(config: TrainConfig, vec_env: Any, out_dir: Path):
    """A fresh MaskablePPO from the config's hyperparameters."""
    import torch  # optional: needs torch (train extra)
    from sb3_contrib import MaskablePPO  # optional: needs sb3-contrib (train extra)

    ppo = config.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.activation]
    policy_kwargs = {"net_arch": {"pi": list(ppo.net_arch), "vf": list(ppo.net_arch)}, "activation_fn": activation}
    if ppo.features == "planes":
        from newmarket_env.train.features import planes_policy_kwargs  # optional: needs SB3 (train extra)

        policy_kwargs = planes_policy_kwargs(list(ppo.net_arch))
    return MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=ppo.learning_rate,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef,
        max_grad_norm=ppo.max_grad_norm,
        policy_kwargs=policy_kwargs,
        seed=config.run.seed,
        device="cpu",
        verbose=0,
    )


@dataclass
class RunStart:
    """A checked start: the folder's run, and for ``--resume`` the checkpoint to continue from."""

    out_dir: Path
    run: dict[str, Any]
    checkpoint: Path | None = None
    steps: int = 0
    skipped: list[str] = field(default_factory=list)  # newer checkpoints passed over, and why
    lock: RunLock | None = None  # the folder's lock, held until the run ends (released by train)


def prepare_run(config: TrainConfig, resume: bool = False, overwrite: bool = False) -> RunStart:
    """Check the run folder for this run; ``ValueError`` (one line) before anything is written.

    A fresh run claims the folder (``--overwrite`` replaces a previous run in it); ``--resume``
    continues only the folder's own run, with the same config, from its newest intact checkpoint.
    """
    # optional: needs stable-baselines3 (train extra)
    from newmarket_env.train.checkpoints import check_checkpoint_folder, find_checkpoint

    out_dir = Path(config.run.out_dir)
    if resume and not (out_dir / RUN_FILE).is_file():
        start_resume(out_dir, config.to_dict())  # says the folder holds no run, before any file is made there
    if not resume:
        check_writable(out_dir)
    lock = RunLock(out_dir).acquire()  # one process per run folder, from here to the end of the run
    try:
        if not resume:
            return RunStart(out_dir, start_fresh(out_dir, config.to_dict(), overwrite), lock=lock)
        run = start_resume(out_dir, config.to_dict())
        check_checkpoint_folder(out_dir)
        if config.method == "expert_iteration":  # its checkpoints are its own (train/expert/checkpoint.py)
            # optional: needs torch (train extra)
            from newmarket_env.train.expert.checkpoint import find_state as find_checkpoint
        elif config.method == "dmc":  # so are Deep Monte-Carlo's (train/dmc/loop.py)
            from newmarket_env.train.dmc.loop import find_checkpoint  # optional: needs torch (train extra)
        elif config.method == "rllib_ppo":  # RLlib's own checkpoint folders (train/rllib_ppo/checkpoint.py)
            find_checkpoint = find_rllib_checkpoint
        found = find_checkpoint(out_dir / "checkpoints", run["run_id"])
        if found.path is None:
            why = f" ({'; '.join(found.skipped)})" if found.skipped else ""
            raise ValueError(
                f"--resume: no usable checkpoint of this run in {out_dir / 'checkpoints'}{why}; start without --resume"
            )
        record_resume(out_dir, run, config.to_dict(), found.steps)
        return RunStart(out_dir, run, found.path, found.steps, found.skipped, lock)
    except BaseException:
        lock.release()
        raise


def warm_start(config: TrainConfig, model: Any, out_dir: Path) -> None:
    """Imitate ``pretrain.teacher`` (if set) before PPO; the figures go to pretrain.json."""
    pre = config.pretrain
    began = time.time()
    demos = collect(pre.teacher, pre.samples, seed=config.run.seed, **table_keywords(config))
    losses = pretrain(model, demos, pre.epochs, pre.learning_rate, pre.value_weight, seed=config.run.seed)
    report = {
        "teacher": pre.teacher,
        "samples": len(demos.actions),
        "losses": losses,
        "agreement": teacher_agreement(model, demos),
        "seconds": round(time.time() - began, 1),
    }
    (out_dir / "pretrain.json").write_text(json.dumps(report, indent=2))
    print(
        f"warm start: imitated {pre.teacher!r} on {report['samples']} decisions, "
        f"agreement {report['agreement']:.3f}, {report['seconds']} s",
        flush=True,
    )


def _load_or_build(config: TrainConfig, vec_env: Any, out_dir: Path, checkpoint: Path | None):
    if checkpoint is None:
        model = build_model(config, vec_env, out_dir)
        if config.pretrain.teacher:
            warm_start(config, model, out_dir)
        return model
    from newmarket_env.train.checkpoints import load_weights  # optional: needs stable-baselines3 (train extra)

    # A model built from the config, given the checkpoint's weights: nothing in the zip is unpickled
    # (checkpoints.load_weights says what is read).
    model = build_model(config, vec_env, out_dir)
    load_weights(model, checkpoint)
    return model


def _callbacks(config: TrainConfig, rules: Any, out_dir: Path, start: int, run_id: str):
    from stable_baselines3.common.callbacks import CallbackList  # optional: needs stable-baselines3 (train extra)

    # optional: both need stable-baselines3 (train extra)
    from newmarket_env.train.callbacks import DuplicateEval, EpisodeChips, SelfPlaySnapshots, WallClockLimit
    from newmarket_env.train.checkpoints import AtomicCheckpoints  # optional: needs stable-baselines3

    evaluator = DuplicateEval(config, rules, out_dir, start)
    clock = WallClockLimit(config.run.max_minutes)
    listed = [
        EpisodeChips(),
        evaluator,
        SelfPlaySnapshots(config, rules, out_dir, start),
        AtomicCheckpoints(config.run.checkpoint_every, out_dir / "checkpoints", run_id),
        clock,
    ]
    return CallbackList(listed), evaluator, clock


def train(
    config: TrainConfig, resume: bool = False, command: str = "", overwrite: bool = False, start: RunStart | None = None
) -> Path:
    """Train as configured; return the path of the final saved agent.

    ``start`` is what :func:`prepare_run` checked (made here when not given). A resumed run continues
    the model, its optimiser and the step count from the checkpoint, and the logs from that step;
    its envs start new sessions seeded from ``run.seed`` (docs/training/README.md).
    """
    start = start or prepare_run(config, resume, overwrite)
    try:
        stale = start.lock.stale if start.lock is not None else None
        if stale:
            print(f"run.out_dir: took over the lock of process {stale.get('pid')}, which is no longer running")
        if config.method == "expert_iteration":  # search distillation on torch, not MaskablePPO
            from newmarket_env.train.expert.loop import train_expert  # optional: needs torch (train extra)

            return train_expert(config, start, command)
        if config.method == "dmc":  # Deep Monte-Carlo on torch
            from newmarket_env.train.dmc.loop import train_dmc  # optional: needs torch (train extra)

            return train_dmc(config, start, command)
        if config.method == "rllib_ppo":  # Ray RLlib's PPO in self-play
            from newmarket_env.train.rllib_ppo.loop import train_rllib_ppo  # optional: needs ray (ray extra)

            return train_rllib_ppo(config, start, command)
        return _train_ppo(config, start, command)
    finally:
        if start.lock is not None:
            start.lock.release()


def _train_ppo(config: TrainConfig, start: RunStart, command: str) -> Path:
    import torch  # optional: needs torch (train extra)

    from newmarket_env.train.logs import configure_logger  # optional: needs stable-baselines3 (train extra)

    for line in start.skipped:
        print(f"--resume: skipped {line}", flush=True)
    if start.checkpoint is not None:
        print(f"resuming from {start.checkpoint.name} ({start.steps} steps)", flush=True)
    torch.set_num_threads(config.run.torch_threads)
    out_dir = start.out_dir
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    vec_env = build_vec_env(config)
    model = _load_or_build(config, vec_env, out_dir, start.checkpoint)
    model.set_logger(configure_logger(out_dir, start.steps if start.checkpoint is not None else None))
    first = model.num_timesteps
    callbacks, evaluator, clock = _callbacks(config, rules, out_dir, first, start.run["run_id"])
    began = time.time()
    # numpy's BLAS (the snapshot opponents' forward pass) gets the same thread budget as torch: left at one
    # thread per core, OpenBLAS's idle threads spin between the small matrix products and cost a 2-core
    # machine about 3x (docs/benchmark.md, "Training on the batch").
    with threadpool_limits(limits=config.run.torch_threads, user_api="blas"):
        model.learn(
            total_timesteps=max(0, config.run.total_steps - first),
            callback=callbacks,
            reset_num_timesteps=start.checkpoint is None,
            progress_bar=config.run.progress_bar,
        )
    vec_env.close()
    if clock.stopped:
        print(
            f"stopped by run.max_minutes = {config.run.max_minutes:g} after {model.num_timesteps} of "
            f"{config.run.total_steps} steps; saving the agent and evaluating it",
            flush=True,
        )
    return _finish(config, model, rules, evaluator, out_dir, time.time() - began, command, start.run["run_id"])


def _finish(
    config: TrainConfig,
    model: Any,
    rules: Any,
    evaluator: Any,
    out_dir: Path,
    seconds: float,
    command: str,
    run_id: str,
) -> Path:
    """Save the final agent with its training info, run the final evaluation, redraw the curve."""
    import sb3_contrib  # optional: needs sb3-contrib (train extra)
    import torch  # optional: needs torch (train extra)

    from newmarket_env.train.checkpoints import save_checkpoint  # optional: needs stable-baselines3 (train extra)

    training = {
        "config": config.to_dict(),
        "steps": int(model.num_timesteps),
        "train_seconds": round(seconds, 1),
        "command": command,
        "torch": torch.__version__,
        "sb3_contrib": sb3_contrib.__version__,
        "python": platform.python_version(),
        "run_id": run_id,
    }
    save_checkpoint(model, out_dir / "checkpoints", run_id)  # --resume continues from here
    path = out_dir / "final.npz"
    # Named after the run (config ``name``), not after the file: every run's file is final.npz.
    metadata = export_agent(
        model, str(path), rules, config.env.variant, config.ppo.activation, training, name=config.name
    )
    write_atomic(out_dir / "final.json", json.dumps(metadata, indent=2, sort_keys=True))
    if config.eval.opponents:
        rows = evaluator.evaluate(config.eval.final_sessions, final=True)
        write_atomic(out_dir / "final_eval.json", json.dumps(rows, indent=2))
        print_final_evaluation(config.name, rows)
    return path
