"""The MaskablePPO learner: one rollout and PPO's update an iteration (the run loop does the rest).

Files of its own in ``run.out_dir``: ``progress.csv`` and TensorBoard files (SB3's logger; its tables on
stdout with ``run.verbose``), ``snapshots/snapshot_<steps>.npz`` (the self-play pool, saved agents) and
``pretrain.json`` (the warm start's figures). Its checkpoints are SB3 zips, ``checkpoints/ppo_<steps>_steps.zip``.

Each iteration is SB3's own ``learn()`` for one rollout (``ppo.n_steps`` steps of each of ``run.n_envs``
tables) and its update. A checkpoint holds the weights, the optimiser and the step and update counts,
not the tables' sessions in play nor the random streams: so at every checkpoint (and when a run begins
or resumes) the tables start new sessions and every stream (Python's, numpy's, torch's, the tables') is
seeded from ``(run.seed, steps)``. A run resumed from a checkpoint then computes what the uninterrupted
run computed after it; the price is one session cut short per table per checkpoint.
"""

from __future__ import annotations

import functools
import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import sb3_contrib
import torch
from stable_baselines3.common.callbacks import CallbackList
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

from newmarket_env.agents.saved import save_policy
from newmarket_env.agents.sb3_rules import write_rules_record
from newmarket_env.envs import vector as vectors
from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.export import env_rules, model_activation, policy_layers
from newmarket_env.train.features import planes_policy_kwargs
from newmarket_env.train.loop import Every
from newmarket_env.train.methods import Layers, Learner, RunContext
from newmarket_env.train.ppo.callbacks import EpisodeChips
from newmarket_env.train.ppo.checkpoints import PREFIX, SUFFIX, load_weights
from newmarket_env.train.ppo.imitate import collect, pretrain, teacher_agreement
from newmarket_env.train.ppo.logs import configure_logger
from newmarket_env.train.ppo.privileged import OracleFade, PrivilegedPolicy, PrivilegedVecEnv
from newmarket_env.train.ppo.sparse_policy import SparseInputPolicy
from newmarket_env.train.stamped import stamped_path
from newmarket_env.train.vec import SB3VecEnv

_RESTART_TAG = 41


def make_env(config: TrainConfig, rank: int) -> SingleAgentEnv:
    """One training env; module level so SubprocVecEnv can pickle it."""
    env = SingleAgentEnv(**config.table_keywords())
    env.reset(seed=config.run.seed * 1000 + rank)
    return env


def build_vec_env(config: TrainConfig):
    """``run.n_envs`` envs with episode stats (``VecMonitor``): compiled tables in one batch (``batch``,
    the default), ``SingleAgentEnv`` objects in this process (``dummy``) or one process each (``subproc``).

    ``batch`` needs the compiled engine; where it is not built, training warns and uses ``dummy``.
    """
    if config.run.vec_env == "batch":
        vec = _batch_vec_env(config)
        if vec is not None:
            return VecMonitor(vec)
        if config.privileged.used:
            raise RuntimeError("privileged.critic and privileged.oracle need the compiled tables, which are not built")
    makers: list[Callable[[], gym.Env]] = [
        functools.partial(make_env, config, rank) for rank in range(config.run.n_envs)
    ]
    vec = SubprocVecEnv(makers) if config.run.vec_env == "subproc" else DummyVecEnv(makers)
    return VecMonitor(vec)


def _batch_vec_env(config: TrainConfig):
    """The batch of compiled tables as an SB3 VecEnv, or None (with a warning) without the compiled engine."""
    try:
        vectors.compiled_batch()
    except RuntimeError as err:
        warnings.warn(f"run.vec_env = batch: {err}; training on vec_env = dummy instead", stacklevel=3)
        return None
    vector = vectors.VectorEnv(
        num_envs=config.run.n_envs, seed=config.run.seed, threads=config.run.threads or None, **config.table_keywords()
    )
    vec = SB3VecEnv(vector)
    vec.seed(config.run.seed)
    if config.privileged.used:  # each observation followed by its table's privileged state
        return PrivilegedVecEnv(vec)
    return vec


def build_model(config: TrainConfig, vec_env: Any, device: str = "cpu"):
    """A fresh MaskablePPO from the config's hyperparameters, on ``device``; on the flat vector its first
    layers read the observation sparsely or densely (``network.input``: :class:`SparseInputPolicy` or
    ``"MlpPolicy"``, the same weights and outputs). The planes' convolution reads them densely."""
    ppo = config.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.activation]
    policy_kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(ppo.net_arch), "vf": list(ppo.net_arch)},
        "activation_fn": activation,
    }
    policy: Any = SparseInputPolicy if config.network.input == "sparse" else "MlpPolicy"
    if ppo.features == "planes":
        policy, policy_kwargs = "MlpPolicy", planes_policy_kwargs(list(ppo.net_arch))
    if config.privileged.used:  # a critic or a policy that also reads the privileged state (its layers dense)
        policy = PrivilegedPolicy
        policy_kwargs.update(critic_state=config.privileged.critic, oracle=config.privileged.oracle)
    return sb3_contrib.MaskablePPO(
        policy,
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
        device=device,
        verbose=0,
    )


