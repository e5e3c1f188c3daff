"""Encoders: the engine state seen by one seat, as a flat vector or as card planes.

Only what the viewer may know under docs/rules.md "What the players know" is read:
the viewer's own hand and private knowledge, and public state. Tests swap the
hidden cards of the other seats and check the encoding does not change.

:func:`encode_flat` is the reference encoder: it reads a game only through the
engine contract (:class:`~newmarket_env.engine.protocol.GameState`), so it
encodes a game of either engine. The compiled engine has its own copy in C
(``FastGame.encode_into``, also used by its table batch) for speed;
``observation/engines.py`` pairs each engine with its encoder and
``tests/engine/test_fast.py`` checks the two give the same vector at every step.
Everything else (planes, the decoded view, ``view_of_game``) is derived from
the flat vector.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from newmarket_env.engine.game import NOBODY
from newmarket_env.engine.protocol import GameState
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER
from newmarket_env.game.rules import MIN_PLAYERS, DeadHand, FirstLead, LeadRule, Rules, StakeMode, Widow
from newmarket_env.observation.layout import (
    CHIP_CLIP,
    CHIP_SCALE,
    FLAT_SIZE,
    NUM_CARD_PLANES,
    NUM_SCALARS,
    offsets,
)

SLOTS = offsets()
_PHASE_INDEX = {p: i for i, p in enumerate(PHASE_ORDER)}
_DECISION_INDEX = {d: i for i, d in enumerate(DECISION_ORDER)}


FloatVector = NDArray[np.float32]


def mask_bits(mask: int) -> NDArray[np.uint8]:
    """A 52-bit card mask as 52 uint8 zeros and ones (bit ``id`` at index ``id``)."""
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8), bitorder="little")[:52]


def scale_chips(value: float) -> float:
    """Chips scaled and clipped to [-CHIP_CLIP, CHIP_CLIP] (comparisons: cheaper than min/max calls)."""
    scaled = value / CHIP_SCALE
    return CHIP_CLIP if scaled > CHIP_CLIP else -CHIP_CLIP if scaled < -CHIP_CLIP else scaled


def static_part(rules: Rules, slots: Mapping[str, slice] = SLOTS) -> FloatVector:
    """The pieces fixed by the rules; computed once per env and copied into each observation.

    ``slots`` is the layout they are placed in: the observation's (the default) or the privileged
    state's (``state_layout.STATE_SLOTS``), which has the same pieces under the same names.
    """
    vec = np.zeros(max(where.stop for where in slots.values()), dtype=np.float32)
    layout = vec[slots["boodle_layout"]].reshape(4, 52)
    for b, card in enumerate(rules.boodle_cards):
        layout[b, card] = 1.0
    vec[slots["seat_present"]][: rules.num_players] = 1.0
    vec[slots["rule_ace_high"]] = float(rules.ace_high)
    for name, enum, value in (
        ("rule_lead", LeadRule, rules.lead_after_stop),
        ("rule_stake_mode", StakeMode, rules.stake_mode),
        ("rule_dead_hand", DeadHand, rules.dead_hand),
        ("rule_widow", Widow, rules.widow),
        ("rule_first_lead", FirstLead, rules.first_lead),
    ):
        vec[slots[name]][list(enum).index(value)] = 1.0
    payments = (rules.per_card_payment, rules.pot_ante, rules.boodle_stake)
    vec[slots["rule_payments"]] = [scale_chips(amount) for amount in payments]
    vec[slots["rule_dealer_multiplier"]] = rules.dealer_stake_multiplier / 4.0
    vec[slots["rule_players"]][rules.num_players - MIN_PLAYERS] = 1.0
    return vec


# The card planes read from 52-bit masks sit next to each other in the layout, in this order; they
# are unpacked from the masks in one numpy call instead of being set card by card.
MASK_PLANES = ("hand", "played_by", "known_dead", "last_card")
MASK_PLANES_END = SLOTS[MASK_PLANES[-1]].stop
_MAX_SEATS = SLOTS["card_counts"].stop - SLOTS["card_counts"].start


def _check_planes() -> None:
    """The fast path above relies on the layout order; fail loudly at import if it changes."""
    starts = [SLOTS[name].start for name in MASK_PLANES]
    sizes = [SLOTS[name].stop - SLOTS[name].start for name in MASK_PLANES]
    if starts[0] != 0 or any(a + n != b for a, n, b in zip(starts, sizes, starts[1:], strict=False)):
        raise RuntimeError(f"observation layout changed: {MASK_PLANES} must be the first card pieces, in order")


_check_planes()
# Start of every piece as a plain int: the scalars are few and mostly zero, so each is set on its own.
AT = {name: piece.start for name, piece in SLOTS.items()}


def encode_flat(game: GameState, viewer: int, static: FloatVector) -> FloatVector:
    """The flat observation of ``viewer`` (float32, ``FLAT_SIZE`` long)."""
    vec = static.copy()
    _card_planes(vec, game, viewer)
    _chip_scalars(vec, game, viewer)
    _turn_scalars(vec, game, viewer)
    return vec


def _card_planes(vec: FloatVector, game: GameState, viewer: int) -> None:
    """Hand, played by each relative seat, known dead and last card: masks unpacked in one go."""
    n = game.n
    played_by_rel = [0] * _MAX_SEATS
    played_by = game.played_by
    mask = game.played
    while mask:
        low = mask & -mask
        mask ^= low
        played_by_rel[(played_by[low.bit_length() - 1] - viewer) % n] |= low
    last = 1 << game.last_played if game.played and game.last_played is not None else 0
    masks = [game.hands[viewer], *played_by_rel, game.public_dead | game.known_dead[viewer], last]
    bits = np.unpackbits(np.array(masks, dtype="<u8").view(np.uint8), bitorder="little")
    vec[:MASK_PLANES_END].reshape(-1, 52)[:] = bits.reshape(-1, 64)[:, :52]


def _chip_scalars(vec: FloatVector, game: GameState, viewer: int) -> None:
    """Boodle values and stacks, pot, then card counts and balances by relative seat."""
    for b, card in enumerate(game.boodle_cards):
        vec[AT["boodle_value"] + card] = vec[AT["boodle_stacks"] + b] = scale_chips(game.boodle_stacks[b])
    vec[AT["pot"]] = scale_chips(game.pot)
    n, hands, balances = game.n, game.hands, game.balances
    for k in range(n):
        seat = (viewer + k) % n
        vec[AT["card_counts"] + k] = hands[seat].bit_count() / 13
        vec[AT["balances"] + k] = scale_chips(balances[seat])


def _turn_scalars(vec: FloatVector, game: GameState, viewer: int) -> None:
    """Dealer, phase, decision, the auction and the deal's progress."""
    n = game.n
    vec[AT["dealer"] + (game.dealer - viewer) % n] = 1.0
    vec[AT["phase"] + _PHASE_INDEX[game.phase]] = 1.0
    if game.decision is not None and game.to_act == viewer:
        vec[AT["decision"] + _DECISION_INDEX[game.decision]] = 1.0
    vec[AT["standing_bid"]] = game.high_bid / 20.0
    for name, seat in (("high_bidder", game.high_bidder), ("widow_taker", game.widow_taker)):
        if seat != NOBODY:
            vec[AT[name] + (seat - viewer) % n] = 1.0
    if game.in_auction:
        for k in range(n):
            vec[AT["in_auction"] + k] = float(game.in_auction[(viewer + k) % n])
    vec[AT["dead_count"]] = game.dead.bit_count() / 13.0
    vec[AT["own_pending"]] = game.pending_for(viewer) / 4.0
    rules = game.rules
    vec[AT["deals_left"]] = max(0, rules.num_deals - game.deal_index - 1) / rules.num_deals


def flat_to_planes(flat: FloatVector) -> FloatVector:
    """Card pieces as (suit x rank) planes, then every scalar broadcast over a plane."""
    # Filling one preallocated array is cheaper than np.concatenate over a np.broadcast_to view.
    planes = np.empty(PLANES_SHAPE, dtype=flat.dtype)
    planes[:NUM_CARD_PLANES] = flat[: NUM_CARD_PLANES * 52].reshape(NUM_CARD_PLANES, 4, 13)
    planes[NUM_CARD_PLANES:] = flat[NUM_CARD_PLANES * 52 :, None, None]
    return planes


PLANES_SHAPE = (NUM_CARD_PLANES + NUM_SCALARS, 4, 13)
ENCODINGS = {"flat": (FLAT_SIZE,), "planes": PLANES_SHAPE}
