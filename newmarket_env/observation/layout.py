"""The observation layout, declared once as named pieces.

Every encoding is built from this table, and ``docs/observation.md`` is
generated from it (``python -m newmarket_env.docs``; a test checks they agree).
Seats are relative to the viewer: relative seat ``k`` is ``(viewer + k) % n``,
so ``k = 0`` is the viewer and ``k = 1`` the player to the left. Seat pieces are
padded to 8 seats so one shape serves every player count.
"""

from __future__ import annotations

from dataclasses import dataclass

from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER
from newmarket_env.game.rules import MAX_PLAYERS, MIN_PLAYERS, DeadHand, FirstLead, LeadRule, StakeMode, Widow

MAX_SEATS = MAX_PLAYERS
CHIP_SCALE = 40.0  # chip amounts are divided by this ...
CHIP_CLIP = 8.0  # ... and clipped to [-8, 8] so the Box is bounded


@dataclass(frozen=True)
class Piece:
    """A named part of the observation: ``count`` card planes (52 each) or ``count`` scalars."""

    name: str
    count: int
    cards: bool
    doc: str

    @property
    def size(self) -> int:
        return self.count * 52 if self.cards else self.count


def enum_values(values) -> str:
    """The values of an enum (or a tuple of its members) as a comma-separated list, for the docs of a piece."""
    return ", ".join(v.value for v in values)


CARD_PIECES = (
    Piece("hand", 1, True, "the viewer's own hand"),
    Piece("played_by", MAX_SEATS, True, "plane k: cards played this deal by relative seat k"),
    Piece(
        "known_dead",
        1,
        True,
        "cards the viewer knows are out of play: removed cards, public stops, "
        "own discards, own former hand after an exchange",
    ),
    Piece("last_card", 1, True, "the last card played this deal (the run in progress, or the card that stopped)"),
    Piece("boodle_layout", 4, True, "plane b: the card of boodle b (layout order)"),
    Piece("boodle_value", 1, True, "chips on the boodle each card would take (chip-scaled)"),
)

SCALAR_PIECES = (
    Piece("boodle_stacks", 4, False, "chips on boodle b (chip-scaled)"),
    Piece("pot", 1, False, "chips in the pot (chip-scaled)"),
    Piece("card_counts", MAX_SEATS, False, "cards held by relative seat k, / 13"),
    Piece("balances", MAX_SEATS, False, "balance of relative seat k (chip-scaled)"),
    Piece("seat_present", MAX_SEATS, False, "1 where relative seat k is at the table"),
    Piece("dealer", MAX_SEATS, False, "one-hot: relative seat of the dealer"),
    Piece("phase", len(PHASE_ORDER), False, f"one-hot phase: {enum_values(PHASE_ORDER)}"),
    Piece(
        "decision", len(DECISION_ORDER), False, f"one-hot decision asked of the viewer: {enum_values(DECISION_ORDER)}"
    ),
    Piece("standing_bid", 1, False, "the standing auction bid, / 20"),
    Piece("high_bidder", MAX_SEATS, False, "one-hot: relative seat of the high bidder"),
    Piece("in_auction", MAX_SEATS, False, "1 where relative seat k is still in the auction"),
    Piece("widow_taker", MAX_SEATS, False, "one-hot: relative seat that exchanged with the widow this deal"),
    Piece("dead_count", 1, False, "cards in the dead hand, / 13"),
    Piece("own_pending", 1, False, "stake chips or discards the viewer still has to place, / 4"),
    Piece("deals_left", 1, False, "deals left in the session after this one, / num_deals"),
    Piece("rule_ace_high", 1, False, "1 if aces are high"),
    Piece("rule_lead", len(LeadRule), False, f"one-hot lead_after_stop: {enum_values(LeadRule)}"),
    Piece("rule_stake_mode", len(StakeMode), False, f"one-hot stake_mode: {enum_values(StakeMode)}"),
    Piece("rule_dead_hand", len(DeadHand), False, f"one-hot dead_hand: {enum_values(DeadHand)}"),
    Piece("rule_widow", len(Widow), False, f"one-hot widow: {enum_values(Widow)}"),
    Piece("rule_first_lead", len(FirstLead), False, f"one-hot first_lead: {enum_values(FirstLead)}"),
    Piece("rule_payments", 3, False, "per_card_payment, pot_ante, boodle_stake (chip-scaled)"),
    Piece("rule_dealer_multiplier", 1, False, "dealer_stake_multiplier / 4"),
    Piece("rule_players", MAX_PLAYERS - MIN_PLAYERS + 1, False, "one-hot number of players, 3..8"),
)

PIECES = CARD_PIECES + SCALAR_PIECES


def offsets(pieces=PIECES) -> dict[str, slice]:
    """Where each piece sits in the flat vector."""
    out, start = {}, 0
    for piece in pieces:
        out[piece.name] = slice(start, start + piece.size)
        start += piece.size
    return out


FLAT_SIZE = sum(p.size for p in PIECES)
NUM_CARD_PLANES = sum(p.count for p in CARD_PIECES)
NUM_SCALARS = sum(p.size for p in SCALAR_PIECES)
