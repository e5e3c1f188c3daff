"""``control`` and ``hand_value`` asked directly, on hand-built views, with the numbers worked by hand.

``load_agent("control")`` decides in compiled code when the engine is built, so these tests call the
Python reference (``agents/control.py``) itself. The weights come from the modules' constants:
control's CONTROL 4, PLAN_DEPTH 2, EXCHANGE_MARGIN 0.5, AUCTION_VALUE 8; hand_value's runs -1 each,
+1 for a run that ends on a known stop, 0.7 * (chips + 1) per boodle held, 0.25 * per_card_payment
per card.
"""

from __future__ import annotations

import random

import pytest

from newmarket_env.agents.control import ControlPolicy
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.hand_value import hand_value, sample_widow, widow_gain
from newmarket_env.engine.types import Decision
from newmarket_env.game import actions as A
from newmarket_env.game.cards import card_from_text as C
from newmarket_env.game.cards import mask_from_texts as M
from newmarket_env.game.rules import LeadRule, make_rules
from tests.agents.views import hand_view

NEWMARKET = make_rules("newmarket", 4)  # ace low; boodles AS KH QC JD; lowest_other_suit
MICHIGAN = make_rules("michigan", 4)  # ace high; boodles AH KC QD JS; widow fee 4
NEWBURY = make_rules("newbury", 4)  # ace low; horses TC JD QS KH

RANKS = "23456789TJQKA"


def suit(letter: str, ranks: str = RANKS) -> list[str]:
    return [r + letter for r in ranks]


# ---------------------------------------------------------------- leads: chains that keep control
# newmarket, hand QC KC 5H 6H 9D; seat 1 played 7H; stacks AS 1, KH 2, QC 3, JD 0; 13 dead cards unknown.
# Unseen: 52 - 5 held - 1 played = 46, so the chance that an open run's next card is dead is 13 / 46.
P_DEAD = 13 / 46
PLAN_HAND = ["QC", "KC", "5H", "6H", "9D"]


def _plan_view(**changes):
    return hand_view(NEWMARKET, PLAN_HAND, played_by=[[], ["7H"]], boodle_stacks=[1, 2, 3, 0], dead_count=13, **changes)


# Greedy's lead_score of 9D here: 2 (one card) + 0.5 (one diamond) + 1 (diamonds unopened) - 0.05 * 8.
NINE_D_TIPS = 2 + 0.5 + 1 - 0.4
NINE_D_OPEN = 1 + P_DEAD * 4 + 0.25 * NINE_D_TIPS  # 9D alone; TD unknown: the lead may come back


@pytest.mark.parametrize(
    "card,depth,expected",
    [
        # QC KC: 1 + QC's 3 chips + 1, then 1 for KC = 6; KC is the top: lead again (+4) from 5H 6H 9D, whose
        # best plan is 5H 6H (2, stops on the played 7H, +4), then 9D alone, which empties the hand (1 + 100).
        ("QC", 2, 6 + 4 + (2 + 4 + 101)),
        # The same chain planned one lead shallower: after QC KC, 5H 6H stops and may lead 9D (depth 0: +4 only).
        ("QC", 1, 6 + 4 + (2 + 4)),
        ("QC", 0, 6 + 4),  # no further planning: the lead comes back, that is all
        # 5H 6H (2), lead again (+4): QC KC (6), lead again (+4), 9D goes out (1 + 100).
        ("5H", 2, 2 + 4 + (6 + 4 + 101)),
        ("9D", 2, NINE_D_OPEN),
    ],
)
def test_plan_value_worked_by_hand(card, depth, expected):
    view = _plan_view()
    policy = ControlPolicy(NEWMARKET)
    known = view.played | view.known_dead
    boodles = M(["AS", "KH", "QC", "JD"])
    assert policy.plan_value(view, view.hand, known, C(card), depth, boodles, P_DEAD) == pytest.approx(expected)


