"""The five presets of docs/rules.md: their parameter table, and one hand-built deal each."""

import pytest

from newmarket_env.engine import Game
from newmarket_env.game.rules import VARIANTS, make_rules

from .helpers import build_deal, chip_total, events, legal_texts, play, plays, stops

TABLE = {
    "newmarket": dict(
        removed_cards=(),
        ace_high=False,
        boodles=("AS", "KH", "QC", "JD"),
        pot_ante=1,
        boodle_stake=4,
        stake_mode="spread",
        dealer_stake_multiplier=1,
        dead_hand="dealt",
        dead_hand_position="last",
        widow="none",
        first_lead="eldest",
        lead_after_stop="lowest_other_suit",
        per_card_payment=1,
        leftover="lot",
        starting_chips=40,
    ),
    "michigan": dict(
        removed_cards=(),
        ace_high=True,
        boodles=("AH", "KC", "QD", "JS"),
        pot_ante=0,
        boodle_stake=1,
        stake_mode="each",
        dealer_stake_multiplier=1,
        dead_hand="dealt",
        dead_hand_position="first",
        widow="dealer_or_auction",
        min_bid=1,
        max_bid=20,
        first_lead="eldest",
        lead_after_stop="lowest_opposite_colour",
        per_card_payment=1,
        leftover="lot",
        starting_chips=40,
    ),
    "newbury": dict(
        removed_cards=(),
        ace_high=False,
        boodles=("TC", "JD", "QS", "KH"),
        pot_ante=0,
        stake_mode="house",
        house_pot=4,
        house_boodle=1,
        dealer_stake_multiplier=1,
        dead_hand="discard",
        discard_count=3,
        widow="none",
        first_lead="lowest_club",
        lead_after_stop="any_opposite_colour",
        per_card_payment=0,
        leftover="vanish",
        starting_chips=0,
    ),
    "hoyle1885": dict(
        removed_cards=("8D",),
        ace_high=False,
        boodles=("AS", "KH", "QC", "JD"),
        pot_ante=0,
        boodle_stake=4,
        stake_mode="spread",
        dealer_stake_multiplier=2,
        dead_hand="dealt",
        dead_hand_position="before_dealer",
        widow="none",
        first_lead="eldest",
        lead_after_stop="lowest_any_suit",
        per_card_payment=1,
        leftover="lot",
        starting_chips=40,
    ),
    "arnold2011": dict(
        removed_cards=(),
        ace_high=False,
        boodles=("KH", "QS", "JD", "TC"),
        pot_ante=1,
        boodle_stake=4,
        stake_mode="spread",
        dealer_stake_multiplier=1,
        dead_hand="dealt",
        dead_hand_position="last",
        widow="none",
        first_lead="eldest",
        lead_after_stop="lowest_any_suit",
        per_card_payment=0,
        leftover="lot",
        starting_chips=40,
    ),
}


@pytest.mark.parametrize("variant", sorted(TABLE))
def test_preset_parameters_match_the_rules_table(variant):
    rules = make_rules(variant)
    data = rules.to_dict()
    for name, value in TABLE[variant].items():
        assert data[name] == (list(value) if isinstance(value, tuple) else value), name
    expected_deals = 12 if variant == "newbury" else 4
    assert (rules.num_players, rules.num_deals) == (4, expected_deals)


def test_every_preset_is_in_the_table():
    assert set(VARIANTS) == set(TABLE)


@pytest.mark.parametrize("variant", ["newmarket", "michigan", "hoyle1885", "arnold2011"])
@pytest.mark.parametrize("players", [3, 8])
def test_player_range_and_one_deal_per_player(variant, players):
    assert make_rules(variant, players).num_deals == players


def test_newbury_is_for_exactly_four():
    for players in (3, 5):
        with pytest.raises(ValueError, match="num_players"):
            make_rules("newbury", players)
    assert make_rules("newbury", num_deals=24).num_deals == 24


