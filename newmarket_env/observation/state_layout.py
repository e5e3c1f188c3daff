"""The privileged state's layout, declared once as named pieces: the whole table, for training only.

The state is what no player sees: every hand, the dead hand (or widow), what each seat alone knows,
and everything public. It is for centralised critics and other training-time helpers (PettingZoo's
``state()``; the vector env's and the batch's ``states()``), never for an agent at play: agents get
only observations. ``docs/observation.md`` documents it, generated from this table
(``python -m newmarket_env.docs``).

Seats are counted from a seat of the caller's choice, as the observation counts them from its
viewer: relative seat ``k`` is ``(seat + k) % n``. The AEC env's ``state()`` counts from seat 0, so
there relative seats are the absolute ones. Pieces that the observation has too are the same
:class:`~newmarket_env.observation.layout.Piece` objects, so they mean the same and are scaled alike.
"""

from __future__ import annotations

from newmarket_env.engine.types import DECISION_ORDER
from newmarket_env.observation import layout as obs
from newmarket_env.observation.layout import MAX_SEATS, Piece, offsets

_SHARED = {piece.name: piece for piece in obs.PIECES}

STATE_CARD_PIECES = (
    Piece("hands", MAX_SEATS, True, "plane k: the hand of relative seat k"),
    Piece(
        "dead",
        1,
        True,
        "the dead hand or widow as it is now: as dealt, the discards put into it, or the hand put down in an exchange",
    ),
    _SHARED["played_by"],
    Piece("public_dead", 1, True, "cards every seat knows are out of play: removed cards and public stops"),
    Piece(
        "private_dead",
        MAX_SEATS,
        True,
        "plane k: what relative seat k alone knows is out of play: its discards, its former hand after an exchange",
    ),
    _SHARED["last_card"],
    _SHARED["boodle_layout"],
    _SHARED["boodle_value"],
)

STATE_SCALAR_PIECES = (
    Piece("seat", MAX_SEATS, False, "one-hot: the absolute seat of relative seat 0 (seat 0 in the AEC env's state())"),
    _SHARED["boodle_stacks"],
    _SHARED["pot"],
    _SHARED["balances"],
    _SHARED["seat_present"],
    _SHARED["dealer"],
    _SHARED["phase"],
    Piece("to_act", MAX_SEATS, False, "one-hot: relative seat of the seat to decide (none once the session is over)"),
    Piece(
        "decision",
        len(DECISION_ORDER),
        False,
        f"one-hot decision asked of the seat to act: {obs.enum_values(DECISION_ORDER)}",
    ),
    _SHARED["standing_bid"],
    _SHARED["high_bidder"],
    _SHARED["in_auction"],
    _SHARED["widow_taker"],
    Piece("pending", MAX_SEATS, False, "stake chips or discards relative seat k still has to place, / 4"),
    _SHARED["deals_left"],
    *(piece for piece in obs.SCALAR_PIECES if piece.name.startswith("rule_")),
)

STATE_PIECES = STATE_CARD_PIECES + STATE_SCALAR_PIECES
STATE_SIZE = sum(p.size for p in STATE_PIECES)
STATE_SLOTS = offsets(STATE_PIECES)

# The card planes read from 52-bit masks, first in the layout and in this order (one unpack fills them all).
STATE_MASK_PLANES = ("hands", "dead", "played_by", "public_dead", "private_dead", "last_card")


def _check_layout() -> None:
    """The encoders rely on the mask planes coming first, in order; fail loudly at import if that changes."""
    names = [p.name for p in STATE_PIECES]
    if len(set(names)) != len(names) or tuple(names[: len(STATE_MASK_PLANES)]) != STATE_MASK_PLANES:
        raise RuntimeError(f"state layout changed: {STATE_MASK_PLANES} must be its first pieces, in order")


_check_layout()

__all__ = ["STATE_CARD_PIECES", "STATE_MASK_PLANES", "STATE_PIECES", "STATE_SCALAR_PIECES", "STATE_SIZE", "STATE_SLOTS"]
