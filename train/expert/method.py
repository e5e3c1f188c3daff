"""Expert iteration as a method of the run loop: its config section, its checks and its checkpoints (the
learner is :mod:`newmarket_env.train.expert.learner`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from newmarket_env.agents.saved import read_saved
from newmarket_env.execution.backends import BACKENDS, check_backend
from newmarket_env.game.rules import make_rules
from newmarket_env.train.config import ACTIVATIONS, TrainConfig, layer_sizes, spec
from newmarket_env.train.memory import EXPERT_LABEL_BYTES, TRAINED_WEIGHT_BYTES, actor_critic
from newmarket_env.train.methods import Learner, Method, RunContext

TEACHERS = ("search", "guided_search", "guided_prior")
POLICY_TARGETS = ("choice", "softmax")


@dataclass
class ExpertSection:
    """Expert iteration (method: expert_iteration): run.total_steps counts labelled decisions."""

    states: int = spec(2000, "learner decisions labelled per iteration", int, low=1, high=10_000_000)
    tables: int = spec(16, "tables played at once when collecting the learner's decisions", int, low=1, high=4096)
    first_states: str = spec(
        "control", "who plays the tables of iteration 0 (the network is untrained): a registered baseline", str
    )
    baseline_fraction: float = spec(
        0.25,
        "chance a seat at a collection table is a baseline from "
        "opponents.baselines instead of the learner (its decisions are not labelled)",
        float,
        low=0.0,
        high=0.95,
    )
    sample: bool = spec(True, "the learner samples its actions when collecting (else greedy)", bool)
    teacher: str = spec(
        "search",
        "labeller: search (control rollouts), guided_search (the current network "
        "as rollout policy), or guided_prior (the current network picks the candidates and adds "
        "prior_weight x its logit to their mean chips over control's rollouts, in a race: the "
        "exit-<v>-search agents); the network teaches from iteration 1, or from 0 with expert.init",
        str,
        choices=TEACHERS,
    )
    budget: int = spec(64, "worlds the teacher samples per labelled decision", int, low=1, high=100_000)
    max_candidates: int = spec(5, "actions the teacher compares per decision", int, low=2, high=79)
    guided_cutoff: int = spec(
        0,
        "guided_search teacher: decisions a rollout plays before the network's value "
        "ends it; 0 = to the end of the deal",
        int,
        low=0,
        high=10_000,
    )
    prior_weight: float = spec(
        1.0, "guided_prior teacher: chips per unit of the network's logit", float, low=0.0, high=100.0
    )
    racing_worlds: int = spec(
        16, "guided_prior teacher: worlds per round of the race; 0 = no race", int, low=0, high=100_000
    )
    racing_z: float = spec(
        1.5, "guided_prior teacher: standard errors behind the leader to leave the race", float, low=0.01, high=100.0
    )
    init: str = spec(
        "",
        "a saved agent (.npz) whose policy network the run starts from (its hidden sizes must be "
        "expert.net_arch, its rules the run's); '' = a fresh network",
        str,
    )
    target: str = spec(
        "softmax",
        "policy target: choice (the teacher's action) or softmax (of the candidates' mean chips / temperature)",
        str,
        choices=POLICY_TARGETS,
    )
    temperature: float = spec(1.0, "chips per unit of logit in the softmax target", float, low=1e-3, high=1000.0)
    window: int = spec(4, "iterations of labels the network is fitted on (DAgger aggregation)", int, low=1, high=10_000)
    epochs: int = spec(4, "passes over the labels per iteration", int, low=1, high=1000)
    batch_size: int = spec(256, "minibatch size", int, low=1, high=1_000_000)
    learning_rate: float = spec(1e-3, "Adam step size", float, low=1e-8, high=1.0)
    value_weight: float = spec(
        0.5, "weight of the value regression next to the policy loss", float, low=0.0, high=100.0
    )
    aux_weight: float = spec(
        0.0,
        "weight of an auxiliary loss: a head on the policy's last hidden layer predicts where the cards hidden "
        "from the deciding seat are (from the privileged state; training only, the head is not saved); 0 = none",
        float,
        low=0.0,
        high=100.0,
    )
    net_arch: list = layer_sizes([128, 128], "hidden layer sizes (policy and value nets alike)")
    activation: str = spec("tanh", "hidden activation", str, choices=ACTIVATIONS)
    workers: int = spec(
        2, "label processes (1 = in this process); the labels do not depend on it", int, low=1, high=256
    )
    backend: str = spec(
        "local",
        "where labels are computed: local (workers processes here) or ray (Ray tasks; needs the ray extra)",
        str,
        choices=BACKENDS,
    )
    address: str = spec("", "with backend ray: '' starts a local Ray, 'auto' or HOST:PORT joins a cluster", str)


class ExpertIteration(Method):
    name = "expert_iteration"
    summary = "expert iteration: a network distils a search teacher's labels on its own states (DAgger)"
    sections: ClassVar[dict[str, type]] = {"expert": ExpertSection}
    unit = "labelled decisions"
    word = "labels"
    checkpoint_prefix = "exit"
    checkpoint_each_iteration = True  # an iteration labels for minutes: each one is a point of the curve
    progress_fields = (
        "iteration",
        "steps",
        "labels",
        "mean_return",
        "prior_agreement",
        "policy_loss",
        "value_loss",
        "aux_loss",
        "agreement",
        "collect_s",
        "label_s",
        "fit_s",
        "wall_s",
    )
    shown = ("prior_agreement", "agreement", "value_loss")
    outputs: ClassVar[dict[str, tuple[str, ...]]] = {"labels": ("iter_*.npz", ".iter_*"), "final_value.npz": ()}
    resumable_keys = ("expert.workers", "expert.backend", "expert.address")  # where labels are computed, not what

    def check(self, config: TrainConfig) -> None:
        """The expert-iteration keys that need the live package (agents, backend, the starting network)."""
        from newmarket_env.train.collect import check_seatable, seatable_baselines  # the compiled tables

        exp = config.expert
        seatable = seatable_baselines()
        if exp.first_states not in seatable:
            raise ValueError(
                f"expert.first_states = {exp.first_states!r} is not allowed; allowed: {', '.join(seatable)}"
            )
        check_seatable(
            config.opponents.baselines, exp.baseline_fraction, "expert iteration", "expert.baseline_fraction"
        )
        if exp.racing_worlds == 1:
            raise ValueError("expert.racing_worlds = 1 is not allowed; allowed: 0 (no race) or an int >= 2")
        if exp.init:
            check_init(config)
        try:
            check_backend(exp.backend, exp.address or None)
        except ValueError as err:
            raise ValueError(f"expert: {err}") from None

    def learner(self, config: TrainConfig, context: RunContext) -> Learner:
        from newmarket_env.train.expert.learner import ExpertLearner  # optional: needs torch (train extra)

        return ExpertLearner(config, context)

    def memory(self, config: TrainConfig) -> dict[str, int]:
        expert = config.expert
        return {
            "the policy and value networks in training": actor_critic(expert.net_arch) * TRAINED_WEIGHT_BYTES,
            # the window's labels, and their concatenation for the fit
            "expert.states x expert.window labelled decisions": 2 * expert.states * expert.window * EXPERT_LABEL_BYTES,
        }


def check_init(config: TrainConfig) -> None:
    """``expert.init`` is a saved agent of the run's rules and hidden sizes (read without running code)."""
    path = config.expert.init
    try:
        metadata, _ = read_saved(path)
    except (OSError, ValueError) as err:
        raise ValueError(f"expert.init: {str(err).splitlines()[0]}") from None
    hidden = list(metadata["layers"][1:-1])
    if hidden != list(config.expert.net_arch):
        raise ValueError(
            f"expert.init = {path!r} has hidden layers {hidden}; allowed: expert.net_arch = {config.expert.net_arch}"
        )
    if metadata.get("activation") != config.expert.activation:
        raise ValueError(
            f"expert.init = {path!r} uses activation {metadata.get('activation')!r}; "
            f"allowed: expert.activation = {config.expert.activation!r}"
        )
    rules = make_rules(config.env.variant, config.env.num_players, **config.env.rules).to_dict()
    if metadata.get("rules") != rules:
        raise ValueError(f"expert.init = {path!r} was trained on other rules than the run's env section")


METHOD = ExpertIteration()
