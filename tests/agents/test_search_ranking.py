"""``search``: which candidates it searches, how it ranks many leads, its options, and rollouts whose result
is certain (worked by hand from docs/rules.md: going out takes the pot and a chip per card the others hold)."""

from __future__ import annotations

import random

import pytest

from newmarket_env import env, load_agent
from newmarket_env.agents import search
from newmarket_env.agents.control import ControlPolicy
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.lowest import LowestPolicy
from newmarket_env.agents.search import SearchAgent
from newmarket_env.engine.types import Decision
from newmarket_env.game import actions as A
from newmarket_env.game.rules import LeadRule, make_rules
from newmarket_env.observation.view import decode
from tests.agents.views import cards, hand_view

NEWMARKET = make_rules("newmarket", 4)  # ace low; boodles AS KH QC JD; lowest_other_suit
NEWBURY = make_rules("newbury", 4)
MICHIGAN = make_rules("michigan", 4)
NEWMARKET_ONE_DEAL = make_rules("newmarket", 4, num_deals=1)


def _agent(rules=NEWMARKET, **options):
    return SearchAgent(rules, seed=1, engine="python", **options)


def _run_view(legal):
    """Hand 5H 6H 2D 3D 4D, 7H played, 13 dead cards unknown among 46 unseen (p_dead = 13/46)."""
    return hand_view(NEWMARKET, ["5H", "6H", "2D", "3D", "4D"], played_by=[[], ["7H"]], dead_count=13, legal=legal)


def test_many_leads_are_ranked_by_control_plans_one_lead_deep():
    """Planned one further lead deep (p = 13/46; greedy's score of 2D-4D: 6 + 1.5 + 1 - 0.05 = 8.45):
    5H: 5H 6H stops on 7H (2), lead again (+4), 2D-4D empties the hand (3 + 100): 109.
    6H: stops on 7H (1, +4), then 2D-4D leaves 5H and stays open at 5D (3 + 4p + 0.25 * 8.45): about 11.2.
    2D: 2D-4D open at 5D: 3 + 4p + 0.25 * 8.45, about 6.2. With max_candidates 2 the first two are kept."""
    agent = _agent(max_candidates=2)
    view = _run_view(["2D", "5H", "6H"])
    assert agent._ranked_leads(view) == cards(["5H", "6H", "2D"])
    assert agent.candidates(view) == cards(["5H", "6H"])


def test_ranking_plans_exactly_one_further_lead():
    """Lead any suit; three runs, each stopped by a known dead card: 5C (1 card), 5D 6D (2), 5H 6H 7H (3).
    One lead deep, a lead is worth its cards + 4 + the best other run's cards + 4 (no run empties the hand):
    5C 1 + 4 + 3 + 4 = 12, 5D 2 + 4 + 3 + 4 = 13, 5H 3 + 4 + 2 + 4 = 13; ties by card id: 5D, 5H, 5C.
    (Two leads deep every order would go out, all equal at 6 + 8 + 100, and rank by card id alone.)"""
    view = hand_view(
        NEWMARKET,
        ["5C", "5D", "6D", "5H", "6H", "7H"],
        known_dead=["6C", "7D", "8H"],
        lead_rule=LeadRule.LOWEST_ANY_SUIT,
        legal=["5C", "5D", "5H"],
    )
    assert _agent(max_candidates=2)._ranked_leads(view) == cards(["5D", "5H", "5C"])


def test_ranking_with_one_unseen_card_that_is_surely_dead():
    """Lowest opposite colour; hand 5C 9S TS JS QS, everything else played but 6C, the one dead card:
    p_dead = 1. 5C: 1 + 4 + 0.25 * 2.3 = 5.575; 9S-QS: 4 (the lead then passes: no red card);
    TS-QS: 3, the same."""
    hand = ["5C", "9S", "TS", "JS", "QS"]
    played = [r + s for s in "CDHS" for r in "A23456789TJQK" if r + s not in hand and r + s != "6C"]
    view = hand_view(
        NEWMARKET,
        hand,
        played_by=[[], played],
        dead_count=1,
        lead_rule=LeadRule.LOWEST_OPPOSITE_COLOUR,
        legal=["TS", "9S", "5C"],
    )
    assert _agent(max_candidates=2)._ranked_leads(view) == cards(["5C", "9S", "TS"])


def test_equal_ranked_leads_keep_card_id_order():
    """9C, 9D, 9S: each alone, open above, in an unopened suit: the same plan value; lowest id first."""
    view = hand_view(NEWMARKET, ["9C", "9D", "9S", "5H"], dead_count=13, legal=["9S", "9D", "9C"])
    assert _agent(max_candidates=2)._ranked_leads(view) == cards(["9C", "9D", "9S"])


def test_few_leads_put_controls_choice_first_then_the_legal_order():
    view = _run_view(["2D", "6H", "5H"])
    assert _agent(max_candidates=3).candidates(view) == cards(["5H", "2D", "6H"])
    assert _agent(max_candidates=5).candidates(_run_view(["2D", "5H"])) == cards(["5H", "2D"])


