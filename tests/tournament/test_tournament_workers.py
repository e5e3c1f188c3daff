"""Figures do not depend on the number of worker processes."""

from newmarket_env.eval.tournament import TournamentConfig, run_tournament
from newmarket_env.eval.tournament.report import results_dict


def figures(workers):
    config = TournamentConfig(agents=("random",) * 5, players=4, blocks=3, seed=9, workers=workers, resamples=200)
    data = results_dict(run_tournament(config))
    del data["speed"], data["config"]["workers"]
    return data


def test_one_and_two_workers_give_identical_results():
    one, two = figures(1), figures(2)
    assert one == two
    assert len(one["games"]) == 3 * 5 * 4  # blocks x line-ups (5 choose 4) x rotations
