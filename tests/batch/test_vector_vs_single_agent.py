"""``VectorEnv`` against ``SingleAgentEnv`` itself, decision by decision, on the same cards.

Table ``i`` of a vector env reset with ``seed`` deals its first session from
``random.Random(table_seed(seed, i))``, as a ``SingleAgentEnv`` whose session is dealt with the
AEC seed ``table_seed(seed, i)`` does. With the learner at the same fixed seat and the same
deterministic baseline at every other seat (compiled in the vector env, the Python agent in the
single-agent env), both views must show the learner the same observations and masks, pay it the
same rewards and end the session at the same step with the same result. The two views share the
learner-seat rules (``LearnerSeat``, ``LearnerReward``); ``tests/batch/test_vector_env.py`` holds
those rules to a reference written in the test.
"""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env.engine.choice import FastGame
from newmarket_env.envs.single_agent import SingleAgentEnv

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

SEED = 3


def pinned_single_agent_env(table: int, **keywords) -> SingleAgentEnv:
    """A single-agent env whose sessions are dealt as vector table ``table``'s first session is."""
    from newmarket_env.engine._batch import table_seed

    env = SingleAgentEnv(**keywords)
    deal = env.aec.reset

    def reset(seed=None, options=None):
        deal(seed=table_seed(SEED, table), options=options)

    env.aec.reset = reset  # type: ignore[method-assign]
    return env


@pytest.mark.parametrize(
    ("variant", "players", "seat", "opponent"),
    [
        ("newmarket", 4, 2, "greedy"),
        ("michigan", 5, 0, "lowest"),
        ("newbury", 4, 3, "greedy"),
        ("michigan", 3, 1, "greedy"),
    ],
)
def test_each_table_plays_its_first_session_as_the_single_agent_env(variant, players, seat, opponent):
    from newmarket_env.envs.vector import VectorEnv

    tables = 5
    keywords = dict(variant=variant, num_players=players, opponents=[opponent], seat=seat, reward_scale=0.25)
    vector = VectorEnv(num_envs=tables, seed=0, **keywords)
    obs, infos = vector.reset(seed=SEED)
    singles = [pinned_single_agent_env(i, **keywords) for i in range(tables)]
    for i, single in enumerate(singles):
        first, info = single.reset(seed=i)
        np.testing.assert_array_equal(obs[i], first, err_msg=f"table {i} after reset")
        assert infos["seat"][i] == info["seat"] == seat
    rng = np.random.default_rng(players)
    live = set(range(tables))
    decisions = 0
    while live:
        masks = vector.action_masks()
        for i in live:
            np.testing.assert_array_equal(masks[i], singles[i].action_masks(), err_msg=f"table {i} mask")
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        obs, rewards, terminated, _truncated, infos = vector.step(actions)
        for i in sorted(live):
            where = f"{variant} {players}p table {i} decision {decisions}"
            single_obs, reward, done, _, info = singles[i].step(int(actions[i]))
            assert rewards[i] == reward and bool(terminated[i]) == done, where
            if done:
                np.testing.assert_array_equal(infos["final_obs"][i], single_obs, err_msg=where)
                assert infos["final_info"]["chips"][i] == info["chips"], where
                assert list(infos["final_info"]["seat_specs"][i]) == singles[i].table, where
                live.discard(i)
            else:
                np.testing.assert_array_equal(obs[i], single_obs, err_msg=where)
        decisions += 1
    assert decisions >= 5, "the sessions must be played, not ended at once"
