"""Stakes, widow, auction, purchase, discard and lead choices of ``lowest``, ``greedy`` and ``control``.

Each position is built by hand (or is the start of a session with chosen rules); the expected
choice is written out with the reason the agent's documented idea gives for it.
"""

from __future__ import annotations

import pytest

from newmarket_env import env, load_agent
from newmarket_env.game import actions as A
from newmarket_env.game.cards import card_from_text as C
from newmarket_env.observation.view import decode
from tests.agents.helpers import deal, first_observation

ALL = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]
# No two cards in a row, no boodle (michigan boodles AH KC QD JS; newmarket AS KH QC JD): 13 separate runs.
SCATTERED = ["2C", "4C", "6C", "8C", "TC", "3D", "5D", "7D", "9D", "JD", "2H", "4H", "6H"]
# One run of spades to the ace: it sheds all thirteen cards on its own leads.
ONE_RUN = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]


def _rest(hand):
    return [c for c in ALL if c not in hand]


def _stake_choices(first: str, second: str) -> tuple[list[int], list[int]]:
    """michigan with chosen stakes, 3 chips each: the boodles ``first`` then ``second`` (eldest on) choose."""
    e = env(variant="michigan", num_players=4, stake_mode="choose", boodle_stake=3)
    e.reset(seed=0)
    agents = {}
    chosen: dict[str, list[int]] = {}
    for _ in range(6):
        seat = e.agent_selection
        obs = e.observe(seat)
        assert decode(obs).decision.value == "stake"
        name = first if not agents else (second if seat not in agents else agents[seat][0])
        agents.setdefault(seat, (name, load_agent(name, env=e, seed=0)))
        action = agents[seat][1].act(obs)
        chosen.setdefault(seat, []).append(action - A.STAKE_BASE)
        e.step(action)
    first_seat, second_seat = list(chosen)
    return chosen[first_seat], chosen[second_seat]


@pytest.mark.parametrize("name", ["greedy", "control"])
def test_greedy_and_control_stake_on_the_boodle_with_fewest_chips(name):
    """``lowest`` first spreads its 3 chips over boodles 0, 1, 2 (stacks 1 1 1 0). Before the deal every
    boodle is as likely to be won, so the next chip goes where it is the larger share: boodle 3 (0 chips),
    then boodle 0 (all at 1, lowest index), then boodle 1."""
    spread, chosen = _stake_choices("lowest", name)
    assert spread == [0, 1, 2]
    assert chosen == [3, 0, 1]


def test_lowest_spreads_its_stakes_in_layout_order_whatever_the_stacks():
    """``lowest`` never judges: its k-th chip goes on boodle k mod 4, even onto the fullest boodle."""
    first, second = _stake_choices("greedy", "lowest")
    assert first == [0, 1, 2]  # greedy on empty boodles: fewest first, ties to the lowest index
    assert second == [0, 1, 2]


def _widow_observation(hand):
    """michigan, 3 players, dealer seat 0 holding ``hand``: the dealer decides on the widow."""
    rest = _rest(hand)
    e = env(variant="michigan", num_players=3)
    obs = first_observation(e, [deal(0, [hand, rest[:13], rest[13:26]])])
    assert e.agent_selection == "player_0" and decode(obs).decision.value == "widow"
    return e, obs


def test_michigan_dealer_widow_choices():
    """As Michigan dealer, keeping sells the widow and the high bid is paid to the dealer.
    ``lowest`` and ``greedy`` always keep. ``control`` takes the widow only when the exchange is worth
    more than the auction (8 chips) plus its margin: a 13-run scattered hand (-13 for runs, -3.25 for
    cards left) against a random widow whose runs stop on the old hand's cards is worth ~10-12 chips
    more; a single run to the ace is already the best hand there is."""
    for hand, control_choice in ((SCATTERED, A.EXCHANGE), (ONE_RUN, A.KEEP)):
        e, obs = _widow_observation(hand)
        assert load_agent("lowest", env=e, seed=0).act(obs) == A.KEEP
        assert load_agent("greedy", env=e, seed=0).act(obs) == A.KEEP
        assert all(load_agent("control", env=e, seed=s).act(obs) == control_choice for s in range(3))


def _bid_observation(hand):
    """michigan, 3 players: the dealer keeps, so eldest (seat 1, holding ``hand``) opens the auction."""
    rest = _rest(hand)
    e = env(variant="michigan", num_players=3)
    e.reset(seed=0, options={"deals": [deal(0, [rest[:13], hand, rest[13:26]])]})
    e.step(A.KEEP)
    obs = e.observe(e.agent_selection)
    assert e.agent_selection == "player_1" and decode(obs).decision.value == "bid"
    return e, obs


