"""Dealing (docs/rules.md steps 2 and 3): dealing order, hand sizes, dead hand positions, discards."""

import functools
import operator
import random

import pytest

from newmarket_env import env
from newmarket_env.engine import Decision, Game, Phase
from newmarket_env.engine.dealing import DEAD_SLOT, dealing_order, shuffled_deal
from newmarket_env.game.cards import card_from_text, cards_to_text, mask_from_texts
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import offsets

from .helpers import build_deal, events, play


class UnshuffledRandom(random.Random):
    """A real ``random.Random`` whose shuffle keeps the deck in id order, to see the dealing order."""

    def shuffle(self, x):
        return None


@pytest.mark.parametrize(
    "position,order",
    [
        ("first", [DEAD_SLOT, 2, 3, 0, 1]),
        ("before_dealer", [2, 3, 0, DEAD_SLOT, 1]),
        ("last", [2, 3, 0, 1, DEAD_SLOT]),
    ],
)
def test_dealing_order_starts_at_eldest_with_dead_hand_in_place(position, order):
    rules = make_rules("newmarket", 4, dead_hand_position=position)
    assert dealing_order(rules, dealer=1) == order


def test_dealing_order_without_dead_hand():
    assert dealing_order(make_rules("newmarket", 3, dead_hand="none"), dealer=2) == [0, 1, 2]
    assert dealing_order(make_rules("newbury"), dealer=0) == [1, 2, 3, 0]


def test_cards_dealt_one_at_a_time_round_the_order():
    rules = make_rules("newmarket", 3, dead_hand_position="first")
    dealt = shuffled_deal(rules, dealer=0, rng=UnshuffledRandom())
    # Order: dead, 1, 2, 0; the deck in id order AC 2C 3C 4C 5C ...
    assert cards_to_text(dealt.dead)[:3] == ["AC", "5C", "9C"]
    assert cards_to_text(dealt.hands[1])[:3] == ["2C", "6C", "TC"]
    assert cards_to_text(dealt.hands[2])[:3] == ["3C", "7C", "JC"]
    assert cards_to_text(dealt.hands[0])[:3] == ["4C", "8C", "QC"]


def dealt_sizes(variant, players, seed=5, **overrides):
    """(hand sizes by seat, dead size) of the first shuffled deal (dealer 0)."""
    game = Game(make_rules(variant, players, **overrides), seed=seed)
    deal = game.deals[0]
    return [len(h) for h in deal["hands"]], len(deal["dead"])


@pytest.mark.parametrize(
    "position,sizes,dead",
    [
        ("first", [8, 9, 9, 9, 8], 9),  # 52 over 6 places: dead, 1, 2, 3 get the extra card
        ("before_dealer", [8, 9, 9, 9, 9], 8),  # order 1 2 3 4 dead 0
        ("last", [8, 9, 9, 9, 9], 8),  # order 1 2 3 4 0 dead
    ],
)
def test_hand_sizes_follow_the_dealing_order_five_players(position, sizes, dead):
    assert dealt_sizes("newmarket", 5, dead_hand_position=position) == (sizes, dead)


@pytest.mark.parametrize(
    "position,sizes,dead",
    [
        ("before_dealer", [9, 10, 10, 10], 10),  # 49 cards: 1 2 3 dead get 10, the dealer 9
        ("last", [10, 10, 10, 10], 9),  # 1 2 3 0 get 10, the dead hand 9
        ("first", [9, 10, 10, 10], 10),  # dead 1 2 3 get 10
    ],
)
def test_before_dealer_and_last_differ_on_a_49_card_deck(position, sizes, dead):
    removed = ("2D", "3D", "4D")
    assert dealt_sizes("newmarket", 4, removed_cards=removed, dead_hand_position=position) == (sizes, dead)


def test_hoyle1885_deals_51_cards_eldest_holds_eleven():
    sizes, dead = dealt_sizes("hoyle1885", 4)
    assert (sizes, dead) == ([10, 11, 10, 10], 10)
    game = Game(make_rules("hoyle1885", 4), seed=5)
    assert "8D" not in functools.reduce(operator.iadd, game.deals[0]["hands"], []) + game.deals[0]["dead"]


def test_michigan_dead_first_three_players():
    assert dealt_sizes("michigan", 3) == ([13, 13, 13], 13)
    assert dealt_sizes("michigan", 6) == ([7, 8, 8, 7, 7, 7], 8)  # 52 over 7: dead, 1, 2 get 8


@pytest.mark.parametrize("players,sizes", [(3, [17, 18, 17]), (4, [13] * 4), (5, [10, 11, 11, 10, 10])])
def test_no_dead_hand_deals_everything_to_players(players, sizes):
    assert dealt_sizes("newmarket", players, dead_hand="none") == (sizes, 0)


