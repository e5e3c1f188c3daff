"""``knowledge``: what a seat can work out from its view, checked on hand-built views against card lists
written out by hand (docs/rules.md gives the lead rules and the rank orders)."""

from __future__ import annotations

import pytest

from newmarket_env.agents import knowledge as K
from newmarket_env.game.cards import FULL_DECK
from newmarket_env.game.cards import card_from_text as C
from newmarket_env.game.cards import mask_from_texts as M
from newmarket_env.game.rules import LeadRule, make_rules
from tests.agents.views import cards, hand_view

NEWMARKET = make_rules("newmarket", 4)  # ace low; boodles AS KH QC JD
HOYLE = make_rules("hoyle1885", 4)  # ace low; 8D removed


def test_unseen_is_every_card_not_held_played_known_dead_or_removed():
    view = hand_view(HOYLE, ["2C", "3C"], played_by=[[], ["5C"], ["KD"]], known_dead=["9H"])
    assert K.unseen(view, HOYLE) == FULL_DECK & ~M(["2C", "3C", "5C", "KD", "9H", "8D"])
    assert K.unseen(view, HOYLE).bit_count() == 52 - 6


@pytest.mark.parametrize(
    "known,dead_count,expected",
    [
        (["9H", "6C"], 13, 11),  # the removed 8D is known but not in the dead hand: 13 - 2
        ([], 13, 13),
        (["9H", "6C", "5S"], 2, 0),  # never below zero
        (["9H", "6C"], 2, 0),
    ],
)
def test_hidden_dead_count(known, dead_count, expected):
    view = hand_view(HOYLE, ["2C"], known_dead=known, dead_count=dead_count)
    assert K.hidden_dead_count(view, HOYLE) == expected


@pytest.mark.parametrize(
    "hand,card,ace_high,chain,following",
    [
        (["2C", "3C", "4C", "6C"], "2C", False, ["2C", "3C", "4C"], "5C"),
        (["2C", "3C", "4C", "6C"], "6C", False, ["6C"], "7C"),
        (["QH", "KH", "AH"], "QH", False, ["QH", "KH"], None),  # ace low: the king is the top
        (["QH", "KH", "AH"], "QH", True, ["QH", "KH", "AH"], None),  # ace high: K then A, the top
        (["KH", "AH", "2H"], "KH", True, ["KH", "AH"], None),  # no wrap round from the ace to the 2
        (["JS"], "JS", True, ["JS"], "QS"),
    ],
)
def test_own_chain(hand, card, ace_high, chain, following):
    got_chain, got_following = K.own_chain(M(hand), C(card), ace_high)
    assert got_chain == cards(chain)
    assert got_following == (None if following is None else C(following))


def test_is_known_stop():
    view = hand_view(NEWMARKET, ["2C"], played_by=[[], ["5C"]], known_dead=["9H"])
    assert K.is_known_stop(None, view)  # after the top rank
    assert K.is_known_stop(C("5C"), view) and K.is_known_stop(C("9H"), view)
    assert not K.is_known_stop(C("6C"), view)


HAND = ["5C", "9C", "KD", "3H", "8H", "2S", "QS"]  # lowest per suit: 5C, KD, 3H, 2S


@pytest.mark.parametrize(
    "rule,stopped,ace_high,expected",
    [
        (LeadRule.LOWEST_ANY_SUIT, "7H", False, ["5C", "KD", "3H", "2S"]),
        (LeadRule.LOWEST_OTHER_SUIT, "7H", False, ["5C", "KD", "2S"]),
        (LeadRule.LOWEST_OTHER_SUIT, "7C", False, ["KD", "3H", "2S"]),
        (LeadRule.LOWEST_OPPOSITE_COLOUR, "7H", False, ["5C", "2S"]),  # red stop: black suits
        (LeadRule.LOWEST_OPPOSITE_COLOUR, "7D", False, ["5C", "2S"]),
        (LeadRule.LOWEST_OPPOSITE_COLOUR, "7C", False, ["KD", "3H"]),  # black stop: red suits
        (LeadRule.LOWEST_OPPOSITE_COLOUR, "7S", False, ["KD", "3H"]),
        # any card of the other colour, boodles (KH, QC, JD, AS in newmarket) only when nothing else is left
        (LeadRule.ANY_OPPOSITE_COLOUR, "7H", False, ["5C", "9C", "2S", "QS"]),
        (LeadRule.ANY_OPPOSITE_COLOUR, "7S", False, ["KD", "3H", "8H"]),
    ],
)
def test_own_leads_by_lead_rule(rule, stopped, ace_high, expected):
    boodles = M(["AS", "KH", "QC", "JD"])
    assert K.own_leads(rule, M(HAND), C(stopped), ace_high, boodles) == cards(expected)


