"""The figures script runs end to end at a tiny size."""

import numpy as np

from newmarket_env.eval.agent_figures import FigureConfig, bootstrap_interval, duplicate_scores, main


def test_duplicate_scores_rotate_the_hero_over_the_same_deals():
    cfg = FigureConfig(players=4)
    values = duplicate_scores("newmarket", "lowest", "lowest", cfg, seeds=2)
    assert values.shape == (2,) and np.allclose(values, 0.0)  # the same agent everywhere: no edge


def test_bootstrap_interval_brackets_the_mean():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    low, high = bootstrap_interval(values, 500)
    assert low <= values.mean() <= high


def test_main_prints_a_table(capsys):
    main(["--variants", "hoyle1885", "--seeds", "1", "--search-seeds", "1", "--budget", "1"])
    out = capsys.readouterr().out
    assert out.count("| hoyle1885 |") == 4 and "search(budget=1)" in out
