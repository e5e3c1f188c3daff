"""Duplicate evaluation: seats rotated on the same deals; the margin over the opponent itself."""

import pytest

from newmarket_env.agents import load_agent
from newmarket_env.game.rules import make_rules
from newmarket_env.train.evaluate import deal_set, duplicate_eval


def greedy(env, seed):
    return load_agent("greedy", env=env, seed=seed)


def test_an_agent_against_copies_of_itself_has_zero_margin_even_in_house_mode():
    result = duplicate_eval(greedy, "greedy", "newbury", 4, boards=2, rules={"num_deals": 2}, reference=True)
    assert result.mean > 0  # house stakes create chips: every seat gains
    assert result.margin == pytest.approx(0.0) and result.margin_ci95 == pytest.approx(0.0)


def test_zero_sum_rules_give_zero_chips_against_itself():
    result = duplicate_eval(greedy, "greedy", "michigan", 4, boards=2, rules={"num_deals": 2})
    assert result.mean == pytest.approx(0.0) and result.games == 8 and result.margin is None


def test_deal_sets_are_seeded_and_rotate_the_dealer():
    rules = make_rules("newmarket", 4)
    assert deal_set(rules, 5) == deal_set(rules, 5) != deal_set(rules, 6)
    assert [d["dealer"] for d in deal_set(rules, 5)] == [0, 1, 2, 3]
