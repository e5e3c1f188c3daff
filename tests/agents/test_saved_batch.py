"""``SavedAgent.act_batch``: one forward pass for many observations, choosing as ``act`` does row by row."""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env import env, load_agent
from newmarket_env.agents.saved import TRAINED_DIR, load_saved_agent
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import make_rules


def real_decisions(variant, players, sessions=20):
    """(observations, masks) of every decision of a few sessions of random play."""
    e = env(variant=variant, num_players=players)
    rng = np.random.default_rng(0)
    observations, masks = [], []
    for seed in range(sessions):
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _r, done, trunc, _i = e.last()
            if done or trunc:
                e.step(None)
                continue
            observations.append(obs["observation"])
            masks.append(obs["action_mask"])
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return np.stack(observations), np.stack(masks)


@pytest.mark.parametrize("name, variant, players", [("ppo-newmarket", "newmarket", 4), ("ppo-michigan", "michigan", 4)])
def test_batched_choices_equal_single_choices_on_real_decisions(name, variant, players):
    observations, masks = real_decisions(variant, players)
    agent = load_saved_agent(TRAINED_DIR / f"{name}.npz", make_rules(variant, players))
    single = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks, strict=True)]
    batched = agent.act_batch(observations, masks)
    assert len(observations) > 500
    assert batched.dtype.kind == "i" and list(batched) == single
    assert all(masks[i, a] for i, a in enumerate(batched))
    # a batch's composition does not change a row's choice
    assert list(agent.act_batch(observations[::-1], masks[::-1]))[::-1] == single


def test_sampling_draws_the_same_stream_as_act():
    observations, masks = real_decisions("newmarket", 4, sessions=2)
    rules = make_rules("newmarket", 4)
    one = load_saved_agent(TRAINED_DIR / "ppo-newmarket.npz", rules, seed=5, sample=True)
    two = load_saved_agent(TRAINED_DIR / "ppo-newmarket.npz", rules, seed=5, sample=True)
    single = [one.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks, strict=True)]
    assert list(two.act_batch(observations, masks)) == single
    assert len(set(single)) > 5


def test_bad_masks_are_refused():
    e = env(variant="newmarket", num_players=4)
    agent = load_agent("ppo-newmarket", env=e)
    obs = np.zeros((2, 936), dtype=np.float32)
    with pytest.raises(ValueError, match=r"masks must be \(B, 79\) with a legal action in every row; got shape"):
        agent.act_batch(obs, np.zeros((2, NUM_ACTIONS), dtype=np.int8))
    with pytest.raises(ValueError, match=r"masks must be \(B, 79\)"):
        agent.act_batch(obs, np.ones((2, 5), dtype=np.int8))
