"""Training configs: YAML files validated on load into :class:`TrainConfig`.

A config holds the sections every method shares (``env``, ``opponents``, ``run``, ``eval``) and the
sections of its ``method`` (:mod:`newmarket_env.train.methods`: ``ppo`` reads ``pretrain`` and ``ppo``,
``expert_iteration`` reads ``expert``, ...). Each field carries its doc, and its allowed values or range
(:func:`spec`, which a method's own sections use too); an unknown key, a bad value, or a setting in
another method's section raises ``ValueError`` with ONE line naming the key and the allowed values.
``python -m newmarket_env.train --describe`` prints every field.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from newmarket_env.agents import available_agents
from newmarket_env.envs.learner_options import SEAT_MODES, LearnerSeat
from newmarket_env.execution.backends import BACKENDS, check_backend
from newmarket_env.game.rules import VARIANTS, make_rules
from newmarket_env.train.methods import SHARED_SECTIONS, available_methods, get_method, section_owners

EVAL_BACKENDS = BACKENDS
VEC_ENVS = ("batch", "dummy", "subproc")
#: Most envs of the per-object kinds (dummy, subproc); batch tables are far cheaper.
MAX_SINGLE_ENVS = 256
ACTIVATIONS = ("tanh", "relu")
#: The widest hidden layer and the most hidden layers a config may ask for.
MAX_LAYER_WIDTH, MAX_LAYERS = 4096, 16
#: What the PPO networks read (``ppo.features``): the flat vector, or the card planes (train/features.py).
FEATURES = ("flat", "planes")
#: Where torch methods compute: auto = CUDA when torch finds a device, else the CPU.
DEVICES = ("auto", "cpu", "cuda")
#: How the first layer of a torch network reads the flat observation (newmarket_env/nn/sparse_input.py).
NETWORK_INPUTS = ("sparse", "dense")


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


def layer_sizes(default: list[int], doc: str) -> Any:
    """A field of hidden layer sizes: ints in 1..MAX_LAYER_WIDTH, at most MAX_LAYERS of them (every method's
    network takes the same bounds; what fits in memory is train/memory.py's check)."""
    return spec(default, doc, list, items=int, item_range=(1, MAX_LAYER_WIDTH), max_items=MAX_LAYERS)


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
class NetworkSection:
    """How the torch networks run (every method); what they compute is the same either way."""

    input: str = spec(
        "sparse",
        "first layer: sparse (an index-sum over the ~62 nonzero inputs of 936, compiled loops on the CPU) or "
        "dense (torch.nn.Linear's product); the same weights, outputs and saved files",
        str,
        choices=NETWORK_INPUTS,
    )


@dataclass
class RunSection:
    """Budget, processes, seeds and where outputs go."""

    total_steps: int = spec(
        1_000_000, "steps to train, in the method's unit (ppo: learner decisions)", int, low=1, high=MAX_STEPS
    )
    n_envs: int = spec(8, "parallel envs (tables of the batch with vec_env: batch)", int, low=1, high=4096)
    vec_env: str = spec(
        "batch",
        "batch = compiled tables in one object (vector_env; needs the compiled engine, "
        "else dummy is used), dummy = SingleAgentEnv objects in this process, "
        "subproc = one process each",
        str,
        choices=VEC_ENVS,
    )
    seed: int = spec(
        0, "seed of the run: every draw of the method and its tables derives from it", int, low=0, high=MAX_SEED
    )
    out_dir: str = spec("runs/newmarket_ppo", "run folder: logs, checkpoints, eval CSV, curve, final agent", str)
    checkpoint_every: int = spec(
        100_000, "steps between checkpoints (for --resume), in run.total_steps' unit", int, low=1, high=MAX_STEPS
    )
    max_minutes: float = spec(
        0.0,
        "stop training after this many minutes (then save and evaluate); 0 = no limit",
        float,
        low=0.0,
        high=525_600.0,
    )
    torch_threads: int = spec(1, "torch CPU threads (and numpy's BLAS threads)", int, low=1, high=64)
    threads: int = spec(
        0,
        "threads stepping the compiled tables of each batch (ppo's vector env, dmc's actors, rllib_ppo's batch "
        "sampler); 0 = the machine's cores; the sessions do not depend on it",
        int,
        low=0,
        high=1024,
    )
    device: str = spec(
        "auto", "where torch methods compute: auto (CUDA when present, else the CPU), cpu or cuda", str, choices=DEVICES
    )
    progress_bar: bool = spec(
        True,
        "print progress: a line per evaluation or per minute (steps, steps/s, the latest evaluation); "
        "false (or --no-progress) prints only the run's start and end",
        bool,
    )
    verbose: bool = spec(
        False,
        "also print each iteration's figures, SB3's tables (ppo) and a progress bar (or --verbose)",
        bool,
    )


@dataclass
class EvalSection:
    """Periodic duplicate evaluation against baselines (seats rotated)."""

    every: int = spec(
        50_000, "steps between evaluations (and one before training); 0 = none", int, low=0, high=MAX_STEPS
    )
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


def _section_field(cls: type) -> Any:
    return field(default_factory=cls, metadata={"doc": cls.__doc__})


@dataclass
class TrainConfig:
    """A whole training run (the YAML file): the shared sections, and ``sections``, the method's own.

    A method's section reads as an attribute (``config.ppo``, ``config.expert``, ...); ``sections`` holds
    every section of ``method`` (defaults where the file gave none) and no other.
    """

    name: str = spec("newmarket_ppo", "run name (used in the saved agent's metadata)", str)
    method: str = spec(
        "ppo",
        "the training method, whose sections the config may hold: ppo (MaskablePPO: sections pretrain and "
        "ppo), expert_iteration (search distillation: section expert), dmc (Deep Monte-Carlo: section dmc), "
        "rllib_ppo (Ray RLlib's PPO in self-play: section rllib), or an installed package's",
        str,
    )
    env: EnvSection = _section_field(EnvSection)
    opponents: OpponentSection = _section_field(OpponentSection)
    network: NetworkSection = _section_field(NetworkSection)
    run: RunSection = _section_field(RunSection)
    eval: EvalSection = _section_field(EvalSection)
    sections: dict[str, Any] = field(default_factory=dict, metadata={"doc": "the method's own sections"})

    def __post_init__(self) -> None:
        for key, cls in get_method(self.method).sections.items():
            self.sections.setdefault(key, cls())

    def __getattr__(self, name: str) -> Any:
        # only reached for names that are not fields: a section of the method, by its name
        sections = self.__dict__.get("sections", {})
        if name in sections:
            return sections[name]
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"a config of method {self.__dict__.get('method')!r} has no section {name!r}; "
            f"its sections: {', '.join([*SHARED_SECTIONS, *sections])}"
        )

    def replaced(self, **changes: Any) -> TrainConfig:
        """A copy with ``changes``: fields (``run=...``) or sections of the method (``ppo=...``) by name."""
        sections = {key: changes.pop(key) if key in changes else value for key, value in self.sections.items()}
        return dataclasses.replace(self, sections=sections, **changes)

    def learner_seat(self) -> LearnerSeat:
        """The learner's seat at every training table: sections env and opponents as one spec."""
        return LearnerSeat(
            opponents=self.opponents.baselines,
            snapshot_fraction=self.opponents.snapshot_fraction,
            seat=self.env.seat,
            reward_scale=self.env.reward_scale,
            players=self.env.num_players,
        )

    def table_keywords(self) -> dict[str, Any]:
        """The keywords a training table is built with (``SingleAgentEnv``, ``newmarket_env.vector_env``):
        the game (variant, players, rules overrides) and the learner's seat."""
        env = self.env
        return dict(variant=env.variant, num_players=env.num_players, learner_seat=self.learner_seat(), **env.rules)

    def to_dict(self) -> dict[str, Any]:
        """The config as plain data (what ``config.yaml`` holds): the shared sections and the method's own."""
        data: dict[str, Any] = {"name": self.name, "method": self.method}
        data["env"] = dataclasses.asdict(self.env)
        data["opponents"] = dataclasses.asdict(self.opponents)
        data.update({key: dataclasses.asdict(value) for key, value in self.sections.items()})
        data["network"] = dataclasses.asdict(self.network)
        data["run"] = dataclasses.asdict(self.run)
        data["eval"] = dataclasses.asdict(self.eval)
        return data