def test_plan_value_when_the_lead_passes_on_or_the_hand_empties():
    policy = ControlPolicy(NEWMARKET)
    boodles = M(["AS", "KH", "QC", "JD"])
    # Opposite colour after a club stop: red suits only, and none is held: the lead passes (6, no +4).
    view = hand_view(
        NEWMARKET, ["QC", "KC", "4S", "5S"], boodle_stacks=[1, 2, 3, 0], lead_rule=LeadRule.LOWEST_OPPOSITE_COLOUR
    )
    assert policy.plan_value(view, view.hand, 0, C("QC"), 2, boodles, 0.5) == pytest.approx(6)
    # QC KC is the whole hand: out (6 + 100).
    view = hand_view(NEWMARKET, ["QC", "KC"], boodle_stacks=[1, 2, 3, 0])
    assert policy.plan_value(view, view.hand, 0, C("QC"), 2, boodles, 0.5) == pytest.approx(106)


def test_plan_value_after_a_one_card_stop():
    """6H alone stops on the played 7H (1, +4); 2D-4D then empties the hand (3 + 100): 108."""
    view = hand_view(NEWMARKET, ["6H", "2D", "3D", "4D"], played_by=[[], ["7H"]], dead_count=13)
    policy = ControlPolicy(NEWMARKET)
    assert policy.plan_value(view, view.hand, view.played, C("6H"), 1, 0, 0.3) == pytest.approx(108)


def test_plan_value_counts_its_own_earlier_chain_as_played():
    """Lead any suit: 4D 5D stops on the known 6D (2, +4); then 2D 3D stops on 4D, played by the first
    chain (2, +4), and 9S goes out (1 + 100): 2 + 4 + 2 + 4 + 101 = 113."""
    view = hand_view(NEWMARKET, ["2D", "3D", "4D", "5D", "9S"], known_dead=["6D"], lead_rule=LeadRule.LOWEST_ANY_SUIT)
    known = view.played | view.known_dead
    assert ControlPolicy(NEWMARKET).plan_value(view, view.hand, known, C("4D"), 2, 0, 0.3) == pytest.approx(113)


def test_plan_value_next_lead_with_the_ace_high():
    """Ace high, lead any suit; hand 9S TS AD 2D 3D, JS known dead, 13/46 hidden dead. 9S TS stops (2, +4);
    the lowest diamond is 2D (the ace is high), whose run 2D 3D stays open: 2 + 4 * 13/46 + 0.25 * 6.5
    (greedy's tips for 2D: 4 for two cards, 1.5 for three diamonds, 1 unopened, rank key 0)."""
    rules = make_rules("newmarket", 4, ace_high=True)
    view = hand_view(
        rules, ["9S", "TS", "AD", "2D", "3D"], known_dead=["JS"], dead_count=13, lead_rule=LeadRule.LOWEST_ANY_SUIT
    )
    known = view.played | view.known_dead
    expected = 2 + 4 + 2 + 4 * 13 / 46 + 0.25 * 6.5
    assert ControlPolicy(rules).plan_value(view, view.hand, known, C("9S"), 2, 0, 13 / 46) == pytest.approx(expected)


def test_plan_value_keeps_a_boodle_back_when_any_card_of_the_colour_may_be_led():
    """any_opposite_colour: after 5H 6H (stopped by the known 7H: 2, +4) the black leads are 9C, not the
    boodle QC (5 chips). 9C stays open: 1 + 4p + 0.25 * greedy's 9C (2 + 0.5 * 6 for QC above + 1 for two
    clubs + 1 unopened - 0.4 = 6.6), p = 13/47."""
    view = hand_view(
        NEWMARKET,
        ["5H", "6H", "9C", "QC"],
        known_dead=["7H"],
        boodle_stacks=[0, 0, 5, 0],
        dead_count=13,
        lead_rule=LeadRule.ANY_OPPOSITE_COLOUR,
    )
    known = view.played | view.known_dead
    boodles = M(["AS", "KH", "QC", "JD"])
    expected = 2 + 4 + 1 + 4 * 13 / 47 + 0.25 * 6.6
    assert ControlPolicy(NEWMARKET).plan_value(view, view.hand, known, C("5H"), 2, boodles, 13 / 47) == pytest.approx(
        expected
    )


