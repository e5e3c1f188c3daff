"""Leads (docs/rules.md steps 5 and 9): first lead, and every lead_after_stop rule with its passing."""

import pytest

from newmarket_env.engine import Decision, Game
from newmarket_env.game.rules import make_rules

from .helpers import build_deal, events, legal_texts, play, plays, stops


def game3(deal_hands, dealer=0, rest="dead", variant="newmarket", **overrides):
    """A one-deal game of 3 players (dealer 0, eldest 1 unless told) with lots to seat 0."""
    overrides.setdefault("num_deals", 1)
    rules = make_rules(variant, 3, **overrides)
    return Game(rules, deals=[build_deal(rules, dealer, deal_hands, rest=rest)], lots=[0] * 5)


# --- the first lead ----------------------------------------------------------------


def test_eldest_first_lead_is_lowest_of_any_suit():
    game = game3({1: "5C 9C 3D KH", 2: "2S", 0: "3S"})
    assert (game.to_act, game.decision) == (1, Decision.LEAD)
    assert legal_texts(game) == ["3D", "5C", "KH"]


def test_first_lead_is_lowest_any_suit_whatever_the_stop_rule():
    game = game3({1: "5C 9C 3D", 2: "2S", 0: "3S"}, lead_after_stop="any_opposite_colour")
    assert legal_texts(game) == ["3D", "5C"]


def test_ace_high_makes_the_ace_the_highest_card_to_lead():
    game = game3({1: "AC 5C AD", 2: "2S", 0: "3S"}, variant="michigan", widow="none")
    assert legal_texts(game) == ["5C", "AD"]


def test_lowest_club_leads_automatically():
    game = game3({1: "5C 9D", 2: "3C 4D", 0: "AC 2D"}, first_lead="lowest_club", dead_hand="none", rest=0)
    # 2C is in seat 0's hand (the rest of the deck), so seat 0 leads it at once, no decision.
    first = game.deals[0]["events"][[e["type"] for e in game.deals[0]["events"]].index("play")]
    assert first == {"type": "play", "seat": 0, "card": "2C", "lead": True}


def test_lowest_club_takes_the_ace_last():
    rules = make_rules("newmarket", 3, first_lead="lowest_club", num_deals=1)
    deal = build_deal(rules, 0, {1: "AC 5D", 2: "KC 6D", 0: "3H 4H"})  # other clubs are dead
    game = Game(rules, deals=[deal], lots=[0] * 5)
    assert plays(game)[0] == (2, "KC", True)  # KC (not AC) is the lowest club, 2 upward with the ace last
    assert stops(game)[0] == (2, "KC", None, "top")


def test_lowest_club_after_newbury_discards():
    hands = [[r + s for r in "A23456789TJQK"] for s in "SHDC"]
    hands[0], hands[3] = [*hands[0][:-1], "2C"], hands[3][:1] + hands[3][2:] + ["KS"]  # 2C to seat 0
    game = Game(make_rules("newbury", num_deals=1), deals=[{"dealer": 0, "hands": hands, "dead": []}])
    play(
        game,
        (1, "2H"),
        (1, "3H"),
        (1, "4H"),
        (2, "2D"),
        (2, "3D"),
        (2, "4D"),
        (3, "3C"),
        (3, "4C"),
        (3, "5C"),
        (0, "2C"),
        (0, "2S"),
        (0, "3S"),
    )
    # 2C, 3C, 4C and 5C were discarded: the lowest club still in play is 6C.
    assert plays(game)[0] == (3, "6C", True)
    assert stops(game)[0][:2] == (3, "KC")


def test_lowest_club_with_no_club_in_play_falls_back_to_eldest():
    # docs/rules.md is silent on a deal with every club out of play; eldest leads lowest of any suit.
    game = game3({1: "5D 9H", 2: "3D 4S", 0: "2D 2H"}, first_lead="lowest_club")
    assert (game.to_act, legal_texts(game)) == (1, ["5D", "9H"])


# --- leads after a stop ---------------------------------------------------------

STOPPER = {1: "2C 3C 5C 7D 8D 9H 4S", 2: "KH", 0: "QH"}  # eldest 1 leads 2C, runs 3C, stops (4C dead)


