"""The package's ids in Gymnasium's and PettingZoo's registries, and what ``newmarket_env.envs`` exports."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env

import newmarket_env
from newmarket_env.envs import ENV_NAME, SingleAgentEnv, VectorEnv
from newmarket_env.envs.registration import register_envs
from newmarket_env.game.rules import make_rules

GYM_ID = "stops/Newmarket-v0"  # as README and docs/contract.md give it
HANG_GUARD_S = 120  # only so a hung child fails instead of hanging; never an assertion on speed


def _compiled() -> bool:
    try:
        import newmarket_env.engine._batch  # noqa: F401
    except ImportError:
        return False
    return True


def test_the_envs_package_exports_both_views():
    from newmarket_env.envs.single_agent import SingleAgentEnv as single
    from newmarket_env.envs.vector import VectorEnv as vector

    assert SingleAgentEnv is single and VectorEnv is vector
    assert {"SingleAgentEnv", "VectorEnv", "env", "raw_env"} <= set(newmarket_env.envs.__all__)


def test_the_id_carries_the_env_version():
    assert ENV_NAME == "newmarket_v0"  # a version bump of the env must be a version bump of the ids
    assert newmarket_env.envs.GYMNASIUM_ID == GYM_ID
    assert newmarket_env.envs.PETTINGZOO_ID == "stops/newmarket-v0"


def test_make_passes_every_keyword_and_passes_the_checker():
    env = gymnasium.make(GYM_ID, variant="michigan", num_players=5, opponents=["greedy", "random"], seat=2, num_deals=1)
    assert env.spec.id == GYM_ID
    single = env.unwrapped
    assert isinstance(single, SingleAgentEnv)
    assert single.variant == "michigan" and single.rules == make_rules("michigan", 5, num_deals=1)
    assert single.opponents == ["greedy", "random"] and single.seat_mode == 2
    check_env(single, skip_render_check=True)


def test_made_env_plays_as_the_class_does():
    """Through make's wrappers (passive checker, order enforcing) a seeded session is the class's session."""
    kwargs = dict(variant="newmarket", num_players=4, opponents=["control"], num_deals=2)
    made, direct = gymnasium.make(GYM_ID, **kwargs), SingleAgentEnv(**kwargs)
    trace = []
    for env in (made, direct):
        obs, info = env.reset(seed=11)
        steps, done = [obs], False
        while not done:
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
            steps.append((obs, reward))
            done = terminated or truncated
        trace.append((steps, info["chips"]))
    (made_steps, made_chips), (direct_steps, direct_chips) = trace
    assert made_chips == direct_chips and len(made_steps) == len(direct_steps) > 1
    assert np.array_equal(made_steps[0], direct_steps[0])
    for (made_obs, made_reward), (direct_obs, direct_reward) in zip(made_steps[1:], direct_steps[1:], strict=True):
        assert np.array_equal(made_obs, direct_obs) and made_reward == direct_reward


@pytest.mark.skipif(not _compiled(), reason="the compiled engine is not built")
def test_make_vec_gives_the_compiled_vector_env():
    envs = gymnasium.make_vec(GYM_ID, num_envs=3, num_players=4, opponents=["control"], seed=0)
    assert isinstance(envs, VectorEnv) and envs.num_envs == 3
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (3, envs.single_observation_space.shape[0])
    obs, rewards, terminated, truncated, _ = envs.step(envs.action_masks().argmax(axis=1))
    assert obs.shape[0] == rewards.shape[0] == terminated.shape[0] == truncated.shape[0] == 3


def test_make_vec_sync_mode_gives_single_agent_copies():
    envs = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", num_players=4, opponents=["random"])
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    assert all(isinstance(env.unwrapped, SingleAgentEnv) for env in envs.envs)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (2, envs.single_observation_space.shape[0])


def test_pettingzoo_make_gives_the_aec_env():
    for env_id in ("stops/newmarket-v0", "stops/newmarket_v0"):
        env = pettingzoo.make("aec", env_id, variant="newbury")
        assert env.metadata["name"] == ENV_NAME
        assert env.unwrapped.rules == make_rules("newbury")


def test_registering_again_changes_nothing_and_warns_nothing():
    spec = gymnasium.spec(GYM_ID)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_envs()
    assert gymnasium.spec(GYM_ID) is spec


def test_gymnasiums_module_prefix_registers_on_import():
    """``gymnasium.make("newmarket_env:stops/Newmarket-v0")`` imports the package first: no import of ours needed."""
    code = (
        "import gymnasium; e = gymnasium.make('newmarket_env:stops/Newmarket-v0', num_players=4); "
        "o, i = e.reset(seed=0); print(type(e.unwrapped).__name__, o.shape)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["SingleAgentEnv", "(936,)"]


# One id per preset, spelled as the issue and docs/guide/environment.md spell them (not derived from the code).
VARIANT_IDS = {
    "newmarket": ("stops/Newmarket-v0", "stops/newmarket-v0"),
    "michigan": ("stops/Michigan-v0", "stops/michigan-v0"),
    "newbury": ("stops/Newbury-v0", "stops/newbury-v0"),
    "hoyle1885": ("stops/Hoyle1885-v0", "stops/hoyle1885-v0"),
    "arnold2011": ("stops/Arnold2011-v0", "stops/arnold2011-v0"),
}


def test_every_preset_has_its_ids():
    assert set(VARIANT_IDS) == set(newmarket_env.VARIANTS)
    assert {variant: ids[0] for variant, ids in VARIANT_IDS.items()} == newmarket_env.envs.registration.GYMNASIUM_IDS


@pytest.mark.parametrize("variant", list(VARIANT_IDS))
def test_each_variant_id_makes_that_variant_in_every_registry(variant):
    gym_id, pz_id = VARIANT_IDS[variant]
    single = gymnasium.make(gym_id, num_players=4, opponents=["random"])
    assert single.spec.id == gym_id
    assert single.unwrapped.variant == variant and single.unwrapped.rules == make_rules(variant, 4)
    single.reset(seed=0)
    aec = pettingzoo.make("aec", pz_id, num_players=4)
    assert aec.unwrapped.variant == variant and aec.unwrapped.rules == make_rules(variant, 4)
    if _compiled():
        envs = gymnasium.make_vec(gym_id, num_envs=2, num_players=4, opponents=["control"])
        assert isinstance(envs, VectorEnv) and envs.variant == variant and envs.rules == make_rules(variant, 4)
    synced = gymnasium.make_vec(gym_id, num_envs=2, vectorization_mode="sync", num_players=4)
    assert all(env.unwrapped.variant == variant for env in synced.envs)


def test_a_variant_id_refuses_another_variant_and_names_its_id():
    with pytest.raises(ValueError, match=r"variant='newbury' is not what stops/Michigan-v0 plays.*stops/Newbury-v0"):
        gymnasium.make("stops/Michigan-v0", variant="newbury")
    with pytest.raises(ValueError, match=r"stops/michigan-v0 plays.*stops/newbury-v0"):
        pettingzoo.make("aec", "stops/michigan-v0", variant="newbury")
    assert gymnasium.make("stops/Michigan-v0", variant="michigan").unwrapped.variant == "michigan"


def test_the_entry_points_survive_pickling_for_async_vector_envs():
    import pickle

    entry = pickle.loads(pickle.dumps(gymnasium.spec("stops/Hoyle1885-v0").entry_point))
    assert entry(num_players=4).variant == "hoyle1885"