def test_control_leads_the_best_plan_and_breaks_ties_by_lowest_id():
    """QC and 5H both plan to 117: QC has the lower card id. Either beats 9D, whose run stays open."""
    policy = ControlPolicy(NEWMARKET)
    assert policy.decide(_plan_view(legal=["5H", "QC", "9D"])) == C("QC")
    assert policy.decide(_plan_view(legal=["9D", "5H"])) == C("5H")


def test_control_prefers_a_run_that_stops_on_a_known_card_where_greedy_takes_the_long_run():
    """Hand 5H 6H 2D 3D 4D, 7H played. greedy: 2D-4D scores 6 + 1.5 + 1 - 0.05 = 8.45, 5H-6H 4 + 1 - 0.2 = 4.8.
    control: 5H 6H stops on 7H, so it leads again and 2D-4D then empties the hand (2 + 4 + 3 + 100 = 109);
    2D-4D first leaves its run open at 5D (3 + 4 * 13/46 + 0.25 * 8.45, about 6.2)."""
    view = hand_view(
        NEWMARKET, ["5H", "6H", "2D", "3D", "4D"], played_by=[[], ["7H"]], dead_count=13, legal=["2D", "5H"]
    )
    assert GreedyPolicy(NEWMARKET).decide(view) == C("2D")
    assert ControlPolicy(NEWMARKET).decide(view) == C("5H")


def _one_unseen_card_view(**changes):
    """Lowest opposite colour; hand 5C 9S TS JS QS, every other card played but 6C, the one dead card.
    The run from 5C then surely stops at 6C: p_dead = 1 hidden dead card / 1 unseen card = 1."""
    hand = ["5C", "9S", "TS", "JS", "QS"]
    played = [c for s in "CDHS" for c in suit(s) if c not in hand and c != "6C"]
    return hand_view(
        NEWMARKET, hand, played_by=[[], played], dead_count=1, lead_rule=LeadRule.LOWEST_OPPOSITE_COLOUR, **changes
    )


def test_control_counts_on_a_stop_that_is_certain():
    """5C alone: 1 + 4 * 1 + 0.25 * greedy's 2.3 (2 + 0.5 for one club - 0.2; clubs opened) = 5.575.
    9S-QS: 4 cards, stops on the played KS, but no red card is left to lead: the lead passes: 4."""
    view = _one_unseen_card_view(legal=["5C", "9S"])
    policy = ControlPolicy(NEWMARKET)
    assert policy.plan_value(view, view.hand, view.played, C("5C"), 2, 0, 1.0) == pytest.approx(1 + 4 + 0.25 * 2.3)
    assert policy.plan_value(view, view.hand, view.played, C("9S"), 2, 0, 1.0) == pytest.approx(4)
    assert policy.decide(view) == C("5C")


def test_a_known_dead_card_is_a_stop_like_a_played_one():
    """5H 6H 9D with 7H known dead (not played): 5H 6H stops, leads 9D and goes out: 2 + 4 + 101 = 107."""
    view = hand_view(NEWMARKET, ["5H", "6H", "9D"], known_dead=["7H"], dead_count=13)
    policy = ControlPolicy(NEWMARKET)
    known = view.played | view.known_dead
    assert policy.plan_value(view, view.hand, known, C("5H"), 2, 0, 0.25) == pytest.approx(107)
    assert policy.decide(hand_view(NEWMARKET, ["5H", "6H", "9D"], known_dead=["7H"], legal=["9D", "5H"])) == C("5H")


# ---------------------------------------------------------------- Newbury discards
DISCARD_HAND = ["5H", "6H", "7H", "TC", "2C", "9S", "QD", "KD", "AD"]


