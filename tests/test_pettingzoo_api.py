"""PettingZoo conformance: api_test, seed_test and render_test for every preset and player count."""

import pytest
from pettingzoo.test import api_test, render_test, seed_test

from newmarket_env import VARIANTS, env

CASES = [(v, n) for v in VARIANTS for n in ((4,) if v == "newbury" else (3, 4, 5, 8))]


@pytest.mark.parametrize("variant,players", CASES)
def test_api(variant, players):
    api_test(env(variant=variant, num_players=players), num_cycles=200)


@pytest.mark.parametrize("variant,players", CASES)
def test_api_planes(variant, players):
    api_test(env(variant=variant, num_players=players, observation="planes"), num_cycles=50)


@pytest.mark.parametrize("variant,players", CASES)
def test_seed(variant, players):
    seed_test(lambda: env(variant=variant, num_players=players), num_cycles=200)


@pytest.mark.parametrize("variant,players", CASES)
def test_render(variant, players, capsys):
    render_test(lambda render_mode=None: env(variant=variant, num_players=players, render_mode=render_mode))
