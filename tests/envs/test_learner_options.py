"""The learner envs' shared options: a reward scale that keeps rewards finite, and action ids that
are integers (a float is refused, never truncated into another action)."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest

from newmarket_env import vector_env
from newmarket_env.envs import SingleAgentEnv

GYM_ID = "stops/Newmarket-v0"
BAD_SCALES = [math.inf, -math.inf, math.nan, 0, -1.0, True, "1"]


def _compiled() -> bool:
    try:
        import newmarket_env.engine._batch  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("scale", BAD_SCALES)
def test_a_reward_scale_that_is_not_a_finite_positive_number_is_refused_everywhere(scale):
    message = rf"^reward_scale={scale!r} is out of range; allowed: a finite number > 0$".replace("(", r"\(")
    makers = [
        lambda: SingleAgentEnv(opponents=["random"], reward_scale=scale),
        lambda: gymnasium.make(GYM_ID, opponents=["random"], reward_scale=scale),
    ]
    if _compiled():
        makers.append(lambda: vector_env(num_envs=2, opponents=["random"], reward_scale=scale))
    for make in makers:
        with pytest.raises(ValueError, match=message):
            make()


def test_a_finite_scale_gives_finite_rewards():
    env = SingleAgentEnv(opponents=["random"], reward_scale=1e-3)
    env.reset(seed=2)
    rewards, done = [], False
    while not done:
        _obs, reward, done, _truncated, _info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        rewards.append(reward)
    assert all(math.isfinite(r) for r in rewards) and any(r != 0 for r in rewards)


@pytest.mark.parametrize("action", [20.7, 20.0, np.float64(3.0), "4", None, True, np.array([1, 2])])
def test_an_action_that_is_not_an_integer_is_refused_and_changes_nothing(action):
    env = SingleAgentEnv(opponents=["random"])
    env.reset(seed=1)
    before = env.aec.record()
    with pytest.raises(ValueError, match=r"is not an action id; allowed: an int 0\.\.78$"):
        env.step(action)
    assert env.aec.record() == before


def test_integer_actions_of_every_kind_are_taken():
    for kind in (int, np.int64, np.int32, lambda a: np.array(a), lambda a: np.array([a])):
        env = SingleAgentEnv(opponents=["random"])
        env.reset(seed=1)
        legal = int(np.flatnonzero(env.action_masks())[0])
        _obs, _reward, _done, _truncated, info = env.step(kind(legal))
        assert info["illegal_action"] is False
