"""The observation decoder agrees with the engine, for flat and planes encodings."""

import dataclasses
import random

import numpy as np
import pytest

from newmarket_env import VARIANTS, env
from newmarket_env.observation.encode import flat_to_planes
from newmarket_env.observation.view import decode, view_of_game

CASES = [(v, 4, {}) for v in VARIANTS] + [
    ("newmarket", 5, {"stake_mode": "choose", "widow": "dealer_buy"}),
    ("michigan", 8, {}),
    ("hoyle1885", 3, {}),
]


@pytest.mark.parametrize("variant,players,overrides", CASES)
def test_decode_matches_the_game_for_every_seat(variant, players, overrides):
    e = env(variant=variant, num_players=players, **overrides)
    e.reset(seed=5)
    rng = random.Random(1)
    game = e.unwrapped.game
    while not game.over:
        for seat in range(players):
            obs = e.observe(f"player_{seat}")
            flat_view = decode(obs)
            assert flat_view == view_of_game(game, seat)
            assert decode(flat_to_planes(obs["observation"]), obs["action_mask"]) == flat_view
        e.step(rng.choice(game.legal))


def test_decoded_pieces_have_their_meaning():
    e = env(variant="michigan", num_players=4)
    e.reset(seed=2)
    game = e.unwrapped.game
    seat = game.to_act
    view = decode(e.observe(f"player_{seat}"))
    assert view.hand == game.hands[seat]
    assert view.dealer == (game.dealer - seat) % 4
    assert view.card_counts == [game.hands[(seat + k) % 4].bit_count() for k in range(4)]
    assert view.legal == sorted(game.legal)
    assert view.decision is game.decision
    assert [f.name for f in dataclasses.fields(view)][:2] == ["num_players", "hand"]


def test_decode_rejects_a_vector_of_the_wrong_shape():
    with pytest.raises(ValueError, match="neither flat"):
        decode(np.zeros(7, dtype=np.float32))