def test_bid_candidates_are_pass_and_three_bids_from_the_cheapest():
    view = hand_view(MICHIGAN, ["2C"], decision=Decision.BID, legal=[A.PASS] + [A.bid_action(k) for k in range(2, 7)])
    assert _agent(MICHIGAN, max_candidates=2).candidates(view) == [
        A.PASS,
        A.bid_action(2),
        A.bid_action(3),
        A.bid_action(5),
    ]
    view = hand_view(MICHIGAN, ["2C"], decision=Decision.BID, legal=[A.PASS, A.bid_action(4), A.bid_action(5)])
    assert _agent(MICHIGAN).candidates(view) == [A.PASS, A.bid_action(4), A.bid_action(5)]


def test_discard_candidates_follow_controls_discard_score():
    """Scores (test_control_details): KD 4.2, 7H 3.6, 6H 2.0, 9S 1.8, 2C 1.1, ... horses last."""
    hand = ["5H", "6H", "7H", "TC", "2C", "9S", "QD", "KD", "AD"]
    view = hand_view(NEWBURY, hand, decision=Decision.DISCARD)
    assert _agent(NEWBURY, max_candidates=3).candidates(view) == cards(["KD", "7H", "6H"])


def test_widow_candidates_put_controls_choice_first():
    view = hand_view(MICHIGAN, ["2C", "4C", "6C"], decision=Decision.WIDOW, legal=[A.KEEP, A.EXCHANGE], dead_count=0)
    assert _agent(MICHIGAN).candidates(view) == [A.KEEP, A.EXCHANGE]  # no dead hand to take: keep first


# ---------------------------------------------------------------- rollouts with a certain result
CLUBS = [r + "C" for r in "A23456789TJQK"]
HEARTS = [r + "H" for r in "A23456789TJQK"]


def _last_cards_view(hand, extra_played, stacks):
    """newmarket; pot 5; the others hold 2, 3 and 4 cards; 13 dead; clubs, hearts and ``extra_played`` played."""
    return hand_view(
        NEWMARKET,
        hand,
        played_by=[CLUBS[:5], CLUBS[5:] + extra_played[:1], HEARTS[:7], HEARTS[7:] + extra_played[1:]],
        card_counts=[len(hand), 2, 3, 4],
        dead_count=13,
        boodle_stacks=stacks,
        pot=5,
    )


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_a_lead_that_goes_out_wins_the_pot_and_a_chip_per_card_left(engine):
    """Leading the last card wins the deal: the pot (5) and 2 + 3 + 4 chips; JD also takes its boodle (3)."""
    agent = SearchAgent(NEWMARKET, seed=1, budget=3, engine=engine)
    view = _last_cards_view(["9D"], ["AS", "2S", "3S"], [0, 0, 0, 0])
    assert agent.evaluate(view, cards(["9D"])).tolist() == [5 + 9]
    view = _last_cards_view(["JD"], ["AS", "2S", "3S"], [0, 0, 0, 3])
    assert agent.evaluate(view, cards(["JD"])).tolist() == [3 + 5 + 9]


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_a_certain_result_with_removed_and_known_dead_cards(engine):
    """hoyle1885 (8D removed): as above, with 4S 5S known to be dead (12 dead cards, 2 of them known)."""
    rules = make_rules("hoyle1885", 4)
    view = hand_view(
        rules,
        ["9D"],
        played_by=[CLUBS[:5], [*CLUBS[5:], "AS"], HEARTS[:7], [*HEARTS[7:], "2S", "3S"]],
        known_dead=["4S", "5S"],
        card_counts=[1, 2, 3, 4],
        dead_count=12,
        pot=5,
    )
    assert SearchAgent(rules, seed=1, budget=3, engine=engine).evaluate(view, cards(["9D"])).tolist() == [14]


def test_each_candidate_gets_its_own_mean():
    """Hand JD 9D, QD played. JD stops at once (QD played): +3, lead 9D, out: 3 + 5 + 9 = 17 in every world.
    9D first: if TD is dead, the run stops, JD goes out (17); if another seat holds TD, it plays TD and I
    play JD, out, that seat holding one card fewer (16)."""
    view = _last_cards_view(["JD", "9D"], ["QD", "AS"], [0, 0, 0, 3])
    means = _agent(budget=6).evaluate(view, cards(["JD", "9D"])).tolist()
    assert means[0] == 17 and 16 <= means[1] <= 17


