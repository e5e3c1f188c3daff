"""The guided_search think-time workload runs (no timing thresholds: the figures are for docs/benchmark.md)."""

import pytest

from newmarket_env.engine.choice import compiled_available
from newmarket_env.eval.bench.guided import guided_player, main, random_network, think_times

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
    assert out.count("ms per decision") == 6 and "guided_search budget 16 cutoff 8" in out


def test_the_random_network_is_seeded():
    from newmarket_env.rules import make_rules

    rules = make_rules("newmarket", 4)
    a, b, c = random_network(rules, 0), random_network(rules, 0), random_network(rules, 1)
    assert (a.layers[0][0] == b.layers[0][0]).all() and not (a.layers[0][0] == c.layers[0][0]).all()
