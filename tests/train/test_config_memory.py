"""A config that needs more memory than the machine has is refused in one line before anything is written,
from an estimate of what the run keeps (worked out by hand below, not by the code under test)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from newmarket_env.train.cli import PROG, main
from newmarket_env.train.config import config_from_dict
from newmarket_env.train.memory import check_memory

DMC = Path(__file__).resolve().parents[2] / "configs" / "tiny_dmc.yaml"
# one recorded decision: 936 float32 of observation, 79 bools of mask, an int64 action, a float32 return
DECISION = 936 * 4 + 79 + 8 + 4


def test_a_replay_larger_than_any_machine_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    assert main([str(DMC), "--out-dir", str(out), "--set", "dmc.states=1e7", "--set", "dmc.window=1000"]) == 2
    # the window's decisions, twice (the files read back, and their concatenation for the fit)
    replay = 2 * 10_000_000 * 1000 * DECISION
    network = ((936 + 1) * 16 + (16 + 1) * 79) * 16  # [16] hidden; weight, gradient and Adam's two moments
    line = capsys.readouterr().err
    found = re.fullmatch(
        rf"{re.escape(PROG)}: error: the run needs about (?P<needed>[\d.]+) GB of memory, more than the [\d.]+ GB "
        r"available on this machine; most of it is dmc\.states x dmc\.window recorded decisions "
        r"\((?P<largest>[\d.]+) GB\): make it smaller\n",
        line,
    )
    assert found, line
    assert (found["needed"], found["largest"]) == (f"{(replay + network) / 1e9:.1f}", f"{replay / 1e9:.1f}")
    assert not out.exists()


def test_sixteen_layers_of_4096_need_eight_gigabytes_in_training():
    config = config_from_dict({"method": "expert_iteration", "expert": {"net_arch": [4096] * 16}})
    actor = (936 + 1) * 4096 + 15 * (4096 + 1) * 4096 + (4096 + 1) * 79
    critic = (936 + 1) * 4096 + 15 * (4096 + 1) * 4096 + (4096 + 1) * 1
    networks = (actor + critic) * 16
    labels = 2 * 2000 * 4 * (DECISION + 79 * 8)  # expert.states 2000, window 4, with the teacher's means
    check_memory(config, available=networks + labels)  # exactly enough
    with pytest.raises(ValueError) as refused:
        check_memory(config, available=4 * 10**9)
    assert str(refused.value) == (
        f"the run needs about {(networks + labels) / 1e9:.1f} GB of memory, more than the 4.0 GB available on this "
        f"machine; most of it is the policy and value networks in training ({networks / 1e9:.1f} GB): make it smaller"
    )


def test_a_whole_number_written_as_a_float_is_an_int(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("method: dmc\ndmc: {states: 1e4}\nrun: {total_steps: 1e6}\n")
    from newmarket_env.train.config import load_config

    config = load_config(path)
    assert (config.dmc.states, config.run.total_steps) == (10_000, 1_000_000)
    assert isinstance(config.dmc.states, int)
    with pytest.raises(ValueError, match=r"^dmc\.states = 1000\.5 is not allowed"):
        config_from_dict({"method": "dmc", "dmc": {"states": 1000.5}})
