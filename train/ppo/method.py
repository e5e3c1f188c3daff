"""MaskablePPO (sb3-contrib) as a method of the run loop: its config sections, its checks, its checkpoints
and its curve's points (the learner is :mod:`newmarket_env.train.ppo.learner`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from newmarket_env.agents.saved import SavedAgent, load_saved_agent
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.train.config import ACTIVATIONS, FEATURES, MAX_ROLLOUT, TrainConfig, check_agents, layer_sizes, spec
from newmarket_env.train.memory import FLOAT32, ROLLOUT_STEP_BYTES, TRAINED_WEIGHT_BYTES, actor_critic, weights
from newmarket_env.train.methods import Learner, Method, RunContext
from newmarket_env.train.ppo.checkpoints import PREFIX, SUFFIX


@dataclass
class PretrainSection:
    """Warm start before PPO: imitate a baseline teacher (see ``newmarket_env.train.ppo.imitate``)."""

    teacher: str = spec("", "baseline to imitate; empty = no warm start", str)
    samples: int = spec(20_000, "teacher decisions to collect", int, low=1, high=10_000_000)
    epochs: int = spec(5, "passes over the decisions", int, low=1, high=1000)
    learning_rate: float = spec(1e-3, "Adam step size of the warm start", float, low=1e-8, high=1.0)
    value_weight: float = spec(
        0.5, "weight of the value regression next to the imitation loss", float, low=0.0, high=100.0
    )


@dataclass
class PPOSection:
    """MaskablePPO hyperparameters (sb3-contrib names) and the policy network."""

    learning_rate: float = spec(3e-4, "Adam step size", float, low=1e-8, high=1.0)
    n_steps: int = spec(256, "steps per env per rollout", int, low=8, high=MAX_ROLLOUT)
    batch_size: int = spec(256, "minibatch size", int, low=8, high=MAX_ROLLOUT)
    n_epochs: int = spec(4, "passes over each rollout", int, low=1, high=1000)
    gamma: float = spec(1.0, "discount", float, low=0.0, high=1.0)
    gae_lambda: float = spec(0.95, "GAE lambda", float, low=0.0, high=1.0)
    clip_range: float = spec(0.2, "PPO clip range", float, low=0.0, high=1.0)
    ent_coef: float = spec(0.01, "entropy bonus", float, low=0.0, high=1.0)
    vf_coef: float = spec(0.5, "value loss weight", float, low=0.0, high=10.0)
    max_grad_norm: float = spec(0.5, "gradient clipping", float, low=0.0, high=1000.0)
    net_arch: list = layer_sizes([128, 128], "hidden layer sizes (policy and value nets alike)")
    activation: str = spec("tanh", "hidden activation", str, choices=ACTIVATIONS)
    features: str = spec(
        "flat",
        "what the networks read: flat = the vector, planes = card planes through a convolution along the ranks "
        "(newmarket_env.train.features.PlanesExtractor; needs activation: relu; reads the planes densely, whatever "
        "network.input)",
        str,
        choices=FEATURES,
    )


@dataclass
class PrivilegedSection:
    """Training with the privileged state, playing without it (``newmarket_env.train.ppo.privileged``): a critic
    that reads it (PerfectDou), oracle guiding (Suphx: the policy reads it, its weight faded to 0)."""

    critic: bool = spec(False, "the value network also reads the privileged state (every hand, the dead hand)", bool)
    oracle: bool = spec(
        False,
        "the policy also reads the privileged state, its weight 1 until oracle_fade_start and 0 from "
        "oracle_fade_end (the saved policy never reads it)",
        bool,
    )
    oracle_fade_start: float = spec(
        0.2, "fraction of run.total_steps where the oracle inputs' weight starts to fall", float, low=0.0, high=1.0
    )
    oracle_fade_end: float = spec(
        0.6, "fraction of run.total_steps from which the oracle inputs' weight is 0", float, low=0.0, high=1.0
    )

    @property
    def used(self) -> bool:
        """The critic or the policy reads the privileged state."""
        return self.critic or self.oracle


class PPO(Method):
    name = "ppo"
    summary = "MaskablePPO (sb3-contrib) against baselines and snapshots of itself, after an optional warm start"
    sections: ClassVar[dict[str, type]] = {
        "pretrain": PretrainSection,
        "ppo": PPOSection,
        "privileged": PrivilegedSection,
    }
    checkpoint_prefix, checkpoint_suffix = PREFIX, SUFFIX
    steps_column = "time/total_timesteps"  # progress.csv is SB3's logger's
    shown = ("chips_per_deal",)
    outputs: ClassVar[dict[str, tuple[str, ...]]] = {
        "snapshots": ("snapshot_*.npz", ".snapshot_*"),
        "pretrain.json": (),
    }

    def checkpoint_files(self) -> tuple[str, ...]:
        # beside each zip, the rules it learned (agents/sb3_rules.py)
        return (*super().checkpoint_files(), f"{PREFIX}_*_steps.rules.json")

    @property
    def xlabel(self) -> str:
        return "env steps (learner decisions; 0 = after the warm start)"

    def check(self, config: TrainConfig) -> None:
        """The warm start's teacher, and a rollout that fits in memory and holds a minibatch."""
        if config.pretrain.teacher:
            check_agents(config.pretrain.teacher, "pretrain.teacher")
        rollout = config.ppo.n_steps * config.run.n_envs
        if rollout > MAX_ROLLOUT:
            raise ValueError(
                f"ppo.n_steps * run.n_envs = {rollout} is not allowed; "
                f"allowed: at most {MAX_ROLLOUT} (the rollout buffer would not fit in memory)"
            )
        if config.ppo.batch_size > rollout:
            raise ValueError(
                f"ppo.batch_size = {config.ppo.batch_size} is not allowed; allowed: at most "
                f"ppo.n_steps * run.n_envs = {rollout}"
            )
        if config.ppo.features == "planes" and config.ppo.activation != "relu":
            raise ValueError(
                f"ppo.activation = {config.ppo.activation!r} is not allowed with ppo.features = 'planes'; allowed: "
                "relu (the extractor's own activation: the trained network is then saved exactly as an agent file)"
            )

        check_privileged(config)

    def learner(self, config: TrainConfig, context: RunContext) -> Learner:
        from newmarket_env.train.ppo.learner import PPOLearner  # optional: needs SB3 and torch (train extra)

        return PPOLearner(config, context)

    def memory(self, config: TrainConfig) -> dict[str, int]:
        parts = {
            "the policy and value networks in training": actor_critic(config.ppo.net_arch) * TRAINED_WEIGHT_BYTES,
            "the rollout": config.ppo.n_steps * config.run.n_envs * ROLLOUT_STEP_BYTES,
        }
        if config.opponents.snapshot_every:
            frozen = config.opponents.max_snapshots * weights([FLAT_SIZE, *config.ppo.net_arch, NUM_ACTIONS])
            parts["the frozen snapshots"] = frozen * FLOAT32
        return parts

    # A finished run is measured on its self-play snapshots (saved agents), not on the SB3 zips.
    def curve_points(self, run_dir: Path) -> list[int]:
        return sorted(int(p.stem.split("_")[1]) for p in (run_dir / "snapshots").glob("snapshot_*.npz"))

    def curve_file(self, run_dir: Path, steps: int) -> Path:
        return run_dir / "snapshots" / f"snapshot_{steps}.npz"

    def no_curve_points(self, run_dir: Path) -> str:
        return f"{run_dir / 'snapshots'} holds no snapshot_<steps>.npz (PPO's self-play snapshots)"

    def network_at(self, config: TrainConfig, run_dir: Path, steps: int) -> SavedAgent:
        rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules)
        return load_saved_agent(self.curve_file(run_dir, steps), rules, 0, name=config.name)


def check_privileged(config: TrainConfig) -> None:
    """The privileged state reaches PPO through the compiled tables, on the flat features; the fade is two
    fractions in order."""
    section = config.privileged
    if section.oracle_fade_end < section.oracle_fade_start:
        raise ValueError(
            f"privileged.oracle_fade_end = {section.oracle_fade_end} is not allowed; allowed: at least "
            f"privileged.oracle_fade_start = {section.oracle_fade_start}"
        )
    if not section.used:
        return
    if config.run.vec_env != "batch":
        raise ValueError(
            f"privileged.critic or privileged.oracle with run.vec_env = {config.run.vec_env} is not allowed; "
            "allowed: run.vec_env: batch (the compiled tables give the state)"
        )
    if config.ppo.features != "flat":
        raise ValueError(
            f"privileged.critic or privileged.oracle with ppo.features = {config.ppo.features!r} is not allowed; "
            "allowed: ppo.features: flat"
        )


METHOD = PPO()
