"""Settlement (docs/rules.md steps 8 and 10): per-card payments, leftover lot and vanish, deals and dealers."""

import pytest

from newmarket_env import env
from newmarket_env.engine import Game
from newmarket_env.game.rules import make_rules

from .helpers import build_deal, chip_total, events, out_at_once


@pytest.mark.parametrize("per_card", [0, 1, 2])
def test_per_card_payment(per_card):
    rules = make_rules("newmarket", 4, num_deals=1, per_card_payment=per_card)
    game = Game(rules, deals=[out_at_once(rules, 0)], lots=[0] * 5)
    expected = (
        [
            {"type": "payment", "from": s, "to": 1, "amount": per_card * c, "reason": "cards"}
            for s, c in ((0, 3), (2, 2), (3, 1))
        ]
        if per_card
        else []
    )
    assert events(game, kinds=["payment"]) == expected
    assert game.balances[1] == 35 + 4 + per_card * 6


def test_leftover_lot_gives_each_stack_whole_to_the_drawn_seat():
    rules = make_rules("newmarket", 4, num_deals=1, lead_after_stop="any_opposite_colour")
    blocked = build_deal(rules, 0, {1: "2C 3C 5C", 2: "6S", 3: "7S", 0: "2S"})  # nobody can lead red
    game = Game(rules, deals=[blocked], lots=[3, 1, 1, 0, 2])
    assert events(game, kinds=["leftover"]) == [
        {"type": "leftover", "stack": "boodle", "seat": 3, "amount": 4, "boodle": 0},
        {"type": "leftover", "stack": "boodle", "seat": 1, "amount": 4, "boodle": 1},
        {"type": "leftover", "stack": "boodle", "seat": 1, "amount": 4, "boodle": 2},
        {"type": "leftover", "stack": "boodle", "seat": 0, "amount": 4, "boodle": 3},
        {"type": "leftover", "stack": "pot", "seat": 2, "amount": 4},
    ]
    assert game.balances == [35 + 4, 35 + 8, 35 + 4, 35 + 4]
    assert chip_total(game) == 160 and game.pot == 0 and game.boodle_stacks == [0, 0, 0, 0]


def test_leftover_lot_without_given_lots_is_drawn_from_the_seed():
    rules = make_rules("newmarket", 4, num_deals=1)
    draws = set()
    for seed in range(12):
        game = Game(rules, seed=seed, deals=[out_at_once(rules, 0)])
        again = Game(rules, seed=seed, deals=[out_at_once(rules, 0)])
        assert game.deals == again.deals
        draws |= {e["seat"] for e in events(game, kinds=["leftover"])}
        assert chip_total(game) == 160
    assert draws == {0, 1, 2, 3}


def test_leftover_vanish_loses_the_chips():
    rules = make_rules("newmarket", 4, num_deals=1, leftover="vanish")
    game = Game(rules, deals=[out_at_once(rules, 0)])
    assert events(game, kinds=["leftover"]) == [
        {"type": "leftover", "stack": "boodle", "seat": None, "amount": 4, "boodle": b} for b in range(4)
    ]
    assert chip_total(game) == 160 - 16


@pytest.mark.parametrize(
    "variant,players,deals,dealers",
    [
        ("newmarket", 4, None, [0, 1, 2, 3]),
        ("michigan", 3, 5, [0, 1, 2, 0, 1]),
        ("newbury", 4, 6, [0, 1, 2, 3, 0, 1]),
        ("hoyle1885", 5, None, [0, 1, 2, 3, 4]),
    ],
)
def test_num_deals_and_the_deal_rotates_left(variant, players, deals, dealers):
    overrides = {} if deals is None else {"num_deals": deals}
    game = Game(make_rules(variant, players, **overrides), seed=1)
    while not game.over:
        game.apply(game.legal[0])
    assert [d["dealer"] for d in game.deals] == dealers
    assert game.deal_index == len(dealers)


def test_shuffled_deals_after_given_ones_rotate_from_the_last_given_dealer():
    rules = make_rules("newmarket", 3, num_deals=3)
    game = Game(rules, seed=2, deals=[out_at_once(rules, 2)])
    while not game.over:
        game.apply(game.legal[0])
    assert [d["dealer"] for d in game.deals] == [2, 0, 1]


def test_balances_may_go_below_zero():
    rules = make_rules("newmarket", 3, num_deals=1, starting_chips=0, per_card_payment=5)
    game = Game(rules, deals=[out_at_once(rules, 0)], lots=[1] * 5)
    assert game.balances == [-5 - 5, -5 + 3 + 15 + 12, -5 - 10]
    assert sum(game.balances) == 0


def test_chips_after_each_deal_are_recorded():
    rules = make_rules("newmarket", 3, num_deals=2)
    game = Game(rules, deals=[out_at_once(rules, 0), out_at_once(rules, 1)], lots=[0] * 5)
    assert game.deals[0]["chips"] == [34, 41, 33]
    # Deal 2 (dealer 1): eldest 2 out; seat 0 pays 2 cards, seat 1 one card; boodles (6 each) to seat 0.
    assert game.deals[1]["chips"] == [34 - 5 - 2 + 24, 41 - 5 - 1, 33 - 5 + 3 + 3]


def env_totals(e, choose):
    """Run the env to the end with ``choose(legal ids)``; each agent's summed rewards."""
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(max_iter=1000):
        _, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        mask = e.observe(agent)["action_mask"]
        e.step(None if terminated or truncated else choose([i for i, m in enumerate(mask) if m]))
    return totals


def test_env_given_deals_rewards_are_the_balance_changes():
    e = env(variant="newmarket", num_players=3, num_deals=2)
    rules = e.unwrapped.rules
    first = build_deal(rules, 0, {1: "2C 3C 9D", 2: "4C", 0: "5D 6H"})
    e.reset(seed=0, options={"deals": [first, out_at_once(rules, 1)]})
    assert e.agent_selection == "player_1" and e.last()[1] == 0.0
    totals = env_totals(e, min)  # 1 leads 2C; 2 follows 4C and is out
    game = e.unwrapped.game
    assert events(game, 0, ["out"]) == [{"type": "out", "seat": 2}]
    assert [d["dealer"] for d in game.deals] == [0, 1]
    assert [totals[f"player_{s}"] for s in range(3)] == [b - 40 for b in game.balances]
    assert sum(totals.values()) == 0


def test_env_session_that_ends_inside_reset_still_pays_rewards():
    # Every decision is forced, so the session is over before the first agent acts.
    e = env(variant="newmarket", num_players=3, num_deals=1)
    e.reset(seed=0, options={"deals": [out_at_once(e.unwrapped.rules, 0)]})
    game = e.unwrapped.game
    assert game.over and e.agent_selection == "player_0"
    totals = env_totals(e, min)
    assert [totals[f"player_{s}"] for s in range(3)] == [b - 40 for b in game.balances]
    assert not e.agents
