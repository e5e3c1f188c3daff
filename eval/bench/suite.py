"""The whole benchmark: configuration, the ordered list of workloads, results with ratios and targets."""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field
from typing import Any

from newmarket_env import env
from newmarket_env.eval.bench.extras import EXTRAS, ON_REQUEST
from newmarket_env.eval.bench.memory import MemoryFigure, memory_per_env
from newmarket_env.eval.bench.ours import PLAYERS, aec_player, engine_note, engine_player
from newmarket_env.eval.bench.peers import PEER_NAMES, PEERS, UNSEEDED, classic_env_maker
from newmarket_env.eval.bench.scaling import WALL_CLOCK_ROWS, scaling_targets
from newmarket_env.eval.bench.timing import CLOCKS, Measurement, Target, measure_rounds, paired_ratio
from newmarket_env.eval.bench.training import training_targets
from newmarket_env.game.rules import VARIANTS

REFERENCE_PEERS = PEER_NAMES  # ratio columns of the table: one for every peer


@dataclass
class BenchConfig:
    """What to measure and for how long."""

    seconds: float = 2.0  # timed play per repeat of each workload
    repeats: int = 5  # repeats per workload; the median is reported
    presets: tuple[str, ...] = tuple(VARIANTS)  # variants measured (engine and AEC, 4 players)
    planes: bool = True  # also measure the AEC env with observation="planes"
    reference: bool = True  # also measure newmarket on the pure-Python reference engine
    extras: bool = True  # single-agent view and tournament, where those modules exist
    peers: tuple[str, ...] = PEER_NAMES
    memory_envs: int = 50  # envs built for the memory figure (0: skip)
    seed: int = 0  # first session seed; each session takes the next one
    clock: str = "cpu"  # "cpu": CPU time of this process; "wall": elapsed time
    # measure only the rows of these names (empty: every row of the settings above); rows of
    # extras.ON_REQUEST (the naive MaskablePPO run) are measured only when named here
    rows: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = [p for p in self.presets if p not in VARIANTS]
        if unknown:
            raise ValueError(f"unknown preset {unknown[0]!r}; allowed: {', '.join(VARIANTS)}")
        bad_peers = [p for p in self.peers if p not in PEERS]
        if bad_peers:
            raise ValueError(f"unknown peer {bad_peers[0]!r}; allowed: {', '.join(PEERS)}")
        if self.clock not in CLOCKS:
            raise ValueError(f"clock={self.clock!r} is unknown; allowed: {', '.join(CLOCKS)}")
        if self.seconds <= 0 or self.repeats < 1 or self.memory_envs < 0:
            raise ValueError("seconds must be > 0, repeats >= 1 and memory_envs >= 0")
        if self.rows:  # the rows these settings measure (a copy without rows: no second check), and ON_REQUEST
            known = [name for name, *_ in _workloads(dataclasses.replace(self, rows=()))] + list(ON_REQUEST)
            missing = [name for name in self.rows if name not in known]
            if missing:
                raise ValueError(f"unknown row {missing[0]!r}; allowed: {', '.join(known)}")