def warm_start(config: TrainConfig, model: Any, out_dir: Path) -> None:
    """Imitate ``pretrain.teacher`` before PPO; the figures go to pretrain.json."""
    pre = config.pretrain
    began = time.time()
    demos = collect(
        pre.teacher,
        pre.samples,
        seed=config.run.seed,
        with_states=config.privileged.used,  # the privileged model's inputs are [observation, state]
        **config.table_keywords(),
    )
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


class SelfPlaySnapshots:
    """Every ``opponents.snapshot_every`` steps, the policy frozen into the opponent pool
    (``snapshots/snapshot_<steps>.npz``; the newest ``opponents.max_snapshots`` play)."""

    def __init__(self, learner: PPOLearner) -> None:
        self.learner = learner
        self.folder = learner.context.out_dir / "snapshots"
        self.max = learner.config.opponents.max_snapshots
        self.clock = Every(0)

    def files(self) -> list[Path]:
        return sorted(self.folder.glob("snapshot_*.npz"), key=lambda p: int(p.stem.split("_")[1]))

    def start(self, steps: int) -> None:
        """From ``steps`` on: a resumed run drops the snapshots a killed process saved after its checkpoint
        (it saves them again) and plays against those before it."""
        self.clock = Every(self.learner.config.opponents.snapshot_every, steps)
        for path in self.files():
            if int(path.stem.split("_")[1]) > steps:
                path.unlink()
        self.publish()

    def publish(self) -> None:
        playing = [str(p) for p in self.files()[-self.max :]]
        if playing:
            self.learner.vec_env.env_method("set_snapshots", playing)

    def after(self, steps: int) -> None:
        if self.clock.due(steps):
            self.folder.mkdir(parents=True, exist_ok=True)
            training = {"steps": steps, "run": self.learner.config.name}
            self.learner.export_to(self.folder / f"snapshot_{steps}.npz", training)
            self.publish()
            self.learner.model.logger.record("selfplay/snapshots", len(self.files()[-self.max :]))


def oracle_fade(config: TrainConfig) -> list[Any]:
    """The callback that fades the oracle inputs (privileged.oracle), first in the list: the weight of a
    rollout is set before it is collected, from the steps done."""
    section = config.privileged
    if not section.oracle:
        return []
    return [OracleFade(config.run.total_steps, section.oracle_fade_start, section.oracle_fade_end)]


class PPOLearner(Learner):
    """MaskablePPO's loop body (see the module's text)."""

    def __init__(self, config: TrainConfig, context: RunContext) -> None:
        super().__init__(config, context)
        self.activation = config.ppo.activation
        self.vec_env = build_vec_env(config)
        self.model = build_model(config, self.vec_env, context.device)
        self.chips = EpisodeChips()
        self.callbacks = CallbackList([*oracle_fade(config), self.chips])
        self.snapshots = SelfPlaySnapshots(self)

    def begin(self) -> None:
        if self.config.pretrain.teacher:
            warm_start(self.config, self.model, self.context.out_dir)
        self._start(resumed=False)

    def resume(self, checkpoint: Path, steps: int) -> None:
        # A model built from the config, given the checkpoint's weights: nothing in the zip is unpickled
        # (checkpoints.load_weights says what is read).
        load_weights(self.model, checkpoint, self.context.device)
        self._start(resumed=True)

    def _start(self, resumed: bool) -> None:
        self.steps = int(self.model.num_timesteps)
        self.model.set_logger(configure_logger(self.context.out_dir, resumed, self.context.verbose))
        self.snapshots.start(self.steps)
        self._restart()

    def _restart(self) -> None:
        """New sessions at every table and every stream seeded from ``(run.seed, steps)`` (the module's text)."""
        seed = derive_seed(self.config.run.seed, _RESTART_TAG, self.steps)
        set_random_seed(seed)
        self.vec_env.seed(seed)
        self.model._last_obs = self.vec_env.reset()
        self.model._last_episode_starts = np.ones(self.vec_env.num_envs, dtype=bool)

    def iterate(self) -> dict[str, Any]:
        model = self.model
        rollout = model.n_steps * self.vec_env.num_envs
        model.learn(total_timesteps=rollout, callback=self.callbacks, reset_num_timesteps=False, progress_bar=False)
        self.steps = int(model.num_timesteps)
        self.snapshots.after(self.steps)
        return {"steps": self.steps, "chips_per_deal": self.chips.latest}

    def save(self, path: Path) -> None:
        self.model.save(path)

    def on_checkpoint(self) -> None:
        # beside the checkpoint the loop just wrote, the rules it learned (newmarket export checks them)
        variant, rules = env_rules(self.model)
        written = stamped_path(self.context.out_dir / "checkpoints", PREFIX, self.steps, SUFFIX)
        write_rules_record(written, rules, variant)
        self._restart()

    def policy_layers(self) -> Layers:
        return policy_layers(self.model)

    def export_to(self, path: Path, training: dict[str, Any]) -> dict[str, Any]:
        """The policy as a saved agent at ``path`` (a snapshot, or final.npz)."""
        rules, config = self.context.rules, self.config
        return save_policy(
            path, self.policy_layers(), rules, config.env.variant, model_activation(self.model), training
        )

    def training_info(self) -> dict[str, Any]:
        return {"torch": torch.__version__, "sb3_contrib": sb3_contrib.__version__, "device": self.context.device}

    def on_evaluation(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:  # TensorBoard's eval curves, beside SB3's own scalars
            self.model.logger.record(f"eval/chips_per_deal_vs_{row['opponent']}", row["mean"])

    def close(self) -> None:
        self.vec_env.close()
