"""Key judgements of the baselines and the search agent on hand-built positions."""

import pytest

from newmarket_env import env, load_agent
from newmarket_env.game import actions as A
from newmarket_env.game.cards import card_from_text as C
from newmarket_env.observation.layout import offsets
from newmarket_env.observation.view import decode
from tests.agents.helpers import deal, first_observation

# arnold2011: lowest_any_suit leads, boodles KH QS JD TC, nothing removed; dealer 0, eldest 1 leads first.
CONTROL_DEAL = deal(
    0,
    [
        ["3S", "5S", "7S", "9S", "JS", "4D", "6D", "8D", "TD", "QD"],
        ["2H", "3H", "4H", "QC", "KC", "7D", "9D", "6S", "8S", "TS"],
        ["5C", "7C", "9C", "JC", "6H", "8H", "3D", "5D", "AH", "AS"],
        ["6C", "8C", "TC", "3C", "5H", "7H", "9H", "2D", "KD", "2C"],
    ],
)


def test_control_leads_the_run_it_stops_itself():
    """QC-KC ends on the top rank, so the lead comes back; 2H-3H-4H is longer but hands the run on."""
    e = env(variant="arnold2011", num_players=4)
    obs = first_observation(e, [CONTROL_DEAL])
    assert decode(obs).legal == [C("QC"), C("7D"), C("2H"), C("6S")]
    assert load_agent("control", env=e, seed=0).act(obs) == C("QC")
    assert load_agent("greedy", env=e, seed=0).act(obs) == C("2H")


def test_control_leads_a_run_ending_on_a_known_dead_card():
    """8S-9S-TS stops on JS once JS is known dead; then control leads it to keep the lead."""
    hands = [
        ["3S", "5S", "7S", "4D", "6D", "8D", "TD", "QD", "KS", "QS"],
        ["2C", "3C", "4C", "8S", "9S", "TS", "7D", "9D", "5H", "7H"],
        ["5C", "7C", "9C", "JC", "2H", "4H", "6H", "8H", "3D", "5D"],
        ["6C", "8C", "TC", "QC", "3H", "9H", "2D", "KD", "6S", "TH"],
    ]
    e = env(variant="arnold2011", num_players=4)
    obs = first_observation(e, [deal(0, hands)])
    view = decode(obs)
    assert C("8S") in view.legal and not view.known_dead >> C("JS") & 1
    assert load_agent("control", env=e, seed=0).act(obs) == C("2C")
    # The same observation once JS is known dead (as after a run stopped on it).
    flat = obs["observation"].copy()
    flat[offsets()["known_dead"].start + C("JS")] = 1.0
    choice = load_agent("control", env=e, seed=0).act({"observation": flat, "action_mask": obs["action_mask"]})
    assert choice == C("8S")


@pytest.mark.parametrize("name", ["greedy", "control"])
def test_a_boodle_holder_steers_the_run_toward_it(name):
    """newmarket boodles AS KH QC JD: holding QC, lead clubs rather than a diamond of the same shape."""
    hands = [
        ["2C", "6C", "QC", "2D", "6D", "9D", "4H", "8H", "TH", "5S", "9S", "JS", "KS"],
        ["3C", "7C", "JC", "3D", "7D", "TD", "5H", "9H", "JH", "2S", "6S", "TS", "KH"],
        ["4C", "8C", "KC", "4D", "8D", "QD", "2H", "6H", "QH", "3S", "7S", "QS", "AS"],
    ]
    e = env(variant="newmarket", num_players=3)
    obs = first_observation(e, [deal(2, hands)])  # eldest is seat 0
    assert e.agent_selection == "player_0"
    assert load_agent(name, env=e, seed=0).act(obs) == C("2C")


