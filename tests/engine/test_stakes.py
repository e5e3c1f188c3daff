"""Stakes (docs/rules.md step 1): spread, each, choose, house, pot_ante, dealer multiplier, carry-over."""

import pytest

from newmarket_env.engine import Decision, Game, Phase
from newmarket_env.game.rules import make_rules

from .helpers import build_deal, chip_total, events, legal_texts, out_at_once, play


def stake_events(game, deal=-1):
    return [(e["seat"], e["target"], e.get("boodle"), e["amount"]) for e in events(game, deal, ["stake"])]


def test_spread_even_with_pot_ante_three_players():
    rules = make_rules("newmarket", 3, num_deals=1)
    game = Game(rules, deals=[out_at_once(rules)], lots=[0, 1, 2, 0])
    assert stake_events(game)[:3] == [(1, "pot", None, 1), (2, "pot", None, 1), (0, "pot", None, 1)]
    assert stake_events(game)[3:] == [(s, "boodle", b, 1) for s in (1, 2, 0) for b in range(4)]
    # Seat 1 leads 2C and is out: pot 3, seat 2 pays 2 cards, seat 0 pays 1 card.
    assert events(game, kinds=["out", "pot", "payment"]) == [
        {"type": "out", "seat": 1},
        {"type": "pot", "seat": 1, "amount": 3},
        {"type": "payment", "from": 0, "to": 1, "amount": 1, "reason": "cards"},
        {"type": "payment", "from": 2, "to": 1, "amount": 2, "reason": "cards"},
    ]
    # Each boodle holds 3 chips at the end; lots give them to seats 0, 1, 2, 0.
    assert events(game, kinds=["leftover"]) == [
        {"type": "leftover", "stack": "boodle", "seat": s, "amount": 3, "boodle": b} for b, s in enumerate([0, 1, 2, 0])
    ]
    assert game.balances == [34 + 3 + 3, 41 + 3, 33 + 3]
    assert game.deals[0]["chips"] == game.balances


@pytest.mark.parametrize("stake,split", [(6, [2, 2, 1, 1]), (3, [1, 1, 1, 0]), (1, [1, 0, 0, 0]), (9, [3, 2, 2, 2])])
def test_spread_uneven_puts_extra_chips_on_first_boodles(stake, split):
    rules = make_rules("newmarket", 4, num_deals=1, boodle_stake=stake, pot_ante=0)
    game = Game(rules, deals=[out_at_once(rules)])
    expected = [(s, "boodle", b, split[b]) for s in (1, 2, 3, 0) for b in range(4) if split[b]]
    assert stake_events(game) == expected


def test_spread_dealer_multiplier_on_pot_and_every_boodle():
    rules = make_rules("newmarket", 3, num_deals=1, boodle_stake=6, pot_ante=2, dealer_stake_multiplier=3)
    game = Game(rules, deals=[out_at_once(rules, dealer=2)], lots=[0, 0, 0, 0])
    # Dealer 2, eldest 0: antes 2, 2, 6; boodles 2 2 1 1 each, tripled for the dealer.
    assert stake_events(game) == [
        (0, "pot", None, 2),
        (1, "pot", None, 2),
        (2, "pot", None, 6),
        (0, "boodle", 0, 2),
        (0, "boodle", 1, 2),
        (0, "boodle", 2, 1),
        (0, "boodle", 3, 1),
        (1, "boodle", 0, 2),
        (1, "boodle", 1, 2),
        (1, "boodle", 2, 1),
        (1, "boodle", 3, 1),
        (2, "boodle", 0, 6),
        (2, "boodle", 1, 6),
        (2, "boodle", 2, 3),
        (2, "boodle", 3, 3),
    ]
    assert game.deals[0]["chips"][2] == 40 - 6 - 18 - 1  # pays one card (5S) to the winner, seat 0


def test_each_puts_stake_on_every_boodle_and_dealer_double():
    rules = make_rules("michigan", 3, num_deals=1, widow="none", boodle_stake=2, dealer_stake_multiplier=2)
    game = Game(rules, deals=[out_at_once(rules, dealer=1)], lots=[2, 2, 2, 2])
    assert stake_events(game) == [(s, "boodle", b, 2 * (1 + (s == 1))) for s in (2, 0, 1) for b in range(4)]
    assert game.deals[0]["chips"][1] == 40 - 16 - 1  # 4 chips on each boodle, one card (5S) paid


