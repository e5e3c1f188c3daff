"""Encoders: the engine state seen by one seat, as a flat vector or as card planes.

Only what the viewer may know under RULES.md "What the players know" is read:
the viewer's own hand and private knowledge, and public state. Tests swap the
hidden cards of the other seats and check the encoding does not change.
"""

from __future__ import annotations

import numpy as np

from newmarket_env.engine.game import NOBODY, Game
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER
from newmarket_env.observation.layout import (
    CHIP_CLIP, CHIP_SCALE, FLAT_SIZE, NUM_CARD_PLANES, NUM_SCALARS, offsets,
)
from newmarket_env.rules import MIN_PLAYERS, DeadHand, FirstLead, LeadRule, Rules, StakeMode, Widow

SLOTS = offsets()
_PHASE_INDEX = {p: i for i, p in enumerate(PHASE_ORDER)}
_DECISION_INDEX = {d: i for i, d in enumerate(DECISION_ORDER)}


def mask_bits(mask: int) -> np.ndarray:
    """A 52-bit card mask as 52 uint8 zeros and ones (bit ``id`` at index ``id``)."""
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8), bitorder="little")[:52]


def _chips(value: float) -> float:
    return max(-CHIP_CLIP, min(CHIP_CLIP, value / CHIP_SCALE))


def static_part(rules: Rules) -> np.ndarray:
    """The pieces fixed by the rules; computed once per env and copied into each observation."""
    vec = np.zeros(FLAT_SIZE, dtype=np.float32)
    layout = vec[SLOTS["boodle_layout"]].reshape(4, 52)
    for b, card in enumerate(rules.boodle_cards):
        layout[b, card] = 1.0
    vec[SLOTS["seat_present"]][: rules.num_players] = 1.0
    vec[SLOTS["rule_ace_high"]] = float(rules.ace_high)
    for name, enum, value in (("rule_lead", LeadRule, rules.lead_after_stop),
                              ("rule_stake_mode", StakeMode, rules.stake_mode),
                              ("rule_dead_hand", DeadHand, rules.dead_hand),
                              ("rule_widow", Widow, rules.widow),
                              ("rule_first_lead", FirstLead, rules.first_lead)):
        vec[SLOTS[name]][list(enum).index(value)] = 1.0
    vec[SLOTS["rule_payments"]] = [_chips(rules.per_card_payment), _chips(rules.pot_ante),
                                   _chips(rules.boodle_stake)]
    vec[SLOTS["rule_dealer_multiplier"]] = rules.dealer_stake_multiplier / 4.0
    vec[SLOTS["rule_players"]][rules.num_players - MIN_PLAYERS] = 1.0
    return vec


def encode_flat(game: Game, viewer: int, static: np.ndarray) -> np.ndarray:
    """The flat observation of ``viewer`` (float32, ``FLAT_SIZE`` long)."""
    vec = static.copy()
    n = game.n
    rel = [(viewer + k) % n for k in range(n)]  # relative seat k -> absolute seat
    vec[SLOTS["hand"]] = mask_bits(game.hands[viewer])
    _played_by(vec, game, viewer)
    vec[SLOTS["known_dead"]] = mask_bits(game.public_dead | game.known_dead[viewer])
    if game.played and game.last_played is not None:
        vec[SLOTS["last_card"].start + game.last_played] = 1.0
    stacks = [_chips(s) for s in game.boodle_stacks]
    value = vec[SLOTS["boodle_value"]]
    for b, card in enumerate(game.rules.boodle_cards):
        value[card] = stacks[b]
    vec[SLOTS["boodle_stacks"]] = stacks
    vec[SLOTS["pot"]] = _chips(game.pot)
    vec[SLOTS["card_counts"].start: SLOTS["card_counts"].start + n] = [game.hands[s].bit_count() / 13 for s in rel]
    vec[SLOTS["balances"].start: SLOTS["balances"].start + n] = [_chips(game.balances[s]) for s in rel]
    _one_hot_seat(vec, "dealer", game.dealer, viewer, n)
    vec[SLOTS["phase"].start + _PHASE_INDEX[game.phase]] = 1.0
    if game.decision is not None and game.to_act == viewer:
        vec[SLOTS["decision"].start + _DECISION_INDEX[game.decision]] = 1.0
    vec[SLOTS["standing_bid"]] = game.high_bid / 20.0
    _one_hot_seat(vec, "high_bidder", game.high_bidder, viewer, n)
    if game.in_auction:
        vec[SLOTS["in_auction"].start: SLOTS["in_auction"].start + n] = [float(game.in_auction[s]) for s in rel]
    _one_hot_seat(vec, "widow_taker", game.widow_taker, viewer, n)
    vec[SLOTS["dead_count"]] = game.dead.bit_count() / 13.0
    vec[SLOTS["own_pending"]] = game.pending_for(viewer) / 4.0
    rules = game.rules
    vec[SLOTS["deals_left"]] = max(0, rules.num_deals - game.deal_index - 1) / rules.num_deals
    return vec


def _played_by(vec: np.ndarray, game: Game, viewer: int) -> None:
    base = SLOTS["played_by"].start
    n = game.n
    played_by = game.played_by
    mask = game.played
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        mask ^= low
        vec[base + ((played_by[card] - viewer) % n) * 52 + card] = 1.0


def _one_hot_seat(vec: np.ndarray, name: str, seat: int, viewer: int, n: int) -> None:
    if seat != NOBODY:
        vec[SLOTS[name].start + (seat - viewer) % n] = 1.0


def flat_to_planes(flat: np.ndarray) -> np.ndarray:
    """Card pieces as (suit x rank) planes, then every scalar broadcast over a plane."""
    card_part = flat[: NUM_CARD_PLANES * 52].reshape(NUM_CARD_PLANES, 4, 13)
    scalars = flat[NUM_CARD_PLANES * 52:]
    scalar_planes = np.broadcast_to(scalars[:, None, None], (NUM_SCALARS, 4, 13))
    return np.concatenate([card_part, scalar_planes], axis=0)


PLANES_SHAPE = (NUM_CARD_PLANES + NUM_SCALARS, 4, 13)
ENCODINGS = {"flat": (FLAT_SIZE,), "planes": PLANES_SHAPE}
