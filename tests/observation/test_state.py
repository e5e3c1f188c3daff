"""The privileged state (observation/state.py, state_layout.py): PettingZoo's state API, what it holds, and
that moving hidden cards changes it but never a seat's observation.

The state is checked against the engine by decoding it back (piece by piece, by the layout's names) into
the engine's attributes, then re-encoding every seat's observation from the decoded game: so it holds
everything the engine has at a decision and everything any seat sees. The compiled encoder is held equal
to this one in tests/engine/test_fast.py; the batch's and the vector env's ``states()`` in
tests/batch/test_table_batch.py and tests/batch/test_vector_env.py.
"""

from __future__ import annotations

import random
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test
from pettingzoo.utils import BaseWrapper

from newmarket_env import VARIANTS, env
from newmarket_env.engine import Game
from newmarket_env.engine.game import NOBODY
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.encode import encode_flat, static_part
from newmarket_env.observation.layout import CHIP_SCALE
from newmarket_env.observation.state import encode_state, state_static_part
from newmarket_env.observation.state_layout import STATE_CARD_PIECES, STATE_SIZE, STATE_SLOTS
from tests.engine.test_properties import hidden_swap, rule_sets

CASES = [(v, n) for v in VARIANTS for n in ((4,) if v == "newbury" else (3, 5))]


# ---------------------------------------------------------------------- PettingZoo's own state checks
class _LegalSampling(BaseWrapper):
    """PettingZoo's ``test_state`` samples actions without the mask; the env refuses illegal ones
    (docs/contract.md), so its action spaces sample among the legal actions of the moment."""

    def action_space(self, agent):
        mask = self.env.infos[agent]["action_mask"] if agent in self.env.infos else None
        space = spaces.Discrete(self.env.action_space(agent).n)
        space.sample = lambda mask=mask, space=space: spaces.Discrete.sample(space, mask=mask)  # type: ignore[method-assign]
        return space


@pytest.mark.parametrize("variant,players", CASES)
def test_pettingzoos_state_checks_pass(variant, players):
    e = env(variant=variant, num_players=players)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning of the checker (all zeros, a different shape, ...) fails
        pettingzoo_state_space_test(e)
        pettingzoo_state_test(_LegalSampling(e), num_cycles=60, seed=players)
    assert e.state_space == spaces.Box(-8.0, 8.0, (STATE_SIZE,), np.float32)
    assert e.state().dtype == np.float32 and e.state().shape == (STATE_SIZE,)


def test_state_before_reset_and_unknown_agents_are_one_line_errors():
    e = env(variant="michigan")
    with pytest.raises(RuntimeError, match="call reset"):
        e.unwrapped.state()
    e.reset(seed=1)
    with pytest.raises(ValueError, match="unknown agent 'player_9'; agents: player_0"):
        e.unwrapped.state_for("player_9")
    with pytest.raises(ValueError, match=r"seat=4 is not a seat; allowed: 0\.\.3"):
        encode_state(e.unwrapped.game, 4, state_static_part(e.unwrapped.rules))


# ---------------------------------------------------------------------- decoding it back
def _mask(bits: np.ndarray) -> int:
    return int.from_bytes(np.packbits(bits > 0.5, bitorder="little").tobytes(), "little")


def _piece(vec: np.ndarray, name: str) -> np.ndarray:
    return vec[STATE_SLOTS[name]]


def _who(vec: np.ndarray, name: str, seat: int, n: int) -> int:
    """The absolute seat marked in a one-hot piece of relative seats, NOBODY when none is."""
    hits = np.flatnonzero(_piece(vec, name) > 0.5)
    assert hits.size <= 1 and (hits < n).all()
    return (int(hits[0]) + seat) % n if hits.size else NOBODY


