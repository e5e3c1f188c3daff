"""Action ids: one ``Discrete(NUM_ACTIONS)`` space for every variant (docs/contract.md).

| id    | meaning                                                   |
|-------|-----------------------------------------------------------|
| 0-51  | a card by id: the card to lead, or to discard             |
| 52    | KEEP: widow, keep the hand; ``dealer_buy``, decline       |
| 53    | EXCHANGE: widow, take the widow; ``dealer_buy``, buy it   |
| 54    | PASS: auction                                             |
| 55-74 | bid 1-20 chips                                            |
| 75-78 | stake one chip on boodle 0-3 (``stake_mode="choose"``)    |
"""

from __future__ import annotations

from newmarket_env.game.cards import NUM_CARDS, card_name, card_text

CARD_ACTIONS = range(0, NUM_CARDS)
KEEP = 52
EXCHANGE = 53
PASS = 54
BID_BASE = 55  # BID_BASE + k - 1 bids k chips
MAX_BID_ACTION = 20
STAKE_BASE = 75  # STAKE_BASE + b stakes a chip on boodle b
NUM_BOODLE_ACTIONS = 4
NUM_ACTIONS = STAKE_BASE + NUM_BOODLE_ACTIONS  # 79


def bid_action(chips: int) -> int:
    return BID_BASE + chips - 1


def bid_amount(action: int) -> int:
    return action - BID_BASE + 1


def stake_action(boodle: int) -> int:
    return STAKE_BASE + boodle


def is_card(action: int) -> bool:
    return 0 <= action < NUM_CARDS


def is_bid(action: int) -> bool:
    return BID_BASE <= action < BID_BASE + MAX_BID_ACTION


def is_stake(action: int) -> bool:
    return STAKE_BASE <= action < STAKE_BASE + NUM_BOODLE_ACTIONS


def action_text(action: int) -> str:
    """Short machine-friendly text, e.g. ``"TH"``, ``"keep"``, ``"bid 4"``, ``"stake 2"``."""
    if is_card(action):
        return card_text(action)
    if action == KEEP:
        return "keep"
    if action == EXCHANGE:
        return "exchange"
    if action == PASS:
        return "pass"
    if is_bid(action):
        return f"bid {bid_amount(action)}"
    if is_stake(action):
        return f"stake {action - STAKE_BASE}"
    raise ValueError(f"action {action!r} is not an action id; allowed: 0..{NUM_ACTIONS - 1}")


def describe_card_action(action: int, discarding: bool) -> str:
    return f"{'discard' if discarding else 'lead'} {card_name(action)}"
