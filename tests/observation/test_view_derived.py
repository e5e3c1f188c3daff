"""The view is derived from the encoded observation: it must equal what the old, separate code computed.

``observation/view.py`` no longer reads a game itself: ``view_of_game`` encodes
the game and decodes the vector, and ``decode`` reads all card planes in one
numpy call. The reference is the code as it was (``reference_view.py``, kept
verbatim): on random positions of every preset, every player count and random
rule overrides, for every seat, the derived decoder must equal the old decoder
on the same vector, and the derived view must equal the old straight-from-the-game
view, except that chip amounts are clipped as the encoding clips them (the old
view did not clip; sessions with large chip amounts check that this is the
only difference).
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newmarket_env.engine.choice import FastGame
from newmarket_env.engine.game import Game
from newmarket_env.game import actions as A
from newmarket_env.game.rules import VARIANTS, Rules, make_rules
from newmarket_env.observation.encode import encode_flat, flat_to_planes, static_part
from newmarket_env.observation.engines import choose_engine
from newmarket_env.observation.layout import CHIP_CLIP, CHIP_SCALE, FLAT_SIZE
from newmarket_env.observation.view import ObservationView, decode, view_of_game
from tests.engine.test_properties import rule_sets
from tests.observation import reference_view as reference

CHIP_LIMIT = int(CHIP_CLIP * CHIP_SCALE)  # the largest chip amount an observation can show


def clipped(view: ObservationView) -> ObservationView:
    """``view`` with its chip amounts clipped to what the encoding can carry (by hand, not by the encoder)."""

    def clip(x: int) -> int:
        return max(-CHIP_LIMIT, min(CHIP_LIMIT, x))

    return dataclasses.replace(
        view,
        boodle_stacks=[clip(x) for x in view.boodle_stacks],
        pot=clip(view.pot),
        balances=[clip(x) for x in view.balances],
    )


def mask_of(game, seat: int) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    if not game.over and game.to_act == seat:
        mask[game.legal] = 1
    return mask


def check_session(rules: Rules, seed: int, present_forced: bool = False) -> int:
    """Play a random session, checking every seat at every step; return how many views needed clipping."""
    game = Game(rules, seed=seed, present_forced=present_forced)
    static = static_part(rules)
    rng = random.Random(seed)
    clipped_views = 0
    while True:
        for seat in range(game.n):
            flat, mask = encode_flat(game, seat, static), mask_of(game, seat)
            derived = decode(flat, mask)
            assert derived == reference.decode(flat, mask), f"decode differs, seat {seat}"
            assert decode({"observation": flat_to_planes(flat), "action_mask": mask}) == derived
            old = reference.view_of_game(game, seat)
            assert view_of_game(game, seat) == derived == clipped(old), f"view differs, seat {seat}"
            clipped_views += clipped(old) != old
        if game.over:
            return clipped_views
        game.apply(rng.choice(game.legal))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_preset_and_player_count_gives_the_reference_view(variant):
    low, high = VARIANTS[variant].players
    for players in range(low, high + 1):
        assert check_session(make_rules(variant, players), players, present_forced=players % 2 == 1) == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(), st.integers(0, 2**32), st.booleans())
def test_random_rules_give_the_reference_view(rules_variant, seed, present_forced):
    rules, _ = rules_variant
    check_session(rules, seed, present_forced)


def test_large_chip_amounts_differ_from_the_old_view_only_by_the_clip():
    """Balances and stakes beyond what the observation can carry: the view shows them clipped, as decode does."""
    rules = make_rules("michigan", 6, starting_chips=1000, boodle_stake=60, pot_ante=40, per_card_payment=20)
    assert sum(check_session(rules, seed) for seed in range(3)) > 0


@pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built")
def test_view_of_a_compiled_game_is_the_view_of_the_reference_game():
    rules = make_rules("newbury")
    games = [choose_engine(name).game_class(rules, seed=8) for name in ("python", "compiled")]
    rng = random.Random(8)
    while not games[0].over:
        for seat in range(rules.num_players):
            assert view_of_game(games[1], seat) == view_of_game(games[0], seat)
        action = rng.choice(games[0].legal)
        for game in games:
            game.apply(action)


def test_a_vector_that_is_no_observation_is_refused_in_one_line():
    with pytest.raises(ValueError, match="'rule_players' is all zeros") as error:
        decode(np.zeros(FLAT_SIZE, dtype=np.float32))
    assert "\n" not in str(error.value)
