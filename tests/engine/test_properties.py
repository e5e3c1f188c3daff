"""Property tests over random sessions: every preset, 3-8 players, random rule overrides.

Checked at every decision: each card is in exactly one place, chips are
conserved, a presented decision has at least two legal actions, and the
viewer's observation does not depend on the hidden cards of the other seats.
Checked per session: it ends, env rewards are zero-sum, and a record survives
JSON and replay unchanged.
"""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from newmarket_env import env as make_env
from newmarket_env.engine import Decision, Game, Phase
from newmarket_env.engine.game import NOBODY
from newmarket_env.engine.record import replay, session_record
from newmarket_env.game import actions as A
from newmarket_env.game.cards import FULL_DECK, card_text, cards_to_text, iter_cards
from newmarket_env.game.rules import VARIANTS, Leftover, StakeMode, make_rules
from newmarket_env.observation.encode import encode_flat, flat_to_planes, static_part

from . import reference
from .audit import Auditor

MAX_DECISIONS = 5000  # far above any real session; reaching it means the session did not end

OVERRIDES = {
    "removed_cards": st.sampled_from([(), ("8D",), ("2C", "KS"), ("AH", "7D", "QS")]),
    "ace_high": st.booleans(),
    "boodles": st.sampled_from([("AS", "KH", "QC", "JD"), ("AS", "KS", "QS", "JS"), ("KC", "KD", "KH", "KS")]),
    "pot_ante": st.integers(0, 3),
    "boodle_stake": st.integers(0, 6),
    "stake_mode": st.sampled_from(["spread", "choose", "each", "house"]),
    "house_pot": st.integers(0, 5),
    "house_boodle": st.integers(0, 2),
    "dealer_stake_multiplier": st.integers(1, 3),
    "dead_hand": st.sampled_from(["dealt", "discard", "none"]),
    "dead_hand_position": st.sampled_from(["first", "before_dealer", "last"]),
    "discard_count": st.integers(1, 3),
    "widow": st.sampled_from(["none", "dealer_buy", "dealer_or_auction"]),
    "widow_fee": st.integers(0, 5),
    "min_bid": st.integers(1, 3),
    "max_bid": st.integers(3, 20),
    "first_lead": st.sampled_from(["eldest", "lowest_club"]),
    "lead_after_stop": st.sampled_from(
        ["lowest_any_suit", "lowest_other_suit", "lowest_opposite_colour", "any_opposite_colour"]
    ),
    "per_card_payment": st.integers(0, 2),
    "leftover": st.sampled_from(["lot", "vanish"]),
    "num_deals": st.integers(1, 3),
    "starting_chips": st.integers(-5, 50),
}


@st.composite
def rule_sets(draw, overrides=True, chips_only=False):
    """A preset, a legal player count and (optionally) random overrides that make valid rules."""
    variant = draw(st.sampled_from(sorted(VARIANTS)))
    low, high = VARIANTS[variant].players
    players = draw(st.integers(low, high))
    extra = draw(st.fixed_dictionaries({}, optional=OVERRIDES)) if overrides else {}
    if chips_only:
        extra.update(leftover="lot")
        if extra.get("stake_mode", VARIANTS[variant].params["stake_mode"]) == "house":
            extra["stake_mode"] = "spread"
    try:
        return make_rules(variant, players, **extra), variant
    except ValueError:
        assume(False)


def check_cards(game: Game) -> None:
    """Every card is in exactly one of: a hand, the dead hand, played, removed."""
    removed = game.rules.removed_mask
    places = [*list(game.hands), game.dead, game.played, removed]
    union = 0
    for mask in places:
        assert union & mask == 0, "a card is in two places"
        union |= mask
    assert union == FULL_DECK, "a card is nowhere"
    for seat, hand in enumerate(game.hands):
        assert all(game.owner[c] == seat for c in iter_cards(hand))
    assert sum(1 for seat in game.owner if seat != NOBODY) == sum(h.bit_count() for h in game.hands)


def expected_total(game: Game, start: int) -> int:
    """The chip total the rules allow now: constant, plus house stakes of the deals begun."""
    rules = game.rules
    if rules.stake_mode is not StakeMode.HOUSE:
        return start
    deals_begun = min(game.deal_index + 1, rules.num_deals)
    return start + deals_begun * (rules.house_pot + 4 * rules.house_boodle)


def chip_total(game: Game) -> int:
    return sum(game.balances) + sum(game.boodle_stacks) + game.pot


def check_decision(game: Game, start: int) -> None:
    assert len(game.legal) >= 2 and len(set(game.legal)) == len(game.legal)
    assert all(0 <= a < A.NUM_ACTIONS for a in game.legal)
    if game.phase is not Phase.STAKE:
        check_cards(game)
    assert chip_total(game) == expected_total(game, start)


def hidden_swap(game: Game, viewer: int, rng: random.Random) -> Game:
    """A copy where the cards hidden from ``viewer`` are re-dealt among the other hands and the dead hand."""
    clone = game.copy()
    known = game.public_dead | game.known_dead[viewer]
    others = [s for s in range(game.n) if s != viewer]
    places = [clone.hands[s] & ~known for s in others] + [clone.dead & ~known]
    pool = [c for mask in places for c in iter_cards(mask)]
    rng.shuffle(pool)
    for k, seat in enumerate([*others, None]):
        take, pool = pool[: places[k].bit_count()], pool[places[k].bit_count() :]
        new = sum(1 << c for c in take)
        if seat is None:
            clone.dead = (clone.dead & known) | new
            for card in take:
                clone.owner[card] = NOBODY
        else:
            clone.hands[seat] = (clone.hands[seat] & known) | new
            for card in take:
                clone.owner[card] = seat
    return clone


