"""``SB3VecEnv``: the VecEnv contract of Stable-Baselines3 over the compiled vector env, and MaskablePPO on it.

SB3's ``check_env`` checks single envs only, so the VecEnv contract is checked
here directly: shapes and dtypes, SB3's autoreset (``terminal_observation`` in
the info, the next session's observation returned), episode statistics through
SB3's own ``VecMonitor`` summing to the session result, the masks sb3-contrib
reads, seeding, and the attribute and method calls SB3 and our callbacks make.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from newmarket_env.engine.choice import FastGame
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")
sb3 = pytest.importorskip("stable_baselines3")
pytest.importorskip("stable_baselines3.common.logger")


def adapter(num_envs=6, seed=0, **kwargs):
    from newmarket_env import vector_env
    from newmarket_env.train.vec import SB3VecEnv

    options = {"variant": "newmarket", "num_players": 4, "opponents": ["control", "greedy"], **kwargs}
    return SB3VecEnv(vector_env(num_envs=num_envs, seed=seed, **options))


def random_actions(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_step_contract_against_the_vector_env():
    """The adapter returns what the vector env returns, in SB3's layout."""
    from newmarket_env import vector_env

    vec = adapter(seed=5)
    vec.seed(11)
    twin = vector_env(variant="newmarket", num_players=4, num_envs=6, opponents=["control", "greedy"], seed=5)
    obs = vec.reset()
    twin_obs, _ = twin.reset(seed=11)
    np.testing.assert_array_equal(obs, twin_obs)
    assert obs.shape == (6, FLAT_SIZE) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(150):
        actions = random_actions(rng, vec.env_method("action_masks"))
        vec.step_async(actions)
        obs, rewards, dones, infos = vec.step_wait()
        t_obs, t_rewards, t_term, _trunc, t_infos = twin.step(actions)
        assert rewards.dtype == np.float32 and dones.dtype == bool and rewards.shape == dones.shape == (6,)
        assert isinstance(infos, list) and len(infos) == 6
        np.testing.assert_array_equal(obs, t_obs)
        np.testing.assert_array_equal(rewards, t_rewards.astype(np.float32))
        np.testing.assert_array_equal(dones, t_term)
        for i in range(6):
            if dones[i]:
                ends += 1
                np.testing.assert_array_equal(infos[i]["terminal_observation"], t_infos["final_obs"][i])
                assert infos[i]["chips"] == t_infos["final_info"]["chips"][i]
                assert infos[i]["deals"] == 4 and infos[i]["seat"] == t_infos["final_info"]["seat"][i]
                assert infos[i]["TimeLimit.truncated"] is False
                specs = list(t_infos["final_info"]["seat_specs"][i])
                assert specs[infos[i]["seat"]] is None and infos[i]["opponents"] == [s for s in specs if s]
                assert len(infos[i]["opponents"]) == 3 and set(infos[i]["opponents"]) <= {"control", "greedy"}
                assert not np.array_equal(infos[i]["terminal_observation"], obs[i])
            else:
                assert "terminal_observation" not in infos[i]
    assert ends >= 6


def test_vecmonitor_episodes_sum_to_the_session_result():
    from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor

    scale = 0.1
    # SB3's own checker of what a VecEnv returns (no NaN or inf in observations, rewards, actions)
    vec = VecMonitor(VecCheckNan(adapter(num_envs=8, seed=1, reward_scale=scale), raise_exception=True))
    vec.seed(0)
    vec.reset()
    totals, lengths = np.zeros(8), np.zeros(8, dtype=int)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(300):
        _obs, rewards, dones, infos = vec.step(random_actions(rng, vec.env_method("action_masks")))
        totals += rewards
        lengths += 1
        for i in np.flatnonzero(dones):
            episode = infos[i]["episode"]
            assert episode["r"] == pytest.approx(infos[i]["chips"] * scale, abs=1e-4)
            assert episode["r"] == pytest.approx(totals[i], abs=1e-4) and episode["l"] == lengths[i]
            totals[i], lengths[i] = 0, 0
            checked += 1
    assert checked >= 8


