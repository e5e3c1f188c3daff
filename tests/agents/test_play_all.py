"""Every agent plays every preset and player count through the wrapped env without an illegal action."""

import pytest

from newmarket_env import VARIANTS, env, load_agent, make_rules
from newmarket_env.observation.encode import flat_to_planes
from tests.agents.helpers import play

COUNTS = {v: ((4,) if v == "newbury" else (3, 4, 5, 8)) for v in VARIANTS}
CASES = [(v, n) for v in VARIANTS for n in COUNTS[v]]
# Options that bring the other decision kinds and lead rules: chosen stakes, the dealer's purchase,
# Michigan with every lead rule.
EXTRA = [
    ("newmarket", 4, {"stake_mode": "choose", "widow": "dealer_buy"}),
    ("michigan", 5, {"lead_after_stop": "any_opposite_colour"}),
    ("michigan", 4, {"lead_after_stop": "lowest_any_suit", "stake_mode": "choose"}),
    ("arnold2011", 3, {"lead_after_stop": "lowest_other_suit", "widow": "dealer_buy"}),
]
BASELINES = ("lowest", "greedy", "control", "random")


@pytest.mark.parametrize("variant,players", CASES)
def test_baselines_play_legally(variant, players):
    names = [BASELINES[s % len(BASELINES)] for s in range(players)]
    rules = make_rules(variant, players)
    for seed in range(3):
        balances, _ = play(variant, players, names, seed)
        # Chips only move between the players (house stakes create them); and every session moves some.
        if rules.chips_conserved:
            assert sum(balances) == players * rules.starting_chips
        assert balances != [rules.starting_chips] * players


@pytest.mark.parametrize("variant,players", CASES)
def test_search_plays_legally(variant, players):
    names = ["search"] + ["control"] * (players - 1)
    play(variant, players, names, seed=1, kwargs={"budget": 1}, num_deals=2)


@pytest.mark.parametrize("variant,players,overrides", EXTRA)
def test_every_decision_kind_is_answered(variant, players, overrides):
    seen: set[str] = set()
    for name in ("lowest", "greedy", "control"):
        for seed in range(2):
            _, kinds = play(variant, players, [name] * players, seed, **overrides)
            seen |= kinds
    play(variant, players, ["search"] * players, 0, kwargs={"budget": 1}, num_deals=1, **overrides)
    expected = {"lead"} | ({"stake"} if overrides.get("stake_mode") == "choose" else set())
    expected |= {"buy"} if overrides.get("widow") == "dealer_buy" else set()
    expected |= {"widow", "bid"} if variant == "michigan" else set()
    assert expected <= seen


def test_newbury_discards_are_answered():
    _, kinds = play("newbury", 4, ["control", "greedy", "lowest", "search"], 0, kwargs={"budget": 1}, num_deals=1)
    assert {"discard", "lead"} <= kinds


@pytest.mark.parametrize("variant", ["michigan", "newbury"])
def test_agents_choose_the_same_from_the_planes_encoding(variant):
    """At every decision of a session each agent, given the planes encoding of its observation, makes the
    choice a twin (same seed, same history) makes from the flat one."""
    names = ["control", "greedy", "lowest", "search"]
    e = env(variant=variant, num_players=4, num_deals=4)
    twins = [
        (
            load_agent(n, env=e, seed=s, **({"budget": 2} if n == "search" else {})),
            load_agent(n, env=e, seed=s, **({"budget": 2} if n == "search" else {})),
        )
        for s, n in enumerate(names)
    ]
    e.reset(seed=2)
    for flat_agent, planes_agent in twins:
        flat_agent.reset()
        planes_agent.reset()
    compared = 0
    for agent_name in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        flat_agent, planes_agent = twins[int(agent_name.split("_")[1])]
        choice = flat_agent.act(obs)
        planes = {"observation": flat_to_planes(obs["observation"]), "action_mask": obs["action_mask"]}
        assert planes_agent.act(planes) == choice, f"{flat_agent.name} at decision {compared}"
        compared += 1
        e.step(choice)
    assert compared > 20
