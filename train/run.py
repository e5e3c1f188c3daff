"""One training run: vectorised envs, MaskablePPO, callbacks, checkpoints, the final saved agent.

Outputs in ``run.out_dir``: ``config.yaml`` (as validated), ``progress.csv`` and
TensorBoard files (SB3 logger), ``eval.csv`` and ``learning_curve.png``,
``checkpoints/`` (for ``--resume``), ``snapshots/`` (self-play pool),
``final.npz`` + ``final.json`` (the saved agent) and ``final_eval.json``.
"""

from __future__ import annotations

import functools
import json
import platform
import re
import time
from pathlib import Path
from typing import Any

from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.rules import make_rules
from newmarket_env.train.config import TrainConfig


def make_env(config: TrainConfig, rank: int) -> SingleAgentEnv:
    """One training env; module level so SubprocVecEnv can pickle it."""
    env = SingleAgentEnv(
        variant=config.env.variant, num_players=config.env.num_players, opponents=config.opponents.baselines,
        snapshot_fraction=config.opponents.snapshot_fraction, seat=config.env.seat,
        reward_scale=config.env.reward_scale, **config.env.rules,
    )
    env.reset(seed=config.run.seed * 1000 + rank)
    return env


def build_vec_env(config: TrainConfig):
    """``run.n_envs`` envs in this process (dummy) or one process each (subproc), with episode stats."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    makers = [functools.partial(make_env, config, rank) for rank in range(config.run.n_envs)]
    vec = SubprocVecEnv(makers) if config.run.vec_env == "subproc" else DummyVecEnv(makers)
    return VecMonitor(vec)


def build_model(config: TrainConfig, vec_env: Any, out_dir: Path):
    """A fresh MaskablePPO from the config's hyperparameters."""
    import torch
    from sb3_contrib import MaskablePPO

    ppo = config.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.activation]
    policy_kwargs = {"net_arch": {"pi": list(ppo.net_arch), "vf": list(ppo.net_arch)}, "activation_fn": activation}
    return MaskablePPO(
        "MlpPolicy", vec_env, learning_rate=ppo.learning_rate, n_steps=ppo.n_steps, batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs, gamma=ppo.gamma, gae_lambda=ppo.gae_lambda, clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef, vf_coef=ppo.vf_coef, max_grad_norm=ppo.max_grad_norm, policy_kwargs=policy_kwargs,
        seed=config.run.seed, device="cpu", verbose=0,
    )


def latest_checkpoint(out_dir: Path) -> Path | None:
    """The checkpoint with the most steps, or None."""
    found = []
    for path in (out_dir / "checkpoints").glob("ppo_*_steps.zip"):
        match = re.fullmatch(r"ppo_(\d+)_steps", path.stem)
        if match:
            found.append((int(match.group(1)), path))
    return max(found)[1] if found else None


def warm_start(config: TrainConfig, model: Any, out_dir: Path) -> None:
    """Imitate ``pretrain.teacher`` (if set) before PPO; the figures go to pretrain.json."""
    from newmarket_env.train.imitate import collect, pretrain, teacher_agreement

    pre, env_cfg = config.pretrain, config.env
    began = time.time()
    demos = collect(env_cfg.variant, env_cfg.num_players, env_cfg.rules, pre.teacher, config.opponents.baselines,
                    pre.samples, env_cfg.reward_scale, seed=config.run.seed)
    losses = pretrain(model, demos, pre.epochs, pre.learning_rate, pre.value_weight, seed=config.run.seed)
    report = {"teacher": pre.teacher, "samples": len(demos.actions), "losses": losses,
              "agreement": teacher_agreement(model, demos), "seconds": round(time.time() - began, 1)}
    (out_dir / "pretrain.json").write_text(json.dumps(report, indent=2))
    print(f"warm start: imitated {pre.teacher!r} on {report['samples']} decisions, "
          f"agreement {report['agreement']:.3f}, {report['seconds']} s", flush=True)


def _load_or_build(config: TrainConfig, vec_env: Any, out_dir: Path, resume: bool):
    if not resume:
        model = build_model(config, vec_env, out_dir)
        if config.pretrain.teacher:
            warm_start(config, model, out_dir)
        return model
    checkpoint = latest_checkpoint(out_dir)
    if checkpoint is None:
        raise ValueError(f"--resume: no checkpoint in {out_dir / 'checkpoints'}; start without --resume")
    from sb3_contrib import MaskablePPO

    # Our own checkpoint from this run folder (SB3 zip); shipped agents never take this path.
    return MaskablePPO.load(checkpoint, env=vec_env, device="cpu")


def _callbacks(config: TrainConfig, rules: Any, out_dir: Path, start: int):
    from stable_baselines3.common.callbacks import CallbackList, CheckpointCallback

    from newmarket_env.train.callbacks import DuplicateEval, EpisodeChips, SelfPlaySnapshots, WallClockLimit

    evaluator = DuplicateEval(config, rules, out_dir, start)
    checkpoints = CheckpointCallback(max(1, config.run.checkpoint_every // config.run.n_envs),
                                     str(out_dir / "checkpoints"), name_prefix="ppo")
    listed = [EpisodeChips(), evaluator, SelfPlaySnapshots(config, rules, out_dir, start), checkpoints,
              WallClockLimit(config.run.max_minutes)]
    return CallbackList(listed), evaluator


def train(config: TrainConfig, resume: bool = False, command: str = "") -> Path:
    """Train as configured; return the path of the final saved agent."""
    import torch
    import yaml
    from stable_baselines3.common.logger import configure

    torch.set_num_threads(config.run.torch_threads)
    out_dir = Path(config.run.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    vec_env = build_vec_env(config)
    model = _load_or_build(config, vec_env, out_dir, resume)
    model.set_logger(configure(str(out_dir), ["stdout", "csv", "tensorboard"]))
    start = model.num_timesteps
    callbacks, evaluator = _callbacks(config, rules, out_dir, start)
    began = time.time()
    model.learn(total_timesteps=max(0, config.run.total_steps - start), callback=callbacks,
                reset_num_timesteps=not resume, progress_bar=config.run.progress_bar)
    vec_env.close()
    return _finish(config, model, rules, evaluator, out_dir, time.time() - began, command)


def _finish(config: TrainConfig, model: Any, rules: Any, evaluator: Any, out_dir: Path, seconds: float,
            command: str) -> Path:
    """Save the final agent with its training info, run the final evaluation, redraw the curve."""
    import sb3_contrib
    import torch

    from newmarket_env.train.export import export_agent

    training = {"config": config.to_dict(), "steps": int(model.num_timesteps), "train_seconds": round(seconds, 1),
                "command": command, "torch": torch.__version__, "sb3_contrib": sb3_contrib.__version__,
                "python": platform.python_version()}
    model.save(out_dir / "checkpoints" / f"ppo_{model.num_timesteps}_steps.zip")  # --resume continues from here
    path = out_dir / "final.npz"
    metadata = export_agent(model, str(path), rules, config.env.variant, config.ppo.activation, training)
    (out_dir / "final.json").write_text(json.dumps(metadata, indent=2, sort_keys=True))
    if config.eval.opponents:
        rows = evaluator.evaluate(config.eval.final_sessions)
        (out_dir / "final_eval.json").write_text(json.dumps(rows, indent=2))
    return path
