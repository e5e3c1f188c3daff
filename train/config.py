"""Training configs: YAML files validated on load into :class:`TrainConfig`.

Each field carries its doc, and its allowed values or range; an unknown key or a
bad value raises ``ValueError`` with ONE line naming the key and the allowed
values. ``python -m newmarket_env.train --describe`` prints every field.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from newmarket_env.agents import available_agents
from newmarket_env.agents.saved import read_saved
from newmarket_env.envs.learner_options import SEAT_MODES, LearnerSeat
from newmarket_env.execution.backends import BACKENDS, check_backend
from newmarket_env.game.rules import VARIANTS, make_rules

EVAL_BACKENDS = BACKENDS
VEC_ENVS = ("batch", "dummy", "subproc")
#: Most envs of the per-object kinds (dummy, subproc); batch tables are far cheaper.
MAX_SINGLE_ENVS = 256
ACTIVATIONS = ("tanh", "relu")
#: What the PPO networks read (``ppo.features``): the flat vector, or the card planes (train/features.py).
FEATURES = ("flat", "planes")


#: Largest seed: numpy and torch seeds are 32-bit.
MAX_SEED = 2**32 - 1
#: Largest env-step count of any budget or period (a 2-core machine plays about 2e8 steps a day).
MAX_STEPS = 10**10
#: Largest config file read (the shipped ones are 1-2 kB): a larger file, or one that never ends
#: (``/dev/zero``), is refused after reading this much.
MAX_CONFIG_BYTES = 1 << 20
#: Largest rollout (``ppo.n_steps * run.n_envs``): the rollout buffer holds this many observations of
#: 936 float32 plus masks, about 1 GB at this size.
MAX_ROLLOUT = 262_144


def spec(
    default: Any,
    doc: str,
    kind: type | tuple = (),
    choices: tuple = (),
    low: float | None = None,
    high: float | None = None,
    items: type | None = None,
    item_range: tuple[int, int] | None = None,
    max_items: int | None = None,
) -> Any:
    """A dataclass field with its documentation and validation rule in the metadata.

    Numbers must lie in ``low..high`` and be finite; list fields hold ``items`` (each in ``item_range``,
    at most ``max_items`` of them).
    """
    meta = {
        "doc": doc,
        "kind": kind,
        "choices": choices,
        "low": low,
        "high": high,
        "items": items,
        "item_range": item_range,
        "max_items": max_items,
    }
    if isinstance(default, (list, dict)):
        return field(default_factory=default.copy, metadata=meta)  # each config gets its own list or dict
    return field(default=default, metadata=meta)


@dataclass
class EnvSection:
    """The game the learner plays (``SingleAgentEnv``)."""

    variant: str = spec("newmarket", "rules preset (docs/rules.md)", str, choices=tuple(VARIANTS))
    num_players: int = spec(4, "players at the table", int, low=3, high=8)
    rules: dict = spec(
        {}, "rules overrides by their docs/rules.md names, e.g. {num_deals: 2} (players: num_players)", dict
    )
    seat: str = spec("random", "learner seat per session", str, choices=SEAT_MODES)
    reward_scale: float = spec(0.1, "chips are multiplied by this before PPO sees them", float, low=1e-6, high=100.0)


@dataclass
class OpponentSection:
    """The opponent pool: baselines by name plus frozen snapshots of the learner."""

    baselines: list = spec(["random"], "registered agent names (see available_agents())", list, items=str)
    snapshot_every: int = spec(0, "env steps between self-play snapshots; 0 = no self-play", int, low=0, high=MAX_STEPS)
    max_snapshots: int = spec(5, "the most recent snapshots kept in the pool", int, low=1, high=1000)
    snapshot_fraction: float = spec(
        0.3, "chance an opponent seat is a snapshot (when any exist)", float, low=0.0, high=1.0
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
    net_arch: list = spec(
        [128, 128],
        "hidden layer sizes (policy and value nets alike)",
        list,
        items=int,
        item_range=(1, 4096),
        max_items=16,
    )
    activation: str = spec("tanh", "hidden activation", str, choices=ACTIVATIONS)
    features: str = spec(
        "flat",
        "what the networks read: flat = the vector, planes = card planes through a convolution along the ranks "
        "(newmarket_env.train.features.PlanesExtractor; needs activation: relu)",
        str,
        choices=FEATURES,
    )


@dataclass
class RunSection:
    """Budget, processes, seeds and where outputs go."""

    total_steps: int = spec(1_000_000, "learner env steps to train", int, low=1, high=MAX_STEPS)
    n_envs: int = spec(8, "parallel envs (tables of the batch with vec_env: batch)", int, low=1, high=4096)
    vec_env: str = spec(
        "batch",
        "batch = compiled tables in one object (vector_env; needs the compiled engine, "
        "else dummy is used), dummy = SingleAgentEnv objects in this process, "
        "subproc = one process each",
        str,
        choices=VEC_ENVS,
    )
    seed: int = spec(0, "seed of PPO and the envs", int, low=0, high=MAX_SEED)
    out_dir: str = spec("runs/newmarket_ppo", "run folder: logs, checkpoints, eval CSV, curve, final agent", str)
    checkpoint_every: int = spec(
        100_000, "env steps between checkpoints (for --resume; dmc: recorded decisions)", int, low=1, high=MAX_STEPS
    )
    max_minutes: float = spec(
        0.0,
        "stop training after this many minutes (then save and evaluate); 0 = no limit",
        float,
        low=0.0,
        high=525_600.0,
    )
    torch_threads: int = spec(1, "torch CPU threads", int, low=1, high=64)
    progress_bar: bool = spec(True, "show a progress bar", bool)


@dataclass
class EvalSection:
    """Periodic duplicate evaluation against baselines (seats rotated)."""

    every: int = spec(50_000, "env steps between evaluations; 0 = none", int, low=0, high=MAX_STEPS)
    sessions: int = spec(
        40, "deal sets per periodic evaluation (each played once per seat)", int, low=1, high=1_000_000
    )
    final_sessions: int = spec(200, "deal sets of the final evaluation", int, low=1, high=1_000_000)
    opponents: list = spec(["random"], "baselines that fill the other seats, one evaluation each", list, items=str)
    backend: str = spec(
        "local",
        "where the boards are played: local (this process) or ray (Ray tasks; same figures; needs the ray extra)",
        str,
        choices=EVAL_BACKENDS,
    )
    address: str = spec(
        "",
        "with backend ray: '' starts a local Ray for each evaluation, 'auto' or HOST:PORT "
        "joins a running cluster (quicker: ray start --head)",
        str,
    )
    seed: int = spec(12345, "seed of the evaluation deals (the same at every evaluation)", int, low=0, high=MAX_SEED)


@dataclass
class PretrainSection:
    """Warm start before PPO: imitate a baseline teacher (see ``newmarket_env.train.imitate``)."""

    teacher: str = spec("", "baseline to imitate; empty = no warm start", str)
    samples: int = spec(20_000, "teacher decisions to collect", int, low=1, high=10_000_000)
    epochs: int = spec(5, "passes over the decisions", int, low=1, high=1000)
    learning_rate: float = spec(1e-3, "Adam step size of the warm start", float, low=1e-8, high=1.0)
    value_weight: float = spec(
        0.5, "weight of the value regression next to the imitation loss", float, low=0.0, high=100.0
    )


#: Training methods: MaskablePPO (sb3-contrib), expert iteration (search distillation, train/expert),
#: Deep Monte-Carlo (action values learnt from self-play returns, train/dmc), or Ray RLlib's PPO in
#: self-play (train/rllib_ppo).
METHODS = ("ppo", "expert_iteration", "dmc", "rllib_ppo")
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
    net_arch: list = spec(
        [128, 128],
        "hidden layer sizes (policy and value nets alike)",
        list,
        items=int,
        item_range=(1, 4096),
        max_items=16,
    )
    activation: str = spec("tanh", "hidden activation", str, choices=ACTIVATIONS)
    workers: int = spec(
        2, "label processes (1 = in this process); the labels do not depend on it", int, low=1, high=256
    )
    backend: str = spec(
        "local",
        "where labels are computed: local (workers processes here) or ray (Ray tasks; needs the ray extra)",
        str,
        choices=EVAL_BACKENDS,
    )
    address: str = spec("", "with backend ray: '' starts a local Ray, 'auto' or HOST:PORT joins a cluster", str)


@dataclass
class DMCSection:
    """Deep Monte-Carlo (method: dmc): run.total_steps counts recorded learner decisions."""

    states: int = spec(4000, "learner decisions recorded per iteration", int, low=1, high=10_000_000)
    tables: int = spec(32, "tables played at once by the learner's network", int, low=1, high=4096)
    baseline_fraction: float = spec(
        0.25,
        "chance a seat at a table is a baseline from opponents.baselines instead of the learner "
        "(its decisions are not recorded)",
        float,
        low=0.0,
        high=0.95,
    )
    epsilon: float = spec(
        0.1, "chance the learner plays a uniformly drawn legal action instead of its best Q", float, low=0.0, high=1.0
    )
    window: int = spec(1, "iterations of recorded decisions the network is fitted on (replay)", int, low=1, high=10_000)
    epochs: int = spec(1, "passes over the window per iteration", int, low=1, high=1000)
    batch_size: int = spec(256, "minibatch size", int, low=1, high=1_000_000)
    learning_rate: float = spec(1e-3, "Adam step size", float, low=1e-8, high=1.0)
    net_arch: list = spec(
        [256, 256], "hidden layer sizes of the Q network", list, items=int, item_range=(1, 4096), max_items=16
    )
    activation: str = spec("relu", "hidden activation", str, choices=ACTIVATIONS)


@dataclass
class RLlibSection:
    """Ray RLlib's PPO in self-play (method: rllib_ppo): run.total_steps counts the learner's decisions."""

    hidden: list = spec(
        [128, 128],
        "hidden layer sizes (RLlib's fcnet_hiddens; policy and value nets alike, not shared)",
        list,
        items=int,
        item_range=(1, 4096),
        max_items=16,
    )
    activation: str = spec("tanh", "hidden activation (RLlib's fcnet_activation)", str, choices=ACTIVATIONS)
    batch_size: int = spec(
        4000,
        "env steps (every seat's decisions) sampled per iteration, in whole sessions",
        int,
        low=16,
        high=MAX_ROLLOUT,
    )
    minibatch_size: int = spec(256, "minibatch size of PPO's update", int, low=8, high=MAX_ROLLOUT)
    num_epochs: int = spec(4, "passes over each iteration's batch", int, low=1, high=1000)
    lr: float = spec(3e-4, "Adam step size", float, low=1e-8, high=1.0)
    refresh_every: int = spec(
        5, "iterations between copies of the learner into the frozen opponent; 0 = never", int, low=0, high=1_000_000
    )
    num_env_runners: int = spec(
        0,
        "Ray actors that sample (0 = sample in this process, the only setting a seed reproduces exactly)",
        int,
        low=0,
        high=256,
    )


@dataclass
class TrainConfig:
    """A whole training run (the YAML file: these sections, each optional)."""

    name: str = spec("newmarket_ppo", "run name (used in the saved agent's metadata)", str)
    method: str = spec(
        "ppo",
        "ppo (MaskablePPO: sections pretrain and ppo), expert_iteration (search distillation: section expert) "
        "dmc (Deep Monte-Carlo: section dmc) or rllib_ppo (Ray RLlib's PPO in self-play: section rllib)",
        str,
        choices=METHODS,
    )
    env: EnvSection = field(default_factory=EnvSection, metadata={"doc": EnvSection.__doc__})
    opponents: OpponentSection = field(default_factory=OpponentSection, metadata={"doc": OpponentSection.__doc__})
    pretrain: PretrainSection = field(default_factory=PretrainSection, metadata={"doc": PretrainSection.__doc__})
    ppo: PPOSection = field(default_factory=PPOSection, metadata={"doc": PPOSection.__doc__})
    run: RunSection = field(default_factory=RunSection, metadata={"doc": RunSection.__doc__})
    eval: EvalSection = field(default_factory=EvalSection, metadata={"doc": EvalSection.__doc__})
    expert: ExpertSection = field(default_factory=ExpertSection, metadata={"doc": ExpertSection.__doc__})
    dmc: DMCSection = field(default_factory=DMCSection, metadata={"doc": DMCSection.__doc__})
    rllib: RLlibSection = field(default_factory=RLlibSection, metadata={"doc": RLlibSection.__doc__})

    def learner_seat(self) -> LearnerSeat:
        """The learner's seat at every training table: sections env and opponents as one spec."""
        return LearnerSeat(
            opponents=self.opponents.baselines,
            snapshot_fraction=self.opponents.snapshot_fraction,
            seat=self.env.seat,
            reward_scale=self.env.reward_scale,
            players=self.env.num_players,
        )

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        # Each method's config.yaml holds the sections it had when the method came: older runs resume.
        if self.method == "ppo":
            del data["method"], data["expert"]
        if self.method != "dmc":
            del data["dmc"]
        if self.method != "rllib_ppo":
            del data["rllib"]
        if self.method in ("dmc", "rllib_ppo"):
            del data["expert"]
        return data


