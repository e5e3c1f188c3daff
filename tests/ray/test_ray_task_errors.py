"""map_on_ray, the one place tournaments and training put work on Ray: a task's failure comes back to
the driver as one line naming what failed (not as Ray's traceback of the worker), and the values come
back in the order of the items whatever order the tasks finish in."""

from __future__ import annotations

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install 'newmarket-env[ray]')")

from newmarket_env.eval.tournament.backends import map_on_ray


def test_values_come_back_in_the_order_of_the_items(ray_cluster):
    import time

    def slow_for_small(shared, item):  # pickled by value: Ray workers cannot import test modules
        time.sleep(0.3 if item == 0 else 0.0)  # the first item finishes last
        return shared * item

    arrived = []
    values = map_on_ray(slow_for_small, 10, [0, 1, 2, 3], on_result=lambda i, v: arrived.append((i, v)))
    assert values == [0, 10, 20, 30]
    assert sorted(arrived) == [(0, 0), (1, 10), (2, 20), (3, 30)]


@pytest.mark.parametrize(
    "error, expected_type, message",
    [
        (ValueError("session 3: agent 'x' chose 99, which is not legal"), ValueError, None),
        (RuntimeError("the session record is inconsistent"), RuntimeError, None),
        # other types are not rebuilt on the driver: their message, as a RuntimeError
        (KeyError("hand"), RuntimeError, "'hand'"),
    ],
)
def test_a_failed_task_is_raised_again_with_its_own_message(ray_cluster, error, expected_type, message):
    def fails_on_two(shared, item):
        if item == 2:
            raise error
        return item

    with pytest.raises(expected_type) as caught:
        map_on_ray(fails_on_two, None, [0, 1, 2, 3])
    assert str(caught.value) == (message if message is not None else str(error))
    assert "\n" not in str(caught.value) and "Traceback" not in str(caught.value)