def test_explicit_deal_may_have_any_hand_sizes():
    rules = make_rules("newmarket", 3, num_deals=1)
    deal = build_deal(rules, 2, {0: "2C", 1: "KS", 2: "3D 4D 5D"})
    game = Game(rules, deals=[deal])
    assert game.deals[0]["hands"] == [["2C"], ["KS"], ["3D", "4D", "5D"]]
    assert len(game.deals[0]["dead"]) == 47 and game.dealer == 2


def newbury_deal():
    """Four 13-card hands: each seat a suit, spades to seat 0 ... clubs to seat 3."""
    ranks = "A23456789TJQK"
    return {"dealer": 0, "dead": [], "hands": [[r + s for r in ranks] for s in "SHDC"]}


def test_newbury_discards_eldest_first_three_each_and_private():
    game = Game(make_rules("newbury", num_deals=1), deals=[newbury_deal()])
    assert game.phase is Phase.DISCARD and game.decision is Decision.DISCARD
    assert [game.pending_for(s) for s in range(4)] == [3, 3, 3, 3]
    play(game, (1, "2H"), (1, "3H"), (1, "4H"), (2, "2D"), (2, "3D"), (2, "4D"), (3, "2C"), (3, "3C"), (3, "4C"))
    assert game.to_act == 0 and game.pending_for(0) == 3
    play(game, (0, "2S"), (0, "3S"))
    # Each seat knows only its own discards; nothing is public yet.
    assert game.known_dead[1] == mask_from_texts(["2H", "3H", "4H"])
    assert game.known_dead[0] == mask_from_texts(["2S", "3S"])
    assert game.public_dead == 0
    play(game, (0, "4S"))  # the last discard; play starts (3 holds the lowest club, 5C)
    assert game.dead == mask_from_texts(["2H", "3H", "4H", "2D", "3D", "4D", "2C", "3C", "4C", "2S", "3S", "4S"])
    assert [e["seat"] for e in events(game, kinds=["discard"])] == [1] * 3 + [2] * 3 + [3] * 3 + [0] * 3
    # The record keeps the hands as dealt, before the discards.
    assert game.deals[0]["hands"] == newbury_deal()["hands"]


def test_discard_count_override_on_newmarket():
    rules = make_rules("newmarket", 3, dead_hand="discard", discard_count=2, num_deals=1)
    deal = build_deal(rules, 0, {0: "2C 3C 4C", 1: "2D 3D 4D"}, rest=2)
    game = Game(rules, deals=[deal])
    assert game.decision is Decision.DISCARD and game.to_act == 1
    play(game, (1, "2D"), (1, "3D"))
    assert game.to_act == 2 and game.pending_for(2) == 2
    assert sorted(game.legal) == sorted(card_from_text(c) for c in deal["hands"][2])


def test_discarding_last_but_one_card_is_allowed_and_hand_sizes_shrink():
    rules = make_rules("newmarket", 3, dead_hand="discard", discard_count=1, num_deals=1)
    deal = build_deal(rules, 0, {1: "2C 3C", 2: "5D 6D"}, rest=0)
    game = Game(rules, deals=[deal])
    play(game, (1, "3C"), (2, "6D"))
    assert game.hand_sizes[1:] == [1, 1]


def known_dead_plane(e, agent):
    """The viewer's known-dead card plane of the flat observation."""
    return e.observe(agent)["observation"][offsets()["known_dead"]]


def test_discards_are_private_in_the_observations():
    e = env(variant="newbury", num_deals=1)
    e.reset(seed=0, options={"deals": [newbury_deal()]})
    for card in ("2H", "3H"):
        e.step(card_from_text(card))
    mine, theirs = known_dead_plane(e, "player_1"), known_dead_plane(e, "player_2")
    assert mine[card_from_text("2H")] == 1 and mine[card_from_text("3H")] == 1 and mine.sum() == 2
    assert theirs.sum() == 0


def test_exchanged_hand_is_known_only_to_the_taker():
    e = env(variant="michigan", num_players=3, num_deals=1)
    rules = e.unwrapped.rules
    e.reset(seed=0, options={"deals": [build_deal(rules, 0, {0: "2C 3C", 1: "2D 3D 9S", 2: "2H 3H"})]})
    e.step(53)  # the dealer exchanges
    assert known_dead_plane(e, "player_0")[[card_from_text("2C"), card_from_text("3C")]].tolist() == [1, 1]
    assert known_dead_plane(e, "player_1").sum() == 0


def test_present_forced_asks_single_action_decisions_too():
    rules = make_rules("newmarket", 3, num_deals=1)
    deal = build_deal(rules, 0, {1: "2C", 2: "3H 4H", 0: "5S"})
    assert Game(rules, deals=[deal]).over  # forced lead taken automatically
    game = Game(rules, deals=[deal], present_forced=True)
    assert (game.to_act, game.legal) == (1, [card_from_text("2C")])
    game.apply(card_from_text("2C"))
    assert game.over
