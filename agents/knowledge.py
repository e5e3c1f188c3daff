"""What a seat can work out from its view: unseen cards, its own runs, known stops, its own leads.

All card sets are 52-bit masks (``newmarket_env.game.cards``). These helpers read an
:class:`~newmarket_env.observation.view.ObservationView` and the rules only.
"""

from __future__ import annotations

from newmarket_env.game.cards import FULL_DECK, SUIT_MASKS, cards_of, other_colour_mask, suit_of
from newmarket_env.game.order import lowest_per_suit, next_table, order_key
from newmarket_env.game.rules import LeadRule, Rules
from newmarket_env.observation.view import ObservationView

_OPPOSITE_SUITS = {0: (1, 2), 3: (1, 2), 1: (0, 3), 2: (0, 3)}


def unseen(view: ObservationView, rules: Rules) -> int:
    """Cards the viewer cannot place: in another hand or hidden in the dead hand."""
    return FULL_DECK & ~rules.removed_mask & ~view.hand & ~view.played & ~view.known_dead


def hidden_dead_count(view: ObservationView, rules: Rules) -> int:
    """How many dead-hand cards the viewer does not know."""
    known_in_dead = view.known_dead & ~rules.removed_mask
    return max(0, view.dead_count - known_in_dead.bit_count())


def own_chain(hand: int, card: int, ace_high: bool) -> tuple[list[int], int | None]:
    """The cards the holder plays in a row from ``card`` (held), and the card that comes next."""
    nxt = next_table(ace_high)
    chain = [card]
    following = nxt[card]
    while following is not None and hand >> following & 1:
        chain.append(following)
        following = nxt[following]
    return chain, following


def is_known_stop(following: int | None, view: ObservationView) -> bool:
    """True when a run that needs ``following`` surely stops: top rank, played or known dead."""
    if following is None:
        return True
    return bool((view.played | view.known_dead) >> following & 1)


def own_leads(rule: LeadRule, hand: int, stopped: int, ace_high: bool, boodles: int) -> list[int]:
    """Cards the viewer may lead after stopping on ``stopped``; [] when the lead passes to the left."""
    suit = suit_of(stopped)
    if rule is LeadRule.LOWEST_ANY_SUIT:
        return lowest_per_suit(hand, range(4), ace_high)
    if rule is LeadRule.LOWEST_OTHER_SUIT:
        others = lowest_per_suit(hand, [s for s in range(4) if s != suit], ace_high)
        return others or lowest_per_suit(hand, [suit], ace_high)
    if rule is LeadRule.LOWEST_OPPOSITE_COLOUR:
        return lowest_per_suit(hand, _OPPOSITE_SUITS[suit], ace_high)
    of_colour = hand & other_colour_mask(suit)
    return cards_of((of_colour & ~boodles) or of_colour)


def suit_length(hand: int, card: int) -> int:
    return (hand & SUIT_MASKS[suit_of(card)]).bit_count()


def suit_opened(view: ObservationView, card: int) -> bool:
    """Whether any card of the card's suit was played this deal."""
    return bool(view.played & SUIT_MASKS[suit_of(card)])


def boodle_mask(view: ObservationView) -> int:
    out = 0
    for card in view.boodle_cards:
        out |= 1 << card
    return out


def boodles_above(view: ObservationView, card: int, ace_high: bool) -> int:
    """Chips on boodles the viewer holds higher up the card's suit (reached if the run goes on)."""
    chips = 0
    key = order_key(card, ace_high)
    for b, boodle in enumerate(view.boodle_cards):
        if view.hand >> boodle & 1 and suit_of(boodle) == suit_of(card) and order_key(boodle, ace_high) > key:
            chips += view.boodle_stacks[b] + 1
    return chips


def _previous_table(ace_high: bool) -> dict[int, int]:
    nxt = next_table(ace_high)
    return {following: card for card, following in enumerate(nxt) if following is not None}


_PREVIOUS = {False: _previous_table(False), True: _previous_table(True)}


def previous_card(card: int, ace_high: bool) -> int | None:
    """The card a run plays just before ``card`` (None for the lowest rank)."""
    return _PREVIOUS[ace_high].get(card)


def segments(hand: int, ace_high: bool) -> list[tuple[int, int | None]]:
    """The hand split into runs of consecutive held cards: (first card, card after the run)."""
    prev = _PREVIOUS[ace_high]
    out = []
    for card in cards_of(hand):
        before = prev.get(card)
        if before is None or not hand >> before & 1:
            out.append((card, own_chain(hand, card, ace_high)[1]))
    return out


__all__ = [
    "unseen",
    "hidden_dead_count",
    "own_chain",
    "is_known_stop",
    "own_leads",
    "suit_length",
    "suit_opened",
    "boodle_mask",
    "boodles_above",
    "segments",
    "previous_card",
]
