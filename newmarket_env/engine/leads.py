"""Who leads after a stop, and which cards they may lead (docs/rules.md step 9)."""

from __future__ import annotations

from collections.abc import Sequence

from newmarket_env.game.cards import CLUBS, cards_of, other_colour_mask, suit_of
from newmarket_env.game.order import lowest_of_suit, lowest_per_suit
from newmarket_env.game.rules import LeadRule

ALL_SUITS = (0, 1, 2, 3)
_OPPOSITE_SUITS = {0: (1, 2), 3: (1, 2), 1: (0, 3), 2: (0, 3)}
_OTHER_SUITS = {suit: tuple(s for s in ALL_SUITS if s != suit) for suit in ALL_SUITS}

# (leader, cards they may lead); leader None means nobody can lead: the deal is blocked.
LeadOptions = tuple["int | None", list[int]]


def lowest_any_suit(hand: int, ace_high: bool) -> list[int]:
    return lowest_per_suit(hand, ALL_SUITS, ace_high)


def options_after_stop(
    rule: LeadRule, hands: Sequence[int], stopper: int, stopped_card: int, ace_high: bool, boodle_mask: int
) -> LeadOptions:
    """The leader and their legal leads after ``stopper`` played the stopping card."""
    suit = suit_of(stopped_card)
    hand = hands[stopper]
    if rule is LeadRule.LOWEST_ANY_SUIT:
        return stopper, lowest_any_suit(hand, ace_high)
    if rule is LeadRule.LOWEST_OTHER_SUIT:
        others = lowest_per_suit(hand, _OTHER_SUITS[suit], ace_high)
        if others:
            return stopper, others
        lowest = lowest_of_suit(hand, suit, ace_high)
        assert lowest is not None  # a stopper who played their last card went out: the hand is not empty
        return stopper, [lowest]
    if rule is LeadRule.LOWEST_OPPOSITE_COLOUR:
        for seat in _seats_from(stopper, len(hands)):
            options = lowest_per_suit(hands[seat], _OPPOSITE_SUITS[suit], ace_high)
            if options:
                return seat, options
        return stopper, lowest_any_suit(hand, ace_high)
    # ANY_OPPOSITE_COLOUR: any card of the other colour, boodles only when nothing else.
    colour = other_colour_mask(suit)
    for seat in _seats_from(stopper, len(hands)):
        of_colour = hands[seat] & colour
        if of_colour:
            plain = of_colour & ~boodle_mask
            return seat, cards_of(plain or of_colour)
    return None, []


def lowest_club_holder(hands: Sequence[int]) -> tuple[int, int] | None:
    """Seat and card of the lowest club in play, 2 upward and the ace last (Newbury)."""
    in_play = 0
    for hand in hands:
        in_play |= hand
    card = lowest_of_suit(in_play, CLUBS, ace_high=True)
    if card is None:
        return None
    for seat, hand in enumerate(hands):
        if hand >> card & 1:
            return seat, card
    return None


def _seats_from(start: int, n: int):
    """``start`` and then each seat to its left, once round the table."""
    return ((start + k) % n for k in range(n))


__all__ = ["options_after_stop", "lowest_any_suit", "lowest_club_holder"]
