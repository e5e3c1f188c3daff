"""``TableBatch`` (many compiled tables stepped together) against the reference ``Game``, table by table.

Table ``i`` plays its sessions one after another on one random stream, exactly
as ``Game(rules, rng=stream)`` does session after session for
``stream = random.Random(table_seed(seed, i))`` and the same actions. At
every step the seat to act, its observation (the reference encoder), its mask,
every seat's reward and, at the end of a session, the results must agree.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from newmarket_env.actions import NUM_ACTIONS
from newmarket_env.engine import Game
from newmarket_env.engine.choice import FastGame
from newmarket_env.observation.encode import encode_flat, static_part
from newmarket_env.rules import VARIANTS, make_rules

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

if FastGame is not None:
    from newmarket_env.engine._fast import TableBatch, table_seed


class ReferenceTable:
    """One table of the batch replayed on the reference engine, session after session."""

    def __init__(self, rules, seed: int, table: int) -> None:
        self.rules = rules
        self.stream = random.Random(table_seed(seed, table))
        self.start()

    def start(self) -> None:
        self.game = Game(self.rules, rng=self.stream, record_events=False)
        self.last = [self.rules.starting_chips] * self.rules.num_players  # the stakes count in the first reward


def check_table(batch, i: int, ref: ReferenceTable, static: np.ndarray, where: str) -> None:
    game = ref.game
    assert batch.to_act[i] == game.to_act, where
    np.testing.assert_array_equal(batch.observations[i], encode_flat(game, game.to_act, static), err_msg=where)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[game.legal] = 1
    np.testing.assert_array_equal(batch.action_masks[i], mask, err_msg=where)


CASES = [(v, p) for v in sorted(VARIANTS) for p in (3, 4, 6) if VARIANTS[v].players[0] <= p <= VARIANTS[v].players[1]]


@pytest.mark.parametrize("variant, players", CASES)
def test_batch_plays_the_reference_sessions(variant, players):
    rules = make_rules(variant, num_players=players)
    seed, tables = 11, 5
    batch = TableBatch(rules, tables, seed=seed)
    static = static_part(rules)
    refs = [ReferenceTable(rules, seed, i) for i in range(tables)]
    sessions = tables
    rng = np.random.default_rng(players)
    finished = 0
    for step in range(400):
        for i, ref in enumerate(refs):
            check_table(batch, i, ref, static, f"{variant} {players}p table {i} step {step}")
        actions = np.array([rng.choice(ref.game.legal) for ref in refs])
        batch.step(actions)
        for i, ref in enumerate(refs):
            ref.game.apply(int(actions[i]))
            reward = [b - last for b, last in zip(ref.game.balances, ref.last)]
            ref.last = list(ref.game.balances)
            assert list(batch.rewards[i]) == reward, f"rewards of table {i} at step {step}"
            assert bool(batch.done[i]) == ref.game.over
            if ref.game.over:
                finished += 1
                assert list(batch.results[i]) == [b - rules.starting_chips for b in ref.game.balances]
                ref.start()
                sessions += 1
    assert finished >= tables, "the test must see sessions end and tables restart"
    assert batch.sessions_started == sessions


def test_rewards_add_up_to_the_session_result():
    rules = make_rules("michigan", num_players=4)
    batch = TableBatch(rules, 8, seed=3)
    rng = np.random.default_rng(0)
    totals = np.zeros((8, 4), dtype=np.int64)
    checked = 0
    for _ in range(600):
        actions = [rng.choice(np.flatnonzero(m)) for m in batch.action_masks]
        batch.step(actions)
        totals += batch.rewards
        for i in np.flatnonzero(batch.done):
            np.testing.assert_array_equal(totals[i], batch.results[i])
            totals[i] = 0
            checked += 1
    assert checked > 8


def test_illegal_action_is_refused_and_changes_nothing():
    rules = make_rules("newmarket", num_players=4)
    batch = TableBatch(rules, 3, seed=0)
    before = batch.observations.copy(), batch.action_masks.copy(), batch.to_act.copy()
    actions = [int(np.flatnonzero(m)[0]) for m in batch.action_masks]
    bad = next(a for a in range(NUM_ACTIONS) if not batch.action_masks[1][a])
    actions[1] = bad
    with pytest.raises(ValueError, match=rf"action {bad} is not legal at table 1 .*legal actions: "):
        batch.step(actions)
    for a, b in zip(before, (batch.observations, batch.action_masks, batch.to_act)):
        np.testing.assert_array_equal(a, b)
    batch.step([int(np.flatnonzero(m)[0]) for m in batch.action_masks])  # the tables still take legal actions


@pytest.mark.parametrize("bad, message", [
    (np.zeros(2, dtype=np.int64), r"actions must be 3 action ids"),
    (np.zeros(3, dtype=np.float32), r"actions must be 3 action ids"),
])
def test_bad_action_arrays(bad, message):
    batch = TableBatch(make_rules("newmarket", num_players=4), 3, seed=0)
    with pytest.raises(ValueError, match=message):
        batch.step(bad)


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, True, "x"])
def test_bad_seeds(seed):
    with pytest.raises(ValueError, match=r"seed=.* is out of range; allowed: an int 0..2\*\*32-1 or None"):
        TableBatch(make_rules("newmarket", num_players=4), 2, seed=seed)


def test_same_seed_same_run():
    rules = make_rules("newbury", num_players=4)
    one, two = TableBatch(rules, 4, seed=9), TableBatch(rules, 4, seed=9)
    rng = np.random.default_rng(1)
    for _ in range(100):
        actions = [rng.choice(np.flatnonzero(m)) for m in one.action_masks]
        one.step(actions)
        two.step(actions)
        np.testing.assert_array_equal(one.observations, two.observations)
        np.testing.assert_array_equal(one.rewards, two.rewards)
