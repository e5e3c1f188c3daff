"""The RLlib PPO self-play learner: one ``algo.train()`` an iteration (the run loop does the rest).

``run.total_steps`` counts the learner module's decisions (RLlib's ``num_module_steps_sampled`` of the
learner's module): one seat per session is the learner. With ``rllib.sampler: batch`` (the default) the
env runners step the compiled vector env (``rllib.num_envs`` tables each, on ``run.threads`` threads),
the other seats played inside it by ``opponents.baselines`` and snapshots of the learner; with ``aec``
they step the AEC env one decision at a time, the other seats a frozen copy of the learner. Iterations run until
that count reaches ``run.total_steps`` or ``run.max_minutes`` passes (after an iteration; at least one
runs). Its checkpoints are RLlib's folders with the policy as a saved agent inside
(:mod:`newmarket_env.train.rllib_ppo.method`); ``final.npz`` is the learner's policy as a plain saved agent.

Every iteration ``i`` starts from seeds derived from ``(run.seed, i)``: each env runner's next deal,
its learner seats and its torch/numpy streams, and this process's (where the learner shuffles its
minibatches). A checkpoint holds the iteration count with the weights and the optimiser, so with
``rllib.num_env_runners: 0`` a resumed run starts its next iteration as an uninterrupted one does
(``tests/ray/test_rllib_ppo_method.py`` checks how far that holds).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

import ray
import torch
from ray.rllib.utils.debug import update_global_seed_if_necessary

from newmarket_env.agents.saved import save_policy
from newmarket_env.execution.backends import connect_ray
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.integrations.rllib import (
    CHECKED_METRIC,
    DEFAULT_MODULE_ID,
    ILLEGAL_METRIC,
    LEARNER,
    SelfPlayMapping,
    self_play_config,
    vector_config,
)
from newmarket_env.train.config import TrainConfig
from newmarket_env.train.methods import Layers, Learner, RunContext
from newmarket_env.train.rllib_ppo import POLICY_FILE
from newmarket_env.train.rllib_ppo.export import policy_layers

_ITERATION_TAG = 31
#: Object store of a Ray this run starts itself: the run ships weights and small batches only.
_OBJECT_STORE_BYTES = 200 * 1024 * 1024


def algorithm_config(config: TrainConfig, device: str = "cpu") -> Any:
    """The ``PPOConfig`` of the run: :func:`vector_config` (``rllib.sampler: batch``) or :func:`self_play_config`
    (``aec``) with the config's ``rllib`` section (and one GPU for the learner when ``device`` is ``cuda``)."""
    r, env = config.rllib, config.env
    shared = dict(
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
        network_input=config.network.input,
    )
    if r.sampler == "batch":
        algo_config = vector_config(
            **shared,
            opponents=list(config.opponents.baselines),
            snapshot_fraction=config.opponents.snapshot_fraction,
            max_snapshots=config.opponents.max_snapshots,
            seat=env.seat,
            num_envs=r.num_envs,
            threads=config.run.threads or None,
        )
    else:
        algo_config = self_play_config(**shared)
    if device == "cuda":  # the learner (in this process: num_learners 0) updates on the GPU
        algo_config = algo_config.learners(num_gpus_per_learner=1)
    return algo_config


def learner_module(config: TrainConfig) -> str:
    """The RLModule the run trains: ``"learner"`` of the self-play pair (sampler aec), RLlib's single-agent
    default module (sampler batch)."""
    return DEFAULT_MODULE_ID if config.rllib.sampler == "batch" else LEARNER


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


def _module_return(runners: dict[str, Any], module: str) -> Any:
    """The learner module's mean episode return of the iteration ('' when no episode ended). RLlib 2.60 names it
    ``module_episode_return_mean``; earlier releases ``module_episode_returns_mean``."""
    for key in ("module_episode_return_mean", "module_episode_returns_mean"):
        if module in runners.get(key, {}):
            return float(runners[key][module])
    return ""


class RLlibLearner(Learner):
    """RLlib PPO's loop body. Joins the Ray of this process if one is running, else starts a local one
    (and stops it in :meth:`close`)."""

    def __init__(self, config: TrainConfig, context: RunContext) -> None:
        super().__init__(config, context)
        self.activation = config.rllib.activation
        self.module = learner_module(config)
        # a private local Ray (not one another process of this machine started) unless this process joined one
        self.started_ray = connect_ray(
            None,
            num_cpus=max(1, config.rllib.num_env_runners),
            num_gpus=1 if context.device == "cuda" else 0,
            object_store_memory=_OBJECT_STORE_BYTES,
        )
        try:
            self.algo = algorithm_config(config, context.device).build_algo()
        except BaseException:
            self._stop_ray()
            raise
        self.began = time.time()

    def resume(self, checkpoint: Path, steps: int) -> None:
        self.algo.restore_from_path(str(checkpoint.resolve()))
        self.steps = steps

    def iterate(self) -> dict[str, Any]:
        algo = self.algo
        iteration = algo.iteration  # iterations done so far (a checkpoint restores it)
        seed_iteration(algo, self.config.run.seed, iteration)
        ran = time.time()
        result = algo.train()
        runners = result["env_runners"]
        self.steps += int(runners.get("num_module_steps_sampled", {}).get(self.module, 0))
        learner = result.get("learners", {}).get(self.module, {})
        row = {
            "iteration": iteration + 1,
            "steps": self.steps,
            "env_steps": int(runners.get("num_env_steps_sampled", 0)),
            "learner_return": _module_return(runners, self.module),
            "policy_loss": learner.get("policy_loss", ""),
            "vf_loss": learner.get("vf_loss", ""),
            "entropy": learner.get("entropy", ""),
            "kl": learner.get("mean_kl_loss", ""),
            "actions_checked": runners.get(CHECKED_METRIC, ""),
            "illegal_actions": runners.get(ILLEGAL_METRIC, ""),
            "opponent_frozen_at": result.get("opponent_frozen_at", ""),
            "iteration_s": round(time.time() - ran, 1),
            "wall_s": round(time.time() - self.began, 1),
        }
        self.context.say(
            f"iteration {row['iteration']}: {self.steps} learner decisions ({row['env_steps']} env steps this "
            f"iteration), learner return {row['learner_return']}, {row['iteration_s']} s"
        )
        return row

    def save(self, path: Path) -> None:
        """RLlib's checkpoint folder, with the policy as a saved agent inside it (under the same stamp)."""
        self.algo.save_to_path(str(path.resolve()))  # pyarrow takes a relative path for a URI and refuses it
        training = {"config": self.config.to_dict(), "method": "rllib_ppo", "steps": self.steps}
        config = self.config
        save_policy(
            path / POLICY_FILE,
            self.policy_layers(),
            self.context.rules,
            config.env.variant,
            self.activation,
            training,
            name=config.name,
        )

    def policy_layers(self) -> Layers:
        return policy_layers(self.algo.get_module(self.module), self.activation)

    def training_info(self) -> dict[str, Any]:
        return {"iterations": self.algo.iteration, "ray": ray.__version__, "torch": torch.__version__}

    def close(self) -> None:
        try:
            self.algo.stop()
        finally:
            self._stop_ray()

    def _stop_ray(self) -> None:
        if self.started_ray:
            ray.shutdown()
            self.started_ray = False
