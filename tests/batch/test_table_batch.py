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

from newmarket_env.engine import Game
from newmarket_env.engine.choice import FastGame
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import VARIANTS, make_rules
from newmarket_env.observation.encode import encode_flat, static_part
from newmarket_env.observation.state import encode_state, state_static_part

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

if FastGame is not None:
    from newmarket_env.engine._batch import TableBatch, table_seed


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
    assert batch.balances[i].tolist() == list(game.balances), where
    np.testing.assert_array_equal(batch.observations[i], encode_flat(game, game.to_act, static), err_msg=where)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[game.legal] = 1
    np.testing.assert_array_equal(batch.action_masks[i], mask, err_msg=where)


CASES = [(v, p) for v in sorted(VARIANTS) for p in (3, 4, 6) if VARIANTS[v].players[0] <= p <= VARIANTS[v].players[1]]


def step_and_compare(batch, refs, rules, static, steps: int, rng, start_next, after_apply=lambda ref: None) -> int:
    """Step the batch and the reference tables with the same random actions, comparing everything; sessions ended."""
    finished = 0
    for step in range(steps):
        for i, ref in enumerate(refs):
            check_table(batch, i, ref, static, f"table {i} step {step}")
        actions = np.array([rng.choice(ref.game.legal) for ref in refs])
        batch.step(actions)
        for i, ref in enumerate(refs):
            ref.game.apply(int(actions[i]))
            after_apply(ref)
            reward = [b - last for b, last in zip(ref.game.balances, ref.last, strict=True)]
            ref.last = list(ref.game.balances)
            assert list(batch.rewards[i]) == reward, f"rewards of table {i} at step {step}"
            assert bool(batch.done[i]) == ref.game.over
            if ref.game.over:
                finished += 1
                assert list(batch.results[i]) == [b - rules.starting_chips for b in ref.game.balances]
                for s in range(rules.num_players):
                    np.testing.assert_array_equal(batch.final_observations[i, s], encode_flat(ref.game, s, static))
                start_next(ref)
    return finished


@pytest.mark.parametrize("variant, players", CASES)
def test_batch_plays_the_reference_sessions(variant, players):
    rules = make_rules(variant, num_players=players)
    seed, tables = 11, 5
    batch = TableBatch(rules, tables, seed=seed)
    static = static_part(rules)
    refs = [ReferenceTable(rules, seed, i) for i in range(tables)]
    finished = step_and_compare(batch, refs, rules, static, 400, np.random.default_rng(players), ReferenceTable.start)
    assert finished >= tables, "the test must see sessions end and tables restart"
    assert batch.sessions_started == tables + finished


@pytest.mark.parametrize("variant, players", [("michigan", 4), ("newbury", 4), ("newmarket", 6)])
def test_states_are_the_reference_states(variant, players):
    """``states()`` at every step: counted from the seat to act, from one seat, from a seat per table, for a
    subset of tables, against the reference encoder on the reference tables."""
    rules = make_rules(variant, num_players=players)
    seed, tables = 5, 4
    batch = TableBatch(rules, tables, seed=seed)
    state_static = state_static_part(rules)
    refs = [ReferenceTable(rules, seed, i) for i in range(tables)]
    rng = np.random.default_rng(players)
    for step in range(150):
        games = [ref.game for ref in refs]
        expected = [encode_state(g, g.to_act, state_static) for g in games]
        np.testing.assert_array_equal(batch.states(), expected, err_msg=f"step {step}")
        seat = step % players
        np.testing.assert_array_equal(batch.states(seats=seat), [encode_state(g, seat, state_static) for g in games])
        seats, subset = rng.integers(players, size=2), rng.permutation(tables)[:2]
        got = batch.states(seats=seats, tables=subset)
        expected = [encode_state(games[t], s, state_static) for t, s in zip(subset, seats, strict=True)]
        np.testing.assert_array_equal(got, expected)
        actions = np.array([rng.choice(g.legal) for g in games])
        batch.step(actions)
        for ref, action in zip(refs, actions, strict=True):
            ref.game.apply(int(action))
            if ref.game.over:
                ref.start()


def test_states_of_a_finished_table_and_bad_seats():
    rules = make_rules("newmarket", num_players=3, num_deals=1)
    batch = TableBatch(rules, 2, seed=1)
    batch.auto_restart = False
    while batch.to_act[0] >= 0:
        batch.step([np.flatnonzero(batch.action_masks[0])[0]], tables=[0])
    states = batch.states()
    assert states.shape == (2, batch.state_observer.size) and not states[0].any() and states[1].any()
    assert batch.states(seats=1, tables=[0]).any()  # the end of the session, counted from seat 1
    for bad, message in [(3, r"allowed: 0\.\.2"), ([0, 1, 2], "a seat or 2 seats"), (0.5, "int array"), (-1, "0..2")]:
        with pytest.raises(ValueError, match=message):
            batch.states(seats=bad)


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
    for a, b in zip(before, (batch.observations, batch.action_masks, batch.to_act), strict=True):
        np.testing.assert_array_equal(a, b)
    batch.step([int(np.flatnonzero(m)[0]) for m in batch.action_masks])  # the tables still take legal actions


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.zeros(2, dtype=np.int64), r"actions must be 3 action ids"),
        (np.zeros(3, dtype=np.float32), r"actions must be 3 action ids"),
    ],
)
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


