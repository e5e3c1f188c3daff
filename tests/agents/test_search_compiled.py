"""``search`` with its worlds and rollouts in C (``CompiledSearch``) against the Python search, decision by decision.

For the same seed both draw the same worlds (the same Mersenne Twister, the
same shuffle) and play the same rollouts (the compiled baselines decide as the
Python ones), so at every decision of whole sessions the candidates' mean chip
results must be equal to the last bit, and the chosen actions with them.
"""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env import env as make_env
from newmarket_env.agents import load_agent
from newmarket_env.agents.search import SearchAgent
from newmarket_env.engine.choice import FastGame
from newmarket_env.engine.types import Decision
from newmarket_env.observation.view import decode

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")


def compare_session(variant: str, seed: int, rollout: str, budget: int = 3, **overrides) -> set[Decision]:
    """Seat 0 is searched by both engines at every decision; the others play control. Decision kinds seen."""
    e = make_env(variant=variant, num_players=4, **overrides)
    e.reset(seed=seed)
    python = SearchAgent(e.unwrapped.rules, seed=seed, budget=budget, rollout=rollout, engine="python")
    compiled = SearchAgent(e.unwrapped.rules, seed=seed, budget=budget, rollout=rollout, engine="compiled")
    assert compiled._worlds is not None and python._worlds is None
    others = [load_agent("control", env=e, seed=seed + s) for s in range(4)]
    for agent in [python, compiled, *others]:
        agent.reset()
    seen = set()
    for agent in e.agent_iter():
        observation, _reward, termination, truncation, _info = e.last()
        if termination or truncation:
            e.step(None)
            continue
        if agent != "player_0":
            e.step(others[int(agent[-1])].act(observation))
            continue
        view = decode(observation)
        if len(view.legal) > 1 and view.decision is not Decision.STAKE:
            candidates = python.candidates(view)
            assert compiled.candidates(view) == candidates
            means = python.evaluate(view, candidates)
            np.testing.assert_array_equal(compiled.evaluate(view, candidates), means)
            seen.add(view.decision)
        action = python.act(observation)
        assert compiled.act(observation) == action
        e.step(action)
    return seen


@pytest.mark.parametrize(
    "variant, rollout",
    [
        ("newmarket", "control"),
        ("michigan", "control"),
        ("newbury", "greedy"),
        ("hoyle1885", "lowest"),
        ("arnold2011", "control"),
    ],
)
def test_compiled_search_means_equal_the_python_search(variant, rollout):
    for seed in range(2):
        compare_session(variant, seed, rollout, num_deals=2)


def test_every_searched_decision_kind_is_compared():
    seen = set()
    for seed in range(3):
        seen |= compare_session("michigan", seed, "control", num_deals=2)
        seen |= compare_session("newbury", seed, "control", num_deals=1)
        seen |= compare_session(
            "newmarket", seed, "control", num_deals=1, widow="dealer_buy", lead_after_stop="any_opposite_colour"
        )
    assert {Decision.LEAD, Decision.WIDOW, Decision.BID, Decision.DISCARD, Decision.BUY} <= seen


def test_engine_option():
    rules = make_env(variant="newmarket").unwrapped.rules
    with pytest.raises(ValueError, match=r"engine='c' is unknown; allowed: auto, compiled, python"):
        SearchAgent(rules, engine="c")
    assert SearchAgent(rules, engine="auto")._worlds is not None
