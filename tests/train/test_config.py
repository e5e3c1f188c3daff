"""Config files: the shipped ones load; an unknown key or bad value is one clear line."""

import shutil
from pathlib import Path

import pytest
import yaml

from newmarket_env.train.cli import PROG, apply_settings, main
from newmarket_env.train.config import MAX_CONFIG_BYTES, TrainConfig, config_from_dict, describe, load_config
from tests.train.tiny_run import TINY

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


def test_numbers_written_without_a_dot_are_read_as_floats(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("ppo:\n  learning_rate: 3e-4\n  ent_coef: 1e-2\nrun:\n  max_minutes: 1E+1\n")
    config = load_config(path)
    assert (config.ppo.learning_rate, config.ppo.ent_coef, config.run.max_minutes) == (3e-4, 1e-2, 10.0)


@pytest.mark.parametrize("text", ["'0.1'", '"0.1"', "'3e-4'", "!!str 0.5"])
def test_a_quoted_number_is_text_and_refused_for_a_number(text, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(f"env:\n  reward_scale: {text}\n")
    with pytest.raises(ValueError, match=r"^env\.reward_scale = '[0-9.e-]+' is not allowed; allowed: float in "):
        load_config(path)
    with pytest.raises(ValueError, match=r"^env\.reward_scale = '[0-9.e-]+' is not allowed"):
        config_from_dict({"env": {"reward_scale": "0.1"}})


def test_set_takes_yaml_values_and_a_quoted_number_stays_text(tmp_path, capsys):
    data: dict = {}
    apply_settings(data, ["ppo.learning_rate=1e-4", "ppo.net_arch=[64, 64]", "env.reward_scale='0.1'"])
    assert data == {"ppo": {"learning_rate": 1e-4, "net_arch": [64, 64]}, "env": {"reward_scale": "0.1"}}
    assert main([str(TINY), "--out-dir", str(tmp_path / "run"), "--set", "env.reward_scale='0.1'"]) == 2
    assert capsys.readouterr().err == (
        f"{PROG}: error: env.reward_scale = '0.1' is not allowed; allowed: float in 1e-06..100.0\n"
    )
    assert not (tmp_path / "run").exists()


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


def test_a_config_file_without_end_or_too_large_is_refused_at_the_limit(tmp_path, capsys):
    """``/dev/zero`` never ends: it is read to the limit, not to the end of memory."""
    large = tmp_path / "large.yaml"
    large.write_text("name: x\n" + "# padding\n" * (MAX_CONFIG_BYTES // 10 + 1))
    for path in (Path("/dev/zero"), large):
        if not path.exists():
            continue
        assert main([str(path)]) == 2
        assert capsys.readouterr().err == (
            f"{PROG}: error: config file {str(path)!r} is larger than {MAX_CONFIG_BYTES} bytes, the limit (a "
            "training config is a few kB)\n"
        )


def test_a_config_nested_without_end_is_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.yaml"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert main([str(deep)]) == 2
    assert capsys.readouterr().err == f"{PROG}: error: {deep}: nests too deep to be a config\n"
