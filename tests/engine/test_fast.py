"""The compiled engine (engine/_fast.pyx) against the reference ``Game``: the same session, action by action.

At every step of random sessions (every preset, 3-8 players, random rule
overrides, with and without ``present_forced``) every public attribute, every
seat's pending count, every seat's observation and the current deal's events
must be equal, and so must its privileged state (observation/state.py against observation/_state.pyx,
counted from each seat in turn, one seat a step); at the end the compiled game's own record (and its replay on the
reference engine) must equal the reference record, as JSON text. Skipped when
the extension is not built (``.ci/run`` checks that it is).
"""

from __future__ import annotations

import contextlib
import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typing_extensions import get_protocol_members

from newmarket_env import env as make_env
from newmarket_env.engine import Game, IllegalActionError
from newmarket_env.engine.choice import FastGame, engine_class
from newmarket_env.engine.protocol import GameState
from newmarket_env.game.rules import VARIANTS, make_rules
from newmarket_env.observation.encode import encode_flat, static_part
from newmarket_env.observation.engines import choose_engine
from newmarket_env.observation.state import encode_state, state_static_part

with contextlib.suppress(ImportError):  # not built: the tests that need it skip
    from newmarket_env.observation._encode import encode_game
    from newmarket_env.observation._state import encode_state_game

from .test_properties import rule_sets

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

# The state both engines must agree on after every action: the data members of the engine contract
# (engine/protocol.py), read from the protocol itself so a member added there is compared here too.
ATTRIBUTES = tuple(
    sorted(name for name in get_protocol_members(GameState) if isinstance(getattr(GameState, name), property))
)


def assert_same_state(reference: Game, fast, static: np.ndarray, step: int) -> None:
    for name in ATTRIBUTES:
        assert getattr(fast, name) == getattr(reference, name), f"{name} differs after {step} actions"
    out = np.empty(static.shape, dtype=np.float32)
    state_static = state_static_part(reference.rules)
    state = np.empty(state_static.shape, dtype=np.float32)
    for seat in range(reference.n):
        assert fast.pending_for(seat) == reference.pending_for(seat)
        encode_game(fast, seat, out, static)
        np.testing.assert_array_equal(out, encode_flat(reference, seat, static), err_msg=f"seat {seat}, step {step}")
    seat = step % reference.n  # the state holds every seat's cards: one seat to count from per step is enough
    encode_state_game(fast, seat, state, state_static)
    expected = encode_state(reference, seat, state_static)
    np.testing.assert_array_equal(state, expected, err_msg=f"state from seat {seat}, step {step}")


def play_both(rules, seed, present_forced=False, deals=(), lots=()):
    """Play one random session on both engines, comparing them at every step; return both."""
    reference = Game(rules, seed=seed, present_forced=present_forced, deals=deals, lots=lots)
    fast = FastGame(rules, seed=seed, present_forced=present_forced, deals=deals, lots=lots)
    static = static_part(rules)
    rng = random.Random(seed)
    step = 0
    assert_same_state(reference, fast, static, step)
    while not reference.over:
        action = rng.choice(reference.legal)
        reference.apply(action)
        fast.apply(action)
        step += 1
        assert_same_state(reference, fast, static, step)
        # The compiled engine keeps its own record: compared as JSON text, so key order and value types
        # (True against 1, None against -1) count, as they do in a saved record.
        assert json.dumps(fast.events) == json.dumps(reference.events), f"events differ after {step} actions"
    assert json.dumps(fast.deals) == json.dumps(reference.deals)
    assert json.dumps(fast.replayed().deals) == json.dumps(reference.deals)
    return reference, fast


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("present_forced", [False, True])
def test_presets_play_the_same_sessions(variant, present_forced):
    low, high = VARIANTS[variant].players
    for players in sorted({low, 4 if low <= 4 <= high else low, high}):
        for seed in range(6):
            play_both(make_rules(variant, players), seed, present_forced)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(), st.integers(0, 2**64), st.booleans())
def test_random_rules_play_the_same_sessions(rules_variant, seed, present_forced):
    rules, _ = rules_variant
    play_both(rules, seed, present_forced)


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, -7, 2**100 + 3, "a text seed", b"bytes"])
def test_seeds_give_the_reference_shuffle(seed):
    rules = make_rules("michigan", 5)
    assert FastGame(rules, seed=seed).hands == Game(rules, seed=seed).hands


def test_given_deals_and_lots_are_used_as_given():
    rules = make_rules("newmarket", 3, num_deals=2)
    deal = {
        "dealer": 2,
        "hands": [
            ["AS", "2S", "3S", "4S"] + [f"{r}C" for r in "A23456789"],
            ["5S", "6S", "7S", "8S"] + [f"{r}D" for r in "A23456789"],
            ["9S", "TS", "JS", "QS"] + [f"{r}H" for r in "A23456789"],
        ],
        "dead": ["KS"] + [f"{r}{s}" for s in "CDH" for r in "TJQK"],
    }
    reference, fast = play_both(rules, 4, deals=[deal], lots=[1, 1, 0, 2, 1])
    assert fast.deals[0]["dealer"] == 2 and fast.balances == reference.balances


