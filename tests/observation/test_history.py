"""The deal's history as a seat saw it (observation/history.py), on events written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env.engine.events import seen_by
from newmarket_env.engine.game import Game
from newmarket_env.game.cards import card_from_text
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.encode import encode_flat, static_part
from newmarket_env.observation.history import HISTORY_PIECES, HISTORY_SIZE, encode_history, encode_info_state
from newmarket_env.observation.layout import offsets

AT = offsets(HISTORY_PIECES)

# Four seats. Seat 2 chooses a stake chip for boodle 1 (twice; 2 chips as dealer), seat 0 for boodle 3; seat 0
# discards 3D then 9H, seat 2 discards KS (hidden from seat 0); seat 1 bids 1, seat 2 passes, seat 3 bids 2,
# seat 1 passes; seat 3 leads 5C, seat 0 follows 6C, seat 1 follows 7C.
EVENTS = [
    {"type": "stake", "seat": 2, "target": "boodle", "boodle": 1, "amount": 2, "action": 76},
    {"type": "stake", "seat": 2, "target": "boodle", "boodle": 1, "amount": 2, "action": 76},
    {"type": "stake", "seat": 0, "target": "boodle", "boodle": 3, "amount": 1, "action": 78},
    {"type": "stake", "seat": 1, "target": "pot", "amount": 1},  # an ante: not a choice
    {"type": "discard", "seat": 0, "card": "3D", "action": 15},
    {"type": "discard", "seat": 2, "card": "KS", "action": 51},
    {"type": "discard", "seat": 0, "card": "9H", "action": 34},
    {"type": "bid", "seat": 1, "amount": 1, "action": 55},
    {"type": "pass", "seat": 2, "action": 54},
    {"type": "bid", "seat": 3, "amount": 2, "action": 56},
    {"type": "pass", "seat": 1, "action": 54},
    {"type": "play", "seat": 3, "card": "5C", "lead": True, "action": 4},
    {"type": "play", "seat": 0, "card": "6C", "lead": False},
    {"type": "play", "seat": 1, "card": "7C", "lead": False},
]


def test_the_history_of_seat_0_worked_by_hand():
    vec = encode_history(EVENTS, viewer=0, n=4)
    expected = np.zeros(HISTORY_SIZE, np.float32)
    play, discard = AT["play_order"].start, AT["own_discard_order"].start
    expected[play + card_from_text("5C")] = 1 / 52
    expected[play + card_from_text("6C")] = 2 / 52
    expected[play + card_from_text("7C")] = 3 / 52
    expected[discard + card_from_text("3D")] = 1 / 52
    expected[discard + card_from_text("9H")] = 2 / 52  # KS is seat 2's: seat 0 never saw it
    bids = AT["bids"].start
    expected[bids + 8 * 0 + 1] = 1.0  # 1 chip, by relative seat 1
    expected[bids + 8 * 1 + 3] = 1.0  # 2 chips, by relative seat 3
    passed = AT["passed_at"].start
    expected[passed + 2] = (1 + 1) / 21  # seat 2 passed with 1 bid
    expected[passed + 1] = (2 + 1) / 21  # seat 1 passed with 2 bid
    stakes = AT["stakes_chosen"].start
    expected[stakes + 4 * 2 + 1] = 4 / 40  # seat 2: 4 chips on boodle 1, chip-scaled
    expected[stakes + 4 * 0 + 3] = 1 / 40
    np.testing.assert_allclose(vec, expected, rtol=1e-6)


def test_the_history_is_counted_from_the_viewer():
    mine = encode_history(EVENTS, viewer=0, n=4)
    theirs = encode_history(EVENTS, viewer=2, n=4)
    discard = AT["own_discard_order"]
    assert np.flatnonzero(theirs[discard]).tolist() == [card_from_text("KS")]  # seat 2 sees its own discard only
    bids = AT["bids"].start
    assert theirs[bids + 8 * 0 + 3] == 1.0  # seat 1's bid, relative to seat 2: seat 3
    np.testing.assert_array_equal(mine[AT["play_order"]], theirs[AT["play_order"]])  # the plays are public


def test_another_seats_discards_change_nothing_but_their_count():
    changed = [dict(e, card="QS", action=50) if e["type"] == "discard" and e["seat"] == 2 else e for e in EVENTS]
    np.testing.assert_array_equal(encode_history(changed, 0, 4), encode_history(EVENTS, 0, 4))
    assert seen_by(changed[5], 0) == seen_by(EVENTS[5], 0) == {"type": "discard", "seat": 2}


def test_the_information_state_is_the_observation_then_the_history():
    rules = make_rules("newbury")
    game = Game(rules, seed=2)
    for _ in range(14):
        game.apply(game.legal[-1])
    static = static_part(rules)
    state = encode_info_state(game, 1, static)
    np.testing.assert_array_equal(state[: static.size], encode_flat(game, 1, static))
    np.testing.assert_array_equal(state[static.size :], encode_history(game.events, 1, game.n))
    assert state[static.size :].any()
    with pytest.raises(ValueError, match="record_events=True"):
        encode_info_state(Game(rules, seed=2, record_events=False), 1, static)