def check_observations(game: Game, static: np.ndarray, rng: random.Random) -> None:
    for viewer in range(game.n):
        swapped = hidden_swap(game, viewer, rng)
        if game.phase is not Phase.STAKE:
            check_cards(swapped)
        flat, other = encode_flat(game, viewer, static), encode_flat(swapped, viewer, static)
        assert np.array_equal(flat, other), f"seat {viewer} sees the hidden cards of others"
        assert np.array_equal(flat_to_planes(flat), flat_to_planes(other))


def play_session(game: Game, rng: random.Random, observe_every: int = 0) -> None:
    """Play random legal actions to the end, checking the invariants at every decision."""
    start = game.rules.starting_chips * game.n
    static = static_part(game.rules) if observe_every else None
    for step in range(MAX_DECISIONS):
        if game.over:
            break
        check_decision(game, start)
        if observe_every and step % observe_every == 0:
            check_observations(game, static, rng)
        game.apply(rng.choice(game.legal))
    assert game.over, "the session did not end"
    check_end(game, start)


def check_end(game: Game, start: int) -> None:
    assert game.pot == 0 and game.boodle_stacks == [0, 0, 0, 0]
    assert game.deal_index == game.rules.num_deals
    total = sum(game.balances)
    if game.rules.leftover is Leftover.LOT:
        assert total == expected_total(game, start)
    else:  # vanish: the leftover stacks are lost
        assert total <= expected_total(game, start)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(overrides=False), st.integers(0, 2**32 - 1))
def test_presets_invariants_at_every_decision(rules_variant, seed):
    rules, _ = rules_variant
    game = Game(rules, seed=seed, record_events=False)
    play_session(game, random.Random(seed))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(), st.integers(0, 2**32 - 1))
def test_overrides_invariants_at_every_decision(rules_variant, seed):
    rules, _ = rules_variant
    game = Game(rules, seed=seed, record_events=False)
    play_session(game, random.Random(seed))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(), st.integers(0, 2**32 - 1))
def test_observation_ignores_hidden_cards_of_others(rules_variant, seed):
    rules, _ = rules_variant
    game = Game(dataclasses.replace(rules, num_deals=1), seed=seed, record_events=False)
    play_session(game, random.Random(seed), observe_every=3)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(), st.integers(0, 2**32 - 1))
def test_record_json_replay_round_trip(rules_variant, seed):
    rules, variant = rules_variant
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        game.apply(rng.choice(game.legal))
    record = json.loads(json.dumps(session_record(game, variant)))
    assert session_record(replay(record), variant) == record


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(chips_only=True), st.integers(0, 2**32 - 1))
def test_env_rewards_are_zero_sum_over_a_session(rules_variant, seed):
    rules, variant = rules_variant
    overrides = {k: v for k, v in rules.to_dict().items() if k != "num_players"}
    e = make_env(variant=variant, num_players=rules.num_players, **overrides)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(max_iter=MAX_DECISIONS):
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
    assert not e.agents, "the session did not end"
    final = e.unwrapped.game.balances
    assert [totals[a] for a in e.possible_agents] == [b - rules.starting_chips for b in final]
    assert sum(totals.values()) == 0


def texts_of(mask: int) -> set[str]:
    return set(cards_to_text(mask))


def check_lead_against_reference(game: Game) -> None:
    """The engine's leader and legal leads equal the reference model's (docs/rules.md steps 5 and 9)."""
    rules = game.rules
    hands = [texts_of(h) for h in game.hands]
    stops = [e for e in game.deals[-1]["events"] if e["type"] == "stop"]
    if not stops:
        leader, options = game.eldest, reference.lowest_of(hands[game.eldest], "CDHS", rules.ace_high)
    else:
        last = stops[-1]
        leader, options = reference.lead_options(
            rules.lead_after_stop.value, hands, last["seat"], last["card"], rules.ace_high, set(rules.boodles)
        )
    assert (game.to_act, {card_text(a) for a in game.legal}) == (leader, options)


def check_run_against_reference(before: Game, after: Game, card: int) -> None:
    """The plays and the stop or out that follow a lead equal the reference model's run."""
    hands = [texts_of(h) for h in before.hands]
    plays, end = reference.run(
        hands,
        texts_of(before.played),
        set(before.rules.removed_cards),
        before.to_act,
        card_text(card),
        before.rules.ace_high,
    )
    new = after.deals[len(before.deals) - 1]["events"][len(before.deals[-1]["events"]) :]
    got_plays = [(e["seat"], e["card"]) for e in new if e["type"] == "play"][: len(plays)]
    assert got_plays == plays
    finish = next(e for e in new if e["type"] in ("stop", "out"))
    if end[0] == "out":
        assert finish == {"type": "out", "seat": end[1]}
    else:
        assert (finish["seat"], finish["card"], finish["next"], finish["cause"]) == end[1:]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(), st.integers(0, 2**32 - 1))
def test_leads_and_runs_match_the_reference_model(rules_variant, seed):
    rules, _ = rules_variant
    game = Game(dataclasses.replace(rules, num_deals=1), seed=seed)
    rng = random.Random(seed)
    while not game.over:
        action = rng.choice(game.legal)
        if game.decision is Decision.LEAD:
            check_lead_against_reference(game)
            before = game.copy()
            game.apply(action)
            check_run_against_reference(before, game, action)
        else:
            game.apply(action)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(rule_sets(), st.integers(0, 2**32 - 1))
def test_records_pass_the_independent_audit(rules_variant, seed):
    rules, variant = rules_variant
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        game.apply(rng.choice(game.legal))
    record = session_record(game, variant)
    Auditor(rules).session(record)
    for deal in record["deals"]:
        reference.check_deal_play(deal, rules)
