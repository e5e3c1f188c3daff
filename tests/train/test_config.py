"""Config files: the shipped ones load; an unknown key or bad value is one clear line."""

import shutil
from pathlib import Path

import pytest
import yaml

from newmarket_env.train.cli import main
from newmarket_env.train.config import TrainConfig, config_from_dict, describe, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.parametrize("name", sorted(path.stem for path in CONFIGS.glob("*.yaml")))
def test_shipped_configs_load(name, tmp_path, monkeypatch):
    """Every config in configs/ loads (the docs tell users to run each of them). A config that starts from
    a network the user first writes under runs/ (its comment says how) finds its variant's shipped network
    there: the file must exist and be a saved agent of that variant for the config to load."""
    raw = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text())
    init = (raw.get("expert") or {}).get("init")
    if init and init.startswith("runs/"):
        monkeypatch.chdir(tmp_path)
        (tmp_path / init).parent.mkdir(parents=True)
        shutil.copy(CONFIGS.parent / "agents" / "trained" / f"exit-{raw['env']['variant']}.npz", tmp_path / init)
    config = load_config(CONFIGS / f"{name}.yaml")
    assert isinstance(config, TrainConfig)
    assert config.env.num_players == 4


@pytest.mark.parametrize(
    "data, words",
    [
        ({"ppo": {"learnin_rate": 0.1}}, ["ppo.learnin_rate", "learning_rate"]),
        ({"colour": 1}, ["colour", "env", "ppo"]),
        ({"env": {"seat": "left"}}, ["env.seat", "random, rotate"]),
        ({"env": {"variant": "bridge"}}, ["env.variant", "michigan"]),
        ({"ppo": {"gamma": 1.5}}, ["ppo.gamma", "0.0..1.0"]),
        ({"run": {"n_envs": "four"}}, ["run.n_envs", "int"]),
        ({"ppo": {"net_arch": [64, "wide"]}}, ["ppo.net_arch", "list of int"]),
        ({"run": {"progress_bar": 1}}, ["run.progress_bar", "bool"]),
        ({"opponents": {"baselines": ["random", "nobody"]}}, ["nobody", "random"]),
        ({"env": {"rules": {"num_deal": 2}}}, ["num_deal", "num_deals"]),
        ({"ppo": {"batch_size": 4096}, "run": {"n_envs": 2}}, ["ppo.batch_size", "n_envs"]),
    ],
)
def test_bad_configs_name_the_key_and_the_allowed_values(data, words):
    with pytest.raises(ValueError) as caught:
        config_from_dict(data)
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_numbers_written_without_a_dot_are_read_as_floats():
    assert config_from_dict({"ppo": {"learning_rate": "3e-4"}}).ppo.learning_rate == pytest.approx(3e-4)


def test_cli_reports_a_bad_config_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("run:\n  n_envs: 0\n")
    assert main([str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "run.n_envs" in err
    assert main([str(tmp_path / "missing.yaml")]) == 2


def test_describe_lists_every_section():
    text = "\n".join(describe())
    for key in ("env:", "variant:", "snapshot_every:", "learning_rate:", "total_steps:", "final_sessions:"):
        assert key in text
