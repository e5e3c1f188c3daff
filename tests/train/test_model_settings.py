"""Issue 17: every ``ppo:`` and ``env:`` setting of a config reaches what trains.

The expected values are the config's own (given here, none of them a default), read back from
MaskablePPO's and the vector env's own attributes; the network from the torch modules themselves.
"""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env.engine.choice import FastGame
from newmarket_env.observation.layout import FLAT_SIZE

pytest.importorskip("sb3_contrib")
needs_compiled = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

PPO = {
    "learning_rate": 0.00123,
    "n_steps": 24,
    "batch_size": 12,
    "n_epochs": 3,
    "gamma": 0.97,
    "gae_lambda": 0.81,
    "clip_range": 0.13,
    "ent_coef": 0.031,
    "vf_coef": 0.77,
    "max_grad_norm": 0.66,
    "net_arch": [20, 12],
    "activation": "relu",
}


def config(tmp_path, vec_env="batch", **ppo):
    from newmarket_env.train.config import config_from_dict

    return config_from_dict(
        {
            "name": "settings",
            "env": {
                "variant": "michigan",
                "num_players": 3,
                "rules": {"num_deals": 2},
                "seat": "rotate",
                "reward_scale": 0.25,
            },
            "opponents": {"baselines": ["control", "greedy"], "snapshot_fraction": 0.6},
            "ppo": {**PPO, **ppo},
            "run": {"n_envs": 2, "seed": 31, "vec_env": vec_env, "out_dir": str(tmp_path / "run"), "threads": 3},
            "eval": {"every": 0, "opponents": ["random"]},
        }
    )


@needs_compiled
def test_every_ppo_setting_reaches_the_model(tmp_path):
    import torch

    from newmarket_env.train.ppo.learner import build_model, build_vec_env

    cfg = config(tmp_path)
    model = build_model(cfg, build_vec_env(cfg))
    assert model.learning_rate == 0.00123
    assert model.lr_schedule(1.0) == pytest.approx(0.00123)
    assert model.n_steps == 24
    assert model.batch_size == 12
    assert model.n_epochs == 3
    assert model.gamma == 0.97
    assert model.gae_lambda == 0.81
    assert model.clip_range(1.0) == pytest.approx(0.13)
    assert model.clip_range(0.0) == pytest.approx(0.13)
    assert model.ent_coef == 0.031
    assert model.vf_coef == 0.77
    assert model.max_grad_norm == 0.66
    assert model.seed == 31
    assert model.device == torch.device("cpu")
    assert model.verbose == 0
    assert model.n_envs == 2
    assert model.policy.optimizer.param_groups[0]["lr"] == pytest.approx(0.00123)
    for net in (model.policy.mlp_extractor.policy_net, model.policy.mlp_extractor.value_net):
        linears = [(m.in_features, m.out_features) for m in net if isinstance(m, torch.nn.Linear)]
        assert linears == [(FLAT_SIZE, 20), (20, 12)]
        assert [type(m) for m in net if not isinstance(m, torch.nn.Linear)] == [torch.nn.ReLU, torch.nn.ReLU]
    assert (model.policy.action_net.in_features, model.policy.action_net.out_features) == (12, 79)
    assert model.policy.value_net.in_features == 12


@needs_compiled
def test_tanh_is_the_tanh_module(tmp_path):
    import torch

    from newmarket_env.train.ppo.learner import build_model, build_vec_env

    cfg = config(tmp_path, activation="tanh", net_arch=[9])
    model = build_model(cfg, build_vec_env(cfg))
    net = model.policy.mlp_extractor.policy_net
    # the first layer a Linear whatever network.input (sparse: SparseInputLinear, a Linear computed sparsely)
    assert isinstance(net[0], torch.nn.Linear) and [type(m) for m in net][1:] == [torch.nn.Tanh]


@needs_compiled
def test_the_batch_env_plays_the_configured_table(tmp_path):
    from stable_baselines3.common.vec_env import VecMonitor

    from newmarket_env import vector_env
    from newmarket_env.train.ppo.learner import _batch_vec_env, build_vec_env
    from newmarket_env.train.vec import SB3VecEnv

    cfg = config(tmp_path)
    vec = _batch_vec_env(cfg)
    assert isinstance(vec, SB3VecEnv)
    vector = vec.vector
    assert vector.variant == "michigan"
    assert vector.rules.num_players == 3 and vector.n == 3
    assert vector.rules.num_deals == 2
    assert vector.num_envs == 2 and vec.num_envs == 2
    assert vector.seat_mode == "rotate"
    assert vector.reward_scale == 0.25
    assert vector.snapshot_fraction == 0.6
    assert vector.opponents == ["control", "greedy"]
    assert vector.batch.threads == 3  # run.threads (not the machine's cores, the default)
    obs = vec.reset()  # seeded with run.seed, as a vector env reset with it
    twin = vector_env(
        variant="michigan",
        num_players=3,
        num_envs=2,
        opponents=["control", "greedy"],
        snapshot_fraction=0.6,
        seat="rotate",
        reward_scale=0.25,
        seed=31,
        num_deals=2,
    )
    twin_obs, twin_info = twin.reset(seed=31)
    np.testing.assert_array_equal(obs, twin_obs)
    assert [info["seat"] for info in vec.reset_infos] == list(twin_info["seat"])
    wrapped = build_vec_env(cfg)
    assert isinstance(wrapped, VecMonitor) and isinstance(wrapped.venv, SB3VecEnv)


