"""Config values that used to pass validation and crash later (or train a useless agent) are refused in one line."""

import pytest
import yaml

from newmarket_env.train.config import config_from_dict, load_config


@pytest.mark.parametrize(
    "text,words",
    [
        ("ppo: {learning_rate: .nan}", "ppo.learning_rate = nan is not allowed; allowed: float in 1e-08..1.0"),
        (
            "run: {seed: 100000000000000000000}",
            "run.seed = 100000000000000000000 is not allowed; allowed: int in 0..4294967295",
        ),
        ("run: {seed: 1e20}", "run.seed = '1e20' is not allowed"),
        ("ppo: {net_arch: [-5]}", "ppo.net_arch = [-5] is not allowed; allowed: a list of int in 1..4096"),
        ("ppo: {net_arch: [0]}", "ppo.net_arch = [0] is not allowed"),
        ("ppo: {net_arch: [100000000]}", "ppo.net_arch = [100000000] is not allowed"),
        ("ppo: {n_steps: 100000000000}", "ppo.n_steps = 100000000000 is not allowed; allowed: int in 8..262144"),
        ("ppo: {n_steps: 1e11}", "ppo.n_steps = '1e11' is not allowed"),
        ("{ppo: {n_steps: 65536}, run: {n_envs: 8}}", "ppo.n_steps * run.n_envs = 524288 is not allowed"),
        ("env: {reward_scale: .inf}", "env.reward_scale = inf is not allowed"),
        ("run: {max_minutes: .nan}", "run.max_minutes = nan is not allowed"),
        (
            "env: {rules: {num_players: 5}}",
            "env.rules.num_players is not a rules override: set env.num_players instead",
        ),
    ],
)
def test_out_of_range_values_are_refused(text, words, tmp_path):
    with pytest.raises(ValueError) as caught:
        config_from_dict(yaml.safe_load(text))
    assert words in str(caught.value) and "\n" not in str(caught.value)
    path = tmp_path / "bad.yaml"
    path.write_text(text + "\n")
    with pytest.raises(ValueError):
        load_config(path)


def test_the_describe_text_points_to_the_rules_page_a_user_has():
    from newmarket_env.train.config import describe

    text = "\n".join(describe())
    assert "docs/rules.md" in text and "RULES.md" not in text.replace("docs/rules.md", "")
