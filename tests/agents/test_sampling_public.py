"""``sampling``: which known-dead cards are public, the view as an engine position, and the sampled worlds.

A known-dead card is public when a stop showed it to everyone: the card just below it was played and
the run stopped there (docs/rules.md); removed cards are always public. The viewer's other known-dead
cards (its own discards, its former hand) stay private. Expected values are written out by hand.
"""

from __future__ import annotations

import random

import pytest

from newmarket_env import env
from newmarket_env.agents.sampling import VIEWER, _public_dead, position_of, sample_cards, sample_world
from newmarket_env.engine.game import NOBODY
from newmarket_env.engine.position import game_at
from newmarket_env.engine.types import Decision, Phase
from newmarket_env.game.cards import FULL_DECK
from newmarket_env.game.cards import card_from_text as C
from newmarket_env.game.cards import mask_from_texts as M
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.view import decode
from tests.agents.views import hand_view

HOYLE = make_rules("hoyle1885", 4)  # ace low, 8D removed from the deck


def test_public_dead_is_the_removed_cards_and_the_stops_shown_by_a_played_card_below():
    """Known dead: 8D (removed), 6C (5C played: public), 3D (2D played: public), 9H (8H not played:
    private), AS (ace low: nothing below it, private)."""
    view = hand_view(
        HOYLE, ["2C", "KS"], played_by=[[], ["5C"], ["2D"]], known_dead=["8D", "6C", "3D", "9H", "AS"], dead_count=13
    )
    assert _public_dead(view, HOYLE) == M(["8D", "6C", "3D"])
    position = position_of(view, HOYLE)
    assert position.public_dead == M(["8D", "6C", "3D"])
    assert position.viewer_known_dead == M(["8D", "6C", "3D", "9H", "AS"])


def test_public_dead_with_nothing_known_is_the_removed_cards():
    assert _public_dead(hand_view(HOYLE, ["2C"], played_by=[[], ["5C"]]), HOYLE) == M(["8D"])
    newmarket = make_rules("newmarket", 4)
    assert _public_dead(hand_view(newmarket, ["2C"], known_dead=["7H"]), newmarket) == 0


def test_public_dead_follows_the_ace_high_order():
    """Ace high: the king is just below the ace, so a played KS shows that AS stopped the run."""
    rules = make_rules("newmarket", 4, ace_high=True)
    view = hand_view(rules, ["2C"], played_by=[[], ["KS"]], known_dead=["AS", "2H"])
    assert _public_dead(view, rules) == M(["AS"])  # 2H is the lowest rank when aces are high
    low = make_rules("newmarket", 4)
    assert _public_dead(hand_view(low, ["2C"], played_by=[[], ["KS"]], known_dead=["AS"]), low) == 0


# ---------------------------------------------------------------- the view as a position
def _auction_view(**changes):
    fields = dict(
        played_by=[["4H"], ["5C"], ["2D", "3D"]],
        last_card="3D",
        dealer=3,
        balances=[40, 41, 39, 44],
        boodle_stacks=[1, 0, 2, 3],
        pot=7,
        standing_bid=3,
        high_bidder=2,
        in_auction=[True, False, True, False],
        widow_taker=1,
        own_pending=2,
        deals_left_fraction=0.5,
        legal=[54, 57, 58],
    )
    fields.update(changes)
    return hand_view(HOYLE, ["2C", "KS", "9H"], decision=Decision.BID, **fields)


def test_position_of_copies_the_view_with_the_viewer_at_seat_0():
    """4 deals, half of them left after this one (2): this is deal index 4 - 1 - 2 = 1."""
    position = position_of(_auction_view(), HOYLE)
    assert position.rules is HOYLE and position.viewer == VIEWER == 0
    assert position.dealer == 3 and position.deal_index == 1
    assert position.phase is Phase.AUCTION and position.decision is Decision.BID and position.legal == (54, 57, 58)
    owners = {C("4H"): 0, C("5C"): 1, C("2D"): 2, C("3D"): 2}
    assert position.played_by == tuple(owners.get(card, NOBODY) for card in range(52))
    assert position.last_played == C("3D")
    assert position.balances == (40, 41, 39, 44) and position.boodle_stacks == (1, 0, 2, 3) and position.pot == 7
    assert position.high_bid == 3 and position.high_bidder == 2
    assert position.in_auction == (True, False, True, False)
    assert position.widow_taker == 1 and position.viewer_pending == 2