def test_the_dummy_envs_play_the_configured_table(tmp_path):
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from newmarket_env.envs.single_agent import SingleAgentEnv
    from newmarket_env.train.ppo.learner import build_vec_env, make_env

    cfg = config(tmp_path, vec_env="dummy")
    vec = build_vec_env(cfg)
    assert isinstance(vec, VecMonitor) and isinstance(vec.venv, DummyVecEnv)
    assert vec.num_envs == 2
    env = vec.venv.envs[0]
    assert isinstance(env, SingleAgentEnv)
    assert env.rules.num_players == 3 and env.rules.num_deals == 2
    one = make_env(cfg, 1)
    twin = SingleAgentEnv(
        variant="michigan",
        num_players=3,
        opponents=["control", "greedy"],
        snapshot_fraction=0.6,
        seat="rotate",
        reward_scale=0.25,
        num_deals=2,
    )
    twin.reset(seed=31 * 1000 + 1)  # make_env reset its env with run.seed * 1000 + rank
    for _ in range(3):  # the following sessions continue those seeded streams
        obs, info = one.reset()
        twin_obs, twin_info = twin.reset()
        np.testing.assert_array_equal(obs, twin_obs)
        np.testing.assert_array_equal(info["action_mask"], twin_info["action_mask"])
        assert info["seat"] == twin_info["seat"]


@needs_compiled
def test_memory_agent_carries_the_saved_format_and_the_policy(tmp_path):
    from newmarket_env.agents.saved import read_saved
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.export import export_agent, memory_agent, policy_layers
    from newmarket_env.train.ppo.learner import build_model, build_vec_env

    cfg = config(tmp_path)
    model = build_model(cfg, build_vec_env(cfg))
    rules = make_rules("michigan", 3, num_deals=2)
    layers = policy_layers(model)
    assert [w.shape for w, _ in layers] == [(20, FLAT_SIZE), (12, 20), (79, 12)]
    assert [b.shape for _, b in layers] == [(20,), (12,), (79,)]
    agent = memory_agent(model, rules, "michigan", "relu", seed=4)
    assert agent.name == "learner"
    assert agent.metadata == {
        "format": "newmarket_env.saved_agent",
        "version": 1,
        "variant": "michigan",
        "rules": rules.to_dict(),
        "activation": "relu",
    }
    for (w, b), (w2, b2) in zip(agent.layers, layers, strict=True):
        np.testing.assert_array_equal(w, w2)
        np.testing.assert_array_equal(b, b2)
    path = tmp_path / "a.npz"
    export_agent(model, str(path), rules, "michigan", "relu", {"steps": 0}, name="nm")
    metadata, saved = read_saved(path)
    assert metadata["format"] == agent.metadata["format"] and metadata["version"] == agent.metadata["version"]
    assert metadata["name"] == "nm" and metadata["activation"] == "relu" and metadata["variant"] == "michigan"
    for (w, b), (w2, b2) in zip(saved, layers, strict=True):
        np.testing.assert_allclose(w, w2, rtol=1e-6)
        np.testing.assert_allclose(b, b2, rtol=1e-6)


@needs_compiled
def test_episode_chips_logs_the_mean_once_per_rollout(tmp_path):
    from stable_baselines3.common.logger import Logger

    from newmarket_env.train.ppo.callbacks import EpisodeChips
    from newmarket_env.train.ppo.learner import build_model, build_vec_env

    cfg = config(tmp_path)
    model = build_model(cfg, build_vec_env(cfg))
    model.set_logger(Logger(None, []))
    callback = EpisodeChips()
    callback.init_callback(model)
    callback._on_rollout_end()  # nothing finished: nothing logged
    assert "rollout/chips_per_deal" not in model.logger.name_to_value
    callback.update_locals({"infos": [{"chips": 8.0, "deals": 2}, {"chips": 2.0, "deals": 2}]})
    callback.on_step()
    callback._on_rollout_end()
    assert model.logger.name_to_value["rollout/chips_per_deal"] == pytest.approx(2.5)
    assert callback.recent == []