def decode_state(vec: np.ndarray, rules, seat: int) -> SimpleNamespace:
    """The engine's attributes read back from a state counted from ``seat`` (what encode_flat reads)."""
    n = rules.num_players
    assert int(np.flatnonzero(_piece(vec, "seat"))[0]) == seat
    cards = {p.name: [_mask(plane) for plane in _piece(vec, p.name).reshape(-1, 52)] for p in STATE_CARD_PIECES}

    def absolute(planes: list[int]) -> list[int]:
        return [planes[(s - seat) % n] for s in range(n)]

    assert not any(cards["hands"][n:] + cards["private_dead"][n:] + cards["played_by"][n:])  # padding stays empty
    played_by = [NOBODY] * 52
    for s, mask in enumerate(absolute(cards["played_by"])):
        for card in range(52):
            if mask >> card & 1:
                played_by[card] = s
    last = cards["last_card"][0]
    pending = [round(float(x) * 4) for x in absolute(list(_piece(vec, "pending")))]
    in_auction = [bool(x > 0.5) for x in absolute(list(_piece(vec, "in_auction")))]
    phase = PHASE_ORDER[int(np.argmax(_piece(vec, "phase")))]
    decisions = np.flatnonzero(_piece(vec, "decision"))
    game = SimpleNamespace(
        rules=rules,
        n=n,
        hands=absolute(cards["hands"]),
        dead=cards["dead"][0],
        played=sum(absolute(cards["played_by"])),
        played_by=played_by,
        public_dead=cards["public_dead"][0],
        known_dead=absolute(cards["private_dead"]),
        last_played=last.bit_length() - 1 if last else None,
        boodle_cards=rules.boodle_cards,
        boodle_stacks=[round(float(x) * CHIP_SCALE) for x in _piece(vec, "boodle_stacks")],
        pot=round(float(_piece(vec, "pot")[0]) * CHIP_SCALE),
        balances=[round(float(x) * CHIP_SCALE) for x in absolute(list(_piece(vec, "balances")))],
        dealer=_who(vec, "dealer", seat, n),
        to_act=_who(vec, "to_act", seat, n),
        high_bidder=_who(vec, "high_bidder", seat, n),
        widow_taker=_who(vec, "widow_taker", seat, n),
        high_bid=round(float(_piece(vec, "standing_bid")[0]) * 20),
        in_auction=in_auction if any(in_auction) else [],
        phase=phase,
        decision=DECISION_ORDER[int(decisions[0])] if decisions.size else None,
        deals_left=round(float(_piece(vec, "deals_left")[0]) * rules.num_deals),
        pending_for=lambda s: pending[s],
    )
    # encode_flat reads deal_index only through the deals left
    game.deal_index = rules.num_deals - 1 - game.deals_left
    return game


def check_state_matches_the_engine(game: Game, static: np.ndarray, obs_static: np.ndarray) -> None:
    n = game.n
    for seat in range(n):
        decoded = decode_state(encode_state(game, seat, static), game.rules, seat)
        for name in ("hands", "dead", "played", "public_dead", "known_dead", "last_played", "boodle_stacks", "pot"):
            assert getattr(decoded, name) == getattr(game, name), name
        for name in ("balances", "dealer", "to_act", "high_bidder", "widow_taker", "high_bid", "phase", "decision"):
            assert getattr(decoded, name) == getattr(game, name), name
        played = [game.played_by[c] if game.played >> c & 1 else NOBODY for c in range(52)]
        assert decoded.played_by == played
        assert [decoded.pending_for(s) for s in range(n)] == [game.pending_for(s) for s in range(n)]
        assert decoded.in_auction == ([] if not any(game.in_auction) else list(game.in_auction))
        assert decoded.deals_left == max(0, game.rules.num_deals - game.deal_index - 1)
        # Everything any seat sees is in the state: each seat's observation, re-encoded from it, is the env's.
        for viewer in range(n):
            np.testing.assert_array_equal(
                encode_flat(decoded, viewer, obs_static), encode_flat(game, viewer, obs_static)
            )