def test_masks_reach_maskable_ppo_in_one_piece():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    vec = VecMonitor(adapter(num_envs=5))
    vec.reset()
    assert is_masking_supported(vec)
    masks = get_action_masks(vec)
    inner = vec.venv
    assert masks.shape == (5, NUM_ACTIONS) and masks.dtype == bool
    np.testing.assert_array_equal(masks, inner.vector.batch.action_masks.astype(bool))
    np.testing.assert_array_equal(inner.action_masks(), masks)
    np.testing.assert_array_equal(inner.env_method("action_masks", indices=[1, 3]), masks[[1, 3]])


def test_attributes_methods_and_seeding(tmp_path):
    from newmarket_env.agents.saved import save_policy
    from newmarket_env.game.rules import make_rules

    vec = adapter(num_envs=4, seed=2)
    assert vec.env_is_wrapped(object) == [False] * 4
    assert vec.get_attr("reward_scale") == [1.0] * 4 and vec.has_attr("rules") and not vec.has_attr("nothing")
    vec.set_attr("reward_scale", 0.5)
    assert vec.vector.reward_scale == 0.5
    with pytest.raises(ValueError, match=r"set_attr\('reward_scale'\) applies to every table .* indices=None"):
        vec.set_attr("reward_scale", 2.0, indices=[0])
    path = tmp_path / "snap.npz"
    rng = np.random.default_rng(0)
    save_policy(
        path,
        [(rng.normal(size=(NUM_ACTIONS, FLAT_SIZE)), np.zeros(NUM_ACTIONS))],
        make_rules("newmarket", 4),
        "newmarket",
        "tanh",
    )
    assert vec.env_method("set_snapshots", [str(path)]) == [None] * 4  # what SelfPlaySnapshots calls
    assert vec.vector.snapshots == [str(path)]
    with pytest.raises(ValueError, match=r"env_method\('set_snapshots'\) applies to every table"):
        vec.env_method("set_snapshots", [], indices=[2])

    def first_steps(v, seed):
        v.seed(seed)
        out = [v.reset()]
        for _ in range(20):
            out.append(v.step(np.argmax(v.action_masks(), axis=1))[0])
        return np.stack(out)

    vec.set_options({"deals": []})
    with pytest.raises(ValueError, match=r"reset options .* are not supported by the batch; allowed: none"):
        vec.reset()
    np.testing.assert_array_equal(first_steps(adapter(num_envs=4), 7), first_steps(adapter(num_envs=4), 7))
    assert not np.array_equal(first_steps(adapter(num_envs=4), 7), first_steps(adapter(num_envs=4), 8))
    with pytest.raises(ValueError, match=r"SB3VecEnv wraps a newmarket_env VectorEnv"):
        from newmarket_env.train.vec import SB3VecEnv

        SB3VecEnv(object())