# ---------------------------------------------------------------------- compiled seats inside the batch
def _reference_policy(name: str, rules, rng: random.Random):
    """The Python reference of a compiled seat, drawing from the table's shared stream ``rng``."""
    from newmarket_env.agents.control import ControlPolicy
    from newmarket_env.agents.greedy import GreedyPolicy
    from newmarket_env.agents.lowest import LowestPolicy

    if name == "random":
        return lambda view: view.legal[rng.randrange(len(view.legal))]
    policy = {"lowest": LowestPolicy, "greedy": GreedyPolicy, "control": ControlPolicy}[name](rules, rng)
    return policy.decide


@pytest.mark.parametrize(
    "variant, players, lineup",
    [
        ("newmarket", 4, ["control", "random", "greedy"]),
        ("michigan", 5, ["control", "control", "lowest", "random"]),
        ("newbury", 4, ["greedy", "control", "control"]),
    ],
)
def test_compiled_seats_play_as_the_python_baselines(variant, players, lineup):
    """Seat 0 is the caller's; the others are compiled. The reference plays the same sessions with the
    Python classes reading decoded observations and drawing from the table's policy stream."""
    from newmarket_env.engine._batch import POLICY_CODES, policy_seed
    from newmarket_env.observation.view import decode

    rules = make_rules(variant, num_players=players)
    seed, tables = 4, 3
    codes = [-1] + [POLICY_CODES[name] for name in lineup]
    batch = TableBatch(rules, tables, seed=seed, seat_policies=codes)
    static = static_part(rules)
    refs = []
    for i in range(tables):
        ref = ReferenceTable.__new__(ReferenceTable)
        ref.rules, ref.stream = rules, random.Random(table_seed(seed, i))
        policy_rng = random.Random(policy_seed(seed, i))
        ref.policies = [None] + [_reference_policy(name, rules, policy_rng) for name in lineup]
        refs.append(ref)

    def run_compiled_seats(ref):
        game = ref.game
        while not game.over and game.to_act != 0:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[game.legal] = 1
            view = decode(encode_flat(game, game.to_act, static), mask)
            game.apply(int(ref.policies[game.to_act](view)))

    def start(ref):
        while True:
            ref.start()
            run_compiled_seats(ref)
            if not ref.game.over:
                return

    for ref in refs:
        start(ref)
    finished = step_and_compare(batch, refs, rules, static, 250, np.random.default_rng(7), start, run_compiled_seats)
    assert finished >= tables


def test_subsets_of_tables_and_manual_restart():
    rules = make_rules("newmarket", num_players=4)
    batch = TableBatch(rules, 4, seed=2)
    batch.auto_restart = False
    untouched = batch.observations[1].copy()
    rng = np.random.default_rng(3)
    ended = None
    for _ in range(200):
        live = [i for i in range(4) if i != 1 and batch.to_act[i] >= 0]
        if not live:
            break
        actions = [rng.choice(np.flatnonzero(batch.action_masks[i])) for i in live]
        batch.step(actions, tables=live)
        assert not batch.rewards[1].any() and not batch.done[1]
        if batch.done.any():
            ended = int(np.flatnonzero(batch.done)[0])
            break
    np.testing.assert_array_equal(batch.observations[1], untouched)  # table 1 was never touched
    assert ended is not None and batch.to_act[ended] == -1 and not batch.action_masks[ended].any()
    with pytest.raises(ValueError, match=rf"table {ended}: the session is over; call restart"):
        batch.step([52], tables=[ended])
    with pytest.raises(ValueError, match="table 1 is not over"):
        batch.restart([1])
    batch.restart([ended])
    assert batch.to_act[ended] >= 0 and batch.action_masks[ended].any()


@pytest.mark.parametrize(
    "tables, message",
    [
        ([0, 0], "must not repeat"),
        ([5], r"table numbers 0..3"),
        ([[0]], "1-d int array"),
    ],
)
def test_bad_table_lists(tables, message):
    batch = TableBatch(make_rules("newmarket", num_players=4), 4, seed=0)
    with pytest.raises(ValueError, match=message):
        batch.step([0] * len(tables), tables=tables)


def test_bad_seat_policies():
    rules = make_rules("newmarket", num_players=4)
    with pytest.raises(ValueError, match=r"do not fit \(3, 4\)"):
        TableBatch(rules, 3, seed=0, seat_policies=[-1, 0, 0])
    with pytest.raises(ValueError, match="seat policies must be ints"):
        TableBatch(rules, 3, seed=0, seat_policies=[-1, 0, 0, 9])
    with pytest.raises(RuntimeError, match="without a decision of a caller's seat"):
        TableBatch(rules, 1, seed=0, seat_policies=[0, 0, 0, 0])
