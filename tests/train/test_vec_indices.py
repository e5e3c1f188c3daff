"""Issue 17: ``SB3VecEnv`` answers per table for the ``indices`` asked, and refuses reset options.

SB3's ``VecEnv`` contract: ``get_attr``, ``env_method`` and ``env_is_wrapped`` return one entry per
chosen table (``indices`` = None, an int, or a list); the per-table method ``action_masks`` returns
those tables' rows of the batch's masks.
"""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env.engine.choice import FastGame

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")
pytest.importorskip("stable_baselines3")


def adapter(num_envs=5, seed=3, num_players=4):
    from newmarket_env import vector_env
    from newmarket_env.train.vec import SB3VecEnv

    return SB3VecEnv(
        vector_env(variant="newmarket", num_players=num_players, num_envs=num_envs, seed=seed, opponents=["random"])
    )


@pytest.mark.parametrize(("indices", "count"), [(None, 5), (2, 1), ([0, 3], 2), ([4], 1), (range(1, 4), 3)])
def test_env_is_wrapped_answers_once_per_chosen_table(indices, count):
    from stable_baselines3.common.monitor import Monitor

    vec = adapter()
    assert vec.env_is_wrapped(Monitor, indices=indices) == [False] * count


@pytest.mark.parametrize(("indices", "count"), [(None, 5), (1, 1), ([0, 2, 4], 3)])
def test_get_attr_answers_once_per_chosen_table(indices, count):
    vec = adapter()
    assert vec.get_attr("reward_scale", indices) == [vec.vector.reward_scale] * count
    assert vec.get_attr("variant", indices=indices) == ["newmarket"] * count


def test_get_attr_of_a_missing_attribute_is_attribute_error():
    vec = adapter()
    with pytest.raises(AttributeError):
        vec.get_attr("no_such_attribute")
    assert vec.has_attr("reward_scale") and not vec.has_attr("no_such_attribute")


def test_action_masks_of_chosen_tables_are_their_rows():
    vec = adapter()
    vec.seed(9)
    vec.reset()
    every = vec.vector.action_masks()
    assert every.shape == (5, 79)
    np.testing.assert_array_equal(vec.env_method("action_masks"), every)
    np.testing.assert_array_equal(vec.env_method("action_masks", indices=[1, 3]), every[[1, 3]])
    np.testing.assert_array_equal(vec.env_method("action_masks", indices=2), every[[2]])
    np.testing.assert_array_equal(vec.action_masks(), every)


def test_shared_methods_answer_per_table_and_refuse_a_subset():
    vec = adapter(num_envs=3)
    vec.seed(1)
    vec.reset()
    before = vec.vector.reward_scale
    assert vec.env_method("set_snapshots", []) == [None, None, None]
    assert vec.env_method("set_snapshots", [], indices=[2, 0, 1]) == [None, None, None]
    with pytest.raises(ValueError, match=r"env_method\('set_snapshots'\) applies to every table.*indices=None"):
        vec.env_method("set_snapshots", [], indices=[0])
    with pytest.raises(ValueError, match=r"set_attr\('reward_scale'\) applies to every table"):
        vec.set_attr("reward_scale", 2.0, indices=1)
    assert vec.vector.reward_scale == before  # refused: nothing changed
    vec.set_attr("reward_scale", 2.0)
    assert vec.get_attr("reward_scale") == [2.0, 2.0, 2.0]


def test_reset_options_are_refused_naming_them():
    vec = adapter(num_envs=2)
    vec.set_options({"deals": 3})
    with pytest.raises(
        ValueError, match=r"^reset options \{'deals': 3\} are not supported by the batch; allowed: none$"
    ):
        vec.reset()


def test_reset_options_of_one_table_only_are_refused_too():
    vec = adapter(num_envs=2)
    vec.set_options([None, {"seat": 1}])
    with pytest.raises(ValueError, match=r"^reset options \{'seat': 1\} are not supported"):  # not "None"
        vec.reset()
    vec.set_options([{"seat": 0}, {"seat": 1}])
    with pytest.raises(ValueError, match=r"^reset options \{'seat': 0\} are not supported"):
        vec.reset()
    vec.set_options(None)
    vec.seed(2)
    assert vec.reset().shape[0] == 2  # without options it resets


def test_reset_without_options_uses_the_seed_once_and_reports_seats():
    from newmarket_env import vector_env

    vec = adapter(num_envs=4, num_players=3)
    vec.seed(21)
    obs = vec.reset()
    twin = vector_env(variant="newmarket", num_players=3, num_envs=4, seed=3, opponents=["random"])
    twin_obs, twin_info = twin.reset(seed=21)
    np.testing.assert_array_equal(obs, twin_obs)
    assert vec.reset_infos == [{"seat": int(s)} for s in twin_info["seat"]]
    assert all(0 <= info["seat"] < 3 for info in vec.reset_infos)
    assert vec._seeds == [None] * 4  # used once, then forgotten (SB3's convention)
    assert vec.get_images() == [None] * 4


def test_seed_is_one_seed_for_the_batch():
    vec = adapter(num_envs=3)
    assert vec.seed(7) == [7, 7, 7]
    drawn = vec.seed()
    assert len(set(drawn)) == 1 and 0 <= drawn[0] < 2**31 - 1


def test_step_wait_without_step_async_is_refused():
    vec = adapter(num_envs=2)
    vec.seed(0)
    vec.reset()
    with pytest.raises(RuntimeError, match="step_wait"):
        vec.step_wait()


def test_it_wraps_only_a_vector_env():
    from newmarket_env.train.vec import SB3VecEnv

    with pytest.raises(ValueError, match=r"SB3VecEnv wraps a newmarket_env VectorEnv.*got list"):
        SB3VecEnv([])
