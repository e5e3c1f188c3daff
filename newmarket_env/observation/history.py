"""The deal so far as one seat saw it, in fixed-size pieces: with the flat observation, the information state.

The flat observation (``layout.py``) is what a seat sees now. A learner that needs perfect recall (OpenSpiel's
``information_state_tensor``, :mod:`newmarket_env.integrations.openspiel`) also needs what the seat saw
happen in the deal, and in which order. The pieces below hold it, read from the deal's events as the seat
saw them (:func:`~newmarket_env.engine.events.seen_by`: another seat's discards come without their cards),
so they hold nothing the seat may not know. The information state is the flat observation followed by
them (:data:`INFO_STATE_PIECES`, documented in docs/openspiel.md, generated from this table).

What the pieces keep: every card played this deal and its place in the order of play (``played_by`` of the
observation says by whom), the seat's own discards in order, the auction bid by bid (each bid's bidder, each
pass with the bid standing when it came: the order of turns then follows from the rules), and the stakes
each seat chose. What they leave out: the order in which one seat placed its chosen stake chips, and the
plays of earlier deals (the cards are dealt anew; what carries over, the chips, stacks, pot and deals
left, is in the observation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from newmarket_env.engine.events import Event, seen_by
from newmarket_env.engine.protocol import EngineGame
from newmarket_env.game.actions import MAX_BID_ACTION
from newmarket_env.game.cards import CARD_TEXTS
from newmarket_env.observation.encode import FloatVector, encode_flat, scale_chips
from newmarket_env.observation.layout import FLAT_SIZE, MAX_SEATS, PIECES, Piece, offsets

NUM_BOODLES = 4

HISTORY_PIECES = (
    Piece("play_order", 1, True, "card c: k / 52 when it was the k-th card played this deal, else 0"),
    Piece("own_discard_order", 1, True, "card c: k / 52 when it was the viewer's k-th discard this deal, else 0"),
    Piece(
        "bids",
        MAX_BID_ACTION * MAX_SEATS,
        False,
        f"entry {MAX_SEATS} (b - 1) + k: 1 when relative seat k bid b chips in this deal's auction",
    ),
    Piece(
        "passed_at",
        MAX_SEATS,
        False,
        f"(b + 1) / {MAX_BID_ACTION + 1} when relative seat k passed in this deal's auction with b chips bid, else 0",
    ),
    Piece(
        "stakes_chosen",
        NUM_BOODLES * MAX_SEATS,
        False,
        f'entry {NUM_BOODLES} k + b: chips relative seat k chose to stake on boodle b this deal (stake_mode="choose"), '
        "chip-scaled",
    ),
)
HISTORY_SIZE = sum(p.size for p in HISTORY_PIECES)
INFO_STATE_PIECES = PIECES + HISTORY_PIECES
INFO_STATE_SIZE = FLAT_SIZE + HISTORY_SIZE

_AT = {name: where.start for name, where in offsets(HISTORY_PIECES).items()}
_READ = frozenset({"play", "discard", "bid", "pass", "stake"})  # the event types the pieces are made of
_CARD_ID = {text: card for card, text in enumerate(CARD_TEXTS)}


def encode_history(events: Sequence[Event | dict[str, Any]], viewer: int, n: int) -> FloatVector:
    """The history pieces of one deal's ``events`` as seat ``viewer`` of ``n`` saw them (float32, ``HISTORY_SIZE``)."""
    vec = np.zeros(HISTORY_SIZE, dtype=np.float32)
    plays = discards = standing = 0
    chosen = [0] * (NUM_BOODLES * MAX_SEATS)  # chips, scaled once counted
    for event in events:
        if event["type"] not in _READ:
            continue
        seen = seen_by(event, viewer)  # only what the viewer saw is read below
        kind, seat = seen["type"], seen.get("seat")
        relative = (seat - viewer) % n if isinstance(seat, int) else None
        if kind == "play":
            plays += 1
            vec[_AT["play_order"] + _CARD_ID[seen["card"]]] = plays / 52
        elif kind == "discard" and "card" in seen:  # the viewer's own discard
            discards += 1
            vec[_AT["own_discard_order"] + _CARD_ID[seen["card"]]] = discards / 52
        elif kind == "bid" and relative is not None:
            standing = seen["amount"]
            vec[_AT["bids"] + MAX_SEATS * (standing - 1) + relative] = 1.0
        elif kind == "pass" and relative is not None:
            vec[_AT["passed_at"] + relative] = (standing + 1) / (MAX_BID_ACTION + 1)
        elif kind == "stake" and "action" in seen and relative is not None:
            chosen[NUM_BOODLES * relative + seen["boodle"]] += seen["amount"]
    if any(chosen):
        vec[_AT["stakes_chosen"] : _AT["stakes_chosen"] + len(chosen)] = [scale_chips(chips) for chips in chosen]
    return vec


def encode_info_state(game: EngineGame, viewer: int, static: FloatVector) -> FloatVector:
    """``viewer``'s information state: its flat observation, then the history of the deal as it saw it
    (float32, ``INFO_STATE_SIZE``). The game must record its events (``record_events=True``)."""
    if not game.record_events:
        raise ValueError("encode_info_state reads the deal's events: give a game made with record_events=True")
    return np.concatenate([encode_flat(game, viewer, static), encode_history(game.events, viewer, game.n)])


__all__ = [
    "HISTORY_PIECES",
    "HISTORY_SIZE",
    "INFO_STATE_PIECES",
    "INFO_STATE_SIZE",
    "encode_history",
    "encode_info_state",
]