@pytest.mark.parametrize(
    "card,expected",
    [
        ("6H", 0.5 + 3 - 1.5),  # 5H below is held (+3), 7H above is held (-1.5)
        ("7H", 0.6 + 3),  # 6H below held, 8H not
        ("5H", 0.4 - 1.5),  # nothing below, 6H above
        ("2C", 0.1 + 1),  # neither neighbour held: one entry point fewer
        ("9S", 0.8 + 1),
        ("QD", 1.1 - 1.5),  # JD (a horse) not held, KD held
        ("KD", 1.2 + 3),  # QD below held; nothing above the king
        ("AD", 0 + 1),  # ace low: nothing below it, 2D not held
        ("TC", -100),  # a horse is never discarded
    ],
)
def test_discard_score_worked_by_hand(card, expected):
    view = hand_view(NEWBURY, DISCARD_HAND, decision=Decision.DISCARD)
    assert ControlPolicy(NEWBURY).discard_score(view, C(card)) == pytest.approx(expected)


def test_discard_score_with_the_ace_high():
    rules = make_rules("newbury", 4, ace_high=True)
    view = hand_view(rules, ["QD", "KD", "AD", "2D"], decision=Decision.DISCARD)
    policy = ControlPolicy(rules)
    assert policy.discard_score(view, C("AD")) == pytest.approx(1.2 + 3)  # KD below held, top of the suit
    assert policy.discard_score(view, C("KD")) == pytest.approx(1.1 + 3 - 1.5)  # QD below, AD above
    assert policy.discard_score(view, C("2D")) == pytest.approx(0 + 1)  # lowest rank: nothing below
    assert policy.decide(view) == C("AD")


@pytest.mark.parametrize(
    "hand,expected",
    [
        (DISCARD_HAND, "KD"),  # 4.2, the best score above
        (["9C", "9S", "TC"], "9S"),  # 9C and 9S score alike (1.8): the higher card id
        (["TC", "JD"], "JD"),  # only horses: both -100, the higher id
    ],
)
def test_control_discards_the_best_scored_card(hand, expected):
    view = hand_view(NEWBURY, hand, decision=Decision.DISCARD)
    assert ControlPolicy(NEWBURY).decide(view) == C(expected)


# ---------------------------------------------------------------- hand values
def test_hand_value_worked_by_hand():
    """newmarket with 2 chips per card left; hand 2C 3C 4C 9D QH KH, 5C out of play, KH holding 2 chips.
    Runs: 2C-4C (-1, ends on the known 5C: +1), 9D (-1, TD unknown), QH-KH (-1, the top: +1);
    KH: 0.7 * (2 + 1) = 2.1; six cards: 0.25 * 2 * 6 = 3. Total -1 + 2.1 - 3 = -1.9."""
    rules = make_rules("newmarket", 4, per_card_payment=2)
    view = hand_view(rules, ["2C"], boodle_stacks=[0, 2, 0, 0])
    hand = M(["2C", "3C", "4C", "9D", "QH", "KH"])
    assert hand_value(hand, M(["5C"]), view, rules) == pytest.approx(-1.9)
    assert hand_value(hand, 0, view, rules) == pytest.approx(-2.9)  # 5C not known: that run stays open
    aces = make_rules("newmarket", 4, per_card_payment=2, ace_high=True)  # K is not the top then
    assert hand_value(hand, M(["5C"]), hand_view(aces, ["2C"], boodle_stacks=[0, 2, 0, 0]), aces) == pytest.approx(-2.9)


def _widow_view(hand, played, stacks, decision=Decision.WIDOW, rules=MICHIGAN, dead_count=13, **changes):
    """Everything but the dead hand is held or played, so every sampled widow is the same 13 cards."""
    return hand_view(
        rules, hand, decision=decision, played_by=[[], played], boodle_stacks=stacks, dead_count=dead_count, **changes
    )


def _all_played_but(*letters):
    return [c for s in "CDHS" if s not in letters for c in suit(s)]


def test_widow_gain_of_a_widow_known_by_elimination():
    """michigan (ace high), hand all clubs, hearts and spades played: the widow is all diamonds.
    Both are one run to the ace (-1 + 1 = 0), 13 cards (-3.25), one boodle each: KC with 0 chips (0.7),
    QD with s chips (0.7 * (s + 1)). The gain is 0.7 * s."""
    view = _widow_view(suit("C"), _all_played_but("C", "D"), [0, 0, 5, 0])
    assert widow_gain(view, MICHIGAN, random.Random(1)) == pytest.approx(0.7 * 5)


