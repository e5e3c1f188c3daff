"""``TableBatch.load`` / ``load_worlds`` / ``observe``: a table made a copy of a game plays as that game does.

The game is the reference: a loaded table must show the same seat to act, the
same observation (any seat's), mask, deal and chips, and stepping the table
and the game with the same actions must keep them equal to the session's end,
the deals after the current one included (a position's placeholder next deal
is part of what is copied). ``load_worlds`` must put at each table the world
``FastGame.at_position`` builds from search's Python draws (agents/sampling.py).
"""

from __future__ import annotations

import contextlib
import random

import numpy as np
import pytest

from newmarket_env.engine.choice import FastGame
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.view import decode

with contextlib.suppress(ImportError):  # not built: the tests that need it skip
    from newmarket_env.observation._encode import encode_game

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

if FastGame is not None:
    from newmarket_env.agents._search import CompiledSearch
    from newmarket_env.engine._batch import TableBatch

PRESETS = ["newmarket", "michigan", "newbury"]


def encoded(game, seat, static):
    out = np.zeros(FLAT_SIZE, dtype=np.float32)
    encode_game(game, seat, out, static)
    return out


def check_table(batch, i, game, where):
    """Table ``i`` of ``batch`` shows what ``game`` shows."""
    assert batch.to_act[i] == (game.to_act if not game.over else -1), where
    assert batch.deal_index[i] == game.deal_index, where
    copy = batch.game(i)
    assert (copy.balances, copy.hands, copy.dead, copy.pot, copy.boodle_stacks, copy.played) == (
        game.balances,
        game.hands,
        game.dead,
        game.pot,
        game.boodle_stacks,
        game.played,
    ), where
    if game.over:
        return
    np.testing.assert_array_equal(
        batch.observations[i], encoded(game, game.to_act, batch.observer.static), err_msg=where
    )
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[game.legal] = 1
    np.testing.assert_array_equal(batch.action_masks[i], mask, err_msg=where)
    for seat in range(game.n):
        np.testing.assert_array_equal(
            batch.observe(seat, [i])[0], encoded(game, seat, batch.observer.static), err_msg=where
        )


def play_both(batch, i, game, rng, where):
    """Step table ``i`` and ``game`` with the same random legal actions to the session's end."""
    steps = 0
    while not game.over:
        before = game.balances
        action = rng.choice(game.legal)
        batch.step(np.array([action]), tables=np.array([i]))
        game.apply(action)
        assert list(batch.rewards[i]) == [b - a for a, b in zip(before, game.balances, strict=True)], where
        assert bool(batch.done[i]) == game.over, where
        check_table(batch, i, game, f"{where} step {steps}")
        steps += 1
    return steps


@pytest.mark.parametrize("preset", PRESETS)
def test_a_loaded_game_plays_on_as_the_game(preset):
    rules = make_rules(preset, 4)
    batch = TableBatch(rules, 3, seed=1)
    batch.auto_restart = False
    rng = random.Random(preset)
    for trial in range(4):
        whole, chosen = FastGame(rules, seed=trial), []
        while not whole.over:
            chosen.append(rng.choice(whole.legal))
            whole.apply(chosen[-1])
        game = FastGame(rules, seed=trial)
        for action in chosen[: rng.randrange(len(chosen))]:  # somewhere in the session, any deal
            game.apply(action)
        table = trial % 3
        batch.load(table, game)
        check_table(batch, table, game, f"{preset} trial {trial} loaded")
        assert not batch.rewards[table].any()  # nothing won yet: rewards count from the load
        assert play_both(batch, table, game, rng, f"{preset} trial {trial}") > 0


@pytest.mark.parametrize("preset", PRESETS)
def test_a_loaded_position_keeps_its_placeholder_next_deal(preset):
    """An ``at_position(..., plain_next_deal=True)`` world, loaded, plays its next deal from the placeholder
    deal its table holds (not a shuffle), as the game itself does: every later deal and chip agrees."""
    from newmarket_env.agents.sampling import position_of, sample_cards

    rules = make_rules(preset, 4)
    batch = TableBatch(rules, 2, seed=1)
    batch.auto_restart = False
    source = FastGame(rules, seed=3)
    rng = random.Random(4)
    while source.phase.value in ("stake", "discard", "widow", "auction") or source.to_act != 0:
        source.apply(rng.choice(source.legal))
    observation = encoded(source, 0, batch.observer.static)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[source.legal] = 1
    view = decode(observation, mask)
    hands, dead = sample_cards(view, rules, random.Random(5))
    world = FastGame.at_position(position_of(view, rules), hands, dead, seed=9, plain_next_deal=True)
    batch.load(1, world)
    check_table(batch, 1, world, preset)
    play_both(batch, 1, world, rng, preset)
    assert world.deal_index == rules.num_deals  # played past the position's deal, through the placeholder one


