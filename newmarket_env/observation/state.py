"""The privileged state of a game (the reference encoder): every hand, the dead hand, the table and the chips.

For training only (centralised critics, oracle inputs): it holds what no seat may know, so no agent,
web answer or record shown during play reads it. :func:`encode_state` reads a game only through the
engine contract (:class:`~newmarket_env.engine.protocol.GameState`), so it encodes a game of either
engine; the compiled engine has its own copy in C (``observation/_state.pyx``, for ``FastGame`` and
the table batch), which ``tests/engine/test_fast.py`` holds equal to this one at every step. The layout
is declared in :mod:`newmarket_env.observation.state_layout`.

>>> from newmarket_env.engine.game import Game
>>> from newmarket_env.game.rules import make_rules
>>> rules = make_rules("michigan")
>>> game = Game(rules, seed=1)
>>> state = encode_state(game, 0, state_static_part(rules))
>>> state.shape == (STATE_SIZE,), int(state[STATE_SLOTS["hands"]].sum() + state[STATE_SLOTS["dead"]].sum())
(True, 52)
"""

from __future__ import annotations

import numpy as np

from newmarket_env.engine.game import NOBODY
from newmarket_env.engine.protocol import GameState
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER
from newmarket_env.game.rules import Rules
from newmarket_env.observation.encode import FloatVector, scale_chips, static_part
from newmarket_env.observation.layout import MAX_SEATS
from newmarket_env.observation.state_layout import STATE_MASK_PLANES, STATE_SIZE, STATE_SLOTS

_AT = {name: where.start for name, where in STATE_SLOTS.items()}
_MASK_PLANES_END = STATE_SLOTS[STATE_MASK_PLANES[-1]].stop
_PHASE_INDEX = {p: i for i, p in enumerate(PHASE_ORDER)}
_DECISION_INDEX = {d: i for i, d in enumerate(DECISION_ORDER)}


def state_static_part(rules: Rules) -> FloatVector:
    """The pieces of the state fixed by the rules (the boodle layout, the seats present, the rules)."""
    return static_part(rules, STATE_SLOTS)


def encode_state(game: GameState, seat: int, static: FloatVector) -> FloatVector:
    """The privileged state of ``game`` with seats counted from ``seat`` (float32, ``STATE_SIZE`` long)."""
    if not 0 <= seat < game.n:
        raise ValueError(f"seat={seat} is not a seat; allowed: 0..{game.n - 1}")
    vec = static.copy()
    _card_planes(vec, game, seat)
    _table_scalars(vec, game, seat)
    return vec


def _card_planes(vec: FloatVector, game: GameState, seat: int) -> None:
    """Every hand, the dead hand, the plays by seat, what is known dead and the last card: masks unpacked at once."""
    n = game.n
    hands, known = [0] * MAX_SEATS, [0] * MAX_SEATS
    played_by_rel = [0] * MAX_SEATS
    for k in range(n):
        hands[k] = game.hands[(seat + k) % n]
        known[k] = game.known_dead[(seat + k) % n]
    for card in range(52):
        if game.played >> card & 1:
            played_by_rel[(game.played_by[card] - seat) % n] |= 1 << card
    last = 1 << game.last_played if game.played and game.last_played is not None else 0
    masks = [*hands, game.dead, *played_by_rel, game.public_dead, *known, last]
    bits = np.unpackbits(np.array(masks, dtype="<u8").view(np.uint8), bitorder="little")
    vec[:_MASK_PLANES_END].reshape(-1, 52)[:] = bits.reshape(-1, 64)[:, :52]


def _table_scalars(vec: FloatVector, game: GameState, seat: int) -> None:
    """The chips, whose turn and which decision, the auction, what each seat still owes, the deals left."""
    n = game.n
    for b, card in enumerate(game.boodle_cards):
        vec[_AT["boodle_value"] + card] = vec[_AT["boodle_stacks"] + b] = scale_chips(game.boodle_stacks[b])
    vec[_AT["pot"]] = scale_chips(game.pot)
    vec[_AT["seat"] + seat] = 1.0
    for k in range(n):
        vec[_AT["balances"] + k] = scale_chips(game.balances[(seat + k) % n])
        vec[_AT["pending"] + k] = game.pending_for((seat + k) % n) / 4.0
        if game.in_auction:
            vec[_AT["in_auction"] + k] = float(game.in_auction[(seat + k) % n])
    for name, who in (
        ("dealer", game.dealer),
        ("to_act", game.to_act),
        ("high_bidder", game.high_bidder),
        ("widow_taker", game.widow_taker),
    ):
        if who != NOBODY:
            vec[_AT[name] + (who - seat) % n] = 1.0
    vec[_AT["phase"] + _PHASE_INDEX[game.phase]] = 1.0
    if game.decision is not None:
        vec[_AT["decision"] + _DECISION_INDEX[game.decision]] = 1.0
    vec[_AT["standing_bid"]] = game.high_bid / 20.0
    rules = game.rules
    vec[_AT["deals_left"]] = max(0, rules.num_deals - game.deal_index - 1) / rules.num_deals


__all__ = ["STATE_SIZE", "STATE_SLOTS", "encode_state", "state_static_part"]
