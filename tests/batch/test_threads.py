"""Threads in the batch: the same sessions for the same seed whatever the thread count.

``TableBatch(threads=K)`` shares the tables of each call out among K threads. Every table has its own
state and streams, so a batch of one thread is the reference here: a batch of two or three threads must
write the same observations, masks, rewards, results, deal ends and session counts at every step, and
the vector env on top of it the same learner observations, rewards and session records. The tables are
many (``TABLES_PER_THREAD`` each at least), so the calls do run on several threads. Both ways of running
them are checked: OpenMP's threads (where the module was built with OpenMP) and the helper threads (a
build without it, or a process forked from one that used it).
"""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env.engine.choice import FastGame
from newmarket_env.game.rules import make_rules

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

if FastGame is not None:
    from newmarket_env.engine import _batch
    from newmarket_env.engine._batch import POLICY_CODES, TABLES_PER_THREAD, TableBatch

TABLES = 4 * TABLES_PER_THREAD if FastGame is not None else 0
OUTPUTS = ("to_act", "observations", "action_masks", "rewards", "done", "results", "deal_index", "deal_ended")


def _lineups(tables: int, players: int, seed: int) -> np.ndarray:
    """Caller's seats (-1) and compiled baselines mixed per table: tables differ in how much each call costs."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(-1, len(POLICY_CODES), size=(tables, players)).astype(np.int8)
    codes[np.arange(tables), rng.integers(players, size=tables)] = -1  # a caller's seat at every table
    return codes


def _same(batches, where: str) -> None:
    first = batches[0]
    for other in batches[1:]:
        for name in OUTPUTS:
            np.testing.assert_array_equal(getattr(first, name), getattr(other, name), err_msg=f"{name} {where}")
        ended = first.deal_ended  # deal_end_balances is meaningful where a deal ended in the call
        np.testing.assert_array_equal(first.deal_end_balances[ended], other.deal_end_balances[ended], err_msg=where)
        np.testing.assert_array_equal(first.balances, other.balances, err_msg=where)
        done = first.done
        np.testing.assert_array_equal(first.final_observations[done], other.final_observations[done], err_msg=where)
        assert first.sessions_started == other.sessions_started, where


@pytest.fixture(params=["openmp", "helper threads"])
def backend(request):
    """Step the batches of the test on OpenMP's threads or on the helper threads (then back as it was)."""
    before = _batch.parallel_backend()
    if _batch._use_openmp(request.param == "openmp") != request.param:
        _batch._use_openmp(before == "openmp")
        pytest.skip("the batch was built without OpenMP (no -fopenmp in this compiler)")
    yield request.param
    _batch._use_openmp(before == "openmp")


@pytest.mark.parametrize("auto_restart", [True, False])
def test_the_batch_plays_the_same_sessions_on_one_two_and_three_threads(auto_restart, backend):
    rules = make_rules("michigan", num_players=5)
    codes = _lineups(TABLES, 5, seed=1)
    batches = [TableBatch(rules, TABLES, seed=7, seat_policies=codes, threads=k) for k in (1, 2, 3)]
    assert [b.threads for b in batches] == [1, 2, 3]
    for b in batches:
        b.auto_restart = auto_restart
    _same(batches, "after reset")
    rng = np.random.default_rng(0)
    ended = deals = 0
    for step in range(150):
        actions = np.argmax(batches[0].action_masks * rng.random(batches[0].action_masks.shape), axis=1)
        if not auto_restart:  # finished tables wait for restart(); the others step
            over = np.flatnonzero(batches[0].to_act < 0)
            if len(over):
                for b in batches:
                    b.restart(over)
                _same(batches, f"after restart at step {step}")
                actions = np.argmax(batches[0].action_masks * rng.random(batches[0].action_masks.shape), axis=1)
        for b in batches:
            b.step(actions)
        ended += int(batches[0].done.sum())
        deals += int(batches[0].deal_ended.sum())
        _same(batches, f"at step {step}")
    assert ended > TABLES and deals > ended, (ended, deals)  # sessions and deals ended on every thread's share
    for b in batches:  # a new seed restarts every table in parallel too
        b.reset(3)
    _same(batches, "after reset(3)")