def test_maskable_ppo_trains_on_the_adapter():
    """A real MaskablePPO run of a few hundred steps: only legal actions, episodes logged, weights changed."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    class Watch(BaseCallback):
        def __init__(self):
            super().__init__()
            self.illegal = self.ended = self.steps = 0

        def _on_step(self):
            self.steps += 1
            for info in self.locals["infos"]:
                self.illegal += bool(info.get("illegal_action"))
                self.ended += "episode" in info and "terminal_observation" in info
            return True

    vec = VecMonitor(adapter(num_envs=8, seed=3, opponents=["control", "random"], reward_scale=0.1))
    model = MaskablePPO(
        "MlpPolicy", vec, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu", policy_kwargs={"net_arch": [32]}
    )
    model.set_logger(sb3.common.logger.Logger(folder=None, output_formats=[]))  # no log folder in /tmp
    before = [p.detach().clone() for p in model.policy.parameters()]
    watch = Watch()
    model.learn(total_timesteps=512, callback=watch)
    assert model.num_timesteps == 512 and watch.steps == 64
    assert watch.illegal == 0 and watch.ended > 0 and len(model.ep_info_buffer) > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))


def test_training_builds_the_batch_by_default_and_falls_back_without_the_compiled_engine(monkeypatch):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from newmarket_env.train.config import config_from_dict
    from newmarket_env.train.ppo import learner as run_module
    from newmarket_env.train.vec import SB3VecEnv

    config = config_from_dict({"run": {"n_envs": 3}, "ppo": {"n_steps": 8, "batch_size": 8}})
    assert config.run.vec_env == "batch"
    vec = run_module.build_vec_env(config)
    assert isinstance(vec.venv, SB3VecEnv) and vec.num_envs == 3
    assert vec.venv.vector.opponents == config.opponents.baselines

    import newmarket_env.envs.vector as vector_module

    def not_built():
        raise RuntimeError("vector_env needs the compiled engine (test)")

    monkeypatch.setattr(vector_module, "compiled_batch", not_built)
    with pytest.warns(UserWarning, match=r"run.vec_env = batch: .*training on vec_env = dummy instead"):
        vec = run_module.build_vec_env(config)
    assert isinstance(vec.venv, DummyVecEnv) and vec.num_envs == 3


@pytest.mark.parametrize(
    "data, message",
    [
        ({"run": {"vec_env": "threads"}}, r"run.vec_env = 'threads' is not allowed; allowed: batch, dummy, subproc"),
        ({"run": {"vec_env": "dummy", "n_envs": 300}}, r"run.n_envs = 300 is not allowed with run.vec_env = dummy"),
        ({"run": {"n_envs": 5000}}, r"run.n_envs = 5000 is not allowed; allowed: int in 1..4096"),
    ],
)
def test_vec_env_config_values(data, message):
    from newmarket_env.train.config import config_from_dict

    with pytest.raises(ValueError, match=message):
        config_from_dict(data)


@pytest.mark.filterwarnings("ignore:torch runs")  # the thread warning has its own test
def test_gymnasium_make_vec_trains_through_the_one_call():
    """``sb3_vec_env(gymnasium.make_vec(...))``: Gymnasium's own vector API, handed to MaskablePPO in one call.
    Given the vector env directly, SB3 refuses it (the reason the call exists)."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    from newmarket_env.train import sb3_vec_env

    vector = gymnasium.make_vec(
        "stops/Newmarket-v0", num_envs=8, variant="newmarket", num_players=4, opponents=["greedy"], seed=2
    )
    with pytest.raises(ValueError, match="OpenAI Gym"):
        MaskablePPO("MlpPolicy", vector, device="cpu")
    vec = sb3_vec_env(vector)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.set_logger(sb3.common.logger.Logger(folder=None, output_formats=[]))
    model.learn(total_timesteps=512)
    assert model.num_timesteps == 512 and len(model.ep_info_buffer) > 0  # VecMonitor's episodes reached SB3
    assert vec.venv.vector is vector  # the one object, not a copy of its tables


def test_sb3_vec_env_names_what_to_give_it():
    import gymnasium

    from newmarket_env.train import sb3_vec_env

    single = gymnasium.make("stops/Newmarket-v0", opponents=["random"])
    with pytest.raises(
        ValueError, match=r"gymnasium.make gives one table; use gymnasium.make_vec\(\.\.\., num_envs=N\)"
    ):
        sb3_vec_env(single)
    with pytest.raises(ValueError, match="got list"):
        sb3_vec_env([single])


def test_torch_threads_on_a_two_core_machine_warn(monkeypatch):
    """More than one torch thread where the machine has at most two cores: a warning naming the fix."""
    import torch

    from newmarket_env import vector_env
    from newmarket_env.train.vec import sb3_vec_env

    before = torch.get_num_threads()
    try:
        monkeypatch.setattr("os.cpu_count", lambda: 2)
        torch.set_num_threads(2)
        with pytest.warns(UserWarning, match=r"torch runs 2 threads on this 2-core machine.*set_num_threads\(1\)"):
            sb3_vec_env(vector_env(num_envs=2, opponents=["random"]))
        torch.set_num_threads(1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sb3_vec_env(vector_env(num_envs=2, opponents=["random"]))
        monkeypatch.setattr("os.cpu_count", lambda: 16)
        torch.set_num_threads(2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sb3_vec_env(vector_env(num_envs=2, opponents=["random"]))  # cores to spare: no warning
    finally:
        torch.set_num_threads(before)
