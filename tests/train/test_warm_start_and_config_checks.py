"""Issue 17: the warm start's loss and agreement against SB3's own answers, and the config checks
that need the live package, each a one-line error naming the key and what is allowed.
"""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env.envs.learner_options import LearnerSeat

pytest.importorskip("sb3_contrib")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    from newmarket_env.train.config import config_from_dict
    from newmarket_env.train.ppo.imitate import collect
    from newmarket_env.train.ppo.learner import build_model, build_vec_env

    out = tmp_path_factory.mktemp("warm")
    cfg = config_from_dict(
        {
            "env": {"variant": "michigan", "num_players": 3, "rules": {"num_deals": 1}},
            "ppo": {"n_steps": 8, "batch_size": 8, "net_arch": [8]},
            "run": {"n_envs": 1, "vec_env": "dummy", "out_dir": str(out)},
        }
    )
    model = build_model(cfg, build_vec_env(cfg))
    seat = LearnerSeat(opponents=["random"], reward_scale=0.1)
    demos = collect("control", 40, learner_seat=seat, variant="michigan", num_players=3, num_deals=1, seed=1)
    return model, demos


def test_teacher_agreement_is_the_share_of_sb3_greedy_actions_equal_to_the_teacher(setup):
    from newmarket_env.train.ppo.imitate import teacher_agreement

    model, demos = setup
    greedy, _ = model.predict(demos.obs, action_masks=demos.masks, deterministic=True)
    assert teacher_agreement(model, demos) == pytest.approx(float(np.mean(greedy == demos.actions)))


def test_pretrain_loss_is_cross_entropy_plus_weighted_value_error(setup):
    import torch

    from newmarket_env.train.ppo.imitate import pretrain

    model, demos = setup
    with torch.no_grad():
        values, log_prob, _ = model.policy.evaluate_actions(
            torch.as_tensor(demos.obs), torch.as_tensor(demos.actions), action_masks=demos.masks
        )
        value_error = float(np.mean((values.numpy().ravel() - demos.returns) ** 2))
        cross_entropy = float(-log_prob.mean())
    before = [p.detach().clone() for p in model.policy.parameters()]
    losses = pretrain(model, demos, epochs=2, learning_rate=0.0, value_weight=3.0, batch_size=1000)
    assert losses == pytest.approx([cross_entropy + 3.0 * value_error] * 2, rel=1e-5)
    for p, q in zip(model.policy.parameters(), before, strict=True):
        assert torch.equal(p, q)  # a zero step size changes nothing
    moved = pretrain(model, demos, epochs=3, learning_rate=0.01, value_weight=0.5, batch_size=16)
    assert len(moved) == 3 and moved[-1] < moved[0]  # fitting the same data lowers its loss


def _base(**sections):
    data = {"run": {"vec_env": "dummy", "n_envs": 2}, "ppo": {"n_steps": 8, "batch_size": 8}}
    for key, value in sections.items():
        data[key] = {**data.get(key, {}), **value}
    return data


@pytest.mark.parametrize(
    ("sections", "message"),
    [
        (
            {"env": {"rules": {"num_players": 3}}},
            "env.rules.num_players is not a rules override: set env.num_players instead",
        ),
        (
            {"run": {"n_envs": 300}, "ppo": {"batch_size": 8}},
            "run.n_envs = 300 is not allowed with run.vec_env = dummy; allowed: 1..256 (more only with vec_env: batch)",
        ),
        (
            {"ppo": {"batch_size": 17}},
            "ppo.batch_size = 17 is not allowed; allowed: at most ppo.n_steps * run.n_envs = 16",
        ),
        (
            {"ppo": {"n_steps": 200_000}, "run": {"n_envs": 2}},
            "ppo.n_steps * run.n_envs = 400000 is not allowed; allowed: at most 262144 "
            "(the rollout buffer would not fit in memory)",
        ),
        (
            {"eval": {"address": "auto"}},
            "eval: ",
        ),
    ],
)
def test_cross_checks_are_one_line_naming_the_keys(sections, message):
    from newmarket_env.train.config import config_from_dict

    with pytest.raises(ValueError) as err:
        config_from_dict(_base(**sections))
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_limits_at_the_edge_are_allowed():
    from newmarket_env.train.config import MAX_ROLLOUT, MAX_SINGLE_ENVS, config_from_dict

    assert MAX_ROLLOUT == 262_144 and MAX_SINGLE_ENVS == 256
    config = config_from_dict(_base(run={"n_envs": 256}, ppo={"n_steps": 1024, "batch_size": 262_144}))
    assert config.run.n_envs * config.ppo.n_steps == MAX_ROLLOUT
    assert config_from_dict(_base(ppo={"batch_size": 16})).ppo.batch_size == 16
    assert config_from_dict(_base(run={"vec_env": "batch", "n_envs": 300})).run.n_envs == 300


@pytest.mark.parametrize(
    ("key", "value", "start"),
    [
        ("opponents", {"baselines": ["nobody"]}, "opponents.baselines has unknown agent 'nobody'; allowed: "),
        ("eval", {"opponents": ["nobody"]}, "eval.opponents has unknown agent 'nobody'; allowed: "),
        ("pretrain", {"teacher": "nobody"}, "pretrain.teacher has unknown agent 'nobody'; allowed: "),
    ],
)
def test_unknown_agents_name_the_key_and_the_known_agents(key, value, start):
    from newmarket_env.agents import available_agents
    from newmarket_env.train.config import config_from_dict

    with pytest.raises(ValueError) as err:
        config_from_dict(_base(**{key: value}))
    assert str(err.value) == start + ", ".join(available_agents())


def test_load_config_errors_name_the_file(tmp_path):
    from newmarket_env.train.config import TrainConfig, load_config

    with pytest.raises(ValueError, match=r"^config file '.*nope.yaml' does not exist$"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [1,\n")
    with pytest.raises(ValueError) as err:
        load_config(bad)
    assert str(err.value).startswith(f"{bad}: not valid YAML (") and "\n" not in str(err.value)
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert load_config(empty) == TrainConfig()
