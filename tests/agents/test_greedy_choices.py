"""``greedy`` (and the base :class:`Policy`) asked directly, on hand-built views.

``load_agent("greedy")`` decides in compiled code when the engine is built, so these tests call the
Python reference (``agents/greedy.py``) itself. Every expected value is worked from the agent's
documented idea (module docstring) by hand, in the comments.
"""

from __future__ import annotations

import random

import pytest

from newmarket_env import env
from newmarket_env.agents.greedy import GO_OUT, GreedyPolicy, holds_boodle, scatter
from newmarket_env.agents.policy import Policy, PolicyAgent
from newmarket_env.engine.types import Decision
from newmarket_env.game import actions as A
from newmarket_env.game.cards import card_from_text as C
from newmarket_env.game.cards import mask_from_texts as M
from newmarket_env.game.rules import make_rules
from tests.agents.views import hand_view

NEWMARKET = make_rules("newmarket", 4)  # ace low; boodles AS KH QC JD
MICHIGAN = make_rules("michigan", 4)  # ace high; boodles AH KC QD JS
NEWBURY = make_rules("newbury", 4)  # ace low; horses TC JD QS KH


# ---------------------------------------------------------------- scatter and boodles
@pytest.mark.parametrize(
    "hand,ace_high,expected",
    [
        ([], False, 0.0),  # no cards: no runs (and no division by zero)
        (["2C", "3C", "4C", "9D"], False, 2 / 4),  # runs 2C-4C and 9D
        (["2C", "4C", "6C", "8C"], False, 4 / 4),  # no two cards connect
        (["KC", "AC"], True, 1 / 2),  # ace high: K then A is one run
        (["KC", "AC"], False, 2 / 2),  # ace low: the ace starts the suit, K ends it
        (["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"], True, 1 / 13),
    ],
)
def test_scatter_is_separate_runs_per_card(hand, ace_high, expected):
    assert scatter(M(hand), ace_high) == pytest.approx(expected)


def test_holds_boodle_reads_the_layout_of_the_view():
    assert holds_boodle(hand_view(NEWMARKET, ["2C", "QC"]))  # QC is a newmarket boodle
    assert not holds_boodle(hand_view(NEWMARKET, ["2C", "KC"]))
    assert holds_boodle(hand_view(MICHIGAN, ["2C", "KC"]))  # KC is a michigan boodle


# ---------------------------------------------------------------- leads
# newmarket; hand 2C 3C 4C 9C QC 5D 7H; stacks AS 0, KH 2, QC 3, JD 1; seat 1 played 3D (diamonds opened).
LEAD_HAND = ["2C", "3C", "4C", "9C", "QC", "5D", "7H"]


def _lead_view(**changes):
    return hand_view(NEWMARKET, LEAD_HAND, played_by=[[], ["3D"]], boodle_stacks=[0, 2, 3, 1], **changes)


@pytest.mark.parametrize(
    "card,expected",
    [
        # 2 per card of the own run 2C 3C 4C (6), half the chips+1 of QC above it (0.5 * 4), half the
        # clubs held (0.5 * 5), clubs unopened (+1), minus 0.05 per rank step (2C: key 1).
        ("2C", 6 + 2 + 2.5 + 1 - 0.05),
        ("9C", 2 + 2 + 2.5 + 1 - 0.05 * 8),  # 9C alone; QC still above it
        ("QC", 2 + (3 + 1) + 0 + 2.5 + 1 - 0.05 * 11),  # takes QC's 3 chips (+1); nothing held above
        ("5D", 2 + 0 + 0 + 0.5 + 0 - 0.05 * 4),  # diamonds already opened
        ("7H", 2 + 0 + 0 + 0.5 + 1 - 0.05 * 6),  # KH is a boodle but not held: not "reached"
    ],
)
def test_lead_score_by_the_tips(card, expected):
    assert GreedyPolicy(NEWMARKET).lead_score(_lead_view(), C(card)) == pytest.approx(expected)


def test_lead_score_with_the_ace_high():
    """michigan (ace high, boodles AH KC QD JS), hand 9H TH AH 4S, AH holding 2 chips: the ace is the top of
    hearts, so a run from 9H heads toward it (0.5 * (2 + 1)); the ace itself is the highest rank (key 12)."""
    view = hand_view(MICHIGAN, ["9H", "TH", "AH", "4S"], boodle_stacks=[2, 0, 0, 0])
    policy = GreedyPolicy(MICHIGAN)
    assert policy.lead_score(view, C("9H")) == pytest.approx(4 + 1.5 + 1.5 + 1 - 0.05 * 7)  # 9H key 7
    assert policy.lead_score(view, C("AH")) == pytest.approx(2 + 3 + 0 + 1.5 + 1 - 0.05 * 12)


def test_a_lead_that_empties_the_hand_goes_out():
    view = hand_view(NEWMARKET, ["2C", "3C", "4C"])
    assert GreedyPolicy(NEWMARKET).lead_score(view, C("2C")) == GO_OUT
    assert GreedyPolicy(NEWMARKET).lead_score(view, C("3C")) < GO_OUT  # leaves 2C behind


