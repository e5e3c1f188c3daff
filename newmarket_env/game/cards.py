"""Cards as small ints and hands as 52-bit integers.

Card id = ``suit * 13 + r`` with suits ``C=0 D=1 H=2 S=3`` and ``r`` = ``A=0, 2=1,
... K=12`` (docs/rules.md). A set of cards is an ``int`` whose bit ``id`` is set, so
set operations are ``&``, ``|`` and ``~`` and "lowest card of a suit" is one
bit trick. Everything that knows the representation lives here.

>>> card_from_text("TH")
35
>>> cards_to_text(mask_from_texts(["2C", "AS"]))
['2C', 'AS']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

NUM_CARDS = 52
NUM_SUITS = 4
NUM_RANKS = 13
RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE = 0
KING = 12

FULL_DECK = (1 << NUM_CARDS) - 1
SUIT_MASKS = tuple(((1 << NUM_RANKS) - 1) << (NUM_RANKS * s) for s in range(NUM_SUITS))
RED_SUITS = (DIAMONDS, HEARTS)
BLACK_SUITS = (CLUBS, SPADES)
RED_MASK = SUIT_MASKS[DIAMONDS] | SUIT_MASKS[HEARTS]
BLACK_MASK = SUIT_MASKS[CLUBS] | SUIT_MASKS[SPADES]


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    """The rank index ``r`` of the card id (A=0 ... K=12), not its playing order."""
    return card % NUM_RANKS


def is_red(suit: int) -> bool:
    return suit in RED_SUITS


def other_colour_mask(suit: int) -> int:
    """All cards of the colour opposite to ``suit``."""
    return BLACK_MASK if is_red(suit) else RED_MASK


def card_from_text(text: str) -> int:
    """Parse ``"TH"``-style text; raises ``ValueError`` naming the allowed form."""
    if not isinstance(text, str) or len(text) != 2:
        raise ValueError(
            f"card {text!r} is not a card: use a rank from {RANK_CHARS!r} "
            f"followed by a suit from {SUIT_CHARS!r}, e.g. 'TH'"
        )
    rank, suit = text[0].upper(), text[1].upper()
    if rank not in RANK_CHARS or suit not in SUIT_CHARS:
        raise ValueError(
            f"card {text!r} is not a card: use a rank from {RANK_CHARS!r} "
            f"followed by a suit from {SUIT_CHARS!r}, e.g. 'TH'"
        )
    return SUIT_CHARS.index(suit) * NUM_RANKS + RANK_CHARS.index(rank)


def card_text(card: int) -> str:
    return RANK_CHARS[card % NUM_RANKS] + SUIT_CHARS[card // NUM_RANKS]


CARD_TEXTS = tuple(card_text(card) for card in range(NUM_CARDS))  # records write texts: look them up


def card_name(card: int) -> str:
    """Spoken name, e.g. ``"10 of hearts"``."""
    return f"{RANK_NAMES[card % NUM_RANKS]} of {SUIT_NAMES[card // NUM_RANKS]}"


def bit(card: int) -> int:
    return 1 << card


def mask_from_cards(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def mask_from_texts(texts: Iterable[str]) -> int:
    return mask_from_cards(card_from_text(t) for t in texts)


def iter_cards(mask: int) -> Iterator[int]:
    """Card ids in the mask, lowest id first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: int) -> list[int]:
    """Card ids in the mask, lowest id first (a plain loop: the engine calls this at every decision)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cards_to_text(mask: int) -> list[str]:
    return [CARD_TEXTS[c] for c in cards_of(mask)]


def count(mask: int) -> int:
    return mask.bit_count()


def lowest_id(mask: int) -> int:
    """The lowest card id in a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def highest_id(mask: int) -> int:
    return mask.bit_length() - 1