def test_illegal_action_raises_the_same_error_and_changes_nothing():
    rules = make_rules("michigan")
    reference, fast = Game(rules, seed=3), FastGame(rules, seed=3)
    for bad in (99, -1, 2.0, True, "7", None):
        with pytest.raises(IllegalActionError) as expected:
            reference.apply(bad)
        with pytest.raises(IllegalActionError) as got:
            fast.apply(bad)
        assert str(got.value) == str(expected.value)
    assert_same_state(reference, fast, static_part(rules), 0)
    while not fast.over:
        fast.apply(fast.legal[0])
    with pytest.raises(IllegalActionError, match="session is over"):
        fast.apply(0)


def test_numpy_integer_actions_are_accepted():
    fast = FastGame(make_rules("newmarket"), seed=1)
    fast.apply(np.int64(fast.legal[-1]))
    assert fast.deals[0]["events"]


def test_copy_is_independent():
    rules = make_rules("newbury")
    game = FastGame(rules, seed=9)
    clone = game.copy()
    rng = random.Random(0)
    while not clone.over:
        clone.apply(rng.choice(clone.legal))
    fresh = FastGame(rules, seed=9)
    assert game.hands == fresh.hands and game.balances == fresh.balances and not game.over
    # The copy continues the same random stream: it plays like a game that took the same actions.
    reference = Game(rules, seed=9)
    rng = random.Random(0)
    while not reference.over:
        reference.apply(rng.choice(reference.legal))
    assert clone.balances == reference.balances
    # ... and records like it: the copy's record carries the original's first events and then its own.
    assert json.dumps(clone.deals) == json.dumps(reference.deals)
    assert len(game.deals) == 1 and json.dumps(game.events) == json.dumps(fresh.events)


@pytest.mark.parametrize("duplicate", ["pickle", "deepcopy", "copy"])
def test_pickle_and_copies_keep_the_state(duplicate):
    import copy
    import pickle

    rules = make_rules("michigan", 5)
    game = FastGame(rules, seed=21, present_forced=True)
    rng = random.Random(21)
    for _ in range(7):
        game.apply(rng.choice(game.legal))
    make = {"pickle": lambda g: pickle.loads(pickle.dumps(g)), "deepcopy": copy.deepcopy, "copy": copy.copy}
    twin = make[duplicate](game)
    assert_same_state(game.replayed(), twin, static_part(rules), 7)
    assert twin.present_forced and twin.deals == game.deals
    while not game.over:  # both go on alike, random lots included
        action = rng.choice(game.legal)
        game.apply(action)
        twin.apply(action)
    assert twin.balances == game.balances
    assert json.dumps(twin.deals) == json.dumps(game.deals)


def test_env_with_the_compiled_engine_can_be_deep_copied():
    import copy

    e = make_env(variant="newmarket")
    e.reset(seed=4)
    twin = copy.deepcopy(e)
    assert twin.unwrapped.game.hands == e.unwrapped.game.hands and twin.agent_selection == e.agent_selection


def test_bad_encode_arguments_name_the_problem():
    rules = make_rules("newmarket")
    fast = FastGame(rules, seed=0)
    with pytest.raises(ValueError, match="float32 arrays of 936"):
        encode_game(fast, 0, np.empty(10, np.float32), static_part(rules))
    with pytest.raises(ValueError, match=r"allowed: 0\.\.3"):
        encode_game(fast, 4, np.empty(936, np.float32), static_part(rules))
    with pytest.raises(ValueError, match=r"allowed: 0\.\.3"):
        fast.pending_for(8)
    with pytest.raises(ValueError, match="float32 arrays of 1782"):
        encode_state_game(fast, 0, np.empty(936, np.float32), state_static_part(rules))
    with pytest.raises(ValueError, match=r"allowed: 0\.\.3"):
        encode_state_game(fast, 4, np.empty(1782, np.float32), state_static_part(rules))


def test_engine_choice():
    assert engine_class("auto") is FastGame and engine_class("python") is Game
    assert choose_engine("auto").game_class is FastGame and choose_engine("compiled").name == "compiled"
    assert choose_engine("python").game_class is Game and choose_engine("python").encode is encode_flat
    with pytest.raises(ValueError, match="allowed: auto, compiled, python"):
        engine_class("c++")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_env_on_either_engine_gives_the_same_episode(variant):
    """Observations, masks, rewards and records through the PettingZoo API are engine-independent."""
    envs = [make_env(variant=variant, engine=engine) for engine in ("python", "compiled")]
    for e in envs:
        e.reset(seed=12)
    rng = random.Random(12)
    while envs[0].agents:
        steps = [e.last() for e in envs]
        assert envs[0].agent_selection == envs[1].agent_selection
        (obs_a, reward_a, term_a, trunc_a, _), (obs_b, reward_b, term_b, trunc_b, _) = steps
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        np.testing.assert_array_equal(obs_a["action_mask"], obs_b["action_mask"])
        assert (reward_a, term_a, trunc_a) == (reward_b, term_b, trunc_b)
        action = None if term_a or trunc_a else rng.choice(np.flatnonzero(obs_a["action_mask"]).tolist())
        for e in envs:
            e.step(action)
    assert envs[0].unwrapped.record() == envs[1].unwrapped.record()