def play_checking(rules, seed: int, check) -> int:
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while True:
        check(game)
        if game.over:
            return steps
        game.apply(rng.choice(game.legal))
        steps += 1


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_state_decodes_back_to_the_engine(variant):
    rules = make_rules(variant, 4, num_deals=2)
    static, obs_static = state_static_part(rules), static_part(rules)
    for seed in range(2):
        assert play_checking(rules, seed, lambda g: check_state_matches_the_engine(g, static, obs_static)) > 5


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(chips_only=True), st.integers(0, 2**32))
def test_the_state_decodes_back_under_random_rules(rules_variant, seed):
    rules, _ = rules_variant
    static, obs_static = state_static_part(rules), static_part(rules)
    play_checking(rules, seed, lambda g: check_state_matches_the_engine(g, static, obs_static))


def test_the_state_is_the_same_table_counted_from_another_seat():
    """``state_for(agent)`` holds the same facts as ``state()``, every seat piece turned by that agent's seat."""
    e = env(variant="michigan", num_players=5)
    e.reset(seed=3)
    rules = e.unwrapped.rules
    for _ in range(12):
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    base = e.state()
    for seat in range(5):
        turned = e.unwrapped.state_for(f"player_{seat}")
        assert vars(decode_state(turned, rules, seat)).keys() == vars(decode_state(base, rules, 0)).keys()
        for name in ("hands", "dead", "known_dead", "balances", "to_act", "dealer", "played_by", "in_auction"):
            assert getattr(decode_state(turned, rules, seat), name) == getattr(decode_state(base, rules, 0), name)
        assert np.array_equal(
            _piece(turned, "hands")[:52], encode_flat(e.unwrapped.game, seat, static_part(rules))[:52]
        )


# ---------------------------------------------------------------------- hidden cards
def _swap_two_others(game: Game, viewer: int, rng: random.Random) -> Game | None:
    """A copy in which one card each of two other seats' hands changed places (None: no two hold a card)."""
    holders = [s for s in range(game.n) if s != viewer and game.hands[s] & ~game.known_dead[viewer]]
    if len(holders) < 2:
        return None
    a, b = rng.sample(holders, 2)
    card_a = rng.choice([c for c in range(52) if game.hands[a] >> c & 1])
    card_b = rng.choice([c for c in range(52) if game.hands[b] >> c & 1])
    clone = game.copy()
    clone.hands[a] ^= (1 << card_a) | (1 << card_b)
    clone.hands[b] ^= (1 << card_a) | (1 << card_b)
    clone.owner[card_a], clone.owner[card_b] = b, a
    return clone


@pytest.mark.parametrize("variant", ["newmarket", "michigan", "newbury"])
def test_moving_hidden_cards_changes_the_state_never_the_seats_observation(variant):
    rules = make_rules(variant, 4, num_deals=2)
    static, obs_static = state_static_part(rules), static_part(rules)
    rng = random.Random(variant)
    moved = 0

    def check(game: Game) -> None:
        nonlocal moved
        for viewer in range(game.n):
            for other in (_swap_two_others(game, viewer, rng), hidden_swap(game, viewer, rng)):
                if other is None or (other.hands == game.hands and other.dead == game.dead):
                    continue
                moved += 1
                seen = encode_flat(game, viewer, obs_static)
                assert np.array_equal(seen, encode_flat(other, viewer, obs_static)), "the seat sees hidden cards"
                for seat in range(game.n):  # the state, counted from any seat, tells the two deals apart
                    assert not np.array_equal(encode_state(game, seat, static), encode_state(other, seat, static))

    for seed in range(2):
        play_checking(rules, seed, check)
    assert moved > 100


def test_the_single_agent_env_gives_the_state_from_the_learners_seat():
    from newmarket_env.envs.single_agent import SingleAgentEnv

    e = SingleAgentEnv(variant="newbury", opponents=["control"], seat="random", num_deals=1)
    static = state_static_part(e.rules)
    for seed in range(3):
        e.reset(seed=seed)
        game = e.aec.game
        state = e.state()
        assert e.state_space.contains(state)
        np.testing.assert_array_equal(state, encode_state(game, e.learner, static))
        assert _mask(_piece(state, "hands")[:52]) == game.hands[e.learner]