@dataclass
class BenchResult:
    """Every measurement of one run, in table order."""

    config: BenchConfig
    rows: list[Measurement] = field(default_factory=list)
    memory: list[MemoryFigure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def row(self, name: str) -> Measurement | None:
        return next((r for r in self.rows if r.name == name), None)

    def ratio(self, row: Measurement, peer: str) -> float | None:
        """Median over rounds of ``row``'s decisions/s over the peer's (None: peer not measured)."""
        other = self.row(peer)
        return None if other is None else paired_ratio(row, other)

    def targets(self) -> list[Target]:
        """The goals of issue 6 that this run can check."""
        found = []
        for suffix in ("", UNSEEDED):  # each side reset with a seed, then each side reset without one
            aec = self.row(f"aec newmarket flat{suffix}")
            for peer in (f"texas_holdem_v4{suffix}", f"texas_holdem_v4 4p{suffix}"):
                if aec and (holdem := self.row(peer)):
                    value = paired_ratio(aec, holdem)
                    found.append(Target(f"AEC newmarket 4p flat{suffix} / {peer}", value, ">= 10x", value >= 10))
        engine = self.row("engine newmarket")
        if engine and (hearts := self.row("hearts")):
            value = paired_ratio(engine, hearts)
            found.append(Target("engine newmarket / OpenSpiel hearts (no tensors)", value, ">= 1x", value >= 1))
        for budget in (8, 64):
            fast, slow = self.row(f"search budget {budget}"), self.row(f"search budget {budget} python")
            if fast and slow:
                value = paired_ratio(fast, slow)
                found.append(Target(f"search budget {budget}: compiled / python", value, ">= 20x", value >= 20))
        batch = self.row("batch newmarket flat")
        for peer, goal in (("hearts", 3), ("hearts+tensor", 100)):
            if batch and (peer_row := self.row(peer)):
                value = paired_ratio(batch, peer_row)
                found.append(Target(f"batch newmarket 4p flat / OpenSpiel {peer}", value, f">= {goal}x", value >= goal))
        for figure in self.memory:
            if figure.name.startswith("newmarket"):
                mb = figure.bytes_per_env / 1e6
                found.append(Target(f"memory per env, {figure.name}", mb, "< 1 MB", mb < 1))

        found += training_targets(self)  # the vector env's rate and MaskablePPO's batch / SingleAgentEnv ratio
        found += scaling_targets(self)  # threads, sparse input, RLlib's samplers, DMC's Ray actors
        return found

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: config, rows with their ratios, memory, targets, notes."""
        rows = []
        for r in self.rows:
            ratios = {peer: self.ratio(r, peer) for peer in REFERENCE_PEERS if self.row(peer)}
            rows.append({**asdict(r), "ratios": ratios})
        return {
            "config": asdict(self.config),
            "rows": rows,
            "memory": [asdict(m) for m in self.memory],
            "targets": [asdict(t) for t in self.targets()],
            "notes": self.notes,
        }


def run_benchmark(config: BenchConfig | None = None, progress=None) -> BenchResult:
    """Measure every workload of ``config`` (default: ``BenchConfig()``) in this process; ``progress(text)`` is told
    what runs next."""
    config = BenchConfig() if config is None else config
    result = BenchResult(config)
    ready = {}
    for name, group, make, note in _workloads(config):
        if config.rows and name not in config.rows:
            continue
        player, why = make()
        if player is None:
            result.notes.append(f"{name}: {why}")
        else:
            ready[name] = (group, player, why or note)
    clocks = {name: "wall" for name in WALL_CLOCK_ROWS if name in ready}  # several threads: CPU time adds them up
    result.rows = measure_rounds(ready, config.seconds, config.repeats, config.seed, config.clock, progress, clocks)
    if config.memory_envs:
        result.memory = _memory(config)
    return result


def _workloads(config: BenchConfig):
    """(row name, group, factory returning (player or None, note), note) in table order."""
    note = f"{PLAYERS} players, {engine_note()}"
    for preset in config.presets:
        yield f"engine {preset}", "engine", _ready(engine_player, preset), note
    if config.reference and "newmarket" in config.presets:
        yield (
            "engine newmarket python",
            "engine",
            _ready(engine_player, "newmarket", PLAYERS, True, "python"),
            f"{PLAYERS} players, the pure-Python reference engine",
        )
    encodings = ("flat", "planes") if config.planes else ("flat",)
    for encoding in encodings:
        for preset in config.presets:
            yield f"aec {preset} {encoding}", "aec", _ready(aec_player, preset, encoding), note
        if encoding == "flat" and "newmarket" in config.presets:
            yield (
                f"aec newmarket flat{UNSEEDED}",
                "aec",
                _ready(aec_player, "newmarket", "flat", PLAYERS, "auto", False),
                f"{note}; reset() without a seed, as a training loop resets",
            )
        if encoding == "flat" and config.reference and "newmarket" in config.presets:
            yield (
                "aec newmarket flat python",
                "aec",
                _ready(aec_player, "newmarket", "flat", PLAYERS, "python"),
                f"{PLAYERS} players, the pure-Python reference engine",
            )
    if config.extras:
        for name, (group, factory) in EXTRAS.items():
            yield name, group, factory, ""
    for name, (group, factory) in ON_REQUEST.items():
        if name in config.rows:
            yield name, group, factory, ""
    for peer in config.peers:
        yield peer, "peer", PEERS[peer], ""


def _ready(build, *args):
    return lambda: (build(*args), "")


def _memory(config: BenchConfig) -> list[MemoryFigure]:
    figures = [
        memory_per_env(f"newmarket {PLAYERS}p flat", lambda: env(num_players=PLAYERS), config.memory_envs),
        memory_per_env(
            f"newmarket {PLAYERS}p planes", lambda: env(num_players=PLAYERS, observation="planes"), config.memory_envs
        ),
    ]
    if "texas_holdem_v4" in config.peers:
        try:
            maker = classic_env_maker("texas_holdem_v4")
        except ImportError:
            return figures
        figures.append(memory_per_env("texas_holdem_v4", maker, config.memory_envs))
    return figures