@pytest.mark.parametrize(
    "rule,legal",
    [
        ("lowest_any_suit", ["4S", "5C", "7D", "9H"]),
        ("lowest_other_suit", ["4S", "7D", "9H"]),
        ("lowest_opposite_colour", ["7D", "9H"]),
        ("any_opposite_colour", ["7D", "8D", "9H"]),
    ],
)
def test_stopper_leads_by_each_rule(rule, legal):
    game = game3(STOPPER, lead_after_stop=rule)
    play(game, (1, "2C"))
    assert stops(game) == [(1, "3C", "4C", "dead")]
    assert (game.to_act, game.decision, legal_texts(game)) == (1, Decision.LEAD, legal)


def test_lowest_other_suit_falls_back_to_the_stopped_suit():
    game = game3({1: "2C 3C 5C 9C", 2: "6S", 0: "2S"}, lead_after_stop="lowest_other_suit")
    # Every lead is forced: 2C (only suit), 5C and 9C (only the stopped suit left); seat 1 goes out.
    assert plays(game) == [(1, "2C", True), (1, "3C", False), (1, "5C", True), (1, "9C", True)]
    assert stops(game) == [(1, "3C", "4C", "dead"), (1, "5C", "6C", "dead")]
    assert events(game, kinds=["out"]) == [{"type": "out", "seat": 1}]


def test_lowest_opposite_colour_passes_left_to_first_holder():
    game = game3({1: "2C 3C 5C 4S", 2: "6S", 0: "9D JH 2S"}, lead_after_stop="lowest_opposite_colour")
    play(game, (1, "2C"))
    assert stops(game) == [(1, "3C", "4C", "dead")]
    assert (game.to_act, legal_texts(game)) == (0, ["9D", "JH"])  # 1 and 2 hold no red card


def test_lowest_opposite_colour_with_no_holder_stopper_leads_lowest_any_suit():
    game = game3({1: "2C 3C 5C 4S", 2: "6S", 0: "2S"}, lead_after_stop="lowest_opposite_colour")
    play(game, (1, "2C"))
    assert (game.to_act, legal_texts(game)) == (1, ["4S", "5C"])


def test_any_opposite_colour_skips_boodles_unless_only_boodles():
    # newmarket boodles: AS KH QC JD
    game = game3({1: "2C 3C KH 7D 5S", 2: "6S", 0: "2S"}, lead_after_stop="any_opposite_colour")
    play(game, (1, "2C"))
    # 7D is the only red card that is not a boodle: a forced lead. Then a black lead (5S) after 7D stops.
    assert plays(game) == [(1, "2C", True), (1, "3C", False), (1, "7D", True), (1, "5S", True), (2, "6S", False)]
    game = game3({1: "2C 3C KH JD 5S", 2: "6S", 0: "2S"}, lead_after_stop="any_opposite_colour")
    play(game, (1, "2C"))
    assert (game.to_act, legal_texts(game)) == (1, ["JD", "KH"])


def test_any_opposite_colour_passes_left():
    game = game3({1: "2C 3C 5S", 2: "KH 5H 6H", 0: "2S"}, lead_after_stop="any_opposite_colour")
    play(game, (1, "2C"))
    assert (game.to_act, legal_texts(game)) == (2, ["5H", "6H"])


def test_any_opposite_colour_after_a_red_stop_needs_black():
    game = game3({1: "2H 3H 9D 5S 7C", 2: "QS", 0: "2S"}, lead_after_stop="any_opposite_colour")
    play(game, (1, "2H"))
    assert stops(game) == [(1, "3H", "4H", "dead")]
    assert legal_texts(game) == ["5S", "7C"]


def test_any_opposite_colour_blocked_deal_pays_nobody_and_carries_pot_and_boodles():
    rules = make_rules("newmarket", 3, num_deals=2, lead_after_stop="any_opposite_colour")
    blocked = build_deal(rules, 0, {1: "2C 3C 5C", 2: "6S", 0: "2S"})  # every red card is dead
    second = build_deal(rules, 1, {2: "2C", 0: "3H 4H", 1: "5S"})
    game = Game(rules, deals=[blocked, second], lots=[0] * 5)
    assert events(game, 0, ["stop", "blocked", "out", "pot", "payment"]) == [
        {"type": "stop", "seat": 1, "card": "3C", "next": "4C", "cause": "dead"},
        {"type": "blocked", "seat": 1},
    ]
    assert game.deals[0]["chips"] == [35, 35, 35]  # only the stakes were paid
    # Deal 2: eldest 2 goes out at once and takes both pots (3 + 3).
    assert events(game, 1, ["pot"]) == [{"type": "pot", "seat": 2, "amount": 6}]
    assert events(game, 1, ["leftover"])[0] == {
        "type": "leftover",
        "stack": "boodle",
        "seat": 0,
        "amount": 6,
        "boodle": 0,
    }