def test_greedy_leads_the_best_scored_card_and_breaks_ties_by_lowest_id():
    policy = GreedyPolicy(NEWMARKET)
    assert policy.decide(_lead_view(legal=["5D", "2C", "7H"])) == C("2C")  # 11.45 beats 2.3 and 3.2
    assert policy.decide(_lead_view(legal=["5D", "7H"])) == C("7H")  # 3.2 beats 2.3
    # 5D and 5H: one card each, both suits unopened, same rank: equal scores, the lower id (5D) wins.
    tie = hand_view(NEWMARKET, ["5D", "5H", "9S", "TS"], legal=["5H", "5D"])
    assert policy.decide(tie) == C("5D")


# ---------------------------------------------------------------- Newbury discards
@pytest.mark.parametrize(
    "hand,expected",
    [
        (["5H", "6H", "TC", "JD", "KD", "9S", "QS"], "KD"),  # the highest plain card; QS, JD, TC are horses
        (["9C", "KD", "KS", "TC"], "KS"),  # two plain kings: the higher card id
        (["TC", "JD"], "JD"),  # only horses left: the higher of them
        (["AC", "2D", "TC"], "2D"),  # ace low: the ace is the lowest card
    ],
)
def test_greedy_discards_its_highest_plain_card(hand, expected):
    view = hand_view(NEWBURY, hand, decision=Decision.DISCARD)
    assert GreedyPolicy(NEWBURY).decide(view) == C(expected)


def test_greedy_discards_the_ace_first_when_aces_are_high():
    rules = make_rules("newbury", 4, ace_high=True)
    view = hand_view(rules, ["AC", "KD", "2S"], decision=Decision.DISCARD)
    assert GreedyPolicy(rules).decide(view) == C("AC")


# ---------------------------------------------------------------- stakes
@pytest.mark.parametrize(
    "stacks,boodle", [([2, 1, 1, 3], 1), ([0, 0, 0, 0], 0), ([3, 2, 5, 2], 1), ([4, 4, 4, 1], 3), ([1, 5, 0, 0], 2)]
)
def test_greedy_stakes_on_the_boodle_with_fewest_chips_lowest_index_on_ties(stacks, boodle):
    rules = make_rules("michigan", 4, stake_mode="choose", boodle_stake=3)
    view = hand_view(rules, [], decision=Decision.STAKE, legal=[A.stake_action(b) for b in range(4)])
    view.boodle_stacks = stacks
    assert GreedyPolicy(rules).decide(view) == A.stake_action(boodle)


# ---------------------------------------------------------------- widow, purchase, auction
SCATTERED = ["2C", "4C", "6C", "8C", "TC", "3D", "5D", "7D", "9D", "JD", "2H", "4H", "6H"]  # 13 runs / 13
AT_LIMIT = ["2C", "3C", "5C", "7C"]  # runs 2C-3C, 5C, 7C: 3 / 4 = 0.75, not above 0.75
POINT_EIGHT = ["2C", "3C", "5C", "7C", "9C"]  # 4 runs / 5 cards = 0.8
POINT_NINE = ["2C", "3C", "5C", "7C", "9C", "JC", "2D", "4D", "6D", "8D"]  # 9 runs / 10 cards = 0.9
MICHIGAN_BOODLE = ["2C", "4C", "6C", "8C", "KC", "3D", "5D", "7D", "9D", "JD", "2H", "4H", "6H"]  # KC: boodle


def _bid_view(hand, lowest=1):
    legal = [A.PASS] + [A.bid_action(k) for k in range(lowest, 6)]
    return hand_view(MICHIGAN, hand, decision=Decision.BID, legal=legal)


@pytest.mark.parametrize(
    "hand,lowest,expected",
    [
        (SCATTERED, 1, A.bid_action(1)),  # scatter 1.0 > 0.75, no boodle: the minimum bid
        (SCATTERED, 2, A.bid_action(2)),  # 2 chips is still cheap enough
        (SCATTERED, 3, A.PASS),  # 3 chips is more than greedy ever bids
        (POINT_EIGHT, 1, A.bid_action(1)),  # 0.8 > 0.75
        (AT_LIMIT, 1, A.PASS),  # 0.75 is not above the limit
        (MICHIGAN_BOODLE, 1, A.PASS),  # scattered but holds KC: it steers a run to it instead
    ],
)
def test_greedy_bids_the_minimum_only_for_a_scattered_hand_without_boodle(hand, lowest, expected):
    assert GreedyPolicy(MICHIGAN).decide(_bid_view(hand, lowest)) == expected


def test_greedy_bids_the_cheapest_legal_bid_not_the_first_action():
    view = hand_view(MICHIGAN, SCATTERED, decision=Decision.BID, legal=[A.bid_action(2), A.bid_action(4), A.PASS])
    assert GreedyPolicy(MICHIGAN).decide(view) == A.bid_action(2)