def test_newmarket_deal():
    rules = make_rules("newmarket", 4, num_deals=1)
    deal = build_deal(rules, 0, {1: "2H 3H 9C 5D", 2: "4H QC", 3: "JC 6D", 0: "TC KC 7D 2S 3C"})
    game = Game(rules, deals=[deal], lots=[1, 2, 3])
    play(game, (1, "9C"))  # choices were 2H, 5D, 9C
    assert legal_texts(game) == ["2S", "7D"]  # 0 stopped on KC: lowest of another suit, not 3C
    play(game, (0, "2S"), (0, "7D"))  # then 3C is the only other suit left: forced, and 0 is out
    assert plays(game) == [
        (1, "9C", True),
        (0, "TC", False),
        (3, "JC", False),
        (2, "QC", False),
        (0, "KC", False),
        (0, "2S", True),
        (0, "7D", True),
        (0, "3C", True),
    ]
    assert stops(game) == [(0, "KC", None, "top"), (0, "2S", "3S", "dead"), (0, "7D", "8D", "dead")]
    assert events(game, kinds=["boodle", "pot", "payment"]) == [
        {"type": "boodle", "seat": 2, "boodle": 2, "card": "QC", "amount": 4},
        {"type": "pot", "seat": 0, "amount": 4},
        {"type": "payment", "from": 1, "to": 0, "amount": 3, "reason": "cards"},
        {"type": "payment", "from": 2, "to": 0, "amount": 1, "reason": "cards"},
        {"type": "payment", "from": 3, "to": 0, "amount": 1, "reason": "cards"},
    ]
    assert game.balances == [44, 32 + 4, 38 + 4, 34 + 4] and chip_total(game) == 160


def test_michigan_deal():
    rules = make_rules("michigan", 4, num_deals=1)
    deal = build_deal(rules, 0, {1: "QH KH 5C 9S", 2: "AH 6C 8S", 3: "2D 3D", 0: "4S 7C"})
    game = Game(rules, deals=[deal], lots=[0, 0, 0])
    play(game, (0, "keep"), (1, "pass"), (2, "pass"), (3, "pass"))
    assert sorted(game.legal) == [4, 37, 47]  # 5C, QH (ace high: the lowest heart), 9S
    play(game, (1, "QH"))
    assert (game.to_act, legal_texts(game)) == (2, ["6C", "8S"])  # AH is the top: 2 stops and leads black
    play(game, (2, "6C"))
    # 0 follows 7C and stops; nobody left of 0 holds
    # red until 3, who leads 2D and goes out on 3D.
    assert plays(game) == [
        (1, "QH", True),
        (1, "KH", False),
        (2, "AH", False),
        (2, "6C", True),
        (0, "7C", False),
        (3, "2D", True),
        (3, "3D", False),
    ]
    assert stops(game) == [(2, "AH", None, "top"), (0, "7C", "8C", "dead")]
    assert events(game, kinds=["boodle", "payment"]) == [
        {"type": "boodle", "seat": 2, "boodle": 0, "card": "AH", "amount": 4},
        {"type": "payment", "from": 0, "to": 3, "amount": 1, "reason": "cards"},
        {"type": "payment", "from": 1, "to": 3, "amount": 2, "reason": "cards"},
        {"type": "payment", "from": 2, "to": 3, "amount": 1, "reason": "cards"},
    ]
    assert game.balances == [35 + 12, 34, 39, 40]


def test_hoyle1885_deal():
    rules = make_rules("hoyle1885", 4, num_deals=1)
    deal = build_deal(rules, 0, {1: "6D 7D 2S 9H", 2: "9D AS", 3: "3H", 0: "4H 5C"})
    game = Game(rules, deals=[deal], lots=[2, 2, 3, 3])
    # No pot; 1 chip per boodle each, the dealer 2 per boodle.
    assert game.boodle_stacks == [5, 5, 5, 5] and game.pot == 0 and game.balances == [32, 36, 36, 36]
    play(game, (1, "6D"), (1, "9H"))
    assert plays(game) == [(1, "6D", True), (1, "7D", False), (1, "9H", True), (1, "2S", True)]
    assert stops(game) == [(1, "7D", "8D", "removed"), (1, "9H", "TH", "dead")]
    assert events(game, kinds=["payment"]) == [
        {"type": "payment", "from": 0, "to": 1, "amount": 2, "reason": "cards"},
        {"type": "payment", "from": 2, "to": 1, "amount": 2, "reason": "cards"},
        {"type": "payment", "from": 3, "to": 1, "amount": 1, "reason": "cards"},
    ]
    assert game.balances == [30, 41, 34 + 10, 35 + 10]


