"""The observation view as computed before it was derived from the encoder (commit 5daf913): the reference.

``decode`` read the vector piece by piece with numpy, and ``view_of_game`` built
the view straight from the game's attributes. ``tests/observation/test_view_derived.py``
checks the derived view (``observation/view.py``) against both on many positions.
Kept verbatim except that it builds the package's :class:`ObservationView`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from newmarket_env.engine.game import NOBODY, Game
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER, Decision
from newmarket_env.game.rules import MIN_PLAYERS, DeadHand, FirstLead, LeadRule, StakeMode, Widow
from newmarket_env.observation.encode import PLANES_SHAPE
from newmarket_env.observation.layout import CHIP_SCALE, FLAT_SIZE, NUM_CARD_PLANES, offsets
from newmarket_env.observation.view import ObservationView

SLOTS = offsets()


# ---------------------------------------------------------------------- decoding a vector
def _mask(bits: np.ndarray) -> int:
    """52 zeros and ones -> a card mask."""
    packed = np.packbits(bits > 0.5, bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def _chips(value: float) -> int:
    return int(round(float(value) * CHIP_SCALE))  # noqa: RUF046 (kept verbatim)


def _one_hot(vec: np.ndarray, name: str) -> int | None:
    """Index of the 1 in a one-hot piece, None when the piece is all zeros."""
    hits = np.flatnonzero(vec[SLOTS[name]] > 0.5)
    return int(hits[0]) if hits.size else None


def as_flat(observation: Any) -> np.ndarray:
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
    vec = as_flat(observation)
    n = _one_hot(vec, "rule_players") + MIN_PLAYERS
    played = vec[SLOTS["played_by"]].reshape(-1, 52)
    layout = vec[SLOTS["boodle_layout"]].reshape(4, 52)
    last = _one_hot(vec, "last_card")
    legal = [] if action_mask is None else [int(a) for a in np.flatnonzero(np.asarray(action_mask))]
    return ObservationView(
        num_players=n,
        hand=_mask(vec[SLOTS["hand"]]),
        played_by=[_mask(played[k]) for k in range(n)],
        known_dead=_mask(vec[SLOTS["known_dead"]]),
        last_card=last,
        boodle_cards=tuple(int(np.argmax(layout[b])) for b in range(4)),
        boodle_stacks=[_chips(x) for x in vec[SLOTS["boodle_stacks"]]],
        pot=_chips(vec[SLOTS["pot"]][0]),
        card_counts=[int(round(x * 13)) for x in vec[SLOTS["card_counts"]][:n]],  # noqa: RUF046 (kept verbatim)
        balances=[_chips(x) for x in vec[SLOTS["balances"]][:n]],
        dealer=_one_hot(vec, "dealer") or 0,
        phase=PHASE_ORDER[_one_hot(vec, "phase")],
        decision=_decision(vec),
        standing_bid=int(round(vec[SLOTS["standing_bid"]][0] * 20)),  # noqa: RUF046 (kept verbatim)
        high_bidder=_one_hot(vec, "high_bidder"),
        in_auction=[bool(x > 0.5) for x in vec[SLOTS["in_auction"]][:n]],
        widow_taker=_one_hot(vec, "widow_taker"),
        dead_count=int(round(vec[SLOTS["dead_count"]][0] * 13)),  # noqa: RUF046 (kept verbatim)
        own_pending=int(round(vec[SLOTS["own_pending"]][0] * 4)),  # noqa: RUF046 (kept verbatim)
        deals_left_fraction=float(vec[SLOTS["deals_left"]][0]),
        ace_high=bool(vec[SLOTS["rule_ace_high"]][0] > 0.5),
        lead_rule=list(LeadRule)[_one_hot(vec, "rule_lead")],
        stake_mode=list(StakeMode)[_one_hot(vec, "rule_stake_mode")],
        dead_hand=list(DeadHand)[_one_hot(vec, "rule_dead_hand")],
        widow=list(Widow)[_one_hot(vec, "rule_widow")],
        first_lead=list(FirstLead)[_one_hot(vec, "rule_first_lead")],
        legal=legal,
    )


def _decision(vec: np.ndarray) -> Decision | None:
    index = _one_hot(vec, "decision")
    return None if index is None else DECISION_ORDER[index]


# ---------------------------------------------------------------------- straight from a game
def view_of_game(game: Game, seat: int) -> ObservationView:
    """The view ``seat`` would decode from its observation, built without the vector.

    Reads only what ``seat`` may know (its hand and private dead cards, public
    state), like the encoder. For simulations an agent runs on its own sampled
    worlds; an agent playing the real env decodes its observation instead.
    """
    n, rules = game.n, game.rules
    rel = [(seat + k) % n for k in range(n)]
    return ObservationView(
        num_players=n,
        hand=game.hands[seat],
        played_by=_played_by(game, seat),
        known_dead=game.public_dead | game.known_dead[seat],
        last_card=game.last_played if game.played else None,
        boodle_cards=rules.boodle_cards,
        boodle_stacks=list(game.boodle_stacks),
        pot=game.pot,
        card_counts=[game.hands[s].bit_count() for s in rel],
        balances=[game.balances[s] for s in rel],
        dealer=(game.dealer - seat) % n,
        phase=game.phase,
        decision=game.decision if game.to_act == seat else None,
        standing_bid=game.high_bid,
        high_bidder=_relative(game.high_bidder, seat, n),
        in_auction=[bool(game.in_auction[s]) for s in rel] if game.in_auction else [False] * n,
        widow_taker=_relative(game.widow_taker, seat, n),
        dead_count=game.dead.bit_count(),
        own_pending=game.pending_for(seat),
        deals_left_fraction=float(np.float32(max(0, rules.num_deals - game.deal_index - 1) / rules.num_deals)),
        ace_high=rules.ace_high,
        lead_rule=rules.lead_after_stop,
        stake_mode=rules.stake_mode,
        dead_hand=rules.dead_hand,
        widow=rules.widow,
        first_lead=rules.first_lead,
        legal=list(game.legal) if game.to_act == seat else [],
    )


def _relative(absolute: int, seat: int, n: int) -> int | None:
    return None if absolute == NOBODY else (absolute - seat) % n


def _played_by(game: Game, seat: int) -> list[int]:
    out = [0] * game.n
    mask, by = game.played, game.played_by
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        mask ^= low
        out[(by[card] - seat) % game.n] |= low
    return out


__all__ = ["decode", "view_of_game"]