def test_own_leads_special_cases():
    boodles = M(["AS", "KH", "QC", "JD"])
    # Only the stopped suit is left: lowest_other_suit falls back on it.
    assert K.own_leads(LeadRule.LOWEST_OTHER_SUIT, M(["9H", "4H"]), C("7H"), False, boodles) == cards(["4H"])
    # Ace high: the ace is the highest, so 2C (not AC) is the lowest club.
    assert K.own_leads(LeadRule.LOWEST_ANY_SUIT, M(["AC", "2C"]), C("7H"), True, boodles) == cards(["2C"])
    assert K.own_leads(LeadRule.LOWEST_ANY_SUIT, M(["AC", "2C"]), C("7H"), False, boodles) == cards(["AC"])
    # Ace high under the other lowest-card rules: the ace is never the lowest while another card is held.
    assert K.own_leads(LeadRule.LOWEST_OTHER_SUIT, M(["AC", "2C", "9H"]), C("7H"), True, boodles) == cards(["2C"])
    assert K.own_leads(LeadRule.LOWEST_OTHER_SUIT, M(["AH", "3H"]), C("7H"), True, boodles) == cards(["3H"])
    assert K.own_leads(LeadRule.LOWEST_OPPOSITE_COLOUR, M(["AD", "5D", "4C"]), C("7C"), True, boodles) == cards(["5D"])
    assert K.own_leads(LeadRule.LOWEST_OPPOSITE_COLOUR, M(["AD", "5D", "4C"]), C("7C"), False, boodles) == cards(["AD"])
    # A black boodle is kept back while a plain black card can be led.
    assert K.own_leads(LeadRule.ANY_OPPOSITE_COLOUR, M(["QC", "5C", "3H"]), C("7H"), False, boodles) == cards(["5C"])
    # The only black cards are boodles: they may be led.
    assert K.own_leads(LeadRule.ANY_OPPOSITE_COLOUR, M(["QC", "AS", "3H"]), C("7H"), False, boodles) == cards(
        ["QC", "AS"]
    )
    # No card of the other colour: the lead passes.
    assert K.own_leads(LeadRule.LOWEST_OPPOSITE_COLOUR, M(["3H", "4D"]), C("7H"), False, boodles) == []


def test_suit_length_suit_opened_and_boodle_mask():
    hand = M(HAND)
    assert K.suit_length(hand, C("2C")) == 2 and K.suit_length(hand, C("AH")) == 2 and K.suit_length(hand, C("4S")) == 2
    assert K.suit_length(hand, C("KD")) == 1
    view = hand_view(NEWMARKET, HAND, played_by=[[], [], ["4D"]])
    assert K.suit_opened(view, C("KD")) and not K.suit_opened(view, C("5C"))
    assert K.boodle_mask(view) == M(["AS", "KH", "QC", "JD"])


def test_boodles_above_counts_chips_plus_one_of_held_boodles_higher_in_the_suit():
    """newmarket, stacks AS 4, KH 2, QC 3, JD 0: holding KH and QC. Above 9H: KH (2 + 1); above 9C: QC
    (3 + 1); above KH itself nothing; AS is the lowest spade (ace low) and not held anyway."""
    view = hand_view(NEWMARKET, ["9H", "KH", "9C", "QC", "2S"], boodle_stacks=[4, 2, 3, 0])
    assert K.boodles_above(view, C("9H"), False) == 3
    assert K.boodles_above(view, C("9C"), False) == 4
    assert K.boodles_above(view, C("KH"), False) == 0
    assert K.boodles_above(view, C("QC"), False) == 0
    assert K.boodles_above(view, C("2S"), False) == 0
    with_ace = hand_view(NEWMARKET, ["2S", "AS"], boodle_stacks=[4, 2, 3, 0])
    assert K.boodles_above(with_ace, C("2S"), True) == 5  # ace high: AS is above 2S
    assert K.boodles_above(with_ace, C("2S"), False) == 0


def test_boodles_above_adds_up_every_held_boodle_of_the_suit():
    """Boodles JH KH QC JD (two in hearts) with 2 and 5 chips: above 9H, both held: (2 + 1) + (5 + 1) = 9."""
    rules = make_rules("newmarket", 4, boodles=("JH", "KH", "QC", "JD"))
    view = hand_view(rules, ["9H", "JH", "KH"], boodle_stacks=[2, 5, 0, 0])
    assert K.boodles_above(view, C("9H"), False) == 9
    assert K.boodles_above(view, C("JH"), False) == 6


def test_previous_tables_invert_the_next_card_tables():
    low, high = K._previous_table(False), K._previous_table(True)
    assert len(low) == len(high) == 48  # every card but the lowest rank of each suit
    assert low[C("2C")] == C("AC") and C("AC") not in low and low[C("KS")] == C("QS")
    assert high[C("AC")] == C("KC") and C("2C") not in high and high[C("3H")] == C("2H")


@pytest.mark.parametrize(
    "card,ace_high,expected",
    [
        ("3C", False, "2C"),
        ("2C", False, "AC"),
        ("AC", False, None),
        ("2C", True, None),
        ("AC", True, "KC"),
        ("KS", True, "QS"),
    ],
)
def test_previous_card(card, ace_high, expected):
    assert K.previous_card(C(card), ace_high) == (None if expected is None else C(expected))


@pytest.mark.parametrize(
    "hand,ace_high,expected",
    [
        (["2C", "3C", "4C", "9C", "5D"], False, [("2C", "5C"), ("9C", "TC"), ("5D", "6D")]),
        (["QH", "KH", "AH"], False, [("AH", "2H"), ("QH", None)]),  # ace low: two runs, in card-id order
        (["QH", "KH", "AH"], True, [("QH", None)]),  # ace high: one run to the top
        ([], False, []),
    ],
)
def test_segments(hand, ace_high, expected):
    want = [(C(first), None if after is None else C(after)) for first, after in expected]
    assert K.segments(M(hand), ace_high) == want