#: The sections every config has, by name (the method's own come from ``Method.sections``).
_SHARED_SECTION_CLASSES: dict[str, type] = {
    "env": EnvSection,
    "opponents": OpponentSection,
    "network": NetworkSection,
    "run": RunSection,
    "eval": EvalSection,
}


def comparable(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """A run's ``config.yaml`` (``before``) as :meth:`TrainConfig.to_dict` writes it now (``after``): ``method``
    filled in (older PPO runs wrote none) and the sections ``after`` does not hold left out (older runs wrote
    pretrain and ppo for every method), so ``--resume`` compares like with like. A section, or a key of a
    section, that ``before`` lacks (added after the run began, with a default that keeps the old behaviour)
    counts as written at its default: the run resumes where the config keeps it there, and is refused, naming
    the key, where the config sets it otherwise."""
    method = get_method(str(after.get("method", "ppo")))
    classes = {**_SHARED_SECTION_CLASSES, **method.sections}
    filled: dict[str, Any] = {"method": "ppo"}
    for key, now in after.items():
        cls = classes.get(key)
        if key not in before and cls is None:
            continue
        then = before.get(key, {} if cls is not None else None)
        if cls is not None and isinstance(then, Mapping) and isinstance(now, Mapping):
            defaults = dataclasses.asdict(cls())
            then = {**{k: v for k, v in defaults.items() if k not in then and k in now}, **then}
        filled[key] = then
    return filled


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


#: The top-level keys every config may hold, in --describe's order (the method's sections follow).
_SHARED_KEYS = ("name", "method", *SHARED_SECTIONS)


def config_from_dict(data: Mapping[str, Any]) -> TrainConfig:
    """Validate a plain dict (parsed YAML) into a :class:`TrainConfig`."""
    if not isinstance(data, Mapping):
        raise ValueError(f"config must be a mapping of keys; got {data!r}")
    name = data.get("method", "ppo")
    if not isinstance(name, str):
        raise ValueError(f"method = {name!r} is not allowed; allowed: {', '.join(available_methods())}")
    method = get_method(name)  # a one-line ValueError naming the available methods
    owners = section_owners()
    top = {f.name: f for f in dataclasses.fields(TrainConfig)}
    shared: dict[str, Any] = {}
    own: dict[str, Any] = {}
    for key, value in data.items():
        if key in _SHARED_KEYS:
            section = _section(top[key])
            shared[key] = _build(section, value, key) if section else _check_value(key, value, top[key].metadata)
        elif key in owners:
            owner = get_method(owners[key])
            built = _build(owner.sections[key], value, key)
            if owner.name == method.name:
                own[key] = built
            else:
                _refuse_foreign(key, built, owner.name, method.name)
        else:
            allowed = [*_SHARED_KEYS, *owners]
            raise ValueError(f"unknown config key {key!r}; allowed keys: {', '.join(allowed)}")
    config = TrainConfig(**shared, sections=own)
    _check_cross(config)
    method.check(config)
    return config


def _refuse_foreign(key: str, section: Any, owner: str, method: str) -> None:
    """A section of another method is accepted only at its defaults (older run folders' config.yaml hold
    some): a setting there would be silently unused, so it is refused, naming whose it is."""
    default = type(section)()
    for f in dataclasses.fields(section):
        if getattr(section, f.name) != getattr(default, f.name):
            own = ", ".join(get_method(method).sections) or "none"
            raise ValueError(
                f"{key}.{f.name} is for method {owner}; method {method} reads its own sections ({own}) "
                f"besides {', '.join(SHARED_SECTIONS)}"
            )


def _check_cross(config: TrainConfig) -> None:
    """Checks of the shared sections that need the live package: rules and agent names."""
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
    check_agents(config.opponents.baselines, "opponents.baselines")
    check_agents(config.eval.opponents, "eval.opponents")


def check_agents(names: list[str] | str, where: str) -> None:
    """Each name is a registered agent; else a one-line ``ValueError`` naming ``where`` and the allowed ones."""
    known = available_agents()
    for name in [names] if isinstance(names, str) else names:
        if name not in known:
            raise ValueError(f"{where} has unknown agent {name!r}; allowed: {', '.join(known)}")


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


def describe_section(cls: type, prefix: str = "") -> list[str]:
    """One line per key of a section dataclass (nested sections indented): name, default, allowed values, doc."""
    lines = []
    for f in dataclasses.fields(cls):
        section = _section(f)
        if section is not None:
            lines.append(f"{prefix}{f.name}:  # {f.metadata['doc']}")
            lines.extend(describe_section(section, prefix + "  "))
            continue
        if f.name == "sections":
            continue
        default = f.default_factory() if callable(f.default_factory) else f.default
        allowed = ", ".join(available_methods()) if cls is TrainConfig and f.name == "method" else _allowed(f.metadata)
        lines.append(f"{prefix}{f.name}: {default!r}  # {f.metadata['doc']} (allowed: {allowed})")
    return lines


def section_keys(cls: type) -> list[dict[str, Any]]:
    """The keys of a section dataclass as rows (key, default, allowed, doc): the docs' tables."""
    rows = []
    for f in dataclasses.fields(cls):
        default = f.default_factory() if callable(f.default_factory) else f.default
        rows.append({"key": f.name, "default": default, "allowed": _allowed(f.metadata), "doc": f.metadata["doc"]})
    return rows


def describe() -> list[str]:
    """One line per config key: the shared ones, then each available method's sections."""
    lines = describe_section(TrainConfig)
    owners = section_owners()
    for key, owner in owners.items():
        cls = get_method(owner).sections[key]
        lines.append(f"{key}:  # {cls.__doc__}")
        lines.extend(describe_section(cls, "  "))
    return lines
