"""The learner-seat rules the learner views share: the reward reckoned from chip totals, the seat of
each session, and the limit on sessions without a learner decision."""

from __future__ import annotations

import numpy as np
import pytest

from newmarket_env.envs.learner_options import LearnerSeat, check_empty_sessions
from newmarket_env.envs.learner_reward import LearnerReward


def test_the_reward_is_the_chip_change_since_the_previous_decision_times_the_scale():
    one = LearnerReward(None, starting_chips=20, reward_scale=0.5)
    one.start(0)
    # chips at each decision (the first after stakes of 3), then at the end of the session: 17, 21, 21, 30
    assert [one.take(0, total) for total in (17, 21, 21, 30)] == [-1.5, 2.0, 0.0, 4.5]
    one.start(0)  # the next session counts from the starting chips again
    assert one.take(0, 18) == -1.0


def test_many_tables_reckon_as_one_table_each():
    many = LearnerReward(3, starting_chips=20, reward_scale=0.25)
    np.testing.assert_array_equal(many.take(np.arange(3), np.array([17, 20, 24])), [-0.75, 0.0, 1.0])
    np.testing.assert_array_equal(many.take(np.array([True, False, True]), np.array([25, 12])), [2.0, -3.0])
    many.start(np.array([1]))
    np.testing.assert_array_equal(many.take(np.arange(3), np.array([25, 26, 12])), [0.0, 1.5, 0.0])


def test_the_seat_of_each_session():
    rng = np.random.default_rng(0)
    assert LearnerSeat(seat="rotate").next_seats(rng, 6, 4) == 2
    assert LearnerSeat(seat="rotate").next_seats(rng, np.array([0, 1, 5]), 3).tolist() == [0, 1, 2]
    assert LearnerSeat(seat=3).next_seats(rng, 7, 4) == 3
    assert LearnerSeat(seat=3).next_seats(rng, np.array([0, 9]), 4).tolist() == [3, 3]
    drawn = LearnerSeat(seat="random").next_seats(np.random.default_rng(1), np.zeros(400, dtype=np.int64), 5)
    assert set(drawn.tolist()) == {0, 1, 2, 3, 4}
    # one table draws from the stream as a one-table array does: SingleAgentEnv and VectorEnv agree
    alone = LearnerSeat().next_seats(np.random.default_rng(7), 0, 4)
    assert [alone] == LearnerSeat().next_seats(np.random.default_rng(7), np.zeros(1, dtype=np.int64), 4).tolist()


def test_the_learner_views_give_up_after_a_hundred_sessions_without_a_decision():
    check_empty_sessions(99)
    check_empty_sessions(np.array([0, 99, 3]))
    message = r"^the learner had no decision in 100 sessions in a row$"
    with pytest.raises(RuntimeError, match=message):
        check_empty_sessions(100)
    with pytest.raises(RuntimeError, match=message):
        check_empty_sessions(np.array([2, 100]))