def test_choose_a_decision_per_chip_eldest_first_dealer_last_after_antes():
    rules = make_rules("newmarket", 3, num_deals=1, stake_mode="choose", boodle_stake=2, dealer_stake_multiplier=2)
    game = Game(rules, deals=[out_at_once(rules, dealer=0)])
    # Every automatic pot ante is paid before the first choice.
    assert stake_events(game) == [(1, "pot", None, 1), (2, "pot", None, 1), (0, "pot", None, 2)]
    assert game.phase is Phase.STAKE and game.decision is Decision.STAKE
    assert legal_texts(game) == ["stake 0", "stake 1", "stake 2", "stake 3"]
    assert [game.pending_for(s) for s in range(3)] == [2, 2, 2]
    play(game, (1, "stake 3"), (1, "stake 3"), (2, "stake 0"), (2, "stake 1"), (0, "stake 2"))
    assert game.pending_for(0) == 1 and game.boodle_stacks == [1, 1, 2, 2]
    play(game, (0, "stake 2"))
    assert stake_events(game)[3:] == [
        (1, "boodle", 3, 1),
        (1, "boodle", 3, 1),
        (2, "boodle", 0, 1),
        (2, "boodle", 1, 1),
        (0, "boodle", 2, 2),
        (0, "boodle", 2, 2),
    ]
    assert game.over and game.boodle_stacks == [0, 0, 0, 0]  # session over: stacks drawn by lot


def test_choose_with_zero_stake_asks_nothing():
    rules = make_rules("newmarket", 3, num_deals=1, stake_mode="choose", boodle_stake=0)
    game = Game(rules, deals=[out_at_once(rules)])
    assert game.over and stake_events(game) == [(1, "pot", None, 1), (2, "pot", None, 1), (0, "pot", None, 1)]


def test_house_stakes_nobody_pays_and_multiplier_ignored():
    rules = make_rules(
        "newmarket",
        3,
        num_deals=1,
        stake_mode="house",
        house_pot=5,
        house_boodle=2,
        dealer_stake_multiplier=3,
        leftover="vanish",
    )
    game = Game(rules, deals=[out_at_once(rules)])
    assert stake_events(game) == [(None, "pot", None, 5)] + [(None, "boodle", b, 2) for b in range(4)]
    # Seat 1 out: takes the house pot 5 and 2 + 1 card payments; boodles vanish.
    assert game.balances == [39, 48, 38]
    assert events(game, kinds=["leftover"]) == [
        {"type": "leftover", "stack": "boodle", "seat": None, "amount": 2, "boodle": b} for b in range(4)
    ]


def test_newbury_house_defaults_pot_four_boodles_one():
    rules = make_rules("newbury", num_deals=1)
    assert (rules.house_pot, rules.house_boodle, rules.starting_chips) == (4, 1, 0)


def test_boodle_chips_carry_over_and_new_stakes_go_on_top():
    rules = make_rules("newmarket", 3, num_deals=2)
    first = out_at_once(rules, dealer=0)  # nobody takes a boodle: 3 chips stay on each
    second = build_deal(rules, 1, {2: "QC", 0: "3H", 1: "4H"})  # eldest 2 leads the boodle QC and is out
    game = Game(rules, deals=[first, second], lots=[0, 1, 2])
    assert game.deals[0]["chips"] == [34, 41, 33]
    assert events(game, 1, ["boodle"]) == [{"type": "boodle", "seat": 2, "boodle": 2, "card": "QC", "amount": 6}]
    # Deal 2: each pays 1 + 4 again; seat 2 takes boodle QC (6), pot 3 and one chip from each;
    # the other boodles (6 chips each) go by lot to seats 0, 1, 2.
    assert events(game, 1, ["leftover"]) == [
        {"type": "leftover", "stack": "boodle", "seat": s, "amount": 6, "boodle": b}
        for b, s in ((0, 0), (1, 1), (3, 2))
    ]
    assert game.deals[1]["chips"] == [34 - 5 - 1 + 6, 41 - 5 - 1 + 6, 33 - 5 + 6 + 3 + 2 + 6]
    assert chip_total(game) == 120
