"""Issue 17: the run loop's schedule and PPO's chips callback, on steps worked by hand.

``Every`` fires once each time the step counter passes a multiple of its period, also when the
counter jumps past a multiple (a rollout of several tables adds ``n_envs`` steps at once);
``EpisodeChips`` averages the learner's chips per deal over finished sessions and logs them once per
rollout. (The clock, ``run.max_minutes``, is the loop's: tests/train/test_run_loop.py.)
"""

from __future__ import annotations

import pytest

from newmarket_env.train.loop import Every
from newmarket_env.train.ppo.callbacks import EpisodeChips


def test_every_fires_once_per_multiple_passed_also_off_the_multiples():
    clock = Every(10)
    assert clock.next == 10
    assert [clock.due(s) for s in (0, 5, 9)] == [False, False, False]
    assert clock.due(13)  # passed 10: due, the next one is at 20 (not 23)
    assert clock.next == 20
    assert isinstance(clock.next, int)
    assert not clock.due(19)
    assert clock.due(20)
    assert clock.next == 30
    assert not clock.due(20)  # the same step twice fires once
    assert clock.due(47)  # jumped past 30 and 40: one firing, the next at 50
    assert clock.next == 50
    assert not clock.due(49)
    assert clock.due(50)


def test_every_counts_from_its_start_step():
    clock = Every(8, start=20)  # a resumed run at step 20: the next multiple is 24
    assert clock.next == 24
    assert not clock.due(23)
    assert clock.due(24)
    assert Every(8, start=24).next == 32  # at a multiple: the following one
    assert Every(8, start=7).next == 8


@pytest.mark.parametrize("start", [0, 5, 100])
def test_every_zero_never_fires(start):
    clock = Every(0, start)
    assert clock.next is None
    assert not any(clock.due(s) for s in (0, 1, 10**9))


def test_episode_chips_averages_finished_sessions_per_deal():
    callback = EpisodeChips()
    assert callback.recent == []
    callback.locals = {"infos": [{}, {"chips": 12.0, "deals": 4}, {"seat": 1}, {"chips": -6.0, "deals": 2}]}
    assert callback._on_step() is True
    assert callback.recent == [3.0, -3.0]
    callback.locals = {}
    assert callback._on_step() is True
    assert callback.recent == [3.0, -3.0]