def test_widow_gain_counts_the_old_hand_as_stops_of_the_new():
    """Hand 2C-7C and 8D-AD; widow 8C-AC and 2D-7D (the rest is played), no chips.
    Keep: 2C-7C open at 8C (-1), 8D-AD to the top (0), QD (0.7), 13 cards (-3.25): -3.55.
    Exchange: 8C-AC to the top (0), 2D-7D stops on 8D, a card of the old hand, now dead (0), KC (0.7), -3.25.
    Gain: -2.55 - -3.55 = 1."""
    hand = suit("C", "234567") + suit("D", "89TJQKA")
    view = _widow_view(hand, _all_played_but("C", "D"), [0, 0, 0, 0])
    assert widow_gain(view, MICHIGAN, random.Random(1)) == pytest.approx(1.0)


def test_widow_gain_counts_known_dead_cards_as_stops_of_the_kept_hand():
    """Hand 2H-7H and 8D-AD, 8H known dead (not played); clubs, spades and 9H-AH played; the widow is
    2D-7D. Keep: 2H-7H stops on 8H (0), 8D-AD to the top (0), QD (0.7), 13 cards (-3.25): -2.55.
    Exchange: 2D-7D stops on 8D of the old hand (0), 6 cards (-1.5). Gain: 1.05."""
    played = suit("C") + suit("S") + suit("H", "9TJQKA")
    view = _widow_view(
        suit("H", "234567") + suit("D", "89TJQKA"), played, [0, 0, 0, 0], known_dead=["8H"], dead_count=7
    )
    assert widow_gain(view, MICHIGAN, random.Random(1)) == pytest.approx(1.05)


def test_widow_gain_without_a_dead_hand_is_never_worth_taking():
    view = _widow_view(suit("C"), [], [0, 0, 0, 0], dead_count=0)
    assert widow_gain(view, MICHIGAN, random.Random(1)) == -1e9


def test_sample_widow_is_a_partial_fisher_yates_shuffle():
    """Drawing index i + r for the i-th card: with r always the largest allowed, pool [a b c d] swaps 0<->3
    then 1<->3: widow {d, a}, pool left as [d a c b]. With r always 0, the first cards are taken."""

    class Largest:
        def randrange(self, n):
            return n - 1

    class Zero:
        def randrange(self, n):
            return 0

    pool = [3, 8, 20, 41]
    assert sample_widow(pool, 2, Largest()) == (1 << 41) | (1 << 3)
    assert pool == [41, 3, 20, 8]
    pool = [3, 8, 20, 41]
    assert sample_widow(pool, 3, Zero()) == (1 << 3) | (1 << 8) | (1 << 20)
    assert pool == [3, 8, 20, 41]


# ---------------------------------------------------------------- widow, purchase, auction
@pytest.mark.parametrize("chips,expected", [(13, A.EXCHANGE), (12, A.KEEP), (0, A.KEEP)])
def test_michigan_dealer_exchanges_only_when_the_gain_beats_the_auction(chips, expected):
    """Gain 0.7 * chips (above): 9.1 > 8 + 0.5 exchanges; 8.4 does not: keeping sells the widow for ~8."""
    view = _widow_view(suit("C"), _all_played_but("C", "D"), [0, 0, chips, 0], legal=[A.KEEP, A.EXCHANGE])
    assert ControlPolicy(MICHIGAN).decide(view) == expected


@pytest.mark.parametrize("fee,chips,expected", [(4, 7, A.EXCHANGE), (4, 6, A.KEEP), (2, 6, A.EXCHANGE), (2, 2, A.KEEP)])
def test_dealer_buys_when_the_gain_beats_the_fee(fee, chips, expected):
    """Gain 0.7 * chips against fee + 0.5: 4.9 > 4.5 buys, 4.2 does not; with fee 2: 4.2 > 2.5, 1.4 < 2.5."""
    rules = make_rules("michigan", 4, widow_fee=fee)
    view = _widow_view(
        suit("C"),
        _all_played_but("C", "D"),
        [0, 0, chips, 0],
        decision=Decision.BUY,
        rules=rules,
        legal=[A.KEEP, A.EXCHANGE],
    )
    assert ControlPolicy(rules).decide(view) == expected