def test_a_subset_of_tables_steps_the_same_on_any_thread_count(backend):
    """The search's calls: some tables, in any order."""
    rules = make_rules("newmarket", num_players=4)
    batches = [TableBatch(rules, TABLES, seed=2, threads=k) for k in (1, 2)]
    rng = np.random.default_rng(5)
    for step in range(60):
        tables = rng.permutation(TABLES)[: TABLES // 2 + step % 7]
        actions = np.argmax(batches[0].action_masks[tables] * rng.random((len(tables), 79)), axis=1)
        for b in batches:
            b.step(actions, tables=tables)
        _same(batches, f"at step {step}")


def test_a_table_without_decisions_fails_after_every_table_moved(backend):
    """Every seat compiled at one table: its error comes once the call is over, naming it, on any thread count."""
    rules = make_rules("newmarket", num_players=4)
    codes = np.full((TABLES, 4), -1, dtype=np.int8)
    for threads in (1, 2):
        batch = TableBatch(rules, TABLES, seed=0, seat_policies=codes, threads=threads)
        batch.seat_policies[TABLES - 3] = POLICY_CODES["random"]
        with pytest.raises(RuntimeError, match=rf"table {TABLES - 3}: 100 sessions in a row without a decision"):
            batch.reset(0)


def _sessions_in_child(results) -> None:
    """A forked child: its backend, then the sessions of a two-thread batch (it hangs here if it used OpenMP
    after a parent that did)."""
    results.put(_batch.parallel_backend())
    results.put(_play_two_threads())


def _play_two_threads() -> list:
    batch = TableBatch(make_rules("newmarket", num_players=4), TABLES, seed=4, threads=2)
    for _ in range(40):
        batch.step(batch.random_actions())
    return [batch.sessions_started, batch.observations.sum(), batch.balances.tolist()]


def test_a_child_forked_after_threads_ran_steps_on_helper_threads():
    """GNU OpenMP hangs in a forked child's first parallel region once its parent ran one: the child must step
    on the helper threads, and play the same sessions."""
    import multiprocessing

    expected = _play_two_threads()  # the parent's threads have run (OpenMP's where built with it)
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_sessions_in_child, args=(results,))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child did not finish two-thread steps in 60 s (OpenMP after a fork)")
    assert child.exitcode == 0
    assert results.get(timeout=5) == "helper threads"
    assert results.get(timeout=5) == expected


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "2"])
def test_bad_thread_counts_get_one_line_errors(threads):
    import newmarket_env

    rules = make_rules("newmarket", num_players=4)
    with pytest.raises(
        ValueError, match=r"threads=.* is out of range; allowed: None \(the machine's cores\) or an int"
    ):
        TableBatch(rules, 4, threads=threads)
    with pytest.raises(ValueError, match=r"threads=.* is out of range"):
        newmarket_env.vector_env(num_envs=4, threads=threads)


def test_the_default_is_the_machines_cores(monkeypatch):
    import os

    monkeypatch.delenv("NEWMARKET_THREADS", raising=False)
    rules = make_rules("newmarket", num_players=4)
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert TableBatch(rules, 4).threads == expected
    batch = TableBatch(rules, 4, threads=1)
    batch.threads = None
    assert batch.threads == expected


def _vector_run(threads: int, snapshot: str, make_vec: bool) -> list:
    """Every output of 120 steps of a vector env with compiled and saved-agent opponents and snapshots."""
    import gymnasium

    import newmarket_env
    from newmarket_env.envs.registration import GYMNASIUM_ID

    keywords = dict(
        variant="newmarket",
        num_players=4,
        num_envs=TABLES,
        opponents=["control", "greedy"],
        snapshots=[snapshot],
        snapshot_fraction=0.3,
        seed=4,
        threads=threads,
    )
    env = gymnasium.make_vec(GYMNASIUM_ID, **keywords) if make_vec else newmarket_env.vector_env(**keywords)
    assert env.batch.threads == threads
    obs, infos = env.reset(seed=11)
    out = [obs, infos["seat"]]
    rng = np.random.default_rng(3)
    for _ in range(120):
        actions = np.argmax(env.action_masks() * rng.random((TABLES, 79)), axis=1)
        obs, rewards, terminated, _, infos = env.step(actions)
        out += [obs, rewards, terminated]
        if terminated.any():
            final = infos["final_info"]
            out += [np.stack(infos["final_obs"][terminated]), final["chips"], final["results"], final["seat"]]
            out.append(np.array([str(spec) for spec in final["seat_specs"][terminated].ravel()]))
    return out


def test_the_vector_env_gives_the_same_sessions_on_one_and_two_threads(tmp_path):
    """Compiled control and greedy opponents inside the batch, a saved-agent snapshot played between calls:
    observations, rewards, ends and the finished sessions' records agree (gymnasium.make_vec passes threads)."""
    from tests.batch.test_vector_env import saved_agent_file

    snapshot = saved_agent_file(tmp_path / "snapshot.npz", make_rules("newmarket", num_players=4), "newmarket")
    one, two = (_vector_run(k, snapshot, make_vec=k == 2) for k in (1, 2))
    assert len(one) == len(two) and len(one) > 3 * 120  # sessions ended: their records are compared too
    for k, (a, b) in enumerate(zip(one, two, strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def test_the_environment_variable_sets_the_default_for_worker_processes(monkeypatch):
    """Worker processes that share the cores already (the tournament's, the labellers') set NEWMARKET_THREADS=1."""
    rules = make_rules("newmarket", num_players=4)
    monkeypatch.setenv("NEWMARKET_THREADS", "3")
    assert TableBatch(rules, 4).threads == 3
    assert TableBatch(rules, 4, threads=2).threads == 2  # a count given wins
    monkeypatch.setenv("NEWMARKET_THREADS", "zero")
    with pytest.raises(ValueError, match=r"NEWMARKET_THREADS='zero' is out of range; allowed: an int >= 1"):
        TableBatch(rules, 4)