def test_auction_choices():
    """``lowest`` passes every auction. ``greedy`` bids the minimum (1 chip, at most 2 allowed) when its
    hand is scattered (13 runs per 13 cards = 1.0 > 0.75) and holds no boodle, and passes a single run.
    ``control`` bids the minimum when the widow's expected gain exceeds the bid, and passes a run."""
    e, obs = _bid_observation(SCATTERED)
    cheapest = min(a for a in decode(obs).legal if a != A.PASS)
    assert A.bid_amount(cheapest) == 1
    assert load_agent("lowest", env=e, seed=0).act(obs) == A.PASS
    assert load_agent("greedy", env=e, seed=0).act(obs) == cheapest
    assert load_agent("control", env=e, seed=0).act(obs) == cheapest
    e, obs = _bid_observation(ONE_RUN)
    for name in ("lowest", "greedy", "control"):
        assert load_agent(name, env=e, seed=0).act(obs) == A.PASS, name


def _buy_observation(hand):
    rest = _rest(hand)
    e = env(variant="newmarket", num_players=3, widow="dealer_buy")
    obs = first_observation(e, [deal(0, [hand, rest[:13], rest[13:26]])])
    assert decode(obs).decision.value == "buy"
    return e, obs


def test_dealer_purchase_choices():
    """newmarket dealer_buy: ``greedy`` buys the dead hand when its own is scattered above 0.85 and holds
    no boodle (13 separate cards: 1.0, none of AS KH QC JD); it keeps the run, and keeps the same
    scattered hand when it holds a boodle (QC for TC), which it means to steer a run to. (SCATTERED itself
    holds JD, a newmarket boodle: QD replaces it here.) ``lowest`` always keeps."""
    scattered = [c if c != "JD" else "QD" for c in SCATTERED]
    with_boodle = [c if c != "TC" else "QC" for c in scattered]
    for hand, greedy_choice in ((scattered, A.EXCHANGE), (ONE_RUN, A.KEEP), (with_boodle, A.KEEP)):
        e, obs = _buy_observation(hand)
        assert load_agent("greedy", env=e, seed=0).act(obs) == greedy_choice, hand
        assert load_agent("lowest", env=e, seed=0).act(obs) == A.KEEP


def test_newbury_discard_choices():
    """newbury horses TC JD QS KH; the hand 5H 6H TC JD 2C 4C 8C 2D 4D 9D 3S 7S KD must discard one.
    ``lowest``: the first legal card (2C, the lowest card id). ``greedy``: its highest plain card, KD
    (reached last, the hardest to shed), never a horse. ``control``: 6H, which makes 5H a stop only it
    knows (the card above 5H is then dead)."""
    mine = ["5H", "6H", "TC", "JD", "2C", "4C", "8C", "2D", "4D", "9D", "3S", "7S", "KD"]
    rest = _rest(mine)
    e = env(variant="newbury", num_players=4)
    obs = first_observation(e, [deal(0, [rest[:13], mine, rest[13:26], rest[26:]], dead_rest=False)])
    view = decode(obs)
    assert view.decision.value == "discard" and C("TC") in view.legal and C("JD") in view.legal
    assert load_agent("lowest", env=e, seed=0).act(obs) == min(view.legal) == C("2C")
    assert load_agent("greedy", env=e, seed=0).act(obs) == C("KD")
    assert load_agent("control", env=e, seed=0).act(obs) == C("6H")


def test_lowest_leads_its_first_legal_card():
    """arnold2011 (lead any suit's lowest): eldest holds 2H 3H 4H QC KC 7D 9D 6S 8S TS; the legal leads
    are the lowest of each suit (QC, 7D, 2H, 6S in card-id order); ``lowest`` takes the first, QC,
    ``greedy`` the longest run it holds low (2H-3H-4H), ``control`` QC-KC which ends on the top rank."""
    hands = [
        ["3S", "5S", "7S", "9S", "JS", "4D", "6D", "8D", "TD", "QD"],
        ["2H", "3H", "4H", "QC", "KC", "7D", "9D", "6S", "8S", "TS"],
        ["5C", "7C", "9C", "JC", "6H", "8H", "3D", "5D", "AH", "AS"],
        ["6C", "8C", "TC", "3C", "5H", "7H", "9H", "2D", "KD", "2C"],
    ]
    e = env(variant="arnold2011", num_players=4)
    obs = first_observation(e, [deal(0, hands)])
    assert decode(obs).legal == [C("QC"), C("7D"), C("2H"), C("6S")]
    assert load_agent("lowest", env=e, seed=0).act(obs) == C("QC")
    assert load_agent("greedy", env=e, seed=0).act(obs) == C("2H")
    assert load_agent("control", env=e, seed=0).act(obs) == C("QC")
