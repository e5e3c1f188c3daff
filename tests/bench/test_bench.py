"""Smoke tests of the speed benchmark at a tiny size: it runs and reports the expected rows (no timing thresholds)."""

import importlib.util
import json

import pytest

from newmarket_env import raw_env
from newmarket_env.envs.wrapper import OrderEnforcing
from newmarket_env.eval.bench import BenchConfig, run_benchmark
from newmarket_env.eval.bench.cli import build_parser, main
from newmarket_env.eval.bench.drivers import aec_random_player
from newmarket_env.eval.bench.report import markdown, rate_rows
from newmarket_env.eval.bench.suite import BenchResult
from newmarket_env.eval.bench.timing import Measurement, measure

TINY = dict(seconds=0.001, repeats=1, memory_envs=2)
# The packages each peer workload needs (the bench extra); where they are installed the peer must be
# measured, so a test cannot pass with every peer skipped.
PEER_PACKAGES = {
    "texas_holdem_v4": ("rlcard", "pygame"),
    "texas_holdem_v4 4p": ("rlcard", "pygame"),
    "texas_holdem_v4 unseeded": ("rlcard", "pygame"),
    "texas_holdem_v4 4p unseeded": ("rlcard", "pygame"),
    "connect_four_v3": ("pygame",),
    "hearts": ("pyspiel",),
    "hearts+tensor": ("pyspiel",),
    "batch newmarket flat": ("newmarket_env.engine._batch",),
    "search budget 8": ("newmarket_env.agents._search",),
    "search budget 64": ("newmarket_env.agents._search",),
    "guided_search budget 8": ("newmarket_env.agents._search",),
    "guided_search budget 2 cutoff 1": ("newmarket_env.agents._search",),
    "vector_env newmarket control": ("newmarket_env.engine._batch",),
    "ppo newmarket batch": ("newmarket_env.engine._batch", "sb3_contrib"),
    "ppo newmarket single_agent": ("sb3_contrib",),
    "ppo newmarket tutorial": ("newmarket_env.engine._fast", "sb3_contrib"),
}


def installed(peer: str) -> bool:
    return all(importlib.util.find_spec(package) is not None for package in PEER_PACKAGES.get(peer, ()))


def test_every_workload_gives_a_row_or_a_note():
    config = BenchConfig(presets=("newmarket", "newbury"), **TINY)
    result = run_benchmark(config)
    names = [r.name for r in result.rows]
    assert names[:9] == [
        "engine newmarket",
        "engine newbury",
        "engine newmarket python",
        "aec newmarket flat",
        "aec newbury flat",
        "aec newmarket flat unseeded",
        "aec newmarket flat python",
        "aec newmarket planes",
        "aec newbury planes",
    ]
    expected = [
        "batch newmarket flat",
        "search budget 8",
        "search budget 8 python",
        "search budget 64",
        "search budget 64 python",
        "guided_search budget 8",
        "guided_search budget 2 cutoff 1",
        "single_agent newmarket",
        "vector_env newmarket control",
        "ppo newmarket batch",
        "ppo newmarket single_agent",
        "ppo newmarket tutorial",
        "vector_env newmarket control, 1 thread",
        "vector_env newmarket control, 2 threads",
        "ppo newmarket batch sparse",
        "ppo newmarket batch dense",
        "dmc newmarket sparse",
        "dmc newmarket dense",
        "tournament baselines",
        "texas_holdem_v4",
        "texas_holdem_v4 4p",
        "texas_holdem_v4 unseeded",
        "texas_holdem_v4 4p unseeded",
        "connect_four_v3",
        "hearts",
        "hearts+tensor",
    ]
    noted = [note.split(":")[0] for note in result.notes]
    assert sorted(names[9:] + noted) == sorted(expected)  # measured, or skipped with a note saying why
    # Skipped only for a missing package: ours always run, and a peer whose packages import is measured.
    assert [name for name in expected if installed(name)] == [name for name in expected if name in names]
    assert all(note.split(": ", 1)[1].startswith("skipped:") for note in result.notes if note.split(":")[0] in expected)
    for row in result.rows:
        assert row.decisions_per_s > 0 and row.sessions_per_s > 0 and row.decisions_per_session > 0
    assert [m.name for m in result.memory][:2] == ["newmarket 4p flat", "newmarket 4p planes"]
    assert all(m.bytes_per_env > 0 for m in result.memory)