def test_position_of_without_bidder_widow_taker_or_auction():
    """No bidder and no taker are NOBODY; outside the auction, with nobody in one, there is no auction list;
    in the auction phase the list is kept even when everyone has passed. No deals left: the last deal."""
    position = position_of(
        _auction_view(high_bidder=None, widow_taker=None, in_auction=[False] * 4, deals_left_fraction=0.0), HOYLE
    )
    assert position.high_bidder == NOBODY and position.widow_taker == NOBODY
    assert position.in_auction == (False, False, False, False) and position.deal_index == 3
    lead = hand_view(HOYLE, ["2C", "KS"], deals_left_fraction=0.75)
    position = position_of(lead, HOYLE)
    assert position.in_auction == () and position.phase is Phase.PLAY and position.deal_index == 0


def test_position_of_refuses_a_view_that_asks_no_decision():
    view = hand_view(HOYLE, ["2C"])
    view.decision = None
    with pytest.raises(
        ValueError, match=r"^position_of needs a view of the viewer's own turn; this view asks no decision$"
    ):
        position_of(view, HOYLE)


# ---------------------------------------------------------------- sampled cards and worlds
def _mid_deal_view():
    """hoyle1885 (8D removed): I hold 5 cards, 6 are played, I know 3 dead cards (and the removed 8D).
    Unseen: 51 - 5 - 6 - 3 = 37 = 12 + 11 + 10 (the others' counts) + 4 hidden dead cards (7 dead in all)."""
    return hand_view(
        HOYLE,
        ["2C", "3C", "9H", "JS", "KD"],
        played_by=[["4C"], ["5C"], ["6C", "AH"], ["7C", "2H"]],
        known_dead=["8D", "TD", "QH", "AS"],
        card_counts=[5, 12, 11, 10],
        dead_count=7,
    )


def test_sampled_cards_respect_every_count_and_known_card():
    view = _mid_deal_view()
    hands, dead = sample_cards(view, HOYLE, random.Random(3))
    assert hands[0] == view.hand
    assert [h.bit_count() for h in hands] == [5, 12, 11, 10]
    assert dead & M(["TD", "QH", "AS"]) == M(["TD", "QH", "AS"]) and not dead & M(["8D"])
    assert dead.bit_count() == 7
    seen = 0
    for mask in [*hands, dead]:
        assert not seen & mask  # no card twice
        seen |= mask
    assert seen == FULL_DECK & ~M(["8D"]) & ~view.played  # every card not removed nor played, once


def test_sampled_cards_follow_the_seed():
    view = _mid_deal_view()
    assert sample_cards(view, HOYLE, random.Random(3)) == sample_cards(view, HOYLE, random.Random(3))
    assert sample_cards(view, HOYLE, random.Random(3)) != sample_cards(view, HOYLE, random.Random(4))


def test_sample_world_stands_at_the_view_with_the_sampled_cards():
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=2)
    view = decode(e.observe(e.agent_selection))
    rules = e.unwrapped.rules
    position = position_of(view, rules)
    world = sample_world(view, rules, position, random.Random(5))
    hands, dead = sample_cards(view, rules, random.Random(5))
    assert world.hands == hands and world.dead == dead
    assert world.to_act == VIEWER and world.decision is view.decision and list(world.legal) == view.legal
    # The world's own stream (later deals, the engine's draws) is seeded from the next draw of the stream.
    stream = random.Random(5)
    sample_cards(view, rules, stream)
    same = game_at(position, hands, dead, seed=stream.randrange(2**31), plain_next_deal=True)
    assert world.rng.getstate() == same.rng.getstate()
    # Played to the end of this deal only: the next deal is queued unshuffled (no shuffle wasted).
    assert len(world._queued_deals) == 1
    again = sample_world(view, rules, position, random.Random(6), template=world)
    hands6, dead6 = sample_cards(view, rules, random.Random(6))
    assert again is not world and again.hands == hands6 and again.dead == dead6
    assert world.hands == hands  # the template is left as it was
