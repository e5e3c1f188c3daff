"""Bootstrap intervals on cases with a known answer."""

import numpy as np
import pytest

from newmarket_env.eval.tournament.stats import bootstrap_interval, resample_indices


def test_constant_data_gives_a_zero_width_interval():
    interval = bootstrap_interval(np.full(12, 0.7), resample_indices(12, 500, seed=3))
    assert interval.mean == pytest.approx(0.7)
    assert interval.low == pytest.approx(0.7) and interval.high == pytest.approx(0.7)


def test_large_normal_sample_matches_the_normal_interval():
    rng = np.random.default_rng(11)
    values = rng.normal(2.0, 3.0, size=2000)
    interval = bootstrap_interval(values, resample_indices(len(values), 2000, seed=4))
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    assert interval.mean == pytest.approx(values.mean())
    assert interval.low == pytest.approx(values.mean() - half, abs=0.1 * half)
    assert interval.high == pytest.approx(values.mean() + half, abs=0.1 * half)


def test_paired_differences_cancel_what_the_blocks_share():
    rng = np.random.default_rng(0)
    shared = rng.normal(0.0, 10.0, size=50)  # luck of the deals, the same for both agents
    a, b = shared + 1.0, shared
    idx = resample_indices(50, 1000, seed=1)
    paired = bootstrap_interval(a - b, idx)
    assert paired.low == pytest.approx(1.0) and paired.high == pytest.approx(1.0)


def test_one_block_has_no_interval():
    interval = bootstrap_interval(np.array([3.0]), resample_indices(1, 10, seed=0))
    assert (interval.mean, interval.low, interval.high) == (3.0, None, None)
