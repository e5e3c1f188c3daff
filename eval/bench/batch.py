"""Workloads of the batched compiled tables (``TableBatch``): many sessions stepped by one call.

A "session" of these players is a few ``step`` calls over every table; its
decisions are the decisions taken in them (one per table per step) and the
sessions/s column counts the sessions that ended. Every seat of every table is
played at random: ``TableBatch.random_actions()`` draws one legal action per
table in C (as the compiled ``random`` baseline), and the batch writes the
observation and mask of every decision.
"""

from __future__ import annotations

from newmarket_env.eval.bench.ours import PLAYERS
from newmarket_env.game.rules import make_rules

BATCH_TABLES = 256  # tables per batch: enough that the per-call Python cost is spread thin
STEPS_PER_CALL = 8  # batch steps per timed call
WARM_UP_STEPS = 64  # untimed steps first: the tables, all dealt at once, then end their sessions at different steps


def batch_player(variant: str = "newmarket", tables: int = BATCH_TABLES):
    """Random legal actions at every seat of ``tables`` tables; observations and masks written every step."""
    try:
        from newmarket_env.engine._batch import TableBatch  # the compiled engine: absent where it was not built
    except ImportError:
        return None, "skipped: the compiled engine is not built"
    batch = TableBatch(make_rules(variant, num_players=PLAYERS), tables, seed=0, threads=1)  # CPU time: the work's
    for _ in range(WARM_UP_STEPS):
        batch.step(batch.random_actions())

    def play(seed: int) -> tuple[int, int]:
        ended = 0
        for _ in range(STEPS_PER_CALL):
            batch.step(batch.random_actions())
            ended += int(batch.done.sum())
        return STEPS_PER_CALL * tables, ended

    return play, f"{PLAYERS} players, {tables} tables, every seat random; session = {STEPS_PER_CALL} batch steps"