def _buy_observation(dealer_hand):
    """newmarket with dealer_buy, 3 players: the dealer (seat 0) decides on the dead hand."""
    taken = set(dealer_hand)
    rest = [c for c in (r + s for s in "CDHS" for r in "A23456789TJQK") if c not in taken]
    hands = [dealer_hand, rest[:13], rest[13:26]]
    e = env(variant="newmarket", num_players=3, widow="dealer_buy")
    obs = first_observation(e, [deal(0, hands)])
    assert decode(obs).decision.value == "buy"
    return e, obs


def test_control_buys_the_dead_hand_for_a_scattered_hand():
    e, obs = _buy_observation(["AC", "3C", "5C", "7C", "9C", "JC", "2D", "4D", "6D", "8D", "TD", "2H", "4H"])
    assert load_agent("control", env=e, seed=0).act(obs) == A.EXCHANGE
    assert load_agent("lowest", env=e, seed=0).act(obs) == A.KEEP


def test_control_keeps_a_hand_of_runs_that_end_on_kings():
    e, obs = _buy_observation(["8C", "9C", "TC", "JC", "QC", "KC", "7D", "8D", "9D", "TD", "JD", "QD", "KD"])
    assert load_agent("control", env=e, seed=0).act(obs) == A.KEEP


def test_control_bids_for_the_widow_with_a_scattered_hand_and_passes_with_a_good_one():
    """michigan, 3 players: the dealer keeps, so eldest (seat 1) is asked to bid first."""
    scattered = ["2C", "4C", "6C", "8C", "TC", "3D", "5D", "7D", "9D", "JD", "2H", "4H", "6H"]
    runs = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]
    for hand, expected in ((scattered, "bid"), (runs, "pass")):
        taken = set(hand)
        rest = [c for c in (r + s for s in "CDHS" for r in "A23456789TJQK") if c not in taken]
        e = env(variant="michigan", num_players=3)
        e.reset(seed=0, options={"deals": [deal(0, [rest[:13], hand, rest[13:26]])]})
        e.step(A.KEEP)  # the dealer keeps: the auction starts at eldest
        obs = e.observe(e.agent_selection)
        assert e.agent_selection == "player_1" and decode(obs).decision.value == "bid"
        action = load_agent("control", env=e, seed=0).act(obs)
        assert (action == A.PASS) == (expected == "pass")


def test_control_discards_to_make_a_stop_above_its_own_card_and_keeps_its_horses():
    """newbury horses TC JD QS KH; holding 5H-6H and not 7H, discarding 6H makes 5H a stop it alone knows."""
    mine = ["5H", "6H", "TC", "JD", "2C", "4C", "8C", "2D", "4D", "9D", "3S", "7S", "KD"]
    rest = [c for c in (r + s for s in "CDHS" for r in "A23456789TJQK") if c not in mine]
    e = env(variant="newbury", num_players=4)
    obs = first_observation(e, [deal(0, [rest[:13], mine, rest[13:26], rest[26:]], dead_rest=False)])
    assert e.agent_selection == "player_1" and decode(obs).decision.value == "discard"
    assert load_agent("control", env=e, seed=0).act(obs) == C("6H")
    assert load_agent("greedy", env=e, seed=0).act(obs) == C("KD")  # its highest plain card


def test_search_finds_the_lead_that_goes_out():
    """Hand JH QH KH 2C under lowest_any_suit: JH runs to the king, the lead comes back, 2C goes out."""
    hands = [
        ["3S", "5S", "7S", "9S", "JS", "4D", "6D", "8D", "TD", "QD", "AC", "AD"],
        ["2C", "JH", "QH", "KH"],
        ["5C", "7C", "9C", "JC", "2H", "4H", "6H", "8H", "3D", "5D", "AH", "AS"],
        ["6C", "8C", "TC", "QC", "3H", "5H", "7H", "9H", "2D", "KD", "KC", "KS"],
    ]
    e = env(variant="arnold2011", num_players=4)
    obs = first_observation(e, [deal(0, hands)])
    assert decode(obs).legal == [C("2C"), C("JH")]
    assert load_agent("search", env=e, seed=0, budget=4).act(obs) == C("JH")
