"""Named pieces of one seat's observation: the decoder agents use instead of raw offsets.

:func:`decode` turns an observation (the flat vector, the planes encoding, or
the ``{"observation", "action_mask"}`` dict the env gives) back into an
:class:`ObservationView`: card sets as 52-bit masks, chips as whole numbers,
seats relative to the viewer (0 = the viewer, 1 = the player to the left).
:func:`view_of_game` is the view a seat would decode from its observation of a
game (of either engine): it encodes the game with the reference encoder and
decodes the vector, so the observation is computed in one place only (a search
agent's sampled worlds use it).

>>> from newmarket_env import env
>>> e = env(variant="newmarket", num_players=4)
>>> e.reset(seed=1)
>>> v = decode(e.observe(e.agent_selection))
>>> v.num_players, v.decision.value, v.card_counts[0] == v.hand.bit_count()
(4, 'lead', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from newmarket_env.engine.protocol import GameState
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER, Decision, Phase
from newmarket_env.game.rules import MIN_PLAYERS, DeadHand, FirstLead, LeadRule, Rules, StakeMode, Widow
from newmarket_env.observation.encode import PLANES_SHAPE, FloatVector, encode_flat, static_part
from newmarket_env.observation.layout import CHIP_SCALE, FLAT_SIZE, NUM_CARD_PLANES, offsets

SLOTS = offsets()


@dataclass
class ObservationView:
    """What one seat sees, by name. Seat lists are relative to the viewer and ``num_players`` long."""

    num_players: int
    hand: int  # own cards (mask)
    played_by: list[int]  # cards played this deal by each relative seat (masks)
    known_dead: int  # removed, public stops, own discards, own former hand
    last_card: int | None  # the last card played this deal
    boodle_cards: tuple[int, ...]  # layout order
    boodle_stacks: list[int]  # chips on each boodle, layout order
    pot: int
    card_counts: list[int]
    balances: list[int]
    dealer: int  # relative seat
    phase: Phase
    decision: Decision | None  # the decision asked of the viewer, None when not its turn
    standing_bid: int
    high_bidder: int | None  # relative seat, None without a bid
    in_auction: list[bool]
    widow_taker: int | None  # relative seat that exchanged with the widow this deal
    dead_count: int  # cards in the dead hand
    own_pending: int  # stake chips or discards still to place
    deals_left_fraction: float  # deals left after this one, / num_deals (float32 precision)
    ace_high: bool
    lead_rule: LeadRule
    stake_mode: StakeMode
    dead_hand: DeadHand
    widow: Widow
    first_lead: FirstLead
    legal: list[int] = field(default_factory=list)  # legal action ids (from the action mask)

    played: int = 0  # every card played this deal; filled from played_by

    def __post_init__(self) -> None:
        played = 0
        for mask in self.played_by:
            played |= mask
        self.played = played

    @property
    def eldest(self) -> int:
        return (self.dealer + 1) % self.num_players

    def boodle_value(self, card: int) -> int:
        """Chips the card would take if played now (0 for a card that is no boodle)."""
        for b, boodle in enumerate(self.boodle_cards):
            if boodle == card:
                return self.boodle_stacks[b]
        return 0


# ---------------------------------------------------------------------- decoding a vector
_CARD_END = NUM_CARD_PLANES * 52  # the card planes come first in the flat vector, the scalars after them
_PLANE = {name: piece.start // 52 for name, piece in SLOTS.items() if piece.stop <= _CARD_END}
_SCALAR = {
    name: (piece.start - _CARD_END, piece.stop - _CARD_END) for name, piece in SLOTS.items() if piece.start >= _CARD_END
}


def as_flat(observation: Any) -> FloatVector:
    """The flat vector of a flat or planes observation; planes are turned back."""
    arr = np.asarray(observation, dtype=np.float32)
    if arr.shape == (FLAT_SIZE,):
        return arr
    if arr.shape == PLANES_SHAPE:
        card_part = arr[:NUM_CARD_PLANES].reshape(-1)
        scalars = arr[NUM_CARD_PLANES:, 0, 0]
        return np.concatenate([card_part, scalars])
    raise ValueError(f"observation of shape {arr.shape} is neither flat {(FLAT_SIZE,)} nor planes {PLANES_SHAPE}")


def decode(observation: Any, action_mask: Any = None) -> ObservationView:
    """An observation (dict from the env, flat vector or planes) as an :class:`ObservationView`."""
    if isinstance(observation, Mapping):
        action_mask = observation.get("action_mask") if action_mask is None else action_mask
        observation = observation["observation"]
    legal = [] if action_mask is None else np.flatnonzero(np.asarray(action_mask)).tolist()
    return _decode_flat(as_flat(observation), legal)


_CARD_BITS = np.uint64(1) << np.arange(52, dtype=np.uint64)  # card id -> its bit in a mask


def _card_masks(vec: FloatVector) -> list[int]:
    """Every card plane of the vector as a 52-bit mask (one product: the cheapest numpy way measured)."""
    masks: list[int] = ((vec[:_CARD_END].reshape(NUM_CARD_PLANES, 52) > 0.5) @ _CARD_BITS).tolist()
    return masks


def _lowest_card(mask: int) -> int | None:
    return (mask & -mask).bit_length() - 1 if mask else None


def _chips(value: float) -> int:
    return round(value * CHIP_SCALE)


class _Scalars:
    """The scalar pieces of one vector as Python floats, read by name."""

    def __init__(self, vec: FloatVector) -> None:
        self.values: list[float] = vec[_CARD_END:].tolist()

    def piece(self, name: str) -> list[float]:
        start, stop = _SCALAR[name]
        return self.values[start:stop]

    def first(self, name: str) -> float:
        return self.values[_SCALAR[name][0]]

    def one_hot(self, name: str) -> int | None:
        """Index of the (first) 1 in a one-hot piece, None when the piece is all zeros."""
        start, stop = _SCALAR[name]
        for index, value in enumerate(self.values[start:stop]):
            if value > 0.5:
                return index
        return None

    def index(self, name: str) -> int:
        """Index of the 1 in a piece that always has one (phase, rules)."""
        found = self.one_hot(name)
        if found is None:
            raise ValueError(f"observation piece {name!r} is all zeros; is this an observation of this env?")
        return found


_LEAD_RULES, _STAKE_MODES, _DEAD_HANDS = tuple(LeadRule), tuple(StakeMode), tuple(DeadHand)
_WIDOWS, _FIRST_LEADS = tuple(Widow), tuple(FirstLead)
_HAND, _KNOWN_DEAD, _LAST_CARD = _PLANE["hand"], _PLANE["known_dead"], _PLANE["last_card"]
_PLAYED_BY, _LAYOUT = _PLANE["played_by"], _PLANE["boodle_layout"]


def _decode_flat(vec: FloatVector, legal: list[int]) -> ObservationView:
    """The view of a flat vector whose legal actions are ``legal`` (ascending ids)."""
    masks, scalars = _card_masks(vec), _Scalars(vec)
    n = scalars.index("rule_players") + MIN_PLAYERS
    decision = scalars.one_hot("decision")
    return ObservationView(
        num_players=n,
        hand=masks[_HAND],
        played_by=masks[_PLAYED_BY : _PLAYED_BY + n],
        known_dead=masks[_KNOWN_DEAD],
        last_card=_lowest_card(masks[_LAST_CARD]),
        boodle_cards=tuple(_lowest_card(mask) or 0 for mask in masks[_LAYOUT : _LAYOUT + 4]),
        boodle_stacks=[_chips(x) for x in scalars.piece("boodle_stacks")],
        pot=_chips(scalars.first("pot")),
        card_counts=[round(x * 13) for x in scalars.piece("card_counts")[:n]],
        balances=[_chips(x) for x in scalars.piece("balances")[:n]],
        dealer=scalars.one_hot("dealer") or 0,
        phase=PHASE_ORDER[scalars.index("phase")],
        decision=None if decision is None else DECISION_ORDER[decision],
        standing_bid=round(scalars.first("standing_bid") * 20),
        high_bidder=scalars.one_hot("high_bidder"),
        in_auction=[x > 0.5 for x in scalars.piece("in_auction")[:n]],
        widow_taker=scalars.one_hot("widow_taker"),
        dead_count=round(scalars.first("dead_count") * 13),
        own_pending=round(scalars.first("own_pending") * 4),
        deals_left_fraction=scalars.first("deals_left"),
        ace_high=scalars.first("rule_ace_high") > 0.5,
        lead_rule=_LEAD_RULES[scalars.index("rule_lead")],
        stake_mode=_STAKE_MODES[scalars.index("rule_stake_mode")],
        dead_hand=_DEAD_HANDS[scalars.index("rule_dead_hand")],
        widow=_WIDOWS[scalars.index("rule_widow")],
        first_lead=_FIRST_LEADS[scalars.index("rule_first_lead")],
        legal=legal,
    )


# ---------------------------------------------------------------------- straight from a game
@lru_cache(maxsize=64)
def _static(rules: Rules) -> FloatVector:
    """The rules' static part, made once per rules (read-only: the encoder copies it)."""
    static = static_part(rules)
    static.flags.writeable = False
    return static


def view_of_game(game: GameState, seat: int) -> ObservationView:
    """The view ``seat`` decodes from its observation of ``game``: encoded, then decoded.

    Derived from the encoder, so it reads only what ``seat`` may know and is
    exactly what :func:`decode` gives for the env's observation (chips clipped
    as the encoding clips them). For simulations an agent runs on its own
    sampled worlds; an agent playing the real env decodes its observation.
    """
    legal = sorted(game.legal) if game.to_act == seat and not game.over else []
    return _decode_flat(encode_flat(game, seat, _static(game.rules)), legal)


__all__ = ["ObservationView", "as_flat", "decode", "view_of_game"]
