"""The compiled baselines (``engine/_policies.pyx``) against the Python reference classes, decision by decision.

Every seat of a session holds the Python agent and the compiled agent of the
same baseline with the same seed; at each decision both are asked, their
choices must be equal, and the session goes on with it. Sessions cover every
preset at several player counts and random rule overrides (every lead rule,
stake mode, widow and auction), so every decision kind and both random paths
(``random``'s pick, ``control``'s sampled widows) are compared.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newmarket_env.agents import load_agent
from newmarket_env.agents.compiled import CompiledPolicyAgent
from newmarket_env.engine import Game
from newmarket_env.engine.choice import FastGame
from newmarket_env.engine.types import Decision
from newmarket_env.game.rules import VARIANTS, make_rules
from newmarket_env.observation.encode import encode_flat, static_part
from tests.engine.test_properties import rule_sets

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

BASELINES = ("random", "lowest", "greedy", "control")


class _RulesOnly:
    """What load_agent reads from an env: the rules."""

    def __init__(self, rules) -> None:
        self.rules = rules


def play_compared(rules, name: str, seed: int, present_forced: bool = False) -> dict[Decision, int]:
    """One session with ``name`` at every seat, Python and compiled asked side by side; decisions per kind."""
    holder = _RulesOnly(rules)
    python = [load_agent(name, env=holder, seed=seed + s, engine="python") for s in range(rules.num_players)]
    compiled = [load_agent(name, env=holder, seed=seed + s) for s in range(rules.num_players)]
    assert all(isinstance(agent, CompiledPolicyAgent) for agent in compiled)
    for agent in python + compiled:
        agent.reset()
    game = Game(rules, seed=seed, record_events=False, present_forced=present_forced)
    static = static_part(rules)
    counts: dict[Decision, int] = {}
    while not game.over:
        seat = game.to_act
        mask = np.zeros(79, dtype=np.int8)
        mask[game.legal] = 1
        observation = {"observation": encode_flat(game, seat, static), "action_mask": mask}
        expected, got = python[seat].act(observation), compiled[seat].act(observation)
        assert got == expected, f"{name} seat {seat} deciding {game.decision.value}: compiled {got}, python {expected}"
        counts[game.decision] = counts.get(game.decision, 0) + 1
        game.apply(expected)
    return counts


@pytest.mark.parametrize("name", BASELINES)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_presets_decide_alike(name, variant):
    low, high = VARIANTS[variant].players
    for players in sorted({low, high, min(high, 4)}):
        rules = make_rules(variant, num_players=players)
        for seed in range(3):
            play_compared(rules, name, seed * 97 + players)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(), st.sampled_from(BASELINES), st.integers(0, 2**31), st.booleans())
def test_overrides_decide_alike(rules_variant, name, seed, present_forced):
    rules, _ = rules_variant
    play_compared(rules, name, seed, present_forced)


def test_every_decision_kind_is_compared():
    """The cases above must reach widows, purchases, auctions, discards, chosen stakes and leads."""
    seen: set[Decision] = set()
    cases = [
        ("michigan", {}),
        ("newbury", {}),
        ("newmarket", {"widow": "dealer_buy"}),
        ("newmarket", {"stake_mode": "choose"}),
    ]
    for variant, overrides in cases:
        rules = make_rules(variant, num_players=4, **overrides)
        for seed in range(20):
            for name in ("control", "greedy"):
                seen |= set(play_compared(rules, name, seed))
    assert seen == set(Decision)


def test_widow_sampling_matches_the_reference_draws():
    """The reference's sample_widow is a partial Fisher-Yates on random.Random: check it by hand once."""
    from newmarket_env.agents.hand_value import sample_widow

    pool = [3, 7, 11, 20, 30]
    rng, mirror = random.Random(5), random.Random(5)
    widow = sample_widow(pool, 2, rng)
    cards = [3, 7, 11, 20, 30]
    j = mirror.randrange(5)
    cards[0], cards[j] = cards[j], cards[0]
    j = 1 + mirror.randrange(4)
    cards[1], cards[j] = cards[j], cards[1]
    assert widow == (1 << cards[0]) | (1 << cards[1])
    assert pool == cards


def test_compiled_agent_refuses_an_empty_mask():
    rules = make_rules("newmarket", num_players=4)
    agent = load_agent("greedy", env=_RulesOnly(rules), seed=0)
    with pytest.raises(ValueError, match="no legal action"):
        agent.act({"observation": np.zeros(936, dtype=np.float32), "action_mask": np.zeros(79, dtype=np.int8)})


def test_engine_option_is_checked():
    with pytest.raises(ValueError, match=r"engine='fast' is unknown; allowed: auto, compiled, python"):
        load_agent("control", env=_RulesOnly(make_rules("newmarket", num_players=4)), engine="fast")