def test_arnold2011_deal():
    rules = make_rules("arnold2011", 4, num_deals=1)
    deal = build_deal(rules, 0, {1: "9C 2D", 2: "TC 3D", 3: "4D", 0: "5S"})
    game = Game(rules, deals=[deal], lots=[0, 0, 0])
    play(game, (1, "9C"))
    # 2 follows TC (a boodle), stops, leads its last card 3D (forced) and is out; no card payments.
    assert plays(game) == [(1, "9C", True), (2, "TC", False), (2, "3D", True)]
    assert stops(game) == [(2, "TC", "JC", "dead")]
    assert events(game, kinds=["boodle", "out", "pot", "payment"]) == [
        {"type": "boodle", "seat": 2, "boodle": 3, "card": "TC", "amount": 4},
        {"type": "out", "seat": 2},
        {"type": "pot", "seat": 2, "amount": 4},
    ]
    assert game.balances == [35 + 12, 35, 43, 35]


def test_newbury_deal():
    suits = {0: "S", 1: "H", 2: "D", 3: "C"}
    hands = [[r + suits[s] for r in "A23456789TJQK"] for s in range(4)]
    game = Game(make_rules("newbury", num_deals=1), deals=[{"dealer": 0, "hands": hands, "dead": []}])
    assert game.pot == 4 and game.boodle_stacks == [1, 1, 1, 1] and game.balances == [0, 0, 0, 0]
    play(
        game,
        (1, "2H"),
        (1, "3H"),
        (1, "4H"),
        (2, "2D"),
        (2, "3D"),
        (2, "4D"),
        (3, "2C"),
        (3, "6C"),
        (3, "TC"),
        (0, "2S"),
        (0, "3S"),
        (0, "4S"),
    )
    # 3C leads by itself (lowest club in play), runs to 5C, stops on the discarded 6C.
    assert plays(game) == [(3, "3C", True), (3, "4C", False), (3, "5C", False)]
    assert stops(game) == [(3, "5C", "6C", "dead")]
    # Any red card but a boodle: 3 and 0 hold none, the lead passes to 1 (hearts, not KH).
    assert game.to_act == 1 and sorted(game.legal) == [26, *list(range(30, 38))]
    play(game, (1, "AH"))
    assert stops(game)[-1] == (1, "AH", "2H", "dead")
    assert game.to_act == 3  # black: 1 and 2 hold none, 3 holds clubs (0's spades come later round)


@pytest.mark.parametrize(
    "variant,overrides",
    [
        ("newmarket", dict(widow="dealer_buy", widow_fee=4)),
        ("michigan", dict(boodles=["AS", "KS", "QS", "JS"])),
        ("michigan", dict(dealer_stake_multiplier=2)),
        ("newmarket", dict(stake_mode="choose")),
        ("newmarket", dict(dead_hand="none")),
        ("newmarket", dict(boodles=("KD", "QS", "JC", "TH"))),
        ("newmarket", dict(boodles=("AH", "KD", "QS", "JC"))),
        ("newmarket", dict(boodles=("KC", "KD", "KH", "KS"))),
    ],
)
def test_options_the_sources_name_are_reachable_by_override(variant, overrides):
    rules = make_rules(variant, **overrides)
    for name, value in overrides.items():
        expected = tuple(value) if isinstance(value, list) else value
        assert getattr(rules, name) == expected
    game = Game(rules, seed=4)
    while not game.over:
        game.apply(game.legal[-1])
    assert game.deal_index == rules.num_deals
