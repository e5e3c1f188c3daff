"""The order of ranks inside a suit: ace low (A 2 ... K) or ace high (2 ... K A).

Card ids never change; only "which card comes next" and "which card is lowest"
depend on ``ace_high``. Both are precomputed tables.

>>> from newmarket_env.game.cards import card_from_text as c, card_text
>>> next_card(c("KH"), ace_high=False) is None, card_text(next_card(c("KH"), ace_high=True))
(True, 'AH')
"""

from __future__ import annotations

from newmarket_env.game.cards import ACE, KING, NUM_CARDS, NUM_RANKS, SUIT_MASKS


def _next_table(ace_high: bool) -> tuple[int | None, ...]:
    table: list[int | None] = []
    for card in range(NUM_CARDS):
        suit, rank = divmod(card, NUM_RANKS)
        if ace_high:
            nxt = None if rank == ACE else (ACE if rank == KING else rank + 1)
        else:
            nxt = None if rank == KING else rank + 1
        table.append(None if nxt is None else suit * NUM_RANKS + nxt)
    return tuple(table)


_NEXT = {False: _next_table(False), True: _next_table(True)}
_ACE_BITS = tuple(1 << (s * NUM_RANKS + ACE) for s in range(4))


def next_card(card: int, ace_high: bool) -> int | None:
    """The card that follows ``card`` in a run, or ``None`` after the top rank."""
    return _NEXT[ace_high][card]


def next_table(ace_high: bool) -> tuple[int | None, ...]:
    return _NEXT[ace_high]


def is_top(card: int, ace_high: bool) -> bool:
    return _NEXT[ace_high][card] is None


def lowest_of_suit(mask: int, suit: int, ace_high: bool) -> int | None:
    """The lowest card of ``suit`` in ``mask`` under the rank order, or ``None``."""
    in_suit = mask & SUIT_MASKS[suit]
    if not in_suit:
        return None
    if ace_high:
        without_ace = in_suit & ~_ACE_BITS[suit]
        if without_ace:
            in_suit = without_ace
    return (in_suit & -in_suit).bit_length() - 1


def lowest_per_suit(mask: int, suits, ace_high: bool) -> list[int]:
    """The lowest held card of each of ``suits`` that ``mask`` holds, in suit order."""
    found = []
    for suit in suits:
        card = lowest_of_suit(mask, suit, ace_high)
        if card is not None:
            found.append(card)
    return found


def order_key(card: int, ace_high: bool) -> int:
    """Sort key of a card inside its suit (0 = lowest)."""
    rank = card % NUM_RANKS
    if ace_high:
        return NUM_RANKS - 1 if rank == ACE else rank - 1
    return rank