# ---------------------------------------------------------------- options and streams
@pytest.mark.parametrize(
    "options,message",
    [
        ({"engine": "gpu"}, r"^engine='gpu' is unknown; allowed: auto, compiled, python$"),
        ({"budget": True}, r"^budget=True must be an int from 1 to 10000 \(worlds sampled per decision\)$"),
        ({"budget": 2.0}, r"^budget=2.0 must be an int from 1 to 10000"),
        ({"budget": 0}, r"^budget=0 must be an int from 1 to 10000"),
        ({"budget": 10_001}, r"^budget=10001 must be an int from 1 to 10000"),
        ({"budget": 10**9}, r"^budget=1000000000 must be an int from 1 to 10000"),
        ({"rollout": "oracle"}, r"^rollout='oracle' is unknown; allowed: lowest, greedy, control$"),
        ({"max_candidates": True}, r"^max_candidates=True must be an int >= 2$"),
        ({"max_candidates": 2.5}, r"^max_candidates=2.5 must be an int >= 2$"),
        ({"max_candidates": 1}, r"^max_candidates=1 must be an int >= 2$"),
    ],
)
def test_bad_options_are_refused_in_one_line(options, message):
    with pytest.raises(ValueError, match=message):
        SearchAgent(NEWMARKET, seed=0, **options)


def test_options_and_streams_after_reset():
    agent = SearchAgent(NEWMARKET, seed=9, budget=7, rollout="greedy", max_candidates=3, engine="python")
    assert (agent.budget, agent.rollout_name, agent.max_candidates) == (7, "greedy", 3)
    assert not agent.compiled and agent._worlds is None
    assert type(agent.rollout) is GreedyPolicy and type(agent.guide) is ControlPolicy
    assert agent.guide.rules is NEWMARKET and agent.rollout.rules is NEWMARKET
    agent._random.random(), agent.guide.rng.random(), agent.rollout.rng.random()
    agent.reset()
    first = random.Random(9).random()
    assert agent._random.random() == agent.guide.rng.random() == agent.rollout.rng.random() == first
    assert type(SearchAgent(NEWMARKET, rollout="lowest", engine="python").rollout) is LowestPolicy
    compiled = SearchAgent(NEWMARKET, seed=9, engine="auto")
    assert compiled.compiled and compiled._worlds is not None


def test_stakes_and_forced_choices_go_to_control():
    e = env(variant="michigan", num_players=4, stake_mode="choose", boodle_stake=3)
    e.reset(seed=0)
    obs = e.observe(e.agent_selection)
    assert decode(obs).decision is Decision.STAKE
    agent = SearchAgent(e.unwrapped.rules, seed=0, budget=1, engine="python")
    assert agent.act(obs) == A.stake_action(0)  # all boodles empty: the first (control stakes on the fewest)
    only = {"observation": obs["observation"], "action_mask": obs["action_mask"] * 0}
    only["action_mask"][A.stake_action(2)] = 1
    assert agent.act(only) == A.stake_action(2)
    with pytest.raises(ValueError, match=r"^act\(\) was given an observation whose action_mask has no legal action$"):
        agent.act({"observation": obs["observation"], "action_mask": obs["action_mask"] * 0})


def test_defaults():
    agent = SearchAgent(NEWMARKET)
    assert (agent.budget, agent.rollout_name, agent.max_candidates, agent.compiled) == (64, "control", 5, True)


def test_compiled_is_refused_only_when_it_is_not_built(monkeypatch):
    monkeypatch.setattr(search, "compiled_available", lambda: False)
    message = r"^engine='compiled' but the compiled engine is not built; use engine='python' or 'auto'$"
    with pytest.raises(ValueError, match=message):
        SearchAgent(NEWMARKET, seed=0, engine="compiled")
    assert not SearchAgent(NEWMARKET, seed=0, engine="auto").compiled  # falls back on Python
    assert not SearchAgent(NEWMARKET, seed=0, engine="python").compiled


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_the_same_seed_gives_the_same_means_and_another_seed_other_means(engine):
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=7)
    view = decode(e.observe(e.agent_selection))
    assert len(view.legal) > 1

    def means(seed):
        return SearchAgent(NEWMARKET, seed=seed, budget=4, engine=engine).evaluate(view, view.legal[:2]).tolist()

    assert means(3) == means(3)
    assert means(3) != means(4)


def test_act_takes_the_best_mean_even_against_controls_choice():
    """newmarket, one deal, seed 0, every seat playing control: at the 3rd and 6th decisions the searched
    means (16 worlds, seed 1) rank another card above control's favourite, and act() plays that card."""
    e = env(variant="newmarket", num_players=4, num_deals=1)
    e.reset(seed=0)
    control = load_agent("control", env=e, seed=0, engine="python")
    for step in range(6):
        obs = e.observe(e.agent_selection)
        if step in (2, 5):
            view = decode(obs)
            fresh = SearchAgent(NEWMARKET_ONE_DEAL, seed=1, budget=16, engine="python")
            candidates = fresh.candidates(view)
            means = fresh.evaluate(view, candidates)
            best = candidates[int(means.argmax())]
            assert candidates[0] == control.act(obs) != best  # control's favourite comes first, and loses
            assert len(view.legal) == (3 if step == 2 else 2)
            assert SearchAgent(NEWMARKET_ONE_DEAL, seed=1, budget=16, engine="python").act(obs) == best
        e.step(control.act(obs))