def _allowed(meta: Mapping[str, Any]) -> str:
    if meta["choices"]:
        return ", ".join(map(str, meta["choices"]))
    kind = meta["kind"].__name__ if isinstance(meta["kind"], type) else "value"
    if meta["items"] is not None:
        sizes = f" in {meta['item_range'][0]}..{meta['item_range'][1]}" if meta["item_range"] else ""
        most = f", at most {meta['max_items']} of them" if meta["max_items"] else ""
        return f"a list of {meta['items'].__name__}{sizes}{most}"
    if meta["low"] is not None and meta["high"] is not None:
        return f"{kind} in {meta['low']}..{meta['high']}"
    if meta["low"] is not None:
        return f"{kind} >= {meta['low']}"
    return kind


def _check_value(where: str, value: Any, meta: Mapping[str, Any]) -> Any:
    """The value converted to its field type, or a one-line ValueError.

    A float field takes an int (``1`` is ``1.0``), an int field a whole float (``1e6``), and neither a
    string: ``'0.1'``, quoted in YAML, is text. (Unquoted ``3e-4`` is a number: :func:`parse_yaml` reads
    floats as YAML 1.2 does.)
    """
    kind = meta["kind"]
    if kind is float and not isinstance(value, bool) and isinstance(value, int):
        value = float(value)
    if kind is int and isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        value = int(value)  # 1e6 steps (a float in YAML 1.2) is a whole number
    bad = isinstance(value, bool) != (kind is bool) or not isinstance(value, kind)
    if not bad and meta["choices"]:
        bad = value not in meta["choices"]
    if not bad and meta["items"] is not None:
        bad = not all(isinstance(v, meta["items"]) and not isinstance(v, bool) for v in value) or not value
        if not bad and meta["item_range"]:
            bad = not all(meta["item_range"][0] <= v <= meta["item_range"][1] for v in value)
        if not bad and meta["max_items"]:
            bad = len(value) > meta["max_items"]
    if not bad and kind is float:
        bad = not math.isfinite(value)  # nan passes every comparison below; inf is no setting
    if not bad and meta["low"] is not None and kind in (int, float):
        bad = value < meta["low"] or (meta["high"] is not None and value > meta["high"])
    if bad:
        raise ValueError(f"{where} = {value!r} is not allowed; allowed: {_allowed(meta)}")
    return value