@pytest.mark.parametrize(
    "chips,lowest,expected", [(6, 3, A.bid_action(3)), (6, 4, A.PASS), (13, 8, A.bid_action(8)), (0, 1, A.PASS)]
)
def test_control_bids_the_cheapest_bid_up_to_the_expected_gain(chips, lowest, expected):
    """Worth 0.7 * chips - 0.5: 3.7 covers a bid of 3, not 4; 8.6 covers 8; 0 chips: worth -0.5, pass."""
    legal = [A.bid_action(k) for k in range(lowest, 12)] + [A.PASS]
    view = _widow_view(suit("C"), _all_played_but("C", "D"), [0, 0, chips, 0], decision=Decision.BID, legal=legal)
    assert ControlPolicy(MICHIGAN).decide(view) == expected


def test_without_a_dead_hand_control_keeps_and_passes():
    for kind, legal, expected in (
        (Decision.BUY, [A.KEEP, A.EXCHANGE], A.KEEP),
        (Decision.BID, [A.PASS, A.bid_action(1)], A.PASS),
    ):
        view = _widow_view(suit("C"), [], [0, 0, 0, 0], decision=kind, dead_count=0, legal=legal)
        assert ControlPolicy(MICHIGAN).decide(view) == expected


# ---------------------------------------------------------------- exactly at the thresholds
# Ace low, boodles all in spades (all played, so no boodle term); everything is held, played or in the
# widow, so every sampled widow is the same 11 cards and the sums below are exact in binary.
EXACT_HAND = ["AH", "2H", "3H", "5H", "6H", "7H", "9H", "TH", "JH", "AC", "2C", "4C", "5C"]
EXACT_WIDOW = ["4H", "8H", "3C", "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D"]


def _exact_view(decision, legal, per_card_payment=1, widow_fee=4):
    """Keep: runs AH-3H, 5H-7H, AC-2C are open (4H, 8H, 3C unseen), 9H-JH and 4C-5C stop (QH, 6C played):
    -5 + 2, and 13 cards. Exchange: 3C, 4H, 8H stop on the old hand, AD-8D on the played 9D: -4 + 4,
    11 cards. Gain: 3 + 0.25 * per_card_payment * 2."""
    rules = make_rules(
        "newmarket", 4, boodles=("AS", "KS", "QS", "JS"), per_card_payment=per_card_payment, widow_fee=widow_fee
    )
    played = [c for s in "CDHS" for c in suit(s) if c not in EXACT_HAND and c not in EXACT_WIDOW]
    view = hand_view(rules, EXACT_HAND, decision=decision, played_by=[[], played], dead_count=11, legal=legal)
    return rules, view


def test_widow_gain_exactly_at_a_threshold():
    rules, view = _exact_view(Decision.BID, [A.PASS, A.bid_action(3)])
    assert widow_gain(view, rules, random.Random(0)) == 3.5
    rules, view = _exact_view(Decision.WIDOW, [A.KEEP, A.EXCHANGE], per_card_payment=11)
    assert widow_gain(view, rules, random.Random(0)) == 8.5


def test_exactly_at_the_threshold_control_bids_but_does_not_exchange_or_buy():
    """Bids up to the gain less the margin, inclusive (3.5 - 0.5 = 3 covers a bid of 3); exchanges and buys
    only when the gain is strictly more than the auction (8 + 0.5) or the fee (3 + 0.5)."""
    rules, view = _exact_view(Decision.BID, [A.PASS, A.bid_action(3), A.bid_action(4)])
    assert ControlPolicy(rules).decide(view) == A.bid_action(3)
    rules, view = _exact_view(Decision.BUY, [A.KEEP, A.EXCHANGE], widow_fee=3)
    assert ControlPolicy(rules).decide(view) == A.KEEP
    rules, view = _exact_view(Decision.WIDOW, [A.KEEP, A.EXCHANGE], per_card_payment=11)
    assert ControlPolicy(rules).decide(view) == A.KEEP
