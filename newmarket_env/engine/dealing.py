"""Dealing: hand sizes by the dealing order, shuffled deals and explicit deals."""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from newmarket_env.game.cards import FULL_DECK, card_from_text, card_text, iter_cards, mask_from_cards
from newmarket_env.game.rules import DeadHand, DeadHandPosition, Rules

DEAD_SLOT = -1  # stands for the dead hand in a dealing order


@dataclass(frozen=True)
class DealtCards:
    """One deal as it leaves the dealer's hands: a mask per seat and the dealt dead hand."""

    dealer: int
    hands: tuple[int, ...]
    dead: int


def dealing_order(rules: Rules, dealer: int) -> list[int]:
    """Seats in the order one round of the deal visits them; ``DEAD_SLOT`` for the dead hand."""
    n = rules.num_players
    seats = [(dealer + 1 + k) % n for k in range(n)]  # eldest ... dealer
    if rules.dead_hand is not DeadHand.DEALT:
        return seats
    position = rules.dead_hand_position
    if position is DeadHandPosition.FIRST:
        return [DEAD_SLOT, *seats]
    if position is DeadHandPosition.BEFORE_DEALER:
        return [*seats[:-1], DEAD_SLOT, *seats[-1:]]
    return [*seats, DEAD_SLOT]


@functools.cache
def sorted_deck(removed_mask: int) -> tuple[int, ...]:
    """The cards in play, lowest id first: the deck before each shuffle."""
    return tuple(iter_cards(FULL_DECK & ~removed_mask))


def shuffled_deal(rules: Rules, dealer: int, rng: random.Random) -> DealtCards:
    """Deal the shuffled deck one card at a time in the dealing order."""
    deck = list(sorted_deck(rules.removed_mask))
    rng.shuffle(deck)
    order = dealing_order(rules, dealer)
    masks = {slot: mask_from_cards(deck[i :: len(order)]) for i, slot in enumerate(order)}  # card i: slot i % len
    hands = tuple(masks[s] for s in range(rules.num_players))
    return DealtCards(dealer, hands, masks.get(DEAD_SLOT, 0))


def parse_deal(rules: Rules, deal: Mapping[str, Any], index: int = 0) -> DealtCards:
    """Check a user-given deal (docs/contract.md ``DEAL``) and turn it into masks."""
    where = f"deal {index}"
    if not isinstance(deal, Mapping) or set(deal) - {"dealer", "hands", "dead"} or "hands" not in deal:
        raise ValueError(f"{where}: expected a dict with keys 'dealer', 'hands', 'dead'; got {deal!r}")
    n = rules.num_players
    dealer = deal.get("dealer", 0)
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
        raise ValueError(f"{where}: dealer={dealer!r} is not a seat; allowed: 0..{n - 1}")
    hands_text = deal["hands"]
    if not isinstance(hands_text, (list, tuple)) or len(hands_text) != n:
        raise ValueError(f"{where}: 'hands' must hold one list per seat ({n} lists)")
    seen: dict[int, str] = {}
    hands = tuple(_parse_cards(cards, f"{where}, hand of seat {s}", seen) for s, cards in enumerate(hands_text))
    dead = _parse_cards(deal.get("dead", []), f"{where}, dead hand", seen)
    _check_deck(rules, hands, dead, where)
    return DealtCards(dealer, hands, dead)


def _parse_cards(cards: Any, where: str, seen: dict[int, str]) -> int:
    if isinstance(cards, str) or not isinstance(cards, (list, tuple)):
        raise ValueError(f"{where}: expected a list of card texts such as ['2C', 'TH']")
    mask = 0
    for text in cards:
        try:
            card = card_from_text(text)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        if card in seen:
            raise ValueError(f"{where}: card {card_text(card)} is doubled (also in {seen[card]})")
        seen[card] = where
        mask |= 1 << card
    return mask


def _check_deck(rules: Rules, hands: tuple[int, ...], dead: int, where: str) -> None:
    removed = rules.removed_mask
    given = dead
    for mask in hands:
        given |= mask
    if given & removed:
        bad = [card_text(c) for c in iter_cards(given & removed)]
        raise ValueError(f"{where}: cards {bad} are removed from the deck by the rules")
    missing = FULL_DECK & ~removed & ~given
    if missing:
        raise ValueError(f"{where}: cards {[card_text(c) for c in iter_cards(missing)]} are missing")
    if dead and rules.dead_hand is not DeadHand.DEALT:
        raise ValueError(f"{where}: 'dead' must be [] when dead_hand={rules.dead_hand.value!r}")
    need = rules.discard_count + 1 if rules.dead_hand is DeadHand.DISCARD else 1
    for seat, mask in enumerate(hands):
        if mask.bit_count() < need:
            raise ValueError(f"{where}: hand of seat {seat} has {mask.bit_count()} cards; at least {need} needed")