@pytest.mark.parametrize(
    "hand,expected",
    [
        (SCATTERED, A.EXCHANGE),  # 1.0 > 0.85
        (POINT_NINE, A.EXCHANGE),  # 0.9 > 0.85
        (POINT_EIGHT, A.KEEP),  # 0.8: enough to bid a chip, not to pay the fee
        (MICHIGAN_BOODLE, A.KEEP),  # holds a boodle
    ],
)
def test_greedy_buys_the_dead_hand_above_a_stricter_scatter(hand, expected):
    view = hand_view(MICHIGAN, hand, decision=Decision.BUY, legal=[A.KEEP, A.EXCHANGE])
    assert GreedyPolicy(MICHIGAN).decide(view) == expected


def test_greedy_as_michigan_dealer_always_keeps():
    """Keeping sells the widow: the high bid is paid to the dealer, whatever its hand."""
    for hand in (SCATTERED, POINT_NINE, AT_LIMIT):
        view = hand_view(MICHIGAN, hand, decision=Decision.WIDOW, legal=[A.KEEP, A.EXCHANGE])
        assert GreedyPolicy(MICHIGAN).decide(view) == A.KEEP


def test_wants_widow_compares_the_scatter_with_the_given_limit():
    policy = GreedyPolicy(MICHIGAN)
    view = hand_view(MICHIGAN, POINT_EIGHT)
    assert policy.wants_widow(view, 0.79) and not policy.wants_widow(view, 0.8)


# ---------------------------------------------------------------- the base policy (``lowest``)
def test_base_policy_answers_each_kind_in_the_simplest_legal_way():
    policy = Policy(NEWMARKET)
    lead = hand_view(NEWMARKET, ["9S", "2C", "KD"], legal=["KD", "2C"])
    assert policy.decide(lead) == C("KD")  # the first legal action, whatever it is
    discard = hand_view(NEWBURY, ["9S", "2C"], decision=Decision.DISCARD, legal=["9S", "2C"])
    assert Policy(NEWBURY).decide(discard) == C("9S")
    for kind, expected in ((Decision.WIDOW, A.KEEP), (Decision.BUY, A.KEEP)):
        assert policy.decide(hand_view(NEWMARKET, SCATTERED, decision=kind, legal=[A.EXCHANGE, A.KEEP])) == expected
    bid = hand_view(NEWMARKET, SCATTERED, decision=Decision.BID, legal=[A.bid_action(1), A.PASS])
    assert policy.decide(bid) == A.PASS


@pytest.mark.parametrize("boodle_stake,pending,boodle", [(3, 3, 0), (3, 2, 1), (3, 1, 2), (6, 1, 1), (5, 1, 0)])
def test_base_policy_puts_the_kth_chip_of_a_deal_on_boodle_k_mod_4(boodle_stake, pending, boodle):
    """``pending`` chips are left of ``boodle_stake``, so this chip is number boodle_stake - pending (from 0)."""
    rules = make_rules("michigan", 4, stake_mode="choose", boodle_stake=boodle_stake)
    view = hand_view(
        rules, [], decision=Decision.STAKE, legal=[A.stake_action(b) for b in range(4)], own_pending=pending
    )
    assert Policy(rules).decide(view) == A.stake_action(boodle)


def test_decide_takes_a_single_legal_action_and_refuses_a_view_without_decision():
    policy = GreedyPolicy(NEWMARKET)
    only = hand_view(NEWMARKET, ["2C", "3C"], legal=["3C"])
    assert policy.decide(only) == C("3C")  # greedy would lead 2C, but 3C is the only legal card
    idle = hand_view(NEWMARKET, ["2C", "3C"], decision=Decision.LEAD, legal=["2C", "3C"])
    idle.decision = None
    with pytest.raises(ValueError, match=r"^decide\(\) needs a view of the viewer's own turn; this view asks no"):
        policy.decide(idle)


def test_policy_default_stream_is_seed_zero():
    assert Policy(NEWMARKET).rng.random() == random.Random(0).random()
    mine = random.Random(7)
    assert Policy(NEWMARKET, mine).rng is mine


def test_policy_agent_restarts_its_stream_on_reset_and_names_itself_after_the_policy():
    agent = PolicyAgent(NEWMARKET, seed=11, policy=GreedyPolicy)
    assert agent.rules is NEWMARKET and agent.policy.rules is NEWMARKET
    assert agent.name == "greedy" and agent.policy_class is GreedyPolicy and isinstance(agent.policy, GreedyPolicy)
    expected = random.Random(11)
    assert [agent.policy.rng.random() for _ in range(3)] == [expected.random() for _ in range(3)]
    agent.reset()
    assert agent.policy.rng.random() == random.Random(11).random()
    assert PolicyAgent(NEWMARKET).name == "policy"


def test_policy_agent_decodes_the_observation_and_refuses_an_empty_mask():
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=3)
    obs = e.observe(e.agent_selection)
    agent = PolicyAgent(e.unwrapped.rules, seed=0, policy=Policy)
    action = agent.act(obs)
    assert type(action) is int and action == int(obs["action_mask"].nonzero()[0][0])
    empty = {"observation": obs["observation"], "action_mask": obs["action_mask"] * 0}
    with pytest.raises(ValueError, match=r"^act\(\) was given an observation whose action_mask has no legal action$"):
        agent.act(empty)