def _section(f: dataclasses.Field) -> type | None:
    """The dataclass of a nested section field, or None for a plain value."""
    factory = f.default_factory
    return factory if isinstance(factory, type) and dataclasses.is_dataclass(factory) else None


def _build(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, Mapping):
        raise ValueError(f"{where or 'config'} must be a mapping of keys; got {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for key, value in data.items():
        path = f"{where}.{key}" if where else str(key)
        if key not in fields:
            raise ValueError(f"unknown config key {path!r}; allowed keys: {', '.join(fields)}")
        section = _section(fields[key])
        if section is not None:
            values[key] = _build(section, value, path)
        else:
            values[key] = _check_value(path, value, fields[key].metadata)
    return cls(**values)


def config_from_dict(data: Mapping[str, Any]) -> TrainConfig:
    """Validate a plain dict (parsed YAML) into a :class:`TrainConfig`."""
    config = _build(TrainConfig, data, "")
    _check_cross(config)
    return config


def _check_cross(config: TrainConfig) -> None:
    """Checks that need the live package: rules and agent names."""
    if "num_players" in config.env.rules:
        raise ValueError("env.rules.num_players is not a rules override: set env.num_players instead")
    if not config.run.out_dir.strip():  # '' would be the current folder: a run's outputs among anything there
        raise ValueError("run.out_dir is empty; allowed: a folder path, e.g. runs/newmarket_ppo")
    try:
        make_rules(config.env.variant, config.env.num_players, **config.env.rules)
    except ValueError as err:
        raise ValueError(f"env: {err}") from None
    if config.run.vec_env != "batch" and config.run.n_envs > MAX_SINGLE_ENVS:
        raise ValueError(
            f"run.n_envs = {config.run.n_envs} is not allowed with run.vec_env = "
            f"{config.run.vec_env}; allowed: 1..{MAX_SINGLE_ENVS} (more only with vec_env: batch)"
        )
    try:  # the tournament's check: an address needs backend ray, and ray needs the ray extra
        check_backend(config.eval.backend, config.eval.address or None)
    except ValueError as err:
        raise ValueError(f"eval: {err}") from None
    known = available_agents()
    if config.pretrain.teacher and config.pretrain.teacher not in known:
        raise ValueError(f"pretrain.teacher has unknown agent {config.pretrain.teacher!r}; allowed: {', '.join(known)}")
    for section, names in (
        ("opponents.baselines", config.opponents.baselines),
        ("eval.opponents", config.eval.opponents),
    ):
        for name in names:
            if name not in known:
                raise ValueError(f"{section} has unknown agent {name!r}; allowed: {', '.join(known)}")
    if config.method == "expert_iteration":
        _check_expert(config, known)
    if config.method == "dmc":
        _check_dmc(config)
    if config.method == "rllib_ppo":
        _check_rllib(config)
    if config.ppo.n_steps * config.run.n_envs > MAX_ROLLOUT:
        raise ValueError(
            f"ppo.n_steps * run.n_envs = {config.ppo.n_steps * config.run.n_envs} is not allowed; "
            f"allowed: at most {MAX_ROLLOUT} (the rollout buffer would not fit in memory)"
        )
    if config.ppo.batch_size > config.ppo.n_steps * config.run.n_envs:
        raise ValueError(
            f"ppo.batch_size = {config.ppo.batch_size} is not allowed; allowed: at most "
            f"ppo.n_steps * run.n_envs = {config.ppo.n_steps * config.run.n_envs}"
        )
    if config.ppo.features == "planes" and config.ppo.activation != "relu":
        raise ValueError(
            f"ppo.activation = {config.ppo.activation!r} is not allowed with ppo.features = 'planes'; allowed: "
            "relu (the extractor's own activation: the trained network is then saved exactly as an agent file)"
        )


def _table_baselines() -> dict[str, int]:
    """The baselines the compiled tables of expert iteration and DMC can seat."""
    # late: agents.compiled loads the compiled engine, which only the methods playing compiled tables need
    from newmarket_env.agents.compiled import POLICY_CODES

    return POLICY_CODES


def _check_expert(config: TrainConfig, known: list[str]) -> None:
    """The expert-iteration keys that need the live package (agents, backend)."""
    seatable = _table_baselines()
    if config.pretrain.teacher:
        raise ValueError("pretrain.teacher is for method ppo; expert_iteration starts from expert.first_states")
    if config.expert.first_states not in seatable:
        raise ValueError(
            f"expert.first_states = {config.expert.first_states!r} is not allowed; allowed: {', '.join(seatable)}"
        )
    for name in config.opponents.baselines:
        if name not in seatable and config.expert.baseline_fraction > 0:
            raise ValueError(
                f"opponents.baselines has {name!r}, which expert iteration cannot seat at its "
                f"tables; allowed: {', '.join(seatable)} (or expert.baseline_fraction: 0)"
            )
    if config.expert.racing_worlds == 1:
        raise ValueError("expert.racing_worlds = 1 is not allowed; allowed: 0 (no race) or an int >= 2")
    if config.expert.init:
        _check_init(config)
    try:
        check_backend(config.expert.backend, config.expert.address or None)
    except ValueError as err:
        raise ValueError(f"expert: {err}") from None


def _check_dmc(config: TrainConfig) -> None:
    """The Deep Monte-Carlo keys that need the live package (the baselines its compiled tables can seat)."""
    seatable = _table_baselines()
    if config.pretrain.teacher:
        raise ValueError("pretrain.teacher is for method ppo; dmc starts from a fresh network")
    for name in config.opponents.baselines:
        if name not in seatable and config.dmc.baseline_fraction > 0:
            raise ValueError(
                f"opponents.baselines has {name!r}, which dmc cannot seat at its tables; "
                f"allowed: {', '.join(seatable)} (or dmc.baseline_fraction: 0)"
            )


def _check_rllib(config: TrainConfig) -> None:
    """The RLlib keys that depend on each other, and the ray extra."""
    if config.pretrain.teacher:
        raise ValueError("pretrain.teacher is for method ppo; rllib_ppo starts from a fresh network")
    if config.rllib.minibatch_size > config.rllib.batch_size:
        raise ValueError(
            f"rllib.minibatch_size = {config.rllib.minibatch_size} is not allowed; allowed: at most "
            f"rllib.batch_size = {config.rllib.batch_size}"
        )
    if importlib.util.find_spec("ray") is None:
        raise ValueError("method rllib_ppo needs Ray RLlib; install it with pip install 'newmarket-env[ray]'")


def _check_init(config: TrainConfig) -> None:
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


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a YAML config file (at most :data:`MAX_CONFIG_BYTES`)."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"config file {str(path)!r} does not exist")
    return config_from_dict(read_yaml(path) or {})


def read_yaml(path: Path, what: str = "config file") -> Any:
    """The YAML document of file ``path``, read to at most :data:`MAX_CONFIG_BYTES` (a file that is larger, or
    never ends, is refused when the limit is reached); a one-line ``ValueError`` naming ``what`` and why."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as err:
        raise ValueError(f"{what} {str(path)!r} cannot be read ({err.strerror or err})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(
            f"{what} {str(path)!r} is larger than {MAX_CONFIG_BYTES} bytes, the limit (a training config is a few kB)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{what} {str(path)!r} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    return parse_yaml(text, str(path))


def parse_yaml(text: str, where: str) -> Any:
    """``text`` as YAML (the safe loader: plain data only), with floats read as YAML 1.2 reads them: ``3e-4``
    and ``1e5`` are numbers (PyYAML's YAML 1.1 takes them for text), and a quoted ``'0.1'`` stays text.
    A one-line ``ValueError`` when it is not YAML.

    >>> parse_yaml("a: 3e-4\\nb: '0.1'\\nc: 1.5\\nd: 7", "x")
    {'a': 0.0003, 'b': '0.1', 'c': 1.5, 'd': 7}
    """
    import yaml  # optional: PyYAML comes with the train extra, and only config files need it

    try:
        return yaml.load(text, Loader=_yaml_loader())  # a SafeLoader subclass: plain data only, no code
    except yaml.YAMLError as err:
        raise ValueError(f"{where}: not valid YAML ({' '.join(str(err).split())})") from None
    except RecursionError:  # the parser nests as deep as the text does
        raise ValueError(f"{where}: nests too deep to be a config") from None


@functools.cache
def _yaml_loader() -> type:
    import yaml  # optional: PyYAML comes with the train extra, and only config files need it

    class Loader(yaml.SafeLoader):
        """The safe loader, with YAML 1.2's floats (an exponent without a dot: ``3e-4``)."""

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
        list("-+0123456789."),
    )
    return Loader


def describe(cls: type = TrainConfig, prefix: str = "") -> list[str]:
    """One line per config key: name, default, allowed values, doc."""
    lines = []
    for f in dataclasses.fields(cls):
        section = _section(f)
        if section is not None:
            lines.append(f"{prefix}{f.name}:  # {f.metadata['doc']}")
            lines.extend(describe(section, prefix + "  "))
            continue
        default = f.default_factory() if callable(f.default_factory) else f.default
        lines.append(f"{prefix}{f.name}: {default!r}  # {f.metadata['doc']} (allowed: {_allowed(f.metadata)})")
    return lines
