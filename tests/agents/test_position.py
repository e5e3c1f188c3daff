"""A game rebuilt at a public position with the true hidden cards plays on exactly like the real one."""

import random

import pytest

from newmarket_env import VARIANTS, make_rules
from newmarket_env.agents.sampling import position_of, sample_cards
from newmarket_env.engine import Game
from newmarket_env.engine.choice import FastGame
from newmarket_env.engine.position import Position, game_at
from newmarket_env.engine.types import Decision
from newmarket_env.observation.view import view_of_game
from tests.engine.test_fast import ATTRIBUTES

CASES = [(v, 4, {}) for v in VARIANTS] + [
    ("newmarket", 5, {"stake_mode": "choose", "widow": "dealer_buy"}),
    ("michigan", 3, {"lead_after_stop": "any_opposite_colour"}),
]


def _position(game: Game) -> Position:
    """Everything public at the current decision, plus the private knowledge of the seat to act."""
    seat = game.to_act
    return Position(
        rules=game.rules,
        viewer=seat,
        dealer=game.dealer,
        deal_index=game.deal_index,
        phase=game.phase,
        decision=game.decision,
        legal=tuple(game.legal),
        played_by=tuple(game.played_by),
        last_played=game.last_played,
        public_dead=game.public_dead,
        viewer_known_dead=game.known_dead[seat],
        balances=tuple(game.balances),
        boodle_stacks=tuple(game.boodle_stacks),
        pot=game.pot,
        high_bid=game.high_bid,
        high_bidder=game.high_bidder,
        in_auction=tuple(game.in_auction),
        widow_taker=game.widow_taker,
        viewer_pending=game.pending_for(seat),
    )


def _play_deal(game: Game, rng: random.Random) -> list:
    """Random legal actions to the end of the current deal; the trace of what happened."""
    deal, trace = game.deal_index, []
    while not game.over and game.deal_index == deal:
        trace.append((game.to_act, game.decision, tuple(game.legal), tuple(game.balances), game.pot))
        game.apply(rng.choice(game.legal))
    return [*trace, tuple(game.balances), tuple(game.boodle_stacks)]


@pytest.mark.parametrize("variant,players,overrides", CASES)
def test_rebuilt_game_continues_like_the_real_one(variant, players, overrides):
    rules = make_rules(variant, players, **overrides)
    game = Game(rules, seed=11, record_events=False)
    walker = random.Random(3)
    checked = 0
    while not game.over and checked < 40:
        if game.decision is not Decision.STAKE or walker.random() < 0.5:
            rebuilt = game_at(_position(game), list(game.hands), game.dead, seed=1)
            rebuilt.rng.setstate(game.rng.getstate())  # the same lots for leftovers at the session's end
            script = random.Random(checked)
            assert _play_deal(rebuilt, random.Random(checked)) == _play_deal(game.copy(), script)
            checked += 1
        game.apply(walker.choice(game.legal))
    assert checked > 5


@pytest.mark.parametrize("variant", VARIANTS)
def test_sampled_worlds_respect_what_the_viewer_knows(variant):
    rules = make_rules(variant, 4)
    game = Game(rules, seed=4, record_events=False)
    rng = random.Random(0)
    for _ in range(30):
        if game.over:
            break
        view = view_of_game(game, game.to_act)
        if game.decision is not Decision.STAKE:
            hands, dead = sample_cards(view, rules, rng)
            assert hands[0] == view.hand
            assert [h.bit_count() for h in hands] == view.card_counts
            assert dead.bit_count() == view.dead_count
            assert dead & view.known_dead & ~rules.removed_mask == view.known_dead & ~rules.removed_mask
            world = game_at(position_of(view, rules), hands, dead, seed=2)
            assert view_of_game(world, 0) == view
        game.apply(rng.choice(game.legal))


def test_a_deck_that_is_not_split_exactly_is_refused():
    rules = make_rules("newmarket", 4)
    game = Game(rules, seed=1, record_events=False)
    with pytest.raises(ValueError, match="split the deck"):
        game_at(_position(game), [0, 0, 0, 0], game.dead)


@pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built")
@pytest.mark.parametrize("variant,players,overrides", CASES)
def test_compiled_at_position_equals_the_reference(variant, players, overrides):
    """FastGame.at_position stands where Game.at_position stands and plays the deal out alike."""
    rules = make_rules(variant, players, **overrides)
    game = Game(rules, seed=5, record_events=False)
    walker = random.Random(8)
    checked = 0
    while not game.over and checked < 25:
        if game.decision is not Decision.STAKE:
            for plain in (False, True):
                position = _position(game)
                reference = Game.at_position(position, list(game.hands), game.dead, seed=9, plain_next_deal=plain)
                compiled = FastGame.at_position(position, list(game.hands), game.dead, seed=9, plain_next_deal=plain)
                for name in ATTRIBUTES:
                    assert getattr(compiled, name) == getattr(reference, name), name
                twin = compiled.copy()  # a copy keeps the placeholder next deal (or the shuffle) as well
                trace = _play_deal(reference, random.Random(checked))
                assert _play_deal(compiled, random.Random(checked)) == trace
                assert _play_deal(twin, random.Random(checked)) == trace
                # on to the next deal's first decision (or the session's end): the same shuffle or placeholder
                assert compiled.hands == reference.hands and compiled.balances == reference.balances
                assert twin.hands == reference.hands and twin.balances == reference.balances
            checked += 1
        game.apply(walker.choice(game.legal))
    assert checked > 5