@pytest.mark.parametrize("preset", PRESETS)
def test_load_worlds_puts_search_worlds_at_the_tables(preset):
    """World ``w`` at tables ``w * width ...``: the game ``at_position`` builds from search's Python draws
    (sample_cards, then the first world's seed) with a ``random.Random`` of the sampler's seed."""
    from newmarket_env.agents import knowledge as K
    from newmarket_env.agents.sampling import position_of, sample_cards
    from newmarket_env.train.collect import collect_states

    rules = make_rules(preset, 4)
    data = collect_states(rules, None, "control", [], 0.0, tables=2, count=6, seed=3, reward_scale=0.1)
    budget, width = 3, 2
    batch = TableBatch(rules, budget * width + 1, seed=0)
    batch.auto_restart = False
    sampler = CompiledSearch(rules, 11, "control")
    draws = random.Random(11)
    for k in range(len(data.returns)):  # one sampler and one Python stream across decisions
        view = decode(data.obs[k], data.masks[k])
        position = position_of(view, rules)
        unseen, known_dead = K.unseen(view, rules), view.known_dead & ~rules.removed_mask
        batch.load_worlds(sampler, position, view.hand, unseen, known_dead, view.card_counts[1:], budget, width)
        seed = None
        for w in range(budget):
            hands, dead = sample_cards(view, rules, draws)
            seed = draws.randrange(2**31) if seed is None else seed
            world = FastGame.at_position(position, hands, dead, seed=seed, plain_next_deal=True)
            for table in range(w * width, (w + 1) * width):
                check_table(batch, table, world, f"{preset} state {k} world {w} table {table}")
        last = FastGame.at_position(position, hands, dead, seed=seed, plain_next_deal=True)
        play_both(batch, budget * width - 1, last, random.Random(k), f"{preset} state {k}")


def test_bad_input_is_a_one_line_error_that_changes_nothing():
    rules = make_rules("newmarket", 4)
    batch = TableBatch(rules, 4, seed=2)
    batch.auto_restart = False
    game, other = FastGame(rules, seed=1), FastGame(make_rules("michigan", 4), seed=1)
    over = FastGame(make_rules("newmarket", 4), seed=1)
    while not over.over:
        over.apply(over.legal[0])
    sampler = CompiledSearch(rules, 0, "control")
    view = decode(encoded(game, game.to_act, batch.observer.static), np.isin(np.arange(NUM_ACTIONS), game.legal))
    from newmarket_env.agents.sampling import position_of

    position = position_of(view, rules)
    before = [np.copy(a) for a in (batch.observations, batch.action_masks, batch.to_act, batch.deal_index)]
    cases = [
        (lambda: batch.load(4, game), "table=4 is out of range; allowed: 0..3"),
        (lambda: batch.load(-1, game), "table=-1 is out of range; allowed: 0..3"),
        (lambda: batch.load(0, other), "the game's rules are not the batch's"),
        (lambda: batch.load(0, over), "the game is over; load only a game that waits on a decision"),
        (lambda: batch.load(0, "a game"), "Argument 'game' has incorrect type"),
        (lambda: batch.observe(4), "seat=4 is not a seat; allowed: 0..3"),
        (lambda: batch.observe(0, [0, 0]), "tables must not repeat a table"),
        (lambda: batch.observe(0, [4]), "tables must be a 1-d int array of table numbers 0..3"),
        (lambda: batch.observe(0, [True]), "tables must be a 1-d int array of table numbers 0..3"),
        (lambda: batch.load_worlds(sampler, position, view.hand, 0, 0, [13, 13, 13], 3, 2), "must be 1..4 tables"),
        (lambda: batch.load_worlds(sampler, position, view.hand, 0, 0, [13, 13], 1, 2), "card_counts must give"),
        (
            lambda: batch.load_worlds(CompiledSearch(other.rules, 0, "control"), position, 0, 0, 0, [1, 1, 1], 1, 1),
            "the sampler's rules are not the batch's",
        ),
    ]
    for call, message in cases:
        with pytest.raises((ValueError, TypeError)) as err:
            call()
        assert message in str(err.value) and "\n" not in str(err.value), str(err.value)
    after = (batch.observations, batch.action_masks, batch.to_act, batch.deal_index)
    for old, new in zip(before, after, strict=True):
        np.testing.assert_array_equal(old, new)
