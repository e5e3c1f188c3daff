"""The guided_search think-time workload runs (no timing thresholds: the figures are for docs/benchmark.md)."""

import pytest

from newmarket_env.engine.choice import compiled_available
from newmarket_env.eval.bench.guided import GUIDED_SETTINGS, guided_player, main, random_network, think_times

pytestmark = pytest.mark.skipif(not compiled_available(), reason="guided_search needs the compiled engine")


def test_the_suite_workload_plays_sessions_and_counts_the_guided_seat():
    play, description = guided_player(budget=2, cutoff=2)
    assert "guided_search budget 2 cutoff 2" in description
    assert play(0) > 0  # newmarket: seat 0 decides at least once in a session


def test_think_times_time_every_configuration_on_the_same_decisions(capsys):
    from newmarket_env.agents.search import SearchAgent

    times = think_times({"search": lambda rules, seed: SearchAgent(rules, seed, budget=2)}, decisions=5)
    assert list(times) == ["search"] and times["search"] > 0
    assert main(["--decisions", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("ms per decision") == 2 + len(GUIDED_SETTINGS) and "guided_search budget 2 cutoff 2" in out
    assert "search budget 64: " in out and "(1.00 x search's default budget)" in out  # the bar, against itself
    assert main(["--decisions", "2", "--variant", "newbury", "--rounds", "2", "--settings", "3:1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("newbury, 2 decisions, median of 2 round(s)") and out.count("ms per decision") == 3
    assert "guided_search budget 3 cutoff 1" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--settings", "8"], "'8' is not a list of BUDGET:CUTOFF pairs"),
        (["--settings", "0:2"], "'0:2' is not a list of BUDGET:CUTOFF pairs"),
        (["--rounds", "0"], "--rounds 0 is not allowed; allowed: 1 or more"),
        (["--variant", "hoyle1885"], "invalid choice: 'hoyle1885'"),
    ],
)
def test_bad_options_exit_2_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and err.strip().splitlines()[-1].count(message) == 1


def test_the_random_network_is_seeded():
    from newmarket_env.game.rules import make_rules

    rules = make_rules("newmarket", 4)
    a, b, c = random_network(rules, 0), random_network(rules, 0), random_network(rules, 1)
    assert (a.layers[0][0] == b.layers[0][0]).all() and not (a.layers[0][0] == c.layers[0][0]).all()
