"""RLlib PPO as a method of the run loop: its config section and its checkpoints (the learner is
:mod:`newmarket_env.train.rllib_ppo.learner`).

Its checkpoints are RLlib's own folders, ``checkpoints/rllib_<steps>_steps/`` (what
``Algorithm.save_to_path`` writes; ``steps``: the learner's decisions so far), written into a temporary
folder and renamed, then stamped with a sidecar ``rllib_<steps>_steps.json`` (run id, steps, size,
SHA-256 of the folder's files) by the rules of :mod:`newmarket_env.train.stamped`. ``--resume`` builds
the algorithm from the run's config and loads the newest intact folder with
``Algorithm.restore_from_path``. Each folder also holds ``policy.npz``, the learner's policy of that
moment as a plain saved agent (what ``final.npz`` is at the end), so ``newmarket_env.train.curve``
measures the checkpoints with numpy alone.

What ``--resume`` trusts: RLlib's state files are Python pickles (``*.pkl``), and loading them can run
code. They are read only from a run folder of this user's that other users cannot write
(``check_checkpoint_folder``, as for every method), only when stamped with the folder's own run and
unchanged since (the SHA-256). The saved agent, ``final.npz``, holds numbers only and is safe from anyone.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from newmarket_env.agents.saved import SavedAgent, load_saved_agent
from newmarket_env.game.rules import make_rules
from newmarket_env.train.config import ACTIVATIONS, MAX_ROLLOUT, TrainConfig, layer_sizes, spec
from newmarket_env.train.memory import ROLLOUT_STEP_BYTES, TRAINED_WEIGHT_BYTES, actor_critic
from newmarket_env.train.methods import Learner, Method, RunContext
from newmarket_env.train.rllib_ppo import POLICY_FILE

#: How RLlib's env runners sample (``rllib.sampler``): the compiled vector env, or the AEC env.
RLLIB_SAMPLERS = ("batch", "aec")


@dataclass
class RLlibSection:
    """Ray RLlib's PPO (method: rllib_ppo): run.total_steps counts the learner's decisions."""

    hidden: list = layer_sizes(
        [128, 128], "hidden layer sizes (RLlib's fcnet_hiddens; policy and value nets alike, not shared)"
    )
    activation: str = spec("tanh", "hidden activation (RLlib's fcnet_activation)", str, choices=ACTIVATIONS)
    batch_size: int = spec(
        4000,
        "env steps sampled per iteration (sampler aec: every seat's decisions, in whole sessions; batch: the "
        "learner's)",
        int,
        low=16,
        high=MAX_ROLLOUT,
    )
    minibatch_size: int = spec(256, "minibatch size of PPO's update", int, low=8, high=MAX_ROLLOUT)
    num_epochs: int = spec(4, "passes over each iteration's batch", int, low=1, high=1000)
    lr: float = spec(3e-4, "Adam step size", float, low=1e-8, high=1.0)
    refresh_every: int = spec(
        5,
        "iterations between copies of the learner into the frozen opponent (sampler batch: into the snapshots, "
        "opponents.max_snapshots kept); 0 = never",
        int,
        low=0,
        high=1_000_000,
    )
    num_env_runners: int = spec(
        0,
        "Ray actors that sample (0 = sample in this process, the only setting a seed reproduces exactly)",
        int,
        low=0,
        high=256,
    )
    sampler: str = spec(
        "batch",
        "batch: single-agent PPO on the compiled vector env (rllib.num_envs tables per env runner, the "
        "opponents.baselines and snapshots of the learner played inside it); aec: the AEC env as RLlib's "
        "MultiAgentEnv, one step per decision, the learner against a frozen copy of itself",
        str,
        choices=RLLIB_SAMPLERS,
    )
    num_envs: int = spec(64, "sampler batch: tables per env runner", int, low=1, high=4096)


class RLlibPPO(Method):
    name = "rllib_ppo"
    summary = (
        "Ray RLlib's PPO: the learner in one seat, sampled through the compiled vector env against baselines "
        "and snapshots of itself (or the AEC env against a frozen copy)"
    )
    sections: ClassVar[dict[str, type]] = {"rllib": RLlibSection}
    checkpoint_prefix = "rllib"
    checkpoint_suffix = ""
    checkpoint_folder = True
    progress_fields = (
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
    )
    shown = ("learner_return", "illegal_actions")

    @property
    def xlabel(self) -> str:
        return "learner decisions (training steps of RLlib PPO self-play)"

    def check(self, config: TrainConfig) -> None:
        """The RLlib keys that depend on each other, and the ray extra."""
        if config.rllib.minibatch_size > config.rllib.batch_size:
            raise ValueError(
                f"rllib.minibatch_size = {config.rllib.minibatch_size} is not allowed; allowed: at most "
                f"rllib.batch_size = {config.rllib.batch_size}"
            )
        if importlib.util.find_spec("ray") is None:
            raise ValueError("method rllib_ppo needs Ray RLlib; install it with pip install 'newmarket-env[ray]'")

    def learner(self, config: TrainConfig, context: RunContext) -> Learner:
        from newmarket_env.train.rllib_ppo.learner import RLlibLearner  # optional: needs ray (ray extra)

        return RLlibLearner(config, context)

    def memory(self, config: TrainConfig) -> dict[str, int]:
        rllib = config.rllib
        return {
            "the policy and value networks in training": actor_critic(rllib.hidden) * TRAINED_WEIGHT_BYTES,
            "rllib.batch_size steps": 2 * rllib.batch_size * ROLLOUT_STEP_BYTES,
        }

    def policy_path(self, folder: Path, steps: int) -> Path:
        """The saved agent of the checkpoint of ``steps`` in ``folder``."""
        return self.checkpoint_path(folder, steps) / POLICY_FILE

    def curve_file(self, run_dir: Path, steps: int) -> Path:
        return self.policy_path(run_dir / "checkpoints", steps)

    def no_curve_points(self, run_dir: Path) -> str:
        return f"{run_dir / 'checkpoints'} holds no rllib_<steps>_steps checkpoint folder"

    def network_at(self, config: TrainConfig, run_dir: Path, steps: int) -> SavedAgent:
        """Each checkpoint folder holds its policy as a saved agent (numpy): no Ray needed."""
        rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
        return load_saved_agent(self.curve_file(run_dir, steps), rules, 0, name=config.name)


METHOD = RLlibPPO()