def test_targets_and_tables_are_built_from_the_same_run():
    result = run_benchmark(
        BenchConfig(
            presets=("newmarket",), planes=False, reference=False, extras=False, peers=("connect_four_v3",), **TINY
        )
    )
    headers, rows = rate_rows(result)
    names = [r[0] for r in rows]
    assert ("connect_four_v3" in names) == installed("connect_four_v3")  # measured where pygame is installed
    if installed("connect_four_v3"):
        assert headers[-1] == "x connect4" and rows[-1][-1] == "1.00"  # the peer against itself
    assert names[:3] == ["engine newmarket", "aec newmarket flat", "aec newmarket flat unseeded"]
    assert [t.goal for t in result.targets()] == ["< 1 MB", "< 1 MB"]  # no hold'em or hearts measured here
    assert "| workload |" in markdown(result)
    json.dumps(result.to_dict())


def test_cli_prints_the_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code = main(
        [
            "--repeats",
            "1",
            "--seconds",
            "0.001",
            "--presets",
            "michigan",
            "--peers",
            "--no-planes",
            "--no-extras",
            "--memory-envs",
            "1",
            "--clock",
            "wall",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    assert "engine michigan" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert [r["name"] for r in data["rows"]] == ["engine michigan", "aec michigan flat"]  # reference rows: newmarket
    assert "compiled engine" in data["rows"][0]["note"] or "python engine" in data["rows"][0]["note"]


def test_bad_options_are_refused():
    with pytest.raises(SystemExit) as done:
        main(["--repeats", "0"])
    assert done.value.code == 2
    with pytest.raises(ValueError, match="unknown preset"):
        BenchConfig(presets=("bridge",))
    with pytest.raises(ValueError, match="clock"):
        measure("x", "peer", lambda seed: 1, seconds=0.001, repeats=1, clock="sundial")
    assert build_parser().parse_args([]).repeats == 5


class _RecordingEnv(raw_env):
    """The real env, noting the seed of every reset."""

    def __init__(self) -> None:
        super().__init__()
        self.reset_seeds: list[object] = []

    def reset(self, seed=None, options=None) -> None:
        self.reset_seeds.append(seed)
        super().reset(seed=seed, options=options)


@pytest.mark.parametrize("seeded", [True, False])
def test_the_driver_resets_with_or_without_the_session_seed(seeded):
    made = []

    def make():
        made.append(_RecordingEnv())
        return OrderEnforcing(made[-1])

    play = aec_random_player(make, seeded)
    assert play(5) > 0 and play(6) > 0
    assert made[0].reset_seeds == ([5, 6] if seeded else [None, None])


def test_unseeded_rows_are_paired_with_unseeded_peers_in_the_targets():
    result = BenchResult(BenchConfig(**TINY))
    rates = {
        "aec newmarket flat": 100.0,
        "aec newmarket flat unseeded": 90.0,
        "texas_holdem_v4 4p": 10.0,
        "texas_holdem_v4 4p unseeded": 15.0,
    }
    result.rows = [Measurement(name, "aec", rate, 1.0, 1.0, [(rate, 1.0)]) for name, rate in rates.items()]
    targets = {t.name: t.value for t in result.targets() if t.name.startswith("AEC")}
    assert targets == {
        "AEC newmarket 4p flat / texas_holdem_v4 4p": 10.0,
        "AEC newmarket 4p flat unseeded / texas_holdem_v4 4p unseeded": 6.0,
    }
    headers, rows = rate_rows(result)
    assert headers[-2:] == ["x holdem 4p", "x holdem 4p unseeded"]
    assert rows[1][-1] == "6.00"  # the unseeded row against the unseeded peer
