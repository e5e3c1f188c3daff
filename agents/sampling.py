"""Worlds consistent with what a seat knows: its view as an engine position, hidden cards sampled.

The simulated table is the view's own frame: the viewer sits at seat 0 and
relative seat ``k`` at seat ``k`` (the rules only care about seats relative to
each other). The hidden cards (the unseen ones) are dealt at random to the
other seats, by their known card counts, and to the unknown part of the dead
hand, by its known size.
"""

from __future__ import annotations

import random

from newmarket_env.agents import knowledge as K
from newmarket_env.engine.game import NOBODY, Game
from newmarket_env.engine.position import Position, game_at, with_cards
from newmarket_env.engine.types import Phase
from newmarket_env.game.cards import cards_of
from newmarket_env.game.rules import Rules
from newmarket_env.observation.view import ObservationView

VIEWER = 0


def position_of(view: ObservationView, rules: Rules) -> Position:
    """The view as an engine :class:`Position` with the viewer at seat 0."""
    if view.decision is None:
        raise ValueError("position_of needs a view of the viewer's own turn; this view asks no decision")
    played_by = [NOBODY] * 52
    for seat, mask in enumerate(view.played_by):
        for card in cards_of(mask):
            played_by[card] = seat
    deals_left = round(view.deals_left_fraction * rules.num_deals)
    return Position(
        rules=rules,
        viewer=VIEWER,
        dealer=view.dealer,
        deal_index=rules.num_deals - 1 - deals_left,
        phase=view.phase,
        decision=view.decision,
        legal=tuple(view.legal),
        played_by=tuple(played_by),
        last_played=view.last_card,
        public_dead=_public_dead(view, rules),
        viewer_known_dead=view.known_dead,
        balances=tuple(view.balances),
        boodle_stacks=tuple(view.boodle_stacks),
        pot=view.pot,
        high_bid=view.standing_bid,
        high_bidder=_absolute(view.high_bidder),
        in_auction=tuple(view.in_auction) if any(view.in_auction) or view.phase is Phase.AUCTION else (),
        widow_taker=_absolute(view.widow_taker),
        viewer_pending=view.own_pending,
    )


def _absolute(relative: int | None) -> int:
    return NOBODY if relative is None else relative


def _public_dead(view: ObservationView, rules: Rules) -> int:
    """Removed cards and the known-dead cards a stop showed to everyone (the card below was played)."""
    played = view.played
    public = rules.removed_mask
    for card in cards_of(view.known_dead & ~rules.removed_mask):
        below = K.previous_card(card, view.ace_high)
        if below is not None and played >> below & 1:
            public |= 1 << card
    return public


def sample_cards(view: ObservationView, rules: Rules, rng: random.Random) -> tuple[list[int], int]:
    """One guess of every hand (the viewer's own is real) and of the dead hand."""
    pool = cards_of(K.unseen(view, rules))
    rng.shuffle(pool)
    hands = [view.hand]
    start = 0
    for count in view.card_counts[1:]:
        hands.append(sum(1 << c for c in pool[start : start + count]))
        start += count
    dead = (view.known_dead & ~rules.removed_mask) | sum(1 << c for c in pool[start:])
    return hands, dead


def sample_world(
    view: ObservationView, rules: Rules, position: Position, rng: random.Random, template: Game | None = None
) -> Game:
    """A game at the view's position with the hidden cards guessed.

    Given ``template`` (an earlier world of the same position) the new world
    is a copy of it with new cards, which is cheaper than building one. The
    worlds are made to be played to the end of the current deal only.
    """
    hands, dead = sample_cards(view, rules, rng)
    if template is not None:
        return with_cards(template, position, hands, dead)
    return game_at(position, hands, dead, seed=rng.randrange(2**31), plain_next_deal=True)


__all__ = ["position_of", "sample_cards", "sample_world", "VIEWER"]
